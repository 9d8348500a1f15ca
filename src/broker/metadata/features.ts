// metadata.version (MV) levels and the record versions they gate, after Kafka 4.4.0's
// server-common MetadataVersion: LATEST_PRODUCTION is IBP_4_4_IV2 = feature level 33; 4.5-IV0 (34)
// is unstable. The other features a node supports and the levels a new cluster finalizes.

export const METADATA_VERSION_FEATURE = 'metadata.version';
export const KRAFT_VERSION_FEATURE = 'kraft.version';
export const GROUP_VERSION_FEATURE = 'group.version';
export const TRANSACTION_VERSION_FEATURE = 'transaction.version';
export const ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE = 'eligible.leader.replicas.version';
export const SHARE_VERSION_FEATURE = 'share.version';
export const STREAMS_VERSION_FEATURE = 'streams.version';

export const MetadataVersion = {
  IBP_3_0_IV1: 1,
  IBP_3_3_IV0: 4,
  IBP_3_3_IV1: 5,
  IBP_3_3_IV2: 6,
  IBP_3_3_IV3: 7,
  IBP_3_4_IV0: 8,
  IBP_3_6_IV0: 12,
  IBP_3_6_IV1: 13,
  IBP_3_7_IV0: 15,
  IBP_3_7_IV2: 17,
  IBP_3_9_IV0: 21,
  IBP_4_0_IV0: 22,
  IBP_4_0_IV1: 23,
  IBP_4_0_IV2: 24,
  IBP_4_0_IV3: 25,
  IBP_4_1_IV0: 26,
  IBP_4_1_IV1: 27,
  IBP_4_2_IV0: 28,
  IBP_4_2_IV1: 29,
  IBP_4_3_IV0: 30,
  IBP_4_4_IV0: 31,
  IBP_4_4_IV1: 32,
  IBP_4_4_IV2: 33,
  IBP_4_5_IV0: 34,
} as const;

export const MINIMUM_KRAFT_METADATA_VERSION = MetadataVersion.IBP_3_0_IV1;
/** MetadataVersion.MINIMUM_VERSION of Kafka 4: the lowest level a node supports and UpdateFeatures accepts. */
export const MINIMUM_METADATA_VERSION = MetadataVersion.IBP_3_3_IV3;
/** MetadataVersion.latestTesting() (unstable: 4.5-IV0). */
export const LATEST_TESTING_METADATA_VERSION: number = MetadataVersion.IBP_4_5_IV0;
/** The levels whose MetadataVersion.didMetadataChange() is true (a downgrade across them may lose metadata). */
const METADATA_CHANGED = new Set([7, 8, 11, 13, 14, 15, 17, 23, 30, 32, 33]);

/** MetadataVersion.checkIfMetadataChanged: whether a level in (low, high] changed the metadata format. */
export function metadataChangedBetween(a: number, b: number): boolean {
  const [low, high] = a < b ? [a, b] : [b, a];
  for (let l = high; l > low; l--) if (METADATA_CHANGED.has(l)) return true;
  return false;
}
export const MINIMUM_BOOTSTRAP_METADATA_VERSION = MetadataVersion.IBP_3_3_IV0;
export const LATEST_PRODUCTION_METADATA_VERSION: number = MetadataVersion.IBP_4_4_IV2;
/**
 * The highest level this node accepts (records are written at the versions each level gates).
 * At >= 4.0-IV1 PartitionRecord / PartitionChangeRecord v2 carry the ELR fields (KIP-966), which
 * the controller maintains once eligible.leader.replicas.version is 1. At >= 4.3-IV0
 * RegisterBrokerRecord v4 carries no cordoned log dirs; CIDR ACLs (4.4-IV1) have no writer here.
 * UnregisterControllerRecord (4.4-IV2) is written by UnregisterController (controller/cluster.ts).
 */
export const LATEST_SUPPORTED_METADATA_VERSION: number = MetadataVersion.IBP_4_4_IV2;

const NAMES: Record<number, string> = {
  1: '3.0-IV1',
  2: '3.1-IV0',
  3: '3.2-IV0',
  4: '3.3-IV0',
  5: '3.3-IV1',
  6: '3.3-IV2',
  7: '3.3-IV3',
  8: '3.4-IV0',
  9: '3.5-IV0',
  10: '3.5-IV1',
  11: '3.5-IV2',
  12: '3.6-IV0',
  13: '3.6-IV1',
  14: '3.6-IV2',
  15: '3.7-IV0',
  16: '3.7-IV1',
  17: '3.7-IV2',
  18: '3.7-IV3',
  19: '3.7-IV4',
  20: '3.8-IV0',
  21: '3.9-IV0',
  22: '4.0-IV0',
  23: '4.0-IV1',
  24: '4.0-IV2',
  25: '4.0-IV3',
  26: '4.1-IV0',
  27: '4.1-IV1',
  28: '4.2-IV0',
  29: '4.2-IV1',
  30: '4.3-IV0',
  31: '4.4-IV0',
  32: '4.4-IV1',
  33: '4.4-IV2',
  34: '4.5-IV0',
};

export function metadataVersionName(level: number): string {
  return NAMES[level] ?? `unknown(${level})`;
}

export const mv = {
  isMetadataTransactionSupported: (l: number) => l >= MetadataVersion.IBP_3_6_IV1,
  isMigrationSupported: (l: number) => l >= MetadataVersion.IBP_3_4_IV0,
  isBrokerRegistrationChangeRecordSupported: (l: number) => l >= MetadataVersion.IBP_3_3_IV2,
  isInControlledShutdownStateSupported: (l: number) => l >= MetadataVersion.IBP_3_3_IV3,
  isNoOpRecordSupported: (l: number) => l >= MetadataVersion.IBP_3_3_IV1,
  isDirectoryAssignmentSupported: (l: number) => l >= MetadataVersion.IBP_3_7_IV2,
  isControllerRegistrationSupported: (l: number) => l >= MetadataVersion.IBP_3_7_IV0,
  isControllerUnregistrationSupported: (l: number) => l >= MetadataVersion.IBP_4_4_IV2,
  isElrSupported: (l: number) => l >= MetadataVersion.IBP_4_0_IV1,
  registerBrokerRecordVersion(l: number): number {
    if (l >= MetadataVersion.IBP_4_3_IV0) return 4;
    if (l >= MetadataVersion.IBP_3_7_IV2) return 3;
    if (l >= MetadataVersion.IBP_3_4_IV0) return 2;
    if (l >= MetadataVersion.IBP_3_3_IV3) return 1;
    return 0;
  },
  partitionRecordVersion(l: number): number {
    if (l >= MetadataVersion.IBP_4_0_IV1) return 2;
    if (l >= MetadataVersion.IBP_3_7_IV2) return 1;
    return 0;
  },
  partitionChangeRecordVersion(l: number): number {
    return mv.partitionRecordVersion(l);
  },
};

/**
 * Feature levels `kafka-storage format` writes by default for a metadata.version besides
 * metadata.version itself (Features.PRODUCTION_FEATURES' defaultValue(mv)); kraft.version is never
 * a FeatureLevelRecord. group.version 1 needs 4.0-IV0; transaction.version 2 needs 4.0-IV2;
 * eligible.leader.replicas.version 1 bootstraps from 4.1-IV0; share.version 1 from 4.2-IV0, 2 from
 * 4.4-IV0 (ShareVersion); streams.version 1 from 4.2-IV1 (StreamsVersion).
 */
export function defaultFeatureLevels(metadataVersion: number): Map<string, number> {
  const out = new Map<string, number>();
  if (metadataVersion >= MetadataVersion.IBP_4_0_IV0) out.set(GROUP_VERSION_FEATURE, 1);
  if (metadataVersion >= MetadataVersion.IBP_4_0_IV2) out.set(TRANSACTION_VERSION_FEATURE, 2);
  if (metadataVersion >= MetadataVersion.IBP_4_1_IV0) out.set(ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE, 1);
  if (metadataVersion >= MetadataVersion.IBP_4_4_IV0) out.set(SHARE_VERSION_FEATURE, 2);
  else if (metadataVersion >= MetadataVersion.IBP_4_2_IV0) out.set(SHARE_VERSION_FEATURE, 1);
  if (metadataVersion >= MetadataVersion.IBP_4_2_IV1) out.set(STREAMS_VERSION_FEATURE, 1);
  return out;
}

/** Supported feature ranges this node advertises in its registration (RegisterBrokerRecord.features). */
export function supportedFeatureRanges(): Map<string, { min: number; max: number }> {
  return new Map([
    [METADATA_VERSION_FEATURE, { min: MINIMUM_METADATA_VERSION, max: LATEST_SUPPORTED_METADATA_VERSION }],
    [KRAFT_VERSION_FEATURE, { min: 0, max: 1 }],
    [GROUP_VERSION_FEATURE, { min: 0, max: 1 }],
    [TRANSACTION_VERSION_FEATURE, { min: 0, max: 2 }],
    [ELIGIBLE_LEADER_REPLICAS_VERSION_FEATURE, { min: 0, max: 1 }],
    [SHARE_VERSION_FEATURE, { min: 0, max: 2 }],
    [STREAMS_VERSION_FEATURE, { min: 0, max: 1 }],
  ]);
}
