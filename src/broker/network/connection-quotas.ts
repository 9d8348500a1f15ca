// Connection limits (Kafka's ConnectionQuotas in core/.../network/SocketServer.scala) and the
// queued-request memory bound (Kafka's SimpleMemoryPool behind queued.max.request.bytes, and the
// request queue bound queued.max.requests).
//
// - max.connections.per.ip / max.connections.per.ip.overrides: counted per address; the connection
//   over the limit is counted, then closed at once, with Kafka's INFO line "Rejected connection
//   from /ip, address already has the configured maximum of N connections."
// - max.connections (broker-wide) and listener.name.<l>.max.connections: the acceptor waits (does
//   not hand over new connections) until a slot frees. The inter-broker listener is protected (when
//   the socket server has more than one listener): it is bounded only by its listener limit, and
//   when it pushes the total over max.connections the least recently active connection of another
//   listener is closed (Kafka's Processor.closeExcessConnections).
// - max.connection.creation.rate (broker and listener.name.<l>.): each accepted connection is
//   recorded in a Rate over quota.window.num samples of quota.window.size.seconds; when the rate is
//   over the bound the acceptor delays that connection by QuotaUtils' throttle time (capped to one
//   quota window), as ConnectionQuotas.waitForConnectionSlot.
// - connection_creation_rate of an `ip` client-quota entity (KIP-612): `ipConnectionRate` (a hook:
//   the client-quota work provides the rate per address); a connection over it is not accepted and
//   closed after the throttle time (Kafka's DelayedCloseSocket).
// Limits apply per quota group: the controller listeners form one (Kafka's ControllerServer has its
// own SocketServer), the broker listeners another.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

export const INT_MAX = 2147483647;

/** Kafka's Rate (a SampledStat of counts divided by the window, at least samples-1 full windows). */
export class ConnectionRate {
  private readonly samples: { startMs: number; value: number }[] = [];
  private current = 0;

  constructor(
    private readonly numSamples: number,
    private readonly windowMs: number,
  ) {}

  record(value: number, nowMs: number): void {
    if (this.samples.length === 0) this.samples.push({ startMs: nowMs, value: 0 });
    let s = this.samples[this.current]!;
    if (nowMs - s.startMs >= this.windowMs) {
      this.current = (this.current + 1) % this.numSamples;
      if (this.current >= this.samples.length) {
        s = { startMs: nowMs, value: 0 };
        this.samples.push(s);
      } else {
        s = this.samples[this.current]!;
        s.startMs = nowMs;
        s.value = 0;
      }
    }
    s.value += value;
  }

  measure(nowMs: number): number {
    // purgeObsoleteSamples: samples older than samples × window are reset
    const expire = this.numSamples * this.windowMs;
    for (const s of this.samples) {
      if (nowMs - s.startMs >= expire) {
        s.startMs = nowMs;
        s.value = 0;
      }
    }
    if (this.samples.length === 0) return 0;
    let sum = 0;
    let oldest = this.samples[0]!.startMs;
    for (const s of this.samples) {
      sum += s.value;
      if (s.startMs < oldest) oldest = s.startMs;
    }
    let elapsed = nowMs - oldest;
    const full = Math.floor(elapsed / this.windowMs);
    if (full < this.numSamples - 1) elapsed += (this.numSamples - 1 - full) * this.windowMs;
    return sum / (Math.max(elapsed, 1) / 1000);
  }

  /**
   * Sensor.record with an upper-bound quota: records one connection and returns the throttle time
   * when the rate is then over `bound` (QuotaUtils.boundedThrottleTime), else 0.
   */
  recordAndGetThrottleTimeMs(bound: number, nowMs: number): number {
    this.record(1, nowMs);
    if (bound >= INT_MAX) return 0;
    const value = this.measure(nowMs);
    if (value <= bound) return 0;
    const windowSize = this.windowSizeMs(nowMs);
    const throttle = Math.round(((value - bound) / bound) * windowSize);
    return Math.min(throttle, this.windowMs);
  }

  private windowSizeMs(nowMs: number): number {
    let oldest = nowMs;
    for (const s of this.samples) if (s.startMs < oldest) oldest = s.startMs;
    let elapsed = nowMs - oldest;
    const full = Math.floor(elapsed / this.windowMs);
    if (full < this.numSamples - 1) elapsed += (this.numSamples - 1 - full) * this.windowMs;
    return Math.max(elapsed, 1);
  }
}

export interface ConnectionQuotaSettings {
  readonly maxConnectionsPerIp: number;
  /** Resolved addresses (as normalizeAddress gives them) → limit. */
  readonly maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  readonly maxConnections: number;
  readonly maxConnectionCreationRate: number;
  /** Upper-case listener name → its max.connections / max.connection.creation.rate (prefix override, else the broker's). */
  readonly listeners: ReadonlyMap<string, { maxConnections: number; maxConnectionCreationRate: number }>;
  /** quota.window.num */
  readonly quotaWindowNum: number;
  /** quota.window.size.seconds, in ms */
  readonly quotaWindowMs: number;
}

/** IPv4-mapped IPv6 addresses as Java's InetAddress shows them (plain IPv4). */
export function normalizeAddress(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1]! : address;
}

function intSetting(settings: ReadonlyMap<string, string>, key: string, fallback: number): number {
  const v = settings.get(key);
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v.trim());
  if (!Number.isInteger(n)) throw new Error(`Invalid value ${v} for configuration ${key}: Not a number of type INT`);
  return n;
}

/** Kafka's Csv.parseCsvMap for max.connections.per.ip.overrides: "host:count,host:count". */
export function parseIpOverrides(spec: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const i = item.lastIndexOf(':');
    if (i <= 0) throw new Error(`Invalid value ${spec} for configuration max.connections.per.ip.overrides`);
    out.set(item.slice(0, i).trim(), Number(item.slice(i + 1).trim()));
  }
  return out;
}

/**
 * The connection limits from a node's settings (server.properties overlaid with the dynamic
 * cluster-default and per-broker configs). Override hosts are resolved as InetAddress.getByName
 * does (an IP literal as is, a hostname to its first address, IPv4 first).
 */
export async function connectionQuotaSettings(
  settings: ReadonlyMap<string, string>,
  listenerNames: readonly string[],
): Promise<ConnectionQuotaSettings> {
  const maxConnections = intSetting(settings, 'max.connections', INT_MAX);
  const maxRate = intSetting(settings, 'max.connection.creation.rate', INT_MAX);
  const overrides = new Map<string, number>();
  for (const [host, count] of parseIpOverrides(settings.get('max.connections.per.ip.overrides') ?? '')) {
    const address = isIP(host) ? host : (await lookup(host, { verbatim: false })).address;
    overrides.set(normalizeAddress(address), count);
  }
  const listeners = new Map<string, { maxConnections: number; maxConnectionCreationRate: number }>();
  for (const name of listenerNames) {
    const prefix = `listener.name.${name.toLowerCase()}.`;
    listeners.set(name.toUpperCase(), {
      maxConnections: intSetting(settings, `${prefix}max.connections`, maxConnections),
      maxConnectionCreationRate: intSetting(settings, `${prefix}max.connection.creation.rate`, maxRate),
    });
  }
  return {
    maxConnectionsPerIp: intSetting(settings, 'max.connections.per.ip', INT_MAX),
    maxConnectionsPerIpOverrides: overrides,
    maxConnections,
    maxConnectionCreationRate: maxRate,
    listeners,
    quotaWindowNum: intSetting(settings, 'quota.window.num', 11),
    quotaWindowMs: intSetting(settings, 'quota.window.size.seconds', 1) * 1000,
  };
}

export type IncResult =
  | { kind: 'accepted' }
  /** TooManyConnectionsException: counted; the caller logs, closes and calls dec. */
  | { kind: 'tooMany'; ip: string; count: number }
  /** ConnectionThrottledException (IP rate): not counted; close after throttleMs. */
  | { kind: 'throttled'; ip: string; throttleMs: number };

export class ConnectionQuotas {
  private settings: ConnectionQuotaSettings;
  private readonly counts = new Map<string, number>();
  private readonly listenerCounts = new Map<string, number>();
  private totalCount = 0;
  private brokerRate: ConnectionRate;
  private readonly listenerRates = new Map<string, ConnectionRate>();
  private readonly ipRates = new Map<string, ConnectionRate>();
  /** Acceptors waiting for a slot (counts.notifyAll). */
  private readonly waiters = new Set<() => void>();

  /**
   * @param interBrokerListenerName the protected listener (inter.broker.listener.name), if any
   * @param ipConnectionRate KIP-612 connection_creation_rate of an `ip` entity (its override, else
   *   the <default> ip entity's); undefined or INT_MAX: no IP rate quota (QuotaConfig.IP_CONNECTION_RATE_DEFAULT)
   * @param closeExcess closes the `excess` least recently active connections of listeners other than
   *   the protected one (those already closing count) (Processor.closeExcessConnections)
   */
  constructor(
    settings: ConnectionQuotaSettings,
    private readonly interBrokerListenerName: string | undefined,
    private readonly ipConnectionRate: ((ip: string) => number | undefined) | undefined,
    private readonly closeExcess: (protectedListener: string | undefined, excess: number) => void,
  ) {
    this.settings = settings;
    this.brokerRate = new ConnectionRate(settings.quotaWindowNum, settings.quotaWindowMs);
  }

  /** ConnectionQuotas.addListener */
  addListener(listenerName: string): void {
    if (!this.listenerCounts.has(listenerName)) this.listenerCounts.set(listenerName, 0);
  }

  /** Dynamic reconfiguration (DynamicConnectionQuota, ListenerConnectionQuota.reconfigure). */
  update(settings: ConnectionQuotaSettings): void {
    this.settings = settings;
    this.enforceMaxConnections();
    this.notifyAll();
  }

  get total(): number {
    return this.totalCount;
  }

  get(address: string): number {
    return this.counts.get(normalizeAddress(address)) ?? 0;
  }

  onSlotFreed(waiter: () => void): () => void {
    this.waiters.add(waiter);
    return () => this.waiters.delete(waiter);
  }

  /** The connection rate throttle of a new connection (recorded now), broker and listener, in ms. */
  recordConnectionAndGetThrottleTimeMs(listenerName: string, nowMs: number): number {
    const l = this.settings.listeners.get(listenerName);
    const listenerThrottle = (min: number): number => {
      if (!l) return 0;
      let rate = this.listenerRates.get(listenerName);
      if (!rate) {
        rate = new ConnectionRate(this.settings.quotaWindowNum, this.settings.quotaWindowMs);
        this.listenerRates.set(listenerName, rate);
      }
      return Math.max(min, rate.recordAndGetThrottleTimeMs(l.maxConnectionCreationRate, nowMs));
    };
    if (this.protectedListener(listenerName)) return listenerThrottle(0);
    return listenerThrottle(this.brokerRate.recordAndGetThrottleTimeMs(this.settings.maxConnectionCreationRate, nowMs));
  }

  connectionSlotAvailable(listenerName: string): boolean {
    const max = this.settings.listeners.get(listenerName)?.maxConnections ?? INT_MAX;
    if ((this.listenerCounts.get(listenerName) ?? 0) >= max) return false;
    if (this.protectedListener(listenerName)) return true;
    return this.totalCount < this.settings.maxConnections;
  }

  /** The part of ConnectionQuotas.inc after waitForConnectionSlot: IP rate, counts, per-IP limit. */
  inc(listenerName: string, rawAddress: string, nowMs: number): IncResult {
    const ip = normalizeAddress(rawAddress);
    const ipRate = this.ipConnectionRate?.(ip);
    if (ipRate !== undefined && ipRate < INT_MAX) {
      let rate = this.ipRates.get(ip);
      if (!rate) {
        rate = new ConnectionRate(this.settings.quotaWindowNum, this.settings.quotaWindowMs);
        this.ipRates.set(ip, rate);
      }
      const throttleMs = rate.recordAndGetThrottleTimeMs(ipRate, nowMs);
      if (throttleMs > 0) {
        rate.record(-1, nowMs);
        if (!this.protectedListener(listenerName)) this.brokerRate.record(-1, nowMs);
        this.listenerRates.get(listenerName)?.record(-1, nowMs);
        return { kind: 'throttled', ip, throttleMs };
      }
    }
    const count = this.counts.get(ip) ?? 0;
    this.counts.set(ip, count + 1);
    this.totalCount++;
    if (this.listenerCounts.has(listenerName))
      this.listenerCounts.set(listenerName, this.listenerCounts.get(listenerName)! + 1);
    const max = this.settings.maxConnectionsPerIpOverrides.get(ip) ?? this.settings.maxConnectionsPerIp;
    if (count >= max) return { kind: 'tooMany', ip, count: max };
    if (this.maxConnectionsExceeded()) this.enforceMaxConnections();
    return { kind: 'accepted' };
  }

  dec(listenerName: string, rawAddress: string): void {
    const ip = normalizeAddress(rawAddress);
    const count = this.counts.get(ip);
    if (count === undefined) return;
    if (count === 1) this.counts.delete(ip);
    else this.counts.set(ip, count - 1);
    this.totalCount--;
    const lc = this.listenerCounts.get(listenerName);
    if (lc !== undefined && lc > 0) this.listenerCounts.set(listenerName, lc - 1);
    this.notifyAll();
  }

  private maxConnectionsExceeded(): boolean {
    return this.totalCount > this.settings.maxConnections;
  }

  /** Closes least recently active connections of unprotected listeners while the total is over the limit. */
  private enforceMaxConnections(): void {
    if (!this.maxConnectionsExceeded()) return;
    const protectedName = this.listenerCounts.size > 1 ? this.interBrokerListenerName : undefined;
    this.closeExcess(protectedName, this.totalCount - this.settings.maxConnections);
  }

  private protectedListener(listenerName: string): boolean {
    return this.interBrokerListenerName === listenerName && this.listenerCounts.size > 1;
  }

  private notifyAll(): void {
    for (const w of [...this.waiters]) w();
  }
}

/**
 * Bytes held by requests read but not yet answered, across every connection of a socket server
 * (queued.max.request.bytes, Kafka's SimpleMemoryPool, not strict: a request is admitted while any
 * memory is left), and the number of requests waiting to be handled (queued.max.requests, Kafka's
 * RequestChannel queue). While either is reached, connections stop reading at their next frame
 * boundary; they resume when a response frees memory or a request leaves the queue.
 */
export class RequestMemoryPool {
  private used = 0;
  private queued = 0;
  /** Bytes of frames begun while the pool was exhausted: held, but not granted (see Connection). */
  private ungranted = 0;
  private readonly waiters = new Set<() => void>();
  /** The most usedBytes has been. */
  peakUsed = 0;

  /** @param capacity queued.max.request.bytes (<= 0: unbounded) @param maxQueuedRequests queued.max.requests */
  constructor(
    readonly capacity: number,
    readonly maxQueuedRequests: number,
  ) {}

  /** Bytes held by requests read and not yet answered (granted and not). */
  get usedBytes(): number {
    return this.used + this.ungranted;
  }

  get queuedRequests(): number {
    return this.queued;
  }

  get exhausted(): boolean {
    return (this.capacity > 0 && this.used >= this.capacity) || this.queued >= this.maxQueuedRequests;
  }

  /**
   * Adds (or, negative, releases) granted bytes, queued requests and ungranted bytes: those of a
   * frame whose reading began while the pool was exhausted. They do not count towards the bound (the
   * connection pauses at once and waits, so they are at most one socket read per connection), or
   * connections holding them could wait for each other for ever.
   */
  adjust(bytes: number, requests: number, ungrantedBytes = 0): void {
    const was = this.exhausted;
    this.used += bytes;
    this.queued += requests;
    this.ungranted += ungrantedBytes;
    if (this.used + this.ungranted > this.peakUsed) this.peakUsed = this.used + this.ungranted;
    if (was && !this.exhausted) for (const w of [...this.waiters]) w();
  }

  waitForMemory(waiter: () => void): void {
    this.waiters.add(waiter);
  }

  stopWaiting(waiter: () => void): void {
    this.waiters.delete(waiter);
  }
}
