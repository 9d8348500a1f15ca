// The partition data plane (Kafka's ReplicaManager, leader side): the partitions this broker leads,
// appends with LogValidator's checks, reads for Fetch with Kafka's size limits, long polling through
// the fetch purgatory, acks=all through the produce purgatory, and the offset queries.
//
// The server creates one ReplicaManager over a LogStore (the LogManager), tells it which partitions
// it leads from the metadata image (ensurePartition / deletePartitions, or syncWithImage), and hands
// it to the handlers as `services.replicas`.

import { ErrorCode } from '../../protocol/errors.js';
import { SerialQueue } from '../log/serial-queue.js';
import { InconsistentTopicIdError, LogError, NotLeaderOrFollowerError } from '../log/log-errors.js';
import type { PartitionLog } from '../log/partition-log.js';
import type { DynamicBrokerConfigs } from '../../config/topic-configs.js';
import type { MetadataImage } from '../metadata/image.js';
import { DelayedFetch, DelayedProduce, type FetchPartitionStatus } from './delayed-ops.js';
import { FetchSessionCache } from './fetch-sessions.js';
import { type LogManagerLike, type LogStore, logStoreOf } from './log-store.js';
import * as offsets from './offsets.js';
import { type IsrContext, Partition, type PartitionState, type PendingIsrChange } from './partition.js';
import { DelayedOperationPurgatory } from './purgatory.js';
import { BrokerTopicStats, type TopicStats } from '../metrics/broker-topic-stats.js';
import { AppendError, type ValidatedBatch, validateRecordsForAppend } from './record-validator.js';
import { resolveTopicConfig, type TopicConfig, type TopicOverrides } from './topic-config.js';
import { DEFAULT_QUOTA_WINDOW, type QuotaWindowConfig, ReplicationQuotas } from './replication-quotas.js';
import {
  type AppendOptions,
  type AppendResult,
  type BrokerConfigLike,
  EMPTY_RECORDS,
  type EnsurePartitionOptions,
  errorFetchResult,
  type FetchParams,
  type FetchPartitionRequest,
  type FetchPartitionResult,
  fetchOnlyLeader,
  isFromFollower,
  type LeaderHint,
  type PartitionLookup,
  type ProducerBatch,
  type ProducerStateHook,
  READ_COMMITTED,
  recordsInMemory,
  recordsSize,
  type ReplicaLogger,
} from './types.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import {
  createReplicaSelector,
  findPreferredReadReplica,
  type ReplicaNode,
  type ReplicaSelector,
  replicaEndpoints,
} from './replica-selector.js';

export type * from './types.js';

export { AppendError } from './record-validator.js';

const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

export interface ReplicaManagerOptions {
  nodeId: number;
  /** where logs come from: a LogStore, or the broker's LogManager (adapted with logStoreOf) */
  logs?: LogStore;
  logManager?: LogManagerLike;
  /** broker configuration: topic defaults through synonyms, fetch.max.bytes, session cache slots */
  config?: BrokerConfigLike;
  /** the current metadata image: tells NOT_LEADER_OR_FOLLOWER from UNKNOWN_TOPIC_OR_PARTITION, topic ids, leader hints */
  metadata?: () => MetadataImage | undefined;
  clock?: () => number;
  logger?: ReplicaLogger;
  producerState?: ProducerStateHook;
  /** parked delayed operations per purgatory (default 100000) */
  maxParkedOperations?: number;
  /**
   * Test only (env TKAFKA_TEST_UNSAFE_ACKS=1): acks=all answers after the leader's local append, so a
   * chaos checker can prove it sees acknowledged records lost. Never for users.
   */
  unsafeAcks?: boolean;
  /** replica.lag.time.max.ms when not from `config` (tests) */
  replicaLagTimeMaxMs?: number;
  /** the ReplicaSelector when not from `config`'s replica.selector.class (tests) */
  replicaSelector?: ReplicaSelector;
  /** the replication quotas' sample window when not from `config` (tests) */
  quotaWindow?: QuotaWindowConfig;
  /** replicas' endpoints on a listener, when not from `metadata` (tests) */
  replicaEndpoints?: (replicas: readonly number[], listenerName: string) => Map<number, ReplicaNode>;
}

/** Who is told when a hosted partition becomes a follower, stops being one, or goes (the fetcher manager). */
export interface FollowerListener {
  /** Partitions to fetch from their leader (new followers, or a new leader / leader epoch). */
  addFollowers(partitions: readonly Partition[]): void;
  /** Partitions to stop fetching (now led here, or removed). */
  removeFollowers(partitions: readonly Partition[]): void;
}

/** Who sends the ISR changes this broker proposes to the controller (the AlterPartition manager). */
export interface IsrChangeSender {
  submit(p: Partition, change: PendingIsrChange): void;
}

export const isValidAcks = (acks: number): boolean => acks === -1 || acks === 0 || acks === 1;

const failed = (errorCode: number, detail?: string, leader?: LeaderHint): AppendResult => ({
  errorCode,
  errorMessage: null,
  baseOffset: -1,
  logAppendTime: -1,
  logStartOffset: -1,
  recordErrors: [],
  leader,
  detail,
});

/**
 * Append errors ReplicaManager.appendToLocalLog answers without marking FailedProduceRequestsPerSec
 * (not the leader, unknown partition, a too large or corrupt batch, a storage error).
 */
const EXPECTED_APPEND_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.MESSAGE_TOO_LARGE,
  ErrorCode.RECORD_LIST_TOO_LARGE,
  ErrorCode.CORRUPT_MESSAGE,
  ErrorCode.KAFKA_STORAGE_ERROR,
]);

/** Read errors ReplicaManager.readFromLog answers without marking FailedFetchRequestsPerSec. */
const EXPECTED_FETCH_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.INCONSISTENT_TOPIC_ID,
  ErrorCode.OFFSET_OUT_OF_RANGE,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

export class ReplicaManager {
  readonly nodeId: number;
  readonly fetchPurgatory: DelayedOperationPurgatory<DelayedFetch>;
  readonly producePurgatory: DelayedOperationPurgatory<DelayedProduce>;
  /** BrokerTopicMetrics: what this broker appended and served, per topic (src/broker/metrics) */
  readonly topicStats = new BrokerTopicStats();
  /** ReplicaManager's IsrShrinksPerSec / IsrExpandsPerSec: committed ISR changes of led partitions */
  isrShrinks = 0;
  isrExpands = 0;
  readonly fetchSessions: FetchSessionCache;
  /** fetch.max.bytes: the cap on a fetch response's records */
  readonly fetchMaxBytes: number;
  private readonly partitions = new Map<string, Partition>();
  private readonly topicIds = new Map<string, string>();
  private readonly topicNames = new Map<string, string>();
  /** led partitions per topic, to drop the topic's id mappings with its last partition */
  private readonly ledPerTopic = new Map<string, number>();
  private readonly lifecycle = new Map<string, SerialQueue>();
  private readonly appendQueues = new WeakMap<Partition, SerialQueue>();
  private readonly clock: () => number;
  private readonly logger: ReplicaLogger;
  private readonly logs: LogStore;
  /** the broker's LogManager when built over one (DescribeLogDirs lists all of its logs) */
  readonly logManager: LogManagerLike | undefined;
  private closed = false;
  private followerListener: FollowerListener | undefined;
  private isrSender: IsrChangeSender | undefined;
  private isrTimer: ReturnType<typeof setInterval> | undefined;
  /** replica.lag.time.max.ms */
  readonly replicaLagTimeMaxMs: number;
  private readonly unsafeAcks: boolean;
  /** replica.selector.class (KIP-392): undefined is leader-only */
  readonly replicaSelector: ReplicaSelector | undefined;
  /** leader / follower / alter-log-dirs replication throttles, read from the metadata image */
  private readonly replicationQuotas: ReplicationQuotas;

  constructor(private readonly opts: ReplicaManagerOptions) {
    this.nodeId = opts.nodeId;
    if (opts.logs) this.logs = opts.logs;
    else if (opts.logManager) this.logs = logStoreOf(opts.logManager);
    else throw new Error('ReplicaManager needs `logs` or `logManager`');
    this.logManager = opts.logManager;
    this.clock = opts.clock ?? Date.now;
    this.logger = opts.logger ?? { info: () => undefined, warn: () => undefined };
    const limit = { maxOperations: opts.maxParkedOperations };
    this.fetchPurgatory = new DelayedOperationPurgatory('Fetch', limit);
    this.producePurgatory = new DelayedOperationPurgatory('Produce', limit);
    const int = (name: string, dflt: number): number => opts.config?.getInt?.(name) ?? dflt;
    this.fetchMaxBytes = int('fetch.max.bytes', 57671680);
    // a long: the configuration hands it over as a bigint
    this.replicaLagTimeMaxMs = opts.replicaLagTimeMaxMs ?? Number(int('replica.lag.time.max.ms', 30000));
    this.unsafeAcks = opts.unsafeAcks ?? process.env.TKAFKA_TEST_UNSAFE_ACKS === '1';
    this.replicaSelector =
      opts.replicaSelector ?? createReplicaSelector(opts.config?.getString?.('replica.selector.class'));
    if (this.unsafeAcks)
      this.logger.warn('TKAFKA_TEST_UNSAFE_ACKS=1: acks=all answers after the local append (test only)');
    this.replicationQuotas = new ReplicationQuotas(
      this.nodeId,
      () => this.opts.metadata?.(),
      opts.quotaWindow ?? quotaWindowOf(opts.config),
      this.clock,
    );
    this.fetchSessions = new FetchSessionCache({
      maxEntries: int('max.incremental.fetch.session.cache.slots', 1000),
      clock: this.clock,
    });
  }

  /** The replication quotas, up to date with the current metadata image. */
  get quotas(): ReplicationQuotas {
    return this.replicationQuotas.refresh();
  }

  /**
   * ReplicaManager.shouldLeaderThrottle: a follower outside the ISR fetching a partition this
   * broker throttles as leader, while the leader quota is exceeded.
   */
  shouldLeaderThrottle(p: Partition, replicaId: number): boolean {
    if (p.isr.includes(replicaId)) return false;
    const q = this.quotas.leader;
    return q.isThrottled(p.topic, p.index) && q.isQuotaExceeded();
  }

  // ---- partitions ----

  private static key(topic: string, partition: number): string {
    return `${topic}-${partition}`;
  }

  /** The led partition, if any. */
  partition(topic: string, partition: number): Partition | undefined {
    const p = this.partitions.get(ReplicaManager.key(topic, partition));
    return p?.isLeader ? p : undefined;
  }

  /** The hosted partition (led here or followed), if any. */
  hostedPartition(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(ReplicaManager.key(topic, partition));
  }

  /** Every hosted partition, leaders and followers. */
  allPartitions(): IterableIterator<Partition> {
    return this.partitions.values();
  }

  /** Logs of the hosted partitions. */
  allLogs(): PartitionLog[] {
    return [...this.partitions.values()].map((p) => p.log);
  }

  /**
   * Topic configuration as this broker resolves it (topic overrides over broker defaults). Kept per
   * metadata image and overrides: leading 10,000 partitions resolves the same few configs 10,000
   * times otherwise, and an image (dynamic broker configs included) never changes once published.
   */
  resolveConfig(overrides: TopicOverrides = {}): TopicConfig {
    const image = this.opts.metadata?.();
    // overrides come as a plain object or as the image's map (which JSON would print as {})
    const key = image ? JSON.stringify(overrides instanceof Map ? [...overrides] : Object.entries(overrides)) : '';
    if (image) {
      if (this.resolvedConfigs?.image !== image) this.resolvedConfigs = { image, byOverrides: new Map() };
      const hit = this.resolvedConfigs.byOverrides.get(key);
      if (hit) return hit;
    }
    const dynamic: DynamicBrokerConfigs = image
      ? { perBroker: image.brokerConfigs(this.nodeId), clusterDefault: image.brokerConfigs() }
      : {};
    const resolved = resolveTopicConfig(overrides, this.opts.config ?? { originals: new Map() }, dynamic, (e) =>
      this.logger.warn(`ignoring invalid topic configuration: ${e.message}`),
    );
    if (image) this.resolvedConfigs!.byOverrides.set(key, resolved);
    return resolved;
  }
  private resolvedConfigs: { image: object; byOverrides: Map<string, TopicConfig> } | undefined;

  private serialize<T>(key: string, task: () => Promise<T>): Promise<T> {
    let q = this.lifecycle.get(key);
    if (!q) this.lifecycle.set(key, (q = new SerialQueue()));
    const queue = q;
    return queue.run(task).finally(() => {
      if (queue.size === 0 && this.lifecycle.get(key) === queue) this.lifecycle.delete(key);
    });
  }

  /**
   * Makes this broker the leader of a partition (Kafka's makeLeader): opens or creates its log,
   * records the leader epoch's start offset in the epoch cache, applies the topic configuration
   * (the topic's overrides; default: the metadata image's), and raises the high watermark to what
   * the ISR has. Idempotent; a new epoch or config updates the existing partition. A different topic
   * id (the topic was recreated) replaces the old log.
   */
  ensurePartition(
    topic: string,
    topicId: string,
    partition: number,
    leaderEpoch: number,
    topicConfig?: TopicOverrides,
    opts: EnsurePartitionOptions = {},
  ): Promise<Partition> {
    const key = ReplicaManager.key(topic, partition);
    return this.serialize(key, async () => {
      if (this.closed) throw new Error('replica manager is shut down');
      const replicas = opts.replicas ?? [this.nodeId];
      const state: PartitionState = {
        leaderEpoch,
        replicas,
        isr: opts.isr ?? replicas,
        leaderId: opts.leaderId ?? this.nodeId,
        partitionEpoch: opts.partitionEpoch,
      };
      const config = this.resolveConfig(topicConfig ?? this.opts.metadata?.()?.topicConfigs(topic) ?? {});
      let p = this.partitions.get(key);
      if (p && p.topicId !== topicId) {
        await this.removePartition(p, true);
        p = undefined;
      }
      // ReplicaManager.getOrCreatePartition: HostedPartition.Offline of the same topic id stays
      // offline, neither leader nor follower (no fetcher: it must not rejoin the ISR)
      if (p?.log.isOffline) {
        this.logger.warn(
          `Unable to bring up new local leader ${topic}-${partition} with topic id ${topicId} because it resides in an offline log directory.`,
        );
        return p;
      }
      const leads = state.leaderId === this.nodeId;
      if (p) {
        const existing = p;
        existing.config = config;
        existing.log.updateConfig(config.log);
        // a stale image of the same leader epoch (the AlterPartition answer came first): nothing to do
        if (
          state.partitionEpoch !== undefined &&
          state.leaderEpoch === existing.leaderEpoch &&
          state.leaderId === existing.leaderId &&
          state.partitionEpoch < existing.partitionEpoch
        )
          return existing;
        const wasLeader = existing.isLeader;
        // on the log's queue, so the new epoch starts where the log ends after any append in progress
        // (not the partition's append queue: a produce may wait there for transaction verification)
        const changed = await existing.log.queue.run(async () => {
          const c = existing.updateState(state, this.clock());
          if (c && leads) await existing.log.epochCache.assign(leaderEpoch, existing.log.logEndOffset);
          return c;
        });
        if (changed || wasLeader !== leads) this.roleChanged(existing, wasLeader);
      } else {
        const log = await this.openLog(topic, partition, topicId, config);
        const created = new Partition(topic, partition, topicId, log, this.nodeId, state, config);
        if (leads) await log.queue.run(() => log.epochCache.assign(leaderEpoch, log.logEndOffset));
        this.partitions.set(key, created);
        this.ledPerTopic.set(topic, (this.ledPerTopic.get(topic) ?? 0) + 1);
        this.topicIds.set(topic, topicId);
        this.topicNames.set(topicId, topic);
        this.logger.info(
          leads
            ? `Leader ${key} with topic id ${topicId} starts at leader epoch ${leaderEpoch} from offset ${log.logEndOffset} with high watermark ${log.highWatermark}`
            : `Follower ${key} with topic id ${topicId} starts at leader epoch ${leaderEpoch} of leader ${state.leaderId} from offset ${log.logEndOffset} with high watermark ${log.highWatermark}`,
        );
        p = created;
        if (!leads) this.followerListener?.addFollowers([created]);
      }
      if (leads) this.afterHighWatermarkCheck(p);
      return p;
    });
  }

  /**
   * A leader or leader-epoch change of a hosted partition (ReplicaManager.applyDelta): parked
   * operations re-check (a produce waiting on a former leader fails with NOT_LEADER_OR_FOLLOWER, a
   * fetch answers), and the fetcher starts, restarts or stops following it.
   */
  private roleChanged(p: Partition, wasLeader: boolean): void {
    this.fetchPurgatory.checkAndComplete(p.key);
    this.producePurgatory.checkAndComplete(p.key);
    if (p.isLeader) {
      if (!wasLeader) {
        this.followerListener?.removeFollowers([p]);
        this.logger.info(
          `Leader ${p.key} starts at leader epoch ${p.leaderEpoch} from offset ${p.logEndOffset} with high watermark ${p.highWatermark}`,
        );
      }
    } else {
      this.logger.info(
        `Follower ${p.key} starts at leader epoch ${p.leaderEpoch} of leader ${p.leaderId} from offset ${p.logEndOffset} with high watermark ${p.highWatermark}`,
      );
      this.followerListener?.addFollowers([p]);
    }
  }

  private async openLog(topic: string, partition: number, topicId: string, config: TopicConfig): Promise<PartitionLog> {
    const spec = { topic, partition, topicId, config: config.log };
    let log: PartitionLog;
    try {
      log = await this.logs.getOrCreateLog(spec);
    } catch (e) {
      if (!(e instanceof InconsistentTopicIdError)) throw e;
      // a log of an earlier incarnation of the topic (deleted and recreated while we were away)
      this.logger.warn(`Deleting the log of ${topic}-${partition}: ${e.message}`);
      await this.logs.deleteLog(topic, partition);
      log = await this.logs.getOrCreateLog(spec);
    }
    log.updateConfig(config.log);
    return log;
  }

  /** Applies a topic configuration change (AlterConfigs) to the partitions of a topic. */
  updateTopicConfig(topic: string, topicConfig: TopicOverrides): void {
    const config = this.resolveConfig(topicConfig);
    for (const p of this.partitions.values()) {
      if (p.topic !== topic) continue;
      p.config = config;
      p.log.updateConfig(config.log);
    }
  }

  /**
   * Stops leading partitions: waiting operations on them complete (fetches re-read and see the
   * partition gone, acks=all produces fail), then the log is deleted (topic deletion, the default)
   * or closed with its data kept (leadership moved).
   */
  deletePartitions(topic: string, partitions: readonly number[], opts?: { deleteData?: boolean }): Promise<void>;
  deletePartitions(
    list: ReadonlyArray<{ topic: string; partition: number }>,
    opts?: { deleteData?: boolean },
  ): Promise<void>;
  async deletePartitions(
    a: string | ReadonlyArray<{ topic: string; partition: number }>,
    b?: readonly number[] | { deleteData?: boolean },
    c?: { deleteData?: boolean },
  ): Promise<void> {
    const list = typeof a === 'string' ? (b as readonly number[]).map((partition) => ({ topic: a, partition })) : a;
    const opts = (typeof a === 'string' ? c : (b as { deleteData?: boolean } | undefined)) ?? {};
    for (const { topic, partition } of list) {
      const key = ReplicaManager.key(topic, partition);
      await this.serialize(key, async () => {
        const p = this.partitions.get(key);
        if (p) await this.removePartition(p, opts.deleteData ?? true);
      });
    }
  }

  private async removePartition(p: Partition, deleteData: boolean): Promise<void> {
    this.partitions.delete(p.key);
    p.closed = true;
    if (!p.isLeader) this.followerListener?.removeFollowers([p]);
    const left = (this.ledPerTopic.get(p.topic) ?? 1) - 1;
    if (left > 0) this.ledPerTopic.set(p.topic, left);
    else {
      this.topicStats.removeTopic(p.topic);
      this.ledPerTopic.delete(p.topic);
      this.topicIds.delete(p.topic);
      this.topicNames.delete(p.topicId);
    }
    this.fetchPurgatory.checkAndComplete(p.key);
    this.producePurgatory.checkAndComplete(p.key);
    if (deleteData) await this.logs.deleteLog(p.topic, p.index);
    else await this.logs.releaseLog(p.topic, p.index);
  }

  /** Completes waiting operations and closes every log (data kept). */
  async shutdown(): Promise<void> {
    this.closed = true;
    if (this.isrTimer !== undefined) clearInterval(this.isrTimer);
    this.fetchPurgatory.completeAll();
    this.producePurgatory.completeAll();
    for (const p of [...this.partitions.values()]) await this.removePartition(p, false);
  }

  /** Cancels the delayed operations of a closed connection. The network layer calls this. */
  cancelConnection(connectionId: string): void {
    this.fetchPurgatory.cancelConnection(connectionId);
    this.producePurgatory.cancelConnection(connectionId);
  }

  // ---- replication: followers, ISR ----

  /** The fetcher manager: told of every follower hosted now and later. */
  setFollowerListener(l: FollowerListener): void {
    this.followerListener = l;
    const followers = [...this.partitions.values()].filter((p) => !p.isLeader);
    if (followers.length > 0) l.addFollowers(followers);
  }

  /**
   * The AlterPartition manager; starts the ISR expiration check (ReplicaManager's isr-expiration
   * task, every replica.lag.time.max.ms / 2).
   */
  setIsrChangeSender(sender: IsrChangeSender): void {
    this.isrSender = sender;
    if (this.isrTimer === undefined && !this.closed) {
      this.isrTimer = setInterval(() => this.maybeShrinkIsrs(), Math.max(1, Math.floor(this.replicaLagTimeMaxMs / 2)));
      this.isrTimer.unref?.();
    }
  }

  /** This broker's epoch: its registration's in the image (-1 while unknown). */
  localBrokerEpoch(): number {
    const b = this.opts.metadata?.()?.broker(this.nodeId);
    return b ? Number(b.epoch) : -1;
  }

  /** Partition.isReplicaIsrEligible against the image (everyone eligible without one). */
  isrContext(): IsrContext {
    const image = this.opts.metadata?.();
    return {
      nowMs: this.clock(),
      maxLagMs: this.replicaLagTimeMaxMs,
      eligible: (id, fetchedEpoch) => {
        if (!image) return true;
        const b = image.broker(id);
        if (!b || b.fenced || b.inControlledShutdown || fetchedEpoch === undefined) return false;
        return fetchedEpoch === -1 || BigInt(fetchedEpoch) === b.epoch;
      },
    };
  }

  /** ReplicaManager.maybeShrinkIsr: every led partition with followers out of sync proposes a smaller ISR. */
  maybeShrinkIsrs(): void {
    if (!this.isrSender || this.closed) return;
    const now = this.clock();
    for (const p of this.partitions.values()) {
      if (!p.isLeader || p.closed) continue;
      const out = p.outOfSyncReplicas(now, this.replicaLagTimeMaxMs);
      if (out.length === 0) continue;
      const change = p.prepareIsrShrink(now, this.replicaLagTimeMaxMs, this.localBrokerEpoch());
      if (!change) continue;
      this.logger.info(
        `Shrinking ISR of ${p.key} from ${p.isr.join(',')} to ${change.sent.map((m) => m.brokerId).join(',')}. Leader: (highWatermark: ${p.highWatermark}, endOffset: ${p.logEndOffset}). Out of sync replicas: ${out
          .map((id) => {
            const r = p.replicaState(id);
            return `(brokerId: ${id}, endOffset: ${r?.logEndOffset ?? 'unknown'}, lastCaughtUpTimeMs: ${r?.lastCaughtUpTimeMs ?? 'unknown'})`;
          })
          .join(' ')}.`,
      );
      this.isrSender.submit(p, change);
    }
  }

  /** Partition.maybeExpandIsr after a follower's fetch. */
  private maybeExpandIsr(p: Partition, replicaId: number): void {
    if (!this.isrSender) return;
    const change = p.prepareIsrExpand(replicaId, this.localBrokerEpoch(), this.isrContext());
    if (!change) return;
    this.logger.info(
      `Expanding ISR of ${p.key} from ${p.isr.join(',')} to ${change.maximal.join(',')} (replica ${replicaId} at ${p.replicaState(replicaId)?.logEndOffset}, high watermark ${p.highWatermark})`,
    );
    this.isrSender.submit(p, change);
  }

  /** The controller answered an ISR change: commit it (and maybe raise the HW) or give up as Kafka. */
  completeIsrChange(
    p: Partition,
    change: PendingIsrChange,
    outcome: { errorCode: number; leaderEpoch?: number; partitionEpoch?: number; isr?: readonly number[] },
    quiet = false,
  ): boolean {
    if (outcome.errorCode === ErrorCode.NONE && outcome.isr !== undefined) {
      if (
        p.applyAlterPartitionResult(change, {
          leaderEpoch: outcome.leaderEpoch ?? -1,
          partitionEpoch: outcome.partitionEpoch ?? -1,
          isr: outcome.isr,
        })
      ) {
        this.logger.info(`ISR of ${p.key} updated to ${p.isr.join(',')} and version updated to ${p.partitionEpoch}`);
        if (change.kind === 'shrink') this.isrShrinks++;
        else this.isrExpands++;
        this.afterHighWatermarkCheck(p);
        this.producePurgatory.checkAndComplete(p.key);
      }
      return false;
    }
    const retry = p.failAlterPartition(change, outcome.errorCode);
    if (!quiet)
      this.logger.info(
        `Failed to alter the ISR of ${p.key} (${change.kind} to ${change.sent.map((m) => m.brokerId).join(',')}): error ${outcome.errorCode}${retry ? ', retrying' : ''}`,
      );
    // back to the committed ISR: the HW may move
    if (p.pendingIsr === null) this.afterHighWatermarkCheck(p);
    return retry;
  }

  /**
   * Partition.appendRecordsToFollowerOrFutureReplica: appends a fetched batch set as the follower of
   * `leaderEpoch` (offsets as the leader assigned them). Null when the partition is no longer this
   * follower (removed, led here now, or another leader epoch): the fetcher drops the data.
   */
  async appendAsFollower(p: Partition, leaderEpoch: number, records: Buffer): Promise<{ lastOffset: number } | null> {
    return this.appendQueue(p).run(async () => {
      const stillFollower = () => !p.closed && !p.isLeader && p.leaderEpoch === leaderEpoch;
      if (!stillFollower()) return null;
      let r;
      try {
        r = await p.log.appendAsFollower(records, stillFollower);
      } catch (e) {
        if (e instanceof NotLeaderOrFollowerError) return null;
        throw e;
      }
      if (r.baseOffset >= 0) p.ledger.record(r.baseOffset, r.lastOffset + 1, r.validBytes);
      this.topicStats.all.replicationBytesIn += records.length;
      this.topicStats.topic(p.topic).replicationBytesIn += records.length;
      return { lastOffset: r.lastOffset };
    });
  }

  /**
   * ReplicaFetcherThread.processPartitionData after the append: the follower's high watermark is
   * min(leader's HW, own log end offset); its log start offset follows the leader's.
   */
  async updateFollowerOffsets(p: Partition, leaderEpoch: number, leaderHw: number, leaderLogStartOffset: number) {
    await this.appendQueue(p).run(async () => {
      if (p.closed || p.isLeader || p.leaderEpoch !== leaderEpoch) return;
      const before = p.log.highWatermark;
      p.log.updateHighWatermark(Math.min(leaderHw, p.log.logEndOffset));
      if (leaderLogStartOffset > p.log.logStartOffset && leaderLogStartOffset <= p.log.highWatermark)
        await p.log.deleteRecordsBefore(leaderLogStartOffset).catch(() => undefined);
      // ReplicaFetcherThread's completeDelayedFetchRequests: consumers reading this follower (KIP-392)
      if (p.log.highWatermark !== before) this.fetchPurgatory.checkAndComplete(p.key);
    });
  }

  /** Truncates a follower's log (diverging epoch, out of range); false when it is no longer this follower. */
  async truncateFollower(
    p: Partition,
    leaderEpoch: number,
    how: { to: number } | { fullyAt: number },
  ): Promise<boolean> {
    return this.appendQueue(p).run(async () => {
      // asked again on the log's queue: a role change queued meanwhile goes first
      const stillFollower = () => !p.closed && !p.isLeader && p.leaderEpoch === leaderEpoch;
      if (!stillFollower()) return false;
      try {
        if ('to' in how) {
          if (await p.log.truncateTo(how.to, stillFollower)) {
            this.logger.info(`Truncated ${p.key} to offset ${how.to} (log end offset now ${p.log.logEndOffset})`);
            p.ledger.reset(p.log.logEndOffset);
          }
        } else {
          await p.log.truncateFullyAndStartAt(how.fullyAt, undefined, stillFollower);
          this.logger.info(`Truncated ${p.key} fully and started at ${how.fullyAt}`);
          p.ledger.reset(how.fullyAt);
        }
      } catch (e) {
        if (e instanceof NotLeaderOrFollowerError) return false;
        throw e;
      }
      return true;
    });
  }

  // ---- metadata lookups ----

  /** Whether the partition exists in the cluster (Kafka's metadataCache.contains). */
  contains(topic: string, partition: number): boolean {
    const image = this.opts.metadata?.();
    if (image) return image.partition(topic, partition) !== undefined;
    return this.hostedPartition(topic, partition) !== undefined;
  }

  topicNameById(topicId: string): string | undefined {
    return this.opts.metadata?.()?.topicById(topicId)?.name ?? this.topicNames.get(topicId);
  }

  topicIdByName(topic: string): string | undefined {
    return this.opts.metadata?.()?.topic(topic)?.id ?? this.topicIds.get(topic);
  }

  /** Leader and epoch of a partition per metadata, with its endpoint on a listener (KIP-951). */
  leaderHint(topic: string, partition: number, listenerName?: string): LeaderHint | undefined {
    const image = this.opts.metadata?.();
    const pi = image?.partition(topic, partition);
    if (!image || !pi) return undefined;
    const hint: LeaderHint = { leaderId: pi.leader, leaderEpoch: pi.leaderEpoch };
    const ep = listenerName !== undefined && pi.leader >= 0 ? image.endpoint(pi.leader, listenerName) : undefined;
    if (ep)
      hint.endpoint = { nodeId: pi.leader, host: ep.host, port: ep.port, rack: image.broker(pi.leader)?.rack ?? null };
    return hint;
  }

  /** The led partition, or NOT_LEADER_OR_FOLLOWER (known elsewhere) / UNKNOWN_TOPIC_OR_PARTITION. */
  lookup(topic: string, partition: number): PartitionLookup<Partition> {
    // HostedPartition.Offline (a replica in a failed log dir) answers KAFKA_STORAGE_ERROR whatever
    // the metadata says of its leadership (the controller moves it away: KIP-858)
    if (this.hostedPartition(topic, partition)?.log.isOffline)
      return { ok: false, errorCode: ErrorCode.KAFKA_STORAGE_ERROR };
    const p = this.partition(topic, partition);
    if (p) return { ok: true, partition: p };
    if (this.contains(topic, partition)) return { ok: false, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    return { ok: false, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  }

  private readonly resolvePartition = (topic: string, partition: number): Partition | undefined =>
    this.partition(topic, partition);

  private readonly resolveHostedPartition = (topic: string, partition: number): Partition | undefined =>
    this.hostedPartition(topic, partition);

  /** The partition a fetch reads: the led one, or (KIP-392, a consumer with client metadata) a followed one too. */
  private lookupForFetch(params: FetchParams, topic: string, partition: number): PartitionLookup<Partition> {
    if (fetchOnlyLeader(params)) return this.lookup(topic, partition);
    const p = this.hostedPartition(topic, partition);
    if (p?.log.isOffline) return { ok: false, errorCode: ErrorCode.KAFKA_STORAGE_ERROR };
    if (p) return { ok: true, partition: p };
    return this.lookup(topic, partition);
  }

  /** ReplicaManager.findPreferredReadReplica for one partition of a consumer fetch. */
  private preferredReadReplica(params: FetchParams, p: Partition, fetchOffset: number): number | undefined {
    const client = params.clientMetadata;
    if (!client || !this.replicaSelector || !p.isLeader) return undefined;
    const endpoints = this.opts.replicaEndpoints
      ? this.opts.replicaEndpoints(p.replicas, client.listenerName)
      : replicaEndpoints(this.opts.metadata?.(), p.replicas, client.listenerName);
    return findPreferredReadReplica(
      this.replicaSelector,
      p.topic,
      p,
      client,
      params.replicaId,
      fetchOffset,
      this.clock(),
      endpoints,
    );
  }

  // ---- append ----

  /**
   * Appends one partition's records of a produce request as the leader (ReplicaManager.appendRecords
   * for one partition): validation, the producer-state hook, the log append, the high watermark,
   * waking waiting fetches, and for acks=-1 waiting until the ISR has the batch.
   */
  async appendRecords(topic: string, partition: number, records: Buffer, o: AppendOptions): Promise<AppendResult> {
    // ReplicaManager.appendToLocalLog's BrokerTopicStats (a topic is counted once hosted here)
    const stats = this.partitions.has(ReplicaManager.key(topic, partition)) ? this.topicStats.topic(topic) : undefined;
    const all = this.topicStats.all;
    all.totalProduceRequests++;
    if (stats) stats.totalProduceRequests++;
    const r = await this.appendToLeader(topic, partition, records, o, stats);
    const code = r.errorCode;
    if (code !== ErrorCode.NONE && !EXPECTED_APPEND_ERRORS.has(code)) {
      all.failedProduceRequests++;
      if (stats) stats.failedProduceRequests++;
    }
    if (code === ErrorCode.MESSAGE_TOO_LARGE || code === ErrorCode.RECORD_LIST_TOO_LARGE) {
      all.bytesRejected += records.length;
      if (stats) stats.bytesRejected += records.length;
    }
    return r;
  }

  private async appendToLeader(
    topic: string,
    partition: number,
    records: Buffer,
    o: AppendOptions,
    stats: TopicStats | undefined,
  ): Promise<AppendResult> {
    const origin = o.origin ?? 'client';
    if (!isValidAcks(o.acks)) return failed(ErrorCode.INVALID_REQUIRED_ACKS);
    if (origin === 'client' && !o.internalTopicsAllowed && INTERNAL_TOPICS.has(topic)) {
      return failed(ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot append to internal topic ${topic}`);
    }
    const found = this.lookup(topic, partition);
    if (!found.ok) return failed(found.errorCode);
    const p = found.partition;
    if (o.acks === -1 && p.isr.length < p.effectiveMinIsr) {
      return failed(
        ErrorCode.NOT_ENOUGH_REPLICAS,
        `The size of the current ISR ${p.isr.length} is insufficient to satisfy the min.isr requirement of ${p.effectiveMinIsr} for partition ${p.key}`,
      );
    }
    let batch: ValidatedBatch | null;
    try {
      batch = await validateRecordsForAppend(records, p.key, p.config.policy, this.clock(), origin);
    } catch (e) {
      return this.appendFailure(p, e);
    }
    if (batch === null)
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        baseOffset: -1,
        logAppendTime: -1,
        logStartOffset: p.logStartOffset,
        recordErrors: [],
      };
    if (p.closed) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const pb: ProducerBatch = {
      partition: p,
      batch,
      transactionalId: o.transactionalId ?? null,
      origin,
      transactionSupportedOperation: o.transactionSupportedOperation,
    };
    let result: AppendResult;
    try {
      result = await this.appendQueue(p).run(() => this.appendLocked(p, pb));
    } catch (e) {
      return this.appendFailure(p, e);
    }
    if (result.errorCode !== ErrorCode.NONE || result.baseOffset < 0) return result;
    const all = this.topicStats.all;
    all.messagesIn += batch.recordCount;
    all.bytesIn += records.length;
    if (stats) {
      stats.messagesIn += batch.recordCount;
      stats.bytesIn += records.length;
    }
    this.afterHighWatermarkCheck(p);
    const requiredOffset = result.baseOffset + batch.recordCount;
    if (o.acks !== -1 || this.unsafeAcks) return result;
    if (p.highWatermark >= requiredOffset)
      // Partition.checkEnoughReplicasReachOffset
      return p.maximalIsr.length >= p.effectiveMinIsr
        ? result
        : { ...failed(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND), logStartOffset: p.logStartOffset };
    const errorCode = await new Promise<number>((resolve) => {
      const op = new DelayedProduce(o.timeoutMs, p, requiredOffset, this.resolvePartition, resolve);
      this.producePurgatory.tryCompleteElseWatch(op, [p.key], o.connectionId);
    });
    return errorCode === ErrorCode.NONE ? result : { ...failed(errorCode), logStartOffset: p.logStartOffset };
  }

  private appendQueue(p: Partition): SerialQueue {
    let q = this.appendQueues.get(p);
    if (!q) this.appendQueues.set(p, (q = new SerialQueue()));
    return q;
  }

  private async appendLocked(p: Partition, pb: ProducerBatch): Promise<AppendResult> {
    const hook = this.opts.producerState ?? p.producerStateHook;
    if (hook) {
      const v = await hook.beforeAppend(pb);
      // the hook may have waited (transaction verification): a duplicate is answered by a leader only
      if (p.closed || !p.isLeader) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      if (v.kind === 'duplicate') {
        return {
          errorCode: ErrorCode.NONE,
          errorMessage: null,
          baseOffset: v.baseOffset,
          logAppendTime: v.logAppendTime,
          logStartOffset: p.logStartOffset,
          recordErrors: [],
        };
      }
      if (v.kind === 'error') return { ...failed(v.errorCode, v.message), logStartOffset: p.logStartOffset };
    }
    if (p.closed || !p.isLeader) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    // the role is checked again on the log's queue: a role change queued meanwhile goes first
    const r = await p.log.appendAsLeader(pb.batch.records, () => (p.closed || !p.isLeader ? null : p.leaderEpoch));
    p.ledger.record(r.baseOffset, r.lastOffset + 1, r.validBytes);
    if (hook)
      await hook.afterAppend(pb, r.baseOffset, r.lastOffset, r.logAppendTime >= 0 ? r.logAppendTime : this.clock());
    return {
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      baseOffset: r.baseOffset,
      logAppendTime: r.logAppendTime,
      logStartOffset: r.logStartOffset,
      recordErrors: [],
    };
  }

  /** Kafka's mapping of append exceptions onto the partition response. */
  private appendFailure(p: Partition, e: unknown): AppendResult {
    if (e instanceof AppendError) {
      if (e.recordErrors.length > 0) {
        return {
          ...failed(e.errorCode, e.message),
          errorMessage: e.message,
          recordErrors: e.recordErrors,
          logStartOffset: p.logStartOffset,
        };
      }
      const knownException = e.errorCode === ErrorCode.CORRUPT_MESSAGE || e.errorCode === ErrorCode.MESSAGE_TOO_LARGE;
      return { ...failed(e.errorCode, e.message), logStartOffset: knownException ? -1 : p.logStartOffset };
    }
    if (e instanceof NotLeaderOrFollowerError) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER, e.message);
    if (e instanceof LogError && e.kafkaError === 'RECORD_LIST_TOO_LARGE')
      return failed(ErrorCode.RECORD_LIST_TOO_LARGE, e.message);
    if (p.closed) return failed(ErrorCode.NOT_LEADER_OR_FOLLOWER, (e as Error)?.message);
    // a failed log dir (logged once by the log manager): answered, not logged again (ReplicaManager)
    if (e instanceof LogError && e.kafkaError === 'KAFKA_STORAGE_ERROR')
      return failed(ErrorCode.KAFKA_STORAGE_ERROR, e.message);
    this.logger.warn(`Error appending to ${p.key}: ${(e as Error)?.stack ?? String(e)}`);
    return failed(ErrorCode.KAFKA_STORAGE_ERROR, (e as Error)?.message);
  }

  /** Raises the HW from the ISR's log end offsets and wakes whoever waits on the partition. */
  private afterHighWatermarkCheck(p: Partition): void {
    if (p.maybeIncrementLeaderHW(this.isrContext())) this.producePurgatory.checkAndComplete(p.key);
    // consumers wait for the HW, followers for the log end offset: check either way
    this.fetchPurgatory.checkAndComplete(p.key);
  }

  // ---- fetch ----

  /**
   * Reads the partitions in order within `params.maxBytes` (ReplicaManager.readFromLog): the first
   * partition with data may exceed the limits by one batch (minOneMessage, KIP-74); once a
   * partition returned bytes the limits are hard. Record bytes are the log's buffers, uncopied.
   */
  async readFromLog(params: FetchParams, reqs: readonly FetchPartitionRequest[]): Promise<FetchPartitionResult[]> {
    const hardMaxBytesLimit = params.version <= 2;
    let limit = params.maxBytes;
    let minOneMessage = !hardMaxBytesLimit;
    const out: FetchPartitionResult[] = new Array(reqs.length);
    for (let i = 0; i < reqs.length; i++) {
      const r = await this.readPartition(params, reqs[i]!, limit, minOneMessage, hardMaxBytesLimit);
      const size = recordsSize(r);
      if (size > 0) minOneMessage = false;
      limit = Math.max(0, limit - size);
      out[i] = r;
    }
    return out;
  }

  private async readPartition(
    params: FetchParams,
    req: FetchPartitionRequest,
    limitBytes: number,
    minOneMessage: boolean,
    hardMaxBytesLimit: boolean,
  ): Promise<FetchPartitionResult> {
    const found = this.lookupForFetch(params, req.topic, req.partition);
    if (!found.ok) return errorFetchResult(found.errorCode);
    const p = found.partition;
    if (req.topicId !== ZERO_UUID && req.topicId !== '' && req.topicId !== p.topicId)
      return errorFetchResult(ErrorCode.INCONSISTENT_TOPIC_ID);
    const epochError = p.checkLeaderEpoch(req.currentLeaderEpoch);
    if (epochError !== ErrorCode.NONE) return errorFetchResult(epochError);
    // KIP-392: the leader names a preferred read replica and skips the read (fetchOffsetSnapshot)
    const preferred = this.preferredReadReplica(params, p, req.fetchOffset);
    if (preferred !== undefined) {
      return {
        errorCode: ErrorCode.NONE,
        highWatermark: p.highWatermark,
        lastStableOffset: p.lastStableOffset,
        logStartOffset: p.logStartOffset,
        abortedTransactions: null,
        preferredReadReplica: preferred,
        records: EMPTY_RECORDS,
      };
    }
    const follower = isFromFollower(params);
    if (follower && !p.replicas.includes(params.replicaId)) return errorFetchResult(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    if (follower && this.staleReplicaEpoch(params)) return errorFetchResult(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    // offsets as of before the read, so appends during it cannot hold a follower back
    const hw = p.highWatermark;
    const leo = p.logEndOffset;
    const lso = p.lastStableOffset;
    const logStartOffset = p.logStartOffset;
    const base = {
      errorCode: ErrorCode.NONE,
      highWatermark: hw,
      lastStableOffset: lso,
      logStartOffset,
      abortedTransactions: params.isolationLevel === READ_COMMITTED ? [] : null,
      preferredReadReplica: -1,
    };
    if (req.lastFetchedEpoch >= 0) {
      const e = offsets.lastOffsetForLeaderEpoch(p, -1, req.lastFetchedEpoch);
      // Partition.validateFetchOffsetAndMaybeGetDivergingEpoch: an epoch the leader cannot place
      if (follower && (e.leaderEpoch < 0 || e.endOffset < 0)) return errorFetchResult(ErrorCode.OFFSET_OUT_OF_RANGE);
      if (e.leaderEpoch < req.lastFetchedEpoch || e.endOffset < req.fetchOffset) {
        return { ...base, records: EMPTY_RECORDS, divergingEpoch: { epoch: e.leaderEpoch, endOffset: e.endOffset } };
      }
    }
    const maxOffset = follower ? undefined : params.isolationLevel === READ_COMMITTED ? lso : hw;
    let read;
    try {
      const readOpts = { maxOffset, minOneMessage };
      const maxBytes = Math.min(req.maxBytes, limitBytes);
      read =
        params.lazyRecords && params.isolationLevel !== READ_COMMITTED
          ? await p.log.readLazy(req.fetchOffset, maxBytes, readOpts)
          : await p.log.read(req.fetchOffset, maxBytes, readOpts);
    } catch (e) {
      if (p.closed) return errorFetchResult(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      if (e instanceof LogError && e.kafkaError === 'KAFKA_STORAGE_ERROR')
        return errorFetchResult(ErrorCode.KAFKA_STORAGE_ERROR);
      this.logger.warn(`Error reading ${p.key} at offset ${req.fetchOffset}: ${(e as Error)?.stack ?? String(e)}`);
      return errorFetchResult(ErrorCode.KAFKA_STORAGE_ERROR);
    }
    if (read.error) return errorFetchResult(ErrorCode.OFFSET_OUT_OF_RANGE);
    if (follower) {
      p.updateFollowerFetchState(
        params.replicaId,
        req.fetchOffset,
        req.logStartOffset,
        this.clock(),
        leo,
        params.replicaEpoch ?? -1,
      );
      this.maybeExpandIsr(p, params.replicaId);
      this.afterHighWatermarkCheck(p);
    }
    // checkFetchDataInfo: a throttled follower gets no records (and does not advance); fetch v3+: an
    // incomplete first batch is dropped rather than returned partially
    const records =
      (follower && this.shouldLeaderThrottle(p, params.replicaId)) || (!hardMaxBytesLimit && read.firstEntryIncomplete)
        ? EMPTY_RECORDS
        : read.records;
    return {
      ...base,
      records,
      abortedTransactions:
        params.isolationLevel === READ_COMMITTED
          ? p.abortedTransactions(req.fetchOffset, recordsInMemory({ ...base, records }))
          : null,
    };
  }

  /** Replica.updateFetchStateOrThrow: a fetch with an older broker epoch than the image's registration. */
  private staleReplicaEpoch(params: FetchParams): boolean {
    const epoch = params.replicaEpoch ?? -1;
    if (epoch === -1) return false;
    const b = this.opts.metadata?.()?.broker(params.replicaId);
    return b !== undefined && b.epoch > BigInt(epoch);
  }

  /**
   * ReplicaManager.fetchMessages: answers at once when the request does not wait, has enough bytes,
   * or hit an error; otherwise parks a DelayedFetch until min_bytes accumulate or max_wait passes,
   * then reads again. `connectionId` lets cancelConnection drop the wait when the client goes away.
   */
  async fetchMessages(
    params: FetchParams,
    reqs: readonly FetchPartitionRequest[],
    connectionId?: string,
  ): Promise<FetchPartitionResult[]> {
    const results = await this.fetchOrWait(params, reqs, connectionId);
    this.countFetch(params, reqs, results);
    // KafkaApis: a follower's response counts against the leader quota, the bytes of its throttled
    // partitions (in-sync or not, so the total replication traffic stays under the quota)
    if (isFromFollower(params)) {
      const q = this.quotas.leader;
      let bytes = 0;
      for (let i = 0; i < reqs.length; i++)
        if (q.isThrottled(reqs[i]!.topic, reqs[i]!.partition)) bytes += recordsSize(results[i]!);
      if (bytes > 0) q.record(bytes);
    }
    return results;
  }

  /** BrokerTopicStats of a fetch: requests and failures per partition, bytes out (KafkaApis). */
  private countFetch(
    params: FetchParams,
    reqs: readonly FetchPartitionRequest[],
    results: readonly FetchPartitionResult[],
  ): void {
    const all = this.topicStats.all;
    const follower = isFromFollower(params);
    for (let i = 0; i < reqs.length; i++) {
      const r = results[i]!;
      const stats = this.partitions.has(ReplicaManager.key(reqs[i]!.topic, reqs[i]!.partition))
        ? this.topicStats.topic(reqs[i]!.topic)
        : undefined;
      const failed = r.errorCode !== ErrorCode.NONE && !EXPECTED_FETCH_ERRORS.has(r.errorCode);
      const bytes = recordsSize(r);
      all.totalFetchRequests++;
      if (failed) all.failedFetchRequests++;
      if (follower) all.replicationBytesOut += bytes;
      else all.bytesOut += bytes;
      if (!stats) continue;
      stats.totalFetchRequests++;
      if (failed) stats.failedFetchRequests++;
      if (follower) stats.replicationBytesOut += bytes;
      else stats.bytesOut += bytes;
    }
  }

  private async fetchOrWait(
    params: FetchParams,
    reqs: readonly FetchPartitionRequest[],
    connectionId?: string,
  ): Promise<FetchPartitionResult[]> {
    const first = await this.readFromLog(params, reqs);
    let bytes = 0;
    let answerNow = params.maxWaitMs <= 0 || reqs.length === 0;
    for (const r of first) {
      bytes += recordsSize(r);
      if (r.errorCode !== ErrorCode.NONE || r.divergingEpoch !== undefined || r.preferredReadReplica >= 0)
        answerNow = true;
    }
    if (answerNow || bytes >= params.minBytes) return first;
    const statuses: FetchPartitionStatus[] = [];
    // a consumer with client metadata may wait on a followed partition (KIP-392)
    const resolve = fetchOnlyLeader(params) ? this.resolvePartition : this.resolveHostedPartition;
    for (const request of reqs) {
      const partition = resolve(request.topic, request.partition);
      if (!partition) return this.readFromLog(params, reqs);
      statuses.push({ request, partition });
    }
    return new Promise<FetchPartitionResult[]>((resolve_, reject) => {
      const op = new DelayedFetch(
        params,
        statuses,
        resolve,
        () => {
          this.readFromLog(params, reqs).then(resolve_, reject);
        },
        () => resolve_(first),
        (p) => this.shouldLeaderThrottle(p, params.replicaId),
      );
      this.fetchPurgatory.tryCompleteElseWatch(
        op,
        statuses.map((s) => s.partition.key),
        connectionId,
      );
    });
  }

  // ---- offsets ----

  async listOffset(topic: string, partition: number, q: offsets.ListOffsetQuery): Promise<offsets.ListOffsetResult> {
    if (offsets.isListOffsetsTimestampUnsupported(q.timestamp, q.version))
      return { errorCode: ErrorCode.UNSUPPORTED_VERSION, timestamp: -1, offset: -1, leaderEpoch: -1 };
    const found = this.lookup(topic, partition);
    if (!found.ok) return { errorCode: found.errorCode, timestamp: -1, offset: -1, leaderEpoch: -1 };
    return offsets.listOffset(found.partition, q);
  }

  /** ListOffsets v0: the old offsets array. */
  async legacyListOffsets(
    topic: string,
    partition: number,
    timestamp: number,
    maxNumOffsets: number,
    replicaId: number,
  ): Promise<{ errorCode: number; offsets: number[] }> {
    const found = this.lookup(topic, partition);
    if (!found.ok) return { errorCode: found.errorCode, offsets: [] };
    try {
      return {
        errorCode: ErrorCode.NONE,
        offsets: await offsets.legacyOffsetsBefore(
          found.partition,
          timestamp,
          maxNumOffsets,
          this.clock(),
          replicaId === -1,
        ),
      };
    } catch {
      return {
        errorCode: found.partition.closed ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.KAFKA_STORAGE_ERROR,
        offsets: [],
      };
    }
  }

  lastOffsetForLeaderEpoch(
    topic: string,
    partition: number,
    currentLeaderEpoch: number,
    leaderEpoch: number,
  ): offsets.EpochEndOffsetResult {
    const found = this.lookup(topic, partition);
    if (!found.ok) return { errorCode: found.errorCode, leaderEpoch: -1, endOffset: -1 };
    return offsets.lastOffsetForLeaderEpoch(found.partition, currentLeaderEpoch, leaderEpoch);
  }

  async deleteRecords(topic: string, partition: number, offset: number): Promise<offsets.DeleteRecordsResult> {
    const found = this.lookup(topic, partition);
    if (!found.ok) return { errorCode: found.errorCode, lowWatermark: -1 };
    return offsets.deleteRecordsOnLeader(found.partition, offset);
  }
}

/** replication.quota.window.num and replication.quota.window.size.seconds (QuotaConfig) from server.properties. */
function quotaWindowOf(config: BrokerConfigLike | undefined): QuotaWindowConfig {
  const originals = config?.originals;
  const get = (name: string): string | undefined =>
    originals instanceof Map
      ? originals.get(name)
      : (originals as Readonly<Record<string, string>> | undefined)?.[name];
  const int = (name: string, dflt: number): number => {
    const v = Number(get(name)?.trim());
    return Number.isInteger(v) && v >= 1 ? v : dflt;
  };
  return {
    samples: int('replication.quota.window.num', DEFAULT_QUOTA_WINDOW.samples),
    windowMs: int('replication.quota.window.size.seconds', DEFAULT_QUOTA_WINDOW.windowMs / 1000) * 1000,
  };
}
