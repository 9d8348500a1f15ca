// What handlers call to authorize a request (Kafka's AuthHelper): with no authorizer configured
// every action is allowed (AuthHelper's `authorizer.forall`), otherwise the StandardAuthorizer of
// the node decides on the request's principal and client address. Which API checks what is listed
// in docs/notes/i18-authz.md.
import { AclOperation, CLUSTER_NAME, PatternType, ResourceType } from '../authorizer/acl.js';
import type { StandardAuthorizer } from '../authorizer/standard-authorizer.js';
import type { BrokerServices } from '../services.js';
import { ANONYMOUS_PRINCIPAL } from './dispatcher.js';
import type { RequestContext } from './types.js';

export { AclOperation, ResourceType, PatternType, CLUSTER_NAME };

/** The node's authorizer, null when authorizer.class.name is not set. */
export function authorizerOf(services: Pick<BrokerServices, 'authorizer'>): StandardAuthorizer | null {
  return services.authorizer ?? null;
}

/** AuthHelper.authorize: whether the request's principal may do `operation` on the resource. */
export function authorize(
  services: Pick<BrokerServices, 'authorizer'>,
  ctx: Pick<RequestContext, 'principal' | 'clientAddress'>,
  operation: number,
  resourceType: number,
  resourceName: string,
  patternType: number = PatternType.LITERAL,
): boolean {
  const authorizer = authorizerOf(services);
  if (!authorizer) return true;
  const context = { principal: ctx.principal ?? ANONYMOUS_PRINCIPAL, clientAddress: ctx.clientAddress };
  return authorizer.authorize(context, { operation, resourceType, resourceName, patternType }) === 'ALLOWED';
}

/** AuthHelper.authorizeClusterOperation's test (the caller answers CLUSTER_AUTHORIZATION_FAILED). */
export function authorizeCluster(
  services: Pick<BrokerServices, 'authorizer'>,
  ctx: Pick<RequestContext, 'principal' | 'clientAddress'>,
  operation: number,
): boolean {
  return authorize(services, ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** AuthHelper.authorizedOperations: the bit field of the supported operations the principal may do. */
export function authorizedOperations(
  services: Pick<BrokerServices, 'authorizer'>,
  ctx: Pick<RequestContext, 'principal' | 'clientAddress'>,
  resourceType: number,
  resourceName: string,
  supported: readonly number[],
): number {
  let bits = 0;
  for (const op of supported) if (authorize(services, ctx, op, resourceType, resourceName)) bits |= 1 << op;
  return bits;
}

/** AuthHelper.authorizeByResourceType: may the principal do `operation` on any resource of the type? */
export function authorizeByResourceType(
  services: Pick<BrokerServices, 'authorizer'>,
  ctx: Pick<RequestContext, 'principal' | 'clientAddress'>,
  operation: number,
  resourceType: number,
): boolean {
  const authorizer = authorizerOf(services);
  if (!authorizer) return true;
  const context = { principal: ctx.principal ?? ANONYMOUS_PRINCIPAL, clientAddress: ctx.clientAddress };
  return authorizer.authorizeByResourceType(context, operation, resourceType) === 'ALLOWED';
}
