// `tkafka top` against Apache Kafka 4.4.0 (one combined KRaft node): under a pseudo-terminal the
// view lists the broker and the quorum leader, a non-zero produce rate while a bounded producer
// runs, and a group with the lag `consumer-groups --describe` reports (tkafka's and Kafka's own
// ConsumerGroupCommand); `--output json` is one snapshot with the same numbers; piped output is
// plain lines without escape codes.
//
//   npm run build && nice -n 19 node --test --test-concurrency=1 dist/test/interop/top-kafka.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { hasScript } from '../helpers/pty.js';
import {
  checkLiveView,
  checkSnapshotAndPiped,
  commitOffsets,
  describeLag,
  describeShareLag,
  parseDescribe,
  parseShareDescribe,
  produce,
  shareGroupAtEarliest,
  tkafka,
  topJson,
} from '../helpers/top.js';

const BUSY = 'top-busy';
const LAGGING = 'top-lag';
const GROUP = 'top-group';
const SHARE = 'top-share';
let kafka: ApacheKafka;

before(async () => {
  kafka = await startApacheKafka();
  for (const topic of [BUSY, LAGGING]) {
    const r = await tkafka([
      'topics',
      '--bootstrap-server',
      kafka.bootstrap,
      '--create',
      '--topic',
      topic,
      '--partitions',
      '3',
    ]);
    assert.equal(r.exitCode, 0, r.stderr);
    await kafka.waitForTopic(topic, { partitions: 3 });
  }
  await produce(kafka.bootstrap, LAGGING, 300);
  await commitOffsets(kafka.bootstrap, GROUP, LAGGING, 5);
  await shareGroupAtEarliest(kafka.bootstrap, SHARE, LAGGING);
});

after(async () => {
  await kafka?.cleanup();
});

test('Kafka: live view: broker, produce rate, group lag', { skip: !hasScript() }, async () => {
  const frame = await checkLiveView({
    bootstrap: kafka.bootstrap,
    busy: BUSY,
    group: GROUP,
    brokerIds: [kafka.nodeId],
  });
  assert.match(frame, new RegExp(`quorum leader ${kafka.nodeId} `), frame);
});

test("Kafka: json snapshot and piped lines; the lag is Kafka's tool's", async () => {
  await checkSnapshotAndPiped(kafka.bootstrap, GROUP);
  const theirs = await kafka.runTool('org.apache.kafka.tools.consumer.group.ConsumerGroupCommand', [
    '--bootstrap-server',
    kafka.bootstrap,
    '--describe',
    '--group',
    GROUP,
  ]);
  assert.equal(theirs.exitCode, 0, theirs.stderr);
  assert.deepEqual(parseDescribe(theirs.stdout, GROUP), await describeLag(kafka.bootstrap, GROUP));
  const j = await topJson(kafka.bootstrap, ['--iterations', '1']);
  assert.equal(j.clusterId, kafka.clusterId);
  assert.equal(j.quorumLeader, kafka.nodeId);
  assert.deepEqual(
    j.brokers.map((b) => [b.id, b.state, b.quorumLeader]),
    [[kafka.nodeId, 'unfenced', true]],
  );
  assert.equal(j.underReplicatedPartitions, 0);
  assert.equal(j.offlinePartitions, 0);
  assert.deepEqual(j.topics.map((t) => t.name).sort(), [BUSY, LAGGING]);
  assert.deepEqual(
    j.groups.map((g) => [g.group, g.type]),
    [
      [SHARE, 'share'],
      [GROUP, 'classic'],
    ],
  );
});

test("Kafka: a share group's lag is Kafka's ShareGroupCommand's", async () => {
  const theirs = await kafka.runTool('org.apache.kafka.tools.consumer.group.ShareGroupCommand', [
    '--bootstrap-server',
    kafka.bootstrap,
    '--describe',
    '--group',
    SHARE,
  ]);
  assert.equal(theirs.exitCode, 0, theirs.stderr);
  const lags = parseShareDescribe(theirs.stdout, SHARE);
  assert.deepEqual(lags, await describeShareLag(kafka.bootstrap, SHARE));
  const j = await topJson(kafka.bootstrap, ['--iterations', '1', '--group', SHARE]);
  assert.equal(j.groups.length, 1);
  assert.equal(
    BigInt(j.groups[0]!.totalLag),
    [...lags.values()].reduce((n, l) => n + l, 0n),
  );
  assert.equal(j.groups[0]!.totalLag, 300);
  for (const p of j.groups[0]!.partitions) assert.equal(BigInt(p.lag), lags.get(`${p.topic}-${p.partition}`));
});
