// A share group (KIP-932; Kafka 4.4's ShareGroup / ShareGroupMember): group epoch and metadata hash,
// members with their epochs, subscriptions and assignments, the target assignment (several members
// may share a partition), and the share-partition state metadata: which partitions' state is being
// initialized, is initialized (only those are assigned), or is being deleted. The group changes
// only by replaying its records, so what is in memory is what the log says.
import { MemberState, type Assignment } from './consumer-group.js';
import type { ShareGroupRecord } from './records.js';

export type ShareGroupState = 'Empty' | 'Stable' | 'Dead';

export interface ShareMember {
  memberId: string;
  memberEpoch: number;
  previousMemberEpoch: number;
  state: number;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignedPartitions: Assignment;
}

/** A topic whose share-partitions are being initialized (ShareGroup.InitMapValue). */
export interface InitializingTopic {
  name: string;
  partitions: Set<number>;
  /** When the initialization was requested (a stale one is requested again). */
  timestamp: number;
}

/** ShareGroupStatePartitionMetadataInfo: topic id → what the share-partition state is. */
export interface StatePartitionMetadata {
  initializing: Map<string, InitializingTopic>;
  initialized: Map<string, { name: string; partitions: Set<number> }>;
  deleting: Map<string, string>;
}

export function newShareMember(memberId: string): ShareMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    state: MemberState.STABLE,
    rackId: null,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: [],
    assignedPartitions: new Map(),
  };
}

const fromTopicPartitions = (l: readonly { topicId: string; partitions: readonly number[] }[]): Assignment =>
  new Map(l.map((tp) => [tp.topicId, new Set(tp.partitions)]));

export class ShareGroup {
  readonly type = 'share' as const;
  /** A new group starts at epoch 1 (ModernGroup's constructor): the first join bumps it to 2. */
  groupEpoch = 1;
  metadataHash = 0n;
  /** TargetAssignmentMetadata.INITIAL: epoch 1. */
  assignmentEpoch = 1;
  readonly members = new Map<string, ShareMember>();
  readonly targetAssignment = new Map<string, Assignment>();
  /** null until a ShareGroupStatePartitionMetadata record is written (the group's shareGroupStatePartitionMetadata entry). */
  statePartitions: StatePartitionMetadata | null = null;
  /** When the subscribed topics' metadata is checked again (0: on the next heartbeat). */
  metadataRefreshDeadline = 0;
  /**
   * When the initializations being written were requested (topic id → time), taken by the replay of
   * the ShareGroupStatePartitionMetadata record (the record does not carry them).
   */
  pendingInitTimestamps = new Map<string, number>();

  constructor(readonly groupId: string) {}

  get state(): ShareGroupState {
    return this.members.size === 0 ? 'Empty' : 'Stable';
  }

  get isEmpty(): boolean {
    return this.members.size === 0;
  }

  /** Subscribed topic name → number of members subscribing (ModernGroup.subscribedTopicNames). */
  subscribedTopicNames(): Map<string, number> {
    const out = new Map<string, number>();
    for (const m of this.members.values()) for (const t of m.subscribedTopicNames) out.set(t, (out.get(t) ?? 0) + 1);
    return out;
  }

  /** ModernGroup.computeSubscribedTopicNames: the group's topics with `oldMember` replaced by `newMember`. */
  computeSubscribedTopicNames(oldMember: ShareMember | null, newMember: ShareMember | null): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) {
      if (oldMember && m.memberId === oldMember.memberId) continue;
      for (const t of m.subscribedTopicNames) out.add(t);
    }
    if (newMember) for (const t of newMember.subscribedTopicNames) out.add(t);
    return out;
  }

  /** Initialized partitions by topic id (what the assignor may assign: GroupSpec.isPartitionAssignable). */
  initializedPartitions(): Map<string, Set<number>> {
    return new Map([...(this.statePartitions?.initialized ?? new Map())].map(([id, t]) => [id, new Set(t.partitions)]));
  }

  /**
   * Applies one of the group's records (GroupMetadataManager.replay for share-group records); `now` dates
   * initializations replayed from the log.
   */
  replay(r: ShareGroupRecord, now = 0): void {
    switch (r.type) {
      case 'ShareGroupMetadata':
        if (r.value) {
          this.groupEpoch = r.value.epoch;
          this.metadataHash = r.value.metadataHash;
        }
        break;
      case 'ShareGroupMemberMetadata': {
        if (r.value === null) {
          this.members.delete(r.memberId);
          break;
        }
        const m = { ...(this.members.get(r.memberId) ?? newShareMember(r.memberId)) };
        m.rackId = r.value.rackId;
        m.clientId = r.value.clientId;
        m.clientHost = r.value.clientHost;
        m.subscribedTopicNames = [...r.value.subscribedTopicNames];
        this.members.set(r.memberId, m);
        break;
      }
      case 'ShareGroupTargetAssignmentMetadata':
        if (r.value) this.assignmentEpoch = r.value.assignmentEpoch;
        break;
      case 'ShareGroupTargetAssignmentMember':
        if (r.value) this.targetAssignment.set(r.memberId, fromTopicPartitions(r.value.topicPartitions));
        else this.targetAssignment.delete(r.memberId);
        break;
      case 'ShareGroupCurrentMemberAssignment': {
        const cur = this.members.get(r.memberId);
        if (!cur) break;
        const m = { ...cur };
        if (r.value) {
          m.memberEpoch = r.value.memberEpoch;
          m.previousMemberEpoch = r.value.previousMemberEpoch;
          m.state = r.value.state;
          m.assignedPartitions = fromTopicPartitions(r.value.assignedPartitions);
        } else {
          m.previousMemberEpoch = m.memberEpoch;
          m.memberEpoch = -1;
          m.assignedPartitions = new Map();
        }
        this.members.set(r.memberId, m);
        break;
      }
      case 'ShareGroupStatePartitionMetadata':
        if (r.value === null) {
          this.statePartitions = null;
          break;
        }
        this.statePartitions = {
          initializing: new Map(
            r.value.initializingTopics.map((t) => [
              t.topicId,
              {
                name: t.topicName,
                partitions: new Set(t.partitions),
                timestamp:
                  this.pendingInitTimestamps.get(t.topicId) ??
                  this.statePartitions?.initializing.get(t.topicId)?.timestamp ??
                  now,
              },
            ]),
          ),
          initialized: new Map(
            r.value.initializedTopics.map((t) => [t.topicId, { name: t.topicName, partitions: new Set(t.partitions) }]),
          ),
          deleting: new Map(r.value.deletingTopics.map((t) => [t.topicId, t.topicName])),
        };
        this.pendingInitTimestamps.clear();
        break;
    }
  }
}

const sortedPartitions = (ps: Iterable<number>): number[] => [...ps].sort((a, b) => a - b);

/** GroupCoordinatorRecordHelpers.newShareGroupStatePartitionMetadataRecord. */
export function statePartitionMetadataRecord(groupId: string, md: StatePartitionMetadata): ShareGroupRecord {
  const byName = <T extends { name: string }>(m: Map<string, T>) =>
    [...m].sort(([, a], [, b]) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    type: 'ShareGroupStatePartitionMetadata',
    group: groupId,
    value: {
      initializingTopics: byName(md.initializing).map(([topicId, t]) => ({
        topicId,
        topicName: t.name,
        partitions: sortedPartitions(t.partitions),
      })),
      initializedTopics: byName(md.initialized).map(([topicId, t]) => ({
        topicId,
        topicName: t.name,
        partitions: sortedPartitions(t.partitions),
      })),
      deletingTopics: [...md.deleting].map(([topicId, topicName]) => ({ topicId, topicName })),
    },
  };
}

/** Records that remove one member (GroupMetadataManager.shareGroupFenceMember's tombstones, in its order). */
export function shareMemberTombstones(groupId: string, memberId: string): ShareGroupRecord[] {
  return [
    { type: 'ShareGroupCurrentMemberAssignment', group: groupId, memberId, value: null },
    { type: 'ShareGroupTargetAssignmentMember', group: groupId, memberId, value: null },
    { type: 'ShareGroupMemberMetadata', group: groupId, memberId, value: null },
  ];
}

/** Records that delete the whole group (ShareGroup.createGroupTombstoneRecords). */
export function shareGroupTombstones(g: ShareGroup): ShareGroupRecord[] {
  const id = g.groupId;
  const out: ShareGroupRecord[] = [];
  for (const m of g.members.keys())
    out.push({ type: 'ShareGroupCurrentMemberAssignment', group: id, memberId: m, value: null });
  for (const m of g.members.keys())
    out.push({ type: 'ShareGroupTargetAssignmentMember', group: id, memberId: m, value: null });
  out.push({ type: 'ShareGroupTargetAssignmentMetadata', group: id, value: null });
  for (const m of g.members.keys()) out.push({ type: 'ShareGroupMemberMetadata', group: id, memberId: m, value: null });
  out.push({ type: 'ShareGroupStatePartitionMetadata', group: id, value: null });
  out.push({ type: 'ShareGroupMetadata', group: id, value: null });
  return out;
}
