// AlterConfigs (API 33), v0-2, the legacy form: each resource's dynamic configuration is replaced
// by the given set (keys not listed are removed). BROKER changes are checked on the broker first
// (ConfigAdminManager.preprocess), the rest is validated and written by the controller
// (ConfigurationControlManager.legacyAlterConfigs). BROKER_LOGGER is not supported here.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { AlterConfigsRequest, AlterConfigsResponse } from '../../protocol/generated/protocol/AlterConfigs.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { alterConfigs, forwarderOf } from './alter-configs-common.js';
import { configAuthz } from './authz-admin.js';

async function handle(
  ctx: RequestContext,
  req: AlterConfigsRequest,
  services: BrokerServices,
): Promise<AlterConfigsResponse> {
  const changes = req.resources.map((r) => ({
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    configs: r.configs.map((c) => ({ name: c.name, value: c.value, configOperation: 0 })),
  }));
  const responses = await alterConfigs(
    services,
    changes,
    false,
    req.validateOnly,
    ctx.isControllerListener,
    forwarderOf(ctx, req, services),
    configAuthz(services, ctx),
  );
  return { throttleTimeMs: 0, responses };
}

export const handler: ApiHandler<BrokerServices, AlterConfigsRequest, Input<AlterConfigsResponse>> = {
  apiKey: ApiKey.AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
  forwardsItself: true,
};
