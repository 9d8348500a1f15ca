// DescribeAcls (API 29), v1-3, on broker and controller listeners (AclApis.handleDescribeAcls):
// CLUSTER_AUTHORIZATION_FAILED without DESCRIBE on the cluster; SECURITY_DISABLED ("No Authorizer is
// configured on the broker") without an authorizer; otherwise the ACLs of the node's metadata image
// the filter matches (AclBindingFilter.matches), grouped by resource pattern
// (DescribeAclsResponse.aclsResources). Kafka groups in a HashMap whose order varies between JVM
// runs; tkafka lists patterns and entries in StandardAcl order. A filter with an UNKNOWN element is
// a request Kafka cannot parse (DescribeAclsRequest.normalizeAndValidate): the connection is closed.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  DescribeAclsRequest,
  DescribeAclsResponse,
  DescribeAclsResponseDescribeAclsResource as Resource,
} from '../../protocol/generated/protocol/DescribeAcls.js';
import {
  AclOperation,
  operationFromCode,
  patternTypeFromCode,
  permissionTypeFromCode,
  resourceTypeFromCode,
} from '../../protocol/acl.js';
import { type AclBinding, type AclBindingFilter } from '../authorizer/acl.js';
import type { BrokerServices } from '../services.js';
import { authorizeCluster, authorizerOf } from './authz.js';
import { CloseConnectionError, type ApiHandler, type RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { notAuthorizedMessage } from './authz-admin.js';

/** DescribeAclsRequest.filter. */
export function describeFilterOf(req: DescribeAclsRequest): AclBindingFilter {
  return {
    resourceType: resourceTypeFromCode(req.resourceTypeFilter),
    resourceName: req.resourceNameFilter,
    patternType: patternTypeFromCode(req.patternTypeFilter),
    principal: req.principalFilter,
    host: req.hostFilter,
    operation: operationFromCode(req.operation),
    permissionType: permissionTypeFromCode(req.permissionType),
  };
}

/** DescribeAclsResponse.aclsResources: the bindings grouped by (resource type, name, pattern type). */
export function aclsResources(acls: readonly AclBinding[]): Resource[] {
  const byPattern = new Map<string, Resource>();
  for (const a of acls) {
    const key = JSON.stringify([a.resourceType, a.resourceName, a.patternType]);
    let r = byPattern.get(key);
    if (!r) {
      r = { resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType, acls: [] };
      byPattern.set(key, r);
    }
    r.acls.push({ principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType });
  }
  return [...byPattern.values()];
}

function handle(ctx: RequestContext, req: DescribeAclsRequest, services: BrokerServices): DescribeAclsResponse {
  const filter = describeFilterOf(req);
  if (
    filter.resourceType === 0 ||
    filter.patternType === 0 ||
    filter.operation === AclOperation.UNKNOWN ||
    filter.permissionType === 0
  )
    throw new CloseConnectionError('DescribeAclsRequest contains UNKNOWN elements');
  const base = { throttleTimeMs: 0, resources: [] };
  if (!authorizeCluster(services, ctx, AclOperation.DESCRIBE))
    return {
      ...base,
      errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
      errorMessage: notAuthorizedMessage(ctx, AclOperation.DESCRIBE),
    };
  const authorizer = authorizerOf(services);
  if (!authorizer)
    return {
      ...base,
      errorCode: ErrorCode.SECURITY_DISABLED,
      errorMessage: 'No Authorizer is configured on the broker',
    };
  return {
    ...base,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    resources: aclsResources(authorizer.matching(filter)),
  };
}

export const handler: ApiHandler<BrokerServices, DescribeAclsRequest, DescribeAclsResponse> = {
  apiKey: ApiKey.DescribeAcls,
  minVersion: 1,
  maxVersion: 3,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: (ctx, req, code) => genericErrorResponse(ctx, req, code) as unknown as DescribeAclsResponse,
};
