// Compression codec tests: round trips, the snappy-java (xerial) stream format, LZ4 frame layout
// and block independence, Kafka's magic-0 LZ4 checksum, decompression-bomb bounds, garbage input.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import * as zlib from 'node:zlib';
import {
  canDecompressSync,
  compress,
  decompress,
  decompressSync,
  isXerialSnappy,
  xxh32Small,
  zstdOutputBound,
  parseCompressionType,
  compressionTypeName,
  CorruptRecordError,
  DecompressionLimitError,
  DEFAULT_MAX_DECOMPRESSED_SIZE,
} from '../src/protocol/records/compression.js';
import { CompressionType } from '../src/protocol/records/layout.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as { compressSync(d: Uint8Array): Buffer };
const CODECS = [
  CompressionType.None,
  CompressionType.Gzip,
  CompressionType.Snappy,
  CompressionType.Lz4,
  CompressionType.Zstd,
];
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function sample(size: number): Buffer {
  const words = ['kafka', 'record', 'batch', 'offset', 'partition', 'leader', 'epoch', '{"id":', '}', ' '];
  const out = Buffer.alloc(size);
  let seed = 7;
  for (let p = 0; p < size;) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    p += out.write(words[seed % words.length]!, p);
  }
  return out;
}

async function rejectsWith(
  p: Promise<unknown>,
  cls: abstract new (...args: never[]) => CorruptRecordError,
  reason?: string,
): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${(e as Error)?.name}: ${(e as Error)?.message}`);
    if (reason !== undefined) assert.equal((e as CorruptRecordError).reason, reason, (e as Error).message);
    return true;
  });
}

test('every codec round-trips empty, small, compressible and incompressible inputs', async () => {
  const inputs = [
    Buffer.alloc(0),
    Buffer.from('x'),
    sample(100_000),
    sample(1 << 20),
    randomBytes(300_000),
    new Uint8Array(sample(5000)),
  ];
  for (const type of CODECS) {
    for (const input of inputs) {
      const packed = await compress(type, input);
      const out = await decompress(type, packed);
      assert.ok(Buffer.from(input).equals(out), `${compressionTypeName(type)} len ${input.length}`);
    }
  }
  // zstd: concatenated and skippable frames
  const z1 = await compress(CompressionType.Zstd, Buffer.from('hello '));
  const z2 = await compress(CompressionType.Zstd, Buffer.from('world'));
  const skippable = hex('502a4d18 03000000 010203');
  assert.equal((await decompress(CompressionType.Zstd, Buffer.concat([z1, skippable, z2]))).toString(), 'hello world');
  assert.equal(parseCompressionType('ZSTD'), CompressionType.Zstd);
  assert.equal(compressionTypeName(CompressionType.Lz4), 'lz4');
  assert.throws(() => parseCompressionType('brotli'), RangeError);
});

test('snappy: writes the snappy-java xerial stream (header + 32 KiB chunks)', async () => {
  const input = sample(100_000);
  const out = await compress(CompressionType.Snappy, input);
  assert.ok(isXerialSnappy(out));
  assert.equal(out.subarray(0, 16).toString('hex'), '82534e415050590000000001' + '00000001');
  let pos = 16;
  let chunks = 0;
  while (pos < out.length) {
    pos += 4 + out.readInt32BE(pos);
    chunks++;
  }
  assert.equal(pos, out.length);
  assert.equal(chunks, Math.ceil(100_000 / 32768));
});

test('snappy: hand-built xerial streams (single, multi-chunk, concatenated) and raw blocks decode', async () => {
  // "hello" as a raw snappy block: uvarint length 5, literal tag (5-1)<<2, bytes.
  const xerialHello = hex('82534e4150505900 00000001 00000001 00000007 05 10 68656c6c6f');
  assert.equal((await decompress(CompressionType.Snappy, xerialHello)).toString(), 'hello');
  assert.equal((await decompress(CompressionType.Snappy, hex('05 10 68656c6c6f'))).toString(), 'hello');
  // multi-chunk stream built from independent raw blocks, as SnappyOutputStream writes it
  const input = sample(200_000);
  const parts: Buffer[] = [hex('82534e4150505900 00000001 00000001')];
  for (let p = 0; p < input.length; p += 32768) {
    const block = snappy.compressSync(input.subarray(p, p + 32768));
    const len = Buffer.alloc(4);
    len.writeInt32BE(block.length);
    parts.push(len, block);
  }
  const stream = Buffer.concat(parts);
  assert.ok((await decompress(CompressionType.Snappy, stream)).equals(input));
  // concatenated streams (snappy-java skips a repeated header)
  const twice = Buffer.concat([stream, stream]);
  assert.ok((await decompress(CompressionType.Snappy, twice)).equals(Buffer.concat([input, input])));
  // librdkafka form
  const raw = await compress(CompressionType.Snappy, input, { snappyFormat: 'raw' });
  assert.ok(!isXerialSnappy(raw));
  assert.ok((await decompress(CompressionType.Snappy, raw)).equals(input));
  // corrupt xerial: chunk length past the end, truncated length, bad block
  await rejectsWith(
    decompress(CompressionType.Snappy, Buffer.concat([stream.subarray(0, 16), hex('7fffffff 00')])),
    CorruptRecordError,
    'DECOMPRESSION_FAILED',
  );
  await rejectsWith(
    decompress(CompressionType.Snappy, Buffer.concat([stream.subarray(0, 16), hex('0000')])),
    CorruptRecordError,
    'DECOMPRESSION_FAILED',
  );
  await rejectsWith(
    decompress(CompressionType.Snappy, hex('82534e4150505900 00000001 00000001 00000004 05 10 6865')),
    CorruptRecordError,
    'DECOMPRESSION_FAILED',
  );
});

// Minimal LZ4 block decoder used only to prove that every block of a frame decodes on its own
// (a match reaching before the block start throws).
function lz4DecodeIndependentBlock(src: Buffer, blockMax: number): Buffer {
  const out = Buffer.alloc(blockMax);
  let o = 0;
  let p = 0;
  while (p < src.length) {
    const token = src[p++]!;
    let lit = token >>> 4;
    if (lit === 15) for (let b = 255; b === 255;) lit += b = src[p++]!;
    src.copy(out, o, p, p + lit);
    o += lit;
    p += lit;
    if (p >= src.length) break;
    const off = src[p]! | (src[p + 1]! << 8);
    p += 2;
    if (off === 0 || off > o) throw new Error('match references data outside the block');
    let ml = token & 15;
    if (ml === 15) for (let b = 255; b === 255;) ml += b = src[p++]!;
    for (let i = 0; i < ml + 4; i++, o++) out[o] = out[o - off]!;
  }
  return out.subarray(0, o);
}

test('lz4: frame layout (independent blocks, no checksums) and per-block independence', async () => {
  // data whose repeats straddle block boundaries, tempting a linked-block encoder
  const unit = randomBytes(1000);
  const input = Buffer.concat(Array.from({ length: 9000 }, (_, i) => (i % 3 ? unit : randomBytes(1000))));
  const frame = await compress(CompressionType.Lz4, input);
  assert.equal(frame.readUInt32LE(0), 0x184d2204);
  assert.equal(frame[4], 0x60, 'FLG: version 1, block independence, no checksums, no content size');
  // lz4_flex sizes blocks from the input (64 KiB .. 4 MiB); Kafka's reader accepts ids 4..7
  const sizeId = (frame[5]! >> 4) & 7;
  assert.ok(sizeId >= 4 && sizeId <= 7 && (frame[5]! & 0x8f) === 0, `BD ${frame[5]}`);
  const blockMax = 1 << (2 * sizeId + 8);
  assert.equal(frame[6], (xxh32Small(frame, 4, 6) >>> 8) & 0xff);
  const pieces: Buffer[] = [];
  let p = 7;
  let blocks = 0;
  for (;;) {
    const word = frame.readUInt32LE(p);
    p += 4;
    if (word === 0) break;
    const n = word & 0x7fffffff;
    const body = frame.subarray(p, p + n);
    pieces.push(word & 0x80000000 ? body : lz4DecodeIndependentBlock(body, blockMax));
    p += n;
    blocks++;
  }
  assert.equal(p, frame.length);
  assert.ok(blocks >= 2, `${blocks} blocks`);
  assert.ok(Buffer.concat(pieces).equals(input));
});

test('lz4: xxh32 vectors, Java-style frame, magic-0 broken header checksum, rejected variants', async () => {
  assert.equal(xxh32Small(Buffer.alloc(0), 0, 0), 0x02cc5d05);
  assert.equal(xxh32Small(Buffer.from('a'), 0, 1), 0x550d7456);
  assert.equal(xxh32Small(Buffer.from('abc'), 0, 3), 0x32d153ff);
  // Kafka's Lz4BlockOutputStream header (64 KiB blocks): 04224d18 60 40 82
  assert.equal((xxh32Small(hex('6040'), 0, 2) >>> 8) & 0xff, 0x82);
  const javaFrame = hex('04224d18 60 40 82  05000080 68656c6c6f  00000000');
  assert.equal((await decompress(CompressionType.Lz4, javaFrame)).toString(), 'hello');
  // content size present (librdkafka may set it) and trailing bytes after the end mark
  const withSize = Buffer.concat([
    hex('04224d18 68 40'),
    hex('0500000000000000'),
    Buffer.alloc(1),
    hex('05000080 68656c6c6f 00000000 ffff'),
  ]);
  withSize[14] = (xxh32Small(withSize, 4, 14) >>> 8) & 0xff;
  assert.equal((await decompress(CompressionType.Lz4, withSize)).toString(), 'hello');
  // magic 0: header checksum over magic+descriptor; accepted only when reading magic 0
  const input = sample(10_000);
  const m0 = await compress(CompressionType.Lz4, input, { magic: 0 });
  assert.equal(m0[6], (xxh32Small(m0, 0, 6) >>> 8) & 0xff);
  assert.notEqual(m0[6], (xxh32Small(m0, 4, 6) >>> 8) & 0xff);
  assert.ok((await decompress(CompressionType.Lz4, m0, { magic: 0 })).equals(input));
  await rejectsWith(decompress(CompressionType.Lz4, m0, { magic: 1 }), CorruptRecordError, 'DECOMPRESSION_FAILED');
  // dependent blocks (FLG 0x40) are refused like Kafka does; so are bad magic and truncation
  const dependent = hex('04224d18 40 40 00 05000080 68656c6c6f 00000000');
  dependent[6] = (xxh32Small(dependent, 4, 6) >>> 8) & 0xff;
  await rejectsWith(decompress(CompressionType.Lz4, dependent), CorruptRecordError, 'DECOMPRESSION_FAILED');
  await rejectsWith(
    decompress(CompressionType.Lz4, hex('04224d19 60 40 82 00000000')),
    CorruptRecordError,
    'DECOMPRESSION_FAILED',
  );
  await rejectsWith(
    decompress(CompressionType.Lz4, javaFrame.subarray(0, 14)),
    CorruptRecordError,
    'DECOMPRESSION_FAILED',
  );
  await rejectsWith(
    decompress(CompressionType.Lz4, hex('04224d18 60 40 82 0500000068656c6c6f 00000000')),
    CorruptRecordError,
    'DECOMPRESSION_FAILED',
  );
});

// zstd frame built by hand: FHD 0x00 (no content size), window descriptor, RLE blocks
function zstdRleFrame(blocks: number, blockSize: number, byte: number): Buffer {
  const parts = [hex('28b52ffd 00 58')];
  for (let i = 0; i < blocks; i++) {
    const h = (i === blocks - 1 ? 1 : 0) | (1 << 1) | (blockSize << 3);
    parts.push(Buffer.from([h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff, byte]));
  }
  return Buffer.concat(parts);
}

test('decompression bombs are refused before decoding; limits are configurable', async () => {
  const zeros = Buffer.alloc(8 << 20);
  for (const type of CODECS) {
    const packed = await compress(type, zeros);
    await rejectsWith(decompress(type, packed, 1 << 20), DecompressionLimitError, 'TOO_LARGE');
    assert.equal((await decompress(type, packed, { maxSize: 8 << 20 })).length, 8 << 20);
  }
  // snappy preamble claiming 4 GiB: refused from the 5-byte header alone
  await rejectsWith(decompress(CompressionType.Snappy, hex('ffffffff0f 00')), DecompressionLimitError);
  // hand-made zstd RLE frame: validated against the real decoder, then a 1000-block bomb
  const small = zstdRleFrame(3, 128 * 1024, 0x41);
  assert.equal(zstdOutputBound(small), 3 * 128 * 1024);
  const out = await decompress(CompressionType.Zstd, small);
  assert.ok(out.equals(Buffer.alloc(3 * 128 * 1024, 0x41)));
  const bomb = zstdRleFrame(4000, 128 * 1024, 0); // 16 KB in, 500 MiB out
  assert.ok(zstdOutputBound(bomb) > DEFAULT_MAX_DECOMPRESSED_SIZE);
  await rejectsWith(decompress(CompressionType.Zstd, bomb), DecompressionLimitError);
  // gzip bomb bounded by zlib's maxOutputLength
  const gz = zlib.gzipSync(Buffer.alloc(64 << 20));
  await rejectsWith(decompress(CompressionType.Gzip, gz, 1 << 20), DecompressionLimitError);
});

test('garbage input yields CorruptRecordError for every codec', async () => {
  const garbage = [Buffer.alloc(0), Buffer.from('definitely not compressed'), randomBytes(64)];
  for (const type of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd]) {
    for (const g of garbage) {
      await rejectsWith(decompress(type, g), CorruptRecordError);
    }
    const valid = await compress(type, sample(50_000));
    for (let cut = 1; cut < valid.length; cut += Math.ceil(valid.length / 23)) {
      await rejectsWith(decompress(type, valid.subarray(0, cut)), CorruptRecordError);
    }
  }
  await rejectsWith(decompress(7 as CompressionType, Buffer.alloc(1)), CorruptRecordError, 'UNSUPPORTED_COMPRESSION');
});

test('decompressSync decodes none, gzip, snappy and lz4 as decompress does, with the same limits and errors', async () => {
  const SYNC = [CompressionType.None, CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4];
  const outcome = (f: () => Buffer): string => {
    try {
      return `ok ${f().toString('hex')}`;
    } catch (e) {
      return `${(e as Error).name} ${(e as CorruptRecordError).reason} ${(e as Error).message}`;
    }
  };
  const asyncOutcome = async (p: Promise<Buffer>): Promise<string> => {
    try {
      return `ok ${(await p).toString('hex')}`;
    } catch (e) {
      return `${(e as Error).name} ${(e as CorruptRecordError).reason} ${(e as Error).message}`;
    }
  };
  for (const type of SYNC) {
    assert.ok(canDecompressSync(type), compressionTypeName(type));
    const streams = [Buffer.alloc(0), Buffer.from('x'), sample(100_000), sample(1 << 20), randomBytes(70_000)];
    const packed = await Promise.all(streams.map((d) => compress(type, d)));
    if (type === CompressionType.Snappy) packed.push(snappy.compressSync(sample(5000))); // a raw block
    if (type === CompressionType.Lz4) packed.push(await compress(type, sample(5000), { magic: 0 }));
    const valid = packed[2]!;
    const cases: [Buffer, number][] = packed.map((b) => [b, DEFAULT_MAX_DECOMPRESSED_SIZE]);
    cases.push([packed[3]!, 1 << 19]); // over the limit
    for (let cut = 1; cut < valid.length; cut += Math.ceil(valid.length / 11))
      cases.push([valid.subarray(0, cut), 1 << 20]);
    cases.push([Buffer.from('definitely not compressed'), 1 << 20]);
    for (const [data, maxSize] of cases) {
      const magic = type === CompressionType.Lz4 && data === packed[packed.length - 1] ? 0 : 2;
      const want = await asyncOutcome(decompress(type, data, { maxSize, magic }));
      assert.equal(
        outcome(() => decompressSync(type, data, { maxSize, magic })),
        want,
        `${compressionTypeName(type)}`,
      );
    }
  }
  assert.equal(canDecompressSync(CompressionType.Zstd), false);
  const z = await compress(CompressionType.Zstd, Buffer.from('hello'));
  assert.throws(
    () => decompressSync(CompressionType.Zstd, z),
    (e: unknown) => e instanceof CorruptRecordError && e.reason === 'UNSUPPORTED_COMPRESSION',
  );
});
