// Transaction and producer state the log cleaner needs (Kafka gets it from the .txnindex files and
// the ProducerStateManager; here it comes from one scan of the log): aborted transactions, the
// first offset of still-open transactions (the last stable offset bound), and each producer's last
// batch (kept as an empty batch so sequence/epoch state survives compaction).
// CleanedTransactionMetadata mirrors the class of that name in LogCleaner.scala.

import { controlRecordType } from './record-keys.js';
import { isControlBatch, isTransactional, type StoredBatch as BatchInfo } from '../../protocol/records/batch-stored.js';
import type { LogSegment } from './segment.js';

export const CONTROL_ABORT = 0;
export const CONTROL_COMMIT = 1;

export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
}

export interface ProducerLastRecord {
  /** last offset of the producer's last data batch, if any */
  lastDataOffset?: number;
  producerEpoch: number;
  /** max timestamp of the producer's last batch or marker (for expiration) */
  lastTimestamp: number;
}

export interface TxnScan {
  abortedTxns: AbortedTxn[];
  /** first offset of the earliest transaction without a marker yet (undefined: none open) */
  firstUnstableOffset?: number;
  producers: Map<number, ProducerLastRecord>;
}

/** Scans all batches of `segments` below `endOffset`. */
export async function scanTransactions(segments: readonly LogSegment[], endOffset: number): Promise<TxnScan> {
  const open = new Map<number, number>(); // producerId → first offset of the open transaction
  const aborted: AbortedTxn[] = [];
  const producers = new Map<number, ProducerLastRecord>();
  for (const seg of segments) {
    for await (const b of seg.log.batches(0, { withData: true })) {
      if (b.baseOffset >= endOffset) break;
      if (b.magic < 2 || b.producerId < 0) continue;
      const prev = producers.get(b.producerId);
      if (isControlBatch(b)) {
        const type = await controlRecordType(b.data!, b);
        if (type === CONTROL_ABORT || type === CONTROL_COMMIT) {
          const first = open.get(b.producerId);
          open.delete(b.producerId);
          if (type === CONTROL_ABORT)
            aborted.push({ producerId: b.producerId, firstOffset: first ?? b.baseOffset, lastOffset: b.lastOffset });
        }
        producers.set(b.producerId, {
          lastDataOffset: prev?.lastDataOffset,
          producerEpoch: b.producerEpoch,
          lastTimestamp: b.maxTimestamp,
        });
      } else {
        if (isTransactional(b) && !open.has(b.producerId)) open.set(b.producerId, b.baseOffset);
        producers.set(b.producerId, {
          lastDataOffset: b.lastOffset,
          producerEpoch: b.producerEpoch,
          lastTimestamp: b.maxTimestamp,
        });
      }
    }
  }
  aborted.sort((a, b) => a.firstOffset - b.firstOffset);
  let firstUnstableOffset: number | undefined;
  for (const o of open.values())
    firstUnstableOffset = firstUnstableOffset === undefined ? o : Math.min(firstUnstableOffset, o);
  return { abortedTxns: aborted, firstUnstableOffset, producers };
}

/** Tracks transactions while the cleaner walks the log in offset order. */
export class CleanedTransactionMetadata {
  private next = 0;
  private readonly ongoingCommitted = new Set<number>();
  private readonly ongoingAborted = new Map<number, { txn: AbortedTxn; lastObservedBatchOffset?: number }>();

  constructor(private readonly aborted: readonly AbortedTxn[]) {}

  private consumeAbortedTxnsUpTo(offset: number): void {
    while (this.next < this.aborted.length && this.aborted[this.next]!.firstOffset <= offset) {
      const t = this.aborted[this.next++]!;
      this.ongoingAborted.set(t.producerId, { txn: t });
    }
  }

  /** Returns true if the control batch can be discarded (its transaction has no retained batches). */
  async onControlBatchRead(b: BatchInfo): Promise<boolean> {
    this.consumeAbortedTxnsUpTo(b.lastOffset);
    if (b.count <= 0) return true; // an empty control batch was already cleaned
    const type = await controlRecordType(b.data!, b);
    if (type === CONTROL_ABORT) {
      const m = this.ongoingAborted.get(b.producerId);
      this.ongoingAborted.delete(b.producerId);
      // keep the marker until all batches of the transaction are gone
      return !(m && m.lastObservedBatchOffset !== undefined);
    }
    if (type === CONTROL_COMMIT) return !this.ongoingCommitted.delete(b.producerId);
    return false;
  }

  /** Returns true if the data batch belongs to an aborted transaction (and can be discarded). */
  onBatchRead(b: BatchInfo): boolean {
    this.consumeAbortedTxnsUpTo(b.lastOffset);
    if (!isTransactional(b)) return false;
    const m = this.ongoingAborted.get(b.producerId);
    if (m) {
      m.lastObservedBatchOffset = b.lastOffset;
      return true;
    }
    this.ongoingCommitted.add(b.producerId);
    return false;
  }
}
