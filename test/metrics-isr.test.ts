// ReplicaManager's ISR metrics with real replication: two tkafka brokers and a controller; the
// follower is paused (SIGSTOP) past replica.lag.time.max.ms, the leader shrinks the ISR
// (IsrShrinksPerSec, UnderReplicatedPartitions, the partition's UnderReplicated), then resumed, the
// leader expands it again (IsrExpandsPerSec) and the follower's bytes show as replication bytes.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { metricsUrl, scrape, type Scrape } from './helpers/metrics.js';
import { waitFor } from './helpers/wait-for.js';
import { runTkafka } from './helpers/tool-run.js';
import { KafkaClient } from '../src/client/client.js';
import { Producer } from '../src/client/producer.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'broker' },
      { id: 3, roles: 'broker' },
    ],
    overrides: { 'tkafka.metrics.listener': 'http://127.0.0.1:0' },
    // the paused follower stays registered (no fencing) while its leader drops it from the ISR
    controllerOverrides: { 'broker.session.timeout.ms': 120_000 },
    brokerOverrides: { 'replica.lag.time.max.ms': 2000 },
  });
});
after(async () => {
  for (const n of cluster?.nodes ?? []) {
    const pid = n.pid();
    if (pid !== undefined && n.running()) process.kill(pid, 'SIGCONT');
  }
  await cluster?.cleanup();
});

const metricsOf = (id: number): Promise<Scrape> => scrape(metricsUrl(cluster.node(id).logs(1_000_000)));

test('a paused follower shrinks and then expands the ISR', async () => {
  const created = await runTkafka('topics', [
    '--bootstrap-server',
    cluster.bootstrap(),
    '--create',
    '--topic',
    'isr',
    '--partitions',
    '1',
    '--replication-factor',
    '2',
  ]);
  assert.equal(created.code, 0, created.err);
  // the leader and the follower, once the ISR has both
  const [leader, follower] = await waitFor(
    async () => {
      for (const [l, f] of [
        [2, 3],
        [3, 2],
      ] as const) {
        const m = await metricsOf(l);
        if (
          m.value('kafka_server_replicamanager_leadercount') === 1 &&
          m.value('kafka_cluster_partition_insyncreplicascount', { topic: 'isr', partition: '0' }) === 2
        )
          return [l, f] as const;
      }
      return null;
    },
    { what: 'a leader with both replicas in sync' },
  );
  const client = new KafkaClient({ bootstrapServers: cluster.bootstrap().split(',') });
  const producer = new Producer(client, { lingerMs: 0, acks: 1 });
  try {
    await producer.send({ topic: 'isr', partition: 0, key: null, value: Buffer.from('before') });
    // a loaded machine may have shrunk and expanded already: count from here
    const shrinksBefore = (await metricsOf(leader)).value('kafka_server_replicamanager_isrshrinks_total') ?? -1;
    const expandsBefore = (await metricsOf(leader)).value('kafka_server_replicamanager_isrexpands_total') ?? -1;
    const pid = cluster.node(follower).pid()!;
    process.kill(pid, 'SIGSTOP');
    try {
      // a follower that has fetched the leader's end stays caught up however long it is silent
      // (Replica.isCaughtUp: its end offset equals the leader's): the leader's end must move on
      await producer.send({ topic: 'isr', partition: 0, key: null, value: Buffer.from('while paused') });
      const shrunk = await waitFor(
        async () => {
          const m = await metricsOf(leader);
          return m.value('kafka_server_replicamanager_underreplicatedpartitions') === 1 ? m : null;
        },
        { what: 'the leader to shrink the ISR', timeoutMs: 60_000 },
      );
      assert.equal(shrunk.value('kafka_server_replicamanager_isrshrinks_total'), shrinksBefore + 1);
      assert.equal(shrunk.value('kafka_cluster_partition_underreplicated', { topic: 'isr', partition: '0' }), 1);
      assert.equal(shrunk.value('kafka_cluster_partition_insyncreplicascount', { topic: 'isr', partition: '0' }), 1);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const expanded = await waitFor(
      async () => {
        const m = await metricsOf(leader);
        return m.value('kafka_server_replicamanager_underreplicatedpartitions') === 0 ? m : null;
      },
      { what: 'the leader to expand the ISR', timeoutMs: 60_000 },
    );
    assert.equal(expanded.value('kafka_server_replicamanager_isrexpands_total'), expandsBefore + 1);
    assert.ok((expanded.value('kafka_server_brokertopicmetrics_replicationbytesout_total', { topic: 'isr' }) ?? 0) > 0);
    const f = await metricsOf(follower);
    assert.ok((f.value('kafka_server_brokertopicmetrics_replicationbytesin_total', { topic: 'isr' }) ?? 0) > 0);
    assert.equal(f.value('kafka_server_replicamanager_leadercount'), 0);
    assert.equal(f.value('kafka_server_replicamanager_partitioncount'), 1);
    // the leader served the follower's fetches, recorded as FetchFollower
    assert.ok(
      (expanded.value('kafka_network_requestmetrics_totaltimems_count', { request: 'FetchFollower' }) ?? 0) > 0,
    );
  } finally {
    await producer.close();
    client.close();
  }
});
