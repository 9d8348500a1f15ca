// RequestMetrics' RemoteTimeMs: the time a request spent parked in a purgatory (an acks=all Produce
// waiting for the ISR, a Fetch waiting for min bytes), by connection: a connection has one request in
// flight, so what its parked operations waited belongs to that request. The purgatory adds on
// completion; the connection takes it when the request's response is written.

const parkedMs = new Map<string, number>();

export function addRemoteTime(connectionId: string, ms: number): void {
  parkedMs.set(connectionId, (parkedMs.get(connectionId) ?? 0) + ms);
}

/** The parked time of the connection's current request (0 when it never waited), and forgets it. */
export function takeRemoteTime(connectionId: string): number {
  const ms = parkedMs.get(connectionId);
  if (ms === undefined) return 0;
  parkedMs.delete(connectionId);
  return ms;
}
