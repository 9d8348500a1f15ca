// ShareGroupHeartbeat (API 76), v1 (Kafka 4.4): the share group protocol of KIP-932 (see
// group/share-ops.ts): members bring their own member id, join with epoch 0 and their subscribed
// topic names, heartbeat with their epoch, leave with -1. KafkaApis.handleShareGroupHeartbeat:
// UNSUPPORTED_VERSION while share.version is not finalized at 1 or more, READ on the group, a member
// id of 1-36 characters, DESCRIBE on every subscribed topic, then the coordinator.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
} from '../../protocol/generated/protocol/ShareGroupHeartbeat.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf, requestInfoOf } from '../group/broker-glue.js';

/** ShareGroupHeartbeatRequest.getErrorResponse: the error code only. */
const errorOnly = (errorCode: number): Input<ShareGroupHeartbeatResponse> => ({ throttleTimeMs: 0, errorCode });

async function handle(
  ctx: RequestContext,
  req: ShareGroupHeartbeatRequest,
  services: BrokerServices,
): Promise<Input<ShareGroupHeartbeatResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  if (!coordinator.shareGroupsEnabled) return errorOnly(ErrorCode.UNSUPPORTED_VERSION);
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return errorOnly(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  // KafkaApis.isMemberIdValid
  if (req.memberId === '' || req.memberId.length > 36) return errorOnly(ErrorCode.INVALID_REQUEST);
  if (
    req.subscribedTopicNames !== null &&
    req.subscribedTopicNames.length > 0 &&
    req.subscribedTopicNames.some((t) => !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t))
  )
    return errorOnly(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  const r = await coordinator.shareGroupHeartbeat(
    {
      groupId: req.groupId,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      rackId: req.rackId,
      subscribedTopicNames: req.subscribedTopicNames,
    },
    requestInfoOf(ctx),
  );
  return { throttleTimeMs: 0, ...r };
}

export const handler: ApiHandler<BrokerServices, ShareGroupHeartbeatRequest, Input<ShareGroupHeartbeatResponse>> = {
  apiKey: ApiKey.ShareGroupHeartbeat,
  minVersion: 1,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
