// `tkafka replica-verification` on a tkafka cluster (1 controller + 3 brokers, topic rv: 3 partitions
// at RF 3 with 6, 4 and 2 records written with acks=all; helpers/replica-verification-scenario.ts).
// From the earliest offsets every replica's batches are fetched (followers too, as the debugging
// consumer) and compared: no checksum or offset mismatch, and the reports reach `max lag is 0` for
// rv-2 at offset 2 (the first partition in Java's HashMap order) among 3 partitions. From the latest
// offsets (the default) the lag is 0 from the start; new records are verified as they arrive; a
// filter matching no topic fails as Kafka's does. Kafka's own tool against the same kind of cluster:
// test/interop/replica-verification.test.ts.
//
//   npm run build && nice -n 19 node --test dist/test/replica-verification-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { produceRawAppended } from './helpers/replication.js';
import { runTkafka } from './interop/helpers/tool-runs.js';
import {
  RV_CAUGHT_UP,
  RV_TOPIC,
  RV_UNMATCHED,
  divergeFollowerCopy,
  maskDates,
  prepareRvTopic,
  startRvCluster,
} from './helpers/replica-verification-scenario.js';

let cluster: Cluster;

before(async () => {
  cluster = await startRvCluster(tkafkaLauncher);
  await prepareRvTopic(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

const verify = (extra: string[], topics = RV_TOPIC) =>
  runTkafka('replica-verification', [
    '--broker-list',
    cluster.bootstrap(),
    '--topics-include',
    topics,
    '--max-wait-ms',
    '200',
    '--report-interval-ms',
    '300',
    ...extra,
  ]);

test('from the earliest offsets: every batch matches on the 3 replicas and the lag reaches 0', async (t) => {
  const r = await verify(['--time', '-2', '--max-reports', '4']);
  t.diagnostic(r.out);
  assert.equal(r.code, 0, r.err);
  const lines = maskDates(r.out);
  assert.equal(lines[0], '<date>: verification process is started');
  assert.ok(
    lines.every((l) => !l.includes('checksum') && !l.includes("doesn't match")),
    r.out,
  );
  assert.equal(lines.filter((l) => l.includes(': max lag is ')).length, 4);
  assert.equal(lines.at(-1), `<date>: ${RV_CAUGHT_UP}`);
});

test('from the latest offsets (the default) the lag is 0 at the end offsets; records written meanwhile are followed', async (t) => {
  const first = await verify(['--max-reports', '1']);
  assert.equal(first.code, 0, first.err);
  assert.deepEqual(maskDates(first.out), ['<date>: verification process is started', `<date>: ${RV_CAUGHT_UP}`]);
  // 2 more records on rv-2 (led by broker 4): the tool follows them to the new end
  const running = verify(['--max-reports', '6']);
  await produceRawAppended(cluster.node(4).port, RV_TOPIC, ['late-0', 'late-1'], { acks: -1, partition: 2 });
  const r = await running;
  t.diagnostic(r.out);
  assert.equal(r.code, 0, r.err);
  assert.equal(maskDates(r.out).at(-1), '<date>: max lag is 0 for partition rv-2 at offset 4 among 3 partitions');
});

test('a filter matching no topic, a negative --time other than -1/-2: the error on stderr, exit 1', async () => {
  const r = await verify(['--max-reports', '1'], 'nothing-here.*');
  assert.equal(r.code, 1);
  assert.equal(r.out, '');
  assert.match(
    r.err,
    /No topics found\. \[topics-include\] if specified, is either filtering out all topics or there is no topic\./,
  );
  const negative = await verify(['--time', '-3', '--max-reports', '1']);
  assert.equal(negative.code, 1);
  assert.equal(negative.out, '');
  assert.equal(negative.err, 'The target time for partition rv-2 is -3. The target time cannot be negative.\n');
});

test('a follower copy with other data at the same offsets: the unmatched checksum line, and verification goes on', async (t) => {
  await divergeFollowerCopy(cluster);
  const r = await verify(['--time', '-2', '--max-reports', '2']);
  t.diagnostic(r.out);
  assert.equal(r.code, 0, r.err);
  const lines = maskDates(r.out).map((l) => l.replace(/^<date>: /, ''));
  assert.ok(
    lines.some((l) => RV_UNMATCHED.test(l)),
    r.out,
  );
  assert.equal(lines.at(-1), 'max lag is 0 for partition rv-2 at offset 4 among 3 partitions');
});
