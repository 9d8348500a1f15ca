// Client telemetry (KIP-714) as Kafka 4.4's ClientMetricsManager, ClientMetricsInstance,
// ClientMetricsInstanceMetadata and ClientMetricsConfigs run it: subscriptions are the client-metrics
// config resources (metrics prefixes, interval.ms, match patterns), each client instance gets the union
// of the subscriptions it matches (the smallest interval; "*" when one subscribes to everything), a
// subscription id (CRC32C of Java's Set.toString + interval, XOR the instance id's hashCode), and the
// push checks with Kafka's order and error codes. Instances expire max(60 s, 3 × interval) after their
// last request, when their connection closes, or by LRU at 16,384 as Kafka's cache.
import { ErrorCode } from '../../protocol/errors.js';
import { crc32c } from '../../protocol/records/crc.js';
import { randomUuid } from '../controller/uuid.js';

/** ClientMetricsConfigs.DEFAULT_INTERVAL_MS (5 minutes). */
export const DEFAULT_INTERVAL_MS = 5 * 60 * 1000;
/** ClientMetricsManager.SUPPORTED_COMPRESSION_TYPES: zstd, lz4, gzip, snappy. */
export const SUPPORTED_COMPRESSION_TYPES: readonly number[] = [4, 3, 1, 2];
/** ClientMetricsManager.CACHE_MAX_SIZE. */
export const CACHE_MAX_SIZE = 16384;
/** ClientMetricsManager.DEFAULT_CACHE_EXPIRY_MS. */
export const DEFAULT_CACHE_EXPIRY_MS = 60_000;
/** ClientMetricsConfigs.ALL_SUBSCRIBED_METRICS_CONFIG. */
export const ALL_METRICS = '*';

export const MATCH_KEYS = [
  'client_instance_id',
  'client_id',
  'client_software_name',
  'client_software_version',
  'client_source_address',
  'client_source_port',
] as const;

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** Uuid.ONE_UUID (= METADATA_TOPIC_ID): with ZERO_UUID, Uuid.RESERVED. */
const ONE_UUID = 'AAAAAAAAAAAAAAAAAAAAAQ';

export interface Subscription {
  readonly name: string;
  readonly metrics: readonly string[];
  readonly intervalMs: number;
  readonly match: ReadonlyMap<string, RegExp>;
}

/** ConfigDef LIST parsing: trimmed, split on commas with surrounding blanks; "" is the empty list. */
export function parseList(value: string | undefined): string[] {
  if (value === undefined) return [];
  const t = value.trim();
  return t === '' ? [] : t.split(/\s*,\s*/);
}

/**
 * ClientMetricsConfigs.parseMatchingPatterns: `name=regex` pairs over the six instance attributes,
 * each regex matching the whole value (Java's Matcher.matches). Throws on an illegal pattern.
 */
export function parseMatchPatterns(patterns: readonly string[]): Map<string, RegExp> {
  const out = new Map<string, RegExp>();
  for (const pattern of patterns) {
    // Java's String.split drops trailing empty strings: "a=" is one part, "a=b=c" three
    const parts = pattern.split('=');
    while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
    if (parts.length !== 2) throw new Error(`Illegal client matching pattern: ${pattern}`);
    const param = parts[0]!.trim();
    if (!(MATCH_KEYS as readonly string[]).includes(param))
      throw new Error(`Illegal client matching pattern: ${pattern}`);
    try {
      out.set(param, new RegExp(`^(?:${parts[1]!.trim()})$`));
    } catch {
      throw new Error(`Illegal client matching pattern: ${pattern}`);
    }
  }
  return out;
}

/** A subscription from a client-metrics resource's configs (metrics, interval.ms, match). */
export function subscriptionOf(name: string, configs: ReadonlyMap<string, string>): Subscription {
  const interval = configs.get('interval.ms');
  return {
    name,
    metrics: parseList(configs.get('metrics')),
    intervalMs: interval === undefined ? DEFAULT_INTERVAL_MS : Number(interval),
    match: parseMatchPatterns(parseList(configs.get('match'))),
  };
}

/** The attributes a subscription's match patterns test (ClientMetricsInstanceMetadata). */
export type InstanceAttributes = Partial<Record<(typeof MATCH_KEYS)[number], string | null>>;

/** ClientMetricsInstanceMetadata.isMatch: every pattern matches its attribute (no pattern: all match). */
export function isMatch(attributes: InstanceAttributes, match: ReadonlyMap<string, RegExp>): boolean {
  for (const [key, re] of match) {
    const v = attributes[key as (typeof MATCH_KEYS)[number]];
    if (v === undefined || v === null || !re.test(v)) return false;
  }
  return true;
}

// ------------------------------------------------------------------ Java hashing

/** java.lang.String.hashCode. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** org.apache.kafka.common.Uuid.hashCode of a Uuid in its base64 text form. */
export function uuidHashCode(id: string): number {
  const b = Buffer.from(id, 'base64url');
  return (b.readInt32BE(0) ^ b.readInt32BE(4) ^ b.readInt32BE(8) ^ b.readInt32BE(12)) | 0;
}

/**
 * The iteration order of a java.util.HashSet<String> built by adding `items` in order: by bucket
 * (spread hash & (capacity - 1)), insertion order within a bucket, the capacity doubling from 16
 * whenever the size passes 0.75 of it. With `concurrent`, a ConcurrentHashMap's key set (same spread
 * and buckets, the table doubling when the size reaches 0.75 of it).
 */
export function javaHashSetOrder(items: Iterable<string>, concurrent = false): string[] {
  const unique: string[] = [];
  const seen = new Set<string>();
  for (const s of items) {
    if (!seen.has(s)) {
      seen.add(s);
      unique.push(s);
    }
  }
  // HashMap resizes when its size passes 0.75 × capacity, ConcurrentHashMap when it reaches it
  let capacity = 16;
  while (concurrent ? unique.length >= capacity * 0.75 : unique.length > capacity * 0.75) capacity *= 2;
  const bucket = (s: string): number => {
    const h = javaStringHash(s);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return unique
    .map((s, i) => ({ s, i, b: bucket(s) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.s);
}

/** ClientMetricsManager.computeSubscriptionId: CRC32C(metrics.toString() + interval) ^ instanceId.hashCode(). */
export function computeSubscriptionId(
  orderedMetrics: readonly string[],
  pushIntervalMs: number,
  clientInstanceId: string,
): number {
  const bytes = Buffer.from(`[${orderedMetrics.join(', ')}]${pushIntervalMs}`, 'utf8');
  return (crc32c(bytes) | 0) ^ uuidHashCode(clientInstanceId);
}

// ------------------------------------------------------------------ instances

export interface ClientInstance {
  readonly clientInstanceId: string;
  readonly attributes: InstanceAttributes;
  readonly subscriptionId: number;
  readonly subscriptionVersion: string;
  /** The requested metrics in the order Kafka answers them (its HashSet's). */
  readonly metrics: readonly string[];
  readonly pushIntervalMs: number;
  lastGetRequestTimestamp: number;
  lastPushRequestTimestamp: number;
  terminating: boolean;
  lastKnownError: number;
  expiresAt: number;
  connectionId: string;
}

/** What a request says about its client (ClientMetricsInstanceMetadata's sources). */
export interface TelemetryRequestInfo {
  readonly connectionId: string;
  readonly clientId: string | null;
  readonly softwareName?: string | undefined;
  readonly softwareVersion?: string | undefined;
  readonly clientAddress: string;
  readonly clientPort?: number | undefined;
}

export interface GetSubscriptionsResult {
  readonly errorCode: number;
  readonly clientInstanceId: string;
  readonly subscriptionId: number;
  readonly acceptedCompressionTypes: readonly number[];
  readonly pushIntervalMs: number;
  readonly telemetryMaxBytes: number;
  readonly deltaTemporality: boolean;
  readonly requestedMetrics: readonly string[];
}

export interface PushRequest {
  readonly clientInstanceId: string;
  readonly subscriptionId: number;
  readonly terminating: boolean;
  readonly compressionType: number;
  readonly metrics: Buffer;
}

/** The exporter a valid push with metrics goes to (tkafka's: decode OTLP into the metrics store). Throws → INVALID_RECORD. */
export type TelemetryExporter = (instance: ClientInstance, push: PushRequest) => Promise<void> | void;

export interface ClientMetricsManagerOptions {
  /** telemetry.max.bytes */
  readonly telemetryMaxBytes: number;
  /** The client-metrics config resources now: name → configs. */
  readonly subscriptions: () => ReadonlyMap<string, ReadonlyMap<string, string>>;
  readonly exporter?: TelemetryExporter;
  readonly now?: () => number;
  readonly cacheExpiryMs?: number;
  readonly cacheMaxSize?: number;
  /** Told when an instance leaves (expiry, connection close, LRU eviction). */
  readonly onInstanceRemoved?: (clientInstanceId: string) => void;
}

export class ClientMetricsManager {
  /** Insertion order is the LRU order: a hit moves the instance to the end. */
  private readonly instances = new Map<string, ClientInstance>();
  private readonly byConnection = new Map<string, string>();
  private readonly now: () => number;
  private readonly cacheExpiryMs: number;
  private readonly cacheMaxSize: number;
  private cachedSubs: { key: string; subs: Subscription[] } | null = null;

  constructor(private readonly opts: ClientMetricsManagerOptions) {
    this.now = opts.now ?? Date.now;
    this.cacheExpiryMs = opts.cacheExpiryMs ?? DEFAULT_CACHE_EXPIRY_MS;
    this.cacheMaxSize = opts.cacheMaxSize ?? CACHE_MAX_SIZE;
  }

  get telemetryMaxBytes(): number {
    return this.opts.telemetryMaxBytes;
  }

  /** The subscriptions and their version (a fingerprint of the client-metrics configs). */
  private subscriptions(): { version: string; subs: Subscription[] } {
    const raw = this.opts.subscriptions();
    const key = JSON.stringify([...raw].map(([n, c]) => [n, [...c].sort()]));
    if (this.cachedSubs?.key !== key) {
      const subs: Subscription[] = [];
      for (const [name, configs] of raw) {
        if (configs.size === 0) continue;
        try {
          subs.push(subscriptionOf(name, configs));
        } catch {
          // the controller validated them; an unparsable one matches no client
        }
      }
      this.cachedSubs = { key, subs };
    }
    return { version: key, subs: this.cachedSubs.subs };
  }

  /** Live instances (expired ones dropped first). */
  list(): ClientInstance[] {
    this.expire();
    return [...this.instances.values()];
  }

  instance(clientInstanceId: string): ClientInstance | undefined {
    return this.instances.get(clientInstanceId);
  }

  /** ClientConnectionDisconnectListener: the instance first seen on the connection goes. */
  connectionClosed(connectionId: string): void {
    const id = this.byConnection.get(connectionId);
    if (id === undefined) return;
    this.byConnection.delete(connectionId);
    this.remove(id);
  }

  private remove(id: string): void {
    const inst = this.instances.get(id);
    if (!inst) return;
    this.instances.delete(id);
    if (this.byConnection.get(inst.connectionId) === id) this.byConnection.delete(inst.connectionId);
    this.opts.onInstanceRemoved?.(id);
  }

  /** Drops the instances whose expiration timer has run out (Kafka's ExpirationTimerTask). */
  expire(): void {
    const now = this.now();
    for (const inst of [...this.instances.values()]) if (inst.expiresAt <= now) this.remove(inst.clientInstanceId);
  }

  private attributesOf(id: string, info: TelemetryRequestInfo): InstanceAttributes {
    return {
      client_instance_id: id,
      client_id: info.clientId,
      client_software_name: info.softwareName ?? null,
      client_software_version: info.softwareVersion ?? null,
      client_source_address: info.clientAddress,
      client_source_port: info.clientPort === undefined ? null : String(info.clientPort),
    };
  }

  private create(id: string, attributes: InstanceAttributes, connectionId: string): ClientInstance {
    const { version, subs } = this.subscriptions();
    let pushIntervalMs = DEFAULT_INTERVAL_MS;
    const added: string[] = [];
    let all = false;
    // Kafka walks its subscriptions (a ConcurrentHashMap by name), adding each one's metrics (a
    // HashSet) to the instance's HashSet: the insertion order decides the order within a bucket
    const byName = new Map(subs.map((s) => [s.name, s]));
    for (const name of javaHashSetOrder(byName.keys(), true)) {
      const sub = byName.get(name)!;
      if (!isMatch(attributes, sub.match)) continue;
      all ||= sub.metrics.includes(ALL_METRICS);
      added.push(...javaHashSetOrder(sub.metrics));
      pushIntervalMs = Math.min(pushIntervalMs, sub.intervalMs);
    }
    const metrics = all ? [ALL_METRICS] : javaHashSetOrder(added);
    const inst: ClientInstance = {
      clientInstanceId: id,
      attributes,
      subscriptionId: computeSubscriptionId(metrics, pushIntervalMs, id),
      subscriptionVersion: version,
      metrics,
      pushIntervalMs,
      lastGetRequestTimestamp: 0,
      lastPushRequestTimestamp: 0,
      terminating: false,
      lastKnownError: ErrorCode.NONE,
      expiresAt: 0,
      connectionId,
    };
    this.instances.delete(id);
    this.instances.set(id, inst);
    this.byConnection.set(connectionId, id);
    while (this.instances.size > this.cacheMaxSize) {
      const eldest = this.instances.keys().next().value as string;
      this.remove(eldest);
    }
    return inst;
  }

  /** ClientMetricsManager.clientInstance: cached, re-evaluated when the subscriptions changed, timer renewed. */
  private clientInstance(id: string, info: TelemetryRequestInfo): ClientInstance {
    this.expire();
    let inst = this.instances.get(id);
    if (!inst) {
      inst = this.create(id, this.attributesOf(id, info), info.connectionId);
    } else {
      this.instances.delete(id);
      this.instances.set(id, inst);
      if (inst.subscriptionVersion !== this.subscriptions().version) {
        inst = this.create(id, inst.attributes, info.connectionId);
      }
    }
    inst.expiresAt = this.now() + Math.max(this.cacheExpiryMs, inst.pushIntervalMs * 3);
    return inst;
  }

  /** processGetTelemetrySubscriptionRequest. */
  getSubscriptions(requestedId: string, info: TelemetryRequestInfo): GetSubscriptionsResult {
    const now = this.now();
    let id = requestedId;
    if (id === ZERO_UUID) {
      do id = randomUuid();
      while (this.instances.has(id));
    }
    const inst = this.clientInstance(id, info);
    // ClientMetricsInstance.maybeUpdateGetRequestTimestamp; a client told UNKNOWN_SUBSCRIPTION_ID or
    // UNSUPPORTED_COMPRESSION_TYPE may ask again at once
    const last = Math.max(inst.lastGetRequestTimestamp, inst.lastPushRequestTimestamp);
    if (now - last >= inst.pushIntervalMs) {
      inst.lastGetRequestTimestamp = now;
    } else if (
      inst.lastKnownError !== ErrorCode.UNKNOWN_SUBSCRIPTION_ID &&
      inst.lastKnownError !== ErrorCode.UNSUPPORTED_COMPRESSION_TYPE
    ) {
      return errorResult(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    }
    inst.lastKnownError = ErrorCode.NONE;
    return {
      errorCode: ErrorCode.NONE,
      clientInstanceId: id,
      subscriptionId: inst.subscriptionId,
      acceptedCompressionTypes: SUPPORTED_COMPRESSION_TYPES,
      pushIntervalMs: inst.pushIntervalMs,
      telemetryMaxBytes: this.opts.telemetryMaxBytes,
      deltaTemporality: true,
      requestedMetrics: inst.metrics,
    };
  }

  /** processPushTelemetryRequest: the error code Kafka answers. */
  async push(req: PushRequest, info: TelemetryRequestInfo): Promise<number> {
    if (req.clientInstanceId === ZERO_UUID || req.clientInstanceId === ONE_UUID) return ErrorCode.INVALID_REQUEST;
    const now = this.now();
    const inst = this.clientInstance(req.clientInstanceId, info);
    const error = this.validatePush(req, inst, now);
    inst.terminating = req.terminating;
    if (error !== ErrorCode.NONE) {
      inst.lastKnownError = error;
      return error;
    }
    if (req.metrics.length > 0 && this.opts.exporter) {
      try {
        await this.opts.exporter(inst, req);
      } catch {
        inst.lastKnownError = ErrorCode.INVALID_RECORD;
        return ErrorCode.INVALID_RECORD;
      }
    }
    inst.lastKnownError = ErrorCode.NONE;
    return ErrorCode.NONE;
  }

  /** ClientMetricsManager.validatePushRequest, in its order. */
  private validatePush(req: PushRequest, inst: ClientInstance, now: number): number {
    if (inst.terminating) return ErrorCode.INVALID_REQUEST;
    // maybeUpdatePushRequestTimestamp: the first push after a GetTelemetrySubscriptions is accepted
    // at once (the client's first push comes after a random fraction of the interval)
    let accept = inst.lastGetRequestTimestamp > inst.lastPushRequestTimestamp;
    if (!accept) accept = now - inst.lastPushRequestTimestamp >= inst.pushIntervalMs;
    if (accept) inst.lastPushRequestTimestamp = now;
    else if (!req.terminating) return ErrorCode.THROTTLING_QUOTA_EXCEEDED;
    if (req.subscriptionId !== inst.subscriptionId) return ErrorCode.UNKNOWN_SUBSCRIPTION_ID;
    // CompressionType.forId: none, gzip, snappy, lz4, zstd
    if (req.compressionType < 0 || req.compressionType > 4) return ErrorCode.UNSUPPORTED_COMPRESSION_TYPE;
    if (req.metrics.length > this.opts.telemetryMaxBytes) return ErrorCode.TELEMETRY_TOO_LARGE;
    return ErrorCode.NONE;
  }
}

function errorResult(errorCode: number): GetSubscriptionsResult {
  return {
    errorCode,
    clientInstanceId: ZERO_UUID,
    subscriptionId: 0,
    acceptedCompressionTypes: [],
    pushIntervalMs: 0,
    telemetryMaxBytes: 0,
    deltaTemporality: false,
    requestedMetrics: [],
  };
}

/** The local port of the client side of a connection id "local:port-remote:port-n". */
export function clientPortOf(connectionId: string): number | undefined {
  const m = /-[^-]*:(\d+)-\d+$/.exec(connectionId);
  return m ? Number(m[1]) : undefined;
}

/**
 * ClientMetricsConfigs.validate(name, the resource's new configs), as the controller's
 * ControllerConfigurationValidator runs it: the error Kafka answers (INVALID_REQUEST for an empty
 * name, an unknown key or an interval out of range; INVALID_CONFIG for a value ConfigDef cannot parse
 * or an illegal match pattern), or null.
 */
export function validateClientMetricsConfigs(
  name: string,
  configs: ReadonlyMap<string, string>,
): { errorCode: number; errorMessage: string } | null {
  const invalid = (errorMessage: string) => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage });
  if (name === '') return invalid("Subscription name can't be empty");
  for (const key of javaHashSetOrder(configs.keys())) {
    if (key !== 'metrics' && key !== 'interval.ms' && key !== 'match')
      return invalid(`Unknown client metrics configuration: ${key}`);
  }
  const interval = configs.get('interval.ms');
  if (interval !== undefined) {
    const t = interval.trim();
    const n = /^[+-]?\d+$/.test(t) ? Number(t) : NaN;
    if (!Number.isInteger(n) || n < -2147483648 || n > 2147483647) {
      return {
        errorCode: ErrorCode.INVALID_CONFIG,
        errorMessage: `Invalid value ${interval} for configuration interval.ms: Not a number of type INT`,
      };
    }
    if (n < 100 || n > 3600000)
      return invalid(`Invalid value ${n} for interval.ms, interval must be between 100 and 3600000 (1 hour)`);
  }
  try {
    parseMatchPatterns(parseList(configs.get('match')));
  } catch (e) {
    return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: (e as Error).message };
  }
  return null;
}
