// Heartbeat (API 12), v0-4: keeps a classic group member's session alive and tells it to rejoin
// (REBALANCE_IN_PROGRESS) while the group prepares a rebalance; ILLEGAL_GENERATION,
// UNKNOWN_MEMBER_ID and FENCED_INSTANCE_ID (v3+ static members) guard the generation.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { HeartbeatRequest, HeartbeatResponse } from '../../protocol/generated/protocol/Heartbeat.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { ErrorCode } from '../../protocol/errors.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: HeartbeatRequest,
  services: BrokerServices,
): Promise<Input<HeartbeatResponse>> {
  // KafkaApis: READ on the group, else the request's error response with GROUP_AUTHORIZATION_FAILED
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return genericErrorResponse(ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED) as Input<HeartbeatResponse>;
  const coordinator = await groupCoordinatorOf(services);
  const errorCode = await coordinator.heartbeat({
    groupId: req.groupId,
    generationId: req.generationId,
    memberId: req.memberId,
    groupInstanceId: ctx.apiVersion >= 3 ? req.groupInstanceId : null,
  });
  return { throttleTimeMs: 0, errorCode };
}

export const handler: ApiHandler<BrokerServices, HeartbeatRequest, Input<HeartbeatResponse>> = {
  apiKey: ApiKey.Heartbeat,
  minVersion: 0,
  maxVersion: 4,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
