// The in-flight records of one share-partition (group, topic partition) on its leader: Kafka 4.4's
// kafka.server.share.SharePartition. Records are acquired by members for a lock duration, then
// acknowledged (ACCEPT → ACKNOWLEDGED, RELEASE → AVAILABLE, REJECT/GAP → ARCHIVED, RENEW → lock
// renewed); a record released or timed out after `deliveryCountLimit` deliveries is ARCHIVED. The
// start offset moves past the ACKNOWLEDGED/ARCHIVED prefix. The state is loaded with
// Persister.readState on first use and written with Persister.writeState after each acknowledgement,
// release or lock timeout (the changed ranges, as Kafka sends them: the share coordinator merges).
// Offsets are JS numbers here (exact below 2^53); the persister's bigints are converted at the edge.
import { ErrorCode } from '../../protocol/errors.js';
import type { Persister, PersisterStateBatch, SharePartitionKey } from './types.js';

/** Kafka's RecordState ids (the persisted deliveryState). */
export const RecordState = { AVAILABLE: 0, ACQUIRED: 1, ACKNOWLEDGED: 2, ARCHIVED: 4 } as const;
export type RecordStateId = (typeof RecordState)[keyof typeof RecordState];

/** AcknowledgeType: 0 Gap, 1 Accept, 2 Release, 3 Reject, 4 Renew (ShareFetch/ShareAcknowledge v2). */
export const AcknowledgeType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

/** ShareAcquireMode (ShareFetch v2): 0 batch_optimized, 1 record_limit. */
export const ShareAcquireMode = { BATCH_OPTIMIZED: 0, RECORD_LIMIT: 1 } as const;

export const EMPTY_MEMBER_ID = '';

const isTerminal = (s: number): boolean => s === RecordState.ACKNOWLEDGED || s === RecordState.ARCHIVED;

/** A scheduled acquisition lock timeout. */
export interface TimerHandle {
  cancel(): void;
}

/** The clock and timer of acquisition locks (injected, so tests drive lock expiry). */
export interface ShareTimer {
  now(): number;
  schedule(delayMs: number, task: () => void): TimerHandle;
}

export const SYSTEM_SHARE_TIMER: ShareTimer = {
  now: () => Date.now(),
  schedule(delayMs, task) {
    const t = setTimeout(task, delayMs);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** One acquired range in a ShareFetch response (AcquiredRecords). */
export interface AcquiredRecords {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

export interface ShareAcquiredRecords {
  acquiredRecords: AcquiredRecords[];
  count: number;
}

/** The batches a log read returned (shallow headers), as acquire needs them. */
export interface FetchedBatch {
  baseOffset: number;
  lastOffset: number;
  producerId: number;
  isTransactional: boolean;
  isControl: boolean;
  /** where the batch starts in the read's bytes, and its size (to slice the response records) */
  position?: number;
  size?: number;
}

/** One acknowledgement batch of a request (ShareAcknowledgementBatch). */
export interface ShareAcknowledgementBatch {
  firstOffset: number;
  lastOffset: number;
  acknowledgeTypes: readonly number[];
}

/** What a share-partition needs of its group's configuration (group configs over broker defaults). */
export interface SharePartitionConfig {
  recordLockDurationMs(): number;
  deliveryCountLimit(): number;
  maxInFlightRecords(): number;
}

export interface SharePartitionOptions {
  key: SharePartitionKey;
  persister: Persister;
  config: SharePartitionConfig;
  timer?: ShareTimer;
  /** The partition's current leader epoch (written with the state). */
  leaderEpoch: () => number;
  /** The start offset of a share-partition whose state is uninitialized (share.auto.offset.reset). */
  resetOffset: () => Promise<number>;
  /** Called when records become available again (release, lock timeout): parked fetches retry. */
  onAvailable?: () => void;
}

export class SharePartitionError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'SharePartitionError';
  }
}

/** InFlightState: the state of a batch or of one offset. */
class InFlightState {
  timer: TimerHandle | null = null;
  /** The acquisition lock this state is under (a lock timeout only releases the states it locked). */
  lockId = 0;
  /** The state before an ongoing (not yet persisted) transition, restored on rollback. */
  rollback: { state: number; deliveryCount: number; memberId: string } | null = null;
  constructor(
    public state: number,
    public deliveryCount: number,
    public memberId: string,
  ) {}

  hasOngoingTransition(): boolean {
    return this.rollback !== null;
  }

  cancelTimer(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  /** InFlightState.tryUpdateState: null when the transition is invalid. */
  tryUpdate(newState: number, ops: 'inc' | 'dec' | 'none', maxDeliveryCount: number, memberId: string): boolean {
    let target = newState;
    if (target === RecordState.AVAILABLE && ops !== 'dec' && this.deliveryCount >= maxDeliveryCount)
      target = RecordState.ARCHIVED;
    if (!validTransition(this.state, target)) return false;
    this.state = target;
    if (target !== RecordState.ARCHIVED) {
      if (ops === 'inc') this.deliveryCount++;
      else if (ops === 'dec') this.deliveryCount = Math.max(0, this.deliveryCount - 1);
    }
    this.memberId = memberId;
    return true;
  }

  startTransition(newState: number, ops: 'inc' | 'dec' | 'none', maxDeliveryCount: number, memberId: string): boolean {
    const before = { state: this.state, deliveryCount: this.deliveryCount, memberId: this.memberId };
    if (!this.tryUpdate(newState, ops, maxDeliveryCount, memberId)) return false;
    this.rollback = before;
    return true;
  }

  complete(commit: boolean): void {
    if (!commit && this.rollback) {
      this.state = this.rollback.state;
      this.deliveryCount = this.rollback.deliveryCount;
      this.memberId = this.rollback.memberId;
    }
    this.rollback = null;
  }
}

/** RecordState.validateTransition. */
function validTransition(from: number, to: number): boolean {
  if (from === RecordState.AVAILABLE) return to === RecordState.ACQUIRED || to === RecordState.ARCHIVED;
  if (from === RecordState.ACQUIRED)
    return to === RecordState.AVAILABLE || to === RecordState.ACKNOWLEDGED || to === RecordState.ARCHIVED;
  return false;
}

/** InFlightBatch: a range with one state, or per-offset states once split. */
class InFlightBatch {
  batchState: InFlightState | null;
  offsetState: Map<number, InFlightState> | null = null;
  constructor(
    readonly firstOffset: number,
    public lastOffset: number,
    state: number,
    deliveryCount: number,
    memberId: string,
  ) {
    this.batchState = new InFlightState(state, deliveryCount, memberId);
  }

  /** maybeInitializeOffsetStateUpdate: each offset takes the batch's state (and its lock). */
  splitIntoOffsets(): void {
    if (this.offsetState !== null) return;
    const b = this.batchState!;
    this.offsetState = new Map();
    for (let o = this.firstOffset; o <= this.lastOffset; o++) {
      const s = new InFlightState(b.state, b.deliveryCount, b.memberId);
      s.rollback = b.rollback;
      // the offsets stay under the batch's lock until each is acknowledged or renewed
      s.lockId = b.lockId;
      this.offsetState.set(o, s);
    }
    // the batch's lock moves to the offsets (the manager reschedules per offset)
    this.batchState = null;
    return;
  }

  /** Every state of the batch with its range. */
  *states(): Generator<[number, number, InFlightState]> {
    if (this.offsetState === null) yield [this.firstOffset, this.lastOffset, this.batchState!];
    else for (const [o, s] of this.offsetState) yield [o, o, s];
  }
}

interface PendingUpdate {
  state: InFlightState;
  batch: PersisterStateBatch;
  /** a lock timeout: the lock is gone whatever the persister answers, so the transition stays */
  keepOnFailure?: boolean;
}

/** A view of the cached state for tests and DescribeShareGroupOffsets-like reads. */
export interface CachedBatchView {
  firstOffset: number;
  lastOffset: number;
  state: number;
  deliveryCount: number;
  memberId: string;
  /** per-offset states when the batch is split */
  offsets?: { offset: number; state: number; deliveryCount: number; memberId: string }[];
}

export class SharePartition {
  readonly key: SharePartitionKey;
  private readonly persister: Persister;
  private readonly config: SharePartitionConfig;
  private readonly timer: ShareTimer;
  private readonly opts: SharePartitionOptions;
  /** In-flight batches by first offset, kept sorted. */
  private readonly cache = new Map<number, InFlightBatch>();
  private sortedKeys: number[] = [];
  private _startOffset = 0;
  private _endOffset = 0;
  private stateEpoch = 0;
  private findNextFetchOffset = false;
  private initPromise: Promise<void> | null = null;
  private initialized = false;
  private fenced = false;
  /** Serializes persister writes so they reach the coordinator in state order. */
  private writeChain: Promise<unknown> = Promise.resolve();

  constructor(opts: SharePartitionOptions) {
    this.opts = opts;
    this.key = opts.key;
    this.persister = opts.persister;
    this.config = opts.config;
    this.timer = opts.timer ?? SYSTEM_SHARE_TIMER;
  }

  get startOffset(): number {
    return this._startOffset;
  }
  get endOffset(): number {
    return this._endOffset;
  }
  get isInitialized(): boolean {
    return this.initialized;
  }

  // ---- cache helpers ----

  private keys(): number[] {
    return this.sortedKeys;
  }
  private put(b: InFlightBatch): void {
    if (!this.cache.has(b.firstOffset)) {
      this.cache.set(b.firstOffset, b);
      const k = this.sortedKeys;
      let i = k.length;
      while (i > 0 && k[i - 1]! > b.firstOffset) i--;
      k.splice(i, 0, b.firstOffset);
    } else this.cache.set(b.firstOffset, b);
  }
  private remove(first: number): void {
    if (!this.cache.delete(first)) return;
    this.sortedKeys = this.sortedKeys.filter((k) => k !== first);
  }
  private lastBatch(): InFlightBatch | undefined {
    const k = this.sortedKeys;
    return k.length === 0 ? undefined : this.cache.get(k[k.length - 1]!);
  }
  /** The batches overlapping [from, to] in order (floor entry included). */
  private overlapping(from: number, to: number): InFlightBatch[] {
    const out: InFlightBatch[] = [];
    for (const k of this.sortedKeys) {
      const b = this.cache.get(k)!;
      if (b.lastOffset < from) continue;
      if (b.firstOffset > to) break;
      out.push(b);
    }
    return out;
  }

  /** A snapshot of the in-flight batches. */
  cachedState(): CachedBatchView[] {
    return this.sortedKeys.map((k) => {
      const b = this.cache.get(k)!;
      if (b.offsetState === null) {
        const s = b.batchState!;
        return {
          firstOffset: b.firstOffset,
          lastOffset: b.lastOffset,
          state: s.state,
          deliveryCount: s.deliveryCount,
          memberId: s.memberId,
        };
      }
      const offsets = [...b.offsetState].map(([offset, s]) => ({
        offset,
        state: s.state,
        deliveryCount: s.deliveryCount,
        memberId: s.memberId,
      }));
      return {
        firstOffset: b.firstOffset,
        lastOffset: b.lastOffset,
        state: -1,
        deliveryCount: -1,
        memberId: '',
        offsets,
      };
    });
  }

  /** Records between the start and end offsets (numInFlightRecords). */
  numInFlightRecords(): number {
    if (this.cache.size === 0) return 0;
    const last = this.lastBatch()!.lastOffset;
    return last < this._startOffset ? 0 : last - this._startOffset + 1;
  }

  /** ACKNOWLEDGED/ARCHIVED records at or past the start offset (deliveryCompleteCount). */
  deliveryCompleteCount(): number {
    let n = 0;
    for (const k of this.sortedKeys)
      for (const [f, l, s] of this.cache.get(k)!.states())
        if (isTerminal(s.state) && l >= this._startOffset) n += l - Math.max(f, this._startOffset) + 1;
    return n;
  }

  // ---- initialization ----

  /**
   * SharePartition.maybeInitialize: reads the persisted state once. A failure leaves the
   * partition uninitialized (the manager answers the error and drops it, as Kafka's FAILED state).
   */
  maybeInitialize(): Promise<void> {
    if (this.initialized) return Promise.resolve();
    if (this.fenced) return Promise.reject(new SharePartitionError(ErrorCode.FENCED_STATE_EPOCH, 'fenced'));
    this.initPromise ??= this.initialize().catch((e: unknown) => {
      this.initPromise = null;
      throw e;
    });
    return this.initPromise;
  }

  private async initialize(): Promise<void> {
    const r = await this.persister.readState(this.key, this.opts.leaderEpoch());
    if (r.errorCode !== ErrorCode.NONE) throw persisterError(r.errorCode, r.errorMessage);
    // startOffsetDuringInitialization: an uninitialized state (-1) starts at share.auto.offset.reset
    const start = r.startOffset < 0n ? await this.opts.resetOffset() : Number(r.startOffset);
    this._startOffset = start;
    this.stateEpoch = r.stateEpoch;
    // Offsets between the persisted batches were acquired and never released before the leader
    // changed (only transitions out of ACQUIRED are persisted): Kafka's read gap window delivers them
    // again as new records; here they are cached AVAILABLE with no delivery yet, the same to a member.
    let previousLast = start - 1;
    for (const sb of r.stateBatches) {
      const first = Number(sb.firstOffset);
      if (first < start)
        throw new SharePartitionError(
          ErrorCode.UNKNOWN_SERVER_ERROR,
          `Failed to initialize the share partition ${this.key.groupId}-${this.key.topicId}:${this.key.partition}`,
        );
      if (first > previousLast + 1)
        this.put(new InFlightBatch(previousLast + 1, first - 1, RecordState.AVAILABLE, 0, EMPTY_MEMBER_ID));
      this.put(new InFlightBatch(first, Number(sb.lastOffset), sb.deliveryState, sb.deliveryCount, EMPTY_MEMBER_ID));
      previousLast = Number(sb.lastOffset);
    }
    if (this.cache.size > 0) {
      this.findNextFetchOffset = true;
      this._endOffset = this.lastBatch()!.lastOffset;
      this.maybeUpdateCachedStateAndOffsets();
    } else this._endOffset = start;
    this.initialized = true;
  }

  // ---- next fetch offset ----

  /** SharePartition.nextFetchOffset. */
  nextFetchOffset(): number {
    const last = this.lastBatch();
    const fresh = last === undefined || this._startOffset > last.lastOffset;
    if (!this.findNextFetchOffset) return fresh ? this._endOffset : this._endOffset + 1;
    if (fresh) {
      this.findNextFetchOffset = false;
      return this._endOffset;
    }
    for (const k of this.sortedKeys) {
      for (const [f, , s] of this.cache.get(k)!.states())
        if (s.state === RecordState.AVAILABLE && !s.hasOngoingTransition()) return f;
    }
    this.findNextFetchOffset = false;
    return this._endOffset + 1;
  }

  /** SharePartition.canAcquireRecords: available records in the cache, or room under the in-flight limit. */
  canAcquireRecords(): boolean {
    if (!this.initialized) return true;
    if (this.nextFetchOffset() !== this._endOffset + 1) return true;
    return this.numInFlightRecords() < this.config.maxInFlightRecords();
  }

  // ---- acquire ----

  /**
   * SharePartition.acquire: acquires for `memberId` the records of the fetched batches (read from
   * `fetchOffset`) that are available, new records past the end offset included, within
   * `maxFetchRecords` (a soft limit in batch-optimized mode, aligned to batch boundaries) and the
   * in-flight limit. `abortedProducers` (read_committed): the aborted transactions of the read.
   */
  acquire(
    memberId: string,
    mode: number,
    batchSize: number,
    maxFetchRecords: number,
    fetchOffset: number,
    batches: readonly FetchedBatch[],
    aborted: readonly { producerId: number; firstOffset: number }[] | null = null,
  ): ShareAcquiredRecords {
    const empty = { acquiredRecords: [], count: 0 };
    const recordLimit = mode === ShareAcquireMode.RECORD_LIMIT;
    if (!this.initialized || maxFetchRecords <= 0 || batches.length === 0) return empty;
    const firstBatch = batches[0]!;
    const lastBatch = batches[batches.length - 1]!;
    // lastOffsetAndMaxRecordsToAcquire: the in-flight limit
    let maxRecords = Math.min(maxFetchRecords, this.config.maxInFlightRecords() - this.numInFlightRecords());
    let lastOffsetToAcquire = lastBatch.lastOffset;
    if (maxRecords <= 0) {
      if (fetchOffset <= this._endOffset) {
        maxRecords = Math.min(maxFetchRecords, this._endOffset - fetchOffset + 1);
        lastOffsetToAcquire = Math.min(lastOffsetToAcquire, this._endOffset);
      }
    }
    if (maxRecords <= 0) return empty;

    let baseOffset = firstBatch.baseOffset;
    // the floor entry: a cached batch containing the base offset keeps its boundaries
    let floor: InFlightBatch | undefined;
    for (const k of this.sortedKeys) {
      if (k > baseOffset) break;
      floor = this.cache.get(k);
    }
    if (floor === undefined) {
      if (baseOffset < this._startOffset) baseOffset = this._startOffset;
    } else if (floor.lastOffset >= baseOffset) baseOffset = floor.firstOffset;

    const sub = this.sortedKeys
      .filter((k) => k >= baseOffset && k <= lastOffsetToAcquire)
      .map((k) => this.cache.get(k)!);
    let result: AcquiredRecords[];
    let acquired = 0;
    if (sub.length === 0) {
      const r = this.acquireNew(
        memberId,
        batches,
        recordLimit,
        firstBatch.baseOffset,
        lastOffsetToAcquire,
        batchSize,
        maxRecords,
      );
      result = r.acquiredRecords;
      acquired = r.count;
    } else {
      result = [];
      for (const b of sub) {
        if (acquired >= maxRecords) break;
        const fullMatch = b.firstOffset >= firstBatch.baseOffset && b.lastOffset <= lastOffsetToAcquire;
        const remaining = maxRecords - acquired;
        const limitSubset = recordLimit && b.lastOffset - b.firstOffset + 1 > remaining;
        // records near the delivery limit are delivered in smaller and smaller sets (a corrupt
        // record then does not take a whole batch to the limit with it): such a batch comes alone
        const throttle = this.shouldThrottleRecordsDelivery(b, firstBatch.baseOffset, lastOffsetToAcquire);
        if (throttle && acquired > 0) {
          maxRecords = 0;
          break;
        }
        if (!fullMatch || b.offsetState !== null || limitSubset || throttle) {
          if (b.offsetState === null) {
            const s = b.batchState!;
            if (s.state !== RecordState.AVAILABLE || s.hasOngoingTransition()) continue;
            b.splitIntoOffsets();
          }
          const n = this.acquireSubset(
            memberId,
            recordLimit,
            remaining,
            firstBatch.baseOffset,
            lastOffsetToAcquire,
            b,
            result,
          );
          acquired += n;
          if (throttle && n > 0) {
            maxRecords = 0;
            break;
          }
          continue;
        }
        const s = b.batchState!;
        if (s.state !== RecordState.AVAILABLE || s.hasOngoingTransition()) continue;
        if (!s.tryUpdate(RecordState.ACQUIRED, 'inc', this.config.deliveryCountLimit(), memberId)) continue;
        this.lock(s, memberId, b.firstOffset, b.lastOffset);
        result.push({ firstOffset: b.firstOffset, lastOffset: b.lastOffset, deliveryCount: s.deliveryCount });
        acquired += b.lastOffset - b.firstOffset + 1;
      }
      const subLast = sub[sub.length - 1]!.lastOffset;
      if (acquired < maxRecords && subLast < lastOffsetToAcquire) {
        const r = this.acquireNew(
          memberId,
          batches,
          recordLimit,
          subLast + 1,
          lastOffsetToAcquire,
          batchSize,
          maxRecords - acquired,
        );
        result.push(...r.acquiredRecords);
        acquired += r.count;
      }
    }
    if (result.length > 0 && aborted !== null) this.archiveAborted(batches, aborted, result);
    return { acquiredRecords: result, count: acquired };
  }

  /** acquireNewBatchRecords + createBatches. */
  private acquireNew(
    memberId: string,
    batches: readonly FetchedBatch[],
    recordLimit: boolean,
    firstOffset: number,
    lastOffset: number,
    batchSize: number,
    maxFetchRecords: number,
  ): ShareAcquiredRecords {
    let first = firstOffset;
    if (this.cache.size === 0 && this._endOffset > first) first = this._endOffset;
    let last = lastOffset;
    if (last < first) return { acquiredRecords: [], count: 0 };
    if (maxFetchRecords < last - first + 1) {
      // the last offset of the batch holding the request's last offset (batch-aligned)
      const target = first + maxFetchRecords - 1;
      const holder = batches.find((b) => b.baseOffset <= target && b.lastOffset >= target);
      last = Math.min(last, holder ? holder.lastOffset : target);
    }
    const result: AcquiredRecords[] = [];
    let current = first;
    if (!recordLimit && last - first + 1 > batchSize) {
      for (const b of batches) {
        if (b.baseOffset > last) break;
        if (b.baseOffset - current >= batchSize) {
          result.push({ firstOffset: current, lastOffset: b.baseOffset - 1, deliveryCount: 1 });
          current = b.baseOffset;
        }
      }
    }
    result.push({ firstOffset: current, lastOffset: last, deliveryCount: 1 });
    let count = last - first + 1;
    if (recordLimit && last - result[0]!.firstOffset + 1 > maxFetchRecords) {
      // record_limit: the whole batch is cached, only maxFetchRecords offsets are acquired
      const a = result[0]!;
      const batch = new InFlightBatch(a.firstOffset, a.lastOffset, RecordState.ACQUIRED, 1, memberId);
      const acquiredLast = a.firstOffset + maxFetchRecords - 1;
      batch.splitIntoOffsets();
      for (const [o, s] of batch.offsetState!) {
        if (o > acquiredLast) {
          s.state = RecordState.AVAILABLE;
          s.deliveryCount = 0;
          s.memberId = EMPTY_MEMBER_ID;
        } else this.lock(s, memberId, o, o);
      }
      a.lastOffset = acquiredLast;
      this.findNextFetchOffset = true;
      this.put(batch);
      if (this.sortedKeys[0] === first) this._startOffset = first;
      if (batch.lastOffset > this._endOffset) this._endOffset = batch.lastOffset;
      return { acquiredRecords: [a], count: maxFetchRecords };
    }
    for (const a of result) {
      const b = new InFlightBatch(a.firstOffset, a.lastOffset, RecordState.ACQUIRED, 1, memberId);
      this.lock(b.batchState!, memberId, a.firstOffset, a.lastOffset);
      this.put(b);
    }
    if (this.sortedKeys[0] === first) this._startOffset = first;
    if (last > this._endOffset) this._endOffset = last;
    if (recordLimit) count = result[0]!.lastOffset - first + 1;
    return { acquiredRecords: result, count };
  }

  /** acquireSubsetBatchRecords: per-offset acquisition within [reqFirst, reqLast]. */
  private acquireSubset(
    memberId: string,
    recordLimit: boolean,
    maxFetchRecords: number,
    reqFirst: number,
    reqLast: number,
    b: InFlightBatch,
    result: AcquiredRecords[],
  ): number {
    let acquired = 0;
    const limit = this.config.deliveryCountLimit();
    const throttleLimit = throttleRecordsDeliveryLimit(limit);
    let maxWhileThrottled = -1;
    let hasThrottled = false;
    for (const [o, s] of b.offsetState!) {
      if (o < reqFirst) continue;
      if (o > reqLast) break;
      if (s.state !== RecordState.AVAILABLE || s.hasOngoingTransition()) continue;
      const dc = s.deliveryCount;
      // a record on its last delivery attempt is delivered alone
      if (limit > 2 && dc === limit - 1 && acquired > 0) break;
      // past the throttle threshold, each further delivery attempt halves how many come together
      if (dc >= throttleLimit && maxWhileThrottled < 0) {
        maxWhileThrottled = Math.max(1, b.offsetState!.size >> (dc - throttleLimit + 1));
        hasThrottled = true;
      }
      if (!s.tryUpdate(RecordState.ACQUIRED, 'inc', limit, memberId)) continue;
      this.lock(s, memberId, o, o);
      // one AcquiredRecords per offset, as Kafka answers them
      result.push({ firstOffset: o, lastOffset: o, deliveryCount: s.deliveryCount });
      acquired++;
      if (s.deliveryCount === limit && limit > 2) break;
      if (recordLimit && acquired === maxFetchRecords) break;
      if (hasThrottled && acquired === maxWhileThrottled) break;
    }
    return acquired;
  }

  /** shouldThrottleRecordsDelivery: the batch's (or its acquirable offsets') delivery count at the threshold. */
  private shouldThrottleRecordsDelivery(b: InFlightBatch, reqFirst: number, reqLast: number): boolean {
    const threshold = throttleRecordsDeliveryLimit(this.config.deliveryCountLimit());
    if (b.offsetState === null) return b.batchState!.deliveryCount >= threshold;
    let max = 0;
    for (const [o, s] of b.offsetState)
      if (o >= reqFirst && o <= reqLast && s.state === RecordState.AVAILABLE) max = Math.max(max, s.deliveryCount);
    return max >= threshold;
  }

  /**
   * maybeFilterAbortedTransactionalAcquiredRecords (read_committed): the acquired records of aborted
   * transactions are archived at once and left out of the acquired ranges.
   */
  private archiveAborted(
    batches: readonly FetchedBatch[],
    aborted: readonly { producerId: number; firstOffset: number }[],
    result: AcquiredRecords[],
  ): void {
    const pending = [...aborted].sort((a, b) => a.firstOffset - b.firstOffset);
    const ongoing = new Set<number>();
    const toArchive: [number, number][] = [];
    for (const b of batches) {
      while (pending.length > 0 && pending[0]!.firstOffset <= b.lastOffset) ongoing.add(pending.shift()!.producerId);
      if (b.isControl) {
        if (ongoing.has(b.producerId)) ongoing.delete(b.producerId);
        continue;
      }
      if (b.isTransactional && ongoing.has(b.producerId)) toArchive.push([b.baseOffset, b.lastOffset]);
    }
    if (toArchive.length === 0) return;
    const archived = new Set<number>();
    for (const [f, l] of toArchive) {
      for (const b of this.overlapping(f, l)) {
        if (b.offsetState === null && (b.firstOffset < f || b.lastOffset > l)) b.splitIntoOffsets();
        for (const [sf, sl, s] of b.states()) {
          if (sf < f || sl > l || s.state !== RecordState.ACQUIRED) continue;
          s.cancelTimer();
          s.tryUpdate(RecordState.ARCHIVED, 'none', this.config.deliveryCountLimit(), EMPTY_MEMBER_ID);
          for (let o = sf; o <= sl; o++) archived.add(o);
        }
      }
    }
    // the acquired ranges without the archived offsets
    const kept: AcquiredRecords[] = [];
    for (const a of result) {
      let cur: AcquiredRecords | null = null;
      for (let o = a.firstOffset; o <= a.lastOffset; o++) {
        if (archived.has(o)) {
          cur = null;
          continue;
        }
        if (cur) cur.lastOffset = o;
        else kept.push((cur = { firstOffset: o, lastOffset: o, deliveryCount: a.deliveryCount }));
      }
    }
    result.splice(0, result.length, ...kept);
    this.maybeUpdateCachedStateAndOffsets();
  }

  // ---- locks ----

  private lockSeq = 0;

  /** scheduleAcquisitionLockTimeout: the acquisition lock of a batch or offset. */
  private lock(s: InFlightState, memberId: string, first: number, last: number): void {
    const id = ++this.lockSeq;
    s.lockId = id;
    s.timer = this.timer.schedule(this.config.recordLockDurationMs(), () =>
      this.onLockTimeout(memberId, first, last, id),
    );
  }

  /** releaseAcquisitionLockOnTimeout: the member's acquired records in [first, last] become available. */
  private onLockTimeout(memberId: string, first: number, last: number, lockId: number): void {
    const updates: PendingUpdate[] = [];
    const limit = this.config.deliveryCountLimit();
    for (const b of this.overlapping(first, last)) {
      for (const [f, l, s] of b.states()) {
        if (f < first || l > last) continue;
        if (s.state !== RecordState.ACQUIRED || s.memberId !== memberId || s.lockId !== lockId) continue;
        s.timer = null;
        const target = l < this._startOffset ? RecordState.ARCHIVED : RecordState.AVAILABLE;
        if (!s.startTransition(target, 'none', limit, EMPTY_MEMBER_ID)) continue;
        updates.push({ state: s, batch: stateBatch(f, l, s), keepOnFailure: true });
      }
    }
    if (updates.length > 0) void this.persistUpdates(updates);
  }

  // ---- acknowledge / release ----

  /**
   * SharePartition.acknowledge: all batches or none. Resolves with the acknowledge error code
   * (INVALID_REQUEST, INVALID_RECORD_STATE, or the persister's mapped error).
   */
  async acknowledge(memberId: string, ackBatches: readonly ShareAcknowledgementBatch[]): Promise<number> {
    const updates: PendingUpdate[] = [];
    const renewed: { s: InFlightState; first: number; last: number }[] = [];
    let error: SharePartitionError | null = null;
    const limit = this.config.deliveryCountLimit();
    outer: for (const ab of ackBatches) {
      const types = ab.acknowledgeTypes;
      if (
        ab.lastOffset < ab.firstOffset ||
        types.length === 0 ||
        (types.length > 1 && types.length !== ab.lastOffset - ab.firstOffset + 1) ||
        types.some((t) => t < 0 || t > AcknowledgeType.RENEW)
      ) {
        error = new SharePartitionError(ErrorCode.INVALID_REQUEST, `Invalid acknowledge type: ${types.join(',')}`);
        break;
      }
      if (ab.lastOffset < this._startOffset) continue;
      const sub = this.subMapForAcknowledgement(ab);
      if (sub instanceof SharePartitionError) {
        error = sub;
        break;
      }
      const typeAt = (o: number): number => (types.length === 1 ? types[0]! : types[o - ab.firstOffset]!);
      for (const b of sub) {
        const perOffset = types.length > 1 || b.firstOffset < ab.firstOffset || b.lastOffset > ab.lastOffset;
        if (perOffset && b.offsetState === null) b.splitIntoOffsets();
        for (const [f, l, s] of b.states()) {
          if (l < ab.firstOffset || f > ab.lastOffset) continue;
          if (l < this._startOffset) continue;
          if (s.state !== RecordState.ACQUIRED) {
            error = new SharePartitionError(ErrorCode.INVALID_RECORD_STATE, 'The record state is invalid.');
            break outer;
          }
          if (s.memberId !== memberId) {
            error = new SharePartitionError(
              ErrorCode.INVALID_RECORD_STATE,
              `Member is not the owner of batch record ${f}-${l}`,
            );
            break outer;
          }
          const t = typeAt(f);
          if (t === AcknowledgeType.RENEW) {
            renewed.push({ s, first: f, last: l });
            continue;
          }
          const target =
            t === AcknowledgeType.ACCEPT
              ? RecordState.ACKNOWLEDGED
              : t === AcknowledgeType.RELEASE
                ? RecordState.AVAILABLE
                : RecordState.ARCHIVED;
          if (!s.startTransition(target, 'none', limit, EMPTY_MEMBER_ID)) {
            error = new SharePartitionError(ErrorCode.INVALID_RECORD_STATE, 'Unable to acknowledge records.');
            break outer;
          }
          updates.push({ state: s, batch: stateBatch(f, l, s) });
        }
      }
    }
    if (error !== null) {
      for (const u of updates) u.state.complete(false);
      return error.errorCode;
    }
    // renewed locks restart (the acknowledged records' locks end once persisted)
    for (const r of renewed) {
      r.s.cancelTimer();
      this.lock(r.s, memberId, r.first, r.last);
    }
    return this.persistUpdates(updates);
  }

  /** fetchSubMapForAcknowledgementBatch. */
  private subMapForAcknowledgement(ab: ShareAcknowledgementBatch): InFlightBatch[] | SharePartitionError {
    const floorOf = (offset: number): number | undefined => {
      let floor: number | undefined;
      for (const k of this.sortedKeys) {
        if (k > offset) break;
        floor = k;
      }
      return floor;
    };
    let floor = floorOf(ab.firstOffset);
    // the start offset moved into the request (records archived by a lock timeout before it)
    if (floor === undefined && ab.firstOffset < this._startOffset && ab.lastOffset >= this._startOffset)
      floor = floorOf(this._startOffset);
    if (floor === undefined)
      return new SharePartitionError(
        ErrorCode.INVALID_RECORD_STATE,
        'Batch record not found. The request batch offsets are not found in the cache.',
      );
    const from = floor;
    const sub = this.sortedKeys.filter((k) => k >= from && k <= ab.lastOffset).map((k) => this.cache.get(k)!);
    const last = sub[sub.length - 1]!.lastOffset;
    if (last < ab.firstOffset)
      return new SharePartitionError(
        ErrorCode.INVALID_REQUEST,
        'Batch record not found. The first offset in request is past acquired records.',
      );
    if (ab.lastOffset > last)
      return new SharePartitionError(
        ErrorCode.INVALID_REQUEST,
        'Batch record not found. The last offset in request is past acquired records.',
      );
    return sub;
  }

  /**
   * SharePartition.releaseAcquiredRecords (share session closed, member left): the member's
   * acquired records become available keeping their delivery count (Kafka 4.4: DeliveryCountOps.NO_OP;
   * archived when it reached the delivery count limit).
   */
  async releaseAcquiredRecords(memberId: string): Promise<number> {
    const updates: PendingUpdate[] = [];
    const limit = this.config.deliveryCountLimit();
    for (const k of this.sortedKeys) {
      const b = this.cache.get(k)!;
      for (const [f, l, s] of b.states()) {
        if (s.state !== RecordState.ACQUIRED || s.memberId !== memberId) continue;
        const target = l < this._startOffset ? RecordState.ARCHIVED : RecordState.AVAILABLE;
        if (!s.startTransition(target, 'none', limit, EMPTY_MEMBER_ID)) continue;
        updates.push({ state: s, batch: stateBatch(f, l, s) });
      }
    }
    return this.persistUpdates(updates);
  }

  /**
   * rollbackOrProcessStateUpdates: the changed ranges are written; on success the transitions
   * complete and the start offset moves, on failure they roll back (acquired records whose lock
   * ended stay available to others). Resolves with the error code.
   */
  private async persistUpdates(updates: PendingUpdate[]): Promise<number> {
    if (updates.length === 0) {
      this.maybeUpdateCachedStateAndOffsets();
      return ErrorCode.NONE;
    }
    const write = this.writeChain.then(() =>
      this.persister.writeState(this.key, {
        stateEpoch: this.stateEpoch,
        leaderEpoch: this.opts.leaderEpoch(),
        // the start offset as it is before this update (SharePartition.writeShareGroupState): the
        // one it moves to is written with the next update, or found again when the state is loaded
        startOffset: BigInt(this._startOffset),
        deliveryCompleteCount: this.deliveryCompleteCount(),
        stateBatches: updates.map((u) => u.batch),
      }),
    );
    this.writeChain = write.catch(() => undefined);
    let code: number;
    try {
      const r = await write;
      code = r.errorCode === ErrorCode.NONE ? ErrorCode.NONE : mapPersisterError(r.errorCode);
      if (r.errorCode === ErrorCode.FENCED_STATE_EPOCH) this.fenced = true;
    } catch {
      code = ErrorCode.UNKNOWN_SERVER_ERROR;
    }
    const ok = code === ErrorCode.NONE;
    let anyAvailable = false;
    for (const u of updates) {
      u.state.complete(ok || u.keepOnFailure === true);
      if (u.state.state !== RecordState.ACQUIRED) u.state.cancelTimer();
      if (u.state.state === RecordState.AVAILABLE) anyAvailable = true;
    }
    if (anyAvailable) this.findNextFetchOffset = true;
    this.maybeUpdateCachedStateAndOffsets();
    if (anyAvailable) this.opts.onAvailable?.();
    return code;
  }

  /** maybeUpdateCachedStateAndOffsets: the start offset moves past the terminal prefix. */
  private maybeUpdateCachedStateAndOffsets(): void {
    if (this.cache.size === 0) return;
    let next = this._startOffset;
    let blocked = false;
    for (const k of [...this.sortedKeys]) {
      const b = this.cache.get(k)!;
      if (b.firstOffset > next) break;
      for (const [f, l, s] of b.states()) {
        if (l < next) continue;
        if (f > next || !isTerminal(s.state) || s.hasOngoingTransition()) {
          blocked = true;
          break;
        }
        next = l + 1;
      }
      if (blocked) break;
    }
    if (next === this._startOffset) return;
    const last = this.lastBatch()!.lastOffset;
    this._startOffset = next;
    for (const k of [...this.sortedKeys]) {
      const b = this.cache.get(k)!;
      if (b.lastOffset < next) this.remove(k);
      else break;
    }
    if (this.cache.size === 0) {
      // the whole cache was passed: start and end offset are the next offset to fetch
      this._endOffset = Math.max(last + 1, next);
      this._startOffset = this._endOffset;
    }
  }

  /**
   * SharePartition.updateCacheAndOffsets: the log start offset moved past the start offset
   * (retention, DeleteRecords). AVAILABLE records below it are archived (persisted lazily, with
   * the next write); acquired ones stay until acknowledged or timed out.
   */
  updateCacheAndOffsets(logStartOffset: number): void {
    if (logStartOffset <= this._startOffset) return;
    if (this.cache.size === 0) {
      this._startOffset = logStartOffset;
      this._endOffset = logStartOffset;
      return;
    }
    const limit = this.config.deliveryCountLimit();
    let archived = false;
    for (const b of this.overlapping(this._startOffset, logStartOffset - 1)) {
      if (b.offsetState === null && b.lastOffset >= logStartOffset && b.batchState!.state === RecordState.AVAILABLE)
        b.splitIntoOffsets();
      for (const [f, l, s] of b.states()) {
        if (l >= logStartOffset || s.state !== RecordState.AVAILABLE) continue;
        s.tryUpdate(RecordState.ARCHIVED, 'none', limit, EMPTY_MEMBER_ID);
        archived = f <= l || archived;
      }
    }
    if (archived) this.findNextFetchOffset = true;
    this._startOffset = logStartOffset;
    if (this._endOffset < this._startOffset) this._endOffset = this._startOffset;
    for (const k of [...this.sortedKeys]) {
      const b = this.cache.get(k)!;
      if (b.lastOffset >= logStartOffset) break;
      let allTerminal = true;
      for (const [, , st] of b.states()) if (!isTerminal(st.state)) allTerminal = false;
      if (allTerminal) this.remove(k);
    }
    if (this.cache.size === 0) this._endOffset = this._startOffset;
    this.maybeUpdateCachedStateAndOffsets();
  }

  /** Cancels every lock (the partition is dropped: leadership lost, topic deleted, broker stops). */
  close(): void {
    for (const b of this.cache.values()) for (const [, , s] of b.states()) s.cancelTimer();
  }
}

/** SharePartition.throttleRecordsDeliveryLimit: half the delivery count limit, at least 2. */
export function throttleRecordsDeliveryLimit(maxDeliveryCount: number): number {
  return Math.max(2, Math.ceil(maxDeliveryCount / 2));
}

function stateBatch(first: number, last: number, s: InFlightState): PersisterStateBatch {
  return {
    firstOffset: BigInt(first),
    lastOffset: BigInt(last),
    deliveryState: s.state,
    deliveryCount: s.deliveryCount,
  };
}

/** SharePartition.fetchPersisterError: the persister's error as the share-partition answers it. */
export function mapPersisterError(code: number): number {
  switch (code) {
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.GROUP_ID_NOT_FOUND:
      return ErrorCode.GROUP_ID_NOT_FOUND;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    case ErrorCode.FENCED_STATE_EPOCH:
      return ErrorCode.FENCED_STATE_EPOCH;
    case ErrorCode.FENCED_LEADER_EPOCH:
      return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

function persisterError(code: number, message: string | null): SharePartitionError {
  return new SharePartitionError(mapPersisterError(code), message ?? `persister error ${code}`);
}
