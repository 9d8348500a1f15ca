// Partition replication between tkafka brokers (issue 15), every node a real `tkafka server start`
// process: one controller-only node and three broker-only nodes, RF=3 topics. The repo's producer
// writes with acks=all; every replica's log ends up byte-identical (the segment files compared);
// kill -9 of the leader elects another ISR member and no acknowledged record is lost; a leader that
// took acks=1 writes its followers never saw truncates that suffix when it returns as a follower
// (diverging epoch); acks=all is refused with NOT_ENOUGH_REPLICAS once the ISR is below
// min.insync.replicas.
//
//   npm run build && nice -n 19 node --test dist/test/replication-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { waitFor } from './helpers/wait-for.js';
import {
  createReplicatedTopic,
  logBytes,
  logRecords,
  produceAll as produceAllTo,
  produceRaw,
  waitIdentical,
  waitPartition as waitPartitionOf,
  type PartitionInfo,
} from './helpers/replication.js';
import { ErrorCode } from '../src/protocol/errors.js';

let cluster: Cluster;
const BROKERS = [2, 3, 4];

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [{ id: 1, roles: 'controller' }, ...BROKERS.map((id) => ({ id, roles: 'broker' as const }))],
    controllerOverrides: { 'broker.session.timeout.ms': 6000 },
    brokerOverrides: { 'broker.heartbeat.interval.ms': 500, 'replica.fetch.backoff.ms': 200 },
  });
  await waitForUnfenced(cluster, { ids: BROKERS });
});

after(async () => {
  await cluster?.cleanup();
});

const waitPartition = (topic: string, what: string, pred: (p: PartitionInfo) => boolean) =>
  waitPartitionOf(cluster, topic, what, pred);
const produceAll = (topic: string, values: readonly string[], acks: number) =>
  produceAllTo(cluster, topic, values, acks);

test('RF=3: acks=all writes reach every replica, byte for byte; the ISR is all three', async (t) => {
  assert.equal(await createReplicatedTopic(cluster.node(2).port, 'r3', { replicationFactor: 3 }), ErrorCode.NONE);
  const p = await waitPartition('r3', 'a leader', (x) => x.leader >= 0 && x.isr.length === 3);
  assert.deepEqual([...p.replicas].sort(), BROKERS);
  const values = Array.from({ length: 300 }, (_, i) => `v-${i}`);
  const started = Date.now();
  const acked = await produceAll('r3', values, -1);
  const producedMs = Date.now() - started;
  assert.equal(acked.size, 300);
  const bytes = await waitIdentical('r3', cluster.brokers, 300);
  t.diagnostic(
    `300 records, acks=all, RF=3: acknowledged in ${producedMs} ms, identical everywhere after ${Date.now() - started} ms`,
  );
  const records = logRecords(bytes);
  for (const [offset, value] of acked) assert.equal(records.get(offset), value, `offset ${offset}`);
});

test('kill -9 of the leader: a new leader from the ISR, no acknowledged record lost; the old one catches up on return', async () => {
  const before = await waitPartition('r3', 'three in sync', (x) => x.isr.length === 3);
  const acked = await produceAll(
    'r3',
    Array.from({ length: 100 }, (_, i) => `k-${i}`),
    -1,
  );
  const old = cluster.node(before.leader);
  await old.kill();
  const after = await waitPartition('r3', 'a new leader', (x) => x.leader >= 0 && x.leader !== before.leader);
  assert.ok(after.leaderEpoch > before.leaderEpoch);
  assert.ok(before.isr.includes(after.leader));
  // everything acknowledged is on the new leader
  const onLeader = logRecords(logBytes(cluster.node(after.leader), 'r3'));
  for (const [offset, value] of acked) assert.equal(onLeader.get(offset), value, `offset ${offset} on the new leader`);
  // the survivors take acks=all writes (ISR 2 >= min.insync.replicas 1)
  const more = await produceAll(
    'r3',
    Array.from({ length: 50 }, (_, i) => `m-${i}`),
    -1,
  );
  await old.start();
  await waitForUnfenced(cluster, { ids: BROKERS });
  const bytes = await waitIdentical('r3', cluster.brokers, 450);
  const all = logRecords(bytes);
  for (const [offset, value] of [...acked, ...more]) assert.equal(all.get(offset), value);
  // (back into the ISR takes an AlterPartition: test/interop/replication-kafka-controller.test.ts)
});

test('a leader that took acks=1 writes its followers never fetched truncates them when it returns', async () => {
  assert.equal(await createReplicatedTopic(cluster.node(2).port, 'diverge', { replicationFactor: 3 }), ErrorCode.NONE);
  const p = await waitPartition('diverge', 'three in sync', (x) => x.leader >= 0 && x.isr.length === 3);
  const acked = await produceAll(
    'diverge',
    Array.from({ length: 20 }, (_, i) => `a-${i}`),
    -1,
  );
  const leader = cluster.node(p.leader);
  const followers = p.replicas.filter((id) => id !== p.leader).map((id) => cluster.node(id));
  await waitIdentical('diverge', cluster.brokers, 20);
  // the followers stop (briefly: below broker.session.timeout.ms); the leader alone takes acks=1 writes
  for (const f of followers) process.kill(f.pid()!, 'SIGSTOP');
  let code: number | null;
  try {
    // the fetches the followers left parked at the leader expire (replica.fetch.wait.max.ms, 500 ms):
    // nothing observable to wait for, and an answer to one of them would carry the new records
    await new Promise((resolve) => setTimeout(resolve, 1500));
    code = await produceRaw(
      leader.port,
      'diverge',
      Array.from({ length: 10 }, (_, i) => `lost-${i}`),
      { acks: 1 },
    );
    assert.equal(code, ErrorCode.NONE);
    assert.equal(logRecords(logBytes(leader, 'diverge')).size, 30);
    await leader.kill();
  } finally {
    for (const f of followers) process.kill(f.pid()!, 'SIGCONT');
  }
  const q = await waitPartition('diverge', 'a new leader', (x) => x.leader >= 0 && x.leader !== p.leader);
  assert.ok(q.leaderEpoch > p.leaderEpoch);
  const after = await produceAll(
    'diverge',
    Array.from({ length: 5 }, (_, i) => `b-${i}`),
    -1,
  );
  await leader.start();
  await waitForUnfenced(cluster, { ids: BROKERS });
  const bytes = await waitIdentical('diverge', cluster.brokers, 25);
  const records = logRecords(bytes);
  for (const [offset, value] of [...acked, ...after]) assert.equal(records.get(offset), value);
  assert.ok(![...records.values()].some((v) => v.startsWith('lost-')), 'the unacknowledged suffix is gone');
  assert.match(leader.logs(200_000), /Truncat\w+ diverge-0 to offset 20\b/);
});

test('acks=all below min.insync.replicas: NOT_ENOUGH_REPLICAS', async () => {
  assert.equal(
    await createReplicatedTopic(cluster.node(2).port, 'strict', {
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '3' },
    }),
    ErrorCode.NONE,
  );
  const p = await waitPartition('strict', 'three in sync', (x) => x.leader >= 0 && x.isr.length === 3);
  const leader = cluster.node(p.leader);
  // the leader's own image may lag the broker that answered: until it leads, NOT_LEADER_OR_FOLLOWER
  await waitFor(async () => (await produceRaw(leader.port, 'strict', ['one'], { acks: -1 })) === ErrorCode.NONE, {
    what: 'an acks=all write with all three in sync',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  const follower = cluster.node(p.replicas.find((id) => id !== p.leader)!);
  await follower.kill();
  try {
    // fenced after broker.session.timeout.ms: the controller takes it out of the ISR
    await waitPartition('strict', 'two in the ISR', (x) => x.isr.length === 2 && x.leader === p.leader);
    // the broker that answered may be ahead of the leader, whose partition learns the ISR from its own
    // image: until then an acks=all write waits for the killed follower and times out
    await waitFor(
      async () =>
        (await produceRaw(leader.port, 'strict', ['two'], { acks: -1, timeoutMs: 1_000 })) ===
        ErrorCode.NOT_ENOUGH_REPLICAS,
      { what: 'NOT_ENOUGH_REPLICAS from the leader once its ISR is two', timeoutMs: 30_000, intervalMs: 100 },
    );
    assert.equal(await produceRaw(leader.port, 'strict', ['three'], { acks: 1 }), ErrorCode.NONE);
  } finally {
    await follower.start();
  }
});
