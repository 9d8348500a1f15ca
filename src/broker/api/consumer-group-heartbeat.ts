// ConsumerGroupHeartbeat (API 68), v0-1: the KIP-848 consumer group protocol (see
// group/consumer-ops.ts): join with epoch 0, heartbeat with the current epoch and owned partitions,
// leave with -1 (-2: a static member leaving for now). v0 member ids come from the coordinator,
// v1 members bring their own (KIP-1082). UNSUPPORTED_VERSION when the protocol is disabled
// (group.coordinator.rebalance.protocols).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
} from '../../protocol/generated/protocol/ConsumerGroupHeartbeat.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, authorizerOf } from './authz.js';
import { canDescribeTopic } from './authz-groups.js';
import { groupCoordinatorOf, requestInfoOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: ConsumerGroupHeartbeatRequest,
  services: BrokerServices,
): Promise<Input<ConsumerGroupHeartbeatResponse>> {
  // KafkaApis: READ on the group, then (Kafka 4.4) DESCRIBE on every subscribed topic name, before the
  // coordinator validates the request
  // (a disabled consumer protocol is answered first: UNSUPPORTED_VERSION from the coordinator)
  const enabled = (services.config.getList?.('group.coordinator.rebalance.protocols') ?? ['consumer']).includes(
    'consumer',
  );
  if (enabled && !authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return genericErrorResponse(
      ctx,
      req,
      ErrorCode.GROUP_AUTHORIZATION_FAILED,
    ) as Input<ConsumerGroupHeartbeatResponse>;
  if (
    enabled &&
    req.subscribedTopicNames !== null &&
    req.subscribedTopicNames.some((t) => !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t))
  )
    return { throttleTimeMs: 0, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
  // throwIfConsumerGroupHeartbeatRequestIsInvalid's first check: from v1 every request carries a member id
  if (ctx.apiVersion >= 1 && req.memberId.trim() === '') {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.INVALID_REQUEST,
      errorMessage: "MemberId can't be empty.",
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
  }
  const coordinator = await groupCoordinatorOf(services);
  const r = await coordinator.consumerGroupHeartbeat(
    {
      groupId: req.groupId,
      memberId: req.memberId,
      memberEpoch: req.memberEpoch,
      instanceId: req.instanceId,
      rackId: req.rackId,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      subscribedTopicNames: req.subscribedTopicNames,
      subscribedTopicRegex: req.subscribedTopicRegex,
      serverAssignor: req.serverAssignor,
      topicPartitions: req.topicPartitions,
    },
    {
      ...requestInfoOf(ctx),
      // with an authorizer, regex subscriptions resolve to the topics the principal may DESCRIBE
      ...(authorizerOf(services)
        ? { describableTopic: (topic: string) => canDescribeTopic(services, ctx, topic) }
        : {}),
    },
  );
  return { throttleTimeMs: 0, ...r };
}

export const handler: ApiHandler<
  BrokerServices,
  ConsumerGroupHeartbeatRequest,
  Input<ConsumerGroupHeartbeatResponse>
> = {
  apiKey: ApiKey.ConsumerGroupHeartbeat,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
