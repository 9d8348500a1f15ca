// Decompression bombs: v2 record batches whose compressed records section is tiny and whose
// decompressed size is huge, built directly in each codec's framing (no huge buffer is ever made):
//  * zstd - one frame: a raw block with the given prefix, then RLE blocks of 128 KiB zeros (4 bytes each)
//  * gzip - concatenated gzip members: gzip(prefix), then gzip(1 MiB of zeros) repeated (~1 KiB each)
//  * lz4  - one frame: an uncompressed block with the prefix, then one compressed 64 KiB block of
//           zeros repeated (blocks are independent)
// Shapes (what follows the batch header, before compression):
//  * trailing - the batch declares 1 record, holds one small valid record, then `zeros` zero bytes
//               (Kafka: INVALID_RECORD "records still remaining")
//  * bigRecord - one record whose value is `zeros` zero bytes (Kafka streams it; over the topic's
//               max.decompressed.message.bytes it is INVALID_RECORD)
import { gzipSync } from 'node:zlib';
import { crc32c } from '../../src/protocol/records/crc.js';
import { compress, xxh32Small } from '../../src/protocol/records/compression.js';
import { CompressionType } from '../../src/protocol/records/layout.js';

const ZSTD_BLOCK = 128 * 1024;
const LZ4_BLOCK = 64 * 1024;

function varint(v: number): number[] {
  let z = ((v << 1) ^ (v >> 31)) >>> 0;
  const out: number[] = [];
  while (z >= 0x80) {
    out.push((z & 0x7f) | 0x80);
    z >>>= 7;
  }
  out.push(z);
  return out;
}

/**
 * A record (timestamp and offset delta 0, null key, no headers) with a `valueSize`-byte value, as
 * the bytes before the value and after it.
 */
function recordParts(valueSize: number): { head: Buffer; tail: Buffer } {
  // attributes, timestamp delta, offset delta, null key, value size
  const body = Buffer.from([0, ...varint(0), ...varint(0), ...varint(-1), ...varint(valueSize)]);
  const tail = Buffer.from(varint(0)); // header count
  const size = body.length + valueSize + tail.length;
  return { head: Buffer.concat([Buffer.from(varint(size)), body]), tail };
}

/** The bytes of one record whose value is `value`. */
export function recordBytes(value: Buffer): Buffer {
  const { head, tail } = recordParts(value.length);
  return Buffer.concat([head, value, tail]);
}

/** A v2 batch around an already compressed records section (CreateTime, no producer id). */
export function batchAround(codec: CompressionType, section: Buffer, count = 1, timestamp = Date.now()): Buffer {
  const h = Buffer.alloc(61);
  h.writeBigInt64BE(0n, 0);
  h.writeInt32BE(61 - 12 + section.length, 8);
  h.writeInt32BE(-1, 12); // partition leader epoch
  h.writeInt8(2, 16);
  h.writeInt16BE(codec, 21);
  h.writeInt32BE(count - 1, 23);
  h.writeBigInt64BE(BigInt(timestamp), 27);
  h.writeBigInt64BE(BigInt(timestamp), 35);
  h.writeBigInt64BE(-1n, 43);
  h.writeInt16BE(-1, 51);
  h.writeInt32BE(-1, 53);
  h.writeInt32BE(count, 57);
  const b = Buffer.concat([h, section]);
  b.writeUInt32BE(crc32c(b, 21, b.length), 17);
  return b;
}

function zstdFrame(prefix: Buffer, zeros: number, suffix: Buffer): Buffer {
  // FHD 0x00: no FCS, not single segment, no checksum, no dict; window descriptor 2^(10+7) = 128 KiB
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 7 << 3])];
  // raw blocks (type 0) of at most 128 KiB
  const raw = (d: Buffer, last: boolean) => {
    for (let p = 0; p < d.length; p += ZSTD_BLOCK) {
      const chunk = d.subarray(p, Math.min(d.length, p + ZSTD_BLOCK));
      const h = (chunk.length << 3) | (last && p + ZSTD_BLOCK >= d.length ? 1 : 0);
      parts.push(Buffer.from([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff]), chunk);
    }
  };
  raw(prefix, zeros === 0 && suffix.length === 0);
  let left = zeros;
  while (left > 0) {
    const n = Math.min(ZSTD_BLOCK, left);
    left -= n;
    const isLast = left === 0 && suffix.length === 0;
    const h = (n << 3) | (1 << 1) | (isLast ? 1 : 0); // RLE block
    parts.push(Buffer.from([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff, 0]));
  }
  if (suffix.length > 0) raw(suffix, true);
  return Buffer.concat(parts);
}

let gzipZeroMember: Buffer | undefined;
function gzipMembers(prefix: Buffer, zeros: number, suffix: Buffer): Buffer {
  const MiB = 1024 * 1024;
  gzipZeroMember ??= gzipSync(Buffer.alloc(MiB), { level: 9 });
  const parts: Buffer[] = [gzipSync(prefix)];
  for (let left = zeros; left > 0; left -= MiB) parts.push(left >= MiB ? gzipZeroMember : gzipSync(Buffer.alloc(left)));
  if (suffix.length > 0) parts.push(gzipSync(suffix));
  return Buffer.concat(parts);
}

let lz4ZeroBlock: Buffer | undefined;
async function lz4Frame(prefix: Buffer, zeros: number, suffix: Buffer): Promise<Buffer> {
  if (lz4ZeroBlock === undefined) {
    // the first data block of lz4-napi's frame of 64 KiB zeros (header 7 bytes: magic, FLG, BD, HC)
    const f = await compress(CompressionType.Lz4, Buffer.alloc(LZ4_BLOCK));
    const start = (f[4]! & 0x08) !== 0 ? 15 : 7;
    const n = f.readUInt32LE(start) & 0x7fffffff;
    lz4ZeroBlock = f.subarray(start, start + 4 + n);
  }
  // FLG: version 1, independent blocks; BD: 64 KiB blocks (id 4); HC over FLG BD
  const head = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0]);
  head[6] = (xxh32Small(head, 4, 6) >>> 8) & 0xff;
  const rawBlock = (d: Buffer): Buffer[] => {
    const out: Buffer[] = [];
    for (let p = 0; p < d.length; p += LZ4_BLOCK) {
      const c = d.subarray(p, Math.min(d.length, p + LZ4_BLOCK));
      const w = Buffer.alloc(4);
      w.writeUInt32LE((c.length | 0x80000000) >>> 0);
      out.push(w, c);
    }
    return out;
  };
  const parts = [head, ...rawBlock(prefix)];
  if (zeros % LZ4_BLOCK !== 0) throw new RangeError('lz4 bombs hold whole 64 KiB blocks of zeros');
  for (let i = 0; i < zeros / LZ4_BLOCK; i++) parts.push(lz4ZeroBlock);
  parts.push(...rawBlock(suffix), Buffer.alloc(4));
  return Buffer.concat(parts);
}

async function section(codec: CompressionType, prefix: Buffer, zeros: number, suffix: Buffer): Promise<Buffer> {
  switch (codec) {
    case CompressionType.Zstd:
      return zstdFrame(prefix, zeros, suffix);
    case CompressionType.Gzip:
      return gzipMembers(prefix, zeros, suffix);
    case CompressionType.Lz4:
      return lz4Frame(prefix, zeros, suffix);
    default:
      throw new RangeError(`no bomb for codec ${codec}`);
  }
}

/** One valid record, then `zeros` bytes the batch does not declare. */
export async function trailingBomb(codec: CompressionType, zeros: number): Promise<Buffer> {
  return batchAround(codec, await section(codec, recordBytes(Buffer.from('x')), zeros, Buffer.alloc(0)));
}

/** One record whose value is `zeros` zero bytes. */
export async function bigRecordBomb(codec: CompressionType, zeros: number): Promise<Buffer> {
  const { head, tail } = recordParts(zeros);
  return batchAround(codec, await section(codec, head, zeros, tail));
}
