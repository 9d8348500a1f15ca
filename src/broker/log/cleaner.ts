// Log compaction (Kafka's LogCleaner.scala / LogCleanerManager.scala) for cleanup.policy=compact
// (and compact,delete): over the non-active segments below the high watermark, keep the latest
// record per key, drop tombstones (and transaction markers) once their delete horizon has passed,
// drop aborted transactional data, keep offsets (batches are re-encoded only when records go) and
// swap the cleaned segments in crash-safely (.cleaned → .swap → final names).

import { createHash } from 'node:crypto';
import { CleanedTransactionMetadata, scanTransactions, type ProducerLastRecord } from './cleaner-txn.js';
import {
  hasDeleteHorizon,
  isControlBatch,
  type StoredBatch as BatchInfo,
} from '../../protocol/records/batch-stored.js';
import { segmentConfigOf } from './log-loader.js';
import type { PartitionLog } from './partition-log.js';
import { emptyBatch, readRecords, rebuildBatch, type RecordView } from './record-keys.js';
import { LogSegment } from './segment.js';
import { CLEANED_FILE_SUFFIX, removeSegmentFiles } from '../../storage/log-file-names.js';

const INT32_MAX = 0x7fffffff;

export interface CleanerOptions {
  clock?: () => number;
  /** key capacity of the offset map (Kafka sizes it from log.cleaner.dedupe.buffer.size) */
  maxMapEntries?: number;
  /** producers idle longer than this are not protected (producer.id.expiration.ms) */
  producerIdExpirationMs?: number;
}

export interface CleanerStats {
  messagesRead: number;
  messagesRetained: number;
  bytesRead: number;
  bytesRetained: number;
  segmentsCleaned: number;
}

export interface CleanResult {
  /** the new cleaner checkpoint (first dirty offset of the next round) */
  endOffset: number;
  stats: CleanerStats;
}

export interface LogToClean {
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  cleanBytes: number;
  cleanableBytes: number;
  cleanableRatio: number;
  /** max.compaction.lag.ms exceeded for some dirty segment */
  needCompactionNow: boolean;
}

/** Kafka's cleanableOffsets + LogToClean: what a cleaning round of this log would cover. */
export async function logToClean(
  log: PartitionLog,
  lastCleanOffset: number | undefined,
  now: number,
  firstUnstableOffset?: number,
): Promise<LogToClean> {
  const cfg = log.config;
  let firstDirtyOffset = lastCleanOffset ?? log.logStartOffset;
  if (firstDirtyOffset < log.logStartOffset || firstDirtyOffset > log.logEndOffset)
    firstDirtyOffset = log.logStartOffset;
  const active = log.activeSegment;
  const nonActiveDirty = log.segmentsInRange(firstDirtyOffset, Number.MAX_SAFE_INTEGER).filter((s) => s !== active);
  let firstUncleanable = Math.min(log.highWatermark, active.baseOffset, firstUnstableOffset ?? Number.MAX_SAFE_INTEGER);
  const lag = Math.max(cfg.minCompactionLagMs, 0);
  if (lag > 0) {
    for (const s of nonActiveDirty) {
      if ((await s.largestTimestamp()) > now - lag) {
        firstUncleanable = Math.min(firstUncleanable, s.baseOffset);
        break;
      }
    }
  }
  firstUncleanable = Math.max(firstDirtyOffset, firstUncleanable);
  // calculateCleanableBytes: whole segments from the first dirty one up to the first uncleanable one
  const firstUncleanableSeg = log.segments.find((s) => s !== active && s.baseOffset >= firstUncleanable) ?? active;
  const cleanableBytes = log
    .segmentsInRange(Math.min(firstDirtyOffset, firstUncleanableSeg.baseOffset), firstUncleanableSeg.baseOffset)
    .reduce((n, s) => n + s.size, 0);
  const cleanBytes = log.segmentsInRange(-1, firstDirtyOffset).reduce((n, s) => n + s.size, 0);
  const total = cleanBytes + cleanableBytes;
  let needCompactionNow = false;
  if (cfg.maxCompactionLagMs < Number.MAX_SAFE_INTEGER && cleanableBytes > 0) {
    for (const s of nonActiveDirty) {
      if ((await s.getFirstBatchTimestamp()) < now - cfg.maxCompactionLagMs) needCompactionNow = true;
    }
  }
  return {
    firstDirtyOffset,
    firstUncleanableOffset: firstUncleanable,
    cleanBytes,
    cleanableBytes,
    cleanableRatio: total === 0 ? 0 : cleanableBytes / total,
    needCompactionNow,
  };
}

/** Whether Kafka's cleaner would pick this log (grabFilthiestCompactedLog's filter). */
export function shouldClean(log: PartitionLog, t: LogToClean): boolean {
  return (
    log.config.compact &&
    ((t.needCompactionNow && t.cleanableBytes > 0) || t.cleanableRatio > log.config.minCleanableDirtyRatio)
  );
}

function mapKey(key: Buffer): string {
  return key.length <= 32
    ? '\u0000' + key.toString('latin1')
    : '\u0001' + createHash('md5').update(key).digest('base64');
}

interface OffsetMap {
  map: Map<string, number>;
  latestOffset: number;
}

/** Kafka's buildOffsetMap: key → last offset over [start, end), stopping early if the map fills. */
async function buildOffsetMap(
  log: PartitionLog,
  start: number,
  end: number,
  maxEntries: number,
  aborted: CleanedTransactionMetadata,
): Promise<OffsetMap> {
  const om: OffsetMap = { map: new Map(), latestOffset: -1 };
  const dirty = log.segmentsInRange(start, end);
  for (let i = 0; i < dirty.length; i++) {
    const seg = dirty[i]!;
    const nextStart = i + 1 < dirty.length ? dirty[i + 1]!.baseOffset : end;
    for await (const b of seg.log.batches(await seg.positionOf(start), { withData: true })) {
      if (b.baseOffset >= end) break;
      if (isControlBatch(b)) await aborted.onControlBatchRead(b);
      else if (!aborted.onBatchRead(b) && b.magic >= 2) {
        for (const r of await readRecords(b.data!, b)) {
          if (r.key === null || r.offset < start) continue;
          const k = mapKey(r.key);
          if (om.map.size >= maxEntries && !om.map.has(k)) return om; // full: the rest stays dirty
          om.map.set(k, r.offset);
        }
      }
      if (b.lastOffset >= start) om.latestOffset = Math.max(om.latestOffset, b.lastOffset);
    }
    om.latestOffset = Math.max(om.latestOffset, nextStart - 1);
  }
  return om;
}

/** Kafka's groupSegmentsBySize: consecutive segments fitting one segment (bytes, index bytes, int32 offsets). */
export async function groupSegmentsBySize(
  segments: LogSegment[],
  maxSize: number,
  maxIndexSize: number,
  firstUncleanableOffset: number,
): Promise<LogSegment[][]> {
  const groups: LogSegment[][] = [];
  let rest = [...segments];
  while (rest.length > 0) {
    const first = rest[0]!;
    const group = [first];
    let logSize = first.size;
    let { offsetIndex: indexSize, timeIndex: timeIndexSize } = await first.indexSizes();
    rest = rest.slice(1);
    while (rest.length > 0) {
      const head = rest[0]!;
      const sizes = await head.indexSizes();
      const lastOffsetOfHead = rest.length > 1 ? rest[1]!.baseOffset - 1 : firstUncleanableOffset - 1;
      if (!(
        logSize + head.size <= maxSize &&
        indexSize + sizes.offsetIndex <= maxIndexSize &&
        timeIndexSize + sizes.timeIndex <= maxIndexSize &&
        (head.size === 0 || lastOffsetOfHead - first.baseOffset <= INT32_MAX)
      ))
        break;
      group.push(head);
      logSize += head.size;
      indexSize += sizes.offsetIndex;
      timeIndexSize += sizes.timeIndex;
      rest = rest.slice(1);
    }
    groups.push(group);
  }
  return groups;
}

interface FilterContext {
  now: number;
  deleteRetentionMs: number;
  offsetMap: OffsetMap;
  txn: CleanedTransactionMetadata;
  producers: Map<number, ProducerLastRecord>;
  upperBoundOffsetOfCleaningRound: number;
  stats: CleanerStats;
}

/** The cleaned form of one batch (Kafka's RecordFilter + MemoryRecords.filterTo), or undefined to drop it. */
async function filterBatch(b: BatchInfo, ctx: FilterContext): Promise<Buffer | undefined> {
  const data = b.data!;
  if (b.magic < 2) return Buffer.from(data); // legacy message sets are copied as they are
  const canDiscardBatch = isControlBatch(b) ? await ctx.txn.onControlBatchRead(b) : ctx.txn.onBatchRead(b);
  const deleteHorizon = hasDeleteHorizon(b) ? b.baseTimestamp : undefined;
  const discardBatchRecords = isControlBatch(b)
    ? canDiscardBatch && deleteHorizon !== undefined && deleteHorizon <= ctx.now
    : canDiscardBatch;
  const last = ctx.producers.get(b.producerId);
  const isLastBatchOfProducer =
    b.producerId >= 0 &&
    last !== undefined &&
    (last.lastDataOffset !== undefined
      ? b.lastOffset === last.lastDataOffset
      : isControlBatch(b) && b.producerEpoch === last.producerEpoch);
  const retainEmpty = isLastBatchOfProducer || b.lastOffset + 1 === ctx.upperBoundOffsetOfCleaningRound;
  if (!retainEmpty && discardBatchRecords) return undefined;
  const containsMarkerForEmptyTxn = canDiscardBatch && isControlBatch(b);

  const records = await readRecords(data, b);
  ctx.stats.messagesRead += records.length;
  const retained: RecordView[] = [];
  let containsTombstones = false;
  for (const r of records) {
    let keep: boolean;
    if (discardBatchRecords) keep = false;
    else if (isControlBatch(b)) keep = true;
    else if (r.offset > ctx.offsetMap.latestOffset) keep = true;
    else if (r.key === null) keep = false;
    else {
      const found = ctx.offsetMap.map.get(mapKey(r.key)) ?? -1;
      const retainDeletes = deleteHorizon === undefined || ctx.now < deleteHorizon;
      keep = r.offset >= found && (!r.valueIsNull || retainDeletes);
    }
    if (keep) {
      retained.push(r);
      if (r.valueIsNull) containsTombstones = true;
    }
  }
  if (retained.length > 0) {
    const needToSetDeleteHorizon = (containsTombstones || containsMarkerForEmptyTxn) && deleteHorizon === undefined;
    if (retained.length === records.length && !needToSetDeleteHorizon) return Buffer.from(data);
    const horizon = needToSetDeleteHorizon ? ctx.now + ctx.deleteRetentionMs : deleteHorizon;
    return rebuildBatch(b, retained, { deleteHorizonMs: horizon });
  }
  return retainEmpty ? emptyBatch(b) : undefined;
}

async function newCleanedSegment(log: PartitionLog, baseOffset: number, clock: () => number): Promise<LogSegment> {
  await removeSegmentFiles(log.dir, baseOffset, CLEANED_FILE_SUFFIX);
  return LogSegment.open(log.dir, baseOffset, segmentConfigOf(log.config), clock, { suffix: CLEANED_FILE_SUFFIX });
}

const FLUSH_CHUNK = 1024 * 1024;

/** Cleans `group` into one new segment and swaps it in (under the log's queue). Returns false if aborted. */
async function cleanSegments(
  log: PartitionLog,
  group: LogSegment[],
  ctx: FilterContext,
  clock: () => number,
): Promise<boolean> {
  const cleaned = await newCleanedSegment(log, group[0]!.baseOffset, clock);
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let largestOffset = -1;
    let maxTs = -1;
    let shallow = -1;
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      await cleaned.append(largestOffset, maxTs, shallow, Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
      maxTs = -1;
    };
    for (const seg of group) {
      for await (const b of seg.log.batches(0, { withData: true })) {
        ctx.stats.bytesRead += b.size;
        const out = await filterBatch(b, ctx);
        if (!out) continue;
        ctx.stats.bytesRetained += out.length;
        ctx.stats.messagesRetained += b.magic >= 2 ? out.readInt32BE(57) : 1;
        pending.push(out);
        pendingBytes += out.length;
        largestOffset = b.lastOffset;
        const ts = b.magic >= 2 ? Number(out.readBigInt64BE(35)) : b.maxTimestamp;
        if (ts > maxTs) {
          maxTs = ts;
          shallow = b.lastOffset;
        }
        if (pendingBytes >= FLUSH_CHUNK) await flush();
      }
    }
    await flush();
    await cleaned.onBecomeInactiveSegment();
    await cleaned.flush();
    await cleaned.setLastModified(await group[group.length - 1]!.lastModified());
    const swapped = await log.queue.run(async () => {
      // retention or truncation may have removed some of the sources meanwhile
      if (log.isClosed || !group.every((s) => log.segments.includes(s))) return false;
      await log.replaceSegments([cleaned], group);
      return true;
    });
    if (!swapped) await cleaned.deleteIfExists();
    else ctx.stats.segmentsCleaned += group.length;
    return swapped;
  } catch (e) {
    await cleaned.deleteIfExists().catch(() => undefined);
    throw e;
  }
}

/**
 * One cleaning round of a compacted log (Kafka's Cleaner.doClean). `lastCleanOffset` is the
 * log's cleaner-offset-checkpoint entry. Returns undefined when nothing is cleanable or the round
 * was aborted; otherwise the new checkpoint.
 */
export async function cleanLog(
  log: PartitionLog,
  lastCleanOffset: number | undefined,
  opts: CleanerOptions = {},
): Promise<CleanResult | undefined> {
  const clock = opts.clock ?? Date.now;
  const now = clock();
  const segmentsSnapshot = [...log.segments];
  const txns = await scanTransactions(segmentsSnapshot, log.logEndOffset);
  const range = await logToClean(log, lastCleanOffset, now, txns.firstUnstableOffset);
  if (range.firstUncleanableOffset <= range.firstDirtyOffset) return undefined;
  const offsetMap = await buildOffsetMap(
    log,
    range.firstDirtyOffset,
    range.firstUncleanableOffset,
    opts.maxMapEntries ?? 4_000_000,
    new CleanedTransactionMetadata(txns.abortedTxns),
  );
  const endOffset = offsetMap.latestOffset + 1;
  if (endOffset <= range.firstDirtyOffset) return undefined;
  const expiry = opts.producerIdExpirationMs ?? 86_400_000;
  const producers = new Map([...txns.producers].filter(([, p]) => p.lastTimestamp >= now - expiry));
  const stats: CleanerStats = {
    messagesRead: 0,
    messagesRetained: 0,
    bytesRead: 0,
    bytesRetained: 0,
    segmentsCleaned: 0,
  };
  const ctx: FilterContext = {
    now,
    deleteRetentionMs: log.config.deleteRetentionMs,
    offsetMap,
    txn: new CleanedTransactionMetadata(txns.abortedTxns),
    producers,
    upperBoundOffsetOfCleaningRound: range.firstUncleanableOffset,
    stats,
  };
  const toClean = log.segmentsInRange(0, endOffset).filter((s) => s !== log.activeSegment);
  const groups = await groupSegmentsBySize(
    toClean,
    log.config.segmentBytes,
    log.config.segmentIndexBytes,
    range.firstUncleanableOffset,
  );
  for (const group of groups) {
    if (!(await cleanSegments(log, group, ctx, clock))) return undefined;
  }
  return { endOffset, stats };
}
