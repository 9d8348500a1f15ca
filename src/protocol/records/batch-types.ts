// Record batch, magic v2: the types shared by the batch modules (batch-header, batch-iterate,
// batch-records, batch-build). Import them through batch.ts; see there for the overview.
//
// Number types: offsets, timestamps, epochs and sequences are JS `number`s (int64 fields are read
// as hi * 2^32 + lo, exact below 2^53 — always true for real offsets and millisecond timestamps;
// larger values lose precision when decoded but are never rewritten unless a setter is called).
// The producer id is a `bigint`, matching the wire codec's int64 type.

import type { CompressionType, TimestampType } from './layout.js';

export const enum ControlRecordType {
  Abort = 0,
  Commit = 1,
  LeaderChange = 2,
  SnapshotHeader = 3,
  SnapshotFooter = 4,
  KRaftVersion = 5,
  KRaftVoters = 6,
}

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface ControlRecordInfo {
  version: number;
  type: number;
  /** For ABORT/COMMIT markers; null for other control types. */
  coordinatorEpoch: number | null;
}

export interface KafkaRecord {
  offset: number;
  offsetDelta: number;
  /** Effective timestamp (maxTimestamp of the batch under LogAppendTime). */
  timestamp: number;
  timestampDelta: number;
  /** baseSequence + offsetDelta (wrapping at 2^31), or -1. */
  sequence: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  /** Set on records of control batches. */
  control?: ControlRecordInfo;
}

export interface RecordBatchHeader {
  baseOffset: number;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: CompressionType;
  timestampType: TimestampType;
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizon: boolean;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordsCount: number;
  /** baseOffset + lastOffsetDelta */
  lastOffset: number;
  /** batchLength + 12 */
  sizeInBytes: number;
}

export interface RecordBatch extends RecordBatchHeader {
  records: KafkaRecord[];
}

export interface RecordInput {
  key?: Uint8Array | string | null;
  value?: Uint8Array | string | null;
  headers?: ReadonlyArray<{ key: string; value: Uint8Array | string | null }>;
  /** Default: the build time (Date.now()). */
  timestamp?: number;
  /** Default: the record's index. Must be strictly increasing. */
  offsetDelta?: number;
}

export interface BuildBatchOptions {
  baseOffset?: number;
  records: readonly RecordInput[];
  compression?: CompressionType;
  compressionLevel?: number;
  producerId?: bigint | number;
  producerEpoch?: number;
  baseSequence?: number;
  transactional?: boolean;
  isControl?: boolean;
  partitionLeaderEpoch?: number;
  timestampType?: TimestampType;
  /** maxTimestamp under LogAppendTime (default Date.now()). */
  logAppendTime?: number;
  /** Override baseTimestamp (default: first record's timestamp, -1 with no records). */
  baseTimestamp?: number;
  /** Set attribute bit 6 (baseTimestamp is then the delete horizon). */
  deleteHorizon?: boolean;
}

export interface DecodeOptions {
  /** Verify the CRC-32C (default true). */
  verifyCrc?: boolean;
  /** Maximum decompressed size of the records section (default 256 MiB). */
  maxDecompressedSize?: number;
  /** Copy keys/values/header values out of the input instead of returning views. */
  copy?: boolean;
}
