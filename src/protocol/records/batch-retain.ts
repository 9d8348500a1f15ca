// Record batch, magic v2: what the log layer needs below whole-batch decoding: per-record offsets,
// timestamps and keys (compaction, timestamp lookups, transaction markers) as views, and re-encoding
// a batch with a subset of its records (Kafka's MemoryRecords.buildRetainedRecordsInto) or none
// (DefaultRecordBatch.writeEmptyHeader). Import through batch.ts.

import * as L from './layout.js';
import { CompressionType } from './layout.js';
import { compress, decompress } from './compression.js';
import {
  readInt16 as rdI16,
  sizeOfUnsignedVarint,
  writeInt16 as wrI16,
  writeInt32 as wrI32,
  writeInt64 as wrI64,
  writeUnsignedVarint,
  zigzag32,
  zigzag64,
} from './layout.js';
import { writeBatchCrc } from './batch-header.js';
import { RecordCursor, view } from './record-cursor.js';
import type { StoredBatch } from './batch-stored.js';

export interface RecordView {
  offset: number;
  timestamp: number;
  attributes: number;
  /** null for a null key */
  key: Buffer | null;
  /** true when the value is null (a tombstone) */
  valueIsNull: boolean;
  /** the record bytes from the key size to the end (key, value, headers): copied unchanged on re-encode */
  tail: Buffer;
}

/** Uncompressed records section of a batch (decompressing if needed). */
export async function recordsPayload(batch: Buffer, h: StoredBatch): Promise<Buffer> {
  const payload = batch.subarray(L.RECORD_BATCH_OVERHEAD, h.size);
  const codec = (h.attributes & L.COMPRESSION_CODEC_MASK) as CompressionType;
  if (codec === CompressionType.None) return payload;
  return decompress(codec, payload);
}

/** Every record of a v2 batch (`batch` = the full batch bytes) as views. */
export async function readRecordViews(batch: Buffer, h: StoredBatch): Promise<RecordView[]> {
  if (h.magic !== L.MAGIC_V2)
    throw new L.CorruptRecordError(`record iteration supports magic 2 only (found ${h.magic})`, 'INVALID_MAGIC');
  const payload = await recordsPayload(batch, h);
  const logAppendTime = (h.attributes & L.TIMESTAMP_TYPE_MASK) !== 0;
  const out: RecordView[] = [];
  const c = new RecordCursor().reset(payload, 0, payload.length, h.count);
  while (c.next()) {
    out.push({
      offset: h.baseOffset + c.offsetDelta,
      timestamp: logAppendTime ? h.maxTimestamp : h.baseTimestamp + c.timestampDelta,
      attributes: (c.attributes << 24) >> 24,
      key: c.key(),
      valueIsNull: c.valueSize < 0,
      tail: view(payload, c.keySizePos, c.recordEnd),
    });
  }
  return out;
}

/** Kafka's DefaultRecordBatch.offsetOfMaxTimestamp (v2). */
export async function offsetOfMaxTimestamp(batch: Buffer, h: StoredBatch): Promise<number | undefined> {
  if ((h.attributes & L.TIMESTAMP_TYPE_MASK) !== 0) return h.baseOffset;
  for (const r of await readRecordViews(batch, h)) if (r.timestamp === h.maxTimestamp) return r.offset;
  return undefined;
}

/** Control record type (0 ABORT, 1 COMMIT, ...) of the first record of a control batch, or -1. */
export async function controlRecordTypeOf(batch: Buffer, h: StoredBatch): Promise<number> {
  if (h.count <= 0) return -1;
  const [first] = await readRecordViews(batch, h);
  if (!first || !first.key || first.key.length < 4) return -1;
  return rdI16(first.key, 2);
}

export interface RebuildOptions {
  /** set the delete-horizon attribute and use this as baseTimestamp */
  deleteHorizonMs?: number;
}

/** Header of a rebuilt or emptied batch: the stored one's fields with new timestamps and count. */
function writeStoredHeader(
  out: Buffer,
  h: StoredBatch,
  attributes: number,
  baseTimestamp: number,
  maxTimestamp: number,
  count: number,
): void {
  wrI64(out, L.BASE_OFFSET, h.baseOffset);
  wrI32(out, L.BATCH_LENGTH, out.length - L.LOG_OVERHEAD);
  wrI32(out, L.PARTITION_LEADER_EPOCH, h.partitionLeaderEpoch);
  out[L.MAGIC] = L.MAGIC_V2;
  wrI16(out, L.ATTRIBUTES, attributes);
  wrI32(out, L.LAST_OFFSET_DELTA, h.lastOffset - h.baseOffset);
  wrI64(out, L.BASE_TIMESTAMP, baseTimestamp);
  wrI64(out, L.MAX_TIMESTAMP, maxTimestamp);
  wrI64(out, L.PRODUCER_ID, h.producerId);
  wrI16(out, L.PRODUCER_EPOCH, h.producerEpoch);
  wrI32(out, L.BASE_SEQUENCE, h.baseSequence);
  wrI32(out, L.RECORDS_COUNT, count);
  writeBatchCrc(out, 0);
}

/**
 * Re-encodes a v2 batch keeping only `records` (Kafka's MemoryRecords.buildRetainedRecordsInto):
 * same baseOffset, lastOffsetDelta, producer fields, leader epoch, timestamp type and codec.
 */
export async function rebuildRetained(
  h: StoredBatch,
  records: readonly RecordView[],
  opts: RebuildOptions = {},
): Promise<Buffer> {
  const logAppendTime = (h.attributes & L.TIMESTAMP_TYPE_MASK) !== 0;
  const horizon = opts.deleteHorizonMs;
  const baseTimestamp = horizon !== undefined ? horizon : records.length > 0 ? records[0]!.timestamp : h.maxTimestamp;
  let maxTimestamp = logAppendTime ? h.maxTimestamp : -1;
  let size = 0;
  for (const r of records) {
    const body = 1 + sizeOfUnsignedVarint(zigzag64(r.timestamp - baseTimestamp));
    const full = body + sizeOfUnsignedVarint(zigzag32(r.offset - h.baseOffset)) + r.tail.length;
    size += sizeOfUnsignedVarint(zigzag32(full)) + full;
  }
  let payload: Buffer = Buffer.allocUnsafe(size);
  let p = 0;
  for (const r of records) {
    if (!logAppendTime && r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    const tsDelta = zigzag64(r.timestamp - baseTimestamp);
    const offDelta = zigzag32(r.offset - h.baseOffset);
    const full = 1 + sizeOfUnsignedVarint(tsDelta) + sizeOfUnsignedVarint(offDelta) + r.tail.length;
    p = writeUnsignedVarint(payload, p, zigzag32(full));
    payload[p++] = r.attributes & 0xff;
    p = writeUnsignedVarint(payload, p, tsDelta);
    p = writeUnsignedVarint(payload, p, offDelta);
    payload.set(r.tail, p);
    p += r.tail.length;
  }
  const codec = (h.attributes & L.COMPRESSION_CODEC_MASK) as CompressionType;
  if (codec !== CompressionType.None) payload = await compress(codec, payload);
  let attributes = h.attributes & ~L.DELETE_HORIZON_FLAG_MASK;
  if (horizon !== undefined) attributes |= L.DELETE_HORIZON_FLAG_MASK;
  const out = Buffer.alloc(L.RECORD_BATCH_OVERHEAD + payload.length);
  payload.copy(out, L.RECORD_BATCH_OVERHEAD);
  writeStoredHeader(out, h, attributes, baseTimestamp, maxTimestamp, records.length);
  return out;
}

/** Kafka's DefaultRecordBatch.writeEmptyHeader: a record-less batch that keeps offsets and producer state. */
export function emptyBatchOf(h: StoredBatch): Buffer {
  const out = Buffer.alloc(L.RECORD_BATCH_OVERHEAD);
  const keep = h.attributes & (L.TIMESTAMP_TYPE_MASK | L.TRANSACTIONAL_FLAG_MASK | L.CONTROL_FLAG_MASK);
  writeStoredHeader(out, h, keep, h.maxTimestamp, h.maxTimestamp, 0);
  return out;
}
