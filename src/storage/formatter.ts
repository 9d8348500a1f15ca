// Formatting the log directories (Kafka's metadata/storage/Formatter.java) for `tkafka storage
// format` and an embedded first start: check the directories' meta.properties ensemble, then write
// meta.properties (plus, through the caller's writers, bootstrap.checkpoint and the dynamic-quorum
// snapshot) into every unformatted directory, in the order Kafka's HashMap iteration gives.
import { statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { javaStringHash } from '../config/properties.js';
import type { UserScramCredentialRecord } from '../protocol/generated/metadata/UserScramCredentialRecord.js';
import { loadEnsemble, randomDirectoryId, verifyEnsemble, writeMetaProperties } from './meta-properties.js';

/**
 * Iteration order of a java.util.HashMap<String, _> filled with `keys` in order, optionally
 * created as a copy of a map of `copiedSize` entries (which sizes its first table).
 */
export function javaHashMapOrder(keys: string[], copiedSize = 0): string[] {
  let cap = 16;
  let threshold = 12;
  if (copiedSize > 0) {
    const t = Math.floor(copiedSize / 0.75 + 1);
    cap = 1;
    while (cap < t) cap *= 2;
    threshold = Math.floor(cap * 0.75);
  }
  for (let size = 1; size <= keys.length; size++) {
    if (size > threshold) {
      cap *= 2;
      threshold = Math.floor(cap * 0.75);
    }
  }
  const bucket = (k: string): number => {
    const h = javaStringHash(k);
    return (h ^ (h >>> 16)) & (cap - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((e) => e.k);
}

// ---------------------------------------------------------------- dynamic voters

export interface DynamicVoter {
  nodeId: number;
  host: string;
  port: number;
  directoryId: string;
}

// ---------------------------------------------------------------- formatting

/** Kafka's FormatterException: printed bare by the storage tool. */
export class FormatterError extends Error {
  override name = 'FormatterError';
}

/** A metadata.version as the formatter prints it (MetadataVersionInfo of src/config/features.ts). */
export interface ReleaseVersion {
  readonly version: string;
  readonly level: number;
}

/** What the bootstrap.checkpoint must hold (BootstrapMetadata.fromVersions + --add-scram). */
export interface BootstrapInfo {
  metadataVersion: ReleaseVersion;
  /** Effective feature levels, metadata.version and kraft.version included. */
  featureLevels: Map<string, number>;
  /** FeatureLevelRecords in the order Kafka writes them. */
  featureRecords: Array<{ name: string; level: number }>;
  /** Raw --add-scram arguments. */
  scramArguments: string[];
  /** Their UserScramCredentialRecords (ScramParser.parse), written after the feature levels. */
  scramRecords?: UserScramCredentialRecord[];
}

export interface DynamicQuorumInfo {
  voters: DynamicVoter[];
  kraftVersion: number;
  controllerListenerName: string;
}

export type DirectoryType =
  'data directory' | 'metadata directory' | 'dynamic metadata directory' | 'dynamic metadata voter directory';

export interface FormatStorageOptions {
  /** The node: a loaded ServerConfig has all of these. */
  config: { nodeId: number; logDirs: string[]; metadataLogDir: string; controllerListenerNames: string[] };
  clusterId: string;
  ignoreFormatted?: boolean;
  /**
   * The bootstrap metadata (metadata.version, feature levels, SCRAM arguments) for a static or
   * dynamic quorum; throws FormatterError for a release version that cannot be formatted. Called
   * once, after the node checks (the feature catalogue lives in src/config, above this layer).
   */
  bootstrap: (dynamicQuorum: boolean) => BootstrapInfo;
  /** KIP-853 initial voters (--standalone / --initial-controllers): a dynamic quorum. */
  initialControllers?: DynamicVoter[];
  /** Receives the "Formatting ..." lines (the tool's stdout). */
  print?: (line: string) => void;
  /** Writes `<dir>/bootstrap.checkpoint` (needs the metadata record codec). */
  writeBootstrapCheckpoint?: (dir: string, info: BootstrapInfo) => Promise<void>;
  /** Writes `<dir>/__cluster_metadata-0/00000000000000000000-0000000000.checkpoint` (creating the
   *  partition directory) for a dynamic quorum. */
  writeDynamicQuorumSnapshot?: (dir: string, info: DynamicQuorumInfo) => Promise<void>;
  /** For tests: the date written in meta.properties. */
  now?: Date;
}

export interface FormatStorageResult {
  /** Directories formatted now, in write order, with their type and directory id. */
  formatted: Array<{ dir: string; type: DirectoryType; directoryId: string }>;
  bootstrap: BootstrapInfo;
}

/** Formatter.run: validate, compute the bootstrap metadata, write every unformatted directory. */
export async function formatStorage(opts: FormatStorageOptions): Promise<FormatStorageResult> {
  const { config, clusterId } = opts;
  const print = opts.print ?? (() => undefined);
  const dirs = [...new Set([...config.logDirs, config.metadataLogDir])].sort();
  if (config.nodeId < 0) throw new Error('You must specify a valid non-negative node ID.');
  if (!clusterId) throw new FormatterError('You must specify the cluster id.');
  if (dirs.length === 0) throw new FormatterError('You must specify at least one directory to format');
  const controllerListenerName = config.controllerListenerNames[0];
  if (controllerListenerName === undefined)
    throw new FormatterError('You must specify the name of the initial controller listener.');
  if (!config.metadataLogDir) throw new FormatterError('You must specify the metadata log directory.');

  const dynamic = opts.initialControllers !== undefined;
  const bootstrap = opts.bootstrap(dynamic);
  const mv = bootstrap.metadataVersion;
  const featureLevels = bootstrap.featureLevels;

  const ens = await loadEnsemble(dirs);
  verifyEnsemble(ens, clusterId, config.nodeId);
  const formattedDirs = [...ens.logDirProps.keys()];
  if (!opts.ignoreFormatted && formattedDirs.length) {
    const first = javaHashMapOrder(formattedDirs, formattedDirs.length)[0];
    throw new FormatterError(
      `Log directory ${first} is already formatted. Use --ignore-formatted to ignore this directory and format the others.`,
    );
  }
  for (const dir of ens.errorLogDirs.keys()) print(`I/O error trying to read log directory ${dir}. Ignoring...`);
  if (ens.errorLogDirs.size && ens.emptyLogDirs.length === 0 && formattedDirs.length === 0) {
    throw new FormatterError('No available log directories to format.');
  }
  const result: FormatStorageResult = { formatted: [], bootstrap };
  if (ens.emptyLogDirs.length === 0) {
    print('All of the log directories are already formatted.');
    return result;
  }
  const takenIds = [...ens.logDirProps.values()].map((m) => m.directoryId).filter((x): x is string => !!x);
  const plan = new Map<string, { type: DirectoryType; directoryId: string }>();
  const voter = opts.initialControllers?.find((v) => v.nodeId === config.nodeId);
  for (const dir of ens.emptyLogDirs) {
    const type: DirectoryType =
      dir !== config.metadataLogDir
        ? 'data directory'
        : !dynamic
          ? 'metadata directory'
          : voter
            ? 'dynamic metadata voter directory'
            : 'dynamic metadata directory';
    const directoryId = type === 'dynamic metadata voter directory' ? voter!.directoryId : randomDirectoryId(takenIds);
    takenIds.push(directoryId);
    plan.set(dir, { type, directoryId });
  }
  const copyOrder = javaHashMapOrder([...formattedDirs.sort(), ...ens.emptyLogDirs], formattedDirs.length).filter((d) =>
    plan.has(d),
  );
  for (const dir of javaHashMapOrder(copyOrder)) {
    const { type, directoryId } = plan.get(dir)!;
    print(`Formatting ${type} ${dir} with metadata.version ${mv.version}.`);
    try {
      await mkdir(dir, { recursive: true });
      if (opts.writeBootstrapCheckpoint) await opts.writeBootstrapCheckpoint(dir, bootstrap);
      if (
        (type === 'dynamic metadata directory' || type === 'dynamic metadata voter directory') &&
        opts.writeDynamicQuorumSnapshot
      ) {
        await opts.writeDynamicQuorumSnapshot(dir, {
          voters: opts.initialControllers!,
          kraftVersion: featureLevels.get('kraft.version') ?? 1,
          controllerListenerName,
        });
      }
      await writeMetaProperties(dir, { version: 1, clusterId, nodeId: config.nodeId, directoryId }, opts.now);
    } catch (e) {
      if (e instanceof FormatterError) throw e;
      throw new FormatterError(`Error while writing meta.properties file ${dir}: ${javaIoError(e)}`);
    }
    result.formatted.push({ dir, type, directoryId });
  }
  return result;
}

function javaIoError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'EACCES' || err.code === 'EPERM') return `java.nio.file.AccessDeniedException: ${err.path ?? ''}`;
  if (err.code === 'ENOENT') return `java.nio.file.NoSuchFileException: ${err.path ?? ''}`;
  return `java.io.IOException: ${err.message}`;
}

/** Whether a path exists and is a directory (the storage tool's info command). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
