// ControllerRegistration (API 70), v0, controller listener: a controller (another process)
// registers its incarnation, controller listeners and supported features with the active
// controller, which writes a RegisterControllerRecord (ControllerApis.handleControllerRegistration
// → ClusterControlManager.registerController; ZkMigrationReady is always written false).
// NOT_CONTROLLER on a node that is not the active controller; UNSUPPORTED_VERSION below
// metadata.version 3.7-IV0. The active controller registers itself when it activates.
import { ApiKey } from '../../protocol/generated/apis.js';
import type {
  ControllerRegistrationRequest,
  ControllerRegistrationResponse,
} from '../../protocol/generated/protocol/ControllerRegistration.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

async function handle(
  _ctx: RequestContext,
  req: ControllerRegistrationRequest,
  services: BrokerServices,
): Promise<ControllerRegistrationResponse> {
  const r = await controllerOf(services).registerRemoteController({
    id: req.controllerId,
    incarnationId: req.incarnationId,
    zkMigrationReady: req.zkMigrationReady,
    endpoints: req.listeners.map((l) => ({
      name: l.name,
      host: l.host,
      port: l.port,
      securityProtocol: l.securityProtocol,
    })),
    supportedFeatures: new Map(
      req.features.map((f) => [f.name, { min: f.minSupportedVersion, max: f.maxSupportedVersion }]),
    ),
  });
  return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorMessage };
}

export const handler: ApiHandler<BrokerServices, ControllerRegistrationRequest, ControllerRegistrationResponse> =
  requireCluster(
    { operations: [AclOperation.CLUSTER_ACTION], message: null },
    {
      apiKey: ApiKey.ControllerRegistration,
      minVersion: 0,
      maxVersion: 0,
      listeners: ['controller'],
      handle,
      errorResponse: genericErrorResponse,
    },
  );
