// DescribeProducers (API 61), v0: the active idempotent/transactional producers of partitions this
// broker leads — id, epoch, last sequence, last timestamp, coordinator epoch of the last marker,
// and the first offset of the open transaction (-1 when none). Kafka's
// ReplicaManager.activeProducerState; used by `kafka-transactions describe-producers`,
// `abort --start-offset` and `find-hanging`.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeProducersRequest,
  DescribeProducersResponse,
} from '../../protocol/generated/protocol/DescribeProducers.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { invalidTopicReason } from './admin-support.js';

type PartitionResponse = Input<DescribeProducersResponse['topics'][number]['partitions'][number]>;

function describePartition(rm: ReplicaManager, topic: string, partition: number): PartitionResponse {
  const base = { partitionIndex: partition, errorMessage: null, activeProducers: [] };
  const found = rm.lookup(topic, partition);
  if (!found.ok) return { ...base, errorCode: found.errorCode };
  const psm = found.partition.log.producerState;
  psm.maybeRemoveExpired();
  const activeProducers = [...psm.states.producers.values()].map((e) => ({
    producerId: BigInt(e.producerId),
    producerEpoch: e.producerEpoch,
    lastSequence: e.lastSeq,
    lastTimestamp: BigInt(e.lastTimestamp),
    coordinatorEpoch: e.coordinatorEpoch,
    currentTxnStartOffset: BigInt(e.currentTxnFirstOffset),
  }));
  return { ...base, errorCode: ErrorCode.NONE, activeProducers };
}

function handle(
  ctx: RequestContext,
  req: DescribeProducersRequest,
  services: BrokerServices,
): Input<DescribeProducersResponse> {
  const rm = services.replicas;
  // KafkaApis: READ on the topic, else TOPIC_AUTHORIZATION_FAILED with its default message
  // (ApiError(error)) on each partition
  const denied = (partitionIndex: number): PartitionResponse => ({
    partitionIndex,
    errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    errorMessage: errorInfo(ErrorCode.TOPIC_AUTHORIZATION_FAILED).message,
    activeProducers: [],
  });
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => {
      // checkValidTopic first: an invalid name answers INVALID_TOPIC_EXCEPTION (Topic.validate's message)
      const invalid = invalidTopicReason(t.name);
      if (invalid !== null)
        return {
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({
            partitionIndex,
            errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
            errorMessage: `Topic name is invalid: ${invalid}`,
            activeProducers: [],
          })),
        };
      const allowed = authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, t.name);
      return {
        name: t.name,
        partitions: t.partitionIndexes.map((p) => (allowed ? describePartition(rm, t.name, p) : denied(p))),
      };
    }),
  };
}

export const handler: ApiHandler<BrokerServices, DescribeProducersRequest, Input<DescribeProducersResponse>> = {
  apiKey: ApiKey.DescribeProducers,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
