// A streams group (KIP-1071; Kafka 4.4's StreamsGroup / StreamsGroupMember / TasksTuple): group
// epoch, the topology the first member brought (StreamsGroupTopology record) and its configured form
// (partition counts of the internal topics, computed from the metadata, not persisted), members with
// their process ids, endpoints and tasks (active tasks carry the epoch they were assigned at), the
// target assignment, and which process currently owns which task (the revocation dance waits for a
// task to be released by its previous process). The group changes only by replaying its records.
import type { StreamsGroupRecord } from './records.js';
import type { StreamsGroupTopologyValueSubtopology } from '../../protocol/generated/group/StreamsGroupTopology.js';
import type { StreamsGroupCurrentMemberAssignmentValueTaskIds } from '../../protocol/generated/group/StreamsGroupCurrentMemberAssignment.js';
import type { ConfiguredTopology } from './streams-topology.js';

/** Subtopology id → task (partition) numbers. */
export type TaskMap = Map<string, Set<number>>;
/** Subtopology id → task number → the epoch it was assigned at (active tasks). */
export type TaskEpochMap = Map<string, Map<number, number>>;

/** TasksTuple: a target assignment. */
export interface TasksTuple {
  active: TaskMap;
  standby: TaskMap;
  warmup: TaskMap;
}

/** TasksTupleWithEpochs: a member's current assignment. */
export interface TasksTupleWithEpochs {
  active: TaskEpochMap;
  standby: TaskMap;
  warmup: TaskMap;
}

export const emptyTasks = (): TasksTuple => ({ active: new Map(), standby: new Map(), warmup: new Map() });
export const emptyTasksWithEpochs = (): TasksTupleWithEpochs => ({
  active: new Map(),
  standby: new Map(),
  warmup: new Map(),
});

/** org.apache.kafka.coordinator.group.streams.MemberState. */
export const StreamsMemberState = { STABLE: 1, UNREVOKED_TASKS: 2, UNRELEASED_TASKS: 3, UNKNOWN: 127 } as const;
export const streamsMemberStateName = (s: number): string =>
  s === 1 ? 'STABLE' : s === 2 ? 'UNREVOKED_TASKS' : s === 3 ? 'UNRELEASED_TASKS' : 'UNKNOWN';

export type StreamsGroupState = 'Empty' | 'NotReady' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

export interface Endpoint {
  host: string;
  port: number;
}

export interface StreamsMember {
  memberId: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  clientId: string;
  clientHost: string;
  topologyEpoch: number;
  processId: string;
  userEndpoint: Endpoint | null;
  clientTags: Map<string, string>;
  assignedTasks: TasksTupleWithEpochs;
  tasksPendingRevocation: TasksTupleWithEpochs;
}

/** StreamsGroupMember.Builder.withDefaults. */
export function newStreamsMember(memberId: string): StreamsMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: StreamsMemberState.STABLE,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    clientId: '',
    clientHost: '',
    topologyEpoch: -1,
    processId: '',
    userEndpoint: null,
    clientTags: new Map(),
    assignedTasks: emptyTasksWithEpochs(),
    tasksPendingRevocation: emptyTasksWithEpochs(),
  };
}

/** The topology of a streams group (StreamsTopology): its subtopologies as the record keeps them. */
export interface StreamsTopology {
  epoch: number;
  subtopologies: Map<string, StreamsGroupTopologyValueSubtopology>;
}

/** StreamsTopology.requiredTopics: source, repartition source and changelog topics. */
export function requiredTopics(t: StreamsTopology): Set<string> {
  const out = new Set<string>();
  for (const s of t.subtopologies.values()) {
    for (const n of s.sourceTopics) out.add(n);
    for (const r of s.repartitionSourceTopics) out.add(r.name);
    for (const c of s.stateChangelogTopics) out.add(c.name);
  }
  return out;
}

/** StreamsTopology.sourceTopicMap: source and repartition source topic → subtopology id. */
export function sourceTopicMap(t: StreamsTopology): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of t.subtopologies.values()) {
    for (const n of s.sourceTopics) out.set(n, s.subtopologyId);
    for (const r of s.repartitionSourceTopics) out.set(r.name, s.subtopologyId);
  }
  return out;
}

/** Two topologies are the same (StreamsTopology.equals on the record form). */
export function sameTopology(a: StreamsTopology, b: StreamsTopology): boolean {
  if (a.epoch !== b.epoch || a.subtopologies.size !== b.subtopologies.size) return false;
  const norm = (s: StreamsGroupTopologyValueSubtopology) =>
    JSON.stringify({
      ...s,
      _unknownTaggedFields: undefined,
      stateChangelogTopics: s.stateChangelogTopics.map((t) => ({ ...t, _unknownTaggedFields: undefined })),
      repartitionSourceTopics: s.repartitionSourceTopics.map((t) => ({ ...t, _unknownTaggedFields: undefined })),
    });
  for (const [id, s] of a.subtopologies) {
    const o = b.subtopologies.get(id);
    if (!o || norm(o) !== norm(s)) return false;
  }
  return true;
}

const copyTaskMap = (m: TaskMap): TaskMap => new Map([...m].map(([k, v]) => [k, new Set(v)]));
const copyEpochMap = (m: TaskEpochMap): TaskEpochMap => new Map([...m].map(([k, v]) => [k, new Map(v)]));
export const copyTasksWithEpochs = (t: TasksTupleWithEpochs): TasksTupleWithEpochs => ({
  active: copyEpochMap(t.active),
  standby: copyTaskMap(t.standby),
  warmup: copyTaskMap(t.warmup),
});

export const taskMapEquals = (a: TaskMap, b: TaskMap): boolean => {
  const ka = [...a].filter(([, v]) => v.size > 0);
  const kb = [...b].filter(([, v]) => v.size > 0);
  if (ka.length !== kb.length) return false;
  for (const [k, v] of ka) {
    const o = b.get(k);
    if (!o || o.size !== v.size) return false;
    for (const p of v) if (!o.has(p)) return false;
  }
  return true;
};
const epochMapEquals = (a: TaskEpochMap, b: TaskEpochMap): boolean => {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (!o || o.size !== v.size) return false;
    for (const [p, e] of v) if (o.get(p) !== e) return false;
  }
  return true;
};
export const tasksTupleEquals = (a: TasksTuple, b: TasksTuple): boolean =>
  taskMapEquals(a.active, b.active) && taskMapEquals(a.standby, b.standby) && taskMapEquals(a.warmup, b.warmup);
export const tasksWithEpochsEquals = (a: TasksTupleWithEpochs, b: TasksTupleWithEpochs): boolean =>
  epochMapEquals(a.active, b.active) && taskMapEquals(a.standby, b.standby) && taskMapEquals(a.warmup, b.warmup);
export const isTasksWithEpochsEmpty = (t: TasksTupleWithEpochs): boolean =>
  t.active.size === 0 && t.standby.size === 0 && t.warmup.size === 0;

/** The active task numbers of a current assignment, without epochs. */
export const activeTaskMap = (m: TaskEpochMap): TaskMap => new Map([...m].map(([k, v]) => [k, new Set(v.keys())]));

/** StreamsGroupMember.hasAssignedTasksChanged. */
export const hasAssignedTasksChanged = (a: StreamsMember, b: StreamsMember): boolean =>
  !tasksWithEpochsEquals(a.assignedTasks, b.assignedTasks);

/** StreamsGroupMember.equals: every field. */
export function streamsMemberEquals(a: StreamsMember, b: StreamsMember): boolean {
  return (
    a.memberId === b.memberId &&
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    a.instanceId === b.instanceId &&
    a.rackId === b.rackId &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    a.topologyEpoch === b.topologyEpoch &&
    a.processId === b.processId &&
    a.userEndpoint?.host === b.userEndpoint?.host &&
    a.userEndpoint?.port === b.userEndpoint?.port &&
    a.clientTags.size === b.clientTags.size &&
    [...a.clientTags].every(([k, v]) => b.clientTags.get(k) === v) &&
    tasksWithEpochsEquals(a.assignedTasks, b.assignedTasks) &&
    tasksWithEpochsEquals(a.tasksPendingRevocation, b.tasksPendingRevocation)
  );
}

/** StreamsGroupMember.isReconciledTo. */
export const isReconciledTo = (m: StreamsMember, epoch: number): boolean =>
  m.state === StreamsMemberState.STABLE && m.memberEpoch === epoch;

const taskMapFrom = (l: readonly { subtopologyId: string; partitions: readonly number[] }[]): TaskMap =>
  new Map(l.map((t) => [t.subtopologyId, new Set(t.partitions)]));

/** TasksTupleWithEpochs.fromCurrentAssignmentRecord: active tasks without epochs get the member epoch. */
function epochMapFrom(
  l: readonly StreamsGroupCurrentMemberAssignmentValueTaskIds[],
  memberEpoch: number,
): TaskEpochMap {
  const out: TaskEpochMap = new Map();
  for (const t of l) {
    const m = new Map<number, number>();
    const epochs = t.assignmentEpochs;
    t.partitions.forEach((p, i) =>
      m.set(p, epochs && epochs.length === t.partitions.length ? epochs[i]! : memberEpoch),
    );
    out.set(t.subtopologyId, m);
  }
  return out;
}

const key = (subtopologyId: string, partition: number): string => `${subtopologyId}\u0000${partition}`;

export interface MemberTaskOffsets {
  taskOffsets: Map<string, Map<number, bigint>>;
  taskEndOffsets: Map<string, Map<number, bigint>>;
}

export class StreamsGroup {
  readonly type = 'streams' as const;
  /** A new group starts at epoch 1 (StreamsGroup's constructor): the first join bumps it to 2. */
  groupEpoch = 1;
  metadataHash = 0n;
  validatedTopologyEpoch = -1;
  storedDescriptionTopologyEpoch = -1;
  failedDescriptionTopologyEpoch = -1;
  /** TargetAssignmentMetadata.INITIAL: epoch 1 (a member delayed by the initial rebalance gets epoch 1). */
  assignmentEpoch = 1;
  assignmentTimestamp = 0n;
  readonly members = new Map<string, StreamsMember>();
  /** instance id → member id */
  readonly staticMembers = new Map<string, string>();
  readonly targetAssignment = new Map<string, TasksTuple>();
  topology: StreamsTopology | null = null;
  /** Not persisted: computed from the topology and the metadata (InternalTopicManager.configureTopics). */
  configuredTopology: ConfiguredTopology | null = null;
  lastAssignmentConfigs = new Map<string, string>();
  metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };
  shutdownRequestMemberId: string | null = null;
  endpointInformationEpoch = 0;
  readonly taskOffsets = new Map<string, MemberTaskOffsets>();
  private readonly activeOwner = new Map<string, string>();
  private readonly standbyOwners = new Map<string, Set<string>>();
  private readonly warmupOwners = new Map<string, Set<string>>();

  constructor(readonly groupId: string) {}

  /** StreamsGroup.maybeUpdateGroupState, computed. */
  get state(): StreamsGroupState {
    if (this.members.size === 0) return 'Empty';
    if (!this.topology || this.topology.epoch !== this.validatedTopologyEpoch) return 'NotReady';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) if (!isReconciledTo(m, this.assignmentEpoch)) return 'Reconciling';
    return 'Stable';
  }

  get isEmpty(): boolean {
    return this.members.size === 0;
  }

  currentTopologyEpoch(): number {
    return this.topology?.epoch ?? -1;
  }

  staticMember(instanceId: string): StreamsMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  currentActiveTaskProcessId(subtopologyId: string, partition: number): string | null {
    return this.activeOwner.get(key(subtopologyId, partition)) ?? null;
  }

  currentStandbyTaskProcessIds(subtopologyId: string, partition: number): ReadonlySet<string> {
    return this.standbyOwners.get(key(subtopologyId, partition)) ?? new Set();
  }

  currentWarmupTaskProcessIds(subtopologyId: string, partition: number): ReadonlySet<string> {
    return this.warmupOwners.get(key(subtopologyId, partition)) ?? new Set();
  }

  hasMetadataExpired(now: number): boolean {
    return now >= this.metadataRefreshDeadline.deadlineMs || this.groupEpoch < this.metadataRefreshDeadline.epoch;
  }

  /** StreamsGroup.updateMember. */
  updateMember(m: StreamsMember): void {
    const old = this.members.get(m.memberId);
    this.members.set(m.memberId, m);
    if (old) this.removeOwners(old);
    this.addOwners(m.assignedTasks, m.processId);
    this.addOwners(m.tasksPendingRevocation, m.processId);
    if (old?.instanceId) this.staticMembers.delete(old.instanceId);
    if (m.instanceId) this.staticMembers.set(m.instanceId, m.memberId);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.members.delete(memberId);
    this.removeOwners(old);
    if (old.instanceId) this.staticMembers.delete(old.instanceId);
    this.taskOffsets.delete(memberId);
    if (this.members.size === 0) this.shutdownRequestMemberId = null;
  }

  private addOwners(t: TasksTupleWithEpochs, processId: string): void {
    for (const [s, ps] of t.active) for (const p of ps.keys()) this.activeOwner.set(key(s, p), processId);
    const addSet = (m: Map<string, Set<string>>, tm: TaskMap) => {
      for (const [s, ps] of tm)
        for (const p of ps) {
          const k = key(s, p);
          const set = m.get(k) ?? new Set<string>();
          set.add(processId);
          m.set(k, set);
        }
    };
    addSet(this.standbyOwners, t.standby);
    addSet(this.warmupOwners, t.warmup);
  }

  private removeOwners(m: StreamsMember): void {
    for (const t of [m.assignedTasks, m.tasksPendingRevocation]) {
      for (const [s, ps] of t.active)
        for (const p of ps.keys()) {
          const k = key(s, p);
          if (this.activeOwner.get(k) === m.processId) this.activeOwner.delete(k);
        }
      const rmSet = (owners: Map<string, Set<string>>, tm: TaskMap) => {
        for (const [s, ps] of tm)
          for (const p of ps) {
            const k = key(s, p);
            const set = owners.get(k);
            if (!set) continue;
            set.delete(m.processId);
            if (set.size === 0) owners.delete(k);
          }
      };
      rmSet(this.standbyOwners, t.standby);
      rmSet(this.warmupOwners, t.warmup);
    }
  }

  /** GroupMetadataManager.replay for streams-group records. */
  replay(r: StreamsGroupRecord): void {
    switch (r.type) {
      case 'StreamsGroupMetadata':
        if (r.value) {
          this.groupEpoch = r.value.epoch;
          this.metadataHash = r.value.metadataHash;
          this.validatedTopologyEpoch = r.value.validatedTopologyEpoch;
          this.storedDescriptionTopologyEpoch = r.value.storedDescriptionTopologyEpoch;
          this.failedDescriptionTopologyEpoch = r.value.failedDescriptionTopologyEpoch;
          this.lastAssignmentConfigs = new Map((r.value.lastAssignmentConfigs ?? []).map((c) => [c.key, c.value]));
        }
        break;
      case 'StreamsGroupTopology':
        this.topology = r.value
          ? { epoch: r.value.epoch, subtopologies: new Map(r.value.subtopologies.map((s) => [s.subtopologyId, s])) }
          : null;
        break;
      case 'StreamsGroupMemberMetadata': {
        if (r.value === null) {
          this.removeMember(r.memberId);
          break;
        }
        const v = r.value;
        const m: StreamsMember = {
          ...(this.members.get(r.memberId) ?? { ...newStreamsMember(r.memberId), memberEpoch: 0 }),
          instanceId: v.instanceId,
          rackId: v.rackId,
          clientId: v.clientId,
          clientHost: v.clientHost,
          rebalanceTimeoutMs: v.rebalanceTimeoutMs,
          topologyEpoch: v.topologyEpoch,
          processId: v.processId,
          userEndpoint: v.userEndpoint ? { host: v.userEndpoint.host, port: v.userEndpoint.port } : null,
          clientTags: new Map(v.clientTags.map((t) => [t.key, t.value])),
        };
        this.updateMember(m);
        break;
      }
      case 'StreamsGroupTargetAssignmentMetadata':
        if (r.value) {
          this.assignmentEpoch = r.value.assignmentEpoch;
          this.assignmentTimestamp = r.value.assignmentTimestamp;
        } else {
          this.assignmentEpoch = -1;
          this.assignmentTimestamp = 0n;
        }
        break;
      case 'StreamsGroupTargetAssignmentMember':
        if (r.value)
          this.targetAssignment.set(r.memberId, {
            active: taskMapFrom(r.value.activeTasks),
            standby: taskMapFrom(r.value.standbyTasks),
            warmup: taskMapFrom(r.value.warmupTasks),
          });
        else this.targetAssignment.delete(r.memberId);
        break;
      case 'StreamsGroupCurrentMemberAssignment': {
        const cur = this.members.get(r.memberId) ?? (r.value ? newStreamsMember(r.memberId) : undefined);
        if (!cur) break;
        const v = r.value;
        const m: StreamsMember = v
          ? {
              ...cur,
              memberEpoch: v.memberEpoch,
              previousMemberEpoch: v.previousMemberEpoch,
              state: v.state,
              assignedTasks: {
                active: epochMapFrom(v.activeTasks, v.memberEpoch),
                standby: taskMapFrom(v.standbyTasks),
                warmup: taskMapFrom(v.warmupTasks),
              },
              tasksPendingRevocation: {
                active: epochMapFrom(v.activeTasksPendingRevocation, v.memberEpoch),
                standby: taskMapFrom(v.standbyTasksPendingRevocation),
                warmup: taskMapFrom(v.warmupTasksPendingRevocation),
              },
            }
          : {
              ...cur,
              memberEpoch: -1,
              previousMemberEpoch: -1,
              assignedTasks: emptyTasksWithEpochs(),
              tasksPendingRevocation: emptyTasksWithEpochs(),
            };
        this.updateMember(m);
        break;
      }
    }
  }
}

// ------------------------------------------------------------------ records

const sortedTaskIds = (m: TaskMap) =>
  [...m]
    .filter(([, ps]) => ps.size > 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([subtopologyId, ps]) => ({ subtopologyId, partitions: [...ps].sort((x, y) => x - y) }));

const sortedTaskIdsWithEpochs = (m: TaskEpochMap) =>
  [...m]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([subtopologyId, ps]) => {
      const entries = [...ps].sort(([x], [y]) => x - y);
      return { subtopologyId, partitions: entries.map(([p]) => p), assignmentEpochs: entries.map(([, e]) => e) };
    });

/** StreamsCoordinatorRecordHelpers.newStreamsGroupMemberRecord. */
export function memberRecord(groupId: string, m: StreamsMember): StreamsGroupRecord {
  return {
    type: 'StreamsGroupMemberMetadata',
    group: groupId,
    memberId: m.memberId,
    value: {
      rackId: m.rackId,
      instanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      topologyEpoch: m.topologyEpoch,
      processId: m.processId,
      userEndpoint: m.userEndpoint ? { host: m.userEndpoint.host, port: m.userEndpoint.port } : null,
      clientTags: [...m.clientTags]
        .map(([k, v]) => ({ key: k, value: v }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    },
  };
}

/** newStreamsGroupMetadataRecord. */
export function metadataRecord(
  groupId: string,
  epoch: number,
  metadataHash: bigint,
  validatedTopologyEpoch: number,
  assignmentConfigs: ReadonlyMap<string, string>,
  storedDescriptionTopologyEpoch = -1,
  failedDescriptionTopologyEpoch = -1,
): StreamsGroupRecord {
  return {
    type: 'StreamsGroupMetadata',
    group: groupId,
    value: {
      epoch,
      metadataHash,
      validatedTopologyEpoch,
      lastAssignmentConfigs: [...assignmentConfigs].map(([k, v]) => ({ key: k, value: v })),
      storedDescriptionTopologyEpoch,
      failedDescriptionTopologyEpoch,
    },
  };
}

/** newStreamsGroupTargetAssignmentRecord. */
export function targetAssignmentRecord(groupId: string, memberId: string, t: TasksTuple): StreamsGroupRecord {
  return {
    type: 'StreamsGroupTargetAssignmentMember',
    group: groupId,
    memberId,
    value: {
      activeTasks: sortedTaskIds(t.active),
      standbyTasks: sortedTaskIds(t.standby),
      warmupTasks: sortedTaskIds(t.warmup),
    },
  };
}

export const targetAssignmentMetadataRecord = (
  groupId: string,
  assignmentEpoch: number,
  assignmentTimestamp: bigint,
): StreamsGroupRecord => ({
  type: 'StreamsGroupTargetAssignmentMetadata',
  group: groupId,
  value: { assignmentEpoch, assignmentTimestamp },
});

/** newStreamsGroupCurrentAssignmentRecord. */
export function currentAssignmentRecord(groupId: string, m: StreamsMember): StreamsGroupRecord {
  return {
    type: 'StreamsGroupCurrentMemberAssignment',
    group: groupId,
    memberId: m.memberId,
    value: {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      activeTasks: sortedTaskIdsWithEpochs(m.assignedTasks.active),
      standbyTasks: sortedTaskIds(m.assignedTasks.standby).map((t) => ({ ...t, assignmentEpochs: null })),
      warmupTasks: sortedTaskIds(m.assignedTasks.warmup).map((t) => ({ ...t, assignmentEpochs: null })),
      activeTasksPendingRevocation: sortedTaskIdsWithEpochs(m.tasksPendingRevocation.active),
      standbyTasksPendingRevocation: sortedTaskIds(m.tasksPendingRevocation.standby).map((t) => ({
        ...t,
        assignmentEpochs: null,
      })),
      warmupTasksPendingRevocation: sortedTaskIds(m.tasksPendingRevocation.warmup).map((t) => ({
        ...t,
        assignmentEpochs: null,
      })),
    },
  };
}

/** removeStreamsMember: the member's three tombstones, in Kafka's order. */
export function streamsMemberTombstones(groupId: string, memberId: string): StreamsGroupRecord[] {
  return [
    { type: 'StreamsGroupCurrentMemberAssignment', group: groupId, memberId, value: null },
    { type: 'StreamsGroupTargetAssignmentMember', group: groupId, memberId, value: null },
    { type: 'StreamsGroupMemberMetadata', group: groupId, memberId, value: null },
  ];
}

/** StreamsGroup.createGroupTombstoneRecords. */
export function streamsGroupTombstones(g: StreamsGroup): StreamsGroupRecord[] {
  const id = g.groupId;
  const out: StreamsGroupRecord[] = [];
  for (const m of g.members.keys())
    out.push({ type: 'StreamsGroupCurrentMemberAssignment', group: id, memberId: m, value: null });
  for (const m of g.members.keys())
    out.push({ type: 'StreamsGroupTargetAssignmentMember', group: id, memberId: m, value: null });
  out.push({ type: 'StreamsGroupTargetAssignmentMetadata', group: id, value: null });
  for (const m of g.members.keys())
    out.push({ type: 'StreamsGroupMemberMetadata', group: id, memberId: m, value: null });
  out.push({ type: 'StreamsGroupMetadata', group: id, value: null });
  out.push({ type: 'StreamsGroupTopology', group: id, value: null });
  return out;
}
