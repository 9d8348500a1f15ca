// Share groups (KIP-932) in the group coordinator, in memory: ShareGroupHeartbeat's validation, joining,
// the initialization of share-partition state through the persister before partitions are assigned,
// the simple assignor (several members per partition), epochs and fencing, leaving and session expiry
// with the ShareGroupListener, the group max size, groups of other types, describe, list, delete, and
// reload from the log. Cases after Kafka 4.4's GroupMetadataManagerTest share tests and ShareGroupTest.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { decodeRecord } from '../src/broker/group/records.js';
import { simpleAssign } from '../src/broker/group/share-assignor.js';
import type { ShareHeartbeatRequest } from '../src/broker/group/share-ops.js';
import type { Persister, PersisterResult, SharePartitionKey, ShareGroupListener } from '../src/broker/share/types.js';
import { harness, INFO, join, type Harness } from './helpers/group-harness.js';
import { waitFor } from './helpers/wait-for.js';
import { DEFAULT_GROUP_CONFIG, type GroupConfig } from '../src/broker/group/config.js';
import { validateGroupConfigs } from '../src/broker/group/group-configs.js';

const E = ErrorCode;

/** An in-memory persister: records every call; `failNext` makes initializations fail. */
class FakePersister implements Persister {
  readonly initialized = new Map<string, { stateEpoch: number; startOffset: bigint }>();
  readonly deleted: string[] = [];
  failInitialize = 0;
  static key = (k: SharePartitionKey) => `${k.groupId}/${k.topicId}/${k.partition}`;

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<PersisterResult> {
    if (this.failInitialize > 0) {
      this.failInitialize--;
      return { errorCode: E.COORDINATOR_NOT_AVAILABLE, errorMessage: 'share coordinator unavailable' };
    }
    this.initialized.set(FakePersister.key(key), { stateEpoch, startOffset });
    return { errorCode: E.NONE, errorMessage: null };
  }
  async readState() {
    return { errorCode: E.NONE, errorMessage: null, stateEpoch: 0, startOffset: -1n, stateBatches: [] };
  }
  async writeState(): Promise<PersisterResult> {
    return { errorCode: E.NONE, errorMessage: null };
  }
  async deleteState(key: SharePartitionKey): Promise<PersisterResult> {
    this.deleted.push(FakePersister.key(key));
    this.initialized.delete(FakePersister.key(key));
    return { errorCode: E.NONE, errorMessage: null };
  }
  async readSummary(key: SharePartitionKey) {
    const s = this.initialized.get(FakePersister.key(key));
    if (!s)
      return {
        errorCode: E.UNKNOWN_TOPIC_OR_PARTITION,
        errorMessage: 'no state',
        stateEpoch: 0,
        leaderEpoch: 0,
        startOffset: -1n,
        deliveryCompleteCount: 0,
      };
    return {
      errorCode: E.NONE,
      errorMessage: null,
      stateEpoch: s.stateEpoch,
      leaderEpoch: 3,
      startOffset: s.startOffset,
      deliveryCompleteCount: 0,
    };
  }
}

class RecordingListener implements ShareGroupListener {
  readonly events: string[] = [];
  onMemberLeave(groupId: string, memberId: string): void {
    this.events.push(`leave:${groupId}:${memberId}`);
  }
  onGroupEmpty(groupId: string): void {
    this.events.push(`empty:${groupId}`);
  }
}

interface Ctx {
  h: Harness;
  persister: FakePersister;
  listener: RecordingListener;
}

async function setup(overrides: Partial<GroupConfig> = {}): Promise<Ctx> {
  const persister = new FakePersister();
  const listener = new RecordingListener();
  const h = await harness(overrides, undefined, { persister, shareListener: listener });
  return { h, persister, listener };
}

const hb = (groupId: string, memberId: string, memberEpoch: number, o: Partial<ShareHeartbeatRequest> = {}) => ({
  groupId,
  memberId,
  memberEpoch,
  rackId: null,
  subscribedTopicNames: null,
  ...o,
});
const joinReq = (groupId: string, memberId: string, topics: string[]) =>
  hb(groupId, memberId, 0, { subscribedTopicNames: topics });

const parts = (a: { topicPartitions: { partitions: number[] }[] } | null) =>
  a ? a.topicPartitions.flatMap((tp) => tp.partitions).sort((x, y) => x - y) : null;

/** Joins, waits for the state initialization, heartbeats once more: the member's answer with its partitions. */
async function joinAndAssign(c: Ctx, groupId: string, memberId: string, topics: string[]) {
  const j = await c.h.gc.shareGroupHeartbeat(joinReq(groupId, memberId, topics), INFO);
  assert.equal(j.errorCode, E.NONE, j.errorMessage ?? '');
  await c.h.gc.settleShareInitializations();
  const r = await c.h.gc.shareGroupHeartbeat(hb(groupId, memberId, j.memberEpoch), INFO);
  assert.equal(r.errorCode, E.NONE, r.errorMessage ?? '');
  return r;
}

test('ShareGroupHeartbeat validation: Kafka 4.4 messages as INVALID_REQUEST', async () => {
  const { h } = await setup();
  try {
    const cases: [ShareHeartbeatRequest, string][] = [
      [hb('g', '', 0, { subscribedTopicNames: ['t'] }), "MemberId can't be empty."],
      [hb('', 'm', 0, { subscribedTopicNames: ['t'] }), "GroupId can't be empty."],
      [hb('g', 'm', 0, { subscribedTopicNames: ['t'], rackId: ' ' }), "RackId can't be empty."],
      [hb('g', 'm', 0), 'SubscribedTopicNames must be set in first request.'],
      [hb('g', 'm', 0, { subscribedTopicNames: [] }), 'SubscribedTopicNames must be set in first request.'],
      [hb('g', 'm', -2), 'MemberEpoch is invalid.'],
    ];
    for (const [req, msg] of cases) {
      const r = await h.gc.shareGroupHeartbeat(req, INFO);
      assert.equal(r.errorCode, E.INVALID_REQUEST, msg);
      assert.equal(r.errorMessage, msg);
      assert.equal(r.memberId, null);
    }
  } finally {
    await h.close();
  }
});

test('a member joins with epoch 0: epoch 2 (a new group is at 1) and no partitions until their state is initialized (start offset -1, state epoch = group epoch)', async () => {
  const c = await setup();
  try {
    const t = c.h.addTopic('queue', 3);
    const j = await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'member-a', ['queue']), INFO);
    assert.equal(j.errorCode, E.NONE, j.errorMessage ?? '');
    assert.equal(j.memberId, 'member-a');
    assert.equal(j.memberEpoch, 2);
    assert.equal(j.heartbeatIntervalMs, 5000);
    assert.deepEqual(parts(j.assignment), [], 'the answer to a join carries the (empty) assignment');
    await c.h.gc.settleShareInitializations();
    for (let p = 0; p < 3; p++)
      assert.deepEqual(c.persister.initialized.get(`sg/${t.id}/${p}`), { stateEpoch: 2, startOffset: -1n });
    // the initialized partitions wait for an assignment: the next heartbeat bumps the epoch and assigns them
    const r = await c.h.gc.shareGroupHeartbeat(hb('sg', 'member-a', 2), INFO);
    assert.equal(r.memberEpoch, 3);
    assert.deepEqual(parts(r.assignment), [0, 1, 2]);
    // steady: same epoch, no assignment in the answer
    const s = await c.h.gc.shareGroupHeartbeat(hb('sg', 'member-a', 3), INFO);
    assert.equal(s.memberEpoch, 3);
    assert.equal(s.assignment, null);
    const [d] = await c.h.gc.shareGroupDescribe(['sg']);
    assert.equal(d!.errorCode, E.NONE);
    assert.equal(d!.groupState, 'Stable');
    assert.equal(d!.groupEpoch, 3);
    assert.equal(d!.assignmentEpoch, 3);
    assert.equal(d!.assignorName, 'simple');
    assert.equal(d!.members.length, 1);
    assert.deepEqual(d!.members[0]!.subscribedTopicNames, ['queue']);
    assert.equal(d!.members[0]!.clientId, 'test-client');
    assert.equal(d!.members[0]!.clientHost, '/127.0.0.1');
    assert.deepEqual(d!.members[0]!.assignment.topicPartitions, [
      { topicId: t.id, topicName: 'queue', partitions: [0, 1, 2] },
    ]);
  } finally {
    await c.h.close();
  }
});

test('several members share partitions: 3 members on 2 partitions all get one, every partition is consumed', async () => {
  const c = await setup();
  try {
    c.h.addTopic('queue', 2);
    await joinAndAssign(c, 'sg', 'a', ['queue']);
    await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'b', ['queue']), INFO);
    await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'c', ['queue']), INFO);
    const answers = new Map<string, number[]>();
    for (const m of ['a', 'b', 'c']) {
      // each member heartbeats with its current epoch (rejoin with 0 is also accepted)
      const r = await c.h.gc.shareGroupHeartbeat(hb('sg', m, 0, { subscribedTopicNames: ['queue'] }), INFO);
      assert.equal(r.errorCode, E.NONE, r.errorMessage ?? '');
      answers.set(m, parts(r.assignment)!);
    }
    const [d] = await c.h.gc.shareGroupDescribe(['sg']);
    for (const m of d!.members)
      assert.equal(m.memberEpoch, d!.assignmentEpoch, `member ${m.memberId} is at the target epoch`);
    const all = d!.members.flatMap((m) => m.assignment.topicPartitions.flatMap((tp) => tp.partitions));
    assert.equal(all.length, 4, 'desired sharing 2 x 2 partitions');
    assert.deepEqual([...new Set(all)].sort(), [0, 1]);
    for (const m of d!.members) assert.ok(m.assignment.topicPartitions.flatMap((tp) => tp.partitions).length >= 1);
  } finally {
    await c.h.close();
  }
});

test('the simple assignor: balanced counts, sticky, only initialized partitions', () => {
  const t = 'T';
  const m = (ids: string[], current: Record<string, number[]> = {}) =>
    new Map(
      ids.map((id) => [id, { subscribedTopicIds: new Set([t]), current: new Map([[t, new Set(current[id] ?? [])]]) }]),
    );
  const six = new Map([[t, new Set([0, 1, 2, 3, 4, 5])]]);
  const a = simpleAssign({ members: m(['a', 'b']), assignable: six });
  assert.equal(a.get('a')!.get(t)!.size + a.get('b')!.get(t)!.size, 6);
  assert.equal(a.get('a')!.get(t)!.size, 3);
  // a third member: the first two keep what they can
  const prev = { a: [...a.get('a')!.get(t)!], b: [...a.get('b')!.get(t)!] };
  const b = simpleAssign({ members: m(['a', 'b', 'c'], prev), assignable: six });
  for (const id of ['a', 'b', 'c']) assert.equal(b.get(id)!.get(t)!.size, 2, id);
  for (const id of ['a', 'b'] as const)
    for (const p of b.get(id)!.get(t)!) assert.ok(prev[id].includes(p), `${id} keeps ${p}`);
  // 5 members, 2 partitions: each partition shared by 3 members
  const c = simpleAssign({ members: m(['a', 'b', 'c', 'd', 'e']), assignable: new Map([[t, new Set([0, 1])]]) });
  const counts = [0, 1].map((p) => [...c.values()].filter((x) => x.get(t)?.has(p)).length);
  assert.deepEqual(counts, [3, 3]);
  // nothing initialized: nothing assigned
  const d = simpleAssign({ members: m(['a']), assignable: new Map() });
  assert.equal(d.get('a')!.size, 0);
});

test('epochs: unknown member, greater epoch, smaller epoch that is not the previous one', async () => {
  const c = await setup();
  try {
    c.h.addTopic('queue', 2);
    const r = await joinAndAssign(c, 'sg', 'a', ['queue']);
    assert.equal(r.memberEpoch, 3);
    const unknown = await c.h.gc.shareGroupHeartbeat(hb('sg', 'zz', 3), INFO);
    assert.equal(unknown.errorCode, E.UNKNOWN_MEMBER_ID);
    assert.equal(unknown.errorMessage, 'Member zz is not a member of group sg.');
    const greater = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 5), INFO);
    assert.equal(greater.errorCode, E.FENCED_MEMBER_EPOCH);
    assert.equal(
      greater.errorMessage,
      'The share group member has a greater member epoch (5) than the one known by the group coordinator (3). The member must abandon all its partitions and rejoin.',
    );
    // the previous epoch (2) is accepted (a lost response), 0 rejoins
    assert.equal((await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 2), INFO)).errorCode, E.NONE);
    // another epoch: 3 → 4 after another member joins, then 2 is neither current nor previous
    await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'b', ['queue']), INFO);
    const a4 = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 3), INFO);
    assert.equal(a4.memberEpoch, 4);
    const smaller = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 2), INFO);
    assert.equal(smaller.errorCode, E.FENCED_MEMBER_EPOCH);
    assert.equal(
      smaller.errorMessage,
      'The share group member has a smaller member epoch (2) than the one known by the group coordinator (4), and it does not match the previous member epoch (3). The member must abandon all its partitions and rejoin.',
    );
    const missing = await c.h.gc.shareGroupHeartbeat(hb('nope', 'a', 1), INFO);
    assert.equal(missing.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(missing.errorMessage, 'Share group nope not found.');
  } finally {
    await c.h.close();
  }
});

test('leaving with epoch -1: the epoch moves, the listener hears of the member and of the empty group', async () => {
  const c = await setup();
  try {
    c.h.addTopic('queue', 2);
    await joinAndAssign(c, 'sg', 'a', ['queue']);
    await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'b', ['queue']), INFO);
    const leaveB = await c.h.gc.shareGroupHeartbeat(hb('sg', 'b', -1), INFO);
    assert.equal(leaveB.errorCode, E.NONE);
    assert.equal(leaveB.memberId, 'b');
    assert.equal(leaveB.memberEpoch, -1);
    assert.deepEqual(c.listener.events, ['leave:sg:b']);
    const [d1] = await c.h.gc.shareGroupDescribe(['sg']);
    assert.equal(d1!.members.length, 1);
    assert.equal(d1!.groupEpoch, 5, 'join of b bumped to 4, its leave to 5');
    // a's next heartbeat: the group epoch (5) is ahead of the assignment epoch (4), so the target is
    // computed again and a gets both partitions
    const a = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 3), INFO);
    assert.equal(a.memberEpoch, 5);
    // a never took b's target (it did not heartbeat in between): its partitions did not change, none are sent
    assert.equal(a.assignment, null);
    const [da] = await c.h.gc.shareGroupDescribe(['sg']);
    assert.deepEqual(parts(da!.members[0]!.assignment), [0, 1]);
    const leaveA = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', -1), INFO);
    assert.equal(leaveA.memberEpoch, -1);
    assert.deepEqual(c.listener.events, ['leave:sg:b', 'leave:sg:a', 'empty:sg']);
    const [d2] = await c.h.gc.shareGroupDescribe(['sg']);
    assert.equal(d2!.groupState, 'Empty');
    assert.equal(d2!.groupEpoch, 6);
    assert.equal(d2!.assignmentEpoch, 6);
    const again = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', -1), INFO);
    assert.equal(again.errorCode, E.UNKNOWN_MEMBER_ID);
  } finally {
    await c.h.close();
  }
});

test('a member whose session expires is fenced and the listener is told', async () => {
  const c = await setup({ shareSessionTimeoutMs: 150, shareMinSessionTimeoutMs: 100, shareMaxSessionTimeoutMs: 1000 });
  try {
    c.h.addTopic('queue', 1);
    await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'a', ['queue']), INFO);
    await waitFor(() => c.listener.events.includes('empty:sg'), { what: 'member a fenced', timeoutMs: 10_000 });
    assert.deepEqual(c.listener.events, ['leave:sg:a', 'empty:sg']);
    const [d] = await c.h.gc.shareGroupDescribe(['sg']);
    assert.equal(d!.groupState, 'Empty');
    const r = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 1), INFO);
    assert.equal(r.errorCode, E.UNKNOWN_MEMBER_ID);
  } finally {
    await c.h.close();
  }
});

test('group.share.max.size: GROUP_MAX_SIZE_REACHED with Kafka message; known members still heartbeat', async () => {
  const c = await setup({ shareMaxSize: 1 });
  try {
    c.h.addTopic('queue', 1);
    const a = await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'a', ['queue']), INFO);
    assert.equal(a.errorCode, E.NONE);
    const b = await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'b', ['queue']), INFO);
    assert.equal(b.errorCode, E.GROUP_MAX_SIZE_REACHED);
    assert.equal(b.errorMessage, 'The share group has reached its maximum capacity of 1 members.');
    assert.equal((await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', a.memberEpoch), INFO)).errorCode, E.NONE);
  } finally {
    await c.h.close();
  }
});

test('groups of another type: share heartbeat, consumer heartbeat and JoinGroup answer as Kafka 4.4', async () => {
  const c = await setup();
  try {
    c.h.addTopic('queue', 1);
    const cg = await c.h.gc.consumerGroupHeartbeat(
      {
        groupId: 'cg',
        memberId: 'm1',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 5000,
        subscribedTopicNames: ['queue'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      },
      INFO,
    );
    assert.equal(cg.errorCode, E.NONE);
    const s = await c.h.gc.shareGroupHeartbeat(joinReq('cg', 'x', ['queue']), INFO);
    assert.equal(s.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(s.errorMessage, 'Group cg is not a share group.');
    const [d] = await c.h.gc.shareGroupDescribe(['cg']);
    assert.equal(d!.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(d!.errorMessage, 'Group cg is not a share group.');

    await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'a', ['queue']), INFO);
    const ch = await c.h.gc.consumerGroupHeartbeat(
      {
        groupId: 'sg',
        memberId: 'm1',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 5000,
        subscribedTopicNames: ['queue'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      },
      INFO,
    );
    assert.equal(ch.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(ch.errorMessage, 'Group sg is not a consumer group.');
    const jg = await join(c.h, 'sg');
    assert.equal(jg.errorCode, E.INCONSISTENT_GROUP_PROTOCOL);
    const [cd] = await c.h.gc.consumerGroupDescribe(['sg']);
    assert.deepEqual([cd!.errorCode, cd!.errorMessage], [E.GROUP_ID_NOT_FOUND, 'Group sg is not a consumer group.']);
    // OffsetCommit / OffsetFetch to a share group: ShareGroup.validateOffsetCommit / validateOffsetFetch
    const fetched = await c.h.gc.fetchOffsets({ groupId: 'sg', memberId: null, memberEpoch: -1, topics: null });
    assert.equal(fetched.errorCode, E.GROUP_ID_NOT_FOUND);
    const [missing] = await c.h.gc.shareGroupDescribe(['none']);
    assert.equal(missing!.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(missing!.errorMessage, 'Group none not found.');
    const [empty] = await c.h.gc.shareGroupDescribe(['']);
    assert.equal(empty!.errorCode, E.INVALID_GROUP_ID);
  } finally {
    await c.h.close();
  }
});

test('a failed initialization is requested again; partitions added later start at offset 0', async () => {
  const c = await setup();
  try {
    const t = c.h.addTopic('queue', 2);
    c.persister.failInitialize = 2;
    const j = await c.h.gc.shareGroupHeartbeat(joinReq('sg', 'a', ['queue']), INFO);
    await c.h.gc.settleShareInitializations();
    assert.equal(c.persister.initialized.size, 0);
    // nothing initialized: nothing assigned; the next heartbeat asks again
    const r1 = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', j.memberEpoch), INFO);
    assert.equal(r1.assignment, null);
    await c.h.gc.settleShareInitializations();
    assert.equal(c.persister.initialized.size, 2);
    const r2 = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', r1.memberEpoch), INFO);
    assert.deepEqual(parts(r2.assignment), [0, 1]);
    // the topic grows: the new partition is initialized at offset 0 and then assigned
    c.h.addTopic('queue', 3, t.id);
    const r3 = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', r2.memberEpoch), INFO);
    await c.h.gc.settleShareInitializations();
    assert.equal(c.persister.initialized.get(`sg/${t.id}/2`)!.startOffset, 0n);
    const r4 = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', r3.memberEpoch), INFO);
    assert.deepEqual(parts(r4.assignment), [0, 1, 2]);
  } finally {
    await c.h.close();
  }
});

test('ListGroups shows the share type, DescribeGroups calls it not classic, DeleteGroups deletes its state', async () => {
  const c = await setup();
  try {
    const t = c.h.addTopic('queue', 2);
    await joinAndAssign(c, 'sg', 'a', ['queue']);
    const listed = await c.h.gc.listGroups([], ['share']);
    assert.deepEqual(listed.groups, [
      { groupId: 'sg', protocolType: 'share', groupState: 'Stable', groupType: 'share' },
    ]);
    assert.deepEqual((await c.h.gc.listGroups([], ['consumer'])).groups, []);
    const [dg] = await c.h.gc.describeGroups(['sg'], 6);
    assert.equal(dg!.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(dg!.errorMessage, 'Group sg is not a classic group.');
    assert.deepEqual(await c.h.gc.deleteGroups(['sg']), [{ groupId: 'sg', errorCode: E.NON_EMPTY_GROUP }]);
    await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', 2), INFO).then((r) => assert.equal(r.errorCode, E.NONE));
    await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', -1), INFO);
    assert.deepEqual(await c.h.gc.deleteGroups(['sg']), [{ groupId: 'sg', errorCode: E.NONE }]);
    assert.deepEqual(c.persister.deleted.sort(), [`sg/${t.id}/0`, `sg/${t.id}/1`]);
    const [gone] = await c.h.gc.shareGroupDescribe(['sg']);
    assert.equal(gone!.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.deepEqual((await c.h.gc.listGroups([], [])).groups, []);
  } finally {
    await c.h.close();
  }
});

test('the share-group records are written to __consumer_offsets and a reload restores the group', async () => {
  const c = await setup();
  try {
    const t = c.h.addTopic('queue', 2);
    const r = await joinAndAssign(c, 'sg', 'a', ['queue']);
    const types = new Set<string>();
    for (const recs of c.h.log.partitions.values())
      for (const rec of recs) {
        const d = decodeRecord(rec.key, rec.value);
        if (d && d.group === 'sg') types.add(d.type);
      }
    assert.deepEqual([...types].sort(), [
      'ShareGroupCurrentMemberAssignment',
      'ShareGroupMemberMetadata',
      'ShareGroupMetadata',
      'ShareGroupStatePartitionMetadata',
      'ShareGroupTargetAssignmentMember',
      'ShareGroupTargetAssignmentMetadata',
    ]);
    const h2 = await c.h.restart();
    try {
      const [d] = await h2.gc.shareGroupDescribe(['sg']);
      assert.equal(d!.errorCode, E.NONE);
      assert.equal(d!.groupEpoch, r.memberEpoch);
      assert.equal(d!.members[0]!.memberEpoch, r.memberEpoch);
      assert.deepEqual(d!.members[0]!.assignment.topicPartitions, [
        { topicId: t.id, topicName: 'queue', partitions: [0, 1] },
      ]);
      // the member continues with its epoch; no new initialization is needed
      const again = await h2.gc.shareGroupHeartbeat(hb('sg', 'a', r.memberEpoch), INFO);
      assert.equal(again.errorCode, E.NONE);
      assert.equal(again.memberEpoch, r.memberEpoch);
      assert.equal(h2.gc.pendingInitializations.size, 0);
    } finally {
      await h2.close();
    }
  } finally {
    await c.h.close();
  }
});

test('share-group offsets: describe through the persister, alter and delete only when the group is empty', async () => {
  const c = await setup();
  try {
    const t = c.h.addTopic('queue', 2);
    await joinAndAssign(c, 'sg', 'a', ['queue']);
    // describe: every initialized partition (topics null), a named topic, an unknown topic
    const all = await c.h.gc.describeShareGroupOffsets('sg', null);
    assert.equal(all.errorCode, E.NONE);
    assert.deepEqual(
      all.topics.map((x) => [
        x.topicName,
        x.topicId,
        x.partitions.map((p) => [p.partitionIndex, p.startOffset, p.leaderEpoch]),
      ]),
      [
        [
          'queue',
          t.id,
          [
            [0, -1n, 3],
            [1, -1n, 3],
          ],
        ],
      ],
    );
    const named = await c.h.gc.describeShareGroupOffsets('sg', [
      { topicName: 'queue', partitions: [1] },
      { topicName: 'nope', partitions: [0] },
    ]);
    assert.deepEqual(
      named.topics.map((x) => [
        x.topicName,
        x.topicId,
        x.partitions.map((p) => [p.partitionIndex, p.startOffset, p.errorCode]),
      ]),
      [
        ['queue', t.id, [[1, -1n, E.NONE]]],
        ['nope', 'AAAAAAAAAAAAAAAAAAAAAA', [[0, -1n, E.NONE]]],
      ],
    );
    assert.equal((await c.h.gc.describeShareGroupOffsets('missing', null)).errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal((await c.h.gc.describeShareGroupOffsets('', null)).errorCode, E.INVALID_GROUP_ID);

    // alter and delete need an empty group
    const busy = await c.h.gc.alterShareGroupOffsets('sg', [
      { topicName: 'queue', partitions: [{ partitionIndex: 0, startOffset: 5n }] },
    ]);
    assert.deepEqual([busy.errorCode, busy.errorMessage], [E.NON_EMPTY_GROUP, 'The group is not empty.']);
    assert.equal((await c.h.gc.deleteShareGroupOffsets('sg', ['queue'])).errorCode, E.NON_EMPTY_GROUP);
    await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', -1), INFO);

    const alter = await c.h.gc.alterShareGroupOffsets('sg', [
      {
        topicName: 'queue',
        partitions: [
          { partitionIndex: 0, startOffset: 5n },
          { partitionIndex: 7, startOffset: 1n },
        ],
      },
      { topicName: 'nope', partitions: [{ partitionIndex: 0, startOffset: 1n }] },
    ]);
    assert.equal(alter.errorCode, E.NONE);
    assert.deepEqual(
      alter.responses.map((x) => [x.topicName, x.partitions.map((p) => [p.partitionIndex, p.errorCode])]),
      [
        [
          'queue',
          [
            [0, E.NONE],
            [7, E.UNKNOWN_TOPIC_OR_PARTITION],
          ],
        ],
        ['nope', [[0, E.UNKNOWN_TOPIC_OR_PARTITION]]],
      ],
    );
    assert.equal(c.persister.initialized.get(`sg/${t.id}/0`)!.startOffset, 5n);
    const after = await c.h.gc.describeShareGroupOffsets('sg', null);
    assert.deepEqual(
      after.topics[0]!.partitions.map((p) => p.startOffset),
      [5n, -1n],
    );

    const del = await c.h.gc.deleteShareGroupOffsets('sg', ['queue', 'nope']);
    assert.equal(del.errorCode, E.NONE);
    assert.deepEqual(del.responses.map((x) => [x.topicName, x.errorCode]).sort(), [
      ['nope', E.UNKNOWN_TOPIC_OR_PARTITION],
      ['queue', E.NONE],
    ]);
    assert.deepEqual(c.persister.deleted.sort(), [`sg/${t.id}/0`, `sg/${t.id}/1`]);
    assert.deepEqual((await c.h.gc.describeShareGroupOffsets('sg', null)).topics, []);
    const again = await c.h.gc.deleteShareGroupOffsets('sg', ['queue']);
    assert.deepEqual(
      again.responses.map((x) => [x.errorCode, x.errorMessage]),
      [[E.UNKNOWN_TOPIC_OR_PARTITION, 'There is no offset information to delete.']],
    );
  } finally {
    await c.h.close();
  }
});

test('share.* group configs: validated as Kafka 4.4 GroupConfig.validate', () => {
  const v = (o: Record<string, string>) => validateGroupConfigs(new Map(Object.entries(o)), DEFAULT_GROUP_CONFIG);
  assert.equal(v({ 'share.auto.offset.reset': 'earliest', 'share.isolation.level': 'read_committed' }), null);
  assert.equal(v({ 'share.auto.offset.reset': 'by_duration:PT1H30M' }), null);
  assert.equal(v({ 'share.record.lock.duration.ms': '15000', 'share.delivery.count.limit': '10' }), null);
  assert.equal(
    v({ 'share.auto.offset.reset': 'none' }),
    "Invalid value none for configuration share.auto.offset.reset: Invalid value `none` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.",
  );
  assert.equal(
    v({ 'share.isolation.level': 'x' }),
    'Invalid value x for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted',
  );
  assert.equal(
    v({ 'share.record.lock.duration.ms': '500' }),
    'Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000',
  );
  assert.equal(
    v({ 'share.record.lock.duration.ms': '70000' }),
    'share.record.lock.duration.ms must be in the range 15000 to 60000 inclusive.',
  );
  assert.equal(
    v({ 'share.delivery.count.limit': '11' }),
    'share.delivery.count.limit must be in the range 2 to 10 inclusive.',
  );
  assert.equal(v({ 'share.session.timeout.ms': '45000', 'share.heartbeat.interval.ms': '15000' }), null);
  assert.equal(
    v({
      'share.heartbeat.interval.ms': '15000',
      'share.session.timeout.ms': '45000',
      'consumer.session.timeout.ms': '45000',
      'consumer.heartbeat.interval.ms': '15000',
    }),
    null,
  );
  assert.equal(v({ 'share.unknown': '1' }), 'Unknown group config name: share.unknown');
});

test("a group's share.heartbeat.interval.ms applies to its members", async () => {
  const persister = new FakePersister();
  const overrides = new Map([['sg', new Map([['share.heartbeat.interval.ms', '7000']])]]);
  const h = await harness({}, undefined, { persister });
  // the harness's metadata view has no group configs: give it some
  (h.gc.opts.metadata as { groupConfigs?: (g: string) => ReadonlyMap<string, string> | undefined }).groupConfigs = (
    g,
  ) => overrides.get(g);
  try {
    h.addTopic('queue', 1);
    const r = await h.gc.shareGroupHeartbeat(joinReq('sg', 'a', ['queue']), INFO);
    assert.equal(r.heartbeatIntervalMs, 7000);
    const other = await h.gc.shareGroupHeartbeat(joinReq('sg2', 'a', ['queue']), INFO);
    assert.equal(other.heartbeatIntervalMs, 5000);
  } finally {
    await h.close();
  }
});

test('a deleted topic leaves the share groups: its state metadata is dropped and the epoch moves', async () => {
  const c = await setup();
  try {
    c.h.addTopic('queue', 2);
    const r = await joinAndAssign(c, 'sg', 'a', ['queue']);
    assert.deepEqual(parts(r.assignment), [0, 1]);
    c.h.topics.delete('queue');
    await c.h.gc.onTopicsDeleted(['queue']);
    c.h.gc.onTopicsChanged();
    assert.deepEqual((await c.h.gc.describeShareGroupOffsets('sg', null)).topics, []);
    const after = await c.h.gc.shareGroupHeartbeat(hb('sg', 'a', r.memberEpoch), INFO);
    assert.equal(after.memberEpoch, r.memberEpoch + 1);
    assert.deepEqual(parts(after.assignment), []);
  } finally {
    await c.h.close();
  }
});
