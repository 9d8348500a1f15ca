// Byte layout of a v2 record batch header (Kafka's DefaultRecordBatch) and of the
// legacy (magic 0/1) message-set entry header. Every reader of batch headers uses these.

export const LOG_OVERHEAD = 12; // baseOffset int64 + batchLength int32

export const BASE_OFFSET = 0;
export const BATCH_LENGTH = 8;
export const PARTITION_LEADER_EPOCH = 12;
export const MAGIC = 16;
export const CRC = 17;
export const ATTRIBUTES = 21;
export const LAST_OFFSET_DELTA = 23;
export const BASE_TIMESTAMP = 27;
export const MAX_TIMESTAMP = 35;
export const PRODUCER_ID = 43;
export const PRODUCER_EPOCH = 51;
export const BASE_SEQUENCE = 53;
export const RECORDS_COUNT = 57;
export const RECORD_BATCH_OVERHEAD = 61;

// attributes bits (v2)
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08; // 1 = LogAppendTime
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export const enum CompressionType {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

// legacy message set entry: offset int64, size int32, crc uint32, magic int8, attributes int8,
// [timestamp int64 when magic 1], key bytes, value bytes
export const LEGACY_CRC = 12;
export const LEGACY_MAGIC = 16;
export const LEGACY_ATTRIBUTES = 17;
export const LEGACY_RECORD_OVERHEAD_V0 = 14; // crc + magic + attributes + key len + value len
export const LEGACY_RECORD_OVERHEAD_V1 = 22; // v0 + timestamp

// --- added by the record-format layer (batch.ts / legacy.ts) ---
export const MAGIC_V0 = 0;
export const MAGIC_V1 = 1;
export const MAGIC_V2 = 2;
export const HEADER_SIZE_UP_TO_MAGIC = 17; // offset + length + partitionLeaderEpoch/crc + magic
export const NO_TIMESTAMP = -1;
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const LEGACY_TIMESTAMP = 18; // v1 only
export const LEGACY_TIMESTAMP_TYPE_MASK = 0x08; // v1 only

export const enum TimestampType {
  CreateTime = 0,
  LogAppendTime = 1,
}

// --- errors ---
export type CorruptReason =
  | 'CRC_MISMATCH'
  | 'TRUNCATED'
  | 'INVALID_LENGTH'
  | 'INVALID_VARINT'
  | 'INVALID_MAGIC'
  | 'INVALID_RECORD'
  | 'INVALID_COMPRESSION'
  | 'DECOMPRESSION_FAILED'
  | 'TOO_LARGE'
  | 'UNSUPPORTED_COMPRESSION'
  | 'PREMATURE_EOF';

/**
 * Any malformed record data: bad CRC, bad lengths, bad varints, undecodable compressed data. The one
 * error class for corrupt records, from the wire (produce, fetch) or from files (segments, dump-log).
 */
export class CorruptRecordError extends Error {
  override name = 'CorruptRecordError';
  constructor(
    message: string,
    readonly reason: CorruptReason = 'INVALID_RECORD',
  ) {
    super(message);
  }
}

/**
 * DefaultRecord.readFrom's text for reads past the end and malformed varints (the varint readers
 * below throw it; the reason says which).
 */
export const INVALID_RECORD_STRUCTURE = 'Found invalid record structure';

// ---------------------------------------------------------------------------------------------
// Shared primitives of the records layer (batch.ts, legacy.ts): big-endian fixed-width access on
// plain Uint8Arrays, and Kafka's zig-zag varints.

export const readInt32 = (b: Uint8Array, p: number): number =>
  (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!;
export const readInt16 = (b: Uint8Array, p: number) => ((b[p]! << 24) | (b[p + 1]! << 16)) >> 16;
/** int64 as a number: exact for |v| < 2^53. */
export const readInt64 = (b: Uint8Array, p: number) => readInt32(b, p) * 4294967296 + (readInt32(b, p + 4) >>> 0);

export function writeInt32(b: Uint8Array, p: number, v: number): void {
  b[p] = v >>> 24;
  b[p + 1] = v >>> 16;
  b[p + 2] = v >>> 8;
  b[p + 3] = v;
}
export function writeInt16(b: Uint8Array, p: number, v: number): void {
  b[p] = v >>> 8;
  b[p + 1] = v;
}
export function writeInt64(b: Uint8Array, p: number, v: number): void {
  if (!Number.isSafeInteger(v)) throw new RangeError(`int64 value ${v} is not a safe integer`);
  const hi = Math.floor(v / 4294967296);
  writeInt32(b, p, hi);
  writeInt32(b, p + 4, v - hi * 4294967296);
}

// ---------------------------------------------------------------------------------------------
// Zig-zag varints (ByteUtils.readVarint/readVarlong semantics). Readers return the value and leave
// the position after it in the live binding `varintEnd` (no allocation per read).

export let varintEnd = 0;

export function readVarint(b: Uint8Array, p: number, end: number): number {
  let raw = 0;
  let shift = 0;
  for (;;) {
    if (p >= end) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'TRUNCATED');
    const x = b[p++]!;
    raw |= (x & 0x7f) << shift;
    if ((x & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'INVALID_VARINT');
  }
  varintEnd = p;
  return (raw >>> 1) ^ -(raw & 1);
}

export function readVarlong(b: Uint8Array, p: number, end: number): number {
  let raw = 0;
  let mul = 1;
  for (let i = 0; ; i++) {
    if (p >= end) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'TRUNCATED');
    const x = b[p++]!;
    raw += (x & 0x7f) * mul;
    if ((x & 0x80) === 0) {
      if (i >= 7) return readVarlongSlow(b, p - i - 1);
      varintEnd = p;
      return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
    }
    mul *= 128;
    if (i === 9) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'INVALID_VARINT');
  }
}

function readVarlongSlow(b: Uint8Array, p: number): number {
  return Number(readVarlongBig(b, p, b.length));
}

/** readVarlong as an exact int64 (Java long wrap-around), for readers that print every bit. */
export function readVarlongBig(b: Uint8Array, p: number, end: number): bigint {
  let raw = 0n;
  let shift = 0n;
  for (;;) {
    if (p >= end) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'TRUNCATED');
    const x = b[p++]!;
    raw |= BigInt(x & 0x7f) << shift;
    if ((x & 0x80) === 0) break;
    shift += 7n;
    if (shift > 63n) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'INVALID_VARINT');
  }
  raw = BigInt.asUintN(64, raw);
  varintEnd = p;
  return BigInt.asIntN(64, (raw >> 1n) ^ -(raw & 1n));
}

export const zigzag32 = (v: number) => ((v << 1) ^ (v >> 31)) >>> 0;
export function zigzag64(v: number): number {
  if (!Number.isSafeInteger(v) || Math.abs(v) > 2 ** 52) throw new RangeError(`varlong value ${v} out of range`);
  return v >= 0 ? v * 2 : -v * 2 - 1;
}
export function sizeOfUnsignedVarint(u: number): number {
  let n = 1;
  while (u >= 128) {
    u = Math.floor(u / 128);
    n++;
  }
  return n;
}
export const sizeOfVarint = (v: number): number => sizeOfUnsignedVarint(zigzag32(v));
export function writeUnsignedVarint(b: Uint8Array, p: number, u: number): number {
  while (u >= 128) {
    b[p++] = (u % 128) | 0x80;
    u = Math.floor(u / 128);
  }
  b[p++] = u;
  return p;
}
