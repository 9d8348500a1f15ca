// TxnOffsetCommit (API 28), v0-6: offsets a transactional producer commits for a consumer group;
// they stay pending until the transaction's marker reaches the group's __consumer_offsets
// partition, then become the group's committed offsets (commit) or vanish (abort). Unknown topics
// fail per partition. The group's partition must be part of the transaction: added by
// AddOffsetsToTxn before v5; from v5 (transactions V2) the request adds it itself, as
// AddPartitionsToTxnManager does with the addPartition operation. v3+ carries the member's
// generation and id; v4+ may see TRANSACTION_ABORTABLE; v6 names topics by id (KIP-1319). v<2:
// COORDINATOR_LOAD_IN_PROGRESS is answered as COORDINATOR_NOT_AVAILABLE
// (KafkaApis.handleTxnOffsetCommitRequest).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  TxnOffsetCommitRequest,
  TxnOffsetCommitResponse,
} from '../../protocol/generated/protocol/TxnOffsetCommit.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { OFFSETS_TOPIC, txnCoordinatorOf } from '../txn/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { imageOf } from './admin-support.js';

type Partitions = { partitionIndex: number; errorCode: number }[];

/** What TxnOffsetCommit answers when the group's partition is not (verifiably) in the transaction. */
function verificationError(code: number, v: number): number {
  if (code === ErrorCode.TRANSACTION_ABORTABLE && v < 4) return ErrorCode.INVALID_TXN_STATE;
  if (code === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
  if (
    code === ErrorCode.CONCURRENT_TRANSACTIONS ||
    code === ErrorCode.NETWORK_EXCEPTION ||
    code === ErrorCode.NOT_COORDINATOR ||
    code === ErrorCode.COORDINATOR_NOT_AVAILABLE
  ) {
    return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
  }
  return code;
}

async function handle(
  ctx: RequestContext,
  req: TxnOffsetCommitRequest,
  services: BrokerServices,
): Promise<Input<TxnOffsetCommitResponse>> {
  const v = ctx.apiVersion;
  // KafkaApis: WRITE on the transactional id (53), then READ on the group (30), on every partition
  if (!authorize(services, ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId))
    return genericErrorResponse(
      ctx,
      req,
      ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
    ) as Input<TxnOffsetCommitResponse>;
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return genericErrorResponse(ctx, req, ErrorCode.GROUP_AUTHORIZATION_FAILED) as Input<TxnOffsetCommitResponse>;
  const image = imageOf(services);
  const unknown = new Map<string, Partitions>();
  const valid: TxnOffsetCommitRequest['topics'] = [];
  // v6: the topics by id; the name stands for the id inside this handler
  const idOf = new Map<string, string>();
  for (const t0 of req.topics) {
    const topic = v >= 6 ? image.topicById(t0.topicId) : image.topic(t0.name);
    const t = v >= 6 ? { ...t0, name: topic?.name ?? t0.topicId } : t0;
    if (v >= 6) idOf.set(t.name, t0.topicId);
    // READ on the topic (after the unknown id of v6, before the unknown name): else 29 on its partitions
    if ((v < 6 || topic) && !authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) {
      unknown.set(
        t.name,
        t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        })),
      );
      continue;
    }
    if (!topic) {
      unknown.set(
        t.name,
        t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: v >= 6 ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        })),
      );
      continue;
    }
    valid.push(t);
  }
  let committed: { name: string; partitions: Partitions }[] = [];
  if (valid.length > 0) {
    const h = await txnCoordinatorOf(services);
    const failAll = (code: number) =>
      valid.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })),
      }));
    const partition = h.offsetsPartitionFor(req.groupId);
    const pid = Number(req.producerId);
    let verify: number = ErrorCode.NONE;
    // the transaction's coordinator may be another broker (AddPartitionsToTxnManager)
    const operation = v >= 5 ? 'addPartition' : v >= 4 ? 'genericErrorSupported' : 'defaultError';
    if (v >= 5 || services.config.getBoolean('transaction.partition.verification.enable'))
      verify = await h.verifyTransaction(
        req.transactionalId,
        pid,
        req.producerEpoch,
        OFFSETS_TOPIC,
        partition,
        operation,
      );
    if (verify !== ErrorCode.NONE) committed = failAll(verificationError(verify, v));
    else {
      committed = await h.offsets().commitTransactionalOffsets(
        {
          transactionalId: req.transactionalId,
          groupId: req.groupId,
          producerId: Number(req.producerId),
          producerEpoch: req.producerEpoch,
          generationId: v >= 3 ? req.generationIdOrMemberEpoch : -1,
          memberId: v >= 3 ? req.memberId : '',
          groupInstanceId: v >= 3 ? req.groupInstanceId : null,
          topics: valid.map((t) => ({
            name: t.name,
            partitions: t.partitions.map((p) => ({
              partitionIndex: p.partitionIndex,
              committedOffset: p.committedOffset,
              committedLeaderEpoch: v >= 2 ? p.committedLeaderEpoch : -1,
              committedMetadata: p.committedMetadata,
            })),
          })),
        },
        v,
      );
    }
  }
  if (v < 2) {
    for (const t of committed)
      for (const p of t.partitions)
        if (p.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) p.errorCode = ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
  const byName = new Map(committed.map((t) => [t.name, t.partitions]));
  const names = v >= 6 ? [...idOf.keys()] : req.topics.map((t) => t.name);
  const topics = [...new Set(names)].map((name) => ({
    name,
    topicId: idOf.get(name),
    partitions: [...(byName.get(name) ?? []), ...(unknown.get(name) ?? [])],
  }));
  return { throttleTimeMs: 0, topics };
}

export const handler: ApiHandler<BrokerServices, TxnOffsetCommitRequest, Input<TxnOffsetCommitResponse>> = {
  apiKey: ApiKey.TxnOffsetCommit,
  minVersion: 0,
  maxVersion: 6,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
