// DeleteRecords (API 21), v0-2: moves each partition's log start offset (its low watermark) up to
// the given offset, -1 meaning the high watermark; offsets beyond the high watermark are
// OFFSET_OUT_OF_RANGE, compact-only topics POLICY_VIOLATION. Segments wholly below the new start
// are removed by the log's retention pass. (KafkaApis.handleDeleteRecordsRequest +
// ReplicaManager.deleteRecords; with one replica the low watermark is reached at once.)
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { DeleteRecordsRequest, DeleteRecordsResponse } from '../../protocol/generated/protocol/DeleteRecords.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, filterAuthorized, ResourceType } from './authz-admin.js';

async function handleDeleteRecords(
  ctx: RequestContext,
  req: DeleteRecordsRequest,
  services: BrokerServices,
): Promise<Input<DeleteRecordsResponse>> {
  const rm = services.replicas as ReplicaManager;
  // KafkaApis.handleDeleteRecordsRequest: DELETE on the topic, else 29 for each of its partitions
  const allowed = filterAuthorized(
    services,
    ctx,
    AclOperation.DELETE,
    ResourceType.TOPIC,
    req.topics.map((t) => t.name),
  );
  const topics = await Promise.all(
    req.topics.map(async (t) => ({
      name: t.name,
      partitions: await Promise.all(
        t.partitions.map(async (p) => {
          if (!allowed.has(t.name))
            return {
              partitionIndex: p.partitionIndex,
              lowWatermark: -1n,
              errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
            };
          if (!rm.contains(t.name, p.partitionIndex))
            return {
              partitionIndex: p.partitionIndex,
              lowWatermark: -1n,
              errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
            };
          const offset = p.offset < -1n ? -2 : Number(p.offset);
          const r = await rm.deleteRecords(t.name, p.partitionIndex, offset);
          return { partitionIndex: p.partitionIndex, lowWatermark: BigInt(r.lowWatermark), errorCode: r.errorCode };
        }),
      ),
    })),
  );
  return { throttleTimeMs: 0, topics };
}

export const handler: ApiHandler<BrokerServices, DeleteRecordsRequest, Input<DeleteRecordsResponse>> = {
  apiKey: ApiKey.DeleteRecords,
  minVersion: 0,
  maxVersion: 2,
  listeners: ['broker'],
  handle: handleDeleteRecords,
  errorResponse: genericErrorResponse,
};
