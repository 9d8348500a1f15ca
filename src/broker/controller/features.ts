// UpdateFeatures on the controller (Kafka 4.4's FeatureControlManager.updateFeatures): each update
// is checked against the levels every node supports (this controller, every registered broker and
// controller), its upgrade type (UPGRADE may not lower a level, the downgrades may not raise one),
// metadata.version's own rules (known level, no downgrade across a level that changed the metadata
// format, no unsafe downgrade) and the feature's dependencies; the first failure fails the whole
// request and nothing is written. On success one FeatureLevelRecord per update is written
// atomically (a level of 0 removes the feature). kraft.version moves with the Raft quorum in
// Kafka (KIP-853); an UPGRADE to the current level writes Kafka's NoOpRecord, a real upgrade is
// refused until a tkafka quorum can append it.

import { featureDependencyError } from '../../config/features.js';
import { ErrorCode } from '../../protocol/errors.js';
import { defaultFeatureLevelRecord } from '../../protocol/generated/metadata/index.js';
import {
  KRAFT_VERSION_FEATURE,
  LATEST_TESTING_METADATA_VERSION,
  METADATA_VERSION_FEATURE,
  MINIMUM_METADATA_VERSION,
  metadataChangedBetween,
  metadataVersionName,
  supportedFeatureRanges,
} from '../metadata/features.js';
import type { MetadataImage, VersionRange } from '../metadata/image.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { apiError, NONE, type ApiError } from './errors.js';

/** FeatureUpdate.UpgradeType codes of UpdateFeatures v1+. */
export const UpgradeType = { UNKNOWN: 0, UPGRADE: 1, SAFE_DOWNGRADE: 2, UNSAFE_DOWNGRADE: 3 } as const;

export interface FeatureUpdate {
  readonly feature: string;
  readonly level: number;
  readonly upgradeType: number;
}

const DISABLED: VersionRange = { min: 0, max: 0 };

/** VersionRange.toString. */
const rangeText = (r: VersionRange): string => (r.min === r.max ? `${r.min}` : `${r.min}-${r.max}`);

/** QuorumFeatures.reasonNotSupported. */
function reasonNotSupported(level: number, what: string, range: VersionRange): string | undefined {
  if (level >= range.min && level <= range.max) return undefined;
  return range.max === 0
    ? `${what} does not support this feature.`
    : `${what} only supports versions ${rangeText(range)}`;
}

const invalidUpdateVersion = (feature: string, level: number, message: string): ApiError =>
  apiError(ErrorCode.INVALID_UPDATE_VERSION, `Invalid update version ${level} for feature ${feature}. ${message}`);

const invalidMetadataVersion = (level: number, message: string): ApiError =>
  apiError(ErrorCode.INVALID_UPDATE_VERSION, `Invalid metadata.version ${level}. ${message}`);

function currentLevel(image: MetadataImage, feature: string, kraftVersion: number): number {
  if (feature === METADATA_VERSION_FEATURE) return image.metadataVersion;
  if (feature === KRAFT_VERSION_FEATURE) return kraftVersion;
  return image.features.get(feature) ?? 0;
}

/** FeatureControlManager.reasonNotSupported: this controller, then every broker, then the other controllers. */
function clusterReasonNotSupported(
  image: MetadataImage,
  nodeId: number,
  feature: string,
  level: number,
): string | undefined {
  const local = supportedFeatureRanges().get(feature) ?? DISABLED;
  const reason = reasonNotSupported(level, `Local controller ${nodeId}`, local);
  if (reason) return reason;
  for (const [id, b] of [...image.brokers].sort(([a], [c]) => a - c)) {
    const r = reasonNotSupported(level, `Broker ${id}`, b.supportedFeatures.get(feature) ?? DISABLED);
    if (r) return r;
  }
  for (const [id, c] of [...image.controllers].sort(([a], [d]) => a - d)) {
    if (id === nodeId) continue;
    const r = reasonNotSupported(level, `Controller ${id}`, c.supportedFeatures.get(feature) ?? DISABLED);
    if (r) return r;
  }
  return undefined;
}

/** FeatureControlManager.updateMetadataVersion. */
function updateMetadataVersion(current: number, level: number, unsafe: boolean): ApiError {
  if (level < MINIMUM_METADATA_VERSION || level > LATEST_TESTING_METADATA_VERSION) {
    return invalidMetadataVersion(
      level,
      `Valid versions are from ${MINIMUM_METADATA_VERSION} to ${LATEST_TESTING_METADATA_VERSION}.`,
    );
  }
  if (level < current && metadataChangedBetween(level, current)) {
    const why = unsafe
      ? 'Unsafe metadata downgrade is not supported in this version.'
      : 'Refusing to perform the requested downgrade because it might delete metadata information.';
    return apiError(
      ErrorCode.INVALID_UPDATE_VERSION,
      `Unsupported metadata.version downgrade from ${metadataVersionName(current)} to ${metadataVersionName(level)}. ${why}`,
    );
  }
  return NONE;
}

/** Features.validateVersion: a non-zero level needs metadata.version 3.3-IV3, and ELRV_1 needs 4.0-IV1. */
function validateDependencies(
  feature: string,
  level: number,
  proposed: ReadonlyMap<string, number>,
): string | undefined {
  return featureDependencyError(feature, level, proposed);
}

/**
 * The records an UpdateFeatures request writes, or the error that fails it (all-or-nothing, as
 * FeatureControlManager.updateFeatures). `kraftVersion` is the quorum's current kraft.version.
 */
export function updateFeatures(
  image: MetadataImage,
  nodeId: number,
  kraftVersion: number,
  updates: readonly FeatureUpdate[],
): { records: MetadataRecord[]; error: ApiError } {
  const proposed = new Map<string, number>(image.features);
  proposed.set(METADATA_VERSION_FEATURE, image.metadataVersion);
  for (const u of updates) proposed.set(u.feature, u.level);
  const records: MetadataRecord[] = [];
  for (const u of updates) {
    const error = updateFeature(image, nodeId, kraftVersion, u, proposed, records);
    if (error.errorCode !== ErrorCode.NONE) return { records: [], error };
  }
  return { records, error: NONE };
}

function updateFeature(
  image: MetadataImage,
  nodeId: number,
  kraftVersion: number,
  u: FeatureUpdate,
  proposed: ReadonlyMap<string, number>,
  records: MetadataRecord[],
): ApiError {
  const { feature, level, upgradeType } = u;
  if (upgradeType === UpgradeType.UNKNOWN || upgradeType > UpgradeType.UNSAFE_DOWNGRADE)
    return invalidUpdateVersion(feature, level, 'The controller does not support the given upgrade type.');
  const current = currentLevel(image, feature, kraftVersion);
  if (level < 0) return invalidUpdateVersion(feature, level, 'A feature version cannot be less than 0.');
  const notSupported = clusterReasonNotSupported(image, nodeId, feature, level);
  if (notSupported) return invalidUpdateVersion(feature, level, notSupported);
  if (level < current && upgradeType === UpgradeType.UPGRADE) {
    return invalidUpdateVersion(
      feature,
      level,
      "Can't downgrade the version of this feature without setting the upgrade type to either safe or unsafe downgrade.",
    );
  }
  if (level > current && upgradeType !== UpgradeType.UPGRADE)
    return invalidUpdateVersion(feature, level, "Can't downgrade to a newer version.");
  const record = (): MetadataRecord =>
    metadataRecord(RecordType.FeatureLevel, 0, { ...defaultFeatureLevelRecord(), name: feature, featureLevel: level });
  if (feature === METADATA_VERSION_FEATURE) {
    const error = updateMetadataVersion(current, level, upgradeType === UpgradeType.UNSAFE_DOWNGRADE);
    if (error.errorCode === ErrorCode.NONE) records.push(record());
    return error;
  }
  if (feature === KRAFT_VERSION_FEATURE) {
    if (upgradeType !== UpgradeType.UPGRADE)
      return level !== current
        ? invalidUpdateVersion(feature, level, "Can't downgrade the version of this feature.")
        : NONE;
    // Kafka asks the Raft client to upgrade (KafkaRaftClient.upgradeKRaftVersion, a no-op at the
    // current level) and writes a NoOpRecord. tkafka's quorums cannot append the KRaftVersionRecord
    // and VotersRecord of an upgrade yet.
    if (level === current) {
      records.push(metadataRecord(RecordType.NoOp, 0, {}));
      return NONE;
    }
    return invalidUpdateVersion(
      feature,
      level,
      'tkafka cannot change kraft.version of a running quorum; format with --standalone for kraft.version 1.',
    );
  }
  const dependency = validateDependencies(feature, level, proposed);
  if (dependency) return invalidUpdateVersion(feature, level, dependency);
  records.push(record());
  return NONE;
}
