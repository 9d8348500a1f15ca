// Elections of a multi-voter tkafka quorum (src/broker/raft/raft-client.ts) with real processes:
// three combined nodes with a 3-voter controller.quorum.voters elect one leader; forged Vote /
// BeginQuorumEpoch / EndQuorumEpoch requests (another cluster id, a stale epoch, a candidate whose
// log is behind) are refused with Kafka's codes and grant no vote; after kill -9 of the leader
// another voter is elected (the time from the kill to the new leader answering DescribeQuorum is
// printed, not asserted); the killed voter, restarted, follows the new leader.
// Records committed before the kill (a topic) are in every survivor's image and the restarted voter's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createTopic,
  describeQuorum,
  startCluster,
  tkafkaLauncher,
  topicIds,
  waitForLeader,
  type Cluster,
  type ClusterNode,
} from './helpers/cluster.js';
import { expectedProbeAnswers, probeElectionRequests, settledProbeTarget } from './helpers/raft-election-probes.js';
import { waitFor } from './helpers/wait-for.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    nodes: [
      { id: 1, roles: 'broker,controller' },
      { id: 2, roles: 'broker,controller' },
      { id: 3, roles: 'broker,controller' },
    ],
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('three voters elect one leader; forged election requests are refused with Kafka codes', async () => {
  const target = await settledProbeTarget(cluster, 60_000);
  console.log(`leader ${target.leaderId} in epoch ${target.leaderEpoch}`);
  // the other voters are not leaders (they answer DescribeQuorum with NOT_LEADER_OR_FOLLOWER)
  const others = cluster.controllers.filter((n) => n.id !== target.leaderId);
  for (const n of others) assert.equal(await describeQuorum(n.controllerPort), null, `node ${n.id} is not a leader`);
  const answers = await probeElectionRequests(target);
  console.log(JSON.stringify(answers, null, 1));
  assert.deepEqual(answers, expectedProbeAnswers(target));
  // none of it moved the quorum
  const again = await waitForLeader(cluster, { timeoutMs: 10_000 });
  assert.deepEqual([again.leaderId, again.leaderEpoch], [target.leaderId, target.leaderEpoch]);
});

test('kill -9 of the leader: another voter is elected; the restarted voter follows it', async () => {
  const q = await waitForLeader(cluster, { timeoutMs: 60_000 });
  // committed through the quorum before the kill: in every voter's image
  await createTopic(cluster, 'before-kill');
  const everywhere = (nodes: readonly ClusterNode[], topic: string) =>
    waitFor(
      async () => {
        for (const n of nodes) if (!(await topicIds(n.port, [topic]))?.has(topic)) return null;
        return true;
      },
      { what: `${topic} in the image of nodes ${nodes.map((n) => n.id).join(',')}`, timeoutMs: 60_000 },
    );
  await everywhere(cluster.nodes, 'before-kill');
  const old = cluster.node(q.leaderId);
  const t0 = Date.now();
  await old.kill();
  const next = await waitForLeader(cluster, {
    not: old.id,
    afterEpoch: q.leaderEpoch,
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  const ms = Date.now() - t0;
  console.log(
    `tkafka: kill -9 of leader ${old.id} (epoch ${q.leaderEpoch}) -> leader ${next.leaderId} (epoch ${next.leaderEpoch}) serving DescribeQuorum after ${ms} ms`,
  );
  assert.notEqual(next.leaderId, old.id);
  assert.ok(next.leaderEpoch > q.leaderEpoch);
  const survivors = cluster.nodes.filter((n) => n.id !== old.id);
  await everywhere(survivors, 'before-kill');
  await createTopic(cluster, 'after-kill');
  await everywhere(survivors, 'after-kill');

  await old.start();
  const following = `Following leader ${next.leaderId} in epoch ${next.leaderEpoch}`;
  await waitFor(() => old.logs(1_000_000).includes(following) || null, {
    what: `node ${old.id}: "${following}"`,
    timeoutMs: 60_000,
  });
  await everywhere([old], 'after-kill');
  const after = await waitForLeader(cluster, { timeoutMs: 10_000 });
  assert.deepEqual(
    [after.leaderId, after.leaderEpoch],
    [next.leaderId, next.leaderEpoch],
    'the rejoining voter did not disrupt the leader',
  );
});

test('SIGTERM of the leader: a successor is elected, the stopped voter rejoins', async () => {
  const q = await waitForLeader(cluster, { timeoutMs: 60_000 });
  const leader = cluster.node(q.leaderId);
  const t0 = Date.now();
  await leader.stop();
  const next = await waitForLeader(cluster, {
    not: leader.id,
    afterEpoch: q.leaderEpoch,
    timeoutMs: 60_000,
    intervalMs: 20,
  });
  console.log(
    `tkafka: SIGTERM of leader ${leader.id} (epoch ${q.leaderEpoch}) -> leader ${next.leaderId} (epoch ${next.leaderEpoch}) after ${Date.now() - t0} ms (including the shutdown)`,
  );
  assert.notEqual(next.leaderId, leader.id);
  await leader.start();
});
