// One log segment (Kafka's LogSegment.java): `<base>.log` plus its sparse `.index` and
// `.timeindex`. Appends go to the end; the index rule, roll conditions, recovery (scan, validate,
// truncate torn/corrupt tail, rebuild indexes) and reads follow Kafka's implementation.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ensureValidBatch } from '../../protocol/records/batch-stored.js';
import { CorruptRecordError } from '../../protocol/records/layout.js';
import { FileRecords, type FileSlice } from '../../storage/file-records.js';
import { OffsetIndex } from '../../storage/offset-index.js';
import { TimeIndex, NO_TIMESTAMP, type TimestampOffset } from '../../storage/time-index.js';
import { CorruptIndexError } from '../../storage/abstract-index.js';
import { readRecords } from './record-keys.js';
import { asyncLoadIO, type LoadIO } from '../../storage/load-io.js';
import {
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  TIME_INDEX_FILE_SUFFIX,
  TXN_INDEX_FILE_SUFFIX,
  segmentFile,
} from '../../storage/log-file-names.js';

export class LogSegmentOffsetOverflowError extends Error {
  override name = 'LogSegmentOffsetOverflowError';
}

export interface SegmentConfig {
  /** index.interval.bytes */
  indexIntervalBytes: number;
  /** segment.index.bytes */
  maxIndexSize: number;
  /** this segment's random roll jitter */
  rollJitterMs: number;
}

export interface RollParams {
  maxSegmentMs: number;
  maxSegmentBytes: number;
  maxTimestampInMessages: number;
  maxOffsetInMessages: number;
  messagesSize: number;
  now: number;
}

export interface SegmentReadResult {
  /** file bytes from the batch containing the start offset; may end in a partial batch (a FileSlice when read lazily) */
  records: Buffer | FileSlice;
  /** file position the read started at */
  position: number;
  /** true when the first batch did not fit in maxSize (and minOneMessage was off) */
  firstEntryIncomplete: boolean;
}

export interface EpochAssigner {
  latestEpoch(): number | undefined;
  assign(epoch: number, startOffset: number): Promise<void>;
}

const UNKNOWN: TimestampOffset = Object.freeze({ timestamp: NO_TIMESTAMP, offset: -1 });

export class LogSegment {
  readonly baseOffset: number;
  readonly log: FileRecords;
  readonly offsetIndex: OffsetIndex;
  readonly timeIndex: TimeIndex;
  private txnIndexFile: string;
  readonly indexIntervalBytes: number;
  readonly rollJitterMs: number;
  private readonly clock: () => number;
  private created: number;
  private rollingBasedTimestamp: number | undefined;
  private maxTimestampAndOffsetSoFar: TimestampOffset = UNKNOWN;
  private bytesSinceLastIndexEntry = 0;

  private constructor(
    baseOffset: number,
    log: FileRecords,
    oi: OffsetIndex,
    ti: TimeIndex,
    txn: string,
    cfg: SegmentConfig,
    clock: () => number,
  ) {
    this.baseOffset = baseOffset;
    this.log = log;
    this.offsetIndex = oi;
    this.timeIndex = ti;
    this.txnIndexFile = txn;
    this.indexIntervalBytes = cfg.indexIntervalBytes;
    this.rollJitterMs = cfg.rollJitterMs;
    this.clock = clock;
    this.created = clock();
  }

  /**
   * Opens a segment. With `fileAlreadyExists` false the files are created (indexes pre-allocated
   * to maxIndexSize); otherwise the existing files are opened and indexes load lazily.
   */
  static async open(
    dir: string,
    baseOffset: number,
    cfg: SegmentConfig,
    clock: () => number,
    opts: { fileAlreadyExists?: boolean; suffix?: string } = {},
  ): Promise<LogSegment> {
    const suffix = opts.suffix ?? '';
    const exists = opts.fileAlreadyExists ?? false;
    const log = await FileRecords.open(segmentFile(dir, baseOffset, LOG_FILE_SUFFIX, suffix), true);
    const oi = new OffsetIndex(segmentFile(dir, baseOffset, INDEX_FILE_SUFFIX, suffix), baseOffset, cfg.maxIndexSize);
    const ti = new TimeIndex(
      segmentFile(dir, baseOffset, TIME_INDEX_FILE_SUFFIX, suffix),
      baseOffset,
      cfg.maxIndexSize,
    );
    const seg = new LogSegment(
      baseOffset,
      log,
      oi,
      ti,
      segmentFile(dir, baseOffset, TXN_INDEX_FILE_SUFFIX, suffix),
      cfg,
      clock,
    );
    if (!exists) {
      await oi.load();
      await ti.load();
    }
    return seg;
  }

  get size(): number {
    return this.log.size;
  }

  private async oi(): Promise<OffsetIndex> {
    if (!this.offsetIndex.isLoaded) await this.offsetIndex.load();
    return this.offsetIndex;
  }

  private async ti(): Promise<TimeIndex> {
    if (!this.timeIndex.isLoaded) await this.timeIndex.load();
    return this.timeIndex;
  }

  /** Checks the index files exist and have sane lengths; throws NoSuchFile/CorruptIndex-like errors. */
  async sanityCheck(timeIndexFileNewlyCreated: boolean, io: LoadIO = asyncLoadIO): Promise<void> {
    const size = await io.size(this.offsetIndex.file); // throws ENOENT → caller recovers
    if (timeIndexFileNewlyCreated) {
      this.checkIndexLengths(size, undefined);
      await (await this.ti()).resize(0);
    } else this.checkIndexLengths(size, await io.size(this.timeIndex.file).catch(() => undefined));
  }

  /** The lengths sanityCheck checks (of the `.index`, and of the `.timeindex` when it exists). */
  checkIndexLengths(offsetIndexBytes: number, timeIndexBytes: number | undefined): void {
    if (offsetIndexBytes % 8 !== 0)
      throw new CorruptIndexError(`Index file ${this.offsetIndex.file} has a length that is not a multiple of 8`);
    if (timeIndexBytes !== undefined && timeIndexBytes % 12 !== 0)
      throw new CorruptIndexError(`Time index file ${this.timeIndex.file} has a length that is not a multiple of 12`);
  }

  /** Bytes of valid entries in the offset and time indexes. */
  async indexSizes(): Promise<{ offsetIndex: number; timeIndex: number }> {
    return { offsetIndex: (await this.oi()).sizeInBytes(), timeIndex: (await this.ti()).sizeInBytes() };
  }

  async resizeIndexes(size: number): Promise<void> {
    await (await this.oi()).resize(size);
    await (await this.ti()).resize(size);
  }

  async readMaxTimestampAndOffsetSoFar(): Promise<TimestampOffset> {
    if (this.maxTimestampAndOffsetSoFar === UNKNOWN) this.maxTimestampAndOffsetSoFar = (await this.ti()).lastEntry();
    return this.maxTimestampAndOffsetSoFar;
  }

  async maxTimestampSoFar(): Promise<number> {
    return (await this.readMaxTimestampAndOffsetSoFar()).timestamp;
  }

  async canConvertToRelativeOffset(offset: number): Promise<boolean> {
    return (await this.oi()).canAppendOffset(offset);
  }

  async shouldRoll(p: RollParams): Promise<boolean> {
    const reachedRollMs =
      (await this.timeWaitedForRoll(p.now, p.maxTimestampInMessages)) > p.maxSegmentMs - this.rollJitterMs;
    const size = this.size;
    const oi = await this.oi();
    const ti = await this.ti();
    return (
      size > p.maxSegmentBytes - p.messagesSize ||
      (size > 0 && reachedRollMs) ||
      oi.isFull() ||
      ti.isFull() ||
      !oi.canAppendOffset(p.maxOffsetInMessages)
    );
  }

  /**
   * Appends already offset-assigned batches. `largestOffset` is the last offset in `records`,
   * `shallowOffsetOfMaxTimestamp` the last offset of the batch holding the max timestamp.
   */
  async append(
    largestOffset: number,
    largestTimestampMs: number,
    shallowOffsetOfMaxTimestamp: number,
    records: Buffer,
  ): Promise<void> {
    if (records.length === 0) return;
    const physicalPosition = this.log.size;
    const oi = await this.oi();
    if (!oi.canAppendOffset(largestOffset)) {
      throw new LogSegmentOffsetOverflowError(
        `Detected offset overflow at offset ${largestOffset} in segment ${this.baseOffset}`,
      );
    }
    // all or nothing: the data first (a failed write is cut back to physicalPosition), then the
    // in-memory maxima and the index entries that point at it
    await this.log.append(records);
    if (physicalPosition === 0) this.rollingBasedTimestamp = largestTimestampMs;
    if (largestTimestampMs > (await this.maxTimestampSoFar())) {
      this.maxTimestampAndOffsetSoFar = { timestamp: largestTimestampMs, offset: shallowOffsetOfMaxTimestamp };
    }
    if (this.bytesSinceLastIndexEntry > this.indexIntervalBytes) {
      await oi.append(largestOffset, physicalPosition);
      const m = this.maxTimestampAndOffsetSoFar;
      await (await this.ti()).maybeAppend(m.timestamp, m.offset);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += records.length;
  }

  /** File position of the offset index entry at or below offset (0 if none). */
  async positionOf(offset: number): Promise<number> {
    return (await this.oi()).lookup(offset).position;
  }

  /** Position and size of the first batch whose last offset >= offset, or undefined past the end. */
  async translateOffset(
    offset: number,
    startingFilePosition = 0,
  ): Promise<{ offset: number; position: number; size: number } | undefined> {
    const mapping = (await this.oi()).lookup(offset);
    return this.log.searchForOffsetWithSize(offset, Math.max(mapping.position, startingFilePosition));
  }

  /**
   * Reads up to maxSize bytes starting at the batch that contains startOffset, never past
   * maxPosition (undefined = return no data). One file read into one Buffer, or with `lazy` the
   * file range unread (FileSlice); either may end in a partial batch (as Kafka's FileRecords
   * slice). undefined when startOffset is past this segment.
   */
  async read(
    startOffset: number,
    maxSize: number,
    maxPosition: number | undefined,
    minOneMessage: boolean,
    lazy = false,
  ): Promise<SegmentReadResult | undefined> {
    if (maxSize < 0) throw new RangeError(`Invalid max size ${maxSize} for log read from segment ${this.log.file}`);
    const start = await this.translateOffset(startOffset);
    if (!start) return undefined;
    const adjustedMaxSize = minOneMessage ? Math.max(maxSize, start.size) : maxSize;
    if (adjustedMaxSize === 0 || maxPosition === undefined) {
      return { records: Buffer.alloc(0), position: start.position, firstEntryIncomplete: false };
    }
    const fetchSize = Math.max(0, Math.min(maxPosition - start.position, adjustedMaxSize));
    const records = lazy ? this.log.slice(start.position, fetchSize) : await this.log.read(start.position, fetchSize);
    return { records, position: start.position, firstEntryIncomplete: adjustedMaxSize < start.size };
  }

  /**
   * Kafka's LogSegment.recover: rebuilds both indexes by scanning every batch, validating size,
   * magic and CRC; truncates the file at the first invalid or incomplete batch. Returns the number
   * of bytes truncated.
   */
  async recover(epochCache?: EpochAssigner): Promise<number> {
    const oi = this.offsetIndex;
    const ti = this.timeIndex;
    await oi.reset();
    await ti.reset();
    let validBytes = 0;
    let lastIndexEntry = 0;
    this.maxTimestampAndOffsetSoFar = UNKNOWN;
    let maxTs = UNKNOWN;
    try {
      for await (const b of this.log.batches(0, { withData: true })) {
        ensureValidBatch(b.data!, b);
        if (!oi.canAppendOffset(b.lastOffset))
          throw new CorruptRecordError(`offset ${b.lastOffset} out of range for segment ${this.baseOffset}`);
        if (b.maxTimestamp > maxTs.timestamp) maxTs = { timestamp: b.maxTimestamp, offset: b.lastOffset };
        if (validBytes - lastIndexEntry > this.indexIntervalBytes) {
          await oi.append(b.lastOffset, validBytes);
          await ti.maybeAppend(maxTs.timestamp, maxTs.offset);
          lastIndexEntry = validBytes;
        }
        validBytes += b.size;
        if (b.magic >= 2 && epochCache && b.partitionLeaderEpoch >= 0) {
          const latest = epochCache.latestEpoch();
          if (latest === undefined || b.partitionLeaderEpoch > latest)
            await epochCache.assign(b.partitionLeaderEpoch, b.baseOffset);
        }
      }
    } catch (e) {
      if (!(e instanceof CorruptRecordError)) throw e;
    }
    this.maxTimestampAndOffsetSoFar = maxTs;
    const truncated = this.log.size - validBytes;
    await this.log.truncateTo(validBytes);
    await oi.trimToValidSize();
    await ti.maybeAppend(maxTs.timestamp, maxTs.offset, true);
    await ti.trimToValidSize();
    this.bytesSinceLastIndexEntry = 0;
    return truncated;
  }

  /** Offset after the last batch (baseOffset when empty). */
  async readNextOffset(): Promise<number> {
    const oi = await this.oi();
    const start = await this.translateOffset(oi.lastOffset);
    if (!start) return this.baseOffset;
    let next = this.baseOffset;
    for await (const b of this.log.batches(start.position)) next = b.lastOffset + 1;
    return next;
  }

  /** Kafka's hasOverflow: a batch beyond int32 of relative offset (legacy data). */
  async hasOverflow(): Promise<boolean> {
    const next = await this.readNextOffset();
    return next > this.baseOffset && !(await this.canConvertToRelativeOffset(next - 1));
  }

  /** Truncates the segment so it ends before `offset`; returns bytes removed. Re-extends the indexes. */
  async truncateTo(offset: number): Promise<number> {
    const mapping = await this.translateOffset(offset);
    const oi = await this.oi();
    const ti = await this.ti();
    await oi.truncateTo(offset);
    await ti.truncateTo(offset);
    await oi.resize(oi.maxIndexSize);
    await ti.resize(ti.maxIndexSize);
    const bytesTruncated = mapping ? await this.log.truncateTo(mapping.position) : 0;
    if (this.log.size === 0) {
      this.created = this.clock();
      this.rollingBasedTimestamp = undefined;
    }
    this.bytesSinceLastIndexEntry = 0;
    if ((await this.maxTimestampSoFar()) >= 0) this.maxTimestampAndOffsetSoFar = await this.readLargestTimestamp();
    return bytesTruncated;
  }

  private async readLargestTimestamp(): Promise<TimestampOffset> {
    const last = (await this.ti()).lastEntry();
    const pos = (await this.oi()).lookup(last.offset).position;
    const after = await this.log.largestTimestampAfter(pos);
    return after.timestamp > last.timestamp ? after : last;
  }

  /** Final time-index entry, trim both indexes (segment is no longer active). */
  async onBecomeInactiveSegment(): Promise<void> {
    await this.log.trim();
    const ti = await this.ti();
    const m = await this.readMaxTimestampAndOffsetSoFar();
    await ti.maybeAppend(m.timestamp, m.offset, true);
    await (await this.oi()).trimToValidSize();
    await ti.trimToValidSize();
  }

  private async loadFirstBatchTimestamp(): Promise<void> {
    if (this.rollingBasedTimestamp === undefined) {
      for await (const b of this.log.batches(0)) {
        this.rollingBasedTimestamp = b.maxTimestamp;
        break;
      }
    }
  }

  async timeWaitedForRoll(now: number, messageTimestamp: number): Promise<number> {
    await this.loadFirstBatchTimestamp();
    const ts = this.rollingBasedTimestamp ?? -1;
    return ts >= 0 ? messageTimestamp - ts : now - this.created;
  }

  /** Timestamp of the first batch (for max.compaction.lag.ms), MAX_SAFE_INTEGER if none. */
  async getFirstBatchTimestamp(): Promise<number> {
    await this.loadFirstBatchTimestamp();
    const ts = this.rollingBasedTimestamp;
    return ts !== undefined && ts >= 0 ? ts : Number.MAX_SAFE_INTEGER;
  }

  /**
   * First record with timestamp >= target and offset >= startingOffset, searching from the time
   * index entry at or below the target (Kafka's findOffsetByTimestamp).
   */
  async findOffsetByTimestamp(
    timestamp: number,
    startingOffset: number,
  ): Promise<{ timestamp: number; offset: number; leaderEpoch?: number } | undefined> {
    const tsOff = (await this.ti()).lookup(timestamp);
    const position = (await this.oi()).lookup(Math.max(tsOff.offset, startingOffset)).position;
    for await (const b of this.log.batches(position, { withData: true })) {
      if (b.maxTimestamp < timestamp) continue;
      const leaderEpoch = b.partitionLeaderEpoch >= 0 ? b.partitionLeaderEpoch : undefined;
      if (b.magic < 2) {
        // legacy entry: treated as one record (the wrapper's offset and timestamp)
        if (b.lastOffset >= startingOffset) return { timestamp: b.maxTimestamp, offset: b.lastOffset };
        continue;
      }
      for (const r of await readRecords(b.data!, b)) {
        if (r.timestamp >= timestamp && r.offset >= startingOffset)
          return { timestamp: r.timestamp, offset: r.offset, leaderEpoch };
      }
    }
    return undefined;
  }

  /** Largest record timestamp if known, else the log file's last-modified time (retention). */
  async largestTimestamp(): Promise<number> {
    const ts = await this.maxTimestampSoFar();
    return ts >= 0 ? ts : this.lastModified();
  }

  async largestRecordTimestamp(): Promise<number | undefined> {
    const ts = await this.maxTimestampSoFar();
    return ts >= 0 ? ts : undefined;
  }

  async lastModified(): Promise<number> {
    return Math.floor(await this.log.lastModified());
  }

  async setLastModified(ms: number): Promise<void> {
    const t = new Date(ms);
    for (const f of [this.log.file, this.offsetIndex.file, this.timeIndex.file])
      await fsp.utimes(f, t, t).catch(() => undefined);
  }

  async flush(): Promise<void> {
    await this.log.flush();
    await this.offsetIndex.flush();
    await this.timeIndex.flush();
  }

  /** Clean close: final time index entry (if the max timestamp is known), trim indexes, close files. */
  async close(): Promise<void> {
    if (this.maxTimestampAndOffsetSoFar !== UNKNOWN) {
      const m = this.maxTimestampAndOffsetSoFar;
      await this.timeIndex.maybeAppend(m.timestamp, m.offset, true).catch(() => undefined);
    }
    await this.offsetIndex.close();
    await this.timeIndex.close();
    await this.log.trimAndClose();
  }

  /** Releases file handles without trimming (crash-like). */
  async closeHandlers(): Promise<void> {
    await this.offsetIndex.closeHandler();
    await this.timeIndex.closeHandler();
    await this.log.close();
  }

  private static replaceSuffix(p: string, oldSuffix: string, newSuffix: string): string {
    if (!p.endsWith(oldSuffix)) throw new Error(`Expected string to end with '${oldSuffix}' but string is '${p}'`);
    return p.slice(0, p.length - oldSuffix.length) + newSuffix;
  }

  /** Renames all segment files, e.g. ('', '.deleted') or ('.cleaned', '.swap'). */
  async changeFileSuffixes(oldSuffix: string, newSuffix: string): Promise<void> {
    const r = LogSegment.replaceSuffix;
    await this.log.renameTo(r(this.log.file, oldSuffix, newSuffix));
    await this.offsetIndex.renameTo(r(this.offsetIndex.file, oldSuffix, newSuffix));
    await this.timeIndex.renameTo(r(this.timeIndex.file, oldSuffix, newSuffix));
    const txn = r(this.txnIndexFile, oldSuffix, newSuffix);
    await fsp.rename(this.txnIndexFile, txn).catch(() => undefined);
    this.txnIndexFile = txn;
  }

  /** Points every file of the segment at a renamed partition directory. */
  updateParentDir(newDir: string): void {
    this.log.updateParentDir(path.join(newDir, path.basename(this.log.file)));
    this.offsetIndex.updateParentDir(path.join(newDir, path.basename(this.offsetIndex.file)));
    this.timeIndex.updateParentDir(path.join(newDir, path.basename(this.timeIndex.file)));
    this.txnIndexFile = path.join(newDir, path.basename(this.txnIndexFile));
  }

  hasSuffix(suffix: string): boolean {
    return (
      this.log.file.endsWith(suffix) && this.offsetIndex.file.endsWith(suffix) && this.timeIndex.file.endsWith(suffix)
    );
  }

  async deleteIfExists(): Promise<void> {
    await this.log.deleteIfExists();
    await this.offsetIndex.deleteIfExists();
    await this.timeIndex.deleteIfExists();
    await fsp.rm(this.txnIndexFile, { force: true });
  }

  toString(): string {
    return `LogSegment(baseOffset=${this.baseOffset}, size=${this.size})`;
  }
}
