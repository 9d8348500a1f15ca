// Snapshot files `<20-digit endOffset>-<10-digit epoch>.checkpoint` (Kafka's Snapshots,
// RecordsSnapshotWriter, FileRawSnapshotWriter) and the same layout for `bootstrap.checkpoint`
// (BatchFileWriter): v2 batches with base offsets starting at 0 inside the file and
// partitionLeaderEpoch = the snapshot epoch; first a control batch with SnapshotHeaderRecord
// (+ KRaftVersionRecord and VotersRecord when kraft.version >= 1), then data batches of framed
// metadata records, then a control batch with SnapshotFooterRecord. Written to a `.checkpoint.part`
// file, fsynced, then renamed.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  buildControlBatch,
  buildDataBatch,
  ControlRecordType,
  decodeMetadataBatch,
  type ControlRecord,
} from './batches.js';
import { fsyncDir, offsetFileName } from './fs-util.js';
import { readBatches } from '../../storage/segment-io.js';
import type { MetadataRecord } from '../metadata/records.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import type { OffsetAndEpoch } from './types.js';

export const SNAPSHOT_SUFFIX = '.checkpoint';
export const PARTIAL_SUFFIX = '.checkpoint.part';
export const DELETED_SUFFIX = '.checkpoint.deleted';
/** Records per data batch (SnapshotEmitter's default batch size). */
export const SNAPSHOT_RECORDS_PER_BATCH = 1024;

export function snapshotFileName(id: OffsetAndEpoch): string {
  return `${offsetFileName(id.offset)}-${String(id.epoch).padStart(10, '0')}${SNAPSHOT_SUFFIX}`;
}

export function parseSnapshotFileName(name: string): OffsetAndEpoch | null {
  const m = /^(\d{20})-(\d{10})\.checkpoint$/.exec(name);
  return m ? { offset: Number(m[1]), epoch: Number(m[2]) } : null;
}

export function compareOffsetAndEpoch(a: OffsetAndEpoch, b: OffsetAndEpoch): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.offset - b.offset;
}

/** Completed snapshots in the directory, oldest first; removes stale partial/deleted files. */
export async function listSnapshots(dir: string): Promise<OffsetAndEpoch[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch {
    return [];
  }
  const out: OffsetAndEpoch[] = [];
  for (const n of names) {
    if (n.endsWith(PARTIAL_SUFFIX) || n.endsWith(DELETED_SUFFIX)) {
      await fsp.rm(path.join(dir, n), { force: true });
      continue;
    }
    const id = parseSnapshotFileName(n);
    if (id) out.push(id);
  }
  return out.sort((a, b) => a.offset - b.offset || a.epoch - b.epoch);
}

export interface SnapshotContent {
  /** Epoch stamped on every batch (the snapshot id's epoch; 0 for bootstrap files). */
  readonly epoch: number;
  readonly lastContainedLogTimestamp: number;
  readonly records: readonly MetadataRecord[];
  /** kraft.version >= 1 adds KRaftVersionRecord (+ VotersRecord if given) to the header batch. */
  readonly kraftVersion?: number;
  readonly voters?: VotersRecord | null;
  /** Append time stamped on the batches (default now). */
  readonly now?: number;
}

/** Encodes a snapshot/bootstrap file in memory. */
export function encodeSnapshot(c: SnapshotContent): Buffer {
  const now = c.now ?? Date.now();
  const parts: Buffer[] = [];
  let offset = 0;
  const header: ControlRecord[] = [
    {
      type: ControlRecordType.SnapshotHeader,
      data: { version: 0, lastContainedLogTimestamp: BigInt(c.lastContainedLogTimestamp) },
    },
  ];
  if ((c.kraftVersion ?? 0) >= 1) {
    header.push({ type: ControlRecordType.KRaftVersion, data: { version: 0, kRaftVersion: c.kraftVersion! } });
    if (c.voters) header.push({ type: ControlRecordType.KRaftVoters, data: c.voters });
  }
  parts.push(buildControlBatch({ baseOffset: offset, epoch: c.epoch, timestamp: now }, header));
  offset += header.length;
  for (let i = 0; i < c.records.length; i += SNAPSHOT_RECORDS_PER_BATCH) {
    const chunk = c.records.slice(i, i + SNAPSHOT_RECORDS_PER_BATCH);
    parts.push(buildDataBatch({ baseOffset: offset, epoch: c.epoch, timestamp: now }, chunk));
    offset += chunk.length;
  }
  parts.push(
    buildControlBatch({ baseOffset: offset, epoch: c.epoch, timestamp: now }, [
      { type: ControlRecordType.SnapshotFooter, data: { version: 0 } },
    ]),
  );
  return Buffer.concat(parts);
}

/** Writes `file` via `<file-stem>-<random>.checkpoint.part` + fsync + rename + directory fsync. */
export async function writeSnapshotFile(file: string, c: SnapshotContent): Promise<void> {
  const data = encodeSnapshot(c);
  const stem = file.endsWith(SNAPSHOT_SUFFIX) ? file.slice(0, -SNAPSHOT_SUFFIX.length) : file;
  const part = `${stem}-${randomBytes(8).toString('hex')}${PARTIAL_SUFFIX}`;
  const fh = await fsp.open(part, 'wx');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(part, file);
  await fsyncDir(path.dirname(file));
}

export interface LoadedSnapshot {
  readonly lastContainedLogTimestamp: number;
  readonly records: MetadataRecord[];
  readonly kraftVersion: number;
  readonly voters: VotersRecord | null;
  readonly epoch: number;
}

/** Reads and validates a snapshot (header first, footer last, CRCs, record framing). */
export async function readSnapshotFile(file: string): Promise<LoadedSnapshot> {
  const records: MetadataRecord[] = [];
  let lastContainedLogTimestamp = -1;
  let kraftVersion = 0;
  let voters: VotersRecord | null = null;
  let sawHeader = false;
  let sawFooter = false;
  let epoch = -1;
  let error: Error | null = null;
  const res = await readBatches(
    file,
    0,
    (_info, buf) => {
      const b = decodeMetadataBatch(buf, 0);
      epoch = b.epoch;
      if (sawFooter) {
        error = new Error(`snapshot ${file} has data after its footer`);
        return false;
      }
      if (b.isControl) {
        for (const c of b.controls) {
          if (c.type === ControlRecordType.SnapshotHeader && c.data) {
            sawHeader = true;
            lastContainedLogTimestamp = Number(c.data.lastContainedLogTimestamp);
          } else if (c.type === ControlRecordType.SnapshotFooter) {
            sawFooter = true;
          } else if (c.type === ControlRecordType.KRaftVersion && c.data) {
            kraftVersion = c.data.kRaftVersion;
          } else if (c.type === ControlRecordType.KRaftVoters && c.data) {
            voters = c.data;
          }
        }
      } else {
        if (!sawHeader) {
          error = new Error(`snapshot ${file} does not start with a SnapshotHeaderRecord`);
          return false;
        }
        records.push(...b.records);
      }
      return true;
    },
    { verifyCrc: true, stopOnError: false },
  );
  if (error) throw error;
  if (res.error) throw res.error;
  if (!sawHeader || !sawFooter)
    throw new Error(`snapshot ${file} is incomplete (header ${sawHeader}, footer ${sawFooter})`);
  return { lastContainedLogTimestamp, records, kraftVersion, voters, epoch };
}
