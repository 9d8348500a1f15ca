// AddRaftVoter (API 80, v0-1; KIP-853) on the controller and broker listeners: KafkaRaftClient
// handleAddVoterRequest (cluster id check here, the leader-side logic in raft/voter-changes.ts).
// A broker-only node forwards it to the active controller (KafkaApis.forwardToController: the API
// is forwardable in Kafka 4.4). `voterChangesOf` is shared by the three voter-change handlers.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { AddRaftVoterRequest, AddRaftVoterResponse } from '../../protocol/generated/protocol/AddRaftVoter.js';
import { ErrorCode } from '../../protocol/errors.js';
import { fixedVoterSetLeader, VoterChanges, type VoterChangeServer } from '../raft/voter-changes.js';
import type { Quorum } from '../raft/types.js';
import { nodeOutgoingSecurity } from '../security/outgoing.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, requireCluster } from './authz-admin.js';

/** One VoterChanges per quorum without its own (its pending change outlives a request). */
const fallbacks = new WeakMap<Quorum, VoterChangeServer>();

/** The voter-change logic of this node's quorum: its own, or one over its fixed voter set. */
export function voterChangesOf(services: BrokerServices): VoterChangeServer {
  const quorum = services.controller.quorum;
  if (quorum.voterChanges) return quorum.voterChanges;
  let v = fallbacks.get(quorum);
  if (!v) {
    v = new VoterChanges(
      fixedVoterSetLeader(quorum, {
        listenerName: services.config.controllerListenerNames[0] ?? 'CONTROLLER',
        requestTimeoutMs: services.config.getInt('controller.quorum.request.timeout.ms'),
        security: nodeOutgoingSecurity(services.config).controller,
      }),
    );
    fallbacks.set(quorum, v);
  }
  return v;
}

/** KafkaRaftClient.hasValidClusterId: a null id is accepted. */
export function clusterIdError(services: BrokerServices, clusterId: string | null): string | null {
  if (clusterId === null || clusterId === services.clusterId) return null;
  return `The given id "${clusterId}" doesn't match the cluster id "${services.clusterId}"`;
}

const errorResponse = (errorCode: number, errorMessage: string | null = null): AddRaftVoterResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
});

async function handle(
  ctx: RequestContext,
  req: AddRaftVoterRequest,
  services: BrokerServices,
): Promise<AddRaftVoterResponse> {
  // a broker forwards it; a combined node answers it on its controller listener
  if (services.remote && !ctx.isControllerListener) {
    return (await services.remote.forwarding.forward(ctx, req, (code) => errorResponse(code))) as AddRaftVoterResponse;
  }
  const mismatch = clusterIdError(services, req.clusterId);
  if (mismatch !== null) return errorResponse(ErrorCode.INCONSISTENT_CLUSTER_ID, mismatch);
  const r = await voterChangesOf(services).addVoter({
    voterId: req.voterId,
    voterDirectoryId: req.voterDirectoryId,
    listeners: req.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port })),
    // v0 has no AckWhenCommitted: its default, true
    ackWhenCommitted: ctx.apiVersion >= 1 ? req.ackWhenCommitted : true,
  });
  return errorResponse(r.errorCode, r.errorMessage);
}

export const handler: ApiHandler<BrokerServices, AddRaftVoterRequest, AddRaftVoterResponse> = requireCluster(
  {
    operations: [AclOperation.ALTER],
    message: 'default',
    skip: (ctx, services) => !!services.remote && !ctx.isControllerListener,
  },
  {
    apiKey: ApiKey.AddRaftVoter,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['controller', 'broker'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => errorResponse(errorCode),
  },
);
