// The `__cluster_metadata-0` log: Kafka-format segments (`<base>.log`, sparse `<base>.index`,
// `<base>.timeindex`), a `leader-epoch-checkpoint` and `partition.metadata`, written with
// positional writes and fsynced per append (a Raft voter may only acknowledge durable data).
// Independent of the partition-log package on purpose: the metadata log is small, append-only
// (plus truncation), and its recovery rules are simpler.
//
// Recovery on open: the last segment is scanned batch by batch (bounds, magic, CRC-32C, offset
// continuity); anything after the first bad or partial batch is a torn tail and is truncated.
// The last segment's indexes are rebuilt from the scan. Older segments are trusted.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { readBatchHeader } from '../../protocol/records/batch.js';
import { atomicWriteFile, faultsEnabled, fsyncDir, injectedFault, isIOError } from '../../storage/file-ops.js';
import {
  readLeaderEpochCheckpoint,
  writeLeaderEpochCheckpoint,
  type EpochEntry,
} from '../../storage/leader-epoch-checkpoint.js';
import {
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  TIME_INDEX_FILE_SUFFIX,
  removeSegmentFiles,
  segmentFile,
} from '../../storage/log-file-names.js';
import { OffsetIndex } from '../../storage/offset-index.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../storage/partition-metadata.js';
import { readBatches, SegmentIndexer, type ScannedBatch } from '../../storage/segment-io.js';

export { LEADER_EPOCH_CHECKPOINT_FILE as LEADER_EPOCH_CHECKPOINT } from '../../storage/leader-epoch-checkpoint.js';
export { PARTITION_METADATA_FILE } from '../../storage/partition-metadata.js';
/** metadata.log.segment.bytes default. */
export const DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;
/** metadata.log.segment.ms default (7 days). */
export const DEFAULT_SEGMENT_MS = 7 * 24 * 60 * 60 * 1000;
/** index.interval.bytes default. */
export const DEFAULT_INDEX_INTERVAL_BYTES = 4096;

export interface MetadataLogOptions {
  /** The partition directory, e.g. `<metadata.log.dir>/__cluster_metadata-0`. */
  readonly dir: string;
  readonly topicId?: string;
  readonly segmentBytes?: number;
  /** metadata.log.segment.ms: a segment whose first batch is older than this rolls at the next append. */
  readonly segmentMs?: number;
  readonly indexIntervalBytes?: number;
  readonly now?: () => number;
  /**
   * An append that cannot be written (an I/O error: EIO, ENOSPC, ...): Kafka's raft IO thread hands it
   * to its fatal fault handler (ProcessTerminatingFaultHandler: "Encountered fatal fault", halt 1).
   * Default: that message on stderr and process.exit(1).
   */
  readonly onFatal?: (message: string, cause: Error) => void;
}

const haltOnFatal = (message: string, cause: Error): void => {
  process.stderr.write(
    `[${new Date().toISOString()}] ERROR Encountered fatal fault: ${message}: ${cause.stack ?? cause.message}\n`,
  );
  process.exit(1);
};

/** Writes all of `buf` at `position`, looping on short writes (a positional write may write less). */
async function writeFully(fh: fsp.FileHandle, buf: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buf.length) {
    const r = await fh.write(buf, written, buf.length - written, position + written);
    if (r.bytesWritten <= 0) {
      const e = new Error(`EIO: short write at ${position + written}`) as NodeJS.ErrnoException;
      e.code = 'EIO';
      e.syscall = 'write';
      throw e;
    }
    written += r.bytesWritten;
  }
}

interface Segment {
  readonly baseOffset: number;
  size: number;
  /** Offset after the last batch (== next segment's base offset for closed segments). */
  nextOffset: number;
  /** Max timestamp of the segment's first batch (LogSegment.rollingBasedTimestamp); -1 when unknown or empty. */
  rollingBasedTimestamp: number;
  /** When this process created or opened the segment (LogSegment.created). */
  readonly createdMs: number;
  fh: fsp.FileHandle | null;
  indexer: SegmentIndexer | null;
  indexFh: fsp.FileHandle | null;
  timeIndexFh: fsp.FileHandle | null;
}

const logFile = (dir: string, base: number) => segmentFile(dir, base, LOG_FILE_SUFFIX);
const indexFile = (dir: string, base: number) => segmentFile(dir, base, INDEX_FILE_SUFFIX);
const timeIndexFile = (dir: string, base: number) => segmentFile(dir, base, TIME_INDEX_FILE_SUFFIX);

export class MetadataLog {
  private segments: Segment[] = [];
  private epochs: EpochEntry[] = [];
  private leo = 0;
  /** Log start offset moved past the first segment's base by a snapshot (KafkaRaftLog.deleteBeforeSnapshot). */
  private startOffset = 0;
  private closed = false;
  /** Bytes cut off the tail at open (0 after a clean shutdown). */
  truncatedBytesAtOpen = 0;

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
    private readonly indexIntervalBytes: number,
    private readonly segmentMs: number,
    private readonly now: () => number,
    private readonly onFatal: (message: string, cause: Error) => void,
  ) {}

  static async open(opts: MetadataLogOptions): Promise<MetadataLog> {
    const log = new MetadataLog(
      opts.dir,
      opts.segmentBytes ?? DEFAULT_SEGMENT_BYTES,
      opts.indexIntervalBytes ?? DEFAULT_INDEX_INTERVAL_BYTES,
      opts.segmentMs ?? DEFAULT_SEGMENT_MS,
      opts.now ?? Date.now,
      opts.onFatal ?? haltOnFatal,
    );
    await fsp.mkdir(opts.dir, { recursive: true });
    await log.load();
    if (opts.topicId !== undefined) await log.ensurePartitionMetadata(opts.topicId);
    return log;
  }

  get logEndOffset(): number {
    return this.leo;
  }

  get logStartOffset(): number {
    const base = this.segments.length > 0 ? this.segments[0]!.baseOffset : this.leo;
    return Math.min(Math.max(base, this.startOffset), this.leo);
  }

  /** Epoch of the last batch in the log, or 0 if the log is empty. */
  get lastEpoch(): number {
    return this.epochs.length > 0 ? this.epochs[this.epochs.length - 1]!.epoch : 0;
  }

  get epochEntries(): readonly EpochEntry[] {
    return this.epochs;
  }

  get segmentBaseOffsets(): number[] {
    return this.segments.map((s) => s.baseOffset);
  }

  get sizeInBytes(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }

  /** Largest epoch <= `epoch` and the offset where it ends (LeaderEpochFileCache.endOffsetFor). */
  endOffsetForEpoch(epoch: number): { epoch: number; endOffset: number } {
    let found = -1;
    for (let i = 0; i < this.epochs.length; i++) if (this.epochs[i]!.epoch <= epoch) found = i;
    if (found < 0) return { epoch: -1, endOffset: -1 };
    const next = this.epochs[found + 1];
    return { epoch: this.epochs[found]!.epoch, endOffset: next ? next.startOffset : this.leo };
  }

  private async load(): Promise<void> {
    const names = await fsp.readdir(this.dir);
    for (const n of names) {
      if (
        n.endsWith('.deleted') ||
        n.endsWith('.cleaned') ||
        n.endsWith('.swap') ||
        (n.endsWith('.tmp') && n !== 'quorum-state.tmp')
      ) {
        await fsp.rm(path.join(this.dir, n), { force: true });
      }
    }
    const bases = names
      .filter((n) => /^\d{20}\.log$/.test(n))
      .map((n) => Number(n.slice(0, 20)))
      .sort((a, b) => a - b);
    for (let i = 0; i < bases.length; i++) {
      const base = bases[i]!;
      const st = await fsp.stat(logFile(this.dir, base));
      this.segments.push({
        baseOffset: base,
        size: st.size,
        nextOffset: bases[i + 1] ?? base,
        rollingBasedTimestamp: -1,
        createdMs: this.now(),
        fh: null,
        indexer: null,
        indexFh: null,
        timeIndexFh: null,
      });
    }
    const last = this.segments[this.segments.length - 1];
    const scannedEpochs: EpochEntry[] = [];
    if (last) await this.recoverLastSegment(last, scannedEpochs);
    this.leo = last ? last.nextOffset : 0;
    await this.loadEpochs(scannedEpochs);
  }

  /** Scans the active segment, truncates a torn tail, rebuilds its indexes. */
  private async recoverLastSegment(seg: Segment, epochs: EpochEntry[]): Promise<void> {
    const file = logFile(this.dir, seg.baseOffset);
    const indexer = new SegmentIndexer(seg.baseOffset, this.indexIntervalBytes);
    let expected = seg.baseOffset;
    let validBytes = 0;
    const onBatch = (b: ScannedBatch): boolean => {
      if (b.baseOffset < expected) return false;
      indexer.onBatch(b.position, b.size, b.lastOffset, b.maxTimestamp);
      if (b.position === 0) seg.rollingBasedTimestamp = b.maxTimestamp;
      const lastEpoch = epochs.length > 0 ? epochs[epochs.length - 1]!.epoch : -1;
      if (b.epoch > lastEpoch) epochs.push({ epoch: b.epoch, startOffset: b.baseOffset });
      expected = b.lastOffset + 1;
      validBytes = b.position + b.size;
      return true;
    };
    await readBatches(file, 0, onBatch, { verifyCrc: true, stopOnError: true });
    if (validBytes < seg.size) {
      this.truncatedBytesAtOpen += seg.size - validBytes;
      await fsp.truncate(file, validBytes);
      seg.size = validBytes;
    }
    seg.nextOffset = expected;
    await writeIfChanged(indexFile(this.dir, seg.baseOffset), indexer.offsetIndexBytes());
    await writeIfChanged(timeIndexFile(this.dir, seg.baseOffset), indexer.timeIndexBytes());
    await this.openActive(seg, indexer);
  }

  private async openActive(seg: Segment, indexer: SegmentIndexer): Promise<void> {
    seg.fh = await fsp.open(logFile(this.dir, seg.baseOffset), 'r+');
    seg.indexFh = await fsp.open(indexFile(this.dir, seg.baseOffset), 'a');
    seg.timeIndexFh = await fsp.open(timeIndexFile(this.dir, seg.baseOffset), 'a');
    seg.indexer = indexer;
  }

  private async loadEpochs(scanned: EpochEntry[]): Promise<void> {
    let stored: EpochEntry[] | null;
    try {
      stored = await readLeaderEpochCheckpoint(this.dir);
    } catch {
      stored = null; // unreadable: rebuilt from the segments
    }
    // Drop entries beyond the (possibly truncated) end, then add epochs seen in the active segment.
    const entries = (stored ?? (await this.scanAllEpochs())).filter((e) => e.startOffset < this.leo);
    for (const e of scanned) {
      const last = entries[entries.length - 1];
      if (!last || e.epoch > last.epoch) entries.push(e);
    }
    this.epochs = entries;
    const same =
      stored !== null &&
      stored.length === entries.length &&
      stored.every((e, i) => e.epoch === entries[i]!.epoch && e.startOffset === entries[i]!.startOffset);
    if (!same) await this.writeEpochCheckpoint();
  }

  private async scanAllEpochs(): Promise<EpochEntry[]> {
    const out: EpochEntry[] = [];
    for (const seg of this.segments) {
      await readBatches(
        logFile(this.dir, seg.baseOffset),
        0,
        (b) => {
          const last = out[out.length - 1];
          if (!last || b.epoch > last.epoch) out.push({ epoch: b.epoch, startOffset: b.baseOffset });
          return true;
        },
        { verifyCrc: false, stopOnError: true },
      );
    }
    return out;
  }

  private async writeEpochCheckpoint(): Promise<void> {
    await writeLeaderEpochCheckpoint(this.dir, this.epochs);
  }

  private async ensurePartitionMetadata(topicId: string): Promise<void> {
    if ((await readPartitionMetadata(this.dir)) === undefined) await writePartitionMetadata(this.dir, topicId);
  }

  /** Drops every segment and continues at `offset` (the log is behind the latest snapshot). */
  async truncateFullyAndStartAt(offset: number): Promise<void> {
    for (const seg of this.segments) {
      await this.closeSegment(seg, false);
      await removeSegmentFiles(this.dir, seg.baseOffset);
    }
    this.segments = [];
    this.leo = offset;
    this.startOffset = offset;
    this.epochs = [];
    await this.writeEpochCheckpoint();
    await fsyncDir(this.dir);
  }

  private async roll(): Promise<Segment> {
    const active = this.segments[this.segments.length - 1];
    if (active) await this.closeSegment(active);
    const base = this.leo;
    const seg: Segment = {
      baseOffset: base,
      size: 0,
      nextOffset: base,
      rollingBasedTimestamp: -1,
      createdMs: this.now(),
      fh: null,
      indexer: null,
      indexFh: null,
      timeIndexFh: null,
    };
    await fsp.writeFile(logFile(this.dir, base), Buffer.alloc(0), { flag: 'wx' });
    await fsp.writeFile(indexFile(this.dir, base), Buffer.alloc(0));
    await fsp.writeFile(timeIndexFile(this.dir, base), Buffer.alloc(0));
    await this.openActive(seg, new SegmentIndexer(base, this.indexIntervalBytes));
    await fsyncDir(this.dir);
    this.segments.push(seg);
    return seg;
  }

  /** Appends and fsyncs one encoded batch whose base offset must equal the log end offset. */
  async append(batch: Buffer): Promise<void> {
    if (this.closed) throw new Error('metadata log is closed');
    const h = readBatchHeader(batch, 0);
    if (h.sizeInBytes !== batch.length) throw new Error('append expects exactly one batch');
    if (h.baseOffset !== this.leo) throw new Error(`batch base offset ${h.baseOffset} != log end offset ${this.leo}`);
    if (h.partitionLeaderEpoch < this.lastEpoch)
      throw new Error(`batch epoch ${h.partitionLeaderEpoch} < last epoch ${this.lastEpoch}`);
    let seg = this.segments[this.segments.length - 1];
    if (!seg || this.shouldRoll(seg, batch.length, h.maxTimestamp)) seg = await this.roll();
    const position = seg.size;
    try {
      if (faultsEnabled) {
        const f = injectedFault(logFile(this.dir, seg.baseOffset), 'write', batch.length);
        if (f) {
          await writeFully(seg.fh!, batch.subarray(0, f.allowed), position);
          throw f.error;
        }
      }
      await writeFully(seg.fh!, batch, position);
      await seg.fh!.datasync();
    } catch (e) {
      if (!isIOError(e)) throw e;
      // nothing of the batch stays: cut back to the previous end, then stop (a voter must not go on
      // with a log it could not write)
      await seg.fh!.truncate(position).catch(() => undefined);
      this.onFatal(`Unexpected error in raft IO thread: appending to ${this.dir}`, e);
      throw e;
    }
    if (position === 0) seg.rollingBasedTimestamp = h.maxTimestamp;
    seg.size += batch.length;
    seg.nextOffset = h.lastOffset + 1;
    this.leo = h.lastOffset + 1;
    const entries = seg.indexer!.onBatch(position, batch.length, h.lastOffset, h.maxTimestamp);
    if (entries.offset) await seg.indexFh!.write(entries.offset);
    if (entries.time) await seg.timeIndexFh!.write(entries.time);
    if (this.epochs.length === 0 || h.partitionLeaderEpoch > this.lastEpoch) {
      this.epochs.push({ epoch: h.partitionLeaderEpoch, startOffset: h.baseOffset });
      await this.writeEpochCheckpoint();
    }
  }

  /**
   * LogSegment.shouldRoll: a non-empty segment rolls when the batch does not fit, or when the batch's
   * timestamp is more than segment.ms after the segment's first batch (timeWaitedForRoll; without
   * a first-batch timestamp, the time since the segment was created or opened).
   */
  private shouldRoll(seg: Segment, batchBytes: number, batchTimestamp: number): boolean {
    if (seg.size === 0) return false;
    if (seg.size + batchBytes > this.segmentBytes) return true;
    const waited =
      seg.rollingBasedTimestamp >= 0 ? batchTimestamp - seg.rollingBasedTimestamp : this.now() - seg.createdMs;
    return waited > this.segmentMs;
  }

  /** Calls `onBatch` for every batch containing offsets >= fromOffset, in order; stop by returning false. */
  async read(fromOffset: number, onBatch: (buf: Buffer, info: ScannedBatch) => boolean | void): Promise<void> {
    for (let i = 0; i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      const next = this.segments[i + 1];
      if (next && next.baseOffset <= fromOffset) continue;
      let startPos = 0;
      if (fromOffset > seg.baseOffset) {
        const idx = new OffsetIndex(indexFile(this.dir, seg.baseOffset), seg.baseOffset, 0);
        try {
          await idx.load();
          startPos = idx.lookup(fromOffset).position;
        } catch {
          startPos = 0; // no index: scan the segment from its start
        }
      }
      let stopped = false;
      await readBatches(
        logFile(this.dir, seg.baseOffset),
        startPos,
        (b, buf) => {
          if (b.position + b.size > seg.size) return false;
          if (b.lastOffset < fromOffset) return true;
          if (onBatch(buf, b) === false) {
            stopped = true;
            return false;
          }
          return true;
        },
        { verifyCrc: true, stopOnError: false, end: seg.size },
      );
      if (stopped) return;
    }
  }

  /** Removes every record at or after `offset` (Raft divergence truncation). */
  async truncateTo(offset: number): Promise<void> {
    if (offset >= this.leo) return;
    while (
      this.segments.length > 0 &&
      this.segments[this.segments.length - 1]!.baseOffset >= offset &&
      this.segments.length > 1
    ) {
      const seg = this.segments.pop()!;
      await this.closeSegment(seg);
      await removeSegmentFiles(this.dir, seg.baseOffset);
    }
    const seg = this.segments[this.segments.length - 1];
    if (seg) {
      let cut = seg.size;
      const indexer = new SegmentIndexer(seg.baseOffset, this.indexIntervalBytes);
      let next = seg.baseOffset;
      await readBatches(
        logFile(this.dir, seg.baseOffset),
        0,
        (b) => {
          if (b.lastOffset >= offset) {
            cut = b.position;
            return false;
          }
          indexer.onBatch(b.position, b.size, b.lastOffset, b.maxTimestamp);
          next = b.lastOffset + 1;
          return true;
        },
        { verifyCrc: false, stopOnError: true, end: seg.size },
      );
      await this.closeSegment(seg, false);
      await fsp.truncate(logFile(this.dir, seg.baseOffset), cut);
      seg.size = cut;
      seg.nextOffset = next;
      if (cut === 0) seg.rollingBasedTimestamp = -1;
      await atomicWriteFile(indexFile(this.dir, seg.baseOffset), indexer.offsetIndexBytes());
      await atomicWriteFile(timeIndexFile(this.dir, seg.baseOffset), indexer.timeIndexBytes());
      await this.openActive(seg, indexer);
      this.leo = next;
    } else {
      this.leo = Math.min(this.leo, offset);
    }
    this.epochs = this.epochs.filter((e) => e.startOffset < this.leo);
    await this.writeEpochCheckpoint();
  }

  /**
   * UnifiedLog.maybeIncrementLogStartOffset + deleteOldSegments for a snapshot at `offset`: the log
   * start moves to `offset` (false when it is not ahead of the current one or beyond the end) and
   * whole segments that end at or before it are deleted (never the active one).
   */
  async advanceLogStartOffset(offset: number): Promise<boolean> {
    if (offset <= this.logStartOffset || offset > this.leo) return false;
    this.startOffset = offset;
    await this.deleteSegmentsBefore(offset);
    return true;
  }

  /** Deletes whole segments that end at or before `offset` (covered by a snapshot); never the active one. */
  async deleteSegmentsBefore(offset: number): Promise<number> {
    let deleted = 0;
    while (this.segments.length > 1 && this.segments[1]!.baseOffset <= offset) {
      const seg = this.segments.shift()!;
      await removeSegmentFiles(this.dir, seg.baseOffset);
      deleted++;
    }
    if (deleted > 0) await fsyncDir(this.dir);
    return deleted;
  }

  private async closeSegment(seg: Segment, finalTimeEntry = true): Promise<void> {
    if (seg.fh) {
      if (finalTimeEntry && seg.indexer) {
        const t = seg.indexer.finalTimeEntry();
        if (t) await seg.timeIndexFh!.write(t);
      }
      await seg.fh.datasync();
      await seg.indexFh!.sync();
      await seg.timeIndexFh!.sync();
      await seg.fh.close();
      await seg.indexFh!.close();
      await seg.timeIndexFh!.close();
    }
    seg.fh = seg.indexFh = seg.timeIndexFh = null;
    seg.indexer = null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const active = this.segments[this.segments.length - 1];
    if (active) await this.closeSegment(active);
  }
}

/** The rebuilt index, written (tmp, fsync, rename) unless the file holds it already, as after a clean stop. */
async function writeIfChanged(file: string, bytes: Uint8Array): Promise<void> {
  const current = await fsp.readFile(file).catch(() => null);
  if (current !== null && Buffer.compare(current, bytes) === 0) return;
  await atomicWriteFile(file, bytes);
}
