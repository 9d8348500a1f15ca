// Legacy message sets, magic 0 and 1 (Kafka's LegacyRecord / AbstractLegacyRecordBatch).
//
// Log entry: int64 offset, int32 size, then the message: uint32 CRC-32 (IEEE, over magic..end),
// int8 magic, int8 attributes (bits 0-2 codec, bit 3 timestamp type in v1), [int64 timestamp, v1],
// int32 key length (-1 null) + key, int32 value length (-1 null) + value.
//
// Compressed data is a wrapper message whose value is the compressed concatenation of inner log
// entries. v1 wrappers carry relative inner offsets (absolute = wrapperOffset - lastInner + inner;
// a wrapper offset of 0 means base 0, for old librdkafka producers) and, under LogAppendTime,
// impose their timestamp on every inner record. v0 inner offsets are absolute.
//
// Deviations from Kafka's lenient reader, deliberate: key/value lengths below -1 and truncated
// inner entries are reported as CorruptRecordError instead of being read as null / dropped.

import * as L from './layout.js';
import { CompressionType, TimestampType } from './layout.js';
import { crc32 } from './crc.js';
import { compress, decompress } from './compression.js';
import { CorruptRecordError, type CorruptReason, readInt32 as rdI32, readInt64 as rdI64 } from './layout.js';
import { iterateBatches, type PartialBatch } from './batch.js';

export { CorruptRecordError } from './layout.js';

/** -1 = no timestamp type (magic 0). */
export type LegacyTimestampType = -1 | TimestampType;

export interface LegacyRecord {
  offset: number;
  magic: number;
  attributes: number;
  compression: CompressionType;
  timestampType: LegacyTimestampType;
  /** -1 (NO_TIMESTAMP) for magic 0. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  crc: number;
  /** Bytes of the log entry including offset and size fields. */
  sizeInBytes: number;
}

export interface LegacyDecodeOptions {
  verifyCrc?: boolean;
  maxDecompressedSize?: number;
}

const corrupt = (reason: CorruptReason, msg: string) => new CorruptRecordError(msg, reason);
const asBuf = (d: Uint8Array): Buffer => (Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength));

/**
 * Validates the legacy entry at `pos` (size, magic, key/value bounds, CRC-32) without allocating.
 * Returns the entry size (offset and size fields included).
 */
export function validateLegacyEntry(buf: Uint8Array, pos = 0, end = buf.length, verifyCrc = true): number {
  if (end - pos < L.LOG_OVERHEAD) throw corrupt('TRUNCATED', `legacy entry at ${pos} is truncated`);
  const size = rdI32(buf, pos + L.BATCH_LENGTH);
  if (size < L.LEGACY_RECORD_OVERHEAD_V0)
    throw corrupt('INVALID_LENGTH', `legacy message size ${size} is below the minimum`);
  if (size > end - pos - L.LOG_OVERHEAD)
    throw corrupt('TRUNCATED', `legacy message size ${size} runs past the end of the buffer`);
  const msgEnd = pos + L.LOG_OVERHEAD + size;
  const magic = buf[pos + L.LEGACY_MAGIC]!;
  if (magic > L.MAGIC_V1) throw corrupt('INVALID_MAGIC', `invalid legacy magic ${magic}`);
  if (magic === L.MAGIC_V1 && size < L.LEGACY_RECORD_OVERHEAD_V1)
    throw corrupt('INVALID_LENGTH', `v1 message size ${size} is below the minimum`);
  let p = pos + L.LEGACY_ATTRIBUTES + 1 + (magic === L.MAGIC_V1 ? 8 : 0);
  for (let i = 0; i < 2; i++) {
    if (msgEnd - p < 4) throw corrupt('TRUNCATED', 'legacy message truncated');
    const n = rdI32(buf, p);
    p += 4;
    if (n < -1 || n > msgEnd - p)
      throw corrupt('INVALID_LENGTH', `invalid legacy ${i === 0 ? 'key' : 'value'} length ${n}`);
    if (n > 0) p += n;
  }
  if (verifyCrc) {
    const stored = rdI32(buf, pos + L.LEGACY_CRC) >>> 0;
    const computed = crc32(buf, pos + L.LEGACY_MAGIC, msgEnd);
    if (stored !== computed)
      throw corrupt(
        'CRC_MISMATCH',
        `legacy message at ${pos} is corrupt (stored crc = ${stored}, computed crc = ${computed})`,
      );
  }
  return L.LOG_OVERHEAD + size;
}

/** Parses one legacy entry as stored (a compressed wrapper is returned as is, not expanded). */
export function readLegacyEntry(buf: Uint8Array, pos = 0, end = buf.length, verifyCrc = true): LegacyRecord {
  const sizeInBytes = validateLegacyEntry(buf, pos, end, verifyCrc);
  const b = asBuf(buf);
  const magic = buf[pos + L.LEGACY_MAGIC]!;
  const attributes = buf[pos + L.LEGACY_ATTRIBUTES]!;
  let p = pos + L.LEGACY_ATTRIBUTES + 1;
  let timestamp: number = L.NO_TIMESTAMP;
  let timestampType: LegacyTimestampType = -1;
  if (magic === L.MAGIC_V1) {
    timestamp = rdI64(buf, p);
    timestampType =
      (attributes & L.LEGACY_TIMESTAMP_TYPE_MASK) !== 0 ? TimestampType.LogAppendTime : TimestampType.CreateTime;
    p += 8;
  }
  const keyLen = rdI32(buf, p);
  p += 4;
  const key = keyLen < 0 ? null : b.subarray(p, p + keyLen);
  if (keyLen > 0) p += keyLen;
  const valueLen = rdI32(buf, p);
  p += 4;
  const value = valueLen < 0 ? null : b.subarray(p, p + valueLen);
  return {
    offset: rdI64(buf, pos),
    magic,
    attributes,
    compression: (attributes & L.COMPRESSION_CODEC_MASK) as CompressionType,
    timestampType,
    timestamp,
    key,
    value,
    crc: rdI32(buf, pos + L.LEGACY_CRC) >>> 0,
    sizeInBytes,
  };
}

/**
 * Decodes one legacy entry into its records: itself if uncompressed, else the inner records of the
 * wrapper with absolute offsets and effective timestamps.
 */
export async function decodeLegacyEntry(
  buf: Uint8Array,
  pos = 0,
  opts: LegacyDecodeOptions = {},
): Promise<LegacyRecord[]> {
  const verify = opts.verifyCrc !== false;
  const wrapper = readLegacyEntry(buf, pos, buf.length, verify);
  if (wrapper.compression === CompressionType.None) return [wrapper];
  if (wrapper.compression > CompressionType.Lz4) {
    throw corrupt(
      'UNSUPPORTED_COMPRESSION',
      `invalid compression codec ${wrapper.compression} for magic ${wrapper.magic}`,
    );
  }
  if (wrapper.value === null) throw corrupt('INVALID_RECORD', 'compressed message set with a null value');
  const data = await decompress(wrapper.compression, wrapper.value, {
    maxSize: opts.maxDecompressedSize,
    magic: wrapper.magic,
  });
  const inner: LegacyRecord[] = [];
  let p = 0;
  while (p < data.length) {
    const r = readLegacyEntry(data, p, data.length, verify);
    if (r.compression !== CompressionType.None)
      throw corrupt('INVALID_RECORD', 'inner messages must not be compressed');
    if (
      r.magic === L.MAGIC_V1 &&
      wrapper.magic === L.MAGIC_V1 &&
      wrapper.timestampType === TimestampType.LogAppendTime
    ) {
      r.timestamp = wrapper.timestamp;
      r.timestampType = TimestampType.LogAppendTime;
    }
    inner.push(r);
    p += r.sizeInBytes;
  }
  if (inner.length === 0) throw corrupt('INVALID_RECORD', 'compressed message set with no inner records');
  if (wrapper.magic === L.MAGIC_V1) {
    const lastInner = inner[inner.length - 1]!.offset;
    let base = 0;
    if (wrapper.offset !== 0) {
      if (wrapper.offset < lastInner)
        throw corrupt('INVALID_RECORD', `wrapper offset ${wrapper.offset} is below the last inner offset ${lastInner}`);
      base = wrapper.offset - lastInner;
    }
    for (const r of inner) r.offset += base;
  }
  return inner;
}

/**
 * Decodes every legacy entry of a buffer (stopping at a partial trailing entry, reported in
 * `partial`). Throws on a magic 2 batch.
 */
export async function decodeLegacyMessageSet(
  buf: Uint8Array,
  opts: LegacyDecodeOptions = {},
): Promise<{ records: LegacyRecord[]; partial: PartialBatch | null }> {
  const it = iterateBatches(buf);
  const records: LegacyRecord[] = [];
  for (const e of it) {
    if (e.magic > L.MAGIC_V1) throw corrupt('INVALID_MAGIC', `magic ${e.magic} batch in a legacy message set`);
    for (const r of await decodeLegacyEntry(buf, e.position, opts)) records.push(r);
  }
  return { records, partial: it.partial };
}

// ---------------------------------------------------------------------------------------------
// Encoding

export interface LegacyEntryInput {
  offset: number;
  magic: 0 | 1;
  /** Full attributes byte (codec and timestamp type bits). Default 0. */
  attributes?: number;
  /** v1 only; default -1. */
  timestamp?: number;
  key?: Uint8Array | string | null;
  value?: Uint8Array | string | null;
}

const toBytes = (v: Uint8Array | string | null | undefined): Uint8Array | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? Buffer.from(v, 'utf8') : v;

function entrySize(magic: number, key: Uint8Array | null, value: Uint8Array | null): number {
  return (
    L.LOG_OVERHEAD +
    (magic === 1 ? L.LEGACY_RECORD_OVERHEAD_V1 : L.LEGACY_RECORD_OVERHEAD_V0) +
    (key?.length ?? 0) +
    (value?.length ?? 0)
  );
}

function writeEntry(
  out: Buffer,
  pos: number,
  e: LegacyEntryInput,
  key: Uint8Array | null,
  value: Uint8Array | null,
): number {
  const size = entrySize(e.magic, key, value);
  out.writeBigInt64BE(BigInt(e.offset), pos);
  out.writeInt32BE(size - L.LOG_OVERHEAD, pos + L.BATCH_LENGTH);
  out[pos + L.LEGACY_MAGIC] = e.magic;
  out[pos + L.LEGACY_ATTRIBUTES] = e.attributes ?? 0;
  let p = pos + L.LEGACY_ATTRIBUTES + 1;
  if (e.magic === 1) {
    out.writeBigInt64BE(BigInt(e.timestamp ?? L.NO_TIMESTAMP), p);
    p += 8;
  }
  for (const v of [key, value]) {
    out.writeInt32BE(v === null ? -1 : v.length, p);
    p += 4;
    if (v !== null) {
      out.set(v, p);
      p += v.length;
    }
  }
  out.writeUInt32BE(crc32(out, pos + L.LEGACY_MAGIC, p), pos + L.LEGACY_CRC);
  return p;
}

/** Encodes one legacy log entry (offset, size, message). */
export function encodeLegacyEntry(e: LegacyEntryInput): Buffer {
  const key = toBytes(e.key);
  const value = toBytes(e.value);
  const out = Buffer.allocUnsafe(entrySize(e.magic, key, value));
  writeEntry(out, 0, e, key, value);
  return out;
}

function encodeEntries(entries: LegacyEntryInput[]): Buffer {
  const kv = entries.map((e) => [toBytes(e.key), toBytes(e.value)] as const);
  let size = 0;
  entries.forEach((e, i) => (size += entrySize(e.magic, kv[i]![0], kv[i]![1])));
  const out = Buffer.allocUnsafe(size);
  let p = 0;
  entries.forEach((e, i) => (p = writeEntry(out, p, e, kv[i]![0], kv[i]![1])));
  return out;
}

export interface LegacyMessageSetOptions {
  magic: 0 | 1;
  baseOffset?: number;
  records: ReadonlyArray<{ key?: Uint8Array | string | null; value?: Uint8Array | string | null; timestamp?: number }>;
  compression?: CompressionType;
  timestampType?: TimestampType;
  /** Wrapper/record timestamp under LogAppendTime (v1). */
  logAppendTime?: number;
}

/**
 * Encodes records as a magic 0/1 message set: one entry per record, or (compressed) a single
 * wrapper whose offset is the last record's and whose inner offsets are relative (v1) or
 * absolute (v0). Used for tests and down-conversion.
 */
export async function buildLegacyMessageSet(o: LegacyMessageSetOptions): Promise<Buffer> {
  const base = o.baseOffset ?? 0;
  const compression = o.compression ?? CompressionType.None;
  if (compression > CompressionType.Lz4)
    throw new RangeError(`compression ${compression} is not allowed with magic ${o.magic}`);
  const logAppend = o.magic === 1 && o.timestampType === TimestampType.LogAppendTime;
  const tsAttr = logAppend ? L.LEGACY_TIMESTAMP_TYPE_MASK : 0;
  const now = Date.now();
  const ts = (t: number | undefined) =>
    o.magic === 0 ? L.NO_TIMESTAMP : logAppend ? (o.logAppendTime ?? now) : (t ?? now);
  if (compression === CompressionType.None) {
    return encodeEntries(
      o.records.map((r, i) => ({
        offset: base + i,
        magic: o.magic,
        attributes: tsAttr,
        timestamp: ts(r.timestamp),
        key: r.key,
        value: r.value,
      })),
    );
  }
  if (o.records.length === 0) throw new RangeError('a compressed legacy message set needs at least one record');
  const inner = encodeEntries(
    o.records.map((r, i) => ({
      offset: o.magic === 1 ? i : base + i,
      magic: o.magic,
      timestamp: ts(r.timestamp),
      key: r.key,
      value: r.value,
    })),
  );
  const packed = await compress(compression, inner, { magic: o.magic });
  let maxTs = L.NO_TIMESTAMP;
  for (const r of o.records) maxTs = Math.max(maxTs, ts(r.timestamp));
  return encodeLegacyEntry({
    offset: base + o.records.length - 1,
    magic: o.magic,
    attributes: compression | tsAttr,
    timestamp: logAppend ? ts(undefined) : maxTs,
    key: null,
    value: packed,
  });
}
