// Produce (API 0), v3-13 (Kafka 4 removed v0-2 with KIP-896: every version served here carries
// magic v2 batches, stored as received). KafkaApis.handleProduceRequest + ReplicaManager.appendRecords:
// unknown partitions and malformed record sets are answered per partition, the rest is appended
// concurrently; acks=0 gets no response, and a failed acks=0 request closes the connection
// (Kafka's way of telling a fire-and-forget producer to refresh its metadata). The version picks
// how transaction verification acts (AddPartitionsToTxnManager.produceRequestVersionToTransaction-
// SupportedOperation): v12+ is a transactions V2 client whose first batch to a partition adds the
// partition to its transaction; v11 handles TRANSACTION_ABORTABLE. v13 names topics by id
// (UNKNOWN_TOPIC_ID for an id the broker does not know). With an authorizer: WRITE on the transactional
// id for transactional data (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request) and
// WRITE on each topic (else TOPIC_AUTHORIZATION_FAILED for its partitions), as KafkaApis checks them.
import { quotasOf, setRequestThrottle } from '../quota/managers.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ProduceRequest,
  ProduceResponse,
  ProduceResponseNodeEndpoint,
  ProduceResponsePartitionProduceResponse,
  ProduceResponseTopicProduceResponse,
} from '../../protocol/generated/protocol/Produce.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { checkProduceRecords, isTransactionalRecords } from '../replication/record-validator.js';
import type { AppendResult, TransactionSupportedOperation } from '../replication/types.js';
import { imageOf } from './admin-support.js';
import { CloseConnectionError, type ApiHandler, type RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';

export const PRODUCE_MIN_VERSION = 3;
export const PRODUCE_MAX_VERSION = 13;
/** AdminUtils.ADMIN_CLIENT_ID: the only client allowed to write internal topics */
export const ADMIN_CLIENT_ID = '__admin_client';

export { CloseConnectionError };

interface PartitionInput {
  topic: string;
  index: number;
  records: Buffer | null;
  /** v13: the topic id as requested ('' before) */
  topicId: string;
  /** v13: the id names no topic */
  unknownId: boolean;
}

export function transactionSupportedOperation(version: number): TransactionSupportedOperation {
  if (version > 11) return 'addPartition';
  if (version > 10) return 'genericErrorSupported';
  return 'defaultError';
}

const failure = (errorCode: number): AppendResult => ({
  errorCode,
  errorMessage: null,
  baseOffset: -1,
  logAppendTime: -1,
  logStartOffset: -1,
  recordErrors: [],
});

function partitionResponse(v: number, index: number, r: AppendResult): Input<ProduceResponsePartitionProduceResponse> {
  const out: Input<ProduceResponsePartitionProduceResponse> = {
    index,
    errorCode: r.errorCode,
    baseOffset: BigInt(r.baseOffset),
    logAppendTimeMs: BigInt(r.logAppendTime),
    logStartOffset: BigInt(r.logStartOffset),
  };
  if (v >= 8) {
    out.recordErrors = r.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message }));
    out.errorMessage = r.errorMessage;
  }
  if (v >= 10 && r.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && r.leader) {
    out.currentLeader = { leaderId: r.leader.leaderId, leaderEpoch: r.leader.leaderEpoch };
  }
  return out;
}

async function handleProduce(
  ctx: RequestContext,
  req: ProduceRequest,
  services: BrokerServices,
): Promise<Input<ProduceResponse> | null> {
  const rm = services.replicas as ReplicaManager;
  const v = ctx.apiVersion;
  const acks = req.acks;
  // one entry per partition (a repeated partition: the last one counts, as in Kafka's map)
  const byKey = new Map<string, PartitionInput>();
  const topicOrder: string[] = [];
  const image = v >= 13 ? imageOf(services) : undefined;
  for (const t of req.topicData) {
    // v13: a known id stands for its topic's name; an unknown one keeps the id as its key
    const named = image ? image.topicById(t.topicId)?.name : t.name;
    const topic = named ?? t.topicId;
    if (!topicOrder.includes(topic)) topicOrder.push(topic);
    for (const p of t.partitionData)
      byKey.set(`${topic}\u0000${p.index}`, {
        topic,
        index: p.index,
        records: p.records as Buffer | null,
        topicId: image ? t.topicId : '',
        unknownId: named === undefined,
      });
  }
  const inputs = [...byKey.values()];

  // transactional data needs a transactional id the principal may WRITE
  if (
    inputs.some((p) => isTransactionalRecords(p.records)) &&
    (req.transactionalId === null ||
      !authorize(services, ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId))
  ) {
    if (acks === 0)
      throw new CloseConnectionError('transactional records without a transactional id in an acks=0 produce request');
    return genericErrorResponse(ctx, req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) as Input<ProduceResponse>;
  }

  const internalTopicsAllowed = ctx.clientId === ADMIN_CLIENT_ID;
  // WRITE on each topic, checked once per topic (AuthHelper.filterByAuthorized)
  const writable = new Map<string, boolean>();
  for (const p of inputs)
    if (!p.unknownId && !writable.has(p.topic))
      writable.set(p.topic, authorize(services, ctx, AclOperation.WRITE, ResourceType.TOPIC, p.topic));
  const results = await Promise.all(
    inputs.map(async (p): Promise<AppendResult> => {
      if (p.unknownId) return failure(ErrorCode.UNKNOWN_TOPIC_ID);
      if (!writable.get(p.topic)) return failure(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      if (!rm.contains(p.topic, p.index)) return failure(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
      const invalid = checkProduceRecords(v, p.records);
      if (invalid) return failure(invalid.errorCode);
      return rm.appendRecords(p.topic, p.index, p.records!, {
        acks,
        timeoutMs: req.timeoutMs,
        transactionalId: req.transactionalId,
        transactionSupportedOperation: transactionSupportedOperation(v),
        internalTopicsAllowed,
        connectionId: ctx.connectionId,
      });
    }),
  );

  // KafkaApis.handleProduceRequest: the request's size against producer_byte_rate (quota/)
  const throttleTimeMs = quotasOf(services).produce.recordAndGetThrottleTimeMs(
    ctx.principal,
    ctx.clientId ?? '',
    ctx.requestSize,
    Date.now(),
  );
  setRequestThrottle(ctx, throttleTimeMs);

  if (acks === 0) {
    const bad = results.findIndex((r) => r.errorCode !== ErrorCode.NONE);
    if (bad >= 0) {
      const p = inputs[bad]!;
      throw new CloseConnectionError(
        `Closing connection due to error during produce request with acks=0: ${p.topic}-${p.index} failed with error code ${results[bad]!.errorCode}`,
      );
    }
    return null;
  }

  const idOf = new Map(inputs.map((p) => [p.topic, p.topicId]));
  const byTopic = new Map<string, Input<ProduceResponseTopicProduceResponse>>(
    topicOrder.map((name) => [
      name,
      v >= 13 ? { topicId: idOf.get(name) ?? '', partitionResponses: [] } : { name, partitionResponses: [] },
    ]),
  );
  const endpoints = new Map<number, Input<ProduceResponseNodeEndpoint>>();
  inputs.forEach((p, i) => {
    const r = results[i]!;
    let res = r;
    if (v >= 10 && r.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER) {
      const leader = rm.leaderHint(p.topic, p.index, ctx.listenerName);
      if (leader) res = { ...r, leader };
    }
    if (v >= 10 && res.leader?.endpoint) endpoints.set(res.leader.endpoint.nodeId, { ...res.leader.endpoint });
    byTopic.get(p.topic)!.partitionResponses!.push(partitionResponse(v, p.index, res));
  });
  const body: Input<ProduceResponse> = { responses: [...byTopic.values()], throttleTimeMs };
  if (v >= 10) body.nodeEndpoints = [...endpoints.values()];
  return body;
}

export const handler: ApiHandler<BrokerServices, ProduceRequest, Input<ProduceResponse>> = {
  apiKey: ApiKey.Produce,
  minVersion: PRODUCE_MIN_VERSION,
  maxVersion: PRODUCE_MAX_VERSION,
  listeners: ['broker'],
  handle: handleProduce,
  errorResponse(ctx, request, errorCode) {
    // acks=0: no response can carry the error, so the connection is closed instead
    if ((request as ProduceRequest | undefined)?.acks === 0)
      throw new CloseConnectionError('failed acks=0 produce request');
    return genericErrorResponse(ctx, request, errorCode);
  },
};
