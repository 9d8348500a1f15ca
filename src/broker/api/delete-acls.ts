// DeleteAcls (API 31), v1-3, on controller listeners, forwarded from broker listeners
// (KafkaApis.maybeForwardToController → ControllerApis → AclApis.handleDeleteAcls): every filter
// fails with CLUSTER_AUTHORIZATION_FAILED without ALTER on the cluster, with SECURITY_DISABLED ("No
// Authorizer is configured.") without an authorizer; otherwise the controller removes the ACLs the
// filters match (controller/acls.ts) and answers them per filter. A filter with an UNKNOWN element is
// a request Kafka cannot parse (DeleteAclsRequest.normalizeAndValidate): the connection is closed.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { DeleteAclsRequest, DeleteAclsResponse } from '../../protocol/generated/protocol/DeleteAcls.js';
import { AclOperation } from '../../protocol/acl.js';
import { aclFilterOf } from '../controller/acls.js';
import type { BrokerServices } from '../services.js';
import { authorizeCluster, authorizerOf } from './authz.js';
import { CloseConnectionError, type ApiHandler, type RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { notAuthorizedMessage } from './authz-admin.js';

async function handle(
  ctx: RequestContext,
  req: DeleteAclsRequest,
  services: BrokerServices,
): Promise<DeleteAclsResponse> {
  for (const raw of req.filters) {
    const f = aclFilterOf(raw);
    if (f.patternType === 0 || f.resourceType === 0 || f.operation === 0 || f.permissionType === 0)
      throw new CloseConnectionError('Filters contain UNKNOWN elements');
  }
  const all = (errorCode: number, errorMessage: string | null): DeleteAclsResponse => ({
    throttleTimeMs: 0,
    filterResults: req.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
  });
  // authorizeClusterOperation's ClusterAuthorizationException: its message in every result
  if (!authorizeCluster(services, ctx, AclOperation.ALTER))
    return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, notAuthorizedMessage(ctx, AclOperation.ALTER));
  if (!authorizerOf(services)) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
  return { throttleTimeMs: 0, filterResults: await controllerOf(services).deleteAcls(req.filters) };
}

export const handler: ApiHandler<BrokerServices, DeleteAclsRequest, DeleteAclsResponse> = {
  apiKey: ApiKey.DeleteAcls,
  minVersion: 1,
  maxVersion: 3,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: (ctx, req, code) => genericErrorResponse(ctx, req, code) as unknown as DeleteAclsResponse,
};
