// Memory bounds on the request path (issue 20, item 4), on a real `tkafka server start`:
//  * decompression bombs (zstd, gzip, lz4: a 1 MiB request that decompresses to up to 4 GiB) get
//    the error code Kafka 4.4.0 answers for the same bytes (test/interop/memory-bounds-kafka.test.ts
//    checks the codes against it), the broker's peak RSS grows by less than the bound, and a
//    correct producer on another connection is served throughout;
//  * an idle connection, and one that sent only part of a frame, is closed after
//    connections.max.idle.ms; a size prefix over socket.request.max.bytes closes it at once.
// And in-process: the streaming record walk (RecordStreamWalker) agrees with the cursor on every
// chunking of real batches, and a bomb's walk stops after a bounded number of decoded bytes.
//
//   npm run build && nice -n 19 node --test --test-concurrency=1 dist/test/memory-bounds.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { Conn } from './helpers/limit-conn.js';
import { startBroker } from './helpers/broker-process.js';
import { waitFor, waitForLine } from './helpers/wait-for.js';
import {
  BOMB_CASES,
  createBombTopics,
  GOOD_TOPIC,
  GoodProducer,
  produceOnce,
  vmHwmMiB,
} from './helpers/bomb-scenario.js';
import { trailingBomb } from './helpers/bombs.js';
import { createTopicAt } from './helpers/create-topic.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { buildRecordBatch } from '../src/protocol/records/batch.js';
import { CompressionType, RECORD_BATCH_OVERHEAD } from '../src/protocol/records/layout.js';
import {
  compress,
  decompress,
  decompressChunks,
  DecompressionBudget,
  lz4DecodeBlock,
} from '../src/protocol/records/compression.js';
import { RecordCursor } from '../src/protocol/records/record-cursor.js';
import { RecordStreamWalker } from '../src/protocol/records/record-stream.js';
import { CorruptRecordError } from '../src/protocol/records/layout.js';
import { ErrorCode } from '../src/protocol/errors.js';

const MiB = 1024 * 1024;
const CODECS = [CompressionType.Gzip, CompressionType.Snappy, CompressionType.Lz4, CompressionType.Zstd];

/** The bound stated in docs/notes/i20-memory.md: peak RSS growth over the bomb phase. */
const RSS_GROWTH_BOUND_MIB = 160;

test('the streaming record walk sees what the cursor sees, however the section is chunked', async () => {
  const now = Date.now();
  for (const codec of CODECS) {
    const batch = await buildRecordBatch({
      records: Array.from({ length: 300 }, (_, i) => ({
        key: i % 5 === 0 ? null : `k${i}`,
        value: i % 7 === 0 ? null : Buffer.alloc((i * 37) % 3000, i),
        timestamp: now + i,
        headers: i % 3 === 0 ? [{ key: 'h', value: `v${i}` }] : [],
      })),
      compression: codec,
    });
    const section = await decompress(codec, batch.subarray(RECORD_BATCH_OVERHEAD));
    const expected: string[] = [];
    const c = new RecordCursor().reset(section, 0, section.length, 300);
    while (c.next()) expected.push(`${c.index}:${c.offsetDelta}:${c.timestampDelta}:${c.keySize}:${c.valueSize}`);
    for (const step of [1, 2, 3, 7, 64, 4096, section.length]) {
      const seen: string[] = [];
      const w = new RecordStreamWalker(300, 1 << 30, (r) =>
        seen.push(`${r.index}:${r.offsetDelta}:${r.timestampDelta}:${r.keySize}:${r.valueSize}`),
      );
      for (let p = 0; p < section.length; p += step) w.push(section.subarray(p, p + step));
      w.finish();
      assert.deepEqual(seen, expected, `codec ${codec}, chunks of ${step}`);
      assert.equal(w.bytesRead, section.length);
    }
    // every chunk of decompressChunks, walked, gives the same records
    const seen: string[] = [];
    const w = new RecordStreamWalker(300, 1 << 30, (r) =>
      seen.push(`${r.index}:${r.offsetDelta}:${r.timestampDelta}:${r.keySize}:${r.valueSize}`),
    );
    for await (const chunk of decompressChunks(codec, batch.subarray(RECORD_BATCH_OVERHEAD), { window: 4096 }))
      w.push(chunk);
    w.finish();
    assert.deepEqual(seen, expected, `codec ${codec} through decompressChunks`);
  }
  // mutated sections: byte by byte (the stream path) and whole (the in-place fast path) agree
  const sample = await buildRecordBatch({
    records: Array.from({ length: 20 }, (_, i) => ({
      key: `k${i}`,
      value: Buffer.alloc(i * 3, i),
      timestamp: now,
      headers: i % 2 ? [{ key: 'h', value: 'v' }] : [],
    })),
  });
  const clean = sample.subarray(RECORD_BATCH_OVERHEAD);
  let seed = 20;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const outcome = (d: Buffer, step: number): string => {
    const seen: number[] = [];
    const w = new RecordStreamWalker(20, 200, (r) => seen.push(r.offsetDelta, r.keySize, r.valueSize));
    try {
      for (let p = 0; p < d.length; p += step) w.push(d.subarray(p, p + step));
      w.finish();
      return `ok ${seen.join(',')}`;
    } catch (e) {
      return `${(e as Error).message} after ${seen.join(',')}`;
    }
  };
  for (let i = 0; i < 2000; i++) {
    const d = Buffer.from(clean.subarray(0, clean.length - (i % 7 === 0 ? rnd(5) : 0)));
    for (let m = 0; m <= rnd(3); m++) d[rnd(d.length)] = rnd(256);
    assert.equal(outcome(d, d.length), outcome(d, 1), `mutation ${i}: ${d.toString('hex')}`);
  }
  // Kafka's errors: trailing bytes, a size over the limit, a stream ending inside a record
  const one = await buildRecordBatch({ records: [{ key: 'k', value: 'v', timestamp: now }] });
  const rec = one.subarray(RECORD_BATCH_OVERHEAD);
  const walk = (d: Buffer, count: number, max = 1 << 30) => {
    const w = new RecordStreamWalker(count, max, () => undefined);
    w.push(d);
    w.finish();
  };
  assert.throws(
    () => walk(Buffer.concat([rec, Buffer.alloc(1)]), 1),
    (e: unknown) =>
      e instanceof CorruptRecordError && e.message === 'Incorrect declared batch size, records still remaining in file',
  );
  assert.throws(
    () => walk(rec, 1, 3),
    (e: unknown) =>
      e instanceof CorruptRecordError &&
      e.message === `Invalid record size: ${rec.length - 1} exceeds the configured maximum record size of 3.`,
  );
  assert.throws(() => walk(rec, 2), /Incorrect declared batch size, premature EOF reached/);
  assert.throws(() => walk(rec.subarray(0, rec.length - 2), 1), CorruptRecordError);
});

test('a bomb is decoded only until the walk has its answer, within the budget', async () => {
  for (const codec of [CompressionType.Gzip, CompressionType.Lz4]) {
    const bomb = await trailingBomb(codec, codec === CompressionType.Gzip ? 512 * MiB : 128 * MiB);
    const budget = new DecompressionBudget(8 * MiB);
    const w = new RecordStreamWalker(1, 1 << 30, () => undefined);
    let decoded = 0;
    const chunks = decompressChunks(codec, bomb.subarray(RECORD_BATCH_OVERHEAD), { budget });
    await assert.rejects(async () => {
      for await (const chunk of chunks) {
        decoded += chunk.length;
        w.push(chunk);
      }
    }, /records still remaining/);
    assert.ok(decoded <= 4 * MiB, `codec ${codec}: ${decoded} bytes decoded before the answer`);
    assert.ok(budget.peak <= 8 * MiB);
    assert.equal(budget.inUse, 0, 'the budget is released');
  }
  // zstd is decoded whole: a frame whose bound is over the whole-decode limit is refused undecoded
  const zbomb = await trailingBomb(CompressionType.Zstd, 4096 * MiB);
  await assert.rejects(async () => {
    for await (const chunk of decompressChunks(CompressionType.Zstd, zbomb.subarray(RECORD_BATCH_OVERHEAD)))
      assert.fail(`decoded ${chunk.length} bytes`);
  }, /exceeds the limit/);
});

test('lz4 streamed block by block (the JS block decoder) decodes what the native decoder decodes', async () => {
  let seed = 7;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let i = 0; i < 40; i++) {
    // runs, repeats at short and long distances, and noise
    const parts: Buffer[] = [];
    for (let p = 0, n = rnd(40); p < n; p++) {
      const kind = rnd(4);
      const len = 1 + rnd(kind === 3 ? 70_000 : 3000);
      if (kind === 0) parts.push(Buffer.alloc(len, rnd(256)));
      else if (kind === 1) parts.push(Buffer.from(Array.from({ length: len }, () => rnd(256))));
      else if (kind === 2 && parts.length > 0) parts.push(parts[rnd(parts.length)]!);
      else parts.push(Buffer.from(Array.from({ length: len }, (_, j) => 97 + (j % (1 + rnd(9))))));
    }
    const data = Buffer.concat(parts);
    const frame = await compress(CompressionType.Lz4, data);
    const chunks: Buffer[] = [];
    for await (const c of decompressChunks(CompressionType.Lz4, frame, { window: 0 })) chunks.push(Buffer.from(c));
    assert.ok(Buffer.concat(chunks).equals(data), `case ${i}: ${data.length} bytes`);
  }
  // a malformed block is an error, not a read or write out of bounds
  const out = Buffer.alloc(64);
  assert.throws(() => lz4DecodeBlock(Buffer.from([0x1f, 0x41, 0x05, 0x00]), 0, 4, out), /invalid match offset 5/);
  assert.throws(() => lz4DecodeBlock(Buffer.from([0xf0]), 0, 1, out), /truncated literal length/);
  assert.throws(() => lz4DecodeBlock(Buffer.from([0x1f, 0x41, 0x01, 0x00, 0xff, 0x00]), 0, 6, out), /output past/);
});

test('budget: FIFO, bounded, released', async () => {
  const b = new DecompressionBudget(10);
  const r1 = await b.acquire(6);
  const order: number[] = [];
  const p2 = Promise.resolve(b.acquire(6)).then((r) => (order.push(2), r));
  const p3 = Promise.resolve(b.acquire(1)).then((r) => (order.push(3), r)); // waits behind 2 (FIFO), though it would fit
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, []);
  r1();
  const r2 = await p2;
  const r3 = await p3;
  assert.deepEqual(order, [2, 3]);
  assert.equal(b.inUse, 7);
  r2();
  r3();
  r3(); // idempotent
  assert.equal(b.inUse, 0);
  assert.equal(b.peak, 7);
  const big = await b.acquire(100); // clipped to the capacity
  assert.equal(b.inUse, 10);
  big();
});

test('decompression bombs: Kafka 4.4.0 error codes, bounded RSS, a correct producer keeps being served', async () => {
  const b = await startBroker();
  let good: GoodProducer | undefined;
  try {
    await createBombTopics(b.port);
    good = new GoodProducer(b.bootstrap);
    await waitFor(() => good!.acked >= 20, { what: 'the correct producer to be served', timeoutMs: 30_000 });
    const pid = b.pid()!;
    const before = vmHwmMiB(pid);
    const codes: string[] = [];
    for (const c of BOMB_CASES) {
      const ackedBefore = good.acked;
      const code = await produceOnce(b.port, c.topic, await c.build());
      codes.push(`${c.name}: ${code}`);
      assert.equal(code, c.expected, `${c.name}: error code`);
      await waitFor(() => good!.acked > ackedBefore, { what: `the correct producer served after ${c.name}` });
    }
    // the same bombs from 8 connections at once
    const trailing = BOMB_CASES.filter((c) => c.expected === ErrorCode.INVALID_RECORD);
    const batches = await Promise.all(trailing.map((c) => c.build()));
    const concurrent = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        produceOnce(b.port, trailing[i % trailing.length]!.topic, batches[i % batches.length]!),
      ),
    );
    for (const code of concurrent) assert.equal(code, ErrorCode.INVALID_RECORD);
    // one request, 16 partitions, a bomb in each: validated concurrently, within the one budget
    await createTopicAt(b.port, 'bombs-16', { partitions: 16 });
    const gzipBomb = await trailingBomb(CompressionType.Gzip, 512 * MiB);
    const raw = await RawClient.connect(b.port);
    try {
      const r = await waitFor(
        async () => {
          const res = await raw.request(ApiKey.Produce, 9, {
            transactionalId: null,
            acks: 1,
            timeoutMs: 60_000,
            topicData: [
              {
                name: 'bombs-16',
                partitionData: Array.from({ length: 16 }, (_, index) => ({ index, records: gzipBomb })),
              },
            ],
          });
          const codes = res.responses[0]!.partitionResponses.map((p) => p.errorCode);
          return codes.includes(ErrorCode.NOT_LEADER_OR_FOLLOWER) ||
            codes.includes(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
            ? null
            : codes;
        },
        { what: 'the 16-partition bomb request answered by the leader' },
      );
      assert.deepEqual(r, Array(16).fill(ErrorCode.INVALID_RECORD));
    } finally {
      raw.close();
    }
    const after = vmHwmMiB(pid);
    console.log(`bombs: broker VmHWM ${before.toFixed(0)} → ${after.toFixed(0)} MiB; ${codes.join('; ')}`);
    assert.ok(
      after - before < RSS_GROWTH_BOUND_MIB,
      `peak RSS grew by ${(after - before).toFixed(0)} MiB (${before.toFixed(0)} → ${after.toFixed(0)}), bound ${RSS_GROWTH_BOUND_MIB}`,
    );
    const ackedAfterBombs = good.acked;
    await waitFor(() => good!.acked >= ackedAfterBombs + 20, { what: 'the correct producer still served' });
    await good.stop();
    assert.equal(good.failed, 0, 'no send of the correct producer failed');
    assert.ok(good.acked > 0, GOOD_TOPIC);
  } finally {
    await good?.stop();
    await b.stop();
    b.cleanup();
  }
});

test('connections.max.idle.ms closes an idle connection and one holding a partial frame; an oversize prefix closes at once', async () => {
  const IDLE_MS = 1500;
  const b = await startBroker({
    overrides: { 'connections.max.idle.ms': IDLE_MS, 'socket.request.max.bytes': 100_000 },
  });
  const open = async () => {
    const s = connect(b.port, '127.0.0.1');
    await new Promise<void>((res, rej) => {
      s.once('connect', res);
      s.once('error', rej);
    });
    let closedAt = 0;
    s.on('close', () => (closedAt = performance.now()));
    s.on('error', () => undefined);
    return { s, closedAt: () => closedAt };
  };
  try {
    const t0 = performance.now();
    const partial = await open();
    // a size prefix of 1000 and 10 bytes of the frame: then nothing
    partial.s.write(Buffer.concat([Buffer.from([0, 0, 0x03, 0xe8]), Buffer.alloc(10, 1)]));
    const half = await open();
    half.s.write(Buffer.from([0, 0])); // half of a size prefix
    const silent = await open();
    for (const c of [partial, half, silent])
      await waitFor(() => c.closedAt() > 0, { what: 'the idle connection to be closed', timeoutMs: IDLE_MS * 10 });
    for (const c of [partial, half, silent]) {
      const after = c.closedAt() - t0;
      assert.ok(after >= IDLE_MS - 50, `closed after ${after.toFixed(0)} ms, not before connections.max.idle.ms`);
    }
    await waitForLine(b.output, /idle for more than 1500 ms \(connections\.max\.idle\.ms\)/, { what: 'the idle line' });

    // over socket.request.max.bytes: closed at the size prefix, nothing allocated for it
    const big = await open();
    const t1 = performance.now();
    big.s.write(Buffer.from([0x7f, 0xff, 0xff, 0xff]));
    await waitFor(() => big.closedAt() > 0, { what: 'the oversize frame to close the connection' });
    assert.ok(big.closedAt() - t1 < IDLE_MS, 'closed at once, not by the idle timer');
    await waitForLine(b.output, /invalid receive \(size = 2147483647 larger than 100000\)/, {
      what: 'the invalid receive line',
    });
  } finally {
    await b.stop();
    b.cleanup();
  }
});

test('5,000 connections each holding a partial frame are all closed by connections.max.idle.ms; a client keeps being served', async () => {
  const IDLE_MS = 4000;
  const N = 5000;
  const b = await startBroker({ overrides: { 'connections.max.idle.ms': IDLE_MS } });
  const sockets: Socket[] = [];
  let closed = 0;
  let live: Conn | undefined;
  try {
    live = await Conn.open(b.port);
    const pid = b.pid()!;
    const before = vmHwmMiB(pid);
    for (let i = 0; i < N; i += 250) {
      await Promise.all(
        Array.from({ length: Math.min(250, N - i) }, async () => {
          const s = connect(b.port, '127.0.0.1');
          s.on('error', () => undefined);
          s.on('close', () => closed++);
          await new Promise<void>((res, rej) => {
            s.once('connect', res);
            s.once('error', rej);
          });
          // a 100,000-byte frame announced, 100 bytes of it sent
          s.write(Buffer.concat([Buffer.from([0, 0x01, 0x86, 0xa0]), Buffer.alloc(100, 2)]));
          sockets.push(s);
        }),
      );
      assert.equal(await live.ping(), true, 'a client is served while the connections open');
    }
    // the active client keeps pinging (it is not idle) while the others are closed
    await waitFor(
      async () => {
        assert.equal(await live!.ping(), true, 'the active client is served');
        return closed === N;
      },
      { what: `${N} idle connections closed`, timeoutMs: 120_000 },
    );
    const after = vmHwmMiB(pid);
    console.log(`5,000 partial frames: broker VmHWM ${before.toFixed(0)} → ${after.toFixed(0)} MiB`);
    assert.ok(after - before < 256, `peak RSS grew by ${(after - before).toFixed(0)} MiB`);
  } finally {
    live?.close();
    for (const s of sockets) s.destroy();
    await b.stop();
    b.cleanup();
  }
});
