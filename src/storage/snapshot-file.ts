// KRaft snapshot files of `__cluster_metadata-0`: `<20-digit endOffset>-<10-digit epoch>.checkpoint`
// (Kafka's Snapshots, FileRawSnapshotWriter), written to `<stem>-<random>.checkpoint.part`, fsynced
// and renamed; and `bootstrap.checkpoint` in the metadata log directory (BootstrapDirectory,
// BatchFileWriter), written through `bootstrap.checkpoint.tmp`. Both hold v2 record batches (their
// content, the header/footer control records and metadata records, is src/broker/raft/snapshots.ts);
// they are read with src/storage/segment-io.ts.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { atomicWriteFile, listDir } from './file-ops.js';
import { filenamePrefixFromOffset } from './log-file-names.js';

export const SNAPSHOT_SUFFIX = '.checkpoint';
export const PARTIAL_SUFFIX = '.checkpoint.part';
export const DELETED_SUFFIX = '.checkpoint.deleted';
export const BOOTSTRAP_CHECKPOINT_FILE = 'bootstrap.checkpoint';

/** A snapshot id: the end offset (exclusive) and the epoch of its last record. */
export interface SnapshotId {
  readonly offset: number;
  readonly epoch: number;
}

export function snapshotFileName(id: SnapshotId): string {
  return `${filenamePrefixFromOffset(id.offset)}-${String(id.epoch).padStart(10, '0')}${SNAPSHOT_SUFFIX}`;
}

export function parseSnapshotFileName(name: string): SnapshotId | null {
  const m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(name);
  return m ? { offset: Number(m[1]), epoch: Number(m[2]) } : null;
}

/** Completed snapshots in the directory, oldest first; removes stale partial/deleted files. */
export async function listSnapshots(dir: string): Promise<SnapshotId[]> {
  const out: SnapshotId[] = [];
  for (const n of await listDir(dir)) {
    if (n.endsWith(PARTIAL_SUFFIX) || n.endsWith(DELETED_SUFFIX)) {
      await fsp.rm(path.join(dir, n), { force: true });
      continue;
    }
    const id = parseSnapshotFileName(n);
    if (id) out.push(id);
  }
  return out.sort((a, b) => a.offset - b.offset || a.epoch - b.epoch);
}

/** Writes `file` via `<file-stem>-<random>.checkpoint.part` + fsync + rename + directory fsync. */
export async function writeSnapshotData(file: string, data: Uint8Array): Promise<void> {
  const stem = file.endsWith(SNAPSHOT_SUFFIX) ? file.slice(0, -SNAPSHOT_SUFFIX.length) : file;
  await atomicWriteFile(file, data, `${stem}-${randomBytes(8).toString('hex')}${PARTIAL_SUFFIX}`);
}

export function bootstrapCheckpointFile(dir: string): string {
  return path.join(dir, BOOTSTRAP_CHECKPOINT_FILE);
}

/** Writes `<dir>/bootstrap.checkpoint` via `bootstrap.checkpoint.tmp` + fsync + rename + directory fsync. */
export async function writeBootstrapCheckpointData(dir: string, data: Uint8Array): Promise<void> {
  await atomicWriteFile(bootstrapCheckpointFile(dir), data);
}
