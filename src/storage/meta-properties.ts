// `meta.properties` (Kafka's MetaProperties, MetaPropertiesEnsemble): the Java properties file in
// every log directory naming the cluster, the node and the directory, and Kafka's UUIDs in text form.
// The properties text itself (java.util.Properties load/store) is src/config/properties.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { formatProperties, parseProperties } from '../config/properties.js';
import { atomicWriteFile, readTextIfExists } from './file-ops.js';

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
      throw new Error(`Unable to read directory.id as a Uuid: ${(e as Error).message}`, { cause: e });
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
  const text = await readTextIfExists(join(dir, META_PROPERTIES_NAME), 'latin1', true);
  if (text === undefined) return null;
  return parseMetaProperties(parseProperties(text));
}

/** Write `<dir>/meta.properties` atomically (tmp file, fsync, rename, fsync directory). */
export async function writeMetaProperties(dir: string, meta: MetaProperties, date: Date = new Date()): Promise<void> {
  await atomicWriteFile(join(dir, META_PROPERTIES_NAME), formatMetaProperties(meta, date));
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
