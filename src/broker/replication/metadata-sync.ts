// Following the metadata image (Kafka's ReplicaManager.applyDelta): host the partitions whose
// replicas include this broker (a reassignment's adding replicas among them), as leader when the
// image says so and otherwise as follower of the image's leader (the fetcher manager then replicates
// it); a partition change that takes this broker out of the replicas (a completed or cancelled
// reassignment) deletes its replica with the log, as Kafka's TopicDelta.localChanges lists it among
// the deletes; a whole image (start-up) releases the partitions not assigned here with their data
// kept; the partitions of deleted topics are dropped.

import type { MetadataImage, PartitionImage } from '../metadata/image.js';
import type { ReplicaManager } from './replica-manager.js';
import type { TopicOverrides } from './topic-config.js';

/**
 * Applies one partition's state: becomes (or stays) its leader when the image names this broker,
 * its follower when this broker is another replica (leaderless: it keeps its data and waits), and
 * stops hosting it when this broker is not a replica: the log is deleted with `deleteRemoved` (the
 * broker was taken out of the replicas), kept otherwise.
 */
export async function applyPartitionImage(
  rm: ReplicaManager,
  topic: string,
  topicId: string,
  pi: PartitionImage,
  overrides?: TopicOverrides,
  deleteRemoved = false,
): Promise<void> {
  if (pi.leader === rm.nodeId || pi.replicas.includes(rm.nodeId)) {
    await rm.ensurePartition(topic, topicId, pi.partitionId, pi.leaderEpoch, overrides, {
      replicas: pi.replicas,
      isr: pi.isr,
      leaderId: pi.leader,
      partitionEpoch: pi.partitionEpoch,
    });
  } else if (rm.hostedPartition(topic, pi.partitionId) !== undefined) {
    await rm.deletePartitions([{ topic, partition: pi.partitionId }], { deleteData: deleteRemoved });
  }
}

/**
 * Reconciles the led partitions with a whole image (startup, or after a snapshot): partitions of
 * topics that no longer exist (or exist under a new id) are deleted with their data; the rest
 * follow applyPartitionImage. Topic configs come from the image.
 */
export async function syncWithImage(rm: ReplicaManager, image: MetadataImage): Promise<void> {
  const gone: Array<{ topic: string; partition: number }> = [];
  const released: Array<{ topic: string; partition: number }> = [];
  for (const p of rm.allPartitions()) {
    const t = image.topicById(p.topicId);
    if (!t) gone.push({ topic: p.topic, partition: p.index });
    else if (!t.partitions.has(p.index)) released.push({ topic: p.topic, partition: p.index });
  }
  await rm.deletePartitions(gone, { deleteData: true });
  await rm.deletePartitions(released, { deleteData: false });
  for (const t of image.topicsById.values()) {
    const overrides = image.topicConfigs(t.name);
    for (const pi of t.partitions.values()) await applyPartitionImage(rm, t.name, t.id, pi, overrides);
  }
}
