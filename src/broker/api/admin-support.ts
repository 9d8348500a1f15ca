// Shared pieces of the admin and metadata handlers: access to the controller and the current
// metadata image, the cluster view Kafka's KRaftMetadataCache computes (alive brokers on a
// listener, offline replicas), authorized-operation bit fields as Kafka reports them without an
// authorizer, the broker's runtime logger levels (BROKER_LOGGER), the broker-side checks of
// dynamic broker config changes (ConfigAdminManager.preprocess), and the ConfigSchema /
// ConfigValidator the controller needs for topic configs.
import type { QuorumController, ConfigSchema, ConfigValidator, CreatableTopic } from '../controller/index.js';
import { ConfigResourceType, type MetadataImage, type PartitionImage, type ConfigResource } from '../metadata/image.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import type { ServerConfig } from '../../config/load.js';
import {
  BROKER_CONFIGS,
  dynamicBrokerConfigKey,
  ConfigError,
  convertToString,
  parseConfigValue,
  type ConfigValue,
} from '../../config/definitions.js';
import { TOPIC_CONFIGS, validateTopicConfigs } from '../../config/topic-configs.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { operationBits, supportedOperationCodes } from '../../protocol/acl.js';
import {
  isPerBrokerListenerConfig,
  isSecurityConfigWithoutListenerPrefix,
  listenerConfigBaseName,
} from '../network/tls-listener.js';
import { sslConfigKey } from '../../config/ssl-keys.js';
import { groupConfigFrom } from '../group/config.js';
import { validateGroupConfigs } from '../group/group-configs.js';
import { validateClientMetricsConfigs } from '../telemetry/client-metrics-manager.js';

export { invalidTopicReason, isInternalTopic } from '../controller/index.js';

/** The schema default of int32 authorized-operations fields: "not requested". */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** AclEntry.supportedOperations(TOPIC) as a bit field: all allowed when there is no authorizer. */
export const TOPIC_AUTHORIZED_OPERATIONS = operationBits(supportedOperationCodes('TOPIC'));
/** AclEntry.supportedOperations(CLUSTER) as a bit field. */
export const CLUSTER_AUTHORIZED_OPERATIONS = operationBits(supportedOperationCodes('CLUSTER'));

/** DirectoryId.UNASSIGNED / MIGRATING (always online) and LOST (offline). */
const DIR_MIGRATING = 'AAAAAAAAAAAAAAAAAAAAAA';
const DIR_UNASSIGNED = 'AAAAAAAAAAAAAAAAAAAAAQ';
const DIR_LOST = 'AAAAAAAAAAAAAAAAAAAAAg';

export function controllerOf(services: BrokerServices): QuorumController {
  return services.controller;
}

/** The latest metadata image this broker has applied. */
export function imageOf(services: BrokerServices): MetadataImage {
  return metadataSourceOf(services).image;
}

/**
 * Topic creation the broker starts itself (auto-created and internal topics): the in-process
 * controller, or a CreateTopics request to the active controller from a broker-only node
 * (AutoTopicCreationManager). Per-topic results are not looked at: the client retries.
 */
export async function createTopicsOnController(services: BrokerServices, topics: CreatableTopic[]): Promise<void> {
  if (services.remote) await services.remote.createTopics(topics);
  else await controllerOf(services).createTopics(topics);
}

export interface BrokerNode {
  readonly id: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

/** KRaftMetadataCache.getAliveBrokerNodes: unfenced brokers with an endpoint on `listener`, by id. */
/**
 * Every registered broker with an endpoint on `listener`, fenced or not, sorted by id
 * (KRaftMetadataCache.getBrokerNodes: DescribeCluster v2, ListConfigResources).
 */
export function brokerNodes(image: MetadataImage, listener: string): (BrokerNode & { fenced: boolean })[] {
  const out: (BrokerNode & { fenced: boolean })[] = [];
  for (const b of image.brokers.values()) {
    const e = b.endpoints.find((x) => x.name === listener);
    if (e) out.push({ id: b.id, host: e.host, port: e.port, rack: b.rack, fenced: b.fenced });
  }
  return out.sort((a, b) => a.id - b.id);
}

export function aliveBrokerNodes(image: MetadataImage, listener: string): BrokerNode[] {
  const out: BrokerNode[] = [];
  for (const b of image.brokers.values()) {
    if (b.fenced) continue;
    const e = b.endpoints.find((x) => x.name === listener);
    if (e) out.push({ id: b.id, host: e.host, port: e.port, rack: b.rack });
  }
  return out.sort((a, b) => a.id - b.id);
}

/**
 * What a KRaft broker reports as "controller id" to clients (Metadata, DescribeCluster): a random
 * alive (unfenced) broker, since clients send controller-bound requests to any broker.
 */
export function randomAliveBrokerId(
  image: MetadataImage,
  random: (n: number) => number = (n) => Math.floor(Math.random() * n),
): number {
  const alive = [...image.brokers.values()].filter((b) => !b.fenced).map((b) => b.id);
  return alive.length === 0 ? -1 : alive[random(alive.length)]!;
}

/** DirectoryId.isOnline. */
function isDirOnline(dir: string | undefined, onlineDirs: readonly string[]): boolean {
  if (dir === undefined || dir === DIR_UNASSIGNED || dir === DIR_MIGRATING) return true;
  if (dir === DIR_LOST) return false;
  if (onlineDirs.length === 0) return true;
  return onlineDirs.includes(dir);
}

/** KRaftMetadataCache.getOfflineReplicas: replicas on missing/fenced brokers, without the listener, or in an offline dir. */
export function offlineReplicas(image: MetadataImage, p: PartitionImage, listener: string): number[] {
  const out: number[] = [];
  p.replicas.forEach((id, i) => {
    const b = image.brokers.get(id);
    if (
      !b ||
      b.fenced ||
      !b.endpoints.some((e) => e.name === listener) ||
      !isDirOnline(p.directories[i], b.directories)
    )
      out.push(id);
  });
  return out;
}

/** The leader if it is registered with an endpoint on `listener` (KRaftMetadataCache.getAliveEndpoint). */
export function leaderOnListener(image: MetadataImage, leader: number, listener: string): boolean {
  return image.brokers.get(leader)?.endpoints.some((e) => e.name === listener) ?? false;
}

/** Partitions of a topic ordered by partition id. */
export function sortedPartitions(partitions: ReadonlyMap<number, PartitionImage>): PartitionImage[] {
  return [...partitions.values()].sort((a, b) => a.partitionId - b.partitionId);
}

/** ApiError.fromThrowable for the handlers: KafkaError keeps its code, ConfigError is INVALID_CONFIG. */
export function errorOf(e: unknown): { errorCode: number; errorMessage: string | null } {
  if (e instanceof KafkaError) return { errorCode: e.code, errorMessage: e.message };
  if (e instanceof ConfigError) return { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: e.message };
  return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null };
}

// ------------------------------------------------------------------ internal topics

/** The CreatableTopic a broker uses to auto-create a topic (AutoTopicCreationManager.creatableTopic). */
export function autoCreatableTopic(name: string, config: ServerConfig): CreatableTopic {
  switch (name) {
    case '__consumer_offsets':
      return {
        name,
        numPartitions: config.getInt('offsets.topic.num.partitions'),
        replicationFactor: config.getInt('offsets.topic.replication.factor'),
        configs: [
          { name: 'cleanup.policy', value: 'compact' },
          { name: 'compression.type', value: 'producer' },
          { name: 'segment.bytes', value: String(config.getInt('offsets.topic.segment.bytes')) },
        ],
      };
    case '__transaction_state':
      return {
        name,
        numPartitions: config.getInt('transaction.state.log.num.partitions'),
        replicationFactor: config.getInt('transaction.state.log.replication.factor'),
        configs: [
          { name: 'unclean.leader.election.enable', value: 'false' },
          { name: 'compression.type', value: 'uncompressed' },
          { name: 'cleanup.policy', value: 'compact' },
          { name: 'min.insync.replicas', value: String(config.getInt('transaction.state.log.min.isr')) },
          { name: 'segment.bytes', value: String(config.getInt('transaction.state.log.segment.bytes')) },
        ],
      };
    case '__share_group_state':
      // ShareCoordinatorService.shareGroupStateTopicConfigs: kept forever, pruned by the coordinator
      return {
        name,
        numPartitions: config.getInt('share.coordinator.state.topic.num.partitions'),
        replicationFactor: config.getInt('share.coordinator.state.topic.replication.factor'),
        configs: [
          { name: 'cleanup.policy', value: 'delete' },
          { name: 'compression.type', value: 'producer' },
          { name: 'segment.bytes', value: String(config.getInt('share.coordinator.state.topic.segment.bytes')) },
          { name: 'min.insync.replicas', value: String(config.getInt('share.coordinator.state.topic.min.isr')) },
          { name: 'retention.ms', value: '-1' },
        ],
      };
    default:
      return {
        name,
        numPartitions: config.getInt('num.partitions'),
        replicationFactor: config.getInt('default.replication.factor'),
      };
  }
}

/** "Node id must be an integer" / "Unexpected broker id" checks of ConfigAdminManager. */
export function validateResourceNameIsNodeId(name: string, nodeId: number): void {
  if (!/^[+-]?\d+$/.test(name) || Math.abs(Number(name)) > 2147483647) {
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `Node id must be an integer, but it is: ${name}`);
  }
  if (Number(name) !== nodeId) {
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${nodeId}, but received ${name}`);
  }
}

// ------------------------------------------------------------------ dynamic broker configs

/** Java's List.toString, as Kafka 4.4's (Java) DynamicBrokerConfig prints the keys in these messages. */
const javaList = (names: readonly string[]): string => `[${names.join(', ')}]`;

/**
 * DynamicBrokerConfig.validateConfigs as the broker runs it before forwarding a BROKER config
 * change: non-dynamic keys, per-broker keys at the cluster default, unparsable values. Throws
 * KafkaError(INVALID_REQUEST) with Kafka's message (KAFKA-13609: INVALID_REQUEST, not INVALID_CONFIG).
 */
export function validateDynamicBrokerConfigs(props: ReadonlyMap<string, string>, perBroker: boolean): void {
  const names = [...props.keys()];
  const nonDynamic = names.filter((n) => {
    const k = BROKER_CONFIGS.get(n);
    return k !== undefined && !k.dynamic;
  });
  if (nonDynamic.length)
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `Cannot update these configs dynamically: ${javaList(nonDynamic)}`);
  const unprefixed = names.filter(isSecurityConfigWithoutListenerPrefix);
  if (unprefixed.length)
    throw new KafkaError(
      ErrorCode.INVALID_REQUEST,
      `These security configs can be dynamically updated only per-listener using the listener prefix: ${javaList(unprefixed)}`,
    );
  for (const [n, v] of props) {
    // validateConfigTypes: a listener-prefixed key is parsed as its base key
    const base = listenerConfigBaseName(n);
    const key = dynamicBrokerConfigKey(base ?? n) ?? (base === null ? undefined : sslConfigKey(base));
    if (!key) continue;
    try {
      parseConfigValue(key, v);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      // Kafka 4.4 finds a listener-prefixed key's bad value when it builds the new KafkaConfig
      throw new KafkaError(
        ErrorCode.INVALID_REQUEST,
        base === null
          ? e.message
          : `Invalid value ${e.javaClass}: ${e.message} for configuration Invalid dynamic configuration`,
      );
    }
  }
  if (!perBroker) {
    const perBrokerOnly = names.filter(
      (n) => BROKER_CONFIGS.get(n)?.dynamic === 'per-broker' || isPerBrokerListenerConfig(n),
    );
    if (perBrokerOnly.length) {
      throw new KafkaError(
        ErrorCode.INVALID_REQUEST,
        `Cannot update these configs at default cluster level, broker id must be specified: ${javaList(perBrokerOnly)}`,
      );
    }
  }
}

/** ConfigAdminManager.prepareIncrementalConfigs over a BROKER resource's current dynamic props. */
export function applyIncrementalBrokerOps(
  current: ReadonlyMap<string, string>,
  ops: readonly { name: string; configOperation: number; value: string | null }[],
): Map<string, string> {
  const props = new Map(current);
  const isList = (name: string): boolean => {
    const key = BROKER_CONFIGS.get(name);
    if (!key) throw new KafkaError(ErrorCode.INVALID_CONFIG, `Unknown config name: ${name}`);
    return key.type === 'list';
  };
  const defaultList = (name: string): string[] => {
    const d = BROKER_CONFIGS.get(name)!.default;
    const s = typeof d === 'symbol' ? null : convertToString(d as ConfigValue, 'list');
    return s ? s.split(',') : [];
  };
  for (const op of ops) {
    switch (op.configOperation) {
      case 0:
        props.set(op.name, op.value ?? '');
        break;
      case 1:
        props.delete(op.name);
        break;
      case 2: {
        if (!isList(op.name))
          throw new KafkaError(
            ErrorCode.INVALID_CONFIG,
            `Config value append is not allowed for config key: ${op.name}`,
          );
        const old = props.has(op.name)
          ? props
              .get(op.name)!
              .split(',')
              .filter((s) => s !== '')
          : defaultList(op.name);
        const add = (op.value ?? '').split(',').filter((v) => !old.includes(v));
        props.set(op.name, [...old, ...add].join(','));
        break;
      }
      case 3: {
        if (!isList(op.name))
          throw new KafkaError(
            ErrorCode.INVALID_CONFIG,
            `Config value subtract is not allowed for config key: ${op.name}`,
          );
        const old = props.has(op.name) ? props.get(op.name)!.split(',') : defaultList(op.name);
        const remove = (op.value ?? '').split(',');
        props.set(op.name, old.filter((v) => !remove.includes(v)).join(','));
        break;
      }
      default:
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Unknown operations type ${op.configOperation}`);
    }
  }
  return props;
}

// ------------------------------------------------------------------ what the controller needs

/** KafkaConfigSchema for APPEND/SUBTRACT: LIST keys and their static defaults (topic and broker). */
export const adminConfigSchema: ConfigSchema = {
  isList(resourceType, key) {
    const k =
      resourceType === ConfigResourceType.Topic
        ? TOPIC_CONFIGS.get(key)
        : resourceType === ConfigResourceType.Broker
          ? BROKER_CONFIGS.get(key)
          : undefined;
    return k?.type === 'list';
  },
  defaultValue(resourceType, key) {
    const k =
      resourceType === ConfigResourceType.Topic
        ? TOPIC_CONFIGS.get(key)
        : resourceType === ConfigResourceType.Broker
          ? BROKER_CONFIGS.get(key)
          : undefined;
    if (!k || typeof k.default === 'symbol') return null;
    return convertToString(k.default as ConfigValue, k.type);
  },
};

/**
 * ControllerConfigurationValidator for TOPIC resources (LogConfig.validate against the broker's
 * topic defaults), GROUP resources (GroupConfig.validate against the broker's group.consumer.*
 * bounds): INVALID_CONFIG with Kafka's message; CLIENT_METRICS resources (ClientMetricsConfigs.validate,
 * telemetry/client-metrics-manager.ts). Other resource types are accepted.
 */
export function adminConfigValidator(config: Pick<ServerConfig, 'originals' | 'getInt' | 'getLong'>): ConfigValidator {
  const groupBounds = groupConfigFrom(config);
  return (resource: ConfigResource, newConfigs: ReadonlyMap<string, string>) => {
    if (resource.type === ConfigResourceType.Group) {
      const message = validateGroupConfigs(newConfigs, groupBounds);
      return message === null ? null : { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: message };
    }
    if (resource.type === ConfigResourceType.ClientMetrics)
      return validateClientMetricsConfigs(resource.name, newConfigs);
    if (resource.type !== ConfigResourceType.Topic) return null;
    const message = validateTopicConfigs(newConfigs, { originals: config.originals });
    return message === null ? null : { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: message };
  };
}
