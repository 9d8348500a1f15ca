// Share groups (KIP-932) on a real `tkafka server start` process, with raw requests: a new cluster
// finalizes share.version 2 and advertises ShareGroupHeartbeat/ShareGroupDescribe v1; members join
// with their own ids, heartbeat, are described, listed with the share type and leave; the group and
// its members survive a broker restart (replayed from __consumer_offsets); the share-group offsets APIs
// answer their group-level errors; turning share.version off
// answers UNSUPPORTED_VERSION as KafkaApis does. The group coordinator initializes the share-partition
// state through the share coordinator (__share_group_state) after the first join; the test waits for it.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode as E } from '../src/protocol/errors.js';

let broker: BrokerProcess;
let c: RawClient;

before(async () => {
  broker = await startBroker({ overrides: { 'offsets.topic.num.partitions': 3 } });
  c = await RawClient.connect(broker.port);
});

after(async () => {
  c?.close();
  await broker?.stop();
  broker?.cleanup();
});

async function createTopic(name: string, partitions: number): Promise<string> {
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(r.topics[0]!.errorCode, E.NONE);
  return waitFor(
    async () => {
      const m = await c.request(ApiKey.Metadata, 12, {
        topics: [{ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const t = m.topics[0]!;
      return t.errorCode === E.NONE && t.partitions.length === partitions && t.partitions.every((p) => p.leaderId >= 0)
        ? (t.topicId as string)
        : null;
    },
    { what: `${name} to have leaders`, timeoutMs: 15_000 },
  );
}

type Hb = { memberId: string; memberEpoch: number; subscribedTopicNames?: string[] | null };

/** ShareGroupHeartbeat v1, retried while the coordinator is not there yet (the client's behaviour). */
async function heartbeat(groupId: string, h: Hb) {
  return waitFor(
    async () => {
      const r = await c.request(ApiKey.ShareGroupHeartbeat, 1, {
        groupId,
        memberId: h.memberId,
        memberEpoch: h.memberEpoch,
        rackId: null,
        subscribedTopicNames: h.subscribedTopicNames ?? null,
      });
      if (
        ([E.COORDINATOR_NOT_AVAILABLE, E.COORDINATOR_LOAD_IN_PROGRESS, E.NOT_COORDINATOR] as number[]).includes(
          r.errorCode,
        )
      ) {
        // the first FindCoordinator creates __consumer_offsets
        await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
        return null;
      }
      return r;
    },
    { what: `a ShareGroupHeartbeat answer for ${groupId}`, timeoutMs: 30_000 },
  );
}

async function describe(groupIds: string[]) {
  const r = await c.request(ApiKey.ShareGroupDescribe, 1, { groupIds, includeAuthorizedOperations: true });
  return r.groups;
}

async function finalizedShareVersion(): Promise<number | undefined> {
  const r = await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  return (r.finalizedFeatures as { name: string; maxVersionLevel: number }[]).find((f) => f.name === 'share.version')
    ?.maxVersionLevel;
}

test('share.version 2 is finalized and ShareGroupHeartbeat/ShareGroupDescribe v1 are advertised', async () => {
  assert.equal(await finalizedShareVersion(), 2);
  const r = await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  const keys = new Map(
    (r.apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[]).map((k) => [
      k.apiKey,
      [k.minVersion, k.maxVersion],
    ]),
  );
  assert.deepEqual(keys.get(ApiKey.ShareGroupHeartbeat), [1, 1]);
  assert.deepEqual(keys.get(ApiKey.ShareGroupDescribe), [1, 1]);
  assert.deepEqual(keys.get(ApiKey.DescribeShareGroupOffsets), [0, 1]);
  const supported = (r.supportedFeatures as { name: string; minVersion: number; maxVersion: number }[]).find(
    (f) => f.name === 'share.version',
  );
  assert.deepEqual([supported?.minVersion, supported?.maxVersion], [0, 2]);
});

test('join, heartbeat, describe, list, leave; the group survives a restart', { timeout: 180_000 }, async () => {
  const topicId = await createTopic('sq', 2);
  const a = await heartbeat('sg1', { memberId: 'member-a', memberEpoch: 0, subscribedTopicNames: ['sq'] });
  assert.equal(a.errorCode, E.NONE, a.errorMessage ?? '');
  assert.equal(a.memberId, 'member-a');
  assert.equal(a.memberEpoch, 2, 'a new group is at epoch 1: the first join bumps it to 2');
  assert.equal(a.heartbeatIntervalMs, 5000);
  assert.deepEqual(a.assignment, { topicPartitions: [] });
  // the share-partitions' state is initialized after the answer (start offset -1: a new topic)
  const initialized = await waitFor(
    async () => {
      const o = await c.request(ApiKey.DescribeShareGroupOffsets, 1, { groups: [{ groupId: 'sg1', topics: null }] });
      const ps = o.groups[0]!.topics.flatMap((t) =>
        t.partitions.map((p) => [t.topicName, p.partitionIndex, p.startOffset]),
      );
      return ps.length === 2 ? ps : null;
    },
    { what: 'the share-partitions of sq to be initialized', timeoutMs: 30_000 },
  );
  assert.deepEqual(initialized.sort(), [
    ['sq', 0, -1n],
    ['sq', 1, -1n],
  ]);

  // Kafka's checks: an empty member id (KafkaApis), an epoch ahead of the coordinator's
  const noId = await heartbeat('sg1', { memberId: '', memberEpoch: 0, subscribedTopicNames: ['sq'] });
  assert.equal(noId.errorCode, E.INVALID_REQUEST);
  const ahead = await heartbeat('sg1', { memberId: 'member-a', memberEpoch: 9 });
  assert.equal(ahead.errorCode, E.FENCED_MEMBER_EPOCH);
  assert.match(ahead.errorMessage ?? '', /^The share group member has a greater member epoch \(9\)/);

  const b = await heartbeat('sg1', { memberId: 'member-b', memberEpoch: 0, subscribedTopicNames: ['sq'] });
  assert.equal(b.memberEpoch, 3);
  const steady = await heartbeat('sg1', { memberId: 'member-a', memberEpoch: 2 });
  assert.equal(steady.errorCode, E.NONE);
  assert.equal(steady.memberEpoch, 3);

  const [d] = await describe(['sg1']);
  assert.equal(d!.errorCode, E.NONE);
  assert.equal(d!.groupState, 'Stable');
  assert.equal(d!.groupEpoch, 3);
  assert.equal(d!.assignmentEpoch, 3);
  assert.equal(d!.assignorName, 'simple');
  assert.deepEqual(d!.members.map((m) => [m.memberId, m.memberEpoch, m.clientId, m.subscribedTopicNames]).sort(), [
    ['member-a', 3, 'raw-test', ['sq']],
    ['member-b', 3, 'raw-test', ['sq']],
  ]);
  assert.match(d!.members[0]!.clientHost, /^\/127\.0\.0\.1$/);
  assert.notEqual(d!.authorizedOperations, -2147483648);

  const listed = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['share'] });
  assert.deepEqual(
    listed.groups.map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]),
    [['sg1', 'share', 'Stable', 'share']],
  );
  const classic = await c.request(ApiKey.DescribeGroups, 6, { groups: ['sg1'], includeAuthorizedOperations: false });
  assert.equal(classic.groups[0]!.errorCode, E.GROUP_ID_NOT_FOUND);
  assert.equal(classic.groups[0]!.errorMessage, 'Group sg1 is not a classic group.');

  const leave = await heartbeat('sg1', { memberId: 'member-b', memberEpoch: -1 });
  assert.deepEqual([leave.errorCode, leave.memberId, leave.memberEpoch], [E.NONE, 'member-b', -1]);
  const [afterLeave] = await describe(['sg1']);
  assert.deepEqual(
    afterLeave!.members.map((m) => m.memberId),
    ['member-a'],
  );
  assert.equal(afterLeave!.groupEpoch, 4);

  // share-group offsets: alter needs an empty group
  const busy = await c.request(ApiKey.AlterShareGroupOffsets, 0, {
    groupId: 'sg1',
    topics: [{ topicName: 'sq', partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
  });
  assert.deepEqual([busy.errorCode, busy.errorMessage], [E.NON_EMPTY_GROUP, 'The group is not empty.']);

  const [unknown] = await describe(['nope']);
  assert.deepEqual([unknown!.errorCode, unknown!.errorMessage], [E.GROUP_ID_NOT_FOUND, 'Group nope not found.']);

  // restart: the group is replayed from __consumer_offsets
  c.close();
  await broker.restart();
  c = await RawClient.connect(broker.port);
  const [reloaded] = await waitFor(
    async () => {
      const g = await describe(['sg1']);
      return g[0]!.errorCode === E.NONE ? g : null;
    },
    { what: 'sg1 to be loaded after the restart', timeoutMs: 30_000 },
  );
  assert.equal(reloaded!.groupEpoch, 4);
  assert.deepEqual(
    reloaded!.members.map((m) => [m.memberId, m.memberEpoch, m.subscribedTopicNames]),
    [['member-a', 3, ['sq']]],
  );
  // member-a carries on at its epoch; the group epoch it missed (b's leave) is its new one
  const again = await heartbeat('sg1', { memberId: 'member-a', memberEpoch: 3 });
  assert.equal(again.errorCode, E.NONE, again.errorMessage ?? '');
  assert.equal(again.memberEpoch, 4);
  const gone = await heartbeat('sg1', { memberId: 'member-a', memberEpoch: -1 });
  assert.equal(gone.memberEpoch, -1);
  const [empty] = await describe(['sg1']);
  assert.equal(empty!.groupState, 'Empty');
  const del = await c.request(ApiKey.DeleteShareGroupOffsets, 0, { groupId: 'sg1', topics: [{ topicName: 'sq' }] });
  assert.equal(del.errorCode, E.NONE);
  assert.deepEqual(
    del.responses.map((r) => [r.topicName, r.topicId, r.errorCode, r.errorMessage]),
    [['sq', topicId, E.NONE, null]],
  );
  const alterUnknown = await c.request(ApiKey.AlterShareGroupOffsets, 0, {
    groupId: 'sg1',
    topics: [{ topicName: 'nope', partitions: [{ partitionIndex: 0, startOffset: 0n }] }],
  });
  assert.deepEqual(
    alterUnknown.responses.map((r) => [r.topicName, r.partitions.map((p) => p.errorCode)]),
    [['nope', [E.UNKNOWN_TOPIC_OR_PARTITION]]],
  );
});

test('share.version off: the share APIs answer UNSUPPORTED_VERSION', async () => {
  const down = await c.request(ApiKey.UpdateFeatures, 1, {
    timeoutMs: 10_000,
    featureUpdates: [{ feature: 'share.version', maxVersionLevel: 0, upgradeType: 2 }],
    validateOnly: false,
  });
  assert.equal(down.errorCode, E.NONE, down.errorMessage ?? '');
  await waitFor(async () => ((await finalizedShareVersion()) ?? 0) === 0, {
    what: 'share.version to be off',
    timeoutMs: 15_000,
  });
  const r = await c.request(ApiKey.ShareGroupHeartbeat, 1, {
    groupId: 'sg2',
    memberId: 'm',
    memberEpoch: 0,
    rackId: null,
    subscribedTopicNames: ['sq'],
  });
  assert.deepEqual([r.errorCode, r.errorMessage], [E.UNSUPPORTED_VERSION, null]);
  const [d] = await describe(['sg2']);
  assert.deepEqual([d!.errorCode, d!.errorMessage], [E.UNSUPPORTED_VERSION, 'The version of API is not supported.']);
  // ShareFetch and ShareAcknowledge too, before any other check (KafkaApis.isShareGroupProtocolEnabled)
  const f = await c.request(ApiKey.ShareFetch, 2, {
    groupId: 'sg2',
    memberId: '',
    shareSessionEpoch: 0,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1000,
    maxRecords: 10,
    batchSize: 10,
    topics: [],
    forgottenTopicsData: [],
  });
  assert.deepEqual([f.errorCode, f.errorMessage, f.responses], [E.UNSUPPORTED_VERSION, null, []]);
  const a = await c.request(ApiKey.ShareAcknowledge, 2, {
    groupId: 'sg2',
    memberId: 'm',
    shareSessionEpoch: 1,
    topics: [],
  });
  assert.deepEqual([a.errorCode, a.errorMessage, a.responses], [E.UNSUPPORTED_VERSION, null, []]);
  const up = await c.request(ApiKey.UpdateFeatures, 1, {
    timeoutMs: 10_000,
    featureUpdates: [{ feature: 'share.version', maxVersionLevel: 2, upgradeType: 1 }],
    validateOnly: false,
  });
  assert.equal(up.errorCode, E.NONE, up.errorMessage ?? '');
});
