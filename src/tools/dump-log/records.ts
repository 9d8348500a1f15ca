// Batch headers and records as Kafka's DefaultRecordBatch / DefaultRecord / AbstractLegacyRecordBatch
// read them for DumpLogSegments: int64 fields kept exact (bigint, Java wrap-around arithmetic),
// records decoded one by one (a bad record stops the batch after the good ones were printed), and
// Kafka's exception texts for malformed data.
import { crc32, crc32c } from '../../protocol/records/crc.js';
import { incrementSequence } from './java.js';

export const LOG_OVERHEAD = 12;
export const HEADER_SIZE_UP_TO_MAGIC = 17;
export const RECORD_BATCH_OVERHEAD = 61;
export const RECORD_OVERHEAD_V0 = 14;

export const COMPRESSION_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'];

/** A record-level decode failure (InvalidRecordException and friends): the batch stops there. */
export class RecordError extends Error {}

export interface V2Header {
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

/** Reads the 61-byte v2 header (the buffer must hold them). */
export function readV2Header(b: Buffer): V2Header {
  return {
    baseOffset: b.readBigInt64BE(0),
    batchLength: b.readInt32BE(8),
    partitionLeaderEpoch: b.readInt32BE(12),
    magic: b.readInt8(16),
    crc: b.readUInt32BE(17),
    attributes: b.readInt16BE(21),
    lastOffsetDelta: b.readInt32BE(23),
    baseTimestamp: b.readBigInt64BE(27),
    maxTimestamp: b.readBigInt64BE(35),
    producerId: b.readBigInt64BE(43),
    producerEpoch: b.readInt16BE(51),
    baseSequence: b.readInt32BE(53),
    count: b.readInt32BE(57),
  };
}

export const wrap64 = (v: bigint): bigint => BigInt.asIntN(64, v);
export const lastOffsetOf = (h: V2Header): bigint => wrap64(h.baseOffset + BigInt(h.lastOffsetDelta));
export const compressionOf = (h: V2Header): number => h.attributes & 0x07;
export const timestampTypeOf = (h: V2Header): string => TIMESTAMP_TYPES[(h.attributes & 0x08) >> 3]!;
export const isTransactional = (h: V2Header): boolean => (h.attributes & 0x10) !== 0;
export const isControl = (h: V2Header): boolean => (h.attributes & 0x20) !== 0;
export const deleteHorizon = (h: V2Header): bigint | null => ((h.attributes & 0x40) !== 0 ? h.baseTimestamp : null);
export const lastSequenceOf = (h: V2Header): number =>
  h.baseSequence === -1 ? -1 : incrementSequence(h.baseSequence, h.lastOffsetDelta);

/** CRC-32C over attributes..end, computed in slices so a huge batch never needs one buffer. */
export function v2Checksum(read: (pos: number, len: number) => Buffer, pos: number, size: number): number {
  let crc = 0;
  const SLICE = 1024 * 1024;
  for (let p = pos + 21; p < pos + size; p += SLICE) {
    const part = read(p, Math.min(SLICE, pos + size - p));
    crc = crc32c(part, 0, part.length, crc);
    if (part.length === 0) break;
  }
  return crc >>> 0;
}

export interface DumpHeader {
  key: string;
  value: Buffer | null;
}

export interface DumpRecord {
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  sequence: number;
  headers: DumpHeader[];
  /** Legacy (magic 0/1) records only. */
  legacy?: { isValid: boolean; crc: number };
}

// ByteUtils.readVarint / readVarlong semantics on a cursor.
class Cursor {
  constructor(
    readonly b: Buffer,
    public pos: number,
    readonly end: number,
  ) {}
  get remaining(): number {
    return this.end - this.pos;
  }
  byte(): number {
    if (this.pos >= this.end) throw new RecordError('java.nio.BufferUnderflowException');
    return this.b.readInt8(this.pos++);
  }
  varint(): number {
    let tmp = this.byte();
    if (tmp >= 0) return (tmp >>> 1) ^ -(tmp & 1);
    let result = tmp & 0x7f;
    for (let shift = 7; shift <= 21; shift += 7) {
      tmp = this.byte();
      if (tmp >= 0) {
        result |= tmp << shift;
        return (result >>> 1) ^ -(result & 1);
      }
      result |= (tmp & 0x7f) << shift;
    }
    tmp = this.byte();
    result |= tmp << 28;
    if (tmp < 0) throw new RecordError('Found invalid record structure');
    return (result >>> 1) ^ -(result & 1);
  }
  varlong(): bigint {
    let value = 0n;
    let i = 0n;
    let b: number;
    while (((b = this.byte()) & 0x80) !== 0) {
      value |= BigInt(b & 0x7f) << i;
      i += 7n;
      if (i > 63n) throw new RecordError('Found invalid record structure');
    }
    value = BigInt.asUintN(64, value | (BigInt(b) << i));
    return BigInt.asIntN(64, (value >> 1n) ^ -(value & 1n));
  }
  slice(n: number): Buffer {
    if (n > this.remaining) throw new RecordError('Found invalid record structure');
    const s = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

/**
 * The records of a v2 batch whose (decompressed) records section is b[start, end), one at a time,
 * as DefaultRecordBatch's iterators do: after the declared count, leftover bytes are an error
 * raised before the last record is returned.
 */
export function* v2Records(h: V2Header, b: Buffer, start: number, end: number): Generator<DumpRecord> {
  const c = new Cursor(b, start, end);
  const logAppendTime = (h.attributes & 0x08) !== 0;
  for (let i = 0; i < h.count; i++) {
    const bodySize = c.varint();
    if (c.remaining < bodySize) {
      throw new RecordError(
        `Invalid record size: expected ${bodySize} bytes in record payload, but instead the buffer has only ${c.remaining} remaining bytes.`,
      );
    }
    const recordStart = c.pos;
    let rec: DumpRecord;
    try {
      c.byte(); // attributes
      const tsDelta = c.varlong();
      const offsetDelta = c.varint();
      const keySize = c.varint();
      const key = keySize >= 0 ? c.slice(keySize) : null;
      const valueSize = c.varint();
      const value = valueSize >= 0 ? c.slice(valueSize) : null;
      const numHeaders = c.varint();
      if (numHeaders < 0) throw new RecordError(`Found invalid number of record headers ${numHeaders}`);
      if (numHeaders > c.remaining)
        throw new RecordError(
          `Found invalid number of record headers. ${numHeaders} is larger than the remaining size of the buffer`,
        );
      const headers: DumpHeader[] = [];
      for (let k = 0; k < numHeaders; k++) {
        const ks = c.varint();
        if (ks < 0) throw new RecordError(`Invalid negative header key size ${ks}`);
        const hk = c.slice(ks).toString('utf8');
        const vs = c.varint();
        headers.push({ key: hk, value: vs >= 0 ? c.slice(vs) : null });
      }
      if (c.pos - recordStart !== bodySize) {
        throw new RecordError(
          `Invalid record size: expected to read ${bodySize} bytes in record payload, but instead read ${c.pos - recordStart}`,
        );
      }
      rec = {
        offset: wrap64(h.baseOffset + BigInt(offsetDelta)),
        timestamp: logAppendTime ? h.maxTimestamp : wrap64(h.baseTimestamp + tsDelta),
        key,
        value,
        sequence: h.baseSequence >= 0 ? incrementSequence(h.baseSequence, offsetDelta) : -1,
        headers,
      };
    } catch (e) {
      if (e instanceof RecordError && e.message.startsWith('Invalid record size: expected to read')) throw e;
      if (e instanceof RecordError && e.message.startsWith('Found invalid number')) throw e;
      if (e instanceof RecordError && e.message.startsWith('Invalid negative header')) throw e;
      throw new RecordError('Found invalid record structure');
    }
    if (i === h.count - 1 && c.remaining > 0)
      throw new RecordError('Incorrect declared batch size, records still remaining in file');
    yield rec;
  }
}

export interface LegacyEntry {
  offset: bigint;
  magic: number;
  attributes: number;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  crc: number;
  isValid: boolean;
  /** Whole entry size (log overhead included). */
  size: number;
}

/** One legacy log entry at b[pos..] (offset, size, crc, magic, attributes, [timestamp], key, value). */
export function readLegacyEntry(b: Buffer, pos: number, end: number): LegacyEntry {
  if (end - pos < LOG_OVERHEAD) throw new RecordError('java.io.EOFException');
  const offset = b.readBigInt64BE(pos);
  const size = b.readInt32BE(pos + 8);
  if (size < RECORD_OVERHEAD_V0)
    throw new RecordError(`Record size is less than the minimum record overhead (${RECORD_OVERHEAD_V0})`);
  const recEnd = pos + LOG_OVERHEAD + size;
  if (recEnd > end) throw new RecordError('java.io.EOFException');
  const magic = b.readInt8(pos + 16);
  if (magic !== 0 && magic !== 1) throw new RecordError(`Invalid magic value ${magic}`);
  const attributes = b.readInt8(pos + 17);
  const c = new Cursor(b, pos + 18, recEnd);
  let timestamp = -1n;
  if (magic === 1) {
    const t = c.slice(8);
    timestamp = t.readBigInt64BE(0);
  }
  const field = (): Buffer | null => {
    const n = c.slice(4).readInt32BE(0);
    return n < 0 ? null : c.slice(n);
  };
  let key: Buffer | null;
  let value: Buffer | null;
  try {
    key = field();
    value = field();
  } catch {
    throw new RecordError('java.nio.BufferUnderflowException');
  }
  const crc = b.readUInt32BE(pos + 12);
  return {
    offset,
    magic,
    attributes,
    timestamp,
    key,
    value,
    crc,
    isValid: size >= RECORD_OVERHEAD_V0 && crc === crc32(b, pos + 16, recEnd) >>> 0,
    size: LOG_OVERHEAD + size,
  };
}

export function legacyRecord(e: LegacyEntry, offset = e.offset, timestamp = e.timestamp): DumpRecord {
  return {
    offset,
    timestamp,
    key: e.key,
    value: e.value,
    sequence: -1,
    headers: [],
    legacy: { isValid: e.isValid, crc: e.crc },
  };
}

/** Inner records of a decompressed legacy wrapper (AbstractLegacyRecordBatch.DeepRecordsIterator). */
export function legacyInnerRecords(wrapper: LegacyEntry, data: Buffer): DumpRecord[] {
  const inner: LegacyEntry[] = [];
  for (let p = 0; p < data.length;) {
    const e = readLegacyEntry(data, p, data.length);
    if (e.magic !== wrapper.magic)
      throw new RecordError(`Compressed message magic ${e.magic} does not match wrapper magic ${wrapper.magic}`);
    if ((e.attributes & 0x07) !== 0) throw new RecordError('Compressed message set has inner compressed records');
    inner.push(e);
    p += e.size;
  }
  if (inner.length === 0) throw new RecordError('Found invalid compressed record set with no inner records');
  const logAppend = wrapper.magic === 1 && (wrapper.attributes & 0x08) !== 0;
  if (wrapper.magic === 0) return inner.map((e) => legacyRecord(e));
  const last = inner[inner.length - 1]!.offset;
  const base = wrapper.offset === 0n ? 0n : wrapper.offset - last;
  return inner.map((e) => legacyRecord(e, wrap64(base + e.offset), logAppend ? wrapper.timestamp : e.timestamp));
}
