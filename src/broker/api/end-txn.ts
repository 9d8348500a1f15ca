// EndTxn (API 26), v0-5: commit or abort the producer's transaction. The coordinator writes
// PrepareCommit/PrepareAbort to __transaction_state, answers, and writes the markers to every
// partition of the transaction before CompleteCommit/CompleteAbort (KafkaApis.handleEndTxnRequest;
// v<2 clients get INVALID_PRODUCER_EPOCH for PRODUCER_FENCED). v5 is transactions V2
// (TransactionVersion.transactionVersionForEndTxn): the epoch is bumped by every EndTxn and the
// response carries the producer id and epoch the client continues with.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { EndTxnRequest, EndTxnResponse } from '../../protocol/generated/protocol/EndTxn.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { txnCoordinatorOf } from '../txn/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: EndTxnRequest,
  services: BrokerServices,
): Promise<Input<EndTxnResponse>> {
  // KafkaApis: WRITE on the transactional id, else 53 (producer id and epoch left at their defaults)
  if (!authorize(services, ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId))
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
  const { coordinator } = await txnCoordinatorOf(services);
  const r = await coordinator.handleEndTxn(
    req.transactionalId,
    Number(req.producerId),
    req.producerEpoch,
    req.committed,
    ctx.apiVersion > 4 ? 2 : 0,
  );
  const errorCode =
    ctx.apiVersion < 2 && r.errorCode === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : r.errorCode;
  return { throttleTimeMs: 0, errorCode, producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
}

export const handler: ApiHandler<BrokerServices, EndTxnRequest, Input<EndTxnResponse>> = {
  apiKey: ApiKey.EndTxn,
  minVersion: 0,
  maxVersion: 5,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
