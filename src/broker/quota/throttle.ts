// KIP-219 enforcement, the one place a throttle reaches the connection: a handler records the
// throttle time of its request (setRequestThrottle, next to the response's throttle_time_ms); the
// dispatcher, after the handler answered, calls throttle(connection, ms) and the response goes out at
// once; the connection is then muted: no further request of it is handled until the time has passed
// (Kafka's ChannelMuteState MUTED_AND_THROTTLED, ended by the ThrottledChannel's endThrottling).
// Kafka 4.4 answers every version at once and mutes (the pre-KIP-219 delayed responses are gone with
// Produce < v3 and Fetch < v4), so tkafka does the same for every version.
const requestThrottle = new WeakMap<object, number>();

/** The throttle time (ms) a handler computed for its request; the largest one counts. */
export function setRequestThrottle(ctx: object, ms: number): void {
  if (ms > 0) requestThrottle.set(ctx, Math.max(ms, requestThrottle.get(ctx) ?? 0));
}

/** The throttle time recorded for a request, 0 for none. */
export function requestThrottleOf(ctx: object): number {
  return requestThrottle.get(ctx) ?? 0;
}

const mutedUntil = new WeakMap<object, number>();

/** Mutes a connection for `ms` from now (a later throttle can only extend it). */
export function throttle(connection: object, ms: number): void {
  if (ms <= 0) return;
  const until = performance.now() + ms;
  if (until > (mutedUntil.get(connection) ?? 0)) mutedUntil.set(connection, until);
}

/** Resolves when the connection is no longer muted (at once when it is not). */
export function unmuted(connection: object): Promise<void> | null {
  const until = mutedUntil.get(connection);
  if (until === undefined) return null;
  const wait = until - performance.now();
  if (wait <= 0) {
    mutedUntil.delete(connection);
    return null;
  }
  return new Promise((resolve) => setTimeout(resolve, Math.ceil(wait))).then(() => {
    if ((mutedUntil.get(connection) ?? 0) <= performance.now()) mutedUntil.delete(connection);
    return unmuted(connection) ?? undefined;
  });
}
