import { DecodeError } from './errors.js';

/** The most elements Kafka's generated readers accept in one array (Kafka 4.4). */
export const MAX_COLLECTION_SIZE = 1_000_000;
/** The most tagged fields Kafka's generated readers accept in one struct (Kafka 4.4). */
export const MAX_TAGGED_FIELDS = 10_000;

/**
 * A bounds-checked cursor over a received buffer. Every length is checked against the bytes
 * that remain before anything is allocated; `bytes`/`records` return slices (no copy).
 */
export class Reader {
  buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  need(n: number): void {
    if (n > this.end - this.pos) {
      throw new DecodeError(`need ${n} bytes at position ${this.pos}, only ${this.end - this.pos} remain`);
    }
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }
  bool(): boolean {
    return this.int8() !== 0;
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  uint16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  int64(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }
  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }
  uuid(): string {
    this.need(16);
    const s = this.buf.toString('base64url', this.pos, this.pos + 16);
    this.pos += 16;
    return s;
  }

  /** Unsigned varint of at most 5 bytes (32 bits), as Kafka's ByteUtils.readUnsignedVarint. */
  uvarint(): number {
    let value = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) throw new DecodeError(`truncated varint at position ${this.pos}`);
      const b = this.buf[this.pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) {
        if (value > 0xffffffff) throw new DecodeError('varint overflows 32 bits');
        return value;
      }
      shift += 7;
    }
    throw new DecodeError(`varint is too long at position ${this.pos}`);
  }

  /** Signed (zig-zag) varint of at most 5 bytes. */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  private slice(n: number): Buffer {
    this.need(n);
    const s = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
  private text(n: number): string {
    this.need(n);
    const s = this.buf.toString('utf8', this.pos, this.pos + n);
    this.pos += n;
    return s;
  }

  string(field: string): string {
    const n = this.int16();
    if (n < 0) throw new DecodeError(`non-nullable field ${field} was serialized as null`);
    return this.text(n);
  }
  nullableString(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    return this.text(n);
  }
  compactString(field: string): string {
    const n = this.uvarint() - 1;
    if (n < 0) throw new DecodeError(`non-nullable field ${field} was serialized as null`);
    if (n > 0x7fff) throw new DecodeError(`string field ${field} had invalid length ${n}`);
    return this.text(n);
  }
  compactNullableString(): string | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    if (n > 0x7fff) throw new DecodeError(`string had invalid length ${n}`);
    return this.text(n);
  }

  bytes(field: string): Buffer {
    const n = this.int32();
    if (n < 0) throw new DecodeError(`non-nullable field ${field} was serialized as null`);
    return this.slice(n);
  }
  nullableBytes(): Buffer | null {
    const n = this.int32();
    if (n < 0) return null;
    return this.slice(n);
  }
  compactBytes(field: string): Buffer {
    const n = this.uvarint() - 1;
    if (n < 0) throw new DecodeError(`non-nullable field ${field} was serialized as null`);
    return this.slice(n);
  }
  compactNullableBytes(): Buffer | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    return this.slice(n);
  }
  /** Raw bytes of a known length (unknown tagged fields). */
  raw(n: number): Buffer {
    return this.slice(n);
  }

  /**
   * Array length: -1 for null; otherwise checked against the remaining bytes and against Kafka's
   * limit of 1,000,000 elements, as Kafka's generated read does (MAX_COLLECTION_SIZE in 4.4).
   */
  arrayLength(field: string): number {
    const n = this.int32();
    if (n < -1) throw new DecodeError(`field ${field} had invalid array length ${n}`);
    return this.checkedLength(field, n);
  }
  compactArrayLength(field: string): number {
    return this.checkedLength(field, this.uvarint() - 1);
  }
  /** The count of tagged fields, checked as Kafka's generated read checks it. */
  taggedFieldCount(): number {
    const n = this.uvarint();
    if (n > this.end - this.pos) {
      const left = this.end - this.pos;
      throw new DecodeError(`Tried to read ${n} tagged fields, but there are only ${left} bytes remaining.`);
    }
    if (n > MAX_TAGGED_FIELDS) {
      const max = MAX_TAGGED_FIELDS;
      throw new DecodeError(`Tried to read ${n} tagged fields, which exceeds the maximum allowed count of ${max}.`);
    }
    return n;
  }
  private checkedLength(field: string, n: number): number {
    const left = this.end - this.pos;
    if (n > left) throw new DecodeError(`field ${field} had array length ${n} beyond the ${left} remaining bytes`);
    if (n > MAX_COLLECTION_SIZE) {
      const max = MAX_COLLECTION_SIZE;
      throw new DecodeError(
        `Tried to read a collection of size ${n}, which exceeds the maximum allowed size of ${max}.`,
      );
    }
    return n;
  }
}
