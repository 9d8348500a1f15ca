// The group APIs at every codec version through the project's codec against a real broker:
// FindCoordinator (single and batched, GROUP and TRANSACTION), the classic cycle, offsets (single
// and multi-group fetch), ListGroups / DescribeGroups / DeleteGroups / OffsetDelete; KIP-848 driven
// with ConsumerGroupHeartbeat; the records of __consumer_offsets decoded; resilience cases; a
// Stable group and its offsets across a restart.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey, type ApiResponse } from '../src/protocol/generated/apis.js';
import { ErrorCode as E } from '../src/protocol/errors.js';
import { coordinatorPartition } from '../src/protocol/partitioner.js';
import { decodeBatch, iterateBatches } from '../src/protocol/records/batch.js';
import { decodeRecord, type CoordinatorRecord } from '../src/broker/group/records.js';
import { encodeSubscription } from '../src/broker/group/consumer-protocol.js';
import { waitFor } from './helpers/wait-for.js';

let broker: BrokerProcess;
let c: RawClient;
const SUB = encodeSubscription(['pt']);

before(async () => {
  broker = await startBroker({
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 500, 'num.partitions': 2 },
  });
  c = await RawClient.connect(broker.port);
  for (const name of ['pt', 'cg-topic', 'doomed']) {
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        { name, numPartitions: name === 'cg-topic' ? 4 : 2, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 10000,
      validateOnly: false,
    });
    assert.equal(r.topics[0].errorCode, E.NONE);
  }
});
after(async () => {
  c?.close();
  await broker?.stop();
  broker?.cleanup();
});

async function waitCoordinator(key: string, keyType = 0): Promise<ApiResponse<typeof ApiKey.FindCoordinator>> {
  return waitFor(
    async () => {
      const r = await c.request(ApiKey.FindCoordinator, 3, { key, keyType });
      if (r.errorCode === E.NONE) return r;
      assert.equal(r.errorCode, E.COORDINATOR_NOT_AVAILABLE);
      return null;
    },
    { what: `a coordinator for ${key}`, timeoutMs: 10_000 },
  );
}

async function joinAt(
  client: RawClient,
  v: number,
  groupId: string,
  o: { session?: number; rebalance?: number; instance?: string | null; memberId?: string } = {},
): Promise<ApiResponse<typeof ApiKey.JoinGroup>> {
  const body = (memberId: string) => ({
    groupId,
    sessionTimeoutMs: o.session ?? 10_000,
    rebalanceTimeoutMs: o.rebalance ?? 5000,
    memberId,
    groupInstanceId: o.instance ?? null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: SUB }],
    reason: null,
  });
  let r = await client.request(ApiKey.JoinGroup, v, body(o.memberId ?? ''));
  if (r.errorCode === E.MEMBER_ID_REQUIRED) r = await client.request(ApiKey.JoinGroup, v, body(r.memberId));
  return r;
}

const syncAt = (
  client: RawClient,
  v: number,
  groupId: string,
  generationId: number,
  memberId: string,
  assignments: { memberId: string; assignment: Buffer }[] = [],
) =>
  client.request(ApiKey.SyncGroup, v, {
    groupId,
    generationId,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments,
  });

const commitBody = (groupId: string, gen: number, memberId: string, offset: bigint, topic = 'pt') => ({
  groupId,
  generationIdOrMemberEpoch: gen,
  memberId,
  groupInstanceId: null,
  retentionTimeMs: -1n,
  topics: [
    {
      name: topic,
      partitions: [
        {
          partitionIndex: 0,
          committedOffset: offset,
          committedLeaderEpoch: -1,
          commitTimestamp: -1n,
          committedMetadata: 'meta',
        },
      ],
    },
  ],
});

test(
  'FindCoordinator v0-6: creates the internal topics, answers GROUP and TRANSACTION keys, batches keys from v4',
  { timeout: 60_000 },
  async () => {
    const first = await c.request(ApiKey.FindCoordinator, 2, { key: 'fc-group', keyType: 0 });
    assert.equal(first.errorCode, E.COORDINATOR_NOT_AVAILABLE, 'the creating call answers COORDINATOR_NOT_AVAILABLE');
    const ready = await waitCoordinator('fc-group');
    assert.equal(ready.nodeId, 1);
    assert.equal(ready.port, broker.port);
    assert.equal(ready.errorMessage, 'NONE');
    const txn = await waitCoordinator('my-txn', 1);
    assert.equal(txn.nodeId, 1);
    for (let v = 0; v <= 6; v++) {
      if (v < 4) {
        const r = await c.request(ApiKey.FindCoordinator, v, { key: 'fc-group', keyType: 0 });
        assert.equal(r.errorCode, E.NONE, `v${v}`);
        assert.equal(r.port, broker.port);
      } else {
        const g = await c.request(ApiKey.FindCoordinator, v, { keyType: 0, coordinatorKeys: ['a', 'b', ''] });
        assert.deepEqual(
          g.coordinators.map((x) => [x.key, x.errorCode, x.nodeId, x.port]),
          [
            ['a', 0, 1, broker.port],
            ['b', 0, 1, broker.port],
            ['', 0, 1, broker.port],
          ],
        );
        const t = await c.request(ApiKey.FindCoordinator, v, { keyType: 1, coordinatorKeys: ['t1', 't2'] });
        assert.deepEqual(
          t.coordinators.map((x) => x.errorCode),
          [0, 0],
        );
        const share = await c.request(ApiKey.FindCoordinator, v, { keyType: 2, coordinatorKeys: ['s'] });
        assert.equal(share.coordinators[0].errorCode, E.INVALID_REQUEST);
      }
    }
    // both internal topics exist with their configured partition counts
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: [
        { name: '__consumer_offsets', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' },
        { name: '__transaction_state', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' },
      ],
      allowAutoTopicCreation: false,
    });
    assert.deepEqual(
      md.topics.map((t) => [t.name, t.isInternal, t.partitions.length]),
      [
        ['__consumer_offsets', true, 50],
        ['__transaction_state', true, 50],
      ],
    );
  },
);

test(
  'the classic cycle at every JoinGroup version (0-9) with SyncGroup, Heartbeat, OffsetCommit, OffsetFetch, LeaveGroup at matching versions',
  { timeout: 60_000 },
  async () => {
    await waitCoordinator('x');
    for (let v = 0; v <= 9; v++) {
      const groupId = `ver-${v}`;
      const j = await joinAt(c, v, groupId);
      assert.equal(j.errorCode, E.NONE, `JoinGroup v${v}`);
      assert.equal(j.generationId, 1);
      assert.equal(j.leader, j.memberId);
      assert.equal(j.members.length, 1);
      const sv = Math.min(v, 5);
      const s = await syncAt(c, sv, groupId, 1, j.memberId, [
        { memberId: j.memberId, assignment: Buffer.from(`a${v}`) },
      ]);
      assert.equal(s.errorCode, E.NONE, `SyncGroup v${sv}`);
      assert.equal(Buffer.from(s.assignment).toString(), `a${v}`);
      const h = await c.request(ApiKey.Heartbeat, Math.min(v, 4), {
        groupId,
        generationId: 1,
        memberId: j.memberId,
        groupInstanceId: null,
      });
      assert.equal(h.errorCode, E.NONE, `Heartbeat v${Math.min(v, 4)}`);
      const hv = await c.request(ApiKey.Heartbeat, Math.min(v, 4), {
        groupId,
        generationId: 0,
        memberId: j.memberId,
        groupInstanceId: null,
      });
      assert.equal(hv.errorCode, E.ILLEGAL_GENERATION);
      const cv = Math.max(2, v); // Kafka 4 serves OffsetCommit v2+ and OffsetFetch v1+ (KIP-896)
      const oc = await c.request(ApiKey.OffsetCommit, cv, commitBody(groupId, 1, j.memberId, BigInt(100 + v)));
      assert.equal(oc.topics[0].partitions[0].errorCode, E.NONE, `OffsetCommit v${cv}`);
      const stale = await c.request(ApiKey.OffsetCommit, cv, commitBody(groupId, 0, j.memberId, 1n));
      assert.equal(
        stale.topics[0].partitions[0].errorCode,
        E.ILLEGAL_GENERATION,
        'commits from the current generation only',
      );
      const fv = Math.max(1, Math.min(v, 7));
      const of = await c.request(ApiKey.OffsetFetch, fv, {
        groupId,
        topics: [{ name: 'pt', partitionIndexes: [0, 1] }],
        requireStable: false,
      });
      assert.deepEqual(
        of.topics[0].partitions.map((p) => p.committedOffset),
        [BigInt(100 + v), -1n],
        `OffsetFetch v${fv}`,
      );
      const lv = Math.min(v, 5);
      const leave = await c.request(
        ApiKey.LeaveGroup,
        lv,
        lv >= 3
          ? { groupId, members: [{ memberId: j.memberId, groupInstanceId: null, reason: lv >= 5 ? 'done' : null }] }
          : { groupId, memberId: j.memberId },
      );
      assert.equal(leave.errorCode, E.NONE, `LeaveGroup v${lv}`);
      if (lv >= 3)
        assert.deepEqual(
          leave.members.map((m) => m.errorCode),
          [E.NONE],
        );
    }
  },
);

test(
  'OffsetCommit v2-9 and OffsetFetch v1-9 (single group, all topics, several groups) for simple consumers',
  { timeout: 60_000 },
  async () => {
    for (let i = 0; i <= 9; i++) {
      const v = Math.max(2, i); // groups simple-0 and simple-1 are committed at v2
      const r = await c.request(ApiKey.OffsetCommit, v, commitBody(`simple-${i}`, -1, '', BigInt(i)));
      assert.equal(r.topics[0].partitions[0].errorCode, E.NONE, `OffsetCommit v${v}`);
      const unknown = await c.request(ApiKey.OffsetCommit, v, commitBody(`simple-${i}`, -1, '', 1n, 'no-such-topic'));
      assert.equal(unknown.topics[0].partitions[0].errorCode, E.UNKNOWN_TOPIC_OR_PARTITION);
    }
    for (let v = 1; v <= 7; v++) {
      const r = await c.request(ApiKey.OffsetFetch, v, {
        groupId: 'simple-3',
        topics: v >= 2 ? null : [{ name: 'pt', partitionIndexes: [0] }],
        requireStable: v >= 7,
      });
      assert.equal(r.topics[0].partitions[0].committedOffset, 3n, `OffsetFetch v${v}`);
      if (v >= 5) assert.equal(r.topics[0].partitions[0].committedLeaderEpoch, -1);
    }
    for (const v of [8, 9]) {
      const r = await c.request(ApiKey.OffsetFetch, v, {
        groups: [
          { groupId: 'simple-1', memberId: null, memberEpoch: -1, topics: null },
          { groupId: 'simple-2', memberId: null, memberEpoch: -1, topics: [{ name: 'pt', partitionIndexes: [0, 1] }] },
          { groupId: 'nobody', memberId: null, memberEpoch: -1, topics: null },
        ],
        requireStable: true,
      });
      assert.deepEqual(
        r.groups.map((g) => [
          g.groupId,
          g.errorCode,
          g.topics.flatMap((t) => t.partitions.map((p) => p.committedOffset)),
        ]),
        [
          ['simple-1', 0, [1n]],
          ['simple-2', 0, [2n, -1n]],
          ['nobody', 0, []],
        ],
        `OffsetFetch v${v}`,
      );
    }
  },
);

test(
  'ListGroups v0-5 (states and types), DescribeGroups v0-5, OffsetDelete v0, DeleteGroups v0-2',
  { timeout: 60_000 },
  async () => {
    const j = await joinAt(c, 9, 'listed');
    await syncAt(c, 5, 'listed', j.generationId, j.memberId, [{ memberId: j.memberId, assignment: Buffer.from('x') }]);
    for (let v = 0; v <= 5; v++) {
      const r = await c.request(ApiKey.ListGroups, v, {
        statesFilter: v >= 4 ? ['stable'] : [],
        typesFilter: v >= 5 ? ['classic'] : [],
      });
      assert.equal(r.errorCode, E.NONE);
      const listed = r.groups.find((g) => g.groupId === 'listed');
      assert.ok(listed, `ListGroups v${v}`);
      assert.equal(listed.protocolType, 'consumer');
      if (v >= 4) {
        assert.equal(listed.groupState, 'Stable');
        assert.ok(r.groups.every((g) => g.groupState === 'Stable'));
      }
      if (v >= 5) assert.equal(listed.groupType, 'classic');
    }
    const none = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] });
    assert.ok(none.groups.every((g) => g.groupType === 'consumer'));
    for (let v = 0; v <= 5; v++) {
      const r = await c.request(ApiKey.DescribeGroups, v, {
        groups: ['listed', 'simple-1', 'ghost'],
        includeAuthorizedOperations: v >= 3,
      });
      assert.deepEqual(
        r.groups.map((g) => [g.groupId, g.errorCode, g.groupState, g.protocolData]),
        [
          ['listed', 0, 'Stable', 'range'],
          ['simple-1', 0, 'Empty', ''],
          ['ghost', 0, 'Dead', ''],
        ],
        `DescribeGroups v${v}`,
      );
      const m = r.groups[0].members[0];
      assert.equal(m.memberId, j.memberId);
      assert.equal(m.clientId, 'raw-test');
      assert.equal(m.clientHost, '/127.0.0.1');
      assert.equal(Buffer.from(m.memberAssignment).toString(), 'x');
      assert.deepEqual(Buffer.from(m.memberMetadata), SUB);
      if (v >= 3)
        assert.equal(r.groups[0].authorizedOperations, (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11));
    }
    const od = await c.request(ApiKey.OffsetDelete, 0, {
      groupId: 'simple-4',
      topics: [{ name: 'pt', partitions: [{ partitionIndex: 0 }] }],
    });
    assert.equal(od.errorCode, E.NONE);
    assert.equal(od.topics[0].partitions[0].errorCode, E.NONE);
    const gone = await c.request(ApiKey.OffsetFetch, 7, { groupId: 'simple-4', topics: null, requireStable: false });
    assert.deepEqual(gone.topics, []);
    const busy = await c.request(ApiKey.OffsetDelete, 0, {
      groupId: 'listed',
      topics: [{ name: 'pt', partitions: [{ partitionIndex: 0 }] }],
    });
    assert.equal(busy.topics[0].partitions[0].errorCode, E.GROUP_SUBSCRIBED_TO_TOPIC);
    for (let v = 0; v <= 2; v++) {
      const r = await c.request(ApiKey.DeleteGroups, v, { groupsNames: [`simple-${v}`, 'listed', 'ghost'] });
      assert.deepEqual(
        r.results.map((x) => [x.groupId, x.errorCode]),
        [
          [`simple-${v}`, E.NONE],
          ['listed', E.NON_EMPTY_GROUP],
          ['ghost', E.GROUP_ID_NOT_FOUND],
        ],
        `DeleteGroups v${v}`,
      );
    }
  },
);

test(
  'KIP-848 through ConsumerGroupHeartbeat v0/v1: join, revoke then assign, describe, commit with member epochs, leave',
  { timeout: 60_000 },
  async () => {
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name: 'cg-topic', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: false,
    });
    const topicId = md.topics[0].topicId;
    const hb = (v: number, o: Record<string, unknown>) =>
      c.request(ApiKey.ConsumerGroupHeartbeat, v, {
        groupId: 'kip848',
        memberId: '',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: -1,
        subscribedTopicNames: null,
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: null,
        ...o,
      });
    const join = { memberEpoch: 0, rebalanceTimeoutMs: 5000, subscribedTopicNames: ['cg-topic'], topicPartitions: [] };
    const a = await hb(0, join);
    assert.equal(a.errorCode, E.NONE, a.errorMessage ?? undefined);
    assert.equal(a.memberEpoch, 2);
    assert.deepEqual(a.assignment?.topicPartitions, [{ topicId, partitions: [0, 1, 2, 3] }]);
    const bId = randomBytes(16).toString('base64url');
    const missingId = await hb(1, join);
    assert.equal(missingId.errorCode, E.INVALID_REQUEST, 'v1 members bring their own id');
    const b = await hb(1, { ...join, memberId: bId });
    assert.equal(b.memberId, bId);
    assert.equal(b.memberEpoch, 3);
    assert.deepEqual(b.assignment?.topicPartitions, []);
    const a2 = await hb(0, { memberId: a.memberId, memberEpoch: 2, topicPartitions: a.assignment?.topicPartitions });
    assert.equal(a2.memberEpoch, 2, 'revoking first');
    const kept = a2.assignment?.topicPartitions[0].partitions ?? [];
    assert.equal(kept.length, 2);
    const a3 = await hb(0, { memberId: a.memberId, memberEpoch: 2, topicPartitions: a2.assignment?.topicPartitions });
    assert.equal(a3.memberEpoch, 3);
    const b2 = await hb(1, { memberId: bId, memberEpoch: 3, topicPartitions: [] });
    assert.deepEqual([...kept, ...(b2.assignment?.topicPartitions[0].partitions ?? [])].sort(), [0, 1, 2, 3]);
    const fenced = await hb(0, { memberId: a.memberId, memberEpoch: 7 });
    assert.equal(fenced.errorCode, E.FENCED_MEMBER_EPOCH);
    const d = await c.request(ApiKey.ConsumerGroupDescribe, 0, {
      groupIds: ['kip848', 'listed'],
      includeAuthorizedOperations: false,
    });
    assert.equal(d.groups[0].groupState, 'Stable');
    assert.equal(d.groups[0].groupEpoch, 3);
    assert.equal(d.groups[0].members.length, 2);
    assert.equal(d.groups[0].members[0].assignment.topicPartitions[0].topicName, 'cg-topic');
    assert.equal(d.groups[1].errorCode, E.GROUP_ID_NOT_FOUND);
    const lg = await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ['consumer'] });
    assert.deepEqual(
      lg.groups.map((g) => [g.groupId, g.groupState, g.groupType, g.protocolType]),
      [['kip848', 'Stable', 'consumer', 'consumer']],
    );
    const commit = await c.request(ApiKey.OffsetCommit, 9, { ...commitBody('kip848', 3, bId, 5n, 'cg-topic') });
    assert.equal(commit.topics[0].partitions[0].errorCode, E.NONE);
    const stale = await c.request(ApiKey.OffsetCommit, 9, { ...commitBody('kip848', 2, bId, 5n, 'cg-topic') });
    assert.equal(stale.topics[0].partitions[0].errorCode, E.STALE_MEMBER_EPOCH);
    const fetched = await c.request(ApiKey.OffsetFetch, 9, {
      groups: [{ groupId: 'kip848', memberId: bId, memberEpoch: 3, topics: null }],
      requireStable: false,
    });
    assert.equal(fetched.groups[0].topics[0].partitions[0].committedOffset, 5n);
    const left = await hb(0, { memberId: a.memberId, memberEpoch: -1 });
    assert.equal(left.memberEpoch, -1);
    const b3 = await hb(1, { memberId: bId, memberEpoch: 3, topicPartitions: b2.assignment?.topicPartitions });
    assert.equal(b3.memberEpoch, 4);
    assert.deepEqual(b3.assignment?.topicPartitions[0].partitions, [0, 1, 2, 3]);
  },
);

test('the records in __consumer_offsets decode with the record schemas', { timeout: 60_000 }, async () => {
  const p = coordinatorPartition('kip848', 50);
  const r = await c.request(ApiKey.Fetch, 12, {
    clusterId: null,
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 10 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: '__consumer_offsets',
        partitions: [
          {
            partition: p,
            currentLeaderEpoch: -1,
            fetchOffset: 0n,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 10 << 20,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
  const data = r.responses[0].partitions[0];
  assert.equal(data.errorCode, E.NONE);
  const records: CoordinatorRecord[] = [];
  const bytes = data.records as Buffer; // a decoded response's records are the received bytes
  for (const entry of iterateBatches(bytes)) {
    const batch = await decodeBatch(bytes, entry.position);
    for (const rec of batch.records) records.push(decodeRecord(rec.key!, rec.value)!);
  }
  const mine = records.filter((x) => x.group === 'kip848');
  const types = new Set(mine.map((x) => x.type));
  for (const t of [
    'ConsumerGroupMetadata',
    'ConsumerGroupPartitionMetadata',
    'ConsumerGroupMemberMetadata',
    'ConsumerGroupTargetAssignmentMetadata',
    'ConsumerGroupTargetAssignmentMember',
    'ConsumerGroupCurrentMemberAssignment',
    'OffsetCommit',
  ])
    assert.ok(types.has(t as CoordinatorRecord['type']), t);
  const epochs = mine
    .filter((x) => x.type === 'ConsumerGroupMetadata')
    .map((x) => (x.value as { epoch: number }).epoch);
  assert.deepEqual(epochs, [2, 3, 4]);
  const tombstones = mine.filter((x) => x.value === null).map((x) => x.type);
  assert.deepEqual(tombstones, [
    'ConsumerGroupCurrentMemberAssignment',
    'ConsumerGroupTargetAssignmentMember',
    'ConsumerGroupMemberMetadata',
  ]);
});

test(
  'resilience: unknown groups, bad group ids, deleted topics, a member vanishing mid-rebalance; a bystander group is untouched',
  { timeout: 60_000 },
  async () => {
    const bystander = await joinAt(c, 9, 'bystander', { session: 30_000 });
    await syncAt(c, 5, 'bystander', 1, bystander.memberId, []);
    for (let v = 0; v <= 4; v++) {
      const h = await c.request(ApiKey.Heartbeat, v, {
        groupId: 'never-heard-of',
        generationId: 1,
        memberId: 'm',
        groupInstanceId: null,
      });
      assert.equal(h.errorCode, E.UNKNOWN_MEMBER_ID, `Heartbeat v${v}`);
    }
    assert.equal((await joinAt(c, 9, '')).errorCode, E.INVALID_GROUP_ID);
    assert.equal(
      (
        await c.request(ApiKey.SyncGroup, 5, {
          groupId: 'nope',
          generationId: 1,
          memberId: 'm',
          groupInstanceId: null,
          protocolType: 'consumer',
          protocolName: 'range',
          assignments: [],
        })
      ).errorCode,
      E.UNKNOWN_MEMBER_ID,
    );
    // v5 without protocol type and name: refused before the group is looked at (KafkaApis,
    // SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent; compared with Kafka 4.4.0 in
    // test/interop/acl-checks-groups-kafka.test.ts)
    assert.equal(
      (
        await c.request(ApiKey.SyncGroup, 5, {
          groupId: 'nope',
          generationId: 1,
          memberId: 'm',
          groupInstanceId: null,
          protocolType: null,
          protocolName: null,
          assignments: [],
        })
      ).errorCode,
      E.INCONSISTENT_GROUP_PROTOCOL,
    );
    const long = 'L'.repeat(10_000);
    const lj = await joinAt(c, 9, long, { rebalance: 500 });
    assert.equal(lj.errorCode, E.NONE);
    const dup = await joinAt(c, 9, long, { rebalance: 500 });
    assert.equal(dup.errorCode, E.NONE, 'a second member joins too (rebalance completes with both)');
    // commit for a topic that is then deleted
    assert.equal(
      (await c.request(ApiKey.OffsetCommit, 8, commitBody('doomed-g', -1, '', 9n, 'doomed'))).topics[0].partitions[0]
        .errorCode,
      E.NONE,
    );
    const del = await c.request(ApiKey.DeleteTopics, 6, {
      topics: [{ name: 'doomed', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      topicNames: [],
      timeoutMs: 10000,
    });
    assert.equal(del.responses[0].errorCode, E.NONE);
    assert.equal(
      (await c.request(ApiKey.OffsetCommit, 8, commitBody('doomed-g', -1, '', 10n, 'doomed'))).topics[0].partitions[0]
        .errorCode,
      E.UNKNOWN_TOPIC_OR_PARTITION,
    );
    let remaining: ApiResponse<typeof ApiKey.OffsetFetch>['topics'] = [];
    await waitFor(
      async () => {
        remaining = (
          await c.request(ApiKey.OffsetFetch, 7, { groupId: 'doomed-g', topics: null, requireStable: false })
        ).topics;
        return remaining.length === 0;
      },
      { what: 'the offsets of the deleted topic to go', timeoutMs: 5000 },
    ).catch(() => undefined); // the assertion below shows what is left
    assert.deepEqual(remaining, [], 'offsets of a deleted topic are removed');

    // a member disappears while its JoinGroup is parked: it never syncs, is dropped, the group moves on
    const ca = await RawClient.connect(broker.port);
    const cb = await RawClient.connect(broker.port);
    try {
      const a = await joinAt(ca, 9, 'vanish', { session: 3000, rebalance: 1000 });
      await syncAt(ca, 5, 'vanish', 1, a.memberId, [{ memberId: a.memberId, assignment: Buffer.from('A') }]);
      const first = await cb.request(ApiKey.JoinGroup, 9, {
        groupId: 'vanish',
        sessionTimeoutMs: 3000,
        rebalanceTimeoutMs: 1000,
        memberId: '',
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: SUB }],
        reason: null,
      });
      void cb
        .request(ApiKey.JoinGroup, 9, {
          groupId: 'vanish',
          sessionTimeoutMs: 3000,
          rebalanceTimeoutMs: 1000,
          memberId: first.memberId,
          groupInstanceId: null,
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: SUB }],
          reason: null,
        })
        .catch(() => undefined);
      // b's JoinGroup is parked once the group prepares a rebalance
      await waitFor(
        async () =>
          (await ca.request(ApiKey.DescribeGroups, 5, { groups: ['vanish'], includeAuthorizedOperations: false }))
            .groups[0].groupState === 'PreparingRebalance',
        { what: 'group vanish to prepare a rebalance', timeoutMs: 10_000 },
      );
      cb.close();
      const hb = await ca.request(ApiKey.Heartbeat, 4, {
        groupId: 'vanish',
        generationId: 1,
        memberId: a.memberId,
        groupInstanceId: null,
      });
      assert.equal(hb.errorCode, E.REBALANCE_IN_PROGRESS);
      const a2 = await joinAt(ca, 9, 'vanish', { session: 3000, rebalance: 1000, memberId: a.memberId });
      assert.equal(a2.generationId, 2);
      assert.equal(a2.members.length, 2, 'the vanished member had joined');
      await syncAt(ca, 5, 'vanish', 2, a.memberId, [{ memberId: a.memberId, assignment: Buffer.from('A2') }]);
      const gen3 = await waitFor(
        async () => {
          const h = await ca.request(ApiKey.Heartbeat, 4, {
            groupId: 'vanish',
            generationId: 2,
            memberId: a.memberId,
            groupInstanceId: null,
          });
          return h.errorCode === E.REBALANCE_IN_PROGRESS;
        },
        { what: 'a rebalance after the member that never synced is dropped', timeoutMs: 4000, intervalMs: 100 },
      ).catch(() => false);
      assert.ok(gen3, 'the member that never synced is removed and the group rebalances');
      const a3 = await joinAt(ca, 9, 'vanish', { session: 3000, rebalance: 1000, memberId: a.memberId });
      assert.equal(a3.generationId, 3);
      assert.deepEqual(
        a3.members.map((m) => m.memberId),
        [a.memberId],
      );
    } finally {
      ca.close();
    }
    const bh = await c.request(ApiKey.Heartbeat, 4, {
      groupId: 'bystander',
      generationId: 1,
      memberId: bystander.memberId,
      groupInstanceId: null,
    });
    assert.equal(bh.errorCode, E.NONE, 'the bystander is unaffected');
  },
);

test(
  'a Stable group and its offsets survive a restart; its member heartbeats on as if nothing happened',
  { timeout: 60_000 },
  async () => {
    const j = await joinAt(c, 9, 'survivor', { session: 60_000 });
    await syncAt(c, 5, 'survivor', 1, j.memberId, [{ memberId: j.memberId, assignment: Buffer.from('keep') }]);
    await c.request(ApiKey.OffsetCommit, 9, commitBody('survivor', 1, j.memberId, 77n));
    c.close();
    await broker.restart();
    c = await RawClient.connect(broker.port);
    let d: ApiResponse<typeof ApiKey.DescribeGroups>['groups'][number] | undefined;
    await waitFor(
      async () => {
        [d] = (
          await c.request(ApiKey.DescribeGroups, 5, { groups: ['survivor'], includeAuthorizedOperations: false })
        ).groups;
        if (d?.errorCode === E.NONE) return true;
        assert.equal(d?.errorCode, E.COORDINATOR_LOAD_IN_PROGRESS);
        return false;
      },
      { what: 'group survivor to load after the restart', timeoutMs: 5000 },
    ).catch(() => undefined); // the assertions below say what was found
    assert.equal(d?.groupState, 'Stable');
    assert.equal(d?.members[0]?.memberId, j.memberId);
    assert.equal(Buffer.from(d?.members[0]?.memberAssignment ?? []).toString(), 'keep');
    const h = await c.request(ApiKey.Heartbeat, 4, {
      groupId: 'survivor',
      generationId: 1,
      memberId: j.memberId,
      groupInstanceId: null,
    });
    assert.equal(h.errorCode, E.NONE);
    const s = await syncAt(c, 5, 'survivor', 1, j.memberId);
    assert.equal(Buffer.from(s.assignment).toString(), 'keep');
    const f = await c.request(ApiKey.OffsetFetch, 8, {
      groups: [{ groupId: 'survivor', memberId: null, memberEpoch: -1, topics: null }],
      requireStable: false,
    });
    assert.equal(f.groups[0].topics[0].partitions[0].committedOffset, 77n);
    const kip = await c.request(ApiKey.ConsumerGroupDescribe, 0, {
      groupIds: ['kip848'],
      includeAuthorizedOperations: false,
    });
    assert.equal(kip.groups[0].groupEpoch, 4, 'the KIP-848 group came back too');
  },
);
