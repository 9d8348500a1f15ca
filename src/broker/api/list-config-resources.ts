// ListConfigResources (API 74; ListClientMetricsResources before KIP-1142), v0-1, broker listener:
// the config resources of the asked types, as KafkaApis.handleListConfigResources lists them —
// v0 knows only client-metrics resources; v1 takes ResourceTypes (empty = every supported type) and
// answers UNSUPPORTED_VERSION when one is not supported. Resources come in Kafka's order: groups
// with dynamic configs, client-metrics resources, then each registered broker on the request's
// listener as a BROKER_LOGGER and as a BROKER resource, then every topic. Without DESCRIBE_CONFIGS on
// the cluster the answer is CLUSTER_AUTHORIZATION_FAILED, checked first as Kafka 4.4 does.
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  ListConfigResourcesRequest,
  ListConfigResourcesResponse,
  ListConfigResourcesResponseConfigResource,
} from '../../protocol/generated/protocol/ListConfigResources.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ConfigResourceType, type MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { brokerNodes, imageOf } from './admin-support.js';
import { AclOperation, authorizeCluster } from './authz.js';
import { javaHashSetOrder } from '../telemetry/client-metrics-manager.js';

/** ListConfigResourcesRequest.supportedResourceTypes. */
function supportedResourceTypes(version: number): readonly number[] {
  return version === 0
    ? [ConfigResourceType.ClientMetrics]
    : [
        ConfigResourceType.Topic,
        ConfigResourceType.Broker,
        ConfigResourceType.BrokerLogger,
        ConfigResourceType.ClientMetrics,
        ConfigResourceType.Group,
      ];
}

/** Names of the resources of `type` that have at least one dynamic config, sorted. */
function resourcesWithConfigs(image: MetadataImage, type: number): string[] {
  const prefix = `${type}:`;
  const out: string[] = [];
  for (const [key, configs] of image.configs) {
    if (key.startsWith(prefix) && configs.size > 0) out.push(key.slice(prefix.length));
  }
  return out.sort();
}

function handle(
  ctx: RequestContext,
  req: ListConfigResourcesRequest,
  services: BrokerServices,
): ListConfigResourcesResponse {
  if (!authorizeCluster(services, ctx, AclOperation.DESCRIBE_CONFIGS))
    return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, configResources: [] };
  const supported = supportedResourceTypes(ctx.apiVersion);
  const asked = ctx.apiVersion >= 1 && req.resourceTypes.length > 0 ? req.resourceTypes : supported;
  if (asked.some((t) => !supported.includes(t))) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, configResources: [] };
  }
  const image = imageOf(services);
  const out: ListConfigResourcesResponseConfigResource[] = [];
  const add = (resourceType: number, names: Iterable<string>): void => {
    for (const resourceName of names) out.push({ resourceName, resourceType });
  };
  if (asked.includes(ConfigResourceType.Group)) {
    add(ConfigResourceType.Group, resourcesWithConfigs(image, ConfigResourceType.Group));
  }
  if (asked.includes(ConfigResourceType.ClientMetrics)) {
    // Kafka: ClientMetricsManager.listClientMetricsResources, a ConcurrentHashMap's key set
    add(
      ConfigResourceType.ClientMetrics,
      javaHashSetOrder(resourcesWithConfigs(image, ConfigResourceType.ClientMetrics), true),
    );
  }
  const brokerIds = brokerNodes(image, ctx.listenerName).map((b) => String(b.id));
  if (asked.includes(ConfigResourceType.BrokerLogger)) add(ConfigResourceType.BrokerLogger, brokerIds);
  if (asked.includes(ConfigResourceType.Broker)) add(ConfigResourceType.Broker, brokerIds);
  if (asked.includes(ConfigResourceType.Topic)) add(ConfigResourceType.Topic, [...image.topicsByName.keys()].sort());
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, configResources: out };
}

export const handler: ApiHandler<BrokerServices> = {
  apiKey: ApiKey.ListConfigResources,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
