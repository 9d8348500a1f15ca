// OffsetFetch (API 9), v0-9: committed offsets of one group (v0-7; topics null = all, v2+) or of
// several groups (v8+, KIP-709), with the member id and epoch of KIP-848 members (v9). Unknown
// partitions answer offset -1 with no error. Group-level errors: top-level from v2, on every
// requested partition before (OffsetFetchResponse). With requireStable (v7+, KIP-447) a partition
// whose offsets an open transaction has pending answers UNSTABLE_OFFSET_COMMIT and offset -1
// (OffsetMetadataManager.fetchOffsets / fetchAllOffsets). v10 (KIP-848) names topics by id: an id
// the metadata does not know answers UNKNOWN_TOPIC_ID and offset -1 on each asked partition, and a
// fetch of all offsets leaves out topics that no longer have an id (KafkaApis.fetchOffsetsForGroup /
// fetchAllOffsetsForGroup).
// ACLs: DESCRIBE on the group (else GROUP_AUTHORIZATION_FAILED for the group), DESCRIBE on each asked
// topic (else TOPIC_AUTHORIZATION_FAILED, offset -1); a fetch of all offsets leaves such topics out.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  OffsetFetchRequest,
  OffsetFetchResponse,
  OffsetFetchResponseGroup,
} from '../../protocol/generated/protocol/OffsetFetch.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';
import { imageOf } from './admin-support.js';
import type { FetchGroupResponse } from '../group/offsets.js';

type Topics = FetchGroupResponse['topics'];

/** requireStable: partitions with pending transactional offsets become UNSTABLE_OFFSET_COMMIT. */
function markUnstable(services: BrokerServices, groupId: string, topics: Topics): Topics {
  // no transaction coordinator yet: no transactional offsets either
  const txn = services.txnCoordinator;
  const offsets = txn?.offsets();
  if (!offsets) return topics;
  const pending = (topic: string, partition: number): boolean => offsets.hasPendingOffsets(groupId, topic, partition);
  const unstable = (partitionIndex: number) => ({
    partitionIndex,
    committedOffset: -1n,
    committedLeaderEpoch: -1,
    metadata: '',
    errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
  });
  return topics.map((t) => ({
    ...t,
    partitions: t.partitions.map((p) => (pending(t.name, p.partitionIndex) ? unstable(p.partitionIndex) : p)),
  }));
}

type RequestTopics = OffsetFetchRequest['groups'][number]['topics'];

/** A requested topic's partitions answering `errorCode` and offset -1 (KafkaApis.fetchOffsetsForGroup). */
function erroredTopic(t: NonNullable<RequestTopics>[number], errorCode: number): Topics[number] & { topicId: string } {
  return {
    name: t.name,
    topicId: t.topicId,
    partitions: t.partitionIndexes.map((partitionIndex) => ({
      partitionIndex,
      committedOffset: -1n,
      committedLeaderEpoch: -1,
      metadata: '',
      errorCode,
    })),
  };
}

type Ctx = Pick<RequestContext, 'principal' | 'clientAddress'>;

async function fetchGroup(
  ctx: Ctx,
  v: number,
  req: OffsetFetchRequest,
  g: OffsetFetchRequest['groups'][number],
  services: BrokerServices,
): Promise<Input<OffsetFetchResponseGroup>> {
  // KafkaApis: DESCRIBE on the group, else the group alone with GROUP_AUTHORIZATION_FAILED
  if (!authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId))
    return { groupId: g.groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
  const coordinator = await groupCoordinatorOf(services);
  const useTopicIds = v >= 10;
  const image = imageOf(services);
  const describable = (name: string): boolean =>
    authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name);
  // asked topics: unknown ids (v10) answer UNKNOWN_TOPIC_ID, topics without DESCRIBE
  // TOPIC_AUTHORIZATION_FAILED, both after the fetched ones in request order
  let asked = g.topics;
  const errored: (Topics[number] & { topicId: string })[] = [];
  if (g.topics !== null) {
    asked = [];
    for (const t of g.topics) {
      const name = useTopicIds ? (t.topicId === ZERO_UUID ? undefined : image.topicById(t.topicId)?.name) : t.name;
      if (name === undefined) errored.push(erroredTopic({ ...t, name: '' }, ErrorCode.UNKNOWN_TOPIC_ID));
      else if (describable(name)) asked.push({ ...t, name });
      else errored.push(erroredTopic({ ...t, name }, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
    }
  }
  const r = await coordinator.fetchOffsets({
    groupId: g.groupId,
    memberId: v >= 9 ? g.memberId : null,
    memberEpoch: v >= 9 ? g.memberEpoch : -1,
    topics: asked,
  });
  let topics = r.errorCode === ErrorCode.NONE ? r.topics : [];
  // all topics: those without DESCRIBE are left out (fetchAllOffsetsForGroup)
  if (g.topics === null) topics = topics.filter((t) => describable(t.name));
  if (req.requireStable) topics = markUnstable(services, r.groupId, topics);
  if (r.errorCode !== ErrorCode.NONE) return { groupId: r.groupId, errorCode: r.errorCode, topics };
  if (!useTopicIds) return { groupId: r.groupId, errorCode: r.errorCode, topics: [...topics, ...errored] };
  const withIds = topics
    .map((t) => ({ ...t, topicId: image.topic(t.name)?.id ?? ZERO_UUID }))
    .filter((t) => t.topicId !== ZERO_UUID);
  return { groupId: r.groupId, errorCode: r.errorCode, topics: [...withIds, ...errored] };
}

async function handle(
  ctx: RequestContext,
  req: OffsetFetchRequest,
  services: BrokerServices,
): Promise<Input<OffsetFetchResponse>> {
  const v = ctx.apiVersion;
  if (v >= 8) {
    const groups = [];
    for (const g of req.groups) groups.push(await fetchGroup(ctx, v, req, g, services));
    return { throttleTimeMs: 0, groups };
  }
  // v1-7: one group, answered as OffsetFetchResponse(groups, version) converts it
  const topics = v >= 2 ? req.topics : (req.topics ?? []);
  const denied = !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.GROUP, req.groupId);
  // the group's error: top level from v2, on every asked partition before (as Kafka 4.4 answers)
  if (denied && v >= 2) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] };
  const r = denied
    ? { groupId: req.groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, topics: [] }
    : await fetchGroup(
        ctx,
        v,
        req,
        {
          groupId: req.groupId,
          memberId: null,
          memberEpoch: -1,
          topics: topics?.map((t) => ({ ...t, topicId: ZERO_UUID })) ?? null,
        },
        services,
      );
  if (r.errorCode !== ErrorCode.NONE) {
    if (v >= 2) return { throttleTimeMs: 0, errorCode: r.errorCode, topics: [] };
    return {
      throttleTimeMs: 0,
      topics: (topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => ({
          partitionIndex: p,
          committedOffset: -1n,
          committedLeaderEpoch: -1,
          metadata: '',
          errorCode: r.errorCode,
        })),
      })),
    };
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics: r.topics as OffsetFetchResponse['topics'] };
}

export const handler: ApiHandler<BrokerServices, OffsetFetchRequest, Input<OffsetFetchResponse>> = {
  apiKey: ApiKey.OffsetFetch,
  minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 10,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
