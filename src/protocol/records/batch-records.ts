// Record batch, magic v2: record validation and decoding (with decompression), and control
// records. Keys/values are views into the input (or into the decompressed buffer) unless `copy`
// is requested. Import through batch.ts.

import * as L from './layout.js';
import { CompressionType, TimestampType } from './layout.js';
import { decompress } from './compression.js';
import { readInt16 as rdI16, readInt32 as rdI32 } from './layout.js';
import { RecordCursor, RECORDS_REMAINING, incrementSequence, view } from './record-cursor.js';
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

/** Validates the structure of `count` records in data[start, end) without allocating. */
export function validateRecords(data: Uint8Array, start: number, end: number, count: number): void {
  checkCount(count, start, end);
  const c = shared.reset(data, start, end, count);
  while (c.next());
  if (c.position !== end) throw corrupt('INVALID_RECORD', RECORDS_REMAINING);
}

/** validateRecords' cursor (it runs to completion synchronously, so one serves every call). */
const shared = new RecordCursor();

function checkCount(count: number, start: number, end: number): void {
  if (count < 0) throw corrupt('INVALID_RECORD', `invalid record count ${count}`);
  // The smallest record is 7 bytes; a larger count cannot be honest.
  if (count > (end - start) / 7)
    throw corrupt('INVALID_RECORD', `record count ${count} cannot fit in ${end - start} bytes`);
}

/** Decodes the (uncompressed) records section data[start, end) of a batch with header `h`. */
export function decodeRecords(
  h: RecordBatchHeader,
  data: Uint8Array,
  start = 0,
  end = data.length,
  copy = false,
): KafkaRecord[] {
  checkCount(h.recordsCount, start, end);
  const out: KafkaRecord[] = [];
  const b = view(data, 0, data.length);
  const bytes = copy
    ? (s: number, n: number): Buffer | null => (n < 0 ? null : Buffer.from(b.subarray(s, s + n)))
    : (s: number, n: number): Buffer | null => (n < 0 ? null : b.subarray(s, s + n));
  const c = new RecordCursor().reset(data, start, end, h.recordsCount);
  const logAppendTime = h.timestampType === TimestampType.LogAppendTime;
  while (c.next()) {
    const headers: RecordHeader[] = [];
    if (c.headerCount > 0)
      c.forEachHeader((key, value) => headers.push({ key, value: copy && value ? Buffer.from(value) : value }));
    const offsetDelta = c.offsetDelta;
    out.push({
      offset: h.baseOffset + offsetDelta,
      offsetDelta,
      timestamp: logAppendTime ? h.maxTimestamp : h.baseTimestamp + c.timestampDelta,
      timestampDelta: c.timestampDelta,
      sequence: h.baseSequence >= 0 ? incrementSequence(h.baseSequence, offsetDelta) : -1,
      key: bytes(c.keyStart, c.keySize),
      value: bytes(c.valueStart, c.valueSize),
      headers,
    });
  }
  if (c.position !== end) throw corrupt('INVALID_RECORD', RECORDS_REMAINING);
  return out;
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
