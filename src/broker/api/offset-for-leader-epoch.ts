// OffsetForLeaderEpoch (API 23), v0-4: for each partition, the end offset of the largest leader
// epoch at or below the requested one (the leader epoch cache; the current epoch ends at the log
// end offset). Followers use it to find where to truncate, consumers (KIP-320) to detect log
// truncation after a leader change. An epoch the cache cannot place gives -1/-1 without error.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  OffsetForLeaderEpochRequest,
  OffsetForLeaderEpochResponse,
} from '../../protocol/generated/protocol/OffsetForLeaderEpoch.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorizeCluster } from './authz.js';
import { partitionByAuthorized } from './authz-groups.js';
import { ErrorCode } from '../../protocol/errors.js';

function handleOffsetForLeaderEpoch(
  ctx: RequestContext,
  req: OffsetForLeaderEpochRequest,
  services: BrokerServices,
): Input<OffsetForLeaderEpochResponse> {
  const rm = services.replicas as ReplicaManager;
  const v = ctx.apiVersion;
  // KafkaApis: CLUSTER_ACTION (followers) answers every topic, else DESCRIBE on each topic; the denied
  // topics follow the others with TOPIC_AUTHORIZATION_FAILED on each partition
  const { authorized, unauthorized } = authorizeCluster(services, ctx, AclOperation.CLUSTER_ACTION)
    ? { authorized: req.topics, unauthorized: [] }
    : partitionByAuthorized(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, req.topics, (t) => t.topic);
  const denied = unauthorized.map((t) => ({
    topic: t.topic,
    partitions: t.partitions.map((p) => ({
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      partition: p.partition,
      leaderEpoch: -1,
      endOffset: -1n,
    })),
  }));
  return {
    throttleTimeMs: 0,
    topics: [
      ...authorized.map((t) => ({
        topic: t.topic,
        partitions: t.partitions.map((p) => {
          // v0-1 carry no current leader epoch: no fencing check
          const r = rm.lastOffsetForLeaderEpoch(
            t.topic,
            p.partition,
            v >= 2 ? p.currentLeaderEpoch : -1,
            p.leaderEpoch,
          );
          return {
            errorCode: r.errorCode,
            partition: p.partition,
            leaderEpoch: v >= 1 ? r.leaderEpoch : -1,
            endOffset: BigInt(r.endOffset),
          };
        }),
      })),
      ...denied,
    ],
  };
}

export const handler: ApiHandler<BrokerServices, OffsetForLeaderEpochRequest, Input<OffsetForLeaderEpochResponse>> = {
  apiKey: ApiKey.OffsetForLeaderEpoch,
  minVersion: 2, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 4,
  listeners: ['broker'],
  handle: handleOffsetForLeaderEpoch,
  errorResponse: genericErrorResponse,
};
