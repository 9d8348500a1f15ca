// UnregisterController (API 94, KIP-1201), v0, on broker and controller listeners: removes a
// controller's registration from the cluster metadata with an UnregisterControllerRecord
// (ControllerApis.handleUnregisterController → QuorumController.unregisterController; a broker
// forwards it to the active controller, KafkaApis.forwardToController). Errors carry Kafka's
// message (UnregisterControllerRequest.getErrorResponse: e.getMessage()); success leaves the
// ErrorMessage at its schema default "", as Kafka's response does. ALTER on the cluster is required
// (31 with authorizeClusterOperation's message).
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  UnregisterControllerRequest,
  UnregisterControllerResponse,
} from '../../protocol/generated/protocol/UnregisterController.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

async function handle(
  _ctx: RequestContext,
  req: UnregisterControllerRequest,
  services: BrokerServices,
): Promise<UnregisterControllerResponse> {
  const r = await controllerOf(services).unregisterController(req.controllerId);
  return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorCode === 0 ? '' : r.errorMessage };
}

export const handler: ApiHandler<BrokerServices> = requireCluster(
  { operations: [AclOperation.ALTER], message: 'request' },
  {
    apiKey: ApiKey.UnregisterController,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
