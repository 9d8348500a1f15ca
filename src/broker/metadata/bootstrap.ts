// The controller's bootstrap metadata (Kafka's BootstrapMetadata, BootstrapDirectory.read): the
// records of `bootstrap.checkpoint` when the metadata log directory has one, else the default
// bootstrap at a metadata.version; and the feature levels `kafka-storage format` writes into it. The
// files themselves (bootstrap.checkpoint, the dynamic-quorum bootstrap snapshot) are
// src/storage/snapshot-file.ts.

import { promises as fsp } from 'node:fs';
import {
  BOOTSTRAP_CHECKPOINT_FILE,
  bootstrapCheckpointFile,
  featureLevelRecords,
  readSnapshotFile,
  writeBootstrapCheckpointFile,
} from '../../storage/snapshot-file.js';
import {
  defaultFeatureLevels,
  LATEST_PRODUCTION_METADATA_VERSION,
  METADATA_VERSION_FEATURE,
  metadataVersionName,
} from './features.js';
import { RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';

export { BOOTSTRAP_CHECKPOINT_FILE };

export interface BootstrapMetadata {
  readonly records: readonly MetadataRecord[];
  readonly metadataVersion: number;
  readonly source: string;
}

/** Feature levels in the order Kafka writes them: metadata.version first, others by name, no kraft.version, no zeros. */
export function bootstrapRecords(
  metadataVersion: number,
  features?: Iterable<readonly [string, number]>,
): MetadataRecord[] {
  return featureLevelRecords(metadataVersion, features ?? defaultFeatureLevels(metadataVersion));
}

/**
 * The bootstrap of a node started without a bootstrap.checkpoint (tkafka formats storage itself
 * when it is not formatted): what `storage format` would have written for the metadata.version,
 * i.e. BootstrapMetadata.fromVersions with the default level of every feature tkafka implements
 * (a new 4.4-IV2 cluster: transaction.version 2, group.version 1).
 */
export function bootstrapFromVersion(
  metadataVersion: number = LATEST_PRODUCTION_METADATA_VERSION,
  source = 'the default bootstrap',
): BootstrapMetadata {
  return { records: bootstrapRecords(metadataVersion), metadataVersion, source };
}

/** Accepts the storage formatter's BootstrapInfo (featureRecords in Kafka order) or a bare level. */
export type BootstrapSpec =
  | number
  | {
      readonly featureRecords: readonly { readonly name: string; readonly level: number }[];
      readonly extraRecords?: readonly MetadataRecord[];
    };

/**
 * Writes `<dir>/bootstrap.checkpoint` like `kafka-storage format`. With a bare metadata.version
 * level, the other features get the defaults Kafka's formatter picks for that level
 * (group.version=1 from 4.0-IV0, ...). `extraRecords` (e.g. SCRAM credentials) follow the features.
 */
export async function writeBootstrapCheckpoint(
  dir: string,
  spec: BootstrapSpec = LATEST_PRODUCTION_METADATA_VERSION,
  extraRecords: readonly MetadataRecord[] = [],
): Promise<void> {
  let records: MetadataRecord[];
  if (typeof spec === 'number') {
    records = bootstrapRecords(spec);
  } else {
    const mvRec = spec.featureRecords.find((f) => f.name === METADATA_VERSION_FEATURE);
    if (!mvRec) throw new Error('bootstrap metadata needs a metadata.version feature level');
    records = bootstrapRecords(
      mvRec.level,
      spec.featureRecords.map((f) => [f.name, f.level] as const),
    );
    extraRecords = [...(spec.extraRecords ?? []), ...extraRecords];
  }
  records.push(...extraRecords);
  await writeBootstrapCheckpointFile(dir, records);
}

/** Reads `<dir>/bootstrap.checkpoint`; null if absent. Control batches are skipped. */
export async function readBootstrapCheckpoint(dir: string): Promise<BootstrapMetadata | null> {
  const file = bootstrapCheckpointFile(dir);
  try {
    await fsp.access(file);
  } catch {
    return null;
  }
  const loaded = await readSnapshotFile(file);
  let level = 0;
  for (const r of loaded.records) {
    if (r.type === RecordType.FeatureLevel && r.data.name === METADATA_VERSION_FEATURE) level = r.data.featureLevel;
  }
  if (level === 0) throw new Error(`${file} has no metadata.version FeatureLevelRecord`);
  return { records: loaded.records, metadataVersion: level, source: `the binary bootstrap metadata file: ${file}` };
}

/** Bootstrap metadata for the controller's first activation (BootstrapDirectory.read). */
export async function loadBootstrapMetadata(
  dir: string,
  fallbackVersion: number = LATEST_PRODUCTION_METADATA_VERSION,
): Promise<BootstrapMetadata> {
  return (
    (await readBootstrapCheckpoint(dir)) ??
    bootstrapFromVersion(
      fallbackVersion,
      `the default bootstrap with metadata.version ${metadataVersionName(fallbackVersion)}`,
    )
  );
}

export { writeDynamicQuorumSnapshot, type DynamicQuorumVoter } from '../../storage/snapshot-file.js';
