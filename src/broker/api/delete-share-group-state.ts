// DeleteShareGroupState (API 86), v0-0: a share-partition's state is deleted (a tombstone).
// KafkaApis.handleDeleteShareGroupStateRequest: CLUSTER_ACTION on the cluster, else every share-partition answers
// CLUSTER_AUTHORIZATION_FAILED; otherwise the share coordinator answers (share/coordinator/).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DeleteShareGroupStateRequest,
  DeleteShareGroupStateResponse,
} from '../../protocol/generated/protocol/DeleteShareGroupState.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { shareCoordinatorOf } from '../share/coordinator/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, authorizeCluster } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: DeleteShareGroupStateRequest,
  services: BrokerServices,
): Promise<Input<DeleteShareGroupStateResponse>> {
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
  return (await shareCoordinatorOf(services)).deleteState(req);
}

export const handler: ApiHandler<BrokerServices, DeleteShareGroupStateRequest, Input<DeleteShareGroupStateResponse>> = {
  apiKey: ApiKey.DeleteShareGroupState,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
