// ReplicaManager over real partition logs in a temp dir: appends with Kafka's validation, reads
// with fetch limits, long polling through the purgatory, acks=all, offsets, delete records.
import test, { after } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { ErrorCode } from '../src/protocol/errors.js';
import * as L from '../src/protocol/records/layout.js';
import {
  buildRecordBatch,
  buildRecordBatchSync,
  decodeBatch,
  iterateBatches,
  readBatchHeader,
  verifyBatchCrc,
  writeBatchCrc,
  type RecordInput,
} from '../src/protocol/records/batch.js';
import { DirectoryLogStore } from '../src/broker/replication/log-store.js';
import { ReplicaManager } from '../src/broker/replication/replica-manager.js';
import { recordsInMemory } from '../src/broker/replication/types.js';
import type { FetchParams, FetchPartitionRequest, ProducerStateHook } from '../src/broker/replication/types.js';
import { ByteLedger } from '../src/broker/replication/partition.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';
import { waitFor } from './helpers/wait-for.js';
import type { MetadataImage } from '../src/broker/metadata/image.js';

const TOPIC_ID = 'dGtha2ZrYS10b3BpYy1pZA';
const OTHER_ID = 'b3RoZXItdG9waWMtaWQtMQ';

interface Env {
  dir: string;
  rm: ReplicaManager;
  now: { ms: number };
  close(): Promise<void>;
}

async function env(opts: { clock?: boolean } = {}): Promise<Env> {
  const dir = await tempDir('tkafka-rm-');
  const now = { ms: Date.now() };
  const clock = opts.clock ? () => now.ms : undefined;
  const rm = new ReplicaManager({ nodeId: 1, logs: new DirectoryLogStore(dir, { clock }), clock });
  return {
    dir,
    rm,
    now,
    close: async () => {
      await rm.shutdown();
      await removeDir(dir);
    },
  };
}

function recs(n: number, prefix = 'k', ts = Date.now()): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, value: `value-${prefix}-${i}`, timestamp: ts }));
}

const batch = (n: number, prefix = 'k', ts?: number): Buffer => buildRecordBatchSync({ records: recs(n, prefix, ts) });

const params = (o: Partial<FetchParams> = {}): FetchParams => ({
  version: 17,
  replicaId: -1,
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 1 << 20,
  isolationLevel: 0,
  ...o,
});

const fetchReq = (
  topic: string,
  partition: number,
  fetchOffset: number,
  maxBytes = 1 << 20,
): FetchPartitionRequest => ({
  topic,
  topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
  partition,
  fetchOffset,
  logStartOffset: -1,
  maxBytes,
  currentLeaderEpoch: -1,
  lastFetchedEpoch: -1,
});

function offsetsOf(buf: Buffer): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const e of iterateBatches(buf)) {
    const h = readBatchHeader(buf, e.position, e.position + e.sizeInBytes);
    out.push([h.baseOffset, h.lastOffset]);
  }
  return out;
}

const APPEND = { acks: 1, timeoutMs: 1000 };

test('append and read round trip: offsets assigned by the log, HW follows the LEO, bytes uncopied', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    const r1 = await e.rm.appendRecords('t', 0, batch(3, 'a'), APPEND);
    const r2 = await e.rm.appendRecords('t', 0, batch(2, 'b'), APPEND);
    assert.equal(r1.errorCode, ErrorCode.NONE);
    assert.equal(r1.baseOffset, 0);
    assert.equal(r2.baseOffset, 3);
    assert.equal(r1.logAppendTime, -1);
    const p = e.rm.partition('t', 0)!;
    assert.equal(p.highWatermark, 5);
    assert.equal(p.logEndOffset, 5);
    const [res] = await e.rm.readFromLog(params(), [fetchReq('t', 0, 0)]);
    assert.equal(res!.errorCode, ErrorCode.NONE);
    assert.equal(res!.highWatermark, 5);
    assert.equal(res!.lastStableOffset, 5);
    assert.equal(res!.logStartOffset, 0);
    assert.deepEqual(offsetsOf(recordsInMemory(res!)), [
      [0, 2],
      [3, 4],
    ]);
    const decoded = await decodeBatch(recordsInMemory(res!), 0);
    assert.equal(decoded.partitionLeaderEpoch, 0);
    assert.deepEqual(
      decoded.records.map((r) => r.key!.toString()),
      ['a0', 'a1', 'a2'],
    );
    // reading at the HW gives nothing; beyond the LEO is out of range
    const [atEnd, beyond] = await e.rm.readFromLog(params(), [fetchReq('t', 0, 5), fetchReq('t', 0, 9)]);
    assert.equal(atEnd!.records.length, 0);
    assert.equal(beyond!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    assert.equal(beyond!.highWatermark, -1);
    // unknown partitions
    assert.equal(
      (await e.rm.appendRecords('nope', 0, batch(1), APPEND)).errorCode,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
    assert.equal(
      (await e.rm.readFromLog(params(), [fetchReq('nope', 0, 0)]))[0]!.errorCode,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
  } finally {
    await e.close();
  }
});

test('validation: CRC, acks, base offset, batch count, offset range vs count, size limits', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, { 'max.message.bytes': '400' });
    const bad = batch(2);
    bad[bad.length - 1] ^= 0xff;
    const corrupt = await e.rm.appendRecords('t', 0, bad, APPEND);
    assert.equal(corrupt.errorCode, ErrorCode.CORRUPT_MESSAGE);
    assert.equal(corrupt.baseOffset, -1);
    assert.equal(corrupt.logStartOffset, -1);

    assert.equal(
      (await e.rm.appendRecords('t', 0, batch(1), { acks: 2, timeoutMs: 10 })).errorCode,
      ErrorCode.INVALID_REQUIRED_ACKS,
    );

    const shifted = batch(1);
    shifted.writeBigInt64BE(7n, 0);
    assert.equal((await e.rm.appendRecords('t', 0, shifted, APPEND)).errorCode, ErrorCode.INVALID_RECORD);

    assert.equal(
      (await e.rm.appendRecords('t', 0, Buffer.concat([batch(1), batch(1)]), APPEND)).errorCode,
      ErrorCode.INVALID_RECORD,
    );

    const lying = batch(3);
    lying.writeInt32BE(5, L.LAST_OFFSET_DELTA); // claims 6 records, holds 3
    writeBatchCrc(lying, 0);
    assert.equal((await e.rm.appendRecords('t', 0, lying, APPEND)).errorCode, ErrorCode.INVALID_RECORD);

    const tooBig = buildRecordBatchSync({ records: [{ key: 'k', value: Buffer.alloc(500) }] });
    const big = await e.rm.appendRecords('t', 0, tooBig, APPEND);
    assert.equal(big.errorCode, ErrorCode.MESSAGE_TOO_LARGE);

    const idempotentNoSeq = buildRecordBatchSync({
      records: recs(1),
      producerId: 5,
      producerEpoch: 0,
      baseSequence: -1,
    });
    assert.equal((await e.rm.appendRecords('t', 0, idempotentNoSeq, APPEND)).errorCode, ErrorCode.INVALID_RECORD);

    const control = buildRecordBatchSync({
      records: recs(1),
      isControl: true,
      transactional: true,
      producerId: 1,
      producerEpoch: 0,
      baseSequence: 0,
    });
    assert.equal((await e.rm.appendRecords('t', 0, control, APPEND)).errorCode, ErrorCode.INVALID_RECORD);

    assert.equal(
      (await e.rm.appendRecords('__consumer_offsets', 0, batch(1), APPEND)).errorCode,
      ErrorCode.INVALID_TOPIC_EXCEPTION,
    );

    // nothing reached the log
    assert.equal(e.rm.partition('t', 0)!.logEndOffset, 0);
    assert.equal((await e.rm.appendRecords('t', 0, batch(1), APPEND)).baseOffset, 0);
  } finally {
    await e.close();
  }
});

test('a batch larger than the segment is RECORD_LIST_TOO_LARGE', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {
      'segment.bytes': String(1024 * 1024),
      'max.message.bytes': String(4 * 1024 * 1024),
    });
    const huge = buildRecordBatchSync({ records: [{ key: 'k', value: Buffer.alloc(1024 * 1024 + 100) }] });
    const r = await e.rm.appendRecords('t', 0, huge, APPEND);
    assert.equal(r.errorCode, ErrorCode.RECORD_LIST_TOO_LARGE);
  } finally {
    await e.close();
  }
});

test('compacted topics reject records without a key, with per-record errors', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('c', TOPIC_ID, 0, 0, { 'cleanup.policy': 'compact' });
    const b = buildRecordBatchSync({
      records: [
        { key: 'a', value: '1' },
        { key: null, value: '2' },
        { key: 'c', value: '3' },
        { key: null, value: '4' },
      ],
    });
    const r = await e.rm.appendRecords('c', 0, b, APPEND);
    assert.equal(r.errorCode, ErrorCode.INVALID_RECORD);
    assert.deepEqual(
      r.recordErrors.map((x) => x.batchIndex),
      [1, 3],
    );
    assert.match(
      r.recordErrors[0]!.message!,
      /Compacted topic cannot accept message without key in topic partition c-0/,
    );
    assert.match(r.errorMessage!, /2 record errors/);
    assert.equal(r.logStartOffset, 0);
    // DeleteRecords is refused on compact-only topics
    assert.equal((await e.rm.deleteRecords('c', 0, 0)).errorCode, ErrorCode.POLICY_VIOLATION);
  } finally {
    await e.close();
  }
});

test('CreateTime bounds give INVALID_TIMESTAMP; the batch max timestamp is corrected in place', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {
      'message.timestamp.after.max.ms': '1000',
      'message.timestamp.before.max.ms': '60000',
    });
    const now = Date.now();
    const future = buildRecordBatchSync({
      records: [
        { key: 'a', value: 'x', timestamp: now },
        { key: 'b', value: 'y', timestamp: now + 3600_000 },
      ],
    });
    const r = await e.rm.appendRecords('t', 0, future, APPEND);
    assert.equal(r.errorCode, ErrorCode.INVALID_TIMESTAMP);
    assert.deepEqual(
      r.recordErrors.map((x) => x.batchIndex),
      [1],
    );
    const past = buildRecordBatchSync({ records: [{ key: 'a', value: 'x', timestamp: now - 3600_000 }] });
    assert.equal((await e.rm.appendRecords('t', 0, past, APPEND)).errorCode, ErrorCode.INVALID_TIMESTAMP);
    // the message prints Kafka's bounds in Java longs: before.max.ms defaults to Long.MAX_VALUE
    await e.rm.ensurePartition('tf', TOPIC_ID, 0, 0, { 'message.timestamp.after.max.ms': '1000' });
    const rf = await e.rm.appendRecords('tf', 0, future, APPEND);
    const m = /should be within \[(-?\d+), (-?\d+)\]$/.exec(rf.recordErrors[0]?.message ?? '');
    assert.ok(m, rf.recordErrors[0]?.message ?? 'no record error');
    const brokerNow = BigInt(m[1]!) + 9223372036854775807n;
    assert.ok(brokerNow >= BigInt(now) && brokerNow < BigInt(now + 60_000), m[0]);
    assert.equal(BigInt(m[2]!), brokerNow + 1000n);

    // a producer-supplied max timestamp that disagrees with the records is rewritten (CRC kept valid)
    const wrong = buildRecordBatchSync({
      records: [
        { key: 'a', value: 'x', timestamp: now - 5 },
        { key: 'b', value: 'y', timestamp: now - 2 },
      ],
    });
    wrong.writeBigInt64BE(BigInt(now + 999_999), L.MAX_TIMESTAMP);
    writeBatchCrc(wrong, 0);
    assert.equal((await e.rm.appendRecords('t', 0, wrong, APPEND)).errorCode, ErrorCode.NONE);
    const [res] = await e.rm.readFromLog(params(), [fetchReq('t', 0, 0)]);
    const h = readBatchHeader(recordsInMemory(res!), 0);
    assert.equal(h.maxTimestamp, now - 2);
    assert.ok(verifyBatchCrc(recordsInMemory(res!), 0));
  } finally {
    await e.close();
  }
});

test('LogAppendTime topics stamp the broker time in place and keep the CRC valid', async () => {
  const e = await env({ clock: true });
  try {
    e.now.ms = 1_700_000_123_456;
    await e.rm.ensurePartition('lat', TOPIC_ID, 0, 0, { 'message.timestamp.type': 'LogAppendTime' });
    const r = await e.rm.appendRecords('lat', 0, batch(3, 'k', 1000), APPEND);
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.logAppendTime, e.now.ms);
    const [res] = await e.rm.readFromLog(params(), [fetchReq('lat', 0, 0)]);
    const h = readBatchHeader(recordsInMemory(res!), 0);
    assert.equal(h.timestampType, 1);
    assert.equal(h.maxTimestamp, e.now.ms);
    assert.ok(verifyBatchCrc(recordsInMemory(res!), 0));
    const d = await decodeBatch(recordsInMemory(res!), 0);
    assert.ok(d.records.every((x) => x.timestamp === e.now.ms));
    // producers must not claim LogAppendTime themselves
    const claimed = buildRecordBatchSync({ records: recs(1), timestampType: 1, logAppendTime: 5 });
    assert.equal((await e.rm.appendRecords('lat', 0, claimed, APPEND)).errorCode, ErrorCode.INVALID_TIMESTAMP);
  } finally {
    await e.close();
  }
});

test('compressed batches are stored as sent; a topic compression.type other than the producer codec recompresses', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('p', TOPIC_ID, 0, 0, {});
    await e.rm.ensurePartition('g', OTHER_ID, 0, 0, { 'compression.type': 'gzip' });
    const gz = await buildRecordBatch({ records: recs(4), compression: 1 });
    const sent = Buffer.from(gz);
    assert.equal((await e.rm.appendRecords('p', 0, gz, APPEND)).errorCode, ErrorCode.NONE);
    const [stored] = await e.rm.readFromLog(params(), [fetchReq('p', 0, 0)]);
    // identical except base offset and partition leader epoch (outside the CRC)
    assert.deepEqual(recordsInMemory(stored!).subarray(L.MAGIC), sent.subarray(L.MAGIC));

    const plain = batch(4);
    assert.equal((await e.rm.appendRecords('g', 0, plain, APPEND)).errorCode, ErrorCode.NONE);
    const [res] = await e.rm.readFromLog(params(), [fetchReq('g', 0, 0)]);
    const h = readBatchHeader(recordsInMemory(res!), 0);
    assert.equal(h.compression, 1);
    assert.ok(verifyBatchCrc(recordsInMemory(res!), 0));
    assert.ok(gunzipSync(recordsInMemory(res!).subarray(L.RECORD_BATCH_OVERHEAD)).length > 0);
    const d = await decodeBatch(recordsInMemory(res!), 0);
    assert.deepEqual(
      d.records.map((x) => x.key!.toString()),
      ['k0', 'k1', 'k2', 'k3'],
    );
  } finally {
    await e.close();
  }
});

test('fetch limits: min-one-message on the first partition, partial batch at the limit, hard limits after data', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('a', TOPIC_ID, 0, 0, {});
    await e.rm.ensurePartition('b', OTHER_ID, 0, 0, {});
    for (let i = 0; i < 3; i++) await e.rm.appendRecords('a', 0, batch(2, `a${i}-`), APPEND);
    for (let i = 0; i < 3; i++) await e.rm.appendRecords('b', 0, batch(2, `b${i}-`), APPEND);
    const [full] = await e.rm.readFromLog(params(), [fetchReq('a', 0, 0)]);
    const sizes = [...iterateBatches(recordsInMemory(full!))].map((x) => x.sizeInBytes);
    assert.equal(sizes.length, 3);

    // partition limit below one batch: the first partition still gets the whole first batch
    const [one] = await e.rm.readFromLog(params(), [fetchReq('a', 0, 0, 10)]);
    assert.equal(one!.records.length, sizes[0]);

    // partition limit in the middle of the second batch: the bytes end mid-batch, like Kafka
    const limit = sizes[0]! + 20;
    const [partial] = await e.rm.readFromLog(params(), [fetchReq('a', 0, 0, limit)]);
    assert.equal(recordsInMemory(partial!).length, limit);
    const it = iterateBatches(recordsInMemory(partial!));
    assert.equal([...it].length, 1);
    assert.ok(it.partial);

    // request limit: once the first partition returned data, the second's first batch must fit
    const [ra, rb] = await e.rm.readFromLog(params({ maxBytes: sizes[0]! + 10 }), [
      fetchReq('a', 0, 0, sizes[0]!),
      fetchReq('b', 0, 0),
    ]);
    assert.equal(ra!.records.length, sizes[0]);
    assert.equal(rb!.records.length, 0);
    assert.equal(rb!.errorCode, ErrorCode.NONE);
    assert.equal(rb!.highWatermark, 6);

    // an empty first partition does not use up min-one-message
    const [ea, eb] = await e.rm.readFromLog(params({ maxBytes: 5 }), [fetchReq('a', 0, 6), fetchReq('b', 0, 0)]);
    assert.equal(ea!.records.length, 0);
    assert.equal(eb!.records.length, sizes[0]);
  } finally {
    await e.close();
  }
});

test('long poll: completes on append, on enough bytes, on timeout, and on connection close', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    const waiting = e.rm.fetchMessages(params({ maxWaitMs: 10_000 }), [fetchReq('t', 0, 0)], 'conn-1');
    await waitFor(() => e.rm.fetchPurgatory.size === 1, { what: 'the fetch to wait in the purgatory' });
    const started = Date.now();
    await e.rm.appendRecords('t', 0, batch(2), APPEND);
    const [got] = await waiting;
    assert.ok(Date.now() - started < 2000);
    assert.deepEqual(offsetsOf(recordsInMemory(got!)), [[0, 1]]);
    assert.equal(e.rm.fetchPurgatory.size, 0);
    assert.equal(e.rm.fetchPurgatory.watched('t-0'), 0);

    // min_bytes: one small batch is not enough, the second is
    const one = batch(1, 'x');
    const needTwo = e.rm.fetchMessages(params({ maxWaitMs: 10_000, minBytes: one.length + 1 }), [fetchReq('t', 0, 2)]);
    let done = false;
    void needTwo.then(() => {
      done = true;
    });
    await e.rm.appendRecords('t', 0, one, APPEND);
    await new Promise((r) => setTimeout(r, 30)); // time is the point: the fetch must still be waiting 30 ms on
    assert.equal(done, false);
    await e.rm.appendRecords('t', 0, batch(1, 'y'), APPEND);
    const [two] = await needTwo;
    assert.deepEqual(offsetsOf(recordsInMemory(two!)), [
      [2, 2],
      [3, 3],
    ]);

    // timeout: empty answer after max_wait_ms
    const t0 = Date.now();
    const [empty] = await e.rm.fetchMessages(params({ maxWaitMs: 60 }), [fetchReq('t', 0, 4)]);
    assert.ok(Date.now() - t0 >= 50);
    assert.equal(empty!.records.length, 0);
    assert.equal(empty!.highWatermark, 4);

    // connection closed: the wait is dropped without leaving watchers behind
    const dropped = e.rm.fetchMessages(params({ maxWaitMs: 10_000 }), [fetchReq('t', 0, 4)], 'conn-2');
    await waitFor(() => e.rm.fetchPurgatory.size === 1, { what: 'the fetch to wait in the purgatory' });
    e.rm.cancelConnection('conn-2');
    await dropped;
    assert.equal(e.rm.fetchPurgatory.size, 0);

    // partition deleted while waiting: completes with an error
    const gone = e.rm.fetchMessages(params({ maxWaitMs: 10_000 }), [fetchReq('t', 0, 4)]);
    await waitFor(() => e.rm.fetchPurgatory.size === 1, { what: 'the fetch to wait in the purgatory' });
    await e.rm.deletePartitions('t', [0]);
    const [err] = await gone;
    assert.equal(err!.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal(e.rm.fetchPurgatory.size, 0);
  } finally {
    await e.close();
  }
});

test('acks=all waits for the ISR: times out, then completes when the follower catches up', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {}, { replicas: [1, 2], isr: [1, 2] });
    const timedOut = await e.rm.appendRecords('t', 0, batch(1), { acks: -1, timeoutMs: 40 });
    assert.equal(timedOut.errorCode, ErrorCode.REQUEST_TIMED_OUT);
    assert.equal(e.rm.partition('t', 0)!.highWatermark, 0);
    assert.equal(e.rm.producePurgatory.size, 0);

    const pending = e.rm.appendRecords('t', 0, batch(1), { acks: -1, timeoutMs: 10_000 });
    await waitFor(() => e.rm.producePurgatory.size === 1, { what: 'the acks=all produce to wait in the purgatory' });
    // the follower (broker 2) fetches at offset 2: it has both records, the HW moves
    const [f] = await e.rm.readFromLog(params({ replicaId: 2 }), [fetchReq('t', 0, 2)]);
    assert.equal(f!.errorCode, ErrorCode.NONE);
    const r = await pending;
    assert.equal(r.errorCode, ErrorCode.NONE);
    assert.equal(r.baseOffset, 1);
    assert.equal(e.rm.partition('t', 0)!.highWatermark, 2);

    // acks=1 does not wait; min.insync.replicas larger than the ISR refuses acks=all
    assert.equal((await e.rm.appendRecords('t', 0, batch(1), { acks: 1, timeoutMs: 10 })).errorCode, ErrorCode.NONE);
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, { 'min.insync.replicas': '2' }, { replicas: [1, 2], isr: [1] });
    assert.equal(
      (await e.rm.appendRecords('t', 0, batch(1), { acks: -1, timeoutMs: 10 })).errorCode,
      ErrorCode.NOT_ENOUGH_REPLICAS,
    );
  } finally {
    await e.close();
  }
});

test('list offsets: earliest, latest, by timestamp, max timestamp, version gates', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 3, {});
    const base = Date.now() - 10_000;
    await e.rm.appendRecords('t', 0, batch(2, 'a', base), APPEND);
    await e.rm.appendRecords('t', 0, batch(2, 'b', base + 5000), APPEND);
    await e.rm.appendRecords('t', 0, batch(1, 'c', base + 2000), APPEND);
    const q = (timestamp: number, version = 9) =>
      e.rm.listOffset('t', 0, { timestamp, currentLeaderEpoch: -1, isolationLevel: 0, replicaId: -1, version });
    assert.deepEqual(await q(-2), { errorCode: 0, timestamp: -1, offset: 0, leaderEpoch: 3 });
    assert.deepEqual(await q(-1), { errorCode: 0, timestamp: -1, offset: 5, leaderEpoch: 3 });
    assert.deepEqual(await q(base + 1000), { errorCode: 0, timestamp: base + 5000, offset: 2, leaderEpoch: 3 });
    assert.deepEqual(await q(base), { errorCode: 0, timestamp: base, offset: 0, leaderEpoch: 3 });
    assert.deepEqual(await q(base + 99_999), { errorCode: 0, timestamp: -1, offset: -1, leaderEpoch: -1 });
    const max = await q(-3);
    assert.equal(max.offset, 2);
    assert.equal(max.timestamp, base + 5000);
    assert.equal((await q(-3, 6)).errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.equal((await q(-4, 7)).errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.equal((await q(-7)).errorCode, ErrorCode.UNSUPPORTED_VERSION);
    assert.equal((await q(-1, 3)).leaderEpoch, -1); // no epochs before v4
    const fenced = await e.rm.listOffset('t', 0, {
      timestamp: -1,
      currentLeaderEpoch: 2,
      isolationLevel: 0,
      replicaId: -1,
      version: 9,
    });
    assert.equal(fenced.errorCode, ErrorCode.FENCED_LEADER_EPOCH);
    const v0 = await e.rm.legacyListOffsets('t', 0, -1, 10, -1);
    assert.deepEqual(v0, { errorCode: 0, offsets: [5, 0] });
    assert.deepEqual(await e.rm.legacyListOffsets('t', 0, -2, 10, -1), { errorCode: 0, offsets: [0] });
  } finally {
    await e.close();
  }
});

test('offset for leader epoch: epoch cache lookups, fencing, undefined epochs', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    await e.rm.appendRecords('t', 0, batch(3), APPEND);
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 3, {});
    await e.rm.appendRecords('t', 0, batch(2), APPEND);
    const q = (current: number, epoch: number) => e.rm.lastOffsetForLeaderEpoch('t', 0, current, epoch);
    assert.deepEqual(q(-1, 0), { errorCode: 0, leaderEpoch: 0, endOffset: 3 });
    assert.deepEqual(q(-1, 1), { errorCode: 0, leaderEpoch: 0, endOffset: 3 });
    assert.deepEqual(q(-1, 3), { errorCode: 0, leaderEpoch: 3, endOffset: 5 });
    assert.deepEqual(q(3, 3), { errorCode: 0, leaderEpoch: 3, endOffset: 5 });
    assert.deepEqual(q(-1, 7), { errorCode: 0, leaderEpoch: -1, endOffset: -1 });
    assert.deepEqual(q(-1, -1), { errorCode: 0, leaderEpoch: -1, endOffset: -1 });
    assert.equal(q(2, 0).errorCode, ErrorCode.FENCED_LEADER_EPOCH);
    assert.equal(q(4, 0).errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
    assert.equal(e.rm.lastOffsetForLeaderEpoch('x', 0, -1, 0).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const [res] = await e.rm.readFromLog(params(), [fetchReq('t', 0, 3)]);
    assert.equal(readBatchHeader(recordsInMemory(res!), 0).partitionLeaderEpoch, 3);
    // a follower whose last fetched epoch diverges learns where to truncate
    const [div] = await e.rm.readFromLog(params(), [{ ...fetchReq('t', 0, 4), lastFetchedEpoch: 1 }]);
    assert.deepEqual(div!.divergingEpoch, { epoch: 0, endOffset: 3 });
  } finally {
    await e.close();
  }
});

test('delete records: moves the log start offset, -1 means the HW, beyond the HW is out of range', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    for (let i = 0; i < 3; i++) await e.rm.appendRecords('t', 0, batch(2), APPEND);
    assert.deepEqual(await e.rm.deleteRecords('t', 0, 2), { errorCode: 0, lowWatermark: 2 });
    assert.deepEqual(await e.rm.deleteRecords('t', 0, 1), { errorCode: 0, lowWatermark: 2 });
    assert.deepEqual(await e.rm.deleteRecords('t', 0, 7), {
      errorCode: ErrorCode.OFFSET_OUT_OF_RANGE,
      lowWatermark: -1,
    });
    const [oor, ok] = await e.rm.readFromLog(params(), [fetchReq('t', 0, 0), fetchReq('t', 0, 2)]);
    assert.equal(oor!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    assert.equal(ok!.logStartOffset, 2);
    assert.deepEqual(offsetsOf(recordsInMemory(ok!)), [
      [2, 3],
      [4, 5],
    ]);
    assert.deepEqual(await e.rm.deleteRecords('t', 0, -1), { errorCode: 0, lowWatermark: 6 });
    assert.equal(
      (
        await e.rm.listOffset('t', 0, {
          timestamp: -2,
          currentLeaderEpoch: -1,
          isolationLevel: 0,
          replicaId: -1,
          version: 9,
        })
      ).offset,
      6,
    );
  } finally {
    await e.close();
  }
});

test('producer-state hook: a duplicate answers with its first offsets and appends nothing', async () => {
  const dir = await tempDir('tkafka-rm-');
  const seen: number[] = [];
  const hook: ProducerStateHook = {
    beforeAppend: (b) =>
      b.batch.baseSequence === 0 && seen.length > 0
        ? { kind: 'duplicate', baseOffset: seen[0]!, logAppendTime: -1 }
        : { kind: 'append' },
    afterAppend: (_b, first) => {
      seen.push(first);
    },
  };
  const rm = new ReplicaManager({ nodeId: 1, logs: new DirectoryLogStore(dir), producerState: hook });
  try {
    await rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    const b = () => buildRecordBatchSync({ records: recs(2), producerId: 9, producerEpoch: 0, baseSequence: 0 });
    assert.equal((await rm.appendRecords('t', 0, b(), APPEND)).baseOffset, 0);
    const dup = await rm.appendRecords('t', 0, b(), APPEND);
    assert.equal(dup.errorCode, ErrorCode.NONE);
    assert.equal(dup.baseOffset, 0);
    assert.equal(rm.partition('t', 0)!.logEndOffset, 2);
  } finally {
    await rm.shutdown();
    await removeDir(dir);
  }
});

test('partitions: recreated topics replace the log, deletePartitions removes the data', async () => {
  const e = await env();
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    await e.rm.appendRecords('t', 0, batch(2), APPEND);
    const again = await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {});
    assert.equal(again.logEndOffset, 2);
    const fresh = await e.rm.ensurePartition('t', OTHER_ID, 0, 0, {});
    assert.equal(fresh.logEndOffset, 0);
    assert.equal(e.rm.topicNameById(OTHER_ID), 't');
    assert.equal(e.rm.topicNameById(TOPIC_ID), undefined);
    await e.rm.deletePartitions([{ topic: 't', partition: 0 }]);
    assert.equal(e.rm.partition('t', 0), undefined);
  } finally {
    await e.close();
  }
});

test('byte ledger counts bytes between batch boundaries and forgets the oldest', () => {
  const l = new ByteLedger(10, 4);
  l.record(10, 12, 100);
  l.record(12, 15, 50);
  assert.equal(l.bytesBetween(10, 15), 150);
  assert.equal(l.bytesBetween(12, 15), 50);
  assert.equal(l.bytesBetween(15, 15), 0);
  l.record(15, 16, 1);
  l.record(16, 17, 1);
  assert.equal(l.bytesBetween(10, 17), Infinity);
  assert.equal(l.bytesBetween(12, 17), 52);
});

test('fetch session cache: stale sessions are evicted, fresh ones only by more valuable sessions', async () => {
  const { FetchSessionCache } = await import('../src/broker/replication/fetch-sessions.js');
  let now = 1_000_000;
  let id = 0;
  const cache = new FetchSessionCache({
    maxEntries: 2,
    evictionMs: 1000,
    clock: () => now,
    random: () => (++id % 1000) / 1000,
  });
  const entry = (p: number) => ({
    tp: { topic: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partition: p },
    data: { fetchOffset: 0, logStartOffset: -1, maxBytes: 100, currentLeaderEpoch: -1, lastFetchedEpoch: -1 },
  });
  const full = (parts: number[], follower = false) => {
    const ctx = cache.newContext(12, 0, 0, follower, parts.map(entry), [], () => undefined);
    return ctx.updateAndGenerateResponseData(
      ctx.partitions().map((e) => ({
        tp: e.tp,
        result: {
          errorCode: 0,
          highWatermark: 0,
          lastStableOffset: 0,
          logStartOffset: 0,
          records: Buffer.alloc(0),
          abortedTransactions: null,
          preferredReadReplica: -1,
        },
      })),
    ).sessionId;
  };
  const a = full([0]);
  const b = full([0, 1]);
  assert.ok(a > 0 && b > 0);
  assert.equal(full([0, 1, 2]), 0); // both fresh: nobody is evicted
  now += 1500; // both stale now: the least recently used goes
  const c = full([0]);
  assert.ok(c > 0);
  assert.equal(cache.get(a), undefined);
  assert.ok(cache.get(b));
  assert.equal(cache.size, 2);
  assert.equal(cache.evictionCount, 1);
  // a follower (privileged) session evicts an unprivileged one even when it is fresh
  const f = full([0], true);
  assert.ok(f > 0);
  assert.equal(cache.size, 2);
  assert.equal(
    cache.totalPartitions,
    cache.get(f)!.size + [...[b, c]].map((x) => cache.get(x)?.size ?? 0).reduce((x, y) => x + y, 0),
  );
});

test('purgatory: bounded, and completion removes every watcher and timer', async () => {
  const { DelayedOperation, DelayedOperationPurgatory } = await import('../src/broker/replication/purgatory.js');
  let ready = false;
  const completed: string[] = [];
  class Op extends DelayedOperation {
    constructor(
      readonly name: string,
      delay: number,
    ) {
      super(delay);
    }
    tryComplete(): boolean {
      return ready ? this.forceComplete() : false;
    }
    protected onComplete(): void {
      completed.push(this.name);
    }
  }
  const p = new DelayedOperationPurgatory<Op>('test', { maxOperations: 2 });
  assert.equal(p.tryCompleteElseWatch(new Op('a', 10_000), ['k1', 'k2'], 'c1'), false);
  assert.equal(p.tryCompleteElseWatch(new Op('b', 10_000), ['k2']), false);
  assert.equal(p.tryCompleteElseWatch(new Op('c', 10_000), ['k3']), true); // over the bound: completes at once
  assert.deepEqual(completed, ['c']);
  assert.equal(p.size, 2);
  assert.equal(p.checkAndComplete('k1'), 0);
  ready = true;
  assert.equal(p.checkAndComplete('k2'), 2);
  assert.deepEqual(completed.sort(), ['a', 'b', 'c']);
  assert.equal(p.size, 0);
  assert.equal(p.watched('k1') + p.watched('k2'), 0);
  assert.equal(p.cancelConnection('c1'), 0);
});

test('resolveConfig: one result per overrides and metadata image, for a Map of overrides as for an object', async () => {
  // the partition publisher passes the image's Map; JSON would print any Map as {}
  const image = { brokerConfigs: () => new Map<string, string>() } as unknown as MetadataImage;
  const dir = await tempDir('tkafka-rm-');
  const rm = new ReplicaManager({ nodeId: 1, logs: new DirectoryLogStore(dir), metadata: () => image });
  after(async () => {
    await rm.shutdown();
    await removeDir(dir);
  });
  const limited = rm.resolveConfig(new Map([['min.insync.replicas', '2']]));
  assert.equal(limited.policy.minInsyncReplicas, 2);
  assert.equal(rm.resolveConfig(new Map()).policy.minInsyncReplicas, 1);
  assert.equal(rm.resolveConfig({ 'min.insync.replicas': '2' }).policy.minInsyncReplicas, 2);
  assert.equal(rm.resolveConfig(new Map([['min.insync.replicas', '2']])), limited, 'computed once for this image');
});
