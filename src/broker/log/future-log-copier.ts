// Fills the future log of a replica moving to another log dir from its current log, then has it swapped
// in (Kafka's ReplicaAlterLogDirsThread: a fetcher whose "leader" is the local current log). Each
// step reads a chunk on the current log's queue and appends it to the future log as a follower does;
// the future is truncated first when the current log was truncated under it (the leader epoch cache
// says where they part, as OffsetsForLeaderEpoch does for the thread). When the future has the
// current log's end, the swap runs in the same queued step, so no append lands in between.
//
// `beforeChunk` is the hook for replica.alter.log.dirs.io.max.bytes.per.second (Kafka's
// ReplicationQuotaManager for the AlterLogDirs quota): called with each chunk's size before it is
// written; it may wait.

import { BATCH_LENGTH, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD } from '../../protocol/records/layout.js';
import type { LogLogger } from './log-errors.js';
import type { PartitionLog } from './partition-log.js';

export interface FutureLogCopierOptions {
  current: PartitionLog;
  future: PartitionLog;
  logger: LogLogger;
  /** bytes per chunk (default 1 MiB, replica.fetch.max.bytes) */
  chunkBytes?: number;
  beforeChunk?: (bytes: number) => Promise<void> | void;
  /** on the current log's queue, once the future has caught up: make the future the current log */
  swap: () => Promise<void>;
  /** pause between steps when there was nothing to copy but the swap could not run (default 10 ms) */
  idleMs?: number;
}

type Step =
  | { kind: 'swapped' }
  | { kind: 'stopped' }
  | { kind: 'truncate'; to: number }
  | { kind: 'restart'; at: number }
  | { kind: 'copy'; records: Buffer };

/** The complete batches at the start of `buf` (a read may end inside one). */
export function wholeBatches(buf: Buffer): Buffer {
  let pos = 0;
  while (buf.length - pos >= RECORD_BATCH_OVERHEAD) {
    const size = buf.readInt32BE(pos + BATCH_LENGTH) + LOG_OVERHEAD;
    if (size < RECORD_BATCH_OVERHEAD || pos + size > buf.length) break;
    pos += size;
  }
  return pos === buf.length ? buf : buf.subarray(0, pos);
}

export class FutureLogCopier {
  private stopped = false;
  private resolveDone!: () => void;
  /** settles when run() has ended (swapped, stopped or failed) */
  readonly done: Promise<void>;

  constructor(private readonly o: FutureLogCopierOptions) {
    this.done = new Promise<void>((r) => (this.resolveDone = r));
  }

  stop(): void {
    this.stopped = true;
  }

  /** Copies until the swap is done, the copier is stopped, or either log is closed. */
  async run(): Promise<boolean> {
    try {
      return await this.loop();
    } finally {
      this.resolveDone();
    }
  }

  private async loop(): Promise<boolean> {
    const { current, future } = this.o;
    const chunk = this.o.chunkBytes ?? 1024 * 1024;
    for (;;) {
      if (this.stopped || current.isClosed || future.isClosed) return false;
      const step = await current.queue.run(() => this.nextStep(chunk));
      switch (step.kind) {
        case 'swapped':
          return true;
        case 'stopped':
          return false;
        case 'truncate':
          this.o.logger.info(`Truncating the future log of ${current.topic}-${current.partition} to ${step.to}`);
          await future.truncateTo(step.to);
          break;
        case 'restart':
          await future.truncateFullyAndStartAt(step.at);
          break;
        case 'copy':
          if (step.records.length === 0) {
            await new Promise((r) => setTimeout(r, this.o.idleMs ?? 10));
            break;
          }
          await this.o.beforeChunk?.(step.records.length);
          if (this.stopped || future.isClosed) return false;
          await future.appendAsFollower(step.records);
          break;
      }
    }
  }

  /** On the current log's queue: what to do next, the swap included. */
  private async nextStep(chunk: number): Promise<Step> {
    const { current, future } = this.o;
    if (this.stopped || current.isClosed || future.isClosed) return { kind: 'stopped' };
    const fLeo = future.logEndOffset;
    // the current log's start moved past the future's end (retention, DeleteRecords): start over there
    if (fLeo < current.logStartOffset) return { kind: 'restart', at: current.logStartOffset };
    // the future holds records the current no longer has (the current log was truncated as a follower)
    const fEpoch = future.epochCache.latestEpoch();
    if (fEpoch !== undefined && fLeo > future.logStartOffset) {
      const { epoch, endOffset } = current.epochCache.endOffsetFor(fEpoch, current.logEndOffset);
      if (epoch < 0 || endOffset < future.logStartOffset) return { kind: 'restart', at: current.logStartOffset };
      if (endOffset < fLeo) return { kind: 'truncate', to: endOffset };
    }
    if (fLeo > current.logEndOffset) return { kind: 'truncate', to: current.logEndOffset };
    if (current.isCaughtUpBy(future)) {
      await this.o.swap();
      return { kind: 'swapped' };
    }
    const r = await current.read(fLeo, chunk, { minOneMessage: true });
    if (r.error) return { kind: 'restart', at: current.logStartOffset };
    return { kind: 'copy', records: wholeBatches(r.records) };
  }
}
