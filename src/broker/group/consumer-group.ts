// A KIP-848 consumer group (Kafka's ConsumerGroup / ConsumerGroupMember): group epoch, members with
// their epochs, reconciliation state and assignments, the target assignment, subscription metadata,
// and the partition epochs that say which member still owns a partition. The group changes only by
// replaying its records, so what is in memory is what the log says.
import type { CoordinatorRecord } from './records.js';

export const MemberState = { STABLE: 0, UNREVOKED_PARTITIONS: 1, UNRELEASED_PARTITIONS: 2, UNKNOWN: 127 } as const;

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** topic id → partitions */
export type Assignment = Map<string, Set<number>>;

/**
 * What a member that joined with the classic protocol (JoinGroup) brings (ConsumerGroupMemberMetadataValue's
 * ClassicMemberMetadata): its session timeout and the protocols of its JoinGroup, in its order.
 */
export interface ClassicMemberMetadata {
  sessionTimeoutMs: number;
  supportedProtocols: { name: string; metadata: Buffer }[];
}

export interface ConsumerMember {
  memberId: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string | null;
  serverAssignor: string | null;
  assignedPartitions: Assignment;
  partitionsPendingRevocation: Assignment;
  /** Set when the member uses the classic protocol inside this consumer group (KIP-848 migration). */
  classicMemberMetadata: ClassicMemberMetadata | null;
}

/** ConsumerGroupMember.useClassicProtocol. */
export const usesClassicProtocol = (m: ConsumerMember): boolean => m.classicMemberMetadata !== null;

export interface SubscribedTopic {
  id: string;
  name: string;
  numPartitions: number;
}

/**
 * What a subscribed regex resolved to (Kafka's ResolvedRegularExpression): the matching topic names, the
 * metadata version they were resolved at, and when.
 */
export interface ResolvedRegularExpression {
  topics: ReadonlySet<string>;
  version: number;
  timestamp: number;
}

/** Kafka's isNotEmpty for SubscribedTopicRegex: null and "" both mean "no regex". */
export const hasRegex = (regex: string | null): regex is string => regex !== null && regex !== '';

/** A new member (ConsumerGroupMember.Builder's defaults: no regex is "", as Kafka describes and writes it). */
export function newMember(memberId: string): ConsumerMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: MemberState.STABLE,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    subscribedTopicRegex: '',
    serverAssignor: null,
    assignedPartitions: new Map(),
    partitionsPendingRevocation: new Map(),
    classicMemberMetadata: null,
  };
}

export function cloneAssignment(a: Assignment): Assignment {
  return new Map([...a].map(([t, ps]) => [t, new Set(ps)]));
}

export function assignmentEquals(a: Assignment, b: Assignment): boolean {
  const nonEmpty = (x: Assignment) => [...x].filter(([, ps]) => ps.size > 0);
  const aa = nonEmpty(a);
  const bb = nonEmpty(b);
  if (aa.length !== bb.length) return false;
  for (const [t, ps] of aa) {
    const o = b.get(t);
    if (!o || o.size !== ps.size) return false;
    for (const p of ps) if (!o.has(p)) return false;
  }
  return true;
}

export const toTopicPartitions = (a: Assignment): { topicId: string; partitions: number[] }[] =>
  [...a]
    .filter(([, ps]) => ps.size > 0)
    .map(([topicId, ps]) => ({ topicId, partitions: [...ps].sort((x, y) => x - y) }));

export const fromTopicPartitions = (l: readonly { topicId: string; partitions: readonly number[] }[]): Assignment =>
  new Map(l.map((tp) => [tp.topicId, new Set(tp.partitions)]));

export class ConsumerGroup {
  readonly type = 'consumer' as const;
  /** A new group starts at epoch 1 (ModernGroup's constructor): the first join bumps it to 2. */
  groupEpoch = 1;
  readonly members = new Map<string, ConsumerMember>();
  readonly staticMembers = new Map<string, string>();
  subscriptionMetadata = new Map<string, SubscribedTopic>();
  /** TargetAssignmentMetadata.INITIAL: epoch 1. */
  targetAssignmentEpoch = 1;
  readonly targetAssignment = new Map<string, Assignment>();
  /** topic id → partition → epoch of the member that owns it */
  private readonly partitionEpochs = new Map<string, Map<number, number>>();
  /** when the subscription metadata was last checked against the cluster (refresh on expiry) */
  metadataRefreshDeadline = 0;
  /**
   * The members' regexes resolved against the topics (regex → resolution), as the log says: written as
   * ConsumerGroupRegularExpression records when resolved, tombstoned when no member uses the regex any
   * more, replayed on load (GroupMetadataManager.replay); re-resolved when topics change.
   */
  readonly resolvedRegularExpressions = new Map<string, ResolvedRegularExpression>();

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.targetAssignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) {
      if (m.state !== MemberState.STABLE || m.memberEpoch !== this.targetAssignmentEpoch) return 'Reconciling';
    }
    return 'Stable';
  }

  get isEmpty(): boolean {
    return this.members.size === 0;
  }

  staticMember(instanceId: string): ConsumerMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  /** Topic name → number of members subscribed, by name or through their regex (SubscriptionCount). */
  subscribedTopicNames(): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of this.members.values()) {
      for (const t of m.subscribedTopicNames) out.set(t, (out.get(t) ?? 0) + 1);
      if (!hasRegex(m.subscribedTopicRegex)) continue;
      for (const t of this.resolvedRegularExpressions.get(m.subscribedTopicRegex)?.topics ?? [])
        out.set(t, (out.get(t) ?? 0) + 1);
    }
    return out;
  }

  /** The preferred server assignor: the one most members ask for, else the default. */
  preferredAssignor(defaultName: string): string {
    const counts = new Map<string, number>();
    for (const m of this.members.values())
      if (m.serverAssignor) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best = defaultName;
    let n = 0;
    for (const [name, c] of counts)
      if (c > n) {
        best = name;
        n = c;
      }
    return best;
  }

  private addPartitionEpochs(a: Assignment, epoch: number): void {
    for (const [t, ps] of a) {
      let m = this.partitionEpochs.get(t);
      if (!m) this.partitionEpochs.set(t, (m = new Map()));
      for (const p of ps) m.set(p, epoch);
    }
  }

  private removePartitionEpochs(a: Assignment): void {
    for (const [t, ps] of a) {
      const m = this.partitionEpochs.get(t);
      if (!m) continue;
      for (const p of ps) m.delete(p);
      if (m.size === 0) this.partitionEpochs.delete(t);
    }
  }

  /** Replaces a member (its partitions' epochs follow). */
  updateMember(m: ConsumerMember): void {
    const old = this.members.get(m.memberId);
    if (old) {
      this.removePartitionEpochs(old.assignedPartitions);
      this.removePartitionEpochs(old.partitionsPendingRevocation);
      if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === old.memberId)
        this.staticMembers.delete(old.instanceId);
    }
    this.members.set(m.memberId, m);
    if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId);
    this.addPartitionEpochs(m.assignedPartitions, m.memberEpoch);
    this.addPartitionEpochs(m.partitionsPendingRevocation, m.memberEpoch);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.removePartitionEpochs(old.assignedPartitions);
    this.removePartitionEpochs(old.partitionsPendingRevocation);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId)
      this.staticMembers.delete(old.instanceId);
    this.members.delete(memberId);
  }

  /** ConsumerGroup.numClassicProtocolMembers. */
  get numClassicProtocolMembers(): number {
    let n = 0;
    for (const m of this.members.values()) if (usesClassicProtocol(m)) n++;
    return n;
  }

  /** ConsumerGroup.allMembersUseClassicProtocolExcept. */
  allMembersUseClassicProtocolExcept(memberId: string): boolean {
    const leaving = this.members.get(memberId);
    return (
      leaving !== undefined && !usesClassicProtocol(leaving) && this.numClassicProtocolMembers === this.members.size - 1
    );
  }

  /**
   * ConsumerGroup.supportsClassicProtocols: an empty group takes any consumer-protocol member; otherwise one
   * of the joining member's protocols must be supported by every classic member of the group.
   */
  supportsClassicProtocols(protocolType: string, protocolNames: ReadonlySet<string>): boolean {
    if (protocolType !== 'consumer') return false;
    if (this.isEmpty) return protocolNames.size > 0;
    const classic = [...this.members.values()].filter(usesClassicProtocol);
    return [...protocolNames].some((name) =>
      classic.every((m) => m.classicMemberMetadata!.supportedProtocols.some((p) => p.name === name)),
    );
  }

  /** ConsumerGroup.waitingOnUnreleasedPartition: a partition of its target is still owned by another member. */
  waitingOnUnreleasedPartition(m: ConsumerMember): boolean {
    if (m.state !== MemberState.UNRELEASED_PARTITIONS) return false;
    for (const [t, ps] of this.targetAssignment.get(m.memberId) ?? new Map<string, Set<number>>()) {
      const mine = m.assignedPartitions.get(t);
      for (const p of ps) if (!mine?.has(p) && this.currentPartitionEpoch(t, p) !== -1) return true;
    }
    return false;
  }

  /** Applies one of the group's records (GroupMetadataManager.replay for consumer-group records). */
  replay(r: CoordinatorRecord): void {
    switch (r.type) {
      case 'ConsumerGroupMetadata':
        if (r.value) this.groupEpoch = r.value.epoch;
        break;
      case 'ConsumerGroupPartitionMetadata':
        this.subscriptionMetadata = new Map(
          (r.value?.topics ?? []).map((t) => [
            t.topicName,
            { id: t.topicId, name: t.topicName, numPartitions: t.numPartitions },
          ]),
        );
        break;
      case 'ConsumerGroupMemberMetadata': {
        if (r.value === null) {
          this.removeMember(r.memberId);
          break;
        }
        const m = { ...(this.members.get(r.memberId) ?? newMember(r.memberId)) };
        const v = r.value;
        Object.assign(m, {
          instanceId: v.instanceId,
          rackId: v.rackId,
          clientId: v.clientId,
          clientHost: v.clientHost,
          subscribedTopicNames: [...v.subscribedTopicNames],
          subscribedTopicRegex: v.subscribedTopicRegex,
          rebalanceTimeoutMs: v.rebalanceTimeoutMs,
          serverAssignor: v.serverAssignor,
          classicMemberMetadata:
            v.classicMemberMetadata === null
              ? null
              : {
                  sessionTimeoutMs: v.classicMemberMetadata.sessionTimeoutMs,
                  supportedProtocols: v.classicMemberMetadata.supportedProtocols.map((p) => ({
                    name: p.name,
                    metadata: Buffer.from(p.metadata),
                  })),
                },
        });
        this.updateMember(m);
        break;
      }
      case 'ConsumerGroupTargetAssignmentMetadata':
        this.targetAssignmentEpoch = r.value ? r.value.assignmentEpoch : -1;
        break;
      case 'ConsumerGroupTargetAssignmentMember':
        if (r.value) this.targetAssignment.set(r.memberId, fromTopicPartitions(r.value.topicPartitions));
        else this.targetAssignment.delete(r.memberId);
        break;
      case 'ConsumerGroupCurrentMemberAssignment': {
        const cur = this.members.get(r.memberId);
        if (!cur) break;
        const m = { ...cur };
        if (r.value) {
          m.memberEpoch = r.value.memberEpoch;
          m.previousMemberEpoch = r.value.previousMemberEpoch;
          m.state = r.value.state;
          m.assignedPartitions = fromTopicPartitions(r.value.assignedPartitions);
          m.partitionsPendingRevocation = fromTopicPartitions(r.value.partitionsPendingRevocation);
        } else {
          m.previousMemberEpoch = m.memberEpoch;
          m.memberEpoch = -1;
          m.assignedPartitions = new Map();
          m.partitionsPendingRevocation = new Map();
        }
        this.updateMember(m);
        break;
      }
      case 'ConsumerGroupRegularExpression':
        if (r.value === null) this.resolvedRegularExpressions.delete(r.regularExpression);
        else {
          this.resolvedRegularExpressions.set(r.regularExpression, {
            topics: new Set(r.value.topics),
            version: Number(r.value.version),
            timestamp: Number(r.value.timestamp),
          });
        }
        break;
      default:
        break;
    }
  }
}

/** Records that remove one member (ConsumerGroup member removal order). */
export function memberTombstones(groupId: string, memberId: string): CoordinatorRecord[] {
  return [
    { type: 'ConsumerGroupCurrentMemberAssignment', group: groupId, memberId, value: null },
    { type: 'ConsumerGroupTargetAssignmentMember', group: groupId, memberId, value: null },
    { type: 'ConsumerGroupMemberMetadata', group: groupId, memberId, value: null },
  ];
}

/** GroupCoordinatorRecordHelpers.newConsumerGroupRegularExpressionRecord: the topics sorted. */
export function regularExpressionRecord(
  groupId: string,
  regex: string,
  r: ResolvedRegularExpression,
): CoordinatorRecord {
  return {
    type: 'ConsumerGroupRegularExpression',
    group: groupId,
    regularExpression: regex,
    value: { topics: [...r.topics].sort(), version: BigInt(r.version), timestamp: BigInt(r.timestamp) },
  };
}

/** GroupCoordinatorRecordHelpers.newConsumerGroupRegularExpressionTombstone. */
export function regularExpressionTombstone(groupId: string, regex: string): CoordinatorRecord {
  return { type: 'ConsumerGroupRegularExpression', group: groupId, regularExpression: regex, value: null };
}

/** Records that delete the whole group (ConsumerGroup.createGroupTombstoneRecords). */
export function consumerGroupTombstones(g: ConsumerGroup): CoordinatorRecord[] {
  const id = g.groupId;
  const out: CoordinatorRecord[] = [];
  for (const m of g.members.keys())
    out.push({ type: 'ConsumerGroupCurrentMemberAssignment', group: id, memberId: m, value: null });
  for (const m of g.members.keys())
    out.push({ type: 'ConsumerGroupTargetAssignmentMember', group: id, memberId: m, value: null });
  out.push({ type: 'ConsumerGroupTargetAssignmentMetadata', group: id, value: null });
  for (const m of g.members.keys())
    out.push({ type: 'ConsumerGroupMemberMetadata', group: id, memberId: m, value: null });
  for (const regex of g.resolvedRegularExpressions.keys()) out.push(regularExpressionTombstone(id, regex));
  out.push({ type: 'ConsumerGroupPartitionMetadata', group: id, value: null });
  out.push({ type: 'ConsumerGroupMetadata', group: id, value: null });
  return out;
}
