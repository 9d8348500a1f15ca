// IncrementalAlterConfigs (API 44), v0-1: SET / DELETE / APPEND / SUBTRACT per key. BROKER_LOGGER
// levels are changed right here; BROKER changes are validated on the broker (non-dynamic keys,
// per-broker keys at the cluster default, bad values: INVALID_REQUEST as Kafka answers); TOPIC,
// BROKER, GROUP and CLIENT_METRICS changes are validated and written by the controller
// (INVALID_CONFIG with LogConfig's message for bad topic configs). validate_only writes nothing.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
} from '../../protocol/generated/protocol/IncrementalAlterConfigs.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { alterConfigs, forwarderOf } from './alter-configs-common.js';
import { configAuthz } from './authz-admin.js';

async function handle(
  ctx: RequestContext,
  req: IncrementalAlterConfigsRequest,
  services: BrokerServices,
): Promise<IncrementalAlterConfigsResponse> {
  const changes = req.resources.map((r) => ({
    resourceType: r.resourceType,
    resourceName: r.resourceName,
    configs: r.configs.map((c) => ({ name: c.name, value: c.value, configOperation: c.configOperation })),
  }));
  const responses = await alterConfigs(
    services,
    changes,
    true,
    req.validateOnly,
    ctx.isControllerListener,
    forwarderOf(ctx, req, services),
    configAuthz(services, ctx),
  );
  return { throttleTimeMs: 0, responses };
}

export const handler: ApiHandler<
  BrokerServices,
  IncrementalAlterConfigsRequest,
  Input<IncrementalAlterConfigsResponse>
> = {
  apiKey: ApiKey.IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker', 'controller'],
  handle,
  errorResponse: genericErrorResponse,
  forwardsItself: true,
};
