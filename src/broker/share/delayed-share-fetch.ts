// Kafka 4.4's DelayedShareFetch: a ShareFetch that waits up to maxWaitMs until its acquirable
// partitions hold minBytes. Each round reads the partitions that can acquire records at their next
// fetch offsets; with enough bytes (or at the deadline, or with maxWaitMs 0) the records are
// acquired and answered. Otherwise it parks until new data arrives (the replica manager's fetch
// purgatory, as a consumer Fetch waits) or records become available again (a release or a lock
// timeout on a share-partition), then reads again.
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { AcquiredRecords, FetchedBatch, SharePartition } from './share-partition.js';
import type { ShareTopicIdPartition } from './share-session.js';

/** What ShareFetch answers for one partition. */
export interface SharePartitionFetchResult {
  errorCode: number;
  errorMessage: string | null;
  records: Buffer;
  acquiredRecords: AcquiredRecords[];
}

export interface ShareFetchParams {
  groupId: string;
  memberId: string;
  partitions: readonly ShareTopicIdPartition[];
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  maxRecords: number;
  batchSize: number;
  acquireMode: number;
  connectionId: string;
  /** Whether the member's session still stands (a fetch parked when its connection closed acquires nothing). */
  isLive?: () => boolean;
}

/** A loaded share-partition of a led partition. */
export interface ShareFetchEntry {
  sp: SharePartition;
  leaderEpoch: number;
  topic: string;
}

/** One partition's log read, ready to acquire from. */
export interface PartitionRead {
  tip: ShareTopicIdPartition;
  entry: ShareFetchEntry;
  fetchOffset: number;
  records: Buffer;
  batches: FetchedBatch[];
  aborted: { producerId: number; firstOffset: number }[] | null;
}

interface ReadyPartition {
  tip: ShareTopicIdPartition;
  entry: ShareFetchEntry;
}

/** The SharePartitionManager as a delayed share fetch uses it. */
export interface ShareFetchSource {
  readPartitions(
    entries: readonly ReadyPartition[],
    maxBytes: number,
    isolationLevel: number,
  ): Promise<{ reads: PartitionRead[]; errors: Map<string, number> }>;
  acquireFromReads(
    p: ShareFetchParams,
    reads: readonly PartitionRead[],
    errors: ReadonlyMap<string, number>,
    all: readonly { tip: ShareTopicIdPartition }[],
  ): Map<string, SharePartitionFetchResult>;
  availabilitySignal(): { promise: Promise<void>; cancel(): void };
}

export class DelayedShareFetch {
  constructor(
    private readonly manager: ShareFetchSource,
    private readonly replicas: ReplicaManager,
    private readonly params: ShareFetchParams,
    private readonly partitions: readonly ReadyPartition[],
    private readonly isolationLevel: number,
  ) {}

  async run(): Promise<Map<string, SharePartitionFetchResult>> {
    const p = this.params;
    const deadline = Date.now() + Math.max(0, p.maxWaitMs);
    const minBytes = Math.max(1, p.minBytes);
    for (;;) {
      if (p.isLive?.() === false) return this.manager.acquireFromReads(p, [], new Map(), this.partitions);
      const { reads, errors } = await this.manager.readPartitions(this.partitions, p.maxBytes, this.isolationLevel);
      let bytes = 0;
      for (const r of reads) bytes += r.records.length;
      const remaining = deadline - Date.now();
      if (bytes >= minBytes || remaining <= 0 || errors.size > 0) {
        const live = p.isLive?.() !== false;
        const out = this.manager.acquireFromReads(p, live ? reads : [], errors, this.partitions);
        let acquired = false;
        for (const r of out.values()) if (r.acquiredRecords.length > 0 || r.errorCode !== 0) acquired = true;
        // enough bytes, but all of them already acquired by others: wait on, unless out of time
        if (acquired || remaining <= 0 || !live) return out;
      }
      // min bytes were readable but other members' fetches acquired them first (they read the same
      // offsets): wait for data past what was read, as Kafka's purgatory checks every parked share
      // fetch of a partition when records are appended; otherwise a member that lost the race slept
      // to its deadline while the winner fetched again at once and took every new record
      await this.waitForChange(bytes >= minBytes ? pastReads(reads) : reads, remaining);
    }
  }

  /** Parks until data past the read offsets, records released, or the deadline. */
  private async waitForChange(reads: readonly PartitionRead[], remainingMs: number): Promise<void> {
    const signal = this.manager.availabilitySignal();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, remainingMs);
    });
    const waits: Promise<unknown>[] = [signal.promise, timeout];
    if (reads.length > 0) {
      // the fetch purgatory completes when min bytes accumulate past the offsets read
      waits.push(
        this.replicas.fetchMessages(
          {
            version: 17,
            replicaId: -1,
            maxWaitMs: remainingMs,
            minBytes: Math.max(1, this.params.minBytes),
            maxBytes: this.params.maxBytes,
            isolationLevel: this.isolationLevel,
          },
          reads.map((r) => ({
            topic: r.entry.topic,
            topicId: r.tip.topicId,
            partition: r.tip.partition,
            fetchOffset: r.fetchOffset,
            logStartOffset: -1,
            maxBytes: this.params.maxBytes,
            currentLeaderEpoch: -1,
            lastFetchedEpoch: -1,
          })),
          this.params.connectionId,
        ),
      );
    }
    try {
      await Promise.race(waits);
    } finally {
      clearTimeout(timer);
      signal.cancel();
    }
  }
}

/** The reads moved past their last batch: where new data would start. */
function pastReads(reads: readonly PartitionRead[]): PartitionRead[] {
  return reads
    .filter((r) => r.batches.length > 0)
    .map((r) => ({ ...r, fetchOffset: r.batches[r.batches.length - 1]!.lastOffset + 1 }));
}
