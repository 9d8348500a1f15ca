// PENDING (not run by `npm test`: test/pending/ is outside its globs): the catch-up scenario of
// issue 14 on a tkafka cluster of 3 controller-only and 3 broker-only processes, the steps
// test/interop/cluster-kafka.test.ts runs on Apache Kafka 4.4.0 (the other scenarios pass on tkafka
// and are in test/interop/cluster-tkafka.test.ts). On 2026-12-01 the catch-up from the log passed
// and the one from a snapshot did not: the leader's oldest segment never moved past the stopped
// node's end offset (28, after minutes; Kafka's log is ~250 by then, with a NoOpRecord every
// metadata.max.idle.interval.ms) within 270 s, so rolling, snapshotting or retention of the
// metadata log is not there yet. Move it to test/interop/ when it passes.
//
//   npm run build && node --test dist/test/pending/cluster-tkafka.test.js
//   TKAFKA_CLUSTER_QUORUM=dynamic ...   # controller.quorum.bootstrap.servers + --initial-controllers
import test, { after, before } from 'node:test';
import { startCluster, tkafkaLauncher, type Cluster, type QuorumMode } from '../helpers/cluster.js';
import { catchUpScenario, FAST_SNAPSHOT_SETTINGS } from '../interop/helpers/cluster-scenarios.js';
import { shape } from '../interop/helpers/kafka-cluster.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    nodes: shape({ controllers: 3, brokers: 3 }),
    quorum: (process.env.TKAFKA_CLUSTER_QUORUM as QuorumMode | undefined) ?? 'static',
    launcher: tkafkaLauncher,
    overrides: FAST_SNAPSHOT_SETTINGS,
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('tkafka: a controller that was down catches up from the log, then from a snapshot', async (t) => {
  const f = await catchUpScenario(cluster, 'tk-catchup').catch((e: Error) => {
    throw new Error(`${e.message}\n${cluster.logs(3000)}`);
  });
  t.diagnostic(
    `tkafka: node ${f.node} caught up ${f.fromLogCertain ? 'from the log' : 'from the log or a snapshot'} in ${f.fromLogMs} ms; from a snapshot (${f.snapshotOffsetAfter}) in ${f.fromSnapshotMs} ms`,
  );
});
