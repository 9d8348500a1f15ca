// The API versions Kafka 4.4 added over 4.0, served by a real `tkafka server start` process and
// checked over the wire with the raw client: ApiVersions v5 (KIP-1242), DescribeGroups v6 (KIP-1043),
// DeleteGroups v3, ConsumerGroupDescribe v1 (KIP-1099), OffsetCommit/OffsetFetch v10 (topic ids),
// ListTransactions v2 (KIP-1152), ListOffsets v11 (KIP-1023), Fetch v18 (KIP-1166) and
// DescribeLogDirs v5. The expected answers are what Apache Kafka 4.4.0 answers to the same requests.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { defaultFetchRequest } from '../src/protocol/generated/protocol/Fetch.js';
import { defaultListOffsetsRequest } from '../src/protocol/generated/protocol/ListOffsets.js';
import { defaultConsumerGroupHeartbeatRequest } from '../src/protocol/generated/protocol/ConsumerGroupHeartbeat.js';
import { defaultInitProducerIdRequest } from '../src/protocol/generated/protocol/InitProducerId.js';
import { defaultListTransactionsRequest } from '../src/protocol/generated/protocol/ListTransactions.js';

const UNKNOWN_ID = 'EREREREREREREREREREREQ';
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

let broker: BrokerProcess;
let client: RawClient;
let clusterId: string;
let topicId: string;

/** Repeats `fn` until `done` holds for its result (test/helpers/wait-for.ts: 30 s deadline). */
function until<T>(what: string, fn: () => Promise<T>, done: (r: T) => boolean): Promise<T> {
  return waitFor(
    async () => {
      const r = await fn();
      return done(r) ? { r } : undefined;
    },
    { what },
  ).then((x) => x.r);
}

before(async () => {
  broker = await startBroker();
  client = await RawClient.connect(broker.port);
  const created = await client.request(ApiKey.CreateTopics, 7, {
    topics: [{ name: 't44', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(created.topics[0].errorCode, 0);
  topicId = created.topics[0].topicId;
  const md = await client.request(ApiKey.Metadata, 13, {
    topics: null,
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  clusterId = md.clusterId ?? '';
  // the group coordinator serves once __consumer_offsets is loaded
  await until(
    'FindCoordinator',
    () => client.request(ApiKey.FindCoordinator, 6, { key: '', keyType: 0, coordinatorKeys: ['g44'] }),
    (r) => r.coordinators[0].errorCode === 0,
  );
});

after(async () => {
  client?.close();
  await broker?.stop();
  broker?.cleanup();
});

async function apiVersions(version: number, clusterIdArg: string | null, nodeId: number, port = broker.port) {
  const c = await RawClient.connect(port);
  try {
    return await c.request(ApiKey.ApiVersions, version, {
      clientSoftwareName: 'tkafka-test',
      clientSoftwareVersion: '1.0',
      clusterId: clusterIdArg,
      nodeId,
    });
  } finally {
    c.close();
  }
}

test('ApiVersions v5 (KIP-1242): the right cluster and node, neither, or REBOOTSTRAP_REQUIRED / INVALID_REQUEST', async () => {
  const both = await apiVersions(5, clusterId, 1);
  assert.equal(both.errorCode, 0);
  assert.deepEqual(
    both.apiKeys.find((k: { apiKey: number }) => k.apiKey === ApiKey.ApiVersions),
    { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: 5 },
  );
  assert.equal((await apiVersions(5, null, -1)).errorCode, 0);
  // another cluster, or this cluster but another node: the client must rebootstrap
  for (const [id, node] of [
    ['wrongClusterIdAAAAAAAAA', 1],
    [clusterId, 7],
  ] as const) {
    const r = await apiVersions(5, id, node);
    assert.deepEqual([r.errorCode, r.apiKeys, r.finalizedFeaturesEpoch], [ErrorCode.REBOOTSTRAP_REQUIRED, [], -1n]);
  }
  // one without the other is an invalid request
  assert.equal((await apiVersions(5, clusterId, -1)).errorCode, ErrorCode.INVALID_REQUEST);
  assert.equal((await apiVersions(5, null, 1)).errorCode, ErrorCode.INVALID_REQUEST);
  // v4 has no such fields: nothing to check
  assert.equal((await apiVersions(4, null, -1)).errorCode, 0);
  // the controller listener checks only that both or neither are given (ControllerApis)
  assert.equal((await apiVersions(5, 'wrongClusterIdAAAAAAAAA', 7, broker.controllerPort)).errorCode, 0);
  assert.equal((await apiVersions(5, null, 7, broker.controllerPort)).errorCode, ErrorCode.INVALID_REQUEST);
});

test('DescribeGroups v6 (KIP-1043): an unknown group is Dead with GROUP_ID_NOT_FOUND; v5 keeps no error', async () => {
  const v6 = await client.request(ApiKey.DescribeGroups, 6, {
    groups: ['nogroup'],
    includeAuthorizedOperations: false,
  });
  assert.deepEqual(
    [v6.groups[0].errorCode, v6.groups[0].errorMessage, v6.groups[0].groupState],
    [ErrorCode.GROUP_ID_NOT_FOUND, 'Group nogroup not found.', 'Dead'],
  );
  const v5 = await client.request(ApiKey.DescribeGroups, 5, {
    groups: ['nogroup'],
    includeAuthorizedOperations: false,
  });
  assert.deepEqual([v5.groups[0].errorCode, v5.groups[0].groupState], [0, 'Dead']);
});

test('DeleteGroups v3: GROUP_ID_NOT_FOUND with no message for an unknown group', async () => {
  const r = await client.request(ApiKey.DeleteGroups, 3, { groupsNames: ['nogroup'] });
  assert.deepEqual(r.results, [{ groupId: 'nogroup', errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: null }]);
});

test('OffsetCommit / OffsetFetch v10: topics by id, UNKNOWN_TOPIC_ID for ids the cluster does not know', async () => {
  const part = (partitionIndex: number, committedOffset: bigint) => ({
    partitionIndex,
    committedOffset,
    committedLeaderEpoch: -1,
    commitTimestamp: -1n,
    committedMetadata: null,
  });
  const commit = await client.request(ApiKey.OffsetCommit, 10, {
    groupId: 'g44',
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      { name: '', topicId, partitions: [part(0, 5n), part(7, 3n)] },
      { name: '', topicId: UNKNOWN_ID, partitions: [part(0, 5n)] },
      { name: '', topicId: ZERO, partitions: [part(1, 1n)] },
    ],
  });
  assert.deepEqual(
    commit.topics.map((t: { topicId: string; partitions: { partitionIndex: number; errorCode: number }[] }) => [
      t.topicId,
      t.partitions.map((p) => [p.partitionIndex, p.errorCode]).sort((a, b) => a[0]! - b[0]!),
    ]),
    [
      [
        topicId,
        [
          [0, 0],
          [7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ],
      ],
      [UNKNOWN_ID, [[0, ErrorCode.UNKNOWN_TOPIC_ID]]],
      [ZERO, [[1, ErrorCode.UNKNOWN_TOPIC_ID]]],
    ],
  );
  const fetch = (topics: { name: string; topicId: string; partitionIndexes: number[] }[] | null) =>
    client.request(ApiKey.OffsetFetch, 10, {
      groupId: '',
      topics: [],
      groups: [{ groupId: 'g44', memberId: null, memberEpoch: -1, topics }],
      requireStable: false,
    });
  const some = await fetch([
    { name: '', topicId, partitionIndexes: [0, 1] },
    { name: '', topicId: UNKNOWN_ID, partitionIndexes: [0] },
  ]);
  const offsets = (g: {
    topics: { topicId: string; partitions: { partitionIndex: number; committedOffset: bigint; errorCode: number }[] }[];
  }) => g.topics.map((t) => [t.topicId, t.partitions.map((p) => [p.partitionIndex, p.committedOffset, p.errorCode])]);
  assert.equal(some.groups[0].errorCode, 0);
  assert.deepEqual(offsets(some.groups[0]), [
    [
      topicId,
      [
        [0, 5n, 0],
        [1, -1n, 0],
      ],
    ],
    [UNKNOWN_ID, [[0, -1n, ErrorCode.UNKNOWN_TOPIC_ID]]],
  ]);
  const all = await fetch(null);
  assert.deepEqual(offsets(all.groups[0]), [[topicId, [[0, 5n, 0]]]]);
  // v9 still names the topic
  const v9 = await client.request(ApiKey.OffsetFetch, 9, {
    groupId: '',
    topics: [],
    groups: [{ groupId: 'g44', memberId: null, memberEpoch: -1, topics: null }],
    requireStable: false,
  });
  assert.deepEqual(
    v9.groups[0].topics.map((t: { name: string }) => t.name),
    ['t44'],
  );
});

test('ConsumerGroupDescribe v1 (KIP-1099): a consumer-protocol member has MemberType 1', async () => {
  const hb = await until(
    'ConsumerGroupHeartbeat',
    () =>
      client.request(ApiKey.ConsumerGroupHeartbeat, 0, {
        ...defaultConsumerGroupHeartbeatRequest(),
        groupId: 'cg44',
        memberId: 'AAAAAAAAAAAAAAAAAAAAAB',
        memberEpoch: 0,
        rebalanceTimeoutMs: 30_000,
        subscribedTopicNames: ['t44'],
        topicPartitions: [],
      }),
    (r) => r.errorCode === 0,
  );
  assert.ok(hb.memberEpoch > 0);
  const r = await client.request(ApiKey.ConsumerGroupDescribe, 1, {
    groupIds: ['cg44', 'nogroup'],
    includeAuthorizedOperations: false,
  });
  assert.deepEqual(
    r.groups[0].members.map((m: { memberId: string; memberType: number }) => [m.memberId, m.memberType]),
    [['AAAAAAAAAAAAAAAAAAAAAB', 1]],
  );
  assert.deepEqual(
    [r.groups[1].errorCode, r.groups[1].errorMessage],
    [ErrorCode.GROUP_ID_NOT_FOUND, 'Group nogroup not found.'],
  );
});

test('ListTransactions v2 (KIP-1152): TransactionalIdPattern is an RE2/J full match; invalid is INVALID_REGULAR_EXPRESSION', async () => {
  // the transaction coordinator serves once __transaction_state exists and is loaded
  await until(
    'FindCoordinator',
    () =>
      client.request(ApiKey.FindCoordinator, 6, {
        key: '',
        keyType: 1,
        coordinatorKeys: ['app-1', 'app-2', 'other'],
      }),
    (r) => r.coordinators.every((c: { errorCode: number }) => c.errorCode === 0),
  );
  for (const transactionalId of ['app-1', 'app-2', 'other']) {
    const r = await until(
      'InitProducerId',
      () =>
        client.request(ApiKey.InitProducerId, 4, {
          ...defaultInitProducerIdRequest(),
          transactionalId,
          transactionTimeoutMs: 60_000,
        }),
      (x) => x.errorCode === 0,
    );
    assert.ok(r.producerId >= 0n);
  }
  const list = async (transactionalIdPattern: string | null) => {
    const r = await client.request(ApiKey.ListTransactions, 2, {
      ...defaultListTransactionsRequest(),
      transactionalIdPattern,
    });
    return [r.errorCode, r.transactionStates.map((s: { transactionalId: string }) => s.transactionalId).sort()];
  };
  assert.deepEqual(await list('app-.*'), [0, ['app-1', 'app-2']]);
  // a full match: "app" alone matches nothing
  assert.deepEqual(await list('app'), [0, []]);
  // empty or null: no filter
  assert.deepEqual(await list(''), [0, ['app-1', 'app-2', 'other']]);
  assert.deepEqual(await list(null), [0, ['app-1', 'app-2', 'other']]);
  assert.deepEqual(await list('['), [ErrorCode.INVALID_REGULAR_EXPRESSION, []]);
});

test('ListOffsets v11: EARLIEST_PENDING_UPLOAD (-6) answers offset -1 without tiered storage; refused before v11', async () => {
  const ask = (version: number, timestamp: bigint) =>
    client.request(ApiKey.ListOffsets, version, {
      ...defaultListOffsetsRequest(),
      topics: [{ name: 't44', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }],
      timeoutMs: 1000,
    });
  const p = (await ask(11, -6n)).topics[0].partitions[0];
  assert.deepEqual([p.errorCode, p.offset, p.timestamp, p.leaderEpoch], [0, -1n, -1n, -1]);
  const earliest = (await ask(11, -2n)).topics[0].partitions[0];
  assert.deepEqual([earliest.errorCode, earliest.offset], [0, 0n]);
  assert.equal((await ask(10, -6n)).topics[0].partitions[0].errorCode, ErrorCode.UNSUPPORTED_VERSION);
});

test('Fetch v18 and DescribeLogDirs v5 are served (no response change; IsCordoned false)', async () => {
  const f = await client.request(ApiKey.Fetch, 18, {
    ...defaultFetchRequest(),
    maxWaitMs: 0,
    maxBytes: 1 << 20,
    topics: [
      {
        topic: '',
        topicId,
        partitions: [
          {
            partition: 0,
            currentLeaderEpoch: -1,
            fetchOffset: 0n,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 1 << 20,
            replicaDirectoryId: ZERO,
            highWatermark: 9223372036854775807n,
          },
        ],
      },
    ],
  });
  assert.equal(f.errorCode, 0);
  assert.deepEqual(
    [f.responses[0].topicId, f.responses[0].partitions[0].errorCode, f.responses[0].partitions[0].highWatermark],
    [topicId, 0, 0n],
  );
  const d = await client.request(ApiKey.DescribeLogDirs, 5, { topics: null });
  assert.equal(d.errorCode, 0);
  assert.ok(d.results.length >= 1);
  for (const r of d.results) assert.equal(r.isCordoned, false);
});
