// An Apache Kafka 4.4.0 broker (process.roles=broker, from the jars) joins a tkafka controller-only
// node: it follows the metadata log, registers (BrokerRegistration), heartbeats until unfenced, and
// is listed by tkafka's and Kafka's `cluster list-endpoints --include-fenced-brokers`; a topic
// created with Kafka's admin through the Kafka broker (forwarded to the tkafka controller) is served
// by it, and Kafka's console producer and consumer go through it; kill -9 → the tkafka controller
// fences it after broker.session.timeout.ms (measured); restart → unfenced; SIGTERM → controlled
// shutdown granted by the controller.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { startCluster, tkafkaLauncher, type Cluster } from '../helpers/cluster.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { waitFor } from '../helpers/wait-for.js';
import { kafkaClusterTool, kafkaLauncher } from './helpers/kafka-cluster.js';
import { runKafkaTool } from './helpers/apache-kafka.js';

const SESSION_TIMEOUT_MS = 4000;
let cluster: Cluster | null = null;
after(async () => {
  await cluster?.cleanup();
});

const tkafka = (args: string[]) => execa('node', ['bin/tkafka', ...args], { cwd: REPO_ROOT, reject: false, all: true });

test('an Apache Kafka 4.4.0 broker registers with, is fenced and unfenced by, and shuts down through a tkafka controller', async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'broker', launcher: kafkaLauncher() },
    ],
    overrides: { 'broker.session.timeout.ms': SESSION_TIMEOUT_MS, 'broker.heartbeat.interval.ms': 500 },
  });
  const c = cluster;
  const ctl = c.node(1);
  const broker = c.node(2);
  const bootstrap = `127.0.0.1:${broker.port}`;
  const fail = (what: string) => (e: Error) => {
    throw new Error(`${what}: ${e.message}\n${c.logs(4000)}`);
  };

  // registered and unfenced (Kafka's BrokerServer logs "Kafka Server started" only once unfenced)
  const listed = await tkafka([
    'cluster',
    'list-endpoints',
    '--bootstrap-server',
    bootstrap,
    '--include-fenced-brokers',
  ]);
  assert.equal(listed.exitCode, 0, listed.all);
  assert.match(
    String(listed.all),
    new RegExp(`^2\\s+127\\.0\\.0\\.1\\s+${broker.port}\\s+null\\s+unfenced\\s+broker\\s*$`, 'm'),
  );
  const kafkaListed = await kafkaClusterTool([
    'list-endpoints',
    '--bootstrap-server',
    bootstrap,
    '--include-fenced-brokers',
  ]);
  assert.equal(kafkaListed.exitCode, 0, kafkaListed.stderr);
  assert.equal(kafkaListed.stdout, String(listed.all) + '\n');
  assert.match(ctl.logs(20_000), /The request from broker 2 to unfence has been granted/);

  // a topic created with Kafka's admin through the Kafka broker (forwarded to tkafka's controller)
  const created = await runKafkaTool('org.apache.kafka.tools.TopicCommand', [
    '--bootstrap-server',
    bootstrap,
    '--create',
    '--topic',
    'through-kafka',
    '--partitions',
    '2',
    '--replication-factor',
    '1',
  ]);
  assert.equal(created.exitCode, 0, created.stdout + created.stderr);
  await waitFor(
    async () => {
      const r = await runKafkaTool('org.apache.kafka.tools.TopicCommand', [
        '--bootstrap-server',
        bootstrap,
        '--describe',
        '--topic',
        'through-kafka',
      ]);
      return r.exitCode === 0 && (r.stdout.match(/Leader: 2/g) ?? []).length === 2 ? r : null;
    },
    { what: 'both partitions of through-kafka to be led by broker 2', timeoutMs: 60_000, intervalMs: 500 },
  ).catch(fail('topic'));

  // Kafka's clients produce and consume through the Kafka broker
  const lines = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const produced = await runKafkaTool(
    'org.apache.kafka.tools.ConsoleProducer',
    ['--bootstrap-server', bootstrap, '--topic', 'through-kafka'],
    { input: lines.join('\n') + '\n' },
  );
  assert.equal(produced.exitCode, 0, produced.stderr);
  const consumed = await runKafkaTool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
    '--bootstrap-server',
    bootstrap,
    '--topic',
    'through-kafka',
    '--from-beginning',
    '--max-messages',
    String(lines.length),
    '--timeout-ms',
    '60000',
  ]);
  assert.equal(consumed.exitCode, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trim().split('\n').sort(), [...lines].sort());

  // what the Kafka broker said about the tkafka controller so far (for the record)
  const complaints = broker
    .logs(200_000)
    .split('\n')
    .filter((l) => /\b(WARN|ERROR)\b/.test(l) && /controller|Controller|AssignReplicasToDirs|Unsupported/.test(l))
    .filter((l) => !/is defined in broker\. It should be defined in the controller role/.test(l));
  console.log(
    `Kafka broker WARN/ERROR lines about the controller: ${complaints.length}\n${complaints.slice(0, 10).join('\n')}`,
  );

  // kill -9: the tkafka controller fences the broker once its session expires
  const killedAt = Date.now();
  await broker.kill();
  await waitFor(() => /Fencing broker 2 at epoch \d+ because its session has timed out\./.test(ctl.logs(50_000)), {
    what: 'the tkafka controller to fence broker 2',
    timeoutMs: SESSION_TIMEOUT_MS * 5 + 10_000,
    intervalMs: 50,
  }).catch(fail('fencing'));
  const fencedAfter = Date.now() - killedAt;
  console.log(
    `Kafka broker 2 killed -9: fenced by the tkafka controller after ${fencedAfter} ms (broker.session.timeout.ms=${SESSION_TIMEOUT_MS})`,
  );
  assert.ok(fencedAfter >= SESSION_TIMEOUT_MS - 500, `fenced after ${fencedAfter} ms`);

  // restart: registers a new incarnation and is unfenced again
  await broker.start();
  const relisted = await tkafka([
    'cluster',
    'list-endpoints',
    '--bootstrap-server',
    bootstrap,
    '--include-fenced-brokers',
  ]);
  assert.match(String(relisted.all), /^2\s+\S+\s+\d+\s+null\s+unfenced\s+broker\s*$/m, relisted.all);

  // SIGTERM: controlled shutdown (it leads both partitions), granted once it leads nothing
  await broker.stop();
  const log = ctl.logs(50_000);
  assert.match(log, /Unfenced broker 2 has requested and been granted a controlled shutdown\./);
  assert.match(log, /The request from broker 2 to shut down has been granted since the lowest active offset/);
});
