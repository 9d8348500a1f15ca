// StreamsGroupDescribe (API 89), v0-1 (Kafka 4.4): streams groups' state (Empty, NotReady,
// Assigning, Reconciling, Stable), epochs, the topology (configured: partition counts of the
// internal topics), the assignor ("sticky") and each member's process, endpoint, tags, current and
// target tasks. KafkaApis.handleStreamsGroupDescribe: every group UNSUPPORTED_VERSION while the
// protocol is off; groups without DESCRIBE answer GROUP_AUTHORIZATION_FAILED ahead of the described
// ones; with an authorizer, a group whose topology names a topic the principal may not DESCRIBE
// answers TOPIC_AUTHORIZATION_FAILED. v1's IncludeTopologyDescription gets NOT_STORED (1).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  StreamsGroupDescribeRequest,
  StreamsGroupDescribeResponse,
} from '../../protocol/generated/protocol/StreamsGroupDescribe.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorizerOf } from './authz.js';
import { canDescribeTopic, groupAuthorizedOperations, partitionByAuthorized } from './authz-groups.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

type Group = NonNullable<Input<StreamsGroupDescribeResponse>['groups']>[number];

async function handle(
  ctx: RequestContext,
  req: StreamsGroupDescribeRequest,
  services: BrokerServices,
): Promise<Input<StreamsGroupDescribeResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  if (!coordinator.streamsGroupsEnabled)
    return {
      throttleTimeMs: 0,
      groups: req.groupIds.map((groupId) => ({
        groupId,
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        errorMessage: errorInfo(ErrorCode.UNSUPPORTED_VERSION).message,
        members: [],
      })),
    };
  const { authorized, unauthorized } = partitionByAuthorized(
    services,
    ctx,
    AclOperation.DESCRIBE,
    ResourceType.GROUP,
    req.groupIds,
    (g) => g,
  );
  const denied: Group[] = unauthorized.map((groupId) => ({
    groupId,
    errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    members: [],
  }));
  const described = authorized.length > 0 ? await coordinator.streamsGroupDescribe(authorized) : [];
  // Without a topology-description store (Kafka 4.4 ships none by default), a request that asks for
  // the description gets status 1 (NOT_STORED) for every group described without error.
  const groups: Group[] = described.map((g) => ({
    ...g,
    topologyDescriptionStatus: req.includeTopologyDescription && g.errorCode === ErrorCode.NONE ? 1 : 0,
    authorizedOperations:
      req.includeAuthorizedOperations && g.errorCode === ErrorCode.NONE
        ? groupAuthorizedOperations(services, ctx, g.groupId)
        : AUTHORIZED_OPERATIONS_OMITTED,
  }));
  const topicsOf = (g: Group): string[] =>
    (g.topology?.subtopologies ?? []).flatMap((s) => [
      ...(s.sourceTopics ?? []),
      ...(s.repartitionSinkTopics ?? []),
      ...(s.repartitionSourceTopics ?? []).map((t) => t.name ?? ''),
      ...(s.stateChangelogTopics ?? []).map((t) => t.name ?? ''),
    ]);
  const out: Group[] = !authorizerOf(services)
    ? groups
    : groups.map((g) =>
        topicsOf(g).some((t) => !canDescribeTopic(services, ctx, t))
          ? {
              groupId: g.groupId,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
              errorMessage: 'The described group uses topics that the client is not authorized to describe.',
              members: [],
            }
          : g,
      );
  return { throttleTimeMs: 0, groups: [...denied, ...out] };
}

export const handler: ApiHandler<BrokerServices, StreamsGroupDescribeRequest, Input<StreamsGroupDescribeResponse>> = {
  apiKey: ApiKey.StreamsGroupDescribe,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
