// The group coordinator's settings (GroupCoordinatorConfig), read from the broker configuration.

export interface GroupConfig {
  offsetsTopicPartitions: number;
  offsetsRetentionMs: number;
  offsetsRetentionCheckIntervalMs: number;
  offsetMetadataMaxSize: number;
  offsetCommitTimeoutMs: number;
  classicInitialRebalanceDelayMs: number;
  classicMinSessionTimeoutMs: number;
  classicMaxSessionTimeoutMs: number;
  classicMaxSize: number;
  /** Kafka: 5 minutes; a new member's parked JoinGroup expires after this. */
  classicNewMemberJoinTimeoutMs: number;
  consumerSessionTimeoutMs: number;
  consumerHeartbeatIntervalMs: number;
  consumerMaxSize: number;
  /** Server-side assignors by name; the first is the default. */
  consumerAssignors: readonly string[];
  /** Rebalance protocols enabled ('classic', 'consumer'). */
  protocols: readonly string[];
}

export const DEFAULT_GROUP_CONFIG: GroupConfig = {
  offsetsTopicPartitions: 50,
  offsetsRetentionMs: 7 * 24 * 3600 * 1000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetMetadataMaxSize: 4096,
  offsetCommitTimeoutMs: 5000,
  classicInitialRebalanceDelayMs: 3000,
  classicMinSessionTimeoutMs: 6000,
  classicMaxSessionTimeoutMs: 1_800_000,
  classicMaxSize: 2147483647,
  classicNewMemberJoinTimeoutMs: 5 * 60 * 1000,
  consumerSessionTimeoutMs: 45_000,
  consumerHeartbeatIntervalMs: 5000,
  consumerMaxSize: 2147483647,
  consumerAssignors: ['uniform', 'range'],
  protocols: ['classic', 'consumer'],
};

interface ConfigLike {
  getInt(name: string): number;
  getLong(name: string): bigint | number;
  getList?(name: string): string[];
}

export function groupConfigFrom(c: ConfigLike): GroupConfig {
  const long = (n: string): number => Number(c.getLong(n));
  return {
    ...DEFAULT_GROUP_CONFIG,
    offsetsTopicPartitions: c.getInt('offsets.topic.num.partitions'),
    offsetsRetentionMs: c.getInt('offsets.retention.minutes') * 60_000,
    offsetsRetentionCheckIntervalMs: long('offsets.retention.check.interval.ms'),
    offsetMetadataMaxSize: c.getInt('offset.metadata.max.bytes'),
    offsetCommitTimeoutMs: c.getInt('offsets.commit.timeout.ms'),
    classicInitialRebalanceDelayMs: c.getInt('group.initial.rebalance.delay.ms'),
    classicMinSessionTimeoutMs: c.getInt('group.min.session.timeout.ms'),
    classicMaxSessionTimeoutMs: c.getInt('group.max.session.timeout.ms'),
    classicMaxSize: c.getInt('group.max.size'),
    consumerSessionTimeoutMs: c.getInt('group.consumer.session.timeout.ms'),
    consumerHeartbeatIntervalMs: c.getInt('group.consumer.heartbeat.interval.ms'),
    consumerMaxSize: c.getInt('group.consumer.max.size'),
    protocols: c.getList?.('group.coordinator.rebalance.protocols') ?? DEFAULT_GROUP_CONFIG.protocols,
  };
}
