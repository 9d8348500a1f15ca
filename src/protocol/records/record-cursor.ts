// Zero-copy iteration of the records of a v2 batch (Kafka's DefaultRecord.readFrom inside
// DefaultRecordBatch's record iterator), over an uncompressed records section. One cursor is reused
// for every record: after next() its fields locate the current record's parts in `data`; nothing is
// copied or allocated per record. Every reader of records goes through it: batch decoding, the
// produce validator, compaction and dump-log.
//
// The checks and their texts are Kafka's: fields are read within the records section (not within
// the record's declared size), then the bytes read must equal the declared size; a key or value of
// negative size is null; after the declared count, leftover bytes are an error raised before the
// last record is handed out.

import {
  CorruptRecordError,
  INVALID_RECORD_STRUCTURE,
  readVarint,
  readVarlong,
  varintEnd,
  type CorruptReason,
} from './layout.js';

const EMPTY = new Uint8Array(0);

export { INVALID_RECORD_STRUCTURE };
export const RECORDS_REMAINING = 'Incorrect declared batch size, records still remaining in file';
export const PREMATURE_EOF = 'Incorrect declared batch size, premature EOF reached';

/** Kafka's text; the reason says what exactly was wrong (TRUNCATED, INVALID_VARINT, INVALID_LENGTH). */
const payloadTooShort = (size: number, remaining: number): CorruptRecordError =>
  new CorruptRecordError(
    `Invalid record size: expected ${size} bytes in record payload, but instead the buffer has only ${remaining} remaining bytes.`,
    'INVALID_LENGTH',
  );
const sizeMismatch = (size: number, read: number): CorruptRecordError =>
  new CorruptRecordError(
    `Invalid record size: expected to read ${size} bytes in record payload, but instead read ${read}`,
    'INVALID_LENGTH',
  );
const badHeaderCount = (n: number): CorruptRecordError =>
  new CorruptRecordError(
    n < 0
      ? `Found invalid number of record headers ${n}`
      : `Found invalid number of record headers. ${n} is larger than the remaining size of the buffer`,
  );
const structure = (reason: CorruptReason): CorruptRecordError =>
  new CorruptRecordError(INVALID_RECORD_STRUCTURE, reason);

export class RecordCursor {
  data: Uint8Array = EMPTY;
  /** End of the records section. */
  end = 0;
  /** Records the batch header declares. */
  count = 0;
  /** Index of the current record (-1 before the first next()). */
  index = -1;
  /** Where the next record starts. */
  position = 0;

  // The current record.
  /** Position of its size varint. */
  recordStart = 0;
  /** First byte after the size varint (the attributes byte). */
  bodyStart = 0;
  bodySize = 0;
  attributes = 0;
  /** Position of the timestampDelta varlong (for exact int64 re-reads with readVarlongBig). */
  timestampDeltaPos = 0;
  timestampDelta = 0;
  offsetDelta = 0;
  /** Position of the key-size varint: the record from here on is key, value, headers. */
  keySizePos = 0;
  keyStart = 0;
  /** -1 for a null key. */
  keySize = -1;
  valueStart = 0;
  /** -1 for a null value (a tombstone). */
  valueSize = -1;
  /** Position of the first header (after the header-count varint). */
  headersStart = 0;
  headerCount = 0;
  /** First byte after the record. */
  recordEnd = 0;

  /** Starts over on the records section data[start, end) holding `count` records. */
  reset(data: Uint8Array, start: number, end: number, count: number): this {
    this.data = data;
    this.position = start;
    this.end = end;
    this.count = count;
    this.index = -1;
    return this;
  }

  /** Reads the next record; false after the declared count. Throws CorruptRecordError. */
  next(): boolean {
    const index = this.index + 1;
    if (index >= this.count) return false;
    const d = this.data;
    const end = this.end;
    const recordStart = this.position;
    let p = recordStart;
    let size: number;
    // one- and two-byte varints (records under 8 KiB) are read inline, longer ones by readVarint
    const b0 = p < end ? d[p]! : 0x80;
    const b1 = p + 1 < end ? d[p + 1]! : 0x80;
    if (b0 < 0x80) {
      size = (b0 >>> 1) ^ -(b0 & 1);
      p++;
    } else if (b1 < 0x80) {
      const raw = (b0 & 0x7f) | (b1 << 7);
      size = (raw >>> 1) ^ -(raw & 1);
      p += 2;
    } else {
      size = this.readSize(p);
      p = varintEnd;
    }
    if (end - p < size) throw payloadTooShort(size, end - p);
    // DefaultRecord.readFrom: every read below is bounded by the section, not by the record's size
    const bodyStart = p;
    if (p >= end) throw structure('TRUNCATED');
    this.attributes = d[p++]!;
    this.timestampDeltaPos = p;
    let x = p < end ? d[p]! : 0x80;
    if (x < 0x80) {
      this.timestampDelta = (x >>> 1) ^ -(x & 1);
      p++;
    } else {
      this.timestampDelta = readVarlong(d, p, end);
      p = varintEnd;
    }
    x = p < end ? d[p]! : 0x80;
    if (x < 0x80) {
      this.offsetDelta = (x >>> 1) ^ -(x & 1);
      p++;
    } else {
      this.offsetDelta = readVarint(d, p, end);
      p = varintEnd;
    }
    this.keySizePos = p;
    // key and value: Utils.readBytes, a negative size is null
    let n = readVarint(d, p, end);
    p = varintEnd;
    if (n > end - p) throw structure('INVALID_LENGTH');
    this.keyStart = p;
    this.keySize = n < 0 ? -1 : n;
    if (n > 0) p += n;
    n = readVarint(d, p, end);
    p = varintEnd;
    if (n > end - p) throw structure('INVALID_LENGTH');
    this.valueStart = p;
    this.valueSize = n < 0 ? -1 : n;
    if (n > 0) p += n;
    const headers = readVarint(d, p, end);
    p = varintEnd;
    if (headers < 0 || headers > end - p) throw badHeaderCount(headers);
    this.headerCount = headers;
    this.headersStart = p;
    for (let h = 0; h < headers; h++) {
      const ks = readVarint(d, p, end);
      p = varintEnd;
      if (ks < 0) throw new CorruptRecordError(`Invalid negative header key size ${ks}`, 'INVALID_LENGTH');
      if (ks > end - p) throw structure('INVALID_LENGTH');
      p += ks;
      const vs = readVarint(d, p, end);
      p = varintEnd;
      if (vs > end - p) throw structure('INVALID_LENGTH');
      if (vs > 0) p += vs;
    }
    if (p - bodyStart !== size) throw sizeMismatch(size, p - bodyStart);
    this.recordStart = recordStart;
    this.bodyStart = bodyStart;
    this.bodySize = size;
    this.recordEnd = p;
    this.position = p;
    this.index = index;
    if (index === this.count - 1 && p !== end) throw new CorruptRecordError(RECORDS_REMAINING);
    return true;
  }

  /** A record size of more than one byte. Read outside readFrom's catch: running out is the batch's fault. */
  private readSize(p: number): number {
    try {
      return readVarint(this.data, p, this.end);
    } catch (e) {
      if (e instanceof CorruptRecordError && e.reason === 'INVALID_VARINT') throw e;
      throw new CorruptRecordError(PREMATURE_EOF, 'PREMATURE_EOF');
    }
  }

  /** The current record's key as a view (null for a null key). */
  key(): Buffer | null {
    return this.keySize < 0 ? null : view(this.data, this.keyStart, this.keyStart + this.keySize);
  }

  /** The current record's value as a view (null for a tombstone). */
  value(): Buffer | null {
    return this.valueSize < 0 ? null : view(this.data, this.valueStart, this.valueStart + this.valueSize);
  }

  /** Calls fn for each header of the current record: key as UTF-8 text, value as a view or null. */
  forEachHeader(fn: (key: string, value: Buffer | null) => void): void {
    const d = this.data;
    let p = this.headersStart;
    for (let h = 0; h < this.headerCount; h++) {
      const ks = readVarint(d, p, this.recordEnd);
      p = varintEnd;
      const key = view(d, p, p + ks).toString('utf8');
      p += ks;
      const vs = readVarint(d, p, this.recordEnd);
      p = varintEnd;
      fn(key, vs < 0 ? null : view(d, p, p + vs));
      if (vs > 0) p += vs;
    }
  }
}

/** A Buffer view of data[start, end) (no copy). */
export function view(data: Uint8Array, start: number, end: number): Buffer {
  return Buffer.isBuffer(data)
    ? data.subarray(start, end)
    : Buffer.from(data.buffer, data.byteOffset + start, end - start);
}

/** Kafka's DefaultRecordBatch.incrementSequence: baseSequence + delta, wrapping at 2^31. */
export function incrementSequence(seq: number, delta: number): number {
  return seq > 0x7fffffff - delta ? delta - (0x7fffffff - seq) - 1 : seq + delta;
}
