// AlterUserScramCredentials (API 51), v0, on broker and controller listeners: the controller checks
// every user and writes UserScramCredentialRecord / RemoveUserScramCredentialRecord
// (ControllerApis.handleAlterUserScramCredentials → ScramControlManager.alterCredentials, see
// controller/scram.ts); a broker-only node forwards it to the active controller (KafkaApis). Without
// ALTER on the cluster every user is CLUSTER_AUTHORIZATION_FAILED with the request message.
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  AlterUserScramCredentialsRequest,
  AlterUserScramCredentialsResponse,
} from '../../protocol/generated/protocol/AlterUserScramCredentials.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function handle(
  _ctx: RequestContext,
  req: AlterUserScramCredentialsRequest,
  services: BrokerServices,
): Promise<AlterUserScramCredentialsResponse> {
  return controllerOf(services).alterUserScramCredentials(req);
}

export const handler: ApiHandler<BrokerServices> = requireCluster(
  { operations: [AclOperation.ALTER], message: 'request' },
  {
    apiKey: ApiKey.AlterUserScramCredentials,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
