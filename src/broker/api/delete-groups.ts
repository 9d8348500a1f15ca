// DeleteGroups (API 42), v0-3: deletes empty groups with their offsets (tombstones in
// __consumer_offsets): NON_EMPTY_GROUP while members remain, GROUP_ID_NOT_FOUND for unknown groups.
// v3 adds a per-group ErrorMessage, which Kafka 4.4 fills only for GROUP_DELETION_FAILED from a
// streams-group topology plugin (no streams groups here, so it stays null).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from '../../protocol/generated/protocol/DeleteGroups.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType } from './authz.js';
import { partitionByAuthorized } from './authz-groups.js';
import { ErrorCode } from '../../protocol/errors.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: DeleteGroupsRequest,
  services: BrokerServices,
): Promise<Input<DeleteGroupsResponse>> {
  // KafkaApis: DELETE on each (distinct) group; the denied ones answer GROUP_AUTHORIZATION_FAILED after the others
  const { authorized, unauthorized } = partitionByAuthorized(
    services,
    ctx,
    AclOperation.DELETE,
    ResourceType.GROUP,
    [...new Set(req.groupsNames)],
    (g) => g,
  );
  const coordinator = await groupCoordinatorOf(services);
  const results = authorized.length > 0 ? await coordinator.deleteGroups(authorized) : [];
  const denied = unauthorized.map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }));
  return { throttleTimeMs: 0, results: [...results, ...denied] };
}

export const handler: ApiHandler<BrokerServices, DeleteGroupsRequest, Input<DeleteGroupsResponse>> = {
  apiKey: ApiKey.DeleteGroups,
  minVersion: 0,
  maxVersion: 3,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
