// A Persister in memory, for the unit tests of the share-partition side and the group coordinator:
// the share coordinator's shard semantics (initialize before read/write, leader and state epoch
// fencing, batches combined, the start offset only moving forward, delete) without a log or a
// network. Records are replayed at once; `calls` records what was asked, for assertions.
import { ErrorCode } from '../../protocol/errors.js';
import { ShareCoordinatorShard, type ShardResult } from './coordinator/shard.js';
import type {
  Persister,
  PersisterReadResult,
  PersisterResult,
  PersisterSummaryResult,
  PersisterWriteState,
  SharePartitionKey,
} from './types.js';

export interface InMemoryPersisterOptions {
  /** Partition count of a topic id; absent: every topic id and partition exists. */
  partitionCount?: (topicId: string) => number | undefined;
  /** share.coordinator.snapshot.update.records.per.snapshot (500) */
  recordsPerSnapshot?: number;
  clock?: () => number;
}

export type PersisterCall =
  | { op: 'initialize'; key: SharePartitionKey; stateEpoch: number; startOffset: bigint }
  | { op: 'read'; key: SharePartitionKey; leaderEpoch: number }
  | { op: 'write'; key: SharePartitionKey; state: PersisterWriteState }
  | { op: 'delete'; key: SharePartitionKey }
  | { op: 'summary'; key: SharePartitionKey; leaderEpoch: number };

export class InMemoryPersister implements Persister {
  readonly shard: ShareCoordinatorShard;
  readonly calls: PersisterCall[] = [];
  /** When set, every call answers this error code (e.g. COORDINATOR_NOT_AVAILABLE) without effect. */
  failWith: number | null = null;

  constructor(opts: InMemoryPersisterOptions = {}) {
    this.shard = new ShareCoordinatorShard({
      recordsPerSnapshot: opts.recordsPerSnapshot ?? 500,
      partitionCount: opts.partitionCount ?? (() => 2_147_483_647),
      clock: opts.clock,
    });
  }

  private apply<T>(r: ShardResult<T>): T {
    for (const rec of r.records) this.shard.replay(rec);
    return r.response;
  }

  private failure(): PersisterResult | null {
    return this.failWith === null ? null : { errorCode: this.failWith, errorMessage: null };
  }

  async initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<PersisterResult> {
    this.calls.push({ op: 'initialize', key, stateEpoch, startOffset });
    return (
      this.failure() ??
      this.apply(this.shard.initializeState(key.groupId, key.topicId, key.partition, stateEpoch, startOffset))
    );
  }

  async readState(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterReadResult> {
    this.calls.push({ op: 'read', key, leaderEpoch });
    const f = this.failure();
    if (f) return { ...f, stateEpoch: 0, startOffset: 0n, stateBatches: [] };
    return this.apply(this.shard.readState(key.groupId, key.topicId, key.partition, leaderEpoch));
  }

  async writeState(key: SharePartitionKey, state: PersisterWriteState): Promise<PersisterResult> {
    this.calls.push({ op: 'write', key, state });
    return (
      this.failure() ??
      this.apply(this.shard.writeState(key.groupId, key.topicId, { partition: key.partition, ...state }))
    );
  }

  async deleteState(key: SharePartitionKey): Promise<PersisterResult> {
    this.calls.push({ op: 'delete', key });
    return this.failure() ?? this.apply(this.shard.deleteState(key.groupId, key.topicId, key.partition));
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterSummaryResult> {
    this.calls.push({ op: 'summary', key, leaderEpoch });
    const f = this.failure();
    if (f) return { ...f, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1 };
    return this.apply(this.shard.readSummary(key.groupId, key.topicId, key.partition));
  }
}

export const isPersisterOk = (r: PersisterResult): boolean => r.errorCode === ErrorCode.NONE;
