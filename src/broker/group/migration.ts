// Online migration between the classic and the consumer protocol (KIP-848): a non-empty classic group
// becomes a consumer group when a member joins with ConsumerGroupHeartbeat (ConsumerGroup.fromClassicGroup,
// GroupMetadataManager.convertToConsumerGroup), and a consumer group whose last consumer-protocol member
// leaves becomes a classic group of the remaining classic members (ClassicGroup.fromConsumerGroup,
// convertToClassicGroup), as group.consumer.migration.policy allows.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { ClassicGroup, ClassicMember } from './classic-group.js';
import { groupMetadataRecord } from './classic-support.js';
import { isDowngradeEnabled, isUpgradeEnabled } from './config.js';
import {
  ConsumerGroup,
  MemberState,
  newMember,
  toTopicPartitions,
  usesClassicProtocol,
  type Assignment,
  type ConsumerMember,
} from './consumer-group.js';
import {
  encodeAssignmentVersion,
  parseAssignmentWithUserData,
  parseSubscription,
  protocolVersion,
} from './consumer-protocol.js';
import type { CoordinatorRecord } from './records.js';
import type { MetadataView, ShardContext } from './shard-types.js';

/** GroupMetadataManager.validateOnlineUpgrade (Kafka 4.4): a refusal is GROUP_ID_NOT_FOUND with the reason. */
export function validateOnlineUpgrade(ctx: ShardContext, g: ClassicGroup): void {
  const refuse = (why: string): never => {
    ctx.log('INFO', `Cannot upgrade classic group ${g.groupId} to consumer group because ${why}.`);
    throw new KafkaError(
      ErrorCode.GROUP_ID_NOT_FOUND,
      `Cannot upgrade classic group ${g.groupId} to consumer group because ${why}.`,
    );
  };
  if (!isUpgradeEnabled(ctx.config.consumerMigrationPolicy)) refuse('online upgrade is disabled');
  if (!g.usesConsumerProtocol()) refuse('the group does not use the consumer embedded protocol');
  if (g.numMembers > ctx.config.consumerMaxSize) refuse('the group size exceeds the consumer group maximum size');
}

/** Topic names → ids of the topics the metadata knows (ConsumerGroup.toTopicPartitionMap). */
function toAssignment(metadata: MetadataView, byName: ReadonlyMap<string, readonly number[]>): Assignment {
  const out: Assignment = new Map();
  for (const [name, ps] of byName) {
    const t = metadata.topic(name);
    if (t && ps.length > 0) out.set(t.id, new Set(ps));
  }
  return out;
}

/** Topic ids → names, for the ConsumerProtocolAssignment of a classic member (toConsumerProtocolAssignment). */
export function toNamedAssignment(metadata: MetadataView, a: Assignment): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const tp of toTopicPartitions(a)) {
    const t = metadata.topicById(tp.topicId);
    if (t) out.set(t.name, tp.partitions);
  }
  return out;
}

/**
 * ConsumerGroup.fromClassicGroup: every member keeps its last assignment as both its current and target
 * assignment, at the classic generation as epoch, in the STABLE state. A malformed embedded protocol
 * leaves the group classic (GROUP_ID_NOT_FOUND, as Kafka answers).
 */
export function consumerGroupFromClassic(ctx: ShardContext, classic: ClassicGroup): ConsumerGroup {
  const g = new ConsumerGroup(classic.groupId);
  g.groupEpoch = classic.generationId;
  g.targetAssignmentEpoch = classic.generationId;
  try {
    for (const cm of classic.members.values()) {
      // an empty assignment is none; user data of a custom assignor would be lost (Kafka 4.4 refuses)
      let assigned: Assignment = new Map();
      if (cm.assignment.length > 0) {
        const a = parseAssignmentWithUserData(cm.assignment);
        if (a.userData !== null && a.userData.length > 0) {
          ctx.log(
            'WARN',
            `Cannot upgrade classic group ${classic.groupId} to consumer group: userData from a custom assignor would be lost.`,
          );
          throw new KafkaError(
            ErrorCode.GROUP_ID_NOT_FOUND,
            `Cannot upgrade classic group ${classic.groupId} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`,
          );
        }
        assigned = toAssignment(ctx.metadata, a.partitions);
      }
      const subscription = parseSubscription(cm.metadata(classic.protocolName ?? ''));
      const m: ConsumerMember = {
        ...newMember(cm.memberId),
        memberEpoch: classic.generationId,
        previousMemberEpoch: classic.generationId,
        state: MemberState.STABLE,
        instanceId: cm.groupInstanceId,
        rackId: subscription.rackId,
        rebalanceTimeoutMs: cm.rebalanceTimeoutMs,
        clientId: cm.clientId,
        clientHost: cm.clientHost,
        subscribedTopicNames: [...subscription.topics].sort(),
        assignedPartitions: assigned,
        classicMemberMetadata: {
          sessionTimeoutMs: cm.sessionTimeoutMs,
          supportedProtocols: cm.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
        },
      };
      g.targetAssignment.set(m.memberId, assigned);
      g.updateMember(m);
    }
  } catch (e) {
    if (e instanceof KafkaError) throw e;
    ctx.log(
      'WARN',
      `Cannot upgrade the classic group ${classic.groupId} to consumer group because the embedded consumer protocol is malformed: ${(e as Error).message}.`,
    );
    throw new KafkaError(
      ErrorCode.GROUP_ID_NOT_FOUND,
      `Cannot upgrade the classic group ${classic.groupId} to consumer group because the embedded consumer protocol is malformed.`,
    );
  }
  return g;
}

/** ConsumerGroupMemberMetadata record of a member (newConsumerGroupMemberSubscriptionRecord). */
export function memberRecord(groupId: string, m: ConsumerMember): CoordinatorRecord {
  return {
    type: 'ConsumerGroupMemberMetadata',
    group: groupId,
    memberId: m.memberId,
    value: {
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: m.subscribedTopicNames,
      subscribedTopicRegex: m.subscribedTopicRegex,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      serverAssignor: m.serverAssignor,
      classicMemberMetadata: m.classicMemberMetadata,
    },
  };
}

/** ConsumerGroupCurrentMemberAssignment record of a member (newConsumerGroupCurrentAssignmentRecord). */
export function currentAssignmentRecord(groupId: string, m: ConsumerMember): CoordinatorRecord {
  return {
    type: 'ConsumerGroupCurrentMemberAssignment',
    group: groupId,
    memberId: m.memberId,
    value: {
      memberEpoch: m.memberEpoch,
      previousMemberEpoch: m.previousMemberEpoch,
      state: m.state,
      assignedPartitions: toTopicPartitions(m.assignedPartitions),
      partitionsPendingRevocation: toTopicPartitions(m.partitionsPendingRevocation),
    },
  };
}

/** ConsumerGroup.createConsumerGroupRecords: the records that create the converted group on replay. */
export function consumerGroupRecords(g: ConsumerGroup): CoordinatorRecord[] {
  const id = g.groupId;
  const out: CoordinatorRecord[] = [];
  for (const m of g.members.values()) out.push(memberRecord(id, m));
  out.push({ type: 'ConsumerGroupMetadata', group: id, value: { epoch: g.groupEpoch } });
  for (const m of g.members.values()) {
    out.push({
      type: 'ConsumerGroupTargetAssignmentMember',
      group: id,
      memberId: m.memberId,
      value: { topicPartitions: toTopicPartitions(g.targetAssignment.get(m.memberId) ?? new Map()) },
    });
  }
  out.push({ type: 'ConsumerGroupTargetAssignmentMetadata', group: id, value: { assignmentEpoch: g.groupEpoch } });
  for (const m of g.members.values()) out.push(currentAssignmentRecord(id, m));
  return out;
}

/**
 * GroupMetadataManager.validateOnlineDowngradeWithReplacedMember: a static member joining with the classic
 * protocol replaces the group's last consumer-protocol member.
 */
export function validateOnlineDowngradeWithReplacedMember(
  ctx: ShardContext,
  g: ConsumerGroup,
  replaced: ConsumerMember,
): boolean {
  if (!g.allMembersUseClassicProtocolExcept(replaced.memberId)) return false;
  if (!isDowngradeEnabled(ctx.config.consumerMigrationPolicy)) {
    ctx.log(
      'INFO',
      `Cannot downgrade consumer group ${g.groupId} to classic group because the online downgrade is disabled.`,
    );
    return false;
  }
  if (g.members.size > ctx.config.classicMaxSize) {
    ctx.log(
      'INFO',
      `Cannot downgrade consumer group ${g.groupId} to classic group because its group size is greater than classic group max size.`,
    );
    return false;
  }
  return true;
}

/**
 * GroupMetadataManager.validateOnlineDowngradeWithFencedMembers (Kafka 4.4): the members left after the
 * fenced ones all use the classic protocol, there is at least one, and the policy and size allow it.
 */
export function validateOnlineDowngradeWithFencedMembers(
  ctx: ShardContext,
  g: ConsumerGroup,
  fenced: ReadonlySet<string>,
): boolean {
  const id = g.groupId;
  const leaving = [...g.members.values()].filter((m) => fenced.has(m.memberId));
  const classicLeaving = leaving.filter(usesClassicProtocol).length;
  if (g.numClassicProtocolMembers - classicLeaving !== g.members.size - leaving.length) return false;
  if (g.members.size <= leaving.length) {
    ctx.log('DEBUG', `Skip downgrading the consumer group ${id} to classic group because it's empty.`);
    return false;
  }
  if (!isDowngradeEnabled(ctx.config.consumerMigrationPolicy)) {
    ctx.log('INFO', `Cannot downgrade consumer group ${id} to classic group because the online downgrade is disabled.`);
    return false;
  }
  if (g.members.size - leaving.length > ctx.config.classicMaxSize) {
    ctx.log(
      'INFO',
      `Cannot downgrade consumer group ${id} to classic group because its group size is greater than classic group max size.`,
    );
    return false;
  }
  return true;
}

/**
 * ClassicGroup.fromConsumerGroup: the classic members (all but the leaving one) form a Stable classic
 * group at the consumer group's epoch; each keeps its target assignment, encoded with the version of its
 * subscription of the selected protocol.
 */
export function classicGroupFromConsumer(
  ctx: ShardContext,
  g: ConsumerGroup,
  leaving: ReadonlySet<string>,
  joining: { member: ConsumerMember; replacedId: string } | null = null,
): ClassicGroup {
  const now = ctx.clock();
  const classic = new ClassicGroup(g.groupId, ctx.clock, {
    state: 'Stable',
    generationId: g.groupEpoch,
    protocolType: 'consumer',
    currentStateTimestamp: now,
  });
  // a static member joining with the classic protocol takes the place of the one it replaces
  const members = [...g.members.values()].filter((m) => m.memberId !== joining?.replacedId);
  if (joining) members.push(joining.member);
  for (const m of members) {
    if (leaving.has(m.memberId) || !usesClassicProtocol(m)) continue;
    const meta = m.classicMemberMetadata!;
    classic.add(
      new ClassicMember(
        m.memberId,
        m.instanceId,
        m.clientId,
        m.clientHost,
        m.rebalanceTimeoutMs,
        meta.sessionTimeoutMs,
        'consumer',
        meta.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })),
      ),
    );
  }
  classic.protocolName = classic.selectProtocol();
  classic.subscribedTopics = classic.computeSubscribedTopics();
  for (const cm of classic.members.values()) {
    const targetOf = joining && cm.memberId === joining.member.memberId ? joining.replacedId : cm.memberId;
    const target = g.targetAssignment.get(targetOf) ?? new Map<string, Set<number>>();
    cm.assignment = encodeAssignmentVersion(
      toNamedAssignment(ctx.metadata, target),
      protocolVersion(cm.metadata(classic.protocolName)),
    );
  }
  return classic;
}

/** ClassicGroup.createClassicGroupRecords. */
export function classicGroupRecord(g: ClassicGroup): CoordinatorRecord {
  return groupMetadataRecord(g, g.groupAssignment());
}
