// One partition this broker leads (Kafka's cluster.Partition, leader side): the log, the leader
// epoch, replica set and ISR, the topic configuration, high-watermark maintenance, and a small
// ledger of appended bytes by offset that lets delayed fetches count available bytes without
// touching the log.

import { ErrorCode } from '../../protocol/errors.js';
import type { PartitionLog } from '../log/partition-log.js';
import type { TopicConfig } from './topic-config.js';
import { abortedTransactionsIn, DEFAULT_PRODUCER_STATE_HOOK, type EosHook } from './eos.js';

export const NO_EPOCH = -1;

/**
 * Cumulative bytes appended, sampled at batch boundaries: entry i says "the log up to (exclusive)
 * end[i] holds cum[i] bytes appended since this broker became leader". Bounded ring; offsets older
 * than the ring are "unknown" (the caller treats them as plenty of data, like Kafka's fetch on an
 * older segment).
 */
export class ByteLedger {
  private ends: Float64Array;
  private cums: Float64Array;
  private head = 0;
  private len = 0;

  constructor(
    startOffset: number,
    private readonly maxEntries = 1024,
  ) {
    const initial = Math.max(1, Math.min(8, maxEntries));
    this.ends = new Float64Array(initial);
    this.cums = new Float64Array(initial);
    this.push(startOffset, 0);
  }

  private at(i: number): number {
    return (this.head + i) % this.ends.length;
  }

  private push(end: number, cum: number): void {
    if (this.len === this.ends.length) {
      if (this.ends.length < this.maxEntries) this.grow();
      else {
        this.head = (this.head + 1) % this.ends.length;
        this.len--;
      }
    }
    const j = this.at(this.len);
    this.ends[j] = end;
    this.cums[j] = cum;
    this.len++;
  }

  private grow(): void {
    const n = Math.min(this.ends.length * 2, this.maxEntries);
    const ends = new Float64Array(n);
    const cums = new Float64Array(n);
    for (let i = 0; i < this.len; i++) {
      ends[i] = this.ends[this.at(i)]!;
      cums[i] = this.cums[this.at(i)]!;
    }
    this.ends = ends;
    this.cums = cums;
    this.head = 0;
  }

  /**
   * Records an appended batch [baseOffset, endOffset) of `bytes` bytes. Appends complete in offset
   * order (the log serialises them); should one ever arrive late, its bytes count at the newest
   * boundary, which only makes a waiting fetch complete a little early.
   */
  record(_baseOffset: number, endOffset: number, bytes: number): void {
    const last = this.at(this.len - 1);
    this.push(Math.max(endOffset, this.ends[last]!), this.cums[last]! + bytes);
  }

  /** Cumulative bytes at the last batch boundary <= offset; undefined if older than the ring. */
  private cumAt(offset: number): number | undefined {
    if (this.len === 0 || offset < this.ends[this.at(0)]!) return undefined;
    let lo = 0;
    let hi = this.len - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.ends[this.at(mid)]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return this.cums[this.at(lo)]!;
  }

  /** Bytes appended between two offsets; Infinity when `from` is older than the ledger. */
  bytesBetween(from: number, to: number): number {
    if (to <= from) return 0;
    const a = this.cumAt(from);
    const b = this.cumAt(to);
    if (a === undefined || b === undefined) return Infinity;
    return Math.max(0, b - a);
  }

  /** Forgets everything (truncation, leadership change). */
  reset(startOffset: number): void {
    this.head = 0;
    this.len = 0;
    this.push(startOffset, 0);
  }
}

export interface PartitionState {
  leaderEpoch: number;
  /** replica ids, this broker included */
  replicas: readonly number[];
  isr: readonly number[];
}

export class Partition {
  /** purgatory key: the partition's watchers are keyed by this string */
  readonly key: string;
  leaderEpoch: number;
  replicas: readonly number[];
  isr: readonly number[];
  config: TopicConfig;
  /** log end offset when this leader epoch began (OFFSET_NOT_AVAILABLE while the HW lags it) */
  leaderEpochStartOffset: number;
  readonly ledger: ByteLedger;
  /** follower log end offsets by replica id (hook for ISR replication) */
  private readonly followerLeo = new Map<number, number>();
  /** set when the partition is removed; delayed operations holding it complete */
  closed = false;

  constructor(
    readonly topic: string,
    readonly index: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    readonly localBrokerId: number,
    state: PartitionState,
    config: TopicConfig,
  ) {
    this.key = `${topic}-${index}`;
    this.leaderEpoch = state.leaderEpoch;
    this.replicas = state.replicas;
    this.isr = state.isr;
    this.config = config;
    this.leaderEpochStartOffset = log.logEndOffset;
    this.ledger = new ByteLedger(log.logEndOffset);
  }

  get highWatermark(): number {
    return this.log.highWatermark;
  }
  get logEndOffset(): number {
    return this.log.logEndOffset;
  }
  get logStartOffset(): number {
    return this.log.logStartOffset;
  }

  /**
   * Last stable offset: the first offset of the earliest open transaction (the producer state's
   * first unstable offset), capped by the high watermark; the high watermark when none is open.
   */
  get lastStableOffset(): number {
    const hw = this.log.highWatermark;
    const fuo = this.log.producerState?.firstUnstableOffset;
    return fuo === undefined ? hw : Math.min(fuo, hw);
  }

  /** The producer-state checks used when the replica manager was not given a hook (idempotence). */
  get producerStateHook(): EosHook {
    return DEFAULT_PRODUCER_STATE_HOOK;
  }

  /** Aborted transactions overlapping records read from fetchOffset (READ_COMMITTED fetches). */
  abortedTransactions(fetchOffset: number, records: Buffer): { producerId: number; firstOffset: number }[] {
    return abortedTransactionsIn(this.log, fetchOffset, records);
  }

  /** Partition.checkCurrentLeaderEpoch: -1 skips the check. */
  checkLeaderEpoch(current: number): number {
    if (current === NO_EPOCH) return ErrorCode.NONE;
    if (current < this.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
    if (current > this.leaderEpoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
    return ErrorCode.NONE;
  }

  /** min(min.insync.replicas, replication factor): the ISR size acks=all needs. */
  get effectiveMinIsr(): number {
    return Math.min(this.config.policy.minInsyncReplicas, Math.max(1, this.replicas.length));
  }

  /** Updates leadership state from metadata; returns true when the leader epoch changed. */
  updateState(state: PartitionState): boolean {
    const changed = state.leaderEpoch !== this.leaderEpoch;
    this.leaderEpoch = state.leaderEpoch;
    this.replicas = state.replicas;
    this.isr = state.isr;
    if (changed) {
      this.leaderEpochStartOffset = this.log.logEndOffset;
      this.followerLeo.clear();
    }
    for (const id of [...this.followerLeo.keys()]) if (!state.replicas.includes(id)) this.followerLeo.delete(id);
    return changed;
  }

  /** Records a follower's fetch position (its log end offset). Hook for ISR management. */
  updateFollowerFetchState(replicaId: number, fetchOffset: number): void {
    if (replicaId !== this.localBrokerId) this.followerLeo.set(replicaId, fetchOffset);
  }

  /**
   * Partition.maybeIncrementLeaderHW: the high watermark is the smallest log end offset among the
   * ISR (this broker's own is the log's). Returns true when it moved.
   */
  maybeIncrementLeaderHW(): boolean {
    let hw = this.log.logEndOffset;
    for (const id of this.isr) {
      if (id === this.localBrokerId) continue;
      hw = Math.min(hw, this.followerLeo.get(id) ?? this.log.logStartOffset);
    }
    return this.log.maybeIncrementHighWatermark(hw);
  }
}
