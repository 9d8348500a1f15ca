// Wiring of the group coordinator into a broker: __consumer_offsets through the ReplicaManager,
// topic metadata from the controller's image, and a metadata publisher that loads a shard when this
// node leads a __consumer_offsets partition, unloads it when it stops leading, and removes the
// offsets of deleted topics. The coordinator lives in `services.groupCoordinator` (this module is its only writer).
import { ConfigResourceType, type MetadataImage, type TopicImage } from '../metadata/image.js';
import type { MetadataPublisher, MetadataUpdate } from '../metadata/events.js';
import { SHARE_VERSION_FEATURE, STREAMS_VERSION_FEATURE } from '../metadata/features.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import { groupConfigFrom } from './config.js';
import { GroupCoordinator } from './coordinator.js';
import { ReplicaCoordinatorLog } from './replica-log.js';
import type { MetadataView, TopicView } from './shard-types.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

const view = (t: TopicImage | undefined): TopicView | undefined =>
  t ? { id: t.id, name: t.name, numPartitions: t.partitions.size } : undefined;

export function metadataViewOf(image: () => MetadataImage, nodeId?: number): MetadataView {
  return {
    topic: (name) => view(image().topic(name)),
    topicById: (id) => view(image().topicById(id)),
    topicNames: () => image().topicsByName.keys(),
    version: () => image().offset,
    groupConfigs: (groupId) => image().configsOf(ConfigResourceType.Group, groupId),
    dynamicBrokerConfig: (name) =>
      (nodeId === undefined ? undefined : image().brokerConfigs(nodeId).get(name)) ??
      image().brokerConfigs('').get(name),
  };
}

export interface GroupCoordinatorHandle {
  coordinator: GroupCoordinator;
  shutdown(): Promise<void>;
}

const starting = new WeakMap<BrokerServices, Promise<GroupCoordinatorHandle>>();

/**
 * Creates the group coordinator of a broker and subscribes it to metadata (call once at startup,
 * after the broker's own partition publisher so the partitions exist before they load).
 */
export function startGroupCoordinator(
  services: BrokerServices,
  logger?: (level: string, msg: string) => void,
): Promise<GroupCoordinatorHandle> {
  const already = starting.get(services);
  if (already) return already;
  const p = (async () => {
    const controller = metadataSourceOf(services);
    const config = groupConfigFrom(services.config);
    const log = new ReplicaCoordinatorLog(
      services.replicas,
      OFFSETS_TOPIC,
      config.offsetCommitTimeoutMs,
      services.config.getInt('offsets.load.buffer.size'),
    );
    const coordinator = new GroupCoordinator({
      config,
      log,
      metadata: metadataViewOf(() => controller.image, services.nodeId),
      logger,
      unrefTimers: true,
      leadsPartition: (p) => controller.image.topic(OFFSETS_TOPIC)?.partitions.get(p)?.leader === services.nodeId,
      // KafkaApis.isShareGroupProtocolEnabled: ShareVersion.supportsShareGroups (share.version >= 1)
      shareEnabled: () => (controller.image.features.get(SHARE_VERSION_FEATURE) ?? 0) >= 1,
      // KafkaApis.isStreamsGroupProtocolEnabled: StreamsVersion.streamsGroupSupported (streams.version >= 1)
      streamsEnabled: () => (controller.image.features.get(STREAMS_VERSION_FEATURE) ?? 0) >= 1,
    });
    services.groupCoordinator = coordinator;
    const nodeId = services.nodeId;
    const publisher: MetadataPublisher = {
      name: 'group-coordinator',
      onMetadataUpdate: (u: MetadataUpdate) => {
        const deleted: string[] = [];
        let topicsChanged = false;
        for (const ev of u.events) {
          if (ev.type === 'partitionsCreated' && ev.topic.name === OFFSETS_TOPIC) {
            for (const part of ev.partitions)
              if (part.leader === nodeId) void coordinator.loadPartition(part.partitionId);
          } else if (ev.type === 'partitionsChanged' && ev.topic.name === OFFSETS_TOPIC) {
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
            if (ev.topic.name === OFFSETS_TOPIC)
              for (const id of ev.topic.partitions.keys()) void coordinator.unloadPartition(id);
            else deleted.push(ev.topic.name);
            topicsChanged = true;
          } else if (ev.type === 'partitionsCreated' || ev.type === 'topicCreated') {
            topicsChanged = true;
          }
        }
        if (deleted.length > 0) void coordinator.onTopicsDeleted(deleted);
        if (topicsChanged) coordinator.onTopicsChanged();
      },
    };
    await controller.addPublisher(publisher);
    return {
      coordinator,
      async shutdown() {
        await controller.removePublisher(publisher);
        await coordinator.shutdown();
        services.groupCoordinator = null;
      },
    };
  })();
  starting.set(services, p);
  return p;
}

/** The broker's group coordinator; started on first use when the server did not start it. */
export async function groupCoordinatorOf(services: BrokerServices): Promise<GroupCoordinator> {
  if (services.groupCoordinator) return services.groupCoordinator;
  return (await startGroupCoordinator(services)).coordinator;
}

/** The request facts the coordinator keeps about a member (client id, "/host" as Kafka prints it). */
export function requestInfoOf(ctx: { apiVersion: number; clientId: string | null; clientAddress: string }): {
  apiVersion: number;
  clientId: string;
  clientHost: string;
} {
  return { apiVersion: ctx.apiVersion, clientId: ctx.clientId ?? '', clientHost: `/${ctx.clientAddress}` };
}
