// Wiring of the share coordinator into a broker: __share_group_state through the ReplicaManager,
// topic partition counts from the metadata image, and a metadata publisher that loads a shard when
// this node leads a __share_group_state partition and unloads it when it stops leading (as
// group/broker-glue.ts does for __consumer_offsets); a deleted topic's share-partition states are
// deleted (ShareCoordinatorService.handleTopicsDeletion); records before the oldest latest snapshot
// are deleted every share.coordinator.state.topic.prune.interval.ms (performRecordPruning), and
// share-partitions without a recent snapshot get one (share.coordinator.cold.partition.snapshot.interval.ms).
// The coordinator of a broker is `shareCoordinatorOf(services)`, its persister `persisterOf(services)`.
import type { MetadataPublisher, MetadataUpdate } from '../../metadata/events.js';
import { metadataSourceOf, type BrokerServices } from '../../services.js';
import { ReplicaCoordinatorLog } from '../../group/replica-log.js';
import { ShareCoordinator } from './coordinator.js';
import { brokerPersisterTransport, DefaultStatePersister } from '../default-state-persister.js';
import { SHARE_STATE_TOPIC } from './runtime.js';

export interface ShareCoordinatorHandle {
  coordinator: ShareCoordinator;
  /** The broker's persister (DefaultStatePersister): what the share-partition side and the group coordinator call. */
  persister: DefaultStatePersister;
  shutdown(): Promise<void>;
}

const starting = new WeakMap<BrokerServices, Promise<ShareCoordinatorHandle>>();

/** Creates the share coordinator of a broker and subscribes it to metadata (once, at start-up). */
export function startShareCoordinator(
  services: BrokerServices,
  logger?: (level: string, msg: string) => void,
): Promise<ShareCoordinatorHandle> {
  const already = starting.get(services);
  if (already) return already;
  const p = (async () => {
    const controller = metadataSourceOf(services);
    const cfg = services.config;
    const log = new ReplicaCoordinatorLog(
      services.replicas,
      SHARE_STATE_TOPIC,
      cfg.getInt('share.coordinator.write.timeout.ms'),
      cfg.getInt('share.coordinator.load.buffer.size'),
    );
    const coordinator = new ShareCoordinator({
      numPartitions: cfg.getInt('share.coordinator.state.topic.num.partitions'),
      recordsPerSnapshot: cfg.getInt('share.coordinator.snapshot.update.records.per.snapshot'),
      log,
      partitionCount: (topicId) => controller.image.topicById(topicId)?.partitions.size,
      logger,
    });
    coordinator.startup();
    const nodeId = services.nodeId;
    const publisher: MetadataPublisher = {
      name: 'share-coordinator',
      onMetadataUpdate: (u: MetadataUpdate) => {
        const deleted: string[] = [];
        for (const ev of u.events) {
          if (ev.type === 'partitionsCreated' && ev.topic.name === SHARE_STATE_TOPIC) {
            for (const part of ev.partitions)
              if (part.leader === nodeId) void coordinator.loadPartition(part.partitionId);
          } else if (ev.type === 'partitionsChanged' && ev.topic.name === SHARE_STATE_TOPIC) {
            for (const { previous, current } of ev.partitions) {
              if (
                current.leader === nodeId &&
                (previous.leader !== nodeId || previous.leaderEpoch !== current.leaderEpoch)
              )
                void coordinator.loadPartition(current.partitionId);
              else if (current.leader !== nodeId && previous.leader === nodeId)
                void coordinator.unloadPartition(current.partitionId);
            }
          } else if (ev.type === 'topicDeleted') {
            if (ev.topic.name === SHARE_STATE_TOPIC)
              for (const id of ev.topic.partitions.keys()) void coordinator.unloadPartition(id);
            else deleted.push(ev.topic.id);
          }
        }
        if (deleted.length > 0) void coordinator.onTopicsDeleted(deleted);
      },
    };
    await controller.addPublisher(publisher);
    // the periodic jobs run while share groups are enabled (ShareCoordinatorService.isShareGroupsEnabled)
    const enabled = (): boolean => (controller.image.features.get('share.version') ?? 0) >= 1;
    const prune = setInterval(
      () =>
        enabled() &&
        void coordinator.pruneRecords(
          async (p, offset) => (await services.replicas.deleteRecords(SHARE_STATE_TOPIC, p, offset)).errorCode,
        ),
      cfg.getInt('share.coordinator.state.topic.prune.interval.ms'),
    );
    prune.unref();
    const coldMs = cfg.getInt('share.coordinator.cold.partition.snapshot.interval.ms');
    const cold = setInterval(() => enabled() && void coordinator.snapshotColdPartitions(coldMs), coldMs);
    cold.unref();
    const transport = brokerPersisterTransport(services, () => Promise.resolve(coordinator));
    const persister = new DefaultStatePersister(transport, undefined, logger);
    return {
      coordinator,
      persister,
      async shutdown() {
        persister.close();
        transport.close();
        clearInterval(prune);
        clearInterval(cold);
        await controller.removePublisher(publisher);
        await coordinator.shutdown();
        starting.delete(services);
      },
    };
  })();
  starting.set(services, p);
  return p;
}

/** The broker's share coordinator; started on first use when the server did not start it. */
export async function shareCoordinatorOf(services: BrokerServices): Promise<ShareCoordinator> {
  return (await startShareCoordinator(services)).coordinator;
}

/** The broker's persister (Kafka's DefaultStatePersister), for the share-partition side and the group coordinator. */
export async function persisterOf(services: BrokerServices): Promise<DefaultStatePersister> {
  return (await startShareCoordinator(services)).persister;
}
