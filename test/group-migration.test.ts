// KIP-848 online migration in memory: a classic group becomes a consumer group when a member joins with
// ConsumerGroupHeartbeat (its members keep their assignments as classic members), classic members
// rejoin / sync / heartbeat / leave inside the consumer group, and the group goes back to classic when its
// last consumer-protocol member leaves; group.consumer.migration.policy gates both directions; the records
// written make a restart restore the same group.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { coordinatorPartition } from '../src/protocol/partitioner.js';
import { decodeRecord, type CoordinatorRecord } from '../src/broker/group/records.js';
import { encodeAssignment, encodeSubscription, parseAssignment } from '../src/broker/group/consumer-protocol.js';
import type { HeartbeatRequest } from '../src/broker/group/consumer-ops.js';
import type { GroupConfig } from '../src/broker/group/config.js';
import { harness, join, INFO, type Harness } from './helpers/group-harness.js';

const E = ErrorCode;

const protocols = (topics: string[]) => [{ name: 'range', metadata: encodeSubscription(topics) }];

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

const joinHb = (groupId: string, topics: string[]) =>
  hb(groupId, { memberEpoch: 0, rebalanceTimeoutMs: 5000, subscribedTopicNames: topics, topicPartitions: [] });

const sorted = (ps: number[]) => [...ps].sort((a, b) => a - b);

function groupOf(h: Harness, groupId: string) {
  return h.gc.shardFor(groupId).groups.get(groupId);
}

function records(h: Harness, groupId: string): CoordinatorRecord[] {
  const p = coordinatorPartition(groupId, h.config.offsetsTopicPartitions);
  return (h.log.partitions.get(p) ?? []).map((r) => decodeRecord(r.key, r.value)!).filter((r) => r.group === groupId);
}

/** A Stable classic group of one member owning every partition of `orders` (generation 1). */
async function classicGroup(h: Harness, groupId: string, partitions: number[]) {
  const j = await join(h, groupId, { protocols: protocols(['orders']) });
  assert.equal(j.errorCode, E.NONE);
  const s = await h.gc.syncGroup({
    groupId,
    generationId: j.generationId,
    memberId: j.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [{ memberId: j.memberId, assignment: encodeAssignment(new Map([['orders', partitions]])) }],
  });
  assert.equal(s.errorCode, E.NONE);
  return { memberId: j.memberId, generation: j.generationId };
}

/** A classic member's rejoin and sync inside the (consumer) group: its generation and partitions. */
async function classicRejoin(h: Harness, groupId: string, memberId: string) {
  const j = await h.gc.joinGroup(
    {
      groupId,
      memberId,
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 5_000,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: protocols(['orders']),
    },
    INFO,
  );
  assert.equal(j.errorCode, E.NONE);
  const s = await h.gc.syncGroup({
    groupId,
    generationId: j.generationId,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: j.protocolName,
    assignments: [],
  });
  return { join: j, sync: s, partitions: sorted(parseAssignment(s.assignment).get('orders') ?? []) };
}

const classicHeartbeat = (h: Harness, groupId: string, memberId: string, generationId: number) =>
  h.gc.heartbeat({ groupId, memberId, generationId, groupInstanceId: null });

async function upgraded(overrides: Partial<GroupConfig> = {}) {
  const h = await harness(overrides);
  const t = h.addTopic('orders', 4);
  const c = await classicGroup(h, 'mig', [0, 1, 2, 3]);
  const k = await h.gc.consumerGroupHeartbeat(joinHb('mig', ['orders']), INFO);
  return { h, topicId: t.id, c, k };
}

test('online upgrade: a consumer-protocol member joins a Stable classic group, which becomes a consumer group keeping the classic member and its assignment', async () => {
  const { h, topicId, c, k } = await upgraded();
  try {
    assert.equal(k.errorCode, E.NONE, k.errorMessage ?? '');
    assert.equal(k.memberEpoch, 2, 'the group epoch continues from the classic generation');
    assert.deepEqual(k.assignment!.topicPartitions, [], 'the partitions are still owned by the classic member');
    const g = groupOf(h, 'mig');
    assert.equal(g?.type, 'consumer');
    if (g?.type !== 'consumer') return;
    const cm = g.members.get(c.memberId)!;
    assert.equal(cm.memberEpoch, 1);
    assert.equal(cm.classicMemberMetadata!.sessionTimeoutMs, 10_000);
    assert.deepEqual(cm.classicMemberMetadata!.supportedProtocols[0]!.name, 'range');
    assert.deepEqual(sorted([...cm.assignedPartitions.get(topicId)!]), [0, 1, 2, 3]);
    // the records: the classic group's tombstone, then the consumer group with the classic member
    const rs = records(h, 'mig');
    const tomb = rs.findIndex((r) => r.type === 'GroupMetadata' && r.value === null);
    assert.ok(tomb > 0, 'GroupMetadata tombstone written');
    const member = rs.slice(tomb).find((r) => r.type === 'ConsumerGroupMemberMetadata' && r.memberId === c.memberId);
    assert.ok(member && member.type === 'ConsumerGroupMemberMetadata' && member.value?.classicMemberMetadata);
    const listed = await h.gc.listGroups([], []);
    assert.deepEqual(
      listed.groups.filter((x) => x.groupId === 'mig').map((x) => x.groupType),
      ['consumer'],
    );
  } finally {
    await h.close();
  }
});

test('mixed group: the classic member is told REBALANCE_IN_PROGRESS, rejoins at the new epoch and gets its half by SyncGroup; the consumer member gets the other half once released', async () => {
  const { h, topicId, c, k } = await upgraded();
  try {
    assert.equal(await classicHeartbeat(h, 'mig', c.memberId, 1), E.REBALANCE_IN_PROGRESS);
    assert.equal(await classicHeartbeat(h, 'mig', c.memberId, 0), E.ILLEGAL_GENERATION);
    const r = await classicRejoin(h, 'mig', c.memberId);
    assert.equal(r.join.generationId, 2);
    assert.equal(r.join.protocolName, 'range');
    assert.equal(r.join.leader, '');
    assert.equal(r.sync.errorCode, E.NONE);
    assert.equal(r.partitions.length, 2);
    assert.equal(await classicHeartbeat(h, 'mig', c.memberId, 2), E.NONE);
    const k2 = await h.gc.consumerGroupHeartbeat(
      hb('mig', { memberId: k.memberId!, memberEpoch: 2, topicPartitions: [] }),
      INFO,
    );
    const mine = sorted(k2.assignment!.topicPartitions.find((tp) => tp.topicId === topicId)!.partitions);
    assert.equal(mine.length, 2);
    assert.deepEqual(sorted([...mine, ...r.partitions]), [0, 1, 2, 3], 'disjoint halves covering the topic');
    // a classic member's offset commit is checked against its epoch as a generation
    await assert.rejects(
      h.gc.commitOffsets(
        {
          groupId: 'mig',
          generationIdOrMemberEpoch: 1,
          memberId: c.memberId,
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: 'orders',
              partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }],
            },
          ],
        },
        8,
      ),
      (e: { code?: number }) => e.code === E.ILLEGAL_GENERATION,
    );
  } finally {
    await h.close();
  }
});

test('a classic LeaveGroup inside the consumer group removes the member and bumps the epoch; the consumer member then takes everything', async () => {
  const { h, topicId, c, k } = await upgraded();
  try {
    const left = await h.gc.leaveGroup('mig', [{ memberId: c.memberId, groupInstanceId: null }]);
    assert.deepEqual(
      left.members.map((m) => m.errorCode),
      [E.NONE],
    );
    const unknown = await h.gc.leaveGroup('mig', [{ memberId: k.memberId!, groupInstanceId: null }]);
    assert.deepEqual(
      unknown.members.map((m) => m.errorCode),
      [E.UNKNOWN_MEMBER_ID],
      'not a classic member',
    );
    const k2 = await h.gc.consumerGroupHeartbeat(
      hb('mig', { memberId: k.memberId!, memberEpoch: 2, topicPartitions: [] }),
      INFO,
    );
    assert.equal(k2.memberEpoch, 3);
    assert.deepEqual(
      sorted(k2.assignment!.topicPartitions.find((tp) => tp.topicId === topicId)!.partitions),
      [0, 1, 2, 3],
    );
    assert.equal(groupOf(h, 'mig')?.type, 'consumer', 'a consumer group of consumer members stays one');
  } finally {
    await h.close();
  }
});

test('online downgrade: when the last consumer-protocol member leaves, the classic members form a classic group that rebalances', async () => {
  const { h, c, k } = await upgraded();
  try {
    const r = await classicRejoin(h, 'mig', c.memberId);
    const left = await h.gc.consumerGroupHeartbeat(hb('mig', { memberId: k.memberId!, memberEpoch: -1 }), INFO);
    assert.equal(left.errorCode, E.NONE);
    const g = groupOf(h, 'mig');
    assert.equal(g?.type, 'classic');
    if (g?.type !== 'classic') return;
    assert.equal(g.state, 'PreparingRebalance');
    assert.equal(g.generationId, 2);
    assert.deepEqual([...g.members.keys()], [c.memberId]);
    assert.deepEqual(sorted(parseAssignment(g.members.get(c.memberId)!.assignment).get('orders')!), r.partitions);
    const rs = records(h, 'mig');
    const last = rs.filter((x) => x.type === 'GroupMetadata').at(-1)!;
    assert.ok(last.type === 'GroupMetadata' && last.value?.members.length === 1, 'the classic group is written');
    assert.ok(
      rs.some((x) => x.type === 'ConsumerGroupMetadata' && x.value === null),
      'consumer group tombstoned',
    );
    // the classic member rejoins the classic group as usual
    assert.equal(await classicHeartbeat(h, 'mig', c.memberId, 2), E.REBALANCE_IN_PROGRESS);
    const j = await h.gc.joinGroup(
      {
        groupId: 'mig',
        memberId: c.memberId,
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 5_000,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: protocols(['orders']),
      },
      INFO,
    );
    assert.equal(j.errorCode, E.NONE);
    assert.equal(j.generationId, 3);
    assert.equal(j.leader, c.memberId);
    // and the group reloads as that classic group
    const h2 = await h.restart();
    try {
      const g2 = groupOf(h2, 'mig');
      assert.equal(g2?.type, 'classic');
    } finally {
      await h2.close();
    }
  } finally {
    await h.close().catch(() => undefined);
  }
});

test('a restart after the upgrade restores the consumer group with its classic member (ClassicMemberMetadata)', async () => {
  const { h, c } = await upgraded();
  const h2 = await h.restart();
  try {
    const g = groupOf(h2, 'mig');
    assert.equal(g?.type, 'consumer');
    if (g?.type !== 'consumer') return;
    assert.equal(g.groupEpoch, 2);
    assert.equal(g.members.size, 2);
    assert.equal(g.members.get(c.memberId)!.classicMemberMetadata!.sessionTimeoutMs, 10_000);
    assert.equal(await classicHeartbeat(h2, 'mig', c.memberId, 1), E.REBALANCE_IN_PROGRESS);
  } finally {
    await h2.close();
  }
});

test('group.consumer.migration.policy: disabled refuses the upgrade (GROUP_ID_NOT_FOUND); upgrade alone keeps a group of classic members a consumer group', async () => {
  const off = await upgraded({ consumerMigrationPolicy: 'disabled' });
  try {
    assert.equal(off.k.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(groupOf(off.h, 'mig')?.type, 'classic');
  } finally {
    await off.h.close();
  }
  const up = await upgraded({ consumerMigrationPolicy: 'upgrade' });
  try {
    assert.equal(up.k.errorCode, E.NONE);
    await up.h.gc.consumerGroupHeartbeat(hb('mig', { memberId: up.k.memberId!, memberEpoch: -1 }), INFO);
    const g = groupOf(up.h, 'mig');
    assert.equal(g?.type, 'consumer', 'no downgrade under the upgrade policy');
    assert.equal(g?.type === 'consumer' ? g.members.size : 0, 1);
  } finally {
    await up.h.close();
  }
});

test('a classic member joining a consumer group waits for unreleased partitions: NONE while they are owned, REBALANCE_IN_PROGRESS once released, then its share by rejoin', async () => {
  const h = await harness();
  const t = h.addTopic('orders', 4);
  try {
    const k = await h.gc.consumerGroupHeartbeat(joinHb('mixed', ['orders']), INFO);
    assert.deepEqual(sorted(k.assignment!.topicPartitions[0]!.partitions), [0, 1, 2, 3]);
    const first = await h.gc.joinGroup(
      {
        groupId: 'mixed',
        memberId: '',
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 5_000,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocols: protocols(['orders']),
      },
      INFO,
    );
    assert.equal(first.errorCode, E.MEMBER_ID_REQUIRED, 'v4+: the member id first, as in a classic group');
    const c = await classicRejoin(h, 'mixed', first.memberId);
    assert.equal(c.join.generationId, 3);
    assert.deepEqual(c.partitions, [], 'nothing is free yet');
    assert.equal(await classicHeartbeat(h, 'mixed', first.memberId, 3), E.NONE, 'waiting on the owner');
    // the consumer member revokes two partitions
    const k2 = await h.gc.consumerGroupHeartbeat(
      hb('mixed', { memberId: k.memberId!, memberEpoch: 2, topicPartitions: k.assignment!.topicPartitions }),
      INFO,
    );
    const kept = k2.assignment!.topicPartitions;
    assert.equal(kept[0]!.partitions.length, 2);
    await h.gc.consumerGroupHeartbeat(
      hb('mixed', { memberId: k.memberId!, memberEpoch: 2, topicPartitions: kept }),
      INFO,
    );
    assert.equal(await classicHeartbeat(h, 'mixed', first.memberId, 3), E.REBALANCE_IN_PROGRESS, 'released');
    const c2 = await classicRejoin(h, 'mixed', first.memberId);
    assert.equal(c2.partitions.length, 2);
    assert.deepEqual(sorted([...c2.partitions, ...kept[0]!.partitions]), [0, 1, 2, 3]);
    assert.equal(await classicHeartbeat(h, 'mixed', first.memberId, c2.join.generationId), E.NONE);
    const g = groupOf(h, 'mixed');
    assert.equal(g?.type === 'consumer' ? g.members.get(first.memberId)!.assignedPartitions.get(t.id)!.size : -1, 2);
  } finally {
    await h.close();
  }
});

test('a static member rejoining with the classic protocol in place of the last consumer-protocol member turns the group classic, keeping its assignment', async () => {
  const h = await harness();
  h.addTopic('orders', 4);
  try {
    const c = await classicGroup(h, 'static-mig', [0, 1, 2, 3]);
    const k = await h.gc.consumerGroupHeartbeat({ ...joinHb('static-mig', ['orders']), instanceId: 'inst-k' }, INFO);
    assert.equal(k.errorCode, E.NONE, k.errorMessage ?? '');
    const cr = await classicRejoin(h, 'static-mig', c.memberId);
    const k2 = await h.gc.consumerGroupHeartbeat(
      hb('static-mig', { memberId: k.memberId!, memberEpoch: 2, instanceId: 'inst-k', topicPartitions: [] }),
      INFO,
    );
    const kParts = sorted(k2.assignment!.topicPartitions[0]!.partitions);
    assert.deepEqual(sorted([...kParts, ...cr.partitions]), [0, 1, 2, 3]);
    // the instance restarts with group.protocol=classic
    const j = await h.gc.joinGroup(
      {
        groupId: 'static-mig',
        memberId: '',
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 5_000,
        groupInstanceId: 'inst-k',
        protocolType: 'consumer',
        protocols: protocols(['orders']),
      },
      INFO,
    );
    assert.equal(j.errorCode, E.NONE);
    const g = groupOf(h, 'static-mig');
    assert.equal(g?.type, 'classic');
    if (g?.type !== 'classic') return;
    assert.equal(g.state, 'Stable', 'the assignment was current: no rebalance');
    assert.deepEqual([...g.members.keys()].sort(), [c.memberId, j.memberId].sort());
    assert.equal(g.staticMemberId('inst-k'), j.memberId);
    assert.equal(j.generationId, g.generationId);
    const s = await h.gc.syncGroup({
      groupId: 'static-mig',
      generationId: j.generationId,
      memberId: j.memberId,
      groupInstanceId: 'inst-k',
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    });
    assert.equal(s.errorCode, E.NONE);
    assert.deepEqual(
      sorted(parseAssignment(s.assignment).get('orders')!),
      kParts,
      "it takes the replaced member's partitions",
    );
    const h2 = await h.restart();
    try {
      assert.equal(groupOf(h2, 'static-mig')?.type, 'classic', 'the log says classic (the new id tombstoned too)');
    } finally {
      await h2.close();
    }
  } finally {
    await h.close().catch(() => undefined);
  }
});
