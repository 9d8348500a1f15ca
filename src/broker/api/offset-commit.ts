// OffsetCommit (API 8), v2-10: commits of group members (generation or, for KIP-848 members, member
// epoch, checked by the coordinator) and of simple consumers (generation -1, no member id).
// Partitions of unknown topics get UNKNOWN_TOPIC_OR_PARTITION (KafkaApis.handleOffsetCommitRequest);
// a group-level error lands on every partition (OffsetCommitRequest.getErrorResponse).
// ACLs: READ on the group (else 30 on every partition), READ on each topic (else 29 on its partitions).
// v2-4 carry a retention time, v6+ the leader epoch, v7+ group.instance.id. v10 (KIP-848) names
// topics by id only: an id the metadata does not know gets UNKNOWN_TOPIC_ID on every partition,
// and the response names topics by id.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { OffsetCommitRequest, OffsetCommitResponse } from '../../protocol/generated/protocol/OffsetCommit.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { imageOf } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';
import { codeOf } from '../group/coordinator.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

type Partitions = { partitionIndex: number; errorCode: number }[];

async function handle(
  ctx: RequestContext,
  req: OffsetCommitRequest,
  services: BrokerServices,
): Promise<Input<OffsetCommitResponse>> {
  const v = ctx.apiVersion;
  // KafkaApis: READ on the group first (every partition answers GROUP_AUTHORIZATION_FAILED)
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return genericErrorResponse(ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED) as Input<OffsetCommitResponse>;
  const image = imageOf(services);
  const useTopicIds = v >= 10;
  const errors = new Map<string, Partitions>();
  const valid: OffsetCommitRequest['topics'] = [];
  // v10: the name comes from the id (KafkaApis: metadataCache.getTopicName); an unknown id leaves it empty
  const requested = useTopicIds
    ? req.topics.map((t) => ({ ...t, name: t.topicId === ZERO_UUID ? '' : (image.topicById(t.topicId)?.name ?? '') }))
    : req.topics;
  const unknownIds = new Map<string, Partitions>();
  for (const t of requested) {
    if (useTopicIds && t.name === '') {
      const bad = unknownIds.get(t.topicId) ?? [];
      for (const p of t.partitions)
        bad.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_ID });
      unknownIds.set(t.topicId, bad);
      continue;
    }
    // after the unknown id, before the unknown name: READ on the topic
    if (!authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) {
      const denied = errors.get(t.name) ?? [];
      for (const p of t.partitions)
        denied.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
      errors.set(t.name, denied);
      continue;
    }
    const topic = image.topic(t.name);
    const bad: Partitions = [];
    const good = t.partitions.filter((p) => {
      if (topic && topic.partitions.has(p.partitionIndex)) return true;
      bad.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
      return false;
    });
    if (bad.length > 0) errors.set(t.name, bad);
    if (good.length > 0) valid.push({ ...t, partitions: good });
  }
  let committed: { name: string; partitions: Partitions }[] = [];
  if (valid.length > 0) {
    const coordinator = await groupCoordinatorOf(services);
    const commit = {
      groupId: req.groupId,
      generationIdOrMemberEpoch: v >= 1 ? req.generationIdOrMemberEpoch : -1,
      memberId: v >= 1 ? req.memberId : '',
      groupInstanceId: v >= 7 ? req.groupInstanceId : null,
      retentionTimeMs: v >= 2 && v <= 4 ? req.retentionTimeMs : -1n,
      topics: valid.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          committedOffset: p.committedOffset,
          committedLeaderEpoch: v >= 6 ? p.committedLeaderEpoch : -1,
          committedMetadata: p.committedMetadata,
        })),
      })),
    };
    try {
      committed = await coordinator.commitOffsets(commit, v);
    } catch (e) {
      const code = codeOf(e);
      committed = valid.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      }));
    }
  }
  // one entry per requested topic, in request order
  const byName = new Map(committed.map((t) => [t.name, t.partitions]));
  if (useTopicIds) {
    const ids = [...new Set(requested.map((t) => t.topicId))];
    const nameOf = new Map(requested.map((t) => [t.topicId, t.name]));
    const topics = ids.map((topicId) => {
      const name = nameOf.get(topicId) ?? '';
      const partitions =
        name === '' ? (unknownIds.get(topicId) ?? []) : [...(byName.get(name) ?? []), ...(errors.get(name) ?? [])];
      return { name, topicId, partitions };
    });
    return { throttleTimeMs: 0, topics };
  }
  const topics = [...new Set(req.topics.map((t) => t.name))].map((name) => ({
    name,
    partitions: [...(byName.get(name) ?? []), ...(errors.get(name) ?? [])],
  }));
  return { throttleTimeMs: 0, topics };
}

export const handler: ApiHandler<BrokerServices, OffsetCommitRequest, Input<OffsetCommitResponse>> = {
  apiKey: ApiKey.OffsetCommit,
  minVersion: 2, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 10,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
