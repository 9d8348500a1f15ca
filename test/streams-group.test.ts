// Streams groups (KIP-1071) in the group coordinator, in memory: StreamsGroupHeartbeat's validation,
// the topology against the metadata (missing source topics, missing internal topics to create,
// partition counts), joining and epochs, the sticky task assignor, the revocation dance between two
// processes, leaving and session expiry, the initial rebalance delay, describe / list / delete,
// offset commits with member epochs, and reload from the log. Cases after Kafka 4.4's
// GroupMetadataManagerTest streams tests, StreamsGroupTest and StickyTaskAssignorTest.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { decodeRecord, encodeRecord } from '../src/broker/group/records.js';
import { stickyAssign, javaHashMapOrder, type AssignorMember } from '../src/broker/group/streams-assignor.js';
import { StreamsStatus } from '../src/broker/group/streams-topology.js';
import type { StreamsGroupHeartbeatRequest } from '../src/protocol/generated/protocol/StreamsGroupHeartbeat.js';
import { harness, INFO, type Harness } from './helpers/group-harness.js';
import { waitFor } from './helpers/wait-for.js';
import type { GroupConfig } from '../src/broker/group/config.js';

const E = ErrorCode;
const FAST: Partial<GroupConfig> = { streamsInitialRebalanceDelayMs: 0, streamsAssignmentIntervalMs: 0 };

const info = (name: string, partitions = 0) => ({ name, partitions, replicationFactor: 0, topicConfigs: [] });

/** A word-count topology: source `input` → repartition → a counting store with a changelog. */
const wordCount = (epoch = 0) => ({
  epoch,
  subtopologies: [
    {
      subtopologyId: '0',
      sourceTopics: ['input'],
      sourceTopicRegex: [],
      stateChangelogTopics: [],
      repartitionSinkTopics: ['app-repartition'],
      repartitionSourceTopics: [],
      copartitionGroups: [],
    },
    {
      subtopologyId: '1',
      sourceTopics: [],
      sourceTopicRegex: [],
      stateChangelogTopics: [
        { ...info('app-store-changelog'), topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }] },
      ],
      repartitionSinkTopics: [],
      repartitionSourceTopics: [info('app-repartition')],
      copartitionGroups: [],
    },
  ],
});

function hb(groupId: string, memberId: string, memberEpoch: number, o: Partial<StreamsGroupHeartbeatRequest> = {}) {
  return {
    groupId,
    memberId,
    memberEpoch,
    endpointInformationEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    topology: null,
    activeTasks: null,
    standbyTasks: null,
    warmupTasks: null,
    processId: null,
    userEndpoint: null,
    clientTags: null,
    taskOffsets: null,
    taskEndOffsets: null,
    shutdownApplication: false,
    ...o,
  } as StreamsGroupHeartbeatRequest;
}

const joinReq = (groupId: string, memberId: string, processId: string, o: Partial<StreamsGroupHeartbeatRequest> = {}) =>
  hb(groupId, memberId, 0, {
    rebalanceTimeoutMs: 30_000,
    topology: wordCount(),
    processId,
    activeTasks: [],
    standbyTasks: [],
    warmupTasks: [],
    ...o,
  });

const tasks = (l: { subtopologyId: string; partitions: number[] }[] | null) =>
  l === null ? null : Object.fromEntries(l.map((t) => [t.subtopologyId, t.partitions]));
const countTasks = (l: { partitions: number[] }[] | null) => (l ?? []).reduce((n, t) => n + t.partitions.length, 0);

async function withTopics(h: Harness, inputPartitions = 2): Promise<void> {
  h.addTopic('input', inputPartitions);
  h.addTopic('app-repartition', inputPartitions);
  h.addTopic('app-store-changelog', inputPartitions);
}

test('StreamsGroupHeartbeat validation: Kafka 4.4 messages', async () => {
  const h = await harness(FAST);
  try {
    const cases: [StreamsGroupHeartbeatRequest, number, string][] = [
      [joinReq('g', '', 'p'), E.INVALID_REQUEST, "MemberId can't be empty."],
      [joinReq('', 'm', 'p'), E.INVALID_REQUEST, "GroupId can't be empty."],
      [joinReq('g', 'm', 'p', { instanceId: ' ' }), E.INVALID_REQUEST, "InstanceId can't be empty."],
      [
        joinReq('g', 'm', 'p', { rebalanceTimeoutMs: -1 }),
        E.INVALID_REQUEST,
        'RebalanceTimeoutMs must be provided in first request.',
      ],
      [
        joinReq('g', 'm', 'p', { activeTasks: [{ subtopologyId: '0', partitions: [0] }] }),
        E.INVALID_REQUEST,
        'ActiveTasks must be empty when (re-)joining.',
      ],
      [joinReq('g', 'm', 'p', { topology: null }), E.INVALID_REQUEST, 'Topology must be non-null when (re-)joining.'],
      [hb('g', 'm', -3), E.INVALID_REQUEST, 'MemberEpoch is -3, but must be greater than or equal to -2.'],
      [hb('g', 'm', -2), E.INVALID_REQUEST, "InstanceId can't be null."],
      [
        hb('g', 'm', 1, { activeTasks: [], standbyTasks: null, warmupTasks: [] }),
        E.INVALID_REQUEST,
        'If one task-type is non-null, all must be non-null.',
      ],
      [
        hb('g', 'm', 1, { topology: wordCount() }),
        E.INVALID_REQUEST,
        'Topology can only be provided when (re-)joining.',
      ],
      [
        joinReq('g', 'm', 'p', {
          topology: { epoch: 0, subtopologies: [{ ...wordCount().subtopologies[0]!, sourceTopicRegex: ['in.*'] }] },
        }),
        E.INVALID_REQUEST,
        'Regular expressions for source topics are not supported yet.',
      ],
      [
        joinReq('g', 'm', 'p', {
          topology: {
            epoch: 0,
            subtopologies: [{ ...wordCount().subtopologies[1]!, stateChangelogTopics: [info('cl', 3)] }],
          },
        }),
        E.STREAMS_INVALID_TOPOLOGY,
        'Changelog topic cl must have an undefined partition count, but it is set to 3.',
      ],
    ];
    for (const [req, code, msg] of cases) {
      const r = await h.gc.streamsGroupHeartbeat(req, INFO);
      assert.equal(r.response.errorCode, code, msg);
      assert.equal(r.response.errorMessage, msg);
    }
    const unknown = await h.gc.streamsGroupHeartbeat(hb('nope', 'm', 1), INFO);
    assert.equal(unknown.response.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(unknown.response.errorMessage, 'Streams group nope not found.');
  } finally {
    await h.close();
  }
});

test('missing source topics: NotReady, status 1, no tasks', async () => {
  const h = await harness(FAST);
  try {
    const r = await h.gc.streamsGroupHeartbeat(joinReq('app', 'm1', 'p1'), INFO);
    assert.equal(r.response.errorCode, E.NONE);
    // a new group starts at epoch 1: the first join bumps it to 2
    assert.equal(r.response.memberEpoch, 2);
    assert.deepEqual(r.response.status, [
      { statusCode: StreamsStatus.MISSING_SOURCE_TOPICS, statusDetail: 'Source topics input are missing.' },
    ]);
    assert.deepEqual(r.response.activeTasks, []);
    assert.equal(r.internalTopicsToCreate.size, 0);
    const [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(d!.groupState, 'NotReady');
    assert.equal(d!.groupEpoch, 2);
    assert.equal(d!.topology!.epoch, 0);
    assert.deepEqual(
      d!.topology!.subtopologies!.map((s) => s.subtopologyId),
      ['0', '1'],
    );
  } finally {
    await h.close();
  }
});

test('missing internal topics: status 3 and the topics to create', async () => {
  const h = await harness(FAST);
  try {
    h.addTopic('input', 3);
    const r = await h.gc.streamsGroupHeartbeat(joinReq('app', 'm1', 'p1'), INFO);
    assert.equal(r.response.errorCode, E.NONE);
    assert.deepEqual(r.response.status, [
      {
        statusCode: StreamsStatus.MISSING_INTERNAL_TOPICS,
        statusDetail: 'Internal topics are missing: app-repartition, app-store-changelog',
      },
    ]);
    assert.deepEqual(
      [...r.internalTopicsToCreate.values()].sort((a, b) => a.name.localeCompare(b.name)),
      [
        { name: 'app-repartition', numPartitions: 3, replicationFactor: -1, configs: [] },
        {
          name: 'app-store-changelog',
          numPartitions: 3,
          replicationFactor: -1,
          configs: [{ name: 'cleanup.policy', value: 'compact' }],
        },
      ],
    );
    // the broker creates them; the next heartbeat sees a ready topology and gets every task
    h.addTopic('app-repartition', 3);
    h.addTopic('app-store-changelog', 3);
    const r2 = await h.gc.streamsGroupHeartbeat(hb('app', 'm1', r.response.memberEpoch), INFO);
    assert.equal(r2.response.errorCode, E.NONE);
    assert.deepEqual(r2.response.status, []);
    assert.equal(r2.response.memberEpoch, 3);
    assert.deepEqual(tasks(r2.response.activeTasks), { '0': [0, 1, 2], '1': [0, 1, 2] });
    const [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(d!.groupState, 'Stable');
    assert.deepEqual(
      d!.topology!.subtopologies![1]!.stateChangelogTopics.map((t) => [t.name, t.partitions]),
      [['app-store-changelog', 3]],
    );
  } finally {
    await h.close();
  }
});

test('incorrectly partitioned internal topic: status 2', async () => {
  const h = await harness(FAST);
  try {
    h.addTopic('input', 2);
    h.addTopic('app-repartition', 2);
    h.addTopic('app-store-changelog', 5);
    const r = await h.gc.streamsGroupHeartbeat(joinReq('app', 'm1', 'p1'), INFO);
    assert.deepEqual(r.response.status, [
      {
        statusCode: StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
        statusDetail: 'Existing topic app-store-changelog has different number of partitions: expected 2, found 5',
      },
    ]);
  } finally {
    await h.close();
  }
});

test('two processes: revocation before the new owner gets its tasks', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 2);
    const a1 = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    assert.deepEqual(tasks(a1.response.activeTasks), { '0': [0, 1], '1': [0, 1] });
    const b1 = await h.gc.streamsGroupHeartbeat(joinReq('app', 'B', 'pB'), INFO);
    assert.equal(b1.response.memberEpoch, 3);
    // B's tasks are still A's: nothing yet (UNRELEASED_TASKS)
    assert.deepEqual(b1.response.activeTasks, []);
    let [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(d!.groupState, 'Reconciling');
    const targetB = d!.members.find((m) => m.memberId === 'B')!.targetAssignment.activeTasks;
    assert.equal(countTasks(targetB), 2);
    // A heartbeats still owning everything: it must revoke B's share, at its old epoch
    const owned = a1.response.activeTasks!;
    const a2 = await h.gc.streamsGroupHeartbeat(
      hb('app', 'A', 2, { activeTasks: owned, standbyTasks: [], warmupTasks: [] }),
      INFO,
    );
    assert.equal(a2.response.memberEpoch, 2);
    assert.equal(countTasks(a2.response.activeTasks), 2);
    // A acknowledges the revocation: epoch 3
    const a3 = await h.gc.streamsGroupHeartbeat(
      hb('app', 'A', 2, { activeTasks: a2.response.activeTasks, standbyTasks: [], warmupTasks: [] }),
      INFO,
    );
    assert.equal(a3.response.memberEpoch, 3);
    // B now gets the released tasks
    const b2 = await h.gc.streamsGroupHeartbeat(
      hb('app', 'B', 3, { activeTasks: [], standbyTasks: [], warmupTasks: [] }),
      INFO,
    );
    assert.equal(countTasks(b2.response.activeTasks), 2);
    [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(d!.groupState, 'Stable');
    const all = d!.members.flatMap((m) =>
      m.assignment.activeTasks.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}-${p}`)),
    );
    assert.deepEqual(all.sort(), ['0-0', '0-1', '1-0', '1-1']);
    // a stale epoch that does not match the previous one is fenced
    const fenced = await h.gc.streamsGroupHeartbeat(hb('app', 'B', 1), INFO);
    assert.equal(fenced.response.errorCode, E.FENCED_MEMBER_EPOCH);
    const ahead = await h.gc.streamsGroupHeartbeat(hb('app', 'B', 9), INFO);
    assert.equal(ahead.response.errorCode, E.FENCED_MEMBER_EPOCH);
  } finally {
    await h.close();
  }
});

test('leave with -1: tasks go back to the other member', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 2);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    const l = await h.gc.streamsGroupHeartbeat(joinReq('app', 'B', 'pB'), INFO);
    const left = await h.gc.streamsGroupHeartbeat(hb('app', 'B', -1), INFO);
    assert.equal(left.response.errorCode, E.NONE);
    assert.equal(left.response.memberEpoch, -1);
    const [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.deepEqual(
      d!.members.map((m) => m.memberId),
      ['A'],
    );
    assert.equal(d!.groupEpoch, l.response.memberEpoch + 1);
    const unknown = await h.gc.streamsGroupHeartbeat(hb('app', 'B', 3), INFO);
    assert.equal(unknown.response.errorCode, E.UNKNOWN_MEMBER_ID);
    assert.equal(unknown.response.errorMessage, 'Member B is not a member of group app.');
  } finally {
    await h.close();
  }
});

test('session expiry fences the member', async () => {
  const h = await harness({ ...FAST, streamsSessionTimeoutMs: 100, streamsMinSessionTimeoutMs: 100 });
  try {
    await withTopics(h, 1);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    await waitFor(async () => (await h.gc.streamsGroupDescribe(['app']))[0]!.members.length === 0, {
      what: 'the member to be fenced',
      timeoutMs: 5000,
    });
    const [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(d!.groupState, 'Empty');
  } finally {
    await h.close();
  }
});

test('initial rebalance delay: ASSIGNMENT_DELAYED, then the target', async () => {
  const h = await harness({ streamsInitialRebalanceDelayMs: 150, streamsAssignmentIntervalMs: 0 });
  try {
    await withTopics(h, 2);
    const r = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    assert.deepEqual(r.response.status, [
      {
        statusCode: StreamsStatus.ASSIGNMENT_DELAYED,
        statusDetail: 'Assignment delayed due to the configured initial rebalance delay.',
      },
    ]);
    // the target stays at the initial assignment epoch (1): the member reconciles to it, with no task
    assert.equal(r.response.memberEpoch, 1);
    assert.deepEqual(r.response.activeTasks, []);
    // as in Kafka, the delayed computation finds no configured topology on the group the first
    // heartbeat created: the first heartbeat after the delay computes the target
    const r2 = await waitFor(
      async () => {
        const x = await h.gc.streamsGroupHeartbeat(hb('app', 'A', 1), INFO);
        return x.response.memberEpoch === 2 ? x : null;
      },
      { what: 'the assignment after the delay', timeoutMs: 5000 },
    );
    assert.deepEqual(r2.response.status, []);
    assert.equal(countTasks(r2.response.activeTasks), 4);
  } finally {
    await h.close();
  }
});

test('standby replicas: stateful tasks get a standby on the other process', async () => {
  const h = await harness({ ...FAST, streamsNumStandbyReplicas: 1 });
  try {
    await withTopics(h, 2);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'B', 'pB'), INFO);
    const [d] = await h.gc.streamsGroupDescribe(['app']);
    for (const m of d!.members) {
      const active = new Set(
        m.targetAssignment.activeTasks.flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}-${p}`)),
      );
      const standby = m.targetAssignment.standbyTasks.flatMap((t) =>
        t.partitions.map((p) => `${t.subtopologyId}-${p}`),
      );
      // only subtopology 1 is stateful; a standby is never where the active task is
      assert.ok(standby.every((s) => s.startsWith('1-') && !active.has(s)));
    }
    const standbys = d!.members.flatMap((m) => m.targetAssignment.standbyTasks.flatMap((t) => t.partitions));
    assert.equal(standbys.length, 2);
  } finally {
    await h.close();
  }
});

test('describe, list, other group types, delete', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 1);
    await h.gc.streamsGroupHeartbeat(
      joinReq('app', 'A', 'pA', {
        userEndpoint: { host: 'localhost', port: 8080 },
        clientTags: [{ key: 'az', value: 'a' }],
      }),
      INFO,
    );
    const [empty, d, missing] = await h.gc.streamsGroupDescribe(['app', 'missing', '']);
    assert.equal(empty!.groupId, '');
    assert.equal(empty!.errorCode, E.INVALID_GROUP_ID);
    assert.equal(d!.errorCode, E.NONE);
    assert.equal(d!.assignorName, 'sticky');
    const m = d!.members[0]!;
    assert.deepEqual(
      {
        id: m.memberId,
        epoch: m.memberEpoch,
        pid: m.processId,
        ep: m.userEndpoint,
        tags: m.clientTags,
        client: m.clientId,
      },
      {
        id: 'A',
        epoch: 2,
        pid: 'pA',
        ep: { host: 'localhost', port: 8080 },
        tags: [{ key: 'az', value: 'a' }],
        client: 'test-client',
      },
    );
    assert.equal(missing!.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(missing!.errorMessage, 'Group missing not found.');
    const listed = await h.gc.listGroups([], ['streams']);
    assert.deepEqual(listed.groups, [
      { groupId: 'app', protocolType: 'streams', groupState: 'Stable', groupType: 'streams' },
    ]);
    const [classic] = await h.gc.describeGroups(['app'], 6);
    assert.equal(classic!.errorMessage, 'Group app is not a classic group.');
    const consumer = await h.gc.consumerGroupHeartbeat(
      {
        groupId: 'app',
        memberId: 'x',
        memberEpoch: 0,
        instanceId: null,
        rackId: null,
        rebalanceTimeoutMs: 1000,
        subscribedTopicNames: ['input'],
        subscribedTopicRegex: null,
        serverAssignor: null,
        topicPartitions: [],
      },
      INFO,
    );
    assert.equal(consumer.errorCode, E.GROUP_ID_NOT_FOUND);
    assert.equal(consumer.errorMessage, 'Group app is not a consumer group.');
    assert.deepEqual(await h.gc.deleteGroups(['app']), [{ groupId: 'app', errorCode: E.NON_EMPTY_GROUP }]);
    await h.gc.streamsGroupHeartbeat(hb('app', 'A', -1), INFO);
    assert.deepEqual(await h.gc.deleteGroups(['app']), [{ groupId: 'app', errorCode: E.NONE }]);
    const [gone] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(gone!.errorCode, E.GROUP_ID_NOT_FOUND);
  } finally {
    await h.close();
  }
});

test('offset commits carry the member epoch', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 1);
    const r = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    const commit = (epoch: number, topic = 'input') =>
      h.gc.commitOffsets(
        {
          groupId: 'app',
          generationIdOrMemberEpoch: epoch,
          memberId: 'A',
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: topic,
              partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }],
            },
          ],
        },
        9,
      );
    const ok = await commit(r.response.memberEpoch);
    assert.equal(ok[0]!.partitions[0]!.errorCode, E.NONE);
    await assert.rejects(commit(r.response.memberEpoch + 1), (e: { code: number }) => e.code === E.STALE_MEMBER_EPOCH);
    await assert.rejects(
      h.gc.commitOffsets(
        {
          groupId: 'app',
          generationIdOrMemberEpoch: r.response.memberEpoch,
          memberId: 'A',
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [],
        },
        8,
      ),
      (e: { code: number }) => e.code === E.UNSUPPORTED_VERSION,
    );
    const f = await h.gc.fetchOffsets({
      groupId: 'app',
      memberId: 'A',
      memberEpoch: r.response.memberEpoch,
      topics: null,
    });
    assert.equal(f.topics[0]!.partitions[0]!.committedOffset, 5n);
  } finally {
    await h.close();
  }
});

test('reload from the log keeps the group', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 2);
    const r = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    const h2 = await h.restart();
    try {
      const [d] = await h2.gc.streamsGroupDescribe(['app']);
      assert.equal(d!.groupEpoch, 2);
      assert.equal(d!.members[0]!.memberEpoch, r.response.memberEpoch);
      assert.equal(countTasks(d!.members[0]!.assignment.activeTasks), 4);
      const r2 = await h2.gc.streamsGroupHeartbeat(hb('app', 'A', r.response.memberEpoch), INFO);
      assert.equal(r2.response.errorCode, E.NONE);
      assert.equal(r2.response.memberEpoch, r.response.memberEpoch);
    } finally {
      await h2.close();
    }
  } finally {
    await h.close().catch(() => undefined);
  }
});

test('records round-trip through Kafka layout', () => {
  const rec = {
    type: 'StreamsGroupCurrentMemberAssignment' as const,
    group: 'g',
    memberId: 'm',
    value: {
      memberEpoch: 3,
      previousMemberEpoch: 2,
      state: 1,
      activeTasks: [{ subtopologyId: '0', partitions: [0, 1], assignmentEpochs: [2, 3] }],
      standbyTasks: [],
      warmupTasks: [],
      activeTasksPendingRevocation: [],
      standbyTasksPendingRevocation: [],
      warmupTasksPendingRevocation: [],
    },
  };
  const enc = encodeRecord(rec);
  assert.equal(enc.key.readInt16BE(0), 22);
  const dec = decodeRecord(enc.key, enc.value) as typeof rec;
  assert.equal(dec.type, 'StreamsGroupCurrentMemberAssignment');
  assert.deepEqual(dec.value.activeTasks[0]!.assignmentEpochs, [2, 3]);
  const tomb = encodeRecord({ type: 'StreamsGroupTopology', group: 'g', value: null });
  assert.equal(tomb.key.readInt16BE(0), 23);
  assert.equal(tomb.value, null);
});

// ------------------------------------------------------------------ StickyTaskAssignorTest

const m = (
  processId: string,
  active: Record<string, number[]> = {},
  standby: Record<string, number[]> = {},
): AssignorMember => ({
  processId,
  activeTasks: new Map(Object.entries(active).map(([k, v]) => [k, new Set(v)])),
  standbyTasks: new Map(Object.entries(standby).map(([k, v]) => [k, new Set(v)])),
});
const flat = (t: Map<string, Set<number>>) => [...t].flatMap(([s, ps]) => [...ps].map((p) => `${s}-${p}`)).sort();

test('sticky assignor: one active task per process when counts match', () => {
  const r = stickyAssign(
    new Map([
      ['m1', m('p1')],
      ['m2', m('p2')],
      ['m3', m('p3')],
    ]),
    [{ id: 'test-subtopology', numTasks: 3, stateful: false }],
    0,
  );
  const counts = [...r.values()].map((a) => flat(a.active).length);
  assert.deepEqual(counts, [1, 1, 1]);
  assert.deepEqual([...r.values()].flatMap((a) => flat(a.active)).sort(), [
    'test-subtopology-0',
    'test-subtopology-1',
    'test-subtopology-2',
  ]);
});

test('sticky assignor: previous active tasks stay', () => {
  const r = stickyAssign(
    new Map([
      ['m1', m('p1', { s: [2] })],
      ['m2', m('p2', { s: [0] })],
      ['m3', m('p3', { s: [1] })],
    ]),
    [{ id: 's', numTasks: 3, stateful: false }],
    0,
  );
  assert.deepEqual(flat(r.get('m1')!.active), ['s-2']);
  assert.deepEqual(flat(r.get('m2')!.active), ['s-0']);
  assert.deepEqual(flat(r.get('m3')!.active), ['s-1']);
});

test('sticky assignor: a previous standby gets the active task', () => {
  const r = stickyAssign(
    new Map([
      ['m1', m('p1', {}, { s: [0] })],
      ['m2', m('p2', {}, { s: [1] })],
    ]),
    [{ id: 's', numTasks: 2, stateful: true }],
    0,
  );
  assert.deepEqual(flat(r.get('m1')!.active), ['s-0']);
  assert.deepEqual(flat(r.get('m2')!.active), ['s-1']);
});

test('sticky assignor: balanced over members of one process', () => {
  const r = stickyAssign(
    new Map([
      ['m1', m('p1')],
      ['m2', m('p1')],
    ]),
    [{ id: 's', numTasks: 4, stateful: false }],
    0,
  );
  assert.deepEqual(
    [...r.values()].map((a) => flat(a.active).length),
    [2, 2],
  );
});

test('sticky assignor: standbys never share a process with the active task', () => {
  const r = stickyAssign(
    new Map([
      ['m1', m('p1')],
      ['m2', m('p2')],
      ['m3', m('p3')],
    ]),
    [{ id: 's', numTasks: 3, stateful: true }],
    2,
  );
  for (const a of r.values()) {
    const active = new Set(flat(a.active));
    assert.ok(flat(a.standby).every((t) => !active.has(t)));
  }
  assert.equal(
    [...r.values()].reduce((n, a) => n + flat(a.standby).length, 0),
    6,
  );
});

test('sticky assignor: not enough processes for the standbys', () => {
  const r = stickyAssign(new Map([['m1', m('p1')]]), [{ id: 's', numTasks: 2, stateful: true }], 1);
  assert.deepEqual(flat(r.get('m1')!.active), ['s-0', 's-1']);
  assert.deepEqual(flat(r.get('m1')!.standby), []);
});

test('Java HashMap iteration order', () => {
  // "Aa" and "BB" share a hash code: insertion order within the bucket
  assert.deepEqual(javaHashMapOrder(['BB', 'Aa']), ['BB', 'Aa']);
  assert.deepEqual(javaHashMapOrder(['b', 'a', 'c']), ['a', 'b', 'c']);
});

test('streams.* group configs validated as Kafka 4.4 GroupConfig', async () => {
  const { validateGroupConfigs } = await import('../src/broker/group/group-configs.js');
  const { DEFAULT_GROUP_CONFIG } = await import('../src/broker/group/config.js');
  const v = (m: Record<string, string>) => validateGroupConfigs(new Map(Object.entries(m)), DEFAULT_GROUP_CONFIG);
  assert.equal(v({ 'streams.session.timeout.ms': '50000', 'streams.num.standby.replicas': '2' }), null);
  assert.equal(
    v({ 'streams.session.timeout.ms': '1000' }),
    'streams.session.timeout.ms must be in the range 45000 to 60000 inclusive.',
  );
  assert.equal(
    v({ 'streams.num.standby.replicas': '3' }),
    'streams.num.standby.replicas must be less than or equal to 2',
  );
  assert.equal(
    v({ 'streams.num.standby.replicas': '-1' }),
    'Invalid value -1 for configuration streams.num.standby.replicas: Value must be at least 0',
  );
  assert.equal(
    v({ 'streams.task.offset.interval.ms': '1000' }),
    'streams.task.offset.interval.ms must be greater than or equal to 15000',
  );
  assert.equal(
    v({ 'streams.acceptable.recovery.lag': 'x' }),
    'Invalid value x for configuration streams.acceptable.recovery.lag: Not a number of type LONG',
  );
  assert.equal(
    v({ 'streams.rack.aware.assignment.tags': 'az,az' }),
    'streams.rack.aware.assignment.tags must not contain duplicate tag keys.',
  );
  assert.equal(
    v({ 'streams.assignor.name': 'balanced' }),
    "streams.assignor.name 'balanced' is not a registered task assignor. Registered assignors are: [sticky].",
  );
  assert.equal(v({ 'streams.heartbeat.interval.ms': '15000', 'streams.session.timeout.ms': '45000' }), null);
  assert.equal(v({ 'streams.initial.rebalance.delay.ms': '0', 'streams.assignor.name': 'sticky' }), null);
});

test('a group config change (num.standby.replicas) triggers a rebalance', async () => {
  const configs = new Map<string, string>();
  const h = await harness(FAST);
  // the harness' metadata view has no group configs: give it some
  for (const shard of h.gc.shards.values())
    (shard.ctx.metadata as { groupConfigs?: (g: string) => ReadonlyMap<string, string> }).groupConfigs = () => configs;
  try {
    await withTopics(h, 2);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'B', 'pB'), INFO);
    const [before] = await h.gc.streamsGroupDescribe(['app']);
    configs.set('streams.num.standby.replicas', '1');
    const r = await h.gc.streamsGroupHeartbeat(
      hb('app', 'A', before!.members.find((m) => m.memberId === 'A')!.memberEpoch),
      INFO,
    );
    assert.equal(r.response.errorCode, E.NONE);
    const [after] = await h.gc.streamsGroupDescribe(['app']);
    assert.equal(after!.groupEpoch, before!.groupEpoch + 1);
    const standbys = after!.members.flatMap((m) => m.targetAssignment.standbyTasks.flatMap((t) => t.partitions));
    assert.equal(standbys.length, 2);
  } finally {
    await h.close();
  }
});

test('static members: temporary leave (-2), rejoin with a new member id, fencing', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 2);
    const a = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA', { instanceId: 'i1' }), INFO);
    assert.equal(countTasks(a.response.activeTasks), 4);
    // another member id for a held instance id
    const taken = await h.gc.streamsGroupHeartbeat(joinReq('app', 'X', 'pX', { instanceId: 'i1' }), INFO);
    assert.equal(taken.response.errorCode, E.UNRELEASED_INSTANCE_ID);
    assert.equal(
      taken.response.errorMessage,
      'Static member X with instance id i1 cannot join the group because the instance id is owned by A member.',
    );
    const wrong = await h.gc.streamsGroupHeartbeat(hb('app', 'X', 2, { instanceId: 'i1' }), INFO);
    assert.equal(wrong.response.errorCode, E.FENCED_INSTANCE_ID);
    // -2: the member stays, at epoch -2, keeping its tasks (their epochs reset)
    const left = await h.gc.streamsGroupHeartbeat(hb('app', 'A', -2, { instanceId: 'i1' }), INFO);
    assert.deepEqual([left.response.errorCode, left.response.memberEpoch], [E.NONE, -2]);
    let [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.deepEqual(
      d!.members.map((m) => [m.memberId, m.memberEpoch, m.instanceId]),
      [['A', -2, 'i1']],
    );
    // the instance comes back with a new member id: it replaces A and gets A's tasks
    const back = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A2', 'pA', { instanceId: 'i1' }), INFO);
    assert.equal(back.response.errorCode, E.NONE);
    assert.equal(countTasks(back.response.activeTasks), 4);
    [d] = await h.gc.streamsGroupDescribe(['app']);
    assert.deepEqual(
      d!.members.map((m) => [m.memberId, m.instanceId]),
      [['A2', 'i1']],
    );
  } finally {
    await h.close();
  }
});

test('a member asking for the application shutdown: every member hears it', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 1);
    const a = await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    const b = await h.gc.streamsGroupHeartbeat(joinReq('app', 'B', 'pB'), INFO);
    await h.gc.streamsGroupHeartbeat(hb('app', 'A', a.response.memberEpoch, { shutdownApplication: true }), INFO);
    const rb = await h.gc.streamsGroupHeartbeat(hb('app', 'B', b.response.memberEpoch), INFO);
    assert.deepEqual(rb.response.status, [
      {
        statusCode: StreamsStatus.SHUTDOWN_APPLICATION,
        statusDetail:
          'Streams group member A encountered a fatal error and requested a shutdown for the entire application.',
      },
    ]);
  } finally {
    await h.close();
  }
});

test('a member with an older topology epoch hears STALE_TOPOLOGY; a changed topology is refused', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 1);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA', { topology: wordCount(1) }), INFO);
    const old = await h.gc.streamsGroupHeartbeat(joinReq('app', 'B', 'pB', { topology: wordCount(0) }), INFO);
    assert.deepEqual(old.response.status, [
      {
        statusCode: StreamsStatus.STALE_TOPOLOGY,
        statusDetail: "The member's topology epoch 0 is behind the group's topology epoch 1.",
      },
    ]);
    const changed = await h.gc.streamsGroupHeartbeat(
      joinReq('app', 'C', 'pC', {
        topology: { ...wordCount(1), subtopologies: wordCount(1).subtopologies.slice(0, 1) },
      }),
      INFO,
    );
    assert.deepEqual(
      [changed.response.errorCode, changed.response.errorMessage],
      [E.INVALID_REQUEST, 'Topology updates are not supported yet.'],
    );
  } finally {
    await h.close();
  }
});

test('transactional offset commits of an older epoch: only tasks assigned at that epoch', async () => {
  const h = await harness(FAST);
  try {
    await withTopics(h, 1);
    await h.gc.streamsGroupHeartbeat(joinReq('app', 'A', 'pA'), INFO);
    const shard = h.gc.shardFor('app');
    const check = (epoch: number, topic: string) =>
      shard.read(() =>
        shard.offsetManager.validateTransactionalCommit('app', 'A', null, epoch, [
          { name: topic, partitions: [{ partitionIndex: 0 }] },
        ]),
      );
    await check(2, 'input');
    await assert.rejects(
      check(1, 'input'),
      (e: { code: number; message: string }) =>
        e.code === E.STALE_MEMBER_EPOCH &&
        e.message === 'Received member epoch 1 is older than assignment epoch 2 for task 0-0.',
    );
    await assert.rejects(
      check(1, 'other'),
      (e: { code: number; message: string }) =>
        e.code === E.STALE_MEMBER_EPOCH && e.message === 'Topic other is not in the topology.',
    );
  } finally {
    await h.close();
  }
});
