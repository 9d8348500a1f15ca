// Kafka record compression codecs: none, gzip, snappy, lz4, zstd.
//
// Wire formats (what Kafka's Java client writes and reads, clients/.../common/compress/):
//  * gzip   - a standard gzip member stream (node:zlib).
//  * snappy - the snappy-java "xerial" stream: 8-byte magic 82 'SNAPPY' 00, int32 version (1),
//             int32 minimum compatible version (1), then repeated [int32 BE length, raw snappy block].
//             Readers must also accept a bare raw snappy block (librdkafka's form; snappy-java's
//             SnappyInputStream falls back to it when the magic is absent). We WRITE the xerial form
//             (32 KiB chunks, like SnappyOutputStream) for maximum compatibility: every client reads
//             it, while some older non-Java readers only understand xerial.
//  * lz4    - LZ4 frame format, independent blocks, no block/content checksums. Written by lz4-napi
//             (lz4_flex): FLG 0x60 (version 1, block-independent), BD 0x50 (256 KiB max blocks;
//             Java writes 64 KiB blocks but accepts 64 KiB..4 MiB). Magic-0 message sets use
//             Kafka's historically broken header checksum (xxh32 over magic+descriptor); we write it
//             for magic 0 and, like Kafka, ignore the checksum when reading magic 0.
//  * zstd   - a standard zstd frame (@mongodb-js/zstd), level 3 by default like Kafka.
//
// Decompression is bounded: before any native decoder runs, the compressed stream's structure is
// walked (allocation-free) to compute an upper bound of the output size; if it exceeds `maxSize`
// (default 256 MiB) a DecompressionLimitError is thrown. gzip is bounded by zlib's
// maxOutputLength. For lz4/zstd the bound counts each compressed block at its maximum block size,
// so a stream made of many tiny compressed blocks can be rejected even if its real output would
// fit (never the case for Java/librdkafka output, whose blocks are full-sized).
//
// `decompress` decodes on the libuv threadpool; `decompressSync` decodes none/gzip/snappy/lz4 on the
// calling thread with the same bounds, checks and errors (zstd's binding is asynchronous only).

import { createRequire } from 'node:module';
import { constants as bufferConstants } from 'node:buffer';
import * as zlib from 'node:zlib';
import { promisify } from 'node:util';
import { CompressionType, CorruptRecordError } from './layout.js';

export { CorruptRecordError, type CorruptReason } from './layout.js';

const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Errors (CorruptRecordError itself lives in layout.ts, the dependency-free base of this layer)

/** Decompressed output would exceed the configured maximum (decompression-bomb guard). */
export class DecompressionLimitError extends CorruptRecordError {
  readonly limit: number;
  readonly size: number;
  constructor(size: number, limit: number, exact: boolean) {
    super(`decompressed size ${exact ? '' : 'bound '}${size} exceeds the limit of ${limit} bytes`, 'TOO_LARGE');
    this.name = 'DecompressionLimitError';
    this.limit = limit;
    this.size = size;
  }
}

// ---------------------------------------------------------------------------------------------
// Native codec loading (lazy; a missing native module only disables that codec)

interface SnappyMod {
  compress(d: Uint8Array): Promise<Buffer>;
  compressSync(d: Uint8Array): Buffer;
  uncompress(d: Uint8Array, o?: { asBuffer?: boolean }): Promise<string | Buffer>;
  uncompressSync(d: Uint8Array, o?: { asBuffer?: boolean }): string | Buffer;
}
interface Lz4Mod {
  compressFrame(d: Uint8Array): Promise<Buffer>;
  decompressFrame(d: Uint8Array): Promise<Buffer>;
  decompressFrameSync(d: Uint8Array): Buffer;
}
interface ZstdMod {
  compress(d: Buffer, level?: number): Promise<Buffer>;
  decompress(d: Buffer): Promise<Buffer>;
}

const loaded = new Map<string, unknown>();
function load<T>(name: string, type: CompressionType): T {
  let mod = loaded.get(name);
  if (mod === undefined) {
    try {
      mod = require(name) as unknown;
    } catch (e) {
      mod = null;
      loaded.set(name + ':error', e);
    }
    loaded.set(name, mod);
  }
  if (mod === null) {
    throw new CorruptRecordError(
      `compression ${compressionTypeName(type)} unavailable: cannot load ${name}`,
      'UNSUPPORTED_COMPRESSION',
    );
  }
  return mod as T;
}

// ---------------------------------------------------------------------------------------------
// Public API

export const DEFAULT_MAX_DECOMPRESSED_SIZE = 256 * 1024 * 1024;
export const SNAPPY_XERIAL_BLOCK_SIZE = 32 * 1024;
export const ZSTD_DEFAULT_LEVEL = 3;

export interface CompressOptions {
  /** gzip (1-9, default 6) or zstd (default 3) level; ignored by snappy and lz4. */
  level?: number;
  /** Message format the stream is for; magic 0 selects Kafka's broken lz4 header checksum. */
  magic?: number;
  /** snappy output form: 'xerial' (default, like the Java client) or 'raw' (like librdkafka). */
  snappyFormat?: 'xerial' | 'raw';
}

export interface DecompressOptions {
  /** Maximum decompressed size in bytes (default 256 MiB). */
  maxSize?: number;
  /** Message format the stream came from; magic 0 skips the lz4 header-checksum check. */
  magic?: number;
}

export const COMPRESSION_TYPE_NAMES = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const NAMES = COMPRESSION_TYPE_NAMES;
export type CompressionName = (typeof NAMES)[number];

export function compressionTypeName(type: number): string {
  return NAMES[type] ?? `unknown(${type})`;
}

/** Parses a `compression.type` name (none/gzip/snappy/lz4/zstd, case-insensitive). */
export function parseCompressionType(name: string): CompressionType {
  const i = (NAMES as readonly string[]).indexOf(name.toLowerCase());
  if (i < 0) throw new RangeError(`unknown compression type: ${name}`);
  return i as CompressionType;
}

function asBuffer(d: Uint8Array): Buffer {
  return Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

const gzipAsync = promisify(zlib.gzip);
const gunzipAsync = promisify(zlib.gunzip);

export async function compress(type: CompressionType, data: Uint8Array, opts: CompressOptions = {}): Promise<Buffer> {
  switch (type) {
    case CompressionType.None:
      return asBuffer(data);
    case CompressionType.Gzip:
      return gzipAsync(data, { level: opts.level ?? zlib.constants.Z_DEFAULT_COMPRESSION });
    case CompressionType.Snappy:
      return opts.snappyFormat === 'raw' ? load<SnappyMod>('snappy', type).compress(data) : snappyXerialCompress(data);
    case CompressionType.Lz4: {
      const out = await load<Lz4Mod>('lz4-napi', type).compressFrame(data);
      if (opts.magic === 0) {
        // Kafka (magic 0 only): header checksum computed over magic + descriptor.
        const hcPos = lz4HeaderChecksumPos(out);
        out[hcPos] = (xxh32Small(out, 0, hcPos) >>> 8) & 0xff;
      }
      return out;
    }
    case CompressionType.Zstd:
      return load<ZstdMod>('@mongodb-js/zstd', type).compress(asBuffer(data), opts.level ?? ZSTD_DEFAULT_LEVEL);
    default:
      throw new CorruptRecordError(`unknown compression codec ${type as number}`, 'UNSUPPORTED_COMPRESSION');
  }
}

export async function decompress(
  type: CompressionType,
  data: Uint8Array,
  options: number | DecompressOptions = {},
): Promise<Buffer> {
  const opts = typeof options === 'number' ? { maxSize: options } : options;
  const maxSize = opts.maxSize ?? DEFAULT_MAX_DECOMPRESSED_SIZE;
  let out: Buffer;
  switch (type) {
    case CompressionType.Gzip:
      try {
        out = await gunzipAsync(data, gunzipOptions(maxSize));
      } catch (e) {
        throw gunzipFailed(e, maxSize);
      }
      break;
    case CompressionType.Snappy:
      out = await snappyDecompress(data, maxSize);
      break;
    case CompressionType.Lz4:
      out = await lz4Decompress(data, maxSize, opts.magic === 0);
      break;
    case CompressionType.Zstd: {
      const bound = zstdOutputBound(data);
      if (bound > maxSize) throw new DecompressionLimitError(bound, maxSize, false);
      try {
        out = await load<ZstdMod>('@mongodb-js/zstd', type).decompress(asBuffer(data));
      } catch (e) {
        throw failed(type, e);
      }
      break;
    }
    default:
      return decompressSync(type, data, opts);
  }
  if (out.length > maxSize) throw new DecompressionLimitError(out.length, maxSize, true);
  return out;
}

/**
 * True if `decompressSync` decodes the codec: none, gzip, snappy and lz4 (zstd's binding,
 * @mongodb-js/zstd, is asynchronous only).
 */
export function canDecompressSync(type: CompressionType): boolean {
  return type !== CompressionType.Zstd;
}

/**
 * `decompress` on the calling thread, with the same bounds, checks and errors: for a reader that
 * decodes one batch at a time (dump-log), no round trip through the libuv threadpool per batch.
 * Throws UNSUPPORTED_COMPRESSION for zstd (see canDecompressSync) and unknown codecs.
 */
export function decompressSync(
  type: CompressionType,
  data: Uint8Array,
  options: number | DecompressOptions = {},
): Buffer {
  const opts = typeof options === 'number' ? { maxSize: options } : options;
  const maxSize = opts.maxSize ?? DEFAULT_MAX_DECOMPRESSED_SIZE;
  let out: Buffer;
  switch (type) {
    case CompressionType.None:
      if (data.length > maxSize) throw new DecompressionLimitError(data.length, maxSize, true);
      return asBuffer(data);
    case CompressionType.Gzip:
      try {
        out = zlib.gunzipSync(data, gunzipOptions(maxSize));
      } catch (e) {
        throw gunzipFailed(e, maxSize);
      }
      break;
    case CompressionType.Snappy:
      out = snappyDecompressSync(data, maxSize);
      break;
    case CompressionType.Lz4:
      out = lz4DecompressSync(data, maxSize, opts.magic === 0);
      break;
    case CompressionType.Zstd:
      throw new CorruptRecordError('zstd cannot be decompressed synchronously', 'UNSUPPORTED_COMPRESSION');
    default:
      throw new CorruptRecordError(`unknown compression codec ${type as number}`, 'UNSUPPORTED_COMPRESSION');
  }
  if (out.length > maxSize) throw new DecompressionLimitError(out.length, maxSize, true);
  return out;
}

function gunzipOptions(maxSize: number): zlib.ZlibOptions {
  return { maxOutputLength: Math.max(1, Math.min(maxSize, bufferConstants.MAX_LENGTH)) };
}

function gunzipFailed(e: unknown, maxSize: number): CorruptRecordError {
  if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
    return new DecompressionLimitError(maxSize + 1, maxSize, false);
  return failed(CompressionType.Gzip, e);
}

function failed(type: CompressionType, e: unknown): CorruptRecordError {
  if (e instanceof CorruptRecordError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new CorruptRecordError(`${compressionTypeName(type)} decompression failed: ${msg}`, 'DECOMPRESSION_FAILED');
}

function truncated(what: string): CorruptRecordError {
  return new CorruptRecordError(`truncated ${what}`, 'DECOMPRESSION_FAILED');
}

// ---------------------------------------------------------------------------------------------
// snappy

const XERIAL_MAGIC = [0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00];
const XERIAL_HEADER_SIZE = 16;

function hasXerialMagic(d: Uint8Array, pos: number): boolean {
  if (d.length - pos < XERIAL_MAGIC.length) return false;
  for (let i = 0; i < XERIAL_MAGIC.length; i++) if (d[pos + i] !== XERIAL_MAGIC[i]) return false;
  return true;
}

/** True if `d` starts with the snappy-java stream header. */
export function isXerialSnappy(d: Uint8Array): boolean {
  return hasXerialMagic(d, 0);
}

/** Uncompressed length from a raw snappy block's uvarint preamble (at most 32 bits). */
function snappyPreamble(d: Uint8Array, start: number, end: number): number {
  let result = 0;
  for (let i = 0; i < 5; i++) {
    if (start + i >= end) throw truncated('snappy block preamble');
    const b = d[start + i]!;
    result += (b & 0x7f) * 2 ** (7 * i);
    if ((b & 0x80) === 0) {
      if (result > 0xffffffff) break;
      return result;
    }
  }
  throw new CorruptRecordError('invalid snappy block preamble', 'DECOMPRESSION_FAILED');
}

function snappyBlock(mod: SnappyMod, block: Uint8Array, expected: number): Promise<Buffer> {
  return mod.uncompress(block, { asBuffer: true }).then(
    (out) => snappyChecked(out, expected),
    (e: unknown) => {
      throw failed(CompressionType.Snappy, e);
    },
  );
}

function snappyBlockSync(mod: SnappyMod, block: Uint8Array, expected: number): Buffer {
  let out: string | Buffer;
  try {
    out = mod.uncompressSync(block, { asBuffer: true });
  } catch (e) {
    throw failed(CompressionType.Snappy, e);
  }
  return snappyChecked(out, expected);
}

function snappyChecked(out: string | Buffer, expected: number): Buffer {
  if (typeof out === 'string' || out.length !== expected) {
    throw new CorruptRecordError('snappy block decoded to an unexpected length', 'DECOMPRESSION_FAILED');
  }
  return out;
}

/** The raw snappy blocks of a stream (xerial or one bare block), their decoded sizes and total, bounds checked. */
function snappyPlan(d: Uint8Array, maxSize: number): { blocks: Uint8Array[]; sizes: number[]; total: number } {
  if (!hasXerialMagic(d, 0)) {
    const n = snappyPreamble(d, 0, d.length);
    if (n > maxSize) throw new DecompressionLimitError(n, maxSize, true);
    return { blocks: [d], sizes: [n], total: n };
  }
  if (d.length < XERIAL_HEADER_SIZE) throw truncated('snappy-java stream header');
  const view = asBuffer(d);
  const blocks: Uint8Array[] = [];
  const sizes: number[] = [];
  let total = 0;
  let pos = XERIAL_HEADER_SIZE;
  while (pos < d.length) {
    if (d.length - pos < 4) throw truncated('snappy-java chunk length');
    // A concatenated stream repeats the 16-byte header (snappy-java skips it).
    if (hasXerialMagic(d, pos)) {
      if (d.length - pos < XERIAL_HEADER_SIZE) throw truncated('snappy-java stream header');
      pos += XERIAL_HEADER_SIZE;
      continue;
    }
    const n = view.readInt32BE(pos);
    pos += 4;
    if (n < 0 || n > d.length - pos)
      throw new CorruptRecordError(`invalid snappy-java chunk length ${n}`, 'DECOMPRESSION_FAILED');
    if (n > 0) {
      const size = snappyPreamble(d, pos, pos + n);
      total += size;
      if (total > maxSize) throw new DecompressionLimitError(total, maxSize, true);
      blocks.push(d.subarray(pos, pos + n));
      sizes.push(size);
    }
    pos += n;
  }
  return { blocks, sizes, total };
}

function joined(parts: Buffer[], total: number): Buffer {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
}

async function snappyDecompress(d: Uint8Array, maxSize: number): Promise<Buffer> {
  const mod = load<SnappyMod>('snappy', CompressionType.Snappy);
  const { blocks, sizes, total } = snappyPlan(d, maxSize);
  return joined(await Promise.all(blocks.map((b, i) => snappyBlock(mod, b, sizes[i]!))), total);
}

function snappyDecompressSync(d: Uint8Array, maxSize: number): Buffer {
  const mod = load<SnappyMod>('snappy', CompressionType.Snappy);
  const { blocks, sizes, total } = snappyPlan(d, maxSize);
  return joined(
    blocks.map((b, i) => snappyBlockSync(mod, b, sizes[i]!)),
    total,
  );
}

async function snappyXerialCompress(d: Uint8Array): Promise<Buffer> {
  const mod = load<SnappyMod>('snappy', CompressionType.Snappy);
  const chunks: Promise<Buffer>[] = [];
  for (let pos = 0; pos < d.length; pos += SNAPPY_XERIAL_BLOCK_SIZE) {
    chunks.push(mod.compress(d.subarray(pos, Math.min(d.length, pos + SNAPPY_XERIAL_BLOCK_SIZE))));
  }
  const blocks = await Promise.all(chunks);
  let size = XERIAL_HEADER_SIZE;
  for (const b of blocks) size += 4 + b.length;
  const out = Buffer.allocUnsafe(size);
  out.set(XERIAL_MAGIC, 0);
  out.writeInt32BE(1, 8); // version
  out.writeInt32BE(1, 12); // minimum compatible version
  let pos = XERIAL_HEADER_SIZE;
  for (const b of blocks) {
    out.writeInt32BE(b.length, pos);
    out.set(b, pos + 4);
    pos += 4 + b.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// lz4 (frame format)

const LZ4_MAGIC = 0x184d2204;

/** xxHash32 (seed 0) of d[start, end) for inputs shorter than 16 bytes (frame descriptors). */
export function xxh32Small(d: Uint8Array, start: number, end: number): number {
  const P1 = 0x9e3779b1,
    P2 = 0x85ebca77,
    P3 = 0xc2b2ae3d,
    P4 = 0x27d4eb2f,
    P5 = 0x165667b1;
  const len = end - start;
  if (len >= 16) throw new RangeError('xxh32Small handles inputs shorter than 16 bytes');
  let h = (P5 + len) | 0;
  let p = start;
  for (; p + 4 <= end; p += 4) {
    const w = d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16) | (d[p + 3]! << 24);
    h = (h + Math.imul(w, P3)) | 0;
    h = Math.imul((h << 17) | (h >>> 15), P4);
  }
  for (; p < end; p++) {
    h = (h + Math.imul(d[p]!, P5)) | 0;
    h = Math.imul((h << 11) | (h >>> 21), P1);
  }
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  h ^= h >>> 16;
  return h >>> 0;
}

function lz4HeaderChecksumPos(frame: Uint8Array): number {
  return frame.length > 4 && (frame[4]! & 0x08) !== 0 ? 14 : 6;
}

/**
 * Walks an LZ4 frame without decoding it. Returns the frame's end position and an upper bound of
 * its decoded size. Enforces what Kafka's Lz4BlockInputStream enforces (version 1, independent
 * blocks, reserved bits zero, block size id 4..7, blocks no larger than the maximum).
 */
interface Lz4Scan {
  end: number;
  bound: number;
  contentSize: number;
  /** FLG and BD bytes of the frame descriptor */
  flg: number;
  bd: number;
  blockMax: number;
  /** block data ranges [start, end) (after the block size word; with its checksum when present) */
  blocks: { start: number; end: number; raw: boolean }[] | null;
}

function lz4Scan(d: Uint8Array, ignoreHeaderChecksum: boolean, collect = false): Lz4Scan {
  const bad = (m: string) => new CorruptRecordError(`lz4: ${m}`, 'DECOMPRESSION_FAILED');
  if (d.length < 7) throw truncated('lz4 frame header');
  const v = asBuffer(d);
  if (v.readUInt32LE(0) !== LZ4_MAGIC) throw bad('bad frame magic');
  const flg = d[4]!,
    bd = d[5]!;
  if (flg >>> 6 !== 1) throw bad(`unsupported frame version ${flg >>> 6}`);
  if ((flg & 0x03) !== 0) throw bad('reserved FLG bits set');
  if ((flg & 0x20) === 0) throw bad('dependent block streams are unsupported');
  if ((bd & 0x8f) !== 0) throw bad('reserved BD bits set');
  const sizeId = (bd >>> 4) & 7;
  if (sizeId < 4) throw bad(`invalid block size id ${sizeId}`);
  const blockMax = 1 << (2 * sizeId + 8);
  let p = 6;
  let contentSize = -1;
  if ((flg & 0x08) !== 0) {
    if (d.length < 15) throw truncated('lz4 frame header');
    contentSize = v.readUInt32LE(10) * 4294967296 + v.readUInt32LE(6);
    p = 14;
  }
  if (!ignoreHeaderChecksum && d[p] !== ((xxh32Small(d, 4, p) >>> 8) & 0xff))
    throw bad('frame descriptor checksum mismatch');
  p++;
  const blockChecksum = (flg & 0x10) !== 0 ? 4 : 0;
  const blocks: Lz4Scan['blocks'] = collect ? [] : null;
  let bound = 0;
  for (;;) {
    if (d.length - p < 4) throw truncated('lz4 block header');
    const word = v.readUInt32LE(p);
    p += 4;
    if (word === 0) break;
    const n = word & 0x7fffffff;
    if (n > blockMax) throw bad(`block size ${n} exceeds maximum ${blockMax}`);
    if (d.length - p < n + blockChecksum) throw truncated('lz4 block');
    // An LZ4 sequence expands at most ~255x; uncompressed blocks are copied verbatim.
    bound += (word & 0x80000000) !== 0 ? n : Math.min(blockMax, n * 255);
    blocks?.push({ start: p, end: p + n + blockChecksum, raw: (word & 0x80000000) !== 0 });
    p += n + blockChecksum;
  }
  if ((flg & 0x04) !== 0) {
    if (d.length - p < 4) throw truncated('lz4 content checksum');
    p += 4;
  }
  return { end: p, bound, contentSize, flg, bd, blockMax, blocks };
}

/**
 * Decodes one LZ4 block, src[start, end), into out (at most out.length bytes); returns the decoded
 * length. Throws DECOMPRESSION_FAILED on a malformed block (a read past the block, an offset before
 * the output's start, output past out.length), as the native decoder does.
 */
export function lz4DecodeBlock(src: Uint8Array, start: number, end: number, out: Uint8Array): number {
  const bad = (m: string) => new CorruptRecordError(`lz4 decompression failed: ${m}`, 'DECOMPRESSION_FAILED');
  const cap = out.length;
  let ip = start;
  let op = 0;
  for (;;) {
    if (ip >= end) throw bad('block ends before its last literals');
    const token = src[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (ip >= end) throw bad('truncated literal length');
        b = src[ip++]!;
        lit += b;
      } while (b === 255);
    }
    if (lit > end - ip) throw bad('literals past the block');
    if (lit > cap - op) throw bad('output past the block maximum');
    out.set(src.subarray(ip, ip + lit), op);
    ip += lit;
    op += lit;
    if (ip === end) return op; // the last sequence has literals only
    if (end - ip < 2) throw bad('truncated match offset');
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    if (offset === 0 || offset > op) throw bad(`invalid match offset ${offset}`);
    let len = token & 15;
    if (len === 15) {
      let b: number;
      do {
        if (ip >= end) throw bad('truncated match length');
        b = src[ip++]!;
        len += b;
      } while (b === 255);
    }
    len += 4;
    if (len > cap - op) throw bad('output past the block maximum');
    const from = op - offset;
    if (offset >= len) {
      out.copyWithin(op, from, from + len);
    } else {
      // overlapping: the last `offset` bytes repeat; copied in spans that double (each span starts
      // at a multiple of `offset`, so copying from `from` continues the pattern)
      for (let copied = 0; copied < len;) {
        const n = Math.min(op + copied - from, len - copied);
        out.copyWithin(op + copied, from, from + n);
        copied += n;
      }
    }
    op += len;
  }
}

/** The frame to hand to the decoder (bounds checked, legacy checksum repaired) and its declared content size. */
function lz4Frame(d: Uint8Array, maxSize: number, magic0: boolean): { frame: Uint8Array; contentSize: number } {
  const { end, bound, contentSize } = lz4Scan(d, magic0);
  if (contentSize > maxSize) throw new DecompressionLimitError(contentSize, maxSize, true);
  if (bound > maxSize) throw new DecompressionLimitError(bound, maxSize, false);
  let frame = d.subarray(0, end); // bytes after the end mark are ignored, as in Kafka
  if (magic0) {
    const hcPos = lz4HeaderChecksumPos(frame);
    const hc = (xxh32Small(frame, 4, hcPos) >>> 8) & 0xff;
    if (frame[hcPos] !== hc) {
      frame = Buffer.from(frame); // copy once to repair the legacy checksum for the decoder
      frame[hcPos] = hc;
    }
  }
  return { frame, contentSize };
}

function lz4Checked(out: Buffer, contentSize: number): Buffer {
  if (contentSize >= 0 && out.length !== contentSize)
    throw new CorruptRecordError('lz4: content size mismatch', 'DECOMPRESSION_FAILED');
  return out;
}

async function lz4Decompress(d: Uint8Array, maxSize: number, magic0: boolean): Promise<Buffer> {
  const mod = load<Lz4Mod>('lz4-napi', CompressionType.Lz4);
  const { frame, contentSize } = lz4Frame(d, maxSize, magic0);
  let out: Buffer;
  try {
    out = await mod.decompressFrame(frame);
  } catch (e) {
    throw failed(CompressionType.Lz4, e);
  }
  return lz4Checked(out, contentSize);
}

function lz4DecompressSync(d: Uint8Array, maxSize: number, magic0: boolean): Buffer {
  const mod = load<Lz4Mod>('lz4-napi', CompressionType.Lz4);
  const { frame, contentSize } = lz4Frame(d, maxSize, magic0);
  let out: Buffer;
  try {
    out = mod.decompressFrameSync(asBuffer(frame));
  } catch (e) {
    throw failed(CompressionType.Lz4, e);
  }
  return lz4Checked(out, contentSize);
}

// ---------------------------------------------------------------------------------------------
// zstd

const ZSTD_MAGIC = 0xfd2fb528;
const ZSTD_BLOCK_MAX = 128 * 1024;

/**
 * Walks the frames of a zstd stream without decoding them and returns an upper bound of the
 * decoded size (raw and RLE blocks exactly, compressed blocks at the block maximum).
 */
export function zstdOutputBound(d: Uint8Array): number {
  const bad = (m: string) => new CorruptRecordError(`zstd: ${m}`, 'DECOMPRESSION_FAILED');
  const v = asBuffer(d);
  if (d.length === 0) throw truncated('zstd frame');
  let p = 0;
  let bound = 0;
  while (p < d.length) {
    if (d.length - p < 4) throw truncated('zstd frame magic');
    const magic = v.readUInt32LE(p);
    p += 4;
    if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
      if (d.length - p < 4) throw truncated('zstd skippable frame');
      const n = v.readUInt32LE(p);
      p += 4;
      if (n > d.length - p) throw truncated('zstd skippable frame');
      p += n;
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw bad('bad frame magic');
    if (p >= d.length) throw truncated('zstd frame header');
    const fhd = d[p++]!;
    if ((fhd & 0x08) !== 0) throw bad('reserved frame header bit set');
    const fcsFlag = fhd >>> 6;
    const single = (fhd & 0x20) !== 0;
    let windowSize = Infinity;
    if (!single) {
      if (p >= d.length) throw truncated('zstd frame header');
      const wd = d[p++]!;
      const base = 2 ** (10 + (wd >>> 3));
      windowSize = base + (base / 8) * (wd & 7);
    }
    p += [0, 1, 2, 4][fhd & 3]!;
    const fcsSize = fcsFlag === 0 ? (single ? 1 : 0) : [0, 2, 4, 8][fcsFlag]!;
    if (d.length - p < fcsSize) throw truncated('zstd frame header');
    let fcs = -1;
    if (fcsSize === 1) fcs = d[p]!;
    else if (fcsSize === 2) fcs = v.readUInt16LE(p) + 256;
    else if (fcsSize === 4) fcs = v.readUInt32LE(p);
    else if (fcsSize === 8) fcs = v.readUInt32LE(p + 4) * 4294967296 + v.readUInt32LE(p);
    p += fcsSize;
    if (single) windowSize = fcs;
    const blockMax = Math.min(windowSize, ZSTD_BLOCK_MAX);
    let frameBound = 0;
    for (;;) {
      if (d.length - p < 3) throw truncated('zstd block header');
      const h = d[p]! | (d[p + 1]! << 8) | (d[p + 2]! << 16);
      p += 3;
      const type = (h >>> 1) & 3;
      const size = h >>> 3;
      if (type === 3) throw bad('reserved block type');
      if (size > ZSTD_BLOCK_MAX) throw bad('block larger than 128 KiB');
      const stored = type === 1 ? 1 : size;
      if (d.length - p < stored) throw truncated('zstd block');
      p += stored;
      frameBound += type === 2 ? blockMax : size;
      if ((h & 1) !== 0) break;
    }
    if ((fhd & 0x04) !== 0) {
      if (d.length - p < 4) throw truncated('zstd content checksum');
      p += 4;
    }
    if (fcs >= 0 && fcs > frameBound) throw bad('frame content size larger than its blocks can hold');
    bound += frameBound;
  }
  return bound;
}

// ---------------------------------------------------------------------------------------------
// Streaming decompression (the produce path): Kafka 4.4 reads a compressed batch's records one by
// one from an InputStream over the codec (DefaultRecordBatch.compressedIterator), so what a batch
// costs is the codec's buffers, not its decompressed size. The common batch (output at most
// `window`, 256 KiB) is decoded in one call by decompressIfSmall; a larger one by decompressChunks,
// which yields the decompressed records section in bounded chunks; the caller (RecordStreamWalker)
// stops pulling as soon as it has an answer, which ends the decoding.
//  * gzip   - a zlib stream yielding STREAM_CHUNK_BYTES at a time.
//  * lz4    - block by block (blocks are independent: each is decoded as a one-block frame), at
//             most 4 MiB each, like Kafka's Lz4BlockInputStream.
//  * snappy - xerial chunk by chunk (each at most its preamble's size); a bare block whole, as
//             snappy-java reads it (its preamble bounds it, and snappy expands at most ~64x).
//  * zstd   - the native binding decodes whole frames only: a frame whose output bound (the block
//             walk) exceeds `maxWholeSize` (32 MiB) is refused with DecompressionLimitError instead
//             of being decoded; below it the frame is decoded whole. (Kafka streams zstd: a record
//             of more than 32 MiB in one zstd batch is accepted by Kafka, refused here.)
// Every decoding first takes its memory from a DecompressionBudget (when given): the bytes of
// decoding in flight across all batches and requests are bounded by the budget's capacity.

export const STREAM_CHUNK_BYTES = 64 * 1024;
/** Decoded in one call below this (the common batch); streamed above it. */
export const DEFAULT_DECODE_WINDOW = 256 * 1024;
/** Largest zstd frame / bare snappy block decoded whole in the produce path. */
export const DEFAULT_MAX_WHOLE_SIZE = 32 * 1024 * 1024;

/**
 * A FIFO byte semaphore bounding the decompression memory in flight (all batches of all requests).
 * A request larger than the capacity waits for the whole capacity.
 */
export class DecompressionBudget {
  private used = 0;
  private readonly waiters: { n: number; wake: () => void }[] = [];
  /** Peak bytes held at once (for tests and benches). */
  peak = 0;

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new RangeError(`decompression budget must be > 0, got ${capacity}`);
  }

  get inUse(): number {
    return this.used;
  }

  /** Waits until `bytes` (clipped to the capacity) are free, takes them and returns their release. */
  acquire(bytes: number): Promise<() => void> | (() => void) {
    const n = Math.max(0, Math.min(bytes, this.capacity));
    if (this.waiters.length === 0 && this.used + n <= this.capacity) {
      this.used += n;
      return this.granted(n);
    }
    // granted by wakeWaiters
    return new Promise<void>((wake) => this.waiters.push({ n, wake })).then(() => this.granted(n));
  }

  private granted(n: number): () => void {
    if (this.used > this.peak) this.peak = this.used;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= n;
      this.wakeWaiters();
    };
  }

  private wakeWaiters(): void {
    while (this.waiters.length > 0 && this.used + this.waiters[0]!.n <= this.capacity) {
      const w = this.waiters.shift()!;
      this.used += w.n;
      w.wake();
    }
  }
}

export interface DecompressChunksOptions {
  /** Message format (2 for record batches). */
  magic?: number;
  /** Decoded in one call below this many bytes (default 1 MiB). */
  window?: number;
  /** zstd frames and bare snappy blocks whose output may exceed this are refused (default 32 MiB). */
  maxWholeSize?: number;
  budget?: DecompressionBudget;
}

/**
 * The whole decompressed output when it is at most `window` bytes (the common batch: one native
 * call, as `decompress`), or null when it may be larger (then decompressChunks streams it). Holds
 * the output's bound from the budget while decoding; the caller owns the buffer afterwards.
 */
export async function decompressIfSmall(
  type: CompressionType,
  data: Uint8Array,
  opts: DecompressChunksOptions = {},
): Promise<Buffer | null> {
  const window = opts.window ?? DEFAULT_DECODE_WINDOW;
  let bound: number;
  switch (type) {
    case CompressionType.None:
      return asBuffer(data);
    case CompressionType.Gzip:
      bound = window; // known only by decoding: tried within the window
      break;
    case CompressionType.Snappy:
      bound = snappyPlan(data, Number.MAX_SAFE_INTEGER).total;
      break;
    case CompressionType.Lz4:
      bound = lz4Scan(data, opts.magic === 0).bound;
      break;
    case CompressionType.Zstd:
      bound = zstdOutputBound(data);
      break;
    default:
      throw new CorruptRecordError(`unknown compression codec ${type as number}`, 'UNSUPPORTED_COMPRESSION');
  }
  if (bound > window) return null;
  const release = opts.budget ? await opts.budget.acquire(bound) : undefined;
  try {
    // lz4 and snappy decode a window in tens of microseconds: on this thread, not the thread pool,
    // whose hand-off costs more than that (bench/validate-offload.bench.ts)
    if (type === CompressionType.Lz4 || type === CompressionType.Snappy) {
      return decompressSync(type, data, { maxSize: window, magic: opts.magic });
    }
    if (type !== CompressionType.Gzip) return await decompress(type, data, { maxSize: window, magic: opts.magic });
    try {
      return await gunzipAsync(data, gunzipOptions(window));
    } catch (e) {
      if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return null;
      throw failed(type, e);
    }
  } finally {
    release?.();
  }
}

/**
 * The decompressed bytes of `data` in order, in bounded chunks (see above). Stopping the iteration
 * early (break / return) stops the decoding and releases its budget.
 */
export async function* decompressChunks(
  type: CompressionType,
  data: Uint8Array,
  opts: DecompressChunksOptions = {},
): AsyncGenerator<Buffer, void, undefined> {
  const window = opts.window ?? DEFAULT_DECODE_WINDOW;
  const maxWhole = opts.maxWholeSize ?? DEFAULT_MAX_WHOLE_SIZE;
  const budget = opts.budget;
  let release: (() => void) | undefined;
  const reserve = async (n: number): Promise<void> => {
    release?.();
    release = budget ? await budget.acquire(n) : undefined;
  };
  try {
    switch (type) {
      case CompressionType.None:
        yield asBuffer(data);
        return;
      case CompressionType.Gzip: {
        await reserve(4 * STREAM_CHUNK_BYTES);
        const gz = zlib.createGunzip({ chunkSize: STREAM_CHUNK_BYTES });
        gz.end(data);
        try {
          for await (const chunk of gz as AsyncIterable<Buffer>) yield chunk;
        } catch (e) {
          throw failed(type, e);
        } finally {
          gz.destroy();
        }
        return;
      }
      case CompressionType.Lz4: {
        const scan = lz4Scan(data, opts.magic === 0, true);
        if (scan.bound <= window) {
          await reserve(scan.bound);
          yield await lz4Decompress(data, window, opts.magic === 0);
          return;
        }
        // one output buffer for every block (the caller is done with a chunk when it pulls the next)
        await reserve(scan.blockMax);
        const out = Buffer.allocUnsafe(scan.blockMax);
        const checksum = (scan.flg & 0x10) !== 0 ? 4 : 0;
        for (const b of scan.blocks!) {
          if (b.raw) yield asBuffer(data.subarray(b.start, b.end - checksum));
          else yield out.subarray(0, lz4DecodeBlock(data, b.start, b.end - checksum, out));
        }
        return;
      }
      case CompressionType.Snappy: {
        const mod = load<SnappyMod>('snappy', type);
        const { blocks, sizes } = snappyPlan(data, Number.MAX_SAFE_INTEGER);
        let largest = 0;
        for (const s of sizes) largest = Math.max(largest, s);
        if (largest > maxWhole) throw new DecompressionLimitError(largest, maxWhole, true);
        await reserve(largest);
        for (let i = 0; i < blocks.length; i++) yield await snappyBlock(mod, blocks[i]!, sizes[i]!);
        return;
      }
      case CompressionType.Zstd: {
        const bound = zstdOutputBound(data);
        if (bound > maxWhole) throw new DecompressionLimitError(bound, maxWhole, false);
        await reserve(bound);
        let out: Buffer;
        try {
          out = await load<ZstdMod>('@mongodb-js/zstd', type).decompress(asBuffer(data));
        } catch (e) {
          throw failed(type, e);
        }
        yield out;
        return;
      }
      default:
        throw new CorruptRecordError(`unknown compression codec ${type as number}`, 'UNSUPPORTED_COMPRESSION');
    }
  } finally {
    release?.();
  }
}
