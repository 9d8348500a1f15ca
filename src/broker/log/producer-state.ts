// Producer state of a partition (Kafka's ProducerStateEntry, ProducerAppendInfo and the in-memory
// half of ProducerStateManager): per producer id the epoch, the coordinator epoch of the last
// marker, the last five batches' sequence ranges (retries of any of them are duplicates answered
// with the original offsets), and the first offset of its open transaction. The ongoing
// transactions give the first unstable offset (the last stable offset's bound); completing an
// aborted one yields the `.txnindex` entry.
//
// Validation (`validate`) is pure and runs before an append; `applyBatch`/`applyMarker` run after
// the bytes are in the log (the log calls them for every appended batch, whoever appended it).

import { ErrorCode } from '../../protocol/errors.js';
import type { AbortedTxnEntry } from '../../storage/txn-index.js';
import type { SnapshotEntry } from '../../storage/producer-snapshot.js';

export const NUM_BATCHES_TO_RETAIN = 5;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
const INT32_MAX = 2147483647;

/** DefaultRecordBatch.incrementSequence / decrementSequence: sequences wrap at Integer.MAX_VALUE. */
export function incrementSequence(seq: number, increment: number): number {
  if (seq > INT32_MAX - increment) return increment - (INT32_MAX - seq) - 1;
  return seq + increment;
}

export function decrementSequence(seq: number, decrement: number): number {
  if (seq < decrement) return INT32_MAX - (decrement - seq) + 1;
  return seq - decrement;
}

export interface BatchMetadata {
  lastSeq: number;
  lastOffset: number;
  /** lastOffset - firstOffset */
  offsetDelta: number;
  timestamp: number;
}

export const firstSeqOf = (b: BatchMetadata): number =>
  b.lastSeq < 0 ? NO_SEQUENCE : decrementSequence(b.lastSeq, b.offsetDelta);
export const firstOffsetOf = (b: BatchMetadata): number => b.lastOffset - b.offsetDelta;

export class ProducerStateEntry {
  readonly batches: BatchMetadata[] = [];
  constructor(
    readonly producerId: number,
    public producerEpoch = NO_PRODUCER_EPOCH,
    public coordinatorEpoch = -1,
    public lastTimestamp = -1,
    /** first offset of the open transaction, -1 when none */
    public currentTxnFirstOffset = -1,
  ) {}

  get isEmpty(): boolean {
    return this.batches.length === 0;
  }
  get lastSeq(): number {
    return this.batches.length === 0 ? NO_SEQUENCE : this.batches[this.batches.length - 1]!.lastSeq;
  }
  get firstSeq(): number {
    return this.batches.length === 0 ? NO_SEQUENCE : firstSeqOf(this.batches[0]!);
  }
  get lastDataOffset(): number {
    return this.batches.length === 0 ? -1 : this.batches[this.batches.length - 1]!.lastOffset;
  }
  get lastOffsetDelta(): number {
    return this.batches.length === 0 ? 0 : this.batches[this.batches.length - 1]!.offsetDelta;
  }

  /** A new epoch forgets the batches of the old one. */
  maybeUpdateProducerEpoch(epoch: number): boolean {
    if (this.producerEpoch === epoch) return false;
    this.batches.length = 0;
    this.producerEpoch = epoch;
    return true;
  }

  addBatch(epoch: number, lastSeq: number, lastOffset: number, offsetDelta: number, timestamp: number): void {
    this.maybeUpdateProducerEpoch(epoch);
    if (this.batches.length === NUM_BATCHES_TO_RETAIN) this.batches.shift();
    this.batches.push({ lastSeq, lastOffset, offsetDelta, timestamp });
    this.lastTimestamp = timestamp;
  }

  /** The cached batch with exactly this sequence range in the current epoch (a retried batch). */
  findDuplicate(epoch: number, firstSeq: number, lastSeq: number): BatchMetadata | undefined {
    if (epoch !== this.producerEpoch) return undefined;
    return this.batches.find((b) => firstSeqOf(b) === firstSeq && b.lastSeq === lastSeq);
  }

  toSnapshot(): SnapshotEntry {
    return {
      producerId: this.producerId,
      producerEpoch: this.producerEpoch,
      lastSequence: this.lastSeq,
      lastOffset: this.lastDataOffset,
      offsetDelta: this.lastOffsetDelta,
      timestamp: this.lastTimestamp,
      coordinatorEpoch: this.coordinatorEpoch,
      currentTxnFirstOffset: this.currentTxnFirstOffset,
    };
  }

  static fromSnapshot(s: SnapshotEntry): ProducerStateEntry {
    const e = new ProducerStateEntry(
      s.producerId,
      s.producerEpoch,
      s.coordinatorEpoch,
      s.timestamp,
      s.currentTxnFirstOffset >= 0 ? s.currentTxnFirstOffset : -1,
    );
    if (s.lastOffset >= 0)
      e.batches.push({
        lastSeq: s.lastSequence,
        lastOffset: s.lastOffset,
        offsetDelta: s.offsetDelta,
        timestamp: s.timestamp,
      });
    return e;
  }
}

/** The producer fields of a batch header. */
export interface BatchHeaderInfo {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  /** records in the batch (lastOffsetDelta + 1 for producers' batches) */
  recordCount: number;
  isTransactional: boolean;
  isControl: boolean;
  maxTimestamp: number;
}

export type ValidationOrigin = 'client' | 'coordinator' | 'replication';

export type ValidationResult =
  | { kind: 'append' }
  | { kind: 'duplicate'; firstOffset: number; lastOffset: number; timestamp: number }
  | { kind: 'error'; errorCode: number; message: string };

export interface EndTxnMarkerInfo {
  commit: boolean;
  coordinatorEpoch: number;
  timestamp: number;
}

export interface CompletedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  isAborted: boolean;
}

const lastSeqOfBatch = (b: BatchHeaderInfo): number =>
  b.baseSequence < 0 ? NO_SEQUENCE : incrementSequence(b.baseSequence, Math.max(0, b.recordCount - 1));

const fail = (errorCode: number, message: string): ValidationResult => ({ kind: 'error', errorCode, message });

export class ProducerStates {
  readonly producers = new Map<number, ProducerStateEntry>();
  /** open transactions by first offset (insertion order = offset order) → producer id */
  private readonly ongoing = new Map<number, number>();
  /** producer.id.expiration.ms */
  expirationMs = 86_400_000;

  constructor(readonly topicPartition: string) {}

  get(producerId: number): ProducerStateEntry | undefined {
    return this.producers.get(producerId);
  }

  /** First offset of the earliest open transaction, undefined when none (LSO = HW then). */
  get firstUnstableOffset(): number | undefined {
    for (const first of this.ongoing.keys()) return first;
    return undefined;
  }

  get ongoingTransactionCount(): number {
    return this.ongoing.size;
  }

  /** UnifiedLog.hasOngoingTransaction: with an epoch, only a transaction of that epoch counts (KIP-890 part 2). */
  hasOngoingTransaction(producerId: number, producerEpoch?: number): boolean {
    const p = this.producers.get(producerId);
    if (!p || (p.currentTxnFirstOffset ?? -1) < 0) return false;
    return producerEpoch === undefined || p.producerEpoch === producerEpoch;
  }

  /**
   * Checks a batch about to be appended at `offset` (UnifiedLog.analyzeAndValidateProducerState and
   * ProducerAppendInfo): duplicates of the last five batches (clients only), the epoch, the
   * sequence (clients only), and transactional consistency. Markers check epoch and coordinator epoch.
   */
  validate(b: BatchHeaderInfo, offset: number, origin: ValidationOrigin, marker?: EndTxnMarkerInfo): ValidationResult {
    if (b.producerId < 0 || origin === 'replication') return { kind: 'append' };
    const current = this.producers.get(b.producerId);
    const tp = this.topicPartition;
    const pid = b.producerId;
    const lastSeq = lastSeqOfBatch(b);
    if (origin === 'client' && current && !b.isControl) {
      const dup = current.findDuplicate(b.producerEpoch, b.baseSequence, lastSeq);
      if (dup)
        return {
          kind: 'duplicate',
          firstOffset: firstOffsetOf(dup),
          lastOffset: dup.lastOffset,
          timestamp: dup.timestamp,
        };
    }
    const epoch = current?.producerEpoch ?? NO_PRODUCER_EPOCH;
    if (b.producerEpoch < epoch) {
      return fail(
        ErrorCode.INVALID_PRODUCER_EPOCH,
        `Epoch of producer ${pid} at offset ${offset} in ${tp} is ${b.producerEpoch}, which is smaller than the last seen epoch ${epoch}`,
      );
    }
    if (b.isControl) {
      if (marker && current && current.coordinatorEpoch > marker.coordinatorEpoch) {
        return fail(
          ErrorCode.TRANSACTION_COORDINATOR_FENCED,
          `Invalid coordinator epoch for producerId ${pid} at offset ${offset} in partition ${tp}: ${marker.coordinatorEpoch} (zombie), ${current.coordinatorEpoch} (current)`,
        );
      }
      return { kind: 'append' };
    }
    if (origin === 'client') {
      if (b.producerEpoch !== epoch) {
        if (b.baseSequence !== 0 && epoch !== NO_PRODUCER_EPOCH) {
          return fail(
            ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
            `Invalid sequence number for new epoch of producer ${pid}at offset ${offset} in partition ${tp}: ${b.producerEpoch} (request epoch), ${b.baseSequence} (seq. number), ${epoch} (current producer epoch)`,
          );
        }
      } else {
        const currentLastSeq = current ? current.lastSeq : NO_SEQUENCE;
        const inSequence =
          b.baseSequence === currentLastSeq + 1 || (b.baseSequence === 0 && currentLastSeq === INT32_MAX);
        if (!(epoch === NO_PRODUCER_EPOCH || inSequence)) {
          return fail(
            ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
            `Out of order sequence number for producer ${pid} at offset ${offset} in partition ${tp}: ${b.baseSequence} (incoming seq. number), ${currentLastSeq} (current end sequence number)`,
          );
        }
      }
    }
    if (current && current.currentTxnFirstOffset >= 0 && !b.isTransactional) {
      return fail(
        ErrorCode.INVALID_TXN_STATE,
        `Expected transactional write from producer ${pid} at offset ${offset} in partition ${tp}`,
      );
    }
    return { kind: 'append' };
  }

  private entryFor(producerId: number): ProducerStateEntry {
    let e = this.producers.get(producerId);
    if (!e) this.producers.set(producerId, (e = new ProducerStateEntry(producerId)));
    return e;
  }

  /** Records an appended data batch [firstOffset, lastOffset]. */
  applyBatch(b: BatchHeaderInfo, firstOffset: number, lastOffset: number): void {
    if (b.producerId < 0) return;
    const e = this.entryFor(b.producerId);
    e.addBatch(b.producerEpoch, lastSeqOfBatch(b), lastOffset, lastOffset - firstOffset, b.maxTimestamp);
    if (b.isTransactional && e.currentTxnFirstOffset < 0) {
      e.currentTxnFirstOffset = firstOffset;
      this.ongoing.set(firstOffset, b.producerId);
    }
  }

  /**
   * Records an appended COMMIT/ABORT marker at `offset`. Returns the completed transaction (when the
   * producer had one open) and, for an aborted one, the `.txnindex` entry with the LSO at the marker.
   */
  applyMarker(
    producerId: number,
    producerEpoch: number,
    offset: number,
    m: EndTxnMarkerInfo,
  ): { completed?: CompletedTxn; aborted?: AbortedTxnEntry } {
    const e = this.entryFor(producerId);
    let completed: CompletedTxn | undefined;
    if (e.currentTxnFirstOffset >= 0)
      completed = { producerId, firstOffset: e.currentTxnFirstOffset, lastOffset: offset, isAborted: !m.commit };
    e.maybeUpdateProducerEpoch(producerEpoch);
    e.coordinatorEpoch = m.coordinatorEpoch;
    e.currentTxnFirstOffset = -1;
    e.lastTimestamp = m.timestamp;
    if (!completed) return {};
    let aborted: AbortedTxnEntry | undefined;
    if (completed.isAborted) {
      // ProducerStateManager.lastStableOffset: the first other open transaction, else after the marker
      let lso = offset + 1;
      for (const [first, pid] of this.ongoing) {
        if (pid !== producerId) {
          lso = first;
          break;
        }
      }
      aborted = { producerId, firstOffset: completed.firstOffset, lastOffset: offset, lastStableOffset: lso };
    }
    this.ongoing.delete(completed.firstOffset);
    return { completed, aborted };
  }

  /** Drops producers idle longer than producer.id.expiration.ms (never one with an open transaction). */
  removeExpired(now: number): number {
    let n = 0;
    for (const [pid, e] of this.producers) {
      if (e.currentTxnFirstOffset < 0 && now - e.lastTimestamp >= this.expirationMs) {
        this.producers.delete(pid);
        n++;
      }
    }
    return n;
  }

  isExpired(now: number, s: SnapshotEntry): boolean {
    return s.currentTxnFirstOffset < 0 && now - s.timestamp >= this.expirationMs;
  }

  clear(): void {
    this.producers.clear();
    this.ongoing.clear();
  }

  /** Loads snapshot entries (replacing the current state). */
  loadEntries(entries: readonly SnapshotEntry[], now: number): void {
    this.clear();
    const txns: [number, number][] = [];
    for (const s of entries) {
      if (this.isExpired(now, s)) continue;
      const e = ProducerStateEntry.fromSnapshot(s);
      this.producers.set(e.producerId, e);
      if (e.currentTxnFirstOffset >= 0) txns.push([e.currentTxnFirstOffset, e.producerId]);
    }
    txns.sort((a, b) => a[0] - b[0]);
    for (const [first, pid] of txns) this.ongoing.set(first, pid);
  }

  snapshotEntries(): SnapshotEntry[] {
    return [...this.producers.values()].map((e) => e.toSnapshot());
  }
}
