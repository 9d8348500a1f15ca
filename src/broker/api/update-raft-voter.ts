// UpdateRaftVoter (API 82, v0; KIP-853) on the controller listener: a voter telling the leader its
// endpoints and supported kraft.version range at start-up (KafkaRaftClient handleUpdateVoterRequest:
// cluster id check here, the rest in raft/voter-changes.ts). The answer carries the current leader
// and its endpoint on the request's listener (RaftUtil.updateVoterResponse).
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  UpdateRaftVoterRequest,
  UpdateRaftVoterResponse,
} from '../../protocol/generated/protocol/UpdateRaftVoter.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { clusterIdError, voterChangesOf } from './add-raft-voter.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function response(
  errorCode: number,
  leader: { leaderId: number; leaderEpoch: number; endpoint: { host: string; port: number } | null },
): UpdateRaftVoterResponse {
  return {
    throttleTimeMs: 0,
    errorCode,
    currentLeader: {
      leaderId: leader.leaderId,
      leaderEpoch: leader.leaderEpoch,
      host: leader.endpoint?.host ?? '',
      port: leader.endpoint?.port ?? -1,
    },
  };
}

async function handle(
  ctx: RequestContext,
  req: UpdateRaftVoterRequest,
  services: BrokerServices,
): Promise<UpdateRaftVoterResponse> {
  const quorum = services.controller.quorum;
  if (clusterIdError(services, req.clusterId) !== null) {
    const self = quorum.isLeader() ? quorum.voters.find((v) => v.id === quorum.nodeId) : undefined;
    const endpoint = self?.endpoints.find((e) => e.name === ctx.listenerName);
    return response(ErrorCode.INCONSISTENT_CLUSTER_ID, {
      leaderId: quorum.leaderId,
      leaderEpoch: quorum.leaderEpoch,
      endpoint: endpoint ? { host: endpoint.host, port: endpoint.port } : null,
    });
  }
  const r = await voterChangesOf(services).updateVoter({
    currentLeaderEpoch: req.currentLeaderEpoch,
    voterId: req.voterId,
    voterDirectoryId: req.voterDirectoryId,
    listeners: req.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port })),
    kraftVersion: {
      min: req.kRaftVersionFeature.minSupportedVersion,
      max: req.kRaftVersionFeature.maxSupportedVersion,
    },
    requestListener: ctx.listenerName,
  });
  return response(r.errorCode, { leaderId: r.leaderId, leaderEpoch: r.leaderEpoch, endpoint: r.leaderEndpoint });
}

export const handler: ApiHandler<BrokerServices, UpdateRaftVoterRequest, UpdateRaftVoterResponse> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.UpdateRaftVoter,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => response(errorCode, { leaderId: -1, leaderEpoch: -1, endpoint: null }),
  },
);
