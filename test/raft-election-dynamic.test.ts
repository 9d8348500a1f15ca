// Elections of a dynamic (KIP-853, kraft.version 1) tkafka quorum: three controller-only nodes
// formatted with --initial-controllers (the voter set is the VotersRecord of the bootstrap
// checkpoint, controller.quorum.bootstrap.servers instead of controller.quorum.voters) elect one
// leader, and after kill -9 of it another voter is elected (time printed, not asserted).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForLeader, type Cluster } from './helpers/cluster.js';
import { expectedProbeAnswers, probeElectionRequests, settledProbeTarget } from './helpers/raft-election-probes.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'dynamic',
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'controller' },
      { id: 3, roles: 'controller' },
    ],
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('a dynamic quorum of three elects a leader, refuses forged requests, and fails over', async () => {
  const target = await settledProbeTarget(cluster, 60_000);
  assert.deepEqual(await probeElectionRequests(target), expectedProbeAnswers(target));
  const q = await waitForLeader(cluster, { timeoutMs: 10_000 });
  assert.equal(q.voters.length, 3, 'the voters come from the bootstrap VotersRecord');

  const old = cluster.node(q.leaderId);
  const t0 = Date.now();
  await old.kill();
  const next = await waitForLeader(cluster, {
    not: old.id,
    afterEpoch: q.leaderEpoch,
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  console.log(
    `tkafka (dynamic quorum): kill -9 of leader ${old.id} (epoch ${q.leaderEpoch}) -> leader ${next.leaderId} (epoch ${next.leaderEpoch}) after ${Date.now() - t0} ms`,
  );
  assert.notEqual(next.leaderId, old.id);
});
