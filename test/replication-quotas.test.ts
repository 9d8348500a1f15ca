// Replication throttles' quota and rate window (src/broker/replication/replication-quotas.ts): the
// cases of Kafka's ReplicationQuotaManagerTest on a mock clock, ConfigHandler.parseThrottledPartitions,
// the rates and throttled lists read from a metadata image, and the leader side in a ReplicaManager
// over real logs (ReplicaManager.shouldLeaderThrottle, DelayedFetch's throttled partitions).
//
//   npm run build && nice -n 19 node --test dist/test/replication-quotas.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  parseThrottledPartitions,
  ReplicationQuotaManager,
  ReplicationQuotas,
  UNBOUNDED,
} from '../src/broker/replication/replication-quotas.js';
import { ConfigResourceType, configResourceKey, MetadataImage } from '../src/broker/metadata/image.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { DirectoryLogStore } from '../src/broker/replication/log-store.js';
import { ReplicaManager } from '../src/broker/replication/replica-manager.js';
import { APPEND, fetchParams, fetchRequest, recordBatch, TOPIC_ID } from './helpers/replica-requests.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';

const TOPIC_ID_U = 'dGtha2ZrYS10b3BpYy11dQ';

test('shouldThrottleOnlyDefinedReplicas', () => {
  const quota = new ReplicationQuotaManager();
  quota.markThrottled('topic1', [1, 2, 3]);
  assert.ok(quota.isThrottled('topic1', 1));
  assert.ok(quota.isThrottled('topic1', 2));
  assert.ok(quota.isThrottled('topic1', 3));
  assert.ok(!quota.isThrottled('topic1', 4));
});

test('shouldSupportWildcardThrottledReplicas', () => {
  const quota = new ReplicationQuotaManager();
  quota.markThrottled('MyTopic');
  assert.ok(quota.isThrottled('MyTopic', 0));
  assert.ok(!quota.isThrottled('MyOtherTopic', 0));
  quota.removeThrottle('MyTopic');
  assert.ok(!quota.isThrottled('MyTopic', 0));
});

test('shouldExceedQuotaThenReturnBackBelowBoundAsTimePasses', () => {
  let now = 0;
  const sleep = (ms: number): void => {
    now += ms;
  };
  const quota = new ReplicationQuotaManager({ samples: 10, windowMs: 1000 }, () => now);
  quota.updateQuota(100);
  // quota should not be broken when we start
  assert.equal(quota.isQuotaExceeded(), false);
  // first window is fixed, so we'll skip it
  sleep(1000);
  // when we record up to the quota value after half a window
  sleep(500);
  quota.record(1);
  assert.equal(quota.isQuotaExceeded(), false);
  // half the quota, half way through the window: still not broken
  quota.record(149); // 150 B, 1.5 s
  assert.equal(quota.isQuotaExceeded(), false);
  // a byte more breaks it
  quota.record(1); // 151 B, 1.5 s
  assert.equal(quota.measuredRate(), 151 / 1.5);
  assert.equal(quota.isQuotaExceeded(), true);
  // the remaining half window: the rate halves, back below the quota
  sleep(500); // 151 B, 2 s
  assert.equal(quota.isQuotaExceeded(), false);
  assert.ok(Math.abs(quota.measuredRate() - 151 / 2) <= 0.1);
  // half way through the second window
  sleep(500);
  quota.record(99); // 250 B, 2.5 s
  assert.equal(quota.measuredRate(), 250 / 2.5);
  assert.equal(quota.isQuotaExceeded(), false);
  quota.record(1);
  assert.equal(quota.isQuotaExceeded(), true);
  assert.equal(quota.measuredRate(), 251 / 2.5);
  // two more windows
  sleep(2 * 1000); // 4.5 s
  assert.equal(quota.isQuotaExceeded(), false);
  assert.equal(quota.measuredRate(), 251 / 4.5);
});

test('samples older than the window are dropped; a quota never set is never exceeded', () => {
  let now = 0;
  const quota = new ReplicationQuotaManager({ samples: 11, windowMs: 1000 }, () => now);
  quota.record(1_000_000);
  assert.equal(quota.isQuotaExceeded(), false, 'no bound: Long.MAX');
  assert.equal(quota.upperBound(), UNBOUNDED);
  quota.updateQuota(1000);
  assert.equal(quota.isQuotaExceeded(), true);
  // 11 windows later the sample has no event within samples × window: reset
  now += 11_000;
  assert.equal(quota.measuredRate(), 0);
  assert.equal(quota.isQuotaExceeded(), false);
  // a steady 1000 B/s for 30 s, recorded at each window's start, measured as Kafka's SampledStat
  // does: the sample whose last event is samples × window old is reset, leaving 11 over 10 s
  for (let i = 0; i < 30; i++) {
    now += 1000;
    quota.record(1000);
  }
  assert.equal(quota.measuredRate(), 11000 / 10);
  assert.equal(quota.isQuotaExceeded(), true);
  now += 500;
  assert.equal(quota.measuredRate(), 11000 / 10.5);
  assert.equal(quota.isQuotaExceeded(), true);
  now += 500;
  quota.record(0);
  assert.equal(quota.measuredRate(), 10000 / 10);
  assert.equal(quota.isQuotaExceeded(), false, 'at the bound is within it');
});

test('parseThrottledPartitions: * is all partitions, pairs naming this broker give their partitions', () => {
  assert.equal(parseThrottledPartitions('*', 1), '*');
  assert.equal(parseThrottledPartitions(' * ', 1), '*');
  assert.deepEqual(parseThrottledPartitions('', 1), []);
  assert.deepEqual(parseThrottledPartitions('0:1,1:2,2:1,3:10', 1), [0, 2]);
  assert.deepEqual(parseThrottledPartitions('0:1,1:2,2:1', 2), [1]);
  assert.deepEqual(parseThrottledPartitions('0:1', 3), []);
});

function imageWith(configs: Array<[number, string, Record<string, string>]>): MetadataImage {
  return MetadataImage.empty().with({
    configs: new Map(configs.map(([type, name, c]) => [configResourceKey(type, name), new Map(Object.entries(c))])),
  });
}

test('ReplicationQuotas: rates from this broker, else the cluster default, else Long.MAX; lists from topic configs', () => {
  let image = imageWith([
    [ConfigResourceType.Broker, '2', { 'leader.replication.throttled.rate': '200000' }],
    [
      ConfigResourceType.Broker,
      '',
      { 'leader.replication.throttled.rate': '1', 'follower.replication.throttled.rate': '300000' },
    ],
    [ConfigResourceType.Broker, '3', { 'replica.alter.log.dirs.io.max.bytes.per.second': '5000' }],
    [
      ConfigResourceType.Topic,
      'moving',
      { 'leader.replication.throttled.replicas': '0:2,1:3', 'follower.replication.throttled.replicas': '*' },
    ],
    [ConfigResourceType.Topic, 'other', { 'leader.replication.throttled.replicas': '' }],
  ]);
  const q2 = new ReplicationQuotas(2, () => image);
  const q3 = new ReplicationQuotas(3, () => image);
  assert.equal(q2.refresh().leader.upperBound(), 200000);
  assert.equal(q2.follower.upperBound(), 300000);
  assert.equal(q2.alterLogDirs.upperBound(), UNBOUNDED);
  assert.equal(q3.refresh().leader.upperBound(), 1);
  assert.equal(q3.alterLogDirs.upperBound(), 5000);
  assert.ok(q2.leader.isThrottled('moving', 0));
  assert.ok(!q2.leader.isThrottled('moving', 1));
  assert.ok(q3.leader.isThrottled('moving', 1));
  assert.ok(q2.follower.isThrottled('moving', 7));
  assert.ok(!q2.leader.isThrottled('other', 0));
  // a new image: the configs are read again (deleted rate → Long.MAX, removed list → unthrottled)
  image = imageWith([[ConfigResourceType.Topic, 'moving', { 'follower.replication.throttled.replicas': '0:2' }]]);
  q2.refresh();
  assert.equal(q2.leader.upperBound(), UNBOUNDED);
  assert.equal(q2.follower.upperBound(), UNBOUNDED);
  assert.ok(!q2.leader.isThrottled('moving', 0));
  assert.ok(q2.follower.isThrottled('moving', 0));
  assert.ok(!q2.follower.isThrottled('moving', 1));
});

test('leader side: a throttled follower outside the ISR gets no records once over the quota; ISR members always do', async () => {
  const dir = await tempDir('tkafka-throttle-');
  const now = { ms: Date.now() };
  const image = imageWith([
    [ConfigResourceType.Broker, '1', { 'leader.replication.throttled.rate': '1000' }],
    [ConfigResourceType.Topic, 't', { 'leader.replication.throttled.replicas': '0:1' }],
  ]);
  const rm = new ReplicaManager({
    nodeId: 1,
    logs: new DirectoryLogStore(dir, { clock: () => now.ms }),
    clock: () => now.ms,
    metadata: () => image,
  });
  try {
    await rm.ensurePartition('t', TOPIC_ID, 0, 0, {}, { replicas: [1, 2, 3], isr: [1, 2] });
    await rm.ensurePartition('u', TOPIC_ID_U, 0, 0, {}, { replicas: [1, 2, 3], isr: [1, 2] });
    for (const topic of ['t', 'u'])
      assert.equal((await rm.appendRecords(topic, 0, recordBatch(50, 'x'.repeat(100)), APPEND)).errorCode, 0, topic);
    const u = fetchRequest(0, { topic: 'u', topicId: TOPIC_ID_U });
    // under the quota: replica 3 (not in the ISR) reads, and the bytes count against the quota
    const [first, firstU] = await rm.fetchMessages(fetchParams(3), [fetchRequest(0), u]);
    assert.ok(first!.records.length > 1000, 'the first fetch is under the quota');
    assert.ok(firstU!.records.length > 1000);
    assert.equal(rm.quotas.leader.measuredRate(), first!.records.length, 'only the throttled partition counts');
    assert.ok(rm.quotas.leader.isQuotaExceeded());
    // over it: no records for the throttled partition, the other one unchanged
    const [second, secondU] = await rm.fetchMessages(fetchParams(3), [fetchRequest(0), u]);
    assert.equal(second!.errorCode, ErrorCode.NONE);
    assert.equal(second!.records.length, 0);
    assert.equal(secondU!.records.length, firstU!.records.length);
    // an in-sync follower is never slowed
    const [isr] = await rm.fetchMessages(fetchParams(2), [fetchRequest(0)]);
    assert.equal(isr!.records.length, first!.records.length);
    // a waiting fetch does not count the throttled partition's bytes: it waits out max.wait.ms
    const started = Date.now();
    const [waited] = await rm.fetchMessages(fetchParams(3, { maxWaitMs: 100, minBytes: 1 }), [fetchRequest(0)]);
    assert.equal(waited!.records.length, 0);
    assert.ok(Date.now() - started >= 90, 'parked until max.wait.ms');
    // time passes: the rate falls under the bound and replica 3 reads again
    now.ms += 60_000;
    const [later] = await rm.fetchMessages(fetchParams(3), [fetchRequest(0)]);
    assert.equal(later!.records.length, first!.records.length);
  } finally {
    await rm.shutdown();
    await removeDir(dir);
  }
});
