// Registers the share coordinator's RPCs (KIP-932): InitializeShareGroupState, ReadShareGroupState,
// WriteShareGroupState, DeleteShareGroupState, ReadShareGroupStateSummary (broker listeners). They
// reach the share coordinator through share/coordinator/broker-glue.ts (startShareCoordinator /
// shareCoordinatorOf).
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as initializeShareGroupState } from './initialize-share-group-state.js';
import { handler as readShareGroupState } from './read-share-group-state.js';
import { handler as writeShareGroupState } from './write-share-group-state.js';
import { handler as deleteShareGroupState } from './delete-share-group-state.js';
import { handler as readShareGroupStateSummary } from './read-share-group-state-summary.js';

export const SHARE_COORDINATOR_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  initializeShareGroupState,
  readShareGroupState,
  writeShareGroupState,
  deleteShareGroupState,
  readShareGroupStateSummary,
];

export function registerShareCoordinatorHandlers(registry: HandlerRegistry): HandlerRegistry {
  for (const h of SHARE_COORDINATOR_HANDLERS) registry.register(h);
  return registry;
}
