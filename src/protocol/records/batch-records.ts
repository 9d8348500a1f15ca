// Record batch, magic v2: record validation and decoding (with decompression), and control
// records. Keys/values are views into the input (or into the decompressed buffer) unless `copy`
// is requested. Import through batch.ts.

import * as L from './layout.js';
import { CompressionType, TimestampType } from './layout.js';
import { decompress } from './compression.js';
import {
  readInt16 as rdI16,
  readInt32 as rdI32,
  readVarint as rdVarint,
  readVarlong as rdVarlong,
  varintEnd,
} from './layout.js';
import {
  ControlRecordType,
  type ControlRecordInfo,
  type DecodeOptions,
  type KafkaRecord,
  type RecordBatch,
  type RecordBatchHeader,
  type RecordHeader,
} from './batch-types.js';
import { corrupt, readBatchHeader, validateBatch } from './batch-header.js';

function asBuf(d: Uint8Array): Buffer {
  return Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

/** Validates the structure of `count` records in data[start, end) without allocating. */
export function validateRecords(data: Uint8Array, start: number, end: number, count: number): void {
  walkRecords(data, start, end, count, null, null, false);
}

/** Decodes the (uncompressed) records section data[start, end) of a batch with header `h`. */
export function decodeRecords(
  h: RecordBatchHeader,
  data: Uint8Array,
  start = 0,
  end = data.length,
  copy = false,
): KafkaRecord[] {
  const out: KafkaRecord[] = [];
  walkRecords(data, start, end, h.recordsCount, h, out, copy);
  return out;
}

function incrementSequence(seq: number, delta: number): number {
  return seq > 0x7fffffff - delta ? delta - (0x7fffffff - seq) - 1 : seq + delta;
}

function walkRecords(
  data: Uint8Array,
  start: number,
  end: number,
  count: number,
  h: RecordBatchHeader | null,
  out: KafkaRecord[] | null,
  copy: boolean,
): void {
  if (count < 0) throw corrupt('INVALID_RECORD', `invalid record count ${count}`);
  // The smallest record is 7 bytes; a larger count cannot be honest.
  if (count > (end - start) / 7)
    throw corrupt('INVALID_RECORD', `record count ${count} cannot fit in ${end - start} bytes`);
  const b = out !== null ? asBuf(data) : (data as Buffer); // only used as a Buffer when decoding
  const slice =
    out === null
      ? null
      : copy
        ? (s: number, e: number) => Buffer.from(b.subarray(s, e))
        : (s: number, e: number) => b.subarray(s, e);
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
    if (valueLen < -1 || valueLen > recEnd - p)
      throw corrupt('INVALID_LENGTH', `invalid record value length ${valueLen}`);
    const valueStart = p;
    if (valueLen > 0) p += valueLen;
    const numHeaders = rdVarint(data, p, recEnd);
    p = varintEnd;
    if (numHeaders < 0 || numHeaders > recEnd - p)
      throw corrupt('INVALID_RECORD', `invalid number of record headers ${numHeaders}`);
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
    if (p !== recEnd)
      throw corrupt('INVALID_LENGTH', `invalid record size: expected ${len} bytes, read ${len - (recEnd - p)}`);
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
    if (value === null || value.length < 6)
      throw corrupt('INVALID_RECORD', 'end transaction marker value shorter than 6 bytes');
    if (rdI16(value, 0) < 0) throw corrupt('INVALID_RECORD', 'invalid end transaction marker version');
    coordinatorEpoch = rdI32(value, 2);
  }
  return { version, type, coordinatorEpoch };
}

function decodeAt(
  buf: Uint8Array,
  pos: number,
  opts: DecodeOptions,
  sync: boolean,
): RecordBatch | Promise<RecordBatch> {
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
  if (h.compression > CompressionType.Zstd)
    throw corrupt('UNSUPPORTED_COMPRESSION', `unknown compression codec ${h.compression}`);
  if (sync) throw new TypeError('decodeBatchSync cannot decode a compressed batch');
  return decompress(h.compression, buf.subarray(start, end), { maxSize: opts.maxDecompressedSize, magic: 2 }).then(
    (data) => finish(data, 0, data.length),
  );
}

/** Decodes the v2 batch at `pos`: header, CRC check, decompression, records. */
export async function decodeBatch(buf: Uint8Array, pos = 0, opts: DecodeOptions = {}): Promise<RecordBatch> {
  return decodeAt(buf, pos, opts, false);
}

/** Synchronous decodeBatch for uncompressed batches (throws TypeError on compressed ones). */
export function decodeBatchSync(buf: Uint8Array, pos = 0, opts: DecodeOptions = {}): RecordBatch {
  return decodeAt(buf, pos, opts, true) as RecordBatch;
}
