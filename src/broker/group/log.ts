// The coordinator's view of __consumer_offsets: append records to partition p (acks=all, resolves
// once they are committed), read partition p from an offset. The broker implements it over the
// ReplicaManager (replica-log.ts); tests use the in-memory log below.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { EncodedRecord } from './records.js';

export interface LoggedRecord extends EncodedRecord {
  offset: number;
  timestamp: number;
}

export interface CoordinatorLog {
  /**
   * Appends the records to partition p as one batch. Resolves with the base offset once written;
   * rejects with a KafkaError (NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION, ...) otherwise.
   */
  append(partition: number, records: readonly EncodedRecord[]): Promise<number>;
  /** Reads partition p from `fromOffset` up to its end, in batches; `onBatch` gets the records of each. */
  read(partition: number, fromOffset: number, onBatch: (records: LoggedRecord[]) => void): Promise<number>;
}

/** A CoordinatorLog in memory: for tests, and as a description of what the real one must do. */
export class MemoryCoordinatorLog implements CoordinatorLog {
  readonly partitions = new Map<number, LoggedRecord[]>();
  /** When set, appends fail with this error code. */
  failWith: number | null = null;
  appends = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  async append(partition: number, records: readonly EncodedRecord[]): Promise<number> {
    if (this.failWith !== null) throw new KafkaError(this.failWith, 'append failed (test)');
    let log = this.partitions.get(partition);
    if (!log) this.partitions.set(partition, (log = []));
    const base = log.length;
    const now = this.clock();
    for (const r of records) log.push({ key: r.key, value: r.value, offset: log.length, timestamp: now });
    this.appends++;
    return base;
  }

  async read(partition: number, fromOffset: number, onBatch: (records: LoggedRecord[]) => void): Promise<number> {
    const log = this.partitions.get(partition) ?? [];
    const slice = log.slice(fromOffset);
    if (slice.length > 0) onBatch(slice);
    return log.length;
  }

  /** Drops superseded keys, as the log cleaner would (tombstones kept). */
  compact(partition: number): void {
    const log = this.partitions.get(partition);
    if (!log) return;
    const last = new Map<string, number>();
    log.forEach((r, i) => last.set(r.key.toString('hex'), i));
    this.partitions.set(
      partition,
      log.filter((r, i) => last.get(r.key.toString('hex')) === i),
    );
  }
}

export const NOT_COORDINATOR = (msg = 'This is not the correct coordinator.'): KafkaError =>
  new KafkaError(ErrorCode.NOT_COORDINATOR, msg);
