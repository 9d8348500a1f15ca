// ListPartitionReassignments (API 46), v0: handed to the KRaft controller (ControllerApis.
// handleListPartitionReassignments → ReplicationControlManager.listPartitionReassignments), served on
// controller listeners and forwarded from broker listeners (KafkaApis.maybeForwardToController).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '../../protocol/generated/protocol/ListPartitionReassignments.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function handle(
  _ctx: RequestContext,
  req: ListPartitionReassignmentsRequest,
  services: BrokerServices,
): Promise<ListPartitionReassignmentsResponse> {
  return controllerOf(services).listPartitionReassignments(req);
}

export const handler: ApiHandler<
  BrokerServices,
  ListPartitionReassignmentsRequest,
  Input<ListPartitionReassignmentsResponse>
> = requireCluster(
  { operations: [AclOperation.DESCRIBE], message: 'request' },
  {
    apiKey: ApiKey.ListPartitionReassignments,
    minVersion: 0,
    maxVersion: 0,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
