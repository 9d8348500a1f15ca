// A batch as a log segment holds it (Kafka's FileLogInputStream.FileChannelRecordBatch): the shallow
// header view of a v2 batch or a legacy (magic 0/1) entry that file scans produce, and
// RecordBatch.ensureValid over its bytes. Import through batch.ts.

import * as L from './layout.js';
import { CorruptRecordError } from './layout.js';
import { crc32, crc32c } from './crc.js';
import { view } from './record-cursor.js';

/** Shallow view of one batch (v2) or legacy log entry (magic 0/1) found in a file. */
export interface StoredBatch {
  /** file position of the batch start */
  position: number;
  /** total size including the 12-byte log overhead */
  size: number;
  magic: number;
  /** v2: baseOffset; legacy: the entry's offset (the last inner offset for a compressed wrapper) */
  baseOffset: number;
  lastOffset: number;
  /** v2 partitionLeaderEpoch, -1 for legacy */
  partitionLeaderEpoch: number;
  /** v2 attributes (int16), legacy attributes (int8) */
  attributes: number;
  /** v2 baseTimestamp; legacy v1 timestamp; -1 otherwise */
  baseTimestamp: number;
  /** v2 maxTimestamp; legacy v1 timestamp; -1 for v0 */
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** v2 recordsCount, 1 for legacy */
  count: number;
  /** the full batch bytes, only when scanned with data (a view into a reusable chunk: copy to keep) */
  data?: Buffer;
}

export function isControlBatch(b: StoredBatch): boolean {
  return b.magic >= 2 && (b.attributes & L.CONTROL_FLAG_MASK) !== 0;
}
export function isTransactional(b: StoredBatch): boolean {
  return b.magic >= 2 && (b.attributes & L.TRANSACTIONAL_FLAG_MASK) !== 0;
}
export function hasDeleteHorizon(b: StoredBatch): boolean {
  return b.magic >= 2 && (b.attributes & L.DELETE_HORIZON_FLAG_MASK) !== 0;
}
export function isLogAppendTime(b: StoredBatch): boolean {
  return (b.attributes & L.TIMESTAMP_TYPE_MASK) !== 0 && b.magic >= 1;
}

/**
 * Parses the header of the batch at buf[off..]; `avail` bytes are readable from off.
 * Requires at least 17 bytes; v2 fields need 61 bytes (fields stay -1 if fewer are available).
 */
export function parseBatchHeader(bytes: Uint8Array, off: number, avail: number, position: number): StoredBatch {
  const buf = view(bytes, 0, bytes.length);
  const offset = Number(buf.readBigInt64BE(off + L.BASE_OFFSET));
  const length = buf.readInt32BE(off + L.BATCH_LENGTH);
  const magic = buf.readInt8(off + L.MAGIC);
  const b: StoredBatch = {
    position,
    size: L.LOG_OVERHEAD + length,
    magic,
    baseOffset: offset,
    lastOffset: offset,
    partitionLeaderEpoch: -1,
    attributes: 0,
    baseTimestamp: -1,
    maxTimestamp: -1,
    producerId: -1,
    producerEpoch: -1,
    baseSequence: -1,
    count: 1,
  };
  if (magic >= 2) {
    if (avail >= L.RECORD_BATCH_OVERHEAD && length + L.LOG_OVERHEAD >= L.RECORD_BATCH_OVERHEAD) {
      b.partitionLeaderEpoch = buf.readInt32BE(off + L.PARTITION_LEADER_EPOCH);
      b.attributes = buf.readInt16BE(off + L.ATTRIBUTES);
      b.lastOffset = offset + buf.readInt32BE(off + L.LAST_OFFSET_DELTA);
      b.baseTimestamp = Number(buf.readBigInt64BE(off + L.BASE_TIMESTAMP));
      b.maxTimestamp = Number(buf.readBigInt64BE(off + L.MAX_TIMESTAMP));
      b.producerId = Number(buf.readBigInt64BE(off + L.PRODUCER_ID));
      b.producerEpoch = buf.readInt16BE(off + L.PRODUCER_EPOCH);
      b.baseSequence = buf.readInt32BE(off + L.BASE_SEQUENCE);
      b.count = buf.readInt32BE(off + L.RECORDS_COUNT);
    }
  } else if (avail > L.LEGACY_ATTRIBUTES) {
    b.attributes = buf.readInt8(off + L.LEGACY_ATTRIBUTES);
    if (magic === 1 && avail >= L.LEGACY_ATTRIBUTES + 9) {
      b.maxTimestamp = b.baseTimestamp = Number(buf.readBigInt64BE(off + L.LEGACY_ATTRIBUTES + 1));
    }
  }
  return b;
}

/** Size, with the 12-byte log overhead, of the batch or legacy entry at bytes[off..] (12 bytes readable). Allocation-free. */
export function storedBatchSize(bytes: Uint8Array, off: number): number {
  return L.LOG_OVERHEAD + L.readInt32(bytes, off + L.BATCH_LENGTH);
}

/**
 * parseBatchHeader(...).lastOffset without the object: baseOffset + lastOffsetDelta for v2 (61 bytes
 * readable), the entry's offset for legacy (17 bytes readable). Allocation-free.
 */
export function storedBatchLastOffset(bytes: Uint8Array, off: number): number {
  const offset = L.readInt64(bytes, off + L.BASE_OFFSET);
  return bytes[off + L.MAGIC]! >= 2 ? offset + L.readInt32(bytes, off + L.LAST_OFFSET_DELTA) : offset;
}

/**
 * Kafka's RecordBatch.ensureValid for a batch whose bytes are data[0, size): size minimums, magic and
 * checksum (CRC-32C from attributes for v2; CRC-32 from magic for v0/v1). Throws CorruptRecordError.
 */
export function ensureValidBatch(data: Buffer, b: StoredBatch): void {
  if (b.magic === 2) {
    if (b.size < L.RECORD_BATCH_OVERHEAD) {
      throw new CorruptRecordError(
        `Record batch is corrupt (the size ${b.size} is smaller than the minimum allowed overhead ${L.RECORD_BATCH_OVERHEAD})`,
      );
    }
    const stored = data.readUInt32BE(L.CRC);
    const computed = crc32c(data, L.ATTRIBUTES, b.size);
    if (stored !== computed)
      throw new CorruptRecordError(`Record is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
    if (b.lastOffset < b.baseOffset)
      throw new CorruptRecordError(`Record batch has a negative last offset delta at ${b.position}`);
  } else if (b.magic === 0 || b.magic === 1) {
    const min = L.LOG_OVERHEAD + (b.magic === 0 ? L.LEGACY_RECORD_OVERHEAD_V0 : L.LEGACY_RECORD_OVERHEAD_V1);
    if (b.size < min)
      throw new CorruptRecordError(`Record size ${b.size - L.LOG_OVERHEAD} is less than the minimum record overhead`);
    const stored = data.readUInt32BE(L.LEGACY_CRC);
    const computed = crc32(data, L.LEGACY_MAGIC, b.size);
    if (stored !== computed)
      throw new CorruptRecordError(`Record is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
  } else {
    throw new CorruptRecordError(`Invalid magic ${b.magic} at position ${b.position}`);
  }
}
