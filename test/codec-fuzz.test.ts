// Bad input never crashes, hangs or over-allocates: malformed frames yield typed errors only.
import test from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, UnsupportedVersionError } from '../src/protocol/codec/errors.js';
import { Reader } from '../src/protocol/codec/reader.js';
import { API_SPECS } from '../src/protocol/generated/apis.js';
import { decodeRequest, encodeRequest } from '../src/protocol/frame.js';
import { loadModels, randomStruct, rng } from './helpers/spec-models.js';

const typed = (e: unknown) => e instanceof DecodeError || e instanceof UnsupportedVersionError;

function expectTyped(frame: Buffer, label: string): void {
  try {
    decodeRequest(frame);
  } catch (e) {
    if (!typed(e)) assert.fail(`${label}: ${(e as Error)?.stack ?? e}`);
  }
}

async function validFrames(): Promise<Buffer[]> {
  const models = await loadModels();
  const rnd = rng(99);
  const frames: Buffer[] = [];
  for (const api of API_SPECS) {
    const m = models.find((x) => x.spec.type === 'request' && x.spec.apiKey === api.key)!;
    for (let v = api.minVersion; v <= api.maxVersion; v++) {
      const body = randomStruct(m.gen, m.gen.root, v, rnd);
      frames.push(Buffer.concat(encodeRequest(api.key, v, 1, 'fuzz', body)).subarray(4));
    }
  }
  return frames;
}

test('truncated frames give DecodeError at every cut point', async () => {
  for (const f of await validFrames()) {
    for (let cut = 0; cut < f.length; cut++) {
      try {
        decodeRequest(f.subarray(0, cut));
        assert.fail(`a frame cut at ${cut} of ${f.length} decoded`);
      } catch (e) {
        assert.ok(typed(e), String(e));
      }
    }
  }
});

test('unknown API keys and unsupported versions are typed errors', () => {
  const hdr = (key: number, v: number) => {
    const b = Buffer.alloc(10);
    b.writeInt16BE(key, 0);
    b.writeInt16BE(v, 2);
    b.writeInt32BE(1, 4);
    b.writeInt16BE(-1, 8);
    return b;
  };
  assert.throws(() => decodeRequest(hdr(1000, 0)), UnsupportedVersionError);
  assert.throws(() => decodeRequest(hdr(-5, 0)), UnsupportedVersionError);
  assert.throws(() => decodeRequest(hdr(0, 99)), UnsupportedVersionError);
  assert.throws(() => decodeRequest(hdr(18, -1)), UnsupportedVersionError);
});

test('lengths beyond the frame, negative and huge counts, over-long varints are rejected before allocation', () => {
  // int32 array count of 2^31-1 with a few bytes behind it
  const big = Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0]);
  assert.throws(() => new Reader(big).arrayLength('x'), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0xff, 0xff, 0xff, 0xfe])).arrayLength('x'), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0x7f, 0xff, 0xff, 0xff])).bytes('x'), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0x7f, 0xff])).string('x'), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 1])).compactArrayLength('x'), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).uvarint(), DecodeError);
  assert.throws(() => new Reader(Buffer.from([0x80, 0x80])).uvarint(), DecodeError);
  // a compact string whose length is larger than the remaining bytes
  assert.throws(() => new Reader(Buffer.from([0x10, 0x41])).compactString('x'), DecodeError);
  // Metadata v12 with a topics count of 0x0fffffff
  const meta = Buffer.concat(encodeRequest(3, 12, 1, 'c', { topics: [] })).subarray(4);
  const bad = Buffer.concat([
    meta.subarray(0, meta.length - 4),
    Buffer.from([0xff, 0xff, 0xff, 0x7f]),
    Buffer.alloc(3),
  ]);
  expectTyped(bad, 'metadata huge count');
});

test('fuzz: 100,000 seeded mutations of valid frames give only typed errors or valid decodes', async () => {
  const frames = await validFrames();
  const rnd = rng(0x5eed);
  const N = 100_000;
  let decoded = 0;
  for (let i = 0; i < N; i++) {
    const src = frames[Math.floor(rnd() * frames.length)]!;
    const f = Buffer.from(src);
    const kind = Math.floor(rnd() * 5);
    const edits = 1 + Math.floor(rnd() * 4);
    for (let e = 0; e < edits; e++) {
      // keep the api key/version most of the time so the body decoder is exercised
      const at = f.length > 4 ? 4 + Math.floor(rnd() * (f.length - 4)) : 0;
      if (kind === 0) f[at] = Math.floor(rnd() * 256);
      else if (kind === 1) f[at] ^= 1 << Math.floor(rnd() * 8);
      else if (kind === 2) f[at] = 0xff;
      else if (kind === 3) f[at] = 0x7f;
      else f[at] = 0x80;
    }
    const cut = rnd() < 0.2 ? Math.floor(rnd() * f.length) : f.length;
    try {
      decodeRequest(f.subarray(0, cut));
      decoded++;
    } catch (e) {
      if (!typed(e)) assert.fail(`case ${i}: ${(e as Error)?.stack ?? e}\nframe ${f.subarray(0, cut).toString('hex')}`);
    }
  }
  assert.ok(decoded > 0 && decoded < N, `decoded ${decoded} of ${N}`);
});
