// LeaveGroup (API 13), v0-5: members leave a classic group, which rebalances. v0-2 name one member;
// v3+ a batch of members, by member id or (static members, KIP-345) by group.instance.id, each with
// its own error. Before v3 the single member's error is the top-level error.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { LeaveGroupRequest, LeaveGroupResponse } from '../../protocol/generated/protocol/LeaveGroup.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: LeaveGroupRequest,
  services: BrokerServices,
): Promise<Input<LeaveGroupResponse>> {
  // KafkaApis: READ on the group, else the request's error response (top level only) with GROUP_AUTHORIZATION_FAILED
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] }; // LeaveGroupRequest.getErrorResponse: top level only
  const v = ctx.apiVersion;
  const members =
    v >= 3
      ? req.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }))
      : [{ memberId: req.memberId, groupInstanceId: null }];
  const coordinator = await groupCoordinatorOf(services);
  const r = await coordinator.leaveGroup(req.groupId, members);
  if (v < 3) {
    const errorCode = r.errorCode !== ErrorCode.NONE ? r.errorCode : (r.members[0]?.errorCode ?? ErrorCode.NONE);
    return { throttleTimeMs: 0, errorCode, members: [] };
  }
  return { throttleTimeMs: 0, errorCode: r.errorCode, members: r.members };
}

export const handler: ApiHandler<BrokerServices, LeaveGroupRequest, Input<LeaveGroupResponse>> = {
  apiKey: ApiKey.LeaveGroup,
  minVersion: 0,
  maxVersion: 5,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
