// Election timing of a KRaft replica (QuorumConfig + the randomisation KafkaRaftClient applies):
// an election timeout is `controller.quorum.election.timeout.ms` plus a random share of it, so
// voters that lose their leader at the same time rarely become candidates together; a lost
// election backs off a random time below an exponentially growing bound capped by
// `controller.quorum.election.backoff.max.ms`.

export interface QuorumTimeouts {
  /** controller.quorum.election.timeout.ms (1000). */
  readonly electionTimeoutMs: number;
  /** controller.quorum.fetch.timeout.ms (2000). */
  readonly fetchTimeoutMs: number;
  /** controller.quorum.election.backoff.max.ms (1000). */
  readonly electionBackoffMaxMs: number;
  /** controller.quorum.request.timeout.ms (2000). */
  readonly requestTimeoutMs: number;
  /** controller.quorum.retry.backoff.ms (20). */
  readonly retryBackoffMs: number;
}

export const DEFAULT_QUORUM_TIMEOUTS: QuorumTimeouts = {
  electionTimeoutMs: 1000,
  fetchTimeoutMs: 2000,
  electionBackoffMaxMs: 1000,
  requestTimeoutMs: 2000,
  retryBackoffMs: 20,
};

/** QuorumState.randomElectionTimeoutMs: timeout + random[0, timeout). */
export function randomElectionTimeoutMs(t: QuorumTimeouts, random: () => number): number {
  if (t.electionTimeoutMs === 0) return 0;
  return t.electionTimeoutMs + Math.floor(random() * t.electionTimeoutMs);
}

/** KafkaRaftClient.binaryExponentialElectionBackoffMs: random below min(max, retryBackoff * 2^(n-1)). */
export function electionBackoffMs(t: QuorumTimeouts, retries: number, random: () => number): number {
  if (retries <= 0) return 0;
  const bound = Math.min(t.electionBackoffMaxMs, t.retryBackoffMs * 2 ** Math.min(30, retries - 1));
  return Math.floor(random() * Math.max(1, bound));
}

/** KafkaRaftClient.strictExponentialElectionBackoffMs: the backoff of the n-th preferred successor. */
export function strictElectionBackoffMs(t: QuorumTimeouts, position: number, total: number): number {
  if (position === 0) return 0;
  if (position > 0 && position < total) {
    const base = t.electionBackoffMaxMs >> (total - 1);
    return Math.min(t.electionBackoffMaxMs, base << (position - 1));
  }
  return t.electionBackoffMaxMs;
}

/** A deadline on the client's clock. */
export class Deadline {
  private at = Number.POSITIVE_INFINITY;
  constructor(private readonly now: () => number) {}
  reset(ms: number): void {
    this.at = this.now() + ms;
  }
  clear(): void {
    this.at = Number.POSITIVE_INFINITY;
  }
  remainingMs(): number {
    return Math.max(0, this.at - this.now());
  }
  expired(): boolean {
    return this.now() >= this.at;
  }
}
