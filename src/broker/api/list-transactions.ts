// ListTransactions (API 66), v0-2: the transactions this broker coordinates, filtered by state
// names (unknown names are echoed in unknownStateFilters), producer ids, (v1) a minimum running
// time and (v2, KIP-1152) a regular expression on the transactional id
// (TransactionStateManager.listTransactionStates).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ListTransactionsRequest,
  ListTransactionsResponse,
} from '../../protocol/generated/protocol/ListTransactions.js';
import type { BrokerServices } from '../services.js';
import { txnCoordinatorOf } from '../txn/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize } from './authz.js';

async function handle(
  ctx: RequestContext,
  req: ListTransactionsRequest,
  services: BrokerServices,
): Promise<Input<ListTransactionsResponse>> {
  const { coordinator } = await txnCoordinatorOf(services);
  const r = coordinator.handleList(
    req.producerIdFilters.map(Number),
    req.stateFilters,
    ctx.apiVersion >= 1 ? Number(req.durationFilter) : -1,
    ctx.apiVersion >= 2 ? req.transactionalIdPattern : null,
  );
  return {
    throttleTimeMs: 0,
    errorCode: r.errorCode,
    unknownStateFilters: r.unknownStateFilters,
    // KafkaApis: only the transactional ids the principal may DESCRIBE
    transactionStates: r.transactionStates
      .filter((s) => authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, s.transactionalId))
      .map((s) => ({ ...s, producerId: BigInt(s.producerId) })),
  };
}

export const handler: ApiHandler<BrokerServices, ListTransactionsRequest, Input<ListTransactionsResponse>> = {
  apiKey: ApiKey.ListTransactions,
  minVersion: 0,
  maxVersion: 2,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
