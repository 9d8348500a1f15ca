// Fetching the quorum description the way Kafka's Admin.describeMetadataQuorum does: DescribeQuorum
// for __cluster_metadata-0, sent to any broker (which forwards it to the active controller) or,
// with --bootstrap-controller, to the active controller found with DescribeCluster
// (endpointType CONTROLLER); the response is checked and turned into Kafka's QuorumInfo.
import { ApiError, checkError } from '../../client/errors.js';
import type { KafkaClient } from '../../client/client.js';
import type { BrokerConnection } from '../../client/connection.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { DescribeClusterResponse } from '../../protocol/generated/protocol/DescribeCluster.js';
import type { DescribeQuorumResponse } from '../../protocol/generated/protocol/DescribeQuorum.js';

export const METADATA_TOPIC = '__cluster_metadata';

export interface ReplicaState {
  replicaId: number;
  /** Base64 Uuid text; the all-zero id when unknown. */
  replicaDirectoryId: string;
  logEndOffset: bigint;
  /** null = OptionalLong.empty (the response said -1). */
  lastFetchTimestamp: bigint | null;
  lastCaughtUpTimestamp: bigint | null;
}

export interface Endpoint {
  name: string;
  host: string;
  port: number;
}

export interface QuorumInfo {
  leaderId: number;
  leaderEpoch: number;
  highWatermark: bigint;
  voters: ReplicaState[];
  observers: ReplicaState[];
  nodes: Map<number, Endpoint[]>;
}

export type BootstrapMode = 'broker' | 'controller';

/** UnknownServerException, as the Admin client raises it for malformed responses. */
const unknownServer = (msg: string): ApiError => new ApiError(-1, msg);

/** One request on `conn`; T is the generated response type of `apiName`. */
async function send<T>(conn: BrokerConnection, apiName: string, body: (version: number) => unknown): Promise<T> {
  const { KafkaClient: K } = await import('../../client/client.js');
  const api = K.api(apiName);
  const version = conn.pickVersion(api);
  return (await conn.send<T>(api, body(version), { version })).body;
}

/** DescribeCluster as Admin.describeCluster sends it (endpoint type by bootstrap mode). */
export async function describeCluster(conn: BrokerConnection, mode: BootstrapMode): Promise<DescribeClusterResponse> {
  const body = await send<DescribeClusterResponse>(conn, 'DescribeCluster', (v) => ({
    includeClusterAuthorizedOperations: false,
    ...(v >= 1 ? { endpointType: mode === 'controller' ? 2 : 1 } : {}),
  }));
  checkError(body.errorCode, body.errorMessage);
  return body;
}

/**
 * Where DescribeQuorum (and AddRaftVoter, RemoveRaftVoter, UnregisterController) go: any broker, or the
 * active controller among the bootstrap controllers (KafkaAdminClient's LeastLoadedBrokerOrActiveKController).
 */
export async function activeTarget(client: KafkaClient, mode: BootstrapMode): Promise<BrokerConnection> {
  const any = await client.anyConnection();
  if (mode === 'broker') return any;
  const cluster = await describeCluster(any, 'controller');
  const active = cluster.brokers.find((b) => b.brokerId === cluster.controllerId);
  if (!active) return any;
  const host = active.host.includes(':') ? `[${active.host}]` : active.host;
  return client.connectionTo(`${host}:${active.port}`);
}

export async function clusterId(client: KafkaClient, mode: BootstrapMode): Promise<string> {
  return client.call(
    'describeCluster',
    async () => (await describeCluster(await client.anyConnection(), mode)).clusterId,
  );
}

type QuorumReplica = DescribeQuorumResponse['topics'][number]['partitions'][number]['currentVoters'][number];

const toReplica = (r: QuorumReplica): ReplicaState => ({
  replicaId: r.replicaId,
  replicaDirectoryId: r.replicaDirectoryId ?? ZERO_UUID,
  logEndOffset: BigInt(r.logEndOffset),
  lastFetchTimestamp: BigInt(r.lastFetchTimestamp) === -1n ? null : BigInt(r.lastFetchTimestamp),
  lastCaughtUpTimestamp: BigInt(r.lastCaughtUpTimestamp) === -1n ? null : BigInt(r.lastCaughtUpTimestamp),
});

/** KafkaAdminClient.describeMetadataQuorum: the request, the response checks, QuorumInfo. */
export async function describeQuorum(client: KafkaClient, mode: BootstrapMode): Promise<QuorumInfo> {
  return client.call('describeMetadataQuorum', async () => {
    const conn = await activeTarget(client, mode);
    const body = await send<DescribeQuorumResponse>(conn, 'DescribeQuorum', () => ({
      topics: [{ topicName: METADATA_TOPIC, partitions: [{ partitionIndex: 0 }] }],
    }));
    checkError(body.errorCode, body.errorMessage);
    if (body.topics.length !== 1)
      throw unknownServer(`DescribeMetadataQuorum received ${body.topics.length} topics when 1 was expected`);
    const topic = body.topics[0];
    if (topic.topicName !== METADATA_TOPIC) {
      throw unknownServer(
        `DescribeMetadataQuorum received a topic with name ${topic.topicName} when ${METADATA_TOPIC} was expected`,
      );
    }
    if (topic.partitions.length !== 1) {
      throw unknownServer(
        `DescribeMetadataQuorum received a topic ${topic.topicName} with ${topic.partitions.length} partitions when 1 was expected`,
      );
    }
    const p = topic.partitions[0];
    if (p.partitionIndex !== 0)
      throw unknownServer(
        `DescribeMetadataQuorum received a single partition with index ${p.partitionIndex} when 0 was expected`,
      );
    checkError(p.errorCode, p.errorMessage);
    const nodes = new Map<number, Endpoint[]>();
    for (const n of body.nodes ?? [])
      nodes.set(
        n.nodeId,
        n.listeners.map((l: Endpoint) => ({ name: l.name, host: l.host, port: l.port })),
      );
    return {
      leaderId: p.leaderId,
      leaderEpoch: p.leaderEpoch,
      highWatermark: BigInt(p.highWatermark),
      voters: p.currentVoters.map(toReplica),
      observers: p.observers.map(toReplica),
      nodes,
    };
  });
}
