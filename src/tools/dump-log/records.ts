// Batch headers and records as DumpLogSegments prints them, read with the records layer
// (src/protocol/records): int64 fields kept exact (bigint, Java wrap-around arithmetic), records
// handed out one by one (a bad record stops the batch after the good ones were printed), and
// Kafka's exception texts for malformed data.
import * as L from '../../protocol/records/layout.js';
import {
  COMPRESSION_TYPE_NAMES,
  canDecompressSync,
  decompress,
  decompressSync,
} from '../../protocol/records/compression.js';
import { crc32, crc32c } from '../../protocol/records/crc.js';
import {
  CorruptRecordError,
  INVALID_RECORD_STRUCTURE,
  RecordCursor,
  incrementSequence,
  readBatchHeaderExact,
  type ExactBatchHeader,
} from '../../protocol/records/batch.js';
import { readLegacyEntry as readLegacy } from '../../protocol/records/legacy.js';
import { readVarlongBig } from '../../protocol/records/layout.js';

export const LOG_OVERHEAD = L.LOG_OVERHEAD;
export const HEADER_SIZE_UP_TO_MAGIC = L.HEADER_SIZE_UP_TO_MAGIC;
export const RECORD_BATCH_OVERHEAD = L.RECORD_BATCH_OVERHEAD;
export const RECORD_OVERHEAD_V0 = L.LEGACY_RECORD_OVERHEAD_V0;

export const COMPRESSION_NAMES: readonly string[] = COMPRESSION_TYPE_NAMES;
export const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'];

/**
 * A compressed batch payload, decoded on this thread for every codec that allows it (all but zstd).
 * The dump reads one batch at a time, so the libuv threadpool buys nothing; on this path the dump's
 * progress depends only on its own thread and on stdout.
 */
export function decompressPayload(codec: number, data: Uint8Array, magic: number): Buffer | Promise<Buffer> {
  return canDecompressSync(codec) ? decompressSync(codec, data, { magic }) : decompress(codec, data, { magic });
}

/** A record-level decode failure (InvalidRecordException and friends): the batch stops there. */
export { CorruptRecordError as RecordError };

export type V2Header = ExactBatchHeader;

/** Reads the 61-byte v2 header (the buffer must hold them). */
export const readV2Header = (b: Buffer): V2Header => readBatchHeaderExact(b, 0);

export const wrap64 = (v: bigint): bigint => BigInt.asIntN(64, v);
export const lastOffsetOf = (h: V2Header): bigint => wrap64(h.baseOffset + BigInt(h.lastOffsetDelta));
export const compressionOf = (h: V2Header): number => h.attributes & L.COMPRESSION_CODEC_MASK;
export const timestampTypeOf = (h: V2Header): string => TIMESTAMP_TYPES[(h.attributes & L.TIMESTAMP_TYPE_MASK) >> 3]!;
export const isTransactional = (h: V2Header): boolean => (h.attributes & L.TRANSACTIONAL_FLAG_MASK) !== 0;
export const isControl = (h: V2Header): boolean => (h.attributes & L.CONTROL_FLAG_MASK) !== 0;
export const deleteHorizon = (h: V2Header): bigint | null =>
  (h.attributes & L.DELETE_HORIZON_FLAG_MASK) !== 0 ? h.baseTimestamp : null;
export const lastSequenceOf = (h: V2Header): number =>
  h.baseSequence === -1 ? -1 : incrementSequence(h.baseSequence, h.lastOffsetDelta);

/** CRC-32C over attributes..end, computed in slices so a huge batch never needs one buffer. */
export function v2Checksum(read: (pos: number, len: number) => Buffer, pos: number, size: number): number {
  let crc = 0;
  const SLICE = 1024 * 1024;
  for (let p = pos + L.ATTRIBUTES; p < pos + size; p += SLICE) {
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

/**
 * The records of a v2 batch whose (decompressed) records section is b[start, end), one at a time,
 * as DefaultRecordBatch's iterators do: after the declared count, leftover bytes are an error
 * raised before the last record is returned.
 */
export function* v2Records(h: V2Header, b: Buffer, start: number, end: number): Generator<DumpRecord> {
  const c = new RecordCursor().reset(b, start, end, h.count);
  const logAppendTime = (h.attributes & L.TIMESTAMP_TYPE_MASK) !== 0;
  for (;;) {
    try {
      if (!c.next()) return;
    } catch (e) {
      // The record size varint is read outside DefaultRecord.readFrom's catch: Java's own exception.
      if (e instanceof CorruptRecordError && e.reason === 'PREMATURE_EOF')
        throw new CorruptRecordError('java.nio.BufferUnderflowException', 'TRUNCATED');
      throw e;
    }
    const headers: DumpHeader[] = [];
    if (c.headerCount > 0) c.forEachHeader((key, value) => headers.push({ key, value }));
    yield {
      offset: wrap64(h.baseOffset + BigInt(c.offsetDelta)),
      timestamp: logAppendTime ? h.maxTimestamp : wrap64(h.baseTimestamp + readVarlongBig(b, c.timestampDeltaPos, end)),
      key: c.key(),
      value: c.value(),
      sequence: h.baseSequence >= 0 ? incrementSequence(h.baseSequence, c.offsetDelta) : -1,
      headers,
    };
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
  if (end - pos < LOG_OVERHEAD) throw new CorruptRecordError('java.io.EOFException', 'TRUNCATED');
  const size = b.readInt32BE(pos + L.BATCH_LENGTH);
  if (size < RECORD_OVERHEAD_V0)
    throw new CorruptRecordError(`Record size is less than the minimum record overhead (${RECORD_OVERHEAD_V0})`);
  const recEnd = pos + LOG_OVERHEAD + size;
  if (recEnd > end) throw new CorruptRecordError('java.io.EOFException', 'TRUNCATED');
  const magic = b.readInt8(pos + L.LEGACY_MAGIC);
  if (magic !== 0 && magic !== 1) throw new CorruptRecordError(`Invalid magic value ${magic}`);
  if (magic === 1 && size < L.LEGACY_RECORD_OVERHEAD_V1) throw new CorruptRecordError(INVALID_RECORD_STRUCTURE);
  let e: ReturnType<typeof readLegacy>;
  try {
    e = readLegacy(b, pos, recEnd, false);
  } catch {
    throw new CorruptRecordError('java.nio.BufferUnderflowException', 'TRUNCATED');
  }
  return {
    offset: b.readBigInt64BE(pos),
    magic,
    attributes: b.readInt8(pos + L.LEGACY_ATTRIBUTES),
    timestamp: magic === 1 ? b.readBigInt64BE(pos + L.LEGACY_TIMESTAMP) : -1n,
    key: e.key,
    value: e.value,
    crc: e.crc,
    isValid: e.crc === crc32(b, pos + L.LEGACY_MAGIC, recEnd) >>> 0,
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
      throw new CorruptRecordError(`Compressed message magic ${e.magic} does not match wrapper magic ${wrapper.magic}`);
    if ((e.attributes & L.COMPRESSION_CODEC_MASK) !== 0)
      throw new CorruptRecordError('Compressed message set has inner compressed records');
    inner.push(e);
    p += e.size;
  }
  if (inner.length === 0) throw new CorruptRecordError('Found invalid compressed record set with no inner records');
  const logAppend = wrapper.magic === 1 && (wrapper.attributes & L.LEGACY_TIMESTAMP_TYPE_MASK) !== 0;
  if (wrapper.magic === 0) return inner.map((e) => legacyRecord(e));
  const last = inner[inner.length - 1]!.offset;
  const base = wrapper.offset === 0n ? 0n : wrapper.offset - last;
  return inner.map((e) => legacyRecord(e, wrap64(base + e.offset), logAppend ? wrapper.timestamp : e.timestamp));
}
