// Streams groups (KIP-1071) on a real `tkafka server start` process, with raw requests: a new cluster
// finalizes streams.version 1 and advertises StreamsGroupHeartbeat/StreamsGroupDescribe v0-1; a member
// joins with a word-count topology, hears MISSING_INTERNAL_TOPICS while the broker creates the
// repartition and changelog topics (with the topology's configs), then gets every task once the
// initial rebalance delay is over; the group is described, listed with the streams type, survives a
// restart, and the member leaves; with streams.version off both APIs answer UNSUPPORTED_VERSION.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { WORDCOUNT_TOPOLOGY as TOPOLOGY } from './helpers/streams-topology.js';
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

async function metadataOf(name: string) {
  const m = await c.request(ApiKey.Metadata, 12, {
    topics: [{ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  return m.topics[0]!;
}

async function createTopic(name: string, partitions: number): Promise<void> {
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(r.topics[0]!.errorCode, E.NONE);
  await waitFor(
    async () => {
      const t = await metadataOf(name);
      return t.errorCode === E.NONE && t.partitions.length === partitions && t.partitions.every((p) => p.leaderId >= 0);
    },
    { what: `${name} to have leaders`, timeoutMs: 15_000 },
  );
}

type Hb = Record<string, unknown> & { memberId: string; memberEpoch: number };

/** StreamsGroupHeartbeat v1, retried while the coordinator is not there yet (the client's behaviour). */
async function heartbeat(groupId: string, h: Hb) {
  return waitFor(
    async () => {
      const r = await c.request(ApiKey.StreamsGroupHeartbeat, 1, {
        groupId,
        endpointInformationEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: -1,
        topology: null,
        activeTasks: null,
        standbyTasks: null,
        warmupTasks: null,
        processId: null,
        userEndpoint: null,
        clientTags: null,
        taskOffsets: null,
        taskEndOffsets: null,
        shutdownApplication: false,
        ...h,
      });
      if (r.errorCode === E.NOT_COORDINATOR || r.errorCode === E.COORDINATOR_LOAD_IN_PROGRESS) {
        // the first FindCoordinator creates __consumer_offsets
        await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
        return null;
      }
      return r;
    },
    { what: 'the coordinator of the group', timeoutMs: 30_000 },
  );
}

const join = (memberId: string) =>
  heartbeat('wc', {
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 30_000,
    topology: TOPOLOGY,
    processId: `process-${memberId}`,
    userEndpoint: { host: 'localhost', port: 7001 },
    activeTasks: [],
    standbyTasks: [],
    warmupTasks: [],
  });

async function describe(groupIds: string[], includeTopologyDescription = false) {
  const r = await c.request(ApiKey.StreamsGroupDescribe, 1, {
    groupIds,
    includeAuthorizedOperations: false,
    includeTopologyDescription,
  });
  return r.groups;
}

async function finalizedStreamsVersion(): Promise<number | undefined> {
  const r = await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  return (r.finalizedFeatures as { name: string; maxVersionLevel: number }[]).find((f) => f.name === 'streams.version')
    ?.maxVersionLevel;
}

test('streams.version 1 is finalized and StreamsGroupHeartbeat/Describe v0-1 are advertised', async () => {
  assert.equal(await finalizedStreamsVersion(), 1);
  const r = await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  const keys = new Map(
    (r.apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[]).map((k) => [
      k.apiKey,
      [k.minVersion, k.maxVersion],
    ]),
  );
  assert.deepEqual(keys.get(ApiKey.StreamsGroupHeartbeat), [0, 1]);
  assert.deepEqual(keys.get(ApiKey.StreamsGroupDescribe), [0, 1]);
  assert.deepEqual(keys.get(ApiKey.StreamsGroupTopologyDescriptionUpdate), [0, 0]);
  const supported = (r.supportedFeatures as { name: string; minVersion: number; maxVersion: number }[]).find(
    (f) => f.name === 'streams.version',
  );
  assert.deepEqual([supported?.minVersion, supported?.maxVersion], [0, 1]);
});

test('internal topics created by the broker, tasks, describe, list, restart, leave', { timeout: 180_000 }, async () => {
  await createTopic('words-in', 2);
  const j = await join('m1');
  assert.equal(j.errorCode, E.NONE, j.errorMessage ?? '');
  // the first assignment waits for the initial rebalance delay (3 s): the member is at the initial
  // assignment epoch 1, with no tasks yet
  assert.equal(j.memberEpoch, 1);
  assert.deepEqual(
    j.status!.map((s) => [s.statusCode, s.statusDetail.replace(/: .*/, '')]),
    [
      [5, 'Assignment delayed due to the configured initial rebalance delay.'],
      [3, 'Internal topics are missing'],
    ],
  );
  assert.deepEqual(j.status![1]!.statusDetail.split(': ')[1]!.split(', ').sort(), ['wc-changelog', 'wc-repartition']);
  // the broker creates them, with the partition count of the sources and the topology's configs
  for (const t of ['wc-repartition', 'wc-changelog'])
    await waitFor(async () => (await metadataOf(t)).partitions.length === 2, { what: `${t}`, timeoutMs: 15_000 });
  const cfg = await c.request(ApiKey.DescribeConfigs, 4, {
    resources: [{ resourceType: 2, resourceName: 'wc-changelog', configurationKeys: ['cleanup.policy'] }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.equal(cfg.results[0]!.configs[0]!.value, 'compact');
  // after the initial rebalance delay (3 s), a heartbeat gets every task
  const assigned = await waitFor(
    async () => {
      const r = await heartbeat('wc', { memberId: 'm1', memberEpoch: 1 });
      return r.errorCode === E.NONE && (r.activeTasks ?? []).length === 2 ? r : null;
    },
    { what: 'the tasks of m1', timeoutMs: 30_000, intervalMs: 500 },
  );
  assert.deepEqual(
    assigned.activeTasks!.map((t) => [t.subtopologyId, t.partitions]),
    [
      ['0', [0, 1]],
      ['1', [0, 1]],
    ],
  );
  assert.deepEqual(assigned.status, []);
  assert.equal(assigned.heartbeatIntervalMs, 5000);
  // partitions by endpoint: the member's endpoint with its source partitions
  assert.deepEqual(
    assigned.partitionsByUserEndpoint!.map((e) => [
      e.userEndpoint.port,
      e.activePartitions.map((p) => [p.topic, p.partitions]).sort(),
    ]),
    [
      [
        7001,
        [
          ['wc-repartition', [0, 1]],
          ['words-in', [0, 1]],
        ],
      ],
    ],
  );
  const [d] = await describe(['wc']);
  assert.equal(d!.errorCode, E.NONE);
  assert.equal(d!.groupState, 'Stable');
  assert.equal(d!.topologyDescriptionStatus, 0, 'NOT_REQUESTED');
  const [withDescription, unknown] = await describe(['wc', 'nope'], true);
  assert.deepEqual(
    [withDescription!.topologyDescriptionStatus, withDescription!.topologyDescription],
    [1, null],
    'NOT_STORED: no description plugin, as Kafka 4.4 by default',
  );
  assert.deepEqual([unknown!.errorCode, unknown!.topologyDescriptionStatus], [E.GROUP_ID_NOT_FOUND, 0]);
  assert.equal(d!.assignorName, 'sticky');
  assert.deepEqual(
    d!.topology!.subtopologies!.map((s) => [
      s.subtopologyId,
      s.stateChangelogTopics.map((t) => [t.name, t.partitions]),
    ]),
    [
      ['0', []],
      ['1', [['wc-changelog', 2]]],
    ],
  );
  const listed = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['streams'] });
  assert.deepEqual(
    listed.groups.map((g) => [g.groupId, g.protocolType, g.groupState, g.groupType]),
    [['wc', 'streams', 'Stable', 'streams']],
  );

  // restart: the group is replayed from __consumer_offsets
  c.close();
  await broker.restart();
  c = await RawClient.connect(broker.port);
  const [again] = await waitFor(
    async () => {
      const g = await describe(['wc']);
      return g[0]!.errorCode === E.NONE ? g : null;
    },
    { what: 'wc to be loaded after the restart', timeoutMs: 30_000 },
  );
  assert.equal(again!.members[0]!.memberEpoch, assigned.memberEpoch);
  const left = await heartbeat('wc', { memberId: 'm1', memberEpoch: -1 });
  assert.equal(left.errorCode, E.NONE);
  assert.equal(left.memberEpoch, -1);
  const [empty] = await describe(['wc']);
  assert.equal(empty!.groupState, 'Empty');
  const [missing] = await describe(['nope']);
  assert.deepEqual([missing!.errorCode, missing!.errorMessage], [E.GROUP_ID_NOT_FOUND, 'Group nope not found.']);
});

test('StreamsGroupTopologyDescriptionUpdate: no topology description plugin', async () => {
  const r = await c.request(ApiKey.StreamsGroupTopologyDescriptionUpdate, 0, {
    groupId: 'wc',
    memberId: 'm1',
    topologyEpoch: 0,
    topologyDescription: { subtopologies: [], globalStores: [] },
  });
  assert.deepEqual(
    [r.errorCode, r.errorMessage],
    [E.UNSUPPORTED_VERSION, 'The broker has no streams group topology description plugin configured.'],
  );
});

test('streams.version off: StreamsGroupHeartbeat and StreamsGroupDescribe answer UNSUPPORTED_VERSION', async () => {
  const down = await c.request(ApiKey.UpdateFeatures, 1, {
    timeoutMs: 10_000,
    featureUpdates: [{ feature: 'streams.version', maxVersionLevel: 0, upgradeType: 2 }],
    validateOnly: false,
  });
  assert.equal(down.errorCode, E.NONE, down.errorMessage ?? '');
  await waitFor(async () => ((await finalizedStreamsVersion()) ?? 0) === 0, {
    what: 'streams.version to be off',
    timeoutMs: 15_000,
  });
  const r = await c.request(ApiKey.StreamsGroupHeartbeat, 1, {
    groupId: 'wc2',
    memberId: 'm',
    memberEpoch: 0,
    endpointInformationEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 1000,
    topology: TOPOLOGY,
    activeTasks: [],
    standbyTasks: [],
    warmupTasks: [],
    processId: 'p',
    userEndpoint: null,
    clientTags: null,
    taskOffsets: null,
    taskEndOffsets: null,
    shutdownApplication: false,
  });
  assert.equal(r.errorCode, E.UNSUPPORTED_VERSION);
  const [g] = await describe(['wc']);
  assert.equal(g!.errorCode, E.UNSUPPORTED_VERSION);
  const up = await c.request(ApiKey.UpdateFeatures, 1, {
    timeoutMs: 10_000,
    featureUpdates: [{ feature: 'streams.version', maxVersionLevel: 1, upgradeType: 1 }],
    validateOnly: false,
  });
  assert.equal(up.errorCode, E.NONE, up.errorMessage ?? '');
});
