// AlterPartitionReassignments (API 45), v0-1: handed to the KRaft controller (ControllerApis.
// handleAlterPartitionReassignments → ReplicationControlManager.alterPartitionReassignments), served on
// controller listeners and forwarded from broker listeners (KafkaApis.maybeForwardToController).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
} from '../../protocol/generated/protocol/AlterPartitionReassignments.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function handle(
  _ctx: RequestContext,
  req: AlterPartitionReassignmentsRequest,
  services: BrokerServices,
): Promise<AlterPartitionReassignmentsResponse> {
  return controllerOf(services).alterPartitionReassignments(req);
}

export const handler: ApiHandler<
  BrokerServices,
  AlterPartitionReassignmentsRequest,
  Input<AlterPartitionReassignmentsResponse>
> = requireCluster(
  { operations: [AclOperation.ALTER], message: 'request' },
  {
    apiKey: ApiKey.AlterPartitionReassignments,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
