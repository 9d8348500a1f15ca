// The election RPCs a voter serves on its controller listener (KafkaRaftClient.handleVoteRequest,
// handleBeginQuorumEpochRequest, handleEndQuorumEpochRequest), as the API handlers see them. The
// cluster id, topic-partition, epoch and vote checks are the raft client's (raft-client.ts).

import type { Input } from '../../protocol/codec/types.js';
import type { VoteRequest, VoteResponse } from '../../protocol/generated/protocol/Vote.js';
import type {
  BeginQuorumEpochRequest,
  BeginQuorumEpochResponse,
} from '../../protocol/generated/protocol/BeginQuorumEpoch.js';
import type {
  EndQuorumEpochRequest,
  EndQuorumEpochResponse,
} from '../../protocol/generated/protocol/EndQuorumEpoch.js';
import type { Quorum } from './types.js';

export interface RaftElectionServer {
  handleVote(req: VoteRequest): Promise<Input<VoteResponse>>;
  handleBeginQuorumEpoch(req: BeginQuorumEpochRequest): Promise<Input<BeginQuorumEpochResponse>>;
  handleEndQuorumEpoch(req: EndQuorumEpochRequest): Promise<Input<EndQuorumEpochResponse>>;
}

/** The quorum's election server, or null when this node's quorum does not take part in elections. */
export function electionServerOf(quorum: Quorum): RaftElectionServer | null {
  const q = quorum as Quorum & Partial<RaftElectionServer>;
  return typeof q.handleVote === 'function' &&
    typeof q.handleBeginQuorumEpoch === 'function' &&
    typeof q.handleEndQuorumEpoch === 'function'
    ? (q as Quorum & RaftElectionServer)
    : null;
}
