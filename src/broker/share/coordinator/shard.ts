// One share coordinator shard: the share-partition states of one __share_group_state partition
// (Kafka 4.4's ShareCoordinatorShard). Operations validate a single share-partition's request and
// return the records to append (a ShareSnapshot or ShareUpdate, a tombstone) and the answer; the
// records are replayed into the state once written. ShareShardRuntime (runtime.ts) runs them on a
// serial queue over the log.
import { ErrorCode, errorInfo } from '../../../protocol/errors.js';
import type { PersisterStateBatch, SharePartitionKey } from '../types.js';
import { combineStateBatches } from './batch-combiner.js';
import type { ShareRecord } from './records.js';

/** Kafka's ShareGroupOffset: the state of one share-partition. */
export interface ShareGroupOffset {
  snapshotEpoch: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  deliveryCompleteCount: number;
  stateBatches: PersisterStateBatch[];
  createTimestamp: bigint;
  writeTimestamp: bigint;
}

export interface PartitionError {
  errorCode: number;
  errorMessage: string | null;
}

export interface ReadPartitionAnswer extends PartitionError {
  stateEpoch: number;
  startOffset: bigint;
  stateBatches: PersisterStateBatch[];
}

export interface SummaryPartitionAnswer extends PartitionError {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  deliveryCompleteCount: number;
}

export interface WritePartitionData {
  partition: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  deliveryCompleteCount: number;
  stateBatches: readonly PersisterStateBatch[];
}

export interface ShardResult<T> {
  records: ShareRecord[];
  response: T;
}

export interface ShareShardOptions {
  /** share.coordinator.snapshot.update.records.per.snapshot */
  recordsPerSnapshot: number;
  /** The partition count of a topic id in the metadata image; undefined when the topic is unknown. */
  partitionCount: (topicId: string) => number | undefined;
  clock?: () => number;
}

// ShareCoordinatorShard's messages
export const NULL_TOPIC_ID = 'The topic id cannot be null.';
export const NEGATIVE_PARTITION_ID = 'The partition id cannot be a negative number.';
export const NEGATIVE_LEADER_EPOCH = 'The leader epoch cannot be a negative number.';
export const NEGATIVE_STATE_EPOCH = 'The state epoch cannot be a negative number.';
export const WRITE_UNINITIALIZED_SHARE_PARTITION = 'Write operation on uninitialized share partition not allowed.';
export const READ_UNINITIALIZED_SHARE_PARTITION = 'Read operation on uninitialized share partition not allowed.';

const OK: PartitionError = { errorCode: ErrorCode.NONE, errorMessage: null };
const err = (code: number, message?: string): PartitionError => ({
  errorCode: code,
  errorMessage: message ?? errorInfo(code).message,
});

export const mapKeyOf = (k: SharePartitionKey): string => `${k.groupId}:${k.topicId}:${k.partition}`;

/** The key of a map key (group ids may hold ':'; topic ids and partitions do not). */
function keyOf(k: string): SharePartitionKey {
  const p = k.lastIndexOf(':');
  const t = k.lastIndexOf(':', p - 1);
  return { groupId: k.slice(0, t), topicId: k.slice(t + 1, p), partition: Number(k.slice(p + 1)) };
}

const toBatch = (b: PersisterStateBatch): PersisterStateBatch => ({
  firstOffset: b.firstOffset,
  lastOffset: b.lastOffset,
  deliveryState: b.deliveryState,
  deliveryCount: b.deliveryCount,
});

export class ShareCoordinatorShard {
  private readonly shareStateMap = new Map<string, ShareGroupOffset>();
  private readonly leaderEpochMap = new Map<string, number>();
  private readonly stateEpochMap = new Map<string, number>();
  private readonly snapshotUpdateCount = new Map<string, number>();
  /** ShareCoordinatorOffsetsManager: the log offset of each share-partition's latest snapshot. */
  private readonly snapshotOffsets = new Map<string, number>();
  private lastRedundant = Number.MAX_SAFE_INTEGER;
  private readonly clock: () => number;

  constructor(private readonly opts: ShareShardOptions) {
    this.clock = opts.clock ?? Date.now;
  }

  // ---- replay

  /** Replays a record; `offset` is its offset in the partition (for pruning), when known. */
  replay(r: ShareRecord, offset?: number): void {
    const k = mapKeyOf(r.key);
    if (r.type === 'ShareSnapshot') {
      if (offset !== undefined) this.updateSnapshotOffset(k, offset, r.value === null);
      if (r.value === null) {
        this.shareStateMap.delete(k);
        this.leaderEpochMap.delete(k);
        this.stateEpochMap.delete(k);
        this.snapshotUpdateCount.delete(k);
        return;
      }
      const v = r.value;
      this.maybeUpdate(this.leaderEpochMap, k, v.leaderEpoch);
      this.maybeUpdate(this.stateEpochMap, k, v.stateEpoch);
      this.shareStateMap.set(k, {
        snapshotEpoch: v.snapshotEpoch,
        stateEpoch: v.stateEpoch,
        leaderEpoch: v.leaderEpoch,
        startOffset: v.startOffset,
        deliveryCompleteCount: v.deliveryCompleteCount,
        stateBatches: v.stateBatches.map(toBatch),
        createTimestamp: v.createTimestamp,
        writeTimestamp: v.writeTimestamp,
      });
      const count = this.snapshotUpdateCount.get(k);
      if (count !== undefined && count >= this.opts.recordsPerSnapshot) this.snapshotUpdateCount.set(k, 0);
      return;
    }
    if (r.value === null) return;
    const v = r.value;
    this.maybeUpdate(this.leaderEpochMap, k, v.leaderEpoch);
    const soFar = this.shareStateMap.get(k);
    if (!soFar) {
      // ShareGroupOffset.fromRecord(ShareUpdateValue): state epoch 0, timestamps 0
      this.shareStateMap.set(k, {
        snapshotEpoch: v.snapshotEpoch,
        stateEpoch: 0,
        leaderEpoch: v.leaderEpoch,
        startOffset: v.startOffset,
        deliveryCompleteCount: v.deliveryCompleteCount,
        stateBatches: v.stateBatches.map(toBatch),
        createTimestamp: 0n,
        writeTimestamp: 0n,
      });
    } else {
      const startOffset = v.startOffset === -1n ? soFar.startOffset : v.startOffset;
      this.shareStateMap.set(k, {
        snapshotEpoch: soFar.snapshotEpoch,
        stateEpoch: soFar.stateEpoch,
        startOffset,
        deliveryCompleteCount: v.deliveryCompleteCount,
        leaderEpoch: v.leaderEpoch === -1 ? soFar.leaderEpoch : v.leaderEpoch,
        stateBatches: combineStateBatches(soFar.stateBatches, v.stateBatches.map(toBatch), startOffset),
        createTimestamp: soFar.createTimestamp,
        writeTimestamp: soFar.writeTimestamp,
      });
    }
    this.snapshotUpdateCount.set(k, (this.snapshotUpdateCount.get(k) ?? 0) + 1);
  }

  private maybeUpdate(map: Map<string, number>, k: string, epoch: number): void {
    const cur = map.get(k);
    if (cur === undefined || cur < epoch) map.set(k, epoch);
  }

  /**
   * ShareCoordinatorOffsetsManager.updateState: every record before the oldest latest snapshot of
   * the share-partitions is redundant (a snapshot holds the whole state); a tombstone's key stops
   * counting once written.
   */
  private updateSnapshotOffset(k: string, offset: number, isDelete: boolean): void {
    this.lastRedundant = Math.min(offset, this.lastRedundant);
    this.snapshotOffsets.set(k, offset);
    if (this.snapshotOffsets.size > 0) {
      let soFar = Number.MAX_SAFE_INTEGER;
      for (const v of this.snapshotOffsets.values()) {
        soFar = Math.min(soFar, v);
        if (soFar === this.lastRedundant) break;
      }
      this.lastRedundant = soFar;
    }
    if (isDelete) this.snapshotOffsets.delete(k);
  }

  /** ShareCoordinatorShard.lastRedundantOffset: the offset records before which can be deleted, if any. */
  lastRedundantOffset(): number | null {
    return this.lastRedundant <= 0 || this.lastRedundant === Number.MAX_SAFE_INTEGER ? null : this.lastRedundant;
  }

  // ---- operations (one share-partition each)

  private unknownPartition(topicId: string, partition: number): boolean {
    const n = this.opts.partitionCount(topicId);
    return n === undefined || partition >= n;
  }

  writeState(groupId: string, topicId: string, p: WritePartitionData): ShardResult<PartitionError> {
    const key: SharePartitionKey = { groupId, topicId, partition: p.partition };
    const k = mapKeyOf(key);
    const error = (e: PartitionError): ShardResult<PartitionError> => ({ records: [], response: e });
    if (p.partition < 0) return error(err(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID));
    if (p.leaderEpoch < 0) return error(err(ErrorCode.INVALID_REQUEST, NEGATIVE_LEADER_EPOCH));
    if (p.stateEpoch < 0) return error(err(ErrorCode.INVALID_REQUEST, NEGATIVE_STATE_EPOCH));
    if (!this.shareStateMap.has(k)) return error(err(ErrorCode.INVALID_REQUEST, WRITE_UNINITIALIZED_SHARE_PARTITION));
    const le = this.leaderEpochMap.get(k);
    if (le !== undefined && le > p.leaderEpoch) return error(err(ErrorCode.FENCED_LEADER_EPOCH));
    const se = this.stateEpochMap.get(k);
    if (se !== undefined && se > p.stateEpoch) return error(err(ErrorCode.FENCED_STATE_EPOCH));
    if (this.unknownPartition(topicId, p.partition)) return error(err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    return { records: [this.stateRecord(p, key, false)], response: OK };
  }

  readState(
    groupId: string,
    topicId: string,
    partition: number,
    leaderEpoch: number,
  ): ShardResult<ReadPartitionAnswer> {
    const key: SharePartitionKey = { groupId, topicId, partition };
    const k = mapKeyOf(key);
    const error = (e: PartitionError): ShardResult<ReadPartitionAnswer> => ({
      records: [],
      response: { ...e, stateEpoch: 0, startOffset: 0n, stateBatches: [] },
    });
    if (partition < 0) return error(err(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID));
    if (leaderEpoch < 0) return error(err(ErrorCode.INVALID_REQUEST, NEGATIVE_LEADER_EPOCH));
    const state = this.shareStateMap.get(k);
    if (!state) return error(err(ErrorCode.INVALID_REQUEST, READ_UNINITIALIZED_SHARE_PARTITION));
    const le = this.leaderEpochMap.get(k);
    if (le !== undefined && le > leaderEpoch) return error(err(ErrorCode.FENCED_LEADER_EPOCH));
    if (this.unknownPartition(topicId, partition)) return error(err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    const response: ReadPartitionAnswer = {
      ...OK,
      stateEpoch: state.stateEpoch,
      startOffset: state.startOffset,
      stateBatches: state.stateBatches.map(toBatch),
    };
    if (le !== undefined && le === leaderEpoch) return { records: [], response };
    // a newer leader read the state: its epoch is recorded (fences the older leader's writes)
    const record = this.stateRecord(
      {
        partition,
        leaderEpoch,
        stateBatches: [],
        startOffset: state.startOffset,
        deliveryCompleteCount: state.deliveryCompleteCount,
        stateEpoch: state.stateEpoch,
      },
      key,
      true,
    );
    return { records: [record], response };
  }

  readSummary(groupId: string, topicId: string, partition: number): ShardResult<SummaryPartitionAnswer> {
    const k = mapKeyOf({ groupId, topicId, partition });
    const error = (e: PartitionError): ShardResult<SummaryPartitionAnswer> => ({
      records: [],
      response: { ...e, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1 },
    });
    if (partition < 0) return error(err(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID));
    if (this.unknownPartition(topicId, partition)) return error(err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
    const state = this.shareStateMap.get(k);
    if (!state)
      return {
        records: [],
        response: { ...OK, startOffset: -1n, deliveryCompleteCount: -1, leaderEpoch: 0, stateEpoch: 0 },
      };
    return {
      records: [],
      response: {
        ...OK,
        startOffset: state.startOffset,
        deliveryCompleteCount: state.deliveryCompleteCount,
        leaderEpoch: state.leaderEpoch,
        stateEpoch: state.stateEpoch,
      },
    };
  }

  deleteState(groupId: string, topicId: string, partition: number): ShardResult<PartitionError> {
    const key: SharePartitionKey = { groupId, topicId, partition };
    if (partition < 0) return { records: [], response: err(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID) };
    if (this.unknownPartition(topicId, partition))
      return { records: [], response: err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
    if (!this.shareStateMap.has(mapKeyOf(key))) return { records: [], response: OK };
    return { records: [{ type: 'ShareSnapshot', key, value: null }], response: OK };
  }

  initializeState(
    groupId: string,
    topicId: string,
    partition: number,
    stateEpoch: number,
    startOffset: bigint,
  ): ShardResult<PartitionError> {
    const key: SharePartitionKey = { groupId, topicId, partition };
    const k = mapKeyOf(key);
    if (partition < 0) return { records: [], response: err(ErrorCode.INVALID_REQUEST, NEGATIVE_PARTITION_ID) };
    if (stateEpoch < 0) return { records: [], response: err(ErrorCode.INVALID_REQUEST, NEGATIVE_STATE_EPOCH) };
    const se = this.stateEpochMap.get(k);
    if (se !== undefined && se > stateEpoch) return { records: [], response: err(ErrorCode.FENCED_STATE_EPOCH) };
    if (this.unknownPartition(topicId, partition))
      return { records: [], response: err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) };
    const current = this.shareStateMap.get(k);
    const now = BigInt(this.clock());
    // ShareGroupOffset.fromRequest(InitializeShareGroupStateRequestData.PartitionData, snapshotEpoch, now)
    return {
      records: [
        {
          type: 'ShareSnapshot',
          key,
          value: {
            snapshotEpoch: current ? current.snapshotEpoch + 1 : 0,
            stateEpoch,
            leaderEpoch: 0,
            startOffset,
            deliveryCompleteCount: startOffset === -1n ? -1 : 0,
            createTimestamp: now,
            writeTimestamp: now,
            stateBatches: [],
          },
        },
      ],
      response: OK,
    };
  }

  /** maybeCleanupShareState: tombstones for the share-partitions of deleted topics. */
  cleanupDeletedTopics(topicIds: ReadonlySet<string>): ShardResult<null> {
    const records: ShareRecord[] = [];
    if (topicIds.size === 0) return { records, response: null };
    for (const k of this.shareStateMap.keys()) {
      const key = keyOf(k);
      if (topicIds.has(key.topicId)) records.push({ type: 'ShareSnapshot', key, value: null });
    }
    return { records, response: null };
  }

  /**
   * snapshotColdPartitions: a share-partition whose last snapshot is `intervalMs` old gets a new one
   * (same state, snapshot epoch + 1, write timestamp now), so that pruning can move past its updates.
   */
  snapshotColdPartitions(intervalMs: number): ShardResult<null> {
    const records: ShareRecord[] = [];
    const states = [...this.shareStateMap];
    // every state already cold-snapshotted (write timestamp != create timestamp): nothing to do
    if (states.every(([, v]) => v.createTimestamp !== v.writeTimestamp)) return { records, response: null };
    const now = this.clock();
    for (const [k, v] of states) {
      if (now - Number(v.writeTimestamp) < intervalMs) continue;
      records.push({
        type: 'ShareSnapshot',
        key: keyOf(k),
        value: {
          snapshotEpoch: v.snapshotEpoch + 1,
          stateEpoch: v.stateEpoch,
          leaderEpoch: v.leaderEpoch,
          startOffset: v.startOffset,
          deliveryCompleteCount: v.deliveryCompleteCount,
          createTimestamp: v.createTimestamp,
          writeTimestamp: BigInt(now),
          stateBatches: v.stateBatches.map(toBatch),
        },
      });
    }
    return { records, response: null };
  }

  /** generateShareStateRecord: a ShareSnapshot every `recordsPerSnapshot` updates, else a ShareUpdate. */
  private stateRecord(p: WritePartitionData, key: SharePartitionKey, updateLeaderEpoch: boolean): ShareRecord {
    const k = mapKeyOf(key);
    const now = BigInt(this.clock());
    const current = this.shareStateMap.get(k)!;
    const leaderEpoch = updateLeaderEpoch ? p.leaderEpoch : current.leaderEpoch;
    const startOffset = p.startOffset > current.startOffset ? p.startOffset : current.startOffset;
    let dcc = p.deliveryCompleteCount;
    if (p.startOffset === current.startOffset) dcc = Math.max(p.deliveryCompleteCount, current.deliveryCompleteCount);
    else if (p.startOffset < current.startOffset) dcc = current.deliveryCompleteCount;
    if ((this.snapshotUpdateCount.get(k) ?? 0) >= this.opts.recordsPerSnapshot) {
      return {
        type: 'ShareSnapshot',
        key,
        value: {
          snapshotEpoch: current.snapshotEpoch + 1,
          startOffset,
          deliveryCompleteCount: dcc,
          leaderEpoch,
          stateEpoch: current.stateEpoch,
          stateBatches: combineStateBatches(current.stateBatches, p.stateBatches.map(toBatch), startOffset),
          createTimestamp: now,
          writeTimestamp: now,
        },
      };
    }
    return {
      type: 'ShareUpdate',
      key,
      value: {
        snapshotEpoch: current.snapshotEpoch,
        startOffset,
        deliveryCompleteCount: dcc,
        leaderEpoch,
        stateBatches: combineStateBatches([], p.stateBatches.map(toBatch), startOffset),
      },
    };
  }

  // ---- for tests and tools

  stateOf(key: SharePartitionKey): ShareGroupOffset | undefined {
    return this.shareStateMap.get(mapKeyOf(key));
  }

  leaderEpochOf(key: SharePartitionKey): number | undefined {
    return this.leaderEpochMap.get(mapKeyOf(key));
  }

  stateEpochOf(key: SharePartitionKey): number | undefined {
    return this.stateEpochMap.get(mapKeyOf(key));
  }

  get size(): number {
    return this.shareStateMap.size;
  }
}
