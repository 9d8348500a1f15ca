// InitProducerId (API 22), v0-5: a producer id for an idempotent producer (no transactional id),
// or the id and next epoch of a transactional id from its coordinator (epoch bumps, fencing of an
// older producer with an open transaction, KIP-360 recovery with the expected id and epoch in v3+).
// Kafka's KafkaApis.handleInitProducerIdRequest; v<4 clients get INVALID_PRODUCER_EPOCH for
// PRODUCER_FENCED. v5 only says the client handles TRANSACTION_ABORTABLE; v6 (KIP-939 two-phase
// commit) is not served, as Kafka 4.4 keeps it unstable.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  InitProducerIdRequest,
  InitProducerIdResponse,
} from '../../protocol/generated/protocol/InitProducerId.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { txnCoordinatorOf } from '../txn/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, authorizeByResourceType, authorizeCluster } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: InitProducerIdRequest,
  services: BrokerServices,
): Promise<Input<InitProducerIdResponse>> {
  const v = ctx.apiVersion;
  const answer = (errorCode: number, producerId = -1, producerEpoch = -1) => ({
    throttleTimeMs: 0,
    errorCode: v < 4 && errorCode === ErrorCode.PRODUCER_FENCED ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode,
    producerId: BigInt(producerId),
    producerEpoch,
  });
  // KafkaApis: WRITE on the transactional id (53); without one, IDEMPOTENT_WRITE on the cluster or
  // WRITE on any topic (authorizeByResourceType) (31)
  if (req.transactionalId !== null) {
    if (!authorize(services, ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId))
      return answer(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  } else if (
    !authorizeCluster(services, ctx, AclOperation.IDEMPOTENT_WRITE) &&
    !authorizeByResourceType(services, ctx, AclOperation.WRITE, ResourceType.TOPIC)
  )
    return answer(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const pid = v >= 3 ? Number(req.producerId) : -1;
  const epoch = v >= 3 ? req.producerEpoch : -1;
  if ((pid === -1) !== (epoch === -1)) return answer(ErrorCode.INVALID_REQUEST);
  const { coordinator } = await txnCoordinatorOf(services);
  const r = await coordinator.handleInitProducerId(
    req.transactionalId,
    req.transactionTimeoutMs,
    pid === -1 ? undefined : { producerId: pid, producerEpoch: epoch },
  );
  return answer(r.errorCode, r.producerId, r.producerEpoch);
}

export const handler: ApiHandler<BrokerServices, InitProducerIdRequest, Input<InitProducerIdResponse>> = {
  apiKey: ApiKey.InitProducerId,
  minVersion: 0,
  maxVersion: 5,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
