// The election state of one KRaft replica (Kafka's QuorumState and its EpochState subclasses:
// UnattachedState, ProspectiveState, CandidateState, LeaderState, FollowerState, ResignedState).
//
// Every transition is durable: the new ElectionState is written to `quorum-state` (tmp + fsync +
// rename) before it takes effect, as QuorumState.durableTransitionTo does, so a replica never
// forgets a vote or an epoch it has acted on. Prospective (KIP-996 pre-vote) keeps the epoch, the
// leader and the vote of the state before it, so its ElectionState is the one already stored: it
// takes effect in memory only (QuorumState.transitionToProspective's memoryTransitionTo), one
// quorum-state write less per election, a restart's included.
//
// The owner (raft-client.ts) calls every method from its serial queue: nothing here interleaves.

import { ZERO_UUID } from '../../protocol/uuid.js';
import { writeQuorumState, type ElectionState } from '../../storage/quorum-state.js';
import type { OffsetAndEpoch, RaftEndpoint } from './types.js';

export type StateName = 'Unattached' | 'Prospective' | 'Candidate' | 'Leader' | 'Follower' | 'Resigned';

/** A replica's identity (ReplicaKey): directoryId ZERO_UUID means "unknown" (kraft.version 0). */
export interface ReplicaKey {
  readonly id: number;
  readonly directoryId: string;
}

/** Votes gathered by a nominee (Prospective or Candidate): Kafka's EpochElection. */
export class EpochElection {
  readonly granted = new Set<number>();
  readonly rejected = new Set<number>();
  constructor(readonly voterIds: readonly number[]) {}

  private get majority(): number {
    return Math.floor(this.voterIds.length / 2) + 1;
  }
  record(id: number, granted: boolean): void {
    if (!this.voterIds.includes(id)) return;
    if (granted) {
      this.rejected.delete(id);
      this.granted.add(id);
    } else if (!this.granted.has(id)) this.rejected.add(id);
  }
  isVoteGranted(): boolean {
    return this.granted.size >= this.majority;
  }
  /** No majority is possible any more. */
  isVoteRejected(): boolean {
    return this.voterIds.length - this.rejected.size < this.majority;
  }
  unrecordedVoters(): number[] {
    return this.voterIds.filter((id) => !this.granted.has(id) && !this.rejected.has(id));
  }
}

export interface EpochState {
  readonly name: StateName;
  readonly epoch: number;
  /** -1 when no leader is known. */
  readonly leaderId: number;
  readonly leaderEndpoints: readonly RaftEndpoint[];
  /** The replica this node voted for in `epoch` (Unattached, Prospective, Candidate, Follower). */
  readonly votedKey: ReplicaKey | null;
  /** Prospective and Candidate only. */
  readonly election: EpochElection | null;
  /** Follower only: a fetch to the leader succeeded in this epoch (FollowerState.hasFetchedFromLeader). */
  hasFetchedFromLeader: boolean;
}

/** Is the candidate's log at least as long as ours (the Raft up-to-date rule on (epoch, offset))? */
export function isLogUpToDate(candidate: OffsetAndEpoch, local: OffsetAndEpoch): boolean {
  if (candidate.epoch !== local.epoch) return candidate.epoch > local.epoch;
  return candidate.offset >= local.offset;
}

export interface QuorumStateOptions {
  /** The `quorum-state` file. */
  readonly file: string;
  readonly localId: number;
  readonly localDirectoryId: string;
  /** quorum-state data_version: 0 with a static voter set, 1 with kraft.version 1. */
  readonly dataVersion: () => number;
  /** The current voter ids (static set or the latest VotersRecord). */
  readonly voterIds: () => readonly number[];
}

export class QuorumStateMachine {
  private current: EpochState;

  constructor(private readonly opts: QuorumStateOptions) {
    this.current = state('Unattached', 0, -1, [], null);
  }

  get state(): EpochState {
    return this.current;
  }
  get epoch(): number {
    return this.current.epoch;
  }
  get leaderId(): number {
    return this.current.leaderId;
  }
  get localId(): number {
    return this.opts.localId;
  }
  get localKey(): ReplicaKey {
    return { id: this.opts.localId, directoryId: this.opts.localDirectoryId };
  }
  is(name: StateName): boolean {
    return this.current.name === name;
  }
  isVoter(): boolean {
    return this.opts.voterIds().includes(this.opts.localId);
  }

  /**
   * QuorumState.initialize: the stored election state against the log's last epoch. A stored
   * leadership of this node becomes Resigned (it cannot know what it committed); an epoch behind
   * the log's becomes Unattached in the log's epoch; otherwise Unattached keeping the vote/leader.
   */
  async initialize(stored: ElectionState | null, logEnd: OffsetAndEpoch): Promise<void> {
    const epoch = stored?.leaderEpoch ?? 0;
    if (!stored || epoch < logEnd.epoch) {
      await this.transition(state('Unattached', Math.max(epoch, logEnd.epoch), -1, [], null));
      return;
    }
    if (stored.leaderId === this.opts.localId) {
      this.current = state('Resigned', epoch, this.opts.localId, [], null);
      return;
    }
    const voted = stored.votedId >= 0 ? { id: stored.votedId, directoryId: stored.votedDirectoryId } : null;
    this.current = state('Unattached', epoch, stored.leaderId, [], voted);
  }

  async toUnattached(epoch: number, leaderId = -1): Promise<void> {
    const voted = epoch === this.current.epoch && leaderId < 0 ? this.current.votedKey : null;
    await this.transition(state('Unattached', epoch, leaderId, [], voted));
  }

  /** Unattached/Prospective with no vote in `epoch` records a granted vote (unattachedAddVotedState). */
  async addVotedState(epoch: number, candidate: ReplicaKey): Promise<void> {
    const name = this.current.name === 'Prospective' && epoch === this.current.epoch ? 'Prospective' : 'Unattached';
    const election = name === 'Prospective' ? this.current.election : null;
    await this.transition(state(name, epoch, -1, [], candidate, election));
  }

  /** Pre-vote: same epoch, nothing new persisted beyond what the current state already holds. */
  async toProspective(): Promise<EpochElection> {
    const election = new EpochElection(this.opts.voterIds());
    const c = this.current;
    const leaderId = c.name === 'Follower' || c.name === 'Unattached' ? c.leaderId : -1;
    // QuorumState.votedKey(): a Candidate's is itself (CandidateState.election), kept so that a
    // Prospective never grants a standard vote to another replica in an epoch it voted in already
    this.current = state('Prospective', c.epoch, leaderId, c.leaderEndpoints, c.votedKey, election);
    election.record(this.opts.localId, true);
    return election;
  }

  /** Candidate in epoch+1, voting for itself. */
  async toCandidate(): Promise<EpochElection> {
    const election = new EpochElection(this.opts.voterIds());
    await this.transition(state('Candidate', this.current.epoch + 1, -1, [], this.localKey, election));
    election.record(this.opts.localId, true);
    return election;
  }

  async toLeader(endpoints: readonly RaftEndpoint[]): Promise<void> {
    await this.transition(state('Leader', this.current.epoch, this.opts.localId, endpoints, null));
  }

  async toFollower(epoch: number, leaderId: number, endpoints: readonly RaftEndpoint[]): Promise<void> {
    const voted = epoch === this.current.epoch ? this.current.votedKey : null;
    await this.transition(state('Follower', epoch, leaderId, endpoints, voted));
  }

  async toResigned(): Promise<void> {
    await this.transition(state('Resigned', this.current.epoch, this.opts.localId, this.current.leaderEndpoints, null));
  }

  /** EpochState.canGrantVote of the current state. */
  canGrantVote(candidate: ReplicaKey, logUpToDate: boolean, preVote: boolean): boolean {
    const c = this.current;
    switch (c.name) {
      case 'Leader':
        return false;
      case 'Candidate':
      case 'Resigned':
        return preVote && logUpToDate;
      case 'Follower':
        return preVote && !c.hasFetchedFromLeader && logUpToDate;
      case 'Unattached':
      case 'Prospective':
        if (preVote) return logUpToDate;
        if (c.votedKey) {
          if (c.votedKey.id !== candidate.id) return false;
          return c.votedKey.directoryId === ZERO_UUID || c.votedKey.directoryId === candidate.directoryId;
        }
        if (c.leaderId >= 0) return false;
        return logUpToDate;
    }
  }

  private async transition(next: EpochState): Promise<void> {
    const voted = next.votedKey;
    const persisted: ElectionState = {
      leaderEpoch: next.epoch,
      leaderId: next.leaderId,
      votedId: voted ? voted.id : -1,
      votedDirectoryId: voted ? voted.directoryId : ZERO_UUID,
      currentVoters: [...this.opts.voterIds()],
    };
    await writeQuorumState(this.opts.file, persisted, this.opts.dataVersion());
    this.current = next;
  }
}

function state(
  name: StateName,
  epoch: number,
  leaderId: number,
  leaderEndpoints: readonly RaftEndpoint[],
  votedKey: ReplicaKey | null,
  election: EpochElection | null = null,
): EpochState {
  return { name, epoch, leaderId, leaderEndpoints, votedKey, election, hasFetchedFromLeader: false };
}
