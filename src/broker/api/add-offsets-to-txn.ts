// AddOffsetsToTxn (API 25), v0-4: adds the group's __consumer_offsets partition to the producer's
// transaction, so that TxnOffsetCommit may follow (KafkaApis.handleAddOffsetsToTxnRequest); v<2
// clients get INVALID_PRODUCER_EPOCH for PRODUCER_FENCED.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  AddOffsetsToTxnRequest,
  AddOffsetsToTxnResponse,
} from '../../protocol/generated/protocol/AddOffsetsToTxn.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { OFFSETS_TOPIC, txnCoordinatorOf } from '../txn/broker-glue.js';
import { tpKey } from '../txn/txn-metadata.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: AddOffsetsToTxnRequest,
  services: BrokerServices,
): Promise<Input<AddOffsetsToTxnResponse>> {
  // KafkaApis: WRITE on the transactional id (53), then READ on the group (30)
  if (!authorize(services, ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId))
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  const h = await txnCoordinatorOf(services);
  const partition = h.offsetsPartitionFor(req.groupId);
  let code = await h.coordinator.handleAddPartitions(req.transactionalId, Number(req.producerId), req.producerEpoch, [
    tpKey(OFFSETS_TOPIC, partition),
  ]);
  if (ctx.apiVersion < 2 && code === ErrorCode.PRODUCER_FENCED) code = ErrorCode.INVALID_PRODUCER_EPOCH;
  return { throttleTimeMs: 0, errorCode: code };
}

export const handler: ApiHandler<BrokerServices, AddOffsetsToTxnRequest, Input<AddOffsetsToTxnResponse>> = {
  apiKey: ApiKey.AddOffsetsToTxn,
  minVersion: 0,
  maxVersion: 4,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
