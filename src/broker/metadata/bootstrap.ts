// `bootstrap.checkpoint` (Kafka's BootstrapDirectory + BatchFileWriter) and the dynamic-quorum
// bootstrap snapshot `__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`
// (Formatter.writeDynamicQuorumSnapshot).
//
// bootstrap.checkpoint: the snapshot layout with epoch 0, base offset 0, uncompressed,
// LastContainedLogTimestamp 0: header control batch, data batch(es), footer control batch.
// Content: FeatureLevelRecord for metadata.version first, then the other non-zero features
// sorted by name (never kraft.version), then optional SCRAM records. Written to
// bootstrap.checkpoint.tmp and atomically renamed. The controller reads it on first start; without
// it, it bootstraps at the latest production metadata.version.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { defaultFeatureLevelRecord } from '../../protocol/generated/metadata/index.js';
import { encodeSnapshot, readSnapshotFile, snapshotFileName, writeSnapshotFile } from '../raft/snapshots.js';
import { fsyncDir } from '../raft/fs-util.js';
import { METADATA_PARTITION_DIR } from '../raft/types.js';
import {
  defaultFeatureLevels,
  KRAFT_VERSION_FEATURE,
  LATEST_PRODUCTION_METADATA_VERSION,
  METADATA_VERSION_FEATURE,
  metadataVersionName,
} from './features.js';
import { metadataRecord, RecordType, type MetadataRecord } from './records.js';

export const BOOTSTRAP_CHECKPOINT_FILE = 'bootstrap.checkpoint';

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
  const levels = new Map<string, number>(features ?? defaultFeatureLevels(metadataVersion));
  levels.delete(METADATA_VERSION_FEATURE);
  levels.delete(KRAFT_VERSION_FEATURE);
  const out: MetadataRecord[] = [
    metadataRecord(RecordType.FeatureLevel, 0, {
      ...defaultFeatureLevelRecord(),
      name: METADATA_VERSION_FEATURE,
      featureLevel: metadataVersion,
    }),
  ];
  for (const [name, featureLevel] of [...levels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (featureLevel === 0) continue;
    out.push(metadataRecord(RecordType.FeatureLevel, 0, { ...defaultFeatureLevelRecord(), name, featureLevel }));
  }
  return out;
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
  const data = encodeSnapshot({ epoch: 0, lastContainedLogTimestamp: 0, records });
  const file = path.join(dir, BOOTSTRAP_CHECKPOINT_FILE);
  const tmp = `${file}.tmp`;
  await fsp.rm(tmp, { force: true });
  try {
    const fh = await fsp.open(tmp, 'wx');
    try {
      await fh.writeFile(data);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fsp.rename(tmp, file);
    await fsyncDir(dir);
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

/** Reads `<dir>/bootstrap.checkpoint`; null if absent. Control batches are skipped. */
export async function readBootstrapCheckpoint(dir: string): Promise<BootstrapMetadata | null> {
  const file = path.join(dir, BOOTSTRAP_CHECKPOINT_FILE);
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

export interface DynamicQuorumVoter {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly directoryId: string;
}

/**
 * Writes the KIP-853 bootstrap snapshot `<dir>/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`
 * holding KRaftVersionRecord + VotersRecord (for `format --standalone/--initial-controllers`).
 */
export async function writeDynamicQuorumSnapshot(
  dir: string,
  info: {
    readonly voters: readonly DynamicQuorumVoter[];
    readonly kraftVersion: number;
    readonly controllerListenerName: string;
  },
): Promise<void> {
  const metaDir = path.join(dir, METADATA_PARTITION_DIR);
  await fsp.mkdir(metaDir, { recursive: true });
  await writeSnapshotFile(path.join(metaDir, snapshotFileName({ offset: 0, epoch: 0 })), {
    epoch: 0,
    lastContainedLogTimestamp: Date.now(),
    records: [],
    kraftVersion: Math.max(1, info.kraftVersion),
    voters: {
      version: 0,
      voters: info.voters.map((v) => ({
        voterId: v.nodeId,
        voterDirectoryId: v.directoryId,
        endpoints: [{ name: info.controllerListenerName, host: v.host, port: v.port }],
        kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
      })),
    },
  });
}
