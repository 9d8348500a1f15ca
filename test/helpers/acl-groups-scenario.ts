// The group, offset, coordinator and transaction APIs as a non-super user (bob, SASL PLAIN) sees
// them on a broker with the StandardAuthorizer: one run before any ACL grants him anything and one
// after ACLs allow him READ + DELETE on group g1, READ + WRITE on topic gt and WRITE on
// transactional id tx1 (g2, tx2 and topic secret stay unauthorized). Each answer is reduced to
// comparable data (error codes, names, masked ids), so a test can compare a tkafka run with a Kafka
// 4.4.0 run and check the codes the ACLs imply. Used by test/acl-checks-groups.test.ts and
// test/interop/acl-checks-groups-kafka.test.ts.
import assert from 'node:assert/strict';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';

export const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
export const JAAS = `${PLAIN_MODULE} required user_admin="admin-secret" user_bob="bob-secret";`;
export const AUTHZ = {
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  // ANONYMOUS: Kafka's own broker-to-controller connections on the PLAINTEXT CONTROLLER listener
  'super.users': 'User:admin;User:ANONYMOUS',
};
/** The SASL listener of a tkafka node (startBroker overrides). */
export const TKAFKA_SASL = {
  listeners: 'PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0,SASL://127.0.0.1:0',
  'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SASL://127.0.0.1:0',
  'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL:SASL_PLAINTEXT',
  'listener.name.sasl.sasl.enabled.mechanisms': 'PLAIN',
  'listener.name.sasl.plain.sasl.jaas.config': JAAS,
  ...AUTHZ,
};

/** A raw connection authenticated with SASL PLAIN as `user` (password `<user>-secret`). */
export async function saslClient(port: number, user: string): Promise<RawClient> {
  const c = await RawClient.connect(port);
  const h = await c.request(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' });
  assert.equal(h.errorCode, 0);
  const a = await c.request(ApiKey.SaslAuthenticate, 2, {
    authBytes: Buffer.from(`\u0000${user}\u0000${user}-secret`),
  });
  assert.equal(a.errorCode, 0, a.errorMessage ?? '');
  return c;
}

const LITERAL = 3;
const ALLOW = 3;
const TOPIC = 2;
const GROUP = 3;
const TRANSACTIONAL_ID = 5;
const READ = 3;
const WRITE = 4;
const DELETE = 6;

/** As admin: topics gt and secret, and both coordinators ready (FindCoordinator answers 0). */
export async function prepare(port: number): Promise<void> {
  const admin = await saslClient(port, 'admin');
  try {
    const r = await admin.request(ApiKey.CreateTopics, 7, {
      topics: ['gt', 'secret'].map((name) => ({
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
    for (const [keyType, key] of [
      [0, 'g1'],
      [1, 'tx1'],
    ] as const) {
      await waitFor(
        async () => {
          const f = await admin.request(ApiKey.FindCoordinator, 4, { keyType, coordinatorKeys: [key] });
          return f.coordinators[0]?.errorCode === 0;
        },
        { what: `the coordinator of ${key}`, timeoutMs: 60_000, intervalMs: 200 },
      );
    }
    // the leader of gt answers ListOffsets (the partition is ready)
    await waitFor(
      async () => {
        const l = await admin.request(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: 'gt', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        });
        return l.topics[0]?.partitions[0]?.errorCode === 0;
      },
      { what: 'topic gt', timeoutMs: 30_000, intervalMs: 200 },
    );
  } finally {
    admin.close();
  }
}

/** As admin: the ACLs of the "after" run; then waits until bob's checks see them. */
export async function grant(port: number): Promise<void> {
  const admin = await saslClient(port, 'admin');
  try {
    const acl = (resourceType: number, resourceName: string, operation: number) => ({
      resourceType,
      resourceName,
      resourcePatternType: LITERAL,
      principal: 'User:bob',
      host: '*',
      operation,
      permissionType: ALLOW,
    });
    const r = await admin.request(ApiKey.CreateAcls, 3, {
      creations: [
        acl(GROUP, 'g1', READ),
        acl(GROUP, 'g1', DELETE),
        acl(TOPIC, 'gt', READ),
        acl(TOPIC, 'gt', WRITE),
        acl(TRANSACTIONAL_ID, 'tx1', WRITE),
      ],
    });
    assert.deepEqual(
      r.results.map((x) => x.errorCode),
      [0, 0, 0, 0, 0],
    );
  } finally {
    admin.close();
  }
  const bob = await saslClient(port, 'bob');
  try {
    await waitFor(
      async () => {
        const f = await bob.request(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: ['tx1'] });
        const g = await bob.request(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g1'] });
        const l = await bob.request(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: 'gt', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        });
        // (the transaction coordinator answers COORDINATOR_LOAD_IN_PROGRESS until its log is loaded)
        const i = await bob.request(ApiKey.InitProducerId, 4, {
          transactionalId: 'tx1',
          transactionTimeoutMs: 60_000,
          producerId: -1n,
          producerEpoch: -1,
        });
        return (
          i.errorCode === 0 &&
          f.coordinators[0]?.errorCode === 0 &&
          g.coordinators[0]?.errorCode === 0 &&
          l.topics[0]?.partitions[0]?.errorCode === 0
        );
      },
      { what: "bob's ACLs in effect", timeoutMs: 30_000, intervalMs: 100 },
    );
  } finally {
    bob.close();
  }
}

const byName = <T extends readonly unknown[]>(a: T[]): T[] =>
  [...a].sort((x, y) => String(x[0]).localeCompare(String(y[0])));

/** bob's requests, each reduced to comparable data. */
export async function scenario(port: number): Promise<Record<string, unknown>> {
  const bob = await saslClient(port, 'bob');
  const out: Record<string, unknown> = {};
  try {
    // FindCoordinator: v3 one key, v4 per key
    const f3 = await bob.request(ApiKey.FindCoordinator, 3, { key: 'g1', keyType: 0 });
    out['FindCoordinator v3 g1'] = [f3.errorCode, f3.errorCode === 0 ? 'node' : [f3.nodeId, f3.host, f3.errorMessage]];
    for (const [keyType, keys] of [
      [0, ['g1', 'g2']],
      [1, ['tx1', 'tx2']],
    ] as const) {
      const f = await bob.request(ApiKey.FindCoordinator, 4, { keyType, coordinatorKeys: [...keys] });
      out[`FindCoordinator v4 type ${keyType}`] = f.coordinators.map((c) => [
        c.key,
        c.errorCode,
        c.errorCode === 0 ? 'node' : c.nodeId,
      ]);
    }
    // a share key needs CLUSTER_ACTION: the whole request fails
    const f6 = await bob.request(ApiKey.FindCoordinator, 6, { keyType: 2, coordinatorKeys: ['sg:gt:0'] });
    out['FindCoordinator v6 share'] = f6.coordinators.map((c) => [c.key, c.errorCode, c.nodeId, c.errorMessage]);
    // the classic protocol
    const j = await bob.request(ApiKey.JoinGroup, 5, {
      groupId: 'g1',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId: '',
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    });
    out['JoinGroup v5'] = [j.errorCode, j.generationId, j.leader, j.errorCode === 79 ? 'member id' : j.memberId];
    const s = await bob.request(ApiKey.SyncGroup, 3, {
      groupId: 'g1',
      generationId: 1,
      memberId: 'm',
      groupInstanceId: null,
      assignments: [],
    });
    out['SyncGroup v3'] = [s.errorCode, s.assignment.length];
    // v5 without protocol type and name: INCONSISTENT_GROUP_PROTOCOL, checked before the ACLs
    const s5 = await bob.request(ApiKey.SyncGroup, 5, {
      groupId: 'g1',
      generationId: 1,
      memberId: 'm',
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    out['SyncGroup v5 no protocol'] = [s5.errorCode, s5.protocolType, s5.protocolName];
    const h = await bob.request(ApiKey.Heartbeat, 4, {
      groupId: 'g1',
      generationId: 1,
      memberId: 'm',
      groupInstanceId: null,
    });
    out['Heartbeat v4'] = h.errorCode;
    const l = await bob.request(ApiKey.LeaveGroup, 4, {
      groupId: 'g1',
      members: [{ memberId: 'm', groupInstanceId: null }],
    });
    out['LeaveGroup v4'] = [l.errorCode, l.members.map((m) => [m.memberId, m.errorCode])];
    // offsets
    const commit = async (groupId: string) => {
      const c = await bob.request(ApiKey.OffsetCommit, 8, {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: ['gt', 'secret', 'nope'].map((name) => ({
          name,
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
        })),
      });
      return byName(c.topics.map((t) => [t.name, t.partitions.map((p) => p.errorCode)] as const));
    };
    out['OffsetCommit v8 g1'] = await commit('g1');
    out['OffsetCommit v8 g2'] = await commit('g2');
    const fetchTopics = ['gt', 'secret'].map((name) => ({ name, partitionIndexes: [0] }));
    const o7 = await bob.request(ApiKey.OffsetFetch, 7, { groupId: 'g1', topics: fetchTopics, requireStable: false });
    out['OffsetFetch v7 g1'] = [
      o7.errorCode,
      o7.topics.map((t) => [t.name, t.partitions.map((p) => [p.errorCode, Number(p.committedOffset)])]),
    ];
    const o7all = await bob.request(ApiKey.OffsetFetch, 7, { groupId: 'g1', topics: null, requireStable: false });
    out['OffsetFetch v7 g1 all'] = [o7all.errorCode, o7all.topics.map((t) => t.name)];
    const o1 = await bob.request(ApiKey.OffsetFetch, 1, { groupId: 'g1', topics: fetchTopics });
    out['OffsetFetch v1 g1'] = o1.topics.map((t) => [t.name, t.partitions.map((p) => p.errorCode)]);
    const o8 = await bob.request(ApiKey.OffsetFetch, 8, {
      groups: [
        { groupId: 'g1', topics: fetchTopics.map((t) => ({ ...t, topicId: ZERO_UUID })) },
        { groupId: 'g2', topics: null },
      ],
      requireStable: false,
    });
    out['OffsetFetch v8'] = o8.groups.map((g) => [
      g.groupId,
      g.errorCode,
      g.topics.map((t) => [t.name, t.partitions.map((p) => [p.errorCode, Number(p.committedOffset)])]),
    ]);
    const od = await bob.request(ApiKey.OffsetDelete, 0, {
      groupId: 'g1',
      topics: ['gt', 'secret'].map((name) => ({ name, partitions: [{ partitionIndex: 0 }] })),
    });
    out['OffsetDelete g1'] = [
      od.errorCode,
      byName(od.topics.map((t) => [t.name, t.partitions.map((p) => p.errorCode)])),
    ];
    // describe, list
    const dg = await bob.request(ApiKey.DescribeGroups, 5, { groups: ['g1', 'g2'], includeAuthorizedOperations: true });
    out['DescribeGroups v5'] = dg.groups.map((g) => [g.groupId, g.errorCode, g.groupState, g.authorizedOperations]);
    const lg = await bob.request(ApiKey.ListGroups, 4, { statesFilter: [] });
    out['ListGroups v4'] = [lg.errorCode, lg.groups.map((g) => g.groupId).sort()];
    const cgd = await bob.request(ApiKey.ConsumerGroupDescribe, 0, {
      groupIds: ['g1', 'g2'],
      includeAuthorizedOperations: true,
    });
    // (the message for a classic group differs: Kafka's "Group g1 is not a consumer group.", tkafka's
    // "Group g1 not found."; only the authorization errors' messages are compared)
    out['ConsumerGroupDescribe'] = cgd.groups.map((g) => [
      g.groupId,
      g.errorCode,
      g.errorCode === G || g.errorCode === T ? g.errorMessage : '',
    ]);
    const cgh = async (topics: string[]) => {
      const r = await bob.request(ApiKey.ConsumerGroupHeartbeat, 0, {
        groupId: 'g1',
        memberId: '',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 10_000,
        subscribedTopicNames: topics,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      });
      return [r.errorCode, r.errorMessage, r.memberId, r.memberEpoch];
    };
    out['ConsumerGroupHeartbeat secret'] = await cgh(['gt', 'secret']);
    // transactions
    const init = async (transactionalId: string | null) => {
      const r = await bob.request(ApiKey.InitProducerId, 4, {
        transactionalId,
        transactionTimeoutMs: 60_000,
        producerId: -1n,
        producerEpoch: -1,
      });
      return r;
    };
    const i1 = await init('tx1');
    out['InitProducerId tx1'] = [i1.errorCode, i1.producerId >= 0n, i1.producerEpoch >= 0];
    const iNone = await init(null);
    out['InitProducerId idempotent'] = [iNone.errorCode, iNone.producerId >= 0n];
    const i2 = await init('tx2');
    out['InitProducerId tx2'] = [i2.errorCode, Number(i2.producerId), i2.producerEpoch];
    const pid = i1.producerId;
    const epoch = i1.producerEpoch;
    const apt = await bob.request(ApiKey.AddPartitionsToTxn, 3, {
      v3AndBelowTransactionalId: 'tx1',
      v3AndBelowProducerId: pid,
      v3AndBelowProducerEpoch: epoch,
      v3AndBelowTopics: [
        { name: 'gt', partitions: [0] },
        { name: 'secret', partitions: [0] },
      ],
    });
    out['AddPartitionsToTxn v3'] = byName(
      apt.resultsByTopicV3AndBelow.map((t) => [t.name, t.resultsByPartition.map((p) => p.partitionErrorCode)] as const),
    );
    const apt4 = await bob.request(ApiKey.AddPartitionsToTxn, 4, {
      transactions: [
        {
          transactionalId: 'tx1',
          producerId: pid,
          producerEpoch: epoch,
          verifyOnly: true,
          topics: [{ name: 'gt', partitions: [0] }],
        },
      ],
    });
    out['AddPartitionsToTxn v4'] = [apt4.errorCode, apt4.resultsByTransaction.length];
    for (const g of ['g2', 'g1']) {
      const a = await bob.request(ApiKey.AddOffsetsToTxn, 3, {
        transactionalId: 'tx1',
        producerId: pid,
        producerEpoch: epoch,
        groupId: g,
      });
      out[`AddOffsetsToTxn ${g}`] = a.errorCode;
    }
    for (const g of ['g2', 'g1']) {
      const t = await bob.request(ApiKey.TxnOffsetCommit, 3, {
        transactionalId: 'tx1',
        groupId: g,
        producerId: pid,
        producerEpoch: epoch,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        topics: ['gt', 'secret'].map((name) => ({
          name,
          partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: '' }],
        })),
      });
      out[`TxnOffsetCommit ${g}`] = byName(
        t.topics.map((x) => [x.name, x.partitions.map((p) => p.errorCode)] as const),
      );
    }
    const dt = await bob.request(ApiKey.DescribeTransactions, 0, { transactionalIds: ['tx1', 'tx2'] });
    out['DescribeTransactions'] = dt.transactionStates.map((t) => [
      t.transactionalId,
      t.errorCode,
      t.transactionState,
      t.topics.map((x) => x.topic),
    ]);
    const lt = await bob.request(ApiKey.ListTransactions, 1, {
      stateFilters: [],
      producerIdFilters: [],
      durationFilter: -1n,
    });
    out['ListTransactions'] = [lt.errorCode, lt.transactionStates.map((t) => t.transactionalId).sort()];
    for (const id of ['tx2', 'tx1']) {
      const e = await bob.request(ApiKey.EndTxn, 3, {
        transactionalId: id,
        producerId: id === 'tx1' ? pid : 0n,
        producerEpoch: id === 'tx1' ? epoch : 0,
        committed: false,
      });
      out[`EndTxn ${id}`] = e.errorCode;
    }
    // topic reads
    const dp = await bob.request(ApiKey.DescribeProducers, 0, {
      topics: ['gt', 'secret', 'bad name!'].map((name) => ({ name, partitionIndexes: [0] })),
    });
    out['DescribeProducers'] = dp.topics.map((t) => [t.name, t.partitions.map((p) => [p.errorCode, p.errorMessage])]);
    const lo = await bob.request(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: ['gt', 'secret'].map((name) => ({
        name,
        partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }],
      })),
    });
    out['ListOffsets v7'] = lo.topics.map((t) => [t.name, t.partitions.map((p) => [p.errorCode, Number(p.offset)])]);
    const ofle = await bob.request(ApiKey.OffsetForLeaderEpoch, 4, {
      replicaId: -1,
      topics: ['gt', 'secret'].map((topic) => ({
        topic,
        partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }],
      })),
    });
    out['OffsetForLeaderEpoch v4'] = ofle.topics.map((t) => [
      t.topic,
      t.partitions.map((p) => [p.errorCode, Number(p.endOffset)]),
    ]);
    const dtp = await bob.request(ApiKey.DescribeTopicPartitions, 0, {
      topics: [{ name: 'gt' }, { name: 'secret' }],
      responsePartitionLimit: 100,
      cursor: null,
    });
    // (Kafka adds the unauthorized topics from a HashSet)
    out['DescribeTopicPartitions named'] = dtp.topics.map((t) => [
      t.name,
      t.errorCode,
      t.topicId === ZERO_UUID,
      t.partitions.length,
      t.topicAuthorizedOperations,
    ]);
    out['DescribeTopicPartitions named'] = byName(out['DescribeTopicPartitions named'] as unknown[][]);
    const dtpAll = await bob.request(ApiKey.DescribeTopicPartitions, 0, {
      topics: [],
      responsePartitionLimit: 100,
      cursor: null,
    });
    out['DescribeTopicPartitions all'] = dtpAll.topics.map((t) => t.name);
    // last: DeleteGroups (g1 is gone afterwards)
    const dgs = await bob.request(ApiKey.DeleteGroups, 2, { groupsNames: ['g1', 'g2'] });
    out['DeleteGroups'] = dgs.results.map((r) => [r.groupId, r.errorCode]);
    return out;
  } finally {
    bob.close();
  }
}

const G = ErrorCode.GROUP_AUTHORIZATION_FAILED;
const T = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
const X = ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
const C = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;

/** What bob must get before any ACL allows him anything (Kafka 4.4.0's answers). */
export const DENIED: Record<string, unknown> = {
  'FindCoordinator v3 g1': [G, [-1, '', 'Group authorization failed.']],
  'FindCoordinator v4 type 0': [
    ['g1', G, -1],
    ['g2', G, -1],
  ],
  'FindCoordinator v4 type 1': [
    ['tx1', X, -1],
    ['tx2', X, -1],
  ],
  'FindCoordinator v6 share': [['sg:gt:0', C, -1, 'Cluster authorization failed.']],
  'JoinGroup v5': [G, -1, '', ''],
  'SyncGroup v3': [G, 0],
  'SyncGroup v5 no protocol': [ErrorCode.INCONSISTENT_GROUP_PROTOCOL, null, null],
  'Heartbeat v4': G,
  'LeaveGroup v4': [G, []],
  'OffsetCommit v8 g1': [
    ['gt', [G]],
    ['nope', [G]],
    ['secret', [G]],
  ],
  'OffsetFetch v7 g1': [G, []],
  'OffsetFetch v1 g1': [
    ['gt', [G]],
    ['secret', [G]],
  ],
  'OffsetFetch v8': [
    ['g1', G, []],
    ['g2', G, []],
  ],
  'OffsetDelete g1': [G, []],
  'DescribeGroups v5': [
    ['g1', G, '', -2147483648],
    ['g2', G, '', -2147483648],
  ],
  'ListGroups v4': [0, []],
  'InitProducerId tx1': [X, false, false],
  'InitProducerId idempotent': [C, false],
  DescribeTransactions: [
    ['tx1', X, '', []],
    ['tx2', X, '', []],
  ],
  ListTransactions: [0, []],
  'EndTxn tx1': X,
  DescribeProducers: [
    ['gt', [[T, 'Topic authorization failed.']]],
    ['secret', [[T, 'Topic authorization failed.']]],
    [
      'bad name!',
      [
        [
          ErrorCode.INVALID_TOPIC_EXCEPTION,
          "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'",
        ],
      ],
    ],
  ],
  'ListOffsets v7': [
    ['gt', [[T, -1]]],
    ['secret', [[T, -1]]],
  ],
  'OffsetForLeaderEpoch v4': [
    ['gt', [[T, -1]]],
    ['secret', [[T, -1]]],
  ],
  'DescribeTopicPartitions all': [],
  DeleteGroups: [
    ['g1', G],
    ['g2', G],
  ],
};

/** What bob must get once the ACLs of `grant` are in place. */
export const ALLOWED: Record<string, unknown> = {
  'FindCoordinator v4 type 0': [
    ['g1', 0, 'node'],
    ['g2', G, -1],
  ],
  'FindCoordinator v4 type 1': [
    ['tx1', 0, 'node'],
    ['tx2', X, -1],
  ],
  'JoinGroup v5': [ErrorCode.MEMBER_ID_REQUIRED, -1, '', 'member id'],
  'OffsetCommit v8 g1': [
    ['gt', [0]],
    ['nope', [T]],
    ['secret', [T]],
  ],
  'OffsetCommit v8 g2': [
    ['gt', [G]],
    ['nope', [G]],
    ['secret', [G]],
  ],
  'OffsetFetch v7 g1': [
    0,
    [
      ['gt', [[0, 1]]],
      ['secret', [[T, -1]]],
    ],
  ],
  'OffsetFetch v7 g1 all': [0, ['gt']],
  'OffsetFetch v8': [
    [
      'g1',
      0,
      [
        ['gt', [[0, 1]]],
        ['secret', [[T, -1]]],
      ],
    ],
    ['g2', G, []],
  ],
  'ListGroups v4': [0, ['g1']],
  'ConsumerGroupHeartbeat secret': [T, null, null, 0],
  'InitProducerId tx1': [0, true, true],
  'InitProducerId idempotent': [0, true],
  'InitProducerId tx2': [X, -1, -1],
  'AddPartitionsToTxn v3': [
    ['gt', [ErrorCode.OPERATION_NOT_ATTEMPTED]],
    ['secret', [T]],
  ],
  'AddPartitionsToTxn v4': [C, 0],
  'AddOffsetsToTxn g2': G,
  'AddOffsetsToTxn g1': 0,
  'TxnOffsetCommit g2': [
    ['gt', [G]],
    ['secret', [G]],
  ],
  'TxnOffsetCommit g1': [
    ['gt', [0]],
    ['secret', [T]],
  ],
  ListTransactions: [0, ['tx1']],
  'EndTxn tx2': X,
  'EndTxn tx1': 0,
  'ListOffsets v7': [
    ['gt', [[0, 0]]],
    ['secret', [[T, -1]]],
  ],
  'DescribeTopicPartitions all': ['gt'],
  DeleteGroups: [
    ['g1', 0],
    ['g2', G],
  ],
};

/** Asserts the entries of `expected` in `got`. */
export function assertSubset(got: Record<string, unknown>, expected: Record<string, unknown>, what: string): void {
  for (const [k, v] of Object.entries(expected)) assert.deepEqual(got[k], v, `${what}: ${k}`);
}

/** Creates ACLs as admin (all must succeed). */
async function createAcls(admin: RawClient, acls: [number, string, number][]): Promise<void> {
  const r = await admin.request(ApiKey.CreateAcls, 3, {
    creations: acls.map(([resourceType, resourceName, operation]) => ({
      resourceType,
      resourceName,
      resourcePatternType: LITERAL,
      principal: 'User:bob',
      host: '*',
      operation,
      permissionType: ALLOW,
    })),
  });
  assert.deepEqual(
    r.results.map((x) => x.errorCode),
    acls.map(() => 0),
  );
}

/** An id no topic has. */
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/**
 * After `scenario` with the ACLs of `grant`: topic ids (OffsetCommit / OffsetFetch v10 on group g4,
 * which bob may READ from now on), a regex subscription on g5 (resolved to the topics bob may
 * DESCRIBE) and the consumer group protocol on g1 (join, describe with the
 * authorized operations; then bob loses his ACLs on gt: ConsumerGroupDescribe and
 * ConsumerGroupHeartbeat answer TOPIC_AUTHORIZATION_FAILED).
 */
export async function consumerGroupScenario(port: number): Promise<Record<string, unknown>> {
  const admin = await saslClient(port, 'admin');
  const bob = await saslClient(port, 'bob');
  const out: Record<string, unknown> = {};
  try {
    const md = await admin.request(ApiKey.Metadata, 12, {
      topics: ['gt', 'secret'].map((name) => ({ topicId: ZERO_UUID, name })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const ids = new Map(md.topics.map((t) => [t.topicId, t.name ?? '']));
    ids.set(UNKNOWN_ID, 'unknown id');
    const idOf = (name: string): string => [...ids].find(([, n]) => n === name)![0];
    const label = (id: string): string => ids.get(id) ?? id;
    await createAcls(admin, [
      [GROUP, 'g4', READ],
      [GROUP, 'g5', READ],
    ]);
    await waitFor(
      async () => {
        const g = await bob.request(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['g4'] });
        return g.coordinators[0]?.errorCode === 0;
      },
      { what: 'READ on g4', timeoutMs: 30_000, intervalMs: 100 },
    );
    const names = ['gt', 'secret', 'unknown id'];
    const c10 = await bob.request(ApiKey.OffsetCommit, 10, {
      groupId: 'g4',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: names.map((n) => ({
        topicId: idOf(n),
        partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }],
      })),
    });
    out['OffsetCommit v10'] = byName(
      c10.topics.map((t) => [label(t.topicId), t.name, t.partitions.map((p) => p.errorCode)] as const),
    );
    const f10 = await bob.request(ApiKey.OffsetFetch, 10, {
      groups: [
        {
          groupId: 'g4',
          memberId: null,
          memberEpoch: -1,
          topics: names.map((n) => ({ topicId: idOf(n), partitionIndexes: [0] })),
        },
      ],
      requireStable: false,
    });
    out['OffsetFetch v10'] = f10.groups.map((g) => [
      g.errorCode,
      g.topics.map((t) => [
        label(t.topicId),
        t.name,
        t.partitions.map((p) => [p.errorCode, Number(p.committedOffset)]),
      ]),
    ]);
    const f10all = await bob.request(ApiKey.OffsetFetch, 10, {
      groups: [{ groupId: 'g4', memberId: null, memberEpoch: -1, topics: null }],
      requireStable: false,
    });
    out['OffsetFetch v10 all'] = f10all.groups.map((g) => [g.errorCode, g.topics.map((t) => label(t.topicId))]);

    // the consumer protocol on g1 (DeleteGroups removed the classic g1 at the end of `scenario`)
    const heartbeat = (body: Record<string, unknown>, groupId = 'g1', version = 0) =>
      bob.request(ApiKey.ConsumerGroupHeartbeat, version, {
        groupId,
        memberId: '',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 10_000,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: null,
        ...body,
      });
    // a regex subscription on g5 resolves to the topics bob may DESCRIBE: gt, not secret
    // (regexes need v1, where the member brings its own id)
    const regexMember = 'bob-regex-member';
    const joinRegex = await heartbeat(
      { memberId: regexMember, subscribedTopicNames: [], subscribedTopicRegex: 'gt|secret', topicPartitions: [] },
      'g5',
      1,
    );
    let regexEpoch = joinRegex.memberEpoch;
    let regexAssigned = (joinRegex.assignment?.topicPartitions ?? []).map((t) => label(t.topicId));
    await waitFor(
      async () => {
        if (regexAssigned.length > 0) return true;
        const r = await heartbeat({ memberId: regexMember, memberEpoch: regexEpoch, topicPartitions: [] }, 'g5', 1);
        regexEpoch = r.memberEpoch;
        regexAssigned = (r.assignment?.topicPartitions ?? []).map((t) => label(t.topicId));
        return regexAssigned.length > 0;
      },
      { what: "bob's assignment through the regex", timeoutMs: 30_000, intervalMs: 200 },
    );
    out['ConsumerGroupHeartbeat regex'] = [joinRegex.errorCode, regexAssigned.sort()];
    const regexLeave = await heartbeat({ memberId: regexMember, memberEpoch: -1 }, 'g5', 1);
    out['ConsumerGroupHeartbeat regex leave'] = regexLeave.errorCode;

    const join = await heartbeat({ subscribedTopicNames: ['gt'], topicPartitions: [] });
    out['ConsumerGroupHeartbeat join'] = [join.errorCode, join.errorMessage, join.memberEpoch > 0];
    const memberId = join.memberId ?? '';
    let epoch = join.memberEpoch;
    let assigned = (join.assignment?.topicPartitions ?? []).map((t) => label(t.topicId));
    await waitFor(
      async () => {
        if (assigned.length > 0) return true;
        const r = await heartbeat({ memberId, memberEpoch: epoch, topicPartitions: [] });
        epoch = r.memberEpoch;
        assigned = (r.assignment?.topicPartitions ?? []).map((t) => label(t.topicId));
        return assigned.length > 0;
      },
      { what: "bob's assignment", timeoutMs: 30_000, intervalMs: 200 },
    );
    out['ConsumerGroupHeartbeat assignment'] = assigned;
    const describe = async () => {
      const d = await bob.request(ApiKey.ConsumerGroupDescribe, 0, {
        groupIds: ['g1'],
        includeAuthorizedOperations: true,
      });
      return d.groups.map((g) => [
        g.groupId,
        g.errorCode,
        g.errorMessage,
        g.authorizedOperations,
        g.members.map((m) => m.targetAssignment.topicPartitions.map((t) => t.topicName)),
      ]);
    };
    out['ConsumerGroupDescribe member'] = await describe();
    // bob loses READ and WRITE on gt
    const del = await admin.request(ApiKey.DeleteAcls, 3, {
      filters: [
        {
          resourceTypeFilter: TOPIC,
          resourceNameFilter: 'gt',
          patternTypeFilter: LITERAL,
          principalFilter: 'User:bob',
          hostFilter: null,
          operation: 1, // ANY
          permissionType: 1, // ANY
        },
      ],
    });
    out['DeleteAcls'] = del.filterResults.map((f) => [f.errorCode, f.matchingAcls.length]);
    await waitFor(
      async () => {
        const l = await bob.request(ApiKey.ListOffsets, 7, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: 'gt', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }],
        });
        return l.topics[0]?.partitions[0]?.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED;
      },
      { what: "bob's ACLs on gt removed", timeoutMs: 30_000, intervalMs: 100 },
    );
    out['ConsumerGroupDescribe no DESCRIBE on gt'] = await describe();
    const again = await heartbeat({ memberId, memberEpoch: epoch, subscribedTopicNames: ['gt'] });
    out['ConsumerGroupHeartbeat no DESCRIBE on gt'] = [again.errorCode, again.errorMessage, again.memberId];
    const leave = await heartbeat({ memberId, memberEpoch: -1 });
    out['ConsumerGroupHeartbeat leave'] = [leave.errorCode, leave.memberEpoch];
    return out;
  } finally {
    admin.close();
    bob.close();
  }
}

/** What Kafka 4.4.0 answers in `consumerGroupScenario`. */
export const CONSUMER_GROUP: Record<string, unknown> = {
  'OffsetCommit v10': [
    ['gt', '', [0]],
    ['secret', '', [T]],
    ['unknown id', '', [ErrorCode.UNKNOWN_TOPIC_ID]],
  ],
  'OffsetFetch v10': [
    [
      0,
      [
        ['gt', '', [[0, 5]]],
        ['secret', '', [[T, -1]]],
        ['unknown id', '', [[ErrorCode.UNKNOWN_TOPIC_ID, -1]]],
      ],
    ],
  ],
  'OffsetFetch v10 all': [[0, ['gt']]],
  // READ, DELETE and (implied) DESCRIBE on g1
  'ConsumerGroupDescribe member': [['g1', 0, null, (1 << 3) | (1 << 6) | (1 << 8), [['gt']]]],
  DeleteAcls: [[0, 2]],
  'ConsumerGroupHeartbeat leave': [0, -1],
  'ConsumerGroupHeartbeat regex': [0, ['gt']],
  'ConsumerGroupHeartbeat regex leave': 0,
  'ConsumerGroupHeartbeat join': [0, null, true],
  'ConsumerGroupHeartbeat assignment': ['gt'],
  'ConsumerGroupDescribe no DESCRIBE on gt': [
    ['g1', T, 'The group has described topic(s) that the client is not authorized to describe.', -2147483648, []],
  ],
  'ConsumerGroupHeartbeat no DESCRIBE on gt': [T, null, null],
};

const CLUSTER = 4;
const DESCRIBE = 8;
const CLUSTER_ACTION = 9;

/**
 * Last: bob gets DESCRIBE and CLUSTER_ACTION on the cluster. ListGroups lists every group,
 * OffsetForLeaderEpoch answers topics he may not DESCRIBE (the follower's permission), and
 * AddPartitionsToTxn v4 (broker verification) passes the CLUSTER_ACTION check.
 */
export async function clusterScenario(port: number): Promise<Record<string, unknown>> {
  const admin = await saslClient(port, 'admin');
  const bob = await saslClient(port, 'bob');
  const out: Record<string, unknown> = {};
  try {
    // a group only the admin may see
    const c = await admin.request(ApiKey.OffsetCommit, 8, {
      groupId: 'g9',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [
        {
          name: 'gt',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    });
    assert.equal(c.topics[0]?.partitions[0]?.errorCode, 0);
    const before = await bob.request(ApiKey.ListGroups, 4, { statesFilter: [] });
    out['ListGroups before'] = before.groups.map((g) => g.groupId).sort();
    await createAcls(admin, [
      [CLUSTER, 'kafka-cluster', DESCRIBE],
      [CLUSTER, 'kafka-cluster', CLUSTER_ACTION],
    ]);
    const ofle = () =>
      bob.request(ApiKey.OffsetForLeaderEpoch, 4, {
        replicaId: -1,
        topics: [{ topic: 'secret', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }],
      });
    await waitFor(async () => (await ofle()).topics[0]?.partitions[0]?.errorCode === 0, {
      what: "bob's cluster ACLs in effect",
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    out['OffsetForLeaderEpoch secret'] = (await ofle()).topics.map((t) => [
      t.topic,
      t.partitions.map((p) => [p.errorCode, Number(p.endOffset)]),
    ]);
    const after = await bob.request(ApiKey.ListGroups, 4, { statesFilter: [] });
    out['ListGroups with cluster DESCRIBE'] = after.groups.map((g) => g.groupId).sort();
    const apt4 = await bob.request(ApiKey.AddPartitionsToTxn, 4, {
      transactions: [
        {
          transactionalId: 'tx2',
          producerId: 0n,
          producerEpoch: 0,
          verifyOnly: true,
          topics: [{ name: 'gt', partitions: [0] }],
        },
      ],
    });
    out['AddPartitionsToTxn v4 with CLUSTER_ACTION'] = [
      apt4.errorCode,
      apt4.resultsByTransaction.map((t) => [
        t.transactionalId,
        t.topicResults.map((r) => [r.name, r.resultsByPartition.map((p) => p.partitionErrorCode)]),
      ]),
    ];
    return out;
  } finally {
    admin.close();
    bob.close();
  }
}

/** What Kafka 4.4.0 answers in `clusterScenario` (after `scenario` and `consumerGroupScenario`). */
export const CLUSTER_WIDE: Record<string, unknown> = {
  'ListGroups before': ['g1', 'g4', 'g5'],
  'ListGroups with cluster DESCRIBE': ['g1', 'g4', 'g5', 'g9'],
  'AddPartitionsToTxn v4 with CLUSTER_ACTION': [0, [['tx2', [['gt', [ErrorCode.INVALID_PRODUCER_ID_MAPPING]]]]]],
  'OffsetForLeaderEpoch secret': [['secret', [[0, 0]]]],
};
