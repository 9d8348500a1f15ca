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
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

/** ConsumerGroupDescribeResponse MemberType of a member using the consumer protocol. */
const CONSUMER_MEMBER = 1;

/** AclEntry.supportedOperations(GROUP): READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS. */
const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 8) | (1 << 6) | (1 << 10) | (1 << 11);

async function handle(
  _ctx: RequestContext,
  req: ConsumerGroupDescribeRequest,
  services: BrokerServices,
): Promise<Input<ConsumerGroupDescribeResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  const groups = await coordinator.consumerGroupDescribe(req.groupIds);
  const ops = req.includeAuthorizedOperations ? GROUP_AUTHORIZED_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED;
  return {
    throttleTimeMs: 0,
    groups: groups.map((g) => ({
      ...g,
      // a member the coordinator does not mark as classic (memberType 0) speaks the consumer protocol
      members: (g.members as Record<string, unknown>[]).map((m) => ({ memberType: CONSUMER_MEMBER, ...m })),
      authorizedOperations: ops,
    })),
  };
}

export const handler: ApiHandler<BrokerServices, ConsumerGroupDescribeRequest, Input<ConsumerGroupDescribeResponse>> = {
  apiKey: ApiKey.ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
