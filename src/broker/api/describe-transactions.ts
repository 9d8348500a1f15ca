// DescribeTransactions (API 65), v0: state, producer id/epoch, timeout, start time and partitions
// of transactional ids this broker coordinates (TransactionCoordinator.handleDescribeTransactions);
// unknown ids: TRANSACTIONAL_ID_NOT_FOUND; ids of partitions led elsewhere: NOT_COORDINATOR.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeTransactionsRequest,
  DescribeTransactionsResponse,
} from '../../protocol/generated/protocol/DescribeTransactions.js';
import type { BrokerServices } from '../services.js';
import { txnCoordinatorOf } from '../txn/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';
import { ErrorCode } from '../../protocol/errors.js';

async function handle(
  ctx: RequestContext,
  req: DescribeTransactionsRequest,
  services: BrokerServices,
): Promise<Input<DescribeTransactionsResponse>> {
  const { coordinator } = await txnCoordinatorOf(services);
  return {
    throttleTimeMs: 0,
    transactionStates: req.transactionalIds.map((id) => {
      // KafkaApis: DESCRIBE on the transactional id, else 53 and nothing more
      if (!authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, id))
        return { transactionalId: id, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, topics: [] };
      const d = coordinator.handleDescribe(id);
      // only the partitions of topics the principal may DESCRIBE
      const topics = d.topics.filter((t) =>
        authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic),
      );
      return {
        ...d,
        topics,
        transactionStartTimeMs: BigInt(d.transactionStartTimeMs),
        producerId: BigInt(d.producerId),
      };
    }),
  };
}

export const handler: ApiHandler<BrokerServices, DescribeTransactionsRequest, Input<DescribeTransactionsResponse>> = {
  apiKey: ApiKey.DescribeTransactions,
  minVersion: 0,
  maxVersion: 0,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
