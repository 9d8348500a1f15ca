// The broker's client quota managers, one set per node (BrokerServices), reading the node's
// metadata image (the quotas of ClientQuotaRecords) and its quota.window.* configs.
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import { metadataSourceOf } from '../services.js';
import { createQuotaManagers, type QuotaManagers } from './client-quota-manager.js';

export { setRequestThrottle } from './throttle.js';

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
