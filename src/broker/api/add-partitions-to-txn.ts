// AddPartitionsToTxn (API 24), v0-5: a producer adds partitions to its open transaction (v0-3, one
// transaction, per-partition results), or a broker adds/verifies them for several transactions at
// once (v4+, verifyOnly = is the partition already in the transaction). Partitions of unknown
// topics fail with UNKNOWN_TOPIC_OR_PARTITION and the others with OPERATION_NOT_ATTEMPTED;
// internal topics are not writable by producers (TOPIC_AUTHORIZATION_FAILED, AddOffsetsToTxn adds
// __consumer_offsets). Kafka's KafkaApis.handleAddPartitionsToTxnRequest.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnRequestAddPartitionsToTxnTopic,
  AddPartitionsToTxnResponse,
} from '../../protocol/generated/protocol/AddPartitionsToTxn.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { txnCoordinatorOf } from '../txn/broker-glue.js';
import { tpKey, tpOf } from '../txn/txn-metadata.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from './authz.js';
import { imageOf } from './admin-support.js';

const INTERNAL = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state', '__cluster_metadata']);

type TopicResult = { name: string; resultsByPartition: { partitionIndex: number; partitionErrorCode: number }[] };

function results(codes: Map<string, number>): TopicResult[] {
  const byTopic = new Map<string, TopicResult>();
  for (const [key, code] of codes) {
    const { topic, partition } = tpOf(key);
    let t = byTopic.get(topic);
    if (!t) byTopic.set(topic, (t = { name: topic, resultsByPartition: [] }));
    t.resultsByPartition.push({ partitionIndex: partition, partitionErrorCode: code });
  }
  return [...byTopic.values()];
}

async function handle(
  ctx: RequestContext,
  req: AddPartitionsToTxnRequest,
  services: BrokerServices,
): Promise<Input<AddPartitionsToTxnResponse>> {
  const v = ctx.apiVersion;
  // KafkaApis: v4+ comes from brokers and needs CLUSTER_ACTION (31 at the top level)
  if (v >= 4 && !authorizeCluster(services, ctx, AclOperation.CLUSTER_ACTION))
    return genericErrorResponse(ctx, req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED) as Input<AddPartitionsToTxnResponse>;
  const image = imageOf(services);
  const { coordinator } = await txnCoordinatorOf(services);
  const txns =
    v < 4
      ? [
          {
            transactionalId: req.v3AndBelowTransactionalId,
            producerId: req.v3AndBelowProducerId,
            producerEpoch: req.v3AndBelowProducerEpoch,
            verifyOnly: false,
            topics: req.v3AndBelowTopics,
          },
        ]
      : req.transactions;
  const out: { transactionalId: string; topicResults: TopicResult[] }[] = [];
  for (const t of txns) {
    const keys: string[] = [];
    for (const topic of t.topics as AddPartitionsToTxnRequestAddPartitionsToTxnTopic[])
      for (const p of topic.partitions) keys.push(tpKey(topic.name, p));
    const unique = [...new Set(keys)];
    // v0-3 (clients): WRITE on the transactional id, else 53 on every partition (errorResponseForTransaction)
    if (v < 4 && !authorize(services, ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, t.transactionalId)) {
      const denied = new Map(unique.map((k) => [k, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]));
      out.push({ transactionalId: t.transactionalId, topicResults: results(denied) });
      continue;
    }
    const failed = new Map<string, number>();
    for (const k of unique) {
      const { topic, partition } = tpOf(k);
      // v0-3: WRITE on the topic (internal topics never), else 29; the others OPERATION_NOT_ATTEMPTED
      if (v < 4 && (INTERNAL.has(topic) || !authorize(services, ctx, AclOperation.WRITE, ResourceType.TOPIC, topic)))
        failed.set(k, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      else if (!image.partition(topic, partition)) failed.set(k, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    let codes: Map<string, number>;
    if (failed.size > 0) {
      codes = new Map(unique.map((k) => [k, failed.get(k) ?? ErrorCode.OPERATION_NOT_ATTEMPTED]));
    } else if (t.verifyOnly) {
      codes = coordinator.verifyPartitions(t.transactionalId, Number(t.producerId), t.producerEpoch, unique);
    } else {
      let code = await coordinator.handleAddPartitions(
        t.transactionalId,
        Number(t.producerId),
        t.producerEpoch,
        unique,
        v > 3 ? 2 : 0, // TransactionVersion.transactionVersionForAddPartitionsToTxn
      );
      if (v < 2 && code === ErrorCode.PRODUCER_FENCED) code = ErrorCode.INVALID_PRODUCER_EPOCH;
      codes = new Map(unique.map((k) => [k, code]));
    }
    out.push({ transactionalId: t.transactionalId, topicResults: results(codes) });
  }
  if (v < 4) return { throttleTimeMs: 0, resultsByTopicV3AndBelow: out[0]?.topicResults ?? [] };
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction: out };
}

export const handler: ApiHandler<BrokerServices, AddPartitionsToTxnRequest, Input<AddPartitionsToTxnResponse>> = {
  apiKey: ApiKey.AddPartitionsToTxn,
  minVersion: 0,
  maxVersion: 5,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
