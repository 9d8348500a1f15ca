// Share groups in the group coordinator (KIP-932, Kafka 4.4's GroupMetadataManager.shareGroupHeartbeat
// and friends): members join with epoch 0 (with their own member id), the group epoch moves when
// subscriptions or the subscribed topics' metadata change or when newly initialized share-partitions
// wait for an assignment, the simple assignor computes the target assignment (several members per
// partition, initialized partitions only), and a member takes its target as soon as it heartbeats
// (ShareGroupAssignmentBuilder: no revocation). Newly subscribed partitions are recorded as
// initializing (ShareGroupStatePartitionMetadata) and the heartbeat hands back an initialization
// request that the coordinator sends to the persister; its outcome moves them to initialized. Members
// leave with epoch -1 or are fenced when their session expires; the share-partition side hears of it
// through the ShareGroupListener once the records are written.
import { ErrorCode, errorInfo, KafkaError } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { ShareGroupListener } from '../share/types.js';
import { assignmentEquals, MemberState, toTopicPartitions, type Assignment } from './consumer-group.js';
import type { CoordinatorRecord } from './records.js';
import { simpleAssign, type ShareAssignorMember } from './share-assignor.js';
import {
  newShareMember,
  ShareGroup,
  shareMemberTombstones,
  statePartitionMetadataRecord,
  type ShareMember,
  type StatePartitionMetadata,
} from './share-group.js';
import type { OpResult, RequestInfo, ShardContext } from './shard-types.js';

export const SHARE_LEAVE_GROUP_MEMBER_EPOCH = -1;
export const SHARE_ASSIGNOR_NAME = 'simple';

export interface ShareHeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  rackId: string | null;
  subscribedTopicNames: string[] | null;
}

export interface ShareHeartbeatResponse {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: { topicId: string; partitions: number[] }[] } | null;
}

/** What the coordinator asks the persister after a heartbeat (InitializeShareGroupStateParameters). */
export interface ShareInitializeRequest {
  groupId: string;
  stateEpoch: number;
  /** startOffset -1: the share-partition resolves share.auto.offset.reset; 0 for partitions added to a known topic. */
  topics: { topicId: string; startOffset: bigint; partitions: number[] }[];
}

export interface ShareHeartbeatResult {
  response: ShareHeartbeatResponse;
  initialize: ShareInitializeRequest | null;
}

export interface ShareDescribedGroup {
  errorCode: number;
  errorMessage: string | null;
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: {
    memberId: string;
    rackId: string | null;
    memberEpoch: number;
    clientId: string;
    clientHost: string;
    subscribedTopicNames: string[];
    assignment: { topicPartitions: { topicId: string; topicName: string; partitions: number[] }[] };
  }[];
}

const invalid = (msg: string): KafkaError => new KafkaError(ErrorCode.INVALID_REQUEST, msg);
const errorMessageOf = (code: number): string => errorInfo(code).message;
const ZERO_TOPIC_ID = ZERO_UUID;

/** What AlterShareGroupOffsets answers and initializes. */
export interface ShareAlterPlan {
  stateEpoch: number;
  responses: {
    topicName: string;
    topicId: string;
    partitions: { partitionIndex: number; errorCode: number; errorMessage: string | null }[];
  }[];
  initialize: { topicId: string; partition: number; startOffset: bigint }[];
}

/** What DeleteShareGroupOffsets answers and deletes. */
export interface ShareDeletePlan {
  responses: { topicName: string; topicId: string; errorCode: number; errorMessage: string | null }[];
  delete: { topicId: string; topicName: string; partitions: number[] }[];
}

/** GroupCoordinatorService.throwIfShareGroupHeartbeatRequestIsInvalid (Kafka 4.4). */
export function validateShareHeartbeatRequest(r: ShareHeartbeatRequest): void {
  const emptyStr = (v: string | null, msg: string) => {
    if (v !== null && v.trim() === '') throw invalid(msg);
  };
  emptyStr(r.memberId, "MemberId can't be empty.");
  emptyStr(r.groupId, "GroupId can't be empty.");
  emptyStr(r.rackId, "RackId can't be empty.");
  if (r.memberEpoch === 0) {
    if (r.subscribedTopicNames === null || r.subscribedTopicNames.length === 0)
      throw invalid('SubscribedTopicNames must be set in first request.');
  } else if (r.memberEpoch < SHARE_LEAVE_GROUP_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
}

const sessionKey = (g: string, m: string): string => `share-session-${g}-${m}`;

/**
 * The subscribed topics' metadata hash (ModernGroup.computeMetadataHash's role: it changes when a
 * subscribed topic is created, deleted or gets partitions). tkafka hashes name, id and partition
 * count with FNV-1a; Kafka 4.4 hashes more (racks) with another function, so the values differ.
 */
export function computeMetadataHash(names: Iterable<string>, ctx: ShardContext): bigint {
  const sorted = [...names].sort();
  let h = 0xcbf29ce484222325n;
  let any = false;
  for (const n of sorted) {
    const t = ctx.metadata.topic(n);
    if (!t) continue;
    any = true;
    for (const ch of Buffer.from(`${t.name}\u0000${t.id}\u0000${t.numPartitions}\u0001`)) {
      h ^= BigInt(ch);
      h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
    }
  }
  return any ? BigInt.asIntN(64, h) : 0n;
}

const copyMetadata = (md: StatePartitionMetadata | null): StatePartitionMetadata => ({
  initializing: new Map(
    [...(md?.initializing ?? [])].map(([id, t]) => [id, { ...t, partitions: new Set(t.partitions) }]),
  ),
  initialized: new Map(
    [...(md?.initialized ?? [])].map(([id, t]) => [id, { name: t.name, partitions: new Set(t.partitions) }]),
  ),
  deleting: new Map(md?.deleting ?? []),
});

export class ShareGroupManager {
  /** The share-partition side (SharePartitionManager): told when members leave and groups empty. */
  listener: ShareGroupListener | null = null;
  /**
   * Whether a persister is plugged in: without one (the share coordinator not running) no share-partition
   * is recorded as initializing, so nothing is assigned and nothing is retried in a loop.
   */
  initializeEnabled = true;

  constructor(private readonly ctx: ShardContext) {}

  group(groupId: string): ShareGroup | undefined {
    const g = this.ctx.groups.get(groupId);
    return g && g.type === 'share' ? g : undefined;
  }

  /** GroupMetadataManager.shareGroup(groupId): GROUP_ID_NOT_FOUND when missing or of another type. */
  private shareGroup(groupId: string): ShareGroup {
    const g = this.ctx.groups.get(groupId);
    if (!g) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    if (g.type !== 'share')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
    return g;
  }

  /** ShareGroupHeartbeat: join (epoch 0), heartbeat, or leave (epoch -1). */
  heartbeat(req: ShareHeartbeatRequest, info: RequestInfo): OpResult<ShareHeartbeatResult> {
    if (req.memberEpoch === SHARE_LEAVE_GROUP_MEMBER_EPOCH) return this.leave(req.groupId, req.memberId);
    const now = this.ctx.clock();
    const records: CoordinatorRecord[] = [];
    const create = req.memberEpoch === 0;
    const group = this.getOrMaybeCreate(req.groupId, create);
    this.throwIfFull(group, req.memberId);
    const memberId = req.memberId;
    const member = this.getOrMaybeSubscribe(group, memberId, req.memberEpoch, create);

    const updated: ShareMember = {
      ...member,
      rackId: req.rackId ?? member.rackId,
      subscribedTopicNames:
        req.subscribedTopicNames !== null ? [...new Set(req.subscribedTopicNames)].sort() : member.subscribedTopicNames,
      clientId: info.clientId,
      clientHost: info.clientHost,
    };
    const subscriptionChanged = this.hasMemberSubscriptionChanged(group, member, updated, records);

    // initialized partitions waiting for an assignment count only once the target is up to date
    let bump = subscriptionChanged;
    if (group.assignmentEpoch >= group.groupEpoch) bump = bump || this.initializedAssignmentPending(group);
    let groupEpoch = group.groupEpoch;
    let subscribed = new Set(group.subscribedTopicNames().keys());
    if (bump || group.metadataRefreshDeadline <= now) {
      subscribed = group.computeSubscribedTopicNames(member, updated);
      const hash = computeMetadataHash(subscribed, this.ctx);
      if (hash !== group.metadataHash) {
        this.ctx.log('INFO', `[GroupId ${group.groupId}] Computed new metadata hash: ${hash}.`);
        bump = true;
      }
      if (bump) {
        groupEpoch++;
        records.push({
          type: 'ShareGroupMetadata',
          group: group.groupId,
          value: { epoch: groupEpoch, metadataHash: hash },
        });
        this.ctx.log(
          'INFO',
          `[GroupId ${group.groupId}] Bumped group epoch to ${groupEpoch} with metadata hash ${hash}.`,
        );
      }
      // shareGroupMetadataRefreshIntervalMs is Integer.MAX_VALUE: topic changes reset it (requestMetadataRefresh)
      group.metadataRefreshDeadline = now + 2_147_483_647;
    }

    let targetEpoch = group.assignmentEpoch;
    let target: Assignment;
    if (groupEpoch > group.assignmentEpoch) {
      target = this.updateTargetAssignment(group, groupEpoch, updated, records);
      targetEpoch = groupEpoch;
    } else {
      target = group.targetAssignment.get(memberId) ?? new Map();
    }

    const reconciled = this.maybeReconcile(group.groupId, updated, targetEpoch, target, subscriptionChanged, records);
    this.scheduleSessionTimeout(group.groupId, memberId);

    const isFullRequest = req.subscribedTopicNames !== null;
    const changed = !assignmentEquals(member.assignedPartitions, reconciled.assignedPartitions);
    const response: ShareHeartbeatResponse = {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: reconciled.memberId,
      memberEpoch: reconciled.memberEpoch,
      heartbeatIntervalMs: this.heartbeatIntervalMs(group.groupId),
      assignment:
        req.memberEpoch === 0 || isFullRequest || changed
          ? { topicPartitions: toTopicPartitions(reconciled.assignedPartitions) }
          : null,
    };
    const initialize = this.maybeCreateInitializeRequest(group, groupEpoch, subscribed, records);
    return { records, response: { response, initialize } };
  }

  private getOrMaybeCreate(groupId: string, create: boolean): ShareGroup {
    const g = this.ctx.groups.get(groupId);
    if (!g) {
      if (!create) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Share group ${groupId} not found.`);
      // materialized when its records are replayed
      return new ShareGroup(groupId);
    }
    if (g.type === 'share') return g;
    throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
  }

  private throwIfFull(group: ShareGroup, memberId: string): void {
    const max = this.ctx.config.shareMaxSize;
    if (group.members.size >= max && (memberId === '' || !group.members.has(memberId)))
      throw new KafkaError(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The share group has reached its maximum capacity of ${max} members.`,
      );
  }

  private getOrMaybeSubscribe(group: ShareGroup, memberId: string, epoch: number, create: boolean): ShareMember {
    const m = group.members.get(memberId);
    if (!m) {
      if (!create)
        throw new KafkaError(
          ErrorCode.UNKNOWN_MEMBER_ID,
          `Member ${memberId} is not a member of group ${group.groupId}.`,
        );
      this.ctx.log(
        'INFO',
        `[GroupId ${group.groupId}] Member ${memberId} joins the share group using the share protocol.`,
      );
      return newShareMember(memberId);
    }
    this.throwIfMemberEpochIsInvalid(m, epoch);
    return m;
  }

  /** throwIfShareGroupMemberEpochIsInvalid: a rejoin (epoch 0) is always accepted. */
  private throwIfMemberEpochIsInvalid(m: ShareMember, epoch: number): void {
    if (epoch === 0) return;
    if (epoch > m.memberEpoch)
      throw new KafkaError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The share group member has a greater member epoch (${epoch}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    if (epoch < m.memberEpoch && epoch !== m.previousMemberEpoch)
      throw new KafkaError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The share group member has a smaller member epoch (${epoch}) than the one known by the group coordinator (${m.memberEpoch}), and it does not match the previous member epoch (${m.previousMemberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
  }

  /** Writes the member's record when it changed; true when its subscribed topics changed. */
  private hasMemberSubscriptionChanged(
    group: ShareGroup,
    member: ShareMember,
    updated: ShareMember,
    records: CoordinatorRecord[],
  ): boolean {
    const sameTopics =
      member.subscribedTopicNames.length === updated.subscribedTopicNames.length &&
      member.subscribedTopicNames.every((t, i) => t === updated.subscribedTopicNames[i]);
    const isNew = !group.members.has(member.memberId);
    if (
      isNew ||
      !sameTopics ||
      member.rackId !== updated.rackId ||
      member.clientId !== updated.clientId ||
      member.clientHost !== updated.clientHost
    ) {
      records.push({
        type: 'ShareGroupMemberMetadata',
        group: group.groupId,
        memberId: updated.memberId,
        value: {
          rackId: updated.rackId,
          clientId: updated.clientId,
          clientHost: updated.clientHost,
          subscribedTopicNames: [...updated.subscribedTopicNames],
        },
      });
      if (!sameTopics) {
        this.ctx.log(
          'INFO',
          `[GroupId ${group.groupId}] Member ${updated.memberId} updated its subscribed topics to: ${updated.subscribedTopicNames.join(', ')}.`,
        );
        return true;
      }
    }
    return false;
  }

  /**
   * GroupMetadataManager.initializedAssignmentPending: some initialized partition of a subscribed topic
   * is in nobody's target assignment (the group epoch moves so that the assignor places it).
   */
  private initializedAssignmentPending(group: ShareGroup): boolean {
    if (group.isEmpty) return false;
    const initialized = group.statePartitions?.initialized;
    if (!initialized || initialized.size === 0) return false;
    const subscribed = [...group.subscribedTopicNames().keys()];
    if (subscribed.length === 0) return false;
    const targeted = new Map<string, Set<number>>();
    for (const a of group.targetAssignment.values())
      for (const [t, ps] of a) {
        const s = targeted.get(t) ?? new Set<number>();
        for (const p of ps) s.add(p);
        targeted.set(t, s);
      }
    for (const name of subscribed) {
      const topic = this.ctx.metadata.topic(name);
      if (!topic) continue;
      const init = initialized.get(topic.id);
      if (!init) continue;
      const have = targeted.get(topic.id);
      for (const p of init.partitions) if (p < topic.numPartitions && !have?.has(p)) return true;
    }
    return false;
  }

  private memberTopicIds(m: ShareMember): Set<string> {
    const ids = new Set<string>();
    for (const n of m.subscribedTopicNames) {
      const t = this.ctx.metadata.topic(n);
      if (t) ids.add(t.id);
    }
    return ids;
  }

  /** The target assignment for `epoch` (TargetAssignmentBuilder with the simple assignor). */
  private updateTargetAssignment(
    group: ShareGroup,
    epoch: number,
    updated: ShareMember | null,
    records: CoordinatorRecord[],
  ): Assignment {
    const members = new Map<string, ShareAssignorMember>();
    for (const m of group.members.values()) {
      if (updated && m.memberId === updated.memberId) continue;
      members.set(m.memberId, {
        subscribedTopicIds: this.memberTopicIds(m),
        current: group.targetAssignment.get(m.memberId) ?? new Map(),
      });
    }
    if (updated)
      members.set(updated.memberId, {
        subscribedTopicIds: this.memberTopicIds(updated),
        current: group.targetAssignment.get(updated.memberId) ?? new Map(),
      });
    const assignable = new Map<string, Set<number>>();
    for (const [topicId, ps] of group.initializedPartitions()) {
      const t = this.ctx.metadata.topicById(topicId);
      if (!t) continue;
      assignable.set(topicId, new Set([...ps].filter((p) => p < t.numPartitions)));
    }
    const next = simpleAssign({ members, assignable });
    for (const [id, a] of next) {
      const prev = group.targetAssignment.get(id);
      if (!prev || !assignmentEquals(prev, a))
        records.push({
          type: 'ShareGroupTargetAssignmentMember',
          group: group.groupId,
          memberId: id,
          value: { topicPartitions: toTopicPartitions(a) },
        });
    }
    records.push({
      type: 'ShareGroupTargetAssignmentMetadata',
      group: group.groupId,
      value: { assignmentEpoch: epoch, assignmentTimestamp: BigInt(this.ctx.clock()) },
    });
    this.ctx.log(
      'INFO',
      `[GroupId ${group.groupId}] Computed a new target assignment for epoch ${epoch} with '${SHARE_ASSIGNOR_NAME}' assignor.`,
    );
    return updated ? (next.get(updated.memberId) ?? new Map()) : new Map();
  }

  /** ShareGroupAssignmentBuilder: the member takes its target at once (no revocation in share groups). */
  private maybeReconcile(
    groupId: string,
    m: ShareMember,
    targetEpoch: number,
    target: Assignment,
    subscriptionChanged: boolean,
    records: CoordinatorRecord[],
  ): ShareMember {
    const ids = this.memberTopicIds(m);
    const filtered: Assignment = new Map([...target].filter(([t]) => ids.has(t)).map(([t, ps]) => [t, new Set(ps)]));
    let next = m;
    if (targetEpoch !== m.memberEpoch) {
      next = {
        ...m,
        state: MemberState.STABLE,
        assignedPartitions: filtered,
        previousMemberEpoch: m.memberEpoch,
        memberEpoch: targetEpoch,
      };
    } else if (subscriptionChanged) {
      next = { ...m, assignedPartitions: filtered };
    }
    if (
      next.memberEpoch !== m.memberEpoch ||
      next.previousMemberEpoch !== m.previousMemberEpoch ||
      next.state !== m.state ||
      !assignmentEquals(next.assignedPartitions, m.assignedPartitions) ||
      m.memberEpoch === 0
    ) {
      records.push({
        type: 'ShareGroupCurrentMemberAssignment',
        group: groupId,
        memberId: next.memberId,
        value: {
          memberEpoch: next.memberEpoch,
          previousMemberEpoch: next.previousMemberEpoch,
          state: next.state,
          assignedPartitions: toTopicPartitions(next.assignedPartitions),
        },
      });
      this.ctx.log(
        'INFO',
        `[GroupId ${groupId}] Member ${next.memberId} new assignment state: epoch=${next.memberEpoch}, previousEpoch=${next.previousMemberEpoch}, state=STABLE, assigned=${toTopicPartitions(
          next.assignedPartitions,
        )
          .map((tp) => `${tp.topicId}-${tp.partitions.join(',')}`)
          .join(';')}.`,
      );
    }
    return next;
  }

  // ------------------------------------------------------------------ share-partition state initialization

  /**
   * GroupMetadataManager.maybeCreateInitializeShareGroupStateRequest: the subscribed partitions whose
   * state is neither initialized nor being initialized (an initialization older than
   * group.share.initialize.retry.interval.ms is requested again) are recorded as initializing and
   * returned for the persister.
   */
  private maybeCreateInitializeRequest(
    group: ShareGroup,
    groupEpoch: number,
    subscribed: ReadonlySet<string>,
    records: CoordinatorRecord[],
  ): ShareInitializeRequest | null {
    if (subscribed.size === 0 || !this.initializeEnabled) return null;
    const now = this.ctx.clock();
    const md = group.statePartitions;
    const known = new Map<string, Set<number>>();
    const addKnown = (id: string, ps: Iterable<number>) => {
      const s = known.get(id) ?? new Set<number>();
      for (const p of ps) s.add(p);
      known.set(id, s);
    };
    for (const [id, t] of md?.initialized ?? []) addKnown(id, t.partitions);
    for (const [id, t] of md?.initializing ?? [])
      if (now - t.timestamp < this.ctx.config.shareInitializeRetryIntervalMs) addKnown(id, t.partitions);
    const change = new Map<string, { name: string; partitions: Set<number> }>();
    for (const name of [...subscribed].sort()) {
      const t = this.ctx.metadata.topic(name);
      if (!t) continue;
      const have = known.get(t.id);
      const missing = new Set<number>();
      for (let p = 0; p < t.numPartitions; p++) if (!have?.has(p)) missing.add(p);
      if (missing.size > 0) change.set(t.id, { name, partitions: missing });
    }
    if (change.size === 0) return null;
    const next = copyMetadata(md);
    for (const [id, c] of change) {
      const cur = next.initializing.get(id);
      next.initializing.set(id, {
        name: c.name,
        partitions: new Set([...(cur?.partitions ?? []), ...c.partitions]),
        timestamp: now,
      });
      if (next.deleting.delete(id))
        this.ctx.log(
          'INFO',
          `[GroupId ${group.groupId}] Topic ${c.name} is subscribed again while its state was being deleted.`,
        );
    }
    records.push(statePartitionMetadataRecord(group.groupId, next));
    group.pendingInitTimestamps = new Map([...change.keys()].map((id) => [id, now]));
    const alreadyKnown = new Set([...(md?.initialized.keys() ?? []), ...(md?.initializing.keys() ?? [])]);
    return {
      groupId: group.groupId,
      stateEpoch: groupEpoch,
      topics: [...change].map(([topicId, c]) => ({
        topicId,
        startOffset: alreadyKnown.has(topicId) ? 0n : -1n,
        partitions: [...c.partitions].sort((a, b) => a - b),
      })),
    };
  }

  /**
   * initializeShareGroupState / uninitializeShareGroupState: after the persister answered, the partitions
   * it initialized move to initialized and the failed ones leave initializing (requested again later).
   */
  completeInitialize(
    groupId: string,
    succeeded: ReadonlyMap<string, ReadonlySet<number>>,
    failed: ReadonlyMap<string, ReadonlySet<number>>,
  ): OpResult<void> {
    const g = this.group(groupId);
    if (!g || !g.statePartitions) return { records: [], response: undefined };
    const next = copyMetadata(g.statePartitions);
    const drop = (id: string, ps: ReadonlySet<number>): string | undefined => {
      const cur = next.initializing.get(id);
      if (!cur) return undefined;
      for (const p of ps) cur.partitions.delete(p);
      if (cur.partitions.size === 0) next.initializing.delete(id);
      return cur.name;
    };
    for (const [id, ps] of succeeded) {
      const name = drop(id, ps) ?? this.ctx.metadata.topicById(id)?.name;
      if (name === undefined) continue;
      const cur = next.initialized.get(id) ?? { name, partitions: new Set<number>() };
      for (const p of ps) cur.partitions.add(p);
      next.initialized.set(id, cur);
    }
    for (const [id, ps] of failed) drop(id, ps);
    return { records: [statePartitionMetadataRecord(groupId, next)], response: undefined };
  }

  // ------------------------------------------------------------------ share-group offsets

  /** initializedShareGroupPartitions: topic id → name and partitions whose state is initialized. */
  initializedOf(groupId: string): Map<string, { name: string; partitions: number[] }> {
    const g = this.shareGroup(groupId);
    return new Map(
      [...(g.statePartitions?.initialized ?? [])].map(([id, t]) => [
        id,
        { name: t.name, partitions: [...t.partitions].sort((a, b) => a - b) },
      ]),
    );
  }

  /**
   * GroupMetadataManager.alterShareGroupOffsets: only an empty share group (created when missing); unknown
   * topics and partitions answer UNKNOWN_TOPIC_OR_PARTITION; the others are recorded as initializing and
   * returned to be initialized at the given start offsets.
   */
  prepareAlterOffsets(
    groupId: string,
    topics: readonly { topicName: string; partitions: readonly { partitionIndex: number; startOffset: bigint }[] }[],
  ): OpResult<ShareAlterPlan> {
    const group = this.getOrMaybeCreate(groupId, true);
    if (!group.isEmpty) throw new KafkaError(ErrorCode.NON_EMPTY_GROUP);
    const unknown = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const plan: ShareAlterPlan = { stateEpoch: group.groupEpoch, responses: [], initialize: [] };
    const change = new Map<string, { name: string; partitions: Set<number> }>();
    for (const t of topics) {
      const topic = this.ctx.metadata.topic(t.topicName);
      plan.responses.push({
        topicName: t.topicName,
        topicId: topic?.id ?? ZERO_TOPIC_ID,
        partitions: t.partitions.map((p) => {
          if (!topic || p.partitionIndex < 0 || p.partitionIndex >= topic.numPartitions)
            return { partitionIndex: p.partitionIndex, errorCode: unknown, errorMessage: errorMessageOf(unknown) };
          const c = change.get(topic.id) ?? { name: topic.name, partitions: new Set<number>() };
          c.partitions.add(p.partitionIndex);
          change.set(topic.id, c);
          plan.initialize.push({ topicId: topic.id, partition: p.partitionIndex, startOffset: p.startOffset });
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null };
        }),
      });
    }
    if (change.size === 0) return { records: [], response: plan };
    const now = this.ctx.clock();
    const next = copyMetadata(group.statePartitions);
    for (const [id, c] of change) {
      const cur = next.initializing.get(id);
      next.initializing.set(id, {
        name: c.name,
        partitions: new Set([...(cur?.partitions ?? []), ...c.partitions]),
        timestamp: now,
      });
      next.deleting.delete(id);
    }
    group.pendingInitTimestamps = new Map([...change.keys()].map((id) => [id, now]));
    return { records: [statePartitionMetadataRecord(groupId, next)], response: plan };
  }

  /**
   * sharePartitionsEligibleForOffsetDeletion: only an empty share group; a topic whose state is known is
   * marked deleting and returned with its partitions, the others answer UNKNOWN_TOPIC_OR_PARTITION.
   */
  prepareDeleteOffsets(groupId: string, topicNames: readonly string[]): OpResult<ShareDeletePlan> {
    const group = this.shareGroup(groupId);
    if (!group.isEmpty) throw new KafkaError(ErrorCode.NON_EMPTY_GROUP);
    const unknown = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const plan: ShareDeletePlan = { responses: [], delete: [] };
    const md = group.statePartitions;
    const next = copyMetadata(md);
    for (const name of topicNames) {
      const topic = this.ctx.metadata.topic(name);
      if (!topic) {
        plan.responses.push({
          topicName: name,
          topicId: ZERO_TOPIC_ID,
          errorCode: unknown,
          errorMessage: errorMessageOf(unknown),
        });
        continue;
      }
      const parts = new Set<number>([
        ...(md?.initialized.get(topic.id)?.partitions ?? []),
        ...(md?.initializing.get(topic.id)?.partitions ?? []),
      ]);
      if (parts.size === 0) {
        plan.responses.push({
          topicName: name,
          topicId: topic.id,
          errorCode: unknown,
          errorMessage: 'There is no offset information to delete.',
        });
        continue;
      }
      plan.delete.push({ topicId: topic.id, topicName: name, partitions: [...parts].sort((a, b) => a - b) });
      next.deleting.set(topic.id, name);
    }
    if (plan.delete.length === 0) return { records: [], response: plan };
    return { records: [statePartitionMetadataRecord(groupId, next)], response: plan };
  }

  /** completeDeleteShareGroupOffsets: the topics' state is gone; they leave the state metadata. */
  completeDeleteOffsets(groupId: string, topicIds: readonly string[]): OpResult<void> {
    const g = this.group(groupId);
    if (!g || !g.statePartitions) return { records: [], response: undefined };
    const next = copyMetadata(g.statePartitions);
    for (const id of topicIds) {
      next.initialized.delete(id);
      next.initializing.delete(id);
      next.deleting.delete(id);
    }
    return { records: [statePartitionMetadataRecord(groupId, next)], response: undefined };
  }

  /**
   * GroupMetadataManager.maybeCleanupShareGroupState: deleted topics leave every share group's state
   * metadata (their share-partition state goes with the topic).
   */
  cleanupDeletedTopics(deleted: ReadonlySet<string>): OpResult<void> {
    const records: CoordinatorRecord[] = [];
    for (const g of this.ctx.groups.values()) {
      if (g.type !== 'share' || !g.statePartitions) continue;
      const md = g.statePartitions;
      const gone = (id: string, name: string) => deleted.has(name) && !this.ctx.metadata.topicById(id);
      const ids = new Set<string>();
      for (const [id, t] of md.initialized) if (gone(id, t.name)) ids.add(id);
      for (const [id, t] of md.initializing) if (gone(id, t.name)) ids.add(id);
      for (const [id, name] of md.deleting) if (gone(id, name)) ids.add(id);
      if (ids.size === 0) continue;
      const next = copyMetadata(md);
      for (const id of ids) {
        next.initialized.delete(id);
        next.initializing.delete(id);
        next.deleting.delete(id);
      }
      records.push(statePartitionMetadataRecord(g.groupId, next));
    }
    return { records, response: undefined };
  }

  // ------------------------------------------------------------------ leaving and fencing

  /** shareGroupLeave: the member leaves with epoch -1. */
  private leave(groupId: string, memberId: string): OpResult<ShareHeartbeatResult> {
    const group = this.shareGroup(groupId);
    const member = group.members.get(memberId);
    if (!member)
      throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${groupId}.`);
    this.ctx.log('INFO', `[GroupId ${groupId}] Member ${memberId} left the share group.`);
    const response: ShareHeartbeatResponse = {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId,
      memberEpoch: SHARE_LEAVE_GROUP_MEMBER_EPOCH,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
    return this.fence(group, member, { response, initialize: null });
  }

  /**
   * shareGroupFenceMember: the member's records are tombstoned and the group epoch moves (the other
   * members get a new target on their next heartbeat); the last member leaving also closes the
   * assignment epoch. The listener hears of it once written.
   */
  fence<T>(group: ShareGroup, member: ShareMember, response: T): OpResult<T> {
    const records: CoordinatorRecord[] = shareMemberTombstones(group.groupId, member.memberId);
    const subscribed = group.computeSubscribedTopicNames(member, null);
    const hash = computeMetadataHash(subscribed, this.ctx);
    if (hash !== group.metadataHash)
      this.ctx.log('INFO', `[GroupId ${group.groupId}] Computed new metadata hash: ${hash}.`);
    const epoch = group.groupEpoch + 1;
    records.push({ type: 'ShareGroupMetadata', group: group.groupId, value: { epoch, metadataHash: hash } });
    const last = group.members.size === 1;
    if (last)
      records.push({
        type: 'ShareGroupTargetAssignmentMetadata',
        group: group.groupId,
        value: { assignmentEpoch: epoch, assignmentTimestamp: 0n },
      });
    this.ctx.timer.cancel(sessionKey(group.groupId, member.memberId));
    return {
      records,
      response,
      onAppended: (code) => {
        if (code !== ErrorCode.NONE || !this.listener) return;
        this.listener.onMemberLeave(group.groupId, member.memberId);
        if (last) this.listener.onGroupEmpty(group.groupId);
      },
    };
  }

  private scheduleSessionTimeout(groupId: string, memberId: string): void {
    this.ctx.timer.schedule(sessionKey(groupId, memberId), this.sessionTimeoutMs(groupId), () =>
      this.fenceOnTimeout(groupId, memberId),
    );
  }

  /** shareGroupFenceMemberOperation on session expiry. */
  private fenceOnTimeout(groupId: string, memberId: string): OpResult<void> {
    const g = this.group(groupId);
    if (!g) {
      this.ctx.log('INFO', `[GroupId ${groupId}] Could not fence ${memberId} because the group does not exist.`);
      return { records: [], response: undefined };
    }
    const m = g.members.get(memberId);
    if (!m) {
      this.ctx.log('INFO', `[GroupId ${groupId}] Could not fence ${memberId} because the member does not exist.`);
      return { records: [], response: undefined };
    }
    this.ctx.log('INFO', `[GroupId ${groupId}] Member ${memberId} fenced from the group because its session expired.`);
    return this.fence(g, m, undefined);
  }

  /** After a load: every member's session starts again. */
  onLoaded(g: ShareGroup): void {
    for (const m of g.members.values()) this.scheduleSessionTimeout(g.groupId, m.memberId);
  }

  /** Topics changed: the groups check their subscribed topics' metadata on the next heartbeat. */
  requestMetadataRefresh(): void {
    for (const g of this.ctx.groups.values()) if (g.type === 'share') g.metadataRefreshDeadline = 0;
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
      'share.session.timeout.ms',
      c.shareSessionTimeoutMs,
      c.shareMinSessionTimeoutMs,
      c.shareMaxSessionTimeoutMs,
    );
  }

  heartbeatIntervalMs(groupId: string): number {
    const c = this.ctx.config;
    return this.groupInt(
      groupId,
      'share.heartbeat.interval.ms',
      c.shareHeartbeatIntervalMs,
      c.shareMinHeartbeatIntervalMs,
      c.shareMaxHeartbeatIntervalMs,
    );
  }

  // ------------------------------------------------------------------ describe

  /** ShareGroup.asDescribedGroup. */
  describe(groupId: string): ShareDescribedGroup {
    const g = this.shareGroup(groupId);
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId,
      groupState: g.state,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.assignmentEpoch,
      assignorName: SHARE_ASSIGNOR_NAME,
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: [...m.subscribedTopicNames],
        assignment: {
          topicPartitions: toTopicPartitions(m.assignedPartitions).flatMap((tp) => {
            const t = this.ctx.metadata.topicById(tp.topicId);
            return t ? [{ topicId: tp.topicId, topicName: t.name, partitions: tp.partitions }] : [];
          }),
        },
      })),
    };
  }
}
