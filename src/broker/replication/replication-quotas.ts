// Replication throttles (Kafka's ReplicationQuotaManager over a Sensor with a SimpleRate, and the
// parts of ConfigHandler that feed it: BrokerConfigHandler's rates, TopicConfigHandler's
// parseThrottledPartitions).
//
// A quota is a byte rate measured over `replication.quota.window.num` (11) samples of
// `replication.quota.window.size.seconds` (1 s), as Kafka's SampledStat: a sample is complete after
// one window and the next slot (samples + 1 of them, the extra one overlapping) is reset and reused;
// samples with no event for samples × window are reset when measured. SimpleRate divides the sum by
// the time since the oldest sample started, at least one window (the first window counts as full).
// The quota is exceeded when that rate is above the bound (Quota.upperBound: value <= bound passes).
//
// The bounds are the broker's dynamic configs leader.replication.throttled.rate,
// follower.replication.throttled.rate and replica.alter.log.dirs.io.max.bytes.per.second (this
// broker's own, else the cluster default, else Long.MAX); the throttled partitions are the topic
// configs leader/follower.replication.throttled.replicas: `*` is every partition, otherwise the
// partitions of the `partition:broker` pairs that name this broker. Both are read from the metadata
// image when it changes, so new values apply without a restart.

import { ConfigResourceType, configResourceKey, type MetadataImage } from '../metadata/image.js';

export const LEADER_RATE = 'leader.replication.throttled.rate';
export const FOLLOWER_RATE = 'follower.replication.throttled.rate';
export const ALTER_LOG_DIRS_RATE = 'replica.alter.log.dirs.io.max.bytes.per.second';
export const LEADER_REPLICAS = 'leader.replication.throttled.replicas';
export const FOLLOWER_REPLICAS = 'follower.replication.throttled.replicas';
/** QuotaConfig.QUOTA_BYTES_PER_SECOND_DEFAULT (Long.MAX_VALUE) */
export const UNBOUNDED = Number.MAX_VALUE;

export interface QuotaWindowConfig {
  /** replication.quota.window.num */
  samples: number;
  /** replication.quota.window.size.seconds, in ms */
  windowMs: number;
}

export const DEFAULT_QUOTA_WINDOW: QuotaWindowConfig = { samples: 11, windowMs: 1000 };

interface Sample {
  startMs: number;
  lastEventMs: number;
  value: number;
}

/** SampledStat + WindowedSum + SimpleRate (bytes per second). */
export class SimpleRate {
  private readonly slots: Sample[] = [];
  private current = 0;

  constructor(private readonly config: QuotaWindowConfig) {}

  record(value: number, nowMs: number): void {
    let s = this.currentSample(nowMs);
    if (nowMs - s.startMs >= this.config.windowMs) s = this.advance(nowMs);
    s.value += value;
    s.lastEventMs = nowMs;
  }

  /** Bytes per second at `nowMs`. */
  measure(nowMs: number): number {
    this.purgeObsolete(nowMs);
    let sum = 0;
    for (const s of this.slots) sum += s.value;
    const oldest = this.oldest(nowMs);
    const elapsed = Math.max(nowMs - oldest.startMs, this.config.windowMs);
    return sum / (elapsed / 1000);
  }

  private currentSample(nowMs: number): Sample {
    if (this.slots.length === 0) this.slots.push({ startMs: nowMs, lastEventMs: nowMs, value: 0 });
    return this.slots[this.current]!;
  }

  private advance(nowMs: number): Sample {
    // one extra slot for the sample overlapping the start of the measured window
    this.current = (this.current + 1) % (this.config.samples + 1);
    if (this.current >= this.slots.length) {
      const s = { startMs: nowMs, lastEventMs: nowMs, value: 0 };
      this.slots.push(s);
      return s;
    }
    const s = this.slots[this.current]!;
    reset(s, nowMs);
    return s;
  }

  private oldest(nowMs: number): Sample {
    if (this.slots.length === 0) this.slots.push({ startMs: nowMs, lastEventMs: nowMs, value: 0 });
    let oldest = this.slots[0]!;
    for (const s of this.slots) if (s.startMs < oldest.startMs) oldest = s;
    return oldest;
  }

  private purgeObsolete(nowMs: number): void {
    const expireAge = this.config.samples * this.config.windowMs;
    for (const s of this.slots) if (nowMs - s.lastEventMs >= expireAge) reset(s, nowMs);
  }
}

function reset(s: Sample, nowMs: number): void {
  s.startMs = nowMs;
  s.lastEventMs = nowMs;
  s.value = 0;
}

/** ReplicationQuotaManager: one quota type (leader, follower or alter-log-dirs replication). */
export class ReplicationQuotaManager {
  /** topic → throttled partitions; `'*'` is all of them (ALL_REPLICAS) */
  private readonly throttled = new Map<string, readonly number[] | '*'>();
  private rate: SimpleRate | undefined;
  private bound: number | undefined;

  constructor(
    private readonly config: QuotaWindowConfig = DEFAULT_QUOTA_WINDOW,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The rate sensor, made at first use as Kafka's SensorAccess.getOrCreate. */
  private sensor(): SimpleRate {
    return (this.rate ??= new SimpleRate(this.config));
  }

  /** updateQuota(Quota.upperBound(bytesPerSecond)); the samples recorded so far are kept. */
  updateQuota(bytesPerSecond: number): void {
    this.bound = bytesPerSecond;
  }

  /** The bound in bytes per second (Long.MAX when none was set). */
  upperBound(): number {
    return this.bound ?? UNBOUNDED;
  }

  isQuotaExceeded(): boolean {
    const sensor = this.sensor();
    if (this.bound === undefined) return false;
    return sensor.measure(this.clock()) > this.bound;
  }

  /** The measured rate in bytes per second (the byte-rate metric). */
  measuredRate(): number {
    return this.sensor().measure(this.clock());
  }

  record(bytes: number): void {
    this.sensor().record(bytes, this.clock());
  }

  isThrottled(topic: string, partition: number): boolean {
    const t = this.throttled.get(topic);
    return t !== undefined && (t === '*' || t.includes(partition));
  }

  markThrottled(topic: string, partitions: readonly number[] | '*' = '*'): void {
    this.throttled.set(topic, partitions);
  }

  removeThrottle(topic: string): void {
    this.throttled.delete(topic);
  }

  /** Drops every topic's throttle (before the lists are read again from a new image). */
  clearThrottles(): void {
    this.throttled.clear();
  }
}

/**
 * ConfigHandler.parseThrottledPartitions: `*` is all partitions; otherwise the partition ids of the
 * `partition:broker` pairs whose broker is `brokerId`. Malformed pairs are skipped (the controller
 * validated the list before it reached the metadata log).
 */
export function parseThrottledPartitions(value: string, brokerId: number): readonly number[] | '*' {
  const v = value.trim();
  if (v === '*') return '*';
  const out: number[] = [];
  if (v === '') return out;
  for (const pair of v.split(',')) {
    const [p, b] = pair.split(':').map((s) => s.trim());
    if (p === undefined || b === undefined || !/^\d+$/.test(p) || !/^\d+$/.test(b)) continue;
    if (Number(b) === brokerId) out.push(Number(p));
  }
  return out;
}

function rateOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && value.trim() !== '' ? n : undefined;
}

/**
 * The broker's three replication quotas (QuotaManagers.leader / follower / alterLogDirs), kept in
 * step with the metadata image: rates from the broker's dynamic configs, throttled partitions from
 * the topics' configs. `refresh` is cheap when the image did not change.
 */
export class ReplicationQuotas {
  readonly leader: ReplicationQuotaManager;
  readonly follower: ReplicationQuotaManager;
  readonly alterLogDirs: ReplicationQuotaManager;
  private configs: MetadataImage['configs'] | undefined;

  constructor(
    private readonly nodeId: number,
    private readonly metadata: () => MetadataImage | undefined = () => undefined,
    config: QuotaWindowConfig = DEFAULT_QUOTA_WINDOW,
    clock: () => number = Date.now,
  ) {
    this.leader = new ReplicationQuotaManager(config, clock);
    this.follower = new ReplicationQuotaManager(config, clock);
    this.alterLogDirs = new ReplicationQuotaManager(config, clock);
  }

  /**
   * A log-dir move's chunk of `bytes` (LocalLeaderEndPoint.buildFetch and
   * ReplicaAlterLogDirsThread.processPartitionData): waits while the alter-log-dirs quota
   * (`replica.alter.log.dirs.io.max.bytes.per.second`) is exceeded, checking every `backoffMs`
   * (Kafka's fetcher backs off `replica.fetch.backoff.ms`), then counts the chunk.
   */
  async alterLogDirsChunk(bytes: number, backoffMs = 100): Promise<void> {
    while (this.refresh().alterLogDirs.isQuotaExceeded()) await new Promise((r) => setTimeout(r, backoffMs));
    this.alterLogDirs.record(bytes);
  }

  /** Reads the rates and throttled replica lists again when the image's configs changed. */
  refresh(): this {
    const image = this.metadata();
    if (image === undefined || image.configs === this.configs) return this;
    this.configs = image.configs;
    const own = image.brokerConfigs(this.nodeId);
    const cluster = image.brokerConfigs('');
    // BrokerConfigHandler.getOrDefault: this broker's dynamic config, the cluster default, Long.MAX
    const rate = (name: string): number => rateOf(own.get(name)) ?? rateOf(cluster.get(name)) ?? UNBOUNDED;
    this.leader.updateQuota(rate(LEADER_RATE));
    this.follower.updateQuota(rate(FOLLOWER_RATE));
    this.alterLogDirs.updateQuota(rate(ALTER_LOG_DIRS_RATE));
    this.leader.clearThrottles();
    this.follower.clearThrottles();
    const topicPrefix = configResourceKey(ConfigResourceType.Topic, '');
    for (const [key, configs] of image.configs) {
      if (!key.startsWith(topicPrefix)) continue;
      const topic = key.slice(topicPrefix.length);
      for (const [name, quota] of [
        [LEADER_REPLICAS, this.leader],
        [FOLLOWER_REPLICAS, this.follower],
      ] as const) {
        const v = configs.get(name);
        // TopicConfigHandler.updateThrottledList: an absent or empty list removes the throttle
        if (v !== undefined && v !== '') quota.markThrottled(topic, parseThrottledPartitions(v, this.nodeId));
      }
    }
    return this;
  }
}
