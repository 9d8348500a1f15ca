// AssignReplicasToDirs (API 73), v0, controller listener: a broker with several log dirs tells the
// active controller in which dir each of its replicas lives (KIP-858; ControllerApis.
// handleAssignReplicasToDirs → ReplicationControlManager.handleAssignReplicasToDirs, here
// src/broker/controller/directories.ts). The broker side is src/broker/log/assignments-manager.ts.
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  AssignReplicasToDirsRequest,
  AssignReplicasToDirsResponse,
} from '../../protocol/generated/protocol/AssignReplicasToDirs.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function handle(
  _ctx: RequestContext,
  req: AssignReplicasToDirsRequest,
  services: BrokerServices,
): Promise<AssignReplicasToDirsResponse> {
  return controllerOf(services).assignReplicasToDirs(req);
}

export const handler: ApiHandler<BrokerServices, AssignReplicasToDirsRequest, AssignReplicasToDirsResponse> =
  requireCluster(
    { operations: [AclOperation.CLUSTER_ACTION], message: null },
    {
      apiKey: ApiKey.AssignReplicasToDirs,
      minVersion: 0,
      maxVersion: 0,
      listeners: ['controller'],
      handle,
      errorResponse: genericErrorResponse,
    },
  );
