import { EncodeError } from './errors.js';
import type { DeferredBytes, FramePart, TaggedField } from './types.js';

const INITIAL = 256;

/**
 * A growable big-endian writer. Large external buffers (record data read from disk) can be
 * appended by reference with `appendChunk`: the output is then a list of buffers, never a copy.
 * A `records` field may also be bytes not read yet (DeferredBytes): such a frame comes out of
 * `toParts` only, for a writer that reads them as it sends.
 */
export class Writer {
  buf: Buffer;
  pos = 0;
  private chunks: FramePart[] | null = null;
  private deferred = false;
  private chunkedBytes = 0;

  constructor(initial = INITIAL) {
    this.buf = Buffer.allocUnsafe(initial);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** Total bytes written so far, including appended chunks. */
  get length(): number {
    return this.chunkedBytes + this.pos;
  }

  int8(v: number): void {
    this.ensure(1);
    this.buf.writeInt8(v, this.pos);
    this.pos += 1;
  }
  bool(v: boolean): void {
    this.int8(v ? 1 : 0);
  }
  int16(v: number): void {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
  }
  uint16(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
  }
  int32(v: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
  }
  uint32(v: number): void {
    this.ensure(4);
    this.buf.writeUInt32BE(v, this.pos);
    this.pos += 4;
  }
  int64(v: bigint): void {
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
  }
  float64(v: number): void {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
  }
  uuid(v: string): void {
    this.ensure(16);
    const n = this.buf.write(v, this.pos, 16, 'base64url');
    if (n !== 16 || v.length !== 22) throw new EncodeError(`invalid uuid ${v}`);
    this.pos += 16;
  }
  uvarint(v: number): void {
    if (v < 0 || v > 0xffffffff) throw new EncodeError(`unsigned varint out of range: ${v}`);
    this.ensure(5);
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
  }
  varint(v: number): void {
    this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  private textLength(v: string, field: string): number {
    const n = Buffer.byteLength(v, 'utf8');
    if (n > 0x7fff) throw new EncodeError(`'${field}' field is too long to be serialized`);
    return n;
  }
  private text(v: string, n: number): void {
    this.ensure(n);
    this.buf.write(v, this.pos, n, 'utf8');
    this.pos += n;
  }
  string(v: string | null, field: string): void {
    if (v === null) throw new EncodeError(`non-nullable field ${field} was set to null`);
    const n = this.textLength(v, field);
    this.int16(n);
    this.text(v, n);
  }
  nullableString(v: string | null, field: string): void {
    if (v === null) return this.int16(-1);
    const n = this.textLength(v, field);
    this.int16(n);
    this.text(v, n);
  }
  compactString(v: string | null, field: string): void {
    if (v === null) throw new EncodeError(`non-nullable field ${field} was set to null`);
    const n = this.textLength(v, field);
    this.uvarint(n + 1);
    this.text(v, n);
  }
  compactNullableString(v: string | null, field: string): void {
    if (v === null) return this.uvarint(0);
    const n = this.textLength(v, field);
    this.uvarint(n + 1);
    this.text(v, n);
  }

  raw(b: Buffer): void {
    if (b.length >= 4096) return this.appendChunk(b);
    this.ensure(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }
  bytes(v: Buffer | null, field: string): void {
    if (v === null) throw new EncodeError(`non-nullable field ${field} was set to null`);
    this.int32(v.length);
    this.raw(v);
  }
  nullableBytes(v: Buffer | null): void {
    if (v === null) return this.int32(-1);
    this.int32(v.length);
    this.raw(v);
  }
  compactBytes(v: Buffer | null, field: string): void {
    if (v === null) throw new EncodeError(`non-nullable field ${field} was set to null`);
    this.uvarint(v.length + 1);
    this.raw(v);
  }
  compactNullableBytes(v: Buffer | null): void {
    if (v === null) return this.uvarint(0);
    this.uvarint(v.length + 1);
    this.raw(v);
  }
  /** `records` fields: nullable bytes whose content may be a list of buffers, or bytes read as they are sent. */
  records(v: Buffer | readonly Buffer[] | DeferredBytes | null, compact: boolean): void {
    if (v === null) return compact ? this.uvarint(0) : this.int32(-1);
    if (Buffer.isBuffer(v)) return compact ? this.compactNullableBytes(v) : this.nullableBytes(v);
    if (!Array.isArray(v)) {
      const d = v as DeferredBytes;
      if (compact) this.uvarint(d.length + 1);
      else this.int32(d.length);
      if (d.length > 0) {
        this.appendChunk(d);
        this.deferred = true;
      }
      return;
    }
    let n = 0;
    const list = v as readonly Buffer[];
    for (const b of list) n += b.length;
    if (compact) this.uvarint(n + 1);
    else this.int32(n);
    for (const b of list) this.raw(b);
  }

  arrayLength(n: number): void {
    this.int32(n);
  }
  compactArrayLength(n: number): void {
    this.uvarint(n + 1);
  }

  /** Append a buffer (or deferred bytes) by reference (no copy). */
  appendChunk(b: FramePart): void {
    if (b.length === 0) return;
    this.chunks ??= [];
    if (this.pos > 0) {
      this.chunks.push(this.buf.subarray(0, this.pos));
      this.chunkedBytes += this.pos;
      this.buf = this.buf.subarray(this.pos);
      this.pos = 0;
    }
    this.chunks.push(b);
    this.chunkedBytes += b.length;
  }

  /** The tagged-field section: known fields (already encoded) merged with unknown ones, by tag. */
  taggedFields(known: TaggedField[] | null, unknown: readonly TaggedField[] | undefined): void {
    const all = unknown && unknown.length ? (known ? known.concat(unknown) : unknown.slice()) : known;
    if (!all || all.length === 0) return this.uvarint(0);
    if (all.length > 1) all.sort((a, b) => a.tag - b.tag);
    this.uvarint(all.length);
    for (const f of all) {
      this.uvarint(f.tag);
      this.uvarint(f.data.length);
      this.raw(f.data);
    }
  }

  /** Everything written, deferred bytes included, in order. */
  toParts(): FramePart[] {
    const tail = this.buf.subarray(0, this.pos);
    if (!this.chunks) return [tail];
    return tail.length ? [...this.chunks, tail] : this.chunks.slice();
  }

  /** Everything written, as buffers (one when nothing was appended by reference); never deferred bytes. */
  toBuffers(): Buffer[] {
    if (this.deferred) throw new EncodeError('deferred record bytes in a frame that must be in memory');
    return this.toParts() as Buffer[];
  }

  toBuffer(): Buffer {
    const parts = this.toBuffers();
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  }
}

/** Encodes one tagged field's value with a fresh writer and returns it as a TaggedField. */
export function tagged(tag: number, write: (w: Writer) => void): TaggedField {
  const w = new Writer(64);
  write(w);
  return { tag, data: w.toBuffer() };
}
