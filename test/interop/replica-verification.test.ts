// `tkafka replica-verification` and Kafka 4.4.0's ReplicaVerificationTool (kafka-replica-verification.sh)
// against the same cluster: 1 controller + 3 brokers, tkafka (the default) or Apache Kafka 4.4.0 with
// TKAFKA_RV_CLUSTER=kafka; topic rv with 3 partitions at RF 3 and 6, 4, 2 records
// (helpers/replica-verification-scenario.ts). Kafka's tool runs until it is killed (here after 12 s);
// tkafka's stops after N reports (--max-reports, a tkafka extension). With the dates masked both print
// `verification process is started`, then only `max lag is 0 for partition rv-2 at offset 2 among 3
// partitions` once caught up, and no mismatch. A filter matching no topic: both exit 1 with the error.
// A follower copy changed on disk (same offsets, other data, a valid CRC): both print the same
// `unmatched checksum` line, checksums included.
//
//   npm run build && nice -n 19 node --test dist/test/interop/replica-verification.test.js
//   TKAFKA_RV_CLUSTER=kafka nice -n 19 node --test dist/test/interop/replica-verification.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tkafkaLauncher, type Cluster } from '../helpers/cluster.js';
import {
  RV_CAUGHT_UP,
  RV_TOPIC,
  RV_UNMATCHED,
  divergeFollowerCopy,
  maskDates,
  prepareRvTopic,
  startRvCluster,
} from '../helpers/replica-verification-scenario.js';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';
import { runTkafka } from './helpers/tool-runs.js';

const CLUSTER = process.env.TKAFKA_RV_CLUSTER === 'kafka' ? 'kafka' : 'tkafka';
const TOOL = 'org.apache.kafka.tools.ReplicaVerificationTool';

let cluster: Cluster;

before(async () => {
  cluster = await startRvCluster(CLUSTER === 'tkafka' ? tkafkaLauncher : kafkaLauncher());
  await prepareRvTopic(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

const args = (topics: string, time = '-2'): string[] => [
  '--broker-list',
  cluster.bootstrap(),
  '--topics-include',
  topics,
  '--time',
  time,
  '--max-wait-ms',
  '200',
  '--report-interval-ms',
  '1000',
];

/** The lines once caught up: from the first `max lag is 0` report on. */
const steady = (lines: string[]): string[] => lines.slice(lines.findIndex((l) => l.includes('max lag is 0 ')));

test(`on a ${CLUSTER} cluster: the same lines as kafka-replica-verification.sh, dates masked`, async (t) => {
  const kafka = await runKafkaTool(TOOL, args(RV_TOPIC), { timeoutMs: 12_000 });
  t.diagnostic(`kafka-replica-verification.sh:\n${kafka.stdout}`);
  const kafkaLines = maskDates(kafka.stdout);
  const ours = await runTkafka('replica-verification', [...args(RV_TOPIC), '--max-reports', '3']);
  t.diagnostic(`tkafka replica-verification:\n${ours.out}`);
  assert.equal(ours.code, 0, ours.err);
  const ourLines = maskDates(ours.out);
  assert.equal(kafkaLines[0], '<date>: verification process is started', kafka.stdout + kafka.stderr);
  assert.equal(ourLines[0], kafkaLines[0]);
  // both reach the caught-up report and print nothing else from then on
  const caughtUp = `<date>: ${RV_CAUGHT_UP}`;
  assert.ok(steady(kafkaLines).length >= 2, kafka.stdout);
  assert.deepEqual(new Set(steady(kafkaLines)), new Set([caughtUp]));
  assert.deepEqual(new Set(steady(ourLines)), new Set([caughtUp]));
  assert.equal(ourLines.at(-1), caughtUp);
  // any report before catching up is a max lag line too (a follower's high watermark one fetch behind)
  for (const l of [...kafkaLines.slice(1), ...ourLines.slice(1)])
    assert.match(l, /^<date>: max lag is \d+ for partition rv-\d /);
});

test('a filter matching no topic, a negative --time other than -1/-2: both exit 1 with the error', async () => {
  const kafka = await runKafkaTool(TOOL, args('nothing-here.*'), { timeoutMs: 60_000 });
  const ours = await runTkafka('replica-verification', args('nothing-here.*'));
  const message =
    'No topics found. [topics-include] if specified, is either filtering out all topics or there is no topic.';
  assert.equal(kafka.exitCode, 1, kafka.stderr);
  assert.ok(kafka.stderr.includes(`ERROR ${message}`), kafka.stderr);
  assert.equal(ours.code, 1);
  assert.ok(ours.err.includes(`ERROR ${message}`), ours.err);
  assert.equal(ours.out, kafka.stdout);
  const kafkaNegative = await runKafkaTool(TOOL, args(RV_TOPIC, '-3'), { timeoutMs: 60_000 });
  const oursNegative = await runTkafka('replica-verification', args(RV_TOPIC, '-3'));
  const negative = 'The target time for partition rv-2 is -3. The target time cannot be negative.';
  assert.equal(kafkaNegative.exitCode, 1, kafkaNegative.stderr);
  assert.ok(kafkaNegative.stderr.includes(`\n${negative}\n`), kafkaNegative.stderr);
  assert.equal(oursNegative.code, 1);
  assert.equal(oursNegative.err, `${negative}\n`);
});

test('a follower copy with other data at the same offsets: the same unmatched checksum line (same checksums) from both', async (t) => {
  await divergeFollowerCopy(cluster);
  const kafka = await runKafkaTool(TOOL, args(RV_TOPIC), { timeoutMs: 12_000 });
  t.diagnostic(`kafka-replica-verification.sh:\n${kafka.stdout}`);
  const ours = await runTkafka('replica-verification', [...args(RV_TOPIC), '--max-reports', '2']);
  t.diagnostic(`tkafka replica-verification:\n${ours.out}`);
  assert.equal(ours.code, 0, ours.err);
  const unmatched = (out: string): string[] =>
    maskDates(out)
      .map((l) => l.replace(/^<date>: /, ''))
      .filter((l) => l.includes('unmatched'));
  const kafkaUnmatched = unmatched(kafka.stdout);
  assert.ok(kafkaUnmatched.length > 0 && RV_UNMATCHED.test(kafkaUnmatched[0]!), kafka.stdout);
  assert.deepEqual(new Set(unmatched(ours.out)), new Set(kafkaUnmatched));
});
