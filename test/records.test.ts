// Record-format layer tests: CRCs, v2 batches (worked examples from storage-formats.md §2.3/§2.4,
// kafkajs cross-checks), control records, in-place rewrites, iteration, corruption handling and
// legacy magic 0/1 message sets.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import {
  crc32c,
  crc32,
  crc32cJs,
  crc32Js,
  crcImplementation,
  buildRecordBatch,
  buildRecordBatchSync,
  decodeBatch,
  decodeBatchSync,
  readBatchHeader,
  validateBatch,
  verifyBatchCrc,
  writeBatchCrc,
  validateRecords,
  iterateBatches,
  setBaseOffset,
  setPartitionLeaderEpoch,
  setLogAppendTime,
  buildEndTxnMarker,
  controlRecordKey,
  endTxnMarkerValue,
  parseControlRecord,
  CorruptRecordError,
  DecompressionLimitError,
  CompressionType,
  TimestampType,
  ControlRecordType,
  RECORD_BATCH_OVERHEAD,
  ATTRIBUTES,
  CRC,
  buildLegacyMessageSet,
  decodeLegacyMessageSet,
  decodeLegacyEntry,
  encodeLegacyEntry,
  readLegacyEntry,
  validateLegacyEntry,
} from '../src/protocol/records/index.js';

const require = createRequire(import.meta.url);
const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const T = 1700000000000;

async function rejectsCorrupt(p: Promise<unknown> | (() => unknown), reason?: string): Promise<void> {
  try {
    if (typeof p === 'function') p();
    else await p;
  } catch (e) {
    assert.ok(
      e instanceof CorruptRecordError,
      `expected CorruptRecordError, got ${(e as Error)?.name}: ${(e as Error)?.message}`,
    );
    if (reason !== undefined) assert.equal(e.reason, reason, e.message);
    return;
  }
  assert.fail('expected a CorruptRecordError');
}

// ---------------------------------------------------------------------------------------------
test('CRC-32C and CRC-32 check values, native and fallback, ranges and chaining', () => {
  const s = Buffer.from('123456789');
  assert.equal(crc32c(s), 0xe3069283);
  assert.equal(crc32cJs(s), 0xe3069283);
  assert.equal(crc32(s), 0xcbf43926);
  assert.equal(crc32Js(s), 0xcbf43926);
  const big = Buffer.alloc(4096);
  for (let i = 0; i < big.length; i++) big[i] = (i * 31 + 7) & 0xff;
  const framed = Buffer.concat([Buffer.from('xx'), big, Buffer.from('yyy')]);
  assert.equal(crc32c(framed, 2, 2 + big.length), crc32cJs(big));
  assert.equal(crc32(framed, 2, 2 + big.length), crc32Js(big));
  assert.equal(crc32c(big, 1000, 4096, crc32c(big, 0, 1000)), crc32c(big));
  assert.equal(crc32cJs(big, 10, 20), crc32c(big.subarray(10, 20)));
  assert.ok(crcImplementation === 'native' || crcImplementation === 'js');
});

test('CRC fallback path is selected when the native module is disabled', () => {
  const crcModule = new URL('../src/protocol/records/crc.js', import.meta.url).href;
  const script = `import('${crcModule}').then((m) => console.log(m.crcImplementation, m.crc32c(Buffer.alloc(4096, 1)).toString(16), m.crc32(Buffer.from('123456789')).toString(16)))`;
  const out = execFileSync(process.execPath, ['-e', script], { env: { ...process.env, TKAFKA_CRC: 'js' } })
    .toString()
    .trim();
  assert.equal(out, `js ${crc32cJs(Buffer.alloc(4096, 1)).toString(16)} cbf43926`);
});

// ---------------------------------------------------------------------------------------------
// storage-formats.md §2.3 (cross-checked there against kafkajs 2.2.4)
const EXAMPLE_2_3 = hex(`
0000000000000000 00000048 00000000 02 fde86579 0000 00000001
0000018bcfe56800 0000018bcfe56805 ffffffffffffffff ffff ffffffff 00000002
12 00 00 00 02 6b 04 7631 00
18 00 0a 02 01 04 7632 02 02 68 02 78`);

const example23Records = [
  { key: 'k', value: 'v1', timestamp: T },
  { key: null, value: 'v2', timestamp: T + 5, headers: [{ key: 'h', value: 'x' }] },
];

test('§2.3 worked example decodes', async () => {
  assert.equal(EXAMPLE_2_3.length, 84);
  assert.equal(validateBatch(EXAMPLE_2_3), 84);
  const b = await decodeBatch(EXAMPLE_2_3);
  assert.equal(b.baseOffset, 0);
  assert.equal(b.lastOffset, 1);
  assert.equal(b.partitionLeaderEpoch, 0);
  assert.equal(b.crc, 0xfde86579);
  assert.equal(b.producerId, -1n);
  assert.equal(b.producerEpoch, -1);
  assert.equal(b.baseSequence, -1);
  assert.equal(b.baseTimestamp, T);
  assert.equal(b.maxTimestamp, T + 5);
  assert.equal(b.timestampType, TimestampType.CreateTime);
  assert.equal(b.records.length, 2);
  const [r0, r1] = b.records;
  assert.deepEqual(
    [r0!.offset, r0!.timestamp, r0!.key?.toString(), r0!.value?.toString(), r0!.headers],
    [0, T, 'k', 'v1', []],
  );
  assert.deepEqual([r1!.offset, r1!.timestamp, r1!.key, r1!.value?.toString()], [1, T + 5, null, 'v2']);
  assert.deepEqual(
    r1!.headers.map((h) => [h.key, h.value?.toString()]),
    [['h', 'x']],
  );
  assert.equal(r0!.sequence, -1);
});

test('§2.3 worked example re-encodes byte-identically (sync and async builders)', async () => {
  const opts = { baseOffset: 0, partitionLeaderEpoch: 0, records: example23Records };
  assert.deepEqual(buildRecordBatchSync(opts), EXAMPLE_2_3);
  assert.deepEqual(await buildRecordBatch(opts), EXAMPLE_2_3);
  // decode -> build from the decoded records -> same bytes
  const b = decodeBatchSync(EXAMPLE_2_3);
  const again = buildRecordBatchSync({
    baseOffset: b.baseOffset,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    records: b.records.map((r) => ({
      key: r.key,
      value: r.value,
      headers: r.headers,
      timestamp: r.timestamp,
      offsetDelta: r.offsetDelta,
    })),
  });
  assert.deepEqual(again, EXAMPLE_2_3);
});

// storage-formats.md §2.4
const EXAMPLE_COMMIT = hex(`
000000000000002a 00000042 00000003 02 dbc180da 0030 00000000
0000018bcfe56800 0000018bcfe56800 00000000000003e8 0000 ffffffff 00000001
20 00 00 00 08 00000001 0c 0000 00000007 00`);

test('§2.4 COMMIT marker builds byte-identically and decodes as a control record', async () => {
  const built = buildEndTxnMarker({
    baseOffset: 42,
    partitionLeaderEpoch: 3,
    producerId: 1000n,
    producerEpoch: 0,
    coordinatorEpoch: 7,
    commit: true,
    timestamp: T,
  });
  assert.equal(built.length, 78);
  assert.deepEqual(built, EXAMPLE_COMMIT);
  const b = await decodeBatch(EXAMPLE_COMMIT);
  assert.equal(b.isControl, true);
  assert.equal(b.isTransactional, true);
  assert.equal(b.producerId, 1000n);
  assert.deepEqual(b.records[0]!.control, { version: 0, type: ControlRecordType.Commit, coordinatorEpoch: 7 });
  assert.equal(b.records[0]!.offset, 42);
  const abort = decodeBatchSync(
    buildEndTxnMarker({ producerId: 5, producerEpoch: 1, coordinatorEpoch: 0, commit: false }),
  );
  assert.equal(abort.records[0]!.control!.type, ControlRecordType.Abort);
  // unknown control types are parsed without a marker value; short keys are corrupt
  assert.deepEqual(parseControlRecord(controlRecordKey(ControlRecordType.LeaderChange), Buffer.alloc(3)), {
    version: 0,
    type: 2,
    coordinatorEpoch: null,
  });
  assert.deepEqual(parseControlRecord(controlRecordKey(9, 1), null), { version: 1, type: 9, coordinatorEpoch: null });
  await rejectsCorrupt(() => parseControlRecord(Buffer.alloc(3), null), 'INVALID_RECORD');
  await rejectsCorrupt(() => parseControlRecord(controlRecordKey(1), Buffer.alloc(5)), 'INVALID_RECORD');
  assert.equal(endTxnMarkerValue(7).toString('hex'), '000000000007');
});

// ---------------------------------------------------------------------------------------------
test('every codec round-trips a batch with headers, nulls and large/negative timestamp deltas', async () => {
  const records = Array.from({ length: 300 }, (_, i) => ({
    key: i % 7 === 0 ? null : `key-${i}`,
    value: i % 11 === 0 ? null : Buffer.alloc(i * 3, i & 0xff),
    headers:
      i % 3 === 0
        ? [
            { key: `h${i}`, value: i % 2 ? null : `v${i}` },
            { key: 'é', value: 'ü' },
          ]
        : [],
    timestamp: i === 5 ? T - 3_000_000_000_000 : i === 6 ? T + 2 ** 45 : T + i,
  }));
  for (const compression of [
    CompressionType.None,
    CompressionType.Gzip,
    CompressionType.Snappy,
    CompressionType.Lz4,
    CompressionType.Zstd,
  ]) {
    const buf = await buildRecordBatch({
      baseOffset: 1000,
      records,
      compression,
      producerId: 2n ** 40n,
      producerEpoch: 3,
      baseSequence: 2147483600,
      transactional: true,
      partitionLeaderEpoch: 9,
    });
    assert.ok(verifyBatchCrc(buf));
    const b = await decodeBatch(buf);
    assert.equal(b.compression, compression);
    assert.equal(b.producerId, 2n ** 40n);
    assert.equal(b.recordsCount, 300);
    assert.equal(b.lastOffset, 1299);
    assert.equal(b.maxTimestamp, T + 2 ** 45);
    assert.equal(b.isTransactional, true);
    b.records.forEach((r, i) => {
      const src = records[i]!;
      assert.equal(r.offset, 1000 + i);
      assert.equal(r.timestamp, src.timestamp);
      assert.equal(r.key?.toString() ?? null, src.key);
      assert.deepEqual(r.value, src.value);
      assert.deepEqual(
        r.headers.map((h) => [h.key, h.value?.toString() ?? null]),
        src.headers.map((h) => [h.key, h.value]),
      );
    });
    // sequence wraps from 2^31-1 to 0 (DefaultRecordBatch.incrementSequence)
    assert.equal(b.records[47]!.sequence, 2147483647);
    assert.equal(b.records[48]!.sequence, 0);
  }
});

test('custom offset deltas, empty batch, copy option, compressed control-free sync guard', async () => {
  const buf = buildRecordBatchSync({
    baseOffset: 10,
    records: [
      { value: 'a', offsetDelta: 0, timestamp: T },
      { value: 'b', offsetDelta: 5, timestamp: T },
    ],
  });
  const b = decodeBatchSync(buf, 0, { copy: true });
  assert.deepEqual(
    b.records.map((r) => r.offset),
    [10, 15],
  );
  assert.equal(b.lastOffsetDelta, 5);
  buf.fill(0, RECORD_BATCH_OVERHEAD);
  assert.equal(b.records[0]!.value!.toString(), 'a'); // copied, not a view of buf
  assert.throws(() => buildRecordBatchSync({ records: [{ offsetDelta: 3 }, { offsetDelta: 3 }] }), RangeError);
  const empty = buildRecordBatchSync({ records: [] });
  assert.equal(empty.length, RECORD_BATCH_OVERHEAD);
  assert.deepEqual(decodeBatchSync(empty).records, []);
  assert.equal(decodeBatchSync(empty).baseTimestamp, -1);
  const gz = await buildRecordBatch({ records: [{ value: 'x' }], compression: CompressionType.Gzip });
  assert.throws(() => decodeBatchSync(gz), TypeError);
});

// ---------------------------------------------------------------------------------------------
test('kafkajs cross-check: kafkajs-encoded batches decode with ours (none, gzip)', async () => {
  const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js');
  const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
  const Long = require('kafkajs/src/utils/long.js');
  for (const compression of [CompressionType.None, CompressionType.Gzip]) {
    const records = Array.from({ length: 20 }, (_, i) =>
      Record({
        offsetDelta: i,
        timestampDelta: i * 10,
        key: i % 4 ? Buffer.from(`k${i}`) : null,
        value: Buffer.from(`value-${i}`.repeat(i + 1)),
        headers: i % 2 ? { a: Buffer.from(`x${i}`), b: 'y' } : {},
      }),
    );
    const enc = await RecordBatch({
      compression,
      firstOffset: Long.fromValue(77),
      firstTimestamp: T,
      maxTimestamp: T + 190,
      partitionLeaderEpoch: 4,
      lastOffsetDelta: 19,
      producerId: Long.fromValue(12345),
      producerEpoch: 2,
      firstSequence: 100,
      records,
    });
    const buf: Buffer = enc.buffer;
    const b = await decodeBatch(buf);
    assert.equal(b.compression, compression);
    assert.equal(b.baseOffset, 77);
    assert.equal(b.producerId, 12345n);
    assert.equal(b.baseSequence, 100);
    assert.equal(b.records.length, 20);
    b.records.forEach((r, i) => {
      assert.equal(r.offset, 77 + i);
      assert.equal(r.timestamp, T + i * 10);
      assert.equal(r.key?.toString() ?? null, i % 4 ? `k${i}` : null);
      assert.equal(r.value!.toString(), `value-${i}`.repeat(i + 1));
      assert.deepEqual(
        r.headers.map((h) => [h.key, h.value?.toString()]),
        i % 2
          ? [
              ['a', `x${i}`],
              ['b', 'y'],
            ]
          : [],
      );
      assert.equal(r.sequence, 100 + i);
    });
    if (compression === CompressionType.None) {
      // the same batch built by us is byte-identical
      const ours = buildRecordBatchSync({
        baseOffset: 77,
        partitionLeaderEpoch: 4,
        producerId: 12345n,
        producerEpoch: 2,
        baseSequence: 100,
        records: b.records.map((r) => ({ key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp })),
      });
      assert.deepEqual(ours, buf);
    }
  }
});

test('kafkajs cross-check: our batches decode with kafkajs (none, gzip)', async () => {
  const decodeKafkajs = require('kafkajs/src/protocol/recordBatch/v0/decoder.js');
  const Decoder = require('kafkajs/src/protocol/decoder.js');
  for (const compression of [CompressionType.None, CompressionType.Gzip]) {
    const records = Array.from({ length: 25 }, (_, i) => ({
      key: i % 5 ? `key${i}` : null,
      value: Buffer.alloc(i * 13, 65 + (i % 26)),
      headers: i % 2 ? [{ key: 'trace', value: `t${i}` }] : [],
      timestamp: T + i,
    }));
    const buf = await buildRecordBatch({
      baseOffset: 500,
      records,
      compression,
      partitionLeaderEpoch: 1,
      producerId: 9n,
      producerEpoch: 0,
      baseSequence: 0,
    });
    const d = await decodeKafkajs(new Decoder(buf));
    assert.equal(d.firstOffset, '500');
    assert.equal(d.producerId, '9');
    assert.equal(d.records.length, 25);
    d.records.forEach(
      (
        r: { offset: string; timestamp: string; key: Buffer | null; value: Buffer; headers: Record<string, Buffer> },
        i: number,
      ) => {
        assert.equal(r.offset, String(500 + i));
        assert.equal(r.timestamp, String(T + i));
        assert.equal(r.key?.toString() ?? null, records[i]!.key);
        assert.deepEqual(r.value, records[i]!.value);
        assert.deepEqual(
          Object.entries(r.headers).map(([k, v]) => [k, v.toString()]),
          records[i]!.headers.map((h) => [h.key, h.value]),
        );
      },
    );
    // kafkajs computes no CRC on read; check ours against its CRC-32C implementation
    const kjsCrc = require('kafkajs/src/protocol/recordBatch/crc32C/index.js');
    assert.equal(kjsCrc(buf.subarray(ATTRIBUTES)) >>> 0, buf.readUInt32BE(CRC));
  }
});

// ---------------------------------------------------------------------------------------------
test('in-place rewrites: base offset and leader epoch leave the CRC valid; LogAppendTime recomputes it', async () => {
  const buf = Buffer.concat([Buffer.alloc(5), EXAMPLE_2_3]);
  setBaseOffset(buf, 5, 123456789012);
  setPartitionLeaderEpoch(buf, 5, 17);
  assert.equal(validateBatch(buf, 5), 84);
  let h = readBatchHeader(buf, 5);
  assert.equal(h.baseOffset, 123456789012);
  assert.equal(h.partitionLeaderEpoch, 17);
  setLogAppendTime(buf, 5, T + 999);
  assert.equal(validateBatch(buf, 5), 84);
  h = readBatchHeader(buf, 5);
  assert.equal(h.timestampType, TimestampType.LogAppendTime);
  assert.equal(h.maxTimestamp, T + 999);
  const b = await decodeBatch(buf, 5);
  assert.deepEqual(
    b.records.map((r) => [r.offset, r.timestamp, r.timestampDelta]),
    [
      [123456789012, T + 999, 0],
      [123456789013, T + 999, 5],
    ],
  );
  // builder with LogAppendTime
  const lat = buildRecordBatchSync({
    records: [{ value: 'x', timestamp: T }],
    timestampType: TimestampType.LogAppendTime,
    logAppendTime: T + 1,
  });
  assert.equal(decodeBatchSync(lat).records[0]!.timestamp, T + 1);
  assert.equal(readBatchHeader(lat).attributes, 0x08);
});

test('iterateBatches walks v2 and legacy entries, verifies CRCs and reports a partial trailing batch', async () => {
  const a = buildRecordBatchSync({ baseOffset: 0, records: [{ value: 'a' }, { value: 'b' }] });
  const legacy = await buildLegacyMessageSet({ magic: 1, baseOffset: 2, records: [{ value: 'c' }, { value: 'd' }] });
  const c = await buildRecordBatch({ baseOffset: 4, records: [{ value: 'e' }], compression: CompressionType.Lz4 });
  const all = Buffer.concat([a, legacy, c]);
  for (let cut = 0; cut <= all.length; cut++) {
    const it = iterateBatches(all.subarray(0, cut), { verifyCrc: true });
    const got = [...it];
    const ends = [a.length, a.length + legacy.length / 2, a.length + legacy.length, all.length];
    const complete = ends.filter((e) => e <= cut).length;
    assert.equal(got.length, complete, `cut ${cut}`);
    const consumed = complete === 0 ? 0 : ends[complete - 1]!;
    if (consumed === cut) assert.equal(it.partial, null);
    else {
      assert.equal(it.partial!.position, consumed);
      assert.equal(it.partial!.available, cut - consumed);
      if (cut - consumed >= 12) assert.equal(it.partial!.required, ends[complete]! - consumed);
      else assert.equal(it.partial!.required, -1);
    }
  }
  const entries = [...iterateBatches(all)];
  assert.deepEqual(
    entries.map((e) => [e.magic, e.offset]),
    [
      [2, 0],
      [1, 2],
      [1, 3],
      [2, 4],
    ],
  );
  // a flipped byte is caught by the CRC check
  const bad = Buffer.from(all);
  bad[a.length + 20] ^= 1;
  assert.throws(
    () => [...iterateBatches(bad, { verifyCrc: true })],
    (e: unknown) => e instanceof CorruptRecordError && e.reason === 'CRC_MISMATCH',
  );
  const bad2 = Buffer.from(all);
  bad2[70] ^= 1;
  assert.throws(() => [...iterateBatches(bad2, { verifyCrc: true })], CorruptRecordError);
  // impossible lengths and magic
  const short = Buffer.from(a);
  short.writeInt32BE(5, 8);
  assert.throws(() => [...iterateBatches(short)], CorruptRecordError);
  const m = Buffer.from(a);
  m[16] = 3;
  assert.throws(
    () => [...iterateBatches(m)],
    (e: unknown) => e instanceof CorruptRecordError && e.reason === 'INVALID_MAGIC',
  );
  assert.throws(
    () => [...iterateBatches(all, { maxBatchSize: 20 })],
    (e: unknown) => e instanceof CorruptRecordError && e.reason === 'TOO_LARGE',
  );
});

// ---------------------------------------------------------------------------------------------
// Corrupt input. Each helper builds a batch with hand-made record bytes and a valid CRC so the
// record parser (not the CRC check) has to catch the problem.
function batchWithRecordBytes(recordBytes: Buffer, count: number, attributes = 0): Buffer {
  const buf = Buffer.concat([Buffer.from(EXAMPLE_2_3.subarray(0, RECORD_BATCH_OVERHEAD)), recordBytes]);
  buf.writeInt32BE(buf.length - 12, 8);
  buf.writeInt16BE(attributes, ATTRIBUTES);
  buf.writeInt32BE(count, 57);
  writeBatchCrc(buf);
  return buf;
}

test('corrupt input: bad CRC, truncation, lengths past the end, negative lengths, over-long varints', async () => {
  const flipped = Buffer.from(EXAMPLE_2_3);
  flipped[70] ^= 0x40;
  await rejectsCorrupt(decodeBatch(flipped), 'CRC_MISMATCH');
  await rejectsCorrupt(() => validateBatch(flipped), 'CRC_MISMATCH');
  await rejectsCorrupt(decodeBatch(EXAMPLE_2_3.subarray(0, 83)), 'TRUNCATED');
  await rejectsCorrupt(decodeBatch(EXAMPLE_2_3.subarray(0, 40)), 'TRUNCATED');
  const longLen = Buffer.from(EXAMPLE_2_3);
  longLen.writeInt32BE(0x7ffffff0, 8);
  await rejectsCorrupt(decodeBatch(longLen), 'TRUNCATED');
  const negLen = Buffer.from(EXAMPLE_2_3);
  negLen.writeInt32BE(-5, 8);
  await rejectsCorrupt(decodeBatch(negLen), 'INVALID_LENGTH');
  // record-level problems
  const good = Buffer.from('12000000026b04763100', 'hex'); // record 0 of §2.3
  assert.doesNotThrow(() => decodeBatchSync(batchWithRecordBytes(good, 1)));
  const cases: [string, Buffer, number, string][] = [
    ['record length past the end', Buffer.from('7e000000026b04763100', 'hex'), 1, 'INVALID_LENGTH'],
    ['negative record length', Buffer.from('01000000026b04763100', 'hex'), 1, 'INVALID_LENGTH'],
    ['key length -2', Buffer.from('12000000036b04763100', 'hex'), 1, 'INVALID_LENGTH'],
    ['key length past record', Buffer.from('12000000206b04763100', 'hex'), 1, 'INVALID_LENGTH'],
    ['negative header count', Buffer.from('12000000026b04763101', 'hex'), 1, 'INVALID_RECORD'],
    ['header key length negative', Buffer.from('100000000102760201', 'hex'), 1, 'INVALID_LENGTH'],
    ['body truncated inside a field', Buffer.from('10000000026b047631', 'hex'), 1, 'TRUNCATED'],
    ['body longer than its fields', Buffer.from('14000000026b04763100ff', 'hex'), 1, 'INVALID_LENGTH'],
    ['over-long varint (offsetDelta)', Buffer.from('1c0000ffffffffff7f026b04763100', 'hex'), 1, 'INVALID_VARINT'],
    [
      'over-long varlong (timestampDelta)',
      Buffer.from('2600' + 'ff'.repeat(10) + '01' + '00026b04763100', 'hex'),
      1,
      'INVALID_VARINT',
    ],
    ['over-long record length varint', Buffer.from('ffffffffff7f00', 'hex'), 1, 'INVALID_VARINT'],
    ['record count larger than records', Buffer.concat([good, good]), 1, 'INVALID_RECORD'],
    ['record count too small for bytes', good, 2, 'INVALID_RECORD'],
    ['huge record count', good, 0x7fffffff, 'INVALID_RECORD'],
    ['negative record count', good, -1, 'INVALID_RECORD'],
  ];
  for (const [name, bytes, count, reason] of cases) {
    await rejectsCorrupt(decodeBatch(batchWithRecordBytes(bytes, count)), reason).catch((e) =>
      assert.fail(`${name}: ${e.message}`),
    );
    if (count >= 0)
      await rejectsCorrupt(() => validateRecords(bytes, 0, bytes.length, count), reason).catch((e) =>
        assert.fail(`${name}: ${e.message}`),
      );
  }
  // unknown codec and undecodable compressed payload
  await rejectsCorrupt(decodeBatch(batchWithRecordBytes(good, 1, 5)), 'UNSUPPORTED_COMPRESSION');
  await rejectsCorrupt(decodeBatch(batchWithRecordBytes(Buffer.from('not gzip at all'), 1, 1)), 'DECOMPRESSION_FAILED');
  // decompression limit
  const big = await buildRecordBatch({
    records: [{ value: Buffer.alloc(1 << 20) }],
    compression: CompressionType.Zstd,
  });
  await assert.rejects(decodeBatch(big, 0, { maxDecompressedSize: 1000 }), DecompressionLimitError);
});

test('fuzz: random corruption of valid batches only ever yields CorruptRecordError', async () => {
  let seed = 12345;
  const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
  const sources = [
    EXAMPLE_2_3,
    EXAMPLE_COMMIT,
    await buildRecordBatch({ records: example23Records.concat(example23Records), compression: CompressionType.Gzip }),
    await buildRecordBatch({ records: example23Records, compression: CompressionType.Snappy }),
    await buildRecordBatch({ records: example23Records, compression: CompressionType.Lz4 }),
    await buildRecordBatch({ records: example23Records, compression: CompressionType.Zstd }),
  ];
  let corrupt = 0;
  for (let iter = 0; iter < 3000; iter++) {
    const src = sources[iter % sources.length]!;
    let buf = Buffer.from(src);
    const mode = rnd(3);
    if (mode === 0) buf[RECORD_BATCH_OVERHEAD + rnd(buf.length - RECORD_BATCH_OVERHEAD)] = rnd(256);
    else if (mode === 1) buf = buf.subarray(0, rnd(buf.length));
    else for (let k = 0; k < 3; k++) buf[rnd(buf.length)] ^= 1 << rnd(8);
    if (buf.length >= RECORD_BATCH_OVERHEAD && buf.readInt32BE(8) === buf.length - 12 && buf[16] === 2)
      writeBatchCrc(buf);
    try {
      await decodeBatch(buf, 0, { maxDecompressedSize: 1 << 20 });
    } catch (e) {
      assert.ok(e instanceof CorruptRecordError, `iteration ${iter}: ${(e as Error).name}: ${(e as Error).message}`);
      corrupt++;
    }
  }
  assert.ok(corrupt > 1000);
});

// ---------------------------------------------------------------------------------------------
test('legacy v0/v1 uncompressed round trip and byte layout', async () => {
  for (const magic of [0, 1] as const) {
    const records = [
      { key: 'k1', value: 'v1', timestamp: T },
      { key: null, value: null, timestamp: T + 1 },
      { key: '', value: 'x'.repeat(300), timestamp: T + 2 },
    ];
    const buf = await buildLegacyMessageSet({ magic, baseOffset: 50, records });
    const { records: out, partial } = await decodeLegacyMessageSet(buf);
    assert.equal(partial, null);
    assert.deepEqual(
      out.map((r) => [r.offset, r.magic, r.key?.toString() ?? null, r.value?.toString() ?? null, r.timestamp]),
      records.map((r, i) => [50 + i, magic, r.key, r.value, magic === 1 ? r.timestamp : -1]),
    );
    assert.equal(out[0]!.timestampType, magic === 1 ? TimestampType.CreateTime : -1);
  }
  // v0 message: offset 7, key null, value "a" -> crc over magic..end (CRC-32 IEEE)
  const e = encodeLegacyEntry({ offset: 7, magic: 0, key: null, value: 'a' });
  assert.equal(e.toString('hex').slice(0, 24), '00000000000000070000000f');
  assert.equal(e.subarray(16).toString('hex'), '0000ffffffff0000000161');
  assert.equal(e.readUInt32BE(12), crc32(e.subarray(16)));
  assert.equal(readLegacyEntry(e).value!.toString(), 'a');
});

test('legacy compressed wrappers (gzip, snappy, lz4 incl. magic-0 lz4 checksum) round trip', async () => {
  const records = Array.from({ length: 10 }, (_, i) => ({
    key: `k${i}`,
    value: `value ${i}`.repeat(i),
    timestamp: T + i * 3,
  }));
  for (const magic of [0, 1] as const) {
    for (const compression of [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4]) {
      const buf = await buildLegacyMessageSet({ magic, baseOffset: 100, records, compression });
      const wrapper = readLegacyEntry(buf);
      assert.equal(wrapper.offset, 109); // wrapper carries the last offset
      assert.equal(wrapper.compression, compression);
      if (magic === 1) assert.equal(wrapper.timestamp, T + 27);
      const out = await decodeLegacyEntry(buf);
      assert.deepEqual(
        out.map((r) => [r.offset, r.key!.toString(), r.value!.toString(), r.timestamp]),
        records.map((r, i) => [100 + i, r.key, r.value, magic === 1 ? r.timestamp : -1]),
      );
    }
  }
  // v1 LogAppendTime wrapper imposes its timestamp
  const lat = await buildLegacyMessageSet({
    magic: 1,
    records,
    compression: CompressionType.Gzip,
    timestampType: TimestampType.LogAppendTime,
    logAppendTime: T + 500,
  });
  const latOut = await decodeLegacyEntry(lat);
  assert.ok(latOut.every((r) => r.timestamp === T + 500 && r.timestampType === TimestampType.LogAppendTime));
  // v1 wrapper offset 0 (old librdkafka) -> base 0; wrapper offset below last inner -> corrupt
  const zero = await buildLegacyMessageSet({
    magic: 1,
    baseOffset: 0,
    records: records.slice(0, 1),
    compression: CompressionType.Gzip,
  });
  const w = readLegacyEntry(zero);
  const inner = Buffer.from(w.value!);
  const rebuilt = encodeLegacyEntry({
    offset: 0,
    magic: 1,
    attributes: 1,
    timestamp: w.timestamp,
    key: null,
    value: inner,
  });
  assert.deepEqual(
    (await decodeLegacyEntry(rebuilt)).map((r) => r.offset),
    [0],
  );
  const three = await buildLegacyMessageSet({
    magic: 1,
    baseOffset: 0,
    records: records.slice(0, 3),
    compression: CompressionType.Gzip,
  });
  const w3 = readLegacyEntry(three);
  await rejectsCorrupt(
    decodeLegacyEntry(encodeLegacyEntry({ offset: 1, magic: 1, attributes: 1, timestamp: 0, value: w3.value })),
    'INVALID_RECORD',
  );
  assert.deepEqual(
    (
      await decodeLegacyEntry(
        encodeLegacyEntry({ offset: 1000, magic: 1, attributes: 1, timestamp: 0, value: w3.value }),
      )
    ).map((r) => r.offset),
    [998, 999, 1000],
  );
});

test('legacy corrupt input: CRC-32, truncation, negative lengths, bad wrappers', async () => {
  const e = encodeLegacyEntry({ offset: 1, magic: 1, timestamp: T, key: 'k', value: 'v' });
  const flipped = Buffer.from(e);
  flipped[e.length - 1] ^= 1;
  await rejectsCorrupt(() => validateLegacyEntry(flipped), 'CRC_MISMATCH');
  await rejectsCorrupt(decodeLegacyEntry(e.subarray(0, e.length - 1)), 'TRUNCATED');
  const negKey = Buffer.from(e);
  negKey.writeInt32BE(-7, 26);
  negKey.writeUInt32BE(crc32(negKey, 16), 12);
  await rejectsCorrupt(() => readLegacyEntry(negKey), 'INVALID_LENGTH');
  const pastEnd = Buffer.from(e);
  pastEnd.writeInt32BE(1000, 31);
  pastEnd.writeUInt32BE(crc32(pastEnd, 16), 12);
  await rejectsCorrupt(() => readLegacyEntry(pastEnd), 'INVALID_LENGTH');
  await rejectsCorrupt(
    decodeLegacyEntry(encodeLegacyEntry({ offset: 0, magic: 1, attributes: 1, value: null })),
    'INVALID_RECORD',
  );
  await rejectsCorrupt(
    decodeLegacyEntry(encodeLegacyEntry({ offset: 0, magic: 1, attributes: 4, value: 'x' })),
    'UNSUPPORTED_COMPRESSION',
  );
  await rejectsCorrupt(
    decodeLegacyEntry(encodeLegacyEntry({ offset: 0, magic: 0, attributes: 1, value: 'garbage' })),
    'DECOMPRESSION_FAILED',
  );
  // nested compression is refused
  const innerWrapper = await buildLegacyMessageSet({
    magic: 0,
    records: [{ value: 'a' }],
    compression: CompressionType.Gzip,
  });
  const { compress } = await import('../src/protocol/records/compression.js');
  const nested = encodeLegacyEntry({
    offset: 0,
    magic: 0,
    attributes: 1,
    value: await compress(CompressionType.Gzip, innerWrapper),
  });
  await rejectsCorrupt(decodeLegacyEntry(nested), 'INVALID_RECORD');
  const magic2 = Buffer.from(e);
  magic2[16] = 2;
  await rejectsCorrupt(() => validateLegacyEntry(magic2), 'INVALID_MAGIC');
});
