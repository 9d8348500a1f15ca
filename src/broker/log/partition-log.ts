// The log of one partition (Kafka's UnifiedLog, local storage only): log start offset, high
// watermark, leader epoch cache and topic id on top of LocalLog's segments. Appends, retention,
// truncation and DeleteRecords run one at a time on the log's SerialQueue; reads and ListOffsets
// lookups run concurrently against stable file positions.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fsyncDir } from '../../storage/file-ops.js';
import { RECORD_BATCH_OVERHEAD } from '../../protocol/records/layout.js';
import {
  parseBatchHeader,
  setBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  type StoredBatch,
} from '../../protocol/records/batch.js';
import { SegmentClosedError, type FileSlice } from '../../storage/file-records.js';
import { LeaderEpochCache } from './leader-epoch.js';
import { fetchOffsetByTimestamp, type TimestampAndOffset } from './list-offsets.js';
import { LocalLog, type LogDirFailureHandler, type OffsetMetadata } from './local-log.js';
import { makeLogConfig, maxSegmentMs, type LogConfig } from './log-config.js';
import {
  InconsistentTopicIdError,
  InvalidRecordError,
  NotLeaderOrFollowerError,
  OffsetOutOfRangeError,
  RecordBatchTooLargeError,
  UnexpectedAppendOffsetError,
  silentLogger,
  type LogLogger,
} from './log-errors.js';
import { loadLog } from './log-loader.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../storage/partition-metadata.js';
import { ProducerStateManager } from './producer-state-manager.js';
import { asyncLoadIO, type LoadIO } from '../../storage/load-io.js';
import { leaderEpochCheckpointFile } from '../../storage/leader-epoch-checkpoint.js';
import type { LogSegment } from './segment.js';

export {
  EARLIEST_LOCAL_TIMESTAMP,
  EARLIEST_TIMESTAMP,
  LATEST_TIERED_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type TimestampAndOffset,
} from './list-offsets.js';

export interface PartitionLogOptions {
  /** the partition directory `<logDir>/<topic>-<partition>` (created if missing) */
  dir: string;
  topic: string;
  partition: number;
  config?: LogConfig;
  clock?: () => number;
  logger?: LogLogger;
  /** the log dir had `.kafka_cleanshutdown`: trust the files, skip recovery */
  hadCleanShutdown?: boolean;
  /** from recovery-point-offset-checkpoint */
  recoveryPoint?: number;
  /** from log-start-offset-checkpoint */
  logStartOffset?: number;
  /** from replication-offset-checkpoint */
  highWatermark?: number;
  /** topic id (22-char base64); written to partition.metadata, checked against an existing one */
  topicId?: string;
  /** told of an I/O error on the log's directory (LogManager takes the directory offline) */
  onLogDirFailure?: LogDirFailureHandler;
  /** how loading reads the small files (syncLoadIO for the logs found at start-up; default fs/promises) */
  io?: LoadIO;
}

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  /** broker time stamped on the batches when message.timestamp.type=LogAppendTime, else -1 */
  logAppendTime: number;
  maxTimestamp: number;
  shallowOffsetOfMaxTimestamp: number;
  logStartOffset: number;
  validBytes: number;
}

export interface ReadOptions {
  /** exclusive upper bound (high watermark, last stable offset, ...); default: log end offset */
  maxOffset?: number;
  /** return the first batch even if it is larger than maxBytes (KIP-74) */
  minOneMessage?: boolean;
}

/** A read whose bytes may still be in the file (readLazy): `records` is then the file range. */
export type LazyReadResult = Omit<ReadResult, 'records'> & { records: Buffer | FileSlice };

export interface ReadResult {
  error?: 'OFFSET_OUT_OF_RANGE';
  /** bytes exactly as stored (may end in a partial batch); empty when there is nothing to return */
  records: Buffer;
  highWatermark: number;
  logStartOffset: number;
  logEndOffset: number;
  firstEntryIncomplete: boolean;
}

/** Splits a buffer of v2 batches into their header views (position = offset in `buf`), checking the framing. */
function parseBatches(buf: Buffer): StoredBatch[] {
  const out: StoredBatch[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const avail = buf.length - pos;
    if (avail < RECORD_BATCH_OVERHEAD) throw new InvalidRecordError(`truncated record batch at ${pos}`);
    const b = parseBatchHeader(buf, pos, avail, pos);
    if (b.size < RECORD_BATCH_OVERHEAD || b.size > avail)
      throw new InvalidRecordError(`invalid batch length at ${pos}`);
    if (b.magic !== 2) throw new InvalidRecordError(`only magic 2 batches can be appended (found ${b.magic})`);
    if (b.lastOffset < b.baseOffset) throw new InvalidRecordError(`negative lastOffsetDelta at ${pos}`);
    out.push(b);
    pos += b.size;
  }
  return out;
}

/**
 * Asked on the log's queue just before a leader append: the leader epoch to stamp, or null when the
 * partition is no longer led here (a role change queued before the append ran first).
 */
export type RoleGuard = () => number | null;

export class PartitionLog extends LocalLog {
  private _epochCache: LeaderEpochCache;
  private _logStartOffset: number;
  private _highWatermark: number;
  private hwMeta: OffsetMetadata | undefined;
  private _topicId: string | undefined;
  /** idempotent/transactional producer state, `.snapshot` and `.txnindex` files (EOS) */
  private _producerState: ProducerStateManager;
  /** bumped when a future log's segments replace this log's (a read that overlaps one is retried) */
  private generation = 0;
  /** the segments a future log replaced: still readable by reads in flight, closed after file.delete.delay.ms */
  private readonly retired = new Map<
    ReturnType<typeof setTimeout>,
    { segs: LogSegment[]; dir: string; deleting?: Promise<void> }
  >();
  /** what loading did: bytes truncated from torn/corrupt tails and segments rebuilt */
  readonly loadStats: { truncatedBytes: number; recoveredSegments: number };

  private constructor(
    o: PartitionLogOptions,
    epochCache: LeaderEpochCache,
    loaded: Awaited<ReturnType<typeof loadLog>>,
    topicId: string | undefined,
    producerState: ProducerStateManager,
  ) {
    super({
      topic: o.topic,
      partition: o.partition,
      dir: o.dir,
      config: o.config ?? makeLogConfig(),
      clock: o.clock ?? Date.now,
      logger: o.logger ?? silentLogger,
      segments: loaded.segments,
      logEndOffset: loaded.logEndOffset,
      recoveryPoint: loaded.recoveryPoint,
      onLogDirFailure: o.onLogDirFailure,
    });
    this._epochCache = epochCache;
    this._logStartOffset = loaded.logStartOffset;
    this._topicId = topicId;
    this._highWatermark = this.clampHw(o.highWatermark ?? this._logStartOffset);
    this.loadStats = { truncatedBytes: loaded.truncatedBytes, recoveredSegments: loaded.recoveredSegments };
    this._producerState = producerState;
  }

  /** Opens (creating if needed) the partition directory and loads it (Kafka's LogLoader). */
  static async open(o: PartitionLogOptions): Promise<PartitionLog> {
    const io = o.io ?? asyncLoadIO;
    await io.ensureDir(o.dir);
    const stored = await readPartitionMetadata(o.dir, io);
    if (o.topicId !== undefined && stored !== undefined && stored !== o.topicId) {
      throw new InconsistentTopicIdError(
        `Tried to assign topic ID ${o.topicId} to log for topic partition ${o.topic}-${o.partition}, but log already contained topic ID ${stored}`,
      );
    }
    const epochCache = await LeaderEpochCache.load(o.dir, io);
    const loaded = await loadLog({
      dir: o.dir,
      config: o.config ?? makeLogConfig(),
      clock: o.clock ?? Date.now,
      hadCleanShutdown: o.hadCleanShutdown ?? false,
      recoveryPointCheckpoint: o.recoveryPoint ?? 0,
      logStartOffsetCheckpoint: o.logStartOffset ?? 0,
      epochCache,
      logger: o.logger ?? silentLogger,
      io,
      onAsyncFlushError: (e) => {
        const message = `Error while writing to checkpoint file ${leaderEpochCheckpointFile(o.dir)}`;
        if (o.onLogDirFailure) o.onLogDirFailure(o.dir, message, e);
        else (o.logger ?? silentLogger).warn(`${message}: ${e.message}`);
      },
    });
    if (o.topicId !== undefined && stored === undefined) await writePartitionMetadata(o.dir, o.topicId);
    const producerState = await ProducerStateManager.load({
      dir: o.dir,
      topicPartition: `${o.topic}-${o.partition}`,
      segments: loaded.segments,
      logStartOffset: loaded.logStartOffset,
      logEndOffset: loaded.logEndOffset,
      clock: o.clock ?? Date.now,
      logger: o.logger ?? silentLogger,
      txnIndexRebuildFrom: loaded.txnIndexRebuildFrom,
      io,
      files: loaded.files,
    });
    return new PartitionLog(o, epochCache, loaded, o.topicId ?? stored, producerState);
  }

  get logStartOffset(): number {
    return this._logStartOffset;
  }
  get highWatermark(): number {
    return this._highWatermark;
  }
  get topicId(): string | undefined {
    return this._topicId;
  }
  get epochCache(): LeaderEpochCache {
    return this._epochCache;
  }
  get producerState(): ProducerStateManager {
    return this._producerState;
  }

  async assignTopicId(topicId: string): Promise<void> {
    if (this._topicId === topicId) return;
    if (this._topicId !== undefined)
      throw new InconsistentTopicIdError(
        `log for ${this.topic}-${this.partition} already has topic ID ${this._topicId}`,
      );
    await writePartitionMetadata(this._dir, topicId);
    this._topicId = topicId;
  }

  protected override onSegmentsChanged(): void {
    this.hwMeta = undefined;
  }

  protected override onDirRenamed(newDir: string): void {
    this.epochCache.updateDir(newDir);
    this.producerState.updateDir(newDir);
  }

  /** Rolls, then snapshots the producer state at the new segment's base offset (UnifiedLog.roll). */
  protected override async rollLocked(expectedNextOffset?: number): Promise<LogSegment> {
    this.ensureOpen();
    const seg = await super.rollLocked(expectedNextOffset);
    await this.producerState.takeSnapshot(seg.baseOffset, this.segs[0]!.baseOffset);
    return seg;
  }

  /** Clean close: a producer-state snapshot at the log end offset first; replaced segments closed now. */
  override async close(): Promise<void> {
    await this.queue.run(async () => {
      if (!this.closed)
        await this.guardIO(
          () => `Error while taking a producer state snapshot for ${this.inDir()}`,
          () => this.producerState.takeSnapshot(this.leo.offset, this.segs[0]!.baseOffset),
        );
      await this.completeRetiredDeletes();
      // a checkpoint write the load left in the background (truncateFromEndAsyncFlush) ends first
      await this.epochCache.flushed();
    });
    return super.close();
  }

  // ---- future log (KIP-113: moving a replica between log directories) ----

  /**
   * Whether a future log of this partition (`future`, filled from this log) has everything this log
   * has. Asked on this log's queue by `replaceWithFutureLocked`'s caller.
   */
  isCaughtUpBy(future: PartitionLog): boolean {
    return future.leo.offset === this.leo.offset && future._logStartOffset <= this._logStartOffset;
  }

  /**
   * Kafka's LogManager.replaceCurrentWithFutureLog + Partition's log swap, in place: this object
   * stays the partition's log (every holder keeps it) and takes over the future log's segments,
   * epoch cache, producer state and directory. Must run on this log's queue (no append between the
   * caller's catch-up check and the swap) once `isCaughtUpBy(future)`. The old directory is renamed
   * to `deleteDir` (`<topic>-<partition>.<uuid>-delete`), the future's to `finalDir`; the old
   * segments stay open for reads in flight and are closed and removed after file.delete.delay.ms.
   * The high watermark and log start offset are this log's.
   */
  async replaceWithFutureLocked(future: PartitionLog, deleteDir: string, finalDir: string): Promise<void> {
    this.ensureOpen();
    future.ensureOpen();
    if (!this.isCaughtUpBy(future))
      throw new Error(`future log of ${this.topic}-${this.partition} has not caught up with the current log`);
    await future.queue.run(async () => {
      // epochs that began here without a record yet (a new leader epoch) are not in the future's cache
      const futureLatest = future._epochCache.latestEpoch() ?? -1;
      for (const e of this._epochCache.entries())
        if (e.epoch > futureLatest) await future._epochCache.assign(e.epoch, e.startOffset);
      await future.flushUpTo(future.leo.offset, true);
      // Kafka's order: the future becomes `<topic>-<partition>` first, then the current `-delete`. A crash
      // in between leaves two current dirs, which loading refuses (no copy is thrown away unseen)
      const oldSegs = this.segs;
      await fsp.rename(future._dir, finalDir);
      await fsyncDir(path.dirname(finalDir));
      for (const s of future.segs) s.updateParentDir(finalDir);
      await fsp.rename(this._dir, deleteDir);
      await fsyncDir(path.dirname(deleteDir));
      for (const s of oldSegs) s.updateParentDir(deleteDir);
      future._epochCache.updateDir(finalDir);
      future._producerState.updateDir(finalDir);
      if (this._topicId !== undefined && future._topicId === undefined)
        await writePartitionMetadata(finalDir, this._topicId);
      this.segs = future.segs;
      this.leo = future.leo;
      this._recoveryPoint = Math.min(future._recoveryPoint, this.leo.offset);
      this._epochCache = future._epochCache;
      this._producerState = future._producerState;
      this._producerState.onLogStartOffsetIncremented(this._logStartOffset);
      this._dir = finalDir;
      this.generation++;
      this.onSegmentsChanged();
      // the future object is spent: its segments are this log's now
      future.closed = true;
      future.segs = [];
      this.retire({ segs: oldSegs, dir: deleteDir });
    });
  }

  private retire(r: { segs: LogSegment[]; dir: string }): void {
    const timer = setTimeout(() => void this.dropRetired(timer), Math.max(this._config.fileDeleteDelayMs, 0));
    timer.unref?.();
    this.retired.set(timer, r);
  }

  /** Closes the replaced segments and removes their directory (once, however often it is asked). */
  private dropRetired(timer: ReturnType<typeof setTimeout>): Promise<void> {
    clearTimeout(timer);
    const r = this.retired.get(timer);
    if (!r) return Promise.resolve();
    r.deleting ??= (async () => {
      for (const s of r.segs) await s.close().catch(() => undefined);
      await fsp.rm(r.dir, { recursive: true, force: true });
    })()
      .catch((e: unknown) => this.logger.warn(`Error deleting ${r.dir}: ${(e as Error).message}`))
      .finally(() => this.retired.delete(timer));
    return r.deleting;
  }

  /** Deletes the replaced segments now (close, tests; the broker waits file.delete.delay.ms). */
  async completeRetiredDeletes(): Promise<void> {
    for (const timer of [...this.retired.keys()]) await this.dropRetired(timer);
  }

  // ---- high watermark / log start offset ----

  private clampHw(hw: number): number {
    return Math.min(Math.max(hw, this._logStartOffset), this.leo.offset);
  }

  /** Sets the high watermark, clamped to [logStartOffset, logEndOffset]; returns the value set. */
  updateHighWatermark(hw: number): number {
    const v = this.clampHw(hw);
    if (v !== this._highWatermark) {
      this._highWatermark = v;
      this.hwMeta = undefined;
    }
    return v;
  }

  /** Raises the high watermark if hw is larger; returns true if it moved. */
  maybeIncrementHighWatermark(hw: number): boolean {
    if (this.clampHw(hw) <= this._highWatermark) return false;
    this.updateHighWatermark(hw);
    return true;
  }

  private async maybeIncrementLogStartOffset(newLogStartOffset: number): Promise<boolean> {
    if (newLogStartOffset > this._highWatermark) {
      throw new OffsetOutOfRangeError(
        `Cannot increment the log start offset to ${newLogStartOffset} of partition ${this.topic}-${this.partition} since it is larger than the high watermark ${this._highWatermark}`,
      );
    }
    if (newLogStartOffset <= this._logStartOffset) return false;
    this._logStartOffset = newLogStartOffset;
    this.producerState.onLogStartOffsetIncremented(newLogStartOffset);
    if (this._highWatermark < newLogStartOffset) this.updateHighWatermark(newLogStartOffset);
    if (this._recoveryPoint < newLogStartOffset) this._recoveryPoint = newLogStartOffset;
    await this.epochCache.truncateFromStart(newLogStartOffset);
    return true;
  }

  /**
   * DeleteRecords: moves the log start offset to `offset` (-1 = the high watermark); segments
   * wholly below it go at the next deleteOldSegments(). Returns the new low watermark; throws
   * OffsetOutOfRangeError beyond the high watermark.
   */
  deleteRecordsBefore(offset: number): Promise<number> {
    return this.queue.run(async () => {
      this.ensureOpen();
      const target = offset === -1 ? this._highWatermark : offset;
      if (target < 0) throw new OffsetOutOfRangeError(`invalid delete offset ${offset}`);
      await this.maybeIncrementLogStartOffset(target);
      return this._logStartOffset;
    });
  }

  // ---- append ----

  /**
   * Appends validated client batches as the partition leader: writes baseOffset and
   * partitionLeaderEpoch into each batch header in place (outside the CRC), stamps LogAppendTime
   * when configured (recomputing the CRC), updates the epoch cache, rolls if needed, appends.
   */
  appendAsLeader(batches: Buffer, leaderEpoch: number | RoleGuard): Promise<AppendResult> {
    return this.queue.run(() => {
      const epoch = typeof leaderEpoch === 'number' ? leaderEpoch : leaderEpoch();
      if (epoch === null) throw new NotLeaderOrFollowerError(`${this.topic}-${this.partition} is no longer led here`);
      return this.guardIO(
        () => `Error while appending records to ${this.inDir()}`,
        () => this.doAppend(batches, epoch, true),
      );
    });
  }

  /**
   * Appends batches whose offsets a leader assigned (replication); offsets must not go backwards.
   * `stillFollower`, when given, is asked on the log's queue (after any role change queued before).
   */
  appendAsFollower(batches: Buffer, stillFollower?: () => boolean): Promise<AppendResult> {
    return this.queue.run(() => {
      if (stillFollower && !stillFollower())
        throw new NotLeaderOrFollowerError(`${this.topic}-${this.partition} is no longer this follower`);
      return this.guardIO(
        () => `Error while appending records to ${this.inDir()}`,
        () => this.doAppend(batches, -1, false),
      );
    });
  }

  private async doAppend(buf: Buffer, leaderEpoch: number, assignOffsets: boolean): Promise<AppendResult> {
    this.ensureOpen();
    const parsed = parseBatches(buf);
    if (parsed.length === 0) {
      return {
        baseOffset: -1,
        lastOffset: -1,
        logAppendTime: -1,
        maxTimestamp: -1,
        shallowOffsetOfMaxTimestamp: -1,
        logStartOffset: this._logStartOffset,
        validBytes: 0,
      };
    }
    const now = this.clock();
    const logAppendTime = assignOffsets && this._config.messageTimestampType === 'LogAppendTime';
    let firstOffset: number;
    let next: number;
    let maxTimestamp = -1;
    let shallow = -1;
    if (assignOffsets) {
      firstOffset = next = this.leo.offset;
      for (const b of parsed) {
        const last = next + (b.lastOffset - b.baseOffset);
        setBaseOffset(buf, b.position, next);
        setPartitionLeaderEpoch(buf, b.position, leaderEpoch);
        b.baseOffset = next;
        b.lastOffset = last;
        b.partitionLeaderEpoch = leaderEpoch;
        if (logAppendTime) {
          setLogAppendTime(buf, b.position, now);
          b.maxTimestamp = now;
        }
        if (b.maxTimestamp > maxTimestamp) {
          maxTimestamp = b.maxTimestamp;
          shallow = last;
        }
        next = last + 1;
      }
      if (logAppendTime) shallow = next - 1;
    } else {
      firstOffset = parsed[0]!.baseOffset;
      next = firstOffset;
      for (const b of parsed) {
        if (b.baseOffset < next)
          throw new InvalidRecordError(`Out of order offsets found in append to ${this.topic}-${this.partition}`);
        if (b.maxTimestamp > maxTimestamp) {
          maxTimestamp = b.maxTimestamp;
          shallow = b.lastOffset;
        }
        next = b.lastOffset + 1;
      }
      if (firstOffset < this.leo.offset) {
        throw new UnexpectedAppendOffsetError(
          `Unexpected offset in append to ${this.topic}-${this.partition}. First offset ${firstOffset} is less than the next offset ${this.leo.offset}.`,
          firstOffset,
          next - 1,
        );
      }
    }
    const lastOffset = next - 1;
    if (buf.length > this._config.segmentBytes) {
      throw new RecordBatchTooLargeError(
        `Message batch size is ${buf.length} bytes in append to partition ${this.topic}-${this.partition}, which exceeds the maximum configured segment size of ${this._config.segmentBytes}.`,
      );
    }
    let segment = this.activeSegment;
    const roll = await segment.shouldRoll({
      maxSegmentMs: maxSegmentMs(this._config),
      maxSegmentBytes: this._config.segmentBytes,
      maxTimestampInMessages: maxTimestamp,
      maxOffsetInMessages: lastOffset,
      messagesSize: buf.length,
      now,
    });
    if (roll) segment = await this.rollLocked(firstOffset);
    // all or nothing: the data is written (or cut back to the previous end and the error thrown)
    // before the epoch cache, the log end offset and the producer state learn of it
    await segment.append(lastOffset, maxTimestamp, shallow, buf);
    for (const b of parsed) {
      if (b.partitionLeaderEpoch >= 0) await this.epochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
    }
    this.leo = { offset: lastOffset + 1, segmentBase: segment.baseOffset, position: segment.size };
    await this.producerState.onAppended(buf, segment.baseOffset, this.leo.offset);
    if (this.unflushedMessages >= this._config.flushMessages) await this.flushUpTo(this.leo.offset, false);
    return {
      baseOffset: firstOffset,
      lastOffset,
      logAppendTime: logAppendTime ? now : -1,
      maxTimestamp,
      shallowOffsetOfMaxTimestamp: shallow,
      logStartOffset: this._logStartOffset,
      validBytes: buf.length,
    };
  }

  // ---- read / ListOffsets ----

  /**
   * Reads from fetchOffset (Kafka's UnifiedLog.read): up to maxBytes (or the whole first batch
   * with minOneMessage), never past maxOffset. The bytes come from one file read and are meant to
   * be sent as they are. OFFSET_OUT_OF_RANGE outside [logStartOffset, logEndOffset].
   */
  async read(fetchOffset: number, maxBytes: number, opts: ReadOptions = {}): Promise<ReadResult> {
    return (await this.readGuarded(fetchOffset, maxBytes, opts, false)) as ReadResult;
  }

  /**
   * read, leaving the bytes in the file: `records` is the range (a FileSlice) when there are any,
   * read when the response is written, as Kafka sends a FileRecords slice with transferTo. The
   * segment stays readable until it is deleted, file.delete.delay.ms after it left the log.
   */
  readLazy(fetchOffset: number, maxBytes: number, opts: ReadOptions = {}): Promise<LazyReadResult> {
    return this.readGuarded(fetchOffset, maxBytes, opts, true);
  }

  private async readGuarded(
    fetchOffset: number,
    maxBytes: number,
    opts: ReadOptions,
    lazy: boolean,
  ): Promise<LazyReadResult> {
    // a future log's segments replaced these while reading (positions differ): read again, a bounded number of times
    for (let attempt = 0; ; attempt++) {
      const generation = this.generation;
      const r = await this.readRetryingClosed(fetchOffset, maxBytes, opts, lazy);
      if (generation === this.generation || attempt >= 2) return r;
    }
  }

  private async readRetryingClosed(
    fetchOffset: number,
    maxBytes: number,
    opts: ReadOptions,
    lazy: boolean,
  ): Promise<LazyReadResult> {
    try {
      return await this.guardIO(
        () => `Exception while reading from ${this.inDir()}`,
        () => this.readOnce(fetchOffset, maxBytes, opts, lazy),
      );
    } catch (e) {
      // a segment was deleted under us (retention, cleaning): the segment list has moved on, retry once
      if (e instanceof SegmentClosedError && !this.closed) return this.readOnce(fetchOffset, maxBytes, opts, lazy);
      throw e;
    }
  }

  private async readOnce(
    fetchOffset: number,
    maxBytes: number,
    opts: ReadOptions,
    lazy: boolean,
  ): Promise<LazyReadResult> {
    this.ensureOpen();
    const endMeta = this.leo;
    const base = {
      highWatermark: this._highWatermark,
      logStartOffset: this._logStartOffset,
      logEndOffset: endMeta.offset,
      firstEntryIncomplete: false,
    };
    const empty = Buffer.alloc(0);
    if (fetchOffset < this._logStartOffset || fetchOffset > endMeta.offset || this.floorSegmentIndex(fetchOffset) < 0) {
      return { ...base, error: 'OFFSET_OUT_OF_RANGE', records: empty };
    }
    const maxOffset = Math.min(opts.maxOffset ?? endMeta.offset, endMeta.offset);
    if (fetchOffset >= maxOffset) return { ...base, records: empty };
    let maxMeta: OffsetMetadata;
    if (maxOffset === endMeta.offset) maxMeta = endMeta;
    else if (maxOffset === this._highWatermark) {
      if (!this.hwMeta || this.hwMeta.offset !== maxOffset) this.hwMeta = await this.offsetMetadataFor(maxOffset);
      maxMeta = this.hwMeta;
    } else maxMeta = await this.offsetMetadataFor(maxOffset);
    const r = await this.readSegments(fetchOffset, maxBytes, maxMeta, opts.minOneMessage ?? false, lazy);
    return r
      ? { ...base, records: r.records, firstEntryIncomplete: r.firstEntryIncomplete }
      : { ...base, records: empty };
  }

  /** ListOffsets: special timestamps (-1 latest, -2 earliest, -3 max, -4 earliest local, -5 latest tiered) or a time. */
  offsetForTimestamp(timestamp: number): Promise<TimestampAndOffset | undefined> {
    this.ensureOpen();
    return fetchOffsetByTimestamp(this, timestamp);
  }

  // ---- retention ----

  /**
   * Kafka's deleteOldSegments: always segments wholly below the log start offset; with
   * cleanup.policy=delete also segments past retention.bytes and retention.ms. Never beyond the
   * high watermark; the active segment only via a roll. Returns the number of segments deleted.
   */
  deleteOldSegments(): Promise<number> {
    return this.queue.run(() =>
      this.guardIO(
        () => `Error while deleting segments for ${this.inDir()}`,
        () => this.deleteOldSegmentsLocked(),
      ),
    );
  }

  private async deleteOldSegmentsLocked(): Promise<number> {
    if (this.closed) return 0;
    let n = await this.deleteMatching(
      async (_s, next) => next !== undefined && next.baseOffset <= this._logStartOffset,
    );
    if (!this._config.delete) return n;
    const retentionBytes = this._config.retentionBytes;
    if (retentionBytes >= 0 && this.size >= retentionBytes) {
      let diff = this.size - retentionBytes;
      n += await this.deleteMatching(async (s) => {
        if (diff - s.size < 0) return false;
        diff -= s.size;
        return true;
      });
    }
    const retentionMs = this._config.retentionMs;
    if (retentionMs >= 0) {
      const startMs = this.clock();
      n += await this.deleteMatching(async (s) => startMs - (await s.largestTimestamp()) > retentionMs);
    }
    return n;
  }

  private async deleteMatching(
    predicate: (s: LogSegment, next: LogSegment | undefined) => Promise<boolean>,
  ): Promise<number> {
    const deletable: LogSegment[] = [];
    for (let i = 0; i < this.segs.length; i++) {
      const seg = this.segs[i]!;
      const next = this.segs[i + 1];
      const isLastAndEmpty = next === undefined && seg.size === 0;
      const upperBound = next ? next.baseOffset : this.leo.offset;
      const ok = this._highWatermark >= upperBound && (await predicate(seg, next));
      if (!ok || isLastAndEmpty) break;
      deletable.push(seg);
    }
    if (deletable.length === 0) return 0;
    let toDelete = deletable;
    if (this.segs.length === deletable.length) {
      // always keep one segment: roll first when every segment goes
      const newSeg = await this.rollLocked();
      if (deletable[deletable.length - 1]!.baseOffset === newSeg.baseOffset) toDelete = deletable.slice(0, -1);
    }
    if (toDelete.length > 0) {
      const lastBase = toDelete[toDelete.length - 1]!.baseOffset;
      const higher = this.segs.find((s) => s.baseOffset > lastBase)!;
      await this.maybeIncrementLogStartOffset(higher.baseOffset);
      const gone = new Set(toDelete);
      this.segs = this.segs.filter((s) => !gone.has(s));
      await this.deleteSegmentFiles(toDelete, true);
      this.logger.info(
        `Deleted ${toDelete.length} segment(s) of ${this.topic}-${this.partition}; log start offset ${this._logStartOffset}`,
      );
    }
    return deletable.length;
  }

  // ---- truncation ----

  /** Truncates so the log ends before targetOffset (replication). Returns true if data was removed. */
  truncateTo(targetOffset: number, stillFollower?: () => boolean): Promise<boolean> {
    return this.queue.run(() =>
      this.guardIO(
        () => `Error while truncating log to offset ${targetOffset} for ${this.inDir()}`,
        () => this.truncateToLocked(targetOffset, stillFollower),
      ),
    );
  }

  private async truncateToLocked(targetOffset: number, stillFollower?: () => boolean): Promise<boolean> {
    this.ensureOpen();
    if (stillFollower && !stillFollower())
      throw new NotLeaderOrFollowerError(`${this.topic}-${this.partition} is no longer this follower`);
    if (targetOffset < 0)
      throw new RangeError(
        `Cannot truncate partition ${this.topic}-${this.partition} to a negative offset (${targetOffset}).`,
      );
    if (targetOffset >= this.leo.offset) {
      await this.epochCache.truncateFromEnd(this.leo.offset);
      return false;
    }
    if (this.segs[0]!.baseOffset > targetOffset) {
      await this.truncateFullyAndStartAtLocked(targetOffset);
      return true;
    }
    const deletable = this.segs.filter((s) => s.baseOffset > targetOffset);
    this.segs = this.segs.filter((s) => s.baseOffset <= targetOffset);
    await this.deleteSegmentFiles(deletable, true);
    await this.activeSegment.truncateTo(targetOffset);
    this.setLogEndOffset(targetOffset);
    await this.epochCache.truncateFromEnd(targetOffset);
    this._logStartOffset = Math.min(targetOffset, this._logStartOffset);
    await this.producerState.truncateAndReload(this.segs, this._logStartOffset, targetOffset);
    if (this._highWatermark >= this.leo.offset) this._highWatermark = this.leo.offset;
    this.hwMeta = undefined;
    return true;
  }

  /** Deletes all data and starts the log at newOffset. */
  truncateFullyAndStartAt(newOffset: number, logStartOffset?: number, stillFollower?: () => boolean): Promise<void> {
    return this.queue.run(() => {
      if (stillFollower && !stillFollower())
        throw new NotLeaderOrFollowerError(`${this.topic}-${this.partition} is no longer this follower`);
      return this.guardIO(
        () => `Error while truncating the entire log for ${this.inDir()}`,
        () => this.truncateFullyAndStartAtLocked(newOffset, logStartOffset),
      );
    });
  }

  private async truncateFullyAndStartAtLocked(newOffset: number, logStartOffset?: number): Promise<void> {
    this.ensureOpen();
    const all = [...this.segs];
    const last = all[all.length - 1]!;
    this.segs = [last];
    await this.deleteSegmentFiles(all.slice(0, -1), true);
    await this.createAndDeleteSegment(newOffset, last);
    this.setLogEndOffset(newOffset);
    await this.epochCache.clear();
    await this.producerState.truncateFullyAndStartAt(newOffset);
    this._logStartOffset = logStartOffset ?? newOffset;
    this._highWatermark = this.leo.offset;
    this.hwMeta = undefined;
  }

  override toString(): string {
    return `PartitionLog(${this.topic}-${this.partition}, logStartOffset=${this._logStartOffset}, logEndOffset=${this.leo.offset}, highWatermark=${this._highWatermark})`;
  }
}
