// Registers the cluster-membership handlers the active controller serves on the controller
// listener: BrokerRegistration, BrokerHeartbeat, ControllerRegistration, AlterPartition, AssignReplicasToDirs (ControllerApis).
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as brokerRegistration } from './broker-registration.js';
import { handler as brokerHeartbeat } from './broker-heartbeat.js';
import { handler as controllerRegistration } from './controller-registration.js';
import { handler as alterPartition } from './alter-partition.js';
import { handler as assignReplicasToDirs } from './assign-replicas-to-dirs.js';

export const MEMBERSHIP_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  brokerRegistration,
  brokerHeartbeat,
  controllerRegistration,
  alterPartition,
  assignReplicasToDirs,
];

export function registerMembershipHandlers(registry: HandlerRegistry): HandlerRegistry {
  for (const h of MEMBERSHIP_HANDLERS) registry.register(h);
  return registry;
}
