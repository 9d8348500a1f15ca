// Exactly-once end to end against a broker process: consume-transform-produce loops with
// sendOffsetsToTransaction in kafkajs and in librdkafka (confluent-kafka under /usr/bin/python3):
// 1,000 transactions, every 7th aborted (and its input retried in the next one). A read_committed
// consumer sees each input's output exactly once, a read_uncommitted one the aborted outputs too
// (never a control record), and the group's committed offset is where the last commit left it.
// Also: a second producer with the same transactional.id fences the first (kafkajs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import type { BrokerProcess } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';
import { startBroker as startTxnBroker } from './helpers/broker-process.js';

const { Kafka, logLevel } = kafkajs;
type KafkaT = InstanceType<typeof Kafka>;

const TRANSACTIONS = 1000;
const ABORT_EVERY = 7;

let broker: BrokerProcess;
let kafka: KafkaT;

before(async () => {
  broker = await startTxnBroker({
    overrides: {
      'offsets.topic.num.partitions': 3,
      'transaction.state.log.num.partitions': 3,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, clientId: 'txn-e2e' });
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

async function setup(input: string, output: string, records: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: input, numPartitions: 1 },
      { topic: output, numPartitions: 2 },
    ],
  });
  const p = kafka.producer();
  await p.connect();
  for (let i = 0; i < records; i += 100) {
    await p.send({
      topic: input,
      messages: Array.from({ length: Math.min(100, records - i) }, (_, j) => ({
        key: `k${i + j}`,
        value: `in-${i + j}`,
      })),
    });
  }
  await p.disconnect();
  await admin.disconnect();
}

/** Every record of a topic, read with the isolation level, until `expected` arrived and 1.5 s passed without more. */
async function readOutput(
  topic: string,
  readCommitted: boolean,
  expected: number,
): Promise<{ values: string[]; controlSeen: boolean }> {
  const consumer = kafka.consumer({ groupId: `verify-${topic}-${readCommitted}`, readUncommitted: !readCommitted });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[] = [];
  let controlSeen = false;
  let last = Date.now();
  await consumer.run({
    eachMessage: async ({ message }) => {
      if (message.value === null || (message.value.length === 6 && message.value.readInt16BE(0) === 0))
        controlSeen = true;
      values.push(message.value?.toString() ?? '<null>');
      last = Date.now();
    },
  });
  // the expected records, then a quiet 1.5 s: time is the point, a record after them would be one too many
  await waitFor(() => values.length >= expected && Date.now() - last >= 1500, {
    what: `${expected} records and then quiet`,
    timeoutMs: 60_000,
  }).catch(() => undefined); // the caller's assertions say what came
  await consumer.disconnect();
  return { values, controlSeen };
}

async function committedOffset(group: string, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const r = await admin.fetchOffsets({ groupId: group, topics: [topic] });
    return Number(r[0]!.partitions[0]!.offset);
  } finally {
    await admin.disconnect();
  }
}

/** What the loops must produce: the output values (committed and all) for TRANSACTIONS attempts. */
function expectedOutputs(): { committed: string[]; all: string[]; inputsCommitted: number } {
  const committed: string[] = [];
  const all: string[] = [];
  let input = 0;
  for (let t = 0; t < TRANSACTIONS; t++) {
    const v = `out-${input}-t${t}`;
    all.push(v);
    if (t % ABORT_EVERY === ABORT_EVERY - 1) continue; // aborted: the same input is retried
    committed.push(v);
    input++;
  }
  return { committed, all, inputsCommitted: input };
}

async function verify(output: string, group: string, input: string): Promise<void> {
  const want = expectedOutputs();
  const rc = await readOutput(output, true, want.committed.length);
  assert.equal(rc.controlSeen, false);
  assert.equal(rc.values.length, want.committed.length, 'read_committed: each committed record once');
  assert.deepEqual([...rc.values].sort(), [...want.committed].sort());
  const ru = await readOutput(output, false, want.all.length);
  assert.equal(ru.controlSeen, false, 'control batches are never delivered');
  assert.deepEqual([...ru.values].sort(), [...want.all].sort());
  assert.equal(await committedOffset(group, input), want.inputsCommitted);
}

test('kafkajs consume-transform-produce: 1,000 transactions, every 7th aborted', { timeout: 600_000 }, async () => {
  const input = 'js-in';
  const output = 'js-out';
  const group = 'js-eos';
  await setup(input, output, TRANSACTIONS);
  const producer = kafka.producer({ transactionalId: 'js-loop', maxInFlightRequests: 1, idempotent: true });
  await producer.connect();
  const consumer = kafka.consumer({ groupId: group, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  let txns = 0;
  let failure: unknown;
  const done = new Promise<void>((resolve) => {
    void consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, isRunning }) => {
        for (const message of batch.messages) {
          if (txns >= TRANSACTIONS || !isRunning()) return resolve();
          const n = Number(message.offset);
          for (let committed = false; !committed && txns < TRANSACTIONS;) {
            const t = txns++;
            try {
              const txn = await producer.transaction();
              await txn.send({ topic: output, messages: [{ key: message.key, value: `out-${n}-t${t}` }] });
              await txn.sendOffsets({
                consumerGroupId: group,
                topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: String(n + 1) }] }],
              });
              if (t % ABORT_EVERY === ABORT_EVERY - 1) await txn.abort();
              else {
                await txn.commit();
                committed = true;
              }
            } catch (e) {
              failure = e;
              return resolve();
            }
          }
          await heartbeat();
          if (txns >= TRANSACTIONS) return resolve();
        }
      },
    });
  });
  await done;
  await consumer.disconnect();
  await producer.disconnect();
  assert.equal(failure, undefined, String((failure as Error)?.stack ?? failure));
  assert.equal(txns, TRANSACTIONS);
  await verify(output, group, input);
});

const PY_LOOP = `
import sys
from confluent_kafka import Consumer, Producer, TopicPartition, KafkaException
bootstrap, inp, out, group, total, every = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'enable.auto.commit': False, 'auto.offset.reset': 'earliest',
              'isolation.level': 'read_committed'})
p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': 'py-loop', 'linger.ms': 0})
p.init_transactions(30)
c.subscribe([inp])
txns = 0
while txns < total:
    msg = c.poll(1.0)
    if msg is None: continue
    if msg.error(): raise KafkaException(msg.error())
    n = msg.offset()
    committed = False
    while not committed and txns < total:
        t = txns
        txns += 1
        p.begin_transaction()
        p.produce(out, key=msg.key(), value=('out-%d-t%d' % (n, t)).encode())
        p.send_offsets_to_transaction([TopicPartition(inp, msg.partition(), n + 1)], c.consumer_group_metadata(), 30)
        if t % every == every - 1:
            p.flush(30)  # written before the abort (librdkafka purges what is still queued)
            p.abort_transaction(30)
        else:
            p.commit_transaction(30)
            committed = True
print('transactions=%d' % txns)
c.close()
`;

test(
  'librdkafka (confluent-kafka) consume-transform-produce: 1,000 transactions, every 7th aborted',
  { timeout: 600_000 },
  async () => {
    const input = 'py-in';
    const output = 'py-out';
    const group = 'py-eos';
    await setup(input, output, TRANSACTIONS);
    const dir = mkdtempSync(join(tmpdir(), 'tkafka-eos-'));
    try {
      const script = join(dir, 'loop.py');
      writeFileSync(script, PY_LOOP);
      const r = await execa(
        '/usr/bin/python3',
        [script, broker.bootstrap, input, output, group, String(TRANSACTIONS), String(ABORT_EVERY)],
        { reject: false, timeout: 540_000 },
      );
      assert.equal(r.exitCode, 0, `${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, new RegExp(`transactions=${TRANSACTIONS}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await verify(output, group, input);
  },
);

test('a second producer with the same transactional.id fences the first', { timeout: 120_000 }, async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'fenced', numPartitions: 1 }] });
  await admin.disconnect();
  const first = kafka.producer({
    transactionalId: 'shared-id',
    maxInFlightRequests: 1,
    idempotent: true,
    retry: { retries: 2 },
  });
  await first.connect();
  const t1 = await first.transaction();
  await t1.send({ topic: 'fenced', messages: [{ value: 'from-first' }] });
  const second = kafka.producer({ transactionalId: 'shared-id', maxInFlightRequests: 1, idempotent: true });
  await second.connect();
  const t2 = await second.transaction();
  await t2.send({ topic: 'fenced', messages: [{ value: 'from-second' }] });
  await t2.commit();
  await assert.rejects(t1.commit(), (e: Error & { type?: string }) => {
    assert.match(`${e.type ?? ''} ${e.message}`, /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|fenced|epoch/i);
    return true;
  });
  await first.disconnect().catch(() => undefined);
  await second.disconnect();
  const rc = await readOutput('fenced', true, 1);
  assert.deepEqual(rc.values, ['from-second']);
});
