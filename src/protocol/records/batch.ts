// Record batch, magic v2 (Kafka's DefaultRecordBatch / DefaultRecord): header access, CRC-32C
// validation, batch iteration over a buffer (any magic), record decoding and encoding, control
// records, and the in-place rewrites the broker performs on append.
//
// Number types: offsets, timestamps, epochs and sequences are JS `number`s (int64 fields are read
// as hi * 2^32 + lo, exact below 2^53 — always true for real offsets and millisecond timestamps;
// larger values lose precision when decoded but are never rewritten unless a setter is called).
// The producer id is a `bigint`, matching the wire codec's int64 type.
//
// Validation (validateBatch, verifyBatchCrc, validateRecords, BatchIterator) never allocates
// beyond a subarray view for the CRC and never trusts a length before checking it against the
// bytes available. Decoding allocates only the objects it returns; keys/values are views into
// the input (or into the decompressed buffer) unless `copy` is requested.

import * as L from './layout.js';
import { CompressionType, TimestampType } from './layout.js';
import { crc32, crc32c } from './crc.js';
import { compress, decompress } from './compression.js';
import {
  CorruptRecordError, type CorruptReason, readInt16 as rdI16, readInt32 as rdI32, readInt64 as rdI64, writeInt16 as wrI16,
  writeInt32 as wrI32, writeInt64 as wrI64, readVarint as rdVarint, readVarlong as rdVarlong, varintEnd,
  zigzag32 as zz32, zigzag64 as zz64, sizeOfUnsignedVarint as sizeOfUnsigned, sizeOfVarint, writeUnsignedVarint as wrUnsigned,
} from './layout.js';

export { DecompressionLimitError } from './compression.js';
export { CorruptRecordError } from './layout.js';

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

const corrupt = (reason: CorruptReason, msg: string) => new CorruptRecordError(reason, msg);

function asBuf(d: Uint8Array): Buffer {
  return Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

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

/** Checks magic 2 and that the declared length is sane and fits; returns the batch size. */
function checkBatchBounds(buf: Uint8Array, pos: number, end: number): number {
  if (pos < 0 || end - pos < L.RECORD_BATCH_OVERHEAD) throw corrupt('TRUNCATED', `record batch at ${pos} is shorter than ${L.RECORD_BATCH_OVERHEAD} bytes`);
  const magic = buf[pos + L.MAGIC]!;
  if (magic !== L.MAGIC_V2) throw corrupt('INVALID_MAGIC', `expected magic 2 at ${pos}, found ${magic}`);
  const len = rdI32(buf, pos + L.BATCH_LENGTH);
  if (len < L.RECORD_BATCH_OVERHEAD - L.LOG_OVERHEAD) throw corrupt('INVALID_LENGTH', `record batch length ${len} is below the minimum`);
  if (len > end - pos - L.LOG_OVERHEAD) throw corrupt('TRUNCATED', `record batch length ${len} runs past the end of the buffer`);
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
    throw corrupt('CRC_MISMATCH', `record batch at ${pos} is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
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

// ---------------------------------------------------------------------------------------------
// Iterating batches (any magic) in a buffer

export interface BatchEntry {
  position: number;
  sizeInBytes: number;
  magic: number;
  /** Raw offset field: v2 base offset; legacy entry offset (last inner offset for wrappers). */
  offset: number;
}

export interface PartialBatch {
  position: number;
  /** Bytes present from `position` to the end of the buffer. */
  available: number;
  /** Full size of the batch, or -1 if not even its length field could be read. */
  required: number;
}

export interface IterateOptions {
  start?: number;
  end?: number;
  /** Verify CRC-32C (v2) / CRC-32 (legacy) of every complete batch. */
  verifyCrc?: boolean;
  /** Reject batches larger than this (CorruptRecordError TOO_LARGE). */
  maxBatchSize?: number;
}

/** Checks the CRC-32 of the legacy (magic 0/1) entry at `pos` (magic byte .. end). */
export function verifyLegacyCrc(buf: Uint8Array, pos: number, size: number): boolean {
  return crc32(buf, pos + L.LEGACY_MAGIC, pos + size) === rdI32(buf, pos + L.LEGACY_CRC) >>> 0;
}

/**
 * Iterates the batches/legacy entries of a buffer. Stops cleanly at a partial trailing batch and
 * reports it in `partial`; throws CorruptRecordError on impossible lengths or magic values.
 */
export class BatchIterator implements IterableIterator<BatchEntry> {
  position: number;
  partial: PartialBatch | null = null;
  private readonly end: number;

  constructor(private readonly buf: Uint8Array, private readonly opts: IterateOptions = {}) {
    this.position = opts.start ?? 0;
    this.end = opts.end ?? buf.length;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<BatchEntry> {
    const { buf, end } = this;
    const pos = this.position;
    const avail = end - pos;
    if (avail <= 0) return { done: true, value: undefined };
    if (avail < L.LOG_OVERHEAD) return this.stop(pos, avail, -1);
    const len = rdI32(buf, pos + L.BATCH_LENGTH);
    if (len < L.LEGACY_RECORD_OVERHEAD_V0) throw corrupt('INVALID_LENGTH', `batch length ${len} at ${pos} is below the minimum record overhead`);
    const size = len + L.LOG_OVERHEAD;
    if (this.opts.maxBatchSize !== undefined && size > this.opts.maxBatchSize) {
      throw corrupt('TOO_LARGE', `batch of ${size} bytes at ${pos} exceeds ${this.opts.maxBatchSize}`);
    }
    if (avail < L.HEADER_SIZE_UP_TO_MAGIC) return this.stop(pos, avail, size);
    const magic = buf[pos + L.MAGIC]!;
    const min = magic === 2 ? L.RECORD_BATCH_OVERHEAD : magic === 1 ? L.LOG_OVERHEAD + L.LEGACY_RECORD_OVERHEAD_V1 : L.LOG_OVERHEAD + L.LEGACY_RECORD_OVERHEAD_V0;
    if (magic > 2) throw corrupt('INVALID_MAGIC', `unknown magic ${magic} at ${pos}`);
    if (size < min) throw corrupt('INVALID_LENGTH', `batch length ${len} at ${pos} is below the minimum for magic ${magic}`);
    if (avail < size) return this.stop(pos, avail, size);
    if (this.opts.verifyCrc) {
      if (magic === 2) validateBatch(buf, pos, pos + size);
      else if (!verifyLegacyCrc(buf, pos, size)) throw corrupt('CRC_MISMATCH', `legacy message at ${pos} is corrupt (CRC-32 mismatch)`);
    }
    this.position = pos + size;
    return { done: false, value: { position: pos, sizeInBytes: size, magic, offset: rdI64(buf, pos) } };
  }

  private stop(position: number, available: number, required: number): IteratorResult<BatchEntry> {
    this.partial = { position, available, required };
    return { done: true, value: undefined };
  }
}

export function iterateBatches(buf: Uint8Array, opts: IterateOptions = {}): BatchIterator {
  return new BatchIterator(buf, opts);
}

// ---------------------------------------------------------------------------------------------
// Records

/** Validates the structure of `count` records in data[start, end) without allocating. */
export function validateRecords(data: Uint8Array, start: number, end: number, count: number): void {
  walkRecords(data, start, end, count, null, null, false);
}

/** Decodes the (uncompressed) records section data[start, end) of a batch with header `h`. */
export function decodeRecords(h: RecordBatchHeader, data: Uint8Array, start = 0, end = data.length, copy = false): KafkaRecord[] {
  const out: KafkaRecord[] = [];
  walkRecords(data, start, end, h.recordsCount, h, out, copy);
  return out;
}

function incrementSequence(seq: number, delta: number): number {
  return seq > 0x7fffffff - delta ? delta - (0x7fffffff - seq) - 1 : seq + delta;
}

function walkRecords(data: Uint8Array, start: number, end: number, count: number, h: RecordBatchHeader | null, out: KafkaRecord[] | null, copy: boolean): void {
  if (count < 0) throw corrupt('INVALID_RECORD', `invalid record count ${count}`);
  // The smallest record is 7 bytes; a larger count cannot be honest.
  if (count > (end - start) / 7) throw corrupt('INVALID_RECORD', `record count ${count} cannot fit in ${end - start} bytes`);
  const b = out !== null ? asBuf(data) : (data as Buffer); // only used as a Buffer when decoding
  const slice = out === null ? null : copy ? (s: number, e: number) => Buffer.from(b.subarray(s, e)) : (s: number, e: number) => b.subarray(s, e);
  let p = start;
  for (let i = 0; i < count; i++) {
    const len = rdVarint(data, p, end);
    p = varintEnd;
    if (len < 0 || len > end - p) throw corrupt('INVALID_LENGTH', `invalid record size ${len}: premature end of batch`);
    const recEnd = p + len;
    if (p >= recEnd) throw corrupt('TRUNCATED', 'empty record');
    p++; // attributes (unused)
    const tsDelta = rdVarlong(data, p, recEnd);
    const offDelta = rdVarint(data, varintEnd, recEnd);
    const keyLen = rdVarint(data, varintEnd, recEnd);
    p = varintEnd;
    if (keyLen < -1 || keyLen > recEnd - p) throw corrupt('INVALID_LENGTH', `invalid record key length ${keyLen}`);
    const keyStart = p;
    if (keyLen > 0) p += keyLen;
    const valueLen = rdVarint(data, p, recEnd);
    p = varintEnd;
    if (valueLen < -1 || valueLen > recEnd - p) throw corrupt('INVALID_LENGTH', `invalid record value length ${valueLen}`);
    const valueStart = p;
    if (valueLen > 0) p += valueLen;
    const numHeaders = rdVarint(data, p, recEnd);
    p = varintEnd;
    if (numHeaders < 0 || numHeaders > recEnd - p) throw corrupt('INVALID_RECORD', `invalid number of record headers ${numHeaders}`);
    const headers: RecordHeader[] | null = out !== null ? [] : null;
    for (let j = 0; j < numHeaders; j++) {
      const hk = rdVarint(data, p, recEnd);
      p = varintEnd;
      if (hk < 0 || hk > recEnd - p) throw corrupt('INVALID_LENGTH', `invalid header key length ${hk}`);
      const hkStart = p;
      p += hk;
      const hv = rdVarint(data, p, recEnd);
      p = varintEnd;
      if (hv < -1 || hv > recEnd - p) throw corrupt('INVALID_LENGTH', `invalid header value length ${hv}`);
      if (headers !== null) {
        headers.push({ key: b.toString('utf8', hkStart, hkStart + hk), value: hv < 0 ? null : slice!(p, p + hv) });
      }
      if (hv > 0) p += hv;
    }
    if (p !== recEnd) throw corrupt('INVALID_LENGTH', `invalid record size: expected ${len} bytes, read ${len - (recEnd - p)}`);
    if (out !== null && h !== null) {
      const timestamp = h.timestampType === TimestampType.LogAppendTime ? h.maxTimestamp : h.baseTimestamp + tsDelta;
      out.push({
        offset: h.baseOffset + offDelta,
        offsetDelta: offDelta,
        timestamp,
        timestampDelta: tsDelta,
        sequence: h.baseSequence >= 0 ? incrementSequence(h.baseSequence, offDelta) : -1,
        key: keyLen < 0 ? null : slice!(keyStart, keyStart + keyLen),
        value: valueLen < 0 ? null : slice!(valueStart, valueStart + valueLen),
        headers: headers!,
      });
    }
  }
  if (p !== end) throw corrupt('INVALID_RECORD', 'incorrect declared batch size, records still remaining');
}

/** Parses a control record key (and the ABORT/COMMIT marker value). */
export function parseControlRecord(key: Uint8Array | null, value: Uint8Array | null): ControlRecordInfo {
  if (key === null || key.length < 4) throw corrupt('INVALID_RECORD', 'control record key shorter than 4 bytes');
  const version = rdI16(key, 0);
  if (version < 0) throw corrupt('INVALID_RECORD', `invalid control record key version ${version}`);
  const type = rdI16(key, 2);
  let coordinatorEpoch: number | null = null;
  if (type === ControlRecordType.Abort || type === ControlRecordType.Commit) {
    if (value === null || value.length < 6) throw corrupt('INVALID_RECORD', 'end transaction marker value shorter than 6 bytes');
    if (rdI16(value, 0) < 0) throw corrupt('INVALID_RECORD', 'invalid end transaction marker version');
    coordinatorEpoch = rdI32(value, 2);
  }
  return { version, type, coordinatorEpoch };
}

function decodeAt(buf: Uint8Array, pos: number, opts: DecodeOptions, sync: boolean): RecordBatch | Promise<RecordBatch> {
  const h = readBatchHeader(buf, pos);
  if (opts.verifyCrc !== false) validateBatch(buf, pos, pos + h.sizeInBytes);
  const start = pos + L.RECORD_BATCH_OVERHEAD;
  const end = pos + h.sizeInBytes;
  const finish = (data: Uint8Array, s: number, e: number): RecordBatch => {
    const records = decodeRecords(h, data, s, e, opts.copy ?? false);
    if (h.isControl) for (const r of records) r.control = parseControlRecord(r.key, r.value);
    return { ...h, records };
  };
  if (h.compression === CompressionType.None) return finish(buf, start, end);
  if (h.compression > CompressionType.Zstd) throw corrupt('UNSUPPORTED_COMPRESSION', `unknown compression codec ${h.compression}`);
  if (sync) throw new TypeError('decodeBatchSync cannot decode a compressed batch');
  return decompress(h.compression, buf.subarray(start, end), { maxSize: opts.maxDecompressedSize, magic: 2 })
    .then((data) => finish(data, 0, data.length));
}

/** Decodes the v2 batch at `pos`: header, CRC check, decompression, records. */
export async function decodeBatch(buf: Uint8Array, pos = 0, opts: DecodeOptions = {}): Promise<RecordBatch> {
  return decodeAt(buf, pos, opts, false);
}

/** Synchronous decodeBatch for uncompressed batches (throws TypeError on compressed ones). */
export function decodeBatchSync(buf: Uint8Array, pos = 0, opts: DecodeOptions = {}): RecordBatch {
  return decodeAt(buf, pos, opts, true) as RecordBatch;
}

// ---------------------------------------------------------------------------------------------
// Encoding

const toBytes = (v: Uint8Array | string | null | undefined): Uint8Array | null =>
  v === null || v === undefined ? null : typeof v === 'string' ? Buffer.from(v, 'utf8') : v;

interface Prepared {
  size: number; // records section size
  write(out: Uint8Array, pos: number): void;
  baseTimestamp: number;
  maxTimestamp: number;
  lastOffsetDelta: number;
}

function prepareRecords(o: BuildBatchOptions): Prepared {
  const now = Date.now();
  const recs = o.records;
  const n = recs.length;
  const baseTimestamp = o.baseTimestamp ?? (n > 0 ? recs[0]!.timestamp ?? now : L.NO_TIMESTAMP);
  let maxTimestamp = L.NO_TIMESTAMP;
  let prevDelta = -1;
  let size = 0;
  const plan: { body: number; ts: number; od: number; key: Uint8Array | null; value: Uint8Array | null; hdrs: [Buffer, Uint8Array | null][] }[] = [];
  for (let i = 0; i < n; i++) {
    const r = recs[i]!;
    const ts = r.timestamp ?? now;
    const od = r.offsetDelta ?? i;
    if (!Number.isInteger(od) || od <= prevDelta || od > 0x7fffffff) throw new RangeError(`offsetDelta ${od} must be increasing and fit an int32`);
    prevDelta = od;
    if (ts > maxTimestamp) maxTimestamp = ts;
    const key = toBytes(r.key);
    const value = toBytes(r.value);
    const hdrs: [Buffer, Uint8Array | null][] = (r.headers ?? []).map((h) => [Buffer.from(h.key, 'utf8'), toBytes(h.value)]);
    let body = 1 + sizeOfUnsigned(zz64(ts - baseTimestamp)) + sizeOfVarint(od);
    body += key === null ? 1 : sizeOfVarint(key.length) + key.length;
    body += value === null ? 1 : sizeOfVarint(value.length) + value.length;
    body += sizeOfVarint(hdrs.length);
    for (const [hk, hv] of hdrs) body += sizeOfVarint(hk.length) + hk.length + (hv === null ? 1 : sizeOfVarint(hv.length) + hv.length);
    size += sizeOfVarint(body) + body;
    plan.push({ body, ts, od, key, value, hdrs });
  }
  if (o.timestampType === TimestampType.LogAppendTime) maxTimestamp = o.logAppendTime ?? now;
  const putBytes = (out: Uint8Array, p: number, v: Uint8Array | null): number => {
    if (v === null) return wrUnsigned(out, p, 1);
    p = wrUnsigned(out, p, zz32(v.length));
    out.set(v, p);
    return p + v.length;
  };
  return {
    size,
    baseTimestamp,
    maxTimestamp,
    lastOffsetDelta: n > 0 ? prevDelta : 0,
    write(out, p) {
      for (const r of plan) {
        p = wrUnsigned(out, p, zz32(r.body));
        out[p++] = 0;
        p = wrUnsigned(out, p, zz64(r.ts - baseTimestamp));
        p = wrUnsigned(out, p, zz32(r.od));
        p = putBytes(out, p, r.key);
        p = putBytes(out, p, r.value);
        p = wrUnsigned(out, p, zz32(r.hdrs.length));
        for (const [hk, hv] of r.hdrs) p = putBytes(out, putBytes(out, p, hk), hv);
      }
    },
  };
}

function writeHeader(out: Buffer, o: BuildBatchOptions, prep: Prepared, count: number): void {
  const compression = o.compression ?? CompressionType.None;
  let attrs = compression & L.COMPRESSION_CODEC_MASK;
  if (o.timestampType === TimestampType.LogAppendTime) attrs |= L.TIMESTAMP_TYPE_MASK;
  if (o.transactional) attrs |= L.TRANSACTIONAL_FLAG_MASK;
  if (o.isControl) attrs |= L.CONTROL_FLAG_MASK;
  if (o.deleteHorizon) attrs |= L.DELETE_HORIZON_FLAG_MASK;
  wrI64(out, L.BASE_OFFSET, o.baseOffset ?? 0);
  wrI32(out, L.BATCH_LENGTH, out.length - L.LOG_OVERHEAD);
  wrI32(out, L.PARTITION_LEADER_EPOCH, o.partitionLeaderEpoch ?? L.NO_PARTITION_LEADER_EPOCH);
  out[L.MAGIC] = L.MAGIC_V2;
  wrI16(out, L.ATTRIBUTES, attrs);
  wrI32(out, L.LAST_OFFSET_DELTA, prep.lastOffsetDelta);
  wrI64(out, L.BASE_TIMESTAMP, prep.baseTimestamp);
  wrI64(out, L.MAX_TIMESTAMP, prep.maxTimestamp);
  out.writeBigInt64BE(BigInt(o.producerId ?? L.NO_PRODUCER_ID), L.PRODUCER_ID);
  wrI16(out, L.PRODUCER_EPOCH, o.producerEpoch ?? L.NO_PRODUCER_EPOCH);
  wrI32(out, L.BASE_SEQUENCE, o.baseSequence ?? L.NO_SEQUENCE);
  wrI32(out, L.RECORDS_COUNT, count);
  writeBatchCrc(out, 0);
}

/** Encodes an uncompressed v2 batch synchronously. */
export function buildRecordBatchSync(o: BuildBatchOptions): Buffer {
  if ((o.compression ?? CompressionType.None) !== CompressionType.None) throw new TypeError('buildRecordBatchSync only builds uncompressed batches');
  const prep = prepareRecords(o);
  const out = Buffer.allocUnsafe(L.RECORD_BATCH_OVERHEAD + prep.size);
  prep.write(out, L.RECORD_BATCH_OVERHEAD);
  writeHeader(out, o, prep, o.records.length);
  return out;
}

/** Encodes a v2 batch (compressing the records section if requested) and writes its CRC. */
export async function buildRecordBatch(o: BuildBatchOptions): Promise<Buffer> {
  const compression = o.compression ?? CompressionType.None;
  if (compression === CompressionType.None) return buildRecordBatchSync(o);
  const prep = prepareRecords(o);
  const raw = Buffer.allocUnsafe(prep.size);
  prep.write(raw, 0);
  const packed = await compress(compression, raw, { level: o.compressionLevel, magic: 2 });
  const out = Buffer.allocUnsafe(L.RECORD_BATCH_OVERHEAD + packed.length);
  out.set(packed, L.RECORD_BATCH_OVERHEAD);
  writeHeader(out, o, prep, o.records.length);
  return out;
}

/** Control record key: int16 version, int16 type. */
export function controlRecordKey(type: ControlRecordType | number, version = 0): Buffer {
  const b = Buffer.allocUnsafe(4);
  wrI16(b, 0, version);
  wrI16(b, 2, type);
  return b;
}

/** ABORT/COMMIT marker value: int16 version (0), int32 coordinatorEpoch. */
export function endTxnMarkerValue(coordinatorEpoch: number, version = 0): Buffer {
  const b = Buffer.allocUnsafe(6);
  wrI16(b, 0, version);
  wrI32(b, 2, coordinatorEpoch);
  return b;
}

export interface EndTxnMarkerOptions {
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  producerId: bigint | number;
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
  timestamp?: number;
}

/** A transaction marker batch (MemoryRecords.writeEndTransactionalMarker). */
export function buildEndTxnMarker(o: EndTxnMarkerOptions): Buffer {
  return buildRecordBatchSync({
    baseOffset: o.baseOffset ?? 0,
    partitionLeaderEpoch: o.partitionLeaderEpoch ?? L.NO_PARTITION_LEADER_EPOCH,
    producerId: o.producerId,
    producerEpoch: o.producerEpoch,
    baseSequence: L.NO_SEQUENCE,
    transactional: true,
    isControl: true,
    records: [{
      key: controlRecordKey(o.commit ? ControlRecordType.Commit : ControlRecordType.Abort),
      value: endTxnMarkerValue(o.coordinatorEpoch),
      timestamp: o.timestamp ?? Date.now(),
    }],
  });
}
