// ElectLeaders (API 43), v0-2: PREFERRED (v0's only kind) and UNCLEAN elections handed to the KRaft
// controller (ControllerApis.handleElectLeaders → ReplicationControlManager.electLeaders), served on
// controller listeners and forwarded from broker listeners (KafkaApis.maybeForwardToController).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { ElectLeadersRequest, ElectLeadersResponse } from '../../protocol/generated/protocol/ElectLeaders.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function handle(
  _ctx: RequestContext,
  req: ElectLeadersRequest,
  services: BrokerServices,
): Promise<ElectLeadersResponse> {
  return controllerOf(services).electLeaders(req);
}

export const handler: ApiHandler<BrokerServices, ElectLeadersRequest, Input<ElectLeadersResponse>> = requireCluster(
  { operations: [AclOperation.ALTER], message: 'request' },
  {
    apiKey: ApiKey.ElectLeaders,
    minVersion: 0,
    maxVersion: 2,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
