// The KIP-848 consumer group protocol in memory: joining with epoch 0, the group epoch and target
// assignment, reconciliation (revoke before assign, unreleased partitions), fencing, leaving,
// session timeouts, server-side assignors, persistence and reload, offsets with member epochs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { coordinatorPartition } from '../src/protocol/partitioner.js';
import { decodeRecord } from '../src/broker/group/records.js';
import { rangeAssign, uniformAssign } from '../src/broker/group/assignors.js';
import type { HeartbeatRequest } from '../src/broker/group/consumer-ops.js';
import { harness, INFO, type Harness } from './helpers/group-harness.js';
import { waitFor } from './helpers/wait-for.js';

const E = ErrorCode;

function hb(groupId: string, o: Partial<HeartbeatRequest>): HeartbeatRequest {
  return {
    groupId,
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
  };
}

const joinHb = (groupId: string, topics: string[], o: Partial<HeartbeatRequest> = {}) =>
  hb(groupId, { memberEpoch: 0, rebalanceTimeoutMs: 5000, subscribedTopicNames: topics, topicPartitions: [], ...o });

const parts = (a: { topicPartitions: { topicId: string; partitions: number[] }[] } | null) =>
  a ? a.topicPartitions.flatMap((tp) => tp.partitions).sort((x, y) => x - y) : null;

async function setup(): Promise<{ h: Harness; topicId: string }> {
  const h = await harness();
  const t = h.addTopic('orders', 6);
  return { h, topicId: t.id };
}

test('a member joins with epoch 0: a member id, epoch 2, every partition; a second member splits them by revoke-then-assign', async () => {
  const { h, topicId } = await setup();
  try {
    const a = await h.gc.consumerGroupHeartbeat(joinHb('cg', ['orders']), INFO);
    assert.equal(a.errorCode, E.NONE, a.errorMessage ?? '');
    assert.equal(a.memberId!.length, 22);
    assert.equal(a.memberEpoch, 2);
    assert.equal(a.heartbeatIntervalMs, 5000);
    assert.deepEqual(parts(a.assignment), [0, 1, 2, 3, 4, 5]);
    const owned = [{ topicId, partitions: [0, 1, 2, 3, 4, 5] }];
    // steady heartbeat: no assignment in the answer
    const steady = await h.gc.consumerGroupHeartbeat(hb('cg', { memberId: a.memberId!, memberEpoch: 2 }), INFO);
    assert.equal(steady.memberEpoch, 2);
    assert.equal(steady.assignment, null);

    const b = await h.gc.consumerGroupHeartbeat(joinHb('cg', ['orders']), INFO);
    assert.equal(b.memberEpoch, 3);
    assert.deepEqual(parts(b.assignment), [], 'b waits until a releases its partitions');
    const d1 = await h.gc.consumerGroupDescribe(['cg']);
    assert.equal(d1[0]!.groupState, 'Reconciling');
    assert.equal(d1[0]!.groupEpoch, 3);
    // a is asked to revoke three partitions and stays at epoch 2
    const a2 = await h.gc.consumerGroupHeartbeat(
      hb('cg', { memberId: a.memberId!, memberEpoch: 2, topicPartitions: owned }),
      INFO,
    );
    assert.equal(a2.memberEpoch, 2);
    assert.equal(parts(a2.assignment)!.length, 3);
    const kept = a2.assignment!.topicPartitions;
    // a acknowledges the revocation: epoch 3
    const a3 = await h.gc.consumerGroupHeartbeat(
      hb('cg', { memberId: a.memberId!, memberEpoch: 2, topicPartitions: kept }),
      INFO,
    );
    assert.equal(a3.memberEpoch, 3);
    // b now gets the released partitions
    const b2 = await h.gc.consumerGroupHeartbeat(
      hb('cg', { memberId: b.memberId!, memberEpoch: 3, topicPartitions: [] }),
      INFO,
    );
    assert.equal(b2.memberEpoch, 3);
    const all = [...parts(a2.assignment)!, ...parts(b2.assignment)!].sort((x, y) => x - y);
    assert.deepEqual(all, [0, 1, 2, 3, 4, 5], 'every partition owned by exactly one member');
    const d2 = await h.gc.consumerGroupDescribe(['cg']);
    assert.equal(d2[0]!.groupState, 'Stable');
    assert.equal(d2[0]!.assignorName, 'uniform');
    const listed = await h.gc.listGroups([], ['consumer']);
    assert.deepEqual(listed.groups, [
      { groupId: 'cg', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
    ]);
  } finally {
    await h.close();
  }
});

test('epochs are guarded: FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, GROUP_ID_NOT_FOUND, INVALID_REQUEST, UNSUPPORTED_ASSIGNOR', async () => {
  const { h } = await setup();
  try {
    const a = await h.gc.consumerGroupHeartbeat(joinHb('cf', ['orders']), INFO);
    const r1 = await h.gc.consumerGroupHeartbeat(hb('cf', { memberId: a.memberId!, memberEpoch: 5 }), INFO);
    assert.equal(r1.errorCode, E.FENCED_MEMBER_EPOCH);
    const r2 = await h.gc.consumerGroupHeartbeat(hb('cf', { memberId: 'nope', memberEpoch: 1 }), INFO);
    assert.equal(r2.errorCode, E.UNKNOWN_MEMBER_ID);
    const r3 = await h.gc.consumerGroupHeartbeat(hb('no-such', { memberId: 'x', memberEpoch: 1 }), INFO);
    assert.equal(r3.errorCode, E.GROUP_ID_NOT_FOUND);
    const r4 = await h.gc.consumerGroupHeartbeat(
      hb('cf', { memberEpoch: 0, rebalanceTimeoutMs: 5000, subscribedTopicNames: null, topicPartitions: [] }),
      INFO,
    );
    assert.equal(r4.errorCode, E.INVALID_REQUEST);
    assert.equal(
      r4.errorMessage,
      'Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.',
    );
    const r5 = await h.gc.consumerGroupHeartbeat(joinHb('cf', ['orders'], { serverAssignor: 'sticky' }), INFO);
    assert.equal(r5.errorCode, E.UNSUPPORTED_ASSIGNOR);
    const r6 = await h.gc.consumerGroupHeartbeat(joinHb('', ['orders']), INFO);
    assert.equal(r6.errorCode, E.INVALID_REQUEST);
    // the member itself was not disturbed
    const ok = await h.gc.consumerGroupHeartbeat(hb('cf', { memberId: a.memberId!, memberEpoch: 2 }), INFO);
    assert.equal(ok.errorCode, E.NONE);
    // a classic group with members that does not use the consumer embedded protocol is not upgraded
    const { join } = await import('./helpers/group-harness.js');
    await join(h, 'classic-one', { protocolType: 'connect' });
    const r7 = await h.gc.consumerGroupHeartbeat(joinHb('classic-one', ['orders']), INFO);
    assert.equal(r7.errorCode, E.GROUP_ID_NOT_FOUND);
  } finally {
    await h.close();
  }
});

test('leaving (-1) bumps the group epoch and frees the partitions; session timeout fences a silent member', async () => {
  const h = await harness({ consumerSessionTimeoutMs: 200 });
  h.addTopic('orders', 4);
  try {
    const a = await h.gc.consumerGroupHeartbeat(joinHb('cl', ['orders']), INFO);
    const b = await h.gc.consumerGroupHeartbeat(joinHb('cl', ['orders']), INFO);
    const left = await h.gc.consumerGroupHeartbeat(hb('cl', { memberId: b.memberId!, memberEpoch: -1 }), INFO);
    assert.equal(left.memberEpoch, -1);
    const d = await h.gc.consumerGroupDescribe(['cl']);
    assert.equal(d[0]!.groupEpoch, 4);
    assert.equal((d[0]!.members as unknown[]).length, 1);
    const a2 = await h.gc.consumerGroupHeartbeat(
      hb('cl', { memberId: a.memberId!, memberEpoch: 2, topicPartitions: a.assignment!.topicPartitions }),
      INFO,
    );
    assert.equal(a2.memberEpoch, 4);
    assert.equal(a2.assignment, null, 'a never gave anything up: its assignment did not change');
    // a goes silent: its session times out and the group empties
    await waitFor(async () => (await h.gc.consumerGroupDescribe(['cl']))[0]!.groupState === 'Empty', {
      what: 'group cl to be Empty after the silent member expires',
      timeoutMs: 5000,
    });
    const r = await h.gc.consumerGroupHeartbeat(hb('cl', { memberId: a.memberId!, memberEpoch: 4 }), INFO);
    assert.equal(r.errorCode, E.UNKNOWN_MEMBER_ID);
  } finally {
    await h.close();
  }
});

test('the range assignor on request; static members leave with -2 and keep their assignment', async () => {
  const { h } = await setup();
  try {
    const a = await h.gc.consumerGroupHeartbeat(
      joinHb('cr', ['orders'], { serverAssignor: 'range', instanceId: 'i-1' }),
      INFO,
    );
    assert.equal(a.errorCode, E.NONE, a.errorMessage ?? '');
    const d = await h.gc.consumerGroupDescribe(['cr']);
    assert.equal(d[0]!.assignorName, 'range');
    const tmp = await h.gc.consumerGroupHeartbeat(
      hb('cr', { memberId: a.memberId!, memberEpoch: -2, instanceId: 'i-1' }),
      INFO,
    );
    assert.equal(tmp.memberEpoch, -2);
    // another member may not take the instance id while... it was released with -2: it may
    const back = await h.gc.consumerGroupHeartbeat(
      joinHb('cr', ['orders'], { instanceId: 'i-1', serverAssignor: 'range' }),
      INFO,
    );
    assert.equal(back.errorCode, E.NONE, back.errorMessage ?? '');
    assert.notEqual(back.memberId, a.memberId);
    // it takes over the old member's epoch and assignment: no group epoch bump, nothing to rebalance
    assert.equal(back.memberEpoch, a.memberEpoch);
    assert.deepEqual(parts(back.assignment), [0, 1, 2, 3, 4, 5]);
    const d2 = await h.gc.consumerGroupDescribe(['cr']);
    assert.equal(d2[0]!.groupEpoch, 2);
    assert.equal((d2[0]!.members as unknown[]).length, 1);
    const dup = await h.gc.consumerGroupHeartbeat(joinHb('cr', ['orders'], { instanceId: 'i-1' }), INFO);
    assert.equal(dup.errorCode, E.UNRELEASED_INSTANCE_ID);
  } finally {
    await h.close();
  }
});

test('consumer group records decode and a restart restores epochs, members and assignments', async () => {
  const { h, topicId } = await setup();
  const a = await h.gc.consumerGroupHeartbeat(joinHb('cp', ['orders']), INFO);
  const p = coordinatorPartition('cp', 4);
  const types = h.log.partitions.get(p)!.map((r) => decodeRecord(r.key, r.value)!.type);
  assert.deepEqual(types, [
    'ConsumerGroupMemberMetadata',
    'ConsumerGroupPartitionMetadata',
    'ConsumerGroupMetadata',
    'ConsumerGroupTargetAssignmentMember',
    'ConsumerGroupTargetAssignmentMetadata',
    'ConsumerGroupCurrentMemberAssignment',
  ]);
  await h.gc.commitOffsets(
    {
      groupId: 'cp',
      generationIdOrMemberEpoch: 2,
      memberId: a.memberId!,
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 'orders',
          partitions: [{ partitionIndex: 2, committedOffset: 11n, committedLeaderEpoch: 0, committedMetadata: '' }],
        },
      ],
    },
    9,
  );
  await assert.rejects(
    h.gc.commitOffsets(
      {
        groupId: 'cp',
        generationIdOrMemberEpoch: 7,
        memberId: a.memberId!,
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [],
      },
      9,
    ),
    (e: { code: number }) => e.code === E.STALE_MEMBER_EPOCH,
  );
  await assert.rejects(
    h.gc.commitOffsets(
      {
        groupId: 'cp',
        generationIdOrMemberEpoch: 1,
        memberId: a.memberId!,
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [],
      },
      8,
    ),
    (e: { code: number }) => e.code === E.UNSUPPORTED_VERSION,
  );
  const stale = await h.gc.fetchOffsets({ groupId: 'cp', memberId: a.memberId!, memberEpoch: 9, topics: null });
  assert.equal(stale.errorCode, E.STALE_MEMBER_EPOCH);
  const h2 = await h.restart();
  try {
    const d = await h2.gc.consumerGroupDescribe(['cp']);
    assert.equal(d[0]!.groupEpoch, 2);
    assert.equal(d[0]!.assignmentEpoch, 2);
    assert.equal(d[0]!.groupState, 'Stable');
    const m = (
      d[0]!.members as {
        memberId: string;
        memberEpoch: number;
        assignment: { topicPartitions: { topicId: string; topicName: string; partitions: number[] }[] };
      }[]
    )[0]!;
    assert.equal(m.memberId, a.memberId);
    assert.deepEqual(m.assignment.topicPartitions, [{ topicId, topicName: 'orders', partitions: [0, 1, 2, 3, 4, 5] }]);
    const again = await h2.gc.consumerGroupHeartbeat(hb('cp', { memberId: a.memberId!, memberEpoch: 2 }), INFO);
    assert.equal(again.errorCode, E.NONE);
    const f = await h2.gc.fetchOffsets({
      groupId: 'cp',
      memberId: a.memberId!,
      memberEpoch: 2,
      topics: [{ name: 'orders', partitionIndexes: [2] }],
    });
    assert.equal(f.topics[0]!.partitions[0]!.committedOffset, 11n);
    // leave and delete: tombstones remove the group on the next load
    await h2.gc.consumerGroupHeartbeat(hb('cp', { memberId: a.memberId!, memberEpoch: -1 }), INFO);
    assert.deepEqual(await h2.gc.deleteGroups(['cp']), [{ groupId: 'cp', errorCode: E.NONE }]);
    const h3 = await h2.restart();
    assert.deepEqual((await h3.gc.listGroups([], [])).groups, []);
    await h3.close();
  } finally {
    await h2.close().catch(() => undefined);
  }
});

test('new partitions of a subscribed topic are assigned on the next heartbeat', async () => {
  const { h } = await setup();
  try {
    const a = await h.gc.consumerGroupHeartbeat(joinHb('cn', ['orders', 'later']), INFO);
    assert.deepEqual(parts(a.assignment), [0, 1, 2, 3, 4, 5]);
    h.addTopic('later', 2);
    const r = await h.gc.consumerGroupHeartbeat(hb('cn', { memberId: a.memberId!, memberEpoch: 2 }), INFO);
    assert.equal(r.memberEpoch, 3);
    assert.equal(parts(r.assignment)!.length, 8);
  } finally {
    await h.close();
  }
});

test('assignors: uniform is balanced and sticky, range gives contiguous ranges', () => {
  const members = new Map([
    ['a', { subscribedTopicIds: new Set(['T']), current: new Map([['T', new Set([0, 1, 2, 3, 4, 5])]]) }],
    ['b', { subscribedTopicIds: new Set(['T']), current: new Map() }],
    ['c', { subscribedTopicIds: new Set(['T']), current: new Map() }],
  ]);
  const u = uniformAssign({ members, topics: new Map([['T', 6]]) });
  const sizes = [...u.values()].map((a) => a.get('T')?.size ?? 0);
  assert.deepEqual(sizes, [2, 2, 2]);
  assert.ok([...u.get('a')!.get('T')!].every((p) => [0, 1, 2, 3, 4, 5].includes(p)));
  const all = [...u.values()].flatMap((a) => [...(a.get('T') ?? [])]).sort();
  assert.deepEqual(all, [0, 1, 2, 3, 4, 5]);
  // sticky: a keeps two of its own
  assert.deepEqual([...u.get('a')!.get('T')!].sort(), [0, 1]);
  const r = rangeAssign({ members, topics: new Map([['T', 7]]) });
  assert.deepEqual([...r.get('a')!.get('T')!], [0, 1, 2]);
  assert.deepEqual([...r.get('b')!.get('T')!], [3, 4]);
  assert.deepEqual([...r.get('c')!.get('T')!], [5, 6]);
  // heterogeneous subscriptions
  const het = uniformAssign({
    members: new Map([
      ['a', { subscribedTopicIds: new Set(['T', 'U']), current: new Map() }],
      ['b', { subscribedTopicIds: new Set(['U']), current: new Map() }],
    ]),
    topics: new Map([
      ['T', 2],
      ['U', 2],
    ]),
  });
  assert.equal(het.get('a')!.get('T')!.size, 2);
  assert.equal(het.get('b')!.get('U')!.size, 2);
});

test('a regex resolution is written, again when topics change, tombstoned on leave', async () => {
  const { h } = await setup();
  try {
    h.addTopic('rx-a', 2);
    const p = coordinatorPartition('crx', 4);
    const regexRecords = () =>
      h.log.partitions
        .get(p)!
        .map((r) => decodeRecord(r.key, r.value)!)
        .filter((r) => r.type === 'ConsumerGroupRegularExpression');
    const a = await h.gc.consumerGroupHeartbeat(
      hb('crx', {
        memberEpoch: 0,
        rebalanceTimeoutMs: 5000,
        subscribedTopicRegex: 'rx-.*',
        topicPartitions: [],
      }),
      INFO,
    );
    assert.equal(a.errorCode, E.NONE, a.errorMessage ?? '');
    const types = h.log.partitions.get(p)!.map((r) => decodeRecord(r.key, r.value)!.type);
    assert.deepEqual(
      types.slice(0, 4),
      [
        'ConsumerGroupMemberMetadata',
        'ConsumerGroupRegularExpression',
        'ConsumerGroupPartitionMetadata',
        'ConsumerGroupMetadata',
      ],
      'the resolution before the subscription metadata',
    );
    const first = regexRecords();
    assert.equal(first.length, 1);
    assert.deepEqual(first[0]!.type === 'ConsumerGroupRegularExpression' && first[0]!.value!.topics, ['rx-a']);
    // a steady heartbeat does not resolve again
    await h.gc.consumerGroupHeartbeat(hb('crx', { memberId: a.memberId!, memberEpoch: a.memberEpoch }), INFO);
    assert.equal(regexRecords().length, 1);
    h.addTopic('rx-b', 1);
    h.addTopic('other', 1);
    const b = await h.gc.consumerGroupHeartbeat(hb('crx', { memberId: a.memberId!, memberEpoch: a.memberEpoch }), INFO);
    assert.equal(b.memberEpoch, a.memberEpoch + 1, 'the new matching topic bumps the group epoch');
    const second = regexRecords();
    assert.equal(second.length, 2);
    const v = (r: (typeof second)[number]) => (r.type === 'ConsumerGroupRegularExpression' ? r.value : null);
    assert.deepEqual(v(second[1]!)!.topics, ['rx-a', 'rx-b']);
    assert.ok(v(second[1]!)!.version > v(second[0]!)!.version, 'resolved at a newer metadata version');
    // a restart replays the resolution: the next heartbeat keeps the epoch and writes no new resolution
    const h2 = await h.restart();
    try {
      const beat = hb('crx', { memberId: a.memberId!, memberEpoch: b.memberEpoch });
      const again = await h2.gc.consumerGroupHeartbeat(beat, INFO);
      assert.equal(again.memberEpoch, b.memberEpoch);
      assert.equal(regexRecords().length, 2);
      // until topics change again
      h2.addTopic('rx-c', 1);
      const c = await h2.gc.consumerGroupHeartbeat(beat, INFO);
      assert.equal(c.memberEpoch, b.memberEpoch + 1);
      assert.deepEqual(v(regexRecords()[2]!)!.topics, ['rx-a', 'rx-b', 'rx-c']);
      await h2.gc.consumerGroupHeartbeat(hb('crx', { memberId: a.memberId!, memberEpoch: -1 }), INFO);
      const last = regexRecords().at(-1)!;
      const tombstone = { type: 'ConsumerGroupRegularExpression', group: 'crx', regularExpression: 'rx-.*' };
      assert.deepEqual(last, { ...tombstone, value: null });
    } finally {
      await h2.close();
    }
  } finally {
    await h.close().catch(() => undefined);
  }
});

test("rack ids are kept on the members (ConsumerGroupDescribe) and, as Kafka 4.4's uniform and range assignors (which read no rack), do not steer the assignment", async () => {
  const racked = await harness();
  const plain = await harness();
  racked.addTopic('orders', 6);
  plain.addTopic('orders', 6);
  try {
    for (const assignor of ['uniform', 'range']) {
      const g = `rack-${assignor}`;
      const parts_ = async (h: Harness, racks: (string | null)[]) => {
        const ids: string[] = [];
        for (const rackId of racks) {
          const r = await h.gc.consumerGroupHeartbeat(
            joinHb(g, ['orders'], { rackId, serverAssignor: assignor }),
            INFO,
          );
          assert.equal(r.errorCode, E.NONE, r.errorMessage ?? '');
          ids.push(r.memberId!);
        }
        const d = await h.gc.consumerGroupDescribe([g]);
        const members = d[0]!.members as {
          memberId: string;
          rackId: string | null;
          targetAssignment: { topicPartitions: { partitions: number[] }[] };
        }[];
        return members
          .map((m) => ({
            index: ids.indexOf(m.memberId),
            rackId: m.rackId,
            target: m.targetAssignment.topicPartitions.flatMap((tp) => tp.partitions).sort((a, b) => a - b),
          }))
          .sort((a, b) => a.index - b.index);
      };
      const withRacks = await parts_(racked, ['rack-a', 'rack-b', 'rack-c']);
      const without = await parts_(plain, [null, null, null]);
      assert.deepEqual(
        withRacks.map((m) => m.rackId),
        ['rack-a', 'rack-b', 'rack-c'],
      );
      assert.equal(withRacks.flatMap((m) => m.target).length, 6);
      // the same members in the same order get the same shares with or without racks (ids differ, sizes match)
      assert.deepEqual(
        withRacks.map((m) => m.target.length),
        without.map((m) => m.target.length),
      );
    }
  } finally {
    await racked.close();
    await plain.close();
  }
});
