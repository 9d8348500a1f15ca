// One coordinator shard: the groups and offsets of one __consumer_offsets partition, owned by a
// serial queue. A write operation runs on the queue, its records are appended to the partition
// (acks=all) and, once written, replayed into the state; the response follows the write. Loading
// replays the partition from its start; timers enqueue their operations on the same queue.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { SerialQueue } from '../log/serial-queue.js';
import { ClassicGroup, ClassicMember } from './classic-group.js';
import { ClassicMembersInConsumerGroup } from './classic-members.js';
import { appendErrorToResponseError, ClassicGroupManager } from './classic-ops.js';
import type { GroupConfig } from './config.js';
import { ConsumerGroup, consumerGroupTombstones } from './consumer-group.js';
import { ConsumerGroupManager } from './consumer-ops.js';
import type { CoordinatorLog } from './log.js';
import { OffsetManager, OffsetStore } from './offsets.js';
import {
  decodeRecord,
  encodeRecord,
  isShareGroupRecord,
  isStreamsGroupRecord,
  type CoordinatorRecord,
} from './records.js';
import { ShareGroup } from './share-group.js';
import { ShareGroupManager } from './share-ops.js';
import { StreamsGroup, streamsGroupTombstones } from './streams-group.js';
import { StreamsGroupManager } from './streams-ops.js';
import type { Group, MetadataView, OpResult, ShardContext, ShardTimer } from './shard-types.js';

export type ShardState = 'loading' | 'active' | 'closed';

export interface ShardOptions {
  partition: number;
  config: GroupConfig;
  log: CoordinatorLog;
  metadata: MetadataView;
  clock?: () => number;
  logger?: (level: string, msg: string) => void;
  /** Timers do not keep the process alive (the broker's sockets do). */
  unrefTimers?: boolean;
}

class Timer implements ShardTimer {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly run: (op: () => OpResult<unknown>) => void,
    private readonly unref: boolean,
  ) {}

  schedule(key: string, delayMs: number, op: () => OpResult<unknown>): void {
    this.cancel(key);
    const t = setTimeout(
      () => {
        if (this.timers.get(key) === t) this.timers.delete(key);
        this.run(op);
      },
      Math.max(0, Math.min(delayMs, 2_147_483_647)),
    );
    if (this.unref) t.unref?.();
    this.timers.set(key, t);
  }

  cancel(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  has(key: string): boolean {
    return this.timers.has(key);
  }

  cancelAll(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  get size(): number {
    return this.timers.size;
  }
}

export class GroupShard {
  state: ShardState = 'loading';
  readonly groups = new Map<string, Group>();
  readonly offsets = new OffsetStore();
  readonly classic: ClassicGroupManager;
  readonly consumer: ConsumerGroupManager;
  readonly share: ShareGroupManager;
  readonly streams: StreamsGroupManager;
  readonly offsetManager: OffsetManager;
  readonly ctx: ShardContext;
  private readonly queue = new SerialQueue();
  private readonly timer: Timer;
  private readonly clock: () => number;
  private readonly logger: (level: string, msg: string) => void;
  /** records replayed at load (for logs and tests) */
  loadedRecords = 0;

  constructor(private readonly opts: ShardOptions) {
    this.clock = opts.clock ?? Date.now;
    this.logger = opts.logger ?? (() => undefined);
    this.timer = new Timer((op) => {
      this.write(op).catch((e) =>
        this.logger('DEBUG', `timer operation on __consumer_offsets-${opts.partition} failed: ${(e as Error).message}`),
      );
    }, opts.unrefTimers ?? false);
    this.ctx = {
      partition: opts.partition,
      groups: this.groups,
      timer: this.timer,
      config: opts.config,
      clock: this.clock,
      metadata: opts.metadata,
      log: (level, msg) => this.logger(level, `[GroupCoordinator id=${opts.partition}] ${msg}`),
    };
    this.classic = new ClassicGroupManager(this.ctx);
    this.consumer = new ConsumerGroupManager(this.ctx);
    this.consumer.classic = this.classic;
    this.share = new ShareGroupManager(this.ctx);
    this.streams = new StreamsGroupManager(this.ctx);
    this.classic.mixed = new ClassicMembersInConsumerGroup(this.ctx, this.consumer);
    this.offsetManager = new OffsetManager(this.ctx, this.offsets, (g, memberId) => {
      const m = g.members.get(memberId);
      if (m) this.classic.rescheduleHeartbeat(g, m);
    });
  }

  get partition(): number {
    return this.opts.partition;
  }

  private checkActive(): void {
    if (this.state === 'loading')
      throw new KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, `__consumer_offsets-${this.partition} is loading`);
    if (this.state === 'closed')
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `__consumer_offsets-${this.partition} is not loaded here`);
  }

  /**
   * Runs a write operation: computes on the queue, appends its records, replays them, answers.
   * An append failure goes to the operation's onAppended, else it is thrown (mapped).
   */
  write<T>(op: () => OpResult<T>): Promise<T> {
    return this.queue.run(async () => {
      this.checkActive();
      const r = op();
      if (r.records.length === 0) {
        r.onAppended?.(ErrorCode.NONE);
        return r.response;
      }
      try {
        await this.opts.log.append(this.partition, r.records.map(encodeRecord));
      } catch (e) {
        const code = e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR;
        this.logger(
          'WARN',
          `Failed to write ${r.records.length} records to __consumer_offsets-${this.partition}: ${(e as Error).message}`,
        );
        if (r.onAppended) {
          r.onAppended(code);
          return r.response;
        }
        throw new KafkaError(appendErrorToResponseError(code), (e as Error).message);
      }
      if (r.replay !== false) for (const rec of r.records) this.replay(rec);
      r.onAppended?.(ErrorCode.NONE);
      return r.response;
    });
  }

  /** Runs a read on the queue (sees every write before it). */
  read<T>(fn: () => T): Promise<T> {
    return this.queue.run(async () => {
      this.checkActive();
      return fn();
    });
  }

  /** Applies one record to the state (GroupCoordinatorShard.replay). */
  replay(r: CoordinatorRecord): void {
    switch (r.type) {
      case 'OffsetCommit':
        if (r.value !== null && !this.groups.has(r.group)) {
          // offsets without membership: a "simple" classic group without protocol type
          this.groups.set(r.group, new ClassicGroup(r.group, this.clock));
        }
        this.offsetManager.replay(r);
        break;
      case 'GroupMetadata': {
        const existing = this.groups.get(r.group);
        if (r.value === null) {
          if (existing?.type === 'classic') this.groups.delete(r.group);
          break;
        }
        const v = r.value;
        const g = new ClassicGroup(r.group, this.clock, {
          state: v.members.length === 0 ? 'Empty' : 'Stable',
          generationId: v.generation,
          protocolType: v.protocolType === '' ? null : v.protocolType,
          protocolName: v.protocol,
          leaderId: v.leader,
          currentStateTimestamp: v.currentStateTimestamp === -1n ? null : Number(v.currentStateTimestamp),
        });
        for (const m of v.members) {
          const member = new ClassicMember(
            m.memberId,
            m.groupInstanceId,
            m.clientId,
            m.clientHost,
            m.rebalanceTimeout === -1 ? m.sessionTimeout : m.rebalanceTimeout,
            m.sessionTimeout,
            v.protocolType,
            [{ name: v.protocol ?? '', metadata: Buffer.from(m.subscription) }],
            Buffer.from(m.assignment),
          );
          g.add(member);
        }
        g.leaderId = v.leader;
        g.subscribedTopics = g.computeSubscribedTopics();
        this.groups.set(r.group, g);
        break;
      }
      default: {
        if (isStreamsGroupRecord(r)) {
          let sg = this.groups.get(r.group);
          if (r.value === null) {
            if (sg?.type !== 'streams') break;
            if (r.type === 'StreamsGroupMetadata') {
              this.groups.delete(r.group);
              break;
            }
          } else if (!sg || sg.type !== 'streams') {
            sg = new StreamsGroup(r.group);
            this.groups.set(r.group, sg);
          }
          sg.replay(r);
          break;
        }
        if (isShareGroupRecord(r)) {
          let sg = this.groups.get(r.group);
          if (r.value === null) {
            if (sg?.type !== 'share') break;
            if (r.type === 'ShareGroupMetadata') {
              this.groups.delete(r.group);
              break;
            }
          } else if (!sg || sg.type !== 'share') {
            sg = new ShareGroup(r.group);
            this.groups.set(r.group, sg);
          }
          sg.replay(r, this.clock());
          break;
        }
        let g = this.groups.get(r.group);
        if (r.value === null) {
          if (g?.type !== 'consumer') break;
          if (r.type === 'ConsumerGroupMetadata') {
            this.groups.delete(r.group);
            break;
          }
        } else if (!g || g.type !== 'consumer') {
          g = new ConsumerGroup(r.group);
          this.groups.set(r.group, g);
        }
        (g as ConsumerGroup).replay(r);
      }
    }
  }

  /** Replays the partition, then starts the timers of the loaded groups. */
  async load(): Promise<void> {
    const started = this.clock();
    try {
      await this.opts.log.read(this.partition, 0, (batch) => {
        for (const rec of batch) {
          let decoded: CoordinatorRecord | null;
          try {
            decoded = decodeRecord(rec.key, rec.value);
          } catch (e) {
            this.logger(
              'WARN',
              `skipping undecodable record at offset ${rec.offset} of __consumer_offsets-${this.partition}: ${(e as Error).message}`,
            );
            continue;
          }
          if (decoded) {
            this.replay(decoded);
            this.loadedRecords++;
          }
        }
      });
    } catch (e) {
      if (this.state === 'closed') return;
      throw e;
    }
    if (this.state === 'closed') return;
    for (const g of this.groups.values()) {
      if (g.type === 'classic') this.classic.onLoaded(g);
      else if (g.type === 'share') this.share.onLoaded(g);
      else if (g.type === 'streams') this.streams.onLoaded(g);
      else this.consumer.onLoaded(g);
    }
    this.state = 'active';
    this.scheduleExpiry();
    if (this.loadedRecords > 0)
      this.logger(
        'INFO',
        `Finished loading __consumer_offsets-${this.partition}: ${this.groups.size} groups, ${this.loadedRecords} records in ${this.clock() - started} ms`,
      );
  }

  private scheduleExpiry(): void {
    this.timer.schedule('offsets-expiry', this.opts.config.offsetsRetentionCheckIntervalMs, () => {
      const r = this.expireOffsets();
      this.scheduleExpiry();
      return r;
    });
  }

  /** Expires offsets and deletes the empty groups left with none (GroupCoordinatorShard.cleanupGroupMetadata). */
  expireOffsets(): OpResult<number> {
    const records: CoordinatorRecord[] = [];
    for (const [id, g] of this.groups) {
      // share groups keep no offsets here and do not expire (ShareGroup.shouldExpire)
      if (g.type === 'share') continue;
      const allExpired = this.offsetManager.cleanupExpiredOffsets(id, records);
      if (allExpired && g.isEmpty) {
        if (g.type === 'classic') records.push({ type: 'GroupMetadata', group: id, value: null });
        else if (g.type === 'streams') records.push(...streamsGroupTombstones(g));
        else records.push(...consumerGroupTombstones(g));
      }
    }
    return { records, response: records.filter((r) => r.type === 'OffsetCommit').length };
  }

  /** Stops the shard: timers cancelled, parked requests answered NOT_COORDINATOR, state dropped. */
  unload(): Promise<void> {
    const wasLoading = this.state === 'loading';
    this.state = 'closed';
    this.timer.cancelAll();
    const finish = () => {
      for (const g of this.groups.values()) if (g.type === 'classic' && !g.is('Dead')) this.classic.onUnloaded(g);
      this.groups.clear();
    };
    if (wasLoading) {
      finish();
      return Promise.resolve();
    }
    return this.queue.run(async () => finish());
  }

  get numTimers(): number {
    return this.timer.size;
  }
}
