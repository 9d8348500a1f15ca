// ACL checks of the admin APIs and of the controller's RPCs on real tkafka processes with
// authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer (Kafka 4.4's
// KafkaApis / ControllerApis / AuthHelper): a SASL PLAIN user without ACLs gets each API's denial
// (29 / 30 / 31 per resource or for the request, with Kafka's messages), and succeeds once admin
// has granted the ACLs; on the PLAINTEXT controller listener, ANONYMOUS (no super user here) is
// refused the inter-node RPCs (CLUSTER_ACTION) and the Envelope until granted CLUSTER_ACTION. Then a
// 3-node cluster with the authorizer (its nodes' principal User:ANONYMOUS a super user) starts,
// replicates and elects a new leader when one is killed.
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, boundPorts, type BrokerProcess } from './helpers/broker-process.js';
import { startCluster, tkafkaLauncher, waitForLeader, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { ZERO_UUID } from '../src/protocol/uuid.js';
import { encodeRequest } from '../src/protocol/frame.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch-build.js';
import { serializePrincipal } from '../src/broker/forwarding/principal.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const JAAS = `${PLAIN_MODULE} required user_admin="admin-secret" user_bob="bob-secret";`;
const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
const REQUEST_NOT_AUTHORIZED = /^Request Request\(.*\) needs (ALTER|DESCRIBE) permission\.$/;

// AclOperation / ResourceType / PatternType / AclPermissionType codes
const TOPIC = 2;
const GROUP = 3;
const CLUSTER = 4;
const LITERAL = 3;
const ALLOW = 3;
const ALL = 2;
const ALTER = 7;
const DESCRIBE = 8;
const CLUSTER_ACTION = 9;
const DESCRIBE_CONFIGS = 10;
const ALTER_CONFIGS = 11;

async function saslClient(port: number, user: string): Promise<RawClient> {
  const c = await RawClient.connect(port);
  assert.equal((await c.request(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode, 0);
  const a = await c.request(ApiKey.SaslAuthenticate, 2, {
    authBytes: Buffer.from(`\u0000${user}\u0000${user}-secret`),
  });
  assert.equal(a.errorCode, 0, a.errorMessage ?? '');
  return c;
}

describe('a tkafka node with StandardAuthorizer and SASL PLAIN', () => {
  let node: BrokerProcess;
  let sasl: number;
  let controllerPort: number;
  let admin: RawClient;
  let bob: RawClient;

  before(async () => {
    node = await startBroker({
      overrides: {
        listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASL://127.0.0.1:0',
        'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SASL://127.0.0.1:0',
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT',
        'listener.name.sasl.sasl.enabled.mechanisms': 'PLAIN',
        'listener.name.sasl.plain.sasl.jaas.config': JAAS,
        'authorizer.class.name': STANDARD_AUTHORIZER,
        // not ANONYMOUS: the controller listener's clients are refused until granted
        'super.users': 'User:admin',
      },
    });
    const ports = boundPorts(node.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL'])!;
    sasl = ports.get('SASL')!;
    controllerPort = ports.get('CONTROLLER')!;
    admin = await saslClient(sasl, 'admin');
    bob = await saslClient(sasl, 'bob');
    const r = await admin.request(ApiKey.CreateTopics, 7, {
      topics: ['t1', 't2'].map((name) => ({
        name,
        numPartitions: 1,
        replicationFactor: 1,
        assignments: [],
        configs: [],
      })),
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.deepEqual(
      r.topics.map((t) => t.errorCode),
      [0, 0],
    );
  });

  after(async () => {
    admin?.close();
    bob?.close();
    await node?.stop();
    node?.cleanup();
  });

  async function grant(principal: string, resourceType: number, resourceName: string, ops: number[]): Promise<void> {
    const r = await admin.request(ApiKey.CreateAcls, 3, {
      creations: ops.map((operation) => ({
        resourceType,
        resourceName,
        resourcePatternType: LITERAL,
        principal,
        host: '*',
        operation,
        permissionType: ALLOW,
      })),
    });
    assert.deepEqual(
      r.results.map((x) => x.errorCode),
      ops.map(() => 0),
    );
  }

  const describeConfigs = () =>
    bob.request(ApiKey.DescribeConfigs, 4, {
      resources: [
        { resourceType: 2, resourceName: 't1', configurationKeys: ['retention.ms'] },
        { resourceType: 4, resourceName: '', configurationKeys: ['log.retention.ms'] },
        { resourceType: 32, resourceName: 'grp', configurationKeys: null },
      ],
      includeSynonyms: false,
      includeDocumentation: false,
    });
  const incrementalAlter = () =>
    bob.request(ApiKey.IncrementalAlterConfigs, 1, {
      resources: [
        {
          resourceType: 2,
          resourceName: 't1',
          configs: [{ name: 'retention.ms', configOperation: 0, value: '9000000' }],
        },
        {
          resourceType: 4,
          resourceName: '',
          configs: [{ name: 'log.retention.ms', configOperation: 0, value: '9000000' }],
        },
        { resourceType: 8, resourceName: '99', configs: [{ name: 'root', configOperation: 0, value: 'INFO' }] },
      ],
      validateOnly: true,
    });
  const createPartitions = () =>
    bob.request(ApiKey.CreatePartitions, 3, {
      topics: [{ name: 't1', count: 2, assignments: null }],
      timeoutMs: 30_000,
      validateOnly: true,
    });
  const deleteRecords = () =>
    bob.request(ApiKey.DeleteRecords, 2, {
      topics: [{ name: 't1', partitions: [{ partitionIndex: 0, offset: 0n }] }],
      timeoutMs: 30_000,
    });
  const describeLogDirs = () => bob.request(ApiKey.DescribeLogDirs, 4, { topics: null });
  const listReassignments = () =>
    bob.request(ApiKey.ListPartitionReassignments, 0, { timeoutMs: 30_000, topics: null });
  const describeScram = () => bob.request(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: 'nobody' }] });
  const describeQuorum = () =>
    bob.request(ApiKey.DescribeQuorum, 2, {
      topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
    });
  const allocateProducerIds = async () => {
    const c = await RawClient.connect(controllerPort);
    try {
      return await c.request(ApiKey.AllocateProducerIds, 0, { brokerId: 1, brokerEpoch: 0n });
    } finally {
      c.close();
    }
  };
  const envelope = async () => {
    const c = await RawClient.connect(controllerPort);
    try {
      return await c.request(ApiKey.Envelope, 0, {
        requestData: Buffer.concat(
          encodeRequest(ApiKey.CreatePartitions, 3, 9, 'x', {
            topics: [{ name: 't1', count: 2, assignments: null }],
            timeoutMs: 30_000,
            validateOnly: true,
          }),
        ).subarray(4),
        requestPrincipal: serializePrincipal({ type: 'User', name: 'admin', tokenAuthenticated: false }),
        clientHostAddress: Buffer.from([127, 0, 0, 1]),
      });
    } finally {
      c.close();
    }
  };

  test('a user without ACLs is refused with each API’s code and message', async () => {
    const dc = await describeConfigs();
    assert.deepEqual(
      dc.results.map((r) => [r.resourceName, r.errorCode, r.errorMessage, r.configs.length]),
      [
        ['t1', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.', 0],
        ['', ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.', 0],
        ['grp', ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.', 0],
      ],
    );
    const iac = await incrementalAlter();
    assert.deepEqual(
      iac.responses.map((r) => [r.resourceName, r.errorCode, r.errorMessage]),
      [
        ['t1', 29, 'Topic authorization failed.'],
        ['', 31, null],
        ['99', 31, null],
      ],
    );
    const ac = await bob.request(ApiKey.AlterConfigs, 2, {
      resources: [{ resourceType: 2, resourceName: 't1', configs: [{ name: 'retention.ms', value: '9000000' }] }],
      validateOnly: true,
    });
    assert.deepEqual(
      ac.responses.map((r) => [r.errorCode, r.errorMessage]),
      [[29, 'Topic authorization failed.']],
    );
    assert.deepEqual(
      (await createPartitions()).results.map((r) => [r.name, r.errorCode, r.errorMessage]),
      [['t1', 29, null]],
    );
    assert.deepEqual(
      (await deleteRecords()).topics.map((t) => t.partitions.map((p) => [p.errorCode, p.lowWatermark])),
      [[[29, -1n]]],
    );
    const md = await admin.request(ApiKey.Metadata, 12, {
      topics: [{ name: 't2', topicId: ZERO_UUID }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const t2 = String(md.topics[0]!.topicId);
    const dt = await bob.request(ApiKey.DeleteTopics, 6, {
      topics: [
        { name: 't1', topicId: ZERO_UUID },
        { name: null, topicId: t2 },
      ],
      timeoutMs: 30_000,
    });
    assert.deepEqual(
      dt.responses.map((r) => [r.name, r.topicId, r.errorCode, r.errorMessage]),
      [
        ['t1', ZERO_UUID, 29, 'Topic authorization failed.'],
        [null, t2, 29, 'Topic authorization failed.'],
      ],
    );
    const dld = await describeLogDirs();
    assert.deepEqual([dld.errorCode, dld.results], [31, []]);
    const arld = await bob.request(ApiKey.AlterReplicaLogDirs, 2, {
      dirs: [{ path: '/nowhere', topics: [{ name: 't1', partitions: [0] }] }],
    });
    assert.deepEqual(
      arld.results.map((t) => t.partitions.map((p) => p.errorCode)),
      [[31]],
    );
    const el = await bob.request(ApiKey.ElectLeaders, 2, {
      electionType: 0,
      topicPartitions: [{ topic: 't1', partitions: [0] }],
      timeoutMs: 30_000,
    });
    assert.equal(el.errorCode, 31);
    assert.match(el.replicaElectionResults[0]!.partitionResult[0]!.errorMessage ?? '', REQUEST_NOT_AUTHORIZED);
    const apr = await bob.request(ApiKey.AlterPartitionReassignments, 0, {
      timeoutMs: 30_000,
      topics: [{ name: 't1', partitions: [{ partitionIndex: 0, replicas: null }] }],
    });
    assert.equal(apr.errorCode, 31);
    assert.match(apr.errorMessage ?? '', REQUEST_NOT_AUTHORIZED);
    const lpr = await listReassignments();
    assert.equal(lpr.errorCode, 31);
    assert.match(lpr.errorMessage ?? '', REQUEST_NOT_AUTHORIZED);
    const uf = await bob.request(ApiKey.UpdateFeatures, 1, {
      timeoutMs: 30_000,
      featureUpdates: [{ feature: 'group.version', maxVersionLevel: 1, upgradeType: 1 }],
      validateOnly: true,
    });
    assert.equal(uf.errorCode, 31);
    assert.match(uf.errorMessage ?? '', REQUEST_NOT_AUTHORIZED);
    const dsc = await describeScram();
    assert.deepEqual(
      [dsc.errorCode, dsc.errorMessage, dsc.results.map((r) => [r.user, r.errorCode])],
      [31, null, [['', 31]]],
    );
    const asc = await bob.request(ApiKey.AlterUserScramCredentials, 0, {
      deletions: [{ name: 'nobody', mechanism: 1 }],
      upsertions: [],
    });
    assert.deepEqual(
      asc.results.map((r) => [r.user, r.errorCode]),
      [['nobody', 31]],
    );
    assert.match(asc.results[0]!.errorMessage ?? '', REQUEST_NOT_AUTHORIZED);
    const dq = await describeQuorum();
    assert.deepEqual([dq.errorCode, dq.errorMessage], [31, 'Cluster authorization failed.']);
    const wtm = await bob.request(ApiKey.WriteTxnMarkers, 1, {
      markers: [
        {
          producerId: 5n,
          producerEpoch: 0,
          transactionResult: false,
          topics: [{ name: 't1', partitionIndexes: [0] }],
          coordinatorEpoch: 0,
        },
      ],
    });
    assert.deepEqual(
      wtm.markers.map((m) => m.topics.map((t) => t.partitions.map((p) => p.errorCode))),
      [[[31]]],
    );
    assert.equal((await bob.request(ApiKey.UnregisterBroker, 0, { brokerId: 99 })).errorCode, 31);

    // the controller listener: ANONYMOUS is no super user and has no CLUSTER_ACTION
    assert.equal((await allocateProducerIds()).errorCode, 31);
    const env = await envelope();
    assert.deepEqual([env.errorCode, env.responseData], [31, null]);
    const c = await RawClient.connect(controllerPort);
    try {
      const hb = await c.request(ApiKey.BrokerHeartbeat, 1, {
        brokerId: 1,
        brokerEpoch: 0n,
        currentMetadataOffset: 0n,
      });
      assert.equal(hb.errorCode, 31);
      const vote = await c.request(ApiKey.Vote, 0, { clusterId: null, topics: [] });
      assert.equal(vote.errorCode, 31);
    } finally {
      c.close();
    }
  });

  test('once granted, the same requests succeed', async () => {
    await grant('User:bob', TOPIC, 't1', [ALL]);
    await grant('User:bob', TOPIC, 't2', [DESCRIBE]);
    await grant('User:bob', GROUP, 'grp', [DESCRIBE_CONFIGS]);
    await grant('User:bob', CLUSTER, 'kafka-cluster', [DESCRIBE, ALTER, DESCRIBE_CONFIGS, ALTER_CONFIGS]);
    await grant('User:ANONYMOUS', CLUSTER, 'kafka-cluster', [CLUSTER_ACTION]);
    await waitFor(async () => (await describeQuorum()).errorCode === 0, {
      what: 'the ACLs to be applied',
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    assert.deepEqual(
      (await describeConfigs()).results.map((r) => [r.resourceName, r.errorCode]),
      [
        ['t1', 0],
        ['', 0],
        ['grp', 0],
      ],
    );
    const iac = await incrementalAlter();
    assert.deepEqual(
      iac.responses.map((r) => [r.resourceName, r.errorCode]),
      // the logger's node id is checked once authorized
      [
        ['t1', 0],
        ['', 0],
        ['99', ErrorCode.INVALID_REQUEST],
      ],
    );
    assert.deepEqual(
      (await createPartitions()).results.map((r) => [r.name, r.errorCode]),
      [['t1', 0]],
    );
    assert.deepEqual(
      (await deleteRecords()).topics.map((t) => t.partitions.map((p) => p.errorCode)),
      [[0]],
    );
    const dld = await describeLogDirs();
    assert.equal(dld.errorCode, 0);
    assert.ok(dld.results.length > 0);
    assert.equal((await listReassignments()).errorCode, 0);
    assert.equal((await describeScram()).errorCode, 0);
    assert.equal(
      (await bob.request(ApiKey.UnregisterBroker, 0, { brokerId: 99 })).errorCode,
      ErrorCode.BROKER_ID_NOT_REGISTERED,
    );
    assert.notEqual((await allocateProducerIds()).errorCode, 31);
    const env = await envelope();
    assert.equal(env.errorCode, 0);
    // t2: described but not deletable
    const dt = await bob.request(ApiKey.DeleteTopics, 6, {
      topics: [
        { name: 't2', topicId: ZERO_UUID },
        { name: 't1', topicId: ZERO_UUID },
      ],
      timeoutMs: 30_000,
    });
    assert.deepEqual(dt.responses.map((r) => [r.name, r.errorCode]).sort(), [
      ['t1', 0],
      ['t2', 29],
    ]);
  });
});

describe('a 3-node tkafka cluster with StandardAuthorizer', () => {
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster({
      launcher: tkafkaLauncher,
      nodes: [1, 2, 3].map((id) => ({ id, roles: 'broker,controller' as const })),
      overrides: {
        'authorizer.class.name': STANDARD_AUTHORIZER,
        // the nodes' own connections (PLAINTEXT): Kafka's inter-broker principal must be a super user
        'super.users': 'User:ANONYMOUS',
        'allow.everyone.if.no.acl.found': false,
      },
    });
  });

  after(async () => {
    await cluster?.cleanup();
  });

  test('starts, replicates and elects a new leader', async () => {
    const port = cluster.brokers[0]!.port;
    const c = await RawClient.connect(port);
    let leader = -1;
    try {
      const r = await c.request(ApiKey.CreateTopics, 7, {
        topics: [{ name: 'rep', numPartitions: 1, replicationFactor: 3, assignments: [], configs: [] }],
        timeoutMs: 30_000,
        validateOnly: false,
      });
      assert.equal(r.topics[0]!.errorCode, 0, r.topics[0]!.errorMessage ?? '');
      // all three replicas in sync: the followers' fetches (CLUSTER_ACTION) are served
      await waitFor(
        async () => {
          const md = await c.request(ApiKey.Metadata, 12, {
            topics: [{ name: 'rep', topicId: ZERO_UUID }],
            allowAutoTopicCreation: false,
            includeTopicAuthorizedOperations: false,
          });
          const p = md.topics[0]?.partitions[0];
          leader = p?.leaderId ?? -1;
          return p !== undefined && p.isrNodes.length === 3;
        },
        { what: 'rep-0 to have 3 in-sync replicas', timeoutMs: 60_000, intervalMs: 200 },
      );
    } finally {
      c.close();
    }
    // acks=all reaches every replica
    const lc = await RawClient.connect(cluster.node(leader).port);
    try {
      // the leader's own metadata and replica state may trail the node that answered (a loaded
      // machine): UNKNOWN_TOPIC_OR_PARTITION and NOT_LEADER_OR_FOLLOWER are retried, as a client
      // retries them after refreshing its metadata; any other code fails at once
      await waitFor(
        async () => {
          const pr = await lc.request(ApiKey.Produce, 9, {
            transactionalId: null,
            acks: -1,
            timeoutMs: 30_000,
            topicData: [
              {
                name: 'rep',
                partitionData: [{ index: 0, records: buildRecordBatchSync({ records: [{ key: 'k', value: 'v' }] }) }],
              },
            ],
          });
          const code = pr.responses[0]!.partitionResponses[0]!.errorCode;
          if (code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || code === ErrorCode.NOT_LEADER_OR_FOLLOWER) return null;
          assert.equal(code, 0);
          return true;
        },
        { what: `an acks=all produce through node ${leader}`, timeoutMs: 60_000, intervalMs: 200 },
      );
    } finally {
      lc.close();
    }
    await cluster.node(leader).kill();
    const other = cluster.brokers.find((n) => n.id !== leader)!;
    await waitForLeader(cluster, { timeoutMs: 60_000 });
    const oc = await RawClient.connect(other.port);
    try {
      await waitFor(
        async () => {
          const md = await oc.request(ApiKey.Metadata, 12, {
            topics: [{ name: 'rep', topicId: ZERO_UUID }],
            allowAutoTopicCreation: false,
            includeTopicAuthorizedOperations: false,
          });
          const l = md.topics[0]?.partitions[0]?.leaderId ?? -1;
          return l >= 0 && l !== leader;
        },
        { what: 'a new leader of rep-0', timeoutMs: 60_000, intervalMs: 200 },
      );
    } finally {
      oc.close();
    }
  });
});
