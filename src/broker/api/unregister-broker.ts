// UnregisterBroker (API 64), v0, on broker and controller listeners: removes a broker's
// registration from the cluster metadata (KafkaApis forwards it to the controller;
// QuorumController.unregisterBroker). BROKER_ID_NOT_REGISTERED with Kafka's message when the
// broker is not registered. ALTER on the cluster is required (31, authorizeClusterOperation's message).
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  UnregisterBrokerRequest,
  UnregisterBrokerResponse,
} from '../../protocol/generated/protocol/UnregisterBroker.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

async function handle(
  _ctx: RequestContext,
  req: UnregisterBrokerRequest,
  services: BrokerServices,
): Promise<UnregisterBrokerResponse> {
  const r = await controllerOf(services).unregisterBroker(req.brokerId);
  // success leaves ErrorMessage at the schema default "" (ControllerApis.handleUnregisterBroker)
  return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorCode === 0 ? '' : r.errorMessage };
}

export const handler: ApiHandler<BrokerServices> = requireCluster(
  { operations: [AclOperation.ALTER], message: 'request' },
  {
    apiKey: ApiKey.UnregisterBroker,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
