// The embedded first start (KafkaRaftServer.initializeLogDirs): format every directory with a fresh
// cluster id when none is formatted yet; otherwise check the meta.properties ensemble as Kafka does
// and give directories without one a directory id.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapFeatureRecords, formatFeatureLevels, LATEST_PRODUCTION } from '../../config/features.js';
import { formatStorage, type BootstrapInfo, type FormatStorageOptions } from '../../storage/formatter.js';
import {
  CLUSTER_METADATA_DIR,
  loadEnsemble,
  randomDirectoryId,
  randomUuid,
  verifyEnsemble,
  writeMetaProperties,
  type MetaPropertiesEnsemble,
} from '../../storage/meta-properties.js';

/** The bootstrap metadata of an embedded first start: the latest production metadata.version. */
export function defaultBootstrap(dynamicQuorum: boolean): BootstrapInfo {
  const featureLevels = formatFeatureLevels(LATEST_PRODUCTION, dynamicQuorum);
  return {
    metadataVersion: LATEST_PRODUCTION,
    featureLevels,
    featureRecords: bootstrapFeatureRecords(featureLevels),
    scramArguments: [],
  };
}

export interface EnsureFormattedOptions extends Omit<
  FormatStorageOptions,
  'config' | 'clusterId' | 'ignoreFormatted' | 'bootstrap'
> {
  /** Default: the latest production metadata.version. */
  bootstrap?: FormatStorageOptions['bootstrap'];
  /** Cluster id for a first format; default a random one. */
  clusterId?: string;
}

export interface EnsureFormattedResult {
  clusterId: string;
  nodeId: number;
  /** True when this call formatted the directories (first start). */
  formatted: boolean;
  /** Directory id of every readable directory. */
  directoryIds: Map<string, string>;
  /** Directories whose meta.properties could not be read (offline). */
  errorLogDirs: Map<string, Error>;
}

/**
 * Embedded start: format every directory with a fresh cluster id when none is formatted;
 * otherwise check them as KafkaRaftServer does (same cluster.id and node.id everywhere, every
 * directory formatted, __cluster_metadata-0 only in the metadata dir) and add missing directory ids.
 */
export async function ensureFormatted(
  config: FormatStorageOptions['config'],
  opts: EnsureFormattedOptions = {},
): Promise<EnsureFormattedResult> {
  const dirs = [...new Set([...config.logDirs, config.metadataLogDir])];
  let ens = await loadEnsemble(dirs, config.metadataLogDir);
  if (ens.logDirProps.size === 0 && ens.errorLogDirs.size === 0) {
    const clusterId = opts.clusterId ?? randomUuid();
    await formatStorage({ ...opts, bootstrap: opts.bootstrap ?? defaultBootstrap, config, clusterId });
    ens = await loadEnsemble(dirs, config.metadataLogDir);
    verifyEnsemble(ens, clusterId, config.nodeId, { requireAtLeastOneValid: true, requireMetadataLogDir: true });
    return summarize(ens, config.nodeId, true);
  }
  verifyEnsemble(ens, undefined, config.nodeId, { requireAtLeastOneValid: true, requireMetadataLogDir: true });
  for (const dir of ens.logDirProps.keys()) {
    const stray = join(dir, CLUSTER_METADATA_DIR);
    if (dir !== config.metadataLogDir && existsSync(stray)) {
      throw new Error(
        `Found unexpected metadata location in data directory \`${stray}\` (the configured metadata directory is ${config.metadataLogDir}).`,
      );
    }
  }
  for (const dir of ens.emptyLogDirs) {
    throw new Error(
      `No \`meta.properties\` found in ${dir} (have you run \`kafka-storage.sh\` to format the directory?)`,
    );
  }
  const taken = [...ens.logDirProps.values()].map((m) => m.directoryId).filter((x): x is string => !!x);
  for (const [dir, meta] of ens.logDirProps) {
    if (meta.directoryId === undefined) {
      const updated = { ...meta, directoryId: randomDirectoryId(taken) };
      taken.push(updated.directoryId);
      await writeMetaProperties(dir, updated, opts.now);
      ens.logDirProps.set(dir, updated);
    }
  }
  return summarize(ens, config.nodeId, false);
}

function summarize(ens: MetaPropertiesEnsemble, nodeId: number, formatted: boolean): EnsureFormattedResult {
  const metas = [...ens.logDirProps.values()];
  const directoryIds = new Map<string, string>();
  for (const [dir, meta] of ens.logDirProps) if (meta.directoryId) directoryIds.set(dir, meta.directoryId);
  return {
    clusterId: metas.find((m) => m.clusterId)?.clusterId ?? '',
    nodeId,
    formatted,
    directoryIds,
    errorLogDirs: ens.errorLogDirs,
  };
}
