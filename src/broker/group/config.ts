// The group coordinator's settings (GroupCoordinatorConfig), read from the broker configuration.

/** group.consumer.migration.policy (ConsumerGroupMigrationPolicy). */
export type MigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';

export const MIGRATION_POLICIES: readonly MigrationPolicy[] = ['bidirectional', 'upgrade', 'downgrade', 'disabled'];

export const isUpgradeEnabled = (p: MigrationPolicy): boolean => p === 'bidirectional' || p === 'upgrade';
export const isDowngradeEnabled = (p: MigrationPolicy): boolean => p === 'bidirectional' || p === 'downgrade';

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
  /** group.consumer.migration.policy: which online conversions between classic and consumer groups happen. */
  consumerMigrationPolicy: MigrationPolicy;
  /** Bounds of the group-level consumer.session.timeout.ms / consumer.heartbeat.interval.ms. */
  consumerMinSessionTimeoutMs: number;
  consumerMaxSessionTimeoutMs: number;
  consumerMinHeartbeatIntervalMs: number;
  consumerMaxHeartbeatIntervalMs: number;
  /** group.consumer.assignment.interval.ms and its bounds (accepted; not acted upon by tkafka). */
  consumerAssignmentIntervalMs: number;
  consumerMinAssignmentIntervalMs: number;
  consumerMaxAssignmentIntervalMs: number;
  /** Share groups (KIP-932): group.share.session.timeout.ms, heartbeat interval, their bounds, max size. */
  shareSessionTimeoutMs: number;
  shareMinSessionTimeoutMs: number;
  shareMaxSessionTimeoutMs: number;
  shareHeartbeatIntervalMs: number;
  shareMinHeartbeatIntervalMs: number;
  shareMaxHeartbeatIntervalMs: number;
  shareMaxSize: number;
  /** group.share.initialize.retry.interval.ms: an initialization older than this is requested again. */
  shareInitializeRetryIntervalMs: number;
  /** Bounds (and broker defaults) of the share.* group configs (GroupCoordinatorConfig, ShareGroupConfig). */
  shareAssignmentIntervalMs: number;
  shareMinAssignmentIntervalMs: number;
  shareMaxAssignmentIntervalMs: number;
  shareRecordLockDurationMs: number;
  shareMinRecordLockDurationMs: number;
  shareMaxRecordLockDurationMs: number;
  shareDeliveryCountLimit: number;
  shareMinDeliveryCountLimit: number;
  shareMaxDeliveryCountLimit: number;
  sharePartitionMaxRecordLocks: number;
  shareMinPartitionMaxRecordLocks: number;
  shareMaxPartitionMaxRecordLocks: number;
  /** Streams groups (KIP-1071): group.streams.* (GroupCoordinatorConfig), Kafka 4.4's defaults. */
  streamsSessionTimeoutMs: number;
  streamsMinSessionTimeoutMs: number;
  streamsMaxSessionTimeoutMs: number;
  streamsHeartbeatIntervalMs: number;
  streamsMinHeartbeatIntervalMs: number;
  streamsMaxHeartbeatIntervalMs: number;
  streamsMaxSize: number;
  streamsNumStandbyReplicas: number;
  streamsMaxStandbyReplicas: number;
  streamsInitialRebalanceDelayMs: number;
  streamsAssignmentIntervalMs: number;
  streamsMinAssignmentIntervalMs: number;
  streamsMaxAssignmentIntervalMs: number;
  streamsTaskOffsetIntervalMs: number;
  streamsMinTaskOffsetIntervalMs: number;
  streamsAcceptableRecoveryLag: number;
  streamsNumWarmupReplicas: number;
  streamsMaxWarmupReplicas: number;
  /** comma-separated client tag keys */
  streamsRackAwareAssignmentTags: string;
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
  protocols: ['classic', 'consumer', 'streams'],
  consumerMigrationPolicy: 'bidirectional',
  consumerMinSessionTimeoutMs: 45_000,
  consumerMaxSessionTimeoutMs: 60_000,
  consumerMinHeartbeatIntervalMs: 5000,
  consumerMaxHeartbeatIntervalMs: 15_000,
  consumerAssignmentIntervalMs: 1000,
  consumerMinAssignmentIntervalMs: 0,
  consumerMaxAssignmentIntervalMs: 15_000,
  shareSessionTimeoutMs: 45_000,
  shareMinSessionTimeoutMs: 45_000,
  shareMaxSessionTimeoutMs: 60_000,
  shareHeartbeatIntervalMs: 5000,
  shareMinHeartbeatIntervalMs: 5000,
  shareMaxHeartbeatIntervalMs: 15_000,
  shareMaxSize: 200,
  shareInitializeRetryIntervalMs: 30_000,
  shareAssignmentIntervalMs: 1000,
  shareMinAssignmentIntervalMs: 0,
  shareMaxAssignmentIntervalMs: 15_000,
  shareRecordLockDurationMs: 30_000,
  shareMinRecordLockDurationMs: 15_000,
  shareMaxRecordLockDurationMs: 60_000,
  shareDeliveryCountLimit: 5,
  shareMinDeliveryCountLimit: 2,
  shareMaxDeliveryCountLimit: 10,
  sharePartitionMaxRecordLocks: 2000,
  shareMinPartitionMaxRecordLocks: 100,
  shareMaxPartitionMaxRecordLocks: 4000,
  streamsSessionTimeoutMs: 45_000,
  streamsMinSessionTimeoutMs: 45_000,
  streamsMaxSessionTimeoutMs: 60_000,
  streamsHeartbeatIntervalMs: 5000,
  streamsMinHeartbeatIntervalMs: 5000,
  streamsMaxHeartbeatIntervalMs: 15_000,
  streamsMaxSize: 2147483647,
  streamsNumStandbyReplicas: 0,
  streamsMaxStandbyReplicas: 2,
  streamsInitialRebalanceDelayMs: 3000,
  streamsAssignmentIntervalMs: 1000,
  streamsMinAssignmentIntervalMs: 0,
  streamsMaxAssignmentIntervalMs: 15_000,
  streamsTaskOffsetIntervalMs: 60_000,
  streamsMinTaskOffsetIntervalMs: 15_000,
  streamsAcceptableRecoveryLag: 10_000,
  streamsNumWarmupReplicas: 2,
  streamsMaxWarmupReplicas: 20,
  streamsRackAwareAssignmentTags: '',
};

/** ConsumerGroupMigrationPolicy.parse: case-insensitive; an unknown value is refused by the config validator. */
export function parseMigrationPolicy(v: string): MigrationPolicy {
  const p = v.trim().toLowerCase() as MigrationPolicy;
  return MIGRATION_POLICIES.includes(p) ? p : 'bidirectional';
}

interface ConfigLike {
  getInt(name: string): number;
  getString?(name: string): string | null;
  getLong(name: string): bigint | number;
  getList?(name: string): string[];
}

export function groupConfigFrom(c: ConfigLike): GroupConfig {
  const long = (n: string): number => Number(c.getLong(n));
  // the group.share.* and group.streams.* configs, when the broker's configuration defines them (Kafka's
  // defaults otherwise: a ConfigLike that does not know them)
  const optInt = (n: string, dflt: number): number => {
    try {
      const v = c.getInt(n);
      return typeof v === 'number' && Number.isFinite(v) ? v : dflt;
    } catch {
      return dflt;
    }
  };
  const optLong = (n: string, dflt: number): number => {
    try {
      const v = c.getLong(n);
      return typeof v === 'bigint' || typeof v === 'number' ? Math.min(Number(v), Number.MAX_SAFE_INTEGER) : dflt;
    } catch {
      return dflt;
    }
  };
  const optList = (n: string, dflt: string): string => {
    try {
      const v = c.getList?.(n);
      return Array.isArray(v) ? v.join(',') : dflt;
    } catch {
      return dflt;
    }
  };
  const d = DEFAULT_GROUP_CONFIG;
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
    consumerAssignors: assignorNames(c.getList?.('group.consumer.assignors')),
    consumerMigrationPolicy: parseMigrationPolicy(c.getString?.('group.consumer.migration.policy') ?? 'bidirectional'),
    consumerMinSessionTimeoutMs: c.getInt('group.consumer.min.session.timeout.ms'),
    consumerMaxSessionTimeoutMs: c.getInt('group.consumer.max.session.timeout.ms'),
    consumerMinHeartbeatIntervalMs: c.getInt('group.consumer.min.heartbeat.interval.ms'),
    consumerMaxHeartbeatIntervalMs: c.getInt('group.consumer.max.heartbeat.interval.ms'),
    consumerAssignmentIntervalMs: c.getInt('group.consumer.assignment.interval.ms'),
    consumerMinAssignmentIntervalMs: c.getInt('group.consumer.min.assignment.interval.ms'),
    consumerMaxAssignmentIntervalMs: c.getInt('group.consumer.max.assignment.interval.ms'),
    shareSessionTimeoutMs: optInt('group.share.session.timeout.ms', d.shareSessionTimeoutMs),
    shareMinSessionTimeoutMs: optInt('group.share.min.session.timeout.ms', d.shareMinSessionTimeoutMs),
    shareMaxSessionTimeoutMs: optInt('group.share.max.session.timeout.ms', d.shareMaxSessionTimeoutMs),
    shareHeartbeatIntervalMs: optInt('group.share.heartbeat.interval.ms', d.shareHeartbeatIntervalMs),
    shareMinHeartbeatIntervalMs: optInt('group.share.min.heartbeat.interval.ms', d.shareMinHeartbeatIntervalMs),
    shareMaxHeartbeatIntervalMs: optInt('group.share.max.heartbeat.interval.ms', d.shareMaxHeartbeatIntervalMs),
    shareMaxSize: optInt('group.share.max.size', d.shareMaxSize),
    shareAssignmentIntervalMs: optInt('group.share.assignment.interval.ms', d.shareAssignmentIntervalMs),
    shareMinAssignmentIntervalMs: optInt('group.share.min.assignment.interval.ms', d.shareMinAssignmentIntervalMs),
    shareMaxAssignmentIntervalMs: optInt('group.share.max.assignment.interval.ms', d.shareMaxAssignmentIntervalMs),
    shareRecordLockDurationMs: optInt('group.share.record.lock.duration.ms', d.shareRecordLockDurationMs),
    shareMinRecordLockDurationMs: optInt('group.share.min.record.lock.duration.ms', d.shareMinRecordLockDurationMs),
    shareMaxRecordLockDurationMs: optInt('group.share.max.record.lock.duration.ms', d.shareMaxRecordLockDurationMs),
    shareDeliveryCountLimit: optInt('group.share.delivery.count.limit', d.shareDeliveryCountLimit),
    shareMinDeliveryCountLimit: optInt('group.share.min.delivery.count.limit', d.shareMinDeliveryCountLimit),
    shareMaxDeliveryCountLimit: optInt('group.share.max.delivery.count.limit', d.shareMaxDeliveryCountLimit),
    sharePartitionMaxRecordLocks: optInt('group.share.partition.max.record.locks', d.sharePartitionMaxRecordLocks),
    shareMinPartitionMaxRecordLocks: optInt(
      'group.share.min.partition.max.record.locks',
      d.shareMinPartitionMaxRecordLocks,
    ),
    shareMaxPartitionMaxRecordLocks: optInt(
      'group.share.max.partition.max.record.locks',
      d.shareMaxPartitionMaxRecordLocks,
    ),
    streamsSessionTimeoutMs: optInt('group.streams.session.timeout.ms', d.streamsSessionTimeoutMs),
    streamsMinSessionTimeoutMs: optInt('group.streams.min.session.timeout.ms', d.streamsMinSessionTimeoutMs),
    streamsMaxSessionTimeoutMs: optInt('group.streams.max.session.timeout.ms', d.streamsMaxSessionTimeoutMs),
    streamsHeartbeatIntervalMs: optInt('group.streams.heartbeat.interval.ms', d.streamsHeartbeatIntervalMs),
    streamsMinHeartbeatIntervalMs: optInt('group.streams.min.heartbeat.interval.ms', d.streamsMinHeartbeatIntervalMs),
    streamsMaxHeartbeatIntervalMs: optInt('group.streams.max.heartbeat.interval.ms', d.streamsMaxHeartbeatIntervalMs),
    streamsMaxSize: optInt('group.streams.max.size', d.streamsMaxSize),
    streamsNumStandbyReplicas: optInt('group.streams.num.standby.replicas', d.streamsNumStandbyReplicas),
    streamsMaxStandbyReplicas: optInt('group.streams.max.standby.replicas', d.streamsMaxStandbyReplicas),
    streamsInitialRebalanceDelayMs: optInt(
      'group.streams.initial.rebalance.delay.ms',
      d.streamsInitialRebalanceDelayMs,
    ),
    streamsAssignmentIntervalMs: optInt('group.streams.assignment.interval.ms', d.streamsAssignmentIntervalMs),
    streamsMinAssignmentIntervalMs: optInt(
      'group.streams.min.assignment.interval.ms',
      d.streamsMinAssignmentIntervalMs,
    ),
    streamsMaxAssignmentIntervalMs: optInt(
      'group.streams.max.assignment.interval.ms',
      d.streamsMaxAssignmentIntervalMs,
    ),
    streamsTaskOffsetIntervalMs: optInt('group.streams.task.offset.interval.ms', d.streamsTaskOffsetIntervalMs),
    streamsMinTaskOffsetIntervalMs: optInt(
      'group.streams.min.task.offset.interval.ms',
      d.streamsMinTaskOffsetIntervalMs,
    ),
    // a LONG (ConfigDef Type.LONG): kept as a number (the coordinator caps it to Number.MAX_SAFE_INTEGER)
    streamsAcceptableRecoveryLag: optLong('group.streams.acceptable.recovery.lag', d.streamsAcceptableRecoveryLag),
    streamsNumWarmupReplicas: optInt('group.streams.num.warmup.replicas', d.streamsNumWarmupReplicas),
    streamsMaxWarmupReplicas: optInt('group.streams.max.warmup.replicas', d.streamsMaxWarmupReplicas),
    // a LIST (ConfigDef Type.LIST): joined back to the comma-separated form the coordinator splits
    streamsRackAwareAssignmentTags: optList(
      'group.streams.rack.aware.assignment.tags',
      d.streamsRackAwareAssignmentTags,
    ),
    // GroupCoordinatorConfig: below offsets.commit.timeout.ms, that is used
    shareInitializeRetryIntervalMs: Math.max(
      optInt('group.share.initialize.retry.interval.ms', d.shareInitializeRetryIntervalMs),
      c.getInt('offsets.commit.timeout.ms'),
    ),
  };
}

/**
 * group.consumer.assignors: names or class names of Kafka's assignors (UniformAssignor, RangeAssignor), kept
 * in order; the first is the default. An empty list keeps Kafka's default.
 */
function assignorNames(list: string[] | undefined): readonly string[] {
  if (!list || list.length === 0) return DEFAULT_GROUP_CONFIG.consumerAssignors;
  const byClass: Record<string, string> = {
    'org.apache.kafka.coordinator.group.assignor.UniformAssignor': 'uniform',
    'org.apache.kafka.coordinator.group.assignor.RangeAssignor': 'range',
  };
  return list.map((n) => byClass[n.trim()] ?? n.trim());
}
