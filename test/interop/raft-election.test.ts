// The election side of tkafka's raft client against Apache Kafka 4.4.0's KafkaRaftClient, on the
// same harness (test/helpers/cluster.ts): three controller-only Apache Kafka voters (static
// controller.quorum.voters) elect a leader; the forged Vote / BeginQuorumEpoch / EndQuorumEpoch
// requests of test/helpers/raft-election-probes.ts get the answers tkafka gives
// (test/raft-election.test.ts asserts tkafka's against the same expectations); after kill -9 of the
// leader the time until a new leader answers DescribeQuorum is printed, for comparison with
// tkafka's figure (no timed assertion).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { waitForLeader, type Cluster } from '../helpers/cluster.js';
import { expectedProbeAnswers, probeElectionRequests, settledProbeTarget } from '../helpers/raft-election-probes.js';
import { shape, startKafkaCluster } from './helpers/kafka-cluster.js';

let cluster: Cluster;

before(async () => {
  cluster = await startKafkaCluster({ nodes: shape({ controllers: 3 }), quorum: 'static' });
});

after(async () => {
  await cluster?.cleanup();
});

test('Apache Kafka 4.4.0 voters answer the forged election requests as tkafka does', async () => {
  const target = await settledProbeTarget(cluster);
  const answers = await probeElectionRequests(target);
  console.log(`Kafka leader ${target.leaderId} epoch ${target.leaderEpoch}:\n${JSON.stringify(answers, null, 1)}`);
  assert.deepEqual(answers, expectedProbeAnswers(target));
  const again = await waitForLeader(cluster, { timeoutMs: 10_000 });
  assert.deepEqual([again.leaderId, again.leaderEpoch], [target.leaderId, target.leaderEpoch]);
});

test('Apache Kafka 4.4.0: kill -9 of the leader, time until another voter leads', async () => {
  const q = await waitForLeader(cluster, { timeoutMs: 120_000 });
  const old = cluster.node(q.leaderId);
  const t0 = Date.now();
  await old.kill();
  const next = await waitForLeader(cluster, {
    not: old.id,
    afterEpoch: q.leaderEpoch,
    timeoutMs: 120_000,
    intervalMs: 20,
  });
  console.log(
    `Apache Kafka 4.4.0: kill -9 of leader ${old.id} (epoch ${q.leaderEpoch}) -> leader ${next.leaderId} (epoch ${next.leaderEpoch}) serving DescribeQuorum after ${Date.now() - t0} ms`,
  );
  assert.notEqual(next.leaderId, old.id);
});
