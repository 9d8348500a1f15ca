// The content of snapshot `.checkpoint` files and of `bootstrap.checkpoint` (Kafka's
// RecordsSnapshotWriter, BatchFileWriter): v2 batches with base offsets starting at 0 inside the
// file and partitionLeaderEpoch = the snapshot epoch; first a control batch with
// SnapshotHeaderRecord (+ KRaftVersionRecord and VotersRecord when kraft.version >= 1), then data
// batches of framed metadata records, then a control batch with SnapshotFooterRecord. The files
// themselves (names, listing, atomic writes, batch reads) are src/storage.

import {
  buildControlBatch,
  buildDataBatch,
  ControlRecordType,
  decodeMetadataBatch,
  type ControlRecord,
} from './batches.js';
import { readBatches } from '../../storage/segment-io.js';
import { writeSnapshotData } from '../../storage/snapshot-file.js';
import type { MetadataRecord } from '../metadata/records.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import type { OffsetAndEpoch } from './types.js';

export {
  listSnapshots,
  parseSnapshotFileName,
  snapshotFileName,
  SNAPSHOT_SUFFIX,
  PARTIAL_SUFFIX,
  DELETED_SUFFIX,
} from '../../storage/snapshot-file.js';
/** Records per data batch (SnapshotEmitter's default batch size). */
export const SNAPSHOT_RECORDS_PER_BATCH = 1024;

export function compareOffsetAndEpoch(a: OffsetAndEpoch, b: OffsetAndEpoch): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.offset - b.offset;
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

/** Encodes the snapshot and writes it atomically as `file`. */
export async function writeSnapshotFile(file: string, c: SnapshotContent): Promise<void> {
  await writeSnapshotData(file, encodeSnapshot(c));
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
