// The parts of Kafka 4.4's ReplicationControlManager that turn broker state changes into
// PartitionChangeRecords through the PartitionChangeBuilder: LeaderAcceptor (an active broker whose
// replica directory is online), getTopicEffectiveMinIsr, uncleanLeaderElectionEnabledForTopic
// (topic config, then the active controller's and the cluster's dynamic broker configs, then the
// static default), FeatureControlManager.isElrFeatureEnabled, ClusterControlManager.defaultDir,
// and generateLeaderAndIsrUpdates (a broker leaving every ISR, or a broker coming back electing
// itself where partitions are leaderless).

import { ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE } from '../metadata/features.js';
import { DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED } from '../metadata/delta.js';
import type { MetadataImage, PartitionImage, TopicImage } from '../metadata/image.js';
import { defaultClearElrRecord } from '../../protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { ConfigResourceType } from '../metadata/image.js';
import { Election, PartitionChangeBuilder } from './partition-change-builder.js';

/** DirectoryId.LOST. */
export const DIRECTORY_LOST = 'AAAAAAAAAAAAAAAAAAAAAg';

/** Static broker defaults the controller resolves topic configs against (the node's server.properties). */
export interface TopicConfigDefaults {
  /** min.insync.replicas (default 1). */
  readonly minInsyncReplicas?: number;
  /** unclean.leader.election.enable (default false). */
  readonly uncleanLeaderElectionEnable?: boolean;
}

export interface ReplicationSettings {
  readonly image: MetadataImage;
  /** The active controller's node id (its dynamic broker configs take part in topic config resolution; default the image's). */
  readonly controllerId?: number;
  readonly defaults?: TopicConfigDefaults;
}

/** ClusterControlManager.isActive: registered, not fenced, not in controlled shutdown. */
export function isActiveBroker(image: MetadataImage, id: number): boolean {
  const b = image.brokers.get(id);
  return b !== undefined && !b.fenced && !b.inControlledShutdown;
}

/** DirectoryId.isOnline against a broker's registered directories. */
export function hasOnlineDir(image: MetadataImage, brokerId: number, dir: string | undefined): boolean {
  const b = image.brokers.get(brokerId);
  if (!b) return false;
  if (dir === undefined || dir === DIRECTORY_UNASSIGNED || dir === DIRECTORY_MIGRATING) return true;
  if (dir === DIRECTORY_LOST) return false;
  return b.directories.length === 0 || b.directories.includes(dir);
}

/** ClusterControlManager.defaultDir. */
export function defaultDir(image: MetadataImage, brokerId: number): string {
  const b = image.brokers.get(brokerId);
  if (!b) return DIRECTORY_UNASSIGNED;
  if (b.directories.length === 0) return DIRECTORY_MIGRATING;
  return b.directories.length === 1 ? b.directories[0]! : DIRECTORY_UNASSIGNED;
}

/** ReplicationControlManager.LeaderAcceptor: `accept` (default isActive) and the replica's directory online. */
export function leaderAcceptor(
  image: MetadataImage,
  p: PartitionImage,
  accept: (id: number) => boolean = (id) => isActiveBroker(image, id),
): (id: number) => boolean {
  return (id) => {
    if (!accept(id)) return false;
    const i = p.replicas.indexOf(id);
    return hasOnlineDir(image, id, i >= 0 ? p.directories[i] : undefined);
  };
}

/** ConfigurationControlManager.getTopicConfig: topic, then the active controller's, then the cluster's dynamic broker config. */
function effectiveTopicConfig(s: ReplicationSettings, topic: string, name: string): string | undefined {
  return (
    s.image.topicConfigs(topic).get(name) ??
    s.image.brokerConfigs(s.controllerId ?? s.image.controllerId).get(name) ??
    s.image.brokerConfigs().get(name)
  );
}

/** ReplicationControlManager.getTopicEffectiveMinIsr: min(min.insync.replicas, the replication factor of partition 0). */
export function topicEffectiveMinIsr(s: ReplicationSettings, topic: TopicImage): number {
  const configured = effectiveTopicConfig(s, topic.name, 'min.insync.replicas');
  const minIsr = configured !== undefined ? Number.parseInt(configured, 10) : (s.defaults?.minInsyncReplicas ?? 1);
  const rf = topic.partitions.get(0)?.replicas.length ?? minIsr;
  return Math.min(minIsr, rf);
}

/** ConfigurationControlManager.uncleanLeaderElectionEnabledForTopic. */
export function uncleanLeaderElectionEnabled(s: ReplicationSettings, topic: string): boolean {
  const configured = effectiveTopicConfig(s, topic, 'unclean.leader.election.enable');
  if (configured === undefined) return s.defaults?.uncleanLeaderElectionEnable ?? false;
  return configured.toLowerCase() === 'true';
}

/** FeatureControlManager.isElrFeatureEnabled: eligible.leader.replicas.version >= 1. */
export function isElrEnabled(image: MetadataImage): boolean {
  return (image.features.get(ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE) ?? 0) >= 1;
}

/** A PartitionChangeBuilder for a partition, set up as ReplicationControlManager does everywhere. */
export function partitionChangeBuilder(
  s: ReplicationSettings,
  topic: TopicImage,
  p: PartitionImage,
  accept?: (id: number) => boolean,
): PartitionChangeBuilder {
  const b = new PartitionChangeBuilder(
    p,
    leaderAcceptor(s.image, p, accept),
    s.image.metadataVersion,
    topicEffectiveMinIsr(s, topic),
    isElrEnabled(s.image),
  ).setDefaultDirProvider((id) => defaultDir(s.image, id));
  return b;
}

/** Which partitions generateLeaderAndIsrUpdates visits. */
export type PartitionSelector = (p: PartitionImage) => boolean;

export const withBrokerInIsr =
  (brokerId: number): PartitionSelector =>
  (p) =>
    p.isr.includes(brokerId);
export const withBrokerInElr =
  (brokerId: number): PartitionSelector =>
  (p) =>
    p.eligibleLeaderReplicas.includes(brokerId);
export const withNoLeader: PartitionSelector = (p) => p.leader === -1;

/**
 * ReplicationControlManager.generateLeaderAndIsrUpdates: for each selected partition, the ISR
 * without `brokerToRemove` / `brokerWithUncleanShutdown`, and a leader elected among brokers other
 * than those that are active or are `brokerToAdd` (unclean where the topic allows it).
 */
export function generateLeaderAndIsrUpdates(
  s: ReplicationSettings,
  brokerToRemove: number,
  brokerToAdd: number,
  brokerWithUncleanShutdown: number,
  select: PartitionSelector,
): MetadataRecord[] {
  const accept = (r: number): boolean =>
    r !== brokerToRemove && r !== brokerWithUncleanShutdown && (r === brokerToAdd || isActiveBroker(s.image, r));
  const out: MetadataRecord[] = [];
  for (const topic of s.image.topicsById.values()) {
    for (const p of topic.partitions.values()) {
      if (!select(p)) continue;
      const builder = partitionChangeBuilder(s, topic, p, accept);
      if (uncleanLeaderElectionEnabled(s, topic.name)) builder.setElection(Election.UNCLEAN);
      if (brokerWithUncleanShutdown !== -1) builder.setUncleanShutdownReplicas([brokerWithUncleanShutdown]);
      builder.setTargetIsr(p.isr.filter((r) => r !== brokerToRemove && r !== brokerWithUncleanShutdown));
      const record = builder.buildRecord();
      if (record) out.push(record);
    }
  }
  return out;
}

/**
 * ConfigurationControlManager.createClearElrRecordsAsNeeded: with ELR enabled, a change of
 * min.insync.replicas invalidates the ELRs it was kept against — a ClearElrRecord for the topic (a
 * topic config) or for all topics (a broker config) follows each such ConfigRecord.
 */
export function clearElrRecordsAsNeeded(image: MetadataImage, records: readonly MetadataRecord[]): MetadataRecord[] {
  if (!isElrEnabled(image)) return [];
  const out: MetadataRecord[] = [];
  for (const r of records) {
    if (r.type !== RecordType.Config || r.data.name !== 'min.insync.replicas') continue;
    const topicName = r.data.resourceType === ConfigResourceType.Topic ? r.data.resourceName : '';
    out.push(metadataRecord(RecordType.ClearElr, 0, { ...defaultClearElrRecord(), topicName }));
  }
  return out;
}

/** ReplicationControlManager.MAX_ELECTIONS_PER_IMBALANCE: elections per run of a periodic election task. */
export const MAX_ELECTIONS_PER_IMBALANCE = 1000;

/**
 * ReplicationControlManager.maybeBalancePartitionLeaders (the electPreferred periodic task, run
 * when auto.leader.rebalance.enable): a PREFERRED election for each partition whose leader is not
 * its first replica, at most `max` records; `more` asks for another run at once.
 */
export function maybeBalancePartitionLeaders(
  s: ReplicationSettings,
  max = MAX_ELECTIONS_PER_IMBALANCE,
): { records: MetadataRecord[]; more: boolean } {
  const records: MetadataRecord[] = [];
  for (const topic of s.image.topicsById.values()) {
    for (const p of topic.partitions.values()) {
      if (records.length >= max) return { records, more: true };
      if (p.replicas.length === 0 || p.leader === p.replicas[0]) continue;
      const r = partitionChangeBuilder(s, topic, p).setElection(Election.PREFERRED).buildRecord();
      if (r) records.push(r);
    }
  }
  return { records, more: records.length >= max };
}

/**
 * ReplicationControlManager.maybeElectUncleanLeaders (the electUnclean periodic task, every
 * unclean.leader.election.interval.ms): an UNCLEAN election for each leaderless partition of a topic
 * whose unclean.leader.election.enable is true, at most `max` records.
 */
export function maybeElectUncleanLeaders(
  s: ReplicationSettings,
  max = MAX_ELECTIONS_PER_IMBALANCE,
  log?: (message: string) => void,
): { records: MetadataRecord[]; more: boolean } {
  const records: MetadataRecord[] = [];
  for (const topic of s.image.topicsById.values()) {
    for (const p of topic.partitions.values()) {
      if (records.length >= max) return { records, more: true };
      if (p.leader !== -1 || !uncleanLeaderElectionEnabled(s, topic.name)) continue;
      const r = partitionChangeBuilder(s, topic, p).setElection(Election.UNCLEAN).buildRecord();
      if (r) {
        records.push(r);
        log?.(`Triggering unclean leader election for offline partition ${topic.name}-${p.partitionId}.`);
      } else {
        log?.(
          `Cannot trigger unclean leader election for offline partition ${topic.name}-${p.partitionId}: ELIGIBLE_LEADERS_NOT_AVAILABLE.`,
        );
      }
    }
  }
  return { records, more: records.length >= max };
}
