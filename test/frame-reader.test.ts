// The incremental frame reader: every split of a byte stream yields the same frames; frames within
// one chunk are zero-copy slices; bad sizes are rejected before any allocation.
import test from 'node:test';
import assert from 'node:assert/strict';
import { FrameReader, InvalidFrameError } from '../src/broker/network/frame-reader.js';

function framed(...payloads: Buffer[]): Buffer {
  return Buffer.concat(
    payloads.flatMap((p) => {
      const h = Buffer.alloc(4);
      h.writeInt32BE(p.length, 0);
      return [h, p];
    }),
  );
}

const payloads = [Buffer.from('hello'), Buffer.alloc(0), Buffer.from('a'), Buffer.alloc(300, 7), Buffer.from('end!')];
const stream = framed(...payloads);

test('every two-way and three-way split of the stream yields the same frames', () => {
  for (let i = 0; i <= stream.length; i++) {
    for (let j = i; j <= stream.length; j += 17) {
      const r = new FrameReader(1000);
      const got = [...r.push(stream.subarray(0, i)), ...r.push(stream.subarray(i, j)), ...r.push(stream.subarray(j))];
      assert.deepEqual(
        got.map((b) => b.toString('hex')),
        payloads.map((b) => b.toString('hex')),
        `split ${i}/${j}`,
      );
      assert.equal(r.bufferedBytes, 0);
    }
  }
});

test('byte-at-a-time delivery yields the same frames', () => {
  const r = new FrameReader(1000);
  const got: Buffer[] = [];
  for (let i = 0; i < stream.length; i++) got.push(...r.push(stream.subarray(i, i + 1)));
  assert.deepEqual(got, payloads);
});

test('a frame inside one chunk is a zero-copy slice; a split frame is copied once', () => {
  const r = new FrameReader(1000);
  const chunk = Buffer.from(stream);
  const [a, b] = r.push(chunk);
  chunk[4] = 0x48; // 'h' -> 'H' in the chunk shows through the frame: same memory
  assert.equal(a!.toString(), 'Hello');
  assert.equal(b!.length, 0);
  const big = framed(Buffer.alloc(100, 1));
  assert.deepEqual(r.push(big.subarray(0, 50)), []);
  assert.equal(r.bufferedBytes, 50);
  const [whole] = r.push(big.subarray(50));
  big[10] = 2; // the assembled frame is a copy
  assert.deepEqual(whole, Buffer.alloc(100, 1));
});

test('oversize and negative sizes are rejected as soon as the size is known', () => {
  const huge = Buffer.alloc(4);
  huge.writeInt32BE(0x7fffffff, 0);
  assert.throws(() => new FrameReader(100).push(huge), InvalidFrameError);
  const r = new FrameReader(100);
  assert.deepEqual(r.push(huge.subarray(0, 2)), []);
  assert.throws(() => r.push(huge.subarray(2)), /larger than 100/);
  const neg = Buffer.alloc(4);
  neg.writeInt32BE(-1, 0);
  assert.throws(() => new FrameReader(100).push(neg), /size = -1/);
  // Exactly the maximum is fine.
  assert.equal(new FrameReader(5).push(framed(Buffer.alloc(5)))[0]!.length, 5);
  assert.throws(() => new FrameReader(5).push(framed(Buffer.alloc(6))), InvalidFrameError);
});
