// AlterClientQuotas (API 49), v0-1, on controller listeners, forwarded from broker listeners
// (KafkaApis forwards it always; ControllerApis.handleAlterClientQuotas): every entry fails with
// CLUSTER_AUTHORIZATION_FAILED without ALTER_CONFIGS on the cluster (AlterClientQuotasRequest
// .getErrorResponse: the entries in request order, the error's default message); otherwise the
// controller checks each entity and writes its ClientQuotaRecords (controller/client-quotas.ts),
// none with validateOnly.
import { ApiKey } from '../../protocol/generated/apis.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type {
  AlterClientQuotasRequest,
  AlterClientQuotasResponse,
} from '../../protocol/generated/protocol/AlterClientQuotas.js';
import type { BrokerServices } from '../services.js';
import { AclOperation, authorizeCluster } from './authz.js';
import type { ApiHandler, RequestContext } from './types.js';
import { controllerOf } from './admin-support.js';

/** AlterClientQuotasRequest.getErrorResponse. */
export function alterClientQuotasErrorResponse(req: AlterClientQuotasRequest, code: number): AlterClientQuotasResponse {
  return {
    throttleTimeMs: 0,
    entries: req.entries.map((e) => ({
      errorCode: code,
      errorMessage: code === ErrorCode.NONE ? null : errorInfo(code).message,
      entity: e.entity.map((c) => ({ entityType: c.entityType, entityName: c.entityName })),
    })),
  };
}

async function handle(
  ctx: RequestContext,
  req: AlterClientQuotasRequest,
  services: BrokerServices,
): Promise<AlterClientQuotasResponse> {
  if (!authorizeCluster(services, ctx, AclOperation.ALTER_CONFIGS))
    return alterClientQuotasErrorResponse(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
  const entries = await controllerOf(services).alterClientQuotas(req.entries, req.validateOnly);
  return { throttleTimeMs: 0, entries };
}

export const handler: ApiHandler<BrokerServices, AlterClientQuotasRequest, AlterClientQuotasResponse> = {
  apiKey: ApiKey.AlterClientQuotas,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: (_ctx, req, code) => alterClientQuotasErrorResponse(req, code),
};
