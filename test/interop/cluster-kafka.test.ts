// Issue 14's acceptance scenarios on an Apache Kafka 4.4.0 cluster of 3 controller-only and 3
// broker-only JVMs with a dynamic quorum (controller.quorum.bootstrap.servers, formatted with
// --initial-controllers, as Kafka 4.4's docs set up a new cluster). They validate the harness
// (test/helpers/cluster.ts, helpers/kafka-cluster.ts) and give the reference figures that
// test/interop/cluster-tkafka.test.ts compares tkafka with: time to a new leader after kill -9 of
// the leader, catch-up from the log and from a snapshot, fencing after broker.session.timeout.ms.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import type { Cluster } from '../helpers/cluster.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import {
  catchUpScenario,
  clientsScenario,
  failoverScenario,
  fencingScenario,
  FAST_SNAPSHOT_SETTINGS,
  FENCING_SETTINGS,
} from './helpers/cluster-scenarios.js';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { kafkaClusterTool, kafkaMetadataQuorum, shape, startKafkaCluster } from './helpers/kafka-cluster.js';

let cluster: Cluster;

before(async () => {
  cluster = await startKafkaCluster({
    nodes: shape({ controllers: 3, brokers: 3 }),
    quorum: 'dynamic',
    overrides: { ...FAST_SNAPSHOT_SETTINGS, ...FENCING_SETTINGS },
    startTimeoutMs: 420_000, // six JVMs on two shared cores: minutes under load
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

test('Kafka: kill -9 of the quorum leader elects another; topics from before, during and after are on every broker', async (t) => {
  const f = await failoverScenario(cluster, 'kafka-failover').catch((e: Error) => {
    throw new Error(`${e.message}\n${cluster.logs(3000)}`);
  });
  t.diagnostic(
    `Apache Kafka: leader ${f.oldLeader} (epoch ${f.oldEpoch}) killed; ${f.newLeader} (epoch ${f.newEpoch}) leads after ${f.electionMs} ms`,
  );
  const status = await kafkaMetadataQuorum(cluster, ['describe', '--status']);
  assert.equal(status.exitCode, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`^LeaderId:\\s+${f.newLeader}$`, 'm'));
});

test('Kafka: a controller that was down catches up from the log, then from a snapshot', async (t) => {
  const f = await catchUpScenario(cluster, 'kafka-catchup').catch((e: Error) => {
    throw new Error(`${e.message}\n${cluster.logs(3000)}`);
  });
  t.diagnostic(
    `Apache Kafka: node ${f.node} caught up ${f.fromLogCertain ? 'from the log' : 'from the log or a snapshot (the log start moved meanwhile)'} in ${f.fromLogMs} ms; killed at offset ${f.endOffsetWhenKilled}, ` +
      `restarted when the leader's oldest segment began at ${f.leaderOldestSegment}, caught up in ${f.fromSnapshotMs} ms (snapshot ${f.snapshotOffsetAfter})`,
  );
});

test('Kafka: a broker killed with -9 is fenced after the session time-out and unfenced after a restart', async (t) => {
  const f = await fencingScenario(cluster, async (victim) => {
    const other = cluster.brokers.find((b) => b.id !== victim)!;
    const args = ['list-endpoints', '--bootstrap-server', `127.0.0.1:${other.port}`, '--include-fenced-brokers'];
    const kafka = await kafkaClusterTool(args);
    assert.equal(kafka.exitCode, 0, kafka.stderr);
    assert.match(
      kafka.stdout,
      new RegExp(`^${victim}\\s+127\\.0\\.0\\.1\\s+\\d+\\s+null\\s+fenced\\s+broker\\s*$`, 'm'),
    );
    const ours = await execa('node', ['bin/tkafka', 'cluster', ...args], { cwd: REPO_ROOT, reject: false });
    assert.equal(ours.exitCode, 0, ours.stderr);
    assert.deepEqual(rows(ours.stdout), rows(kafka.stdout), 'tkafka cluster list-endpoints prints what Kafka prints');
  });
  t.diagnostic(
    `Apache Kafka: broker ${f.broker} fenced ${f.fencedAfterMs} ms after kill -9 (session ${FENCING_SETTINGS['broker.session.timeout.ms']} ms), unfenced ${f.unfencedAfterMs} ms after its restart`,
  );
});

test("Kafka: topics created with Kafka's and tkafka's tools are on every broker; Kafka's clients produce and consume through every broker", async (t) => {
  const f = await clientsScenario(cluster, 'kafka-clients', {
    kafka: (main, args, input) => runKafkaTool(main, args, { input }),
    tkafka: async (args) => {
      const r = await execa('node', ['bin/tkafka', ...args], { cwd: REPO_ROOT, reject: false, timeout: 120_000 });
      return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
  });
  t.diagnostic(
    `Apache Kafka: ${f.produced} records consumed through each broker: ${JSON.stringify(f.consumedPerBroker)}`,
  );
});
