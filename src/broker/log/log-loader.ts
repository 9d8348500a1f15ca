// Loading a partition directory at startup (Kafka's LogLoader.java): remove temporary files,
// complete or discard interrupted swaps, open every segment, recover the unflushed tail
// (unless the log dir was shut down cleanly), and work out the log start/end offsets and the
// recovery point.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { asyncLoadIO, type LoadIO } from '../../storage/load-io.js';
import { CorruptIndexError } from '../../storage/abstract-index.js';
import { isControlBatch } from '../../protocol/records/batch.js';
import { offsetIndexContentError } from '../../storage/offset-index.js';
import { timeIndexContentError } from '../../storage/time-index.js';
import { CorruptTxnIndexError, checkTransactionIndex, txnIndexFile } from '../../storage/txn-index.js';
import { parseEndTxnMarker } from './producer-state-manager.js';
import { randomSegmentJitter, type LogConfig } from './log-config.js';
import type { LeaderEpochCache } from './leader-epoch.js';
import type { LogLogger } from './log-errors.js';
import { LogSegment, type SegmentConfig } from './segment.js';
import {
  CLEANED_FILE_SUFFIX,
  DELETED_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  SWAP_FILE_SUFFIX,
  TIME_INDEX_FILE_SUFFIX,
  offsetFromFileName,
  segmentFile,
  isIndexFileName,
} from '../../storage/log-file-names.js';

export function segmentConfigOf(c: LogConfig): SegmentConfig {
  return {
    indexIntervalBytes: c.indexIntervalBytes,
    maxIndexSize: c.segmentIndexBytes,
    rollJitterMs: randomSegmentJitter(c),
  };
}

export interface LoadParams {
  dir: string;
  config: LogConfig;
  clock: () => number;
  hadCleanShutdown: boolean;
  /** from recovery-point-offset-checkpoint (0 when absent) */
  recoveryPointCheckpoint: number;
  /** from log-start-offset-checkpoint (0 when absent) */
  logStartOffsetCheckpoint: number;
  epochCache: LeaderEpochCache;
  logger: LogLogger;
  /** how the small files are read and the directory listed (default: fs/promises) */
  io?: LoadIO;
  /** the background write of the leader-epoch-checkpoint failed (truncateFromEndAsyncFlush) */
  onAsyncFlushError?: (e: Error) => void;
}

export interface LoadedLog {
  segments: LogSegment[];
  logStartOffset: number;
  recoveryPoint: number;
  logEndOffset: number;
  /** bytes cut off torn/corrupt tails during recovery */
  truncatedBytes: number;
  /** number of segments scanned and rebuilt */
  recoveredSegments: number;
  /**
   * The lowest base offset of a segment recovered because an index file was missing or corrupt:
   * its `.txnindex` (and those after it) were removed, for the producer state to rebuild them from
   * the log (Kafka's recoverSegment rebuilds the segment's TransactionIndex).
   */
  txnIndexRebuildFrom?: number;
  /**
   * The regular files in the directory once loaded, when loading removed and created none of the
   * `.txnindex` and `.snapshot` files (the producer state's load then need not list it again).
   */
  files?: readonly string[];
}

/** What checkSegmentIndexes read of a segment's `.index` and `.timeindex` (deep checks only). */
interface IndexBytes {
  offsetIndex?: Buffer;
  timeIndex?: Buffer;
}

/**
 * The index files of a segment that loading would otherwise trust, checked against each other and
 * the log (Kafka 4.4 checks only the `.txnindex` here, TransactionIndex.sanityCheck, and trusts the
 * `.index`/`.timeindex` of segments below the recovery point; tkafka checks them too, so a corrupt
 * one is rebuilt instead of sending reads to a wrong position). `deep` is false for a segment the
 * unclean-shutdown recovery will rebuild anyway: its `.txnindex` is only checked for its structure.
 * With `deep` and an existing `.timeindex`, this is also the segment's sanityCheck (ENOENT when the
 * `.index` is missing, the files' lengths) made on the bytes read, which it returns.
 * Throws CorruptIndexError.
 */
async function checkSegmentIndexes(
  seg: LogSegment,
  dir: string,
  endOffset: number | undefined,
  deep: boolean,
  io: LoadIO,
  timeIndexNewlyCreated: boolean,
): Promise<IndexBytes> {
  const read: IndexBytes = {};
  if (deep && !timeIndexNewlyCreated) {
    const oi = (read.offsetIndex = await io.read(seg.offsetIndex.file)); // throws ENOENT → caller recovers
    const ti = (read.timeIndex = await io.readIfExists(seg.timeIndex.file));
    seg.checkIndexLengths(oi.length, ti?.length);
  } else {
    await seg.sanityCheck(timeIndexNewlyCreated, io);
    if (deep)
      [read.offsetIndex, read.timeIndex] = [
        await io.readIfExists(seg.offsetIndex.file),
        await io.readIfExists(seg.timeIndex.file),
      ];
  }
  if (deep) {
    const { offsetIndex: oi, timeIndex: ti } = read;
    const oiError = oi && offsetIndexContentError(seg.offsetIndex.file, oi, seg.baseOffset, seg.log.size);
    if (oiError) throw new CorruptIndexError(oiError);
    const tiError = ti && timeIndexContentError(seg.timeIndex.file, ti, seg.baseOffset, endOffset);
    if (tiError) throw new CorruptIndexError(tiError);
  }
  const txnFile = txnIndexFile(dir, seg.baseOffset);
  const txn = await io.readIfExists(txnFile);
  if (!txn || txn.length === 0) return read;
  let entries;
  try {
    entries = checkTransactionIndex(txn, txnFile, seg.baseOffset, endOffset);
  } catch (e) {
    if (e instanceof CorruptTxnIndexError) throw new CorruptIndexError(e.message);
    throw e;
  }
  if (!deep) return read;
  // every entry names the ABORT marker of its producer at its last offset
  for (const e of entries) {
    const at = await seg.translateOffset(e.lastOffset);
    let ok = false;
    if (at) {
      for await (const b of seg.log.batches(at.position, { withData: true })) {
        ok =
          b.baseOffset === e.lastOffset &&
          isControlBatch(b) &&
          b.producerId === e.producerId &&
          (b.count <= 0 || parseEndTxnMarker(b.data!, 0)?.commit === false);
        break;
      }
    }
    if (!ok)
      throw new CorruptIndexError(
        `Corrupt transaction index ${txnFile}: no ABORT marker of producer ${e.producerId} at offset ${e.lastOffset}`,
      );
  }
  return read;
}

const isIndexFile = isIndexFileName;
const isLogFile = (n: string) => n.endsWith(LOG_FILE_SUFFIX);

export async function loadLog(p: LoadParams): Promise<LoadedLog> {
  const { dir, config, clock, logger } = p;
  const io = p.io ?? asyncLoadIO;
  const listFiles = (d: string) => io.listFiles(d);
  let truncatedBytes = 0;
  let recoveredSegments = 0;

  // First pass: remove temporary files, collect interrupted swaps.
  const swapFiles: string[] = [];
  const cleanedFiles: string[] = [];
  let minCleanedFileOffset = Number.POSITIVE_INFINITY;
  // the dir is listed again only after a pass removed or renamed something (10,000 logs load at start-up)
  let listing = await listFiles(dir);
  let stale = false;
  const relist = async (): Promise<string[]> => {
    if (stale) [listing, stale] = [await listFiles(dir), false];
    return listing;
  };
  for (const name of listing) {
    if (name.endsWith(DELETED_FILE_SUFFIX) && !name.endsWith('.checkpoint.deleted')) {
      await fsp.rm(path.join(dir, name), { force: true });
      stale = true;
    } else if (name.endsWith(CLEANED_FILE_SUFFIX)) {
      minCleanedFileOffset = Math.min(offsetFromFileName(name), minCleanedFileOffset);
      cleanedFiles.push(name);
    } else if (name.endsWith(SWAP_FILE_SUFFIX)) {
      swapFiles.push(name);
    }
  }
  const validSwapFiles: string[] = [];
  for (const name of swapFiles) {
    if (offsetFromFileName(name) >= minCleanedFileOffset) {
      await fsp.rm(path.join(dir, name), { force: true });
      stale = true;
    } else validSwapFiles.push(name);
  }
  for (const name of cleanedFiles) {
    await fsp.rm(path.join(dir, name), { force: true });
    stale = true;
  }

  // Second pass: segments replaced by a valid swap but not yet deleted.
  let minSwap = Number.POSITIVE_INFINITY;
  let maxSwap = Number.NEGATIVE_INFINITY;
  for (const name of validSwapFiles) {
    if (!isLogFile(name.slice(0, -SWAP_FILE_SUFFIX.length))) continue;
    const base = offsetFromFileName(name);
    // opening it may create its index files
    stale = true;
    const seg = await LogSegment.open(dir, base, segmentConfigOf(config), clock, {
      fileAlreadyExists: true,
      suffix: SWAP_FILE_SUFFIX,
    });
    try {
      minSwap = Math.min(minSwap, base);
      maxSwap = Math.max(maxSwap, await seg.readNextOffset());
    } finally {
      await seg.close(); // trims any index the lookup had to create
    }
    logger.info(
      `Found log file ${name} from interrupted swap operation, which is recoverable from .swap files by renaming.`,
    );
  }
  for (const name of await relist()) {
    if (name.endsWith(SWAP_FILE_SUFFIX)) continue;
    const off = offsetFromFileName(name);
    if (!Number.isNaN(off) && off >= minSwap && off < maxSwap) {
      await fsp.rm(path.join(dir, name), { force: true });
      stale = true;
    }
  }
  // Third pass: complete the swaps.
  for (const name of await relist()) {
    if (name.endsWith(SWAP_FILE_SUFFIX)) {
      await fsp.rename(path.join(dir, name), path.join(dir, name.slice(0, -SWAP_FILE_SUFFIX.length)));
      stale = true;
    }
  }

  // Fourth pass: open segments.
  const segments: LogSegment[] = [];
  const recoverSegment = async (seg: LogSegment): Promise<number> => {
    recoveredSegments++;
    return seg.recover(p.epochCache);
  };
  const names = [...(await relist())].sort();
  const present = new Set(names);
  const logBases = names
    .filter(isLogFile)
    .map(offsetFromFileName)
    .filter((o) => !Number.isNaN(o))
    .sort((a, b) => a - b);
  // on an unclean shutdown, the segments from the one holding the recovery point are recovered anyway
  let firstRecovered = Number.POSITIVE_INFINITY;
  if (!p.hadCleanShutdown) {
    firstRecovered = logBases[0] ?? 0;
    for (const b of logBases) if (b <= p.recoveryPointCheckpoint) firstRecovered = b;
  }
  let txnIndexRebuildFrom: number | undefined;
  for (const name of names) {
    if (isIndexFile(name)) {
      const off = offsetFromFileName(name);
      if (Number.isNaN(off)) continue;
      if (!present.has(path.basename(segmentFile(dir, off, LOG_FILE_SUFFIX)))) {
        logger.warn(`Found an orphaned index file ${path.join(dir, name)}, with no corresponding log file.`);
        await fsp.rm(path.join(dir, name), { force: true });
        stale = true;
      }
    } else if (isLogFile(name)) {
      const base = offsetFromFileName(name);
      if (Number.isNaN(base)) continue;
      const timeIndexNewlyCreated = !present.has(path.basename(segmentFile(dir, base, TIME_INDEX_FILE_SUFFIX)));
      const seg = await LogSegment.open(dir, base, segmentConfigOf(config), clock, { fileAlreadyExists: true });
      const next = logBases[logBases.indexOf(base) + 1];
      let recover = false;
      try {
        if (timeIndexNewlyCreated && seg.log.size > 0) {
          // Kafka 4.4 recreates a missing .timeindex empty (a pre-0.10 upgrade path) and keeps it so:
          // the segment's largest timestamp then falls back to the file's mtime and lookups by time
          // skip it. tkafka rebuilds it (no Kafka line for this; worded as the .index one).
          logger.warn(
            `Could not find time index file corresponding to log file ${seg.log.file}, recovering segment and rebuilding index files...`,
          );
          recover = true;
        } else {
          const read = await checkSegmentIndexes(seg, dir, next, base < firstRecovered, io, timeIndexNewlyCreated);
          // the last segment's indexes are loaded next (its next offset, the active segment's resize):
          // from the bytes just read. The others' stay unloaded until a read needs them.
          if (next === undefined) {
            if (read.offsetIndex) seg.offsetIndex.adopt(read.offsetIndex);
            if (read.timeIndex) seg.timeIndex.adopt(read.timeIndex);
          }
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
          if (p.hadCleanShutdown || base < p.recoveryPointCheckpoint)
            logger.warn(
              `Could not find offset index file corresponding to log file ${seg.log.file}, recovering segment and rebuilding index files...`,
            );
        } else if (e instanceof CorruptIndexError) {
          logger.warn(
            `Found a corrupted index file corresponding to log file ${seg.log.file} due to ${e.message}, recovering segment and rebuilding index files...`,
          );
        } else throw e;
        recover = true;
      }
      if (recover) {
        stale = true;
        await fsp.rm(txnIndexFile(dir, base), { force: true });
        txnIndexRebuildFrom = Math.min(txnIndexRebuildFrom ?? base, base);
        truncatedBytes += await recoverSegment(seg);
      }
      segments.push(seg);
    }
  }
  segments.sort((a, b) => a.baseOffset - b.baseOffset);

  const deleteSegments = async (toDelete: LogSegment[]): Promise<void> => {
    stale ||= toDelete.length > 0;
    for (const s of toDelete) {
      const i = segments.indexOf(s);
      if (i >= 0) segments.splice(i, 1);
      await s.deleteIfExists();
    }
  };

  // recoverLog
  if (!p.hadCleanShutdown) {
    let start = 0;
    for (let i = 0; i < segments.length; i++) if (segments[i]!.baseOffset <= p.recoveryPointCheckpoint) start = i;
    const unflushed = segments.slice(start);
    stale ||= unflushed.length > 0;
    // Kafka's recoverSegment rebuilds each recovered segment's TransactionIndex from the log (an
    // entry appended after its marker may be torn or missing after a crash)
    if (unflushed.length > 0)
      txnIndexRebuildFrom = Math.min(txnIndexRebuildFrom ?? unflushed[0]!.baseOffset, unflushed[0]!.baseOffset);
    for (let i = 0; i < unflushed.length; i++) {
      const seg = unflushed[i]!;
      logger.info(`Recovering unflushed segment ${seg.baseOffset} in ${dir}`);
      let truncated: number;
      try {
        truncated = await recoverSegment(seg);
      } catch (e) {
        logger.warn(
          `Found invalid offset during recovery of ${seg.log.file} (${(e as Error).message}); truncating the segment to empty`,
        );
        truncated = await seg.truncateTo(seg.baseOffset);
      }
      truncatedBytes += truncated;
      if (truncated > 0) {
        logger.warn(
          `Corruption found in segment ${seg.baseOffset} of ${dir}, truncating to offset ${await seg.readNextOffset()}`,
        );
        await deleteSegments(unflushed.slice(i + 1));
        break;
      }
    }
  }

  // deleteSegmentsIfLogStartGreaterThanLogEnd
  let logEndOffset: number | undefined;
  if (segments.length > 0) {
    const leo = await segments[segments.length - 1]!.readNextOffset();
    if (leo >= p.logStartOffsetCheckpoint) logEndOffset = leo;
    else {
      logger.warn(
        `Deleting all segments of ${dir} because logEndOffset (${leo}) is smaller than logStartOffset ${p.logStartOffsetCheckpoint}.`,
      );
      await deleteSegments([...segments]);
      await p.epochCache.clear();
    }
  }
  if (segments.length === 0) {
    stale = true;
    segments.push(await LogSegment.open(dir, p.logStartOffsetCheckpoint, segmentConfigOf(config), clock));
  }
  let recoveryPoint: number;
  let nextOffset: number;
  if (p.hadCleanShutdown && logEndOffset !== undefined) {
    recoveryPoint = nextOffset = logEndOffset;
  } else {
    nextOffset = logEndOffset ?? (await segments[segments.length - 1]!.readNextOffset());
    recoveryPoint = Math.min(p.recoveryPointCheckpoint, nextOffset);
  }
  // let the active segment take more index entries
  await segments[segments.length - 1]!.resizeIndexes(config.segmentIndexBytes);

  p.epochCache.truncateFromEndAsyncFlush(nextOffset, (e) => p.onAsyncFlushError?.(e));
  const logStartOffset = Math.max(p.logStartOffsetCheckpoint, segments[0]!.baseOffset);
  await p.epochCache.truncateFromStart(p.logStartOffsetCheckpoint);
  return {
    segments,
    logStartOffset,
    recoveryPoint,
    logEndOffset: nextOffset,
    truncatedBytes,
    recoveredSegments,
    txnIndexRebuildFrom,
    ...(stale ? {} : { files: listing }),
  };
}
