// DeleteShareGroupOffsets (API 92), v0 (Kafka 4.4): deletes the share-partition state of topics of an
// empty share group (kafka-share-groups --delete-offsets). KafkaApis.handleDeleteShareGroupOffsetsRequest:
// UNSUPPORTED_VERSION while share.version is off, GROUP_AUTHORIZATION_FAILED without DELETE on the group,
// TOPIC_AUTHORIZATION_FAILED for topics without READ; the coordinator answers NON_EMPTY_GROUP for a
// group with members and UNKNOWN_TOPIC_OR_PARTITION for topics without state.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DeleteShareGroupOffsetsRequest,
  DeleteShareGroupOffsetsResponse,
} from '../../protocol/generated/protocol/DeleteShareGroupOffsets.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: DeleteShareGroupOffsetsRequest,
  services: BrokerServices,
): Promise<Input<DeleteShareGroupOffsetsResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  const top = (code: number): Input<DeleteShareGroupOffsetsResponse> => ({
    throttleTimeMs: 0,
    errorCode: code,
    errorMessage: errorInfo(code).message,
    responses: [],
  });
  if (!coordinator.shareGroupsEnabled) return top(ErrorCode.UNSUPPORTED_VERSION);
  if (!authorize(services, ctx, AclOperation.DELETE, ResourceType.GROUP, req.groupId))
    return top(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const names = req.topics.map((t) => t.topicName);
  const allowed = names.filter((t) => authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, t));
  const denied = names.filter((t) => !allowed.includes(t));
  const r = await coordinator.deleteShareGroupOffsets(req.groupId, allowed);
  const code = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    responses: [
      ...r.responses,
      ...denied.map((topicName) => ({
        topicName,
        topicId: ZERO_UUID,
        errorCode: code,
        errorMessage: errorInfo(code).message,
      })),
    ],
  };
}

export const handler: ApiHandler<
  BrokerServices,
  DeleteShareGroupOffsetsRequest,
  Input<DeleteShareGroupOffsetsResponse>
> = {
  apiKey: ApiKey.DeleteShareGroupOffsets,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
