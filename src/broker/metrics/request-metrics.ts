// Kafka's RequestMetrics (kafka.network:type=RequestMetrics), per API: RequestsPerSec{request,version},
// ErrorsPerSec{request,error}, and the latency breakdown histograms RequestQueueTimeMs (received →
// handler started), LocalTimeMs (handler running), RemoteTimeMs (parked in a purgatory),
// ResponseQueueTimeMs (handler done → response written), ResponseSendTimeMs (writing it),
// TotalTimeMs, plus RequestBytes. As Kafka, a Fetch is recorded under "Fetch" and under
// "FetchConsumer" or "FetchFollower". The connection calls record() once per request: a few array
// writes, no allocation (an API's slot is made on its first request).
import type { Registry } from 'prom-client';
import { apiName } from '../api/registry.js';
import { errorName } from '../../protocol/errors.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import { counters, histograms, type Labels } from './families.js';
import { Reservoir } from './reservoir.js';

class ApiStats {
  readonly byVersion: number[] = [];
  readonly errors = new Map<number, number>();
  readonly queue = new Reservoir();
  readonly local = new Reservoir();
  readonly remote = new Reservoir();
  readonly responseQueue = new Reservoir();
  readonly send = new Reservoir();
  readonly total = new Reservoir();
  readonly bytes = new Reservoir();
  constructor(readonly name: string) {}
}

/** One request's timestamps (performance.now(), ms) as the connection saw them. */
export interface RequestTimes {
  received: number;
  started: number;
  /** the handler's response was ready (dispatcher returned) */
  completed: number;
  /** writing the response began / ended (equal to completed when there is none) */
  sendStart: number;
  sendEnd: number;
}

export class RequestMetrics {
  private readonly apis: (ApiStats | undefined)[] = [];
  private readonly fetchConsumer = new ApiStats('FetchConsumer');
  private readonly fetchFollower = new ApiStats('FetchFollower');

  private stats(apiKey: number): ApiStats {
    let s = this.apis[apiKey];
    if (!s) this.apis[apiKey] = s = new ApiStats(apiName(apiKey));
    return s;
  }

  /**
   * A request answered (or not: acks=0): `remoteMs` of its handler time was spent parked; a Fetch
   * says whether a follower sent it (`fetchFollower`).
   */
  record(
    apiKey: number,
    version: number,
    size: number,
    t: RequestTimes,
    remoteMs: number,
    fetchFollower: boolean,
  ): void {
    const s = this.stats(apiKey);
    this.update(s, version, size, t, remoteMs);
    if (apiKey === ApiKey.Fetch)
      this.update(fetchFollower ? this.fetchFollower : this.fetchConsumer, version, size, t, remoteMs);
  }

  /** The error codes of a response body (Kafka's AbstractResponse.errorCounts), NONE included. */
  recordErrors(apiKey: number, response: unknown): void {
    countErrorCodes(response, this.stats(apiKey).errors);
  }

  private update(s: ApiStats, version: number, size: number, t: RequestTimes, remoteMs: number): void {
    s.byVersion[version] = (s.byVersion[version] ?? 0) + 1;
    const handler = t.completed - t.started;
    const remote = Math.min(remoteMs, handler);
    s.queue.update(t.started - t.received);
    s.local.update(handler - remote);
    s.remote.update(remote);
    s.responseQueue.update(t.sendStart - t.completed);
    s.send.update(t.sendEnd - t.sendStart);
    s.total.update(t.sendEnd - t.received);
    s.bytes.update(size);
  }

  private each(): ApiStats[] {
    const all = this.apis.filter((s): s is ApiStats => s !== undefined);
    for (const s of [this.fetchConsumer, this.fetchFollower]) if (s.total.count > 0) all.push(s);
    return all;
  }

  register(registry: Registry): void {
    counters(
      registry,
      'kafka_network_requestmetrics_requests_total',
      'kafka.network:type=RequestMetrics,name=RequestsPerSec,request=*,version=* (Count)',
      ['request', 'version'],
      (emit) => {
        for (const s of this.each())
          s.byVersion.forEach((n, version) => {
            if (n !== undefined) emit({ request: s.name, version }, n);
          });
      },
    );
    counters(
      registry,
      'kafka_network_requestmetrics_errors_total',
      'kafka.network:type=RequestMetrics,name=ErrorsPerSec,request=*,error=* (Count)',
      ['request', 'error'],
      (emit) => {
        for (const s of this.each())
          for (const [code, n] of s.errors) emit({ request: s.name, error: errorName(code) }, n);
      },
    );
    const hist = (mbean: string, pick: (s: ApiStats) => Reservoir): void =>
      histograms(
        registry,
        `kafka_network_requestmetrics_${mbean.toLowerCase()}`,
        `kafka.network:type=RequestMetrics,name=${mbean},request=*`,
        ['request'],
        (visit) => {
          for (const s of this.each()) {
            const r = pick(s);
            if (r.count > 0) visit({ request: s.name } satisfies Labels, r);
          }
        },
      );
    hist('RequestQueueTimeMs', (s) => s.queue);
    hist('LocalTimeMs', (s) => s.local);
    hist('RemoteTimeMs', (s) => s.remote);
    hist('ResponseQueueTimeMs', (s) => s.responseQueue);
    hist('ResponseSendTimeMs', (s) => s.send);
    hist('TotalTimeMs', (s) => s.total);
    hist('RequestBytes', (s) => s.bytes);
  }
}

/**
 * Adds every `errorCode` field of a response (its top level and its topics, partitions, resources)
 * to `errors`: Kafka's AbstractResponse.errorCounts, NONE included. Record buffers are not walked.
 */
export function countErrorCodes(body: unknown, errors: Map<number, number>): void {
  if (body === null || typeof body !== 'object' || Buffer.isBuffer(body) || ArrayBuffer.isView(body)) return;
  if (Array.isArray(body)) {
    for (const item of body) if (item !== null && typeof item === 'object') countErrorCodes(item, errors);
    return;
  }
  const o = body as Record<string, unknown>;
  for (const k in o) {
    const v = o[k];
    if (k === 'errorCode' && typeof v === 'number') errors.set(v, (errors.get(v) ?? 0) + 1);
    else if (v !== null && typeof v === 'object') countErrorCodes(v, errors);
  }
}
