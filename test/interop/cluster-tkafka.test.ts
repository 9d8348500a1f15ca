// Issue 14's acceptance scenarios on a tkafka cluster of 3 controller-only and 3 broker-only
// processes (static quorum), the same steps test/interop/cluster-kafka.test.ts runs on Apache Kafka
// 4.4.0 (whose figures are the reference), plus Kafka's own tools (MetadataQuorumCommand,
// ClusterTool) and clients (console producer and consumer) against the tkafka cluster, compared
// with tkafka's. The catch-up scenario (log, then snapshot) needs the metadata log's upkeep: NoOpRecords,
// time-based snapshots, segment roll by time and retention by time (FAST_SNAPSHOT_SETTINGS).
//
//   TKAFKA_CLUSTER_QUORUM=dynamic ...   # controller.quorum.bootstrap.servers + --initial-controllers
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { startCluster, tkafkaLauncher, type Cluster, type QuorumMode } from '../helpers/cluster.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { runKafkaTool } from './helpers/apache-kafka.js';
import {
  catchUpScenario,
  clientsScenario,
  failoverScenario,
  FAST_SNAPSHOT_SETTINGS,
  fencingScenario,
  FENCING_SETTINGS,
} from './helpers/cluster-scenarios.js';
import { kafkaClusterTool, kafkaMetadataQuorum, shape } from './helpers/kafka-cluster.js';

let cluster: Cluster;

const tkafka = async (args: string[]) => {
  const r = await execa('node', ['bin/tkafka', ...args], { cwd: REPO_ROOT, reject: false, timeout: 120_000 });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
};

before(async () => {
  cluster = await startCluster({
    nodes: shape({ controllers: 3, brokers: 3 }),
    quorum: (process.env.TKAFKA_CLUSTER_QUORUM as QuorumMode | undefined) ?? 'static',
    launcher: tkafkaLauncher,
    overrides: { ...FAST_SNAPSHOT_SETTINGS, ...FENCING_SETTINGS },
  });
});

after(async () => {
  await cluster?.cleanup();
});

const rows = (s: string): string[] =>
  s
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s+/).join(' '))
    .sort();

/** `describe --status` lines that do not move between two runs a second apart. */
const stable = (s: string): string[] =>
  s
    .split('\n')
    .filter((l) => /^(ClusterId|LeaderId|LeaderEpoch|CurrentVoters|CurrentObservers):/.test(l))
    .map((l) => l.replace(/"(logEndOffset|lastFetchTimestamp|lastCaughtUpTimestamp)":-?\d+/g, '"$1":N'));

test('tkafka: metadata-quorum describe --status prints what Kafka 4.4 MetadataQuorumCommand prints on the same cluster', async () => {
  const ours = await tkafka([
    'metadata-quorum',
    '--bootstrap-controller',
    cluster.controllerBootstrap(),
    'describe',
    '--status',
  ]);
  const kafka = await kafkaMetadataQuorum(cluster, ['describe', '--status']);
  assert.equal(kafka.exitCode, 0, kafka.stderr);
  assert.equal(ours.exitCode, 0, ours.stderr);
  assert.deepEqual(stable(ours.stdout), stable(kafka.stdout));
});

test('tkafka: kill -9 of the quorum leader elects another; topics from before, during and after are on every broker', async (t) => {
  const f = await failoverScenario(cluster, 'tk-failover').catch((e: Error) => {
    throw new Error(`${e.message}\n${cluster.logs(3000)}`);
  });
  t.diagnostic(
    `tkafka: leader ${f.oldLeader} (epoch ${f.oldEpoch}) killed; ${f.newLeader} (epoch ${f.newEpoch}) leads after ${f.electionMs} ms`,
  );
});

test('tkafka: a controller that was down catches up from the log, then from a snapshot', async (t) => {
  const f = await catchUpScenario(cluster, 'tk-catchup').catch((e: Error) => {
    throw new Error(`${e.message}\n${cluster.logs(3000)}`);
  });
  t.diagnostic(
    `tkafka: node ${f.node} caught up ${f.fromLogCertain ? 'from the log' : 'from the log or a snapshot'} in ${f.fromLogMs} ms; from a snapshot (${f.snapshotOffsetAfter}) in ${f.fromSnapshotMs} ms`,
  );
});

test('tkafka: a broker killed with -9 is fenced after the session time-out and unfenced after a restart', async (t) => {
  const f = await fencingScenario(cluster, async (victim) => {
    const other = cluster.brokers.find((b) => b.id !== victim)!;
    const args = ['list-endpoints', '--bootstrap-server', `127.0.0.1:${other.port}`, '--include-fenced-brokers'];
    const kafka = await kafkaClusterTool(args);
    assert.equal(kafka.exitCode, 0, kafka.stderr);
    assert.match(
      kafka.stdout,
      new RegExp(`^${victim}\\s+127\\.0\\.0\\.1\\s+\\d+\\s+null\\s+fenced\\s+broker\\s*$`, 'm'),
    );
    const ours = await tkafka(['cluster', ...args]);
    assert.equal(ours.exitCode, 0, ours.stderr);
    assert.deepEqual(rows(ours.stdout), rows(kafka.stdout));
  });
  t.diagnostic(
    `tkafka: broker ${f.broker} fenced ${f.fencedAfterMs} ms after kill -9, unfenced ${f.unfencedAfterMs} ms after its restart`,
  );
});

test("tkafka: topics from Kafka's and tkafka's tools on every broker; Kafka's clients produce and consume through every broker", async () => {
  await clientsScenario(cluster, 'tk-clients', {
    kafka: (main, args, input) => runKafkaTool(main, args, { input }),
    tkafka,
  });
});
