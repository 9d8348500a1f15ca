// Registers the data-plane handlers: Produce, Fetch, ListOffsets, OffsetForLeaderEpoch,
// DeleteRecords, ShareFetch, ShareAcknowledge. They all use `services.replicas` (a ReplicaManager).
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as produce } from './produce.js';
import { handler as fetch } from './fetch.js';
import { handler as listOffsets } from './list-offsets.js';
import { handler as offsetForLeaderEpoch } from './offset-for-leader-epoch.js';
import { handler as deleteRecords } from './delete-records.js';
import { handler as shareFetch } from './share-fetch.js';
import { handler as shareAcknowledge } from './share-acknowledge.js';

export const DATA_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  produce,
  fetch,
  listOffsets,
  offsetForLeaderEpoch,
  deleteRecords,
  shareFetch,
  shareAcknowledge,
];

export function registerDataHandlers(registry: HandlerRegistry): HandlerRegistry {
  for (const h of DATA_HANDLERS) registry.register(h);
  return registry;
}
