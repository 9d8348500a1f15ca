// RemoveRaftVoter (API 81, v0; KIP-853) on the controller and broker listeners: KafkaRaftClient
// handleRemoveVoterRequest (cluster id check here, the leader-side logic in raft/voter-changes.ts);
// forwarded to the active controller from a broker-only node.
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  RemoveRaftVoterRequest,
  RemoveRaftVoterResponse,
} from '../../protocol/generated/protocol/RemoveRaftVoter.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { clusterIdError, voterChangesOf } from './add-raft-voter.js';
import { AclOperation, requireCluster } from './authz-admin.js';

const errorResponse = (errorCode: number, errorMessage: string | null = null): RemoveRaftVoterResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
});

async function handle(
  ctx: RequestContext,
  req: RemoveRaftVoterRequest,
  services: BrokerServices,
): Promise<RemoveRaftVoterResponse> {
  // a broker forwards it; a combined node answers it on its controller listener
  if (services.remote && !ctx.isControllerListener) {
    return (await services.remote.forwarding.forward(ctx, req, (code) =>
      errorResponse(code),
    )) as RemoveRaftVoterResponse;
  }
  const mismatch = clusterIdError(services, req.clusterId);
  if (mismatch !== null) return errorResponse(ErrorCode.INCONSISTENT_CLUSTER_ID, mismatch);
  const r = await voterChangesOf(services).removeVoter({
    voterId: req.voterId,
    voterDirectoryId: req.voterDirectoryId,
  });
  return errorResponse(r.errorCode, r.errorMessage);
}

export const handler: ApiHandler<BrokerServices, RemoveRaftVoterRequest, RemoveRaftVoterResponse> = requireCluster(
  {
    operations: [AclOperation.ALTER],
    message: 'default',
    skip: (ctx, services) => !!services.remote && !ctx.isControllerListener,
  },
  {
    apiKey: ApiKey.RemoveRaftVoter,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['controller', 'broker'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => errorResponse(errorCode),
  },
);
