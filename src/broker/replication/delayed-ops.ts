// The replica manager's delayed operations: DelayedFetch (Kafka's DelayedFetch.tryComplete: enough
// bytes under the fetchable end offset of the watched partitions, or a reason to answer now) and
// DelayedProduce (acks=all: the high watermark reached the appended batch).

import { ErrorCode } from '../../protocol/errors.js';
import type { Partition } from './partition.js';
import { DelayedOperation } from './purgatory.js';
import { type FetchParams, type FetchPartitionRequest, isFromFollower, READ_COMMITTED } from './types.js';

export type PartitionResolver = (topic: string, partition: number) => Partition | undefined;

export interface FetchPartitionStatus {
  request: FetchPartitionRequest;
  /** the partition object the first read used; another object (or none) means it was recreated */
  partition: Partition;
}

export class DelayedFetch extends DelayedOperation {
  constructor(
    private readonly params: FetchParams,
    private readonly statuses: readonly FetchPartitionStatus[],
    private readonly resolve: PartitionResolver,
    private readonly complete: () => void,
    private readonly cancelled: () => void,
    /** ReplicaManager.shouldLeaderThrottle for this fetch's follower: its bytes do not count */
    private readonly throttled: (p: Partition) => boolean = () => false,
  ) {
    super(params.maxWaitMs);
  }

  tryComplete(): boolean {
    const follower = isFromFollower(this.params);
    let accumulated = 0;
    for (const s of this.statuses) {
      const r = s.request;
      const p = this.resolve(r.topic, r.partition);
      // Case B/C: the partition is gone or no longer led here; Case D: the leader epoch moved
      if (p !== s.partition || p.closed || p.checkLeaderEpoch(r.currentLeaderEpoch) !== ErrorCode.NONE)
        return this.forceComplete();
      const end = follower
        ? p.logEndOffset
        : this.params.isolationLevel === READ_COMMITTED
          ? p.lastStableOffset
          : p.highWatermark;
      // Case E: truncated below the fetch offset; the log start moved past it
      if (end < r.fetchOffset || r.fetchOffset < p.logStartOffset) return this.forceComplete();
      if (end > r.fetchOffset && !(follower && this.throttled(p)))
        accumulated += Math.min(p.ledger.bytesBetween(r.fetchOffset, end), r.maxBytes);
    }
    // Case G: enough data
    if (accumulated >= this.params.minBytes) return this.forceComplete();
    return false;
  }

  protected onComplete(): void {
    this.complete();
  }

  protected override onCancel(): void {
    this.cancelled();
  }
}

export class DelayedProduce extends DelayedOperation {
  private errorCode: number = ErrorCode.REQUEST_TIMED_OUT;

  constructor(
    timeoutMs: number,
    private readonly partition: Partition,
    /** the high watermark that acknowledges the append: its last offset + 1 */
    private readonly requiredOffset: number,
    private readonly resolve: PartitionResolver,
    private readonly done: (errorCode: number) => void,
  ) {
    super(timeoutMs);
  }

  tryComplete(): boolean {
    const p = this.resolve(this.partition.topic, this.partition.index);
    if (p !== this.partition || p.closed) {
      this.errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
      return this.forceComplete();
    }
    if (p.highWatermark >= this.requiredOffset) {
      // Partition.checkEnoughReplicasReachOffset
      this.errorCode =
        p.maximalIsr.length >= p.effectiveMinIsr ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
      return this.forceComplete();
    }
    return false;
  }

  protected onComplete(): void {
    this.done(this.errorCode);
  }
}
