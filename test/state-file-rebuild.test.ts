// Issue 20, item 3: a corrupt index or state file is rebuilt from the log (or refused the way Kafka
// refuses it), never trusted blindly. One real broker process holds a partition written by a
// transactional producer (kafkajs; every third transaction aborted) and an idempotent producer
// (raw Produce requests with our own producer id, epoch and sequences), over three segments. Before
// each case the broker is stopped cleanly (`.kafka_cleanshutdown` is there, so no recovery runs on
// the next start), one file is corrupted (truncated mid-entry, random bytes, zero-filled; a wrong
// version line or random bytes for the text files), and the broker restarted: the log line naming
// the file appears, the file is rebuilt, and everything a client can observe is exactly what it was
// before the first stop: read_committed and read_uncommitted fetches over the whole log (record
// bytes, aborted transactions, high watermark, last stable offset), ListOffsets (earliest, latest,
// max timestamp, and by time for each transaction's timestamps, both isolation levels),
// DescribeProducers, and the idempotent producer's duplicate and out-of-order answers.
// Files Kafka refuses to trust (leader-epoch-checkpoint, partition.metadata: the log directory goes
// offline; quorum-state: fatal) stop the broker with Kafka's line naming the file; the file put back,
// it serves as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fsp, readdirSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch.js';
import { offsetIndexContentError } from '../src/storage/offset-index.js';
import { timeIndexContentError } from '../src/storage/time-index.js';
import { checkTransactionIndex } from '../src/storage/txn-index.js';
import { parseOffsetCheckpoint } from '../src/storage/checkpoint-file.js';

const { Kafka, logLevel } = kafkajs;

const TOPIC = 'rebuild';
const TRANSACTIONS = 66;
const RECORDS_PER_TXN = 20;
const VALUE_BYTES = 2000;
const T0 = Date.now() - 3_600_000;
const SEED = Number(process.env.REBUILD_SEED ?? 20);

let broker: BrokerProcess;
let partDir: string;
let logsDir: string;
/** what a client observes, captured once before the first corruption */
let expected: Observation;
/** the idempotent producer */
let pid = -1n;
let epoch = 0;
let nextSeq = 0;
let lastIdempotentBatch: Buffer | undefined;
let lastIdempotentOffset = '';

/** mulberry32: the seeded bytes of the "random bytes" corruptions */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = rng(SEED);

async function withClient<T>(fn: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(broker.port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

function idempotentBatch(seq: number, i: number): Buffer {
  return buildRecordBatchSync({
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    records: [0, 1, 2].map((k) => ({
      key: Buffer.from(`idem-${i}-${k}`),
      value: Buffer.from(`v${i}-${k}`.padEnd(100, '.')),
      timestamp: T0 + i * 1000 + 700,
    })),
  });
}

async function produceRaw(batch: Buffer): Promise<{ errorCode: number; baseOffset: string }> {
  return withClient(async (c) => {
    const r = await c.request(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 10_000,
      topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }],
    });
    const p = r.responses[0]!.partitionResponses[0]!;
    return { errorCode: p.errorCode, baseOffset: String(p.baseOffset) };
  });
}

interface Observation {
  fetches: Record<string, unknown>[];
  listOffsets: Record<string, unknown>[];
  producers: unknown;
  duplicate: unknown;
  outOfOrder: unknown;
}

/** Offset after the last whole batch of a fetched records buffer. */
function nextOffsetOf(records: Buffer, from: number): number {
  let next = from;
  for (let p = 0; p + 61 <= records.length;) {
    const size = records.readInt32BE(p + 8) + 12;
    if (p + size > records.length) break;
    next = Number(records.readBigInt64BE(p)) + records.readInt32BE(p + 23) + 1;
    p += size;
  }
  return next;
}

async function fetchAll(c: RawClient, isolationLevel: number): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let offset = 0;
  for (let i = 0; i < 200; i++) {
    const r = await c.request(ApiKey.Fetch, 12, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 4 << 20,
      isolationLevel,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: TOPIC,
          partitions: [{ partition: 0, fetchOffset: BigInt(offset), logStartOffset: -1n, partitionMaxBytes: 300_000 }],
        },
      ],
    });
    const p = r.responses[0]!.partitions[0]!;
    const records = (p.records as Buffer | null) ?? Buffer.alloc(0);
    out.push({
      isolationLevel,
      offset,
      errorCode: p.errorCode,
      highWatermark: String(p.highWatermark),
      lastStableOffset: String(p.lastStableOffset),
      logStartOffset: String(p.logStartOffset),
      aborted: (p.abortedTransactions ?? []).map((a) => `${a.producerId}@${a.firstOffset}`),
      bytes: records.length,
      sha: createHash('sha256').update(records).digest('hex'),
    });
    const end = isolationLevel === 1 ? Number(p.lastStableOffset) : Number(p.highWatermark);
    const next = nextOffsetOf(records, offset);
    if (p.errorCode !== 0 || next >= end || next === offset) break;
    offset = next;
  }
  return out;
}

async function observe(): Promise<Observation> {
  return withClient(async (c) => {
    const fetches = [...(await fetchAll(c, 0)), ...(await fetchAll(c, 1))];
    const timestamps = [-2n, -1n, -3n];
    for (let i = 0; i < TRANSACTIONS; i += 5) timestamps.push(BigInt(T0 + i * 1000 + 500), BigInt(T0 + i * 1000 + 700));
    const listOffsets: Record<string, unknown>[] = [];
    for (const isolationLevel of [0, 1]) {
      // one request per timestamp: a partition asked twice in one request is INVALID_REQUEST
      for (const timestamp of timestamps) {
        const r = await c.request(ApiKey.ListOffsets, 9, {
          replicaId: -1,
          isolationLevel,
          timeoutMs: 10_000,
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
        });
        const p = r.topics[0]!.partitions[0]!;
        listOffsets.push({
          isolationLevel,
          asked: String(timestamp),
          errorCode: p.errorCode,
          timestamp: String(p.timestamp),
          offset: String(p.offset),
          leaderEpoch: p.leaderEpoch,
        });
      }
    }
    const d = await c.request(ApiKey.DescribeProducers, 0, { topics: [{ name: TOPIC, partitionIndexes: [0] }] });
    const dp = d.topics[0]!.partitions[0]!;
    const producers = {
      errorCode: dp.errorCode,
      active: dp.activeProducers
        .map((a) => ({
          producerId: String(a.producerId),
          producerEpoch: a.producerEpoch,
          lastSequence: a.lastSequence,
          lastTimestamp: String(a.lastTimestamp),
          coordinatorEpoch: a.coordinatorEpoch,
          currentTxnStartOffset: String(a.currentTxnStartOffset),
        }))
        .sort((x, y) => x.producerId.localeCompare(y.producerId)),
    };
    const duplicate = await produceRaw(lastIdempotentBatch!);
    const outOfOrder = await produceRaw(idempotentBatch(nextSeq + 5, 999));
    return { fetches, listOffsets, producers, duplicate, outOfOrder };
  });
}

/** The broker serves the partition again with everything it had. */
async function settled(): Promise<void> {
  const hw = (expected.fetches[0] as { highWatermark: string }).highWatermark;
  await waitFor(
    () =>
      withClient(async (c) => {
        const r = await c.request(ApiKey.ListOffsets, 9, {
          replicaId: -1,
          isolationLevel: 0,
          timeoutMs: 5_000,
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        });
        const p = r.topics[0]!.partitions[0]!;
        return p.errorCode === 0 && String(p.offset) === hw;
      }),
    { what: `partition ${TOPIC}-0 served up to ${hw}`, timeoutMs: 60_000 },
  );
}

/** Stops the broker cleanly; the text checkpoints it left parse (a rebuilt one included). */
async function stopCleanly(): Promise<void> {
  await broker.stop();
  await fsp.access(join(logsDir, '.kafka_cleanshutdown'));
  parseOffsetCheckpoint(await fsp.readFile(join(logsDir, 'log-start-offset-checkpoint'), 'utf8'));
  // (log-start-offset-checkpoint names only logs whose start is past their first segment's base)
  for (const f of ['recovery-point-offset-checkpoint', 'replication-offset-checkpoint']) {
    const text = await fsp.readFile(join(logsDir, f), 'utf8');
    assert.ok(
      parseOffsetCheckpoint(text, f).some((e) => e.topic === TOPIC),
      `${f} names ${TOPIC}-0 after a clean stop`,
    );
  }
}

function segmentFiles(ext: string): string[] {
  return readdirSync(partDir)
    .filter((n) => n.endsWith(ext))
    .sort();
}

before(async () => {
  broker = await startBroker({
    overrides: {
      'offsets.topic.num.partitions': 1,
      'transaction.state.log.num.partitions': 1,
    },
  });
  logsDir = join(broker.dataDir, 'logs');
  partDir = join(logsDir, `${TOPIC}-0`);
  await withClient(async (c) => {
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: [
            { name: 'segment.bytes', value: '1048576' },
            { name: 'index.interval.bytes', value: '1000' },
          ],
        },
      ],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.equal(r.topics[0]!.errorCode, 0);
    const init = await c.request(ApiKey.InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    assert.equal(init.errorCode, 0);
    pid = init.producerId;
    epoch = init.producerEpoch;
  });
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, clientId: 'rebuild' });
  const producer = kafka.producer({ transactionalId: 'rebuild-tx', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const value = Buffer.alloc(VALUE_BYTES, 'x');
  for (let i = 0; i < TRANSACTIONS; i++) {
    const txn = await producer.transaction();
    await txn.send({
      topic: TOPIC,
      messages: Array.from({ length: RECORDS_PER_TXN }, (_, k) => ({
        key: `t${i}-${k}`,
        value,
        timestamp: String(T0 + i * 1000 + k),
      })),
    });
    if (i % 3 === 2) await txn.abort();
    else await txn.commit();
    lastIdempotentBatch = idempotentBatch(nextSeq, i);
    const r = await produceRaw(lastIdempotentBatch);
    assert.equal(r.errorCode, 0, `idempotent batch ${i}`);
    lastIdempotentOffset = r.baseOffset;
    nextSeq += 3;
  }
  await producer.disconnect();
  expected = await observe();
  // the data is what the cases need: several segments, aborted transactions in the first one
  assert.ok(segmentFiles('.log').length >= 3, `segments: ${segmentFiles('.log').join(' ')}`);
  assert.ok((await fsp.stat(join(partDir, segmentFiles('.txnindex')[0]!))).size >= 34 * 3);
  assert.ok(
    expected.fetches.some((f) => (f.aborted as string[]).length > 0),
    'read_committed fetches name aborted transactions',
  );
  assert.deepEqual(
    expected.duplicate,
    { errorCode: 0, baseOffset: lastIdempotentOffset },
    'a duplicate is answered with its offset',
  );
  assert.equal((expected.outOfOrder as { errorCode: number }).errorCode, 45, 'OUT_OF_ORDER_SEQUENCE_NUMBER');
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

type Corruption = 'truncated mid-entry' | 'random bytes' | 'zero-filled';

async function corrupt(file: string, how: Corruption, entrySize: number): Promise<void> {
  const size = (await fsp.stat(file)).size;
  assert.ok(size >= entrySize, `${file} has an entry to corrupt (${size} bytes)`);
  if (how === 'truncated mid-entry') await fsp.truncate(file, size - Math.ceil(entrySize / 2));
  else if (how === 'zero-filled') await fsp.writeFile(file, Buffer.alloc(size));
  else await fsp.writeFile(file, Buffer.from(Array.from({ length: size }, () => Math.floor(random() * 256))));
}

/** Restarts and waits for the partition; returns the output of this start. */
async function restart(): Promise<string> {
  const from = broker.output().length;
  await broker.restart();
  await settled();
  return broker.output().slice(from);
}

const FIRST = '00000000000000000000';

for (const kind of [
  { ext: '.index', entry: 8, check: (f: string, b: Buffer, size: number) => offsetIndexContentError(f, b, 0, size) },
  { ext: '.timeindex', entry: 12, check: (f: string, b: Buffer) => timeIndexContentError(f, b, 0) },
  {
    ext: '.txnindex',
    entry: 34,
    check: (f: string, b: Buffer) => {
      checkTransactionIndex(b, f, 0);
      return undefined;
    },
  },
]) {
  for (const how of ['truncated mid-entry', 'random bytes', 'zero-filled'] as const) {
    test(`${kind.ext} of the first segment ${how}: rebuilt from the log, clients see the same`, async () => {
      await stopCleanly();
      const file = join(partDir, FIRST + kind.ext);
      const original = await fsp.readFile(file);
      await corrupt(file, how, kind.entry);
      const out = await restart();
      assert.match(
        out,
        new RegExp(
          `Found a corrupted index file corresponding to log file ${join(partDir, FIRST)}\\.log due to .*, recovering segment and rebuilding index files\\.\\.\\.`,
        ),
      );
      const rebuilt = await fsp.readFile(file);
      const logSize = (await fsp.stat(join(partDir, FIRST + '.log'))).size;
      assert.equal(kind.check(file, rebuilt, logSize), undefined, `${file} is sane again`);
      assert.ok(rebuilt.equals(original), `${file} rebuilt as it was (${rebuilt.length} vs ${original.length} bytes)`);
      assert.deepEqual(await observe(), expected);
    });
  }
}

for (const how of ['truncated mid-entry', 'random bytes', 'zero-filled'] as const) {
  test(`newest producer .snapshot ${how}: deleted, producer state rebuilt from the log`, async () => {
    await stopCleanly();
    const snaps = segmentFiles('.snapshot');
    assert.ok(snaps.length >= 2, `snapshots: ${snaps.join(' ')}`);
    const file = join(partDir, snaps[snaps.length - 1]!);
    const original = await fsp.readFile(file);
    await corrupt(file, how, 64);
    const out = await restart();
    assert.match(out, new RegExp(`Failed to load producer snapshot from '${file}': `));
    assert.ok((await fsp.readFile(file)).equals(original), 'the snapshot at the log end offset is written again');
    assert.deepEqual(await observe(), expected);
  });
}

for (const [name, line] of [
  [
    'recovery-point-offset-checkpoint',
    `Error occurred while reading recovery-point-offset-checkpoint file of directory ${'LOGS'}, resetting the recovery checkpoint to 0`,
  ],
  [
    'log-start-offset-checkpoint',
    `Error occurred while reading log-start-offset-checkpoint file of directory ${'LOGS'}, resetting to the base offset of the first segment`,
  ],
] as const) {
  for (const how of ['wrong version line', 'random bytes'] as const) {
    test(`${name} with a ${how}: ignored as Kafka does, rewritten, clients see the same`, async () => {
      await stopCleanly();
      const file = join(logsDir, name);
      const text = await fsp.readFile(file, 'utf8');
      if (how === 'wrong version line') await fsp.writeFile(file, text.replace(/^0\n/, '1\n'));
      else await corrupt(file, 'random bytes', 1);
      const out = await restart();
      assert.ok(out.includes(line.replace('LOGS', logsDir)), `the broker logged: ${line}`);
      assert.deepEqual(await observe(), expected);
    });
  }
}

for (const c of [
  {
    name: 'leader-epoch-checkpoint',
    file: () => join(partDir, 'leader-epoch-checkpoint'),
    line: 'Error while reading checkpoint file',
  },
  {
    name: 'partition.metadata',
    file: () => join(partDir, 'partition.metadata'),
    line: 'Error while reading partition metadata file',
  },
  {
    name: 'quorum-state',
    file: () => join(logsDir, '__cluster_metadata-0', 'quorum-state'),
    line: 'Error while reading the Quorum status from the file',
  },
]) {
  test(`${c.name} with random bytes: the broker stops naming the file; put back, it serves as before`, async () => {
    await stopCleanly();
    const file = c.file();
    const original = await fsp.readFile(file);
    await corrupt(file, 'random bytes', 1);
    const from = broker.output().length;
    await assert.rejects(broker.restart(), /broker exited before serving/);
    assert.ok(broker.output().slice(from).includes(`${c.line} ${file}`), `the broker logged "${c.line} ${file}"`);
    await fsp.writeFile(file, original);
    await broker.restart();
    await settled();
    assert.deepEqual(await observe(), expected);
  });
}
