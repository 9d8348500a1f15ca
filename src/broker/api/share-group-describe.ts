// ShareGroupDescribe (API 77), v1 (Kafka 4.4): share groups' state (Empty, Stable), group and
// assignment epochs, the assignor ("simple") and each member's subscription and assignment.
// KafkaApis.handleShareGroupDescribe: every group UNSUPPORTED_VERSION (with Errors' message) while
// share.version is off; groups without DESCRIBE answer GROUP_AUTHORIZATION_FAILED ahead of the
// described ones; GROUP_ID_NOT_FOUND for unknown groups and groups of another type.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ShareGroupDescribeRequest,
  ShareGroupDescribeResponse,
} from '../../protocol/generated/protocol/ShareGroupDescribe.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType } from './authz.js';
import { groupAuthorizedOperations, partitionByAuthorized } from './authz-groups.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

type Group = NonNullable<Input<ShareGroupDescribeResponse>['groups']>[number];

/** ShareGroupDescribeRequest.getErrorResponse's entry for one group: the code and Errors' message. */
const errorGroup = (groupId: string, errorCode: number): Group => ({
  groupId,
  errorCode,
  errorMessage: errorInfo(errorCode).message,
  members: [],
});

async function handle(
  ctx: RequestContext,
  req: ShareGroupDescribeRequest,
  services: BrokerServices,
): Promise<Input<ShareGroupDescribeResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  if (!coordinator.shareGroupsEnabled)
    return { throttleTimeMs: 0, groups: req.groupIds.map((g) => errorGroup(g, ErrorCode.UNSUPPORTED_VERSION)) };
  const { authorized, unauthorized } = partitionByAuthorized(
    services,
    ctx,
    AclOperation.DESCRIBE,
    ResourceType.GROUP,
    req.groupIds,
    (g) => g,
  );
  const denied = unauthorized.map((g) => errorGroup(g, ErrorCode.GROUP_AUTHORIZATION_FAILED));
  const described = authorized.length > 0 ? await coordinator.shareGroupDescribe(authorized) : [];
  const groups: Group[] = described.map((g) => ({
    ...g,
    authorizedOperations:
      req.includeAuthorizedOperations && g.errorCode === ErrorCode.NONE
        ? groupAuthorizedOperations(services, ctx, g.groupId)
        : AUTHORIZED_OPERATIONS_OMITTED,
  }));
  return { throttleTimeMs: 0, groups: [...denied, ...groups] };
}

export const handler: ApiHandler<BrokerServices, ShareGroupDescribeRequest, Input<ShareGroupDescribeResponse>> = {
  apiKey: ApiKey.ShareGroupDescribe,
  minVersion: 1,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
