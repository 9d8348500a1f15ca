// A share consumer (KIP-932) on top of KafkaClient, as Kafka 4.4's KafkaShareConsumer behaves on
// the wire: the member picks its own id and joins with ShareGroupHeartbeat v1 (epoch 0, the
// subscribed topics), heartbeats every heartbeatIntervalMs in the background and rejoins when
// fenced; records come from ShareFetch with a share session per leader (epoch 0 opens it, then
// 1, 2, ...), only the acquired offsets are returned, each with its delivery count; acknowledgements
// (accept, release, reject) ride on the next ShareFetch to the same leader, and close() sends the
// pending ones with ShareAcknowledge at the final epoch (-1), then leaves the group (epoch -1).
import { randomBytes } from 'node:crypto';
import type { KafkaClient } from './client.js';
import { ApiError } from './errors.js';
import type { ConsumerRecord } from './consumer-fetch.js';
import type { ShareGroupHeartbeatResponse } from '../protocol/generated/protocol/ShareGroupHeartbeat.js';
import type { ShareFetchResponse } from '../protocol/generated/protocol/ShareFetch.js';
import type { ShareAcknowledgeResponse } from '../protocol/generated/protocol/ShareAcknowledge.js';

export type AcknowledgeType = 'accept' | 'release' | 'reject';
const ACK_CODE: Record<AcknowledgeType, number> = { accept: 1, release: 2, reject: 3 };

export interface ShareRecord extends ConsumerRecord {
  deliveryCount: number;
}

export interface ShareConsumerOptions {
  groupId: string;
  topics: string[];
  /** ShareFetch maxRecords (Kafka's max.poll.records, default 500). */
  maxRecords?: number;
}

interface Assigned {
  topicId: string;
  topic: string;
  partition: number;
}

interface Session {
  epoch: number;
  /** `topicId:partition` in the session. */
  partitions: Set<string>;
}

type Batch = { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] };

/** A random Uuid in Kafka's base64url form (22 characters), as the Java client's member ids. */
export function randomMemberId(): string {
  return randomBytes(16).toString('base64url');
}

export class ShareConsumer {
  readonly memberId = randomMemberId();
  private memberEpoch = 0;
  private intervalMs = 5000;
  private assigned: Assigned[] = [];
  private readonly sessions = new Map<number, Session>();
  /** node → `topicId:partition` → acknowledgement batches not yet sent. */
  private readonly acks = new Map<number, Map<string, Batch[]>>();
  /** `topic-partition` → the leader its records came from (acknowledgements go back there). */
  private readonly fromNode = new Map<string, { node: number; topicId: string }>();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private heartbeatError: Error | null = null;
  private heartbeating: Promise<void> | null = null;

  constructor(
    private readonly client: KafkaClient,
    private readonly opts: ShareConsumerOptions,
  ) {}

  /** Joins the group (the first heartbeat) and starts heartbeating. */
  async subscribe(): Promise<void> {
    await this.heartbeat();
  }

  private async heartbeat(): Promise<void> {
    const joining = this.memberEpoch === 0;
    const resp = await this.client.call('ShareGroupHeartbeat', async () => {
      const r = await this.client.send<ShareGroupHeartbeatResponse>(
        { coordinator: { type: 'group', key: this.opts.groupId } },
        'ShareGroupHeartbeat',
        {
          groupId: this.opts.groupId,
          memberId: this.memberId,
          memberEpoch: this.memberEpoch,
          rackId: null,
          subscribedTopicNames: joining ? this.opts.topics : null,
        },
      );
      // coordinator errors: a new FindCoordinator and a retry (KafkaClient.call)
      if ([14, 15, 16].includes(r.body.errorCode)) throw new ApiError(r.body.errorCode, r.body.errorMessage);
      return r.body;
    });
    if (resp.errorCode === 25 || resp.errorCode === 110) {
      // UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH: rejoin with the same id at epoch 0
      this.memberEpoch = 0;
      this.assigned = [];
      this.schedule(0);
      return;
    }
    if (resp.errorCode !== 0) throw new ApiError(resp.errorCode, resp.errorMessage);
    this.memberEpoch = resp.memberEpoch;
    if (resp.heartbeatIntervalMs > 0) this.intervalMs = resp.heartbeatIntervalMs;
    if (resp.assignment) await this.assign(resp.assignment.topicPartitions);
    this.schedule(this.intervalMs);
  }

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.heartbeating = this.heartbeat().catch((e: unknown) => {
        this.heartbeatError = e as Error;
      });
    }, ms);
    this.timer.unref?.();
  }

  private async assign(tps: { topicId: string; partitions: number[] }[]): Promise<void> {
    const md = await this.client.metadata({ topics: this.opts.topics, refresh: true });
    const names = new Map([...md.topics.values()].map((t) => [t.topicId, t.name]));
    this.assigned = tps.flatMap((t) =>
      names.has(t.topicId)
        ? t.partitions.map((partition) => ({ topicId: t.topicId, topic: names.get(t.topicId)!, partition }))
        : [],
    );
  }

  /** The records acquired by one round of ShareFetch to every leader (waits up to `timeoutMs`). */
  async poll(timeoutMs: number): Promise<ShareRecord[]> {
    if (this.heartbeatError) throw this.heartbeatError;
    if (this.assigned.length === 0) {
      await new Promise((r) => setTimeout(r, Math.min(timeoutMs, 100)));
      return [];
    }
    const md = await this.client.metadata({ topics: this.opts.topics });
    const byNode = new Map<number, Assigned[]>();
    for (const a of this.assigned) {
      const leader = md.topics.get(a.topic)?.partitions.find((p) => p.partition === a.partition)?.leader ?? -1;
      if (leader < 0) continue;
      byNode.set(leader, [...(byNode.get(leader) ?? []), a]);
    }
    const results = await Promise.all(
      [...byNode].map(([node, parts]) => this.fetchFrom(node, parts, Math.max(0, Math.min(timeoutMs, 5000)))),
    );
    return results.flat();
  }

  private async fetchFrom(node: number, parts: Assigned[], maxWaitMs: number): Promise<ShareRecord[]> {
    let session = this.sessions.get(node);
    if (!session) {
      session = { epoch: 0, partitions: new Set() };
      this.sessions.set(node, session);
    }
    const pending = this.acks.get(node) ?? new Map<string, Batch[]>();
    this.acks.delete(node);
    const wanted = new Set(parts.map((p) => `${p.topicId}:${p.partition}`));
    const topics = new Map<string, { partitionIndex: number; acknowledgementBatches: Batch[] }[]>();
    const add = (key: string): void => {
      const [topicId, p] = key.split(':') as [string, string];
      topics.set(topicId, [
        ...(topics.get(topicId) ?? []),
        { partitionIndex: Number(p), acknowledgementBatches: pending.get(key) ?? [] },
      ]);
    };
    for (const key of new Set([...wanted, ...pending.keys()]))
      if (!session.partitions.has(key) || pending.has(key) || session.epoch === 0) add(key);
    const forgotten = new Map<string, number[]>();
    for (const key of session.partitions) {
      if (wanted.has(key) || pending.has(key)) continue;
      const [topicId, p] = key.split(':') as [string, string];
      forgotten.set(topicId, [...(forgotten.get(topicId) ?? []), Number(p)]);
    }
    const resp = await this.client.send<ShareFetchResponse>({ node }, 'ShareFetch', {
      groupId: this.opts.groupId,
      memberId: this.memberId,
      shareSessionEpoch: session.epoch,
      maxWaitMs,
      minBytes: 1,
      maxBytes: 52428800,
      maxRecords: this.opts.maxRecords ?? 500,
      batchSize: this.opts.maxRecords ?? 500,
      topics: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
      forgottenTopicsData: [...forgotten].map(([topicId, partitions]) => ({ topicId, partitions })),
    });
    const b = resp.body;
    if (b.errorCode !== 0) {
      // a broken session (SHARE_SESSION_NOT_FOUND 122, INVALID_SHARE_SESSION_EPOCH 123): start a new one
      this.sessions.delete(node);
      if (b.errorCode === 122 || b.errorCode === 123) return [];
      throw new ApiError(b.errorCode, b.errorMessage);
    }
    session.epoch = session.epoch === 2147483647 ? 1 : session.epoch + 1;
    for (const k of wanted) session.partitions.add(k);
    for (const [topicId, ps] of forgotten) for (const p of ps) session.partitions.delete(`${topicId}:${p}`);
    const { decodePartition } = await import('./consumer-fetch.js');
    const names = new Map(parts.map((p) => [p.topicId, p.topic]));
    const out: ShareRecord[] = [];
    for (const t of b.responses) {
      const topic = names.get(t.topicId);
      if (topic === undefined) continue;
      for (const p of t.partitions) {
        if (p.errorCode !== 0 || p.acquiredRecords.length === 0) continue;
        const data = Array.isArray(p.records)
          ? Buffer.concat(p.records as readonly Buffer[])
          : (p.records as Buffer | null);
        const first = p.acquiredRecords[0]!.firstOffset;
        const decoded = await decodePartition(topic, p.partitionIndex, data, first, false, null);
        this.fromNode.set(`${topic}-${p.partitionIndex}`, { node, topicId: t.topicId });
        for (const r of decoded.records) {
          const range = p.acquiredRecords.find((a) => r.offset >= a.firstOffset && r.offset <= a.lastOffset);
          if (range) out.push({ ...r, deliveryCount: range.deliveryCount });
        }
      }
    }
    return out;
  }

  /** Acknowledges a record; sent with the next ShareFetch to its leader, or by close(). */
  acknowledge(r: ShareRecord, type: AcknowledgeType = 'accept'): void {
    const from = this.fromNode.get(`${r.topic}-${r.partition}`);
    if (!from) return;
    const perNode = this.acks.get(from.node) ?? new Map<string, Batch[]>();
    this.acks.set(from.node, perNode);
    const key = `${from.topicId}:${r.partition}`;
    const batches = perNode.get(key) ?? [];
    const last = batches[batches.length - 1];
    const code = ACK_CODE[type];
    if (last && last.lastOffset + 1n === r.offset && last.acknowledgeTypes[0] === code) last.lastOffset = r.offset;
    else batches.push({ firstOffset: r.offset, lastOffset: r.offset, acknowledgeTypes: [code] });
    perNode.set(key, batches);
  }

  /** Sends the pending acknowledgements (closing each share session), then leaves the group. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.heartbeating?.catch(() => undefined);
    for (const [node, session] of this.sessions) {
      const pending = this.acks.get(node) ?? new Map<string, Batch[]>();
      const topics = new Map<string, { partitionIndex: number; acknowledgementBatches: Batch[] }[]>();
      for (const [key, batches] of pending) {
        const [topicId, p] = key.split(':') as [string, string];
        topics.set(topicId, [
          ...(topics.get(topicId) ?? []),
          { partitionIndex: Number(p), acknowledgementBatches: batches },
        ]);
      }
      if (session.epoch === 0) continue;
      await this.client
        .send<ShareAcknowledgeResponse>({ node }, 'ShareAcknowledge', {
          groupId: this.opts.groupId,
          memberId: this.memberId,
          shareSessionEpoch: -1,
          topics: [...topics].map(([topicId, partitions]) => ({ topicId, partitions })),
        })
        .catch(() => undefined);
    }
    this.sessions.clear();
    this.acks.clear();
    await this.client
      .send<ShareGroupHeartbeatResponse>(
        { coordinator: { type: 'group', key: this.opts.groupId } },
        'ShareGroupHeartbeat',
        {
          groupId: this.opts.groupId,
          memberId: this.memberId,
          memberEpoch: -1,
          rackId: null,
          subscribedTopicNames: null,
        },
      )
      .catch(() => undefined);
  }
}
