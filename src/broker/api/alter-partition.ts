// AlterPartition (API 56), v2-3, controller listener: a partition leader proposes a new ISR and
// leader recovery state to the active controller (ControllerApis.handleAlterPartitionRequest →
// QuorumController.alterPartition; the rules are in controller/alter-partition.ts). v2 names ISR
// members by id (NewIsr), v3 with their broker epochs (NewIsrWithEpochs). STALE_BROKER_EPOCH and
// NOT_CONTROLLER are the whole response's ErrorCode with no topics; the other errors are per
// partition. CLUSTER_ACTION on the cluster is required (31).
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  AlterPartitionRequest,
  AlterPartitionResponse,
} from '../../protocol/generated/protocol/AlterPartition.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

function handle(
  ctx: RequestContext,
  req: AlterPartitionRequest,
  services: BrokerServices,
): Promise<AlterPartitionResponse> {
  return controllerOf(services).alterPartition(req, ctx.apiVersion);
}

export const handler: ApiHandler<BrokerServices, AlterPartitionRequest, AlterPartitionResponse> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.AlterPartition,
    minVersion: 2,
    maxVersion: 3,
    listeners: ['controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
