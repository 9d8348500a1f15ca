// Registers the raft RPC handlers served on the controller listener: Fetch and FetchSnapshot of
// `__cluster_metadata`-0 (raft-fetch.ts, fetch-snapshot.ts). Vote, BeginQuorumEpoch,
// EndQuorumEpoch and the KIP-853 voter changes add one line each.
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as raftFetch } from './raft-fetch.js';
import { handler as fetchSnapshot } from './fetch-snapshot.js';
import { handler as vote } from './vote.js';
import { handler as beginQuorumEpoch } from './begin-quorum-epoch.js';
import { handler as endQuorumEpoch } from './end-quorum-epoch.js';
import { handler as addRaftVoter } from './add-raft-voter.js';
import { handler as removeRaftVoter } from './remove-raft-voter.js';
import { handler as updateRaftVoter } from './update-raft-voter.js';

export const RAFT_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  raftFetch,
  fetchSnapshot,
  vote,
  beginQuorumEpoch,
  endQuorumEpoch,
  addRaftVoter,
  removeRaftVoter,
  updateRaftVoter,
];

export function registerRaftHandlers(registry: HandlerRegistry): HandlerRegistry {
  for (const h of RAFT_HANDLERS) registry.register(h);
  return registry;
}
