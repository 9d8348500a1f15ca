// The seams between the three parts of share groups (KIP-932), as in Kafka 4.4:
// - the share-partition state machine and ShareFetch/ShareAcknowledge (SharePartitionManager)
//   read and write each share-partition's state through a `Persister`;
// - the share coordinator (`__share_group_state`) serves the persister's RPCs
//   (Initialize/Read/Write/DeleteShareGroupState, ReadShareGroupStateSummary); the broker's
//   DefaultStatePersister sends them to the coordinator of each (group, topic id, partition);
// - the group coordinator (ShareGroupHeartbeat, ShareGroupDescribe, share-group offsets) initializes
//   the state of newly assigned partitions through the persister and tells the share-partition side
//   when members leave (`ShareGroupListener`).
// Kafka: org.apache.kafka.server.share.persister.Persister, PersisterStateBatch,
// org.apache.kafka.server.share.SharePartitionKey, ShareGroupListener.

/** A range of offsets with one delivery state (RecordState: 0 AVAILABLE, 2 ACKNOWLEDGED, 4 ARCHIVED). */
export interface PersisterStateBatch {
  readonly firstOffset: bigint;
  readonly lastOffset: bigint;
  readonly deliveryState: number;
  readonly deliveryCount: number;
}

/** A share-partition: the share group, the topic id (base64 Uuid, as the generated codecs carry it) and partition. */
export interface SharePartitionKey {
  readonly groupId: string;
  readonly topicId: string;
  readonly partition: number;
}

/** The result of a persister call for one share-partition (Kafka's PartitionErrorData). */
export interface PersisterResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** ReadShareGroupState's answer for one share-partition (Kafka's PartitionAllData). */
export interface PersisterReadResult extends PersisterResult {
  readonly stateEpoch: number;
  readonly startOffset: bigint;
  readonly stateBatches: readonly PersisterStateBatch[];
}

/** ReadShareGroupStateSummary's answer for one share-partition (Kafka's PartitionStateSummaryData). */
export interface PersisterSummaryResult extends PersisterResult {
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  readonly deliveryCompleteCount: number;
}

/** What WriteShareGroupState stores for one share-partition. */
export interface PersisterWriteState {
  readonly stateEpoch: number;
  readonly leaderEpoch: number;
  readonly startOffset: bigint;
  readonly deliveryCompleteCount: number;
  readonly stateBatches: readonly PersisterStateBatch[];
}

/**
 * Kafka's Persister, one share-partition per call (the implementation batches the RPCs per share
 * coordinator). Errors are data (`errorCode`), as the RPCs answer them; a rejected promise is a bug.
 */
export interface Persister {
  /** InitializeShareGroupState: a new state epoch and start offset (the group coordinator calls it). */
  initializeState(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<PersisterResult>;
  /** ReadShareGroupState: the state a share-partition leader loads when it becomes leader. */
  readState(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterReadResult>;
  /** WriteShareGroupState: the state after acquisitions end (acknowledged, released, archived, start offset moved). */
  writeState(key: SharePartitionKey, state: PersisterWriteState): Promise<PersisterResult>;
  /** DeleteShareGroupState: the share-partition's state is gone (group or offsets deleted). */
  deleteState(key: SharePartitionKey): Promise<PersisterResult>;
  /** ReadShareGroupStateSummary: what DescribeShareGroupOffsets reports. */
  readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<PersisterSummaryResult>;
}

/** Kafka's ShareGroupListener: the group coordinator's events the share-partition side acts on. */
export interface ShareGroupListener {
  /** A member left or was fenced: the records it holds go back to AVAILABLE (its acquisition locks are released). */
  onMemberLeave(groupId: string, memberId: string): void;
  /** The group has no members left. */
  onGroupEmpty(groupId: string): void;
}

/** Partitions' latest offsets (Kafka's PartitionMetadataClient.listLatestOffsets), for share-group lag. */
export interface TopicPartitionRef {
  readonly topic: string;
  readonly partition: number;
}

export interface EndOffset {
  readonly errorCode: number;
  readonly offset: bigint;
}

/** Latest offsets keyed by `${topic}:${partition}`. */
export type LatestOffsets = (partitions: readonly TopicPartitionRef[]) => Promise<Map<string, EndOffset>>;

export const endOffsetKey = (topic: string, partition: number): string => `${topic}:${partition}`;
