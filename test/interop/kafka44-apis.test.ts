// The request versions Kafka 4.4 added over 4.0, sent byte for byte the same to a real Apache Kafka
// 4.4.0 and to tkafka: the decoded answers must be equal once what differs by nature (cluster id,
// topic ids, ports, timings) is replaced by placeholders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ApiKeyWithMessages, ApiRequest, ApiResponse } from '../../src/protocol/generated/apis.js';
import type { Input } from '../../src/protocol/codec/types.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { defaultListOffsetsRequest } from '../../src/protocol/generated/protocol/ListOffsets.js';
import { defaultListTransactionsRequest } from '../../src/protocol/generated/protocol/ListTransactions.js';

const UNKNOWN_ID = 'EREREREREREREREREREREQ';
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

interface Node {
  name: string;
  port: number;
  client: RawClient;
  clusterId: string;
  topicId: string;
}

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
const nodes: Node[] = [];

/** Repeats `fn` until `done` holds for its result (test/helpers/wait-for.ts, 60 s deadline). */
function until<T>(what: string, fn: () => Promise<T>, done: (r: T) => boolean): Promise<T> {
  return waitFor(
    async () => {
      const r = await fn();
      return done(r) ? { r } : undefined;
    },
    { what, timeoutMs: 60_000 },
  ).then((x) => x.r);
}

async function setUp(name: string, port: number): Promise<Node> {
  const client = await RawClient.connect(port);
  const created = await client.request(ApiKey.CreateTopics, 7, {
    topics: [{ name: 't44', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  assert.equal(created.topics[0].errorCode, 0, `${name}: CreateTopics`);
  await until(
    `${name}: t44 has leaders`,
    () =>
      client.request(ApiKey.Metadata, 13, {
        topics: [{ topicId: ZERO, name: 't44' }],
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      }),
    (md) => md.topics[0].errorCode === 0 && md.topics[0].partitions.every((p: { leaderId: number }) => p.leaderId >= 0),
  );
  const md = await client.request(ApiKey.Metadata, 13, {
    topics: null,
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  const coordinatorKeys: [number, string[]][] = [
    [0, ['g44', 'nogroup']],
    [1, ['app-1', 'app-2']],
  ];
  for (const [keyType, keys] of coordinatorKeys) {
    await until(
      `${name}: FindCoordinator`,
      () => client.request(ApiKey.FindCoordinator, 6, { key: '', keyType, coordinatorKeys: keys }),
      (r) => r.coordinators.every((c: { errorCode: number }) => c.errorCode === 0),
    );
  }
  return { name, port, client, clusterId: md.clusterId ?? '', topicId: created.topics[0].topicId };
}

before(async () => {
  [kafka, tkafka] = await Promise.all([startApacheKafka(), startBroker()]);
  nodes.push(...(await Promise.all([setUp(`Kafka ${KAFKA_VERSION}`, kafka.port), setUp('tkafka', tkafka.port)])));
});

after(async () => {
  for (const n of nodes) n.client.close();
  await tkafka?.stop();
  tkafka?.cleanup();
  await kafka?.cleanup();
});

/** JSON with the node's own ids and ports replaced, bigints as strings, keys as they come. */
function normalize(node: Node, value: unknown): unknown {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  return JSON.parse(
    text
      .replaceAll(node.clusterId, '<cluster-id>')
      .replaceAll(node.topicId, '<topic-id>')
      .replaceAll(`"port":${node.port}`, '"port":"<port>"'),
  );
}

/**
 * Sends the same request to both nodes (the body may depend on the node, e.g. its topic id) and
 * checks the normalized answers are equal; returns tkafka's for further checks.
 */
async function same<K extends ApiKeyWithMessages>(
  what: string,
  apiKey: K,
  version: number,
  body: (n: Node) => Input<ApiRequest<K>>,
  tidy: (r: ApiResponse<K>) => unknown = (r) => r,
): Promise<unknown> {
  const [k, t] = await Promise.all(
    nodes.map(async (n) => normalize(n, tidy(await n.client.request(apiKey, version, body(n))))),
  );
  assert.deepEqual(t, k, `${what}: tkafka's answer differs from Kafka's`);
  return t;
}

async function apiVersions(n: Node, clusterId: string | null, nodeId: number): Promise<unknown> {
  const c = await RawClient.connect(n.port);
  try {
    const r = await c.request(ApiKey.ApiVersions, 5, {
      clientSoftwareName: 'tkafka-test',
      clientSoftwareVersion: '1.0',
      clusterId,
      nodeId,
    });
    return { errorCode: r.errorCode, apiKeys: r.apiKeys.length > 0, finalizedFeaturesEpoch: r.finalizedFeaturesEpoch };
  } finally {
    c.close();
  }
}

test('ApiVersions v5 (KIP-1242): the same answers to right, wrong and half-given cluster and node ids', async () => {
  for (const [what, id, node] of [
    ['none', null, -1],
    ['right', 'self', 1],
    ['another cluster', 'wrongClusterIdAAAAAAAAA', 1],
    ['another node', 'self', 7],
    ['cluster id only', 'self', -1],
    ['node id only', null, 1],
  ] as const) {
    const [k, t] = await Promise.all(
      nodes.map(async (n) => {
        const r = (await apiVersions(n, id === 'self' ? n.clusterId : id, node)) as { finalizedFeaturesEpoch: bigint };
        // the features epoch is the metadata offset: only whether it is set can be compared
        return { ...r, finalizedFeaturesEpoch: r.finalizedFeaturesEpoch >= 0n };
      }),
    );
    assert.deepEqual(t, k, `ApiVersions v5 with ${what}`);
  }
});

test('Metadata v13, DescribeCluster v2, UnregisterBroker of an unknown id', async () => {
  await same('Metadata v13 by ids', ApiKey.Metadata, 13, (n) => ({
    topics: [
      { topicId: n.topicId, name: null },
      { topicId: UNKNOWN_ID, name: null },
    ],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  }));
  await same('DescribeCluster v2', ApiKey.DescribeCluster, 2, () => ({
    includeClusterAuthorizedOperations: false,
    endpointType: 1,
    includeFencedBrokers: true,
  }));
  await same('DescribeCluster v2 asking for controllers', ApiKey.DescribeCluster, 2, () => ({
    includeClusterAuthorizedOperations: false,
    endpointType: 2,
    includeFencedBrokers: false,
  }));
  await same('UnregisterBroker', ApiKey.UnregisterBroker, 0, () => ({ brokerId: 5 }));
});

test('DescribeGroups v6/v5, DeleteGroups v3, ConsumerGroupDescribe v1 of unknown groups', async () => {
  for (const v of [5, 6]) {
    await same(`DescribeGroups v${v}`, ApiKey.DescribeGroups, v, () => ({
      groups: ['nogroup'],
      includeAuthorizedOperations: false,
    }));
  }
  await same('DeleteGroups v3', ApiKey.DeleteGroups, 3, () => ({ groupsNames: ['nogroup'] }));
  for (const g of ['nogroup', '']) {
    await same(`ConsumerGroupDescribe v1 '${g}'`, ApiKey.ConsumerGroupDescribe, 1, () => ({
      groupIds: [g],
      includeAuthorizedOperations: false,
    }));
  }
});

test('OffsetCommit / OffsetFetch v10 by topic id, with unknown ids and partitions', async () => {
  const part = (partitionIndex: number, committedOffset: bigint) => ({
    partitionIndex,
    committedOffset,
    committedLeaderEpoch: -1,
    commitTimestamp: -1n,
    committedMetadata: null,
  });
  // Kafka answers a topic's partitions in its map's order: compare them sorted
  const sorted = (r: { topics: { partitions: { partitionIndex: number }[] }[] }) => ({
    ...r,
    topics: r.topics.map((t) => ({
      ...t,
      partitions: [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex),
    })),
  });
  await same(
    'OffsetCommit v10',
    ApiKey.OffsetCommit,
    10,
    (n) => ({
      groupId: 'g44',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        { name: '', topicId: n.topicId, partitions: [part(0, 5n), part(7, 3n)] },
        { name: '', topicId: UNKNOWN_ID, partitions: [part(0, 5n)] },
        { name: '', topicId: ZERO, partitions: [part(1, 1n)] },
      ],
    }),
    sorted,
  );
  type Asked = { name: string; topicId: string; partitionIndexes: number[] }[] | null;
  const fetch = (topics: (n: Node) => Asked) => (n: Node) => ({
    groupId: '',
    topics: [],
    groups: [{ groupId: 'g44', memberId: null, memberEpoch: -1, topics: topics(n) }],
    requireStable: false,
  });
  await same(
    'OffsetFetch v10 by ids',
    ApiKey.OffsetFetch,
    10,
    fetch((n) => [
      { name: '', topicId: n.topicId, partitionIndexes: [0, 1, 9] },
      { name: '', topicId: UNKNOWN_ID, partitionIndexes: [0] },
    ]),
  );
  await same(
    'OffsetFetch v10 all',
    ApiKey.OffsetFetch,
    10,
    fetch(() => null),
  );
});

test('ListTransactions v2 patterns, ListOffsets v11 EARLIEST_PENDING_UPLOAD, ListConfigResources v0/v1', async () => {
  for (const n of nodes) {
    for (const transactionalId of ['app-1', 'app-2']) {
      await until(
        `${n.name}: InitProducerId`,
        () =>
          n.client.request(ApiKey.InitProducerId, 4, {
            transactionalId,
            transactionTimeoutMs: 60_000,
            producerId: -1n,
            producerEpoch: -1,
            enable2Pc: false,
            keepPreparedTxn: false,
          }),
        (r) => r.errorCode === 0,
      );
    }
  }
  const ids = (r: { transactionStates: { transactionalId: string }[] }) => ({
    ...r,
    transactionStates: r.transactionStates.map((s) => s.transactionalId).sort(),
  });
  for (const pattern of ['app-.*', 'app', '', null, '[']) {
    await same(
      `ListTransactions v2 ${JSON.stringify(pattern)}`,
      ApiKey.ListTransactions,
      2,
      () => ({ ...defaultListTransactionsRequest(), transactionalIdPattern: pattern }),
      ids,
    );
  }
  for (const [v, ts] of [
    [11, -6n],
    [11, -5n],
    [11, -2n],
    [10, -6n],
  ] as const) {
    await same(`ListOffsets v${v} ${ts}`, ApiKey.ListOffsets, v, () => ({
      ...defaultListOffsetsRequest(),
      topics: [{ name: 't44', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: ts }] }],
      timeoutMs: 1000,
    }));
  }
  await same('IncrementalAlterConfigs (group, client metrics, topic)', ApiKey.IncrementalAlterConfigs, 1, () => ({
    resources: [
      {
        resourceType: 32,
        resourceName: 'g44',
        configs: [{ name: 'consumer.session.timeout.ms', configOperation: 0, value: '50000' }],
      },
      { resourceType: 16, resourceName: 'cm1', configs: [{ name: 'interval.ms', configOperation: 0, value: '60000' }] },
    ],
    validateOnly: false,
  }));
  // the configs reach each node asynchronously on Kafka (the group's and the client-metrics resource's
  // through different managers): wait for both
  for (const n of nodes) {
    await until(
      `${n.name}: group and client-metrics configs listed`,
      () => n.client.request(ApiKey.ListConfigResources, 1, { resourceTypes: [16, 32] }),
      (r) => r.configResources.length === 2,
    );
  }
  for (const types of [[], [2], [4, 8], [16], [32], [99]]) {
    await same(`ListConfigResources v1 ${JSON.stringify(types)}`, ApiKey.ListConfigResources, 1, () => ({
      resourceTypes: types,
    }));
  }
  await same('ListConfigResources v0', ApiKey.ListConfigResources, 0, () => ({ resourceTypes: [] }));
});
