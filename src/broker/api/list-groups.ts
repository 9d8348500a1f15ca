// ListGroups (API 16), v0-5: the groups of every coordinator shard this node owns, with their
// state (v4+, statesFilter, case-insensitive) and type (v5+, typesFilter: classic, consumer).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { ListGroupsRequest, ListGroupsResponse } from '../../protocol/generated/protocol/ListGroups.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: ListGroupsRequest,
  services: BrokerServices,
): Promise<Input<ListGroupsResponse>> {
  const v = ctx.apiVersion;
  const coordinator = await groupCoordinatorOf(services);
  // KafkaApis: DESCRIBE on the cluster lists every group, else only those the principal may DESCRIBE
  const hasClusterDescribe = authorizeCluster(services, ctx, AclOperation.DESCRIBE);
  const r = await coordinator.listGroups(v >= 4 ? req.statesFilter : [], v >= 5 ? req.typesFilter : []);
  const groups = hasClusterDescribe
    ? r.groups
    : r.groups.filter((g) => authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId));
  return { throttleTimeMs: 0, errorCode: r.errorCode, groups };
}

export const handler: ApiHandler<BrokerServices, ListGroupsRequest, Input<ListGroupsResponse>> = {
  apiKey: ApiKey.ListGroups,
  minVersion: 0,
  maxVersion: 5,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
