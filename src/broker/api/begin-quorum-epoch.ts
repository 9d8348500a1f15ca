// BeginQuorumEpoch (API key 53), v0-1, on the controller listener only: KafkaRaftClient.handleBeginQuorumEpochRequest, served by the
// raft client of this node (src/broker/raft/raft-client.ts). A node whose quorum takes no part in
// elections answers BROKER_NOT_AVAILABLE (RaftUtil.errorResponse), as a Kafka raft client that is
// shutting down does.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  BeginQuorumEpochRequest,
  BeginQuorumEpochResponse,
} from '../../protocol/generated/protocol/BeginQuorumEpoch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { electionServerOf } from '../raft/election-rpc.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function errorResponse(errorCode: number): Input<BeginQuorumEpochResponse> {
  return { errorCode, topics: [], nodeEndpoints: [] };
}

async function handle(
  _ctx: RequestContext,
  req: BeginQuorumEpochRequest,
  services: BrokerServices,
): Promise<Input<BeginQuorumEpochResponse>> {
  const server = electionServerOf(services.controller.quorum);
  if (!server) return errorResponse(ErrorCode.BROKER_NOT_AVAILABLE);
  return server.handleBeginQuorumEpoch(req);
}

export const handler: ApiHandler<
  BrokerServices,
  BeginQuorumEpochRequest,
  Input<BeginQuorumEpochResponse>
> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.BeginQuorumEpoch,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => errorResponse(errorCode),
  },
);
