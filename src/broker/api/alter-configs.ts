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
import { alterConfigs, type ResourceChange, type ResourceResult } from './alter-configs-common.js';

/** A broker-only node forwards the resources it did not answer itself in a request of their own. */
function forwarderOf(
  ctx: RequestContext,
  req: AlterConfigsRequest,
  services: BrokerServices,
): ((remaining: readonly ResourceChange[]) => Promise<ResourceResult[]>) | undefined {
  const remote = services.remote;
  if (!remote || ctx.isControllerListener) return undefined;
  return async (remaining) => {
    const keys = new Set(remaining.map((r) => `${r.resourceType}:${r.resourceName}`));
    const rest = { ...req, resources: req.resources.filter((r) => keys.has(`${r.resourceType}:${r.resourceName}`)) };
    const res = (await remote.forwarding.forward(ctx, rest, (code) =>
      genericErrorResponse(ctx, rest, code),
    )) as AlterConfigsResponse;
    return res.responses.map((r) => ({
      resourceType: r.resourceType,
      resourceName: r.resourceName,
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
    }));
  };
}

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
