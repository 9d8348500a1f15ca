// StreamsGroupTopologyDescriptionUpdate (API 93), v0 (Kafka 4.4 advertises it): a member pushes its
// topology's description for a topology-description plugin (KIP-1071's follow-up). Kafka 4.4 without
// such a plugin configured (the default, and tkafka has none) answers UNSUPPORTED_VERSION with
// "The broker has no streams group topology description plugin configured." after KafkaApis' gate
// (UNSUPPORTED_VERSION while streams groups are off) and READ on the group; the errors carry
// ApiError's message (Errors' default text). Clients push only when a heartbeat answers
// TopologyDescriptionRequired, which tkafka never sets.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  StreamsGroupTopologyDescriptionUpdateRequest,
  StreamsGroupTopologyDescriptionUpdateResponse,
} from '../../protocol/generated/protocol/StreamsGroupTopologyDescriptionUpdate.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

type Response = Input<StreamsGroupTopologyDescriptionUpdateResponse>;

const error = (errorCode: number, errorMessage = errorInfo(errorCode).message): Response => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
});

async function handle(
  ctx: RequestContext,
  req: StreamsGroupTopologyDescriptionUpdateRequest,
  services: BrokerServices,
): Promise<Response> {
  const coordinator = await groupCoordinatorOf(services);
  if (!coordinator.streamsGroupsEnabled) return error(ErrorCode.UNSUPPORTED_VERSION);
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return error(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  // GroupCoordinatorService.streamsGroupTopologyDescriptionUpdate: throwIfStreamsGroupTopologyDescriptionUpdateInvalid
  return error(
    ErrorCode.UNSUPPORTED_VERSION,
    'The broker has no streams group topology description plugin configured.',
  );
}

export const handler: ApiHandler<BrokerServices, StreamsGroupTopologyDescriptionUpdateRequest, Response> = {
  apiKey: ApiKey.StreamsGroupTopologyDescriptionUpdate,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
