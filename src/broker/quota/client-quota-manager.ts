// Client quotas on the broker (Kafka's ClientQuotaManager with the DefaultQuotaCallback, KIP-13 /
// KIP-55 / KIP-219): the quota of a (user, client-id) is looked up in the metadata image's
// ClientQuotaRecords with Kafka's precedence, the value is recorded in a sensor shared by every
// connection with the same metric tags, and a rate above the quota gives a throttle time of
// QuotaUtils.throttleTime: (observed − quota) / quota × window. The rate is Kafka's Rate over a
// SampledStat of `quota.window.num` samples of `quota.window.size.seconds` each.
import type { ServerConfig } from '../../config/server-config.js';
import { ConfigError } from '../../config/definitions.js';
import type { MetadataImage } from '../metadata/image.js';
import { quotaEntityKey } from '../metadata/delta.js';

/** QuotaConfig.NUM_QUOTA_SAMPLES_DEFAULT / QUOTA_WINDOW_SIZE_SECONDS_DEFAULT. */
export const NUM_QUOTA_SAMPLES_DEFAULT = 11;
export const QUOTA_WINDOW_SIZE_SECONDS_DEFAULT = 1;
/** ClientQuotaManager.InactiveSensorExpirationTimeSeconds. */
const INACTIVE_SENSOR_EXPIRATION_MS = 3600_000;

export interface QuotaWindowConfig {
  /** quota.window.num */
  readonly samples: number;
  /** quota.window.size.seconds, in ms */
  readonly windowMs: number;
}

/** An INT config read from the server's properties, atLeast(1) (QuotaConfig's definitions). */
function intAtLeast1(config: Pick<ServerConfig, 'originals'>, key: string, dflt: number): number {
  const raw = config.originals.get(key);
  if (raw === undefined) return dflt;
  const v = Number(raw.trim());
  if (!Number.isInteger(v) || v > 2147483647 || v < -2147483648)
    throw new ConfigError(`Invalid value ${raw} for configuration ${key}: Not a number of type INT`, key);
  if (v < 1) throw new ConfigError(`Invalid value ${v} for configuration ${key}: Value must be at least 1`, key);
  return v;
}

/** quota.window.num and quota.window.size.seconds of the server's configuration. */
export function quotaWindowConfig(config: Pick<ServerConfig, 'originals'>): QuotaWindowConfig {
  return {
    samples: intAtLeast1(config, 'quota.window.num', NUM_QUOTA_SAMPLES_DEFAULT),
    windowMs: intAtLeast1(config, 'quota.window.size.seconds', QUOTA_WINDOW_SIZE_SECONDS_DEFAULT) * 1000,
  };
}

interface Sample {
  value: number;
  eventCount: number;
  startTimeMs: number;
  lastEventMs: number;
}

const newSample = (now: number): Sample => ({ value: 0, eventCount: 0, startTimeMs: now, lastEventMs: now });

/**
 * Kafka 4.4's Rate (seconds) over a SampledStat: `samples` + 1 slots (one extra for the sample that
 * overlaps the window's start), a sample obsolete when its last event is a full window old, the
 * window measured from the oldest sample's start.
 */
export class Rate {
  private readonly samples: Sample[] = [];
  private current = 0;

  constructor(private readonly config: QuotaWindowConfig) {}

  private currentSample(now: number): Sample {
    if (this.samples.length === 0) this.samples.push(newSample(now));
    return this.samples[this.current]!;
  }

  /** SampledStat.record. */
  record(value: number, now: number): void {
    let sample = this.currentSample(now);
    if (now - sample.startTimeMs >= this.config.windowMs) {
      // advance: keep one extra placeholder for the overlapping sample
      this.current = (this.current + 1) % (this.config.samples + 1);
      if (this.current >= this.samples.length) {
        sample = newSample(now);
        this.samples.push(sample);
      } else {
        sample = this.samples[this.current]!;
        reset(sample, now);
      }
    }
    sample.value += value;
    sample.eventCount += 1;
    sample.lastEventMs = now;
  }

  private purgeObsoleteSamples(now: number): void {
    const expireAge = this.config.samples * this.config.windowMs;
    for (const s of this.samples) if (now - s.lastEventMs >= expireAge) reset(s, now);
  }

  /** Rate.windowSize: the elapsed time of the samples, at least samples − 1 full windows, at least 1 ms. */
  windowSize(now: number): number {
    this.purgeObsoleteSamples(now);
    if (this.samples.length === 0) this.samples.push(newSample(now));
    let oldest = this.samples[0]!;
    for (const s of this.samples) if (s.startTimeMs < oldest.startTimeMs) oldest = s;
    let elapsed = now - oldest.startTimeMs;
    const numFullWindows = Math.floor(elapsed / this.config.windowMs);
    const minFullWindows = this.config.samples - 1;
    if (numFullWindows < minFullWindows) elapsed += (minFullWindows - numFullWindows) * this.config.windowMs;
    return Math.max(elapsed, 1);
  }

  /** Rate.measure: the samples' total per second. */
  measure(now: number): number {
    this.purgeObsoleteSamples(now);
    let total = 0;
    for (const s of this.samples) total += s.value;
    return total / (this.windowSize(now) / 1000);
  }
}

function reset(s: Sample, now: number): void {
  s.value = 0;
  s.eventCount = 0;
  s.startTimeMs = now;
  s.lastEventMs = now;
}

/**
 * QuotaUtils.throttleTime: how long until the rate is back at the quota, over the rate's precise
 * window; Math.round as Kafka.
 */
export function throttleTime(observed: number, bound: number, windowSizeMs: number): number {
  return Math.round(((observed - bound) / bound) * windowSizeMs);
}

/** The quota types of ClientQuotaManager (ClientQuotaType), with their ClientQuotaRecord key. */
export type ClientQuotaKey =
  'producer_byte_rate' | 'consumer_byte_rate' | 'request_percentage' | 'controller_mutation_rate';

interface MetricTags {
  readonly user: string;
  readonly clientId: string;
}

/** The image's quota of an entity (type → name, null for <default>) for one key, or undefined. */
function quotaOf(image: MetadataImage, key: ClientQuotaKey, entity: Record<string, string | null>): number | undefined {
  const entries = Object.entries(entity).map(([entityType, entityName]) => ({ entityType, entityName }));
  return image.clientQuotas.get(quotaEntityKey(entries))?.quotas.get(key);
}

/** DefaultQuotaCallback.quotaMetricTags: the tags of the first level that has a quota. */
export function quotaMetricTags(image: MetadataImage, key: ClientQuotaKey, user: string, clientId: string): MetricTags {
  const has = (e: Record<string, string | null>): boolean => quotaOf(image, key, e) !== undefined;
  if (has({ user, 'client-id': clientId })) return { user, clientId };
  if (has({ user, 'client-id': null })) return { user, clientId };
  if (has({ user })) return { user, clientId: '' };
  if (has({ user: null, 'client-id': clientId })) return { user, clientId };
  if (has({ user: null, 'client-id': null })) return { user, clientId };
  if (has({ user: null })) return { user, clientId: '' };
  return { user: '', clientId };
}

/** DefaultQuotaCallback.quotaLimit: the quota for the tags, undefined for none (unlimited). */
export function quotaLimit(image: MetadataImage, key: ClientQuotaKey, tags: MetricTags): number | undefined {
  const { user, clientId } = tags;
  if (user !== '' && clientId !== '') {
    return (
      quotaOf(image, key, { user, 'client-id': clientId }) ??
      quotaOf(image, key, { user, 'client-id': null }) ??
      quotaOf(image, key, { user: null, 'client-id': clientId }) ??
      quotaOf(image, key, { user: null, 'client-id': null })
    );
  }
  if (user !== '') return quotaOf(image, key, { user }) ?? quotaOf(image, key, { user: null });
  if (clientId !== '')
    return quotaOf(image, key, { 'client-id': clientId }) ?? quotaOf(image, key, { 'client-id': null });
  return undefined;
}

/** The user name of a principal string (`User:alice` → alice), the name quotas are keyed by. */
export function principalName(principal: string | undefined): string {
  if (principal === undefined) return 'ANONYMOUS';
  const i = principal.indexOf(':');
  return i < 0 ? principal : principal.slice(i + 1);
}

interface Sensor {
  readonly rate: Rate;
  lastRecordMs: number;
}

/** One quota type's sensors (ClientQuotaManager): record a value, get the throttle time. */
export class ClientQuotaManager {
  private readonly sensors = new Map<string, Sensor>();
  private lastExpiryMs = 0;
  private enabledFor: MetadataImage['clientQuotas'] | null = null;
  private enabled = false;

  constructor(
    readonly key: ClientQuotaKey,
    private readonly config: QuotaWindowConfig,
    private readonly image: () => MetadataImage | null,
    /** ClientRequestQuotaManager's bound on a throttle (one quota window); none for the byte rates. */
    private readonly maxThrottleMs = Infinity,
  ) {}

  /** Whether any entity of the image has a quota of this type (ClientQuotaManager.quotasEnabled). */
  quotasEnabled(): boolean {
    const image = this.image();
    if (!image) return false;
    // computed once per quota map (a new image with unchanged quotas keeps the same map)
    if (image.clientQuotas !== this.enabledFor) {
      this.enabledFor = image.clientQuotas;
      this.enabled = false;
      for (const q of image.clientQuotas.values()) if (q.quotas.has(this.key)) this.enabled = true;
    }
    return this.enabled;
  }

  private sensor(tags: MetricTags, now: number): Sensor {
    if (now - this.lastExpiryMs >= INACTIVE_SENSOR_EXPIRATION_MS / 60) {
      this.lastExpiryMs = now;
      for (const [k, s] of this.sensors)
        if (now - s.lastRecordMs >= INACTIVE_SENSOR_EXPIRATION_MS) this.sensors.delete(k);
    }
    const k = `${tags.user}\u0000${tags.clientId}`;
    let s = this.sensors.get(k);
    if (!s) this.sensors.set(k, (s = { rate: new Rate(this.config), lastRecordMs: now }));
    s.lastRecordMs = now;
    return s;
  }

  /**
   * ClientQuotaManager.maybeRecordAndGetThrottleTimeMs: nothing is recorded while no entity has a
   * quota of this type; otherwise the value is recorded and the quota checked (Sensor.record with
   * checkQuotas): 0, or the throttle time when the rate exceeds the quota.
   */
  recordAndGetThrottleTimeMs(principal: string | undefined, clientId: string, value: number, now: number): number {
    const image = this.image();
    if (!image || !this.quotasEnabled()) return 0;
    const tags = quotaMetricTags(image, this.key, principalName(principal), clientId);
    const s = this.sensor(tags, now);
    s.rate.record(value, now);
    const bound = quotaLimit(image, this.key, tags);
    if (bound === undefined) return 0;
    const observed = s.rate.measure(now);
    if (observed <= bound) return 0;
    return Math.min(throttleTime(observed, bound, s.rate.windowSize(now)), this.maxThrottleMs);
  }

  /** ClientQuotaManager.unrecordQuotaSensor: a value taken back (a throttled Fetch answers empty). */
  unrecord(principal: string | undefined, clientId: string, value: number, now: number): void {
    const image = this.image();
    if (!image || !this.quotasEnabled()) return;
    const tags = quotaMetricTags(image, this.key, principalName(principal), clientId);
    this.sensor(tags, now).rate.record(-value, now);
  }
}

/** The broker's client quota managers (Kafka's QuotaFactory.QuotaManagers, the client ones). */
export interface QuotaManagers {
  readonly produce: ClientQuotaManager;
  readonly fetch: ClientQuotaManager;
  /** request_percentage (ClientRequestQuotaManager): a throttle is at most one quota window. */
  readonly request: ClientQuotaManager;
}

export function createQuotaManagers(
  config: Pick<ServerConfig, 'originals'>,
  image: () => MetadataImage | null,
): QuotaManagers {
  const window = quotaWindowConfig(config);
  return {
    produce: new ClientQuotaManager('producer_byte_rate', window, image),
    fetch: new ClientQuotaManager('consumer_byte_rate', window, image),
    request: new ClientQuotaManager('request_percentage', window, image, window.windowMs),
  };
}
