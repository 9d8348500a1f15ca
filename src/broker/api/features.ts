// Feature flags as tkafka advertises them in ApiVersions (KIP-584 / KIP-1022), after Kafka 4.4's
// BrokerFeatures.defaultSupportedFeatures with unstable versions disabled: metadata.version from
// MetadataVersion.MINIMUM_VERSION (3.3-IV3 = 7) to LATEST_PRODUCTION (4.4-IV2 = 33); each other
// production feature tkafka implements from its minimum to its latest production level.
// streams.version 0-1 is supported as Kafka 4.4 (streams groups, KIP-1071).

import { supportedFeatureRanges } from '../metadata/features.js';

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
  '4.1-IV0': 26,
  '4.1-IV1': 27,
  '4.2-IV0': 28,
  '4.2-IV1': 29,
  '4.3-IV0': 30,
  '4.4-IV0': 31,
  '4.4-IV1': 32,
  '4.4-IV2': 33,
};

export const MINIMUM_METADATA_VERSION = 7; // 3.3-IV3
export const LATEST_PRODUCTION_METADATA_VERSION = 33; // 4.4-IV2

/** What this node supports: metadata/features.ts supportedFeatureRanges, the one list (also sent in registrations). */
export const SUPPORTED_FEATURES: readonly FeatureRange[] = [...supportedFeatureRanges()].map(([name, r]) => ({
  name,
  minVersion: r.min,
  maxVersion: r.max,
}));

/** The cluster's finalized feature levels and the metadata offset (epoch) they were read at. */
export interface FinalizedFeatures {
  /** Kafka's finalizedFeaturesEpoch: the offset of the metadata image; -1 when unknown. */
  readonly epoch: bigint;
  /** Feature name → finalized level. Level 0 means "not enabled" and is not advertised. */
  readonly levels: ReadonlyMap<string, number>;
}

/**
 * The levels a freshly formatted cluster finalizes by default (`storage format` with release
 * version 4.4-IV2): metadata.version 33, group.version 1, transaction.version 2, kraft.version 0
 * (static quorum). Used until the metadata image provides the real ones.
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
