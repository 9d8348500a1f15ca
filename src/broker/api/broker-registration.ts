// BrokerRegistration (API 62), v0-4, controller listener: a broker (another process) registers its
// incarnation, listeners, supported features and log directories with the active controller
// (ControllerApis.handleBrokerRegistration → QuorumController.registerBroker →
// ClusterControlManager.registerBroker). The answer is the broker epoch, or Kafka's error:
// NOT_CONTROLLER on a node that is not the active controller, INCONSISTENT_CLUSTER_ID,
// UNSUPPORTED_VERSION (a finalized feature level the broker does not support), INVALID_REGISTRATION
// (log dirs missing, reserved, duplicated or another broker's; no metadata.version feature),
// DUPLICATE_BROKER_REGISTRATION (another incarnation of the id still has a live session),
// BROKER_ID_NOT_REGISTERED (a ZK-migrating broker). CLUSTER_ACTION on the cluster is required (31).
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  BrokerRegistrationRequest,
  BrokerRegistrationResponse,
} from '../../protocol/generated/protocol/BrokerRegistration.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

async function handle(
  ctx: RequestContext,
  req: BrokerRegistrationRequest,
  services: BrokerServices,
): Promise<BrokerRegistrationResponse> {
  const r = await controllerOf(services).registerRemoteBroker({
    brokerId: req.brokerId,
    clusterId: req.clusterId,
    incarnationId: req.incarnationId,
    listeners: req.listeners.map((l) => ({
      name: l.name,
      host: l.host,
      port: l.port,
      securityProtocol: l.securityProtocol,
    })),
    features: new Map(req.features.map((f) => [f.name, { min: f.minSupportedVersion, max: f.maxSupportedVersion }])),
    rack: req.rack,
    isMigratingZkBroker: req.isMigratingZkBroker,
    logDirs: req.logDirs,
    previousBrokerEpoch: req.previousBrokerEpoch,
    cleanShutdownDetectionEnabled: ctx.apiVersion >= 3,
  });
  return { throttleTimeMs: 0, errorCode: r.errorCode, brokerEpoch: r.errorCode === 0 ? r.brokerEpoch : -1n };
}

export const handler: ApiHandler<BrokerServices, BrokerRegistrationRequest, BrokerRegistrationResponse> =
  requireCluster(
    { operations: [AclOperation.CLUSTER_ACTION], message: null },
    {
      apiKey: ApiKey.BrokerRegistration,
      minVersion: 0,
      maxVersion: 4,
      listeners: ['controller'],
      handle,
      errorResponse: genericErrorResponse,
    },
  );
