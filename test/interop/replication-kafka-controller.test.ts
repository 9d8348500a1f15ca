// Issue 15's mixed replication: three tkafka brokers and one Apache Kafka 4.4.0 broker on an Apache
// Kafka 4.4.0 controller. Kafka's controller is the other side of tkafka's AlterPartition: an RF=3
// partition on tkafka brokers shrinks its ISR when a follower is SIGSTOPped past
// replica.lag.time.max.ms (acks=all completes on the smaller ISR) and expands it again after
// SIGCONT, every log ending byte-identical. Then a Kafka broker and tkafka brokers share RF=3
// partitions: a Kafka follower of a tkafka leader, and tkafka followers of a Kafka leader.
//
// Kafka's controller is formatted with the features tkafka does not implement at 0 (as
// cluster-mixed.test.ts explains).
//
//   npm run build && nice -n 19 node --test dist/test/interop/replication-kafka-controller.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { type Cluster } from '../helpers/cluster.js';
import { createReplicatedTopic, logRecords, produceAll, waitIdentical, waitPartition } from '../helpers/replication.js';
import { startMixedBrokerCluster } from './helpers/kafka-cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const TKAFKA = [2, 3, 4];
const KAFKA_BROKER = 5;

let cluster: Cluster;

before(async () => {
  cluster = await startMixedBrokerCluster({
    tkafkaBrokers: TKAFKA,
    kafkaBrokers: [KAFKA_BROKER],
    // a stopped follower must leave the ISR by AlterPartition, not by being fenced
    controllerOverrides: { 'broker.session.timeout.ms': 30_000 },
    brokerOverrides: { 'replica.lag.time.max.ms': 3000, 'broker.heartbeat.interval.ms': 1000 },
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('tkafka brokers on a Kafka controller: the ISR shrinks past replica.lag.time.max.ms and expands again (AlterPartition)', async (t) => {
  const port = cluster.node(2).port;
  const began = Date.now();
  assert.equal(
    await createReplicatedTopic(port, 'isr', { replicationFactor: 3, assignment: [2, 3, 4] }),
    ErrorCode.NONE,
  );
  await waitPartition(cluster, 'isr', 'led by 2, three in sync', (x) => x.leader === 2 && x.isr.length === 3);
  t.diagnostic(`topic created and in sync after ${Date.now() - began} ms`);
  const produced = Date.now();
  const first = await produceAll(
    cluster,
    'isr',
    Array.from({ length: 50 }, (_, i) => `a-${i}`),
    -1,
  );
  const tk = TKAFKA.map((id) => cluster.node(id));
  await waitIdentical('isr', tk, 50);
  t.diagnostic(`50 acks=all records on three tkafka replicas after ${Date.now() - produced} ms`);
  const stopped = cluster.node(4);
  process.kill(stopped.pid()!, 'SIGSTOP');
  let second: Map<number, string>;
  try {
    // acks=all completes once the stopped follower is out of the ISR
    const started = Date.now();
    second = await produceAll(
      cluster,
      'isr',
      Array.from({ length: 20 }, (_, i) => `b-${i}`),
      -1,
      [cluster.node(2)],
    );
    const waited = Date.now() - started;
    const shrunk = await waitPartition(cluster, 'isr', 'ISR without 4', (x) => !x.isr.includes(4));
    assert.deepEqual([...shrunk.isr].sort(), [2, 3]);
    assert.ok(waited >= 2000 && waited < 20_000, `acks=all waited ${waited} ms for the shrink`);
    t.diagnostic(`acks=all answered ${waited} ms after the follower stopped (replica.lag.time.max.ms 3000)`);
    assert.match(cluster.node(2).logs(200_000), /Shrinking ISR of isr-0 from 2,3,4 to 2,3/);
  } finally {
    process.kill(stopped.pid()!, 'SIGCONT');
  }
  const resumed = Date.now();
  // asked of the leader: the resumed broker's own stale image still lists 4 in the ISR
  await waitPartition(cluster, 'isr', 'ISR with 4 again', (x) => x.isr.includes(4), 60_000, [cluster.node(2)]);
  t.diagnostic(`ISR: 4 back ${Date.now() - resumed} ms after SIGCONT`);
  // the leader's AlterPartition did it, both ways (not Kafka's controller fencing the stopped broker,
  // which broker.session.timeout.ms keeps from happening this soon); the image may commit an ISR
  // before the answer does, so the answer's own log line is not asked for
  assert.match(cluster.node(2).logs(400_000), /Expanding ISR of isr-0 from 2,3 to 2,3,4/);
  const bytes = await waitIdentical('isr', tk, 70);
  const records = logRecords(bytes);
  for (const [offset, value] of [...first, ...second]) assert.equal(records.get(offset), value);
});

test('a Kafka broker follows a tkafka leader, and tkafka brokers follow a Kafka leader', async () => {
  const port = cluster.node(2).port;
  for (const [topic, assignment] of [
    ['kafka-follows', [2, KAFKA_BROKER, 3]],
    ['tkafka-follows', [KAFKA_BROKER, 3, 4]],
  ] as const) {
    assert.equal(
      await createReplicatedTopic(port, topic, { replicationFactor: 3, assignment: [...assignment] }),
      ErrorCode.NONE,
    );
    await waitPartition(
      cluster,
      topic,
      `led by ${assignment[0]}`,
      (x) => x.leader === assignment[0] && x.isr.length === 3,
    );
    const acked = await produceAll(
      cluster,
      topic,
      Array.from({ length: 100 }, (_, i) => `${topic}-${i}`),
      -1,
    );
    const bytes = await waitIdentical(
      topic,
      assignment.map((id) => cluster.node(id)),
      100,
    );
    const records = logRecords(bytes);
    for (const [offset, value] of acked) assert.equal(records.get(offset), value);
  }
});
