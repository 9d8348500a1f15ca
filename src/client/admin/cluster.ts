// Cluster-level operations: DescribeCluster (Metadata fallback for old brokers), DescribeLogDirs per
// broker, UnregisterBroker, UpdateFeatures, and the ApiVersions data of a broker (versions, features).
import { apiByName } from '../apis.js';
import type { BrokerNode, KafkaClient } from '../client.js';
import type { BrokerConnection } from '../connection.js';
import { ApiError, UnsupportedApiError } from '../errors.js';
import type { DescribeClusterResponse } from '../../protocol/generated/protocol/DescribeCluster.js';
import type { DescribeLogDirsResponse } from '../../protocol/generated/protocol/DescribeLogDirs.js';
import type { UnregisterBrokerResponse } from '../../protocol/generated/protocol/UnregisterBroker.js';
import type { UpdateFeaturesResponse } from '../../protocol/generated/protocol/UpdateFeatures.js';

export interface ClusterDescription {
  clusterId: string | null;
  controllerId: number;
  nodes: (BrokerNode & { fenced: boolean })[];
}

export interface DescribeClusterOptions {
  /** DescribeCluster v2 (KIP-1073): list fenced brokers too, each with its fenced flag. */
  includeFencedBrokers?: boolean;
  /**
   * Which endpoints to describe: the brokers (default), or the controllers when the client was
   * bootstrapped with --bootstrap-controller (KafkaAdminClient sends EndpointType CONTROLLER then).
   */
  endpointType?: 'broker' | 'controller';
}

/**
 * DescribeCluster, or Metadata when the broker predates it. Nodes sorted by id. Asking for fenced
 * brokers from a broker below DescribeCluster v2 fails as Kafka's admin client does, with an
 * UnsupportedVersionException ("Attempted to write a non-default includeFencedBrokers at version 1").
 */
export async function describeCluster(
  client: KafkaClient,
  options: DescribeClusterOptions = {},
): Promise<ClusterDescription> {
  const includeFencedBrokers = options.includeFencedBrokers === true;
  return client.call('describeCluster', async () => {
    const conn = await client.anyConnection();
    if (conn.supports(apiByName('DescribeCluster'))) {
      const resp = await client.send<DescribeClusterResponse>('any', 'DescribeCluster', (version: number) => {
        if (includeFencedBrokers && version < 2) {
          throw new UnsupportedApiError(
            `Attempted to write a non-default includeFencedBrokers at version ${version}`,
            'DescribeCluster',
          );
        }
        const endpointType = options.endpointType === 'controller' ? 2 : 1;
        return { includeClusterAuthorizedOperations: false, endpointType, includeFencedBrokers };
      });
      const b = resp.body;
      if (b.errorCode !== 0) throw new ApiError(b.errorCode, b.errorMessage);
      return {
        clusterId: b.clusterId ?? null,
        controllerId: b.controllerId,
        nodes: b.brokers
          .map((n) => ({
            id: n.brokerId,
            host: n.host,
            port: n.port,
            rack: n.rack ?? null,
            fenced: n.isFenced,
          }))
          .sort((a, c) => a.id - c.id),
      };
    }
    if (includeFencedBrokers) {
      throw new UnsupportedApiError(
        'Attempted to write a non-default includeFencedBrokers at version 0',
        'DescribeCluster',
      );
    }
    const md = await client.metadata({ topics: [], refresh: true });
    return {
      clusterId: md.clusterId,
      controllerId: md.controllerId,
      nodes: [...md.brokers.values()].map((n) => ({ ...n, fenced: false })).sort((a, c) => a.id - c.id),
    };
  });
}

export interface ReplicaInfo {
  topic: string;
  partition: number;
  size: bigint;
  offsetLag: bigint;
  isFuture: boolean;
}

export interface LogDirDescription {
  path: string;
  errorCode: number;
  replicas: ReplicaInfo[];
  totalBytes: bigint | null;
  usableBytes: bigint | null;
}

/** DescribeLogDirs on each broker; `topics` null = all. */
export async function describeLogDirs(
  client: KafkaClient,
  brokerIds: number[],
  topics: { topic: string; partitions: number[] }[] | null = null,
): Promise<Map<number, LogDirDescription[]>> {
  const out = new Map<number, LogDirDescription[]>();
  await Promise.all(
    brokerIds.map(async (id) => {
      const resp = await client.request<DescribeLogDirsResponse>({ node: id }, 'DescribeLogDirs', { topics });
      if (resp.body.errorCode) throw new ApiError(resp.body.errorCode);
      out.set(
        id,
        resp.body.results.map((r) => ({
          path: r.logDir,
          errorCode: r.errorCode,
          totalBytes: r.totalBytes ?? null,
          usableBytes: r.usableBytes ?? null,
          replicas: r.topics.flatMap((t) =>
            t.partitions.map((p) => ({
              topic: t.name,
              partition: p.partitionIndex,
              size: p.partitionSize,
              offsetLag: p.offsetLag,
              isFuture: p.isFutureKey,
            })),
          ),
        })),
      );
    }),
  );
  return out;
}

export async function unregisterBroker(client: KafkaClient, brokerId: number): Promise<void> {
  await client.call('unregisterBroker', async () => {
    const resp = await client.send<UnregisterBrokerResponse>('any', 'UnregisterBroker', { brokerId });
    // Kafka 4.4's Admin reports the broker's message (4.0's reported the code's default text).
    if (resp.body.errorCode !== 0) throw new ApiError(resp.body.errorCode, resp.body.errorMessage);
  });
}

export interface FeatureMetadata {
  /** name → supported [min, max]. */
  supported: Map<string, { minVersion: number; maxVersion: number }>;
  /** name → finalized max level. */
  finalized: Map<string, number>;
  finalizedEpoch: bigint | null;
}

/** The ApiVersions data of a broker (any broker unless `conn` is given). */
export async function brokerApiVersions(
  client: KafkaClient,
  conn?: BrokerConnection,
): Promise<BrokerConnection['apiVersionsResponse']> {
  const c = conn ?? (await client.call('apiVersions', () => client.anyConnection()));
  return c.apiVersionsResponse;
}

/**
 * describeFeatures: the features from a fresh ApiVersions exchange, with any node or (like Kafka 4.4's
 * DescribeFeaturesOptions.nodeId) with node `nodeId`.
 */
export async function describeFeatures(client: KafkaClient, nodeId?: number): Promise<FeatureMetadata> {
  const conn =
    nodeId === undefined ? undefined : await client.call('describeFeatures', () => client.nodeConnection(nodeId));
  const r = await brokerApiVersions(client, conn);
  if (!r || r.version < 3)
    throw new UnsupportedApiError(
      'The broker does not report features (ApiVersions v3 or later is needed)',
      'ApiVersions',
    );
  return {
    supported: new Map(
      r.supportedFeatures.map((f) => [f.name, { minVersion: f.minVersion, maxVersion: f.maxVersion }]),
    ),
    finalized: new Map(r.finalizedFeatures.map((f) => [f.name, f.maxVersionLevel])),
    finalizedEpoch: r.finalizedFeaturesEpoch >= 0n ? r.finalizedFeaturesEpoch : null,
  };
}

export interface FeatureUpdate {
  feature: string;
  maxVersionLevel: number;
  /** 1 = upgrade, 2 = safe downgrade, 3 = unsafe downgrade. */
  upgradeType: number;
}

export async function updateFeatures(
  client: KafkaClient,
  updates: FeatureUpdate[],
  validateOnly: boolean,
): Promise<Map<string, ApiError | null>> {
  const resp = await client.request<UpdateFeaturesResponse>('controller', 'UpdateFeatures', (v: number) => ({
    timeoutMs: client.config.requestTimeoutMs,
    validateOnly: v >= 1 ? validateOnly : false,
    featureUpdates: updates.map((u) =>
      v >= 1
        ? { feature: u.feature, maxVersionLevel: u.maxVersionLevel, upgradeType: u.upgradeType }
        : { feature: u.feature, maxVersionLevel: u.maxVersionLevel, allowDowngrade: u.upgradeType !== 1 },
    ),
  }));
  const b = resp.body;
  const out = new Map<string, ApiError | null>();
  for (const u of updates) {
    if (b.errorCode !== 0) {
      out.set(u.feature, new ApiError(b.errorCode, b.errorMessage));
      continue;
    }
    const r = b.results.find((x) => x.feature === u.feature);
    out.set(u.feature, r && r.errorCode !== 0 ? new ApiError(r.errorCode, r.errorMessage) : null);
  }
  return out;
}
