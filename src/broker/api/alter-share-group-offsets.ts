// AlterShareGroupOffsets (API 91), v0 (Kafka 4.4): sets the start offsets of an empty share group's
// share-partitions (kafka-share-groups --reset-offsets). KafkaApis.handleAlterShareGroupOffsetsRequest:
// UNSUPPORTED_VERSION while share.version is off, GROUP_AUTHORIZATION_FAILED without READ on the group,
// TOPIC_AUTHORIZATION_FAILED per partition without READ on the topic; the coordinator answers
// NON_EMPTY_GROUP for a group with members and UNKNOWN_TOPIC_OR_PARTITION for unknown partitions.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  AlterShareGroupOffsetsRequest,
  AlterShareGroupOffsetsResponse,
} from '../../protocol/generated/protocol/AlterShareGroupOffsets.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: AlterShareGroupOffsetsRequest,
  services: BrokerServices,
): Promise<Input<AlterShareGroupOffsetsResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  const top = (code: number): Input<AlterShareGroupOffsetsResponse> => ({
    throttleTimeMs: 0,
    errorCode: code,
    errorMessage: errorInfo(code).message,
    responses: [],
  });
  if (!coordinator.shareGroupsEnabled) return top(ErrorCode.UNSUPPORTED_VERSION);
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return top(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const allowed = req.topics.filter((t) =>
    authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, t.topicName),
  );
  const denied = req.topics.filter((t) => !allowed.includes(t));
  const r = await coordinator.alterShareGroupOffsets(req.groupId, allowed);
  const code = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    responses: [
      ...r.responses,
      ...denied.map((t) => ({
        topicName: t.topicName,
        topicId: ZERO_UUID,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: code,
          errorMessage: errorInfo(code).message,
        })),
      })),
    ],
  };
}

export const handler: ApiHandler<
  BrokerServices,
  AlterShareGroupOffsetsRequest,
  Input<AlterShareGroupOffsetsResponse>
> = {
  apiKey: ApiKey.AlterShareGroupOffsets,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
