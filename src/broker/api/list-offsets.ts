// ListOffsets (API 2), v1-10 (Kafka 4 removed v0 and its old offsets array, KIP-896): one offset
// per partition: earliest (-2),
// latest (-1), max timestamp (-3, v7+), earliest local (-4, v8+), latest tiered (-5, v9+) or the
// first offset whose timestamp is at or after a time (the time index). Consumers never see offsets
// at or above the high watermark (last stable offset under read_committed). Leader epochs in v4+.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ListOffsetsRequest,
  ListOffsetsResponse,
  ListOffsetsResponseListOffsetsPartitionResponse,
  ListOffsetsResponseListOffsetsTopicResponse,
} from '../../protocol/generated/protocol/ListOffsets.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType } from './authz.js';
import { partitionByAuthorized } from './authz-groups.js';

async function handleListOffsets(
  ctx: RequestContext,
  req: ListOffsetsRequest,
  services: BrokerServices,
): Promise<Input<ListOffsetsResponse>> {
  const rm = services.replicas as ReplicaManager;
  const v = ctx.apiVersion;
  // ListOffsetsRequest.duplicatePartitions: a partition named twice is an invalid request
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const k = `${t.name}\u0000${p.partitionIndex}`;
      if (seen.has(k)) duplicates.add(k);
      seen.add(k);
    }
  }
  // KafkaApis: topics without DESCRIBE answer TOPIC_AUTHORIZATION_FAILED (timestamp and offset -1), after the others
  const { authorized, unauthorized } = partitionByAuthorized(
    services,
    ctx,
    AclOperation.DESCRIBE,
    ResourceType.TOPIC,
    req.topics,
    (t) => t.name,
  );
  const deniedTopics = unauthorized.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      timestamp: -1n,
      offset: -1n,
    })),
  }));
  const topics: Input<ListOffsetsResponseListOffsetsTopicResponse>[] = await Promise.all(
    authorized.map(async (t) => ({
      name: t.name,
      partitions: await Promise.all(
        t.partitions.map(async (p): Promise<Input<ListOffsetsResponseListOffsetsPartitionResponse>> => {
          const timestamp = Number(p.timestamp);
          const error = (errorCode: number): Input<ListOffsetsResponseListOffsetsPartitionResponse> => ({
            partitionIndex: p.partitionIndex,
            errorCode,
            timestamp: -1n,
            offset: -1n,
          });
          if (duplicates.has(`${t.name}\u0000${p.partitionIndex}`)) return error(ErrorCode.INVALID_REQUEST);
          const r = await rm.listOffset(t.name, p.partitionIndex, {
            timestamp,
            currentLeaderEpoch: p.currentLeaderEpoch,
            isolationLevel: req.isolationLevel,
            replicaId: req.replicaId,
            version: v,
          });
          if (r.errorCode !== ErrorCode.NONE) return error(r.errorCode);
          const out: Input<ListOffsetsResponseListOffsetsPartitionResponse> = {
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCode.NONE,
            timestamp: BigInt(r.timestamp),
            offset: BigInt(r.offset),
          };
          if (v >= 4) out.leaderEpoch = r.leaderEpoch;
          return out;
        }),
      ),
    })),
  );
  return { throttleTimeMs: 0, topics: [...topics, ...deniedTopics] };
}

export const handler: ApiHandler<BrokerServices, ListOffsetsRequest, Input<ListOffsetsResponse>> = {
  apiKey: ApiKey.ListOffsets,
  minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 11, // v11: EARLIEST_PENDING_UPLOAD_TIMESTAMP (KIP-1023)
  listeners: ['broker'],
  handle: handleListOffsets,
  errorResponse: genericErrorResponse,
};
