// Delayed operations (Kafka's DelayedOperation / DelayedOperationPurgatory): a request that must
// wait (a fetch until min_bytes accumulate, an acks=all produce until the ISR catches up, later
// joins and heartbeats) is parked on the keys it waits for, with a timeout. Whoever changes the
// state behind a key (an append, a high-watermark move) calls checkAndComplete(key).
//
// One event loop means no locks: tryComplete runs synchronously and an operation completes exactly
// once (forceComplete). Leak-free by construction: completion, expiry and cancellation remove the
// operation from every watch list, from its connection's list and clear its timer, so nothing is
// left for a periodic purge. The number of parked operations is bounded (maxOperations): past it,
// new operations complete at once instead of waiting.

import { addRemoteTime } from '../metrics/remote-time.js';

export abstract class DelayedOperation {
  private completed = false;
  /** @internal set by the purgatory */
  purgatory: DelayedOperationPurgatory<DelayedOperation> | undefined;
  /** @internal */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** @internal */
  watchKeys: readonly string[] = [];
  /** @internal */
  connectionId: string | undefined;
  /** @internal performance.now() when parked (RequestMetrics' RemoteTimeMs of its request) */
  parkedAt = 0;

  constructor(readonly delayMs: number) {}

  get isCompleted(): boolean {
    return this.completed;
  }

  /**
   * Checks whether the operation can complete now; if so calls forceComplete() and returns its
   * result. Must be synchronous and cheap: it runs on every checkAndComplete of a watched key.
   */
  abstract tryComplete(): boolean;

  /** The completion work (respond). Called exactly once, by forceComplete. */
  protected abstract onComplete(): void;

  /** Called after onComplete when the operation completed because its timeout fired. */
  protected onExpiration(): void {}

  /** Called instead of onComplete when the operation is cancelled (connection closed, shutdown). */
  protected onCancel(): void {
    this.onComplete();
  }

  /** Completes the operation if nobody did yet; true if this call completed it. */
  forceComplete(): boolean {
    if (this.completed) return false;
    this.completed = true;
    this.purgatory?.detach(this);
    this.onComplete();
    return true;
  }

  /** @internal */
  expire(): void {
    if (this.forceComplete()) this.onExpiration();
  }

  /** @internal */
  cancel(): boolean {
    if (this.completed) return false;
    this.completed = true;
    this.purgatory?.detach(this);
    this.onCancel();
    return true;
  }
}

export interface PurgatoryOptions {
  /** Parked operations beyond which new ones complete immediately (default 100000). */
  maxOperations?: number;
}

export class DelayedOperationPurgatory<T extends DelayedOperation> {
  private readonly watchers = new Map<string, Set<T>>();
  private readonly byConnection = new Map<string, Set<T>>();
  private parked = 0;
  private readonly maxOperations: number;

  constructor(
    readonly name: string,
    opts: PurgatoryOptions = {},
  ) {
    this.maxOperations = opts.maxOperations ?? 100000;
  }

  /** Operations currently waiting. */
  get size(): number {
    return this.parked;
  }

  /** Operations waiting on a key. */
  watched(key: string): number {
    return this.watchers.get(key)?.size ?? 0;
  }

  /**
   * Tries to complete the operation now; otherwise parks it on `keys` (and under the connection,
   * for cancelConnection) until a checkAndComplete completes it or its delay expires. Returns true
   * if it completed within this call.
   */
  tryCompleteElseWatch(op: T, keys: readonly string[], connectionId?: string): boolean {
    if (op.isCompleted || op.tryComplete()) return true;
    if (this.parked >= this.maxOperations || keys.length === 0) return op.forceComplete();
    op.purgatory = this;
    op.watchKeys = keys;
    for (const k of keys) {
      let set = this.watchers.get(k);
      if (!set) this.watchers.set(k, (set = new Set()));
      set.add(op);
    }
    if (connectionId !== undefined) {
      op.connectionId = connectionId;
      let set = this.byConnection.get(connectionId);
      if (!set) this.byConnection.set(connectionId, (set = new Set()));
      set.add(op);
    }
    this.parked++;
    op.parkedAt = performance.now();
    op.timer = setTimeout(() => op.expire(), Math.max(0, op.delayMs));
    return false;
  }

  /** Re-checks the operations watching `key`; returns how many completed. */
  checkAndComplete(key: string): number {
    const set = this.watchers.get(key);
    if (!set || set.size === 0) return 0;
    let n = 0;
    // completing detaches from the set, so walk a snapshot (bounded by the set's size)
    for (const op of [...set]) if (!op.isCompleted && op.tryComplete()) n++;
    return n;
  }

  /** Cancels the operations of a closed connection (their responses could not be sent). */
  cancelConnection(connectionId: string): number {
    const set = this.byConnection.get(connectionId);
    if (!set) return 0;
    let n = 0;
    for (const op of [...set]) if (op.cancel()) n++;
    this.byConnection.delete(connectionId);
    return n;
  }

  /** Completes every waiting operation now (shutdown, partition removed). */
  completeAll(key?: string): number {
    const ops =
      key === undefined
        ? [...new Set([...this.watchers.values()].flatMap((s) => [...s]))]
        : [...(this.watchers.get(key) ?? [])];
    let n = 0;
    for (const op of ops) if (op.forceComplete()) n++;
    return n;
  }

  /** Cancels everything (shutdown without responses). */
  shutdown(): void {
    const ops = new Set([...this.watchers.values()].flatMap((s) => [...s]));
    for (const op of ops) op.cancel();
  }

  /** @internal removes a completed operation from every list and clears its timer */
  detach(op: DelayedOperation): void {
    if (op.purgatory !== this) return;
    op.purgatory = undefined;
    if (op.timer !== undefined) {
      clearTimeout(op.timer);
      op.timer = undefined;
    }
    for (const k of op.watchKeys) {
      const set = this.watchers.get(k);
      if (!set) continue;
      set.delete(op as T);
      if (set.size === 0) this.watchers.delete(k);
    }
    op.watchKeys = [];
    if (op.connectionId !== undefined) {
      const set = this.byConnection.get(op.connectionId);
      if (set) {
        set.delete(op as T);
        if (set.size === 0) this.byConnection.delete(op.connectionId);
      }
      addRemoteTime(op.connectionId, performance.now() - op.parkedAt);
      op.connectionId = undefined;
    }
    this.parked--;
  }
}
