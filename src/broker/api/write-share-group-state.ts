// WriteShareGroupState (API 85), v0-1: a share-partition leader writes its state batches and start offset (v1: DeliveryCompleteCount, KIP-1226).
// KafkaApis.handleWriteShareGroupStateRequest: CLUSTER_ACTION on the cluster, else every share-partition answers
// CLUSTER_AUTHORIZATION_FAILED; otherwise the share coordinator answers (share/coordinator/).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  WriteShareGroupStateRequest,
  WriteShareGroupStateResponse,
} from '../../protocol/generated/protocol/WriteShareGroupState.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { shareCoordinatorOf } from '../share/coordinator/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, authorizeCluster } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: WriteShareGroupStateRequest,
  services: BrokerServices,
): Promise<Input<WriteShareGroupStateResponse>> {
  if (!authorizeCluster(services, ctx, AclOperation.CLUSTER_ACTION)) {
    const errorCode = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
    const errorMessage = errorInfo(errorCode).message;
    return {
      results: req.topics.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({ partition: p.partition, errorCode, errorMessage })),
      })),
    };
  }
  return (await shareCoordinatorOf(services)).writeState(req);
}

export const handler: ApiHandler<BrokerServices, WriteShareGroupStateRequest, Input<WriteShareGroupStateResponse>> = {
  apiKey: ApiKey.WriteShareGroupState,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
