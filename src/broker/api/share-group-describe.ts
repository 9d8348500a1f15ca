// ShareGroupDescribe (API 77), v1 (Kafka 4.4): share groups' state (Empty, Stable), group and
// assignment epochs, the assignor ("simple") and each member's subscription and assignment.
// KafkaApis.handleShareGroupDescribe: every group UNSUPPORTED_VERSION (with Errors' message) while
// share.version is off; groups without DESCRIBE answer GROUP_AUTHORIZATION_FAILED ahead of the
// described ones; a group assigning a topic the principal may not DESCRIBE answers
// TOPIC_AUTHORIZATION_FAILED; GROUP_ID_NOT_FOUND for unknown groups and groups of another type.
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
import { AclOperation, ResourceType, authorizerOf } from './authz.js';
import { canDescribeTopic, groupAuthorizedOperations, partitionByAuthorized } from './authz-groups.js';
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
  // (KafkaApis sets only the group id and the code here)
  const denied: Group[] = unauthorized.map((groupId) => ({
    groupId,
    errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    members: [],
  }));
  const described = authorized.length > 0 ? await coordinator.shareGroupDescribe(authorized) : [];
  const groups: Group[] = described.map((g) => ({
    ...g,
    authorizedOperations:
      req.includeAuthorizedOperations && g.errorCode === ErrorCode.NONE
        ? groupAuthorizedOperations(services, ctx, g.groupId)
        : AUTHORIZED_OPERATIONS_OMITTED,
  }));
  // with an authorizer, a group whose members are assigned a topic the principal may not DESCRIBE answers
  // TOPIC_AUTHORIZATION_FAILED and nothing else
  const out: Group[] = !authorizerOf(services)
    ? groups
    : groups.map((g) =>
        (g.members ?? []).some((m) =>
          (m.assignment?.topicPartitions ?? []).some((tp) => !canDescribeTopic(services, ctx, tp.topicName ?? '')),
        )
          ? {
              groupId: g.groupId,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
              errorMessage: 'The group has described topic(s) that the client is not authorized to describe.',
              members: [],
            }
          : g,
      );
  return { throttleTimeMs: 0, groups: [...denied, ...out] };
}

export const handler: ApiHandler<BrokerServices, ShareGroupDescribeRequest, Input<ShareGroupDescribeResponse>> = {
  apiKey: ApiKey.ShareGroupDescribe,
  minVersion: 1,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
