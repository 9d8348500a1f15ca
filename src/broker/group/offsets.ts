// Committed offsets of one coordinator shard (OffsetMetadataManager): commits validated against the
// group (generation / member epoch), fetches (one group, all topics or listed partitions), deletes,
// expiry after offsets.retention.minutes, and removal when a topic is deleted.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { ClassicGroup } from './classic-group.js';
import type { ConsumerGroup } from './consumer-group.js';
import {
  streamsGroupSubscribedToTopic,
  validateStreamsOffsetCommit,
  validateStreamsOffsetFetch,
} from './streams-ops.js';
import type { CoordinatorRecord } from './records.js';
import { result, type Group, type OpResult, type ShardContext } from './shard-types.js';

export interface OffsetAndMetadata {
  committedOffset: bigint;
  leaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
  expireTimestampMs: number | null;
}

export class OffsetStore {
  /** group → topic → partition → offset */
  readonly byGroup = new Map<string, Map<string, Map<number, OffsetAndMetadata>>>();

  get(group: string, topic: string, partition: number): OffsetAndMetadata | undefined {
    return this.byGroup.get(group)?.get(topic)?.get(partition);
  }

  put(group: string, topic: string, partition: number, o: OffsetAndMetadata): void {
    let g = this.byGroup.get(group);
    if (!g) this.byGroup.set(group, (g = new Map()));
    let t = g.get(topic);
    if (!t) g.set(topic, (t = new Map()));
    t.set(partition, o);
  }

  remove(group: string, topic: string, partition: number): void {
    const g = this.byGroup.get(group);
    const t = g?.get(topic);
    if (!g || !t) return;
    t.delete(partition);
    if (t.size === 0) g.delete(topic);
    if (g.size === 0) this.byGroup.delete(group);
  }

  count(group: string): number {
    let n = 0;
    for (const t of this.byGroup.get(group)?.values() ?? []) n += t.size;
    return n;
  }
}

export interface CommitRequest {
  groupId: string;
  generationIdOrMemberEpoch: number;
  memberId: string;
  groupInstanceId: string | null;
  retentionTimeMs: bigint;
  topics: {
    name: string;
    partitions: {
      partitionIndex: number;
      committedOffset: bigint;
      committedLeaderEpoch: number;
      committedMetadata: string | null;
    }[];
  }[];
}

export type CommitResponseTopics = { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];

export interface FetchGroupRequest {
  groupId: string;
  memberId: string | null;
  memberEpoch: number;
  topics: { name: string; partitionIndexes: number[] }[] | null;
}

export interface FetchGroupResponse {
  groupId: string;
  errorCode: number;
  topics: {
    name: string;
    partitions: {
      partitionIndex: number;
      committedOffset: bigint;
      committedLeaderEpoch: number;
      metadata: string | null;
      errorCode: number;
    }[];
  }[];
}

/** ClassicGroup.validateOffsetCommit (transactional: TxnOffsetCommit's, which skips the state checks). */
function validateClassicCommit(
  g: ClassicGroup,
  memberId: string,
  instanceId: string | null,
  generationId: number,
  transactional = false,
): void {
  if (g.is('Dead')) throw new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'group is dead');
  if (generationId < 0 && g.is('Empty')) return;
  if (generationId >= 0 || memberId !== '' || instanceId !== null) {
    g.validateMember(memberId, instanceId);
    if (generationId !== g.generationId)
      throw new KafkaError(
        ErrorCode.ILLEGAL_GENERATION,
        `generation ${generationId} is not the group's ${g.generationId}`,
      );
  } else if (!transactional && !g.is('Empty')) {
    throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, 'commits without a member id are only accepted by empty groups');
  }
  if (!transactional && g.is('CompletingRebalance')) {
    throw new KafkaError(ErrorCode.REBALANCE_IN_PROGRESS, 'the group is rebalancing');
  }
}

/** ConsumerGroup.validateOffsetCommit (transactional: TxnOffsetCommit's, any version). */
function validateConsumerCommit(
  g: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  apiVersion: number,
  transactional = false,
): void {
  if (memberEpoch < 0 && g.members.size === 0) return;
  const m = g.members.get(memberId);
  if (!m)
    throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${g.groupId}.`);
  const classic = m.classicMemberMetadata !== null;
  if (!transactional && !classic && apiVersion < 9) {
    throw new KafkaError(
      ErrorCode.UNSUPPORTED_VERSION,
      'OffsetCommit version 9 or above must be used by members using the modern group protocol',
    );
  }
  if (memberEpoch !== m.memberEpoch) {
    // a transactional commit of an old epoch is a zombie's: fenced as an old generation
    throw new KafkaError(
      transactional || classic ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH,
      classic
        ? `The received generation id ${memberEpoch} does not match the expected member epoch ${m.memberEpoch}.`
        : `The received member epoch ${memberEpoch} does not match the expected member epoch ${m.memberEpoch}.`,
    );
  }
}

export class OffsetManager {
  constructor(
    private readonly ctx: ShardContext,
    readonly store: OffsetStore,
    private readonly onClassicCommit: (g: ClassicGroup, memberId: string) => void,
  ) {}

  /**
   * OffsetMetadataManager.validateTransactionalOffsetCommit (KIP-447): TxnOffsetCommit's member and
   * generation are those of a current member, so a zombie's offsets are fenced. A group that does
   * not exist is accepted only with generation -1 (a simple group, created by the commit).
   */
  validateTransactionalCommit(
    groupId: string,
    memberId: string,
    instanceId: string | null,
    generationId: number,
    /** The committed partitions (a streams member of an older epoch may commit only its tasks of then). */
    topics: readonly { name: string; partitions: readonly { partitionIndex: number }[] }[] = [],
  ): void {
    const group = this.ctx.groups.get(groupId);
    if (!group) {
      if (generationId >= 0) throw new KafkaError(ErrorCode.ILLEGAL_GENERATION, 'unknown group');
      return;
    }
    if (group.type === 'classic') {
      validateClassicCommit(group, memberId, instanceId, generationId, true);
      return;
    }
    // ShareGroup.validateOffsetCommit: share groups keep no offsets here
    if (group.type === 'share')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    if (group.type === 'streams') {
      const check = validateStreamsOffsetCommit(group, memberId, instanceId, generationId, true, 9);
      if (check) for (const t of topics) for (const p of t.partitions) check(t.name, p.partitionIndex);
      return;
    }
    validateConsumerCommit(group, memberId, generationId, 9, true);
  }

  commit(req: CommitRequest, apiVersion: number): OpResult<CommitResponseTopics> {
    const group: Group | undefined = this.ctx.groups.get(req.groupId);
    if (!group) {
      if (req.generationIdOrMemberEpoch >= 0) {
        if (apiVersion >= 9) throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
        throw new KafkaError(ErrorCode.ILLEGAL_GENERATION, 'unknown group');
      }
      // a simple consumer (group stays undefined): the first OffsetCommit record persists it
    } else if (group.type === 'classic') {
      validateClassicCommit(group, req.memberId, req.groupInstanceId, req.generationIdOrMemberEpoch);
      if (group.is('Stable') || group.is('PreparingRebalance')) this.onClassicCommit(group, req.memberId);
    } else if (group.type === 'share') {
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a consumer group.`);
    } else if (group.type === 'streams') {
      // StreamsGroup.validateOffsetCommit: each partition's task must be the member's at that epoch
      const check = validateStreamsOffsetCommit(
        group,
        req.memberId,
        req.groupInstanceId,
        req.generationIdOrMemberEpoch,
        false,
        apiVersion,
      );
      if (check) for (const t of req.topics) for (const p of t.partitions) check(t.name, p.partitionIndex);
    } else {
      validateConsumerCommit(group, req.memberId, req.generationIdOrMemberEpoch, apiVersion);
    }
    const now = this.ctx.clock();
    const expire = req.retentionTimeMs === -1n ? null : now + Number(req.retentionTimeMs);
    const records: CoordinatorRecord[] = [];
    const response: CommitResponseTopics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        if (p.committedMetadata !== null && p.committedMetadata.length > this.ctx.config.offsetMetadataMaxSize) {
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE };
        }
        records.push({
          type: 'OffsetCommit',
          group: req.groupId,
          topic: t.name,
          partition: p.partitionIndex,
          value: {
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch,
            metadata: p.committedMetadata ?? '',
            commitTimestamp: BigInt(now),
            expireTimestamp: expire === null ? -1n : BigInt(expire),
          },
        });
        return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      }),
    }));
    return result(response, records);
  }

  /** Offsets of a group; a consumer-group member's epoch is checked when given (OffsetFetch v9). */
  fetch(req: FetchGroupRequest): FetchGroupResponse {
    const g = this.ctx.groups.get(req.groupId);
    let failAll = false;
    if (g?.type === 'share')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a consumer group.`);
    if (!g || (g.type === 'classic' && g.is('Dead'))) failAll = true;
    else if (g.type === 'streams') validateStreamsOffsetFetch(g, req.memberId, req.memberEpoch);
    else if (g.type === 'consumer' && !(req.memberId === null && req.memberEpoch < 0)) {
      const m = req.memberId === null ? undefined : g.members.get(req.memberId);
      if (!m)
        throw new KafkaError(
          ErrorCode.UNKNOWN_MEMBER_ID,
          `Member ${req.memberId} is not a member of group ${req.groupId}.`,
        );
      if (m.memberEpoch !== req.memberEpoch)
        throw new KafkaError(
          ErrorCode.STALE_MEMBER_EPOCH,
          `The received member epoch ${req.memberEpoch} does not match the expected member epoch ${m.memberEpoch}.`,
        );
    }
    const offsets = failAll ? undefined : this.store.byGroup.get(req.groupId);
    const entry = (p: number, o: OffsetAndMetadata | undefined) =>
      o
        ? {
            partitionIndex: p,
            committedOffset: o.committedOffset,
            committedLeaderEpoch: o.leaderEpoch,
            metadata: o.metadata,
            errorCode: ErrorCode.NONE,
          }
        : {
            partitionIndex: p,
            committedOffset: -1n,
            committedLeaderEpoch: -1,
            metadata: '',
            errorCode: ErrorCode.NONE,
          };
    if (req.topics === null) {
      const topics = [...(offsets ?? new Map<string, Map<number, OffsetAndMetadata>>())].map(([name, ps]) => ({
        name,
        partitions: [...ps].sort((a, b) => a[0] - b[0]).map(([p, o]) => entry(p, o)),
      }));
      return { groupId: req.groupId, errorCode: ErrorCode.NONE, topics };
    }
    return {
      groupId: req.groupId,
      errorCode: ErrorCode.NONE,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => entry(p, offsets?.get(t.name)?.get(p))),
      })),
    };
  }

  /** OffsetDelete. */
  deleteOffsets(
    groupId: string,
    topics: { name: string; partitions: { partitionIndex: number }[] }[],
  ): OpResult<{ name: string; partitions: { partitionIndex: number; errorCode: number }[] }[]> {
    const g = this.ctx.groups.get(groupId);
    if (!g || (g.type === 'classic' && g.is('Dead')))
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    if (g.type === 'share')
      throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    if (g.type === 'classic' && !g.is('Empty') && !g.usesConsumerProtocol())
      throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.');
    const records: CoordinatorRecord[] = [];
    const response = topics.map((t) => {
      const subscribed =
        g.type === 'classic'
          ? g.isSubscribedToTopic(t.name)
          : g.type === 'streams'
            ? streamsGroupSubscribedToTopic(g, t.name)
            : g.subscribedTopicNames().has(t.name);
      return {
        name: t.name,
        partitions: t.partitions.map((p) => {
          if (subscribed) return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
          if (this.store.get(groupId, t.name, p.partitionIndex)) {
            records.push({
              type: 'OffsetCommit',
              group: groupId,
              topic: t.name,
              partition: p.partitionIndex,
              value: null,
            });
          }
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
        }),
      };
    });
    return result(response, records);
  }

  /** Tombstones for every offset of a group. */
  deleteAllOffsets(groupId: string, records: CoordinatorRecord[]): void {
    for (const [topic, ps] of this.store.byGroup.get(groupId) ?? []) {
      for (const p of ps.keys())
        records.push({ type: 'OffsetCommit', group: groupId, topic, partition: p, value: null });
    }
  }

  /**
   * Tombstones for the group's expired offsets (OffsetMetadataManager.cleanupExpiredOffsets);
   * returns whether every offset of the group expired.
   */
  cleanupExpiredOffsets(groupId: string, records: CoordinatorRecord[]): boolean {
    const offsets = this.store.byGroup.get(groupId);
    if (!offsets) return true;
    const g = this.ctx.groups.get(groupId);
    if (!g || g.type === 'share') return false;
    let base: ((o: OffsetAndMetadata) => number) | null = null;
    if (g.type === 'consumer' || g.type === 'streams') base = (o) => o.commitTimestampMs;
    else if (g.protocolType === null) base = (o) => o.commitTimestampMs;
    else if (g.is('Empty')) base = (o) => g.currentStateTimestamp ?? o.commitTimestampMs;
    else if (g.usesConsumerProtocol() && g.subscribedTopics !== null && g.is('Stable'))
      base = (o) => o.commitTimestampMs;
    if (!base) return false;
    const now = this.ctx.clock();
    const retention = this.ctx.config.offsetsRetentionMs;
    let all = true;
    for (const [topic, ps] of offsets) {
      const subscribed =
        g.type === 'classic'
          ? g.isSubscribedToTopic(topic)
          : g.type === 'streams'
            ? streamsGroupSubscribedToTopic(g, topic)
            : g.subscribedTopicNames().has(topic);
      if (subscribed) {
        all = false;
        continue;
      }
      for (const [p, o] of ps) {
        const expired = o.expireTimestampMs !== null ? now >= o.expireTimestampMs : now - base(o) >= retention;
        if (expired) records.push({ type: 'OffsetCommit', group: groupId, topic, partition: p, value: null });
        else all = false;
      }
    }
    return all;
  }

  /** Tombstones for the offsets of deleted topics (onPartitionsDeleted). */
  onTopicsDeleted(topics: ReadonlySet<string>): CoordinatorRecord[] {
    const records: CoordinatorRecord[] = [];
    for (const [group, byTopic] of this.store.byGroup) {
      for (const [topic, ps] of byTopic) {
        if (!topics.has(topic)) continue;
        for (const p of ps.keys()) records.push({ type: 'OffsetCommit', group, topic, partition: p, value: null });
      }
    }
    return records;
  }

  replay(r: Extract<CoordinatorRecord, { type: 'OffsetCommit' }>): void {
    if (r.value === null) {
      this.store.remove(r.group, r.topic, r.partition);
      return;
    }
    this.store.put(r.group, r.topic, r.partition, {
      committedOffset: r.value.offset,
      leaderEpoch: r.value.leaderEpoch,
      metadata: r.value.metadata,
      commitTimestampMs: Number(r.value.commitTimestamp),
      expireTimestampMs: r.value.expireTimestamp >= 0n ? Number(r.value.expireTimestamp) : null,
    });
  }
}
