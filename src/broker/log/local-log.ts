// The segment-level half of a partition log (Kafka's LocalLog): the ordered segment list, the log
// end offset with its file position, rolling, segment file deletion (rename to `.deleted`, unlink
// after file.delete.delay.ms), reads across segments, flushing and closing. PartitionLog builds
// the offset bookkeeping (log start offset, high watermark, epochs) on top of it.

import { logFlushTimes } from '../metrics/log-flush-stats.js';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fsyncDir, isIOError } from '../../storage/file-ops.js';
import type { LogConfig } from './log-config.js';
import { KafkaStorageError, type LogLogger } from './log-errors.js';
import { segmentConfigOf } from './log-loader.js';
import { LogSegment, type SegmentReadResult } from './segment.js';
import {
  CLEANED_FILE_SUFFIX,
  DELETED_FILE_SUFFIX,
  SWAP_FILE_SUFFIX,
  removeSegmentFiles,
} from '../../storage/log-file-names.js';
import { SerialQueue } from './serial-queue.js';

/** An offset with the segment and file position of the batch that contains it (LogOffsetMetadata). */
export interface OffsetMetadata {
  offset: number;
  segmentBase: number;
  position: number;
}

export interface LocalLogInit {
  topic: string;
  partition: number;
  dir: string;
  config: LogConfig;
  clock: () => number;
  logger: LogLogger;
  segments: LogSegment[];
  logEndOffset: number;
  recoveryPoint: number;
  onLogDirFailure?: LogDirFailureHandler;
}

/**
 * Kafka's LogDirFailureChannel.maybeAddOfflineLogDir as seen from one log: told the partition
 * directory and the I/O error (with Kafka's message) that failed an operation on it.
 */
export type LogDirFailureHandler = (partitionDir: string, message: string, error: Error) => void;

export class LocalLog {
  readonly topic: string;
  readonly partition: number;
  /** serialises every mutation of this log */
  readonly queue = new SerialQueue();
  protected _dir: string;
  protected _config: LogConfig;
  protected readonly clock: () => number;
  protected readonly logger: LogLogger;
  protected segs: LogSegment[];
  protected leo: OffsetMetadata;
  protected _recoveryPoint: number;
  protected _lastFlushTime: number;
  protected closed = false;
  /** the log directory failed: every operation answers KAFKA_STORAGE_ERROR */
  private offline = false;
  private readonly onLogDirFailure: LogDirFailureHandler | undefined;
  private pendingDeletes = new Map<ReturnType<typeof setTimeout>, LogSegment[]>();

  protected constructor(i: LocalLogInit) {
    this.topic = i.topic;
    this.partition = i.partition;
    this._dir = i.dir;
    this._config = i.config;
    this.clock = i.clock;
    this.logger = i.logger;
    this.segs = i.segments;
    const active = this.segs[this.segs.length - 1]!;
    this.leo = { offset: i.logEndOffset, segmentBase: active.baseOffset, position: active.size };
    this._recoveryPoint = i.recoveryPoint;
    this._lastFlushTime = this.clock();
    this.onLogDirFailure = i.onLogDirFailure;
  }

  get dir(): string {
    return this._dir;
  }
  get config(): LogConfig {
    return this._config;
  }
  get logEndOffset(): number {
    return this.leo.offset;
  }
  /** offset up to which data is known flushed; recovery on unclean restart starts here */
  get recoveryPoint(): number {
    return this._recoveryPoint;
  }
  get lastFlushTime(): number {
    return this._lastFlushTime;
  }
  get segments(): readonly LogSegment[] {
    return this.segs;
  }
  get activeSegment(): LogSegment {
    return this.segs[this.segs.length - 1]!;
  }
  get numberOfSegments(): number {
    return this.segs.length;
  }
  /** total bytes of all segments */
  get size(): number {
    return this.segs.reduce((n, s) => n + s.size, 0);
  }
  get isClosed(): boolean {
    return this.closed;
  }
  /** messages appended since the last flush */
  get unflushedMessages(): number {
    return this.leo.offset - this._recoveryPoint;
  }

  updateConfig(config: LogConfig): void {
    this._config = config;
  }

  protected ensureOpen(): void {
    // ReplicaManager.getPartitionOrException's answer for a partition in a failed directory
    if (this.offline)
      throw new KafkaStorageError(`Partition ${this.topic}-${this.partition} is in an offline log directory`);
    if (this.closed) throw new Error(`log for ${this.topic}-${this.partition} is closed`);
  }

  /** Whether this log's directory failed (its handles are released, every operation fails). */
  get isOffline(): boolean {
    return this.offline;
  }

  /**
   * Kafka's UnifiedLog.maybeHandleIOException: an I/O error of `fn` reports the directory as failed
   * (LogDirFailureChannel) and is rethrown as KafkaStorageError(`message`); other errors pass.
   */
  protected async guardIO<T>(message: () => string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (!isIOError(e)) throw e;
      const msg = message();
      this.reportIOError(msg, e);
      throw new KafkaStorageError(`${msg}: ${e.message}`);
    }
  }

  /** Hands an I/O error on this log's directory to the failure handler (once the log is offline, no more). */
  protected reportIOError(message: string, e: Error): void {
    if (this.offline) return;
    if (this.onLogDirFailure) this.onLogDirFailure(this._dir, message, e);
    else this.logger.warn(`${message}: ${e.message}`);
  }

  /** `in dir <log dir>`, as Kafka's messages name the parent directory. */
  protected inDir(): string {
    return `${this.topic}-${this.partition} in dir ${path.dirname(this._dir)}`;
  }

  /**
   * The directory failed (LogManager.handleLogDirFailure → UnifiedLog.closeHandlers): from now on
   * every operation answers KAFKA_STORAGE_ERROR; the file handles are released once the operation
   * running on the log's queue ends, without trimming or a final index entry (no clean close).
   */
  markOffline(): Promise<void> {
    if (this.offline) return Promise.resolve();
    this.offline = true;
    return this.queue.run(async () => {
      const wasClosed = this.closed;
      this.closed = true;
      for (const [timer] of this.pendingDeletes) clearTimeout(timer);
      this.pendingDeletes.clear();
      if (!wasClosed) for (const s of this.segs) await s.closeHandlers().catch(() => undefined);
    });
  }

  protected floorSegmentIndex(offset: number): number {
    let lo = 0;
    let hi = this.segs.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.segs[mid]!.baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  floorSegment(offset: number): LogSegment | undefined {
    const i = this.floorSegmentIndex(offset);
    return i < 0 ? undefined : this.segs[i];
  }

  /** Segments overlapping [from, to) (Kafka's LogSegments.values(from, to)). */
  segmentsInRange(from: number, to: number): LogSegment[] {
    if (from === to) return [];
    const start = Math.max(0, this.floorSegmentIndex(from));
    return this.segs.slice(start).filter((s) => s.baseOffset < to);
  }

  protected setLogEndOffset(offset: number): void {
    const active = this.activeSegment;
    this.leo = { offset, segmentBase: active.baseOffset, position: active.size };
    if (this._recoveryPoint > offset) this._recoveryPoint = offset;
  }

  // ---- roll / delete ----

  /** Rolls to a new active segment at max(expectedNextOffset, logEndOffset) (queued). */
  roll(expectedNextOffset?: number): Promise<LogSegment> {
    return this.queue.run(() =>
      this.guardIO(
        () => `Error while rolling log segment for ${this.inDir()}`,
        () => this.rollLocked(expectedNextOffset),
      ),
    );
  }

  protected async rollLocked(expectedNextOffset?: number): Promise<LogSegment> {
    this.ensureOpen();
    const newOffset = Math.max(expectedNextOffset ?? 0, this.leo.offset);
    const active = this.activeSegment;
    if (this.segs.some((s) => s.baseOffset === newOffset)) {
      if (active.baseOffset === newOffset && active.size === 0) {
        // KAFKA-6388: an empty active segment whose index claims to be full
        this.logger.warn(
          `Trying to roll a new log segment with start offset ${newOffset} while it already exists and is active with size 0`,
        );
        const seg = await this.createAndDeleteSegment(newOffset, active);
        this.leo = { ...this.leo, segmentBase: seg.baseOffset, position: seg.size };
        return seg;
      }
      throw new Error(
        `Trying to roll a new log segment for ${this.topic}-${this.partition} with start offset ${newOffset} while it already exists.`,
      );
    }
    if (newOffset < active.baseOffset) {
      throw new Error(
        `Trying to roll a new log segment for ${this.topic}-${this.partition} with start offset ${newOffset} lower than start offset of the active segment ${active.baseOffset}`,
      );
    }
    await removeSegmentFiles(this._dir, newOffset);
    await active.onBecomeInactiveSegment();
    const seg = await LogSegment.open(this._dir, newOffset, segmentConfigOf(this._config), this.clock);
    this.segs.push(seg);
    this.leo = { ...this.leo, segmentBase: seg.baseOffset, position: seg.size };
    this.logger.info(`Rolled new log segment for ${this.topic}-${this.partition} at offset ${newOffset}`);
    // flush the rolled segment in the background, like Kafka's scheduled "flush-log" task
    void this.flushUpTo(newOffset, false).catch((e: unknown) => {
      if (isIOError(e)) this.reportIOError(`Error while flushing log for ${this.inDir()} with offset ${newOffset}`, e);
      else this.logger.warn(`flush after roll failed: ${(e as Error).message}`);
    });
    return seg;
  }

  protected async createAndDeleteSegment(newOffset: number, toDelete: LogSegment): Promise<LogSegment> {
    if (newOffset === toDelete.baseOffset) await toDelete.changeFileSuffixes('', DELETED_FILE_SUFFIX);
    const seg = await LogSegment.open(this._dir, newOffset, segmentConfigOf(this._config), this.clock);
    const i = this.segs.indexOf(toDelete);
    if (newOffset === toDelete.baseOffset && i >= 0) this.segs[i] = seg;
    else {
      if (i >= 0) this.segs.splice(i, 1);
      this.segs.push(seg);
      this.segs.sort((a, b) => a.baseOffset - b.baseOffset);
    }
    await this.deleteSegmentFiles([toDelete], true);
    return seg;
  }

  /** Renames to `.deleted`, then unlinks after file.delete.delay.ms (immediately when 0 or !asyncDelete). */
  protected async deleteSegmentFiles(segments: LogSegment[], asyncDelete: boolean): Promise<void> {
    for (const s of segments)
      if (!s.hasSuffix(DELETED_FILE_SUFFIX)) await s.changeFileSuffixes('', DELETED_FILE_SUFFIX);
    const del = async (): Promise<void> => {
      for (const s of segments) await s.deleteIfExists();
    };
    const delay = this._config.fileDeleteDelayMs;
    if (!asyncDelete || delay <= 0) return del();
    const timer = setTimeout(() => {
      this.pendingDeletes.delete(timer);
      del().catch((e: unknown) => {
        // LocalLog.deleteSegmentFiles: maybeHandleIOException around the deletion
        if (isIOError(e)) this.reportIOError(`Error while deleting segments for ${this.inDir()}`, e);
        else this.logger.warn(`Error deleting segments: ${(e as Error).message}`);
      });
    }, delay);
    timer.unref?.();
    this.pendingDeletes.set(timer, segments);
  }

  /** Runs the scheduled segment deletions now (shutdown, tests). */
  async completePendingDeletes(): Promise<void> {
    const pending = [...this.pendingDeletes];
    this.pendingDeletes.clear();
    for (const [timer, segs] of pending) {
      clearTimeout(timer);
      for (const s of segs) await s.deleteIfExists();
    }
  }

  /**
   * Swaps cleaned segments (files suffixed `.cleaned`) in for `oldSegments`, crash-safely
   * (Kafka's replaceSegments): .cleaned → .swap, old → .deleted, .swap → final names.
   */
  async replaceSegments(newSegments: LogSegment[], oldSegments: LogSegment[]): Promise<void> {
    const sortedNew = [...newSegments].sort((a, b) => a.baseOffset - b.baseOffset);
    const sortedOld = oldSegments.filter((s) => this.segs.includes(s)).sort((a, b) => a.baseOffset - b.baseOffset);
    for (const s of [...sortedNew].reverse()) await s.changeFileSuffixes(CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX);
    const gone = new Set<LogSegment>(sortedOld);
    this.segs = this.segs
      .filter((s) => !gone.has(s))
      .concat(sortedNew)
      .sort((a, b) => a.baseOffset - b.baseOffset);
    for (const s of sortedOld) await this.deleteSegmentFiles([s], true);
    for (const s of sortedNew) await s.changeFileSuffixes(SWAP_FILE_SUFFIX, '');
    await fsyncDir(this._dir);
    this.onSegmentsChanged();
  }

  /** hook: cached positions may be stale */
  protected onSegmentsChanged(): void {}

  // ---- read ----

  protected async offsetMetadataFor(offset: number): Promise<OffsetMetadata> {
    if (offset === this.leo.offset) return this.leo;
    const seg = this.floorSegment(offset);
    if (!seg) return { offset, segmentBase: -1, position: 0 };
    const t = await seg.translateOffset(offset);
    return { offset, segmentBase: seg.baseOffset, position: t ? t.position : seg.size };
  }

  /**
   * Kafka's LocalLog.read body: from the segment holding fetchOffset onwards, the first segment
   * that has data at or after it, bounded by maxMeta's position. undefined when nothing is found.
   */
  protected async readSegments(
    fetchOffset: number,
    maxBytes: number,
    maxMeta: OffsetMetadata,
    minOneMessage: boolean,
    lazy = false,
  ): Promise<SegmentReadResult | undefined> {
    const segs = this.segs;
    for (let i = Math.max(0, this.floorSegmentIndex(fetchOffset)); i < segs.length; i++) {
      const seg = segs[i]!;
      const maxPosition =
        seg.baseOffset < maxMeta.segmentBase
          ? seg.size
          : seg.baseOffset === maxMeta.segmentBase
            ? maxMeta.position
            : undefined;
      const r = await seg.read(fetchOffset, maxBytes, maxPosition, minOneMessage, lazy);
      if (r) return r;
    }
    return undefined;
  }

  // ---- flush / close ----

  /**
   * Flushes segments holding offsets below `offset` (through `offset` with includingOffset) and
   * moves the recovery point to `offset`.
   */
  async flushUpTo(offset: number, includingOffset: boolean): Promise<void> {
    const flushOffset = includingOffset ? offset + 1 : offset;
    const rp = this._recoveryPoint;
    if (flushOffset <= rp) return;
    const toFlush = this.segmentsInRange(rp, flushOffset);
    const started = performance.now();
    for (const s of toFlush) await s.flush();
    if (toFlush.some((s) => s.baseOffset >= rp)) await fsyncDir(this._dir);
    if (toFlush.length > 0) logFlushTimes.update(performance.now() - started);
    const newRp = Math.min(offset, this.leo.offset);
    if (newRp > this._recoveryPoint) {
      this._recoveryPoint = newRp;
      this._lastFlushTime = this.clock();
    }
  }

  /** Kafka's flush(forceFlushActiveSegment): everything up to the log end offset (queued). */
  flush(forceFlushActiveSegment = false): Promise<void> {
    return this.queue.run(async () => {
      if (this.closed) return;
      await this.guardIO(
        () => `Error while flushing log for ${this.inDir()} with offset ${this.leo.offset}`,
        () => this.flushUpTo(this.leo.offset, forceFlushActiveSegment),
      );
    });
  }

  /** Clean close: final time index entries, trimmed indexes, files closed; pending deletions done now. */
  close(): Promise<void> {
    return this.queue.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await this.completePendingDeletes();
      for (const s of this.segs) await s.close();
    });
  }

  /** Releases file handles without the clean-close work (simulates a crash in tests). */
  closeHandlers(): Promise<void> {
    return this.queue.run(async () => {
      if (this.closed) return;
      this.closed = true;
      for (const [timer] of this.pendingDeletes) clearTimeout(timer);
      this.pendingDeletes.clear();
      for (const s of this.segs) await s.closeHandlers();
    });
  }

  /** Renames the partition directory (e.g. to `<topic>-<partition>.<uuid>-delete`). */
  renameDir(newDir: string): Promise<void> {
    return this.queue.run(async () => {
      await fsp.rename(this._dir, newDir);
      for (const s of this.segs) s.updateParentDir(newDir);
      this._dir = newDir;
      this.onDirRenamed(newDir);
    });
  }

  protected onDirRenamed(_newDir: string): void {}
}
