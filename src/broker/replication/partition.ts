// One partition this broker hosts (Kafka's cluster.Partition): the log, the leader and leader epoch,
// partition epoch, replica set and ISR, the topic configuration; as leader, what it knows of its
// followers (replica-state.ts), the ISR changes it proposes (the "maximal ISR" of a pending
// AlterPartition) and high-watermark maintenance; and a small ledger of appended bytes by offset
// that lets delayed fetches count available bytes without touching the log.

import { ErrorCode } from '../../protocol/errors.js';
import type { PartitionLog } from '../log/partition-log.js';
import type { TopicConfig } from './topic-config.js';
import { abortedTransactionsIn, DEFAULT_PRODUCER_STATE_HOOK, type EosHook } from './eos.js';
import { ReplicaState } from './replica-state.js';

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
  /** the leader (default: this broker) */
  leaderId?: number;
  /** the image's partition epoch (default 0) */
  partitionEpoch?: number;
}

/** One ISR member as AlterPartition v3 sends it (BrokerState). */
export interface IsrMember {
  brokerId: number;
  brokerEpoch: number;
}

/**
 * An AlterPartition in flight (Kafka's PendingExpandIsr / PendingShrinkIsr): `sent` is what the
 * controller was asked for; the high watermark advances on `maximal` (an expansion counts at once,
 * a shrink only once committed).
 */
export interface PendingIsrChange {
  kind: 'expand' | 'shrink';
  sent: readonly IsrMember[];
  maximal: readonly number[];
  leaderEpoch: number;
  partitionEpoch: number;
}

/** What the ISR decisions need from around the partition. */
export interface IsrContext {
  nowMs: number;
  maxLagMs: number;
  /** Partition.isReplicaIsrEligible: not fenced, not shutting down, broker epoch current */
  eligible(brokerId: number, fetchedBrokerEpoch: number | undefined): boolean;
}

export class Partition {
  /** purgatory key: the partition's watchers are keyed by this string */
  readonly key: string;
  leaderEpoch: number;
  partitionEpoch: number;
  /** the current leader (this broker when `isLeader`) */
  leaderId: number;
  replicas: readonly number[];
  /** the committed ISR */
  isr: readonly number[];
  /** the AlterPartition in flight, if any */
  pendingIsr: PendingIsrChange | null = null;
  config: TopicConfig;
  /** log end offset when this leader epoch began (OFFSET_NOT_AVAILABLE while the HW lags it) */
  leaderEpochStartOffset: number;
  readonly ledger: ByteLedger;
  /** what this leader knows of its followers, by replica id */
  private readonly remote = new Map<number, ReplicaState>();
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
    this.partitionEpoch = state.partitionEpoch ?? 0;
    this.leaderId = state.leaderId ?? localBrokerId;
    this.replicas = state.replicas;
    this.isr = state.isr;
    this.config = config;
    this.leaderEpochStartOffset = log.logEndOffset;
    this.ledger = new ByteLedger(log.logEndOffset);
    if (this.isLeader) this.syncRemoteReplicas(Date.now(), true);
  }

  get isLeader(): boolean {
    return this.leaderId === this.localBrokerId;
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

  /** The ISR the high watermark follows: the committed one, or the expanded one while an expansion is in flight. */
  get maximalIsr(): readonly number[] {
    return this.pendingIsr?.maximal ?? this.isr;
  }

  /**
   * Updates the state from metadata (Partition.makeLeader when this broker leads, else
   * makeFollower); returns true when the leader epoch changed. A new leader epoch on the leader
   * starts at the log end offset and forgets the followers' offsets; the ISR becomes what the
   * metadata says, dropping an AlterPartition in flight.
   */
  updateState(state: PartitionState, nowMs = Date.now()): boolean {
    const leaderId = state.leaderId ?? this.localBrokerId;
    const wasLeader = this.isLeader;
    const changed = state.leaderEpoch !== this.leaderEpoch || leaderId !== this.leaderId;
    this.leaderEpoch = state.leaderEpoch;
    this.partitionEpoch = state.partitionEpoch ?? this.partitionEpoch;
    this.leaderId = leaderId;
    this.replicas = state.replicas;
    this.isr = state.isr;
    this.pendingIsr = null;
    if (changed) this.leaderEpochStartOffset = this.log.logEndOffset;
    if (this.isLeader) this.syncRemoteReplicas(nowMs, changed || !wasLeader);
    else this.remote.clear();
    return changed;
  }

  /** Partition.updateAssignmentAndIsr + the replica resets of makeLeader. */
  private syncRemoteReplicas(nowMs: number, newLeaderEpoch: boolean): void {
    for (const id of [...this.remote.keys()]) if (!this.replicas.includes(id)) this.remote.delete(id);
    for (const id of this.replicas) {
      if (id === this.localBrokerId) continue;
      let r = this.remote.get(id);
      const fresh = r === undefined;
      if (!r) this.remote.set(id, (r = new ReplicaState(id)));
      if (newLeaderEpoch || fresh) r.reset(nowMs, this.log.logEndOffset, true, this.isr.includes(id));
    }
  }

  /** The follower's state as this leader knows it. */
  replicaState(replicaId: number): ReplicaState | undefined {
    return this.remote.get(replicaId);
  }

  /**
   * Partition.updateFollowerFetchState: records a follower's fetch (its log end offset is the fetch
   * offset). Returns true when its log end offset moved. Replicas outside the assignment are ignored.
   */
  updateFollowerFetchState(
    replicaId: number,
    fetchOffset: number,
    startOffset = -1,
    nowMs = Date.now(),
    leaderEndOffset = this.log.logEndOffset,
    brokerEpoch = -1,
  ): boolean {
    const r = this.remote.get(replicaId);
    if (!r) return false;
    const before = r.logEndOffset;
    r.updateFetchState(fetchOffset, startOffset, nowMs, leaderEndOffset, brokerEpoch);
    return before !== r.logEndOffset;
  }

  /** Partition.isFollowerInSync: at or past the HW, and within this leader epoch. */
  private isFollowerInSync(r: ReplicaState): boolean {
    return r.logEndOffset >= this.log.highWatermark && r.logEndOffset >= this.leaderEpochStartOffset;
  }

  private isEligible(id: number, ctx?: IsrContext): boolean {
    return ctx ? ctx.eligible(id, this.remote.get(id)?.brokerEpoch) : true;
  }

  /**
   * Partition.maybeExpandIsr's decision: the follower may join the ISR (no change in flight, not in
   * the ISR, eligible, in sync). Returns the change to send, already pending, or null.
   */
  prepareIsrExpand(replicaId: number, localBrokerEpoch: number, ctx?: IsrContext): PendingIsrChange | null {
    if (!this.isLeader || this.pendingIsr !== null || this.isr.includes(replicaId)) return null;
    const r = this.remote.get(replicaId);
    if (!r || !this.isEligible(replicaId, ctx) || !this.isFollowerInSync(r)) return null;
    const newIsr = [...this.isr, replicaId];
    this.pendingIsr = {
      kind: 'expand',
      sent: this.withBrokerEpochs(newIsr, localBrokerEpoch),
      maximal: newIsr,
      leaderEpoch: this.leaderEpoch,
      partitionEpoch: this.partitionEpoch,
    };
    return this.pendingIsr;
  }

  /** Partition.getOutOfSyncReplicas: ISR followers not caught up within maxLagMs (none while a change is in flight). */
  outOfSyncReplicas(nowMs: number, maxLagMs: number): number[] {
    if (!this.isLeader || this.pendingIsr !== null) return [];
    const leo = this.log.logEndOffset;
    return this.isr.filter((id) => {
      if (id === this.localBrokerId) return false;
      const r = this.remote.get(id);
      return !r || !r.isCaughtUp(leo, nowMs, maxLagMs);
    });
  }

  /** Partition.maybeShrinkIsr's decision: the shrink to send (pending until committed), or null. */
  prepareIsrShrink(nowMs: number, maxLagMs: number, localBrokerEpoch: number): PendingIsrChange | null {
    const out = this.outOfSyncReplicas(nowMs, maxLagMs);
    if (out.length === 0) return null;
    const newIsr = this.isr.filter((id) => !out.includes(id));
    this.pendingIsr = {
      kind: 'shrink',
      sent: this.withBrokerEpochs(newIsr, localBrokerEpoch),
      maximal: this.isr,
      leaderEpoch: this.leaderEpoch,
      partitionEpoch: this.partitionEpoch,
    };
    return this.pendingIsr;
  }

  /** Partition.addBrokerEpochToIsr: each member's epoch as its fetches said (-1 when unknown). */
  private withBrokerEpochs(isr: readonly number[], localBrokerEpoch: number): IsrMember[] {
    return isr.map((brokerId) => ({
      brokerId,
      brokerEpoch: brokerId === this.localBrokerId ? localBrokerEpoch : (this.remote.get(brokerId)?.brokerEpoch ?? -1),
    }));
  }

  /**
   * Partition.handleAlterPartitionUpdate: the controller's answer to `change`. Ignored when the
   * partition moved on meanwhile (another pending state, another leader epoch, an older partition
   * epoch); otherwise the answered ISR is committed. Returns true when it was applied.
   */
  applyAlterPartitionResult(
    change: PendingIsrChange,
    result: { leaderEpoch: number; partitionEpoch: number; isr: readonly number[] },
  ): boolean {
    if (this.pendingIsr !== change) return false;
    if (result.leaderEpoch !== this.leaderEpoch || result.partitionEpoch < this.partitionEpoch) return false;
    this.isr = result.isr;
    this.partitionEpoch = result.partitionEpoch;
    this.pendingIsr = null;
    return true;
  }

  /**
   * Partition.handleAlterPartitionError: OPERATION_NOT_ATTEMPTED / INELIGIBLE_REPLICA reset to the
   * committed state; the others leave the change pending until new metadata replaces it. Returns
   * true when the change is to be sent again (unexpected errors).
   */
  failAlterPartition(change: PendingIsrChange, errorCode: number): boolean {
    if (this.pendingIsr !== change) return false;
    switch (errorCode) {
      case ErrorCode.OPERATION_NOT_ATTEMPTED:
      case ErrorCode.INELIGIBLE_REPLICA:
        this.pendingIsr = null;
        return false;
      case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      case ErrorCode.UNKNOWN_TOPIC_ID:
      case ErrorCode.FENCED_LEADER_EPOCH:
      case ErrorCode.INVALID_UPDATE_VERSION:
      case ErrorCode.INVALID_REQUEST:
      case ErrorCode.NEW_LEADER_ELECTED:
        return false;
      default:
        return true;
    }
  }

  /**
   * Partition.maybeIncrementLeaderHW: the high watermark is the smallest log end offset among the
   * maximal ISR, and among followers outside it that are caught up and eligible (they are about to
   * join). This broker's own is the log's. It does not move while the committed ISR is below
   * min.insync.replicas (KAFKA-15583). Returns true when it moved.
   */
  maybeIncrementLeaderHW(ctx?: IsrContext): boolean {
    if (this.isr.length < this.effectiveMinIsr) return false;
    const leo = this.log.logEndOffset;
    let hw = leo;
    const maximal = this.maximalIsr;
    for (const id of this.replicas) {
      if (id === this.localBrokerId) continue;
      const r = this.remote.get(id);
      const end = r?.logEndOffset ?? -1;
      if (end >= hw) continue;
      const waitFor =
        maximal.includes(id) ||
        (ctx !== undefined &&
          r !== undefined &&
          r.isCaughtUp(leo, ctx.nowMs, ctx.maxLagMs) &&
          this.isEligible(id, ctx));
      if (waitFor) hw = end;
    }
    return this.log.maybeIncrementHighWatermark(hw);
  }
}
