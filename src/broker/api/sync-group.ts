// SyncGroup (API 14), v0-5: the leader's assignment reaches every member of the generation (see
// group/classic-ops.ts); followers' responses are parked until the leader's assignment is written.
// v3+ group.instance.id, v5+ protocol type and name (checked against the group's).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { SyncGroupRequest, SyncGroupResponse } from '../../protocol/generated/protocol/SyncGroup.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { ErrorCode } from '../../protocol/errors.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: SyncGroupRequest,
  services: BrokerServices,
): Promise<Input<SyncGroupResponse>> {
  // KafkaApis, before the ACL check: from v5 the protocol type and name are mandatory
  // (SyncGroupRequest.areMandatoryProtocolTypeAndNamePresent)
  if (ctx.apiVersion >= 5 && (req.protocolType === null || req.protocolName === null))
    return genericErrorResponse(ctx, req, ErrorCode.INCONSISTENT_GROUP_PROTOCOL) as Input<SyncGroupResponse>;
  // KafkaApis: READ on the group, else the request's error response with GROUP_AUTHORIZATION_FAILED
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return genericErrorResponse(ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED) as Input<SyncGroupResponse>;
  const v = ctx.apiVersion;
  const coordinator = await groupCoordinatorOf(services);
  const r = await coordinator.syncGroup({
    groupId: req.groupId,
    generationId: req.generationId,
    memberId: req.memberId,
    groupInstanceId: v >= 3 ? req.groupInstanceId : null,
    protocolType: v >= 5 ? req.protocolType : null,
    protocolName: v >= 5 ? req.protocolName : null,
    assignments: req.assignments.map((a) => ({ memberId: a.memberId, assignment: Buffer.from(a.assignment) })),
  });
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    protocolType: r.protocolType,
    protocolName: r.protocolName,
    assignment: r.assignment,
  };
}

export const handler: ApiHandler<BrokerServices, SyncGroupRequest, Input<SyncGroupResponse>> = {
  apiKey: ApiKey.SyncGroup,
  minVersion: 0,
  maxVersion: 5,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
