// What a leader knows of one follower (Kafka's org.apache.kafka.server.replica.Replica and
// ReplicaState): its log end and start offsets as its fetches say, when it was last caught up, and the
// broker epoch it fetched with (KIP-903). -1 is "unknown", as UnifiedLog.UNKNOWN_OFFSET.

export const UNKNOWN_OFFSET = -1;

export class ReplicaState {
  logEndOffset = UNKNOWN_OFFSET;
  logStartOffset = UNKNOWN_OFFSET;
  /** the leader's log end offset at the follower's previous fetch */
  lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
  lastFetchTimeMs = 0;
  lastCaughtUpTimeMs = 0;
  /** the broker epoch of the last fetch (-1: sent none, Fetch < v15); undefined before any fetch */
  brokerEpoch: number | undefined;

  constructor(readonly brokerId: number) {}

  /**
   * Replica.updateFetchStateOrThrow: a fetch at `fetchOffset` while the leader's log ended at
   * `leaderEndOffset`. Caught up now when it fetched the leader's end; caught up as of its previous
   * fetch when it reached what the leader had then.
   */
  updateFetchState(
    fetchOffset: number,
    startOffset: number,
    fetchTimeMs: number,
    leaderEndOffset: number,
    brokerEpoch: number,
  ): void {
    if (fetchOffset >= leaderEndOffset) this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, fetchTimeMs);
    else if (fetchOffset >= this.lastFetchLeaderLogEndOffset)
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, this.lastFetchTimeMs);
    this.logStartOffset = startOffset;
    this.logEndOffset = fetchOffset;
    this.lastFetchLeaderLogEndOffset = Math.max(leaderEndOffset, this.lastFetchLeaderLogEndOffset);
    this.lastFetchTimeMs = fetchTimeMs;
    this.brokerEpoch = brokerEpoch;
  }

  /**
   * Replica.resetReplicaState: a new leader (or a replica that was not a follower before) forgets
   * the follower's offsets; an in-sync follower counts as caught up now, others as never.
   */
  reset(nowMs: number, leaderEndOffset: number, isNewLeader: boolean, inSync: boolean): void {
    this.lastCaughtUpTimeMs = inSync ? nowMs : 0;
    if (isNewLeader) {
      this.logEndOffset = UNKNOWN_OFFSET;
      this.logStartOffset = UNKNOWN_OFFSET;
      this.lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
      this.lastFetchTimeMs = 0;
      this.brokerEpoch = undefined;
    } else {
      this.lastFetchLeaderLogEndOffset = leaderEndOffset;
      this.lastFetchTimeMs = inSync ? nowMs : 0;
    }
  }

  /** ReplicaState.isCaughtUp */
  isCaughtUp(leaderEndOffset: number, nowMs: number, maxLagMs: number): boolean {
    return leaderEndOffset === this.logEndOffset || nowMs - this.lastCaughtUpTimeMs <= maxLagMs;
  }
}
