// meta.properties (MetaProperties / MetaPropertiesEnsemble), Kafka UUIDs, and formatting of the
// log directories (metadata/storage/Formatter.java) for `tkafka storage format` and for an embedded
// first start (KafkaRaftServer.initializeLogDirs, but formatting when nothing is formatted yet).
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { formatProperties, parseProperties, javaStringHash } from '../config/properties.js';
import {
  type MetadataVersionInfo,
  LATEST_PRODUCTION,
  LATEST_TESTING,
  isKRaftSupported,
  isProduction,
  formatFeatureLevels,
  bootstrapFeatureRecords,
  metadataVersionFromLevel,
} from '../config/features.js';

export const META_PROPERTIES_NAME = 'meta.properties';
export const CLUSTER_METADATA_DIR = '__cluster_metadata-0';

// ---------------------------------------------------------------- UUIDs

/** Uuid.toString: URL-safe base64 of the 16 bytes, no padding (22 chars). */
export function uuidToString(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/** Uuid.fromString with Kafka's (java.util.Base64) error messages. Returns the 16 bytes. */
export function uuidFromString(str: string): Buffer {
  if (str.length > 24) {
    throw new Error(`Input string with prefix \`${str.slice(0, 24)}\` is too long to be decoded as a base64 UUID`);
  }
  const body = str.replace(/={1,2}$/, '');
  for (const ch of body) {
    if (!/[A-Za-z0-9_-]/.test(ch)) throw new Error(`Illegal base64 character ${ch.charCodeAt(0).toString(16)}`);
  }
  if (body.length % 4 === 1) throw new Error('Last unit does not have enough valid bits');
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length !== 16) {
    throw new Error(
      `Input string \`${str}\` decoded as ${bytes.length} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID`,
    );
  }
  return bytes;
}

const isZeroHigh = (b: Uint8Array): boolean => b.subarray(0, 8).every((x) => x === 0);
const lowBits = (b: Uint8Array): bigint => Buffer.from(b).readBigUInt64BE(8);

/** Uuid.RESERVED: the zero UUID and the metadata topic id (0, 1). */
export function isReservedUuid(bytes: Uint8Array): boolean {
  return isZeroHigh(bytes) && lowBits(bytes) <= 1n;
}

/** DirectoryId.reserved: the first 100 UUIDs (MIGRATING, UNASSIGNED, LOST, ...). */
export function isReservedDirectoryId(bytes: Uint8Array): boolean {
  return isZeroHigh(bytes) && lowBits(bytes) < 100n;
}

/** Uuid.randomUuid(): a random (version 4) UUID that is not reserved and does not start with '-'. */
export function randomUuid(): string {
  for (;;) {
    const bytes = Buffer.from(randomUUID().replace(/-/g, ''), 'hex');
    const s = uuidToString(bytes);
    if (!isReservedUuid(bytes) && !s.startsWith('-')) return s;
  }
}

/** Copier.generateValidDirectoryId: 128 random bits, not reserved, no leading '-', unused. */
export function randomDirectoryId(taken: Iterable<string> = []): string {
  const used = new Set(taken);
  for (;;) {
    const bytes = randomBytes(16);
    const s = uuidToString(bytes);
    if (!s.startsWith('-') && !isReservedDirectoryId(bytes) && !used.has(s)) return s;
  }
}

// ---------------------------------------------------------------- meta.properties

export interface MetaProperties {
  /** 1 = KRaft; 0 = legacy ZooKeeper format. */
  version: 0 | 1;
  clusterId?: string;
  nodeId?: number;
  directoryId?: string;
}

export const parseJavaInt = (s: string): number | null =>
  /^[+-]?\d+$/.test(s) && Math.abs(Number(s)) <= 2147483647 ? Number(s) : null;

/** MetaProperties.Builder(Properties).build(): throws Kafka's RuntimeException texts. */
export function parseMetaProperties(props: ReadonlyMap<string, string>): MetaProperties {
  const vs = props.get('version') ?? '0';
  const vn = parseJavaInt(vs.trim());
  if (vn === null) throw new Error(`Invalid meta.properties version string '${vs}'`);
  if (vn !== 0 && vn !== 1) throw new Error(`Unknown meta.properties version number ${vn}`);
  const meta: MetaProperties = { version: vn };
  const idKey = vn === 0 ? 'broker.id' : 'node.id';
  if (vn === 1 || props.has(idKey)) {
    const raw = props.get(idKey);
    if (raw === undefined) throw new Error(`Failed to find ${idKey}`);
    const id = parseJavaInt(raw);
    if (id === null) throw new Error(`Unable to read ${idKey} as a base-10 number.`);
    meta.nodeId = id;
  }
  if (props.has('cluster.id')) meta.clusterId = props.get('cluster.id');
  if (props.has('directory.id')) {
    try {
      uuidFromString(props.get('directory.id')!);
    } catch (e) {
      throw new Error(`Unable to read directory.id as a Uuid: ${(e as Error).message}`);
    }
    meta.directoryId = props.get('directory.id');
  }
  if (vn === 1) {
    if (meta.clusterId === undefined) throw new Error('cluster.id was not found.');
    if (meta.nodeId === undefined) throw new Error('node.id was not found.');
  }
  return meta;
}

/** MetaProperties.toProperties, in insertion order. */
export function metaPropertiesEntries(meta: MetaProperties): Array<[string, string]> {
  const out: Array<[string, string]> = [['version', String(meta.version)]];
  if (meta.clusterId !== undefined) out.push(['cluster.id', meta.clusterId]);
  if (meta.nodeId !== undefined) out.push([meta.version === 0 ? 'broker.id' : 'node.id', String(meta.nodeId)]);
  if (meta.directoryId !== undefined) out.push(['directory.id', meta.directoryId]);
  return out;
}

/** The file text Kafka writes: `#`, `#<date>`, then the keys in Java 17 Properties order. */
export function formatMetaProperties(meta: MetaProperties, date: Date = new Date()): string {
  return formatProperties(metaPropertiesEntries(meta), { comment: '', date, order: 'java' });
}

/** MetaProperties.toString. */
export function metaPropertiesToString(meta: MetaProperties): string {
  let s = `MetaProperties(version=${meta.version}`;
  if (meta.clusterId !== undefined) s += `, clusterId=${meta.clusterId}`;
  if (meta.nodeId !== undefined) s += `, nodeId=${meta.nodeId}`;
  if (meta.directoryId !== undefined) s += `, directoryId=${meta.directoryId}`;
  return s + ')';
}

/** `Found metadata: {...}`: the properties sorted by key, Java TreeMap.toString. */
export function metaPropertiesSortedString(meta: MetaProperties): string {
  const entries = metaPropertiesEntries(meta).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${k}=${v}`).join(', ')}}`;
}

/** Read `<dir>/meta.properties`; null if the file does not exist. Throws on bad content. */
export async function readMetaProperties(dir: string): Promise<MetaProperties | null> {
  let text: string;
  try {
    text = await readFile(join(dir, META_PROPERTIES_NAME), 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
  return parseMetaProperties(parseProperties(text));
}

/** Write `<dir>/meta.properties` atomically (tmp file, fsync, rename, fsync directory). */
export async function writeMetaProperties(dir: string, meta: MetaProperties, date: Date = new Date()): Promise<void> {
  const path = join(dir, META_PROPERTIES_NAME);
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(formatMetaProperties(meta, date), 'utf8');
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  const dh = await open(dir, 'r').catch(() => null);
  if (dh)
    await dh
      .sync()
      .catch(() => undefined)
      .finally(() => dh.close());
}

// ---------------------------------------------------------------- ensembles

export interface MetaPropertiesEnsemble {
  emptyLogDirs: string[];
  errorLogDirs: Map<string, Error>;
  logDirProps: Map<string, MetaProperties>;
  metadataLogDir?: string;
}

/** MetaPropertiesEnsemble.Loader: classify each directory (sorted) as empty, error, or formatted. */
export async function loadEnsemble(dirs: Iterable<string>, metadataLogDir?: string): Promise<MetaPropertiesEnsemble> {
  const all = [...new Set([...dirs, ...(metadataLogDir !== undefined ? [metadataLogDir] : [])])].sort();
  const ens: MetaPropertiesEnsemble = {
    emptyLogDirs: [],
    errorLogDirs: new Map(),
    logDirProps: new Map(),
    metadataLogDir,
  };
  for (const dir of all) {
    try {
      const meta = await readMetaProperties(dir);
      if (meta === null) ens.emptyLogDirs.push(dir);
      else ens.logDirProps.set(dir, meta);
    } catch (e) {
      ens.errorLogDirs.set(dir, e as Error);
    }
  }
  return ens;
}

export interface VerifyFlags {
  requireAtLeastOneValid?: boolean;
  requireMetadataLogDir?: boolean;
}

/** MetaPropertiesEnsemble.verify: cluster/node id agreement and unique, unreserved directory ids. */
export function verifyEnsemble(
  ens: MetaPropertiesEnsemble,
  expectedClusterId?: string,
  expectedNodeId?: number,
  flags: VerifyFlags = {},
): void {
  if (flags.requireAtLeastOneValid && ens.logDirProps.size === 0)
    throw new Error('No readable meta.properties files found.');
  const seen = new Map<string, string>();
  for (const [dir, meta] of [...ens.logDirProps].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const path = join(dir, META_PROPERTIES_NAME);
    if (meta.clusterId === undefined) {
      if (meta.version === 1) throw new Error(`cluster.id was not specified in the v1 file: ${path}`);
    } else if (expectedClusterId === undefined) {
      expectedClusterId = meta.clusterId;
    } else if (meta.clusterId !== expectedClusterId) {
      throw new Error(`Invalid cluster.id in: ${path}. Expected ${expectedClusterId}, but read ${meta.clusterId}`);
    }
    if (meta.nodeId === undefined) {
      if (meta.version === 1) throw new Error(`node.id was not specified in ${path}`);
    } else if (expectedNodeId === undefined) {
      expectedNodeId = meta.nodeId;
    } else if (meta.nodeId !== expectedNodeId) {
      throw new Error(
        `Stored node id ${meta.nodeId} doesn't match previous node id ${expectedNodeId} in ${path}. If you moved your data, make sure your configured node id matches. If you intend to create a new node, you should remove all data in your data directories.`,
      );
    }
    if (meta.directoryId !== undefined) {
      if (isReservedDirectoryId(uuidFromString(meta.directoryId))) {
        throw new Error(`Invalid resrved directory ID ${meta.directoryId} found in ${dir}`);
      }
      const prev = seen.get(meta.directoryId);
      if (prev !== undefined) {
        throw new Error(
          `Duplicate directory ID Optional[${meta.directoryId}] found. It was the ID of ${prev}, but also of ${dir}`,
        );
      }
      seen.set(meta.directoryId, dir);
    }
  }
  if (flags.requireMetadataLogDir && ens.metadataLogDir === undefined)
    throw new Error('No metadata log directory was specified.');
  if (ens.metadataLogDir !== undefined && ens.errorLogDirs.has(ens.metadataLogDir)) {
    throw new Error(`Encountered I/O error in metadata log directory ${ens.metadataLogDir}. Cannot continue.`);
  }
}

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

/** What the bootstrap.checkpoint must hold (BootstrapMetadata.fromVersions + --add-scram). */
export interface BootstrapInfo {
  metadataVersion: MetadataVersionInfo;
  /** Effective feature levels, metadata.version and kraft.version included. */
  featureLevels: Map<string, number>;
  /** FeatureLevelRecords in the order Kafka writes them. */
  featureRecords: Array<{ name: string; level: number }>;
  /** Raw --add-scram arguments (SCRAM records are for the hook to build). */
  scramArguments: string[];
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
  /** metadata.version to format with; default latest production (latest testing if unstable). */
  releaseVersion?: MetadataVersionInfo;
  /** `--feature name=level` settings (metadata.version=X stands for a release version). */
  featureLevels?: ReadonlyMap<string, number>;
  unstableFeatureVersionsEnabled?: boolean;
  /** KIP-853 initial voters (--standalone / --initial-controllers): a dynamic quorum. */
  initialControllers?: DynamicVoter[];
  scramArguments?: string[];
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

  const unstable = opts.unstableFeatureVersionsEnabled ?? false;
  // Formatter.calculateEffectiveReleaseVersion: --feature metadata.version=X or --release-version
  const requested = opts.featureLevels ?? new Map<string, number>();
  const mvLevel = requested.get('metadata.version');
  let release = opts.releaseVersion;
  if (mvLevel !== undefined) {
    if (release)
      throw new FormatterError('Use --release-version instead of --feature metadata.version=X to avoid ambiguity.');
    try {
      release = metadataVersionFromLevel(mvLevel);
    } catch {
      throw new FormatterError(`Unknown metadata.version feature level: ${mvLevel}`);
    }
  }
  const mv = release ?? (unstable ? LATEST_TESTING : LATEST_PRODUCTION);
  if (release) {
    if (!isKRaftSupported(mv)) throw new FormatterError(`metadata.version ${mv.version} is too old to be supported.`);
    if (!unstable && !isProduction(mv)) throw new FormatterError(`metadata.version ${mv.version} is not yet stable.`);
  }
  const dynamic = opts.initialControllers !== undefined;
  let featureLevels: Map<string, number>;
  try {
    featureLevels = formatFeatureLevels(mv, dynamic, requested);
  } catch (e) {
    throw new FormatterError((e as Error).message);
  }
  const scramArguments = opts.scramArguments ?? [];
  if (scramArguments.length && mv.level < 11)
    throw new FormatterError('SCRAM is only supported in metadata.version 3.5-IV2 or later.');
  const bootstrap: BootstrapInfo = {
    metadataVersion: mv,
    featureLevels,
    featureRecords: bootstrapFeatureRecords(featureLevels),
    scramArguments,
  };

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

export interface EnsureFormattedOptions extends Omit<FormatStorageOptions, 'config' | 'clusterId' | 'ignoreFormatted'> {
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
    await formatStorage({ ...opts, config, clusterId });
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

/** Whether a path exists and is a directory (the storage tool's info command). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
