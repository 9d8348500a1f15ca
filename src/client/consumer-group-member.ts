// Membership of a classic consumer group (protocol type "consumer"): JoinGroup (with the
// MEMBER_ID_REQUIRED round trip), the leader's range assignment (Kafka's RangeAssignor), SyncGroup,
// periodic Heartbeat, LeaveGroup, and the ConsumerProtocolSubscription / ConsumerProtocolAssignment
// encodings from the generated codec. Errors that mean "rejoin" (rebalance in progress, unknown
// member, illegal generation) mark the member as needing a new join; coordinator errors send the
// next request through a fresh FindCoordinator.
import type { KafkaClient } from './client.js';
import { ApiError } from './errors.js';
import type { TopicPartition } from './admin/offsets.js';
import type { HeartbeatResponse } from '../protocol/generated/protocol/Heartbeat.js';
import type { JoinGroupResponse } from '../protocol/generated/protocol/JoinGroup.js';
import type { LeaveGroupResponse } from '../protocol/generated/protocol/LeaveGroup.js';
import type { SyncGroupResponse } from '../protocol/generated/protocol/SyncGroup.js';

export interface MemberConfig {
  groupId: string;
  groupInstanceId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
}

const PROTOCOL_VERSION = 3;
const COORDINATOR_ERRORS = new Set([14, 15, 16]);
const REJOIN_ERRORS = new Set([22, 25, 27, 82]);

export async function encodeSubscription(topics: string[]): Promise<Buffer> {
  const [{ Writer }, { writeConsumerProtocolSubscription }] = await Promise.all([
    import('../protocol/codec/writer.js'),
    import('../protocol/generated/protocol/ConsumerProtocolSubscription.js'),
  ]);
  const w = new Writer();
  w.int16(PROTOCOL_VERSION);
  writeConsumerProtocolSubscription(w, PROTOCOL_VERSION, {
    topics: [...topics].sort(),
    userData: null,
    ownedPartitions: [],
    generationId: -1,
    rackId: null,
  });
  return w.toBuffer();
}

export async function decodeSubscription(buf: Buffer): Promise<string[]> {
  const [{ Reader }, { readConsumerProtocolSubscription }] = await Promise.all([
    import('../protocol/codec/reader.js'),
    import('../protocol/generated/protocol/ConsumerProtocolSubscription.js'),
  ]);
  const r = new Reader(buf);
  const v = r.int16();
  return readConsumerProtocolSubscription(r, Math.min(Math.max(v, 0), PROTOCOL_VERSION)).topics;
}

export async function encodeAssignment(tps: TopicPartition[]): Promise<Buffer> {
  const [{ Writer }, { writeConsumerProtocolAssignment }] = await Promise.all([
    import('../protocol/codec/writer.js'),
    import('../protocol/generated/protocol/ConsumerProtocolAssignment.js'),
  ]);
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
  const w = new Writer();
  w.int16(PROTOCOL_VERSION);
  writeConsumerProtocolAssignment(w, PROTOCOL_VERSION, {
    assignedPartitions: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })),
    userData: null,
  });
  return w.toBuffer();
}

/**
 * Kafka's RangeAssignor: per topic, the subscribed members sorted by member id (group instance id
 * when every member has one) get consecutive ranges, the first `n % members` one partition more.
 */
export function rangeAssign(
  members: { memberId: string; groupInstanceId: string | null; topics: string[] }[],
  partitionCounts: Map<string, number>,
): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>(members.map((m) => [m.memberId, []]));
  const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
  for (const topic of topics) {
    const n = partitionCounts.get(topic) ?? 0;
    const subs = members
      .filter((m) => m.topics.includes(topic))
      .sort((a, b) => {
        const ka = a.groupInstanceId && b.groupInstanceId ? a.groupInstanceId : a.memberId;
        const kb = a.groupInstanceId && b.groupInstanceId ? b.groupInstanceId : b.memberId;
        return ka < kb ? -1 : ka > kb ? 1 : 0;
      });
    if (subs.length === 0 || n === 0) continue;
    const per = Math.floor(n / subs.length);
    const extra = n % subs.length;
    subs.forEach((m, i) => {
      const start = per * i + Math.min(i, extra);
      const len = per + (i + 1 > extra ? 0 : 1);
      for (let p = start; p < start + len; p++) out.get(m.memberId)!.push({ topic, partition: p });
    });
  }
  return out;
}

export class GroupMember {
  memberId = '';
  generationId = -1;
  needsJoin = true;
  assignment: TopicPartition[] = [];
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private heartbeating = false;
  private lastHeartbeatError: Error | null = null;

  constructor(
    private readonly client: KafkaClient,
    readonly config: MemberConfig,
    private readonly clientHostTopics: () => Promise<Map<string, number>>,
  ) {}

  private target() {
    return { coordinator: { type: 'group' as const, key: this.config.groupId } };
  }

  /** Joins (or rejoins) the group subscribed to `topics` and returns the new assignment. */
  async join(topics: string[], deadline: number): Promise<TopicPartition[]> {
    this.stopHeartbeats();
    const metadata = await encodeSubscription(topics);
    for (let attempt = 0; ; attempt++) {
      if (Date.now() > deadline) throw new ApiError(7, `Timed out joining group ${this.config.groupId}`);
      try {
        const join = await this.client.send<JoinGroupResponse>(
          this.target(),
          'JoinGroup',
          {
            groupId: this.config.groupId,
            sessionTimeoutMs: this.config.sessionTimeoutMs,
            rebalanceTimeoutMs: this.config.rebalanceTimeoutMs,
            memberId: this.memberId,
            groupInstanceId: this.config.groupInstanceId,
            protocolType: 'consumer',
            protocols: [{ name: 'range', metadata }],
            reason: attempt === 0 ? 'joining group' : 'rejoining group',
          },
          { timeoutMs: this.config.rebalanceTimeoutMs + 5000, minVersion: 1 },
        );
        const jb = join.body;
        if (jb.errorCode === 79) {
          this.memberId = jb.memberId;
          continue;
        }
        if (jb.errorCode !== 0) {
          if (jb.errorCode === 25) this.memberId = '';
          throw new ApiError(jb.errorCode);
        }
        this.memberId = jb.memberId;
        this.generationId = jb.generationId;
        let assignments: { memberId: string; assignment: Buffer }[] = [];
        if (jb.leader === jb.memberId && !jb.skipAssignment) {
          const members = await Promise.all(
            jb.members.map(async (m) => ({
              memberId: m.memberId as string,
              groupInstanceId: (m.groupInstanceId ?? null) as string | null,
              topics: await decodeSubscription(m.metadata),
            })),
          );
          const counts = await this.clientHostTopics();
          const plan = rangeAssign(members, counts);
          assignments = await Promise.all(
            [...plan].map(async ([memberId, tps]) => ({ memberId, assignment: await encodeAssignment(tps) })),
          );
        }
        const sync = await this.client.send<SyncGroupResponse>(
          this.target(),
          'SyncGroup',
          {
            groupId: this.config.groupId,
            generationId: this.generationId,
            memberId: this.memberId,
            groupInstanceId: this.config.groupInstanceId,
            protocolType: 'consumer',
            protocolName: jb.protocolName ?? 'range',
            assignments,
          },
          { timeoutMs: this.config.rebalanceTimeoutMs + 5000 },
        );
        if (sync.body.errorCode !== 0) {
          if (sync.body.errorCode === 25 || sync.body.errorCode === 22)
            this.memberId = sync.body.errorCode === 25 ? '' : this.memberId;
          throw new ApiError(sync.body.errorCode);
        }
        const { decodeAssignment } = await import('./admin/groups.js');
        this.assignment = await decodeAssignment(sync.body.assignment);
        this.needsJoin = false;
        this.lastHeartbeatError = null;
        this.startHeartbeats();
        return this.assignment;
      } catch (e) {
        this.client.noteFailure(e);
        const code = e instanceof ApiError ? e.code : null;
        const retriable =
          code === null
            ? (e as { retriable?: boolean }).retriable === true
            : COORDINATOR_ERRORS.has(code) || REJOIN_ERRORS.has(code);
        if (!retriable) throw e;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** Math.min(attempt, 4), 1000)));
      }
    }
  }

  private startHeartbeats(): void {
    this.stopHeartbeats();
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.config.heartbeatIntervalMs);
    this.heartbeatTimer.unref?.();
  }

  stopHeartbeats(): void {
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private async heartbeat(): Promise<void> {
    if (this.heartbeating || this.needsJoin) return;
    this.heartbeating = true;
    try {
      const r = await this.client.send<HeartbeatResponse>(this.target(), 'Heartbeat', {
        groupId: this.config.groupId,
        generationId: this.generationId,
        memberId: this.memberId,
        groupInstanceId: this.config.groupInstanceId,
      });
      const code: number = r.body.errorCode;
      if (code === 0) return;
      this.client.noteFailure(new ApiError(code));
      if (REJOIN_ERRORS.has(code)) {
        if (code === 25 || code === 22) {
          this.memberId = code === 25 ? '' : this.memberId;
          this.generationId = -1;
        }
        this.needsJoin = true;
      } else if (!COORDINATOR_ERRORS.has(code)) this.lastHeartbeatError = new ApiError(code);
    } catch (e) {
      this.client.noteFailure(e);
    } finally {
      this.heartbeating = false;
    }
  }

  /** A fatal heartbeat error (e.g. group authorization), thrown by the next poll. */
  takeError(): Error | null {
    const e = this.lastHeartbeatError;
    this.lastHeartbeatError = null;
    return e;
  }

  /** Leaves the group (best effort). */
  async leave(): Promise<void> {
    this.stopHeartbeats();
    if (this.memberId === '' || this.config.groupInstanceId !== null) return;
    try {
      await this.client.send<LeaveGroupResponse>(
        this.target(),
        'LeaveGroup',
        (v: number) =>
          v >= 3
            ? {
                groupId: this.config.groupId,
                members: [{ memberId: this.memberId, groupInstanceId: null, reason: 'the consumer is being closed' }],
              }
            : { groupId: this.config.groupId, memberId: this.memberId },
        { timeoutMs: 5000 },
      );
    } catch {
      // The session times out anyway.
    }
    this.memberId = '';
    this.generationId = -1;
    this.needsJoin = true;
  }
}
