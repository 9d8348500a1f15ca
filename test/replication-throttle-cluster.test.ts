// Replication throttles on a real tkafka cluster (one controller-only node, brokers 2-4): a partition
// of 3 MB moved from broker 2 to broker 3 by `reassign-partitions --execute --throttle 200000` (the
// tool sets leader/follower.replication.throttled.rate on the brokers and the topic's
// leader/follower.replication.throttled.replicas, which the brokers read from the metadata log
// without a restart) takes at least what the quota allows, and completes; the same move without a
// throttle is quick. Kafka's rate is measured over replication.quota.window.num (11) windows of 1 s,
// so within the first ~10 s of a throttled transfer at most rate × elapsed (at least one window) plus
// one fetch (replica.fetch.max.bytes) can pass: a move of S bytes at R B/s takes at least
// min(10 s, (S - fetch) / R). Only that lower bound is asserted, never an upper one.
//
//   npm run build && nice -n 19 node --test dist/test/replication-throttle-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { fillPartition, moveReplica } from './helpers/throttle-scenario.js';
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
