// The classic rebalance protocol in memory: KIP-394 member ids, join/sync/heartbeat/leave,
// generations and the errors that guard them, session / rebalance / pending-sync timeouts, static
// membership (KIP-345), the initial rebalance delay, and the groups' isolation from each other.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { coordinatorPartition } from '../src/protocol/partitioner.js';
import { decodeRecord } from '../src/broker/group/records.js';
import { harness, join, joinReq, INFO, INFO_V3, type Harness } from './helpers/group-harness.js';
import { waitFor } from './helpers/wait-for.js';

const E = ErrorCode;

async function stableGroup(h: Harness, groupId: string, n: number) {
  const joins = await Promise.all(Array.from({ length: n }, () => join(h, groupId)));
  const gen = joins[0]!.generationId;
  const leader = joins.find((j) => j.members.length > 0)!;
  const assignments = joins.map((j, i) => ({ memberId: j.memberId, assignment: Buffer.from([i]) }));
  const syncs = await Promise.all(
    joins.map((j) =>
      h.gc.syncGroup({
        groupId,
        generationId: gen,
        memberId: j.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: j.memberId === leader.memberId ? assignments : [],
      }),
    ),
  );
  return { joins, syncs, gen, leader: leader.memberId };
}

function groupState(h: Harness, groupId: string) {
  const g = h.gc.shardFor(groupId).groups.get(groupId);
  return g && g.type === 'classic' ? g : undefined;
}

test('first JoinGroup at v4+ answers MEMBER_ID_REQUIRED with a member id; the rejoin makes it leader of generation 1', async () => {
  const h = await harness();
  try {
    const first = await h.gc.joinGroup(joinReq('g1'), INFO);
    assert.equal(first.errorCode, E.MEMBER_ID_REQUIRED);
    assert.match(first.memberId, /^test-client-[0-9a-f-]{36}$/);
    const second = await h.gc.joinGroup(joinReq('g1', first.memberId), INFO);
    assert.equal(second.errorCode, E.NONE);
    assert.equal(second.generationId, 1);
    assert.equal(second.leader, first.memberId);
    assert.equal(second.protocolName, 'range');
    assert.equal(second.members.length, 1);
    assert.equal(groupState(h, 'g1')!.state, 'CompletingRebalance');
    const sync = await h.gc.syncGroup({
      groupId: 'g1',
      generationId: 1,
      memberId: first.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: first.memberId, assignment: Buffer.from('A') }],
    });
    assert.equal(sync.errorCode, E.NONE);
    assert.equal(sync.assignment.toString(), 'A');
    assert.equal(groupState(h, 'g1')!.state, 'Stable');
    // v3 and older: the member is added at once
    const old = await h.gc.joinGroup(joinReq('g-old'), INFO_V3);
    assert.equal(old.errorCode, E.NONE);
    assert.equal(old.generationId, 1);
  } finally {
    await h.close();
  }
});

test('a second member triggers a rebalance: heartbeats say REBALANCE_IN_PROGRESS, both rejoin into generation 2', async () => {
  const h = await harness();
  try {
    const a = await stableGroup(h, 'g2', 1);
    const m1 = a.joins[0]!.memberId;
    const b = h.gc.joinGroup(joinReq('g2'), INFO).then((r) => h.gc.joinGroup(joinReq('g2', r.memberId), INFO));
    await waitFor(() => groupState(h, 'g2')!.state === 'PreparingRebalance', { what: 'g2 to prepare a rebalance' });
    assert.equal(
      await h.gc.heartbeat({ groupId: 'g2', generationId: 1, memberId: m1, groupInstanceId: null }),
      E.REBALANCE_IN_PROGRESS,
    );
    const sync = await h.gc.syncGroup({
      groupId: 'g2',
      generationId: 1,
      memberId: m1,
      groupInstanceId: null,
      protocolType: null,
      protocolName: null,
      assignments: [],
    });
    assert.equal(sync.errorCode, E.REBALANCE_IN_PROGRESS);
    const rejoin = await h.gc.joinGroup(joinReq('g2', m1), INFO);
    const other = await b;
    assert.equal(rejoin.generationId, 2);
    assert.equal(other.generationId, 2);
    assert.equal(rejoin.leader, m1, 'the leader that rejoined stays leader');
    assert.equal(rejoin.members.length, 2);
    assert.equal(other.members.length, 0);
    // stale generation
    assert.equal(
      await h.gc.heartbeat({ groupId: 'g2', generationId: 1, memberId: m1, groupInstanceId: null }),
      E.ILLEGAL_GENERATION,
    );
    assert.equal(
      await h.gc.heartbeat({ groupId: 'g2', generationId: 2, memberId: 'nobody', groupInstanceId: null }),
      E.UNKNOWN_MEMBER_ID,
    );
    assert.equal(
      await h.gc.heartbeat({ groupId: 'no-such-group', generationId: 1, memberId: m1, groupInstanceId: null }),
      E.UNKNOWN_MEMBER_ID,
    );
    // heartbeat during CompletingRebalance is fine
    assert.equal(await h.gc.heartbeat({ groupId: 'g2', generationId: 2, memberId: m1, groupInstanceId: null }), E.NONE);
    // follower's sync waits for the leader's assignment
    const followerSync = h.gc.syncGroup({
      groupId: 'g2',
      generationId: 2,
      memberId: other.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    });
    const leaderSync = await h.gc.syncGroup({
      groupId: 'g2',
      generationId: 2,
      memberId: m1,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [
        { memberId: m1, assignment: Buffer.from('L') },
        { memberId: other.memberId, assignment: Buffer.from('F') },
      ],
    });
    assert.equal(leaderSync.assignment.toString(), 'L');
    assert.equal((await followerSync).assignment.toString(), 'F');
    // wrong protocol name on sync
    const bad = await h.gc.syncGroup({
      groupId: 'g2',
      generationId: 2,
      memberId: m1,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: 'roundrobin',
      assignments: [],
    });
    assert.equal(bad.errorCode, E.INCONSISTENT_GROUP_PROTOCOL);
  } finally {
    await h.close();
  }
});

test('protocol selection: the protocol every member supports with the most votes; no common protocol is INCONSISTENT_GROUP_PROTOCOL', async () => {
  const h = await harness();
  try {
    const p = (names: string[]) => names.map((name) => ({ name, metadata: Buffer.from(name) }));
    const a = join(h, 'gp', { protocols: p(['range', 'roundrobin']) });
    const b = join(h, 'gp', { protocols: p(['roundrobin', 'range']) });
    const c = join(h, 'gp', { protocols: p(['roundrobin']) });
    const [ra, rb, rc] = await Promise.all([a, b, c]);
    assert.equal(ra.protocolName, 'roundrobin');
    assert.equal(rb.protocolName, 'roundrobin');
    assert.equal(rc.protocolName, 'roundrobin');
    const x = await h.gc.joinGroup(joinReq('gp', '', { protocols: p(['sticky']) }), INFO);
    assert.equal(x.errorCode, E.INCONSISTENT_GROUP_PROTOCOL);
    const y = await h.gc.joinGroup(joinReq('gp', '', { protocolType: 'connect' }), INFO);
    assert.equal(y.errorCode, E.INCONSISTENT_GROUP_PROTOCOL);
  } finally {
    await h.close();
  }
});

test('session timeout: a silent member is removed and the others rebalance into a new generation', async () => {
  const h = await harness();
  try {
    const { joins } = await stableGroup(h, 'gs', 2);
    const [a, b] = joins as [(typeof joins)[0], (typeof joins)[0]];
    // a keeps heartbeating with a short session, b goes silent
    for (const j of joins) h.gc.shardFor('gs').classic.group('gs')!.member(j.memberId).sessionTimeoutMs = 150;
    for (const j of joins)
      h.gc
        .shardFor('gs')
        .classic.rescheduleHeartbeat(
          h.gc.shardFor('gs').classic.group('gs')!,
          h.gc.shardFor('gs').classic.group('gs')!.member(j.memberId),
        );
    const sawRebalance = await waitFor(
      async () =>
        (await h.gc.heartbeat({ groupId: 'gs', generationId: 1, memberId: a.memberId, groupInstanceId: null })) ===
        E.REBALANCE_IN_PROGRESS,
      // every 50 ms: a heartbeats well inside its 150 ms session
      { what: 'the survivor to be told to rejoin', timeoutMs: 5000, intervalMs: 50 },
    ).catch(() => false);
    assert.ok(sawRebalance, 'the survivor is told to rejoin');
    assert.equal(groupState(h, 'gs')!.hasMember(b.memberId), false, 'the silent member is gone');
    const rejoin = await h.gc.joinGroup(joinReq('gs', a.memberId), INFO);
    assert.equal(rejoin.generationId, 2);
    assert.deepEqual(
      rejoin.members.map((m) => m.memberId),
      [a.memberId],
    );
    assert.equal(
      await h.gc.heartbeat({ groupId: 'gs', generationId: 1, memberId: b.memberId, groupInstanceId: null }),
      E.UNKNOWN_MEMBER_ID,
    );
  } finally {
    await h.close();
  }
});

test('rebalance timeout: a member that does not rejoin is dropped when the join phase ends; one that never syncs is dropped too', async () => {
  const h = await harness();
  try {
    const { joins } = await stableGroup(h, 'gr', 2);
    const g = groupState(h, 'gr')!;
    for (const m of g.members.values()) m.rebalanceTimeoutMs = 200;
    const [a, b] = joins as [(typeof joins)[0], (typeof joins)[0]];
    // a rejoins (leader rejoin forces a rebalance), b stays away
    const t0 = Date.now();
    const r = await h.gc.joinGroup(joinReq('gr', a.memberId, { rebalanceTimeoutMs: 200 }), INFO);
    assert.ok(Date.now() - t0 >= 150, 'the join phase waited for the rebalance timeout');
    assert.equal(r.generationId, 2);
    assert.equal(g.hasMember(b.memberId), false);
    // a never syncs: after the rebalance timeout it is removed (pending sync expiry)
    await waitFor(() => !g.hasMember(a.memberId), {
      what: 'the member that never synced to be removed',
      timeoutMs: 5000,
    });
    assert.equal(g.state, 'Empty');
    assert.equal(g.generationId, 3);
  } finally {
    await h.close();
  }
});

test('the initial rebalance delay collects members joining an empty group into one generation', async () => {
  const h = await harness({ classicInitialRebalanceDelayMs: 150 });
  try {
    const a = join(h, 'gd', { rebalanceTimeoutMs: 2000 });
    await waitFor(() => groupState(h, 'gd')?.state === 'PreparingRebalance', { what: 'the first member to join gd' });
    const b = join(h, 'gd', { rebalanceTimeoutMs: 2000 });
    const [ra, rb] = await Promise.all([a, b]);
    assert.equal(ra.generationId, 1);
    assert.equal(rb.generationId, 1);
    assert.equal(ra.members.length + rb.members.length, 2);
  } finally {
    await h.close();
  }
});

test('static membership: a known group.instance.id rejoining replaces the member without a rebalance; the old id is fenced', async () => {
  const h = await harness();
  try {
    const first = await h.gc.joinGroup(joinReq('gst', '', { groupInstanceId: 'inst-1' }), INFO);
    assert.equal(first.errorCode, E.NONE, 'static members get no MEMBER_ID_REQUIRED');
    assert.match(first.memberId, /^inst-1-/);
    await h.gc.syncGroup({
      groupId: 'gst',
      generationId: 1,
      memberId: first.memberId,
      groupInstanceId: 'inst-1',
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [{ memberId: first.memberId, assignment: Buffer.from('S') }],
    });
    const again = await h.gc.joinGroup(joinReq('gst', '', { groupInstanceId: 'inst-1' }), INFO);
    assert.equal(again.errorCode, E.NONE);
    assert.notEqual(again.memberId, first.memberId);
    assert.equal(again.generationId, 1, 'no new generation');
    assert.equal(groupState(h, 'gst')!.state, 'Stable');
    assert.equal(
      await h.gc.heartbeat({ groupId: 'gst', generationId: 1, memberId: first.memberId, groupInstanceId: 'inst-1' }),
      E.FENCED_INSTANCE_ID,
    );
    assert.equal(
      await h.gc.heartbeat({ groupId: 'gst', generationId: 1, memberId: again.memberId, groupInstanceId: 'inst-1' }),
      E.NONE,
    );
    const sync = await h.gc.syncGroup({
      groupId: 'gst',
      generationId: 1,
      memberId: again.memberId,
      groupInstanceId: 'inst-1',
      protocolType: 'consumer',
      protocolName: 'range',
      assignments: [],
    });
    assert.equal(sync.assignment.toString(), 'S', 'the replacement keeps the assignment');
    // leave by instance id only
    const leave = await h.gc.leaveGroup('gst', [
      { memberId: '', groupInstanceId: 'inst-1' },
      { memberId: '', groupInstanceId: 'inst-unknown' },
    ]);
    assert.deepEqual(
      leave.members.map((m) => m.errorCode),
      [E.NONE, E.UNKNOWN_MEMBER_ID],
    );
  } finally {
    await h.close();
  }
});

test('LeaveGroup with a batch of members: each gets its own error; the group rebalances and ends Empty', async () => {
  const h = await harness();
  try {
    const { joins } = await stableGroup(h, 'gl', 2);
    const r = await h.gc.leaveGroup('gl', [
      ...joins.map((j) => ({ memberId: j.memberId, groupInstanceId: null })),
      { memberId: 'ghost', groupInstanceId: null },
    ]);
    assert.deepEqual(
      r.members.map((m) => m.errorCode),
      [E.NONE, E.NONE, E.UNKNOWN_MEMBER_ID],
    );
    const g = groupState(h, 'gl')!;
    assert.equal(g.state, 'Empty');
    assert.equal(g.generationId, 2);
    const unknownGroup = await h.gc.leaveGroup('nope', [{ memberId: 'x', groupInstanceId: null }]);
    assert.deepEqual(
      unknownGroup.members.map((m) => m.errorCode),
      [E.UNKNOWN_MEMBER_ID],
    );
  } finally {
    await h.close();
  }
});

test('offset commits: simple consumers into empty groups, members of the current generation only', async () => {
  const h = await harness();
  try {
    const commit = (groupId: string, gen: number, memberId: string, apiVersion = 8, metadata: string | null = 'm') =>
      h.gc.commitOffsets(
        {
          groupId,
          generationIdOrMemberEpoch: gen,
          memberId,
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: 't',
              partitions: [
                { partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: 3, committedMetadata: metadata },
              ],
            },
          ],
        },
        apiVersion,
      );
    const simple = await commit('simple', -1, '');
    assert.equal(simple[0]!.partitions[0]!.errorCode, E.NONE);
    const fetched = await h.gc.fetchOffsets({
      groupId: 'simple',
      memberId: null,
      memberEpoch: -1,
      topics: [{ name: 't', partitionIndexes: [0, 1] }],
    });
    assert.deepEqual(
      fetched.topics[0]!.partitions.map((p) => [p.committedOffset, p.committedLeaderEpoch, p.metadata]),
      [
        [42n, 3, 'm'],
        [-1n, -1, ''],
      ],
    );
    const listed = await h.gc.listGroups([], []);
    assert.deepEqual(
      listed.groups.map((g) => [g.groupId, g.groupState, g.protocolType]),
      [['simple', 'Empty', '']],
    );

    const { joins } = await stableGroup(h, 'gc', 1);
    const m = joins[0]!.memberId;
    assert.equal((await commit('gc', 1, m))[0]!.partitions[0]!.errorCode, E.NONE);
    await assert.rejects(commit('gc', 0, m), (e: { code: number }) => e.code === E.ILLEGAL_GENERATION);
    await assert.rejects(commit('gc', 1, 'stranger'), (e: { code: number }) => e.code === E.UNKNOWN_MEMBER_ID);
    await assert.rejects(commit('gc', -1, ''), (e: { code: number }) => e.code === E.UNKNOWN_MEMBER_ID);
    await assert.rejects(commit('never-seen', 3, 'x'), (e: { code: number }) => e.code === E.ILLEGAL_GENERATION);
    await assert.rejects(commit('never-seen', 3, 'x', 9), (e: { code: number }) => e.code === E.GROUP_ID_NOT_FOUND);
    const big = await commit('gc', 1, m, 8, 'x'.repeat(5000));
    assert.equal(big[0]!.partitions[0]!.errorCode, E.OFFSET_METADATA_TOO_LARGE);
    // during CompletingRebalance: REBALANCE_IN_PROGRESS
    const second = h.gc.joinGroup(joinReq('gc'), INFO).then((r) => h.gc.joinGroup(joinReq('gc', r.memberId), INFO));
    await waitFor(() => groupState(h, 'gc')!.state === 'PreparingRebalance', { what: 'gc to prepare a rebalance' });
    const rejoin = await h.gc.joinGroup(joinReq('gc', m), INFO);
    await second;
    await assert.rejects(
      commit('gc', rejoin.generationId, m),
      (e: { code: number }) => e.code === E.REBALANCE_IN_PROGRESS,
    );
  } finally {
    await h.close();
  }
});

test('records go to the group partition and decode; a restart reloads groups and offsets', async () => {
  const h = await harness();
  const { joins } = await stableGroup(h, 'persist', 2);
  await h.gc.commitOffsets(
    {
      groupId: 'persist',
      generationIdOrMemberEpoch: 1,
      memberId: joins[0]!.memberId,
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 1, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: null }],
        },
      ],
    },
    8,
  );
  const p = coordinatorPartition('persist', 4);
  const recs = (h.log.partitions.get(p) ?? []).map((r) => decodeRecord(r.key, r.value)!);
  assert.deepEqual(
    recs.map((r) => r.type),
    ['GroupMetadata', 'GroupMetadata', 'OffsetCommit'],
  );
  for (const [i, other] of h.log.partitions) if (i !== p) assert.equal(other.length, 0);
  const last = recs[1]!;
  assert.ok(last.type === 'GroupMetadata' && last.value);
  assert.equal(last.value.generation, 1);
  assert.equal(last.value.members.length, 2);

  const h2 = await h.restart();
  try {
    const g = h2.gc.shardFor('persist').classic.group('persist')!;
    assert.equal(g.state, 'Stable');
    assert.equal(g.generationId, 1);
    assert.equal(g.numMembers, 2);
    assert.equal(
      await h2.gc.heartbeat({
        groupId: 'persist',
        generationId: 1,
        memberId: joins[1]!.memberId,
        groupInstanceId: null,
      }),
      E.NONE,
    );
    const f = await h2.gc.fetchOffsets({ groupId: 'persist', memberId: null, memberEpoch: -1, topics: null });
    assert.deepEqual(f.topics, [
      {
        name: 't',
        partitions: [{ partitionIndex: 1, committedOffset: 7n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }],
      },
    ]);
  } finally {
    await h2.close();
  }
});

test('COORDINATOR_LOAD_IN_PROGRESS while loading, NOT_COORDINATOR for partitions not owned', async () => {
  const h = await harness();
  await h.gc.commitOffsets(
    {
      groupId: 'gx',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    },
    8,
  );
  await h.close();
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const slowLog = {
    append: h.log.append.bind(h.log),
    read: async (p: number, from: number, cb: Parameters<typeof h.log.read>[2]) => {
      await gate;
      return h.log.read(p, from, cb);
    },
  };
  const { GroupCoordinator } = await import('../src/broker/group/coordinator.js');
  const gc = new GroupCoordinator({
    config: h.config,
    log: slowLog,
    metadata: { topic: () => undefined, topicById: () => undefined },
  });
  const p = coordinatorPartition('gx', 4);
  const loading = gc.loadPartition(p);
  const during = await gc.fetchOffsets({ groupId: 'gx', memberId: null, memberEpoch: -1, topics: null });
  assert.equal(during.errorCode, E.COORDINATOR_LOAD_IN_PROGRESS);
  assert.equal((await gc.joinGroup(joinReq('gx'), INFO)).errorCode, E.COORDINATOR_LOAD_IN_PROGRESS);
  assert.equal((await gc.listGroups([], [])).errorCode, E.COORDINATOR_LOAD_IN_PROGRESS);
  release();
  await loading;
  const after = await gc.fetchOffsets({ groupId: 'gx', memberId: null, memberEpoch: -1, topics: null });
  assert.equal(after.errorCode, E.NONE);
  assert.equal(after.topics[0]!.partitions[0]!.committedOffset, 1n);
  const other = ['a', 'b', 'c', 'd', 'e', 'f'].find((g) => coordinatorPartition(g, 4) !== p)!;
  assert.equal((await gc.joinGroup(joinReq(other), INFO)).errorCode, E.NOT_COORDINATOR);
  await gc.shutdown();
});

test('group ids: empty is INVALID_GROUP_ID, 10,000 characters works; invalid session timeouts; other groups unaffected', async () => {
  const h = await harness({ classicMinSessionTimeoutMs: 100, classicMaxSessionTimeoutMs: 60_000 });
  try {
    const ok = await stableGroup(h, 'bystander', 1);
    assert.equal((await h.gc.joinGroup(joinReq(''), INFO)).errorCode, E.INVALID_GROUP_ID);
    assert.equal(
      await h.gc.heartbeat({ groupId: '', generationId: 1, memberId: 'x', groupInstanceId: null }),
      E.INVALID_GROUP_ID,
    );
    assert.equal(
      (
        await h.gc.syncGroup({
          groupId: '',
          generationId: 1,
          memberId: 'x',
          groupInstanceId: null,
          protocolType: null,
          protocolName: null,
          assignments: [],
        })
      ).errorCode,
      E.INVALID_GROUP_ID,
    );
    assert.equal(
      (await h.gc.joinGroup(joinReq('gt', '', { sessionTimeoutMs: 5 }), INFO)).errorCode,
      E.INVALID_SESSION_TIMEOUT,
    );
    assert.equal(
      (await h.gc.joinGroup(joinReq('gt', '', { sessionTimeoutMs: 70_000 }), INFO)).errorCode,
      E.INVALID_SESSION_TIMEOUT,
    );
    const long = 'g'.repeat(10_000);
    const j = await join(h, long);
    assert.equal(j.errorCode, E.NONE);
    assert.equal(j.generationId, 1);
    // a duplicate join of a known member in CompletingRebalance gets the same generation back
    const dup = await h.gc.joinGroup(joinReq(long, j.memberId), INFO);
    assert.equal(dup.generationId, 1);
    assert.equal(dup.members.length, 1);
    // JoinGroup with an unknown member id for an unknown group
    assert.equal((await h.gc.joinGroup(joinReq('fresh', 'made-up'), INFO)).errorCode, E.UNKNOWN_MEMBER_ID);
    assert.equal(
      await h.gc.heartbeat({
        groupId: 'bystander',
        generationId: ok.gen,
        memberId: ok.joins[0]!.memberId,
        groupInstanceId: null,
      }),
      E.NONE,
    );
    assert.equal(groupState(h, 'bystander')!.state, 'Stable');
  } finally {
    await h.close();
  }
});

test('DeleteGroups, ListGroups filters, DescribeGroups', async () => {
  const h = await harness();
  try {
    await stableGroup(h, 'busy', 1);
    await h.gc.commitOffsets(
      {
        groupId: 'idle',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [
          {
            name: 't',
            partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }],
          },
        ],
      },
      8,
    );
    const stable = await h.gc.listGroups(['stable'], []);
    assert.deepEqual(
      stable.groups.map((g) => g.groupId),
      ['busy'],
    );
    assert.deepEqual((await h.gc.listGroups([], ['Consumer'])).groups, []);
    assert.deepEqual((await h.gc.listGroups([], ['classic'])).groups.map((g) => g.groupId).sort(), ['busy', 'idle']);
    const d = await h.gc.describeGroups(['busy', 'idle', 'nope']);
    assert.deepEqual(
      d.map((g) => [g.groupId, g.groupState, g.protocolType, g.protocolData, g.members.length]),
      [
        ['busy', 'Stable', 'consumer', 'range', 1],
        ['idle', 'Empty', '', '', 0],
        ['nope', 'Dead', '', '', 0],
      ],
    );
    assert.equal(d[0]!.members[0]!.clientHost, '/127.0.0.1');
    assert.ok(d[0]!.members[0]!.memberMetadata.length > 0);
    const del = await h.gc.deleteGroups(['busy', 'idle', 'nope']);
    assert.deepEqual(
      del.map((r) => r.errorCode),
      [E.NON_EMPTY_GROUP, E.NONE, E.GROUP_ID_NOT_FOUND],
    );
    assert.deepEqual(
      (await h.gc.listGroups([], [])).groups.map((g) => g.groupId),
      ['busy'],
    );
    const f = await h.gc.fetchOffsets({
      groupId: 'idle',
      memberId: null,
      memberEpoch: -1,
      topics: [{ name: 't', partitionIndexes: [0] }],
    });
    assert.equal(f.topics[0]!.partitions[0]!.committedOffset, -1n);
    const p = coordinatorPartition('idle', 4);
    const tail = h.log.partitions
      .get(p)!
      .slice(-2)
      .map((r) => decodeRecord(r.key, r.value)!);
    assert.deepEqual(
      tail.map((r) => [r.type, r.value]),
      [
        ['OffsetCommit', null],
        ['GroupMetadata', null],
      ],
    );
  } finally {
    await h.close();
  }
});

test('OffsetDelete: empty groups lose offsets; a consumer group subscribed to the topic is refused', async () => {
  const h = await harness();
  try {
    const commit = (groupId: string, gen: number, memberId: string, topic: string) =>
      h.gc.commitOffsets(
        {
          groupId,
          generationIdOrMemberEpoch: gen,
          memberId,
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: topic,
              partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
            },
          ],
        },
        8,
      );
    await commit('od', -1, '', 't');
    const r = await h.gc.deleteOffsets('od', [{ name: 't', partitions: [{ partitionIndex: 0 }] }]);
    assert.equal(r.topics[0]!.partitions[0]!.errorCode, E.NONE);
    const { joins } = await stableGroup(h, 'od2', 1);
    await commit('od2', 1, joins[0]!.memberId, 't');
    await commit('od2', 1, joins[0]!.memberId, 'other');
    const r2 = await h.gc.deleteOffsets('od2', [
      { name: 't', partitions: [{ partitionIndex: 0 }] },
      { name: 'other', partitions: [{ partitionIndex: 0 }] },
    ]);
    assert.deepEqual(
      r2.topics.map((t) => t.partitions[0]!.errorCode),
      [E.GROUP_SUBSCRIBED_TO_TOPIC, E.NONE],
    );
    assert.equal((await h.gc.deleteOffsets('missing', [])).errorCode, E.GROUP_ID_NOT_FOUND);
  } finally {
    await h.close();
  }
});

test('offsets expire after offsets.retention.minutes once the group is empty; the empty group goes with them', async () => {
  const now = { ms: 1_000_000 };
  const { GroupCoordinator } = await import('../src/broker/group/coordinator.js');
  const { MemoryCoordinatorLog } = await import('../src/broker/group/log.js');
  const { DEFAULT_GROUP_CONFIG } = await import('../src/broker/group/config.js');
  const log = new MemoryCoordinatorLog();
  const gc = new GroupCoordinator({
    config: { ...DEFAULT_GROUP_CONFIG, offsetsTopicPartitions: 1, offsetsRetentionMs: 60_000 },
    log,
    metadata: { topic: () => undefined, topicById: () => undefined },
    clock: () => now.ms,
  });
  await gc.loadPartition(0);
  await gc.commitOffsets(
    {
      groupId: 'old',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 9n, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    },
    8,
  );
  now.ms += 30_000;
  await gc.commitOffsets(
    {
      groupId: 'young',
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1n,
      topics: [
        {
          name: 't',
          partitions: [{ partitionIndex: 0, committedOffset: 9n, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    },
    8,
  );
  now.ms += 31_000;
  const shard = gc.shards.get(0)!;
  const expired = await shard.write(() => shard.expireOffsets());
  assert.equal(expired, 1);
  assert.deepEqual(
    (await gc.listGroups([], [])).groups.map((g) => g.groupId),
    ['young'],
  );
  assert.equal(
    (await gc.fetchOffsets({ groupId: 'young', memberId: null, memberEpoch: -1, topics: null })).topics.length,
    1,
  );
  await gc.shutdown();
});

test('a failed write answers the commit with COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR and changes nothing', async () => {
  const h = await harness();
  try {
    h.log.failWith = ErrorCode.NOT_ENOUGH_REPLICAS;
    await assert.rejects(
      h.gc.commitOffsets(
        {
          groupId: 'w',
          generationIdOrMemberEpoch: -1,
          memberId: '',
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: 't',
              partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }],
            },
          ],
        },
        8,
      ),
      (e: { code: number }) => e.code === E.COORDINATOR_NOT_AVAILABLE,
    );
    h.log.failWith = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    const first = await h.gc.joinGroup(joinReq('w2'), INFO_V3);
    assert.equal(first.errorCode, E.NOT_COORDINATOR);
    h.log.failWith = null;
    assert.deepEqual((await h.gc.listGroups([], [])).groups, [], 'the unwritten group is forgotten');
    assert.deepEqual(
      (await h.gc.fetchOffsets({ groupId: 'w', memberId: null, memberEpoch: -1, topics: null })).topics,
      [],
    );
  } finally {
    await h.close();
  }
});
