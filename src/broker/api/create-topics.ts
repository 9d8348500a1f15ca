// CreateTopics (API 19), v0-7: handed to the KRaft controller (ControllerApis.createTopics +
// ReplicationControlManager.createTopics, which word every per-topic error as Kafka does); v5+
// answers carry the partition count, replication factor and the new topic's effective configs with
// their sources (ConfigurationControlManager.computeEffectiveTopicConfigs), v7+ the topic id.
// With an authorizer: CREATE on the cluster or on the topic, DESCRIBE_CONFIGS to see its configs.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  CreateTopicsRequest,
  CreateTopicsResponse,
  CreateTopicsResponseCreatableTopicConfigs,
  CreateTopicsResponseCreatableTopicResult,
} from '../../protocol/generated/protocol/CreateTopics.js';
import { ErrorCode } from '../../protocol/errors.js';
import { CONFIG_SOURCE, effectiveTopicConfig } from '../../config/topic-configs.js';
import type { CreateTopicResult } from '../controller/index.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { controllerMutationQuotaFor } from '../quota/managers.js';
import { STRICT_SINCE_VERSION } from '../quota/controller-mutation-quota.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from './authz.js';

/** Topic.CLUSTER_METADATA_TOPIC_NAME: never created through CreateTopics. */
const CLUSTER_METADATA_TOPIC = '__cluster_metadata';

type Result = CreateTopicsResponseCreatableTopicResult;

/** The effective configs of a topic created with `configs`, sorted by name (KafkaConfigSchema.resolveEffectiveTopicConfigs). */
function effectiveConfigs(
  services: BrokerServices,
  configs: CreateTopicResult['configs'],
): CreateTopicsResponseCreatableTopicConfigs[] {
  const image = controllerOf(services).image;
  const eff = effectiveTopicConfig(services.config, new Map(configs.map((c) => [c.name, c.value])), {
    flavor: 'createTopics',
    perBroker: image.brokerConfigs(services.nodeId),
    clusterDefault: image.brokerConfigs(''),
  });
  return [...eff.values()]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => ({
      name: e.name,
      value: e.isSensitive ? null : e.value,
      readOnly: e.readOnly,
      configSource: CONFIG_SOURCE[e.source],
      isSensitive: e.isSensitive,
    }));
}

function toResponse(r: CreateTopicResult, v: number, services: BrokerServices, describable: boolean): Result {
  // a created topic whose configs the principal may not describe: TOPIC_AUTHORIZATION_FAILED for them
  // and no partition count nor replication factor (ReplicationControlManager.createTopic)
  const ok = r.errorCode === ErrorCode.NONE && describable;
  return {
    name: r.name,
    topicId: v >= 7 ? r.topicId : ZERO_UUID,
    errorCode: r.errorCode,
    errorMessage: v >= 1 ? r.errorMessage : null,
    topicConfigErrorCode:
      r.errorCode === ErrorCode.NONE && !describable ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.NONE,
    numPartitions: v >= 5 && ok ? r.numPartitions : -1,
    replicationFactor: v >= 5 && ok ? r.replicationFactor : -1,
    configs: v >= 5 && ok ? effectiveConfigs(services, r.configs) : [],
  };
}

async function handle(
  ctx: RequestContext,
  req: CreateTopicsRequest,
  services: BrokerServices,
): Promise<CreateTopicsResponse> {
  const v = ctx.apiVersion;
  // ControllerApis.createTopics: CREATE on the cluster, or on each topic named once (not
  // __cluster_metadata); the others are not sent on and answer TOPIC_AUTHORIZATION_FAILED after the
  // controller's results. DESCRIBE_CONFIGS decides whether a created topic's configs are returned.
  const count = new Map<string, number>();
  for (const t of req.topics) count.set(t.name, (count.get(t.name) ?? 0) + 1);
  const unique = [...count].filter(([n, c]) => c === 1 && n !== CLUSTER_METADATA_TOPIC).map(([n]) => n);
  const unauthorized = new Set(
    authorizeCluster(services, ctx, AclOperation.CREATE)
      ? []
      : unique.filter((n) => !authorize(services, ctx, AclOperation.CREATE, ResourceType.TOPIC, n)),
  );
  const describable = (n: string): boolean =>
    authorize(services, ctx, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, n);
  // controller_mutation_rate (quota/): strict from v6
  const quota = controllerMutationQuotaFor(services, ctx, STRICT_SINCE_VERSION.CreateTopics);
  const results = await controllerOf(services).createTopics(
    req.topics
      .filter((t) => !unauthorized.has(t.name))
      .map((t) => ({
        name: t.name,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        assignments: t.assignments.map((a) => ({ partitionIndex: a.partitionIndex, brokerIds: a.brokerIds })),
        configs: t.configs.map((c) => ({ name: c.name, value: c.value })),
      })),
    { validateOnly: req.validateOnly, applyPartitionChangeQuota: quota.apply },
  );
  const topics = results.map((r) => toResponse(r, v, services, describable(r.name)));
  for (const name of unauthorized)
    topics.push({
      name,
      topicId: ZERO_UUID,
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      errorMessage: v >= 1 ? 'Authorization failed.' : null,
      topicConfigErrorCode: ErrorCode.NONE,
      numPartitions: -1,
      replicationFactor: -1,
      configs: [],
    });
  return { throttleTimeMs: quota.finish(), topics };
}

export const handler: ApiHandler<BrokerServices, CreateTopicsRequest, Input<CreateTopicsResponse>> = {
  apiKey: ApiKey.CreateTopics,
  minVersion: 2, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 7,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
};
