// Streaming walk of the records of a compressed v2 batch, as Kafka 4.4's produce validation reads
// them: DefaultRecordBatch.skipKeyValueIterator → DefaultRecord.readPartiallyFrom(InputStream, …,
// maxRecordSize). The decompressed records section arrives in chunks (compression.ts
// decompressChunks) and is never held whole: each record's size varint is checked (not negative,
// not above max.decompressed.message.bytes), its header fields are decoded, its key, value and
// header bytes are skipped, and the bytes read must equal the declared size. After the declared
// count the stream must be at its end ("records still remaining" otherwise), so a batch that
// declares one record and carries gigabytes after it costs one chunk, not gigabytes.
//
// Field reads are bounded by the stream, not by the record's declared size, as in Kafka; a stream
// that ends inside a record is Kafka's "premature EOF" / "Reached end of input stream" error.

import { CorruptRecordError, INVALID_RECORD_STRUCTURE, readVarint, readVarlong, varintEnd } from './layout.js';
import { PREMATURE_EOF, RECORDS_REMAINING } from './record-cursor.js';

const enum Phase {
  Size,
  Attributes,
  TimestampDelta,
  OffsetDelta,
  KeySize,
  Key,
  ValueSize,
  Value,
  HeaderCount,
  HeaderKeySize,
  HeaderKey,
  HeaderValueSize,
  HeaderValue,
  Done,
}

/** Kafka 4.4 DefaultRecord.readPartiallyFrom's texts. */
export const recordSizeNegative = (n: number): CorruptRecordError =>
  new CorruptRecordError(`Invalid record size: ${n} is negative.`, 'INVALID_LENGTH');
export const recordSizeTooLarge = (n: number, max: number): CorruptRecordError =>
  new CorruptRecordError(
    `Invalid record size: ${n} exceeds the configured maximum record size of ${max}.`,
    'TOO_LARGE',
  );

/**
 * Incremental reader of `count` records from the decompressed records section, pushed in chunks.
 * After each record `onRecord` sees the walker: index, offsetDelta, timestampDelta, keySize.
 */
export class RecordStreamWalker {
  /** Index of the current record (the one onRecord is called for). */
  index = -1;
  attributes = 0;
  timestampDelta = 0;
  offsetDelta = 0;
  /** -1 for a null key */
  keySize = -1;
  /** -1 for a null value */
  valueSize = -1;
  bodySize = 0;
  /** Decompressed bytes consumed so far. */
  bytesRead = 0;

  private phase = Phase.Size;
  private bodyRead = 0;
  private skip = 0;
  private headersLeft = 0;
  // varint accumulator (across chunks)
  private vRaw = 0;
  private vMul = 1;
  private vBytes = 0;

  constructor(
    readonly count: number,
    readonly maxRecordSize: number,
    private readonly onRecord: (w: RecordStreamWalker) => void,
  ) {
    if (count <= 0) this.phase = Phase.Done;
  }

  /** True once the declared count of records has been read. */
  get done(): boolean {
    return this.phase === Phase.Done;
  }

  /**
   * Consumes a chunk. Throws CorruptRecordError on a malformed record, or when bytes follow the
   * last declared record (RECORDS_REMAINING).
   */
  push(d: Uint8Array): void {
    const end = d.length;
    let p = 0;
    while (p < end) {
      if (this.phase === Phase.Done) throw new CorruptRecordError(RECORDS_REMAINING);
      if (this.phase === Phase.Size && this.vBytes === 0) {
        const q = this.wholeRecord(d, p, end);
        if (q >= 0) {
          p = q;
          continue;
        }
      }
      if (this.skip > 0) {
        const n = Math.min(this.skip, end - p);
        this.skip -= n;
        this.bodyRead += n;
        p += n;
        if (this.skip > 0) break;
        this.afterSkip();
        continue;
      }
      if (this.phase === Phase.Attributes) {
        this.attributes = d[p++]!;
        this.bodyRead++;
        this.phase = Phase.TimestampDelta;
        continue;
      }
      // a varint (or varlong) field, byte by byte across chunks
      const x = d[p++]!;
      if (this.phase !== Phase.Size) this.bodyRead++;
      this.vRaw += (x & 0x7f) * this.vMul;
      this.vBytes++;
      if ((x & 0x80) !== 0) {
        this.vMul *= 128;
        const maxBytes = this.phase === Phase.TimestampDelta ? 10 : 5;
        if (this.vBytes >= maxBytes) {
          // ByteUtils: "Varint is too long" (IllegalArgumentException)
          throw this.phase === Phase.Size
            ? new CorruptRecordError(PREMATURE_EOF, 'INVALID_VARINT')
            : new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'INVALID_VARINT');
        }
        continue;
      }
      const raw = this.vRaw;
      this.vRaw = 0;
      this.vMul = 1;
      this.vBytes = 0;
      let v: number;
      if (this.phase === Phase.TimestampDelta) v = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      else {
        const r = raw >>> 0; // int32 wrap as ByteUtils.readVarint
        v = (r >>> 1) ^ -(r & 1);
      }
      this.field(v);
    }
    this.bytesRead += end;
  }

  /**
   * The fast path: a well-formed record lying whole in d[p, end) is read in place (as the cursor
   * reads one). Returns the position after it, or -1 for anything else (a record running past the
   * chunk, or one the byte-wise path must judge and name the error of).
   */
  private wholeRecord(d: Uint8Array, p: number, end: number): number {
    let q = p;
    let size: number, attributes: number, timestampDelta: number, offsetDelta: number, keySize: number;
    let valueSize: number;
    try {
      size = readVarint(d, q, end);
      q = varintEnd;
      if (size < 0 || size > this.maxRecordSize || size > end - q) return -1;
      const bodyStart = q;
      attributes = d[q++]!;
      timestampDelta = readVarlong(d, q, end);
      q = varintEnd;
      offsetDelta = readVarint(d, q, end);
      q = varintEnd;
      keySize = readVarint(d, q, end);
      q = varintEnd;
      if (keySize > 0) q += keySize;
      if (q >= end) return -1;
      valueSize = readVarint(d, q, end);
      q = varintEnd;
      if (valueSize > 0) q += valueSize;
      if (q >= end) return -1;
      let headers = readVarint(d, q, end);
      q = varintEnd;
      if (headers < 0) return -1;
      for (; headers > 0; headers--) {
        const ks = readVarint(d, q, end);
        q = varintEnd;
        if (ks < 0) return -1;
        q += ks;
        if (q >= end) return -1;
        const vs = readVarint(d, q, end);
        q = varintEnd;
        if (vs > 0) q += vs;
        if (q > end) return -1;
      }
      if (q - bodyStart !== size) return -1;
    } catch (e) {
      if (e instanceof CorruptRecordError) return -1;
      throw e;
    }
    this.attributes = attributes;
    this.timestampDelta = timestampDelta;
    this.offsetDelta = offsetDelta;
    this.keySize = keySize < 0 ? -1 : keySize;
    this.valueSize = valueSize < 0 ? -1 : valueSize;
    this.bodySize = size;
    this.index++;
    this.onRecord(this);
    this.phase = this.index + 1 >= this.count ? Phase.Done : Phase.Size;
    return q;
  }

  /** End of the stream: the declared count must have been read. */
  finish(): void {
    if (this.phase === Phase.Done) return;
    if (this.skip > 0)
      throw new CorruptRecordError(
        `Reached end of input stream before skipping all bytes. Remaining bytes:${this.skip}`,
        'TRUNCATED',
      );
    if (this.phase === Phase.Size && this.vBytes === 0) throw new CorruptRecordError(PREMATURE_EOF, 'PREMATURE_EOF');
    if (this.phase === Phase.Size) throw new CorruptRecordError(PREMATURE_EOF, 'PREMATURE_EOF');
    throw new CorruptRecordError(INVALID_RECORD_STRUCTURE, 'TRUNCATED');
  }

  private field(v: number): void {
    switch (this.phase) {
      case Phase.Size:
        if (v < 0) throw recordSizeNegative(v);
        if (v > this.maxRecordSize) throw recordSizeTooLarge(v, this.maxRecordSize);
        this.bodySize = v;
        this.bodyRead = 0;
        this.phase = Phase.Attributes;
        return;
      case Phase.TimestampDelta:
        this.timestampDelta = v;
        this.phase = Phase.OffsetDelta;
        return;
      case Phase.OffsetDelta:
        this.offsetDelta = v;
        this.phase = Phase.KeySize;
        return;
      case Phase.KeySize:
        this.keySize = v < 0 ? -1 : v;
        this.phase = Phase.Key;
        this.startSkip(v);
        return;
      case Phase.ValueSize:
        this.valueSize = v < 0 ? -1 : v;
        this.phase = Phase.Value;
        this.startSkip(v);
        return;
      case Phase.HeaderCount:
        if (v < 0) throw new CorruptRecordError(`Found invalid number of record headers ${v}`);
        this.headersLeft = v;
        this.nextHeader();
        return;
      case Phase.HeaderKeySize:
        if (v < 0) throw new CorruptRecordError(`Invalid negative header key size ${v}`, 'INVALID_LENGTH');
        this.phase = Phase.HeaderKey;
        this.startSkip(v);
        return;
      case Phase.HeaderValueSize:
        this.phase = Phase.HeaderValue;
        this.startSkip(v);
        return;
      default:
        throw new Error(`record stream: unexpected phase ${this.phase}`);
    }
  }

  private startSkip(n: number): void {
    if (n > 0) this.skip = n;
    else this.afterSkip();
  }

  private afterSkip(): void {
    switch (this.phase) {
      case Phase.Key:
        this.phase = Phase.ValueSize;
        return;
      case Phase.Value:
        this.phase = Phase.HeaderCount;
        return;
      case Phase.HeaderKey:
        this.phase = Phase.HeaderValueSize;
        return;
      case Phase.HeaderValue:
        this.headersLeft--;
        this.nextHeader();
        return;
      default:
        throw new Error(`record stream: unexpected phase ${this.phase}`);
    }
  }

  private nextHeader(): void {
    if (this.headersLeft > 0) {
      this.phase = Phase.HeaderKeySize;
      return;
    }
    if (this.bodyRead !== this.bodySize)
      throw new CorruptRecordError(
        `Invalid record size: expected to read ${this.bodySize} bytes in record payload, but instead read ${this.bodyRead}`,
        'INVALID_LENGTH',
      );
    this.index++;
    this.onRecord(this);
    this.phase = this.index + 1 >= this.count ? Phase.Done : Phase.Size;
  }
}
