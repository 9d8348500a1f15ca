// CreateAcls (API 30), v1-3, on controller listeners, forwarded from broker listeners
// (KafkaApis.maybeForwardToController → ControllerApis → AclApis.handleCreateAcls): every creation
// fails with CLUSTER_AUTHORIZATION_FAILED without ALTER on the cluster, with SECURITY_DISABLED ("No
// Authorizer is configured.") without an authorizer; otherwise the controller checks each binding
// and writes its AccessControlEntryRecord (controller/acls.ts). A creation with an UNKNOWN element is
// a request Kafka cannot parse (CreateAclsRequest.validate): the connection is closed.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { CreateAclsRequest, CreateAclsResponse } from '../../protocol/generated/protocol/CreateAcls.js';
import { AclOperation } from '../../protocol/acl.js';
import { aclBindingOf } from '../controller/acls.js';
import type { BrokerServices } from '../services.js';
import { authorizeCluster, authorizerOf } from './authz.js';
import { CloseConnectionError, type ApiHandler, type RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { notAuthorizedMessage } from './authz-admin.js';

async function handle(
  ctx: RequestContext,
  req: CreateAclsRequest,
  services: BrokerServices,
): Promise<CreateAclsResponse> {
  for (const c of req.creations) {
    const b = aclBindingOf(c);
    if (b.patternType === 0 || b.resourceType === 0 || b.permissionType === 0 || b.operation === 0)
      throw new CloseConnectionError('CreatableAcls contain unknown elements');
  }
  const all = (errorCode: number, errorMessage: string | null): CreateAclsResponse => ({
    throttleTimeMs: 0,
    results: req.creations.map(() => ({ errorCode, errorMessage })),
  });
  // authorizeClusterOperation's ClusterAuthorizationException: its message in every result
  if (!authorizeCluster(services, ctx, AclOperation.ALTER))
    return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, notAuthorizedMessage(ctx, AclOperation.ALTER));
  if (!authorizerOf(services)) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
  return { throttleTimeMs: 0, results: await controllerOf(services).createAcls(req.creations) };
}

export const handler: ApiHandler<BrokerServices, CreateAclsRequest, CreateAclsResponse> = {
  apiKey: ApiKey.CreateAcls,
  minVersion: 1,
  maxVersion: 3,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: (ctx, req, code) => genericErrorResponse(ctx, req, code) as unknown as CreateAclsResponse,
};
