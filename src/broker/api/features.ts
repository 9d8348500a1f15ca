// Feature flags as Apache Kafka 4.0 advertises them in ApiVersions (KIP-584 / KIP-1022).
// Supported ranges follow org.apache.kafka.server.BrokerFeatures.defaultSupportedFeatures with
// unstable versions disabled: metadata.version from MetadataVersion.MINIMUM_VERSION (3.3-IV3 = 7;
// 4.0 dropped everything older) to LATEST_PRODUCTION (4.0-IV3 = 25); each other production feature
// from its minimum to its latest production level, and only when that is > 0.
// (eligible.leader.replicas.version is a 4.0 preview whose latest production level is 0, so a
// 4.0 broker does not list it.)

export const METADATA_VERSION_FEATURE = 'metadata.version';

export interface FeatureRange {
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** MetadataVersion feature levels tkafka knows by name (Kafka's IBP_x_y_IVn). */
export const METADATA_VERSIONS: Readonly<Record<string, number>> = {
  '3.3-IV3': 7,
  '3.4-IV0': 8,
  '3.5-IV0': 9,
  '3.5-IV1': 10,
  '3.5-IV2': 11,
  '3.6-IV0': 12,
  '3.6-IV1': 13,
  '3.6-IV2': 14,
  '3.7-IV0': 15,
  '3.7-IV1': 16,
  '3.7-IV2': 17,
  '3.7-IV3': 18,
  '3.7-IV4': 19,
  '3.8-IV0': 20,
  '3.9-IV0': 21,
  '4.0-IV0': 22,
  '4.0-IV1': 23,
  '4.0-IV2': 24,
  '4.0-IV3': 25,
};

export const MINIMUM_METADATA_VERSION = 7; // 3.3-IV3
export const LATEST_PRODUCTION_METADATA_VERSION = 25; // 4.0-IV3

/** What this broker supports, as Kafka 4.0 reports it. */
export const SUPPORTED_FEATURES: readonly FeatureRange[] = [
  {
    name: METADATA_VERSION_FEATURE,
    minVersion: MINIMUM_METADATA_VERSION,
    maxVersion: LATEST_PRODUCTION_METADATA_VERSION,
  },
  { name: 'kraft.version', minVersion: 0, maxVersion: 1 },
  // transaction.version 2 (KIP-890 part 2: Produce v12, EndTxn v5) is not implemented; advertising it
  // would let an operator finalize a level the transaction coordinator cannot serve.
  { name: 'transaction.version', minVersion: 0, maxVersion: 1 },
  { name: 'group.version', minVersion: 0, maxVersion: 1 },
];

/** The cluster's finalized feature levels and the metadata offset (epoch) they were read at. */
export interface FinalizedFeatures {
  /** Kafka's finalizedFeaturesEpoch: the offset of the metadata image; -1 when unknown. */
  readonly epoch: bigint;
  /** Feature name → finalized level. Level 0 means "not enabled" and is not advertised. */
  readonly levels: ReadonlyMap<string, number>;
}

/**
 * The levels a freshly formatted Kafka 4.0 cluster finalizes by default (`kafka-storage format`
 * with release version 4.0-IV3): metadata.version 25, group.version 1, transaction.version 2,
 * kraft.version 0 (static quorum). Used until the metadata image provides the real ones.
 */
export const DEFAULT_FINALIZED_FEATURES: FinalizedFeatures = {
  epoch: 0n,
  levels: new Map([
    [METADATA_VERSION_FEATURE, LATEST_PRODUCTION_METADATA_VERSION],
    ['kraft.version', 0],
    ['transaction.version', 2],
    ['group.version', 1],
  ]),
};

export type FinalizedFeaturesProvider = () => FinalizedFeatures;
