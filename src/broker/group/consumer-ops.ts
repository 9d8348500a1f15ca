// The consumer group protocol of KIP-848 (GroupMetadataManager.consumerGroupHeartbeat): members
// join with epoch 0, the group epoch moves when subscriptions or topic metadata change, the target
// assignment is computed by a server-side assignor, and each member reconciles towards it
// (CurrentAssignmentBuilder): partitions are revoked first, then assigned once released. Members
// are fenced on session or rebalance timeout. All state changes are records, replayed by the shard.
import { randomBytes } from 'node:crypto';
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { assign, ASSIGNORS, type AssignorMember } from './assignors.js';
import {
  assignmentEquals,
  cloneAssignment,
  ConsumerGroup,
  hasRegex,
  MemberState,
  consumerGroupTombstones,
  memberTombstones,
  newMember,
  usesClassicProtocol,
  regularExpressionRecord,
  regularExpressionTombstone,
  toTopicPartitions,
  type Assignment,
  type ConsumerMember,
  type ResolvedRegularExpression,
  type SubscribedTopic,
} from './consumer-group.js';
import { joinError, syncError } from './classic-group.js';
import { effectiveGroupConfig } from './group-configs.js';
import {
  classicGroupFromConsumer,
  classicGroupRecord,
  consumerGroupFromClassic,
  consumerGroupRecords,
  currentAssignmentRecord,
  memberRecord,
  validateOnlineDowngradeWithFencedMembers,
  validateOnlineUpgrade,
} from './migration.js';
import type { CoordinatorRecord } from './records.js';
import { result, type ClassicRebalancer, type OpResult, type RequestInfo, type ShardContext } from './shard-types.js';

export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface HeartbeatRequest {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  subscribedTopicNames: string[] | null;
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  topicPartitions: { topicId: string; partitions: number[] }[] | null;
}

export interface HeartbeatResponse {
  errorCode: number;
  errorMessage: string | null;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  assignment: { topicPartitions: { topicId: string; partitions: number[] }[] } | null;
}

const sessionKey = (g: string, m: string): string => `consumer-session-${g}-${m}`;
const rebalanceKey = (g: string, m: string): string => `consumer-rebalance-${g}-${m}`;
/** The join and sync timers of members that use the classic protocol in a consumer group. */
export const consumerJoinKey = (g: string, m: string): string => `consumer-join-${g}-${m}`;
export const consumerSyncKey = (g: string, m: string): string => `consumer-sync-${g}-${m}`;
const invalid = (msg: string): KafkaError => new KafkaError(ErrorCode.INVALID_REQUEST, msg);

/** Kafka's Uuid.randomUuid().toString(): URL-safe base64 of 16 random bytes, no padding. */
export function randomMemberId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid (Kafka 4.4): from v1 the member
 * brings its own id (KIP-1082); on (re-)join either the topic names or the regex must be set (an empty
 * list or an empty regex is a valid subscription: the empty regex means "no regex").
 */
export function validateHeartbeatRequest(r: HeartbeatRequest, assignors: readonly string[] = ASSIGNORS): void {
  const emptyStr = (v: string | null, msg: string) => {
    if (v !== null && v.trim() === '') throw invalid(msg);
  };
  // (from v1 an empty member id is refused for every epoch, by the ConsumerGroupHeartbeat handler)
  if (r.memberEpoch > 0 || r.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) {
    emptyStr(r.memberId, "MemberId can't be empty.");
  }
  emptyStr(r.groupId, "GroupId can't be empty.");
  emptyStr(r.instanceId, "InstanceId can't be empty.");
  emptyStr(r.rackId, "RackId can't be empty.");
  if (r.memberEpoch === 0) {
    if (r.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
    if (r.topicPartitions === null || r.topicPartitions.length > 0)
      throw invalid('TopicPartitions must be empty when (re-)joining.');
    if (r.subscribedTopicNames === null && r.subscribedTopicRegex === null) {
      throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
    }
  } else if (r.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (r.instanceId === null) throw invalid("InstanceId can't be null.");
  } else if (r.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
  if (r.serverAssignor !== null && !assignors.includes(r.serverAssignor)) {
    throw new KafkaError(
      ErrorCode.UNSUPPORTED_ASSIGNOR,
      `ServerAssignor ${r.serverAssignor} is not supported. Supported assignors: ${assignors.join(', ')}.`,
    );
  }
}

/**
 * Compiles a SubscribedTopicRegex with RE2/J's syntax, as Kafka does (com.google.re2j.Pattern); an
 * invalid one is INVALID_REGULAR_EXPRESSION with Utils.throwIfRegularExpressionIsInvalid's message.
 */
export function compileTopicRegex(regex: string): RE2JS {
  try {
    return RE2JS.compile(regex);
  } catch (e) {
    if (!(e instanceof RE2JSException)) throw e;
    const description = e instanceof RE2JSSyntaxException ? e.getDescription() : e.message;
    throw new KafkaError(
      ErrorCode.INVALID_REGULAR_EXPRESSION,
      `SubscribedTopicRegex \`${regex}\` is not a valid regular expression: ${description}.`,
    );
  }
}

export function subscriptionMetadataRecord(groupId: string, md: Map<string, SubscribedTopic>): CoordinatorRecord {
  return {
    type: 'ConsumerGroupPartitionMetadata',
    group: groupId,
    value: {
      topics: [...md.values()]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((t) => ({ topicId: t.id, topicName: t.name, numPartitions: t.numPartitions, partitionMetadata: [] })),
    },
  };
}

export const sameMetadata = (a: Map<string, SubscribedTopic>, b: Map<string, SubscribedTopic>): boolean =>
  a.size === b.size &&
  [...a].every(([n, t]) => {
    const o = b.get(n);
    return !!o && o.id === t.id && o.numPartitions === t.numPartitions;
  });

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export class ConsumerGroupManager {
  /** The version when no MetadataView.version is given; moves (at least to the clock) when topics change. */
  private localVersion = 0;
  /**
   * Resolutions older than this version are resolved again: set when topics are created or deleted. -1
   * after a load, so the resolutions replayed from the log are used until then.
   */
  private staleBefore = -1;
  /** Regexes resolved by the running operation, not yet written (group id, regex → resolution). */
  private fresh: { groupId: string; resolved: Map<string, ResolvedRegularExpression> } | null = null;
  /** During a heartbeat with an authorizer: may its principal DESCRIBE the topic (regex filtering). */
  private describable: ((topic: string) => boolean) | undefined = undefined;

  /** The classic half of the shard (set by the shard): a downgraded group continues there. */
  classic: ClassicRebalancer | null = null;

  constructor(private readonly ctx: ShardContext) {}

  group(groupId: string): ConsumerGroup | undefined {
    const g = this.ctx.groups.get(groupId);
    return g && g.type === 'consumer' ? g : undefined;
  }

  heartbeat(req: HeartbeatRequest, info: RequestInfo): OpResult<HeartbeatResponse> {
    // regexes resolved during this heartbeat keep the topics its principal may DESCRIBE
    this.describable = info.describableTopic;
    try {
      return this.heartbeatOp(req, info);
    } finally {
      this.describable = undefined;
    }
  }

  private heartbeatOp(req: HeartbeatRequest, info: RequestInfo): OpResult<HeartbeatResponse> {
    if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH)
      return this.leave(req);
    const records: CoordinatorRecord[] = [];
    this.fresh = null;
    const now = this.ctx.clock();
    const create = req.memberEpoch === 0;
    const group = this.getOrMaybeCreate(req.groupId, create, records);
    const memberId = req.memberId === '' ? randomMemberId() : req.memberId;
    if (group.members.size >= this.ctx.config.consumerMaxSize && !group.members.has(memberId)) {
      throw new KafkaError(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The consumer group has reached its maximum capacity of ${this.ctx.config.consumerMaxSize} members.`,
      );
    }
    const member =
      req.instanceId === null
        ? this.dynamicMember(group, memberId, req)
        : this.staticMember(group, memberId, req, records);
    // a static member rejoining under a new member id replaces the old one (replaceStaticMember)
    const previousId =
      req.instanceId !== null && req.memberEpoch === 0 ? group.staticMember(req.instanceId)?.memberId : undefined;
    const replacedId = previousId !== memberId ? previousId : undefined;

    const updated: ConsumerMember = {
      ...member,
      instanceId: req.instanceId ?? member.instanceId,
      rackId: req.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      serverAssignor: req.serverAssignor ?? member.serverAssignor,
      subscribedTopicNames: req.subscribedTopicNames
        ? [...req.subscribedTopicNames].sort()
        : member.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicRegex ?? member.subscribedTopicRegex,
      clientId: info.clientId,
      clientHost: info.clientHost,
      // a member heartbeating with the consumer protocol no longer uses the classic one
      classicMemberMetadata: null,
    };
    let bump = false;
    const isNewMember = !group.members.has(updated.memberId);
    // maybeUpdateRegularExpressions: a new regex is checked (INVALID_REGULAR_EXPRESSION) and resolved; an
    // empty one means no regex. tkafka resolves it here, in the heartbeat, where Kafka resolves it
    // asynchronously and bumps the group epoch when the resolution lands.
    const regexChanged = (updated.subscribedTopicRegex ?? '') !== (member.subscribedTopicRegex ?? '');
    if (regexChanged && hasRegex(updated.subscribedTopicRegex)) compileTopicRegex(updated.subscribedTopicRegex);
    const subscriptionChanged =
      !sameList(updated.subscribedTopicNames, member.subscribedTopicNames) ||
      (regexChanged && (hasRegex(updated.subscribedTopicRegex) || hasRegex(member.subscribedTopicRegex)));
    if (
      isNewMember ||
      updated.instanceId !== member.instanceId ||
      updated.rackId !== member.rackId ||
      updated.rebalanceTimeoutMs !== member.rebalanceTimeoutMs ||
      updated.serverAssignor !== member.serverAssignor ||
      !sameList(updated.subscribedTopicNames, member.subscribedTopicNames) ||
      regexChanged ||
      updated.clientId !== member.clientId ||
      updated.clientHost !== member.clientHost ||
      member.classicMemberMetadata !== null
    ) {
      records.push(memberRecord(group.groupId, updated));
      if ((isNewMember && replacedId === undefined) || subscriptionChanged) bump = true;
    }

    let groupEpoch = group.groupEpoch;
    let metadata = group.subscriptionMetadata;
    if (bump || group.metadataRefreshDeadline <= now) {
      metadata = this.computeSubscriptionMetadata(group, updated, records, replacedId);
      if (!sameMetadata(metadata, group.subscriptionMetadata)) {
        bump = true;
        records.push(subscriptionMetadataRecord(group.groupId, metadata));
      }
      if (bump) {
        groupEpoch++;
        records.push({ type: 'ConsumerGroupMetadata', group: group.groupId, value: { epoch: groupEpoch } });
        this.ctx.log('INFO', `[GroupId ${group.groupId}] Bumped group epoch to ${groupEpoch}.`);
      }
      group.metadataRefreshDeadline = now + 300_000;
    }

    let targetEpoch = group.targetAssignmentEpoch;
    let target: Assignment;
    if (groupEpoch > group.targetAssignmentEpoch) {
      target = this.updateTargetAssignment(group, groupEpoch, updated, metadata, records, replacedId);
      targetEpoch = groupEpoch;
    } else {
      target =
        group.targetAssignment.get(updated.memberId) ??
        (replacedId !== undefined ? group.targetAssignment.get(replacedId) : undefined) ??
        new Map();
    }
    const reconciled = this.maybeReconcile(group, updated, targetEpoch, target, req.topicPartitions, records);
    this.scheduleSessionTimeout(group.groupId, reconciled.memberId);

    const full =
      req.memberEpoch === 0 ||
      (req.rebalanceTimeoutMs !== -1 &&
        (req.subscribedTopicNames !== null || req.subscribedTopicRegex !== null) &&
        req.topicPartitions !== null);
    const changed = !assignmentEquals(member.assignedPartitions, reconciled.assignedPartitions);
    return result(
      {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        memberId: reconciled.memberId,
        memberEpoch: reconciled.memberEpoch,
        heartbeatIntervalMs: this.heartbeatIntervalMs(group.groupId),
        assignment: full || changed ? { topicPartitions: toTopicPartitions(reconciled.assignedPartitions) } : null,
      },
      records,
    );
  }

  private getOrMaybeCreate(groupId: string, create: boolean, records: CoordinatorRecord[]): ConsumerGroup {
    const g = this.ctx.groups.get(groupId);
    if (g && g.type === 'consumer') return g;
    if (g && g.type === 'classic') {
      if (create && g.isEmpty) {
        records.push({ type: 'GroupMetadata', group: groupId, value: null });
        this.ctx.log('INFO', `[GroupId ${groupId}] Converted the empty classic group to a consumer group.`);
        return new ConsumerGroup(groupId);
      }
      if (create) {
        validateOnlineUpgrade(this.ctx, g);
        // convertToConsumerGroup: the classic group's pending joins and syncs are told to rejoin; the
        // converted group is materialized when its records are replayed
        for (const m of g.members.values()) {
          g.completeJoinFuture(m, joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
          g.completeSyncFuture(m, syncError(ErrorCode.REBALANCE_IN_PROGRESS));
        }
        const converted = consumerGroupFromClassic(this.ctx, g);
        records.push({ type: 'GroupMetadata', group: groupId, value: null }, ...consumerGroupRecords(converted));
        for (const m of converted.members.values())
          this.scheduleSessionTimeout(groupId, m.memberId, m.classicMemberMetadata?.sessionTimeoutMs);
        this.ctx.log('INFO', `[GroupId ${groupId}] Converted the classic group to a consumer group.`);
        return converted;
      }
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    }
    if (g && (g.type === 'share' || g.type === 'streams'))
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    if (!create) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    return new ConsumerGroup(groupId);
  }

  private checkEpoch(member: ConsumerMember, req: HeartbeatRequest): void {
    if (req.memberEpoch > member.memberEpoch) {
      throw new KafkaError(
        ErrorCode.FENCED_MEMBER_EPOCH,
        `The consumer group member has a greater member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
      );
    }
    if (req.memberEpoch < member.memberEpoch) {
      // the response with the bumped epoch may have been lost: accept the previous epoch with a subset of the assignment
      const owned = req.topicPartitions;
      const subset =
        owned !== null &&
        owned.every((tp) => tp.partitions.every((p) => member.assignedPartitions.get(tp.topicId)?.has(p)));
      if (req.memberEpoch !== member.previousMemberEpoch || !subset) {
        throw new KafkaError(
          ErrorCode.FENCED_MEMBER_EPOCH,
          `The consumer group member has a smaller member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
        );
      }
    }
  }

  private dynamicMember(group: ConsumerGroup, memberId: string, req: HeartbeatRequest): ConsumerMember {
    const m = group.members.get(memberId);
    if (req.memberEpoch === 0) return m ?? newMember(memberId);
    if (!m)
      throw new KafkaError(
        ErrorCode.UNKNOWN_MEMBER_ID,
        `Member ${memberId} is not a member of group ${group.groupId}.`,
      );
    this.checkEpoch(m, req);
    return m;
  }

  private staticMember(
    group: ConsumerGroup,
    memberId: string,
    req: HeartbeatRequest,
    records: CoordinatorRecord[],
  ): ConsumerMember {
    const instanceId = req.instanceId!;
    const existing = group.staticMember(instanceId);
    if (req.memberEpoch === 0) {
      if (!existing) return group.members.get(memberId) ?? { ...newMember(memberId), instanceId };
      if (existing.memberId === memberId) return existing;
      if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        throw new KafkaError(
          ErrorCode.UNRELEASED_INSTANCE_ID,
          `Static member ${memberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
        );
      }
      // the instance comes back under a new member id: it takes over the old member's epoch and
      // assignment (ConsumerGroupMember.Builder(existing, memberId)); no group epoch bump
      records.push(...memberTombstones(group.groupId, existing.memberId));
      const replacement: ConsumerMember = { ...existing, memberId };
      const target = group.targetAssignment.get(existing.memberId);
      if (target)
        records.push({
          type: 'ConsumerGroupTargetAssignmentMember',
          group: group.groupId,
          memberId,
          value: { topicPartitions: toTopicPartitions(target) },
        });
      return replacement;
    }
    if (!existing) throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${instanceId} is unknown.`);
    if (existing.memberId !== memberId) {
      throw new KafkaError(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`,
      );
    }
    this.checkEpoch(existing, req);
    return existing;
  }

  /**
   * The subscribed topics' metadata. Writes a ConsumerGroupRegularExpression record for each regex resolved
   * on the way (handleRegularExpressionsResult writes one per resolution) and a tombstone for each regex no
   * member subscribes to any more (maybeDeleteResolvedRegularExpression).
   */
  computeSubscriptionMetadata(
    group: ConsumerGroup,
    updated: ConsumerMember | null,
    records: CoordinatorRecord[],
    removed?: string | ReadonlySet<string>,
  ): Map<string, SubscribedTopic> {
    const isRemoved = (id: string) => (typeof removed === 'string' ? id === removed : (removed?.has(id) ?? false));
    this.fresh = { groupId: group.groupId, resolved: new Map() };
    const names = new Set<string>();
    const regexes = new Set<string>();
    const add = (m: ConsumerMember) => {
      for (const t of this.memberTopics(group, m)) names.add(t);
      if (hasRegex(m.subscribedTopicRegex)) regexes.add(m.subscribedTopicRegex);
    };
    for (const m of group.members.values()) {
      if (isRemoved(m.memberId) || (updated && m.memberId === updated.memberId)) continue;
      add(m);
    }
    if (updated) add(updated);
    for (const [regex, resolved] of this.fresh.resolved) {
      records.push(regularExpressionRecord(group.groupId, regex, resolved));
    }
    // a regex no member subscribes to any more is dropped (maybeDeleteResolvedRegularExpression)
    for (const r of group.resolvedRegularExpressions.keys()) {
      if (!regexes.has(r)) records.push(regularExpressionTombstone(group.groupId, r));
    }
    const out = new Map<string, SubscribedTopic>();
    for (const n of [...names].sort()) {
      const t = this.ctx.metadata.topic(n);
      if (t) out.set(n, { id: t.id, name: n, numPartitions: t.numPartitions });
    }
    return out;
  }

  updateTargetAssignment(
    group: ConsumerGroup,
    epoch: number,
    updated: ConsumerMember | null,
    metadata: Map<string, SubscribedTopic>,
    records: CoordinatorRecord[],
    removedId?: string,
  ): Assignment {
    const members = new Map<string, AssignorMember>();
    const byName = new Map([...metadata.values()].map((t) => [t.name, t]));
    const addMember = (m: ConsumerMember) =>
      members.set(m.memberId, {
        subscribedTopicIds: new Set(
          this.memberTopics(group, m)
            .map((n) => byName.get(n)?.id)
            .filter((x): x is string => !!x),
        ),
        current: group.targetAssignment.get(m.memberId) ?? new Map(),
      });
    for (const m of group.members.values())
      if (m.memberId !== removedId && m.memberId !== updated?.memberId) addMember(m);
    if (updated) addMember(updated);
    const topics = new Map([...metadata.values()].map((t) => [t.id, t.numPartitions]));
    const assignorName =
      updated?.serverAssignor ?? group.preferredAssignor(this.ctx.config.consumerAssignors[0] ?? 'uniform');
    const next = assign(assignorName, { members, topics });
    for (const [id, a] of next) {
      const prev = group.targetAssignment.get(id);
      if (!prev || !assignmentEquals(prev, a)) {
        records.push({
          type: 'ConsumerGroupTargetAssignmentMember',
          group: group.groupId,
          memberId: id,
          value: { topicPartitions: toTopicPartitions(a) },
        });
      }
    }
    records.push({
      type: 'ConsumerGroupTargetAssignmentMetadata',
      group: group.groupId,
      value: { assignmentEpoch: epoch },
    });
    this.ctx.log(
      'INFO',
      `[GroupId ${group.groupId}] Computed a new target assignment for epoch ${epoch} with '${assignorName}' assignor.`,
    );
    return updated ? (next.get(updated.memberId) ?? new Map()) : new Map();
  }

  /** CurrentAssignmentBuilder: moves the member towards the target; records the change. */
  maybeReconcile(
    group: ConsumerGroup,
    m: ConsumerMember,
    targetEpoch: number,
    target: Assignment,
    owned: HeartbeatRequest['topicPartitions'],
    records: CoordinatorRecord[],
  ): ConsumerMember {
    if (m.state === MemberState.STABLE && m.memberEpoch === targetEpoch) return m;
    const ownsAny = (a: Assignment): boolean =>
      owned === null || owned.some((tp) => tp.partitions.some((p) => a.get(tp.topicId)?.has(p)));
    const next = (epoch: number): ConsumerMember => {
      let unreleased = false;
      const assigned: Assignment = new Map();
      const revoke: Assignment = new Map();
      const pending: Assignment = new Map();
      for (const t of new Set([...target.keys(), ...m.assignedPartitions.keys()])) {
        const tgt = target.get(t) ?? new Set<number>();
        const cur = m.assignedPartitions.get(t) ?? new Set<number>();
        const keep = new Set([...cur].filter((p) => tgt.has(p)));
        const rev = new Set([...cur].filter((p) => !keep.has(p)));
        const add = new Set<number>();
        for (const p of tgt) {
          if (keep.has(p)) continue;
          // a partition another member still owns (or still has to revoke) is not released yet
          if (group.currentPartitionEpoch(t, p) !== -1) unreleased = true;
          else add.add(p);
        }
        if (keep.size) assigned.set(t, keep);
        if (rev.size) revoke.set(t, rev);
        if (add.size) pending.set(t, add);
      }
      if (revoke.size > 0 && ownsAny(revoke)) {
        return {
          ...m,
          state: MemberState.UNREVOKED_PARTITIONS,
          previousMemberEpoch: m.memberEpoch,
          memberEpoch: epoch,
          assignedPartitions: assigned,
          partitionsPendingRevocation: revoke,
        };
      }
      for (const [t, ps] of pending) assigned.set(t, new Set([...(assigned.get(t) ?? []), ...ps]));
      return {
        ...m,
        state: unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
        previousMemberEpoch: m.memberEpoch,
        memberEpoch: targetEpoch,
        assignedPartitions: assigned,
        partitionsPendingRevocation: new Map(),
      };
    };
    let updated: ConsumerMember;
    switch (m.state) {
      case MemberState.STABLE:
        updated = next(m.memberEpoch);
        break;
      case MemberState.UNREVOKED_PARTITIONS:
        if (ownsAny(m.partitionsPendingRevocation)) return m;
        updated = next(m.memberEpoch + 1);
        break;
      case MemberState.UNRELEASED_PARTITIONS:
        updated = next(m.memberEpoch);
        break;
      default:
        if (owned === null || owned.length > 0)
          throw new KafkaError(
            ErrorCode.FENCED_MEMBER_EPOCH,
            'The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.',
          );
        updated = next(targetEpoch);
    }
    const same =
      updated.state === m.state &&
      updated.memberEpoch === m.memberEpoch &&
      updated.previousMemberEpoch === m.previousMemberEpoch &&
      assignmentEquals(updated.assignedPartitions, m.assignedPartitions) &&
      assignmentEquals(updated.partitionsPendingRevocation, m.partitionsPendingRevocation);
    if (!same || !group.members.has(m.memberId)) {
      records.push(currentAssignmentRecord(group.groupId, updated));
      // members using the classic protocol have join and sync timers instead
      if (usesClassicProtocol(updated)) {
        // (no rebalance timer)
      } else if (updated.state === MemberState.UNREVOKED_PARTITIONS)
        this.scheduleRebalanceTimeout(group.groupId, updated.memberId, updated.memberEpoch, updated.rebalanceTimeoutMs);
      else this.ctx.timer.cancel(rebalanceKey(group.groupId, updated.memberId));
    }
    return updated;
  }

  // ------------------------------------------------------------------ leaving and fencing

  private leave(req: HeartbeatRequest): OpResult<HeartbeatResponse> {
    const group = this.group(req.groupId);
    if (!group) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    const m = req.instanceId !== null ? group.staticMember(req.instanceId) : group.members.get(req.memberId);
    if (!m)
      throw new KafkaError(
        ErrorCode.UNKNOWN_MEMBER_ID,
        `Member ${req.memberId} is not a member of group ${req.groupId}.`,
      );
    if (req.instanceId !== null && m.memberId !== req.memberId) {
      throw new KafkaError(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${m.memberId}.`,
      );
    }
    const response = (epoch: number): HeartbeatResponse => ({
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      memberId: req.memberId,
      memberEpoch: epoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // a static member leaving temporarily keeps its assignment until its session expires
      this.ctx.timer.cancel(rebalanceKey(group.groupId, m.memberId));
      const left = { ...m, previousMemberEpoch: m.memberEpoch, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH };
      return result(response(LEAVE_GROUP_STATIC_MEMBER_EPOCH), [currentAssignmentRecord(group.groupId, left)]);
    }
    this.ctx.log('INFO', `[GroupId ${group.groupId}] Member ${m.memberId} left the consumer group.`);
    return this.fence(group, m.memberId, response(LEAVE_GROUP_MEMBER_EPOCH));
  }

  /**
   * consumerGroupFenceMember: removes the member, or, when it is the last member using the consumer protocol
   * and the policy allows, converts the group to a classic group of the remaining members
   * (convertToClassicGroup). The conversion changes the state directly (no replay) and starts a rebalance.
   */
  fence<T>(group: ConsumerGroup, memberIds: string | readonly string[], response: T): OpResult<T> {
    const ids = typeof memberIds === 'string' ? [memberIds] : memberIds;
    if (ids.length === 0) return result(response);
    if (this.classic && validateOnlineDowngradeWithFencedMembers(this.ctx, group, new Set(ids))) {
      const r = this.convertToClassicGroup(
        group,
        new Set(ids),
        null,
        `Downgrade group ${group.groupId} from consumer to classic for member leaving.`,
      );
      return { records: r.records, response, replay: false, onAppended: r.onAppended };
    }
    return result(response, this.fenceRecords(group, ...ids));
  }

  /**
   * convertToClassicGroup: tombstones for the consumer group (the replaced static member under its new
   * id), the classic group's record, the classic group in place of the consumer group with its heartbeat
   * timers, and a rebalance when `reason` is given. The state changes here; the records are not replayed.
   */
  convertToClassicGroup(
    group: ConsumerGroup,
    fenced: ReadonlySet<string>,
    joining: { member: ConsumerMember; replacedId: string } | null,
    reason: string | null,
  ): OpResult<void> {
    const records = consumerGroupTombstones(group);
    if (joining) {
      // createGroupTombstoneRecordsWithReplacedMember: the replaced member's records were rewritten under the new id
      for (const r of records)
        if ('memberId' in r && r.memberId === joining.replacedId) r.memberId = joining.member.memberId;
    }
    const classic = classicGroupFromConsumer(this.ctx, group, fenced, joining);
    records.push(classicGroupRecord(classic));
    for (const id of group.members.keys()) this.cancelTimers(group.groupId, id);
    this.ctx.groups.set(group.groupId, classic);
    for (const m of classic.members.values()) this.classic!.rescheduleHeartbeat(classic, m);
    const r = reason === null ? result(undefined) : this.classic!.prepareRebalance(classic, reason);
    this.ctx.log('INFO', `[GroupId ${group.groupId}] Converted the consumer group to a classic group.`);
    return { records: [...records, ...r.records], response: undefined, replay: false, onAppended: r.onAppended };
  }

  /** Every timer of a member (cancelTimers). */
  cancelTimers(groupId: string, memberId: string): void {
    this.ctx.timer.cancel(sessionKey(groupId, memberId));
    this.ctx.timer.cancel(rebalanceKey(groupId, memberId));
    this.ctx.timer.cancel(consumerJoinKey(groupId, memberId));
    this.ctx.timer.cancel(consumerSyncKey(groupId, memberId));
  }

  /** Removes members, refreshes the subscription metadata and bumps the group epoch. */
  fenceRecords(group: ConsumerGroup, ...memberIds: string[]): CoordinatorRecord[] {
    const records = memberIds.flatMap((id) => memberTombstones(group.groupId, id));
    this.fresh = null;
    const metadata = this.computeSubscriptionMetadata(group, null, records, new Set(memberIds));
    if (!sameMetadata(metadata, group.subscriptionMetadata))
      records.push(subscriptionMetadataRecord(group.groupId, metadata));
    records.push({ type: 'ConsumerGroupMetadata', group: group.groupId, value: { epoch: group.groupEpoch + 1 } });
    for (const id of memberIds) this.cancelTimers(group.groupId, id);
    return records;
  }

  /** consumer.heartbeat.interval.ms of the group (its dynamic config, else the broker's). */
  heartbeatIntervalMs(groupId: string): number {
    return effectiveGroupConfig(
      'consumer.heartbeat.interval.ms',
      this.ctx.metadata.groupConfigs?.(groupId),
      this.ctx.config,
    );
  }

  /** consumer.session.timeout.ms of the group (its dynamic config, else the broker's). */
  sessionTimeoutMs(groupId: string): number {
    return effectiveGroupConfig(
      'consumer.session.timeout.ms',
      this.ctx.metadata.groupConfigs?.(groupId),
      this.ctx.config,
    );
  }

  /** The session timer: the group's session timeout, or the classic member's own. */
  scheduleSessionTimeout(groupId: string, memberId: string, timeoutMs?: number): void {
    const ms = timeoutMs ?? this.sessionTimeoutMs(groupId);
    this.ctx.timer.schedule(sessionKey(groupId, memberId), ms, () =>
      this.fenceOperation(groupId, memberId, 'its session expired'),
    );
  }

  /** consumerGroupFenceMemberOperation: run by the timers. */
  fenceOperation(groupId: string, memberId: string, why: string): OpResult<undefined> {
    const g = this.group(groupId);
    if (!g || !g.members.has(memberId)) return result(undefined);
    this.ctx.log('INFO', `[GroupId ${groupId}] Member ${memberId} fenced from the group because ${why}.`);
    return this.fence(g, memberId, undefined);
  }

  private scheduleRebalanceTimeout(groupId: string, memberId: string, memberEpoch: number, timeoutMs: number): void {
    this.ctx.timer.schedule(rebalanceKey(groupId, memberId), Math.max(timeoutMs, 0), () => {
      const g = this.group(groupId);
      const m = g?.members.get(memberId);
      if (!g || !m || m.memberEpoch !== memberEpoch || m.state !== MemberState.UNREVOKED_PARTITIONS)
        return result(undefined);
      this.ctx.log(
        'INFO',
        `[GroupId ${groupId}] Member ${memberId} fenced from the group because it failed to revoke partitions within ${timeoutMs}ms.`,
      );
      return this.fence(g, memberId, undefined);
    });
  }

  onLoaded(g: ConsumerGroup): void {
    for (const m of g.members.values()) {
      this.scheduleSessionTimeout(g.groupId, m.memberId, m.classicMemberMetadata?.sessionTimeoutMs);
      if (m.state === MemberState.UNREVOKED_PARTITIONS && !usesClassicProtocol(m))
        this.scheduleRebalanceTimeout(g.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
    }
  }

  /** ConsumerGroupDescribe for one group. */
  describe(groupId: string): Record<string, unknown> {
    const g = this.group(groupId);
    if (!g) {
      return {
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
        // GroupMetadataManager.consumerGroup: a share group is not a consumer group
        errorMessage:
          this.ctx.groups.get(groupId)?.type === 'share' || this.ctx.groups.get(groupId)?.type === 'streams'
            ? `Group ${groupId} is not a consumer group.`
            : `Group ${groupId} not found.`,
        groupId,
        groupState: '',
        groupEpoch: 0,
        assignmentEpoch: 0,
        assignorName: '',
        members: [],
      };
    }
    const names = (a: Assignment) =>
      toTopicPartitions(a).map((tp) => ({ ...tp, topicName: this.ctx.metadata.topicById(tp.topicId)?.name ?? '' }));
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      groupId,
      groupState: g.state,
      groupEpoch: g.groupEpoch,
      assignmentEpoch: g.targetAssignmentEpoch,
      assignorName: g.preferredAssignor(this.ctx.config.consumerAssignors[0] ?? 'uniform'),
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId,
        rackId: m.rackId,
        memberEpoch: m.memberEpoch,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscribedTopicNames: m.subscribedTopicNames,
        subscribedTopicRegex: m.subscribedTopicRegex,
        assignment: { topicPartitions: names(m.assignedPartitions) },
        targetAssignment: { topicPartitions: names(g.targetAssignment.get(m.memberId) ?? new Map()) },
        // ConsumerGroupDescribe v1 (KIP-1099): 0 for a member using the classic protocol, 1 for the consumer one
        memberType: usesClassicProtocol(m) ? 0 : 1,
      })),
    };
  }

  /** The topics a member subscribes to: its topic names and the topics its regex resolves to. */
  private memberTopics(group: ConsumerGroup, m: ConsumerMember): string[] {
    if (!hasRegex(m.subscribedTopicRegex)) return m.subscribedTopicNames;
    return [...new Set([...m.subscribedTopicNames, ...this.resolveRegex(group, m.subscribedTopicRegex)])];
  }

  /**
   * TopicRegexResolver.resolveRegularExpressions: every topic name of the metadata image (internal topics
   * included, as Kafka scans topicNames()) that the RE2/J regex matches entirely. The resolution is written
   * to the log (computeSubscriptionMetadata) and kept on the group by replay until topics are created or
   * deleted; its version is the metadata image's offset, as Kafka's.
   */
  private resolveRegex(group: ConsumerGroup, regex: string): ReadonlySet<string> {
    const fresh = this.fresh?.groupId === group.groupId ? this.fresh.resolved.get(regex) : undefined;
    if (fresh) return fresh.topics;
    const cached = group.resolvedRegularExpressions.get(regex);
    if (cached && cached.version >= this.staleBefore) return cached.topics;
    const started = Date.now();
    const topics = new Set<string>();
    let pattern: RE2JS | null = null;
    try {
      pattern = compileTopicRegex(regex);
    } catch (e) {
      const why = (e as Error).message;
      const g = group.groupId;
      this.ctx.log(
        'WARN',
        `[GroupId ${g}] Couldn't parse regular expression '${regex}' due to \`${why}\`. Ignoring it.`,
      );
    }
    let scanned = 0;
    if (pattern) {
      for (const name of this.ctx.metadata.topicNames?.() ?? []) {
        scanned++;
        if (pattern.matches(name)) topics.add(name);
      }
    }
    // filterTopicDescribeAuthorizedTopics: only the topics the heartbeat's principal may DESCRIBE
    const describable = this.describable;
    if (describable) for (const name of [...topics]) if (!describable(name)) topics.delete(name);
    const resolved = { topics, version: this.metadataVersion(), timestamp: this.ctx.clock() };
    if (this.fresh?.groupId === group.groupId) this.fresh.resolved.set(regex, resolved);
    const ms = Date.now() - started;
    const g = group.groupId;
    this.ctx.log(
      'INFO',
      `[GroupId ${g}] Scanned ${scanned} topics to refresh regular expressions [${regex}] in ${ms}ms.`,
    );
    return topics;
  }

  /**
   * Forces a subscription metadata check on the next heartbeat (topics changed); regex subscriptions are
   * resolved again then (GroupMetadataManager.onMetadataUpdate).
   */
  requestMetadataRefresh(): void {
    // without a metadata offset: a version above every resolution held, those replayed after a restart
    // included (the clock alone may not have moved on since they were written)
    let newest = this.localVersion;
    for (const g of this.ctx.groups.values())
      if (g.type === 'consumer')
        for (const r of g.resolvedRegularExpressions.values()) newest = Math.max(newest, r.version);
    this.localVersion = Math.max(newest + 1, this.ctx.clock());
    this.staleBefore = this.metadataVersion();
    for (const g of this.ctx.groups.values()) if (g.type === 'consumer') g.metadataRefreshDeadline = 0;
  }

  /** The version a resolution is made at: the metadata image's offset, as Kafka's. */
  private metadataVersion(): number {
    return this.ctx.metadata.version?.() ?? this.localVersion;
  }
}

export { cloneAssignment };
