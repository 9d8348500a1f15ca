// DescribeShareGroupOffsets (API 90), v0-1 (Kafka 4.4): each share-partition's start offset and
// leader epoch, read from the share coordinator through the persister (ReadShareGroupStateSummary).
// KafkaApis.handleDescribeShareGroupOffsetsRequest, per group: UNSUPPORTED_VERSION while share.version
// is off, GROUP_AUTHORIZATION_FAILED without DESCRIBE on the group; topics null describes every
// initialized partition; a topic without DESCRIBE answers TOPIC_AUTHORIZATION_FAILED per partition.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeShareGroupOffsetsRequest,
  DescribeShareGroupOffsetsResponse,
} from '../../protocol/generated/protocol/DescribeShareGroupOffsets.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';
import type { ShareOffsetsGroup } from '../group/coordinator.js';

async function handle(
  ctx: RequestContext,
  req: DescribeShareGroupOffsetsRequest,
  services: BrokerServices,
): Promise<Input<DescribeShareGroupOffsetsResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  const groups: ShareOffsetsGroup[] = [];
  for (const g of req.groups) {
    const failed = (code: number): ShareOffsetsGroup => ({
      groupId: g.groupId,
      errorCode: code,
      errorMessage: errorInfo(code).message,
      topics: [],
    });
    if (!coordinator.shareGroupsEnabled) {
      groups.push(failed(ErrorCode.UNSUPPORTED_VERSION));
      continue;
    }
    if (!authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId)) {
      groups.push(failed(ErrorCode.GROUP_AUTHORIZATION_FAILED));
      continue;
    }
    if (g.topics === null) {
      groups.push(await coordinator.describeShareGroupOffsets(g.groupId, null));
      continue;
    }
    const allowed = g.topics.filter((t) =>
      authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topicName),
    );
    const denied = g.topics.filter((t) => !allowed.includes(t));
    const described = await coordinator.describeShareGroupOffsets(g.groupId, allowed);
    const code = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    groups.push({
      ...described,
      topics: [
        ...described.topics,
        ...denied.map((t) => ({
          topicName: t.topicName,
          topicId: ZERO_UUID,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p,
            startOffset: -1n,
            leaderEpoch: 0,
            lag: -1n,
            errorCode: code,
            errorMessage: errorInfo(code).message,
          })),
        })),
      ],
    });
  }
  return { throttleTimeMs: 0, groups };
}

export const handler: ApiHandler<
  BrokerServices,
  DescribeShareGroupOffsetsRequest,
  Input<DescribeShareGroupOffsetsResponse>
> = {
  apiKey: ApiKey.DescribeShareGroupOffsets,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
