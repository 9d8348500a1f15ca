// The broker's client quota managers, one set per node (BrokerServices), reading the node's
// metadata image (the quotas of ClientQuotaRecords) and its quota.window.* configs.
import { ErrorCode } from '../../protocol/errors.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import { metadataSourceOf } from '../services.js';
import { createQuotaManagers, quotaWindowConfig, type QuotaManagers } from './client-quota-manager.js';
import { ControllerMutationQuotaManager, ThrottlingQuotaExceeded } from './controller-mutation-quota.js';
import { setRequestThrottle } from './throttle.js';
import { msToPercentage, setRequestMetering, type RequestQuota } from './request-time.js';

export { setRequestThrottle };

const mutationManagers = new WeakMap<BrokerServices, ControllerMutationQuotaManager>();

/**
 * A controller request's controller_mutation_rate (ControllerApis: newQuotaFor with the API's
 * strictSinceVersion): `apply` is the ReplicationContext hook (THROTTLING_QUOTA_EXCEEDED, 89, once the
 * client's bucket is negative, on strict versions); `finish()` records the request's throttle time
 * and returns it for throttle_time_ms.
 */
export function controllerMutationQuotaFor(
  services: BrokerServices,
  ctx: { principal?: string; clientId: string | null; apiVersion: number },
  strictSinceVersion: number,
): { apply: (partitions: number) => { errorCode: number; errorMessage: string } | null; finish: () => number } {
  let m = mutationManagers.get(services);
  if (!m) {
    const source = (): MetadataImage | null =>
      services.remote || services.controller ? metadataSourceOf(services).image : null;
    const config = services.config ?? { originals: new Map<string, string>() };
    mutationManagers.set(services, (m = new ControllerMutationQuotaManager(quotaWindowConfig(config), source)));
  }
  const quota = m.newQuotaFor(ctx.principal, ctx.clientId ?? '', ctx.apiVersion >= strictSinceVersion);
  return {
    apply: (partitions) => {
      try {
        quota.record(partitions);
        return null;
      } catch (e) {
        if (!(e instanceof ThrottlingQuotaExceeded)) throw e;
        return { errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, errorMessage: e.message };
      }
    },
    finish: () => {
      const ms = quota.throttleTime();
      setRequestThrottle(ctx, ms);
      return ms;
    },
  };
}

const managers = new WeakMap<BrokerServices, QuotaManagers>();

/** The broker's client quota managers (one per services, created on first use). */
export function quotasOf(services: BrokerServices): QuotaManagers {
  let m = managers.get(services);
  if (!m) {
    // a node without metadata (handler unit tests' services) has no quotas
    const source = (): MetadataImage | null =>
      services.remote || services.controller ? metadataSourceOf(services).image : null;
    const config = services.config ?? { originals: new Map<string, string>() };
    managers.set(services, (m = createQuotaManagers(config, source)));
  }
  return m;
}

/** The node's request_percentage quotas, as the dispatcher uses them. */
export function requestQuotaOf(services: BrokerServices): RequestQuota {
  const request = (): ReturnType<typeof quotasOf>['request'] => quotasOf(services).request;
  return {
    active() {
      const on = request().quotasEnabled();
      setRequestMetering(on);
      return on;
    },
    recordAndGetThrottleTimeMs: (ctx, ms) =>
      request().recordAndGetThrottleTimeMs(ctx.principal, ctx.clientId ?? '', msToPercentage(ms), Date.now()),
  };
}
