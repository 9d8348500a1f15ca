// EndQuorumEpoch (API key 54), v0-1, on the controller listener only: KafkaRaftClient.handleEndQuorumEpochRequest, served by the
// raft client of this node (src/broker/raft/raft-client.ts). A node whose quorum takes no part in
// elections answers BROKER_NOT_AVAILABLE (RaftUtil.errorResponse), as a Kafka raft client that is
// shutting down does.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  EndQuorumEpochRequest,
  EndQuorumEpochResponse,
} from '../../protocol/generated/protocol/EndQuorumEpoch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { electionServerOf } from '../raft/election-rpc.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function errorResponse(errorCode: number): Input<EndQuorumEpochResponse> {
  return { errorCode, topics: [], nodeEndpoints: [] };
}

async function handle(
  _ctx: RequestContext,
  req: EndQuorumEpochRequest,
  services: BrokerServices,
): Promise<Input<EndQuorumEpochResponse>> {
  const server = electionServerOf(services.controller.quorum);
  if (!server) return errorResponse(ErrorCode.BROKER_NOT_AVAILABLE);
  return server.handleEndQuorumEpoch(req);
}

export const handler: ApiHandler<BrokerServices, EndQuorumEpochRequest, Input<EndQuorumEpochResponse>> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.EndQuorumEpoch,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => errorResponse(errorCode),
  },
);
