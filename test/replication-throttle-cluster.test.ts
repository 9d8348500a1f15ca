// Replication throttles on a real tkafka cluster (one controller-only node, brokers 2-4): a partition
// of 3 MB moved from broker 2 to broker 3 by `reassign-partitions --execute --throttle 200000` (the
// tool sets leader/follower.replication.throttled.rate on the brokers and the topic's
// leader/follower.replication.throttled.replicas, which the brokers read from the metadata log
// without a restart) takes at least what the quota allows, and completes; the same move without a
// throttle is quick. Kafka's rate is measured over replication.quota.window.num (11) windows of 1 s,
// so within the first ~10 s of a throttled transfer at most rate × elapsed (at least one window) plus
// one fetch (replica.fetch.max.bytes) can pass: a move of S bytes at R B/s takes at least
// min(10 s, (S - fetch) / R). Only that lower bound is asserted, never an upper one. The follower's
// quota alone (set with IncrementalAlterConfigs, no leader throttle) bounds a move the same way.
//
//   npm run build && nice -n 19 node --test dist/test/replication-throttle-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { fillPartition, moveReplica } from './helpers/throttle-scenario.js';
import { waitFor } from './helpers/wait-for.js';
import { KafkaClient } from '../src/client/client.js';
import { describeConfigs, incrementalAlterConfigs, OpType, ResourceType } from '../src/client/admin/configs.js';
import {
  BROKERS,
  REASSIGNMENT_BROKER_OVERRIDES,
  REASSIGNMENT_CONTROLLER_OVERRIDES,
  reassignmentNodes,
} from './helpers/reassignment-scenario.js';

const SIZE = 3_000_000;
const RATE = 200_000;
const FETCH_BYTES = 102_400;

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: reassignmentNodes(),
    controllerOverrides: REASSIGNMENT_CONTROLLER_OVERRIDES,
    brokerOverrides: { ...REASSIGNMENT_BROKER_OVERRIDES, 'replica.fetch.max.bytes': FETCH_BYTES },
  });
  await waitForUnfenced(cluster, { ids: BROKERS });
  await fillPartition(cluster, 'fast', 2, SIZE);
  await fillPartition(cluster, 'slow', 2, SIZE);
  await fillPartition(cluster, 'pulled', 2, SIZE);
});

after(async () => {
  await cluster?.cleanup();
});

test('without a throttle a 3 MB partition moves from broker 2 to 3 at once', async (t) => {
  const r = await moveReplica(cluster, 'fast', cluster.node(3));
  t.diagnostic(`unthrottled: ${r.bytes} B in ${r.durationMs} ms, peak ${r.peakBytesPerSec} B/s`);
  assert.ok(r.bytes >= SIZE, `${r.bytes} B moved`);
});

test('with --throttle 200000 the move takes what the quota allows and completes', async (t) => {
  const r = await moveReplica(cluster, 'slow', cluster.node(3), RATE);
  t.diagnostic(
    `throttled at ${RATE} B/s: ${r.bytes} B in ${r.durationMs} ms (${Math.round((r.bytes * 1000) / r.durationMs)} B/s), peak ${r.peakBytesPerSec} B/s`,
  );
  assert.ok(r.bytes >= SIZE, `${r.bytes} B moved`);
  const minMs = Math.min(10_000, ((SIZE - FETCH_BYTES) / RATE) * 1000);
  assert.ok(r.durationMs >= minMs, `took ${r.durationMs} ms, the quota allows no less than ${minMs} ms`);
});

test('the follower quota alone (follower.replication.throttled.rate on broker 4, follower list 0:4) bounds the move', async (t) => {
  const client = new KafkaClient({ bootstrapServers: cluster.bootstrap().split(',') });
  try {
    const set = (type: number, name: string, key: string, value: string) =>
      incrementalAlterConfigs(client, [{ resource: { type, name }, ops: [{ name: key, op: OpType.SET, value }] }]);
    for (const r of (
      await set(ResourceType.TOPIC, 'pulled', 'follower.replication.throttled.replicas', '0:4')
    ).values())
      assert.ok(r.ok);
    for (const r of (await set(ResourceType.BROKER, '4', 'follower.replication.throttled.rate', String(RATE))).values())
      assert.ok(r.ok);
    // checked on the (broker-only) broker before it forwards, as Kafka's ConfigAdminManager.preprocess
    const bad = [...(await set(ResourceType.BROKER, '4', 'leader.replication.throttled.rate', 'abc')).values()][0];
    assert.ok(bad && !bad.ok);
    assert.equal(
      bad.error.message,
      'Invalid value abc for configuration leader.replication.throttled.rate: Not a number of type LONG',
    );
    // broker 4 has applied the rate (and the topic list before it, in metadata log order)
    await waitFor(
      async () => {
        const r = (await describeConfigs(client, [{ type: ResourceType.BROKER, name: '4' }])).values().next().value;
        return (
          r?.ok && r.value.some((e) => e.name === 'follower.replication.throttled.rate' && e.value === String(RATE))
        );
      },
      { what: 'broker 4 to apply follower.replication.throttled.rate', intervalMs: 100 },
    );
    const r = await moveReplica(cluster, 'pulled', cluster.node(4));
    t.diagnostic(
      `follower-throttled at ${RATE} B/s: ${r.bytes} B in ${r.durationMs} ms (${Math.round((r.bytes * 1000) / r.durationMs)} B/s), peak ${r.peakBytesPerSec} B/s`,
    );
    assert.ok(r.bytes >= SIZE, `${r.bytes} B moved`);
    const minMs = Math.min(10_000, ((SIZE - FETCH_BYTES) / RATE) * 1000);
    assert.ok(r.durationMs >= minMs, `took ${r.durationMs} ms, the quota allows no less than ${minMs} ms`);
  } finally {
    client.close();
  }
});
