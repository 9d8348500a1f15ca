// Vote (API key 52), v0-2, on the controller listener only: KafkaRaftClient.handleVoteRequest, served by the
// raft client of this node (src/broker/raft/raft-client.ts). A node whose quorum takes no part in
// elections answers BROKER_NOT_AVAILABLE (RaftUtil.errorResponse), as a Kafka raft client that is
// shutting down does.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { VoteRequest, VoteResponse } from '../../protocol/generated/protocol/Vote.js';
import { ErrorCode } from '../../protocol/errors.js';
import { electionServerOf } from '../raft/election-rpc.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function errorResponse(errorCode: number): Input<VoteResponse> {
  return { errorCode, topics: [], nodeEndpoints: [] };
}

async function handle(_ctx: RequestContext, req: VoteRequest, services: BrokerServices): Promise<Input<VoteResponse>> {
  const server = electionServerOf(services.controller.quorum);
  if (!server) return errorResponse(ErrorCode.BROKER_NOT_AVAILABLE);
  return server.handleVote(req);
}

export const handler: ApiHandler<BrokerServices, VoteRequest, Input<VoteResponse>> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.Vote,
    minVersion: 0,
    maxVersion: 2,
    listeners: ['controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => errorResponse(errorCode),
  },
);
