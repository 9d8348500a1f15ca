// The leader's view of how far every replica has fetched, for one leader epoch (Kafka's LeaderState
// voter/observer ReplicaState tracking and maybeUpdateHighWatermark):
// - voters are keyed by id (and directory id when the voter set knows it); anyone else that fetches
//   is an observer, forgotten after OBSERVER_SESSION_TIMEOUT_MS without a fetch;
// - a fetch at offset O says the replica's log ends at O: its lastFetchTimestamp is now, and it is
//   caught up (lastCaughtUpTimestamp) when O reaches the leader's end offset, or reaches the end
//   offset the leader had at the replica's previous fetch (then as of that previous fetch);
// - the high watermark is the end offset of the median voter (voters sorted by descending end
//   offset, index size/2), and only once it is past the epoch start offset (the epoch's first
//   batch is committed); it never moves back.

import { ZERO_UUID } from '../../protocol/uuid.js';
import type { ReplicaDescription } from './types.js';

/** LeaderState.OBSERVER_SESSION_TIMEOUT_MS. */
export const OBSERVER_SESSION_TIMEOUT_MS = 300_000;

export interface ReplicaKey {
  readonly id: number;
  /** ZERO_UUID when unknown (static quorum / old fetchers). */
  readonly directoryId: string;
}

interface ReplicaState {
  key: ReplicaKey;
  /** -1 until the replica fetched (or, for the leader, appended). */
  endOffset: number;
  lastFetchTimestamp: number;
  lastFetchLeaderLogEndOffset: number;
  lastCaughtUpTimestamp: number;
  hasAcknowledgedLeader: boolean;
}

const newState = (key: ReplicaKey): ReplicaState => ({
  key,
  endOffset: -1,
  lastFetchTimestamp: -1,
  lastFetchLeaderLogEndOffset: -1,
  lastCaughtUpTimestamp: -1,
  hasAcknowledgedLeader: false,
});

const matches = (state: ReplicaKey, key: ReplicaKey): boolean =>
  state.id === key.id && (state.directoryId === ZERO_UUID || state.directoryId === key.directoryId);

export class ReplicaProgress {
  private readonly voterStates = new Map<number, ReplicaState>();
  private readonly observerStates = new Map<string, ReplicaState>();
  private hw = -1;

  /**
   * @param local the leader itself (must be one of `voters`)
   * @param voters the voter set of this epoch
   * @param epochStartOffset the log end offset when the epoch began (its LeaderChange batch's offset)
   */
  constructor(
    private readonly local: ReplicaKey,
    voters: readonly ReplicaKey[],
    readonly epochStartOffset: number,
  ) {
    for (const v of voters) this.voterStates.set(v.id, newState(v));
    if (!this.voterStates.has(local.id)) this.voterStates.set(local.id, newState(local));
  }

  /** Offset after the last committed record; -1 until the epoch's first batch is committed. */
  get highWatermark(): number {
    return this.hw;
  }

  get voterCount(): number {
    return this.voterStates.size;
  }

  isVoter(key: ReplicaKey): boolean {
    const s = this.voterStates.get(key.id);
    return s !== undefined && matches(s.key, key);
  }

  /** The leader's log end offset moved (an append). Returns whether the high watermark advanced. */
  updateLocal(logEndOffset: number): boolean {
    const s = this.voterStates.get(this.local.id)!;
    if (s.endOffset > logEndOffset) {
      throw new Error(`non-monotonic update of the local end offset: ${s.endOffset} -> ${logEndOffset}`);
    }
    s.endOffset = logEndOffset;
    return this.maybeUpdateHighWatermark();
  }

  /**
   * A replica fetched at `fetchOffset` (a valid offset on the leader's log). Returns whether the high
   * watermark advanced (only a voter's fetch can move it).
   */
  updateReplica(key: ReplicaKey, fetchOffset: number, now: number): boolean {
    if (key.id < 0) return false;
    if (key.id === this.local.id) throw new Error(`remote replica id ${key.id} matches the local leader id`);
    const state = this.stateFor(key);
    const leaderEnd = this.voterStates.get(this.local.id)!.endOffset;
    if (leaderEnd >= 0) {
      if (fetchOffset >= leaderEnd) state.lastCaughtUpTimestamp = Math.max(state.lastCaughtUpTimestamp, now);
      else if (state.lastFetchLeaderLogEndOffset > 0 && fetchOffset >= state.lastFetchLeaderLogEndOffset)
        state.lastCaughtUpTimestamp = Math.max(state.lastCaughtUpTimestamp, state.lastFetchTimestamp);
      state.lastFetchLeaderLogEndOffset = leaderEnd;
    }
    state.lastFetchTimestamp = Math.max(state.lastFetchTimestamp, now);
    state.endOffset = fetchOffset;
    state.hasAcknowledgedLeader = true;
    return this.isVoter(key) && this.maybeUpdateHighWatermark();
  }

  /**
   * The voter set changed (a VotersRecord appended in this epoch; LeaderState.updateLocalState): a
   * new voter keeps the progress it had as an observer, a removed voter becomes an observer. The
   * leader keeps its own entry (its end offset) even when the new set leaves it out; it resigns once
   * that set is committed.
   */
  updateVoters(voters: readonly ReplicaKey[]): void {
    const next = new Map<number, ReplicaState>();
    for (const v of voters) {
      const old = this.voterStates.get(v.id);
      if (old && matches(old.key, v)) {
        next.set(v.id, old);
        continue;
      }
      const k = `${v.id}:${v.directoryId}`;
      const observed = this.observerStates.get(k);
      this.observerStates.delete(k);
      next.set(v.id, observed ?? newState(v));
    }
    if (!next.has(this.local.id)) next.set(this.local.id, this.voterStates.get(this.local.id)!);
    for (const [id, s] of this.voterStates) {
      if (!next.has(id)) this.observerStates.set(`${s.key.id}:${s.key.directoryId}`, s);
    }
    this.voterStates.clear();
    for (const [id, s] of next) this.voterStates.set(id, s);
  }

  /** Whether a voter has fetched (or acknowledged) in this epoch. */
  hasAcknowledged(id: number): boolean {
    return this.voterStates.get(id)?.hasAcknowledgedLeader ?? false;
  }

  acknowledge(id: number): void {
    const s = this.voterStates.get(id);
    if (s) s.hasAcknowledgedLeader = true;
  }

  /** Voters other than the leader, most caught up first (LeaderState.nonLeaderVotersByDescendingFetchOffset). */
  followersByDescendingEndOffset(): ReplicaKey[] {
    return this.sortedVoters()
      .filter((s) => s.key.id !== this.local.id)
      .map((s) => s.key);
  }

  /** DescribeQuorum's CurrentVoters (the leader's timestamps are `now`). */
  describeVoters(now: number): ReplicaDescription[] {
    return [...this.voterStates.values()].map((s) => this.describe(s, now));
  }

  /** DescribeQuorum's Observers, after dropping those silent for OBSERVER_SESSION_TIMEOUT_MS. */
  describeObservers(now: number): ReplicaDescription[] {
    for (const [k, s] of this.observerStates) {
      if (now - s.lastFetchTimestamp >= OBSERVER_SESSION_TIMEOUT_MS) this.observerStates.delete(k);
    }
    return [...this.observerStates.values()].map((s) => this.describe(s, now));
  }

  private describe(s: ReplicaState, now: number): ReplicaDescription {
    const isLocal = s.key.id === this.local.id;
    return {
      replicaId: s.key.id,
      replicaDirectoryId: s.key.directoryId,
      logEndOffset: s.endOffset,
      lastFetchTimestamp: isLocal ? now : s.lastFetchTimestamp,
      lastCaughtUpTimestamp: isLocal ? now : s.lastCaughtUpTimestamp,
    };
  }

  private stateFor(key: ReplicaKey): ReplicaState {
    const v = this.voterStates.get(key.id);
    if (v && matches(v.key, key)) return v;
    const k = `${key.id}:${key.directoryId}`;
    let s = this.observerStates.get(k);
    if (!s) {
      s = newState(key);
      this.observerStates.set(k, s);
    }
    return s;
  }

  private sortedVoters(): ReplicaState[] {
    return [...this.voterStates.values()].sort((a, b) => {
      if (a.endOffset === b.endOffset) return a.key.id - b.key.id;
      if (a.endOffset < 0) return 1;
      if (b.endOffset < 0) return -1;
      return b.endOffset - a.endOffset;
    });
  }

  private maybeUpdateHighWatermark(): boolean {
    const sorted = this.sortedVoters();
    const candidate = sorted[Math.floor(this.voterStates.size / 2)]!.endOffset;
    if (candidate < 0 || candidate <= this.epochStartOffset) return false;
    if (candidate <= this.hw) return false;
    this.hw = candidate;
    return true;
  }
}
