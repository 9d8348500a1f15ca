// ConsumerGroupDescribe (API 69), v0-1: KIP-848 groups: state (Empty, Assigning, Reconciling,
// Stable), group and assignment epochs, assignor, and each member's subscription, current and
// target assignment; v1 adds each member's MemberType (KIP-1099: 0 for a member using the classic
// protocol inside a consumer group, 1 for a consumer-protocol member, as ConsumerGroupMember
// .asConsumerGroupDescribeMember sets it). GROUP_ID_NOT_FOUND for unknown groups and for classic groups.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ConsumerGroupDescribeRequest,
  ConsumerGroupDescribeResponse,
} from '../../protocol/generated/protocol/ConsumerGroupDescribe.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorizerOf } from './authz.js';
import { canDescribeTopic, groupAuthorizedOperations, partitionByAuthorized } from './authz-groups.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

/** ConsumerGroupDescribeResponse MemberType of a member using the consumer protocol. */
const CONSUMER_MEMBER = 1;

/** The topic names of a described member's current and target assignments. */
function assignedTopics(member: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const key of ['assignment', 'targetAssignment']) {
    const a = member[key] as { topicPartitions?: { topicName: string }[] } | undefined;
    for (const tp of a?.topicPartitions ?? []) names.push(tp.topicName);
  }
  return names;
}

async function handle(
  ctx: RequestContext,
  req: ConsumerGroupDescribeRequest,
  services: BrokerServices,
): Promise<Input<ConsumerGroupDescribeResponse>> {
  // KafkaApis: a disabled consumer protocol (group.coordinator.rebalance.protocols) fails every group
  // with UNSUPPORTED_VERSION (ConsumerGroupDescribeRequest.getErrorResponse)
  if (!(services.config.getList?.('group.coordinator.rebalance.protocols') ?? ['consumer']).includes('consumer'))
    return genericErrorResponse(ctx, req, ErrorCode.UNSUPPORTED_VERSION) as Input<ConsumerGroupDescribeResponse>;
  // KafkaApis: groups without DESCRIBE answer GROUP_AUTHORIZATION_FAILED, ahead of the described ones
  const { authorized, unauthorized } = partitionByAuthorized(
    services,
    ctx,
    AclOperation.DESCRIBE,
    ResourceType.GROUP,
    req.groupIds,
    (g) => g,
  );
  const denied = unauthorized.map((groupId) => ({
    groupId,
    errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    members: [],
  }));
  const coordinator = await groupCoordinatorOf(services);
  const groups = authorized.length > 0 ? await coordinator.consumerGroupDescribe(authorized) : [];
  type Group = NonNullable<Input<ConsumerGroupDescribeResponse>['groups']>[number];
  const described: Group[] = groups.map((g) => ({
    ...g,
    // a member the coordinator does not mark as classic (memberType 0) speaks the consumer protocol
    members: (g.members as Record<string, unknown>[]).map((m) => ({ memberType: CONSUMER_MEMBER, ...m })),
    authorizedOperations: !req.includeAuthorizedOperations
      ? AUTHORIZED_OPERATIONS_OMITTED
      : g.errorCode === ErrorCode.NONE
        ? groupAuthorizedOperations(services, ctx, g.groupId as string)
        : AUTHORIZED_OPERATIONS_OMITTED,
  }));
  // Kafka 4.4: with an authorizer, a group whose members are assigned a topic the principal may not
  // DESCRIBE answers TOPIC_AUTHORIZATION_FAILED and nothing else
  const out: Group[] = !authorizerOf(services)
    ? described
    : described.map((g) =>
        ((g.members ?? []) as Record<string, unknown>[]).some((m) =>
          assignedTopics(m).some((t) => !canDescribeTopic(services, ctx, t)),
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

export const handler: ApiHandler<BrokerServices, ConsumerGroupDescribeRequest, Input<ConsumerGroupDescribeResponse>> = {
  apiKey: ApiKey.ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
