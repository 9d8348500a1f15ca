// What the transaction side needs from the group coordinator (Kafka's GroupCoordinator
// commitTransactionalOffsets / completeTransaction):
//  * TxnOffsetCommit: keep a producer's offsets pending in the group until its transaction ends;
//  * WriteTxnMarkers on a __consumer_offsets partition: write the COMMIT/ABORT marker there and
//    materialise (commit) or drop (abort) the producer's pending offsets of that partition.
// When the broker's group coordinator implements TransactionalOffsetCoordinator itself (methods of
// those names), it is used as is. Until then the fallback below keeps pending offsets in memory and,
// on commit, writes them as ordinary OffsetCommit records through the group's shard before the
// marker (no member validation at completion, as Kafka) — durable once committed, but offsets of a
// transaction still open when the broker dies are lost (the transaction aborts anyway unless the
// producer commits it after the restart).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { buildEndTxnMarker } from '../../protocol/records/batch.js';
import { coordinatorPartition } from '../../protocol/partitioner.js';

export interface TxnOffsetCommitInput {
  transactionalId: string;
  groupId: string;
  producerId: number;
  producerEpoch: number;
  /** -1 / '' / null for TxnOffsetCommit v0-2 */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
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

export type TxnOffsetCommitResult = { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];

export interface TransactionalOffsetCoordinator {
  /** The __consumer_offsets partition of a group. */
  partitionFor(groupId: string): number;
  commitTransactionalOffsets(req: TxnOffsetCommitInput, apiVersion: number): Promise<TxnOffsetCommitResult>;
  /** Resolves with an error code (NONE when the marker was written and the offsets handled). */
  completeTransaction(
    offsetsPartition: number,
    producerId: number,
    producerEpoch: number,
    coordinatorEpoch: number,
    commit: boolean,
  ): Promise<number>;
  /** Whether an open transaction has offsets pending for the group's partition (OffsetFetch requireStable). */
  hasPendingOffsets(groupId: string, topic: string, partition: number): boolean;
}

/** What the fallback uses of the group coordinator (src/broker/group/coordinator.ts). */
interface GroupCoordinatorLike {
  partitionFor(groupId: string): number;
  shardFor(groupId: string): {
    write<T>(op: () => { records: unknown[]; response: T }): Promise<T>;
    read<T>(fn: () => T): Promise<T>;
    offsetManager: {
      validateTransactionalCommit(
        groupId: string,
        memberId: string,
        instanceId: string | null,
        generation: number,
        topics?: readonly { name: string; partitions: readonly { partitionIndex: number }[] }[],
      ): void;
    };
  };
}

interface AppenderLike {
  appendRecords(
    topic: string,
    partition: number,
    records: Buffer,
    o: { acks: number; timeoutMs: number; origin?: 'client' | 'coordinator'; internalTopicsAllowed?: boolean },
  ): Promise<{ errorCode: number }>;
}

interface PendingOffset {
  groupId: string;
  topic: string;
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string | null;
}

export function isTransactionalOffsetCoordinator(x: unknown): x is TransactionalOffsetCoordinator {
  const o = x as Partial<TransactionalOffsetCoordinator> | null;
  return (
    !!o &&
    typeof o.commitTransactionalOffsets === 'function' &&
    typeof o.completeTransaction === 'function' &&
    typeof o.partitionFor === 'function' &&
    typeof o.hasPendingOffsets === 'function'
  );
}

const codeOf = (e: unknown): number =>
  e instanceof KafkaError
    ? e.code
    : typeof (e as { code?: unknown })?.code === 'number'
      ? (e as { code: number }).code
      : ErrorCode.UNKNOWN_SERVER_ERROR;

export class FallbackTxnOffsets implements TransactionalOffsetCoordinator {
  /** producerId → offsetsPartition → pending offsets (last one per group/topic/partition wins) */
  private readonly pending = new Map<number, Map<number, Map<string, PendingOffset>>>();

  constructor(
    private readonly group: () => Promise<GroupCoordinatorLike>,
    private readonly replicas: AppenderLike,
    /** offsets.topic.num.partitions */
    private readonly offsetsPartitions: number,
    private readonly offsetMetadataMaxSize = 4096,
    private readonly timeoutMs = 30_000,
  ) {}

  partitionFor(groupId: string): number {
    return coordinatorPartition(groupId, this.offsetsPartitions);
  }

  private cachedGroup: GroupCoordinatorLike | undefined;

  private async groupCoordinator(): Promise<GroupCoordinatorLike> {
    this.cachedGroup ??= await this.group();
    return this.cachedGroup;
  }

  /** Pending offsets of a producer (for tests and OffsetFetch requireStable). */
  pendingFor(producerId: number): PendingOffset[] {
    return [...(this.pending.get(producerId)?.values() ?? [])].flatMap((m) => [...m.values()]);
  }

  /** Kafka's OffsetMetadataManager.hasPendingTransactionalOffsets. */
  hasPendingOffsets(groupId: string, topic: string, partition: number): boolean {
    const op = this.partitionFor(groupId);
    const key = `${groupId}\u0000${topic}\u0000${partition}`;
    for (const byPartition of this.pending.values()) {
      if (byPartition.get(op)?.has(key)) return true;
    }
    return false;
  }

  async commitTransactionalOffsets(req: TxnOffsetCommitInput): Promise<TxnOffsetCommitResult> {
    const fail = (code: number): TxnOffsetCommitResult =>
      req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      }));
    try {
      const gc = await this.groupCoordinator();
      // NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS when the group's shard is not here
      const shard = gc.shardFor(req.groupId);
      // KIP-447: a zombie's offsets (a departed member, an old generation) are fenced
      const { groupId, memberId, groupInstanceId, generationId } = req;
      await shard.read(() =>
        shard.offsetManager.validateTransactionalCommit(groupId, memberId, groupInstanceId, generationId, req.topics),
      );
    } catch (e) {
      return fail(codeOf(e));
    }
    const op = this.partitionFor(req.groupId);
    let byPartition = this.pending.get(req.producerId);
    if (!byPartition) this.pending.set(req.producerId, (byPartition = new Map()));
    let offsets = byPartition.get(op);
    if (!offsets) byPartition.set(op, (offsets = new Map()));
    const result: TxnOffsetCommitResult = [];
    for (const t of req.topics) {
      const parts: { partitionIndex: number; errorCode: number }[] = [];
      for (const p of t.partitions) {
        if (p.committedMetadata !== null && p.committedMetadata.length > this.offsetMetadataMaxSize) {
          parts.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE });
          continue;
        }
        offsets.set(`${req.groupId}\u0000${t.name}\u0000${p.partitionIndex}`, {
          groupId: req.groupId,
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata: p.committedMetadata,
        });
        parts.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE });
      }
      result.push({ name: t.name, partitions: parts });
    }
    return result;
  }

  async completeTransaction(
    offsetsPartition: number,
    producerId: number,
    producerEpoch: number,
    coordinatorEpoch: number,
    commit: boolean,
  ): Promise<number> {
    const byPartition = this.pending.get(producerId);
    const offsets = byPartition?.get(offsetsPartition);
    if (commit && offsets && offsets.size > 0) {
      const byGroup = new Map<string, PendingOffset[]>();
      for (const o of offsets.values()) {
        let l = byGroup.get(o.groupId);
        if (!l) byGroup.set(o.groupId, (l = []));
        l.push(o);
      }
      try {
        const gc = await this.groupCoordinator();
        for (const [groupId, list] of byGroup) {
          const shard = gc.shardFor(groupId);
          const now = Date.now();
          await shard.write(() => ({
            response: undefined,
            records: list.map((o) => ({
              type: 'OffsetCommit',
              group: groupId,
              topic: o.topic,
              partition: o.partition,
              value: {
                offset: o.offset,
                leaderEpoch: o.leaderEpoch,
                metadata: o.metadata ?? '',
                commitTimestamp: BigInt(now),
                expireTimestamp: -1n,
              },
            })),
          }));
        }
      } catch (e) {
        const code = codeOf(e);
        // the transaction coordinator retries NOT_LEADER_OR_FOLLOWER
        return code === ErrorCode.NOT_COORDINATOR ||
          code === ErrorCode.COORDINATOR_NOT_AVAILABLE ||
          code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
          ? ErrorCode.NOT_LEADER_OR_FOLLOWER
          : code;
      }
    }
    const marker = buildEndTxnMarker({ producerId, producerEpoch, coordinatorEpoch, commit });
    const r = await this.replicas.appendRecords('__consumer_offsets', offsetsPartition, marker, {
      acks: -1,
      timeoutMs: this.timeoutMs,
      origin: 'coordinator',
      internalTopicsAllowed: true,
    });
    if (r.errorCode === ErrorCode.NONE || !commit) {
      byPartition?.delete(offsetsPartition);
      if (byPartition && byPartition.size === 0) this.pending.delete(producerId);
    }
    return r.errorCode;
  }
}
