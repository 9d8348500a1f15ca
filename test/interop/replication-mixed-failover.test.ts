// Issue 15's mixed replication under a leader kill: two tkafka brokers (2, 3) and an Apache Kafka
// 4.4.0 broker (4) on a Kafka 4.4.0 controller, one RF=3 topic (min.insync.replicas=2) whose
// partitions are replicated across both kinds (--replica-assignment 4:2:3,2:4:3: partition 0 led by
// Kafka's broker, partition 1 by a tkafka broker). The repo's idempotent acks=all producer writes
// numbered records to both partitions throughout. Round 1 kills (SIGKILL) the Kafka leader, round 2
// the tkafka leader: after each the ISR keeps the survivors, a new leader is elected, the producer
// goes on, and the restarted broker rejoins the ISR. At the end a consumer reads every acknowledged
// record exactly once, in order, at its acknowledged offset (ledger check). Then a partition whose only
// replica is killed: Kafka's controller leaves it as tkafka's does (replication-tools.test.ts), and
// kafka-topics.sh and tkafka topics print the same line for it.
//
// Kafka's controller is formatted with the features tkafka does not implement at 0 (as
// cluster-mixed.test.ts explains).
//
//   npm run build && nice -n 19 node --test dist/test/interop/replication-mixed-failover.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { waitForUnfenced, type Cluster } from '../helpers/cluster.js';
import {
  createReplicatedTopic,
  topicPartitions,
  waitAllPartitions,
  type PartitionInfo,
} from '../helpers/replication.js';
import { LedgerProducer, ledgerViolation, readPartitions } from '../helpers/ledger.js';
import { waitFor } from '../helpers/wait-for.js';
import { startMixedBrokerCluster } from './helpers/kafka-cluster.js';
import { describeBoth } from './helpers/topics-describe.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const TKAFKA = [2, 3];
const KAFKA_BROKER = 4;
const BROKERS = [...TKAFKA, KAFKA_BROKER];
const TOPIC = 'ledger';
/** Partition → replicas (the first leads). */
const ASSIGNMENT = [
  [KAFKA_BROKER, 2, 3],
  [2, KAFKA_BROKER, 3],
];

let cluster: Cluster;

before(async () => {
  cluster = await startMixedBrokerCluster({
    tkafkaBrokers: TKAFKA,
    kafkaBrokers: [KAFKA_BROKER],
    controllerOverrides: { 'broker.session.timeout.ms': 6000 },
    brokerOverrides: { 'broker.heartbeat.interval.ms': 1000, 'replica.lag.time.max.ms': 5000 },
  });
});

after(async () => {
  await cluster?.cleanup();
});

const allBootstrap = (): string[] => BROKERS.map((id) => `127.0.0.1:${cluster.node(id).port}`);
const impl = (id: number): string => cluster.node(id).impl;

/**
 * Kills the leader of `partition` while the ledger producer writes; asserts the ISR keeps the
 * survivors, a new leader is elected among them and the producer goes on; restarts the broker and
 * waits until it is back in every ISR. Returns the figures.
 */
async function killLeader(ledger: LedgerProducer, partition: number, expectImpl: string): Promise<string> {
  const before = (await topicPartitions(cluster.node(TKAFKA[0]!).port, TOPIC))!;
  const leaderId = before[partition]!.leader;
  assert.equal(impl(leaderId), expectImpl, `partition ${partition} is led by a ${expectImpl} broker`);
  await ledger.progress(partition, 50);
  const victim = cluster.node(leaderId);
  await victim.kill();
  const killedAt = Date.now();
  const survivors = BROKERS.filter((id) => id !== leaderId);
  const after = await waitAllPartitions(
    cluster,
    TOPIC,
    `a leader other than ${leaderId}, ISR = the survivors`,
    (p) => p.leader >= 0 && p.leader !== leaderId && [...p.isr].sort().join() === survivors.join(),
  );
  const electedMs = Date.now() - killedAt;
  for (const [i, p] of after.entries())
    if (before[i]!.leader === leaderId) assert.ok(p.leaderEpoch > before[i]!.leaderEpoch, `p${i}: a new leader epoch`);
  const newLeader = after[partition]!.leader;
  assert.ok(before[partition]!.isr.includes(newLeader), 'the new leader was in the ISR');
  // the producer goes on, on both partitions
  const resumedMs = Math.max(await ledger.progress(partition, 50), await ledger.progress(1 - partition, 50));
  await victim.start();
  const restartedAt = Date.now();
  await waitForUnfenced(cluster, { ids: BROKERS, timeoutMs: 120_000 });
  const back = await waitAllPartitions(
    cluster,
    TOPIC,
    `${leaderId} back in every ISR`,
    (p) => p.isr.length === 3,
    120_000,
  );
  const rejoinMs = Date.now() - restartedAt;
  await ledger.progress(partition, 20);
  const show = (ps: PartitionInfo[]): string =>
    ps.map((p, i) => `p${i} leader ${p.leader} isr ${p.isr.join(',')}`).join('; ');
  return (
    `killed ${expectImpl} broker ${leaderId} (leader of p${partition}): ${show(after)} after ${electedMs} ms; ` +
    `new leader ${newLeader} (${impl(newLeader)}); producer went on ${resumedMs} ms later; ` +
    `restarted, back in every ISR after ${rejoinMs} ms: ${show(back)}`
  );
}

test('leader kills in a mixed cluster (Kafka leader, then tkafka leader): no acknowledged record lost, duplicated or reordered', async (t) => {
  const port = cluster.node(2).port;
  // null: no answer within the helper's bound (a slow forwarded CreateTopics), asked again
  const { code } = await waitFor(
    async () => {
      const answer = await createReplicatedTopic(port, TOPIC, {
        replicationFactor: 3,
        assignments: ASSIGNMENT,
        configs: { 'min.insync.replicas': '2' },
      });
      return answer === null ? null : { code: answer };
    },
    { what: `an answer to CreateTopics ${TOPIC}`, timeoutMs: 60_000, intervalMs: 500 },
  );
  assert.ok(code === ErrorCode.NONE || code === ErrorCode.TOPIC_ALREADY_EXISTS, `CreateTopics ${TOPIC}: error ${code}`);
  const created = await waitAllPartitions(
    cluster,
    TOPIC,
    'preferred leaders, three in sync',
    (p, i) => p.leader === ASSIGNMENT[i]![0] && p.isr.length === 3,
  );
  assert.deepEqual(
    created.map((p) => p.replicas),
    ASSIGNMENT,
  );
  const ledger = new LedgerProducer(allBootstrap(), TOPIC, [0, 1]);
  ledger.start();
  let ended = false;
  try {
    t.diagnostic(await killLeader(ledger, 0, 'kafka'));
    t.diagnostic(await killLeader(ledger, 1, 'tkafka'));
    await ledger.stop();
    ended = true;
  } finally {
    if (!ended) await ledger.stop();
  }
  assert.deepEqual(ledger.failed, [], 'every send acknowledged');
  const ends = new Map([0, 1].map((p) => [p, (ledger.acked.get(p)!.at(-1)?.offset ?? -1n) + 1n]));
  const read = await readPartitions(allBootstrap(), TOPIC, ends);
  for (const p of [0, 1]) {
    const acked = ledger.acked.get(p)!;
    assert.equal(ledgerViolation(acked, read.get(p)!), null, `partition ${p}`);
    t.diagnostic(`p${p}: ${acked.length} acknowledged records, all read back once, in order`);
  }
});

test("a partition whose only replica is down, on Kafka's controller: no leader, ISR empty, the replica in ELR and last known ELR (as tkafka's controller leaves it)", async () => {
  const solo = 'solo';
  const { code } = await waitFor(
    async () => {
      const answer = await createReplicatedTopic(cluster.node(2).port, solo, {
        replicationFactor: 1,
        assignments: [[3]],
      });
      return answer === null ? null : { code: answer };
    },
    { what: `an answer to CreateTopics ${solo}`, timeoutMs: 60_000, intervalMs: 500 },
  );
  assert.ok(code === ErrorCode.NONE || code === ErrorCode.TOPIC_ALREADY_EXISTS, `CreateTopics ${solo}: error ${code}`);
  await waitAllPartitions(cluster, solo, 'led by 3', (p) => p.leader === 3);
  const down = cluster.node(3);
  await down.kill();
  try {
    await waitAllPartitions(cluster, solo, 'no leader', (p) => p.leader === -1);
    const running = BROKERS.filter((id) => id !== 3)
      .map((id) => `127.0.0.1:${cluster.node(id).port}`)
      .join(',');
    const lines = await describeBoth(
      'solo replica down, Kafka controller',
      running,
      [solo],
      ['--unavailable-partitions'],
    );
    assert.deepEqual(lines, [
      `\tTopic: ${solo}\tPartition: 0\tLeader: none\tReplicas: 3\tIsr: \tElr: 3\tLastKnownElr: 3`,
    ]);
  } finally {
    await down.start();
  }
  await waitAllPartitions(cluster, solo, 'led by 3 again', (p) => p.leader === 3 && p.isr.length === 1);
});
