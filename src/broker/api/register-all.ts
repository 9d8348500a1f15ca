// Registers the metadata and admin handlers: Metadata, CreateTopics, DeleteTopics,
// CreatePartitions, DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, DescribeCluster,
// DescribeLogDirs, DescribeTopicPartitions, DescribeQuorum, ListConfigResources, UnregisterBroker,
// UnregisterController, UpdateFeatures, AlterPartitionReassignments, ListPartitionReassignments,
// ElectLeaders, DescribeClientQuotas, DescribeUserScramCredentials, AlterUserScramCredentials,
// DescribeAcls, CreateAcls, DeleteAcls.
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as metadata } from './metadata.js';
import { handler as createTopics } from './create-topics.js';
import { handler as deleteTopics } from './delete-topics.js';
import { handler as createPartitions } from './create-partitions.js';
import { handler as describeConfigs } from './describe-configs.js';
import { handler as alterConfigs } from './alter-configs.js';
import { handler as incrementalAlterConfigs } from './incremental-alter-configs.js';
import { handler as describeCluster } from './describe-cluster.js';
import { handler as describeLogDirs } from './describe-log-dirs.js';
import { handler as alterReplicaLogDirs } from './alter-replica-log-dirs.js';
import { handler as describeTopicPartitions } from './describe-topic-partitions.js';
import { handler as describeQuorum } from './describe-quorum.js';
import { handler as listConfigResources } from './list-config-resources.js';
import { handler as unregisterBroker } from './unregister-broker.js';
import { handler as unregisterController } from './unregister-controller.js';
import { handler as updateFeatures } from './update-features.js';
import { handler as alterPartitionReassignments } from './alter-partition-reassignments.js';
import { handler as listPartitionReassignments } from './list-partition-reassignments.js';
import { handler as electLeaders } from './elect-leaders.js';
import { handler as describeClientQuotas } from './describe-client-quotas.js';
import { handler as alterClientQuotas } from './alter-client-quotas.js';
import { handler as describeUserScramCredentials } from './describe-user-scram-credentials.js';
import { handler as alterUserScramCredentials } from './alter-user-scram-credentials.js';
import { handler as describeAcls } from './describe-acls.js';
import { handler as createAcls } from './create-acls.js';
import { handler as deleteAcls } from './delete-acls.js';
import { forwardedHandler, isForwardable } from './forwarded.js';

export const ADMIN_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  metadata,
  createTopics,
  deleteTopics,
  createPartitions,
  describeConfigs,
  alterConfigs,
  incrementalAlterConfigs,
  describeCluster,
  describeLogDirs,
  alterReplicaLogDirs,
  describeTopicPartitions,
  describeQuorum,
  listConfigResources,
  unregisterBroker,
  unregisterController,
  updateFeatures,
  alterPartitionReassignments,
  listPartitionReassignments,
  electLeaders,
  describeClientQuotas,
  alterClientQuotas,
  describeUserScramCredentials,
  alterUserScramCredentials,
  describeAcls,
  createAcls,
  deleteAcls,
];

/**
 * Registers the admin handlers. With `forward` (a broker-only node, or a combined node of a multi-voter
 * quorum), the controller APIs among them are registered on the broker listener as forwarding handlers
 * (api/forwarded.ts); with `controller` too (the combined node), as themselves on controller listeners.
 */
export function registerAdminHandlers(
  registry: HandlerRegistry,
  opts: { forward?: boolean; controller?: boolean } = {},
): HandlerRegistry {
  for (const h of ADMIN_HANDLERS) {
    if (!opts.forward || !isForwardable(h.apiKey)) {
      registry.register(h);
      continue;
    }
    registry.register(forwardedHandler(h));
    // a combined node of a multi-voter quorum also serves them as a controller (ControllerApis)
    const onController = h.listeners.filter((l) => l === 'controller');
    if (opts.controller && onController.length > 0) registry.register({ ...h, listeners: onController });
  }
  return registry;
}
