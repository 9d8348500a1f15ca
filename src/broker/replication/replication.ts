// Wires partition replication into a broker (Kafka's ReplicaManager.startup with its
// ReplicaFetcherManager and AlterPartitionManager): the follower fetchers over the inter-broker
// listener, and ISR changes to the active controller over the broker's controller channel. The
// server composes it after the ReplicaManager and before the partition publisher, and shuts it down
// before the ReplicaManager (no fetch appends to closing logs).
import type { ServerConfig } from '../../config/load.js';
import type { ControllerChannel } from '../forwarding/controller-channel.js';
import type { MetadataImage } from '../metadata/image.js';
import { AlterPartitionManager } from './alter-partition-manager.js';
import { ReplicaFetcherManager, replicaFetcherConfig } from './fetcher-manager.js';
import type { ReplicaManager } from './replica-manager.js';
import type { ReplicaLogger } from './types.js';
import { nodeOutgoingSecurity } from '../security/outgoing.js';

export interface Replication {
  readonly fetchers: ReplicaFetcherManager;
  readonly alterPartition: AlterPartitionManager;
  shutdown(): Promise<void>;
}

export function startReplication(o: {
  config: ServerConfig;
  replicas: ReplicaManager;
  image: () => MetadataImage | undefined;
  channel: ControllerChannel;
  logger: ReplicaLogger;
}): Replication {
  const fetchers = new ReplicaFetcherManager(
    o.replicas,
    o.image,
    o.config.interBrokerListenerName,
    { ...replicaFetcherConfig(o.config), security: nodeOutgoingSecurity(o.config).interBroker },
    o.logger,
  );
  const alterPartition = new AlterPartitionManager(o.replicas, o.channel, o.logger, {
    retryBackoffMs: o.config.getInt('controller.quorum.retry.backoff.ms'),
  });
  o.replicas.setFollowerListener(fetchers);
  o.replicas.setIsrChangeSender(alterPartition);
  return {
    fetchers,
    alterPartition,
    async shutdown() {
      alterPartition.close();
      await fetchers.shutdown();
    },
  };
}
