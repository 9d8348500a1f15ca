// The share coordinator (Kafka 4.4's ShareCoordinatorService): routes each share-partition of a
// persister RPC (Initialize/Read/Write/DeleteShareGroupState, ReadShareGroupStateSummary) to the
// shard of its __share_group_state partition, abs(hash("group:topicId:partition")) % partitions,
// and gathers the answers per topic. An RPC with no topics, a topic with no partitions or an empty
// group id gets an empty answer; before start-up every share-partition answers
// COORDINATOR_NOT_AVAILABLE; a partition not loaded here NOT_COORDINATOR, one loading
// COORDINATOR_LOAD_IN_PROGRESS, each with "Unable to <op>: <reason>" as Kafka words it.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { Input } from '../../../protocol/codec/types.js';
import type {
  DeleteShareGroupStateRequest,
  DeleteShareGroupStateResponse,
} from '../../../protocol/generated/protocol/DeleteShareGroupState.js';
import type {
  InitializeShareGroupStateRequest,
  InitializeShareGroupStateResponse,
} from '../../../protocol/generated/protocol/InitializeShareGroupState.js';
import type {
  ReadShareGroupStateRequest,
  ReadShareGroupStateResponse,
} from '../../../protocol/generated/protocol/ReadShareGroupState.js';
import type {
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
} from '../../../protocol/generated/protocol/ReadShareGroupStateSummary.js';
import type {
  WriteShareGroupStateRequest,
  WriteShareGroupStateResponse,
} from '../../../protocol/generated/protocol/WriteShareGroupState.js';
import { coordinatorPartition } from '../../../protocol/partitioner.js';
import type { CoordinatorLog } from '../../group/log.js';
import type { SharePartitionKey } from '../types.js';
import { ShareShardRuntime, SHARE_STATE_TOPIC } from './runtime.js';
import type { PartitionError, ShardResult, ShareCoordinatorShard } from './shard.js';

export interface ShareCoordinatorOptions {
  /** share.coordinator.state.topic.num.partitions */
  numPartitions: number;
  /** share.coordinator.snapshot.update.records.per.snapshot */
  recordsPerSnapshot: number;
  log: CoordinatorLog;
  partitionCount: (topicId: string) => number | undefined;
  clock?: () => number;
  logger?: (level: string, msg: string) => void;
}

/** SharePartitionKey.asCoordinatorKey */
export const asCoordinatorKey = (k: SharePartitionKey): string => `${k.groupId}:${k.topicId}:${k.partition}`;

const NOT_AVAILABLE = 'Share coordinator is not available.';

interface Topic<P> {
  topicId: string;
  partitions: P[];
}

export class ShareCoordinator {
  private readonly shards = new Map<number, ShareShardRuntime>();
  /** The offset each partition was pruned to (performRecordPruning's lastPrunedOffsets). */
  private readonly pruned = new Map<number, number>();
  private active = false;

  constructor(private readonly opts: ShareCoordinatorOptions) {}

  get numPartitions(): number {
    return this.opts.numPartitions;
  }

  /** ShareCoordinatorService.partitionFor */
  partitionFor(key: SharePartitionKey): number {
    return coordinatorPartition(asCoordinatorKey(key), this.opts.numPartitions);
  }

  startup(): void {
    this.active = true;
  }

  async shutdown(): Promise<void> {
    this.active = false;
    await Promise.all([...this.shards.keys()].map((p) => this.unloadPartition(p)));
  }

  /** This node leads partition p of __share_group_state now: (re)load its shard. */
  async loadPartition(p: number): Promise<void> {
    const old = this.shards.get(p);
    if (old) await old.unload();
    const rt = new ShareShardRuntime(
      p,
      this.opts.log,
      {
        recordsPerSnapshot: this.opts.recordsPerSnapshot,
        partitionCount: this.opts.partitionCount,
        clock: this.opts.clock,
      },
      this.opts.logger,
    );
    this.shards.set(p, rt);
    try {
      await rt.load();
    } catch (e) {
      this.opts.logger?.('ERROR', `Failed to load ${SHARE_STATE_TOPIC}-${p}: ${(e as Error).message}`);
      if (this.shards.get(p) === rt) this.shards.delete(p);
      await rt.unload();
    }
  }

  async unloadPartition(p: number): Promise<void> {
    const rt = this.shards.get(p);
    if (!rt) return;
    this.shards.delete(p);
    this.pruned.delete(p);
    await rt.unload();
  }

  /**
   * ShareCoordinatorService.performRecordPruning: deletes the records of each loaded partition
   * before its last redundant offset (every share.coordinator.state.topic.prune.interval.ms).
   */
  async pruneRecords(deleteRecords: (partition: number, offset: number) => Promise<number>): Promise<void> {
    for (const [p, rt] of [...this.shards]) {
      const offset = await rt.lastRedundantOffset().catch(() => null);
      if (offset === null) continue;
      if (offset <= (this.pruned.get(p) ?? 0)) {
        this.opts.logger?.('DEBUG', `${SHARE_STATE_TOPIC}-${p} already pruned till offset ${offset}`);
        continue;
      }
      this.opts.logger?.('INFO', `Pruning records in ${SHARE_STATE_TOPIC}-${p} till offset ${offset}.`);
      const code = await deleteRecords(p, offset).catch(() => ErrorCode.UNKNOWN_SERVER_ERROR);
      if (code === ErrorCode.NONE) this.pruned.set(p, offset);
      else
        this.opts.logger?.(
          'WARN',
          `Exception while deleting records in ${SHARE_STATE_TOPIC}-${p} till offset ${offset}: error ${code}`,
        );
    }
  }

  /** ShareCoordinatorService.setupSnapshotColdPartitions' job, on every loaded shard. */
  async snapshotColdPartitions(intervalMs: number): Promise<void> {
    await Promise.all(
      [...this.shards.values()].map((rt) =>
        rt.write((s) => s.snapshotColdPartitions(intervalMs)).catch(() => undefined),
      ),
    );
  }

  /** Topics were deleted: every loaded shard writes tombstones for their share-partitions. */
  async onTopicsDeleted(topicIds: readonly string[]): Promise<void> {
    const ids = new Set(topicIds);
    await Promise.all(
      [...this.shards.values()].map((rt) =>
        rt
          .write((s) => s.cleanupDeletedTopics(ids))
          .catch((e: unknown) =>
            this.opts.logger?.(
              'WARN',
              `Received error while trying to cleanup deleted topics: ${(e as Error).message}`,
            ),
          ),
      ),
    );
  }

  /** The shard of partition p, when loaded (tests, tools). */
  shard(p: number): ShareShardRuntime | undefined {
    return this.shards.get(p);
  }

  isLoaded(p: number): boolean {
    return this.shards.get(p)?.state === 'active';
  }

  private run<T extends PartitionError>(
    key: SharePartitionKey,
    what: string,
    op: (shard: ShareCoordinatorShard) => ShardResult<T>,
    errorOf: (code: number, message: string) => T,
  ): Promise<T> {
    const rt = this.shards.get(this.partitionFor(key));
    if (!rt)
      return Promise.resolve(
        errorOf(ErrorCode.NOT_COORDINATOR, `Unable to ${what}: This is not the correct coordinator.`),
      );
    return rt.write(op).catch((e: unknown) => {
      const code = e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR;
      return errorOf(code, `Unable to ${what}: ${e instanceof Error ? e.message : String(e)}`);
    });
  }

  /** The common frame of the five RPCs: empty-request checks, availability, per-partition routing. */
  private async serve<P extends { partition: number }, R extends PartitionError & { partition: number }>(
    groupId: string,
    topics: readonly Topic<P>[],
    what: string,
    op: (topicId: string, p: P) => (shard: ShareCoordinatorShard) => ShardResult<Omit<R, 'partition'>>,
    errorOf: (code: number, message: string) => Omit<R, 'partition'>,
  ): Promise<{ topicId: string; partitions: R[] }[]> {
    if (topics.length === 0 || topics.some((t) => t.partitions.length === 0) || groupId === '') return [];
    if (!this.active)
      return topics.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map(
          (p) => ({ partition: p.partition, ...errorOf(ErrorCode.COORDINATOR_NOT_AVAILABLE, NOT_AVAILABLE) }) as R,
        ),
      }));
    return Promise.all(
      topics.map(async (t) => ({
        topicId: t.topicId,
        partitions: await Promise.all(
          t.partitions.map(async (p) => {
            const key = { groupId, topicId: t.topicId, partition: p.partition };
            const r = await this.run(key, what, op(t.topicId, p), errorOf);
            return { partition: p.partition, ...r } as R;
          }),
        ),
      })),
    );
  }

  async initializeState(req: InitializeShareGroupStateRequest): Promise<Input<InitializeShareGroupStateResponse>> {
    const results = await this.serve(
      req.groupId,
      req.topics,
      'initialize share group state',
      (topicId, p) => (s) => s.initializeState(req.groupId, topicId, p.partition, p.stateEpoch, p.startOffset),
      (errorCode, errorMessage) => ({ errorCode, errorMessage }),
    );
    return { results };
  }

  async readState(req: ReadShareGroupStateRequest): Promise<Input<ReadShareGroupStateResponse>> {
    const results = await this.serve(
      req.groupId,
      req.topics,
      'read share group state',
      (topicId, p) => (s) => s.readState(req.groupId, topicId, p.partition, p.leaderEpoch),
      (errorCode, errorMessage) => ({ errorCode, errorMessage, stateEpoch: 0, startOffset: 0n, stateBatches: [] }),
    );
    return { results };
  }

  async writeState(req: WriteShareGroupStateRequest): Promise<Input<WriteShareGroupStateResponse>> {
    const results = await this.serve(
      req.groupId,
      req.topics,
      'write share group state',
      (topicId, p) => (s) => s.writeState(req.groupId, topicId, p),
      (errorCode, errorMessage) => ({ errorCode, errorMessage }),
    );
    return { results };
  }

  async deleteState(req: DeleteShareGroupStateRequest): Promise<Input<DeleteShareGroupStateResponse>> {
    const results = await this.serve(
      req.groupId,
      req.topics,
      'delete share group state',
      (topicId, p) => (s) => s.deleteState(req.groupId, topicId, p.partition),
      (errorCode, errorMessage) => ({ errorCode, errorMessage }),
    );
    return { results };
  }

  async readStateSummary(req: ReadShareGroupStateSummaryRequest): Promise<Input<ReadShareGroupStateSummaryResponse>> {
    const results = await this.serve(
      req.groupId,
      req.topics,
      'read share group state summary',
      (topicId, p) => (s) => s.readSummary(req.groupId, topicId, p.partition),
      (errorCode, errorMessage) => ({
        errorCode,
        errorMessage,
        stateEpoch: 0,
        leaderEpoch: 0,
        startOffset: 0n,
        deliveryCompleteCount: -1,
      }),
    );
    return { results };
  }
}
