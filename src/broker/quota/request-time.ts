// request_percentage (Kafka's ClientRequestQuotaManager, KIP-124): the time a request keeps the broker
// busy, as a percentage of one second per second, recorded per (user, client-id) and throttled when
// above the quota (a throttle is at most one quota window).
//
// Kafka records the request handler thread's time (`requestThreadTimeNanos`: dequeue to local
// completion, so time parked in a purgatory is not counted). tkafka's handlers run on one event loop
// and interleave at every await, so the equivalent is the event-loop time spent in the request's own
// code: its synchronous part and every continuation that runs in its async context (timers, I/O
// callbacks and promise reactions it started), summed by async_hooks' before/after around the
// callbacks of the request's AsyncLocalStorage context. Waiting (for the log queue, for replicas, a
// fetch's max wait) costs nothing. The hook is enabled only while some entity has a
// request_percentage quota: async_hooks slow every promise down, and without quotas Kafka records
// nothing either (quotasEnabled).
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { RequestContext } from '../api/types.js';

interface Meter {
  ms: number;
  /** performance.now() when the current callback of the request began, 0 between callbacks. */
  since: number;
}

const requestContext = new AsyncLocalStorage<Meter>();
const hook = createHook({
  before() {
    const m = requestContext.getStore();
    if (m) m.since = performance.now();
  },
  after() {
    const m = requestContext.getStore();
    if (m && m.since > 0) {
      m.ms += performance.now() - m.since;
      m.since = 0;
    }
  },
});
let metering = false;

/** Turns the metering hook on while request quotas exist (and off when they are all removed). */
export function setRequestMetering(on: boolean): void {
  if (on === metering) return;
  metering = on;
  if (on) hook.enable();
  else hook.disable();
}

/** Runs `fn` in its own metered context: its result and the event-loop time it took (ms). */
export async function metered<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const m: Meter = { ms: 0, since: performance.now() };
  const pending = requestContext.run(m, fn);
  m.ms += performance.now() - m.since;
  m.since = 0;
  const value = await pending;
  return { value, ms: m.ms };
}

/** ClientRequestQuotaManager.nanosToPercentage, from milliseconds: the share of one second, in %. */
export const msToPercentage = (ms: number): number => ms / 10;

/** APIs only other nodes send (Kafka answers them with sendResponseExemptThrottle): never throttled. */
const INTER_NODE_APIS = new Set<number>([
  ApiKey.WriteTxnMarkers,
  ApiKey.AlterPartition,
  ApiKey.BrokerRegistration,
  ApiKey.BrokerHeartbeat,
  ApiKey.ControllerRegistration,
  ApiKey.AllocateProducerIds,
  ApiKey.Vote,
  ApiKey.BeginQuorumEpoch,
  ApiKey.EndQuorumEpoch,
  ApiKey.FetchSnapshot,
  ApiKey.Envelope,
  ApiKey.UpdateRaftVoter,
]);

/**
 * Whether Kafka exempts the request from request quotas: the inter-node APIs, a follower's Fetch or
 * OffsetForLeaderEpoch, AddPartitionsToTxn v4+ (the verification brokers send).
 */
export function isExemptFromRequestQuota(
  ctx: Pick<RequestContext, 'apiKey' | 'apiVersion' | 'isControllerListener'>,
  body: unknown,
): boolean {
  if (INTER_NODE_APIS.has(ctx.apiKey)) return true;
  if (ctx.apiKey === ApiKey.AddPartitionsToTxn) return ctx.apiVersion >= 4;
  if (ctx.apiKey === ApiKey.Fetch && ctx.isControllerListener) return true; // the metadata log's raft Fetch
  if (ctx.apiKey === ApiKey.Fetch || ctx.apiKey === ApiKey.OffsetForLeaderEpoch) {
    const b = body as { replicaId?: number; replicaState?: { replicaId: number } };
    return Math.max(b.replicaState?.replicaId ?? -1, b.replicaId ?? -1) >= 0;
  }
  return false;
}

/** What the dispatcher asks of the node's request_percentage quotas. */
export interface RequestQuota {
  /** Whether any entity has a request_percentage quota (the metering hook follows it). */
  active(): boolean;
  /** Records the request's event-loop time; its throttle time in ms, 0 for none. */
  recordAndGetThrottleTimeMs(ctx: Pick<RequestContext, 'principal' | 'clientId'>, ms: number): number;
}
