// KIP-858 on the controller: Kafka 4.4's ReplicationControlManager.handleDirectoriesOffline (a
// broker heartbeat's OfflineLogDirs takes the partitions assigned to those dirs away from the broker
// and drops the dirs from its registration) and handleAssignReplicasToDirs (AssignReplicasToDirs, API
// 73: a broker tells the controller in which of its dirs each replica lives).
//
// Kafka keeps `directoriesToPartitions`, an index replayed from PartitionRecord /
// PartitionChangeRecord `directories`; here the same set is read from the image (a directory id
// belongs to one broker only, so "replica of `brokerId` whose directory is `dir`" is that index).

import type {
  AssignReplicasToDirsRequest,
  AssignReplicasToDirsResponse,
} from '../../protocol/generated/protocol/AssignReplicasToDirs.js';
import { defaultBrokerRegistrationChangeRecord } from '../../protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { mv } from '../metadata/features.js';
import type { BrokerRegistration, MetadataImage, PartitionImage } from '../metadata/image.js';
import { checkBrokerEpoch } from './cluster.js';
import { ErrorCode, fail } from './errors.js';
import {
  defaultDir,
  generateLeaderAndIsrUpdates,
  hasOnlineDir,
  leaderAcceptor,
  topicEffectiveMinIsr,
  type PartitionSelector,
  type TopicConfigDefaults,
} from './leader-and-isr.js';
import { PartitionChangeBuilder } from './partition-change-builder.js';

/** BrokerRegistration.directoryIntersection: the registered dirs that are in `dirs`. */
export function directoryIntersection(reg: BrokerRegistration, dirs: readonly string[]): string[] {
  return reg.directories.filter((d) => dirs.includes(d));
}

/** BrokerRegistration.directoryDifference: the registered dirs that are not in `dirs`. */
export function directoryDifference(reg: BrokerRegistration, dirs: readonly string[]): string[] {
  return reg.directories.filter((d) => !dirs.includes(d));
}

/** directoriesToPartitions.get(dir) for a dir of `brokerId`: the partitions whose replica on the broker is in `dir`. */
export function withReplicaInDir(brokerId: number, dir: string): PartitionSelector {
  return (p: PartitionImage) => {
    const i = p.replicas.indexOf(brokerId);
    return i >= 0 && p.directories[i] === dir;
  };
}

/** `[a, b]` as Java's List.toString prints Uuids (base64url). */
function javaList(ids: readonly string[]): string {
  return `[${ids.join(', ')}]`;
}

/**
 * ReplicationControlManager.handleDirectoriesOffline (from processBrokerHeartbeat, when the
 * metadata.version supports directory assignment): for each registered dir of the broker named in
 * `offlineDirs`, the partitions assigned to it get the leader/ISR change that removes the broker;
 * then one BrokerRegistrationChangeRecord (v2) with the remaining dirs, and Kafka's WARN line.
 * Nothing when no registered dir is newly offline.
 */
export function handleDirectoriesOffline(
  image: MetadataImage,
  brokerId: number,
  brokerEpoch: bigint,
  offlineDirs: readonly string[],
  defaults?: TopicConfigDefaults,
  warn?: (message: string) => void,
): MetadataRecord[] {
  const reg = image.brokers.get(brokerId);
  if (!reg || offlineDirs.length === 0) return [];
  const newOffline = directoryIntersection(reg, offlineDirs);
  if (newOffline.length === 0) return [];
  const records: MetadataRecord[] = [];
  for (const dir of newOffline) {
    records.push(
      ...generateLeaderAndIsrUpdates({ image, defaults }, brokerId, -1, -1, withReplicaInDir(brokerId, dir)),
    );
  }
  const remaining = directoryDifference(reg, offlineDirs);
  records.push(
    metadataRecord(RecordType.BrokerRegistrationChange, 2, {
      ...defaultBrokerRegistrationChangeRecord(),
      brokerId,
      brokerEpoch,
      logDirs: remaining,
    }),
  );
  warn?.(
    `Directories ${javaList(newOffline)} in broker ${brokerId} marked offline, remaining directories: ${javaList(remaining)}`,
  );
  return records;
}

/**
 * ReplicationControlManager.handleAssignReplicasToDirs: UNSUPPORTED_VERSION below 3.7-IV2,
 * STALE_BROKER_EPOCH / BROKER_ID_NOT_REGISTERED; then per partition UNKNOWN_TOPIC_ID,
 * UNKNOWN_TOPIC_OR_PARTITION or NOT_LEADER_OR_FOLLOWER (not a replica on the broker), else a
 * PartitionChangeRecord setting the broker's directory (when it changes). Partitions assigned to a
 * dir that is not online on the broker then leave the broker as handleDirectoriesOffline does.
 */
export function handleAssignReplicasToDirs(
  image: MetadataImage,
  req: AssignReplicasToDirsRequest,
  defaults?: TopicConfigDefaults,
  warn?: (message: string) => void,
): { records: MetadataRecord[]; response: AssignReplicasToDirsResponse } {
  if (!mv.isDirectoryAssignmentSupported(image.metadataVersion)) {
    fail(ErrorCode.UNSUPPORTED_VERSION, 'Directory assignment is not supported yet.');
  }
  const brokerId = req.brokerId;
  checkBrokerEpoch(image, brokerId, req.brokerEpoch);
  const records: MetadataRecord[] = [];
  const offlineAssigned = new Set<string>();
  const response: AssignReplicasToDirsResponse = { throttleTimeMs: 0, errorCode: 0, directories: [] };
  for (const reqDir of req.directories) {
    const dirId = reqDir.id;
    const directoryIsOffline = !hasOnlineDir(image, brokerId, dirId);
    const resDir: AssignReplicasToDirsResponse['directories'][number] = { id: dirId, topics: [] };
    for (const reqTopic of reqDir.topics) {
      const topicId = reqTopic.topicId;
      const topic = image.topicsById.get(topicId);
      if (!topic) warn?.(`AssignReplicasToDirsRequest from broker ${brokerId} references unknown topic ID ${topicId}`);
      const resTopic: AssignReplicasToDirsResponse['directories'][number]['topics'][number] = {
        topicId,
        partitions: [],
      };
      for (const reqPartition of reqTopic.partitions) {
        const partitionIndex = reqPartition.partitionIndex;
        let errorCode: number = ErrorCode.NONE;
        if (!topic) {
          errorCode = ErrorCode.UNKNOWN_TOPIC_ID;
        } else {
          const p = topic.partitions.get(partitionIndex);
          if (!p) {
            warn?.(
              `AssignReplicasToDirsRequest from broker ${brokerId} references unknown partition ${topic.name}-${partitionIndex}`,
            );
            errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
          } else if (!p.replicas.includes(brokerId)) {
            warn?.(
              `AssignReplicasToDirsRequest from broker ${brokerId} references non assigned partition ${topic.name}-${partitionIndex}`,
            );
            errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
          } else {
            // Kafka builds this one without setEligibleLeaderReplicasEnabled (false)
            const record = new PartitionChangeBuilder(
              p,
              leaderAcceptor(image, p),
              image.metadataVersion,
              topicEffectiveMinIsr({ image, defaults }, topic),
              false,
            )
              .setDirectory(brokerId, dirId)
              .setDefaultDirProvider((id) => defaultDir(image, id))
              .buildRecord();
            if (record) records.push(record);
            if (directoryIsOffline) offlineAssigned.add(`${topicId}:${partitionIndex}`);
          }
        }
        resTopic.partitions.push({ partitionIndex, errorCode });
      }
      resDir.topics.push(resTopic);
    }
    response.directories.push(resDir);
  }
  if (offlineAssigned.size > 0) {
    // generateLeaderAndIsrUpdates("offline-dir-assignment", ...) — against the image before this
    // request's records, as Kafka's (its records are only replayed after the whole result)
    records.push(
      ...generateLeaderAndIsrUpdates({ image, defaults }, brokerId, -1, -1, (p) =>
        offlineAssigned.has(`${p.topicId}:${p.partitionId}`),
      ),
    );
  }
  return { records, response };
}
