// Every message of every spec, at every valid version: fill every field with a non-default
// value (and unknown tagged fields where flexible), encode, decode, compare, re-encode byte-identically.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Reader } from '../src/protocol/codec/reader.js';
import { Writer } from '../src/protocol/codec/writer.js';
import { UnsupportedVersionError } from '../src/protocol/codec/errors.js';
import { API_SPECS } from '../src/protocol/generated/apis.js';
import {
  METADATA_RECORDS,
  OFFSETS_TOPIC_RECORDS,
  SHARE_GROUP_STATE_RECORDS,
  TRANSACTION_LOG_RECORDS,
} from '../src/protocol/generated/records.js';
import * as generated from '../src/protocol/generated/protocol/index.js';
import { decodeRequest, encodeRequest, encodeResponse, decodeResponse } from '../src/protocol/frame.js';
import {
  loadModels,
  randomStruct,
  rng,
  generateInto,
  inRange,
  REPO_ROOT,
  SPEC_DIR,
  specAvailable,
  type SpecModel,
} from './helpers/spec-models.js';

type Codec = { read: (r: Reader, v: number) => unknown; write: (w: Writer, v: number, m: unknown) => void };

function codecFor(m: SpecModel): Codec {
  const name = m.spec.name;
  const fromTable = (): Codec | undefined => {
    if (m.spec.type === 'request' || m.spec.type === 'response') {
      const api = API_SPECS.find((a) => a.key === m.spec.apiKey)!;
      return m.spec.type === 'request'
        ? { read: api.readRequest, write: api.writeRequest }
        : { read: api.readResponse, write: api.writeResponse };
    }
    if (m.group === 'metadata') return METADATA_RECORDS.find((r) => r.name === name);
    for (const kv of [...OFFSETS_TOPIC_RECORDS, ...TRANSACTION_LOG_RECORDS, ...SHARE_GROUP_STATE_RECORDS]) {
      if (kv.key.name === name) return kv.key;
      if (kv.value?.name === name) return kv.value;
    }
    const g = generated as Record<string, unknown>;
    if (typeof g[`read${name}`] === 'function') {
      return { read: g[`read${name}`] as Codec['read'], write: g[`write${name}`] as Codec['write'] };
    }
    return undefined;
  };
  const c = fromTable();
  if (c) return c;
  throw new Error(`no codec found for ${m.group}/${name}`);
}

test('the spec folder is present (the codec tests need spec/kafka-4.4)', () => {
  assert.ok(specAvailable(), `spec folder missing: ${SPEC_DIR}`);
});

test('every message round-trips at every valid version with non-default values', async () => {
  const models = await loadModels();
  assert.ok(models.length >= 240, `expected all spec files, got ${models.length}`);
  let cases = 0;
  const rnd = rng(0x6b61666b);
  for (const m of models) {
    if (m.group === 'raft') continue; // QuorumStateData is a JSON file, not a binary record
    if (m.gen.valid === null) continue; // an API Kafka removed ("validVersions": "none")
    const codec = codecFor(m);
    const [lo, hi] = m.gen.valid;
    const top = hi === Infinity ? lo + 1 : hi;
    for (let v = lo; v <= top; v++) {
      for (let rep = 0; rep < 3; rep++) {
        const value = randomStruct(m.gen, m.gen.root, v, rnd);
        const w = new Writer(64);
        codec.write(w, v, value);
        const bytes = w.toBuffer();
        const r = new Reader(bytes);
        const decoded = codec.read(r, v);
        assert.equal(r.remaining, 0, `${m.spec.name} v${v}: trailing bytes`);
        assert.deepStrictEqual(decoded, value, `${m.spec.name} v${v}: decoded value differs`);
        const w2 = new Writer(64);
        codec.write(w2, v, decoded);
        assert.ok(w2.toBuffer().equals(bytes), `${m.spec.name} v${v}: re-encoding differs`);
        cases++;
      }
    }
  }
  assert.ok(cases > 2000, `only ${cases} cases ran`);
});

test('non-ignorable fields with non-default values cannot be written at versions that lack them', async () => {
  const models = await loadModels();
  let checked = 0;
  for (const m of models.filter((x) => x.spec.type === 'request' || x.spec.type === 'response')) {
    const codec = codecFor(m);
    for (const f of m.gen.root.fields) {
      if (f.versions === null || f.isStruct || f.isArray) continue;
      const v = m.gen.valid[0];
      if (inRange(f.versions, v)) continue;
      const value: Record<string, unknown> = {};
      value[f.prop] =
        f.elem === 'int64'
          ? 12345n
          : f.elem === 'bool'
            ? f.default !== 'true'
            : f.elem === 'string'
              ? 'x'
              : f.elem === 'uuid'
                ? 'AQEBAQEBAQEBAQEBAQEBAQ'
                : f.elem === 'bytes' || f.elem === 'records'
                  ? Buffer.from('x')
                  : 12345;
      const run = () => codec.write(new Writer(), v, value);
      if (f.ignorable) assert.doesNotThrow(run, `${m.spec.name}.${f.name} is ignorable`);
      else assert.throws(run, UnsupportedVersionError, `${m.spec.name}.${f.name} at v${v}`);
      checked++;
    }
  }
  assert.ok(checked > 50, `only ${checked} fields checked`);
});

test('APIs Kafka removed keep their key with no versions, and their requests are refused', async () => {
  const models = await loadModels();
  const removed = models
    .filter((m) => m.spec.type === 'request' && m.gen.valid === null)
    .map((m) => m.spec.apiKey)
    .sort();
  assert.deepEqual(removed, [4, 5, 6, 7]); // LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown
  for (const key of removed) {
    const api = API_SPECS.find((a) => a.key === key)!;
    assert.deepEqual([api.minVersion, api.maxVersion, api.listeners], [0, -1, []]);
    const frame = Buffer.from('0000000000000001ffff', 'hex');
    frame.writeInt16BE(key!, 0);
    assert.throws(() => decodeRequest(frame), UnsupportedVersionError);
    assert.throws(() => api.writeRequest(new Writer(), 0, {}), UnsupportedVersionError);
  }
});

test('framed requests and responses carry the right header versions', async () => {
  const rnd = rng(7);
  const models = await loadModels();
  for (const api of API_SPECS) {
    const req = models.find((m) => m.spec.type === 'request' && m.spec.apiKey === api.key)!;
    const resp = models.find((m) => m.spec.type === 'response' && m.spec.apiKey === api.key)!;
    for (let v = api.minVersion; v <= api.maxVersion; v++) {
      const body = randomStruct(req.gen, req.gen.root, v, rnd);
      const frame = Buffer.concat(encodeRequest(api.key, v, 42, 'cli', body));
      assert.equal(frame.readInt32BE(0), frame.length - 4);
      const d = decodeRequest(frame.subarray(4));
      assert.equal(d.apiKey, api.key);
      assert.equal(d.apiVersion, v);
      assert.equal(d.correlationId, 42);
      if (!(api.key === 7 && v === 0)) assert.equal(d.header.clientId, 'cli');
      assert.deepStrictEqual(d.body, body);
      const rbody = randomStruct(resp.gen, resp.gen.root, v, rnd);
      const rframe = Buffer.concat(encodeResponse(api.key, v, 43, rbody));
      const flexibleHeader = api.key !== 18 && api.firstFlexible >= 0 && v >= api.firstFlexible;
      // response header v1 has one tagged-field byte after the correlation id
      if (flexibleHeader) assert.equal(rframe[8], 0);
      const dr = decodeResponse(api.key, v, rframe.subarray(4));
      assert.equal(dr.correlationId, 43);
      assert.deepStrictEqual(dr.body, rbody);
    }
  }
});

test('the worked ApiVersions v3 example from the spec README encodes byte for byte', () => {
  const frame = Buffer.concat(
    encodeRequest(18, 3, 1, 'cli', { clientSoftwareName: 'ts', clientSoftwareVersion: '1.0' }),
  );
  assert.equal(
    frame.toString('hex'),
    '00000016' + '0012000300000001' + '0003636c69' + '00' + '037473' + '04312e30' + '00',
  );
});

test('the committed generated code is what the generator produces from the specs', async () => {
  const tmp = mkdtempSync(join(tmpdir(), 'tkafka-gen-'));
  try {
    await generateInto(tmp);
    const committed = join(REPO_ROOT, 'src', 'protocol', 'generated');
    const list = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? list(join(dir, f)) : [join(dir, f)]));
    const a = list(tmp)
      .map((f) => relative(tmp, f))
      .sort();
    const b = list(committed)
      .map((f) => relative(committed, f))
      .sort();
    assert.deepStrictEqual(b, a, 'generated file list differs: run npm run generate');
    for (const f of a) {
      assert.ok(
        readFileSync(join(tmp, f)).equals(readFileSync(join(committed, f))),
        `${f} is out of date: run npm run generate`,
      );
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
