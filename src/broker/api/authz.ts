// What handlers call to authorize a request (Kafka's AuthHelper): with no authorizer configured
// every action is allowed (AuthHelper's `authorizer.forall`), otherwise the StandardAuthorizer of
// the node decides on the request's principal and client address. Which API checks what is listed
// in docs/notes/i18-authz.md.
import { AclOperation, CLUSTER_NAME, PatternType, ResourceType, supportedOperationCodes } from '../../protocol/acl.js';
import type { StandardAuthorizer } from '../authorizer/standard-authorizer.js';
import type { BrokerServices } from '../services.js';
import { ANONYMOUS_PRINCIPAL } from './dispatcher.js';
import { CLUSTER_AUTHORIZED_OPERATIONS, TOPIC_AUTHORIZED_OPERATIONS } from './admin-support.js';
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

/** AclEntry.supportedOperations(TOPIC / CLUSTER). */
const TOPIC_OPERATIONS = supportedOperationCodes('TOPIC');
const CLUSTER_OPERATIONS = supportedOperationCodes('CLUSTER');

/** A topic's topicAuthorizedOperations (Metadata, DescribeTopicPartitions): all supported without an authorizer. */
export function topicAuthorizedOperations(
  services: Pick<BrokerServices, 'authorizer'>,
  ctx: Pick<RequestContext, 'principal' | 'clientAddress'>,
  topic: string,
): number {
  if (!authorizerOf(services)) return TOPIC_AUTHORIZED_OPERATIONS;
  return authorizedOperations(services, ctx, ResourceType.TOPIC, topic, TOPIC_OPERATIONS);
}

/**
 * clusterAuthorizedOperations (Metadata v8-10, DescribeCluster): all supported without an authorizer,
 * 0 without DESCRIBE on the cluster, else the principal's (AuthHelper.computeDescribeClusterResponse).
 */
export function clusterAuthorizedOperations(
  services: Pick<BrokerServices, 'authorizer'>,
  ctx: Pick<RequestContext, 'principal' | 'clientAddress'>,
): number {
  if (!authorizerOf(services)) return CLUSTER_AUTHORIZED_OPERATIONS;
  if (!authorizeCluster(services, ctx, AclOperation.DESCRIBE)) return 0;
  return authorizedOperations(services, ctx, ResourceType.CLUSTER, CLUSTER_NAME, CLUSTER_OPERATIONS);
}
