// What a server registers on its NodeMetrics, by role: the request metrics every node records (its
// SocketServer gets the RequestMetrics returned), the broker's replica/log/group metrics, the
// controller's KafkaController metrics, the raft metrics of its KRaft client, the socket server's.
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { Quorum } from '../raft/types.js';
import type { NodeMetrics } from './node-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import {
  registerGroupMetrics,
  registerLinuxIoMetrics,
  registerPartitionLoadTimes,
  registerReplicaMetrics,
  registerSocketServerMetrics,
  type ConnectionsSource,
  type GroupsSource,
} from './broker-metrics.js';
import { registerControllerMetrics, registerRaftMetrics, type ControllerSource } from './controller-metrics.js';
import type { SampledStat } from './sampled.js';

export { NodeMetrics } from './node-metrics.js';
export { RequestMetrics } from './request-metrics.js';

export interface NodeParts {
  /** the broker role's partitions */
  readonly replicas?: ReplicaManager;
  /** the controller role (in-process QuorumController) */
  readonly controller?: ControllerSource;
  /** the node's KRaft client: a voter's or a broker's observer */
  readonly quorum?: Quorum;
  /** the broker role's group coordinator, while it runs */
  readonly groups?: () => GroupsSource | null;
  /** the broker role's transaction coordinator, while it runs */
  readonly transactions?: () => { readonly partitionLoadTimes: SampledStat } | null;
}

/** Registers the node's metrics; the RequestMetrics its SocketServer records into. */
export function instrumentNode(metrics: NodeMetrics, parts: NodeParts): RequestMetrics {
  const registry = metrics.registry;
  const requests = new RequestMetrics();
  requests.register(registry);
  registerLinuxIoMetrics(registry);
  if (parts.replicas) registerReplicaMetrics(registry, parts.replicas);
  const groups = parts.groups;
  if (groups) {
    registerGroupMetrics(registry, groups);
    registerPartitionLoadTimes(registry, 'group-coordinator-metrics', () => groups()?.partitionLoadTimes ?? null);
  }
  const txns = parts.transactions;
  if (txns)
    registerPartitionLoadTimes(registry, 'transaction-coordinator-metrics', () => txns()?.partitionLoadTimes ?? null);
  if (parts.controller) metrics.onClose(registerControllerMetrics(registry, parts.controller));
  if (parts.quorum) registerRaftMetrics(registry, parts.quorum);
  return requests;
}

/** The socket server's queue, connection and idle metrics. */
export function instrumentSocketServer(
  metrics: NodeMetrics,
  server: ConnectionsSource,
  listeners: readonly string[],
): void {
  registerSocketServerMetrics(metrics.registry, server, listeners);
}
