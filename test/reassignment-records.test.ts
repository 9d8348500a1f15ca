// ReplicationControlManagerTest's reassignment and election cases, ported on images built by
// replaying the controller's own records (registration, unfencing, fencing, CreateTopics with manual
// assignments, AlterPartition): testReassignPartitions, testCancelReassignPartitions,
// testReassignPartitionsHandlesNewReassignmentThatRemovesPreviouslyAddingReplicas,
// testElectUncleanLeaders_WithoutElr, testPreferredElectionDoesNotTriggerUncleanElection and
// testElectPreferredLeaders; plus the PartitionReassignmentReplicas / Revert unit cases and the
// AllowReplicationFactorChange=false check.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { ConfigResourceType, MetadataImage, type PartitionImage } from '../src/broker/metadata/image.js';
import { fenceBroker, registerBroker, unfenceBroker } from '../src/broker/controller/cluster.js';
import { createTopics } from '../src/broker/controller/topics.js';
import { alterPartition } from '../src/broker/controller/alter-partition.js';
import {
  alterPartitionReassignments,
  electLeaders,
  ElectionType,
  listPartitionReassignments,
  reassignmentReplicas,
  reassignmentRevert,
} from '../src/broker/controller/reassignment.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { defaultConfigRecord } from '../src/protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../src/protocol/metadata-records.js';
import type { PartitionChangeRecord } from '../src/protocol/generated/metadata/index.js';

const dir = (id: number): string => `TESTBROKER0000${id}DIRAAAA`;

/** ReplicationControlTestContext: the image the records of each step are replayed into. */
class Ctx {
  image: MetadataImage;
  private offset = 0;

  constructor(metadataVersion = 33, elr = 0) {
    this.image = MetadataImage.empty('c', 3000);
    this.replay([
      metadataRecord(RecordType.FeatureLevel, 0, { name: 'metadata.version', featureLevel: metadataVersion }),
      metadataRecord(RecordType.FeatureLevel, 0, { name: 'eligible.leader.replicas.version', featureLevel: elr }),
    ]);
  }

  replay(records: readonly MetadataRecord[]): void {
    const b = new ImageBuilder(this.image);
    for (const r of records) b.apply(r);
    this.offset += records.length;
    this.image = b.build({ offset: this.offset, epoch: 1, lastContainedLogTimeMs: -1 });
  }

  /** Brokers registered (fenced) with epoch 100 + id and one directory each. */
  registerBrokers(...ids: number[]): void {
    for (const id of ids) {
      const { records } = registerBroker(
        this.image,
        {
          brokerId: id,
          incarnationId: Buffer.alloc(16, id + 1 + this.offset).toString('base64url'),
          listeners: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 + id, securityProtocol: 0 }],
          features: new Map([
            ['metadata.version', { min: 1, max: 33 }],
            ['eligible.leader.replicas.version', { min: 0, max: 1 }],
            ['share.version', { min: 0, max: 2 }],
            ['streams.version', { min: 0, max: 1 }],
          ]),
          rack: null,
          logDirs: [dir(id)],
        },
        100 + id,
      );
      this.replay(records);
    }
  }

  epoch(id: number): bigint {
    return this.image.brokers.get(id)!.epoch;
  }

  unfenceBrokers(...ids: number[]): void {
    for (const id of ids) this.replay(unfenceBroker(this.image, id, this.epoch(id)));
  }

  fenceBrokers(...ids: number[]): void {
    for (const id of ids)
      if (!this.image.brokers.get(id)!.fenced) this.replay(fenceBroker(this.image, id, this.epoch(id), false));
  }

  inControlledShutdownBrokers(...ids: number[]): void {
    for (const id of ids) this.replay(fenceBroker(this.image, id, this.epoch(id), true));
  }

  createTestTopic(name: string, replicas: number[][]): string {
    const { records, results } = createTopics(
      { image: this.image, defaultNumPartitions: 1, defaultReplicationFactor: 1 },
      [
        {
          name,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: replicas.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
        },
      ],
    );
    assert.equal(results[0]!.errorCode, ErrorCode.NONE, results[0]!.errorMessage ?? '');
    this.replay(records);
    return results[0]!.topicId;
  }

  setTopicConfig(topic: string, name: string, value: string): void {
    this.replay([
      metadataRecord(RecordType.Config, 0, {
        ...defaultConfigRecord(),
        resourceType: ConfigResourceType.Topic,
        resourceName: topic,
        name,
        value,
      }),
    ]);
  }

  partition(topic: string, id: number): PartitionImage {
    return this.image.partition(topic, id)!;
  }

  /** AlterPartition from `brokerId` (v3, members at their registered epochs). */
  alterPartition(topic: string, brokerId: number, parts: { partitionIndex: number; newIsr: number[] }[]) {
    const result = alterPartition(
      this.image,
      {
        brokerId,
        brokerEpoch: this.epoch(brokerId),
        topics: [
          {
            topicId: this.image.topic(topic)!.id,
            partitions: parts.map((p) => {
              const cur = this.partition(topic, p.partitionIndex);
              return {
                partitionIndex: p.partitionIndex,
                leaderEpoch: cur.leaderEpoch,
                partitionEpoch: cur.partitionEpoch,
                leaderRecoveryState: 0,
                newIsr: [],
                newIsrWithEpochs: p.newIsr.map((b) => ({ brokerId: b, brokerEpoch: this.epoch(b) })),
              };
            }),
          },
        ],
      },
      3,
    );
    return result;
  }

  reassign(
    topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[],
    allow = true,
  ) {
    return alterPartitionReassignments({ image: this.image }, { topics, allowReplicationFactorChange: allow });
  }

  list(topics: { name: string; partitionIndexes: number[] }[] | null = null) {
    return listPartitionReassignments({ image: this.image }, topics);
  }

  elect(electionType: number, topicPartitions: { topic: string; partitions: number[] }[] | null) {
    return electLeaders({ image: this.image }, { electionType, topicPartitions });
  }
}

const NONE_REASSIGNING = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics: [] };

function change(r: MetadataRecord): PartitionChangeRecord {
  assert.equal(r.type, RecordType.PartitionChange);
  return r.data as PartitionChangeRecord;
}

/** The fields a PartitionChangeRecord sets (the rest at their "no change" values). */
function changed(r: MetadataRecord): Record<string, unknown> {
  const c = change(r);
  const out: Record<string, unknown> = { partitionId: c.partitionId };
  if (c.leader !== -2) out.leader = c.leader;
  if (c.isr !== null) out.isr = c.isr;
  if (c.replicas !== null) out.replicas = c.replicas;
  if (c.removingReplicas !== null) out.removingReplicas = c.removingReplicas;
  if (c.addingReplicas !== null) out.addingReplicas = c.addingReplicas;
  if (c.directories !== null) out.directories = c.directories;
  if (c.leaderRecoveryState !== -1) out.leaderRecoveryState = c.leaderRecoveryState;
  return out;
}

const reg = (p: PartitionImage) => ({
  replicas: p.replicas,
  isr: p.isr,
  removing: p.removingReplicas,
  adding: p.addingReplicas,
  leader: p.leader,
  leaderEpoch: p.leaderEpoch,
  partitionEpoch: p.partitionEpoch,
});

const ok = (partitionIndex: number) => ({ partitionIndex, errorCode: 0, errorMessage: null });

test('PartitionReassignmentReplicas: target first, then the removed replicas ascending; Revert drops the adding ones', () => {
  assert.deepEqual(reassignmentReplicas([0, 1, 2], [0, 1, 3]), { removing: [2], adding: [3], replicas: [0, 1, 3, 2] });
  assert.deepEqual(reassignmentReplicas([3, 2, 1], [0, 2, 1]), { removing: [3], adding: [0], replicas: [0, 2, 1, 3] });
  assert.deepEqual(reassignmentReplicas([2, 3, 0, 1], [4, 5]), {
    removing: [0, 1, 2, 3],
    adding: [4, 5],
    replicas: [4, 5, 0, 1, 2, 3],
  });
  assert.deepEqual(reassignmentReplicas([0, 1, 2], [2, 1, 0]), { removing: [], adding: [], replicas: [2, 1, 0] });
  const base = { topicId: 'x', partitionId: 0, leader: 0, leaderRecoveryState: 0, leaderEpoch: 0, partitionEpoch: 0 };
  const part = (replicas: number[], isr: number[], removing: number[], adding: number[]): PartitionImage => ({
    ...base,
    replicas,
    isr,
    removingReplicas: removing,
    addingReplicas: adding,
    directories: [],
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
  });
  // PartitionReassignmentRevertTest
  assert.deepEqual(reassignmentRevert(part([3, 2, 1], [3, 2], [], [])), {
    replicas: [3, 2, 1],
    isr: [3, 2],
    unclean: false,
  });
  assert.deepEqual(reassignmentRevert(part([3, 2, 1, 0], [3, 2], [1, 0], [])), {
    replicas: [3, 2, 1, 0],
    isr: [3, 2],
    unclean: false,
  });
  assert.deepEqual(reassignmentRevert(part([4, 5, 3, 2, 1], [3, 2], [], [4, 5])), {
    replicas: [3, 2, 1],
    isr: [3, 2],
    unclean: false,
  });
  assert.deepEqual(reassignmentRevert(part([4, 5, 3], [4, 5], [3], [4, 5])), {
    replicas: [3],
    isr: [3],
    unclean: true,
  });
  assert.throws(() => reassignmentRevert(part([4, 5], [4, 5], [], [4, 5])), /addingReplicas contains all replicas/);
});

test('testReassignPartitions: start, list, cancel, and completion by AlterPartition', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(0, 1, 2, 3);
  ctx.unfenceBrokers(0, 1, 2, 3);
  const fooId = ctx.createTestTopic('foo', [
    [1, 2, 3],
    [3, 2, 1],
  ]);
  ctx.createTestTopic('bar', [[1, 2, 3]]);
  assert.deepEqual(ctx.list(), NONE_REASSIGNING);
  const alter = ctx.reassign([
    {
      name: 'foo',
      partitions: [
        { partitionIndex: 0, replicas: [3, 2, 1] },
        { partitionIndex: 1, replicas: [0, 2, 1] },
        { partitionIndex: 2, replicas: [0, 2, 1] },
      ],
    },
    { name: 'bar', partitions: [] },
  ]);
  assert.deepEqual(alter.response, {
    throttleTimeMs: 0,
    allowReplicationFactorChange: true,
    errorCode: 0,
    errorMessage: null,
    responses: [
      {
        name: 'foo',
        partitions: [
          ok(0),
          ok(1),
          {
            partitionIndex: 2,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            errorMessage: 'Unable to find partition foo:2.',
          },
        ],
      },
      { name: 'bar', partitions: [] },
    ],
  });
  ctx.replay(alter.records);
  const reassigning = {
    ...NONE_REASSIGNING,
    topics: [
      {
        name: 'foo',
        partitions: [{ partitionIndex: 1, replicas: [0, 2, 1, 3], addingReplicas: [0], removingReplicas: [3] }],
      },
    ],
  };
  assert.deepEqual(ctx.list(), reassigning);
  assert.deepEqual(ctx.list([{ name: 'bar', partitionIndexes: [0, 1, 2] }]), NONE_REASSIGNING);
  assert.deepEqual(ctx.list([{ name: 'foo', partitionIndexes: [0, 1, 2] }]), reassigning);

  const cancel = ctx.reassign([
    {
      name: 'foo',
      partitions: [
        { partitionIndex: 0, replicas: null },
        { partitionIndex: 1, replicas: null },
        { partitionIndex: 2, replicas: null },
      ],
    },
    { name: 'bar', partitions: [{ partitionIndex: 0, replicas: null }] },
  ]);
  assert.deepEqual(cancel.records.map(changed), [
    {
      partitionId: 1,
      leader: 3,
      replicas: [2, 1, 3],
      removingReplicas: [],
      addingReplicas: [],
      directories: [dir(2), dir(1), dir(3)],
    },
  ]);
  assert.equal(change(cancel.records[0]!).topicId, fooId);
  assert.deepEqual(cancel.response.responses, [
    {
      name: 'foo',
      partitions: [
        { partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: null },
        ok(1),
        {
          partitionIndex: 2,
          errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          errorMessage: 'Unable to find partition foo:2.',
        },
      ],
    },
    {
      name: 'bar',
      partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: null }],
    },
  ]);

  // the reassignment is not cancelled: the leader 3 adds 0 to the ISR, which completes it and takes
  // leadership from 3 (v2+: NEW_LEADER_ELECTED)
  const ap = ctx.alterPartition('foo', 3, [{ partitionIndex: 1, newIsr: [3, 0, 2, 1] }]);
  assert.equal(ap.response.topics[0]!.partitions[0]!.errorCode, ErrorCode.NEW_LEADER_ELECTED);
  ctx.replay(ap.records);
  assert.deepEqual(ctx.list(), NONE_REASSIGNING);
  assert.deepEqual(reg(ctx.partition('foo', 1)), {
    replicas: [0, 2, 1],
    isr: [0, 2, 1],
    removing: [],
    adding: [],
    leader: 0,
    leaderEpoch: 1,
    partitionEpoch: 2,
  });
});

test('testCancelReassignPartitions: errors, a shrink completes at once, a cancel reverts to the original replicas', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(0, 1, 2, 3, 4);
  ctx.unfenceBrokers(0, 1, 2, 3, 4);
  ctx.createTestTopic('foo', [
    [1, 2, 3, 4],
    [0, 1, 2, 3],
    [4, 3, 1, 0],
    [2, 3, 4, 1],
  ]);
  const barId = ctx.createTestTopic('bar', [[4, 3, 2]]);
  assert.deepEqual(ctx.list(), NONE_REASSIGNING);
  ctx.fenceBrokers(3);
  assert.deepEqual(reg(ctx.partition('foo', 0)), {
    replicas: [1, 2, 3, 4],
    isr: [1, 2, 4],
    removing: [],
    adding: [],
    leader: 1,
    leaderEpoch: 0,
    partitionEpoch: 1,
  });
  const alter = ctx.reassign([
    {
      name: 'foo',
      partitions: [
        { partitionIndex: 0, replicas: [1, 2, 4] },
        { partitionIndex: 1, replicas: [1, 2, 3, 0] },
        { partitionIndex: 2, replicas: [5, 6, 7] },
        { partitionIndex: 3, replicas: [] },
      ],
    },
    { name: 'bar', partitions: [{ partitionIndex: 0, replicas: [1, 2, 3, 4, 0] }] },
  ]);
  assert.deepEqual(alter.response.responses, [
    {
      name: 'foo',
      partitions: [
        ok(0),
        ok(1),
        {
          partitionIndex: 2,
          errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          errorMessage: 'The manual partition assignment includes broker 5, but no such broker is registered.',
        },
        {
          partitionIndex: 3,
          errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          errorMessage: 'The manual partition assignment includes an empty replica list.',
        },
      ],
    },
    { name: 'bar', partitions: [ok(0)] },
  ]);
  ctx.replay(alter.records);
  assert.deepEqual(reg(ctx.partition('foo', 0)), {
    replicas: [1, 2, 4],
    isr: [1, 2, 4],
    removing: [],
    adding: [],
    leader: 1,
    leaderEpoch: 1,
    partitionEpoch: 2,
  });
  assert.deepEqual(ctx.partition('foo', 0).directories, [dir(1), dir(2), dir(4)]);
  assert.deepEqual(reg(ctx.partition('foo', 1)), {
    replicas: [1, 2, 3, 0],
    isr: [0, 1, 2],
    removing: [],
    adding: [],
    leader: 0,
    leaderEpoch: 0,
    partitionEpoch: 2,
  });
  assert.deepEqual(reg(ctx.partition('bar', 0)), {
    replicas: [1, 2, 3, 4, 0],
    isr: [4, 2],
    removing: [],
    adding: [0, 1],
    leader: 4,
    leaderEpoch: 0,
    partitionEpoch: 2,
  });
  const reassigning = {
    ...NONE_REASSIGNING,
    topics: [
      {
        name: 'bar',
        partitions: [{ partitionIndex: 0, replicas: [1, 2, 3, 4, 0], addingReplicas: [0, 1], removingReplicas: [] }],
      },
    ],
  };
  assert.deepEqual(ctx.list(), reassigning);
  assert.deepEqual(ctx.list([{ name: 'foo', partitionIndexes: [0, 1, 2] }]), NONE_REASSIGNING);
  assert.deepEqual(ctx.list([{ name: 'bar', partitionIndexes: [0, 1, 2] }]), reassigning);

  const ap = ctx.alterPartition('bar', 4, [{ partitionIndex: 0, newIsr: [4, 1, 2, 0] }]);
  assert.deepEqual(ap.response.topics[0]!.partitions[0], {
    partitionIndex: 0,
    errorCode: 0,
    leaderId: 4,
    leaderEpoch: 0,
    isr: [4, 1, 2, 0],
    leaderRecoveryState: 0,
    partitionEpoch: 3,
  });
  // Kafka's test computes the cancellation on the state before this AlterPartition (not replayed)
  const cancel = ctx.reassign([
    { name: 'foo', partitions: [{ partitionIndex: 0, replicas: null }] },
    { name: 'bar', partitions: [{ partitionIndex: 0, replicas: null }] },
  ]);
  assert.deepEqual(cancel.records.map(changed), [
    { partitionId: 0, leader: 4, replicas: [2, 3, 4], addingReplicas: [], directories: [dir(2), dir(3), dir(4)] },
  ]);
  assert.equal(change(cancel.records[0]!).topicId, barId);
  assert.deepEqual(cancel.response.responses, [
    {
      name: 'foo',
      partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, errorMessage: null }],
    },
    { name: 'bar', partitions: [ok(0)] },
  ]);
  ctx.replay(cancel.records);
  assert.deepEqual(ctx.list(), NONE_REASSIGNING);
  assert.deepEqual(reg(ctx.partition('bar', 0)), {
    replicas: [2, 3, 4],
    isr: [4, 2],
    removing: [],
    adding: [],
    leader: 4,
    leaderEpoch: 1,
    partitionEpoch: 3,
  });
});

test('a cancel that needs an unclean election is refused unless the topic allows one', () => {
  // with ELR the ISR can empty: the reverted ISR would then be the first original replica, uncleanly
  const ctx = new Ctx(33, 1);
  ctx.registerBrokers(1, 2);
  ctx.unfenceBrokers(1, 2);
  ctx.createTestTopic('foo', [[1]]);
  ctx.replay(ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: [1, 2] }] }]).records);
  assert.deepEqual(reg(ctx.partition('foo', 0)), {
    replicas: [1, 2],
    isr: [1],
    removing: [],
    adding: [2],
    leader: 1,
    leaderEpoch: 0,
    partitionEpoch: 1,
  });
  ctx.fenceBrokers(1);
  assert.deepEqual([ctx.partition('foo', 0).isr, ctx.partition('foo', 0).leader], [[], -1]);
  const refused = ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: null }] }]);
  assert.deepEqual(refused.response.responses[0]!.partitions[0], {
    partitionIndex: 0,
    errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
    errorMessage:
      'Unable to revert partition assignment for foo:0 because it would require an unclean leader election.',
  });
  assert.deepEqual(refused.records, []);
  ctx.setTopicConfig('foo', 'unclean.leader.election.enable', 'true');
  const reverted = ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: null }] }]);
  assert.deepEqual(reverted.response.responses[0]!.partitions[0], ok(0));
  ctx.replay(reverted.records);
  const p = ctx.partition('foo', 0);
  assert.deepEqual([p.replicas, p.isr, p.addingReplicas, p.removingReplicas], [[1], [1], [], []]);
});

test('testReassignPartitionsHandlesNewReassignmentThatRemovesPreviouslyAddingReplicas', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(0, 1, 2, 3, 4, 5);
  ctx.unfenceBrokers(0, 1, 2, 3, 4, 5);
  const topic = 'topic-1';
  ctx.createTestTopic(topic, [[0, 1]]);
  assert.deepEqual(ctx.list(), NONE_REASSIGNING);
  const one = ctx.reassign([{ name: topic, partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }]);
  assert.deepEqual(one.response.responses, [{ name: topic, partitions: [ok(0)] }]);
  ctx.replay(one.records);
  assert.deepEqual(ctx.list().topics, [
    {
      name: topic,
      partitions: [{ partitionIndex: 0, replicas: [2, 3, 0, 1], addingReplicas: [2, 3], removingReplicas: [0, 1] }],
    },
  ]);
  const before = ctx.partition(topic, 0);
  const ap = ctx.alterPartition(topic, before.leader, [{ partitionIndex: 0, newIsr: [0, 1, 2] }]);
  assert.deepEqual(ap.response.topics[0]!.partitions[0]!.isr, [0, 1, 2]);
  assert.equal(ap.response.topics[0]!.partitions[0]!.partitionEpoch, before.partitionEpoch + 1);
  ctx.replay(ap.records);
  const elect = ctx.elect(ElectionType.PREFERRED, [{ topic, partitions: [0] }]);
  assert.deepEqual(elect.response, {
    throttleTimeMs: 0,
    errorCode: 0,
    replicaElectionResults: [{ topic, partitionResult: [{ partitionId: 0, errorCode: 0, errorMessage: null }] }],
  });
  ctx.replay(elect.records);
  assert.equal(ctx.partition(topic, 0).leader, 2);
  const two = ctx.reassign([{ name: topic, partitions: [{ partitionIndex: 0, replicas: [4, 5] }] }]);
  assert.deepEqual(two.response.responses, [{ name: topic, partitions: [ok(0)] }]);
  ctx.replay(two.records);
  assert.deepEqual(ctx.list().topics, [
    {
      name: topic,
      partitions: [
        { partitionIndex: 0, replicas: [4, 5, 0, 1, 2, 3], addingReplicas: [4, 5], removingReplicas: [0, 1, 2, 3] },
      ],
    },
  ]);
});

test('AllowReplicationFactorChange=false: INVALID_REPLICATION_FACTOR against the target of a reassignment in progress', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(0, 1, 2, 3);
  ctx.unfenceBrokers(0, 1, 2, 3);
  ctx.createTestTopic('foo', [[0, 1]]);
  const refused = ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: [0, 1, 2] }] }], false);
  assert.deepEqual(refused.response.responses[0]!.partitions[0], {
    partitionIndex: 0,
    errorCode: ErrorCode.INVALID_REPLICATION_FACTOR,
    errorMessage: 'The replication factor is changed from 2 to 3',
  });
  assert.equal(refused.response.allowReplicationFactorChange, false);
  assert.deepEqual(refused.records, []);
  ctx.replay(ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: [2, 3] }] }], false).records);
  // replicas [2, 3, 0, 1], adding [2, 3], removing [0, 1]: the reassignment's size is 2
  const again = ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: [3, 2, 1] }] }], false);
  assert.equal(
    again.response.responses[0]!.partitions[0]!.errorMessage,
    'The replication factor is changed from 2 to 3',
  );
  const dup = ctx.reassign([{ name: 'foo', partitions: [{ partitionIndex: 0, replicas: [2, 2] }] }]);
  assert.deepEqual(dup.response.responses[0]!.partitions[0], {
    partitionIndex: 0,
    errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
    errorMessage: 'The manual partition assignment includes the broker 2 more than once.',
  });
  const unknown = ctx.reassign([{ name: 'nope', partitions: [{ partitionIndex: 0, replicas: [1] }] }]);
  assert.deepEqual(unknown.response.responses[0]!.partitions[0], {
    partitionIndex: 0,
    errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    errorMessage: 'Unable to find a topic named nope.',
  });
});

for (const electAll of [true, false]) {
  test(`testElectUncleanLeaders_WithoutElr (${electAll ? 'all partitions' : 'named partitions'})`, () => {
    const ctx = new Ctx(13); // IBP_3_6_IV1
    ctx.registerBrokers(0, 1, 2, 3, 4);
    ctx.unfenceBrokers(0, 1, 2, 3, 4);
    ctx.createTestTopic('foo', [
      [1, 2, 3],
      [2, 3, 4],
      [0, 2, 1],
    ]);
    ctx.fenceBrokers(2, 3);
    ctx.fenceBrokers(1, 2, 3);
    const li = (p: number) => [ctx.partition('foo', p).leader, ctx.partition('foo', p).isr];
    assert.deepEqual(
      [li(0), li(1), li(2)],
      [
        [-1, [1]],
        [4, [4]],
        [0, [0]],
      ],
    );
    const request = electAll ? null : [{ topic: 'foo', partitions: [0, 1, 2] }];
    const results = (r: ReturnType<Ctx['elect']>) =>
      r.response.replicaElectionResults.map((t) => [
        t.topic,
        t.partitionResult.map((p) => [p.partitionId, p.errorCode]),
      ]);
    const first = ctx.elect(ElectionType.UNCLEAN, request);
    assert.deepEqual(first.records, []);
    assert.deepEqual(
      results(first),
      electAll
        ? [['foo', [[0, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE]]]]
        : [
            [
              'foo',
              [
                [0, ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE],
                [1, ErrorCode.ELECTION_NOT_NEEDED],
                [2, ErrorCode.ELECTION_NOT_NEEDED],
              ],
            ],
          ],
    );
    assert.equal(
      first.response.replicaElectionResults[0]!.partitionResult[0]!.errorMessage,
      'Eligible topic partition leaders are not available.',
    );
    ctx.unfenceBrokers(2);
    ctx.replay(ctx.alterPartition('foo', 4, [{ partitionIndex: 1, newIsr: [2, 4] }]).records);
    const second = ctx.elect(ElectionType.UNCLEAN, request);
    assert.deepEqual(second.records.map(changed), [{ partitionId: 0, leader: 2, isr: [2], leaderRecoveryState: 1 }]);
    ctx.replay(second.records);
    assert.deepEqual(
      [li(0), li(1), li(2)],
      [
        [2, [2]],
        [4, [2, 4]],
        [0, [0]],
      ],
    );
    assert.deepEqual(
      results(second),
      electAll
        ? [['foo', [[0, 0]]]]
        : [
            [
              'foo',
              [
                [0, 0],
                [1, ErrorCode.ELECTION_NOT_NEEDED],
                [2, ErrorCode.ELECTION_NOT_NEEDED],
              ],
            ],
          ],
    );
  });
}

test('testPreferredElectionDoesNotTriggerUncleanElection', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(1, 2, 3, 4);
  ctx.unfenceBrokers(1, 2, 3, 4);
  ctx.createTestTopic('foo', [[1, 2, 3]]);
  ctx.fenceBrokers(2, 3);
  ctx.fenceBrokers(1, 2, 3);
  ctx.unfenceBrokers(2);
  assert.deepEqual([ctx.partition('foo', 0).leader, ctx.partition('foo', 0).isr], [-1, [1]]);
  ctx.setTopicConfig('foo', 'unclean.leader.election.enable', 'true');
  const r = ctx.elect(ElectionType.PREFERRED, [{ topic: 'foo', partitions: [0] }]);
  assert.deepEqual(r.records, []);
  assert.deepEqual(r.response.replicaElectionResults, [
    {
      topic: 'foo',
      partitionResult: [
        {
          partitionId: 0,
          errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
          errorMessage: 'The preferred leader was not available.',
        },
      ],
    },
  ]);
});

test('testElectPreferredLeaders', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(0, 1, 2, 3, 4);
  ctx.unfenceBrokers(1, 2, 3, 4);
  ctx.inControlledShutdownBrokers(1);
  ctx.createTestTopic('foo', [
    [1, 2, 3],
    [2, 3, 4],
    [0, 2, 1],
  ]);
  const request = [
    { topic: 'foo', partitions: [0, 1, 2] },
    { topic: 'bar', partitions: [0, 1] },
  ];
  const codes = (r: ReturnType<Ctx['elect']>) =>
    r.response.replicaElectionResults.map((t) => [
      t.topic,
      t.partitionResult.map((p) => [p.partitionId, p.errorCode, p.errorMessage]),
    ]);
  const notAvailable = 'The preferred leader was not available.';
  const notNeeded = 'Leader election not needed for topic partition.';
  const bar = [
    'bar',
    [
      [0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'No such topic as bar'],
      [1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'No such topic as bar'],
    ],
  ];
  const first = ctx.elect(ElectionType.PREFERRED, request);
  assert.deepEqual(codes(first), [
    [
      'foo',
      [
        [0, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, notAvailable],
        [1, ErrorCode.ELECTION_NOT_NEEDED, notNeeded],
        [2, ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, notAvailable],
      ],
    ],
    bar,
  ]);
  assert.deepEqual(first.records, []);
  // broker 1 registers again to leave controlled shutdown
  ctx.registerBrokers(1);
  ctx.unfenceBrokers(0, 1);
  const ap = ctx.alterPartition('foo', 2, [
    { partitionIndex: 0, newIsr: [1, 2, 3] },
    { partitionIndex: 2, newIsr: [0, 2, 1] },
  ]);
  assert.deepEqual(
    ap.response.topics[0]!.partitions.map((p) => [
      p.partitionIndex,
      p.errorCode,
      p.leaderId,
      p.leaderEpoch,
      p.isr,
      p.partitionEpoch,
    ]),
    [
      [0, 0, 2, 0, [1, 2, 3], 1],
      [2, 0, 2, 0, [0, 2, 1], 1],
    ],
  );
  ctx.replay(ap.records);
  const second = ctx.elect(ElectionType.PREFERRED, request);
  assert.deepEqual(codes(second), [
    [
      'foo',
      [
        [0, 0, null],
        [1, ErrorCode.ELECTION_NOT_NEEDED, notNeeded],
        [2, 0, null],
      ],
    ],
    bar,
  ]);
  assert.deepEqual(second.records.map(changed), [
    { partitionId: 0, leader: 1 },
    { partitionId: 2, leader: 0 },
  ]);
});

test('ElectLeaders: an unknown election type fails the request; all partitions lists every topic', () => {
  const ctx = new Ctx();
  ctx.registerBrokers(1, 2);
  ctx.unfenceBrokers(1, 2);
  ctx.createTestTopic('b', [[1, 2]]);
  ctx.createTestTopic('a', [
    [2, 1],
    [1, 2],
  ]);
  assert.throws(() => ctx.elect(2, null), /Unknown election type 2/);
  const all = ctx.elect(ElectionType.PREFERRED, null);
  assert.deepEqual(all.response.replicaElectionResults, [
    { topic: 'a', partitionResult: [] },
    { topic: 'b', partitionResult: [] },
  ]);
  assert.deepEqual(all.records, []);
  const unknownPartition = ctx.elect(ElectionType.PREFERRED, [{ topic: 'a', partitions: [7] }]);
  assert.deepEqual(unknownPartition.response.replicaElectionResults[0]!.partitionResult, [
    { partitionId: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'No such partition as a-7' },
  ]);
});
