// Members that use the classic protocol inside a consumer group (KIP-848's migration path,
// GroupMetadataManager.classicGroup{Join,Sync,Heartbeat,Leave}ToConsumerGroup): JoinGroup subscribes the
// member with its embedded ConsumerProtocol subscription (ClassicMemberMetadata), bumps the group epoch and
// reconciles it like a consumer-protocol member; the generation is the member epoch; SyncGroup hands out
// the member's current assignment in the ConsumerProtocol encoding of its subscription's version;
// Heartbeat answers REBALANCE_IN_PROGRESS when the member must rejoin; LeaveGroup removes it.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { joinError, syncError, type JoinResponse, type SyncResponse } from './classic-group.js';
import { appendErrorToResponseError, type JoinRequest, type Parked, type SyncRequest } from './classic-support.js';
import {
  MemberState,
  memberTombstones,
  newMember,
  toTopicPartitions,
  usesClassicProtocol,
  type Assignment,
  type ConsumerGroup,
  type ConsumerMember,
} from './consumer-group.js';
import {
  consumerJoinKey,
  consumerSyncKey,
  randomMemberId,
  sameMetadata,
  subscriptionMetadataRecord,
  type ConsumerGroupManager,
} from './consumer-ops.js';
import {
  encodeAssignmentVersion,
  parseSubscription,
  protocolVersion,
  type ConsumerSubscription,
} from './consumer-protocol.js';
import { memberRecord, toNamedAssignment, validateOnlineDowngradeWithReplacedMember } from './migration.js';
import type { CoordinatorRecord } from './records.js';
import { deferred, result, type OpResult, type RequestInfo, type ShardContext } from './shard-types.js';

const CONSUMER_PROTOCOL_TYPE = 'consumer';

const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

const sameProtocols = (a: ConsumerMember['classicMemberMetadata'], b: ConsumerMember['classicMemberMetadata']) =>
  a === b ||
  (a !== null &&
    b !== null &&
    a.sessionTimeoutMs === b.sessionTimeoutMs &&
    a.supportedProtocols.length === b.supportedProtocols.length &&
    a.supportedProtocols.every(
      (p, i) => p.name === b.supportedProtocols[i]!.name && p.metadata.equals(b.supportedProtocols[i]!.metadata),
    ));

export interface LeaveResult {
  errorCode: number;
  members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
}

export class ClassicMembersInConsumerGroup {
  constructor(
    private readonly ctx: ShardContext,
    private readonly consumer: ConsumerGroupManager,
  ) {}

  // ------------------------------------------------------------------ JoinGroup

  /** classicGroupJoinToConsumerGroup (the group is a non-empty consumer group). */
  join(group: ConsumerGroup, req: JoinRequest, info: RequestInfo): OpResult<Parked<JoinResponse>> {
    const d = deferred<JoinResponse>();
    const records: CoordinatorRecord[] = [];
    const groupId = group.groupId;
    const isUnknown = req.memberId === '';
    const memberId = isUnknown ? randomMemberId() : req.memberId;
    if (group.members.size >= this.ctx.config.consumerMaxSize && !group.members.has(memberId)) {
      throw new KafkaError(
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `The consumer group has reached its maximum capacity of ${this.ctx.config.consumerMaxSize} members.`,
      );
    }
    if (!group.supportsClassicProtocols(req.protocolType, new Set(req.protocols.map((p) => p.name)))) {
      throw new KafkaError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `Member ${memberId}'s protocols are not supported.`);
    }
    // JoinGroupRequest.requiresKnownMemberId: v4+ dynamic members get their id first
    if (isUnknown && req.groupInstanceId === null && info.apiVersion >= 4) {
      d.resolve({ ...joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED), memberId });
      this.ctx.log(
        'INFO',
        `[GroupId ${groupId}] Dynamic member with unknown member id joins the consumer group. Created a new member id ${memberId} and requesting the member to rejoin with this id.`,
      );
      return result({ wait: d.promise });
    }
    // a static member joining with the classic protocol may replace the last consumer-protocol member:
    // the group then goes back to classic (validateOnlineDowngradeWithReplacedMember)
    const replaced = req.groupInstanceId === null ? undefined : group.staticMember(req.groupInstanceId);
    const downgrade =
      replaced !== undefined &&
      this.consumer.classic !== null &&
      validateOnlineDowngradeWithReplacedMember(this.ctx, group, replaced);
    const member =
      req.groupInstanceId === null
        ? this.dynamicMember(group, memberId)
        : this.staticMember(group, memberId, req.groupInstanceId, records);

    let subscription;
    try {
      subscription = parseSubscription(req.protocols[0]!.metadata);
    } catch (e) {
      throw new KafkaError(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `Malformed embedded consumer protocol in subscription deserialization: ${(e as Error).message}`,
      );
    }
    const updated: ConsumerMember = {
      ...member,
      instanceId: req.groupInstanceId ?? member.instanceId,
      rackId: subscription.rackId ?? member.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs !== -1 ? req.rebalanceTimeoutMs : member.rebalanceTimeoutMs,
      subscribedTopicNames: [...subscription.topics].sort(),
      clientId: info.clientId,
      clientHost: info.clientHost,
      classicMemberMetadata: {
        sessionTimeoutMs: req.sessionTimeoutMs,
        supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      },
    };

    // 1. the member and, when its subscription changed, the group epoch (hasMemberSubscriptionChanged)
    const isNew = !group.members.has(updated.memberId);
    let bump = false;
    if (
      isNew ||
      updated.instanceId !== member.instanceId ||
      updated.rackId !== member.rackId ||
      updated.rebalanceTimeoutMs !== member.rebalanceTimeoutMs ||
      !sameList(updated.subscribedTopicNames, member.subscribedTopicNames) ||
      updated.clientId !== member.clientId ||
      updated.clientHost !== member.clientHost ||
      !sameProtocols(updated.classicMemberMetadata, member.classicMemberMetadata)
    ) {
      records.push(memberRecord(groupId, updated));
      if (!sameList(updated.subscribedTopicNames, member.subscribedTopicNames)) bump = true;
    }
    const now = this.ctx.clock();
    let groupEpoch = group.groupEpoch;
    let metadata = group.subscriptionMetadata;
    if (bump || group.metadataRefreshDeadline <= now) {
      metadata = this.consumer.computeSubscriptionMetadata(group, updated, records);
      if (!sameMetadata(metadata, group.subscriptionMetadata)) {
        bump = true;
        records.push(subscriptionMetadataRecord(groupId, metadata));
      }
      if (bump) {
        groupEpoch++;
        records.push({ type: 'ConsumerGroupMetadata', group: groupId, value: { epoch: groupEpoch } });
        this.ctx.log('INFO', `[GroupId ${groupId}] Bumped group epoch to ${groupEpoch}.`);
      }
      group.metadataRefreshDeadline = now + 300_000;
    }

    if (downgrade)
      return this.joinAndDowngrade(group, updated, replaced!.memberId, groupEpoch, req, subscription, records);

    // 2. the target assignment
    let targetEpoch = group.targetAssignmentEpoch;
    let target: Assignment;
    if (groupEpoch > group.targetAssignmentEpoch) {
      target = this.consumer.updateTargetAssignment(group, groupEpoch, updated, metadata, records);
      targetEpoch = groupEpoch;
    } else {
      target = group.targetAssignment.get(updated.memberId) ?? new Map();
    }

    // 3. reconciliation, with the partitions the member says it owns (its subscription's ownedPartitions)
    const reconciled = this.consumer.maybeReconcile(
      group,
      updated,
      targetEpoch,
      target,
      this.owned(subscription),
      records,
    );

    const response: JoinResponse = {
      errorCode: ErrorCode.NONE,
      generationId: reconciled.memberEpoch,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: req.protocols[0]!.name,
      leader: '',
      skipAssignment: false,
      memberId: reconciled.memberId,
      members: [],
    };
    return {
      records,
      response: { wait: d.promise },
      onAppended: (e) => {
        if (e !== ErrorCode.NONE) {
          d.resolve(joinError(reconciled.memberId, appendErrorToResponseError(e)));
          return;
        }
        this.ctx.timer.cancel(consumerJoinKey(groupId, reconciled.memberId));
        this.consumer.scheduleSessionTimeout(groupId, reconciled.memberId, req.sessionTimeoutMs);
        this.ctx.timer.schedule(consumerSyncKey(groupId, reconciled.memberId), req.rebalanceTimeoutMs, () =>
          this.consumer.fenceOperation(groupId, reconciled.memberId, 'the member failed to sync within timeout'),
        );
        d.resolve(response);
      },
    };
  }

  /**
   * The static member replacing the last consumer-protocol member turns the group classic: reconciled
   * against the current target first unless the target is stale (then the classic group rebalances).
   */
  private joinAndDowngrade(
    group: ConsumerGroup,
    updated: ConsumerMember,
    replacedId: string,
    groupEpoch: number,
    req: JoinRequest,
    subscription: ConsumerSubscription,
    records: CoordinatorRecord[],
  ): OpResult<Parked<JoinResponse>> {
    const d = deferred<JoinResponse>();
    const stale = group.targetAssignmentEpoch < groupEpoch;
    const joining = stale
      ? updated
      : this.consumer.maybeReconcile(
          group,
          updated,
          group.targetAssignmentEpoch,
          group.targetAssignment.get(replacedId) ?? new Map(),
          this.owned(subscription),
          records,
        );
    const converted = this.consumer.convertToClassicGroup(
      group,
      new Set(),
      { member: joining, replacedId },
      stale ? `Downgrade group ${group.groupId} from consumer to classic with stale assignment.` : null,
    );
    const response: JoinResponse = {
      errorCode: ErrorCode.NONE,
      generationId: joining.memberEpoch,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: req.protocols[0]!.name,
      leader: '',
      skipAssignment: false,
      memberId: joining.memberId,
      members: [],
    };
    return {
      records: [...records, ...converted.records],
      response: { wait: d.promise },
      replay: false,
      onAppended: (e) => {
        converted.onAppended?.(e);
        d.resolve(e === ErrorCode.NONE ? response : joinError(joining.memberId, appendErrorToResponseError(e)));
      },
    };
  }

  /** The subscription's owned partitions, by topic id (topics the metadata does not know are dropped). */
  private owned(subscription: ConsumerSubscription): { topicId: string; partitions: number[] }[] {
    const owned: { topicId: string; partitions: number[] }[] = [];
    for (const tp of subscription.ownedPartitions) {
      const t = this.ctx.metadata.topic(tp.topic);
      if (t) owned.push({ topicId: t.id, partitions: tp.partitions });
    }
    return owned;
  }

  private dynamicMember(group: ConsumerGroup, memberId: string): ConsumerMember {
    const m = group.members.get(memberId);
    if (!m)
      this.ctx.log(
        'INFO',
        `[GroupId ${group.groupId}] Member ${memberId} joins the consumer group using the classic protocol.`,
      );
    return m ?? newMember(memberId);
  }

  /**
   * getOrMaybeSubscribeStaticConsumerGroupMember for a JoinGroup: a known instance id under a new member id
   * replaces the previous member (its assignment carries over, at epoch 0).
   */
  private staticMember(
    group: ConsumerGroup,
    memberId: string,
    instanceId: string,
    records: CoordinatorRecord[],
  ): ConsumerMember {
    const existing = group.staticMember(instanceId);
    if (!existing) return group.members.get(memberId) ?? { ...newMember(memberId), instanceId };
    if (existing.memberId === memberId) return existing;
    records.push(...memberTombstones(group.groupId, existing.memberId));
    const target = group.targetAssignment.get(existing.memberId);
    if (target)
      records.push({
        type: 'ConsumerGroupTargetAssignmentMember',
        group: group.groupId,
        memberId,
        value: { topicPartitions: toTopicPartitions(target) },
      });
    this.consumer.cancelTimers(group.groupId, existing.memberId);
    this.ctx.log(
      'INFO',
      `[GroupId ${group.groupId}] Static member with instance id ${instanceId} re-joins the consumer group using the classic protocol. Created a new member ${memberId} to replace the existing member ${existing.memberId}.`,
    );
    return { ...existing, memberId, memberEpoch: 0, previousMemberEpoch: 0 };
  }

  // ------------------------------------------------------------------ SyncGroup

  /** classicGroupSyncToConsumerGroup. */
  sync(group: ConsumerGroup, req: SyncRequest): OpResult<Parked<SyncResponse>> {
    const m = this.validateMember(group, req.memberId, req.groupInstanceId);
    this.throwIfNotClassic(m);
    this.throwIfGenerationUnmatched(m, req.generationId);
    const protocolName = m.classicMemberMetadata!.supportedProtocols[0]!.name;
    if (req.protocolType !== null && req.protocolType !== CONSUMER_PROTOCOL_TYPE) {
      throw new KafkaError(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `The protocol type ${req.protocolType} from member ${m.memberId} request is not equal to the group protocol type ${CONSUMER_PROTOCOL_TYPE}.`,
      );
    }
    if (req.protocolName !== null && req.protocolName !== protocolName) {
      throw new KafkaError(
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `The protocol name ${req.protocolName} from member ${m.memberId} request is not equal to the protocol name ${protocolName} returned in the join response.`,
      );
    }
    if (group.groupEpoch > m.memberEpoch && m.state !== MemberState.UNREVOKED_PARTITIONS) {
      this.scheduleJoinTimeoutIfAbsent(group.groupId, m);
      throw new KafkaError(
        ErrorCode.REBALANCE_IN_PROGRESS,
        `A new rebalance is triggered in group ${group.groupId} and member ${m.memberId} should rejoin to catch up.`,
      );
    }
    const d = deferred<SyncResponse>();
    return {
      records: [],
      response: { wait: d.promise },
      onAppended: (e) => {
        if (e !== ErrorCode.NONE) {
          d.resolve(syncError(appendErrorToResponseError(e)));
          return;
        }
        this.ctx.timer.cancel(consumerSyncKey(group.groupId, m.memberId));
        this.consumer.scheduleSessionTimeout(group.groupId, m.memberId, m.classicMemberMetadata!.sessionTimeoutMs);
        d.resolve({
          errorCode: ErrorCode.NONE,
          protocolType: req.protocolType,
          protocolName: req.protocolName,
          assignment: this.prepareAssignment(m),
        });
      },
    };
  }

  /** The member's assigned partitions in the ConsumerProtocolAssignment version of its first protocol. */
  private prepareAssignment(m: ConsumerMember): Buffer {
    const first = m.classicMemberMetadata!.supportedProtocols[0]!;
    return encodeAssignmentVersion(
      toNamedAssignment(this.ctx.metadata, m.assignedPartitions),
      protocolVersion(first.metadata),
    );
  }

  // ------------------------------------------------------------------ Heartbeat

  /**
   * classicGroupHeartbeatToConsumerGroup: REBALANCE_IN_PROGRESS when the group epoch moved past the member's,
   * when it must revoke partitions, or when the partitions it waits for were released.
   */
  heartbeat(
    group: ConsumerGroup,
    req: { generationId: number; memberId: string; groupInstanceId: string | null },
  ): OpResult<number> {
    const m = this.validateMember(group, req.memberId, req.groupInstanceId);
    this.throwIfNotClassic(m);
    this.throwIfGenerationUnmatched(m, req.generationId);
    this.consumer.scheduleSessionTimeout(group.groupId, m.memberId, m.classicMemberMetadata!.sessionTimeoutMs);
    if (
      m.memberEpoch < group.groupEpoch ||
      m.state === MemberState.UNREVOKED_PARTITIONS ||
      (m.state === MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(m))
    ) {
      this.scheduleJoinTimeoutIfAbsent(group.groupId, m);
      return result(ErrorCode.REBALANCE_IN_PROGRESS, [], false);
    }
    return result(ErrorCode.NONE, [], false);
  }

  // ------------------------------------------------------------------ LeaveGroup

  /** classicGroupLeaveToConsumerGroup: removes the members, then one epoch bump. */
  leave(group: ConsumerGroup, members: { memberId: string; groupInstanceId: string | null }[]): OpResult<LeaveResult> {
    const out: LeaveResult['members'] = [];
    const left: string[] = [];
    for (const req of members) {
      try {
        let m: ConsumerMember;
        if (req.groupInstanceId === null) {
          const found = group.members.get(req.memberId);
          if (!found)
            throw new KafkaError(
              ErrorCode.UNKNOWN_MEMBER_ID,
              `Member ${req.memberId} is not a member of group ${group.groupId}.`,
            );
          m = found;
          this.throwIfNotClassic(m);
          this.ctx.log(
            'INFO',
            `[Group ${group.groupId}] Dynamic Member ${m.memberId} has left group through explicit \`LeaveGroup\` request; client reason: not provided`,
          );
        } else {
          const found = group.staticMember(req.groupInstanceId);
          if (!found)
            throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.groupInstanceId} is unknown.`);
          m = found;
          if (req.memberId !== '' && m.memberId !== req.memberId)
            throw new KafkaError(
              ErrorCode.FENCED_INSTANCE_ID,
              `Static member ${req.memberId} with instance id ${req.groupInstanceId} is fenced by existing member ${m.memberId}.`,
            );
          this.throwIfNotClassic(m);
        }
        left.push(m.memberId);
        out.push({ memberId: m.memberId, groupInstanceId: req.groupInstanceId, errorCode: ErrorCode.NONE });
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        out.push({ memberId: req.memberId, groupInstanceId: req.groupInstanceId, errorCode: e.code });
      }
    }
    // consumerGroupFenceMembers: the group goes back to classic when only classic members remain
    return this.consumer.fence(group, left, { errorCode: ErrorCode.NONE, members: out });
  }

  // ------------------------------------------------------------------ checks

  /** validateConsumerGroupMember. */
  private validateMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerMember {
    if (instanceId === null) {
      const m = group.members.get(memberId);
      if (!m)
        throw new KafkaError(
          ErrorCode.UNKNOWN_MEMBER_ID,
          `Member ${memberId} is not a member of group ${group.groupId}.`,
        );
      return m;
    }
    const m = group.staticMember(instanceId);
    if (!m)
      throw new KafkaError(
        ErrorCode.UNKNOWN_MEMBER_ID,
        `Member with instance id ${instanceId} is not a member of group ${group.groupId}.`,
      );
    if (m.memberId !== memberId)
      throw new KafkaError(
        ErrorCode.FENCED_INSTANCE_ID,
        `Static member ${memberId} with instance id ${instanceId} is fenced by existing member ${m.memberId}.`,
      );
    return m;
  }

  private throwIfNotClassic(m: ConsumerMember): void {
    if (!usesClassicProtocol(m))
      throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${m.memberId} does not use the classic protocol.`);
  }

  private throwIfGenerationUnmatched(m: ConsumerMember, generationId: number): void {
    if (m.memberEpoch !== generationId)
      throw new KafkaError(
        ErrorCode.ILLEGAL_GENERATION,
        `The request generation id ${generationId} is not equal to the member epoch ${m.memberEpoch} of member ${m.memberId}.`,
      );
  }

  private scheduleJoinTimeoutIfAbsent(groupId: string, m: ConsumerMember): void {
    const key = consumerJoinKey(groupId, m.memberId);
    if (this.ctx.timer.has(key)) return;
    const memberId = m.memberId;
    this.ctx.timer.schedule(key, m.rebalanceTimeoutMs, () =>
      this.consumer.fenceOperation(groupId, memberId, 'the classic member failed to join within the rebalance timeout'),
    );
  }
}
