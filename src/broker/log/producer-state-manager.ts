// The log side of producer state (Kafka's ProducerStateManager + LogLoader.rebuildProducerState):
// the in-memory ProducerStates, the `.txnindex` TransactionIndex, and `.snapshot` files. The
// partition log feeds it every appended batch (onAppended); it snapshots on segment roll and on
// clean close (named after the log end offset then), and on open it loads the newest snapshot at or
// below the log end offset and replays the batches after it — after a crash that rebuilds exactly
// the state (open transactions included) the log implies.

import { promises as fsp } from 'node:fs';
import { RECORD_BATCH_OVERHEAD } from '../../protocol/records/layout.js';
import {
  decodeBatchSync,
  isControlBatch,
  isTransactional,
  parseBatchHeader,
  type StoredBatch as BatchInfo,
} from '../../protocol/records/batch.js';
import type { LogLogger } from './log-errors.js';
import {
  CorruptSnapshotError,
  listSnapshotOffsets,
  readSnapshotFile,
  snapshotFile,
  writeSnapshotFile,
} from '../../storage/producer-snapshot.js';
import { type BatchHeaderInfo, type EndTxnMarkerInfo, ProducerStates } from './producer-state.js';
import type { LogSegment } from './segment.js';
import { TransactionIndex } from '../../storage/txn-index.js';
import { asyncLoadIO, type LoadIO } from '../../storage/load-io.js';

export interface ProducerStateLoadParams {
  dir: string;
  topicPartition: string;
  segments: readonly LogSegment[];
  logStartOffset: number;
  logEndOffset: number;
  clock: () => number;
  logger: LogLogger;
  /**
   * The lowest base offset of the segments whose `.txnindex` the loader found corrupt or whose
   * segment it recovered: their aborted transactions are rebuilt from the log (LogLoader.recoverSegment).
   */
  txnIndexRebuildFrom?: number;
  /** how the `.txnindex` and `.snapshot` files are read (default: fs/promises) */
  io?: LoadIO;
  /** the directory's files as the log's load just listed them (else they are listed here) */
  files?: readonly string[];
}

/** The marker of an uncompressed control batch (COMMIT/ABORT), or undefined for other control types. */
export function parseEndTxnMarker(batch: Buffer, pos = 0): EndTxnMarkerInfo | undefined {
  try {
    const b = decodeBatchSync(batch, pos, { verifyCrc: false });
    const r = b.records[0];
    if (!r?.control || (r.control.type !== 0 && r.control.type !== 1)) return undefined;
    return { commit: r.control.type === 1, coordinatorEpoch: r.control.coordinatorEpoch ?? -1, timestamp: r.timestamp };
  } catch {
    return undefined;
  }
}

/** The producer-state fields of a v2 batch's header view. */
function headerInfo(b: BatchInfo): BatchHeaderInfo {
  return {
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    recordCount: b.lastOffset - b.baseOffset + 1,
    isTransactional: isTransactional(b),
    isControl: isControlBatch(b),
    maxTimestamp: b.maxTimestamp,
  };
}

export class ProducerStateManager {
  readonly states: ProducerStates;
  readonly txnIndex: TransactionIndex;
  private dir: string;
  /** offset up to which (exclusive) appended batches are reflected */
  private lastMapOffset = 0;
  private lastSnapOffset = 0;
  private lastExpiryCheck = 0;
  /** producer.id.expiration.check.interval.ms */
  expirationCheckIntervalMs = 600_000;

  private constructor(
    dir: string,
    topicPartition: string,
    private readonly clock: () => number,
    private readonly logger: LogLogger,
  ) {
    this.dir = dir;
    this.states = new ProducerStates(topicPartition);
    this.txnIndex = new TransactionIndex(dir);
    this.lastExpiryCheck = clock();
  }

  get mapEndOffset(): number {
    return this.lastMapOffset;
  }
  get firstUnstableOffset(): number | undefined {
    return this.states.firstUnstableOffset;
  }

  updateDir(dir: string): void {
    this.dir = dir;
    this.txnIndex.updateDir(dir);
  }

  /** Opens the producer state of a freshly loaded log (snapshot + replay to the log end offset). */
  static async load(p: ProducerStateLoadParams): Promise<ProducerStateManager> {
    const m = new ProducerStateManager(p.dir, p.topicPartition, p.clock, p.logger);
    await m.rebuild(p.segments, p.logStartOffset, p.logEndOffset, p.txnIndexRebuildFrom, p);
    return m;
  }

  /**
   * Rebuilds from the newest valid snapshot at or below logEndOffset (snapshots beyond it, left by
   * a truncated tail, are deleted), replaying the segments after it; then snapshots the result when
   * it had to replay anything. With `txnIndexRebuildFrom` (or when a `.txnindex` fails its check)
   * the `.txnindex` files of the segments from there on are rebuilt from the log: the replay starts
   * at the newest snapshot at or below that segment, as Kafka's LogLoader.recoverSegment rebuilds
   * the producer state up to the segment before recovering it. `listed`: how files are read and
   * the directory's files as just listed (a log's load).
   */
  async rebuild(
    segments: readonly LogSegment[],
    logStartOffset: number,
    logEndOffset: number,
    txnIndexRebuildFrom?: number,
    listed: { io?: LoadIO; files?: readonly string[] } = {},
  ): Promise<void> {
    const now = this.clock();
    this.states.clear();
    const bases = segments.map((s) => s.baseOffset);
    let rebuildFrom = txnIndexRebuildFrom ?? Number.POSITIVE_INFINITY;
    const { io = asyncLoadIO, files } = listed;
    const corrupt = await this.txnIndex.load(bases, logEndOffset, rebuildFrom, { io, names: files });
    if (corrupt.length > 0) {
      for (const c of corrupt)
        this.logger.warn(
          `Found a corrupted index file corresponding to log file ${c.file.slice(0, -'.txnindex'.length)}.log due to ${c.reason}, recovering segment and rebuilding index files...`,
        );
      rebuildFrom = Math.min(rebuildFrom, ...corrupt.map((c) => c.base));
      await this.txnIndex.load(bases, logEndOffset, rebuildFrom, { io });
    }
    let offsets = await listSnapshotOffsets(this.dir, files);
    for (const o of offsets) if (o > logEndOffset) await fsp.rm(snapshotFile(this.dir, o), { force: true });
    offsets = offsets.filter((o) => o <= logEndOffset);
    let from = logStartOffset;
    for (let i = offsets.length - 1; i >= 0; i--) {
      const o = offsets[i]!;
      if (o > rebuildFrom) continue;
      try {
        this.states.loadEntries(await readSnapshotFile(snapshotFile(this.dir, o), io), now);
        from = o;
        break;
      } catch (e) {
        if (!(e instanceof CorruptSnapshotError) && (e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        this.logger.warn(
          `Failed to load producer snapshot from '${snapshotFile(this.dir, o)}': ${(e as Error).message}`,
        );
        await fsp.rm(snapshotFile(this.dir, o), { force: true });
      }
    }
    this.lastSnapOffset = from;
    this.lastMapOffset = from;
    if (from < logEndOffset) {
      const replayed = await this.replay(segments, from, logEndOffset);
      this.lastMapOffset = logEndOffset;
      if (replayed > 0)
        this.logger.info(
          `Reloaded producer state of ${this.states.topicPartition} from offset ${from} to ${logEndOffset} (${replayed} batches)`,
        );
      await this.takeSnapshot(logEndOffset, segments[0]?.baseOffset ?? logStartOffset);
    }
  }

  /** Feeds the batches in [from, to) of the segments into the state (LogLoader.loadProducersFromRecords). */
  private async replay(segments: readonly LogSegment[], from: number, to: number): Promise<number> {
    let n = 0;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const next = segments[i + 1];
      if (next && next.baseOffset <= from) continue;
      if (seg.baseOffset >= to) break;
      const start = seg.baseOffset < from ? await seg.positionOf(from) : 0;
      for await (const b of seg.log.batches(start, { withData: true })) {
        if (b.lastOffset < from) continue;
        if (b.baseOffset >= to) break;
        if (b.magic < 2) continue;
        await this.applyStored(b, seg.baseOffset, true);
        n++;
      }
    }
    return n;
  }

  private async applyStored(b: BatchInfo, segmentBase: number, replaying: boolean): Promise<void> {
    if (b.producerId < 0) return;
    const info = headerInfo(b);
    if (!info.isControl) {
      this.states.applyBatch(info, b.baseOffset, b.lastOffset);
      return;
    }
    if (b.count <= 0 || !b.data) return; // a cleaned-out marker
    const marker = parseEndTxnMarker(b.data, 0);
    if (marker) await this.completeMarker(info, b.baseOffset, marker, segmentBase, replaying);
  }

  private async completeMarker(
    info: BatchHeaderInfo,
    offset: number,
    marker: EndTxnMarkerInfo,
    segmentBase: number,
    replaying: boolean,
  ): Promise<void> {
    const { aborted } = this.states.applyMarker(info.producerId, info.producerEpoch, offset, marker);
    if (!aborted) return;
    if (replaying && aborted.lastOffset <= this.txnIndex.lastOffset) return; // indexed before the crash
    await this.txnIndex.append(segmentBase, aborted);
  }

  /**
   * Called by the log after appending `buf` (offsets assigned) to the segment based at
   * segmentBase: updates every producer the batches carry, indexes aborted transactions.
   */
  async onAppended(buf: Buffer, segmentBase: number, endOffset: number): Promise<void> {
    for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= buf.length;) {
      const b = parseBatchHeader(buf, pos, buf.length - pos, pos);
      if (b.magic >= 2 && b.producerId >= 0) {
        const h = headerInfo(b);
        if (!h.isControl) this.states.applyBatch(h, b.baseOffset, b.lastOffset);
        else {
          const marker = parseEndTxnMarker(buf, pos);
          if (marker) await this.completeMarker(h, b.baseOffset, marker, segmentBase, false);
        }
      }
      pos += b.size;
    }
    this.lastMapOffset = endOffset;
  }

  /** Expires idle producers at most once per check interval (called on appends and lookups). */
  maybeRemoveExpired(): void {
    const now = this.clock();
    if (now - this.lastExpiryCheck < this.expirationCheckIntervalMs) return;
    this.lastExpiryCheck = now;
    this.states.removeExpired(now);
  }

  /**
   * Writes `<offset>.snapshot` (offset = the log end offset the state reflects) unless nothing
   * changed since the last one, and deletes snapshots below the first segment.
   */
  async takeSnapshot(offset: number, firstSegmentBase: number): Promise<void> {
    this.lastMapOffset = Math.max(this.lastMapOffset, offset);
    if (offset > this.lastSnapOffset) {
      await writeSnapshotFile(snapshotFile(this.dir, offset), this.states.snapshotEntries());
      this.lastSnapOffset = offset;
    }
    for (const o of await listSnapshotOffsets(this.dir)) {
      if (o < firstSegmentBase && o < offset) await fsp.rm(snapshotFile(this.dir, o), { force: true });
    }
  }

  /** The log start offset moved (retention, DeleteRecords): forget aborted transactions below it. */
  onLogStartOffsetIncremented(logStartOffset: number): void {
    this.txnIndex.dropBefore(logStartOffset);
    if (this.lastMapOffset < logStartOffset) this.lastMapOffset = logStartOffset;
  }

  /** Truncation (replication, recovery): rebuild from what is left. */
  async truncateAndReload(
    segments: readonly LogSegment[],
    logStartOffset: number,
    logEndOffset: number,
  ): Promise<void> {
    await this.txnIndex.truncateTo(logEndOffset);
    await this.rebuild(segments, logStartOffset, logEndOffset);
  }

  /** The log was emptied and restarts at `offset`. */
  async truncateFullyAndStartAt(offset: number): Promise<void> {
    this.states.clear();
    this.txnIndex.clear();
    for (const o of await listSnapshotOffsets(this.dir)) await fsp.rm(snapshotFile(this.dir, o), { force: true });
    this.lastMapOffset = offset;
    this.lastSnapOffset = 0;
  }
}
