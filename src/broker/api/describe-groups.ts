// DescribeGroups (API 15), v0-6: state, protocol type, the chosen protocol (Stable groups only) and
// members of classic groups; a group that does not exist (or is not a classic group) is "Dead" with
// no error before v6 and with GROUP_ID_NOT_FOUND from v6 on (KIP-1043). v3+ may ask for the
// authorized operations (all of a group's with no authorizer).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeGroupsRequest,
  DescribeGroupsResponse,
} from '../../protocol/generated/protocol/DescribeGroups.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupAuthorizedOperations, describeGroupsError as groupError } from './authz-groups.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: DescribeGroupsRequest,
  services: BrokerServices,
): Promise<Input<DescribeGroupsResponse>> {
  // KafkaApis: groups without DESCRIBE answer GROUP_AUTHORIZATION_FAILED (DescribeGroupsResponse.groupError),
  // ahead of the described ones
  const denied: Input<DescribeGroupsResponse>['groups'] = [];
  const allowed: string[] = [];
  for (const groupId of req.groups) {
    if (authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) allowed.push(groupId);
    else denied.push(groupError(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED));
  }
  const coordinator = await groupCoordinatorOf(services);
  const described = allowed.length > 0 ? await coordinator.describeGroups(allowed, ctx.apiVersion) : [];
  const withOps = ctx.apiVersion >= 3 && req.includeAuthorizedOperations;
  // the principal's operations on each group described without error (AuthHelper.authorizedOperations)
  const opsOf = (groupId: string, errorCode: number): number =>
    !withOps
      ? AUTHORIZED_OPERATIONS_OMITTED
      : errorCode !== ErrorCode.NONE
        ? AUTHORIZED_OPERATIONS_OMITTED
        : groupAuthorizedOperations(services, ctx, groupId);
  return {
    throttleTimeMs: 0,
    groups: [...denied, ...described.map((g) => ({ ...g, authorizedOperations: opsOf(g.groupId, g.errorCode) }))],
  };
}

export const handler: ApiHandler<BrokerServices, DescribeGroupsRequest, Input<DescribeGroupsResponse>> = {
  apiKey: ApiKey.DescribeGroups,
  minVersion: 0,
  maxVersion: 6,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
