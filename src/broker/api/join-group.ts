// JoinGroup (API 11), v0-9: the classic rebalance protocol's join phase (see group/classic-ops.ts).
// The response is parked until the join phase completes. v0 has no rebalance timeout (the session
// timeout stands in), v4+ requires a known member id (KIP-394), v5+ carries group.instance.id
// (KIP-345), v7+ protocol type and name (nullable), v9+ skipAssignment.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { JoinGroupRequest, JoinGroupResponse } from '../../protocol/generated/protocol/JoinGroup.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { ErrorCode } from '../../protocol/errors.js';
import { groupCoordinatorOf, requestInfoOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: JoinGroupRequest,
  services: BrokerServices,
): Promise<Input<JoinGroupResponse>> {
  // KafkaApis: READ on the group, else the request's error response with GROUP_AUTHORIZATION_FAILED
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return genericErrorResponse(ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED) as Input<JoinGroupResponse>;
  const v = ctx.apiVersion;
  const coordinator = await groupCoordinatorOf(services);
  const r = await coordinator.joinGroup(
    {
      groupId: req.groupId,
      sessionTimeoutMs: req.sessionTimeoutMs,
      rebalanceTimeoutMs: v === 0 ? req.sessionTimeoutMs : req.rebalanceTimeoutMs,
      memberId: req.memberId,
      groupInstanceId: v >= 5 ? req.groupInstanceId : null,
      protocolType: req.protocolType,
      protocols: req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
    },
    requestInfoOf(ctx),
  );
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    generationId: r.generationId,
    protocolType: r.protocolType,
    // before v7 the protocol name is not nullable
    protocolName: v < 7 ? (r.protocolName ?? '') : r.protocolName,
    leader: r.leader,
    skipAssignment: r.skipAssignment,
    memberId: r.memberId,
    members: r.members,
  };
}

export const handler: ApiHandler<BrokerServices, JoinGroupRequest, Input<JoinGroupResponse>> = {
  apiKey: ApiKey.JoinGroup,
  minVersion: 0,
  maxVersion: 9,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
