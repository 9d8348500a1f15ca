// What AlterConfigs and IncrementalAlterConfigs share: the broker-side preprocessing Kafka's
// ConfigAdminManager.preprocess does before forwarding to the controller (duplicate resources and
// keys, null values, BROKER_LOGGER changes applied here, BROKER changes validated here), then the
// controller call for the rest and the reassembly of one answer per resource in request order.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { ConfigResourceType } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { type BrokerLoggers, ROOT_LOGGER, VALID_LOG_LEVELS } from '../loggers.js';
import {
  applyIncrementalBrokerOps,
  controllerOf,
  errorOf,
  imageOf,
  validateDynamicBrokerConfigs,
  validateResourceNameIsNodeId,
} from './admin-support.js';
import { BROKER_CONFIGS } from '../../config/definitions.js';
import { effectiveSettings, SslReconfigurationError } from '../network/tls-listener.js';

export interface ResourceChange {
  resourceType: number;
  resourceName: string;
  configs: { name: string; value: string | null; configOperation: number }[];
}

export interface ResourceResult {
  resourceType: number;
  resourceName: string;
  errorCode: number;
  errorMessage: string | null;
}

const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

/** The authorization of a request's principal (authz-admin.ts): absent when nothing is checked. */
export interface ConfigAuthz {
  /** ALTER_CONFIGS on the resource (ControllerApis.authorizeAlterResource): its error, or null. */
  denied(resourceType: number, resourceName: string): { errorCode: number; errorMessage: string | null } | null;
  /** CLUSTER_ACTION on the cluster: what BROKER_LOGGER changes need on a controller listener. */
  readonly clusterAction: boolean;
}

/** The stored dynamic configs of a BROKER resource that Kafka would apply (fromPersistentProps). */
function persistedBrokerProps(services: BrokerServices, name: string): Map<string, string> {
  const perBroker = name !== '';
  const stored = imageOf(services).brokerConfigs(name);
  return new Map(
    [...stored].filter(([n, v]) => {
      const key = BROKER_CONFIGS.get(n);
      if (!key) return true;
      if (!key.dynamic || (!perBroker && key.dynamic === 'per-broker')) return false;
      try {
        validateDynamicBrokerConfigs(new Map([[n, v]]), perBroker);
        return true;
      } catch {
        return false;
      }
    }),
  );
}

/**
 * DynamicBrokerConfig.validate's reconfiguration check for the SSL listeners: a listener whose key
 * or trust store settings change must be able to load the new stores (SslFactory.validateReconfiguration).
 */
function validateListenerStores(services: BrokerServices, props: ReadonlyMap<string, string>): void {
  const stores = services.listenerStores;
  if (!stores) return;
  const image = imageOf(services);
  try {
    stores.validate(effectiveSettings(services.config.originals, image.brokerConfigs(''), props));
  } catch (e) {
    if (e instanceof SslReconfigurationError) throw new KafkaError(ErrorCode.INVALID_REQUEST, e.kafkaMessage);
    throw e;
  }
}

/** RuntimeLoggerManager.applyChangesForResource. */
function applyLoggerChanges(loggers: BrokerLoggers, nodeId: number, r: ResourceChange, validateOnly: boolean): void {
  if (!/^[+-]?\d+$/.test(r.resourceName) || Math.abs(Number(r.resourceName)) > 2147483647) {
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `Node id must be an integer, but it is: ${r.resourceName}`);
  }
  const requestId = Number(r.resourceName);
  if (requestId !== nodeId)
    throw new KafkaError(
      ErrorCode.INVALID_REQUEST,
      `Unexpected node id. Expected ${nodeId}, but received ${requestId}`,
    );
  const mustExist = (name: string): void => {
    if (!loggers.exists(name)) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Logger ${name} does not exist!`);
  };
  for (const op of r.configs) {
    switch (op.configOperation) {
      case 0:
        mustExist(op.name);
        if (!VALID_LOG_LEVELS.includes(op.value ?? '')) {
          throw new KafkaError(
            ErrorCode.INVALID_CONFIG,
            `Cannot set the log level of ${op.name} to ${op.value} as it is not a supported log level. Valid log levels are ${VALID_LOG_LEVELS.join(', ')}`,
          );
        }
        break;
      case 1:
        mustExist(op.name);
        if (op.name === ROOT_LOGGER)
          throw new KafkaError(
            ErrorCode.INVALID_REQUEST,
            `Removing the log level of the ${ROOT_LOGGER} logger is not allowed`,
          );
        break;
      case 2:
      case 3:
        throw new KafkaError(
          ErrorCode.INVALID_REQUEST,
          `${OP_NAMES[op.configOperation]} operation is not allowed for the BROKER_LOGGER resource`,
        );
      default:
        throw new KafkaError(
          ErrorCode.INVALID_REQUEST,
          `Unknown operation type ${op.configOperation} is not allowed for the BROKER_LOGGER resource`,
        );
    }
  }
  if (validateOnly) return;
  for (const op of r.configs) {
    if (op.configOperation === 0) loggers.set(op.name, op.value!);
    else loggers.unset(op.name);
  }
}

/**
 * ConfigAdminManager.preprocess: an error (or NONE for BROKER_LOGGER, which is handled entirely
 * here) for the resources that must not go to the controller; null for the others.
 */
function preprocess(
  services: BrokerServices,
  changes: readonly ResourceChange[],
  incremental: boolean,
  validateOnly: boolean,
  authz?: ConfigAuthz,
): (ResourceResult | null)[] {
  const count = new Map<string, number>();
  for (const c of changes)
    count.set(`${c.resourceType}:${c.resourceName}`, (count.get(`${c.resourceType}:${c.resourceName}`) ?? 0) + 1);
  return changes.map((c) => {
    const base = { resourceType: c.resourceType, resourceName: c.resourceName };
    if (count.get(`${c.resourceType}:${c.resourceName}`)! > 1) {
      return { ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Each resource must appear at most once.' };
    }
    try {
      const names = c.configs.map((x) => x.name);
      if (new Set(names).size !== names.length)
        throw new KafkaError(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
      const nulls = c.configs
        .filter((x) => x.value === null && (!incremental || x.configOperation !== 1))
        .map((x) => x.name);
      if (nulls.length)
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
      switch (c.resourceType) {
        case ConfigResourceType.BrokerLogger:
          if (!incremental) break; // legacy AlterConfigs does not know BROKER_LOGGER: "Unknown resource type"
          {
            // RuntimeLoggerManager.applyChangesForResource: ALTER_CONFIGS on the cluster, checked
            // first; ClusterAuthorizationException("Cluster authorization failed.") → no message
            const denied = authz?.denied(c.resourceType, c.resourceName);
            if (denied) return { ...base, errorCode: denied.errorCode, errorMessage: null };
          }
          applyLoggerChanges(services.loggers, services.nodeId, c, validateOnly);
          return { ...base, errorCode: ErrorCode.NONE, errorMessage: null };
        case ConfigResourceType.Broker: {
          // (Kafka 4.4 answers an unauthorized BROKER change here too, without a message)
          const denied = incremental ? authz?.denied(c.resourceType, c.resourceName) : null;
          if (denied) return { ...base, errorCode: denied.errorCode, errorMessage: null };
          if (c.resourceName !== '') validateResourceNameIsNodeId(c.resourceName, services.nodeId);
          const props = incremental
            ? applyIncrementalBrokerOps(persistedBrokerProps(services, c.resourceName), c.configs)
            : new Map(c.configs.map((x) => [x.name, x.value as string]));
          validateDynamicBrokerConfigs(props, c.resourceName !== '');
          if (c.resourceName !== '') validateListenerStores(services, props);
          return null;
        }
        case ConfigResourceType.Topic:
        case ConfigResourceType.ClientMetrics:
        case ConfigResourceType.Group:
          return null;
      }
      throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unknown resource type ${c.resourceType}`);
    } catch (e) {
      return { ...base, ...errorOf(e) };
    }
  });
}

const KNOWN_TYPES = new Set<number>([
  ConfigResourceType.Topic,
  ConfigResourceType.Broker,
  ConfigResourceType.BrokerLogger,
  ConfigResourceType.ClientMetrics,
  ConfigResourceType.Group,
]);

async function callController(
  services: BrokerServices,
  remaining: readonly ResourceChange[],
  incremental: boolean,
  validateOnly: boolean,
): Promise<ResourceResult[]> {
  if (remaining.length === 0) return [];
  const controller = controllerOf(services);
  return incremental
    ? controller.incrementalAlterConfigs(remaining, { validateOnly })
    : controller.alterConfigs(
        remaining.map((r) => ({ ...r, configs: r.configs.map((c) => ({ name: c.name, value: c.value })) })),
        { validateOnly },
      );
}

/**
 * The same request received on a controller listener (ControllerApis.handleIncrementalAlterConfigs /
 * handleLegacyAlterConfigs): no broker-side validation; unknown resource types are
 * UNSUPPORTED_VERSION, a repeated resource gets one "Duplicate resource." answer, and (incremental
 * only) BROKER_LOGGER answers come last.
 */
async function alterConfigsOnController(
  services: BrokerServices,
  changes: readonly ResourceChange[],
  incremental: boolean,
  validateOnly: boolean,
  authz?: ConfigAuthz,
): Promise<ResourceResult[]> {
  const early: ResourceResult[] = [];
  const loggerResults: ResourceResult[] = [];
  const pending = new Map<string, ResourceChange>();
  const duplicates = new Set<string>();
  for (const c of changes) {
    const base = { resourceType: c.resourceType, resourceName: c.resourceName };
    const k = `${c.resourceType}:${c.resourceName}`;
    if (incremental && c.resourceType === ConfigResourceType.BrokerLogger) {
      if (authz && !authz.clusterAction) {
        loggerResults.push({
          ...base,
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: 'Cluster authorization failed.',
        });
        continue;
      }
      try {
        applyLoggerChanges(services.loggers, services.nodeId, c, validateOnly);
        loggerResults.push({ ...base, errorCode: ErrorCode.NONE, errorMessage: null });
      } catch (e) {
        loggerResults.push({ ...base, ...errorOf(e) });
      }
    } else if (!KNOWN_TYPES.has(c.resourceType)) {
      early.push({
        ...base,
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        errorMessage: `Unknown resource type ${c.resourceType}.`,
      });
    } else if (!duplicates.has(k)) {
      if (pending.has(k)) {
        pending.delete(k);
        duplicates.add(k);
        early.push({ ...base, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate resource.' });
      } else {
        pending.set(k, c);
      }
    }
  }
  for (const [k, c] of pending) {
    const denied = authz?.denied(c.resourceType, c.resourceName);
    if (!denied) continue;
    pending.delete(k);
    early.push({ resourceType: c.resourceType, resourceName: c.resourceName, ...denied });
  }
  const results = await callController(services, [...pending.values()], incremental, validateOnly);
  return [
    ...early,
    ...results.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
    })),
    ...loggerResults,
  ];
}

/**
 * Preprocess, send the rest to the controller, answer per resource in request order (broker
 * listeners); requests on controller listeners are handled as the controller does.
 */
export async function alterConfigs(
  services: BrokerServices,
  changes: readonly ResourceChange[],
  incremental: boolean,
  validateOnly: boolean,
  onController = false,
  /** a broker-only node: the request of the remaining resources, forwarded to the active controller */
  forward?: (remaining: readonly ResourceChange[]) => Promise<ResourceResult[]>,
  authz?: ConfigAuthz,
): Promise<ResourceResult[]> {
  if (onController) return alterConfigsOnController(services, changes, incremental, validateOnly, authz);
  const pre = preprocess(services, changes, incremental, validateOnly, authz);
  const remaining = changes.filter((_, i) => pre[i] === null);
  let controllerResults: ResourceResult[];
  if (forward === undefined) {
    // the controller of this process checks as ControllerApis does
    const deniedResults: ResourceResult[] = [];
    const allowed = remaining.filter((c) => {
      const denied = authz?.denied(c.resourceType, c.resourceName);
      if (denied) deniedResults.push({ resourceType: c.resourceType, resourceName: c.resourceName, ...denied });
      return !denied;
    });
    controllerResults = [...deniedResults, ...(await callController(services, allowed, incremental, validateOnly))];
  } else {
    controllerResults = remaining.length === 0 ? [] : await forward(remaining);
  }
  const byResource = new Map(controllerResults.map((r) => [`${r.resourceType}:${r.resourceName}`, r]));
  return changes.map((c, i) => {
    const base = { resourceType: c.resourceType, resourceName: c.resourceName };
    const p = pre[i];
    if (p) return p;
    const r = byResource.get(`${c.resourceType}:${c.resourceName}`);
    return r
      ? { ...base, errorCode: r.errorCode, errorMessage: r.errorMessage }
      : { ...base, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
  });
}

/** A request of either API: its resources by type and name. */
interface ResourcesRequest {
  resources: readonly { resourceType: number; resourceName: string }[];
}

/**
 * A broker-only node forwards the resources it did not answer itself to the controller, in a request
 * of their own (the same API and version); the controller's answers per resource.
 */
export function forwarderOf<Req extends ResourcesRequest>(
  ctx: RequestContext,
  req: Req,
  services: BrokerServices,
): ((remaining: readonly ResourceChange[]) => Promise<ResourceResult[]>) | undefined {
  const remote = services.remote;
  if (!remote || ctx.isControllerListener) return undefined;
  return async (remaining) => {
    const keys = new Set(remaining.map((r) => `${r.resourceType}:${r.resourceName}`));
    const rest = { ...req, resources: req.resources.filter((r) => keys.has(`${r.resourceType}:${r.resourceName}`)) };
    const res = (await remote.forwarding.forward(ctx, rest, (code) => genericErrorResponse(ctx, rest, code))) as {
      responses: ResourceResult[];
    };
    return res.responses.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
    }));
  };
}
