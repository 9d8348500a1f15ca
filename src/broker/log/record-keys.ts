// Minimal v2 record access for the log layer: enough to find per-record offsets, timestamps and
// keys (compaction, timestamp lookups) and to re-encode a batch with a subset of its records
// (compaction). Record layout (DefaultRecord.java): varint length, int8 attributes,
// varlong timestampDelta, varint offsetDelta, varint keyLength, key, varint valueLength, value,
// varint headerCount, headers. Record varints are zig-zag encoded.

import * as L from '../../protocol/records/layout.js';
import { crc32c } from '../../protocol/records/crc.js';
import { compress, decompress } from '../../protocol/records/compression.js';
import { CorruptRecordError, type BatchInfo } from '../../storage/file-records.js';

export interface RecordView {
  offset: number;
  timestamp: number;
  attributes: number;
  /** null for a null key */
  key: Buffer | null;
  /** true when the value is null (a tombstone) */
  valueIsNull: boolean;
  /** the record bytes from keyLength to the end (key, value, headers): copied unchanged on re-encode */
  tail: Buffer;
}

export function readVarlong(buf: Buffer, pos: number): [number, number] {
  let raw = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new CorruptRecordError('varint runs past the end of the record');
    const b = buf[pos++]!;
    raw += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) {
      // zig-zag decode without 32-bit truncation
      const value = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      return [value, pos];
    }
    mul *= 128;
  }
  throw new CorruptRecordError('varint is too long');
}

export function readVarint(buf: Buffer, pos: number): [number, number] {
  const [v, p] = readVarlong(buf, pos);
  if (p - pos > 5 || v < -2147483648 || v > 2147483647) throw new CorruptRecordError('varint out of int32 range');
  return [v, p];
}

/** zig-zag varlong (also used for varints) appended to out */
export function writeVarlong(out: number[], value: number): void {
  let raw = value >= 0 ? value * 2 : -value * 2 - 1;
  while (raw >= 128) {
    out.push((raw % 128) | 0x80);
    raw = Math.floor(raw / 128);
  }
  out.push(raw);
}

/** Uncompressed records section of a batch (decompressing if needed). */
export async function recordsPayload(batch: Buffer, info: BatchInfo): Promise<Buffer> {
  const payload = batch.subarray(L.RECORD_BATCH_OVERHEAD, info.size);
  const codec = info.attributes & L.COMPRESSION_CODEC_MASK;
  if (codec === 0) return payload;
  return decompress(codec as L.CompressionType, payload);
}

/** Parses every record of a v2 batch (`batch` = the full batch bytes). */
export async function readRecords(batch: Buffer, info: BatchInfo): Promise<RecordView[]> {
  if (info.magic !== 2) throw new CorruptRecordError(`record iteration supports magic 2 only (found ${info.magic})`);
  const payload = await recordsPayload(batch, info);
  const logAppendTime = (info.attributes & L.TIMESTAMP_TYPE_MASK) !== 0;
  const out: RecordView[] = [];
  let pos = 0;
  for (let i = 0; i < info.count; i++) {
    const [len, p0] = readVarint(payload, pos);
    const start = p0;
    const end = start + len;
    if (len < 0 || end > payload.length) throw new CorruptRecordError('record length exceeds batch');
    const attributes = payload.readInt8(start);
    const [tsDelta, p1] = readVarlong(payload, start + 1);
    const [offDelta, p2] = readVarint(payload, p1);
    const [keyLen, p3] = readVarint(payload, p2);
    const key = keyLen < 0 ? null : payload.subarray(p3, p3 + keyLen);
    const p4 = p3 + Math.max(0, keyLen);
    const [valueLen] = readVarint(payload, p4);
    if (p4 > end) throw new CorruptRecordError('record key exceeds record');
    out.push({
      offset: info.baseOffset + offDelta,
      timestamp: logAppendTime ? info.maxTimestamp : info.baseTimestamp + tsDelta,
      attributes,
      key,
      valueIsNull: valueLen < 0,
      tail: payload.subarray(p2, end),
    });
    pos = end;
  }
  return out;
}

/** Kafka's DefaultRecordBatch.offsetOfMaxTimestamp (v2). */
export async function offsetOfMaxTimestamp(batch: Buffer, info: BatchInfo): Promise<number | undefined> {
  if ((info.attributes & L.TIMESTAMP_TYPE_MASK) !== 0) return info.baseOffset;
  for (const r of await readRecords(batch, info)) if (r.timestamp === info.maxTimestamp) return r.offset;
  return undefined;
}

export interface RebuildOptions {
  /** set the delete-horizon attribute and use this as baseTimestamp */
  deleteHorizonMs?: number;
}

/**
 * Re-encodes a v2 batch keeping only `records` (Kafka's MemoryRecords.buildRetainedRecordsInto):
 * same baseOffset, lastOffsetDelta, producer fields, leader epoch, timestamp type and codec.
 */
export async function rebuildBatch(info: BatchInfo, records: RecordView[], opts: RebuildOptions = {}): Promise<Buffer> {
  const logAppendTime = (info.attributes & L.TIMESTAMP_TYPE_MASK) !== 0;
  const horizon = opts.deleteHorizonMs;
  const baseTimestamp =
    horizon !== undefined ? horizon : records.length > 0 ? records[0]!.timestamp : info.maxTimestamp;
  let maxTimestamp = logAppendTime ? info.maxTimestamp : -1;
  const body: number[] = [];
  const parts: Buffer[] = [];
  for (const r of records) {
    if (!logAppendTime && r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    body.length = 0;
    body.push(r.attributes & 0xff);
    writeVarlong(body, r.timestamp - baseTimestamp);
    writeVarlong(body, r.offset - info.baseOffset);
    const head = Buffer.from(body);
    const lenBytes: number[] = [];
    writeVarlong(lenBytes, head.length + r.tail.length);
    parts.push(Buffer.from(lenBytes), head, r.tail);
  }
  let payload: Buffer = Buffer.concat(parts);
  const codec = info.attributes & L.COMPRESSION_CODEC_MASK;
  if (codec !== 0) payload = await compress(codec as L.CompressionType, payload);
  let attributes = info.attributes & ~L.DELETE_HORIZON_FLAG_MASK;
  if (horizon !== undefined) attributes |= L.DELETE_HORIZON_FLAG_MASK;
  const out = Buffer.alloc(L.RECORD_BATCH_OVERHEAD + payload.length);
  out.writeBigInt64BE(BigInt(info.baseOffset), L.BASE_OFFSET);
  out.writeInt32BE(out.length - L.LOG_OVERHEAD, L.BATCH_LENGTH);
  out.writeInt32BE(info.partitionLeaderEpoch, L.PARTITION_LEADER_EPOCH);
  out.writeInt8(2, L.MAGIC);
  out.writeInt16BE(attributes, L.ATTRIBUTES);
  out.writeInt32BE(info.lastOffset - info.baseOffset, L.LAST_OFFSET_DELTA);
  out.writeBigInt64BE(BigInt(baseTimestamp), L.BASE_TIMESTAMP);
  out.writeBigInt64BE(BigInt(maxTimestamp), L.MAX_TIMESTAMP);
  out.writeBigInt64BE(BigInt(info.producerId), L.PRODUCER_ID);
  out.writeInt16BE(info.producerEpoch, L.PRODUCER_EPOCH);
  out.writeInt32BE(info.baseSequence, L.BASE_SEQUENCE);
  out.writeInt32BE(records.length, L.RECORDS_COUNT);
  payload.copy(out, L.RECORD_BATCH_OVERHEAD);
  out.writeUInt32BE(crc32c(out, L.ATTRIBUTES, out.length), L.CRC);
  return out;
}

/** Kafka's DefaultRecordBatch.writeEmptyHeader: a record-less batch that keeps offsets and producer state. */
export function emptyBatch(info: BatchInfo): Buffer {
  const out = Buffer.alloc(L.RECORD_BATCH_OVERHEAD);
  const keep = info.attributes & (L.TIMESTAMP_TYPE_MASK | L.TRANSACTIONAL_FLAG_MASK | L.CONTROL_FLAG_MASK);
  out.writeBigInt64BE(BigInt(info.baseOffset), L.BASE_OFFSET);
  out.writeInt32BE(L.RECORD_BATCH_OVERHEAD - L.LOG_OVERHEAD, L.BATCH_LENGTH);
  out.writeInt32BE(info.partitionLeaderEpoch, L.PARTITION_LEADER_EPOCH);
  out.writeInt8(2, L.MAGIC);
  out.writeInt16BE(keep, L.ATTRIBUTES);
  out.writeInt32BE(info.lastOffset - info.baseOffset, L.LAST_OFFSET_DELTA);
  out.writeBigInt64BE(BigInt(info.maxTimestamp), L.BASE_TIMESTAMP);
  out.writeBigInt64BE(BigInt(info.maxTimestamp), L.MAX_TIMESTAMP);
  out.writeBigInt64BE(BigInt(info.producerId), L.PRODUCER_ID);
  out.writeInt16BE(info.producerEpoch, L.PRODUCER_EPOCH);
  out.writeInt32BE(info.baseSequence, L.BASE_SEQUENCE);
  out.writeInt32BE(0, L.RECORDS_COUNT);
  out.writeUInt32BE(crc32c(out, L.ATTRIBUTES, out.length), L.CRC);
  return out;
}

/** Control record type (0 ABORT, 1 COMMIT, ...) of the first record of a control batch, or -1. */
export async function controlRecordType(batch: Buffer, info: BatchInfo): Promise<number> {
  if (info.count <= 0) return -1;
  const [first] = await readRecords(batch, info);
  if (!first || !first.key || first.key.length < 4) return -1;
  return first.key.readInt16BE(2);
}
