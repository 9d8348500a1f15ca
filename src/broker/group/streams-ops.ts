// Streams groups in the group coordinator (KIP-1071, Kafka 4.4's GroupMetadataManager.streamsGroupHeartbeat
// and friends). The first member brings the topology (written once as StreamsGroupTopology); each
// heartbeat checks the topology against the metadata (InternalTopicManager: missing source topics,
// partition counts, internal topics to create), bumps the group epoch when the member, the metadata
// hash, the validated topology epoch or the assignment configs change, computes the target
// assignment with the sticky task assignor (after the initial rebalance delay of a new group, at most
// once per assignment interval), and moves the member towards its target as CurrentAssignmentBuilder
// does: tasks another process still owns are withheld (UNRELEASED_TASKS), tasks to give up are
// revoked first (UNREVOKED_TASKS, with a rebalance timeout). Members leave with epoch -1 (or -2 for
// a static member), or are fenced when their session expires.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type {
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatRequestTaskIds,
  StreamsGroupHeartbeatRequestTopology,
  StreamsGroupHeartbeatResponse,
} from '../../protocol/generated/protocol/StreamsGroupHeartbeat.js';
import type {
  StreamsGroupDescribeResponseDescribedGroup,
  StreamsGroupDescribeResponseTopology,
} from '../../protocol/generated/protocol/StreamsGroupDescribe.js';
import type { StreamsGroupTopologyValue } from '../../protocol/generated/group/StreamsGroupTopology.js';
import type { CoordinatorRecord } from './records.js';
import type { OpResult, RequestInfo, ShardContext } from './shard-types.js';
import { computeMetadataHash } from './share-ops.js';
import { javaHashMapOrder, stickyAssign, STICKY_ASSIGNOR_NAME } from './streams-assignor.js';
import {
  activeTaskMap,
  copyTasksWithEpochs,
  currentAssignmentRecord,
  emptyTasks,
  emptyTasksWithEpochs,
  hasAssignedTasksChanged,
  isReconciledTo,
  isTasksWithEpochsEmpty,
  memberRecord,
  metadataRecord,
  newStreamsMember,
  requiredTopics,
  sameTopology,
  streamsMemberEquals,
  streamsMemberStateName,
  StreamsMemberState,
  streamsMemberTombstones,
  StreamsGroup,
  targetAssignmentMetadataRecord,
  targetAssignmentRecord,
  tasksTupleEquals,
  type StreamsMember,
  type StreamsTopology,
  type TaskEpochMap,
  type TaskMap,
  type TasksTuple,
  type TasksTupleWithEpochs,
} from './streams-group.js';
import {
  configureTopics,
  isReady,
  StreamsStatus,
  type ConfiguredTopology,
  type InternalTopicToCreate,
} from './streams-topology.js';

export const STREAMS_LEAVE_GROUP_MEMBER_EPOCH = -1;
export const STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

type Response = Omit<StreamsGroupHeartbeatResponse, 'throttleTimeMs' | '_unknownTaggedFields'>;

export interface StreamsHeartbeatResult {
  response: Response;
  /** CreatableTopics the broker creates (KafkaApis: AutoTopicCreationManager.createStreamsInternalTopics) */
  internalTopicsToCreate: Map<string, InternalTopicToCreate>;
}

export type StreamsDescribedGroup = Omit<StreamsGroupDescribeResponseDescribedGroup, '_unknownTaggedFields'>;

type Owned = StreamsGroupHeartbeatRequestTaskIds[] | null;

const invalid = (msg: string): KafkaError => new KafkaError(ErrorCode.INVALID_REQUEST, msg);

export function errorResponse(code: number, message: string | null): Response {
  return {
    errorCode: code,
    errorMessage: message,
    memberId: '',
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    acceptableRecoveryLagLegacy: 0,
    taskOffsetIntervalMs: 0,
    acceptableRecoveryLag: -1n,
    status: null,
    activeTasks: null,
    standbyTasks: null,
    warmupTasks: null,
    topologyDescriptionRequired: false,
    endpointInformationEpoch: 0,
    partitionsByUserEndpoint: null,
  };
}

/**
 * GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures and
 * throwIfStreamsGroupHeartbeatRequestIsInvalid (with throwIfInvalidTopology), Kafka 4.4's messages.
 */
export function validateStreamsHeartbeatRequest(r: StreamsGroupHeartbeatRequest): void {
  if (r.topology)
    for (const s of r.topology.subtopologies)
      if (s.sourceTopicRegex.length > 0) throw invalid('Regular expressions for source topics are not supported yet.');
  const emptyStr = (v: string | null, msg: string) => {
    if (v !== null && v.trim() === '') throw invalid(msg);
  };
  emptyStr(r.memberId, "MemberId can't be empty.");
  emptyStr(r.groupId, "GroupId can't be empty.");
  emptyStr(r.instanceId, "InstanceId can't be empty.");
  emptyStr(r.rackId, "RackId can't be empty.");
  if (r.memberEpoch === 0) {
    if (r.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
    // Utils.throwIfNotEmptyCollection: a null list is refused too (a join sends empty lists)
    if (r.activeTasks === null || r.activeTasks.length > 0)
      throw invalid('ActiveTasks must be empty when (re-)joining.');
    if (r.standbyTasks === null || r.standbyTasks.length > 0)
      throw invalid('StandbyTasks must be empty when (re-)joining.');
    if (r.warmupTasks === null || r.warmupTasks.length > 0)
      throw invalid('WarmupTasks must be empty when (re-)joining.');
    if (r.topology === null) throw invalid('Topology must be non-null when (re-)joining.');
    for (const s of r.topology.subtopologies)
      for (const t of s.stateChangelogTopics)
        if (t.partitions !== 0)
          throw new KafkaError(
            ErrorCode.STREAMS_INVALID_TOPOLOGY,
            `Changelog topic ${t.name} must have an undefined partition count, but it is set to ${t.partitions}.`,
          );
  } else if (r.memberEpoch === STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (r.instanceId === null) throw invalid("InstanceId can't be null.");
  } else if (r.memberEpoch < STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalid(`MemberEpoch is ${r.memberEpoch}, but must be greater than or equal to -2.`);
  }
  if (r.activeTasks !== null || r.standbyTasks !== null || r.warmupTasks !== null) {
    if (r.activeTasks === null || r.standbyTasks === null || r.warmupTasks === null)
      throw invalid('If one task-type is non-null, all must be non-null.');
  }
  if (r.memberEpoch !== 0 && r.topology !== null) throw invalid('Topology can only be provided when (re-)joining.');
}

/** StreamsCoordinatorRecordHelpers.convertToStreamsGroupTopologyRecord. */
export function topologyRecordValue(t: StreamsGroupHeartbeatRequestTopology): StreamsGroupTopologyValue {
  const info = (x: {
    name: string;
    partitions: number;
    replicationFactor: number;
    topicConfigs: { key: string; value: string }[];
  }) => ({
    name: x.name,
    partitions: x.partitions,
    replicationFactor: x.replicationFactor,
    topicConfigs: x.topicConfigs.map((c) => ({ key: c.key, value: c.value })),
  });
  return {
    epoch: t.epoch,
    subtopologies: t.subtopologies.map((s) => ({
      subtopologyId: s.subtopologyId,
      sourceTopics: [...s.sourceTopics],
      sourceTopicRegex: [...s.sourceTopicRegex],
      repartitionSinkTopics: [...s.repartitionSinkTopics],
      repartitionSourceTopics: s.repartitionSourceTopics.map(info),
      stateChangelogTopics: s.stateChangelogTopics.map(info),
      copartitionGroups: s.copartitionGroups.map((g) => ({
        sourceTopics: [...g.sourceTopics],
        sourceTopicRegex: [...g.sourceTopicRegex],
        repartitionSourceTopics: [...g.repartitionSourceTopics],
      })),
    })),
  };
}

const topologyOf = (v: StreamsGroupTopologyValue): StreamsTopology => ({
  epoch: v.epoch,
  subtopologies: new Map(v.subtopologies.map((s) => [s.subtopologyId, s])),
});

const taskMapOf = (l: readonly StreamsGroupHeartbeatRequestTaskIds[]): TaskMap =>
  new Map(l.map((t) => [t.subtopologyId, new Set(t.partitions)]));

const sortedIds = (m: TaskMap) =>
  [...m]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([subtopologyId, ps]) => ({ subtopologyId, partitions: [...ps].sort((x, y) => x - y) }));

const has = (m: TaskMap, s: string, p: number): boolean => m.get(s)?.has(p) ?? false;
const addTo = (m: TaskMap, s: string, p: number): void => {
  const set = m.get(s) ?? new Set<number>();
  set.add(p);
  m.set(s, set);
};
const removeFrom = (m: TaskMap, s: string, p: number): void => {
  const set = m.get(s);
  if (set?.delete(p) && set.size === 0) m.delete(s);
};

const sessionKey = (g: string, m: string): string => `session-timeout-${g}-${m}`;
const rebalanceKey = (g: string, m: string): string => `rebalance-timeout-${g}-${m}`;
const initialRebalanceKey = (g: string): string => `initial-rebalance-timeout-${g}`;

/**
 * CurrentAssignmentBuilder (Kafka 4.4, streams): the member's next assignment towards the target.
 * `owned` is what the member reported (null when it did not send its tasks).
 */
export function nextAssignment(
  member: StreamsMember,
  targetEpoch: number,
  target: TasksTuple,
  group: Pick<
    StreamsGroup,
    'currentActiveTaskProcessId' | 'currentStandbyTaskProcessIds' | 'currentWarmupTaskProcessIds'
  >,
  owned: TasksTuple | null,
): StreamsMember {
  const pid = member.processId;
  const hasNotReleased = (pending: TasksTupleWithEpochs): boolean => {
    if (owned === null) return true;
    for (const [s, ps] of owned.active) {
      const o = pending.active.get(s);
      if (o && [...ps].some((p) => o.has(p))) return true;
    }
    for (const [s, ps] of owned.standby) if ([...ps].some((p) => pending.standby.get(s)?.has(p))) return true;
    for (const [s, ps] of owned.warmup) if ([...ps].some((p) => pending.warmup.get(s)?.has(p))) return true;
    return false;
  };
  const heldByAnotherOnThisProcess = (ids: ReadonlySet<string>, mine: TaskMap, s: string, p: number) =>
    ids.has(pid) && !has(mine, s, p);

  const compute = (memberEpoch: number, cur: TasksTupleWithEpochs): StreamsMember => {
    const unreleasedActive = (s: string, p: number) =>
      group.currentActiveTaskProcessId(s, p) !== null ||
      heldByAnotherOnThisProcess(group.currentStandbyTaskProcessIds(s, p), cur.standby, s, p) ||
      heldByAnotherOnThisProcess(group.currentWarmupTaskProcessIds(s, p), cur.warmup, s, p);
    const unreleasedStandby = (s: string, p: number) =>
      (group.currentActiveTaskProcessId(s, p) === pid && !(cur.active.get(s)?.has(p) ?? false)) ||
      group.currentStandbyTaskProcessIds(s, p).has(pid) ||
      heldByAnotherOnThisProcess(group.currentWarmupTaskProcessIds(s, p), cur.warmup, s, p);
    const unreleasedWarmup = (s: string, p: number) =>
      group.currentActiveTaskProcessId(s, p) === pid ||
      heldByAnotherOnThisProcess(group.currentStandbyTaskProcessIds(s, p), cur.standby, s, p) ||
      group.currentWarmupTaskProcessIds(s, p).has(pid);

    // active tasks, with epochs
    const newActive: TaskEpochMap = new Map();
    const activeRevoke: TaskEpochMap = new Map();
    const activeAssign: TaskEpochMap = new Map();
    let unreleased = false;
    for (const s of new Set([...target.active.keys(), ...cur.active.keys()])) {
      const c = cur.active.get(s) ?? new Map<number, number>();
      const t = target.active.get(s) ?? new Set<number>();
      const kept = new Map([...c].filter(([p]) => t.has(p)));
      const revoke = new Map([...c].filter(([p]) => !kept.has(p)));
      const assign = new Map<number, number>();
      for (const p of t) if (!kept.has(p)) assign.set(p, targetEpoch);
      for (const p of [...assign.keys()])
        if (unreleasedActive(s, p)) {
          assign.delete(p);
          unreleased = true;
        }
      if (kept.size > 0) newActive.set(s, kept);
      if (revoke.size > 0) activeRevoke.set(s, revoke);
      if (assign.size > 0) activeAssign.set(s, assign);
    }
    const diff = (curM: TaskMap, tgt: TaskMap, isUnreleased: (s: string, p: number) => boolean) => {
      const assigned: TaskMap = new Map();
      const revoke: TaskMap = new Map();
      const assign: TaskMap = new Map();
      for (const s of new Set([...tgt.keys(), ...curM.keys()])) {
        const c = curM.get(s) ?? new Set<number>();
        const t = tgt.get(s) ?? new Set<number>();
        const kept = new Set([...c].filter((p) => t.has(p)));
        const rv = new Set([...c].filter((p) => !kept.has(p)));
        const as = new Set([...t].filter((p) => !kept.has(p)));
        for (const p of [...as])
          if (isUnreleased(s, p)) {
            as.delete(p);
            unreleased = true;
          }
        if (kept.size > 0) assigned.set(s, kept);
        if (rv.size > 0) revoke.set(s, rv);
        if (as.size > 0) assign.set(s, as);
      }
      return { assigned, revoke, assign };
    };
    const sb = diff(cur.standby, target.standby, unreleasedStandby);
    const wu = diff(cur.warmup, target.warmup, unreleasedWarmup);
    // demoteActiveTasksToStandby
    for (const [s, ps] of cur.active)
      for (const p of ps.keys())
        if (has(sb.assign, s, p)) {
          removeFrom(sb.assign, s, p);
          addTo(sb.assigned, s, p);
        }
    // convertReplicaRole: standby → warmup, warmup → standby
    const convert = (outgoing: TaskMap, outRevoke: TaskMap, inAssign: TaskMap, inAssigned: TaskMap) => {
      for (const [s, ps] of outgoing)
        for (const p of ps)
          if (has(inAssign, s, p)) {
            removeFrom(inAssign, s, p);
            addTo(inAssigned, s, p);
            removeFrom(outRevoke, s, p);
          }
    };
    convert(cur.standby, sb.revoke, wu.assign, wu.assigned);
    convert(cur.warmup, wu.revoke, sb.assign, sb.assigned);
    // applyPromotionsToActive
    const dropPromoted = (mine: TaskMap, revoke: TaskMap) => {
      for (const [s, ps] of mine) for (const p of ps) if (target.active.get(s)?.has(p)) removeFrom(revoke, s, p);
    };
    dropPromoted(cur.standby, sb.revoke);
    dropPromoted(cur.warmup, wu.revoke);
    const pendingRevocation: TasksTupleWithEpochs = { active: activeRevoke, standby: sb.revoke, warmup: wu.revoke };
    const toRevoke = !isTasksWithEpochsEmpty(pendingRevocation) && hasNotReleased(pendingRevocation);
    const keepPromoted = (mine: TaskMap, assigned: TaskMap) => {
      for (const [s, ps] of mine)
        for (const p of ps) {
          const promotedNow = !toRevoke && (activeAssign.get(s)?.has(p) ?? false);
          if ((target.active.get(s)?.has(p) ?? false) && !promotedNow) addTo(assigned, s, p);
        }
    };
    keepPromoted(cur.standby, sb.assigned);
    keepPromoted(cur.warmup, wu.assigned);

    const assigned: TasksTupleWithEpochs = { active: newActive, standby: sb.assigned, warmup: wu.assigned };
    const pendingAssignment: TasksTupleWithEpochs = { active: activeAssign, standby: sb.assign, warmup: wu.assign };
    const withEpoch = (epoch: number, state: number, a: TasksTupleWithEpochs, rv: TasksTupleWithEpochs) => ({
      ...member,
      state,
      previousMemberEpoch: member.memberEpoch,
      memberEpoch: epoch,
      assignedTasks: a,
      tasksPendingRevocation: rv,
    });
    if (toRevoke) return withEpoch(memberEpoch, StreamsMemberState.UNREVOKED_TASKS, assigned, pendingRevocation);
    if (!isTasksWithEpochsEmpty(pendingAssignment)) {
      const merged: TasksTupleWithEpochs = copyTasksWithEpochs(assigned);
      for (const [s, ps] of pendingAssignment.active) {
        const m = merged.active.get(s) ?? new Map<number, number>();
        for (const [p, e] of ps) m.set(p, e);
        merged.active.set(s, m);
      }
      for (const [s, ps] of pendingAssignment.standby) for (const p of ps) addTo(merged.standby, s, p);
      for (const [s, ps] of pendingAssignment.warmup) for (const p of ps) addTo(merged.warmup, s, p);
      return withEpoch(
        targetEpoch,
        unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE,
        merged,
        emptyTasksWithEpochs(),
      );
    }
    return withEpoch(
      targetEpoch,
      unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE,
      assigned,
      emptyTasksWithEpochs(),
    );
  };

  switch (member.state) {
    case StreamsMemberState.STABLE:
      return member.memberEpoch !== targetEpoch ? compute(member.memberEpoch, member.assignedTasks) : member;
    case StreamsMemberState.UNREVOKED_TASKS:
      if (hasNotReleased(member.tasksPendingRevocation)) return member;
      return compute(member.memberEpoch + 1, member.assignedTasks);
    case StreamsMemberState.UNRELEASED_TASKS:
      return compute(member.memberEpoch, member.assignedTasks);
    default:
      if (owned !== null && owned.active.size === 0 && owned.standby.size === 0 && owned.warmup.size === 0)
        return compute(targetEpoch, member.assignedTasks);
      throw new KafkaError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        'The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.',
      );
  }
}

/** StreamsGroupMember.Builder.updateMemberEpoch keeps the previous epoch: only when it changes. */
function fixPreviousEpoch(before: StreamsMember, after: StreamsMember): StreamsMember {
  if (after === before) return after;
  return { ...after, previousMemberEpoch: before.memberEpoch };
}

export class StreamsGroupManager {
  constructor(private readonly ctx: ShardContext) {}

  group(groupId: string): StreamsGroup | undefined {
    const g = this.ctx.groups.get(groupId);
    return g && g.type === 'streams' ? g : undefined;
  }

  /** GroupMetadataManager.streamsGroup: GROUP_ID_NOT_FOUND when missing or of another type. */
  streamsGroup(groupId: string): StreamsGroup {
    const g = this.ctx.groups.get(groupId);
    if (!g) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    if (g.type !== 'streams')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);
    return g;
  }

  /** getOrCreateStreamsGroup: an empty classic group is deleted and replaced. */
  private getOrCreate(groupId: string, records: CoordinatorRecord[]): StreamsGroup {
    const g = this.ctx.groups.get(groupId);
    if (!g) return new StreamsGroup(groupId);
    if (g.type === 'classic' && g.isEmpty) {
      records.push({ type: 'GroupMetadata', group: groupId, value: null });
      this.ctx.log('INFO', `[GroupId ${groupId}] Converted the empty classic group to a streams group.`);
      return new StreamsGroup(groupId);
    }
    if (g.type !== 'streams')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);
    return g;
  }

  private getOrThrow(groupId: string): StreamsGroup {
    const g = this.ctx.groups.get(groupId);
    if (!g) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Streams group ${groupId} not found.`);
    if (g.type !== 'streams')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);
    return g;
  }

  private static epochCheck(m: StreamsMember, epoch: number, req: StreamsGroupHeartbeatRequest): void {
    if (epoch === 0) return;
    if (epoch > m.memberEpoch)
      throw new KafkaError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The streams group member has a greater member epoch (${epoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    const contained = (owned: Owned, assigned: TaskMap) =>
      owned === null || owned.every((t) => t.partitions.every((p) => assigned.get(t.subtopologyId)?.has(p) ?? false));
    if (
      epoch < m.memberEpoch &&
      (epoch !== m.previousMemberEpoch ||
        !contained(req.activeTasks, activeTaskMap(m.assignedTasks.active)) ||
        !contained(req.standbyTasks, m.assignedTasks.standby) ||
        !contained(req.warmupTasks, m.assignedTasks.warmup))
    )
      throw new KafkaError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The streams group member has a smaller member epoch (${epoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
  }

  /** StreamsGroupHeartbeat: join (epoch 0), heartbeat, or leave (-1, -2). */
  heartbeat(req: StreamsGroupHeartbeatRequest, info: RequestInfo): OpResult<StreamsHeartbeatResult> {
    if (
      req.memberEpoch === STREAMS_LEAVE_GROUP_MEMBER_EPOCH ||
      req.memberEpoch === STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH
    )
      return this.leave(req);
    const now = this.ctx.clock();
    const records: CoordinatorRecord[] = [];
    const status: { statusCode: number; statusDetail: string }[] = [];
    const groupId = req.groupId;
    const memberId = req.memberId;
    const joining = req.memberEpoch === 0;
    let group: StreamsGroup;
    if (joining) {
      group = this.getOrCreate(groupId, records);
      const max = this.ctx.config.streamsMaxSize;
      if (
        !(req.instanceId !== null && group.staticMembers.has(req.instanceId)) &&
        group.members.size >= max &&
        (memberId === '' || !group.members.has(memberId))
      )
        throw new KafkaError(
          ErrorCode.GROUP_MAX_SIZE_REACHED,
          `The streams group has reached its maximum capacity of ${max} members.`,
        );
    } else group = this.getOrThrow(groupId);

    let replacedStatic: StreamsMember | null = null;
    let member: StreamsMember;
    if (req.instanceId === null) {
      const existing = group.members.get(memberId);
      if (!existing && !joining)
        throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
      member = existing ?? newStreamsMember(memberId);
      StreamsGroupManager.epochCheck(member, req.memberEpoch, req);
      if (joining) this.ctx.log('INFO', `[GroupId ${groupId}][MemberId ${memberId}] Member joins the streams group.`);
    } else {
      const old = group.staticMember(req.instanceId);
      if (old && old.memberId !== memberId) replacedStatic = old;
      if (joining) {
        if (!old) {
          member = group.members.get(memberId) ?? newStreamsMember(memberId);
          this.ctx.log(
            'INFO',
            `[GroupId ${groupId}][MemberId ${memberId}] Static member ${memberId} with instance id ${req.instanceId} joins the streams group.`,
          );
        } else {
          if (old.memberEpoch !== STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH)
            throw new KafkaError(
              ErrorCode.UNRELEASED_INSTANCE_ID,
              `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${old.memberId} member.`,
            );
          member = { ...old, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
          records.push(...streamsMemberTombstones(groupId, old.memberId));
          records.push(memberRecord(groupId, member));
          records.push(
            targetAssignmentRecord(groupId, memberId, group.targetAssignment.get(old.memberId) ?? emptyTasks()),
          );
          records.push(currentAssignmentRecord(groupId, member));
        }
      } else {
        if (!old) throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
        if (old.memberId !== memberId)
          throw new KafkaError(
            ErrorCode.FENCED_INSTANCE_ID,
            `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${old.memberId}.`,
          );
        StreamsGroupManager.epochCheck(old, req.memberEpoch, req);
        member = old;
      }
    }

    const updated: StreamsMember = {
      ...member,
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      topologyEpoch: req.topology ? req.topology.epoch : member.topologyEpoch,
      clientId: info.clientId,
      clientHost: info.clientHost,
      processId: req.processId ?? member.processId,
      clientTags: req.clientTags ? new Map(req.clientTags.map((t) => [t.key, t.value])) : member.clientTags,
      userEndpoint: joining
        ? req.userEndpoint
          ? { host: req.userEndpoint.host, port: req.userEndpoint.port }
          : null
        : req.userEndpoint
          ? { host: req.userEndpoint.host, port: req.userEndpoint.port }
          : member.userEndpoint,
    };
    let update: 'NONE' | 'RECOMPUTE' = 'NONE';
    if (!streamsMemberEquals(updated, member)) {
      records.push(memberRecord(groupId, updated));
      this.ctx.log('INFO', `[GroupId ${groupId}][MemberId ${memberId}] Member updated its member metadata.`);
      if (
        req.instanceId === null ||
        member.topologyEpoch !== updated.topologyEpoch ||
        member.rackId !== updated.rackId ||
        member.processId !== updated.processId ||
        JSON.stringify([...member.clientTags]) !== JSON.stringify([...updated.clientTags])
      )
        update = 'RECOMPUTE';
    }

    // maybeUpdateTopology
    let topology: StreamsTopology;
    if (req.topology) {
      const fromRequest = topologyOf(topologyRecordValue(req.topology));
      if (!group.topology) {
        this.ctx.log(
          'INFO',
          `[GroupId ${groupId}][MemberId ${memberId}] Member initialized the topology with epoch ${req.topology.epoch}`,
        );
        records.push({ type: 'StreamsGroupTopology', group: groupId, value: topologyRecordValue(req.topology) });
        topology = fromRequest;
      } else if (group.topology.epoch > req.topology.epoch) {
        topology = group.topology;
      } else if (!sameTopology(group.topology, fromRequest)) {
        throw invalid('Topology updates are not supported yet.');
      } else topology = group.topology;
    } else if (group.topology) topology = group.topology;
    else
      throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, 'The topology is null and the group topology is also null.');
    if (group.topology && updated.topologyEpoch < group.topology.epoch)
      status.push({
        statusCode: StreamsStatus.STALE_TOPOLOGY,
        statusDetail: `The member's topology epoch ${updated.topologyEpoch} is behind the group's topology epoch ${group.topology.epoch}.`,
      });

    let reconfigure = group.topology === null;
    let metadataHash = group.metadataHash;
    let configured: ConfiguredTopology;
    if (!reconfigure && group.configuredTopology && !group.hasMetadataExpired(now)) {
      configured = group.configuredTopology;
    } else {
      metadataHash = computeMetadataHash(requiredTopics(topology), this.ctx);
      if (metadataHash !== group.metadataHash) {
        this.ctx.log('INFO', `[GroupId ${groupId}][MemberId ${memberId}] Computed new metadata hash: ${metadataHash}.`);
        update = 'RECOMPUTE';
        reconfigure = true;
      }
      if (!reconfigure && group.configuredTopology) configured = group.configuredTopology;
      else {
        this.ctx.log('INFO', `[GroupId ${groupId}][MemberId ${memberId}] Configuring the topology ${topology.epoch}`);
        configured = configureTopics(topology, metadataHash, (n) => this.ctx.metadata.topic(n));
        group.configuredTopology = configured;
      }
    }

    let validatedTopologyEpoch = -1;
    if (isReady(configured)) {
      validatedTopologyEpoch = topology.epoch;
      const subs = configured.subtopologies!;
      for (const owned of [req.activeTasks, req.standbyTasks, req.warmupTasks])
        for (const t of owned ?? []) {
          const s = subs.get(t.subtopologyId);
          if (!s) throw invalid(`Subtopology ${t.subtopologyId} does not exist in the topology.`);
          for (const p of t.partitions)
            if (p < 0 || p >= s.numberOfTasks)
              throw invalid(
                `Task ${p} for subtopology ${t.subtopologyId} is invalid. Number of tasks for this subtopology: ${s.numberOfTasks}`,
              );
        }
    }
    if (req.taskOffsets !== null || req.taskEndOffsets !== null) {
      const cur = group.taskOffsets.get(memberId) ?? { taskOffsets: new Map(), taskEndOffsets: new Map() };
      const nested = (l: NonNullable<StreamsGroupHeartbeatRequest['taskOffsets']>) => {
        const out = new Map<string, Map<number, bigint>>();
        for (const o of l) {
          const m = out.get(o.subtopologyId) ?? new Map<number, bigint>();
          if (m.has(o.partition))
            throw invalid(
              `Task offsets contain a duplicate entry for subtopology ${o.subtopologyId} and partition ${o.partition}.`,
            );
          m.set(o.partition, o.offset);
          out.set(o.subtopologyId, m);
        }
        return out;
      };
      group.taskOffsets.set(memberId, {
        taskOffsets: req.taskOffsets ? nested(req.taskOffsets) : cur.taskOffsets,
        taskEndOffsets: req.taskEndOffsets ? nested(req.taskEndOffsets) : cur.taskEndOffsets,
      });
    }
    if (validatedTopologyEpoch !== group.validatedTopologyEpoch) update = 'RECOMPUTE';
    const assignmentConfigs = this.assignmentConfigs(groupId);
    if (update === 'NONE' && !sameMap(assignmentConfigs, group.lastAssignmentConfigs)) {
      this.ctx.log(
        'INFO',
        `[GroupId ${groupId}][MemberId ${memberId}] Assignment configurations changed. Triggering rebalance.`,
      );
      update = 'RECOMPUTE';
    }

    let groupEpoch = group.groupEpoch;
    if (update !== 'NONE') {
      groupEpoch++;
      records.push(
        metadataRecord(
          groupId,
          groupEpoch,
          metadataHash,
          validatedTopologyEpoch,
          assignmentConfigs,
          group.storedDescriptionTopologyEpoch,
          group.failedDescriptionTopologyEpoch,
        ),
      );
      this.ctx.log(
        'INFO',
        `[GroupId ${groupId}][MemberId ${memberId}] Bumped streams group epoch to ${groupEpoch} with metadata hash ${metadataHash} and validated topic epoch ${validatedTopologyEpoch}.`,
      );
      group.metadataRefreshDeadline = { deadlineMs: now + 2_147_483_647, epoch: groupEpoch };
    }
    if (group.isEmpty) {
      const delay = this.initialRebalanceDelayMs(groupId);
      if (delay > 0 && !this.ctx.timer.has(initialRebalanceKey(groupId)))
        this.ctx.timer.schedule(initialRebalanceKey(groupId), delay, () =>
          this.computeDelayedTargetAssignment(groupId),
        );
    }

    const target = this.maybeUpdateTargetAssignment(
      group,
      groupEpoch,
      updated,
      configured,
      records,
      status,
      assignmentConfigs,
    );
    const memberTarget = target.assignment.get(memberId) ?? emptyTasks();
    let reconciled = updated;
    if (!isReconciledTo(updated, target.epoch)) {
      const owned =
        req.activeTasks && req.standbyTasks && req.warmupTasks
          ? {
              active: taskMapOf(req.activeTasks),
              standby: taskMapOf(req.standbyTasks),
              warmup: taskMapOf(req.warmupTasks),
            }
          : null;
      reconciled = fixPreviousEpoch(updated, nextAssignment(updated, target.epoch, memberTarget, group, owned));
      if (!streamsMemberEquals(reconciled, updated)) {
        records.push(currentAssignmentRecord(groupId, reconciled));
        this.ctx.log(
          'INFO',
          `[GroupId ${groupId}][MemberId ${memberId}] Member's new assignment state: epoch=${reconciled.memberEpoch}, previousEpoch=${reconciled.previousMemberEpoch}, state=${streamsMemberStateName(reconciled.state)}.`,
        );
        if (reconciled.state === StreamsMemberState.UNREVOKED_TASKS)
          this.scheduleRebalanceTimeout(groupId, memberId, reconciled.memberEpoch, reconciled.rebalanceTimeoutMs);
        else this.ctx.timer.cancel(rebalanceKey(groupId, memberId));
      }
    }
    this.scheduleSessionTimeout(groupId, memberId);
    if (req.shutdownApplication && group.shutdownRequestMemberId === null) {
      this.ctx.log(
        'INFO',
        `[GroupId ${groupId}][MemberId ${memberId}] Shutdown requested for the streams application.`,
      );
      group.shutdownRequestMemberId = memberId;
    }

    const response: Response = {
      ...errorResponse(ErrorCode.NONE, null),
      memberId: reconciled.memberId,
      memberEpoch: reconciled.memberEpoch,
      heartbeatIntervalMs: this.heartbeatIntervalMs(groupId),
      taskOffsetIntervalMs: this.taskOffsetIntervalMs(groupId),
      acceptableRecoveryLag: BigInt(this.acceptableRecoveryLag(groupId)),
      // AcceptableRecoveryLagLegacy (int32) is v0 only, AcceptableRecoveryLag (int64) v1+
      acceptableRecoveryLagLegacy:
        info.apiVersion === 0 ? Math.min(this.acceptableRecoveryLag(groupId), 2_147_483_647) : 0,
    };
    const tasksChanged = hasAssignedTasksChanged(member, reconciled);
    const endpointChanged =
      (member.userEndpoint === null) !== (reconciled.userEndpoint === null) ||
      (member.userEndpoint !== null &&
        (member.userEndpoint.host !== reconciled.userEndpoint!.host ||
          member.userEndpoint.port !== reconciled.userEndpoint!.port));
    if (joining || tasksChanged) {
      response.activeTasks = sortedIds(activeTaskMap(reconciled.assignedTasks.active));
      response.standbyTasks = sortedIds(reconciled.assignedTasks.standby);
      response.warmupTasks = sortedIds(reconciled.assignedTasks.warmup);
    }
    if (endpointChanged || (tasksChanged && reconciled.userEndpoint !== null)) group.endpointInformationEpoch++;
    const live = this.ctx.groups.get(groupId) === group;
    if (group.endpointInformationEpoch !== req.endpointInformationEpoch)
      response.partitionsByUserEndpoint = this.endpointToPartitions(group, reconciled, replacedStatic);
    if (live) response.endpointInformationEpoch = group.endpointInformationEpoch;

    let internalTopicsToCreate = new Map<string, InternalTopicToCreate>();
    if (configured.error) {
      internalTopicsToCreate = configured.internalTopicsToBeCreated;
      status.push({ statusCode: configured.error.status, statusDetail: configured.error.message });
    }
    if (group.shutdownRequestMemberId !== null)
      status.push({
        statusCode: StreamsStatus.SHUTDOWN_APPLICATION,
        statusDetail: `Streams group member ${group.shutdownRequestMemberId} encountered a fatal error and requested a shutdown for the entire application.`,
      });
    const tags = (assignmentConfigs.get('rack.aware.assignment.tags') ?? '').trim();
    if (info.apiVersion >= 1 && tags !== '') {
      const missing = tags.split(/\s*,\s*/).filter((t) => !reconciled.clientTags.has(t));
      if (missing.length > 0)
        status.push({
          statusCode: StreamsStatus.MISSING_CLIENT_TAGS,
          statusDetail: `Missing required client tags for rack-aware standby assignment: [${missing.join(', ')}]. Configure them via 'client.tag.<tagKey>' in your Streams config.`,
        });
    }
    response.status = status;
    return { records, response: { response, internalTopicsToCreate } };
  }

  /** EndpointToPartitionsManager: each member with an endpoint, its active and standby partitions. */
  private endpointToPartitions(
    group: StreamsGroup,
    updated: StreamsMember,
    replaced: StreamsMember | null,
  ): NonNullable<Response['partitionsByUserEndpoint']> {
    const subs = group.configuredTopology?.subtopologies;
    // Kafka 4.4's EndpointToPartitionsManager: a member with an endpoint while the topology is not
    // configured (source topics missing) fails the heartbeat with UNKNOWN_SERVER_ERROR
    // (Optional.get on no subtopologies), as does a task's source topic missing from the metadata
    const noValue = () => new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, '');
    const partitionsOf = (tasks: TaskMap) => {
      const out: { topic: string; partitions: number[] }[] = [];
      if (!subs) throw noValue();
      for (const [s, ps] of tasks) {
        const cs = subs.get(s);
        if (!cs) throw noValue();
        for (const t of [...cs.sourceTopics, ...cs.repartitionSourceTopics.keys()]) {
          const n = this.ctx.metadata.topic(t)?.numPartitions;
          if (n === undefined) throw noValue();
          const parts = [...ps].filter((p) => p < n).sort((a, b) => a - b);
          if (parts.length > 0) out.push({ topic: t, partitions: parts });
        }
      }
      return out;
    };
    const entry = (m: StreamsMember) => {
      if (!m.userEndpoint) return [];
      const standbyAndWarmup: TaskMap = new Map();
      for (const [s, ps] of [...m.assignedTasks.standby, ...m.assignedTasks.warmup])
        for (const p of ps) addTo(standbyAndWarmup, s, p);
      return [
        {
          userEndpoint: { host: m.userEndpoint.host, port: m.userEndpoint.port },
          activePartitions: partitionsOf(activeTaskMap(m.assignedTasks.active)),
          standbyPartitions: partitionsOf(standbyAndWarmup),
        },
      ];
    };
    const out = [];
    for (const [id, m] of group.members)
      if (id !== updated.memberId && id !== replaced?.memberId) out.push(...entry(m));
    out.push(...entry(updated));
    return out;
  }

  /** maybeUpdateStreamsTargetAssignment + TargetAssignmentBuilder. */
  private maybeUpdateTargetAssignment(
    group: StreamsGroup,
    groupEpoch: number,
    updated: StreamsMember | null,
    configured: ConfiguredTopology,
    records: CoordinatorRecord[],
    status: { statusCode: number; statusDetail: string }[] | null,
    assignmentConfigs: ReadonlyMap<string, string>,
  ): { epoch: number; assignment: Map<string, TasksTuple> } {
    if (this.ctx.timer.has(initialRebalanceKey(group.groupId))) {
      status?.push({
        statusCode: StreamsStatus.ASSIGNMENT_DELAYED,
        statusDetail: 'Assignment delayed due to the configured initial rebalance delay.',
      });
      return { epoch: group.assignmentEpoch, assignment: new Map() };
    }
    const members = new Map(group.members);
    const targets = new Map(group.targetAssignment);
    if (updated) {
      if (updated.instanceId) {
        const old = group.staticMember(updated.instanceId);
        if (old && old.memberId !== updated.memberId) {
          members.delete(old.memberId);
          const t = targets.get(old.memberId);
          targets.delete(old.memberId);
          if (t) targets.set(updated.memberId, t);
        }
      }
      members.set(updated.memberId, updated);
    }
    if (group.assignmentEpoch >= groupEpoch) return { epoch: group.assignmentEpoch, assignment: targets };
    const now = this.ctx.clock();
    const interval = this.assignmentIntervalMs(group.groupId);
    const ts = Number(group.assignmentTimestamp);
    if (!(ts === 0 || interval === 0 || now >= ts + interval)) {
      status?.push({
        statusCode: StreamsStatus.ASSIGNMENT_DELAYED,
        statusDetail: 'Assignment delayed due to the configured assignment interval.',
      });
      return { epoch: group.assignmentEpoch, assignment: targets };
    }
    let assignment: Map<string, { active: TaskMap; standby: TaskMap }>;
    const ids = javaHashMapOrder([...members.keys()]);
    if (isReady(configured)) {
      try {
        assignment = stickyAssign(
          new Map(
            [...members].map(([id, m]) => [
              id,
              {
                processId: m.processId,
                activeTasks: activeTaskMap(m.assignedTasks.active),
                standbyTasks: m.assignedTasks.standby,
                taskOffsets: group.taskOffsets.get(id)?.taskOffsets,
              },
            ]),
          ),
          [...configured.subtopologies!].map(([id, s]) => ({
            id,
            numTasks: s.numberOfTasks,
            stateful: s.stateChangelogTopics.size > 0,
          })),
          Number(assignmentConfigs.get('num.standby.replicas') ?? '0'),
        );
      } catch (e) {
        const msg = `Failed to compute a new target assignment for epoch ${groupEpoch}: ${(e as Error).message}`;
        this.ctx.log('WARN', `[GroupId ${group.groupId}] ${msg}.`);
        throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, msg);
      }
    } else assignment = new Map(ids.map((id) => [id, { active: new Map(), standby: new Map() }]));
    const next = new Map<string, TasksTuple>();
    for (const id of ids) {
      const a = assignment.get(id);
      const t: TasksTuple = a ? { active: a.active, standby: a.standby, warmup: new Map() } : emptyTasks();
      next.set(id, t);
      const old = targets.get(id);
      if (!old || !tasksTupleEquals(old, t)) records.push(targetAssignmentRecord(group.groupId, id, t));
    }
    records.push(targetAssignmentMetadataRecord(group.groupId, groupEpoch, BigInt(now)));
    this.ctx.log(
      'INFO',
      `[GroupId ${group.groupId}] Computed a new target assignment for epoch ${groupEpoch} with '${STICKY_ASSIGNOR_NAME}' assignor.`,
    );
    return { epoch: groupEpoch, assignment: next };
  }

  /** computeDelayedTargetAssignment: the initial rebalance delay is over. */
  private computeDelayedTargetAssignment(groupId: string): OpResult<void> {
    const g = this.group(groupId);
    if (!g) {
      this.ctx.log('WARN', `[GroupId ${groupId}] Group not found during initial rebalance.`);
      return { records: [], response: undefined };
    }
    if (g.isEmpty) {
      this.ctx.log('INFO', `[GroupId ${groupId}] Skipping delayed target assignment: group is empty`);
      return { records: [], response: undefined };
    }
    if (!g.configuredTopology || g.groupEpoch <= g.assignmentEpoch) return { records: [], response: undefined };
    const records: CoordinatorRecord[] = [];
    this.maybeUpdateTargetAssignment(
      g,
      g.groupEpoch,
      null,
      g.configuredTopology,
      records,
      null,
      g.lastAssignmentConfigs,
    );
    return { records, response: undefined };
  }

  // ------------------------------------------------------------------ leaving and fencing

  private leave(req: StreamsGroupHeartbeatRequest): OpResult<StreamsHeartbeatResult> {
    const group = this.streamsGroup(req.groupId);
    if (req.shutdownApplication && group.shutdownRequestMemberId === null) group.shutdownRequestMemberId = req.memberId;
    const response: Response = {
      ...errorResponse(ErrorCode.NONE, null),
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      status: [],
    };
    const result = { response, internalTopicsToCreate: new Map<string, InternalTopicToCreate>() };
    if (req.instanceId === null) {
      const m = group.members.get(req.memberId);
      if (!m)
        throw new KafkaError(
          ErrorCode.UNKNOWN_MEMBER_ID,
          `Member ${req.memberId} is not a member of group ${req.groupId}.`,
        );
      this.ctx.log(
        'INFO',
        `[GroupId ${req.groupId}][MemberId ${req.memberId}] Member ${req.memberId} left the streams group.`,
      );
      return this.fence(group, m, result);
    }
    const m = group.staticMember(req.instanceId);
    if (!m) throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
    if (m.memberId !== req.memberId)
      throw new KafkaError(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${m.memberId}.`,
      );
    if (req.memberEpoch === STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      const active: TaskEpochMap = new Map(
        [...m.assignedTasks.active].map(([s, ps]) => [s, new Map([...ps.keys()].map((p) => [p, 0]))]),
      );
      const leaving: StreamsMember = {
        ...m,
        memberEpoch: STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH,
        previousMemberEpoch: m.memberEpoch,
        tasksPendingRevocation: emptyTasksWithEpochs(),
        assignedTasks: { ...m.assignedTasks, active },
      };
      return {
        records: [currentAssignmentRecord(req.groupId, leaving)],
        response: { ...result, response: { ...response, memberId: m.memberId, memberEpoch: -2 } },
      };
    }
    return this.fence(group, m, result);
  }

  /** streamsGroupFenceMember. */
  fence<T>(group: StreamsGroup, member: StreamsMember, response: T): OpResult<T> {
    const records: CoordinatorRecord[] = streamsMemberTombstones(group.groupId, member.memberId);
    const epoch = group.groupEpoch + 1;
    records.push(
      metadataRecord(
        group.groupId,
        epoch,
        group.metadataHash,
        group.validatedTopologyEpoch,
        group.lastAssignmentConfigs,
        group.storedDescriptionTopologyEpoch,
        group.failedDescriptionTopologyEpoch,
      ),
    );
    if (group.members.size === 1) records.push(targetAssignmentMetadataRecord(group.groupId, epoch, 0n));
    this.ctx.timer.cancel(sessionKey(group.groupId, member.memberId));
    this.ctx.timer.cancel(rebalanceKey(group.groupId, member.memberId));
    return { records, response };
  }

  private scheduleSessionTimeout(groupId: string, memberId: string): void {
    this.ctx.timer.schedule(sessionKey(groupId, memberId), this.sessionTimeoutMs(groupId), () =>
      this.fenceOperation(groupId, memberId, 'the member session expired.', null),
    );
  }

  private scheduleRebalanceTimeout(groupId: string, memberId: string, memberEpoch: number, timeoutMs: number): void {
    this.ctx.timer.schedule(rebalanceKey(groupId, memberId), timeoutMs, () =>
      this.fenceOperation(
        groupId,
        memberId,
        `it failed to transition from epoch ${memberEpoch} within ${timeoutMs}ms.`,
        memberEpoch,
      ),
    );
  }

  private fenceOperation(groupId: string, memberId: string, reason: string, epoch: number | null): OpResult<void> {
    const g = this.group(groupId);
    const m = g?.members.get(memberId);
    if (!g || !m || (epoch !== null && m.memberEpoch !== epoch)) return { records: [], response: undefined };
    this.ctx.log('INFO', `[GroupId ${groupId}] Streams member ${memberId} fenced from the group because ${reason}`);
    return this.fence(g, m, undefined);
  }

  /** After a load: every member's session starts again. */
  onLoaded(g: StreamsGroup): void {
    for (const m of g.members.values()) this.scheduleSessionTimeout(g.groupId, m.memberId);
  }

  /** Topics changed: the groups check their topology against the metadata on the next heartbeat. */
  requestMetadataRefresh(): void {
    for (const g of this.ctx.groups.values())
      if (g.type === 'streams') g.metadataRefreshDeadline = { deadlineMs: 0, epoch: 0 };
  }

  // ------------------------------------------------------------------ configs

  private groupInt(groupId: string, name: string, dflt: number, min: number, max: number): number {
    const raw = this.ctx.metadata.groupConfigs?.(groupId)?.get(name);
    if (raw === undefined || !/^[+-]?\d+$/.test(raw.trim())) return dflt;
    return Math.min(Math.max(Number(raw.trim()), min), max);
  }

  sessionTimeoutMs(groupId: string): number {
    const c = this.ctx.config;
    return this.groupInt(
      groupId,
      'streams.session.timeout.ms',
      c.streamsSessionTimeoutMs,
      c.streamsMinSessionTimeoutMs,
      c.streamsMaxSessionTimeoutMs,
    );
  }

  heartbeatIntervalMs(groupId: string): number {
    const c = this.ctx.config;
    return this.groupInt(
      groupId,
      'streams.heartbeat.interval.ms',
      c.streamsHeartbeatIntervalMs,
      c.streamsMinHeartbeatIntervalMs,
      c.streamsMaxHeartbeatIntervalMs,
    );
  }

  private taskOffsetIntervalMs(groupId: string): number {
    const c = this.ctx.config;
    return this.groupInt(
      groupId,
      'streams.task.offset.interval.ms',
      c.streamsTaskOffsetIntervalMs,
      c.streamsMinTaskOffsetIntervalMs,
      2_147_483_647,
    );
  }

  private acceptableRecoveryLag(groupId: string): number {
    return this.groupInt(
      groupId,
      'streams.acceptable.recovery.lag',
      this.ctx.config.streamsAcceptableRecoveryLag,
      0,
      Number.MAX_SAFE_INTEGER,
    );
  }

  private initialRebalanceDelayMs(groupId: string): number {
    return this.groupInt(
      groupId,
      'streams.initial.rebalance.delay.ms',
      this.ctx.config.streamsInitialRebalanceDelayMs,
      0,
      2_147_483_647,
    );
  }

  private assignmentIntervalMs(groupId: string): number {
    const c = this.ctx.config;
    // group.streams.assignment.interval.ms is a dynamic broker config (GroupCoordinatorConfig
    // RECONFIGURABLE_CONFIGS), clamped to its bounds (clampDynamicConfigs)
    const dyn = this.ctx.metadata.dynamicBrokerConfig?.('group.streams.assignment.interval.ms');
    const brokerValue =
      dyn !== undefined && /^[+-]?\d+$/.test(dyn.trim())
        ? Math.min(Math.max(Number(dyn.trim()), c.streamsMinAssignmentIntervalMs), c.streamsMaxAssignmentIntervalMs)
        : c.streamsAssignmentIntervalMs;
    return this.groupInt(
      groupId,
      'streams.assignment.interval.ms',
      brokerValue,
      c.streamsMinAssignmentIntervalMs,
      c.streamsMaxAssignmentIntervalMs,
    );
  }

  /** streamsGroupAssignmentConfigs: num.standby.replicas (and rack.aware.assignment.tags when set), sorted. */
  assignmentConfigs(groupId: string): Map<string, string> {
    const c = this.ctx.config;
    const standby = this.groupInt(
      groupId,
      'streams.num.standby.replicas',
      c.streamsNumStandbyReplicas,
      0,
      c.streamsMaxStandbyReplicas,
    );
    const tags = (
      this.ctx.metadata.groupConfigs?.(groupId)?.get('streams.rack.aware.assignment.tags') ??
      c.streamsRackAwareAssignmentTags
    )
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    const out = new Map<string, string>([['num.standby.replicas', String(standby)]]);
    if (tags.length > 0) out.set('rack.aware.assignment.tags', tags.join(','));
    return out;
  }

  // ------------------------------------------------------------------ describe

  /** StreamsGroup.asDescribedGroup. */
  describe(groupId: string): StreamsDescribedGroup {
    const g = this.streamsGroup(groupId);
    const configured = g.configuredTopology && isReady(g.configuredTopology) ? g.configuredTopology : null;
    let topology: StreamsGroupDescribeResponseTopology;
    const byName = <T extends { name: string }>(l: T[]) =>
      l.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (configured) {
      topology = {
        epoch: configured.topologyEpoch,
        subtopologies: [...configured.subtopologies!].map(([id, s]) => ({
          subtopologyId: id,
          sourceTopics: [...s.sourceTopics].sort(),
          repartitionSinkTopics: [...s.repartitionSinkTopics].sort(),
          repartitionSourceTopics: byName(
            [...s.repartitionSourceTopics.values()].map((t) => ({
              name: t.name,
              partitions: t.numberOfPartitions,
              replicationFactor: t.replicationFactor ?? 0,
              topicConfigs: [...t.topicConfigs].map(([key, value]) => ({ key, value })),
            })),
          ),
          stateChangelogTopics: byName(
            [...s.stateChangelogTopics.values()].map((t) => ({
              name: t.name,
              partitions: t.numberOfPartitions,
              replicationFactor: t.replicationFactor ?? 0,
              topicConfigs: [...t.topicConfigs].map(([key, value]) => ({ key, value })),
            })),
          ),
        })),
      };
    } else {
      const t = g.topology!;
      topology = {
        epoch: t.epoch,
        subtopologies: [...t.subtopologies]
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([id, s]) => ({
            subtopologyId: id,
            sourceTopics: [...s.sourceTopics].sort(),
            repartitionSinkTopics: [...s.repartitionSinkTopics].sort(),
            repartitionSourceTopics: byName(
              s.repartitionSourceTopics.map((x) => ({
                name: x.name,
                partitions: x.partitions,
                replicationFactor: x.replicationFactor,
                topicConfigs: x.topicConfigs.map((c) => ({ key: c.key, value: c.value })),
              })),
            ),
            stateChangelogTopics: byName(
              s.stateChangelogTopics.map((x) => ({
                name: x.name,
                partitions: x.partitions,
                replicationFactor: x.replicationFactor,
                topicConfigs: x.topicConfigs.map((c) => ({ key: c.key, value: c.value })),
              })),
            ),
          })),
      };
    }
    const offsets = (m: Map<string, Map<number, bigint>> | undefined) =>
      [...(m ?? [])].flatMap(([s, ps]) => [...ps].map(([p, o]) => ({ subtopologyId: s, partition: p, offset: o })));
    const taskIds = (m: TaskMap) =>
      [...m].map(([subtopologyId, ps]) => ({ subtopologyId, partitions: [...ps].sort((a, b) => a - b) }));
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId,
      groupState: g.state,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      topology,
      members: [...g.members.values()].map((m) => {
        const target = g.targetAssignment.get(m.memberId);
        return {
          memberId: m.memberId,
          memberEpoch: m.memberEpoch,
          instanceId: m.instanceId,
          rackId: m.rackId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          topologyEpoch: m.topologyEpoch,
          processId: m.processId,
          userEndpoint: m.userEndpoint ? { ...m.userEndpoint } : null,
          clientTags: [...m.clientTags].map(([key, value]) => ({ key, value })),
          taskOffsets: offsets(g.taskOffsets.get(m.memberId)?.taskOffsets),
          taskEndOffsets: offsets(g.taskOffsets.get(m.memberId)?.taskEndOffsets),
          assignment: {
            activeTasks: taskIds(activeTaskMap(m.assignedTasks.active)),
            standbyTasks: taskIds(m.assignedTasks.standby),
            warmupTasks: taskIds(m.assignedTasks.warmup),
          },
          targetAssignment: target
            ? {
                activeTasks: taskIds(target.active),
                standbyTasks: taskIds(target.standby),
                warmupTasks: taskIds(target.warmup),
              }
            : { activeTasks: [], standbyTasks: [], warmupTasks: [] },
          isClassic: false,
        };
      }),
      authorizedOperations: -2147483648,
      topologyDescription: null,
      topologyDescriptionStatus: 0,
      assignorName: STICKY_ASSIGNOR_NAME,
    };
  }
}

/**
 * StreamsGroup.validateOffsetCommit: members commit with their epoch (OffsetCommit v9+ unless
 * transactional); an older epoch may commit only tasks it was assigned at that epoch or before.
 */
export function validateStreamsOffsetCommit(
  g: StreamsGroup,
  memberId: string,
  groupInstanceId: string | null,
  memberEpoch: number,
  isTransactional: boolean,
  apiVersion: number,
): ((topic: string, partition: number) => void) | null {
  if (memberEpoch < 0 && g.members.size === 0) return null;
  if (isTransactional && memberEpoch === -1 && memberId === '' && groupInstanceId === null) return null;
  const m = g.members.get(memberId);
  if (!m)
    throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${g.groupId}.`);
  if (!isTransactional && apiVersion < 9)
    throw new KafkaError(
      ErrorCode.UNSUPPORTED_VERSION,
      'OffsetCommit version 9 or above must be used by members using the streams group protocol',
    );
  if (memberEpoch === m.memberEpoch) return null;
  if (memberEpoch > m.memberEpoch)
    throw new KafkaError(
      ErrorCode.STALE_MEMBER_EPOCH,
      `Received member epoch ${memberEpoch} is newer than current member epoch ${m.memberEpoch}.`,
    );
  const topology = g.topology;
  if (!topology)
    throw new KafkaError(ErrorCode.STALE_MEMBER_EPOCH, 'Topology is not available for offset commit validation.');
  const sources = new Map<string, string>();
  for (const s of topology.subtopologies.values()) {
    for (const t of s.sourceTopics) sources.set(t, s.subtopologyId);
    for (const t of s.repartitionSourceTopics) sources.set(t.name, s.subtopologyId);
  }
  return (topic, partition) => {
    const s = sources.get(topic);
    if (s === undefined) throw new KafkaError(ErrorCode.STALE_MEMBER_EPOCH, `Topic ${topic} is not in the topology.`);
    const e = m.assignedTasks.active.get(s)?.get(partition) ?? m.tasksPendingRevocation.active.get(s)?.get(partition);
    if (e === undefined)
      throw new KafkaError(
        ErrorCode.STALE_MEMBER_EPOCH,
        `Task ${s}-${partition} is not assigned or pending revocation for member.`,
      );
    if (memberEpoch < e)
      throw new KafkaError(
        ErrorCode.STALE_MEMBER_EPOCH,
        `Received member epoch ${memberEpoch} is older than assignment epoch ${e} for task ${s}-${partition}.`,
      );
  };
}

/** StreamsGroup.validateOffsetFetch. */
export function validateStreamsOffsetFetch(g: StreamsGroup, memberId: string | null, memberEpoch: number): void {
  if (memberId === null && memberEpoch < 0) return;
  const m = memberId === null ? undefined : g.members.get(memberId);
  if (!m)
    throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${g.groupId}.`);
  if (memberEpoch !== m.memberEpoch)
    throw new KafkaError(
      ErrorCode.STALE_MEMBER_EPOCH,
      `The received member epoch ${memberEpoch} does not match the expected member epoch ${m.memberEpoch}.`,
    );
}

/** StreamsGroup.isSubscribedToTopic: a source topic of the topology of a group that is not empty. */
export function streamsGroupSubscribedToTopic(g: StreamsGroup, topic: string): boolean {
  if (g.isEmpty || !g.topology) return false;
  for (const s of g.topology.subtopologies.values())
    if (s.sourceTopics.includes(topic) || s.repartitionSourceTopics.some((r) => r.name === topic)) return true;
  return false;
}

const sameMap = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean =>
  a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
