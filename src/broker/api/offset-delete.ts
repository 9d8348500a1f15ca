// OffsetDelete (API 47), v0: removes a group's committed offsets of topics it is not subscribed to
// (GROUP_SUBSCRIBED_TO_TOPIC otherwise); only empty groups, or consumer-protocol groups, allow it.
// Partitions of unknown topics get UNKNOWN_TOPIC_OR_PARTITION (KafkaApis.handleOffsetDeleteRequest).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from '../../protocol/generated/protocol/OffsetDelete.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { imageOf } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';

async function handle(
  ctx: RequestContext,
  req: OffsetDeleteRequest,
  services: BrokerServices,
): Promise<Input<OffsetDeleteResponse>> {
  // KafkaApis: DELETE on the group, else OffsetDeleteRequest.getErrorResponse (top level only)
  if (!authorize(services, ctx, AclOperation.DELETE, ResourceType.GROUP, req.groupId))
    return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, throttleTimeMs: 0, topics: [] };
  const image = imageOf(services);
  const unknown = new Map<string, { partitionIndex: number; errorCode: number }[]>();
  const valid: { name: string; partitions: { partitionIndex: number }[] }[] = [];
  for (const t of req.topics) {
    // READ on the topic, checked before its existence
    if (!authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) {
      unknown.set(
        t.name,
        t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        })),
      );
      continue;
    }
    const topic = image.topic(t.name);
    const good = t.partitions.filter((p) => topic?.partitions.has(p.partitionIndex));
    const bad = t.partitions.filter((p) => !topic?.partitions.has(p.partitionIndex));
    if (bad.length)
      unknown.set(
        t.name,
        bad.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION })),
      );
    if (good.length) valid.push({ name: t.name, partitions: good.map((p) => ({ partitionIndex: p.partitionIndex })) });
  }
  const coordinator = await groupCoordinatorOf(services);
  const r = await coordinator.deleteOffsets(req.groupId, valid);
  if (r.errorCode !== ErrorCode.NONE) return { errorCode: r.errorCode, throttleTimeMs: 0, topics: [] };
  const byName = new Map(r.topics.map((t) => [t.name, t.partitions]));
  const topics = [...new Set(req.topics.map((t) => t.name))].map((name) => ({
    name,
    partitions: [...(byName.get(name) ?? []), ...(unknown.get(name) ?? [])],
  }));
  return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics };
}

export const handler: ApiHandler<BrokerServices, OffsetDeleteRequest, Input<OffsetDeleteResponse>> = {
  apiKey: ApiKey.OffsetDelete,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
