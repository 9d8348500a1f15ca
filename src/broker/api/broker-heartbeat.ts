// BrokerHeartbeat (API 63), v0-2, controller listener: a registered broker renews its session and
// asks to be unfenced (once its metadata offset reaches its registration's offset), fenced, or
// shut down (controlled shutdown: the controller moves its leaderships away first and answers
// ShouldShutDown once it leads nothing) — ControllerApis.handleBrokerHeartBeatRequest →
// QuorumController.processBrokerHeartbeat. Errors: NOT_CONTROLLER on a node that is not the active
// controller, STALE_BROKER_EPOCH (unknown broker or another epoch); an error response carries the
// schema defaults (IsCaughtUp false, IsFenced true, ShouldShutDown false) as Kafka's does.
// OfflineLogDirs take the broker's partitions in those dirs away from it (handleDirectoriesOffline,
// src/broker/controller/directories.ts); CordonedLogDirs are read but not acted on.
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  BrokerHeartbeatRequest,
  BrokerHeartbeatResponse,
} from '../../protocol/generated/protocol/BrokerHeartbeat.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

async function handle(
  _ctx: RequestContext,
  req: BrokerHeartbeatRequest,
  services: BrokerServices,
): Promise<BrokerHeartbeatResponse> {
  const r = await controllerOf(services).brokerHeartbeat({
    brokerId: req.brokerId,
    brokerEpoch: req.brokerEpoch,
    currentMetadataOffset: Number(req.currentMetadataOffset),
    wantFence: req.wantFence,
    wantShutDown: req.wantShutDown,
    offlineLogDirs: req.offlineLogDirs,
  });
  if (r.errorCode !== 0)
    return { throttleTimeMs: 0, errorCode: r.errorCode, isCaughtUp: false, isFenced: true, shouldShutDown: false };
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    isCaughtUp: r.isCaughtUp,
    isFenced: r.isFenced,
    shouldShutDown: r.shouldShutDown,
  };
}

export const handler: ApiHandler<BrokerServices, BrokerHeartbeatRequest, BrokerHeartbeatResponse> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.BrokerHeartbeat,
    minVersion: 0,
    maxVersion: 2,
    listeners: ['controller'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
