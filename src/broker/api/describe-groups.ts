// DescribeGroups (API 15), v0-6: state, protocol type, the chosen protocol (Stable groups only) and
// members of classic groups; a group that does not exist (or is not a classic group) is "Dead" with
// no error before v6 and with GROUP_ID_NOT_FOUND from v6 on (KIP-1043). v3+ may ask for the
// authorized operations (all of a group's with no authorizer).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeGroupsRequest,
  DescribeGroupsResponse,
} from '../../protocol/generated/protocol/DescribeGroups.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

/** AclEntry.supportedOperations(GROUP): READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS. */
const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 8) | (1 << 6) | (1 << 10) | (1 << 11);

async function handle(
  ctx: RequestContext,
  req: DescribeGroupsRequest,
  services: BrokerServices,
): Promise<Input<DescribeGroupsResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  const described = await coordinator.describeGroups(req.groups, ctx.apiVersion);
  const ops =
    ctx.apiVersion >= 3 && req.includeAuthorizedOperations
      ? GROUP_AUTHORIZED_OPERATIONS
      : AUTHORIZED_OPERATIONS_OMITTED;
  return { throttleTimeMs: 0, groups: described.map((g) => ({ ...g, authorizedOperations: ops })) };
}

export const handler: ApiHandler<BrokerServices, DescribeGroupsRequest, Input<DescribeGroupsResponse>> = {
  apiKey: ApiKey.DescribeGroups,
  minVersion: 0,
  maxVersion: 6,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
