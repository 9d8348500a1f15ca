// Forged raft requests for `__cluster_metadata`-0 (Fetch as KafkaRaftClient.buildFetchRequest
// shapes it, FetchSnapshot, DescribeQuorum), shared by the tkafka and Apache Kafka tests.
import { ApiKey } from '../../src/protocol/generated/apis.js';
import type { Input } from '../../src/protocol/codec/types.js';
import type { FetchRequest, FetchResponse } from '../../src/protocol/generated/protocol/Fetch.js';
import type { FetchSnapshotRequest } from '../../src/protocol/generated/protocol/FetchSnapshot.js';
import type { DescribeQuorumRequest } from '../../src/protocol/generated/protocol/DescribeQuorum.js';
import { METADATA_TOPIC_ID, METADATA_TOPIC_NAME } from '../../src/broker/raft/types.js';
import { RawClient } from './raw-client.js';

export interface FetchArgs {
  clusterId: string | null;
  replicaId: number;
  /** CurrentLeaderEpoch. */
  epoch: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  maxWaitMs: number;
  maxBytes?: number;
}

export function fetchBody(a: FetchArgs): Input<FetchRequest> {
  return {
    clusterId: a.clusterId,
    replicaId: -1,
    replicaState: { replicaId: a.replicaId, replicaEpoch: -1n },
    maxWaitMs: a.maxWaitMs,
    minBytes: 0,
    maxBytes: a.maxBytes ?? 8 * 1024 * 1024,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: METADATA_TOPIC_NAME,
        topicId: METADATA_TOPIC_ID,
        partitions: [
          {
            partition: 0,
            currentLeaderEpoch: a.epoch,
            fetchOffset: BigInt(a.fetchOffset),
            lastFetchedEpoch: a.lastFetchedEpoch,
            logStartOffset: -1n,
            partitionMaxBytes: 0,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

export interface FetchSnapshotArgs {
  clusterId: string | null;
  replicaId: number;
  epoch: number;
  snapshotId: { endOffset: bigint; epoch: number };
  position: bigint;
  maxBytes: number;
}

export function fetchSnapshotBody(a: FetchSnapshotArgs): Input<FetchSnapshotRequest> {
  return {
    clusterId: a.clusterId,
    replicaId: a.replicaId,
    maxBytes: a.maxBytes,
    topics: [
      {
        name: METADATA_TOPIC_NAME,
        partitions: [{ partition: 0, currentLeaderEpoch: a.epoch, snapshotId: a.snapshotId, position: a.position }],
      },
    ],
  };
}

export function describeQuorumBody(): Input<DescribeQuorumRequest> {
  return { topics: [{ topicName: METADATA_TOPIC_NAME, partitions: [{ partitionIndex: 0 }] }] };
}

export function metadataPartition(r: FetchResponse) {
  const p = r.responses[0]?.partitions[0];
  if (!p) throw new Error(`no partition in the Fetch response (error ${r.errorCode})`);
  return p;
}

/** The cluster id a node reports (Metadata v12 on the broker listener, DescribeCluster on a controller one). */
export async function clusterIdOf(port: number): Promise<string> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.DescribeCluster, 0, { includeClusterAuthorizedOperations: false });
    if (!r.clusterId) throw new Error(`DescribeCluster error ${r.errorCode}`);
    return r.clusterId;
  } finally {
    c.close();
  }
}
