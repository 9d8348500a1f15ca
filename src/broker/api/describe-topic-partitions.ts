// DescribeTopicPartitions (API 75), v0: topic partitions with eligible leader replicas, paginated
// by a cursor and a response partition limit (Kafka's DescribeTopicPartitionsRequestHandler and
// KRaftMetadataCache.getTopicMetadataForDescribeTopicResponse). Topics without DESCRIBE are left out of
// listings and answer TOPIC_AUTHORIZATION_FAILED when asked by name.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeTopicPartitionsRequest,
  DescribeTopicPartitionsResponse,
  DescribeTopicPartitionsResponsePartition,
  DescribeTopicPartitionsResponseTopic,
} from '../../protocol/generated/protocol/DescribeTopicPartitions.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { errorResponseAs, genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, topicAuthorizedOperations } from './authz.js';
import {
  AUTHORIZED_OPERATIONS_OMITTED,
  imageOf,
  invalidTopicReason,
  isInternalTopic,
  leaderOnListener,
  offlineReplicas,
} from './admin-support.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

type Topic = DescribeTopicPartitionsResponseTopic;
type Partition = DescribeTopicPartitionsResponsePartition;

/** Java's String.compareTo (UTF-16 code units), which orders the topics and the cursor. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Partitions [start, start + max) of an existing topic, and the next index (-1: none left). */
function partitionsOf(
  image: MetadataImage,
  name: string,
  listener: string,
  start: number,
  max: number,
): { partitions: Partition[]; next: number } {
  const topic = image.topic(name)!;
  const count = topic.partitions.size;
  const upper = Math.min(count, start + max);
  const partitions: Partition[] = [];
  for (let id = start; id < upper; id++) {
    const p = topic.partitions.get(id);
    if (!p) continue;
    partitions.push({
      errorCode: ErrorCode.NONE,
      partitionIndex: id,
      leaderId: leaderOnListener(image, p.leader, listener) ? p.leader : -1,
      leaderEpoch: p.leaderEpoch,
      replicaNodes: p.replicas.slice(),
      isrNodes: p.isr.slice(),
      eligibleLeaderReplicas: p.eligibleLeaderReplicas.slice(),
      lastKnownElr: p.lastKnownElr.slice(),
      offlineReplicas: offlineReplicas(image, p, listener),
    });
  }
  return { partitions, next: upper < count ? upper : -1 };
}

function handle(
  ctx: RequestContext,
  req: DescribeTopicPartitionsRequest,
  services: BrokerServices,
): Input<DescribeTopicPartitionsResponse> {
  const image = imageOf(services);
  const fetchAll = req.topics.length === 0;
  const cursor = req.cursor;
  const cursorTopic = cursor ? cursor.topicName : '';
  const names = new Set<string>();
  for (const n of fetchAll ? image.topicsByName.keys() : req.topics.map((t) => t.name)) {
    if (compare(n, cursorTopic) >= 0) names.add(n);
  }
  if (!fetchAll && cursor && !names.has(cursor.topicName)) {
    return errorResponseAs<Input<DescribeTopicPartitionsResponse>>(
      ApiKey.DescribeTopicPartitions,
      req,
      ErrorCode.INVALID_REQUEST,
      ctx.apiVersion,
    );
  }
  if (cursor && cursor.partitionIndex < 0) {
    return errorResponseAs<Input<DescribeTopicPartitionsResponse>>(
      ApiKey.DescribeTopicPartitions,
      req,
      ErrorCode.INVALID_REQUEST,
      ctx.apiVersion,
    );
  }
  const limit = Math.max(
    Math.min(services.config.getInt('max.request.partition.size.limit'), req.responsePartitionLimit),
    1,
  );
  const topics: Topic[] = [];
  const response: DescribeTopicPartitionsResponse = { throttleTimeMs: 0, topics, nextCursor: null };
  let remaining = limit;
  // topics without DESCRIBE: not disclosed in a listing, TOPIC_AUTHORIZATION_FAILED (no id, no
  // authorized operations) after the others when asked by name
  const denied: Topic[] = [];
  for (const name of [...names].sort(compare)) {
    if (!authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
      if (!fetchAll)
        denied.push({
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          name,
          topicId: ZERO_UUID,
          isInternal: false,
          partitions: [],
          topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        });
      continue;
    }
    if (remaining === 0) {
      // The cursor points at the start of the first topic not served (it need not exist).
      response.nextCursor = { topicName: name, partitionIndex: 0 };
      break;
    }
    const topic = image.topic(name);
    if (topic) {
      const start = cursor && name === cursorTopic ? cursor.partitionIndex : 0;
      const { partitions, next } = partitionsOf(image, name, ctx.listenerName, start, remaining);
      topics.push({
        errorCode: ErrorCode.NONE,
        name,
        topicId: topic.id,
        isInternal: isInternalTopic(name),
        partitions,
        topicAuthorizedOperations: topicAuthorizedOperations(services, ctx, name),
      });
      if (next !== -1) {
        response.nextCursor = { topicName: name, partitionIndex: next };
        break;
      }
      remaining -= partitions.length;
    } else if (!fetchAll) {
      const error =
        invalidTopicReason(name) === null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION;
      topics.push({
        errorCode: error,
        name,
        topicId: ZERO_UUID,
        isInternal: isInternalTopic(name),
        partitions: [],
        topicAuthorizedOperations: topicAuthorizedOperations(services, ctx, name),
      });
    }
  }
  topics.push(...denied);
  return response;
}

export const handler: ApiHandler<
  BrokerServices,
  DescribeTopicPartitionsRequest,
  Input<DescribeTopicPartitionsResponse>
> = {
  apiKey: ApiKey.DescribeTopicPartitions,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
