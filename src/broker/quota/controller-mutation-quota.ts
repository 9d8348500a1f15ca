// controller_mutation_rate (KIP-599): Kafka's ControllerMutationQuotaManager, a TokenBucket per
// (user, client-id) sensor with the quota's DefaultQuotaCallback precedence. A request gets a
// ControllerMutationQuota: strict from CreateTopics v6 / CreatePartitions v3 / DeleteTopics v5 (a
// mutation when the bucket is already negative fails with THROTTLING_QUOTA_EXCEEDED, the request
// then answers throttle_time_ms), permissive before (always applied, only the throttle time is
// answered). The controller handlers call `record(partitions)` per topic before mutating it.
import type { MetadataImage } from '../metadata/image.js';
import { principalName, quotaLimit, quotaMetricTags, type QuotaWindowConfig } from './client-quota-manager.js';

/** Kafka's TokenBucket (seconds): refilled at the quota, capped at samples × window × quota; starts full. */
export class TokenBucket {
  private tokens = 0;
  private lastUpdateMs = 0;

  constructor(private readonly config: QuotaWindowConfig) {}

  private burst(quota: number): number {
    return this.config.samples * (this.config.windowMs / 1000) * quota;
  }

  private refill(quota: number, now: number): void {
    this.tokens = Math.min(this.burst(quota), this.tokens + (quota * (now - this.lastUpdateMs)) / 1000);
    this.lastUpdateMs = now;
  }

  measure(quota: number, now: number): number {
    this.refill(quota, now);
    return this.tokens;
  }

  record(quota: number, value: number, now: number): void {
    this.refill(quota, now);
    this.tokens = Math.min(this.burst(quota), this.tokens - value);
  }
}

/** ControllerMutationQuotaManager.throttleTimeMs: the time for the bucket to be back at 0. */
export function tokenBucketThrottleTime(tokens: number, quota: number): number {
  return Math.round((-tokens / quota) * 1000);
}

/** Thrown by a strict quota (ThrottlingQuotaExceededException). */
export class ThrottlingQuotaExceeded extends Error {
  constructor(readonly throttleTimeMs: number) {
    super('The throttling quota has been exceeded.');
  }
}

/** One request's view of its client's quota (ControllerMutationQuota). */
export interface ControllerMutationQuota {
  /** Records `permits` partition mutations; a strict quota already exceeded throws ThrottlingQuotaExceeded. */
  record(permits: number): void;
  /** The throttle time to answer, less the time elapsed since it was computed. */
  throttleTime(): number;
}

const UNBOUNDED: ControllerMutationQuota = { record: () => undefined, throttleTime: () => 0 };

/** The first version of each API whose quota is strict (ControllerApis' strictSinceVersion). */
export const STRICT_SINCE_VERSION = { CreateTopics: 6, CreatePartitions: 3, DeleteTopics: 5 } as const;

export class ControllerMutationQuotaManager {
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly config: QuotaWindowConfig,
    private readonly image: () => MetadataImage | null,
    private readonly clock: () => number = Date.now,
  ) {}

  /** ControllerMutationQuotaManager.newQuotaFor. */
  newQuotaFor(principal: string | undefined, clientId: string, strict: boolean): ControllerMutationQuota {
    const image = this.image();
    if (!image) return UNBOUNDED;
    let enabled = false;
    for (const q of image.clientQuotas.values()) if (q.quotas.has('controller_mutation_rate')) enabled = true;
    if (!enabled) return UNBOUNDED;
    const tags = quotaMetricTags(image, 'controller_mutation_rate', principalName(principal), clientId);
    const quota = quotaLimit(image, 'controller_mutation_rate', tags);
    if (quota === undefined) return UNBOUNDED;
    const key = `${tags.user}\u0000${tags.clientId}`;
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new TokenBucket(this.config)));
    const b = bucket;
    let lastThrottleTimeMs = 0;
    let lastRecordedTimeMs = 0;
    const violated = (tokens: number, now: number): void => {
      lastThrottleTimeMs = tokenBucketThrottleTime(tokens, quota);
      lastRecordedTimeMs = now;
    };
    return {
      record: (permits: number): void => {
        const now = this.clock();
        if (strict) {
          // Sensor.checkQuotas before recording: a negative bucket refuses the mutation
          const tokens = b.measure(quota, now);
          if (tokens < 0) {
            violated(tokens, now);
            throw new ThrottlingQuotaExceeded(lastThrottleTimeMs);
          }
          b.record(quota, permits, now);
        } else {
          b.record(quota, permits, now);
          const tokens = b.measure(quota, now);
          if (tokens < 0) violated(tokens, now);
        }
      },
      throttleTime: (): number => Math.max(0, lastThrottleTimeMs - (this.clock() - lastRecordedTimeMs)),
    };
  }
}
