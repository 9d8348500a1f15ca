// Issue 15 shown with Apache Kafka 4.4.0's own tools on a tkafka cluster (1 controller + 3 brokers):
// kafka-producer-perf-test (ProducerPerformance, acks=all) writes a bounded number of records at a
// bounded rate to an RF=3 topic with min.insync.replicas=2 while one broker is killed (SIGKILL) and
// restarted, and Kafka's console consumer reads every one of them back. At each state
// `tkafka topics --describe` and Kafka's TopicCommand (kafka-topics.sh) print the same lines
// (compared as sets: the order of topics is a HashMap's in both): the killed broker leaves the ISR and
// leadership moves off it, --under-replicated-partitions lists the partitions while it is down and
// nothing once it is back and caught up, --unavailable-partitions lists a partition whose only replica
// is down, and with two brokers down --under-min-isr-partitions lists them while acks=all writes fail
// NOT_ENOUGH_REPLICAS. The transcripts are printed (console.log).
//
//   npm run build && nice -n 19 node --test dist/test/interop/replication-tools.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from '../helpers/cluster.js';
import { logBytes, produceRaw, waitAllPartitions, type PartitionInfo } from '../helpers/replication.js';
import { waitFor } from '../helpers/wait-for.js';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { describeBoth, field, kafkaTopics, partitionLine } from './helpers/topics-describe.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const BROKERS = [2, 3, 4];
const KILLED = 4;
const RECORDS = 60_000;
const THROUGHPUT = 1000;
const TOPIC = 'perf';
/** A single-replica topic on the killed broker: its leader has nowhere to go. */
const SOLO = 'solo';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [{ id: 1, roles: 'controller' }, ...BROKERS.map((id) => ({ id, roles: 'broker' as const }))],
    controllerOverrides: { 'broker.session.timeout.ms': 6000 },
    brokerOverrides: {
      'broker.heartbeat.interval.ms': 1000,
      'replica.lag.time.max.ms': 5000,
      // the console consumer's group coordinator survives the kills
      'offsets.topic.replication.factor': 3,
    },
  });
  await waitForUnfenced(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

/** Both tools' `--describe --topic perf,solo <extra>` against the running brokers, compared. */
const describeTopics = (label: string, extra: string[]): Promise<string[]> =>
  describeBoth(label, cluster.bootstrap(), [TOPIC, SOLO], extra);

test('kafka-producer-perf-test and the console consumer across a broker kill; topics --describe as kafka-topics.sh', async (t) => {
  const bootstrap = cluster.bootstrap();
  const created = await kafkaTopics([
    '--bootstrap-server',
    bootstrap,
    '--create',
    '--topic',
    TOPIC,
    '--partitions',
    '3',
    '--replication-factor',
    '3',
    '--config',
    'min.insync.replicas=2',
  ]);
  assert.equal(created.code, 0, created.err);
  const solo = await kafkaTopics([
    '--bootstrap-server',
    bootstrap,
    '--create',
    '--topic',
    SOLO,
    '--replica-assignment',
    String(KILLED),
  ]);
  assert.equal(solo.code, 0, solo.err);
  await waitAllPartitions(cluster, TOPIC, 'three in sync', (p) => p.leader >= 0 && p.isr.length === 3);
  const all = await describeTopics('all in sync', []);
  for (let p = 0; p < 3; p++) assert.equal(field(partitionLine(all, TOPIC, p)!, 'Isr').split(',').length, 3);

  // ---- the producer runs; broker 4 is killed once it holds records
  const perfArgs = [
    '--topic',
    TOPIC,
    '--num-records',
    String(RECORDS),
    '--record-size',
    '100',
    '--throughput',
    String(THROUGHPUT),
    '--bootstrap-server',
    bootstrap,
    '--command-property',
    'acks=all',
  ];
  console.log(`$ kafka-producer-perf-test.sh ${perfArgs.join(' ')}`);
  const perfStarted = Date.now();
  const perf = runKafkaTool('org.apache.kafka.tools.ProducerPerformance', perfArgs, { timeoutMs: 240_000 });
  let perfEnded = 0;
  void perf.then(
    () => (perfEnded = Date.now()),
    () => undefined,
  );
  const killed = cluster.node(KILLED);
  await waitFor(() => [0, 1, 2].some((p) => logBytes(killed, TOPIC, p).length > 0), {
    what: 'records on broker 4',
    timeoutMs: 60_000,
    intervalMs: 100,
  });
  await killed.kill();
  const killedAt = Date.now();
  t.diagnostic(`broker ${KILLED} killed ${killedAt - perfStarted} ms after the producer started`);
  const shrunk = await waitAllPartitions(
    cluster,
    TOPIC,
    `broker ${KILLED} out of every ISR and leading nothing`,
    (p) => p.leader >= 0 && p.leader !== KILLED && !p.isr.includes(KILLED),
  );
  t.diagnostic(`ISR without ${KILLED} ${Date.now() - killedAt} ms after the kill`);
  const down = await describeTopics(`broker ${KILLED} down`, []);
  for (let p = 0; p < 3; p++) {
    const line = partitionLine(down, TOPIC, p)!;
    assert.notEqual(field(line, 'Leader'), String(KILLED));
    assert.equal(field(line, 'Isr'), shrunk[p]!.isr.join(','));
    assert.equal(field(line, 'Replicas').split(',').length, 3);
  }
  const under = await describeTopics(`broker ${KILLED} down`, ['--under-replicated-partitions']);
  for (let p = 0; p < 3; p++) assert.ok(partitionLine(under, TOPIC, p), `perf-${p} under-replicated`);
  const unavailable = await describeTopics(`broker ${KILLED} down`, ['--unavailable-partitions']);
  assert.deepEqual(
    unavailable.map((l) => field(l, 'Topic')),
    [SOLO],
    'only the partition whose only replica is down is unavailable',
  );
  // KIP-966: the last ISR member fenced leaves the ISR empty, in the ELR and as the last known leader
  // (Kafka's controller does the same: replication-mixed-failover.test.ts)
  assert.equal(
    unavailable[0],
    `\tTopic: ${SOLO}\tPartition: 0\tLeader: none\tReplicas: ${KILLED}\tIsr: \tElr: ${KILLED}\tLastKnownElr: ${KILLED}`,
  );

  // ---- back: it catches up and rejoins every ISR
  await killed.start();
  const restartedAt = Date.now();
  await waitForUnfenced(cluster);
  await waitAllPartitions(cluster, TOPIC, `${KILLED} back in every ISR`, (p) => p.isr.length === 3, 120_000);
  t.diagnostic(`broker ${KILLED} back in every ISR ${Date.now() - restartedAt} ms after its restart`);
  await waitAllPartitions(cluster, SOLO, 'led again', (p) => p.leader === KILLED);
  assert.deepEqual(await describeTopics('caught up', ['--under-replicated-partitions']), []);
  assert.deepEqual(await describeTopics('caught up', ['--unavailable-partitions']), []);
  await describeTopics('caught up', []);

  const result = await perf;
  const perfMs = Date.now() - perfStarted;
  console.log(result.stdout);
  assert.equal(result.exitCode, 0, result.stderr);
  // the summary counts the acknowledged records only (PerfCallback records a send without an exception)
  const summary = new RegExp(`^${RECORDS} records sent, .* ms 99\\.9th\\.$`, 'm').exec(result.stdout);
  assert.ok(summary, `every record acknowledged:\n${result.stdout}\n${result.stderr.slice(-4000)}`);
  t.diagnostic(`perf test: ${RECORDS} records acknowledged in ${perfMs} ms (${summary[0]})`);
  assert.ok(perfEnded > restartedAt, 'the producer was still running when the broker came back');

  // ---- Kafka's console consumer reads them all back
  const consumerArgs = [
    '--bootstrap-server',
    cluster.bootstrap(),
    '--topic',
    TOPIC,
    '--from-beginning',
    '--timeout-ms',
    '10000',
  ];
  const consumed = await runKafkaTool('org.apache.kafka.tools.consumer.ConsoleConsumer', consumerArgs, {
    timeoutMs: 180_000,
  });
  const count = consumed.stdout.split('\n').filter((l) => l.length > 0).length;
  console.log(`$ kafka-console-consumer.sh ${consumerArgs.join(' ')} | wc -l\n${count}\n${consumed.stderr.trim()}`);
  assert.equal(count, RECORDS, consumed.stderr);
});

test('two brokers down: --under-min-isr-partitions, acks=all answered NOT_ENOUGH_REPLICAS', async (t) => {
  const survivor = cluster.node(2);
  await cluster.node(3).kill();
  await cluster.node(4).kill();
  const alone = (p: PartitionInfo): boolean => p.leader === 2 && p.isr.length === 1;
  await waitAllPartitions(cluster, TOPIC, 'led by 2 alone', alone);
  const underMin = await describeTopics('brokers 3 and 4 down', ['--under-min-isr-partitions']);
  for (let p = 0; p < 3; p++) {
    const line = partitionLine(underMin, TOPIC, p);
    assert.ok(line, `perf-${p} under min ISR`);
    assert.equal(field(line, 'Isr'), '2');
  }
  // a partition without a leader is listed too (TopicCommand: no leader, or ISR < min.insync.replicas)
  assert.ok(partitionLine(underMin, SOLO, 0));
  await describeTopics('brokers 3 and 4 down', ['--unavailable-partitions']);
  await describeTopics('brokers 3 and 4 down', []);
  // the leader's own image can lag the broker that answered Metadata: retried until it refuses
  for (let p = 0; p < 3; p++) {
    const code = await waitFor(
      async () => {
        const c = await produceRaw(survivor.port, TOPIC, ['refused'], { acks: -1, partition: p, timeoutMs: 1000 });
        return c === ErrorCode.NOT_ENOUGH_REPLICAS ? c : null;
      },
      { what: `acks=all to perf-${p} refused`, timeoutMs: 30_000, intervalMs: 200 },
    );
    t.diagnostic(`acks=all to perf-${p}: error ${code} (NOT_ENOUGH_REPLICAS)`);
  }
  console.log('acks=all Produce to perf-0..2 on broker 2: NOT_ENOUGH_REPLICAS (19)');
  // Kafka's producer sees it too: without retries the error reaches the perf test's callback
  const refusedArgs = [
    '--topic',
    TOPIC,
    '--num-records',
    '10',
    '--record-size',
    '100',
    '--throughput',
    '-1',
    '--bootstrap-server',
    cluster.bootstrap(),
    '--command-property',
    'acks=all',
    'retries=0',
    'enable.idempotence=false',
  ];
  const refused = await runKafkaTool('org.apache.kafka.tools.ProducerPerformance', refusedArgs, {
    timeoutMs: 120_000,
  });
  const summary = /^\d+ records sent, .*$/m.exec(refused.stdout)?.[0] ?? '';
  const exception = /^org\.apache\.kafka\.common\.errors\.\w+Exception.*$/m.exec(refused.stderr)?.[0] ?? '';
  console.log(`$ kafka-producer-perf-test.sh ${refusedArgs.join(' ')}\n${exception}\n${summary}`);
  assert.match(exception, /NotEnoughReplicasException/, refused.stderr.slice(-4000));
  assert.match(summary, /^0 records sent/);
  // acks=1 still lands
  assert.equal(await produceRaw(survivor.port, TOPIC, ['one'], { acks: 1, partition: 0 }), ErrorCode.NONE);
});
