// Kafka 4.4's SharePartitionManager on a broker: the share-partitions this broker leads (created
// and loaded from the persister on first use), the share sessions, ShareFetch's acquisition over the
// replica manager's read path (records sent as stored, sliced to the acquired batches) and
// ShareAcknowledge's acknowledgements; the ShareGroupListener that releases a leaving member's
// records; a closed connection ends its sessions and releases their records
// (ShareSessionCache.ClientConnectionDisconnectListener).
import { ErrorCode } from '../../protocol/errors.js';
import { isControlBatch, isTransactional, parseBatchHeader } from '../../protocol/records/batch.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import {
  EMPTY_RECORDS,
  recordsInMemory,
  READ_COMMITTED,
  READ_UNCOMMITTED,
  type FetchParams,
} from '../replication/types.js';
import type { Persister, ShareGroupListener, SharePartitionKey } from './types.js';
import {
  SharePartition,
  SharePartitionError,
  SYSTEM_SHARE_TIMER,
  type AcquiredRecords,
  type FetchedBatch,
  type ShareAcknowledgementBatch,
  type ShareTimer,
} from './share-partition.js';
import { ShareSessionCache, tipKey, type ShareTopicIdPartition } from './share-session.js';
import {
  DelayedShareFetch,
  type PartitionRead,
  type ShareFetchEntry as Entry,
  type ShareFetchParams,
  type ShareFetchSource,
  type SharePartitionFetchResult,
} from './delayed-share-fetch.js';

export type { ShareFetchParams, SharePartitionFetchResult } from './delayed-share-fetch.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import { ConfigResourceType } from '../metadata/image.js';

/** The broker's share-group settings (ShareGroupConfig), Kafka's names and defaults. */
export interface ShareBrokerConfig {
  /** group.share.record.lock.duration.ms */
  recordLockDurationMs: number;
  /** group.share.delivery.count.limit */
  deliveryCountLimit: number;
  /** group.share.partition.max.record.locks */
  partitionMaxRecordLocks: number;
  /** group.share.max.share.sessions */
  maxShareSessions: number;
}

export const DEFAULT_SHARE_BROKER_CONFIG: ShareBrokerConfig = {
  recordLockDurationMs: 30_000,
  deliveryCountLimit: 5,
  partitionMaxRecordLocks: 2000,
  maxShareSessions: 2000,
};

export interface SharePartitionManagerOptions {
  replicas: ReplicaManager;
  persister: Persister;
  config: ShareBrokerConfig;
  /** The group's dynamic configs (share.record.lock.duration.ms, share.isolation.level, ...). */
  groupConfigs?: (groupId: string) => ReadonlyMap<string, string> | undefined;
  timer?: ShareTimer;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
}

const errorResult = (errorCode: number, errorMessage: string | null = null): SharePartitionFetchResult => ({
  errorCode,
  errorMessage,
  records: EMPTY_RECORDS,
  acquiredRecords: [],
});

export class SharePartitionManager implements ShareGroupListener, ShareFetchSource {
  readonly sessions: ShareSessionCache;
  private readonly partitions = new Map<string, Entry>();
  private readonly waiters = new Set<() => void>();
  private readonly timer: ShareTimer;
  private closed = false;

  constructor(private readonly opts: SharePartitionManagerOptions) {
    this.timer = opts.timer ?? SYSTEM_SHARE_TIMER;
    this.sessions = new ShareSessionCache(opts.config.maxShareSessions, () => this.timer.now());
  }

  private static key(groupId: string, topicId: string, partition: number): string {
    return `${groupId}\u0000${topicId}\u0000${partition}`;
  }

  // ---- group configuration ----

  private groupInt(groupId: string, name: string, dflt: number): number {
    const raw = this.opts.groupConfigs?.(groupId)?.get(name);
    const v = raw === undefined ? NaN : Number(raw);
    return Number.isInteger(v) && v > 0 ? v : dflt;
  }

  /** share.record.lock.duration.ms of the group, else group.share.record.lock.duration.ms. */
  recordLockDurationMs(groupId: string): number {
    return this.groupInt(groupId, 'share.record.lock.duration.ms', this.opts.config.recordLockDurationMs);
  }

  private isolationLevel(groupId: string): number {
    return this.opts.groupConfigs?.(groupId)?.get('share.isolation.level') === 'read_committed'
      ? READ_COMMITTED
      : READ_UNCOMMITTED;
  }

  /** share.auto.offset.reset: latest (default), earliest, by_duration:<ISO-8601 duration>. */
  private async resetOffset(groupId: string, topic: string, partition: number): Promise<number> {
    const strategy = (this.opts.groupConfigs?.(groupId)?.get('share.auto.offset.reset') ?? 'latest').trim();
    let timestamp = -1;
    if (strategy === 'earliest') timestamp = -2;
    else if (strategy.startsWith('by_duration:')) {
      const ms = parseIsoDurationMs(strategy.slice('by_duration:'.length));
      if (ms !== null) timestamp = Date.now() - ms;
    }
    const q = { currentLeaderEpoch: -1, isolationLevel: READ_UNCOMMITTED, replicaId: -1, version: 10 };
    let r = await this.opts.replicas.listOffset(topic, partition, { ...q, timestamp });
    // no record at or after the timestamp: the latest offset
    if (r.errorCode === ErrorCode.NONE && r.offset < 0)
      r = await this.opts.replicas.listOffset(topic, partition, { ...q, timestamp: -1 });
    if (r.errorCode !== ErrorCode.NONE || r.offset < 0)
      throw new SharePartitionError(r.errorCode || ErrorCode.UNKNOWN_SERVER_ERROR, 'The start offset is unknown.');
    return r.offset;
  }

  // ---- share-partitions ----

  /** The share-partition of a led partition, created (and loaded) on first use; an error code otherwise. */
  private async sharePartition(groupId: string, tip: ShareTopicIdPartition): Promise<Entry | number> {
    if (tip.topic === null) return ErrorCode.UNKNOWN_TOPIC_ID;
    const found = this.opts.replicas.lookup(tip.topic, tip.partition);
    if (!found.ok) return found.errorCode;
    const p = found.partition;
    if (p.topicId !== tip.topicId) return ErrorCode.UNKNOWN_TOPIC_ID;
    const k = SharePartitionManager.key(groupId, tip.topicId, tip.partition);
    let e = this.partitions.get(k);
    if (e && e.leaderEpoch !== p.leaderEpoch) {
      // a new leadership term: the state is read again from the persister
      e.sp.close();
      this.partitions.delete(k);
      e = undefined;
    }
    if (!e) {
      const topic = tip.topic;
      const key: SharePartitionKey = { groupId, topicId: tip.topicId, partition: tip.partition };
      const leaderEpoch = p.leaderEpoch;
      const sp = new SharePartition({
        key,
        persister: this.opts.persister,
        timer: this.timer,
        leaderEpoch: () => leaderEpoch,
        resetOffset: () => this.resetOffset(groupId, topic, tip.partition),
        onAvailable: () => this.wakeUp(),
        config: {
          recordLockDurationMs: () => this.recordLockDurationMs(groupId),
          deliveryCountLimit: () =>
            this.groupInt(groupId, 'share.delivery.count.limit', this.opts.config.deliveryCountLimit),
          maxInFlightRecords: () =>
            this.groupInt(groupId, 'share.partition.max.record.locks', this.opts.config.partitionMaxRecordLocks),
        },
      });
      e = { sp, leaderEpoch, topic };
      this.partitions.set(k, e);
    }
    try {
      await e.sp.maybeInitialize();
    } catch (err) {
      // Kafka's FAILED state: the partition is dropped and created again by the next request
      if (this.partitions.get(k) === e) this.partitions.delete(k);
      e.sp.close();
      if (err instanceof SharePartitionError) return err.errorCode;
      this.opts.log?.(
        'error',
        `Failed to initialize share partition ${groupId}-${tip.topic}-${tip.partition}: ${String(err)}`,
      );
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    }
    return e;
  }

  /** The loaded share-partition, if this broker has one (tests, DescribeShareGroupOffsets). */
  cached(groupId: string, topicId: string, partition: number): SharePartition | undefined {
    return this.partitions.get(SharePartitionManager.key(groupId, topicId, partition))?.sp;
  }

  // ---- fetch ----

  private wakeUp(): void {
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  /** Resolves when records may have become acquirable again (release, lock timeout). */
  availabilitySignal(): { promise: Promise<void>; cancel(): void } {
    let fn: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      fn = resolve;
      this.waiters.add(fn);
    });
    return { promise, cancel: () => this.waiters.delete(fn) };
  }

  /**
   * ShareFetch: acquires records of the partitions for the member, waiting up to maxWaitMs for
   * minBytes (DelayedShareFetch). Results by `tipKey`.
   */
  async fetch(p: ShareFetchParams): Promise<Map<string, SharePartitionFetchResult>> {
    const out = new Map<string, SharePartitionFetchResult>();
    const ready: { tip: ShareTopicIdPartition; entry: Entry }[] = [];
    for (const tip of p.partitions) {
      const e = await this.sharePartition(p.groupId, tip);
      if (typeof e === 'number') out.set(tipKey(tip), errorResult(e));
      else ready.push({ tip, entry: e });
    }
    if (ready.length === 0) return out;
    const delayed = new DelayedShareFetch(this, this.opts.replicas, p, ready, this.isolationLevel(p.groupId));
    for (const [k, r] of await delayed.run()) out.set(k, r);
    return out;
  }

  /** One read of the partitions that can acquire records, at their next fetch offsets. */
  async readPartitions(
    entries: readonly { tip: ShareTopicIdPartition; entry: Entry }[],
    maxBytes: number,
    isolationLevel: number,
  ): Promise<{ reads: PartitionRead[]; errors: Map<string, number> }> {
    // the log start offset moved past the share-partition's start (retention, DeleteRecords)
    for (const e of entries) {
      const lso = this.opts.replicas.partition(e.entry.topic, e.tip.partition)?.logStartOffset;
      if (lso !== undefined && lso > e.entry.sp.startOffset) e.entry.sp.updateCacheAndOffsets(lso);
    }
    const candidates = entries.filter((e) => e.entry.sp.canAcquireRecords());
    const errors = new Map<string, number>();
    if (candidates.length === 0) return { reads: [], errors };
    // PartitionMaxBytesStrategy UNIFORM: the request's max bytes split evenly
    const perPartition = Math.max(1, Math.floor(maxBytes / candidates.length));
    const params: FetchParams = {
      version: 17,
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes,
      isolationLevel,
    };
    const offsets = candidates.map((c) => c.entry.sp.nextFetchOffset());
    const results = await this.opts.replicas.readFromLog(
      params,
      candidates.map((c, i) => ({
        topic: c.entry.topic,
        topicId: c.tip.topicId,
        partition: c.tip.partition,
        fetchOffset: offsets[i]!,
        logStartOffset: -1,
        maxBytes: perPartition,
        currentLeaderEpoch: -1,
        lastFetchedEpoch: -1,
      })),
    );
    const reads: PartitionRead[] = [];
    candidates.forEach((c, i) => {
      const r = results[i]!;
      if (r.errorCode !== ErrorCode.NONE) {
        errors.set(tipKey(c.tip), r.errorCode);
        return;
      }
      reads.push({
        tip: c.tip,
        entry: c.entry,
        fetchOffset: offsets[i]!,
        records: recordsInMemory(r),
        batches: batchesOf(recordsInMemory(r)),
        aborted: r.abortedTransactions,
      });
    });
    return { reads, errors };
  }

  /** Acquires from the reads; the response records are the batches holding the acquired offsets. */
  acquireFromReads(
    p: ShareFetchParams,
    reads: readonly PartitionRead[],
    errors: ReadonlyMap<string, number>,
    all: readonly { tip: ShareTopicIdPartition }[],
  ): Map<string, SharePartitionFetchResult> {
    const out = new Map<string, SharePartitionFetchResult>();
    let remaining = p.maxRecords > 0 ? p.maxRecords : 500;
    const batchSize = p.batchSize > 0 ? p.batchSize : remaining;
    for (const r of reads) {
      if (remaining <= 0 || r.batches.length === 0) continue;
      const acquired = r.entry.sp.acquire(
        p.memberId,
        p.acquireMode,
        batchSize,
        remaining,
        r.fetchOffset,
        r.batches,
        r.aborted,
      );
      if (acquired.count === 0) continue;
      remaining -= acquired.count;
      out.set(tipKey(r.tip), {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        records: sliceRecords(r.records, r.batches, acquired.acquiredRecords),
        acquiredRecords: acquired.acquiredRecords,
      });
    }
    for (const t of all) {
      const k = tipKey(t.tip);
      if (out.has(k)) continue;
      const err = errors.get(k);
      out.set(k, err !== undefined ? errorResult(err) : errorResult(ErrorCode.NONE));
    }
    return out;
  }

  // ---- acknowledge ----

  /** Acknowledges per partition; the error code of each (UNKNOWN_TOPIC_OR_PARTITION when not loaded here). */
  async acknowledge(
    groupId: string,
    memberId: string,
    acks: ReadonlyMap<string, { tip: ShareTopicIdPartition; batches: ShareAcknowledgementBatch[] }>,
  ): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      [...acks].map(async ([k, a]) => {
        const e = this.partitions.get(SharePartitionManager.key(groupId, a.tip.topicId, a.tip.partition));
        if (!e || !e.sp.isInitialized) {
          out.set(k, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
          return;
        }
        out.set(k, await e.sp.acknowledge(memberId, a.batches));
      }),
    );
    return out;
  }

  // ---- sessions, members, connections ----

  /**
   * SharePartitionManager.releaseSession: the member's session ends and its acquired records on the
   * session's partitions go back (keeping their delivery count, as Kafka 4.4).
   */
  async releaseSession(groupId: string, memberId: string): Promise<void> {
    const s = this.sessions.remove(groupId, memberId);
    if (!s) return;
    await Promise.all(
      [...s.partitions.values()].map((tip) => {
        const e = this.partitions.get(SharePartitionManager.key(groupId, tip.topicId, tip.partition));
        return e ? e.sp.releaseAcquiredRecords(memberId) : Promise.resolve(0);
      }),
    );
  }

  /** ShareGroupListenerImpl.onMemberLeave: releaseSession. */
  onMemberLeave(groupId: string, memberId: string): void {
    void this.releaseSession(groupId, memberId);
  }

  /** ShareGroupListenerImpl.onGroupEmpty: the group's share-partitions leave the cache (reloaded on next use). */
  onGroupEmpty(groupId: string): void {
    for (const [k, e] of [...this.partitions]) {
      if (!k.startsWith(`${groupId}\u0000`)) continue;
      e.sp.close();
      this.partitions.delete(k);
    }
  }

  /**
   * ShareSessionCache.ClientConnectionDisconnectListener: each session opened on the connection (and
   * not opened again since on another) is a member leaving; a group left without sessions is empty.
   */
  connectionClosed(connectionId: string): void {
    if (this.closed) return;
    const groups = new Set<string>();
    for (const s of this.sessions.sessionsOnConnection(connectionId)) {
      groups.add(s.groupId);
      // the session leaves the cache and the releases start at once (before the first await)
      void this.releaseSession(s.groupId, s.memberId);
    }
    for (const g of groups) if (this.sessions.sessionsOf(g).length === 0) this.onGroupEmpty(g);
  }

  close(): void {
    this.closed = true;
    for (const e of this.partitions.values()) e.sp.close();
    this.partitions.clear();
    this.wakeUp();
  }
}

/** The complete batches of a log read (a trailing partial batch is left out). */
export function batchesOf(records: Buffer): FetchedBatch[] {
  const out: FetchedBatch[] = [];
  let off = 0;
  while (off + 61 <= records.length) {
    const b = parseBatchHeader(records, off, records.length - off, off);
    if (b.size <= 0 || off + b.size > records.length) break;
    out.push({
      baseOffset: b.baseOffset,
      lastOffset: b.lastOffset,
      producerId: b.producerId,
      isTransactional: isTransactional(b),
      isControl: isControlBatch(b),
      position: off,
      size: b.size,
    });
    off += b.size;
  }
  return out;
}

/** ShareFetchUtils.maybeSliceFetchRecords: from the batch holding the first acquired offset to the one holding the last. */
export function sliceRecords(
  records: Buffer,
  batches: readonly FetchedBatch[],
  acquired: readonly AcquiredRecords[],
): Buffer {
  if (acquired.length === 0) return EMPTY_RECORDS;
  const first = acquired[0]!.firstOffset;
  const last = acquired[acquired.length - 1]!.lastOffset;
  const start = batches.find((b) => b.lastOffset >= first);
  let end: FetchedBatch | undefined;
  for (const b of batches) if (b.baseOffset <= last) end = b;
  if (!start || !end || start.position === undefined || end.position === undefined || end.size === undefined)
    return EMPTY_RECORDS;
  return records.subarray(start.position, end.position + end.size);
}

/** java.time.Duration.parse for the forms share.auto.offset.reset accepts (PnDTnHnMn.nS); null when invalid. */
export function parseIsoDurationMs(s: string): number | null {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(s.trim());
  if (!m || s.trim().toUpperCase() === 'P' || /T$/i.test(s.trim())) return null;
  const [, d, h, min, sec] = m;
  return Number(d ?? 0) * 86_400_000 + Number(h ?? 0) * 3_600_000 + Number(min ?? 0) * 60_000 + Number(sec ?? 0) * 1000;
}

const managers = new WeakMap<object, SharePartitionManager>();

/** The broker's SharePartitionManager (null until wired: ShareFetch/ShareAcknowledge answer UNSUPPORTED_VERSION). */
export function sharePartitionManagerOf(services: object): SharePartitionManager | null {
  return managers.get(services) ?? null;
}

/** Wiring only (broker-server.ts, server.ts): the manager of a broker's services. */
export function setSharePartitionManager(services: object, manager: SharePartitionManager | null): void {
  if (manager) managers.set(services, manager);
  else managers.delete(services);
}

/**
 * Creates the broker's SharePartitionManager (broker-server.ts, server.ts) over the broker's persister:
 * the share coordinator's DefaultStatePersister (`persisterOf(services)`), so share-partition state lives
 * in __share_group_state.
 */
export function startSharePartitionManager(
  services: BrokerServices,
  opts: { persister: Persister; log?: SharePartitionManagerOptions['log'] },
): SharePartitionManager {
  const manager = new SharePartitionManager({
    replicas: services.replicas,
    persister: opts.persister,
    // Kafka 4.4's ShareGroupConfig keys, validated at start-up (src/config/definitions.ts)
    config: {
      recordLockDurationMs: services.config.getInt('group.share.record.lock.duration.ms'),
      deliveryCountLimit: services.config.getInt('group.share.delivery.count.limit'),
      partitionMaxRecordLocks: services.config.getInt('group.share.partition.max.record.locks'),
      maxShareSessions: services.config.getInt('group.share.max.share.sessions'),
    },
    groupConfigs: (groupId) => metadataSourceOf(services).image.configsOf(ConfigResourceType.Group, groupId),
    ...(opts.log ? { log: opts.log } : {}),
  });
  setSharePartitionManager(services, manager);
  return manager;
}
