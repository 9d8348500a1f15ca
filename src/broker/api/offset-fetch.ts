// OffsetFetch (API 9), v0-9: committed offsets of one group (v0-7; topics null = all, v2+) or of
// several groups (v8+, KIP-709), with the member id and epoch of KIP-848 members (v9). Unknown
// partitions answer offset -1 with no error. Group-level errors: top-level from v2, on every
// requested partition before (OffsetFetchResponse). With requireStable (v7+, KIP-447) a partition
// whose offsets an open transaction has pending answers UNSTABLE_OFFSET_COMMIT and offset -1
// (OffsetMetadataManager.fetchOffsets / fetchAllOffsets). v10 (KIP-848) names topics by id: an id
// the metadata does not know answers UNKNOWN_TOPIC_ID and offset -1 on each asked partition, and a
// fetch of all offsets leaves out topics that no longer have an id (KafkaApis.fetchOffsetsForGroup /
// fetchAllOffsetsForGroup).
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
import { groupCoordinatorOf } from '../group/broker-glue.js';
import type { MetadataImage } from '../metadata/image.js';
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

/** v10: requested topics resolved from their ids; `unknown` are those the metadata does not know. */
function resolveTopicIds(
  image: MetadataImage,
  topics: NonNullable<RequestTopics>,
): { known: NonNullable<RequestTopics>; unknown: NonNullable<RequestTopics> } {
  const known: NonNullable<RequestTopics> = [];
  const unknown: NonNullable<RequestTopics> = [];
  for (const t of topics) {
    const name = t.topicId === ZERO_UUID ? undefined : image.topicById(t.topicId)?.name;
    if (name === undefined) unknown.push(t);
    else known.push({ ...t, name });
  }
  return { known, unknown };
}

async function fetchGroup(
  v: number,
  req: OffsetFetchRequest,
  g: OffsetFetchRequest['groups'][number],
  services: BrokerServices,
): Promise<Input<OffsetFetchResponseGroup>> {
  const coordinator = await groupCoordinatorOf(services);
  const useTopicIds = v >= 10;
  const image = imageOf(services);
  const { known, unknown } =
    useTopicIds && g.topics !== null ? resolveTopicIds(image, g.topics) : { known: g.topics, unknown: [] };
  const r = await coordinator.fetchOffsets({
    groupId: g.groupId,
    memberId: v >= 9 ? g.memberId : null,
    memberEpoch: v >= 9 ? g.memberEpoch : -1,
    topics: known,
  });
  let topics = r.errorCode === ErrorCode.NONE ? r.topics : [];
  if (req.requireStable) topics = markUnstable(services, r.groupId, topics);
  if (!useTopicIds || r.errorCode !== ErrorCode.NONE) return { groupId: r.groupId, errorCode: r.errorCode, topics };
  const withIds = topics
    .map((t) => ({ ...t, topicId: image.topic(t.name)?.id ?? ZERO_UUID }))
    .filter((t) => t.topicId !== ZERO_UUID);
  const unknownTopics = unknown.map((t) => ({
    name: '',
    topicId: t.topicId,
    partitions: t.partitionIndexes.map((partitionIndex) => ({
      partitionIndex,
      committedOffset: -1n,
      committedLeaderEpoch: -1,
      metadata: '',
      errorCode: ErrorCode.UNKNOWN_TOPIC_ID,
    })),
  }));
  return { groupId: r.groupId, errorCode: r.errorCode, topics: [...withIds, ...unknownTopics] };
}

async function handle(
  ctx: RequestContext,
  req: OffsetFetchRequest,
  services: BrokerServices,
): Promise<Input<OffsetFetchResponse>> {
  const v = ctx.apiVersion;
  const coordinator = await groupCoordinatorOf(services);
  if (v >= 8) {
    const groups = [];
    for (const g of req.groups) groups.push(await fetchGroup(v, req, g, services));
    return { throttleTimeMs: 0, groups };
  }
  const topics = v >= 2 ? req.topics : (req.topics ?? []);
  const r = await coordinator.fetchOffsets({ groupId: req.groupId, memberId: null, memberEpoch: -1, topics });
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
  const topicsOut = v >= 7 && req.requireStable ? markUnstable(services, req.groupId, r.topics) : r.topics;
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics: topicsOut };
}

export const handler: ApiHandler<BrokerServices, OffsetFetchRequest, Input<OffsetFetchResponse>> = {
  apiKey: ApiKey.OffsetFetch,
  minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
  maxVersion: 10,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
