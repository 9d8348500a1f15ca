// ReadShareGroupStateSummary (API 87), v0-1: the start offset and epochs DescribeShareGroupOffsets reports (v1: DeliveryCompleteCount).
// KafkaApis.handleReadShareGroupStateSummaryRequest: CLUSTER_ACTION on the cluster, else every share-partition answers
// CLUSTER_AUTHORIZATION_FAILED; otherwise the share coordinator answers (share/coordinator/).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ReadShareGroupStateSummaryRequest,
  ReadShareGroupStateSummaryResponse,
} from '../../protocol/generated/protocol/ReadShareGroupStateSummary.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import { shareCoordinatorOf } from '../share/coordinator/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, authorizeCluster } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: ReadShareGroupStateSummaryRequest,
  services: BrokerServices,
): Promise<Input<ReadShareGroupStateSummaryResponse>> {
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
  return (await shareCoordinatorOf(services)).readStateSummary(req);
}

export const handler: ApiHandler<
  BrokerServices,
  ReadShareGroupStateSummaryRequest,
  Input<ReadShareGroupStateSummaryResponse>
> = {
  apiKey: ApiKey.ReadShareGroupStateSummary,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
