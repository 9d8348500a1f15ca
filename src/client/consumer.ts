// A small Kafka consumer on top of KafkaClient. Assign mode (explicit partitions, seek to an
// offset, the beginning or the end) and group mode (subscribe to topics or a regular expression;
// classic group protocol with the range assignor, see consumer-group-member.ts). Positions start
// at the group's committed offset, else follow auto.offset.reset (ListOffsets); records come from
// Fetch (read_uncommitted or read_committed) to each partition's leader; offsets are committed
// automatically (enable.auto.commit, auto.commit.interval.ms) and on close, as Kafka's consumer.
import type { KafkaClient } from './client.js';
import { ApiError } from './errors.js';
import { tpKey, type TopicPartition } from './admin/offsets.js';
import { decodePartition, type ConsumerRecord } from './consumer-fetch.js';
import { GroupMember } from './consumer-group-member.js';
import type { FetchResponse } from '../protocol/generated/protocol/Fetch.js';
import type { OffsetCommitResponse } from '../protocol/generated/protocol/OffsetCommit.js';

export type { ConsumerRecord, ConsumerHeader } from './consumer-fetch.js';

export interface ConsumerConfig {
  /** group.id; null: no group (assign mode only, nothing committed). */
  groupId: string | null;
  groupInstanceId: string | null;
  autoOffsetReset: 'earliest' | 'latest' | 'none';
  enableAutoCommit: boolean;
  autoCommitIntervalMs: number;
  isolationLevel: 'read_uncommitted' | 'read_committed';
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** max.poll.interval.ms, sent as the rebalance timeout. */
  maxPollIntervalMs: number;
  fetchMaxWaitMs: number;
  fetchMinBytes: number;
  fetchMaxBytes: number;
  maxPartitionFetchBytes: number;
  maxPollRecords: number;
  /** metadata.max.age.ms: how often a pattern subscription looks for new topics. */
  metadataMaxAgeMs: number;
  excludeInternalTopics: boolean;
  requestTimeoutMs: number;
}

export const DEFAULT_CONSUMER_CONFIG: ConsumerConfig = {
  groupId: null,
  groupInstanceId: null,
  autoOffsetReset: 'latest',
  enableAutoCommit: true,
  autoCommitIntervalMs: 5000,
  isolationLevel: 'read_uncommitted',
  sessionTimeoutMs: 45_000,
  heartbeatIntervalMs: 3000,
  maxPollIntervalMs: 300_000,
  fetchMaxWaitMs: 500,
  fetchMinBytes: 1,
  fetchMaxBytes: 52_428_800,
  maxPartitionFetchBytes: 1_048_576,
  maxPollRecords: 500,
  metadataMaxAgeMs: 300_000,
  excludeInternalTopics: true,
  requestTimeoutMs: 30_000,
};

/** auto.offset.reset=none and no committed offset. */
export class NoOffsetForPartitionError extends Error {
  override name = 'NoOffsetForPartitionError';
}

interface PartitionState {
  tp: TopicPartition;
  /** Next offset to fetch; null until known. */
  fetchOffset: bigint | null;
  /** Next offset the application has not seen (what commits store); null until known. */
  position: bigint | null;
  /** Leader epoch of the last record returned, committed with the offset. */
  epoch: number;
  /** A seek to earliest/latest waiting to be resolved. */
  reset: 'earliest' | 'latest' | null;
  maxBytes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const OFFSET_OUT_OF_RANGE = 1;
const LEADER_ERRORS = new Set([3, 5, 6, 9, 74, 75, 100, 103]);
const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

export class Consumer {
  readonly config: ConsumerConfig;
  private readonly states = new Map<string, PartitionState>();
  private buffered: ConsumerRecord[] = [];
  private subscription: string[] | RegExp | null = null;
  private subscribedTopics: string[] = [];
  private member: GroupMember | null = null;
  private lastCommit = Date.now();
  private lastTopicCheck = 0;
  private topicSig = '';
  private missingTopics = false;
  private readonly warned = new Set<string>();
  private closed = false;

  /** `warn` receives one line per noteworthy condition (e.g. a subscribed topic that does not exist). */
  constructor(
    private readonly client: KafkaClient,
    config: Partial<ConsumerConfig> = {},
    private readonly warn?: (msg: string) => void,
  ) {
    this.config = { ...DEFAULT_CONSUMER_CONFIG, ...config };
  }

  /** The partitions currently assigned. */
  assignment(): TopicPartition[] {
    return [...this.states.values()].map((s) => s.tp);
  }

  /** Assign mode: consume exactly these partitions (no group membership). */
  assign(tps: TopicPartition[]): void {
    this.subscription = null;
    this.setAssignment(tps);
  }

  /** Group mode: join `groupId` subscribed to these topics, or to every topic matching the pattern. */
  subscribe(topics: string[] | RegExp): void {
    if (!this.config.groupId) throw new Error('subscribe() needs a group.id');
    this.subscription = topics;
    this.member ??= new GroupMember(
      this.client,
      {
        groupId: this.config.groupId,
        groupInstanceId: this.config.groupInstanceId,
        sessionTimeoutMs: this.config.sessionTimeoutMs,
        rebalanceTimeoutMs: this.config.maxPollIntervalMs,
        heartbeatIntervalMs: this.config.heartbeatIntervalMs,
      },
      () => this.partitionCounts(this.subscribedTopics),
    );
  }

  private setAssignment(tps: TopicPartition[]): void {
    const next = new Map<string, PartitionState>();
    for (const tp of tps) {
      next.set(
        tpKey(tp),
        this.states.get(tpKey(tp)) ?? {
          tp,
          fetchOffset: null,
          position: null,
          epoch: -1,
          reset: null,
          maxBytes: this.config.maxPartitionFetchBytes,
        },
      );
    }
    this.states.clear();
    for (const [k, s] of next) this.states.set(k, s);
    this.buffered = this.buffered.filter((r) => this.states.has(tpKey(r)));
  }

  private state(tp: TopicPartition): PartitionState {
    const s = this.states.get(tpKey(tp));
    if (!s) throw new Error(`No current assignment for partition ${tpKey(tp)}`);
    return s;
  }

  /** Next record to return for `tp` is at `offset`. */
  seek(tp: TopicPartition, offset: bigint): void {
    const s = this.state(tp);
    s.fetchOffset = offset;
    s.position = offset;
    s.reset = null;
    this.buffered = this.buffered.filter((r) => tpKey(r) !== tpKey(tp));
  }

  seekToBeginning(tps: TopicPartition[]): void {
    for (const tp of tps) this.markReset(tp, 'earliest');
  }

  seekToEnd(tps: TopicPartition[]): void {
    for (const tp of tps) this.markReset(tp, 'latest');
  }

  private markReset(tp: TopicPartition, to: 'earliest' | 'latest'): void {
    const s = this.state(tp);
    s.reset = to;
    s.fetchOffset = null;
    s.position = null;
    this.buffered = this.buffered.filter((r) => tpKey(r) !== tpKey(tp));
  }

  private async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (topics.length === 0) return out;
    const md = await this.client.call('metadata', () => this.client.metadata({ topics, refresh: true }));
    for (const t of topics) {
      const m = md.topics.get(t);
      if (m && m.errorCode === 0) out.set(t, m.partitions.length);
    }
    return out;
  }

  /** The topics a subscription covers now (a pattern is matched against all topics, whole-name). */
  private async resolveTopics(): Promise<string[]> {
    const sub = this.subscription;
    if (sub === null) return [];
    if (Array.isArray(sub)) return [...new Set(sub)].sort();
    const md = await this.client.call('metadata', () => this.client.metadata({ refresh: true }));
    const re = new RegExp(`^(?:${sub.source})$`, sub.flags);
    return [...md.topics.values()]
      .filter(
        (t) =>
          t.errorCode === 0 &&
          !(this.config.excludeInternalTopics && (t.internal || INTERNAL_TOPICS.has(t.name))) &&
          re.test(t.name),
      )
      .map((t) => t.name)
      .sort();
  }

  /** Topics (and partition counts) the subscription covers now, as a comparable signature. */
  private async topicSignature(): Promise<{ topics: string[]; signature: string; missing: string[] }> {
    const topics = await this.resolveTopics();
    const counts = await this.partitionCounts(topics);
    const missing = topics.filter((t) => !counts.has(t));
    if (missing.length > 0 && Array.isArray(this.subscription)) {
      // allow.auto.create.topics (default true): let a broker that auto-creates topics do so.
      await this.client
        .send('any', 'Metadata', (v: number) => ({
          topics: missing.map((name) => ({ name })),
          allowAutoTopicCreation: v >= 4,
        }))
        .catch(() => undefined);
    }
    for (const t of missing) {
      if (this.warned.has(t)) continue;
      this.warned.add(t);
      this.warn?.(`Topic ${t} is not available (UNKNOWN_TOPIC_OR_PARTITION); waiting for it to be created`);
    }
    return { topics, signature: topics.map((t) => `${t}:${counts.get(t) ?? -1}`).join(','), missing };
  }

  private async ensureGroup(deadline: number): Promise<void> {
    const m = this.member;
    if (!m || this.subscription === null) return;
    const err = m.takeError();
    if (err) throw err;
    // New topics matching the subscription, or new partitions, need a rebalance (checked every
    // metadata.max.age.ms, every second while a subscribed topic is missing).
    const interval = this.missingTopics ? 1000 : this.config.metadataMaxAgeMs;
    if (!m.needsJoin && Date.now() - this.lastTopicCheck >= interval) {
      this.lastTopicCheck = Date.now();
      const now = await this.topicSignature();
      if (now.signature !== this.topicSig) m.needsJoin = true;
    }
    if (!m.needsJoin) return;
    if (m.generationId >= 0 && this.config.enableAutoCommit) await this.commit().catch(() => undefined);
    const current = await this.topicSignature();
    this.lastTopicCheck = Date.now();
    this.subscribedTopics = current.topics;
    this.topicSig = current.signature;
    this.missingTopics = current.missing.length > 0;
    const assigned = await m.join(
      this.subscribedTopics,
      Math.max(deadline, Date.now() + this.config.maxPollIntervalMs),
    );
    // Eager protocol: positions restart from the committed offsets after every rebalance.
    this.states.clear();
    this.buffered = [];
    this.setAssignment(assigned);
  }

  /** Positions for partitions without one: committed offset (group mode), else the reset policy. */
  private async ensurePositions(): Promise<void> {
    const missing = [...this.states.values()].filter((s) => s.fetchOffset === null);
    if (missing.length === 0) return;
    const needCommitted = missing.filter((s) => s.reset === null);
    if (this.config.groupId && needCommitted.length > 0 && this.member) {
      const { listConsumerGroupOffsets } = await import('./admin/groups.js');
      const committed = await listConsumerGroupOffsets(this.client, this.config.groupId, {
        partitions: needCommitted.map((s) => s.tp),
        requireStable: true,
      });
      for (const s of needCommitted) {
        const c = committed.get(tpKey(s.tp));
        if (c && c.offset !== null) {
          s.fetchOffset = c.offset;
          s.position = c.offset;
          s.epoch = c.leaderEpoch ?? -1;
        }
      }
    }
    const toReset = missing.filter((s) => s.fetchOffset === null);
    for (const s of toReset) {
      if (s.reset === null) {
        if (this.config.autoOffsetReset === 'none')
          throw new NoOffsetForPartitionError(`Undefined offset with no reset policy for partitions: [${tpKey(s.tp)}]`);
        s.reset = this.config.autoOffsetReset;
      }
    }
    const { listOffsets, OffsetSpec } = await import('./admin/offsets.js');
    for (const to of ['earliest', 'latest'] as const) {
      const group = toReset.filter((s) => s.reset === to);
      if (group.length === 0) continue;
      const r = await listOffsets(
        this.client,
        group.map((s) => s.tp),
        to === 'earliest' ? OffsetSpec.EARLIEST : OffsetSpec.LATEST,
        { isolationLevel: this.config.isolationLevel === 'read_committed' ? 1 : 0 },
      );
      for (const s of group) {
        const o = r.get(tpKey(s.tp));
        if (!o) throw new ApiError(-1, `No offset for ${tpKey(s.tp)}`);
        // A retriable error (a topic this broker does not know yet, a leader moving) leaves the
        // partition without a position until a later poll, as Kafka's OffsetFetcher retries it.
        if (!o.ok && (o.error as { retriable?: boolean }).retriable) continue;
        if (!o.ok) throw o.error;
        s.fetchOffset = o.value.offset;
        s.position = o.value.offset;
        s.reset = null;
      }
    }
  }

  /** Waits up to `timeoutMs` for records; returns at most max.poll.records of them. */
  async poll(timeoutMs: number): Promise<ConsumerRecord[]> {
    if (this.closed) throw new Error('This consumer has already been closed.');
    const deadline = Date.now() + Math.max(0, timeoutMs);
    for (;;) {
      await this.ensureGroup(deadline);
      await this.ensurePositions();
      await this.maybeAutoCommit();
      if (this.buffered.length === 0 && this.states.size > 0)
        await this.fetchOnce(Math.max(0, Math.min(this.config.fetchMaxWaitMs, deadline - Date.now())));
      if (this.buffered.length > 0) {
        const out = this.buffered.splice(0, this.config.maxPollRecords);
        for (const r of out) {
          const s = this.states.get(tpKey(r));
          if (s) {
            s.position = r.offset + 1n;
            if (r.leaderEpoch !== null) s.epoch = r.leaderEpoch;
          }
        }
        return out;
      }
      if (Date.now() >= deadline) return [];
      if (this.states.size === 0) await sleep(Math.min(100, Math.max(0, deadline - Date.now())));
    }
  }

  private async fetchOnce(maxWaitMs: number): Promise<void> {
    const byLeader = new Map<number, PartitionState[]>();
    for (const s of this.states.values()) {
      if (s.fetchOffset === null) continue;
      try {
        const leader = await this.client.leaderOf(s.tp.topic, s.tp.partition);
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), s]);
      } catch (e) {
        this.client.noteFailure(e);
      }
    }
    if (byLeader.size === 0) {
      await sleep(Math.min(100, maxWaitMs));
      return;
    }
    const readCommitted = this.config.isolationLevel === 'read_committed';
    await Promise.all(
      [...byLeader].map(async ([leader, parts]) => {
        const topics = new Map<string, PartitionState[]>();
        for (const s of parts) topics.set(s.tp.topic, [...(topics.get(s.tp.topic) ?? []), s]);
        let resp;
        try {
          resp = await this.client.send<FetchResponse>(
            { node: leader },
            'Fetch',
            {
              clusterId: null,
              replicaId: -1,
              replicaState: { replicaId: -1, replicaEpoch: -1n },
              maxWaitMs,
              minBytes: this.config.fetchMinBytes,
              maxBytes: this.config.fetchMaxBytes,
              isolationLevel: readCommitted ? 1 : 0,
              sessionId: 0,
              sessionEpoch: -1,
              topics: [...topics].map(([topic, ps]) => ({
                topic,
                partitions: ps.map((s) => ({
                  partition: s.tp.partition,
                  currentLeaderEpoch: -1,
                  fetchOffset: s.fetchOffset!,
                  lastFetchedEpoch: -1,
                  logStartOffset: -1n,
                  partitionMaxBytes: s.maxBytes,
                })),
              })),
              forgottenTopicsData: [],
              rackId: '',
            },
            { maxVersion: 12, minVersion: readCommitted ? 4 : 0, timeoutMs: this.config.requestTimeoutMs + maxWaitMs },
          );
        } catch (e) {
          this.client.noteFailure(e);
          if (!(e as { retriable?: boolean }).retriable) throw e;
          return;
        }
        if (resp.body.errorCode && resp.body.errorCode !== 0) {
          this.client.noteFailure(new ApiError(resp.body.errorCode));
          return;
        }
        for (const t of resp.body.responses) {
          for (const p of t.partitions) {
            const s = this.states.get(tpKey({ topic: t.topic, partition: p.partitionIndex }));
            if (!s || s.fetchOffset === null) continue;
            await this.handlePartition(s, p, readCommitted);
          }
        }
      }),
    );
  }

  private async handlePartition(
    s: PartitionState,
    p: FetchResponse['responses'][number]['partitions'][number],
    readCommitted: boolean,
  ): Promise<void> {
    if (p.errorCode === OFFSET_OUT_OF_RANGE) {
      if (this.config.autoOffsetReset === 'none')
        throw new ApiError(1, `Fetch position ${s.fetchOffset} is out of range for partition ${tpKey(s.tp)}`);
      s.fetchOffset = null;
      s.position = null;
      s.reset = this.config.autoOffsetReset;
      return;
    }
    if (p.errorCode !== 0) {
      const e = new ApiError(p.errorCode, null, tpKey(s.tp));
      this.client.noteFailure(e);
      if (LEADER_ERRORS.has(p.errorCode) || e.retriable) return;
      throw e;
    }
    const fetchOffset = s.fetchOffset!;
    const decoded = await decodePartition(
      s.tp.topic,
      s.tp.partition,
      p.records as Buffer | null,
      fetchOffset,
      readCommitted,
      p.abortedTransactions ?? null,
    );
    if (s.fetchOffset !== fetchOffset) return;
    if (decoded.partialSize > s.maxBytes) s.maxBytes = decoded.partialSize;
    s.fetchOffset = decoded.nextOffset;
    // A fetch that returned only skipped batches (control markers, aborted data) moves the position too.
    if (
      decoded.records.length === 0 &&
      s.position !== null &&
      decoded.nextOffset > s.position &&
      !this.buffered.some((r) => tpKey(r) === tpKey(s.tp))
    ) {
      s.position = decoded.nextOffset;
    }
    for (const r of decoded.records) this.buffered.push(r);
  }

  private async maybeAutoCommit(): Promise<void> {
    if (!this.config.enableAutoCommit || !this.config.groupId || !this.member) return;
    if (Date.now() - this.lastCommit < this.config.autoCommitIntervalMs) return;
    this.lastCommit = Date.now();
    await this.commit().catch(() => undefined);
  }

  /** Commits the positions of every assigned partition (or the offsets given). */
  async commit(offsets?: { tp: TopicPartition; offset: bigint; leaderEpoch?: number }[]): Promise<void> {
    const groupId = this.config.groupId;
    if (!groupId) return;
    const list =
      offsets ??
      [...this.states.values()]
        .filter((s) => s.position !== null)
        .map((s) => ({ tp: s.tp, offset: s.position!, leaderEpoch: s.epoch }));
    if (list.length === 0) return;
    const byTopic = new Map<string, typeof list>();
    for (const o of list) byTopic.set(o.tp.topic, [...(byTopic.get(o.tp.topic) ?? []), o]);
    const m = this.member;
    await this.client.call('commit', async () => {
      const resp = await this.client.send<OffsetCommitResponse>(
        { coordinator: { type: 'group', key: groupId } },
        'OffsetCommit',
        {
          groupId,
          generationIdOrMemberEpoch: m ? m.generationId : -1,
          memberId: m ? m.memberId : '',
          groupInstanceId: this.config.groupInstanceId,
          retentionTimeMs: -1n,
          topics: [...byTopic].map(([name, os]) => ({
            name,
            partitions: os.map((o) => ({
              partitionIndex: o.tp.partition,
              committedOffset: o.offset,
              committedLeaderEpoch: o.leaderEpoch ?? -1,
              commitTimestamp: -1n,
              committedMetadata: '',
            })),
          })),
        },
      );
      for (const t of resp.body.topics) {
        for (const p of t.partitions) {
          if (p.errorCode === 0) continue;
          const e = new ApiError(p.errorCode);
          if (m && (p.errorCode === 25 || p.errorCode === 22 || p.errorCode === 27)) m.needsJoin = true;
          throw e;
        }
      }
    });
  }

  /** Commits (auto-commit), leaves the group and stops. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.member && this.config.enableAutoCommit && !this.member.needsJoin)
        await this.commit().catch(() => undefined);
    } finally {
      await this.member?.leave();
    }
  }
}
