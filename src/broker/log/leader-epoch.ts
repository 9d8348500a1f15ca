// Leader epoch cache of a partition (LeaderEpochFileCache.java), persisted to its
// `leader-epoch-checkpoint` (src/storage/leader-epoch-checkpoint.ts). Each entry says "epoch E
// began at offset S"; entries strictly increase in both epoch and offset.

import {
  leaderEpochCheckpointFile,
  readLeaderEpochCheckpoint,
  writeLeaderEpochCheckpoint,
  type EpochEntry,
} from '../../storage/leader-epoch-checkpoint.js';
import { asyncLoadIO, type LoadIO } from '../../storage/load-io.js';

export { LEADER_EPOCH_CHECKPOINT_FILE, type EpochEntry } from '../../storage/leader-epoch-checkpoint.js';
export const UNDEFINED_EPOCH = -1;
/** How long truncateFromEndAsyncFlush leaves its write for a flush of the cache to cover. */
export const DEFERRED_FLUSH_MS = 1000;
export const UNDEFINED_EPOCH_OFFSET = -1;

export class LeaderEpochCache {
  private dir: string;
  /** sorted by epoch (and therefore by start offset) */
  private epochs: EpochEntry[];
  /** the last checkpoint write queued: one write at a time (they share `leader-epoch-checkpoint.tmp`) */
  private writes: Promise<void> = Promise.resolve();
  /** the write truncateFromEndAsyncFlush left for later */
  private deferred: { timer: ReturnType<typeof setTimeout> | undefined; onError: (e: Error) => void } | undefined;

  private constructor(dir: string, entries: EpochEntry[]) {
    this.dir = dir;
    this.epochs = entries;
  }

  /** Reads `<dir>/leader-epoch-checkpoint`, creating it empty when missing (as Kafka's CheckpointFile does). */
  static async load(dir: string, io: LoadIO = asyncLoadIO): Promise<LeaderEpochCache> {
    // created only when missing: two file operations fewer per log when 10,000 load at start-up
    const read = await readLeaderEpochCheckpoint(dir, io);
    if (read === null) await io.touch(leaderEpochCheckpointFile(dir));
    const entries = read ?? [];
    const cache = new LeaderEpochCache(dir, []);
    for (const e of entries) cache.assignInMemory(e);
    return cache;
  }

  entries(): EpochEntry[] {
    return this.epochs.map((e) => ({ ...e }));
  }

  nonEmpty(): boolean {
    return this.epochs.length > 0;
  }

  latestEntry(): EpochEntry | undefined {
    return this.epochs[this.epochs.length - 1];
  }

  latestEpoch(): number | undefined {
    return this.latestEntry()?.epoch;
  }

  earliestEntry(): EpochEntry | undefined {
    return this.epochs[0];
  }

  private isUpdateNeeded(e: EpochEntry): boolean {
    const latest = this.latestEntry();
    return latest === undefined || e.epoch !== latest.epoch || e.startOffset < latest.startOffset;
  }

  private assignInMemory(e: EpochEntry): boolean {
    if (e.epoch < 0 || e.startOffset < 0)
      throw new RangeError(`Received invalid partition leader epoch entry ${JSON.stringify(e)}`);
    if (!this.isUpdateNeeded(e)) return false;
    // remove entries that would violate monotonicity
    while (this.epochs.length > 0) {
      const last = this.epochs[this.epochs.length - 1]!;
      if (last.epoch >= e.epoch || last.startOffset >= e.startOffset) this.epochs.pop();
      else break;
    }
    this.epochs.push({ epoch: e.epoch, startOffset: e.startOffset });
    return true;
  }

  /** Records that `epoch` began at `startOffset`; persists when the cache changed. */
  async assign(epoch: number, startOffset: number): Promise<void> {
    if (this.assignInMemory({ epoch, startOffset })) await this.flush();
  }

  /** Removes entries with startOffset >= endOffset. */
  async truncateFromEnd(endOffset: number): Promise<void> {
    if (this.truncateFromEndInMemory(endOffset)) await this.flush();
  }

  /**
   * Kafka's truncateFromEndAsyncFlush (KAFKA-15046), what LogLoader calls: the entries go now, the
   * file is rewritten in the background, DEFERRED_FLUSH_MS later, unless a write of the cache
   * (flush, which writes the entries as they are then) or the log's close comes first. A crash
   * first leaves the removed entries in the file, and the next load removes them again. At every
   * restart this is each partition whose last epoch began at its log end offset (no record since
   * its leader took it, e.g. an empty one), whose leader epoch is assigned (and written) again when
   * it is led within the start-up: one checkpoint write (two fsyncs) per such partition instead of
   * two, and none while the logs load.
   * `onError`: the write failed with another error than the directory being gone (Kafka's
   * writeIfDirExists skips that case).
   */
  truncateFromEndAsyncFlush(endOffset: number, onError: (e: Error) => void): void {
    if (!this.truncateFromEndInMemory(endOffset)) return;
    this.deferred ??= { timer: undefined, onError };
    this.deferred.timer ??= setTimeout(() => void this.flushDeferred(), DEFERRED_FLUSH_MS);
    this.deferred.timer.unref?.();
  }

  /** Runs the deferred write now (if one is pending), its failure to its `onError`. */
  private async flushDeferred(): Promise<void> {
    const d = this.deferred;
    if (!d) return;
    await this.flush().catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') d.onError(e as Error);
    });
  }

  private truncateFromEndInMemory(endOffset: number): boolean {
    const latest = this.latestEntry();
    if (endOffset < 0 || latest === undefined || latest.startOffset < endOffset) return false;
    while (this.epochs.length > 0 && this.epochs[this.epochs.length - 1]!.startOffset >= endOffset) this.epochs.pop();
    return true;
  }

  /** Drops entries starting at or before startOffset, keeping the last of them moved to startOffset. */
  async truncateFromStart(startOffset: number): Promise<void> {
    let i = 0;
    while (i < this.epochs.length && this.epochs[i]!.startOffset <= startOffset) i++;
    if (i === 0) return;
    // the first entry starts there already: nothing to write (every partition, at every restart)
    if (i === 1 && this.epochs[0]!.startOffset === startOffset) return;
    const kept = { epoch: this.epochs[i - 1]!.epoch, startOffset };
    this.epochs = [kept, ...this.epochs.slice(i)];
    await this.flush();
  }

  async clear(): Promise<void> {
    this.epochs = [];
    await this.flush();
  }

  /** Kafka's endOffsetFor: (largest epoch <= requested, start offset of the next epoch or LEO). */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): { epoch: number; endOffset: number } {
    if (requestedEpoch === UNDEFINED_EPOCH) return { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    const latest = this.latestEpoch();
    if (latest !== undefined && latest === requestedEpoch) return { epoch: requestedEpoch, endOffset: logEndOffset };
    const higher = this.epochs.find((e) => e.epoch > requestedEpoch);
    if (!higher) return { epoch: UNDEFINED_EPOCH, endOffset: UNDEFINED_EPOCH_OFFSET };
    let floor: EpochEntry | undefined;
    for (const e of this.epochs) if (e.epoch <= requestedEpoch) floor = e;
    if (!floor) return { epoch: requestedEpoch, endOffset: higher.startOffset };
    return { epoch: floor.epoch, endOffset: higher.startOffset };
  }

  /** Epoch that the given offset belongs to, if known. */
  epochForOffset(offset: number): number | undefined {
    let previous: number | undefined;
    for (const e of this.epochs) {
      if (e.startOffset === offset) return e.epoch;
      if (e.startOffset > offset) return previous;
      previous = e.epoch;
    }
    return previous;
  }

  /** Writes the file with the entries as they are when the write starts, after the writes queued before. */
  async flush(): Promise<void> {
    // this write covers a deferred one (truncateFromEndAsyncFlush)
    if (this.deferred) clearTimeout(this.deferred.timer);
    this.deferred = undefined;
    const write = this.writes.then(() => writeLeaderEpochCheckpoint(this.dir, this.epochs));
    this.writes = write.catch(() => undefined);
    await write;
  }

  /** Resolves once the writes queued so far, and a deferred one (run now), have ended (failed or not). */
  async flushed(): Promise<void> {
    await this.flushDeferred();
    await this.writes;
  }

  /** Points the cache at a renamed partition directory. */
  updateDir(dir: string): void {
    this.dir = dir;
  }
}
