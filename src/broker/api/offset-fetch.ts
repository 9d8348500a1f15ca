// OffsetFetch (API 9), v0-9: committed offsets of one group (v0-7; topics null = all, v2+) or of
// several groups (v8+, KIP-709), with the member id and epoch of KIP-848 members (v9). Unknown
// partitions answer offset -1 with no error. Group-level errors: top-level from v2, on every
// requested partition before (OffsetFetchResponse). With requireStable (v7+, KIP-447) a partition
// whose offsets an open transaction has pending answers UNSTABLE_OFFSET_COMMIT and offset -1
// (OffsetMetadataManager.fetchOffsets / fetchAllOffsets).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { OffsetFetchRequest, OffsetFetchResponse } from '../../protocol/generated/protocol/OffsetFetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';
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

async function handle(
  ctx: RequestContext,
  req: OffsetFetchRequest,
  services: BrokerServices,
): Promise<Input<OffsetFetchResponse>> {
  const v = ctx.apiVersion;
  const coordinator = await groupCoordinatorOf(services);
  if (v >= 8) {
    const groups = [];
    for (const g of req.groups) {
      const r = await coordinator.fetchOffsets({
        groupId: g.groupId,
        memberId: v >= 9 ? g.memberId : null,
        memberEpoch: v >= 9 ? g.memberEpoch : -1,
        topics: g.topics,
      });
      let topics = r.errorCode === ErrorCode.NONE ? r.topics : [];
      if (req.requireStable) topics = markUnstable(services, r.groupId, topics);
      groups.push({ groupId: r.groupId, errorCode: r.errorCode, topics });
    }
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
  maxVersion: 9,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
