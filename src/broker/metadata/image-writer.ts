// Image -> records, for snapshots (Kafka's MetadataImage.write): features (metadata.version
// first), ZK migration state, cluster (brokers, controllers), topics (TopicRecord then its
// PartitionRecords), configs, client quotas, producer ids, ACLs, SCRAM, delegation tokens.
// Record versions follow the image's metadata.version.

import {
  defaultConfigRecord,
  defaultFeatureLevelRecord,
  defaultPartitionRecord,
  defaultProducerIdsRecord,
  defaultRegisterBrokerRecord,
  defaultRegisterControllerRecord,
  defaultTopicRecord,
  defaultZkMigrationStateRecord,
  defaultClientQuotaRecord,
} from '../../protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE, METADATA_VERSION_FEATURE, mv } from './features.js';
import type { BrokerRegistration, ControllerRegistration, MetadataImage, PartitionImage } from './image.js';

export function brokerRegistrationRecord(b: BrokerRegistration, metadataVersion: number): MetadataRecord {
  return metadataRecord(RecordType.RegisterBroker, mv.registerBrokerRecordVersion(metadataVersion), {
    ...defaultRegisterBrokerRecord(),
    brokerId: b.id,
    isMigratingZkBroker: b.isMigratingZkBroker,
    incarnationId: b.incarnationId,
    brokerEpoch: b.epoch,
    endPoints: b.endpoints.map((e) => ({
      name: e.name,
      host: e.host,
      port: e.port,
      securityProtocol: e.securityProtocol,
    })),
    features: [...b.supportedFeatures].map(([name, r]) => ({
      name,
      minSupportedVersion: r.min,
      maxSupportedVersion: r.max,
    })),
    rack: b.rack,
    fenced: b.fenced,
    inControlledShutdown: b.inControlledShutdown,
    logDirs: mv.isDirectoryAssignmentSupported(metadataVersion) ? b.directories.slice() : [],
  });
}

export function controllerRegistrationRecord(c: ControllerRegistration): MetadataRecord {
  return metadataRecord(RecordType.RegisterController, 0, {
    ...defaultRegisterControllerRecord(),
    controllerId: c.id,
    incarnationId: c.incarnationId,
    zkMigrationReady: c.zkMigrationReady,
    endPoints: c.endpoints.map((e) => ({
      name: e.name,
      host: e.host,
      port: e.port,
      securityProtocol: e.securityProtocol,
    })),
    features: [...c.supportedFeatures].map(([name, r]) => ({
      name,
      minSupportedVersion: r.min,
      maxSupportedVersion: r.max,
    })),
  });
}

/**
 * PartitionRegistration.toRecord: the ELR fields only when ELR is enabled
 * (ImageWriterOptions.isEligibleLeaderReplicasEnabled: eligible.leader.replicas.version >= 1) and non-empty.
 */
export function partitionRecord(p: PartitionImage, metadataVersion: number, elrEnabled = true): MetadataRecord {
  const elr = elrEnabled && mv.isElrSupported(metadataVersion);
  return metadataRecord(RecordType.Partition, mv.partitionRecordVersion(metadataVersion), {
    ...defaultPartitionRecord(),
    partitionId: p.partitionId,
    topicId: p.topicId,
    replicas: p.replicas.slice(),
    isr: p.isr.slice(),
    removingReplicas: p.removingReplicas.slice(),
    addingReplicas: p.addingReplicas.slice(),
    leader: p.leader,
    leaderRecoveryState: p.leaderRecoveryState,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    directories: mv.isDirectoryAssignmentSupported(metadataVersion) ? p.directories.slice() : [],
    eligibleLeaderReplicas: elr && p.eligibleLeaderReplicas.length > 0 ? p.eligibleLeaderReplicas.slice() : null,
    lastKnownElr: elr && p.lastKnownElr.length > 0 ? p.lastKnownElr.slice() : null,
  });
}

/** All records that rebuild `image` from nothing. */
export function imageRecords(image: MetadataImage): MetadataRecord[] {
  const out: MetadataRecord[] = [];
  const level = image.metadataVersion;
  if (level > 0) {
    out.push(
      metadataRecord(RecordType.FeatureLevel, 0, {
        ...defaultFeatureLevelRecord(),
        name: METADATA_VERSION_FEATURE,
        featureLevel: level,
      }),
    );
  }
  for (const [name, featureLevel] of [...image.features].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (name === METADATA_VERSION_FEATURE) continue;
    out.push(metadataRecord(RecordType.FeatureLevel, 0, { ...defaultFeatureLevelRecord(), name, featureLevel }));
  }
  if (mv.isMigrationSupported(level)) {
    out.push(
      metadataRecord(RecordType.ZkMigrationState, 0, {
        ...defaultZkMigrationStateRecord(),
        zkMigrationState: image.zkMigrationState,
      }),
    );
  }
  for (const b of [...image.brokers.values()].sort((x, y) => x.id - y.id)) out.push(brokerRegistrationRecord(b, level));
  if (mv.isControllerRegistrationSupported(level)) {
    for (const c of [...image.controllers.values()].sort((x, y) => x.id - y.id))
      out.push(controllerRegistrationRecord(c));
  }
  const elrEnabled = (image.features.get(ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE) ?? 0) >= 1;
  for (const t of image.topicsById.values()) {
    out.push(metadataRecord(RecordType.Topic, 0, { ...defaultTopicRecord(), name: t.name, topicId: t.id }));
    for (const p of [...t.partitions.values()].sort((a, b) => a.partitionId - b.partitionId))
      out.push(partitionRecord(p, level, elrEnabled));
  }
  for (const [key, configs] of image.configs) {
    const sep = key.indexOf(':');
    const resourceType = Number(key.slice(0, sep));
    const resourceName = key.slice(sep + 1);
    for (const [name, value] of configs) {
      out.push(
        metadataRecord(RecordType.Config, 0, { ...defaultConfigRecord(), resourceType, resourceName, name, value }),
      );
    }
  }
  for (const q of image.clientQuotas.values()) {
    for (const [key, value] of q.quotas) {
      out.push(
        metadataRecord(RecordType.ClientQuota, 0, {
          ...defaultClientQuotaRecord(),
          entity: q.entries.map((e) => ({ entityType: e.entityType, entityName: e.entityName })),
          key,
          value,
          remove: false,
        }),
      );
    }
  }
  if (image.nextProducerId >= 0n) {
    out.push(
      metadataRecord(RecordType.ProducerIds, 0, {
        ...defaultProducerIdsRecord(),
        brokerId: -1,
        brokerEpoch: -1n,
        nextProducerId: image.nextProducerId,
      }),
    );
  }
  for (const a of image.acls.values()) out.push(metadataRecord(RecordType.AccessControlEntry, 0, a));
  for (const s of image.scramCredentials.values()) out.push(metadataRecord(RecordType.UserScramCredential, 0, s));
  for (const d of image.delegationTokens.values()) out.push(metadataRecord(RecordType.DelegationToken, 0, d));
  return out;
}
