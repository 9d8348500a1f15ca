// Record batch, magic v2: header access, CRC-32C computation and validation, and the in-place
// rewrites the broker performs on append. Import through batch.ts.

import * as L from './layout.js';
import { TimestampType, type CompressionType } from './layout.js';
import { crc32c } from './crc.js';
import {
  CorruptRecordError,
  type CorruptReason,
  readInt16 as rdI16,
  readInt32 as rdI32,
  readInt64 as rdI64,
  writeInt16 as wrI16,
  writeInt32 as wrI32,
  writeInt64 as wrI64,
} from './layout.js';
import type { RecordBatchHeader } from './batch-types.js';
import { view } from './record-cursor.js';

/** A CorruptRecordError (shared by the batch modules; not part of batch.ts's exports). */
export const corrupt = (reason: CorruptReason, msg: string) => new CorruptRecordError(msg, reason);

// ---------------------------------------------------------------------------------------------
// Header access and validation

/** Reads and sanity-checks a v2 batch header at `pos` (needs the whole batch in `buf`). */
export function readBatchHeader(buf: Uint8Array, pos = 0, end = buf.length): RecordBatchHeader {
  const size = checkBatchBounds(buf, pos, end);
  const attributes = rdI16(buf, pos + L.ATTRIBUTES);
  const baseOffset = rdI64(buf, pos + L.BASE_OFFSET);
  const lastOffsetDelta = rdI32(buf, pos + L.LAST_OFFSET_DELTA);
  return {
    baseOffset,
    batchLength: size - L.LOG_OVERHEAD,
    partitionLeaderEpoch: rdI32(buf, pos + L.PARTITION_LEADER_EPOCH),
    magic: buf[pos + L.MAGIC]!,
    crc: rdI32(buf, pos + L.CRC) >>> 0,
    attributes,
    compression: (attributes & L.COMPRESSION_CODEC_MASK) as CompressionType,
    timestampType: (attributes & L.TIMESTAMP_TYPE_MASK) !== 0 ? TimestampType.LogAppendTime : TimestampType.CreateTime,
    isTransactional: (attributes & L.TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl: (attributes & L.CONTROL_FLAG_MASK) !== 0,
    hasDeleteHorizon: (attributes & L.DELETE_HORIZON_FLAG_MASK) !== 0,
    lastOffsetDelta,
    baseTimestamp: rdI64(buf, pos + L.BASE_TIMESTAMP),
    maxTimestamp: rdI64(buf, pos + L.MAX_TIMESTAMP),
    producerId: (BigInt(rdI32(buf, pos + L.PRODUCER_ID)) << 32n) | BigInt(rdI32(buf, pos + L.PRODUCER_ID + 4) >>> 0),
    producerEpoch: rdI16(buf, pos + L.PRODUCER_EPOCH),
    baseSequence: rdI32(buf, pos + L.BASE_SEQUENCE),
    recordsCount: rdI32(buf, pos + L.RECORDS_COUNT),
    lastOffset: baseOffset + lastOffsetDelta,
    sizeInBytes: size,
  };
}

/** The v2 header with int64 fields exact (bigint) and nothing checked: what a tool prints for any bytes. */
export interface ExactBatchHeader {
  baseOffset: bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  count: number;
}

/** Reads the 61-byte v2 header at `pos` as stored (buf must hold them). */
export function readBatchHeaderExact(buf: Uint8Array, pos = 0): ExactBatchHeader {
  const b = view(buf, pos, pos + L.RECORD_BATCH_OVERHEAD);
  return {
    baseOffset: b.readBigInt64BE(L.BASE_OFFSET),
    batchLength: b.readInt32BE(L.BATCH_LENGTH),
    partitionLeaderEpoch: b.readInt32BE(L.PARTITION_LEADER_EPOCH),
    magic: b.readInt8(L.MAGIC),
    crc: b.readUInt32BE(L.CRC),
    attributes: b.readInt16BE(L.ATTRIBUTES),
    lastOffsetDelta: b.readInt32BE(L.LAST_OFFSET_DELTA),
    baseTimestamp: b.readBigInt64BE(L.BASE_TIMESTAMP),
    maxTimestamp: b.readBigInt64BE(L.MAX_TIMESTAMP),
    producerId: b.readBigInt64BE(L.PRODUCER_ID),
    producerEpoch: b.readInt16BE(L.PRODUCER_EPOCH),
    baseSequence: b.readInt32BE(L.BASE_SEQUENCE),
    count: b.readInt32BE(L.RECORDS_COUNT),
  };
}

/** Checks magic 2 and that the declared length is sane and fits; returns the batch size. */
function checkBatchBounds(buf: Uint8Array, pos: number, end: number): number {
  if (pos < 0 || end - pos < L.RECORD_BATCH_OVERHEAD)
    throw corrupt('TRUNCATED', `record batch at ${pos} is shorter than ${L.RECORD_BATCH_OVERHEAD} bytes`);
  const magic = buf[pos + L.MAGIC]!;
  if (magic !== L.MAGIC_V2) throw corrupt('INVALID_MAGIC', `expected magic 2 at ${pos}, found ${magic}`);
  const len = rdI32(buf, pos + L.BATCH_LENGTH);
  if (len < L.RECORD_BATCH_OVERHEAD - L.LOG_OVERHEAD)
    throw corrupt('INVALID_LENGTH', `record batch length ${len} is below the minimum`);
  if (len > end - pos - L.LOG_OVERHEAD)
    throw corrupt('TRUNCATED', `record batch length ${len} runs past the end of the buffer`);
  return len + L.LOG_OVERHEAD;
}

/** CRC-32C the batch at `pos` should carry (attributes .. end of batch). */
export function computeBatchCrc(buf: Uint8Array, pos = 0): number {
  return crc32c(buf, pos + L.ATTRIBUTES, pos + L.LOG_OVERHEAD + rdI32(buf, pos + L.BATCH_LENGTH));
}

/** True if the stored CRC matches. Assumes the bounds were checked (see validateBatch). */
export function verifyBatchCrc(buf: Uint8Array, pos = 0): boolean {
  return computeBatchCrc(buf, pos) === rdI32(buf, pos + L.CRC) >>> 0;
}

/** Recomputes and stores the CRC of the batch at `pos`. */
export function writeBatchCrc(buf: Uint8Array, pos = 0): void {
  wrI32(buf, pos + L.CRC, computeBatchCrc(buf, pos));
}

/** Validates bounds, magic and CRC of the v2 batch at `pos`; returns its size. Allocation-free. */
export function validateBatch(buf: Uint8Array, pos = 0, end = buf.length): number {
  const size = checkBatchBounds(buf, pos, end);
  const stored = rdI32(buf, pos + L.CRC) >>> 0;
  const computed = crc32c(buf, pos + L.ATTRIBUTES, pos + size);
  if (stored !== computed) {
    throw corrupt(
      'CRC_MISMATCH',
      `record batch at ${pos} is corrupt (stored crc = ${stored}, computed crc = ${computed})`,
    );
  }
  if (rdI32(buf, pos + L.RECORDS_COUNT) < 0) throw corrupt('INVALID_RECORD', 'negative record count');
  return size;
}

// ---------------------------------------------------------------------------------------------
// In-place rewrites (the broker on append)

/** Sets the base offset field (outside the CRC). Works for the offset field of any magic. */
export function setBaseOffset(buf: Uint8Array, pos: number, offset: number): void {
  wrI64(buf, pos + L.BASE_OFFSET, offset);
}

/** Sets the partition leader epoch (outside the CRC). */
export function setPartitionLeaderEpoch(buf: Uint8Array, pos: number, epoch: number): void {
  wrI32(buf, pos + L.PARTITION_LEADER_EPOCH, epoch);
}

/** Sets timestamp type + maxTimestamp and recomputes the CRC (DefaultRecordBatch.setMaxTimestamp). */
export function setMaxTimestamp(buf: Uint8Array, pos: number, type: TimestampType, maxTimestamp: number): void {
  const attrs = rdI16(buf, pos + L.ATTRIBUTES);
  const next = type === TimestampType.LogAppendTime ? attrs | L.TIMESTAMP_TYPE_MASK : attrs & ~L.TIMESTAMP_TYPE_MASK;
  if (next === attrs && rdI64(buf, pos + L.MAX_TIMESTAMP) === maxTimestamp) return;
  wrI16(buf, pos + L.ATTRIBUTES, next);
  wrI64(buf, pos + L.MAX_TIMESTAMP, maxTimestamp);
  writeBatchCrc(buf, pos);
}

/** Marks the batch LogAppendTime with the given append time (recomputes the CRC). */
export function setLogAppendTime(buf: Uint8Array, pos: number, timestamp: number): void {
  setMaxTimestamp(buf, pos, TimestampType.LogAppendTime, timestamp);
}
