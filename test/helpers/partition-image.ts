// A partition image with one replica that leads it, at epoch 0: what the broker-side tests that build a
// MetadataImage by hand give their partitions.
import type { PartitionImage } from '../../src/broker/metadata/image.js';

export function soleReplicaPartition(topicId: string, partitionId: number, leader = 1): PartitionImage {
  return {
    topicId,
    partitionId,
    replicas: [leader],
    isr: [leader],
    removingReplicas: [],
    addingReplicas: [],
    leader,
    leaderRecoveryState: 0,
    leaderEpoch: 0,
    partitionEpoch: 0,
    directories: [],
    eligibleLeaderReplicas: [],
    lastKnownElr: [],
  };
}
