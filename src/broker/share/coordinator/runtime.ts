// A share coordinator shard on its __share_group_state partition: operations run one at a time on
// a serial queue; a write's records are appended to the partition (acks=all) and replayed into the
// shard once written, then the answer goes out. Loading replays the partition from its start.
// Errors of the runtime are thrown as KafkaError (COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR,
// COORDINATOR_NOT_AVAILABLE) and become each share-partition's error, as Kafka's
// CoordinatorOperationExceptionHelper maps them.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { CoordinatorLog } from '../../group/log.js';
import { SerialQueue } from '../../log/serial-queue.js';
import { decodeShareRecord, encodeShareRecord } from './records.js';
import { ShareCoordinatorShard, type ShardResult, type ShareShardOptions } from './shard.js';

export const SHARE_STATE_TOPIC = '__share_group_state';

export type ShardState = 'loading' | 'active' | 'closed';

export class ShareShardRuntime {
  state: ShardState = 'loading';
  readonly shard: ShareCoordinatorShard;
  private readonly queue = new SerialQueue();
  loadedRecords = 0;

  constructor(
    readonly partition: number,
    private readonly log: CoordinatorLog,
    opts: ShareShardOptions,
    private readonly logger: (level: string, msg: string) => void = () => undefined,
  ) {
    this.shard = new ShareCoordinatorShard(opts);
  }

  private checkActive(): void {
    if (this.state === 'loading')
      throw new KafkaError(
        ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        "The coordinator is loading and hence can't process requests.",
      );
    if (this.state === 'closed')
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, 'This is not the correct coordinator.');
  }

  /** Runs an operation: validates and computes on the queue, appends its records, replays them, answers. */
  write<T>(op: (shard: ShareCoordinatorShard) => ShardResult<T>): Promise<T> {
    // a loading or unloaded shard answers at once (not after the load it would queue behind)
    try {
      this.checkActive();
    } catch (e) {
      return Promise.reject(e as Error);
    }
    return this.queue.run(async () => {
      this.checkActive();
      const result = op(this.shard);
      if (result.records.length === 0) return result.response;
      let base: number;
      try {
        base = await this.log.append(this.partition, result.records.map(encodeShareRecord));
      } catch (e) {
        throw appendError(e);
      }
      if (this.state !== 'active')
        throw new KafkaError(ErrorCode.NOT_COORDINATOR, 'This is not the correct coordinator.');
      result.records.forEach((r, i) => this.shard.replay(r, base + i));
      return result.response;
    });
  }

  /** The offset before which the partition's records are redundant (ShareCoordinatorShard.lastRedundantOffset). */
  lastRedundantOffset(): Promise<number | null> {
    if (this.state !== 'active') return Promise.resolve(null);
    return this.queue.run(async () => {
      this.checkActive();
      return this.shard.lastRedundantOffset();
    });
  }

  /** Replays the partition from its start. */
  async load(): Promise<void> {
    await this.queue.run(async () => {
      if (this.state !== 'loading') return;
      const started = Date.now();
      await this.log.read(this.partition, 0, (records) => {
        for (const r of records) {
          const rec = decodeShareRecord(r.key, r.value);
          if (rec) {
            this.shard.replay(rec, r.offset);
            this.loadedRecords++;
          }
        }
      });
      if (this.state === 'loading') this.state = 'active';
      this.logger(
        'INFO',
        `[ShareCoordinator] Finished loading ${SHARE_STATE_TOPIC}-${this.partition}: ${this.shard.size} share-partitions, ${this.loadedRecords} records in ${Date.now() - started} ms`,
      );
    });
  }

  unload(): Promise<void> {
    const wasLoading = this.state === 'loading';
    this.state = 'closed';
    if (wasLoading) return Promise.resolve();
    return this.queue.run(async () => undefined);
  }
}

/** CoordinatorRuntime's view of a failed append (CoordinatorOperationExceptionHelper.handleOperationException). */
function appendError(e: unknown): KafkaError {
  const code = e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR;
  const message = e instanceof Error ? e.message : String(e);
  switch (code) {
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return new KafkaError(ErrorCode.NOT_COORDINATOR, message);
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, message);
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      return new KafkaError(code, message);
    default:
      return new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, message);
  }
}
