// Small durable-file helpers shared by the metadata log, snapshots and checkpoint files.

import { promises as fsp } from 'node:fs';

// The atomic file write and the directory fsync live in src/storage/checkpoint-file.ts; re-exported here under
// the names the raft and metadata code use.
export { atomicWriteFile as writeFileAtomic, fsyncDir } from '../../storage/checkpoint-file.js';

export async function exists(p: string): Promise<boolean> {
  try {
    await fsp.access(p);
    return true;
  } catch {
    return false;
  }
}

/** 20-digit zero-padded offset, as in segment and snapshot file names. */
export function offsetFileName(offset: number): string {
  return String(offset).padStart(20, '0');
}
