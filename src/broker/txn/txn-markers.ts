// Writing COMMIT/ABORT markers for a transaction that reached PrepareCommit/PrepareAbort (Kafka's
// TransactionMarkerChannelManager + TransactionMarkerRequestCompletionHandler): a marker goes to
// every partition of the transaction; a partition leaves the transaction's set once its marker is
// written (or can never be: deleted topic, fenced coordinator); retriable failures are retried with
// backoff. When the set is empty the CompleteCommit/CompleteAbort transition is written.

import { ErrorCode } from '../../protocol/errors.js';
import type { TransactionMetadata, TxnTransit } from './txn-metadata.js';
import { tpOf } from './txn-metadata.js';
import type { TransactionStateManager } from './txn-state-manager.js';

/** Appends one marker; resolves with the partition's error code. */
export type MarkerWriter = (
  topic: string,
  partition: number,
  producerId: number,
  producerEpoch: number,
  coordinatorEpoch: number,
  commit: boolean,
) => Promise<number>;

export interface MarkerManagerOptions {
  write: MarkerWriter;
  stateManager: TransactionStateManager;
  /** whether the partition still exists (markers to deleted topics are dropped) */
  partitionExists: (topic: string, partition: number) => boolean;
  logger: (level: string, msg: string) => void;
  retryBackoffMs?: number;
  maxRetryBackoffMs?: number;
}

const DROP = new Set<number>([
  ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT,
  ErrorCode.UNSUPPORTED_VERSION,
  ErrorCode.INVALID_PRODUCER_EPOCH,
  ErrorCode.TRANSACTION_COORDINATOR_FENCED,
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE,
  ErrorCode.INVALID_REQUIRED_ACKS,
  ErrorCode.INVALID_RECORD,
]);

const sleep = (ms: number): Promise<void> =>
  new Promise((r) => {
    const t = setTimeout(r, ms);
    t.unref?.();
  });

export class TransactionMarkerManager {
  private readonly inFlight = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(private readonly opts: MarkerManagerOptions) {}

  get pending(): number {
    return this.inFlight.size;
  }

  /** The markers of a transaction being sent, if any. */
  completion(transactionalId: string): Promise<void> | undefined {
    return this.inFlight.get(transactionalId);
  }

  /**
   * Sends the markers of `m` (state PrepareCommit/PrepareAbort, `complete` prepared from it) and
   * then writes `complete`. Returns the promise of the whole operation (never rejects).
   */
  addTxnMarkersToSend(
    coordinatorEpoch: number,
    commit: boolean,
    m: TransactionMetadata,
    complete: TxnTransit,
  ): Promise<void> {
    const existing = this.inFlight.get(m.transactionalId);
    if (existing) return existing;
    const p = this.run(coordinatorEpoch, commit, m, complete)
      .catch((e: unknown) =>
        this.opts.logger(
          'ERROR',
          `Sending transaction markers for ${m.transactionalId} failed: ${(e as Error).stack ?? String(e)}`,
        ),
      )
      .finally(() => {
        if (this.inFlight.get(m.transactionalId) === p) this.inFlight.delete(m.transactionalId);
      });
    this.inFlight.set(m.transactionalId, p);
    return p;
  }

  private stillOwned(m: TransactionMetadata, coordinatorEpoch: number): boolean {
    const st = this.opts.stateManager.getTransactionState(m.transactionalId);
    return (
      st.errorCode === ErrorCode.NONE &&
      'entry' in st &&
      st.entry?.metadata === m &&
      st.entry.coordinatorEpoch === coordinatorEpoch
    );
  }

  private async run(
    coordinatorEpoch: number,
    commit: boolean,
    m: TransactionMetadata,
    complete: TxnTransit,
  ): Promise<void> {
    const base = this.opts.retryBackoffMs ?? 20;
    const max = this.opts.maxRetryBackoffMs ?? 1000;
    let backoff = base;
    const result = commit ? 'COMMIT' : 'ABORT';
    for (;;) {
      if (this.stopped || !this.stillOwned(m, coordinatorEpoch)) return;
      const keys = [...m.topicPartitions];
      await Promise.all(
        keys.map(async (key) => {
          const { topic, partition } = tpOf(key);
          if (!this.opts.partitionExists(topic, partition)) {
            this.opts.logger(
              'INFO',
              `Dropping the ${result} marker of ${m.transactionalId} for ${topic}-${partition}: the partition no longer exists`,
            );
            m.removePartition(key);
            return;
          }
          let code: number;
          try {
            code = await this.opts.write(topic, partition, m.producerId, m.producerEpoch, coordinatorEpoch, commit);
          } catch (e) {
            this.opts.logger(
              'WARN',
              `Writing the ${result} marker of ${m.transactionalId} to ${topic}-${partition} failed: ${(e as Error).message}`,
            );
            code = ErrorCode.UNKNOWN_SERVER_ERROR;
          }
          if (code === ErrorCode.NONE) m.removePartition(key);
          else if (DROP.has(code)) {
            this.opts.logger(
              'WARN',
              `Dropping the ${result} marker of ${m.transactionalId} (producer ${m.producerId}, epoch ${m.producerEpoch}) for ${topic}-${partition}: error ${code}`,
            );
            m.removePartition(key);
          }
        }),
      );
      if (m.topicPartitions.size === 0) break;
      await sleep(backoff);
      backoff = Math.min(backoff * 2, max);
    }
    backoff = base;
    for (;;) {
      if (this.stopped || !this.stillOwned(m, coordinatorEpoch)) return;
      const code = await this.opts.stateManager.appendTransactionToLog(
        m.transactionalId,
        coordinatorEpoch,
        complete,
        (c) => c === ErrorCode.COORDINATOR_NOT_AVAILABLE,
      );
      if (code === ErrorCode.NONE) return;
      if (code !== ErrorCode.COORDINATOR_NOT_AVAILABLE) {
        this.opts.logger(
          'WARN',
          `Writing the completion of ${m.transactionalId}'s ${result} failed with error ${code}`,
        );
        return;
      }
      await sleep(backoff);
      backoff = Math.min(backoff * 2, max);
    }
  }

  /** Stops retrying (shutdown); in-flight writes finish on their own. */
  shutdown(): void {
    this.stopped = true;
  }
}
