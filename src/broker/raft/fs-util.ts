// Small durable-file helpers shared by the metadata log, snapshots and checkpoint files.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

/** fsync a directory so that a create/rename inside it is durable (no-op where unsupported). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    // Some platforms/filesystems cannot fsync directories; the rename is still atomic.
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Kafka's atomic file replacement: write `<file>.tmp`, fsync it, rename over `file`, fsync the
 * directory (CheckpointFile / Utils.atomicMoveWithFallback).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.tmp`;
  await fsp.rm(tmp, { force: true });
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
  await fsyncDir(path.dirname(file));
}

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
