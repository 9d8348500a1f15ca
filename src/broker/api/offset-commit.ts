// OffsetCommit (API 8), v0-9: commits of group members (generation or, for KIP-848 members, member
// epoch, checked by the coordinator) and of simple consumers (generation -1, no member id).
// Partitions of unknown topics get UNKNOWN_TOPIC_OR_PARTITION (KafkaApis.handleOffsetCommitRequest);
// a group-level error lands on every partition (OffsetCommitRequest.getErrorResponse).
// v0 commits carry no generation, v2-4 a retention time, v6+ the leader epoch, v7+ group.instance.id.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { OffsetCommitRequest, OffsetCommitResponse } from '../../protocol/generated/protocol/OffsetCommit.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { imageOf } from './admin-support.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';
import { codeOf } from '../group/coordinator.js';

type Partitions = { partitionIndex: number; errorCode: number }[];

async function handle(
  ctx: RequestContext,
  req: OffsetCommitRequest,
  services: BrokerServices,
): Promise<Input<OffsetCommitResponse>> {
  const v = ctx.apiVersion;
  const image = imageOf(services);
  const errors = new Map<string, Partitions>();
  const valid: OffsetCommitRequest['topics'] = [];
  for (const t of req.topics) {
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
  const topics = [...new Set(req.topics.map((t) => t.name))].map((name) => ({
    name,
    partitions: [...(byName.get(name) ?? []), ...(errors.get(name) ?? [])],
  }));
  return { throttleTimeMs: 0, topics };
}

export const handler: ApiHandler<BrokerServices, OffsetCommitRequest, Input<OffsetCommitResponse>> = {
  apiKey: ApiKey.OffsetCommit,
  minVersion: 2, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 9,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
