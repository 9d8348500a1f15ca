// Authorization of the admin APIs and of the controller's inter-node RPCs (Kafka 4.4's KafkaApis,
// ControllerApis and AuthHelper): a handler wrapper for the APIs that need one cluster operation and
// answer their error response otherwise (AuthHelper.authorizeClusterOperation throws a
// ClusterAuthorizationException that becomes `request.getErrorResponse(e)`), and Kafka's messages.
// Which API checks what: docs/notes/i18-authz.md. The checks on forwarded APIs run where the handler
// runs: on the controller, with the Envelope's principal (the dispatcher's ctx.principal).
import { ErrorCode } from '../../protocol/errors.js';
import { ConfigResourceType } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import { operationName } from '../../protocol/acl.js';
import { AclOperation, authorize, authorizeCluster, authorizerOf, ResourceType } from './authz.js';
import { ANONYMOUS_PRINCIPAL } from './dispatcher.js';
import type { ApiHandler, RequestContext } from './types.js';
import type { ConfigAuthz } from './alter-configs-common.js';

export { AclOperation, ResourceType };

type AuthServices = Pick<BrokerServices, 'authorizer'>;
type AuthContext = Pick<RequestContext, 'principal' | 'clientAddress'>;

/** Errors.X.message(): the messages of ApiError(Errors.X) and Errors.X.exception(). */
export const CLUSTER_AUTHORIZATION_FAILED_MESSAGE = 'Cluster authorization failed.';
export const TOPIC_AUTHORIZATION_FAILED_MESSAGE = 'Topic authorization failed.';
export const GROUP_AUTHORIZATION_FAILED_MESSAGE = 'Group authorization failed.';

/**
 * AuthHelper.authorizeClusterOperation's message (Kafka 4.4), `Request <Request> needs <OPERATION>
 * permission.`, with the fields tkafka has (Kafka prints its processor, session, buffer and envelope
 * objects, which no client can compare).
 */
export function notAuthorizedMessage(ctx: RequestContext, operation: number): string {
  const principal = ctx.principal ?? ANONYMOUS_PRINCIPAL;
  return (
    `Request Request(processor=0, connectionId=${ctx.connectionId}, ` +
    `session=Session(${principal},/${ctx.clientAddress}), listenerName=ListenerName(${ctx.listenerName}), ` +
    `buffer=null, envelope=Optional.empty) needs ${operationName(operation)} permission.`
  );
}

/**
 * The error response with `message` as the errorMessage of every entry (top level included) that
 * carries CLUSTER_AUTHORIZATION_FAILED: `getErrorResponse(e)` sets ApiError.message() wherever the
 * response has a message next to the code (the encoder ignores the key where the schema has none).
 */
export function withErrorMessage(body: unknown, message: string | null, depth = 0): unknown {
  if (message === null || body === null || typeof body !== 'object' || depth > 6) return body;
  if (Array.isArray(body)) return body.map((b) => withErrorMessage(b, message, depth + 1));
  if (Buffer.isBuffer(body)) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>))
    out[k] = typeof v === 'object' ? withErrorMessage(v, message, depth + 1) : v;
  if (out.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED) out.errorMessage = message;
  return out;
}

export interface ClusterCheck<Services> {
  /** The operations any of which is enough (WriteTxnMarkers: ALTER, else CLUSTER_ACTION). */
  readonly operations: readonly number[];
  /**
   * The top-level errorMessage of the denial: 'request' (authorizeClusterOperation's exception, the
   * default), 'default' (Errors.CLUSTER_AUTHORIZATION_FAILED.exception), or none (null).
   */
  readonly message?: 'request' | 'default' | null;
  /** When the check does not apply here (the request is forwarded from this node, not answered). */
  readonly skip?: (ctx: RequestContext, services: Services) => boolean;
}

/** `ctx`'s principal may do one of `operations` on the cluster. */
export function authorizeClusterAny(services: AuthServices, ctx: AuthContext, operations: readonly number[]): boolean {
  if (!authorizerOf(services)) return true;
  return operations.some((op) => authorizeCluster(services, ctx, op));
}

/** The handler, answering its error response with CLUSTER_AUTHORIZATION_FAILED when the check fails. */
export function requireCluster<Services, Req, Res>(
  check: ClusterCheck<Services>,
  handler: ApiHandler<Services, Req, Res>,
): ApiHandler<Services, Req, Res> {
  return {
    ...handler,
    handle(ctx, req, services) {
      const skip = check.skip?.(ctx, services) ?? false;
      if (!skip && !authorizeClusterAny(services as unknown as AuthServices, ctx, check.operations)) {
        const mode = check.message === undefined ? 'request' : check.message;
        // (the last operation: the one authorizeClusterOperation asks for)
        const op = check.operations[check.operations.length - 1]!;
        const message =
          mode === 'request'
            ? notAuthorizedMessage(ctx, op)
            : mode === 'default'
              ? CLUSTER_AUTHORIZATION_FAILED_MESSAGE
              : null;
        return withErrorMessage(
          handler.errorResponse(ctx, req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED),
          message,
        ) as Res;
      }
      return handler.handle(ctx, req, services);
    },
  };
}

/** The names of `names` the principal may do `operation` on (AuthHelper.filterByAuthorized). */
export function filterAuthorized(
  services: AuthServices,
  ctx: AuthContext,
  operation: number,
  resourceType: number,
  names: Iterable<string>,
): Set<string> {
  const out = new Set<string>();
  for (const n of names) if (authorize(services, ctx, operation, resourceType, n)) out.add(n);
  return out;
}

/**
 * The error of a config resource the principal may not describe / alter (ConfigHelper,
 * ControllerApis.authorizeAlterResource): null when allowed or of a type not checked here.
 * `operation` is DESCRIBE_CONFIGS or ALTER_CONFIGS.
 */
export function configResourceDenied(
  services: AuthServices,
  ctx: AuthContext,
  operation: number,
  resourceType: number,
  resourceName: string,
): { errorCode: number; errorMessage: string } | null {
  switch (resourceType) {
    case ConfigResourceType.Broker:
    case ConfigResourceType.BrokerLogger:
    case ConfigResourceType.ClientMetrics:
      return authorizeCluster(services, ctx, operation)
        ? null
        : { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: CLUSTER_AUTHORIZATION_FAILED_MESSAGE };
    case ConfigResourceType.Topic:
      return authorize(services, ctx, operation, ResourceType.TOPIC, resourceName)
        ? null
        : { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: TOPIC_AUTHORIZATION_FAILED_MESSAGE };
    case ConfigResourceType.Group:
      return authorize(services, ctx, operation, ResourceType.GROUP, resourceName)
        ? null
        : { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: GROUP_AUTHORIZATION_FAILED_MESSAGE };
    default:
      return null;
  }
}

/** What AlterConfigs / IncrementalAlterConfigs check (alter-configs-common.ts); undefined without an authorizer. */
export function configAuthz(services: AuthServices, ctx: AuthContext): ConfigAuthz | undefined {
  if (!authorizerOf(services)) return undefined;
  return {
    denied: (resourceType, resourceName) =>
      configResourceDenied(services, ctx, AclOperation.ALTER_CONFIGS, resourceType, resourceName),
    clusterAction: authorizeCluster(services, ctx, AclOperation.CLUSTER_ACTION),
  };
}
