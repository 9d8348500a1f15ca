// ReadShareGroupState (API 84), v0-0: a share-partition leader reads its state (and records its leader epoch).
// KafkaApis.handleReadShareGroupStateRequest: CLUSTER_ACTION on the cluster, else every share-partition answers
// CLUSTER_AUTHORIZATION_FAILED; otherwise the share coordinator answers (share/coordinator/).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ReadShareGroupStateRequest,
  ReadShareGroupStateResponse,
} from '../../protocol/generated/protocol/ReadShareGroupState.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { shareCoordinatorOf } from '../share/coordinator/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, authorizeCluster } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: ReadShareGroupStateRequest,
  services: BrokerServices,
): Promise<Input<ReadShareGroupStateResponse>> {
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
  return (await shareCoordinatorOf(services)).readState(req);
}

export const handler: ApiHandler<BrokerServices, ReadShareGroupStateRequest, Input<ReadShareGroupStateResponse>> = {
  apiKey: ApiKey.ReadShareGroupState,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
