// Record batches of the metadata log and of snapshot files (§10.3/§10.5 of storage-formats.md):
// magic 2, CreateTime, no producer id, uncompressed, partitionLeaderEpoch = the Raft epoch.
// Data batches hold framed metadata records (null key, no headers). KRaft control batches hold
// LeaderChangeMessage / SnapshotHeaderRecord / SnapshotFooterRecord / KRaftVersionRecord /
// VotersRecord values, serialized at version 0 without a version prefix, keyed by
// (int16 version 0, int16 control type).

import {
  buildRecordBatchSync,
  controlRecordKey,
  ControlRecordType,
  decodeBatchSync,
  readBatchHeader,
} from './batch.js';
import { Reader } from '../codec/reader.js';
import { Writer } from '../codec/writer.js';
import {
  readLeaderChangeMessage,
  writeLeaderChangeMessage,
  type LeaderChangeMessage,
} from '../generated/protocol/LeaderChangeMessage.js';
import {
  readSnapshotHeaderRecord,
  writeSnapshotHeaderRecord,
  type SnapshotHeaderRecord,
} from '../generated/protocol/SnapshotHeaderRecord.js';
import {
  readSnapshotFooterRecord,
  writeSnapshotFooterRecord,
  type SnapshotFooterRecord,
} from '../generated/protocol/SnapshotFooterRecord.js';
import {
  readKRaftVersionRecord,
  writeKRaftVersionRecord,
  type KRaftVersionRecord,
} from '../generated/protocol/KRaftVersionRecord.js';
import { readVotersRecord, writeVotersRecord, type VotersRecord } from '../generated/protocol/VotersRecord.js';
import { deserializeMetadataRecord, serializeMetadataRecord, type MetadataRecord } from '../metadata-records.js';

export { ControlRecordType };

/** KafkaRaftClient.MAX_BATCH_SIZE_BYTES. */
export const MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024;

export type ControlRecord =
  | { readonly type: ControlRecordType.LeaderChange; readonly data: LeaderChangeMessage }
  | { readonly type: ControlRecordType.SnapshotHeader; readonly data: SnapshotHeaderRecord }
  | { readonly type: ControlRecordType.SnapshotFooter; readonly data: SnapshotFooterRecord }
  | { readonly type: ControlRecordType.KRaftVersion; readonly data: KRaftVersionRecord }
  | { readonly type: ControlRecordType.KRaftVoters; readonly data: VotersRecord }
  | { readonly type: number; readonly data: null };

/** The generated codec of each KRaft control record value (serialized at version 0, no version prefix). */
const CONTROL_VALUE_CODECS: Record<
  number,
  { read: (r: Reader, v: number) => unknown; write: (w: Writer, v: number, m: never) => void }
> = {
  [ControlRecordType.LeaderChange]: { read: readLeaderChangeMessage, write: writeLeaderChangeMessage },
  [ControlRecordType.SnapshotHeader]: { read: readSnapshotHeaderRecord, write: writeSnapshotHeaderRecord },
  [ControlRecordType.SnapshotFooter]: { read: readSnapshotFooterRecord, write: writeSnapshotFooterRecord },
  [ControlRecordType.KRaftVersion]: { read: readKRaftVersionRecord, write: writeKRaftVersionRecord },
  [ControlRecordType.KRaftVoters]: { read: readVotersRecord, write: writeVotersRecord },
};

function encodeControlValue(rec: ControlRecord): Buffer {
  const codec = CONTROL_VALUE_CODECS[rec.type];
  if (!codec) throw new RangeError(`cannot encode control record type ${rec.type}`);
  const w = new Writer(64);
  codec.write(w, 0, rec.data as never);
  return w.toBuffer();
}

function decodeControlValue(type: number, value: Buffer | null): ControlRecord {
  const codec = CONTROL_VALUE_CODECS[type];
  // unknown control types are ignored
  if (value === null || !codec) return { type, data: null };
  return { type, data: codec.read(new Reader(value), 0) } as ControlRecord;
}

export interface BatchPosition {
  readonly baseOffset: number;
  readonly epoch: number;
  readonly timestamp: number;
}

export function buildDataBatch(pos: BatchPosition, records: readonly MetadataRecord[]): Buffer {
  if (records.length === 0) throw new RangeError('a metadata batch needs at least one record');
  return buildRecordBatchSync({
    baseOffset: pos.baseOffset,
    partitionLeaderEpoch: pos.epoch,
    baseTimestamp: pos.timestamp,
    records: records.map((r) => ({ key: null, value: serializeMetadataRecord(r), timestamp: pos.timestamp })),
  });
}

export function buildControlBatch(pos: BatchPosition, records: readonly ControlRecord[]): Buffer {
  return buildRecordBatchSync({
    baseOffset: pos.baseOffset,
    partitionLeaderEpoch: pos.epoch,
    baseTimestamp: pos.timestamp,
    isControl: true,
    records: records.map((r) => ({
      key: controlRecordKey(r.type, 0),
      value: encodeControlValue(r),
      timestamp: pos.timestamp,
    })),
  });
}

export interface MetadataBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly epoch: number;
  /** maxTimestamp of the batch (its append time). */
  readonly appendTimestamp: number;
  readonly sizeInBytes: number;
  readonly isControl: boolean;
  /** Data records (empty for control batches). */
  readonly records: readonly MetadataRecord[];
  /** Control records (empty for data batches). */
  readonly controls: readonly ControlRecord[];
}

/** Decodes (and CRC-checks) the batch at `pos` of `buf`. */
export function decodeMetadataBatch(buf: Buffer, pos = 0): MetadataBatch {
  const b = decodeBatchSync(buf, pos, { copy: true });
  const records: MetadataRecord[] = [];
  const controls: ControlRecord[] = [];
  for (const r of b.records) {
    if (b.isControl) controls.push(decodeControlValue(r.control!.type, r.value));
    else {
      if (r.value === null) throw new Error(`metadata record at offset ${r.offset} has a null value`);
      records.push(deserializeMetadataRecord(r.value));
    }
  }
  return {
    baseOffset: b.baseOffset,
    lastOffset: b.lastOffset,
    epoch: b.partitionLeaderEpoch,
    appendTimestamp: b.maxTimestamp,
    sizeInBytes: b.sizeInBytes,
    isControl: b.isControl,
    records,
    controls,
  };
}

/** Header-only view (no record decoding). */
export function batchInfo(
  buf: Uint8Array,
  pos = 0,
): { baseOffset: number; lastOffset: number; epoch: number; maxTimestamp: number; size: number } {
  const h = readBatchHeader(buf, pos);
  return {
    baseOffset: h.baseOffset,
    lastOffset: h.lastOffset,
    epoch: h.partitionLeaderEpoch,
    maxTimestamp: h.maxTimestamp,
    size: h.sizeInBytes,
  };
}
