// The metadata and admin handlers against a real KRaft controller on a temporary metadata log:
// requests are encoded and decoded at the version under test, as the network layer would hand them
// over, and every answer is encoded and decoded again so it is known to be writable at that version.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_SPECS } from '../src/protocol/generated/apis.js';
import type { AlterConfigsResponse } from '../src/protocol/generated/protocol/AlterConfigs.js';
import type { CreatePartitionsResponse } from '../src/protocol/generated/protocol/CreatePartitions.js';
import type { CreateTopicsResponse } from '../src/protocol/generated/protocol/CreateTopics.js';
import type { DeleteTopicsResponse } from '../src/protocol/generated/protocol/DeleteTopics.js';
import type { DescribeClusterResponse } from '../src/protocol/generated/protocol/DescribeCluster.js';
import type { DescribeConfigsResponse } from '../src/protocol/generated/protocol/DescribeConfigs.js';
import type { DescribeLogDirsResponse } from '../src/protocol/generated/protocol/DescribeLogDirs.js';
import type { DescribeTopicPartitionsResponse } from '../src/protocol/generated/protocol/DescribeTopicPartitions.js';
import type { IncrementalAlterConfigsResponse } from '../src/protocol/generated/protocol/IncrementalAlterConfigs.js';
import type { MetadataResponse } from '../src/protocol/generated/protocol/Metadata.js';
import type { ListConfigResourcesResponse } from '../src/protocol/generated/protocol/ListConfigResources.js';
import type { UnregisterBrokerResponse } from '../src/protocol/generated/protocol/UnregisterBroker.js';
import { Reader } from '../src/protocol/codec/reader.js';
import { Writer } from '../src/protocol/codec/writer.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { loadServerConfig, type ServerConfig } from '../src/config/load.js';
import { QuorumController } from '../src/broker/controller/index.js';
import { ConfigResourceType } from '../src/broker/metadata/image.js';
import type { BrokerServices } from '../src/broker/services.js';
import type { RegisteredHandler, RequestContext } from '../src/broker/api/types.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { registerAdminHandlers } from '../src/broker/api/register-all.js';
import { BrokerLoggers } from '../src/broker/loggers.js';
import type { ReplicaManager } from '../src/broker/replication/replica-manager.js';
import {
  adminConfigSchema,
  adminConfigValidator,
  CLUSTER_AUTHORIZED_OPERATIONS,
  TOPIC_AUTHORIZED_OPERATIONS,
} from '../src/broker/api/admin-support.js';
import { handler as metadata } from '../src/broker/api/metadata.js';
import { handler as createTopics } from '../src/broker/api/create-topics.js';
import { handler as deleteTopics } from '../src/broker/api/delete-topics.js';
import { handler as createPartitions } from '../src/broker/api/create-partitions.js';
import { handler as describeConfigs } from '../src/broker/api/describe-configs.js';
import { handler as alterConfigs } from '../src/broker/api/alter-configs.js';
import { handler as incrementalAlterConfigs } from '../src/broker/api/incremental-alter-configs.js';
import { handler as describeCluster } from '../src/broker/api/describe-cluster.js';
import { handler as describeLogDirs } from '../src/broker/api/describe-log-dirs.js';
import { handler as describeTopicPartitions } from '../src/broker/api/describe-topic-partitions.js';
import { handler as listConfigResources } from '../src/broker/api/list-config-resources.js';
import { handler as unregisterBroker } from '../src/broker/api/unregister-broker.js';
import { handler as alterPartitionReassignments } from '../src/broker/api/alter-partition-reassignments.js';
import { handler as listPartitionReassignments } from '../src/broker/api/list-partition-reassignments.js';
import { handler as electLeaders } from '../src/broker/api/elect-leaders.js';
import type { AlterPartitionReassignmentsResponse } from '../src/protocol/generated/protocol/AlterPartitionReassignments.js';
import type { ListPartitionReassignmentsResponse } from '../src/protocol/generated/protocol/ListPartitionReassignments.js';
import type { ElectLeadersResponse } from '../src/protocol/generated/protocol/ElectLeaders.js';
import { toEndpoint } from '../src/broker/controller/quorum-controller.js';

const CLUSTER_ID = 'MkU3OEVBNTcwNTJENDM2Qg';
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const OMITTED = -2147483648;
const SET = 0,
  DELETE = 1,
  APPEND = 2,
  SUBTRACT = 3;

interface Env {
  services: BrokerServices;
  controller: QuorumController;
  config: ServerConfig;
  dir: string;
  /** Encodes `request` at `version`, handles it, encodes and decodes the answer; Res names `h`'s response type. */
  call<Res>(
    h: RegisteredHandler<BrokerServices>,
    version: number,
    request: Record<string, unknown>,
    listener?: string,
  ): Promise<Res>;
}

interface FakeLog {
  topic: string;
  partition: number;
  dir: string;
  size: number;
  logEndOffset: number;
  highWatermark: number;
}

async function withEnv(
  props: Record<string, string>,
  fn: (env: Env) => Promise<void>,
  logs: (dir: string) => FakeLog[] = () => [],
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-admin-'));
  const logDir = join(dir, 'logs');
  mkdirSync(logDir);
  const { config } = loadServerConfig({
    properties: {
      'process.roles': 'broker,controller',
      'node.id': '1',
      listeners: 'PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093',
      'controller.listener.names': 'CONTROLLER',
      'controller.quorum.voters': '1@localhost:9093',
      'log.dirs': logDir,
      'metadata.log.dir': join(dir, 'meta'),
      ...props,
    },
  });
  const controller = await QuorumController.open({
    metadataLogDir: join(dir, 'meta'),
    nodeId: 1,
    clusterId: CLUSTER_ID,
    directoryId: 'J8aAPcfLQt2bqs1JT_rMgQ',
    brokerListeners: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 }],
    controllerListeners: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }],
    defaultNumPartitions: config.getInt('num.partitions'),
    defaultReplicationFactor: config.getInt('default.replication.factor'),
    configValidator: adminConfigValidator(config),
    configSchema: adminConfigSchema,
  });
  const fakeLogs = logs(logDir);
  const services: BrokerServices = {
    config,
    nodeId: 1,
    clusterId: CLUSTER_ID,
    endpoints: [{ listenerName: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 'PLAINTEXT' }],
    controller,
    // DescribeLogDirs is the only handler here that reads partition logs, and only logManager.allLogs()
    replicas: { logManager: { allLogs: () => fakeLogs } } as unknown as ReplicaManager,
    loggers: new BrokerLoggers('INFO', { kafka: 'INFO', 'kafka.server': null }),
    groupCoordinator: null,
    txnCoordinator: null,
  };
  const call = async <Res>(
    h: RegisteredHandler<BrokerServices>,
    version: number,
    request: Record<string, unknown>,
    listener = 'PLAINTEXT',
  ): Promise<Res> => {
    const spec = API_SPECS.find((s) => s.key === h.apiKey)!;
    assert.ok(version >= h.minVersion && version <= h.maxVersion, `${spec.name} v${version} is not served`);
    const w = new Writer();
    spec.writeRequest(w, version, request);
    const body = spec.readRequest(new Reader(w.toBuffer()), version);
    const ctx = {
      apiKey: h.apiKey,
      apiVersion: version,
      correlationId: 1,
      clientId: 'test',
      header: {} as never,
      connectionId: 'c1',
      listenerName: listener,
      isControllerListener: listener === 'CONTROLLER',
      clientAddress: '127.0.0.1',
      requestSize: 0,
    } satisfies RequestContext;
    const response = await h.handle(ctx, body, services);
    const out = new Writer();
    spec.writeResponse(out, version, response);
    return spec.readResponse(new Reader(out.toBuffer()), version) as Res;
  };
  try {
    await fn({ services, controller, config, dir, call });
  } finally {
    await controller.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The entry a test expects to be there (an assertion failure, not a TypeError, when it is not). */
function must<K, V>(m: ReadonlyMap<K, V>, key: K): V {
  const v = m.get(key);
  assert.ok(v !== undefined, `no entry ${String(key)}`);
  return v;
}

const topic = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  numPartitions: -1,
  replicationFactor: -1,
  assignments: [],
  configs: [],
  ...extra,
});

test('registerAdminHandlers registers every handler on its listeners', () => {
  const registry = registerAdminHandlers(new HandlerRegistry());
  const broker = registry.apis('broker').map((a) => a.apiKey);
  // 29/30/31 Describe/Create/DeleteAcls, 48/49 Describe/AlterClientQuotas, 50/51 Describe/AlterUserScramCredentials
  // (50 on the controller answers UNKNOWN_SERVER_ERROR, as Kafka's controller does)
  assert.deepEqual(
    broker,
    [3, 19, 20, 29, 30, 31, 32, 33, 34, 35, 37, 43, 44, 45, 46, 48, 49, 50, 51, 55, 57, 60, 64, 74, 75, 94],
  );
  assert.deepEqual(
    registry.apis('controller').map((a) => a.apiKey),
    [19, 20, 29, 30, 31, 32, 33, 37, 43, 44, 45, 46, 49, 50, 51, 55, 57, 60, 64, 94],
  );
});

test('CreateTopics: success with configs and sources, errors worded as Kafka', async () => {
  await withEnv({ 'num.partitions': '3', 'log.retention.hours': '100' }, async ({ call, controller }) => {
    const r = await call<CreateTopicsResponse>(createTopics, 7, {
      topics: [
        topic('orders', { configs: [{ name: 'cleanup.policy', value: 'compact' }] }),
        topic('bad name!'),
        topic('big', { replicationFactor: 3 }),
        topic('cfg', { configs: [{ name: 'retention.ms', value: 'abc' }] }),
        topic('unk', { configs: [{ name: 'foo', value: '1' }] }),
        topic('dup'),
        topic('dup'),
        topic('__cluster_metadata'),
        topic('zero', { numPartitions: 0 }),
      ],
      timeoutMs: 1000,
    });
    const byName = new Map(r.topics.map((t) => [t.name, t] as const));
    const orders = must(byName, 'orders');
    assert.equal(orders.errorCode, ErrorCode.NONE);
    assert.equal(orders.errorMessage, null);
    assert.equal(orders.numPartitions, 3);
    assert.equal(orders.replicationFactor, 1);
    assert.equal(orders.topicId, controller.image.topic('orders')!.id);
    const cfg = new Map((orders.configs ?? []).map((c) => [c.name, c] as const));
    assert.deepEqual(must(cfg, 'cleanup.policy'), {
      name: 'cleanup.policy',
      value: 'compact',
      readOnly: false,
      configSource: 1,
      isSensitive: false,
    });
    assert.equal(must(cfg, 'retention.ms').value, String(100 * 3600000));
    assert.equal(must(cfg, 'retention.ms').configSource, 4);
    assert.equal(must(cfg, 'segment.bytes').configSource, 5);
    const names = (orders.configs ?? []).map((c) => c.name);
    assert.deepEqual(names, [...names].sort());

    assert.deepEqual(
      [must(byName, 'bad name!').errorCode, must(byName, 'bad name!').errorMessage],
      [
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
      ],
    );
    assert.deepEqual(
      [must(byName, 'big').errorCode, must(byName, 'big').errorMessage],
      [
        ErrorCode.INVALID_REPLICATION_FACTOR,
        'Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered' +
          ' or some brokers have all their log directories cordoned.',
      ],
    );
    assert.deepEqual(
      [must(byName, 'cfg').errorCode, must(byName, 'cfg').errorMessage],
      [ErrorCode.INVALID_CONFIG, 'Invalid value abc for configuration retention.ms: Not a number of type LONG'],
    );
    assert.deepEqual(
      [must(byName, 'unk').errorCode, must(byName, 'unk').errorMessage],
      [ErrorCode.INVALID_CONFIG, 'Unknown topic config name: foo'],
    );
    assert.deepEqual(
      [must(byName, 'dup').errorCode, must(byName, 'dup').errorMessage],
      [ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'],
    );
    assert.deepEqual(
      [must(byName, '__cluster_metadata').errorCode, must(byName, '__cluster_metadata').errorMessage],
      [ErrorCode.INVALID_REQUEST, 'Creation of internal topic __cluster_metadata is prohibited.'],
    );
    assert.deepEqual(
      [must(byName, 'zero').errorCode, must(byName, 'zero').errorMessage],
      [ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.'],
    );
    assert.equal(must(byName, 'big').numPartitions, -1);
    assert.equal(must(byName, 'big').topicId, ZERO);
    assert.deepEqual([...controller.image.topicsByName.keys()], ['orders']);

    const again = await call<CreateTopicsResponse>(createTopics, 7, { topics: [topic('orders')], timeoutMs: 1000 });
    assert.deepEqual(
      [again.topics[0].errorCode, again.topics[0].errorMessage],
      [ErrorCode.TOPIC_ALREADY_EXISTS, "Topic 'orders' already exists."],
    );
  });
});

test('CreateTopics: validate-only creates nothing; explicit assignments; every version encodes', async () => {
  await withEnv({}, async ({ call, controller }) => {
    const v = await call<CreateTopicsResponse>(createTopics, 5, {
      topics: [topic('t1', { numPartitions: 2, replicationFactor: 1 })],
      timeoutMs: 1000,
      validateOnly: true,
    });
    assert.equal(v.topics[0].errorCode, ErrorCode.NONE);
    assert.equal(v.topics[0].numPartitions, 2);
    assert.equal(controller.image.topic('t1'), undefined);

    const a = await call<CreateTopicsResponse>(createTopics, 4, {
      topics: [
        topic('manual', {
          assignments: [
            { partitionIndex: 0, brokerIds: [1] },
            { partitionIndex: 1, brokerIds: [1] },
          ],
        }),
        topic('manual2', { assignments: [{ partitionIndex: 0, brokerIds: [7] }] }),
      ],
      timeoutMs: 1000,
    });
    assert.equal(a.topics[0].errorCode, ErrorCode.NONE);
    assert.equal(controller.image.topic('manual')!.partitions.size, 2);
    assert.deepEqual(
      [a.topics[1].errorCode, a.topics[1].errorMessage],
      [
        ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        'The manual partition assignment includes broker 7, but no such broker is registered.',
      ],
    );

    for (let ver = createTopics.minVersion; ver <= 7; ver++) {
      const r = await call<CreateTopicsResponse>(createTopics, ver, {
        topics: [
          topic(`v${ver}`, { numPartitions: 1, replicationFactor: 1 }),
          topic(`v${ver}`, { numPartitions: 1, replicationFactor: 1 }),
        ],
        timeoutMs: 1000,
      });
      assert.equal(r.topics[0].errorCode, ErrorCode.INVALID_REQUEST, `v${ver}`);
      const ok = await call<CreateTopicsResponse>(createTopics, ver, {
        topics: [topic(`ok${ver}`, { numPartitions: 1, replicationFactor: 1 })],
        timeoutMs: 1000,
      });
      assert.equal(ok.topics[0].errorCode, ErrorCode.NONE, `v${ver}`);
      assert.equal((ok.topics[0].configs ?? []).length > 0, ver >= 5);
      assert.equal(ok.topics[0].topicId !== ZERO, ver >= 7);
    }
  });
});

test('Metadata: brokers on the listener, topics, partitions, internal flag, ids, authorized operations', async () => {
  await withEnv({ 'auto.create.topics.enable': 'false' }, async ({ call, controller }) => {
    await controller.createTopics([
      { name: 'orders', numPartitions: 2, replicationFactor: 1 },
      { name: '__consumer_offsets', numPartitions: 1, replicationFactor: 1 },
    ]);
    const id = controller.image.topic('orders')!.id;
    const r = await call<MetadataResponse>(metadata, 12, { topics: null, includeTopicAuthorizedOperations: true });
    assert.deepEqual(r.brokers, [{ nodeId: 1, host: 'localhost', port: 9092, rack: null }]);
    assert.equal(r.clusterId, CLUSTER_ID);
    assert.equal(r.controllerId, 1);
    assert.deepEqual(
      r.topics.map((t) => t.name),
      ['__consumer_offsets', 'orders'],
    );
    const orders = r.topics[1];
    assert.equal(orders.topicId, id);
    assert.equal(orders.isInternal, false);
    assert.equal(r.topics[0].isInternal, true);
    assert.equal(orders.topicAuthorizedOperations, TOPIC_AUTHORIZED_OPERATIONS);
    assert.deepEqual(
      orders.partitions.map((p) => [
        p.errorCode,
        p.partitionIndex,
        p.leaderId,
        p.leaderEpoch,
        p.replicaNodes,
        p.isrNodes,
        p.offlineReplicas,
      ]),
      [
        [0, 0, 1, 0, [1], [1], []],
        [0, 1, 1, 0, [1], [1], []],
      ],
    );

    // A listener the broker does not have: no brokers, LISTENER_NOT_FOUND (v6+) / LEADER_NOT_AVAILABLE (v5-).
    const other = await call<MetadataResponse>(metadata, 9, { topics: [{ name: 'orders' }] }, 'OTHER');
    assert.deepEqual(other.brokers, []);
    assert.equal(other.topics[0].partitions[0].errorCode, ErrorCode.LISTENER_NOT_FOUND);
    assert.deepEqual(other.topics[0].partitions[0].offlineReplicas, [1]);
    const old = await call<MetadataResponse>(metadata, 5, { topics: [{ name: 'orders' }] }, 'OTHER');
    assert.equal(old.topics[0].partitions[0].errorCode, ErrorCode.LEADER_NOT_AVAILABLE);

    // Unknown, invalid and by-id lookups; no auto-creation when disabled.
    const m = await call<MetadataResponse>(metadata, 12, { topics: [{ name: 'nope' }, { name: 'bad name' }] });
    assert.deepEqual(
      m.topics.map((t) => [t.name, t.errorCode]),
      [
        ['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
        ['bad name', ErrorCode.INVALID_TOPIC_EXCEPTION],
      ],
    );
    assert.equal(controller.image.topic('nope'), undefined);
    const byId = await call<MetadataResponse>(metadata, 12, {
      topics: [
        { topicId: id, name: null },
        { topicId: 'AAAAAAAAAAAAAAAAAAAAAw', name: null },
      ],
    });
    assert.deepEqual(
      byId.topics.map((t) => [t.name, t.errorCode]),
      [
        [null, ErrorCode.UNKNOWN_TOPIC_ID],
        ['orders', ErrorCode.NONE],
      ],
    );
    const v11 = await call<MetadataResponse>(metadata, 11, { topics: [{ topicId: id, name: 'x' }] });
    assert.equal(v11.topics[0].errorCode, ErrorCode.INVALID_REQUEST);

    // v0: an empty list means all topics; v1+: an empty list means none.
    assert.equal((await call<MetadataResponse>(metadata, 0, { topics: [] })).topics.length, 2);
    assert.equal((await call<MetadataResponse>(metadata, 1, { topics: [] })).topics.length, 0);
    const v10 = await call<MetadataResponse>(metadata, 10, { topics: null, includeClusterAuthorizedOperations: true });
    assert.equal(v10.clusterAuthorizedOperations, CLUSTER_AUTHORIZED_OPERATIONS);
    assert.equal(v10.topics[0].topicAuthorizedOperations, OMITTED);
    for (let ver = 0; ver <= 12; ver++) {
      const x = await call<MetadataResponse>(metadata, ver, { topics: ver === 0 ? [] : null });
      assert.equal(x.topics.length, 2, `v${ver}`);
    }
  });
});

test('Metadata: auto-creation through the controller, answered UNKNOWN_TOPIC_OR_PARTITION as a KRaft broker does', async () => {
  await withEnv(
    { 'num.partitions': '2', 'offsets.topic.replication.factor': '1', 'offsets.topic.num.partitions': '5' },
    async ({ call, controller }) => {
      const r = await call<MetadataResponse>(metadata, 12, {
        topics: [{ name: 'auto' }, { name: 'bad name' }],
        allowAutoTopicCreation: true,
      });
      assert.deepEqual(
        r.topics.map((t) => [t.name, t.errorCode, t.topicId]),
        [
          ['bad name', ErrorCode.INVALID_TOPIC_EXCEPTION, ZERO],
          ['auto', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ZERO],
        ],
      );
      assert.equal(controller.image.topic('auto')!.partitions.size, 2);
      const again = await call<MetadataResponse>(metadata, 12, { topics: [{ name: 'auto' }] });
      assert.equal(again.topics[0].errorCode, ErrorCode.NONE);
      assert.equal(again.topics[0].partitions.length, 2);

      // allow_auto_topic_creation=false (v4+) leaves the topic absent; v3 always auto-creates.
      const no = await call<MetadataResponse>(metadata, 4, {
        topics: [{ name: 'manual' }],
        allowAutoTopicCreation: false,
      });
      assert.equal(no.topics[0].errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      assert.equal(controller.image.topic('manual'), undefined);
      await call<MetadataResponse>(metadata, 3, { topics: [{ name: 'legacy' }] });
      assert.ok(controller.image.topic('legacy'));

      // Internal topics are created with their coordinator's settings.
      await call<MetadataResponse>(metadata, 12, { topics: [{ name: '__consumer_offsets' }] });
      const offsets = controller.image.topic('__consumer_offsets')!;
      assert.equal(offsets.partitions.size, 5);
      assert.equal(controller.image.topicConfigs('__consumer_offsets').get('cleanup.policy'), 'compact');
    },
    undefined,
  );
});

test('DeleteTopics: by name (v1-5) and by id (v6), unknown names and ids, disabled deletion', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await controller.createTopics([
      { name: 'a', numPartitions: 1, replicationFactor: 1 },
      { name: 'b', numPartitions: 1, replicationFactor: 1 },
    ]);
    const idB = controller.image.topic('b')!.id;
    const r = await call<DeleteTopicsResponse>(deleteTopics, 5, { topicNames: ['a', 'missing'], timeoutMs: 1000 });
    assert.deepEqual(r.responses.map((x) => [x.name, x.errorCode, x.errorMessage]).sort(), [
      ['a', 0, null],
      ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'],
    ]);
    assert.equal(controller.image.topic('a'), undefined);
    const unknownId = 'AAAAAAAAAAAAAAAAAAAABQ';
    const r6 = await call<DeleteTopicsResponse>(deleteTopics, 6, {
      topics: [
        { name: null, topicId: idB },
        { name: null, topicId: unknownId },
        { name: 'x', topicId: idB },
      ],
      timeoutMs: 1000,
    });
    const byId = new Map(r6.responses.map((x) => [`${x.name}/${x.topicId}`, x] as const));
    assert.equal(must(byId, `b/${idB}`).errorCode, ErrorCode.NONE);
    assert.equal(must(byId, `null/${unknownId}`).errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
    assert.deepEqual(
      [must(byId, `x/${idB}`).errorCode, must(byId, `x/${idB}`).errorMessage],
      [ErrorCode.INVALID_REQUEST, 'You may not specify both topic name and topic id.'],
    );
    assert.equal(controller.image.topic('b'), undefined);
  });
  await withEnv({ 'delete.topic.enable': 'false' }, async ({ call }) => {
    const v2 = await call<DeleteTopicsResponse>(deleteTopics, 2, { topicNames: ['a'], timeoutMs: 1000 });
    assert.equal(v2.responses[0].errorCode, ErrorCode.INVALID_REQUEST);
    const v5 = await call<DeleteTopicsResponse>(deleteTopics, 5, { topicNames: ['a'], timeoutMs: 1000 });
    assert.deepEqual(
      [v5.responses[0].errorCode, v5.responses[0].errorMessage],
      [ErrorCode.TOPIC_DELETION_DISABLED, null],
    );
  });
});

test('CreatePartitions: increase, Kafka messages for no increase, unknown topic, validate-only', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await controller.createTopics([{ name: 't', numPartitions: 3, replicationFactor: 1 }]);
    const r = await call<CreatePartitionsResponse>(createPartitions, 3, {
      topics: [
        { name: 't', count: 2, assignments: null },
        { name: 'missing', count: 4, assignments: null },
      ],
      timeoutMs: 1000,
    });
    assert.deepEqual(
      r.results.map((x) => [x.name, x.errorCode, x.errorMessage]),
      [
        ['t', ErrorCode.INVALID_PARTITIONS, 'The topic t currently has 3 partition(s); 2 would not be an increase.'],
        ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'This server does not host this topic-partition.'],
      ],
    );
    const same = await call<CreatePartitionsResponse>(createPartitions, 0, {
      topics: [{ name: 't', count: 3, assignments: null }],
      timeoutMs: 1000,
    });
    assert.deepEqual(
      [same.results[0].errorCode, same.results[0].errorMessage],
      [ErrorCode.INVALID_PARTITIONS, 'Topic already has 3 partition(s).'],
    );
    const dry = await call<CreatePartitionsResponse>(createPartitions, 1, {
      topics: [{ name: 't', count: 5, assignments: null }],
      timeoutMs: 1000,
      validateOnly: true,
    });
    assert.equal(dry.results[0].errorCode, ErrorCode.NONE);
    assert.equal(controller.image.topic('t')!.partitions.size, 3);
    const ok = await call<CreatePartitionsResponse>(createPartitions, 2, {
      topics: [{ name: 't', count: 5, assignments: [{ brokerIds: [1] }, { brokerIds: [1] }] }],
      timeoutMs: 1000,
    });
    assert.equal(ok.results[0].errorCode, ErrorCode.NONE);
    assert.equal(controller.image.topic('t')!.partitions.size, 5);
  });
});

test('DescribeConfigs: topic override, broker synonyms and sources, documentation and types, errors', async () => {
  await withEnv({ 'log.retention.hours': '100', 'secret.custom': 'x' }, async ({ call, controller }) => {
    await controller.createTopics([
      { name: 't', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '1000' }] },
    ]);
    const r = await call<DescribeConfigsResponse>(describeConfigs, 4, {
      resources: [{ resourceType: ConfigResourceType.Topic, resourceName: 't', configurationKeys: null }],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    const cfg = new Map(r.results[0].configs.map((c) => [c.name, c] as const));
    const retention = must(cfg, 'retention.ms');
    assert.equal(retention.value, '1000');
    assert.equal(retention.configSource, 1);
    // Kafka lists broker synonyms from log.retention.ms (the topic config's synonym) on; it is unset,
    // so log.retention.hours is dropped (ConfigHelper.configSynonyms' dropWhile).
    assert.deepEqual(retention.synonyms, [{ name: 'retention.ms', value: '1000', source: 1 }]);
    assert.equal(retention.configType, 5);
    assert.equal(retention.readOnly, false);
    assert.ok(retention.documentation);
    const segmentMs = must(cfg, 'segment.ms');
    assert.deepEqual([segmentMs.value, segmentMs.configSource], ['604800000', 5]);
    assert.deepEqual(segmentMs.synonyms, []); // log.roll.ms unset: the same dropWhile
    const cleanup = must(cfg, 'cleanup.policy');
    assert.deepEqual([cleanup.value, cleanup.configSource, cleanup.configType], ['delete', 5, 7]);
    assert.deepEqual(cleanup.synonyms, [{ name: 'log.cleanup.policy', value: 'delete', source: 5 }]);

    // Without synonyms/documentation; configuration_keys filters.
    const plain = await call<DescribeConfigsResponse>(describeConfigs, 2, {
      resources: [
        { resourceType: ConfigResourceType.Topic, resourceName: 't', configurationKeys: ['retention.ms', 'nope'] },
      ],
    });
    assert.deepEqual(
      plain.results[0].configs.map((c) => [c.name, c.synonyms.length]),
      [['retention.ms', 0]],
    );

    // Broker: static, default and dynamic sources; read-only flags; unknown keys are sensitive.
    await controller.incrementalAlterConfigs([
      {
        resourceType: ConfigResourceType.Broker,
        resourceName: '',
        configs: [{ name: 'log.cleaner.threads', value: '2', configOperation: SET }],
      },
    ]);
    const b = await call<DescribeConfigsResponse>(describeConfigs, 4, {
      resources: [
        { resourceType: ConfigResourceType.Broker, resourceName: '1', configurationKeys: null },
        { resourceType: ConfigResourceType.Broker, resourceName: '', configurationKeys: null },
      ],
      includeSynonyms: true,
    });
    const bc = new Map(b.results[0].configs.map((c) => [c.name, c] as const));
    assert.deepEqual(
      [
        must(bc, 'log.retention.hours').value,
        must(bc, 'log.retention.hours').configSource,
        must(bc, 'log.retention.hours').readOnly,
      ],
      ['100', 4, true],
    ); // only log.retention.ms is dynamic
    assert.deepEqual([must(bc, 'log.retention.ms').value, must(bc, 'log.retention.ms').configSource], [null, 5]);
    assert.deepEqual([must(bc, 'node.id').value, must(bc, 'node.id').readOnly], ['1', true]);
    assert.deepEqual([must(bc, 'num.partitions').value, must(bc, 'num.partitions').configSource], ['1', 5]);
    assert.deepEqual([must(bc, 'log.cleaner.threads').value, must(bc, 'log.cleaner.threads').configSource], ['2', 3]);
    assert.deepEqual(must(bc, 'log.cleaner.threads').synonyms, [
      { name: 'log.cleaner.threads', value: '2', source: 3 },
      { name: 'log.cleaner.threads', value: '1', source: 5 },
    ]);
    assert.deepEqual(
      [must(bc, 'secret.custom').value, must(bc, 'secret.custom').isSensitive, must(bc, 'secret.custom').configType],
      [null, true, 0],
    );
    assert.deepEqual(
      b.results[1].configs.map((c) => [c.name, c.value, c.configSource, c.synonyms.length]),
      [['log.cleaner.threads', '2', 3, 1]],
    );

    const errs = await call<DescribeConfigsResponse>(describeConfigs, 4, {
      resources: [
        { resourceType: ConfigResourceType.Topic, resourceName: 'missing', configurationKeys: null },
        { resourceType: ConfigResourceType.Topic, resourceName: 'bad/name', configurationKeys: null },
        { resourceType: ConfigResourceType.Broker, resourceName: '2', configurationKeys: null },
        { resourceType: ConfigResourceType.Broker, resourceName: 'x', configurationKeys: null },
        { resourceType: ConfigResourceType.BrokerLogger, resourceName: '1', configurationKeys: null },
      ],
    });
    assert.deepEqual(errs.results.map((x) => [x.errorCode, x.errorMessage]).slice(0, 4), [
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ''],
      [
        ErrorCode.INVALID_TOPIC_EXCEPTION,
        "Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
      ],
      [ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1 or empty string, but received 2'],
      [ErrorCode.INVALID_REQUEST, 'Broker id must be an integer, but it is: x'],
    ]);
    assert.deepEqual(
      errs.results[4].configs.map((c) => [c.name, c.value, c.configSource]),
      [
        ['root', 'INFO', 6],
        ['kafka', 'INFO', 6],
        ['kafka.server', 'INFO', 6],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
    for (let ver = describeConfigs.minVersion; ver <= 4; ver++) {
      const x = await call<DescribeConfigsResponse>(describeConfigs, ver, {
        resources: [{ resourceType: ConfigResourceType.Broker, resourceName: '1', configurationKeys: null }],
        includeSynonyms: ver >= 1,
      });
      assert.equal(x.results[0].errorCode, 0, `v${ver}`);
    }
  });
});

test('IncrementalAlterConfigs: SET/DELETE/APPEND/SUBTRACT on a topic, validate-only, Kafka errors', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await controller.createTopics([{ name: 't', numPartitions: 1, replicationFactor: 1 }]);
    const res = (type: number, name: string, configs: Record<string, unknown>[]) => ({
      resourceType: type,
      resourceName: name,
      configs,
    });
    const T = ConfigResourceType.Topic;
    const ok = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        res(T, 't', [
          { name: 'retention.ms', configOperation: SET, value: '5000' },
          { name: 'cleanup.policy', configOperation: APPEND, value: 'compact' },
        ]),
      ],
    });
    assert.deepEqual(ok.responses, [{ errorCode: 0, errorMessage: null, resourceType: T, resourceName: 't' }]);
    assert.deepEqual(Object.fromEntries(controller.image.topicConfigs('t')), {
      'retention.ms': '5000',
      'cleanup.policy': 'delete,compact',
    });

    await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 0, {
      resources: [
        res(T, 't', [
          { name: 'retention.ms', configOperation: DELETE, value: null },
          { name: 'cleanup.policy', configOperation: SUBTRACT, value: 'delete' },
        ]),
      ],
    });
    assert.deepEqual(Object.fromEntries(controller.image.topicConfigs('t')), { 'cleanup.policy': 'compact' });

    const dry = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [res(T, 't', [{ name: 'retention.ms', configOperation: SET, value: '1' }])],
      validateOnly: true,
    });
    assert.equal(dry.responses[0].errorCode, 0);
    assert.equal(controller.image.topicConfigs('t').get('retention.ms'), undefined);

    const bad = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        res(T, 't', [{ name: 'retention.ms', configOperation: SET, value: 'abc' }]),
        res(T, 'missing', [{ name: 'retention.ms', configOperation: SET, value: '1' }]),
        res(T, 't2', [{ name: 'segment.ms', configOperation: APPEND, value: '1' }]),
        res(ConfigResourceType.Broker, '1', [
          { name: 'num.network.threads', configOperation: SET, value: 'x' },
          { name: 'node.id', configOperation: SET, value: '3' },
        ]),
        res(ConfigResourceType.Broker, '', [{ name: 'log.cleaner.threads', configOperation: SET, value: 'x' }]),
        res(ConfigResourceType.Broker, '7', [{ name: 'log.cleaner.threads', configOperation: SET, value: '2' }]),
        res(T, 'n', [{ name: 'a', configOperation: SET, value: null }]),
        res(99, 'z', []),
      ],
    });
    assert.deepEqual(
      bad.responses.map((x) => [x.resourceName, x.errorCode, x.errorMessage]),
      [
        ['t', ErrorCode.INVALID_CONFIG, 'Invalid value abc for configuration retention.ms: Not a number of type LONG'],
        ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'missing' does not exist."],
        ['t2', ErrorCode.INVALID_CONFIG, "Can't APPEND to key segment.ms because its type is not LIST."],
        ['1', ErrorCode.INVALID_REQUEST, 'Cannot update these configs dynamically: [node.id]'],
        [
          '',
          ErrorCode.INVALID_REQUEST,
          'Invalid value x for configuration log.cleaner.threads: Not a number of type INT',
        ],
        ['7', ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1, but received 7'],
        ['n', ErrorCode.INVALID_REQUEST, 'Null value not supported for : a'],
        ['z', ErrorCode.INVALID_REQUEST, 'Unknown resource type 99'],
      ],
    );
    const dupes = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [res(T, 't', []), res(T, 't', [])],
    });
    assert.deepEqual(
      dupes.responses.map((x) => x.errorMessage),
      ['Each resource must appear at most once.', 'Each resource must appear at most once.'],
    );

    // Broker dynamic config through to the image.
    const b = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        res(ConfigResourceType.Broker, '1', [{ name: 'log.cleaner.threads', configOperation: SET, value: '3' }]),
      ],
    });
    assert.equal(b.responses[0].errorCode, 0);
    assert.equal(controller.image.brokerConfigs(1).get('log.cleaner.threads'), '3');
  });
});

test('IncrementalAlterConfigs: BROKER_LOGGER levels handled on the broker', async () => {
  await withEnv({}, async ({ call, services }) => {
    const L = ConfigResourceType.BrokerLogger;
    const loggers = services.loggers;
    const r = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        { resourceType: L, resourceName: '1', configs: [{ name: 'kafka', configOperation: SET, value: 'DEBUG' }] },
      ],
    });
    assert.equal(r.responses[0].errorCode, 0);
    assert.equal(loggers.level('kafka.server'), 'DEBUG');
    const errs = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        { resourceType: L, resourceName: '1', configs: [{ name: 'nope', configOperation: SET, value: 'DEBUG' }] },
      ],
    });
    assert.deepEqual(
      [errs.responses[0].errorCode, errs.responses[0].errorMessage],
      [ErrorCode.INVALID_CONFIG, 'Logger nope does not exist!'],
    );
    const lvl = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        { resourceType: L, resourceName: '1', configs: [{ name: 'kafka', configOperation: SET, value: 'LOUD' }] },
      ],
    });
    assert.equal(
      lvl.responses[0].errorMessage,
      'Cannot set the log level of kafka to LOUD as it is not a supported log level. Valid log levels are DEBUG, ERROR, FATAL, INFO, TRACE, WARN',
    );
    const root = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        { resourceType: L, resourceName: '1', configs: [{ name: 'root', configOperation: DELETE, value: null }] },
      ],
    });
    assert.deepEqual(
      [root.responses[0].errorCode, root.responses[0].errorMessage],
      [ErrorCode.INVALID_REQUEST, 'Removing the log level of the root logger is not allowed'],
    );
    const app = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        { resourceType: L, resourceName: '1', configs: [{ name: 'kafka', configOperation: APPEND, value: 'x' }] },
      ],
    });
    assert.equal(app.responses[0].errorMessage, 'APPEND operation is not allowed for the BROKER_LOGGER resource');
    const other = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [{ resourceType: L, resourceName: '2', configs: [] }],
    });
    assert.equal(other.responses[0].errorMessage, 'Unexpected node id. Expected 1, but received 2');

    // On a controller listener (ControllerApis): loggers last, unknown types UNSUPPORTED_VERSION, one answer per duplicate.
    const T = ConfigResourceType.Topic;
    const ctl = await call<IncrementalAlterConfigsResponse>(
      incrementalAlterConfigs,
      1,
      {
        resources: [
          { resourceType: L, resourceName: '1', configs: [{ name: 'kafka', configOperation: DELETE, value: null }] },
          { resourceType: 99, resourceName: 'x', configs: [] },
          { resourceType: T, resourceName: 'd', configs: [] },
          { resourceType: T, resourceName: 'd', configs: [] },
          {
            resourceType: T,
            resourceName: 'missing',
            configs: [{ name: 'retention.ms', configOperation: SET, value: '1' }],
          },
        ],
      },
      'CONTROLLER',
    );
    assert.deepEqual(
      ctl.responses.map((x) => [x.resourceName, x.errorCode, x.errorMessage]),
      [
        ['x', ErrorCode.UNSUPPORTED_VERSION, 'Unknown resource type 99.'],
        ['d', ErrorCode.INVALID_REQUEST, 'Duplicate resource.'],
        ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'missing' does not exist."],
        ['1', ErrorCode.NONE, null],
      ],
    );
    assert.equal(loggers.level('kafka.server'), 'INFO');
  });
});

test('AlterConfigs (legacy): full replacement, validate-only, BROKER_LOGGER refused', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await controller.createTopics([
      { name: 't', numPartitions: 1, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '1000' }] },
    ]);
    const T = ConfigResourceType.Topic;
    const dry = await call<AlterConfigsResponse>(alterConfigs, 2, {
      resources: [{ resourceType: T, resourceName: 't', configs: [{ name: 'segment.ms', value: '60000' }] }],
      validateOnly: true,
    });
    assert.equal(dry.responses[0].errorCode, 0);
    assert.deepEqual(Object.fromEntries(controller.image.topicConfigs('t')), { 'retention.ms': '1000' });
    const r = await call<AlterConfigsResponse>(alterConfigs, 0, {
      resources: [
        { resourceType: T, resourceName: 't', configs: [{ name: 'segment.ms', value: '60000' }] },
        { resourceType: ConfigResourceType.BrokerLogger, resourceName: '1', configs: [] },
      ],
    });
    assert.deepEqual(
      r.responses.map((x) => [x.errorCode, x.errorMessage]),
      [
        [0, null],
        [ErrorCode.INVALID_REQUEST, 'Unknown resource type 8'],
      ],
    );
    assert.deepEqual(Object.fromEntries(controller.image.topicConfigs('t')), { 'segment.ms': '60000' });
  });
});

test('DescribeCluster: brokers, controller id, authorized operations, endpoint types', async () => {
  await withEnv({}, async ({ call }) => {
    const r = await call<DescribeClusterResponse>(describeCluster, 1, {
      includeClusterAuthorizedOperations: true,
      endpointType: 1,
    });
    assert.deepEqual(
      [r.errorCode, r.endpointType, r.clusterId, r.controllerId, r.clusterAuthorizedOperations],
      [0, 1, CLUSTER_ID, 1, CLUSTER_AUTHORIZED_OPERATIONS],
    );
    assert.deepEqual(r.brokers, [{ brokerId: 1, host: 'localhost', port: 9092, rack: null, isFenced: false }]);
    const v0 = await call<DescribeClusterResponse>(describeCluster, 0, {});
    assert.deepEqual([v0.errorCode, v0.clusterAuthorizedOperations, v0.brokers.length], [0, OMITTED, 1]);
    const mismatch = await call<DescribeClusterResponse>(describeCluster, 1, { endpointType: 2 });
    assert.deepEqual(
      [mismatch.errorCode, mismatch.errorMessage],
      [
        ErrorCode.MISMATCHED_ENDPOINT_TYPE,
        'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER',
      ],
    );
    const unknown = await call<DescribeClusterResponse>(describeCluster, 1, { endpointType: 7 });
    assert.deepEqual(
      [unknown.errorCode, unknown.errorMessage],
      [ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, 'Unsupported endpoint type 7'],
    );
    const ctl = await call<DescribeClusterResponse>(describeCluster, 1, { endpointType: 2 }, 'CONTROLLER');
    assert.deepEqual(
      [ctl.errorCode, ctl.endpointType, ctl.controllerId, ctl.brokers],
      [0, 2, 1, [{ brokerId: 1, host: 'localhost', port: 9093, rack: null, isFenced: false }]],
    );
  });
});

test('DescribeLogDirs: partitions per dir with sizes, requested subset, disk space (v4)', async () => {
  await withEnv(
    {},
    async ({ call, config }) => {
      const dir = config.logDirs[0]!;
      const r = await call<DescribeLogDirsResponse>(describeLogDirs, 4, { topics: null });
      assert.equal(r.errorCode, 0);
      assert.equal(r.results.length, 1);
      const res = r.results[0];
      assert.equal(res.logDir, dir);
      assert.ok(res.totalBytes > 0n && res.usableBytes > 0n && res.usableBytes <= res.totalBytes);
      assert.deepEqual(res.topics, [
        {
          name: 'a',
          partitions: [
            { partitionIndex: 0, partitionSize: 100n, offsetLag: 0n, isFutureKey: false },
            { partitionIndex: 1, partitionSize: 0n, offsetLag: 0n, isFutureKey: false },
          ],
        },
        { name: 'b', partitions: [{ partitionIndex: 0, partitionSize: 42n, offsetLag: 0n, isFutureKey: false }] },
      ]);
      const some = await call<DescribeLogDirsResponse>(describeLogDirs, 1, {
        topics: [
          { topic: 'a', partitions: [1] },
          { topic: 'zz', partitions: [0] },
        ],
      });
      assert.deepEqual(
        some.results[0].topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
        [['a', [1]]],
      );
      assert.equal(some.results[0].totalBytes, -1n); // not in v1
    },
    (dir) => [
      { topic: 'b', partition: 0, dir: join(dir, 'b-0'), size: 42, logEndOffset: 3, highWatermark: 3 },
      { topic: 'a', partition: 1, dir: join(dir, 'a-1'), size: 0, logEndOffset: 0, highWatermark: 0 },
      { topic: 'a', partition: 0, dir: join(dir, 'a-0'), size: 100, logEndOffset: 10, highWatermark: 8 },
      { topic: 'c', partition: 0, dir: join('/elsewhere', 'c-0'), size: 1, logEndOffset: 0, highWatermark: 0 },
    ],
  );
});

test('DescribeTopicPartitions: pagination cursor, partition limit, ELR fields, unknown topics', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await controller.createTopics([
      { name: 'a', numPartitions: 3, replicationFactor: 1 },
      { name: 'b', numPartitions: 2, replicationFactor: 1 },
    ]);
    const p1 = await call<DescribeTopicPartitionsResponse>(describeTopicPartitions, 0, {
      topics: [],
      responsePartitionLimit: 2,
    });
    assert.deepEqual(
      p1.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
      [['a', [0, 1]]],
    );
    assert.deepEqual(p1.nextCursor, { topicName: 'a', partitionIndex: 2 });
    assert.equal(p1.topics[0].topicAuthorizedOperations, TOPIC_AUTHORIZED_OPERATIONS);
    assert.deepEqual(
      [p1.topics[0].partitions[0].eligibleLeaderReplicas, p1.topics[0].partitions[0].lastKnownElr],
      [[], []],
    );
    const p2 = await call<DescribeTopicPartitionsResponse>(describeTopicPartitions, 0, {
      topics: [],
      responsePartitionLimit: 2,
      cursor: p1.nextCursor,
    });
    assert.deepEqual(
      p2.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
      [
        ['a', [2]],
        ['b', [0]],
      ],
    );
    assert.deepEqual(p2.nextCursor, { topicName: 'b', partitionIndex: 1 });
    const p3 = await call<DescribeTopicPartitionsResponse>(describeTopicPartitions, 0, {
      topics: [],
      responsePartitionLimit: 2,
      cursor: p2.nextCursor,
    });
    assert.deepEqual(
      p3.topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]),
      [['b', [1]]],
    );
    assert.equal(p3.nextCursor, null);
    const exact = await call<DescribeTopicPartitionsResponse>(describeTopicPartitions, 0, {
      topics: [{ name: 'a' }, { name: 'b' }],
      responsePartitionLimit: 3,
    });
    assert.deepEqual(exact.nextCursor, { topicName: 'b', partitionIndex: 0 });
    const named = await call<DescribeTopicPartitionsResponse>(describeTopicPartitions, 0, {
      topics: [{ name: 'zz' }, { name: 'b' }, { name: 'bad name' }],
      responsePartitionLimit: 100,
    });
    assert.deepEqual(
      named.topics.map((t) => [t.name, t.errorCode]),
      [
        ['b', 0],
        ['bad name', ErrorCode.INVALID_TOPIC_EXCEPTION],
        ['zz', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ],
    );
    const badCursor = await call<DescribeTopicPartitionsResponse>(describeTopicPartitions, 0, {
      topics: [{ name: 'b' }],
      responsePartitionLimit: 100,
      cursor: { topicName: 'a', partitionIndex: 0 },
    });
    assert.equal(badCursor.topics[0].errorCode, ErrorCode.INVALID_REQUEST);
  });
});

/** Registers broker `id` (fenced, as every new registration is) with a PLAINTEXT endpoint. */
async function registerFencedBroker(controller: QuorumController, id: number): Promise<void> {
  const r = await controller.registerBroker({
    brokerId: id,
    incarnationId: 'AAAAAAAAAAAAAAAAAAAAAQ',
    listeners: [toEndpoint({ name: 'PLAINTEXT', host: 'localhost', port: 9100 + id })],
    rack: 'r2',
    logDirs: ['a2pX3Pm0TZWqtlQ5FhcAMw'],
    // it supports every finalized level
    features: new Map([...controller.image.features].map(([name, level]) => [name, { min: 0, max: level }])),
  });
  assert.equal(r.errorCode, 0, r.errorMessage ?? '');
}

test('DescribeCluster v2: fenced brokers only with IncludeFencedBrokers, each with IsFenced (KIP-1073)', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await registerFencedBroker(controller, 2);
    const alive = await call<DescribeClusterResponse>(describeCluster, 2, {
      endpointType: 1,
      includeFencedBrokers: false,
    });
    assert.deepEqual(
      alive.brokers.map((b: { brokerId: number; isFenced: boolean }) => [b.brokerId, b.isFenced]),
      [[1, false]],
    );
    const all = await call<DescribeClusterResponse>(describeCluster, 2, {
      endpointType: 1,
      includeFencedBrokers: true,
    });
    assert.deepEqual(all.brokers, [
      { brokerId: 1, host: 'localhost', port: 9092, rack: null, isFenced: false },
      { brokerId: 2, host: 'localhost', port: 9102, rack: 'r2', isFenced: true },
    ]);
    // the controller id reported is an alive broker's
    assert.equal(all.controllerId, 1);
    // before v2 the flag does not exist: fenced brokers stay hidden
    assert.deepEqual(
      (await call<DescribeClusterResponse>(describeCluster, 1, { endpointType: 1 })).brokers.map(
        (b: { brokerId: number }) => b.brokerId,
      ),
      [1],
    );
  });
});

test('UnregisterBroker: removes a registration (leaving ISRs first); BROKER_ID_NOT_REGISTERED worded as Kafka', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await registerFencedBroker(controller, 2);
    assert.ok(controller.image.brokers.has(2));
    const ok = await call<UnregisterBrokerResponse>(unregisterBroker, 0, { brokerId: 2 });
    assert.deepEqual([ok.errorCode, ok.errorMessage], [0, '']);
    assert.equal(controller.image.brokers.has(2), false);
    const again = await call<UnregisterBrokerResponse>(unregisterBroker, 0, { brokerId: 2 });
    assert.deepEqual(
      [again.errorCode, again.errorMessage],
      [ErrorCode.BROKER_ID_NOT_REGISTERED, 'Broker ID 2 is not currently registered'],
    );
    // served on the controller listener too (ControllerApis.handleUnregisterBroker)
    const ctl = await call<UnregisterBrokerResponse>(unregisterBroker, 0, { brokerId: 7 }, 'CONTROLLER');
    assert.equal(ctl.errorCode, ErrorCode.BROKER_ID_NOT_REGISTERED);
  });
});

test('ListConfigResources: v0 client metrics only; v1 by type in Kafka 4.4 order; unsupported type', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await call<CreateTopicsResponse>(createTopics, 7, {
      topics: [topic('zeta'), topic('alpha')],
      timeoutMs: 5000,
      validateOnly: false,
    });
    await registerFencedBroker(controller, 2);
    const alter = await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: ConfigResourceType.Group,
          resourceName: 'g1',
          configs: [{ name: 'consumer.session.timeout.ms', configOperation: SET, value: '50000' }],
        },
        {
          resourceType: ConfigResourceType.ClientMetrics,
          resourceName: 'cm1',
          configs: [{ name: 'interval.ms', configOperation: SET, value: '60000' }],
        },
      ],
      validateOnly: false,
    });
    assert.deepEqual(
      alter.responses.map((r: { errorCode: number }) => r.errorCode),
      [0, 0],
    );
    const list = async (version: number, resourceTypes: number[]) => {
      const r = await call<ListConfigResourcesResponse>(listConfigResources, version, { resourceTypes });
      return [
        r.errorCode,
        r.configResources.map(
          (c: { resourceType: number; resourceName: string }) => `${c.resourceType}:${c.resourceName}`,
        ),
      ];
    };
    assert.deepEqual(await list(0, []), [0, ['16:cm1']]);
    // empty = every supported type: groups, client metrics, broker loggers, brokers (fenced too), topics
    assert.deepEqual(await list(1, []), [0, ['32:g1', '16:cm1', '8:1', '8:2', '4:1', '4:2', '2:alpha', '2:zeta']]);
    // the order is Kafka's, whatever the request's
    assert.deepEqual(await list(1, [2, 4]), [0, ['4:1', '4:2', '2:alpha', '2:zeta']]);
    assert.deepEqual(await list(1, [32]), [0, ['32:g1']]);
    assert.deepEqual(await list(1, [2, 99]), [ErrorCode.UNSUPPORTED_VERSION, []]);
    // a resource whose last dynamic config is deleted is no longer listed
    await call<IncrementalAlterConfigsResponse>(incrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: ConfigResourceType.Group,
          resourceName: 'g1',
          configs: [{ name: 'consumer.session.timeout.ms', configOperation: DELETE, value: null }],
        },
      ],
      validateOnly: false,
    });
    assert.deepEqual(await list(1, [32]), [0, []]);
  });
});

test('Metadata v13: top-level error code NONE, topics by id as in v12', async () => {
  await withEnv({}, async ({ call }) => {
    const created = await call<CreateTopicsResponse>(createTopics, 7, {
      topics: [topic('m13', { numPartitions: 2 })],
      timeoutMs: 5000,
      validateOnly: false,
    });
    const id = created.topics[0].topicId;
    const r = await call<MetadataResponse>(metadata, 13, {
      topics: [{ topicId: id, name: null }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.equal(r.errorCode, 0);
    assert.deepEqual([r.topics[0].errorCode, r.topics[0].name, r.topics[0].partitions.length], [0, 'm13', 2]);
    const unknown = await call<MetadataResponse>(metadata, 13, {
      topics: [{ topicId: 'EREREREREREREREREREREQ', name: null }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    assert.deepEqual([unknown.errorCode, unknown.topics[0].errorCode], [0, ErrorCode.UNKNOWN_TOPIC_ID]);
  });
});

test('AlterPartitionReassignments, ListPartitionReassignments, ElectLeaders: every version, empty requests, request errors', async () => {
  await withEnv({}, async ({ call, controller }) => {
    await call<CreateTopicsResponse>(createTopics, 7, {
      topics: [topic('r', { assignments: [{ partitionIndex: 0, brokerIds: [1] }] })],
      timeoutMs: 5000,
      validateOnly: false,
    });
    // QuorumController.alterPartitionReassignments: an empty request is a default response
    for (const v of [0, 1]) {
      const empty = await call<AlterPartitionReassignmentsResponse>(alterPartitionReassignments, v, {
        timeoutMs: 1000,
        allowReplicationFactorChange: v === 0,
        topics: [],
      });
      assert.deepEqual([empty.errorCode, empty.errorMessage, empty.responses], [0, '', []]);
    }
    const r = await call<AlterPartitionReassignmentsResponse>(alterPartitionReassignments, 1, {
      timeoutMs: 1000,
      allowReplicationFactorChange: true,
      topics: [
        {
          name: 'r',
          partitions: [
            { partitionIndex: 0, replicas: [1, 2] },
            { partitionIndex: 0, replicas: null },
            { partitionIndex: 0, replicas: [1] },
          ],
        },
      ],
    });
    assert.deepEqual(r.responses[0].partitions, [
      {
        partitionIndex: 0,
        errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        errorMessage: 'The manual partition assignment includes broker 2, but no such broker is registered.',
      },
      { partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: null },
      { partitionIndex: 0, errorCode: 0, errorMessage: null },
    ]);
    const listed = await call<ListPartitionReassignmentsResponse>(listPartitionReassignments, 0, {
      timeoutMs: 1000,
      topics: null,
    });
    assert.deepEqual([listed.errorCode, listed.errorMessage, listed.topics], [0, null, []]);
    // v0 has no election type (PREFERRED) and, for all partitions, topics whose election was not needed
    const v0 = await call<ElectLeadersResponse>(electLeaders, 0, { topicPartitions: null, timeoutMs: 1000 });
    assert.deepEqual(v0.replicaElectionResults, [{ topic: 'r', partitionResult: [] }]);
    const notNeeded = await call<ElectLeadersResponse>(electLeaders, 2, {
      electionType: 1,
      topicPartitions: [{ topic: 'r', partitions: [0] }],
      timeoutMs: 1000,
    });
    assert.deepEqual(notNeeded.replicaElectionResults[0].partitionResult, [
      {
        partitionId: 0,
        errorCode: ErrorCode.ELECTION_NOT_NEEDED,
        errorMessage: 'Leader election not needed for topic partition.',
      },
    ]);
    // ElectLeadersRequest.getErrorResponse: the request error at the top and for every named partition
    const bad = await call<ElectLeadersResponse>(electLeaders, 1, {
      electionType: 2,
      topicPartitions: [{ topic: 'r', partitions: [0, 1] }],
      timeoutMs: 1000,
    });
    assert.equal(bad.errorCode, ErrorCode.INVALID_REQUEST);
    assert.deepEqual(
      bad.replicaElectionResults[0].partitionResult.map((p) => [p.partitionId, p.errorCode, p.errorMessage]),
      [
        [0, ErrorCode.INVALID_REQUEST, 'Unknown election type 2'],
        [1, ErrorCode.INVALID_REQUEST, 'Unknown election type 2'],
      ],
    );
    const none = await call<ElectLeadersResponse>(electLeaders, 2, {
      electionType: 0,
      topicPartitions: [],
      timeoutMs: 1,
    });
    assert.deepEqual([none.errorCode, none.replicaElectionResults], [0, []]);
    assert.equal(controller.image.partition('r', 0)!.partitionEpoch, 0, 'nothing was written');
  });
});
