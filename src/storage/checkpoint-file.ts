// Kafka's text checkpoint files (server-common CheckpointFile, storage OffsetCheckpointFile):
//   <version>\n<count>\n<entry>\n...   written to <file>.tmp, fsynced, renamed over <file>.
// Offset checkpoints (recovery-point-offset-checkpoint, replication-offset-checkpoint,
// log-start-offset-checkpoint, cleaner-offset-checkpoint) use version 0 and "topic partition offset"
// entries. Also the `.kafka_cleanshutdown` marker (CleanShutdownFileHandler).

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { atomicWriteFile, fsyncDir, readTextIfExists } from './file-ops.js';

export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

export class CheckpointFormatError extends Error {
  override name = 'CheckpointFormatError';
}

/**
 * A state file that exists but cannot be read back (Kafka's CheckpointFileWithFailureHandler /
 * PartitionMetadataFile: an IOException turned into a KafkaStorageException, and the log directory
 * holding the file reported to the LogDirFailureChannel). The message is Kafka's; `cause` says why.
 */
export class StateFileReadError extends Error {
  override name = 'StateFileReadError';
  constructor(
    /** Kafka's message, without the cause. */
    readonly headline: string,
    readonly file: string,
    cause: Error,
  ) {
    super(`${headline}: ${cause.message}`, { cause });
  }
}

export interface EntryFormatter<T> {
  toString(entry: T): string;
  /** undefined = malformed line */
  fromString(line: string): T | undefined;
}

const INT_RE = /^[+-]?\d+$/;

/** Java's Integer.parseInt / Long.parseLong accept an optional sign and decimal digits only. */
export function parseJavaInt(s: string, bits: 32 | 64): number | undefined {
  if (!INT_RE.test(s)) return undefined;
  const n = Number(s);
  if (bits === 32 && (n < -2147483648 || n > 2147483647)) return undefined;
  if (bits === 64) {
    const b = BigInt(s);
    if (b < -(1n << 63n) || b > (1n << 63n) - 1n) return undefined;
    // Clamp the Long.MAX_VALUE-ish values we cannot represent exactly.
    if (b > BigInt(Number.MAX_SAFE_INTEGER)) return Number.MAX_SAFE_INTEGER;
    if (b < BigInt(Number.MIN_SAFE_INTEGER)) return Number.MIN_SAFE_INTEGER;
  }
  return n;
}

/** Lines as Java's BufferedReader.readLine sees them (\n, \r or \r\n terminated; no trailing empty line). */
function javaLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function formatCheckpoint<T>(version: number, entries: readonly T[], fmt: EntryFormatter<T>): string {
  let out = `${version}\n${entries.length}\n`;
  for (const e of entries) out += fmt.toString(e) + '\n';
  return out;
}

export function parseCheckpoint<T>(
  text: string,
  version: number,
  fmt: EntryFormatter<T>,
  location = '<checkpoint>',
): T[] {
  const lines = javaLines(text);
  if (lines.length === 0) return [];
  const malformed = (line: string) =>
    new CheckpointFormatError(`Malformed line in checkpoint file [${location}]: ${line}`);
  const readVersion = parseJavaInt(lines[0]!, 32);
  if (readVersion === undefined) throw malformed(lines[0]!);
  if (readVersion !== version) {
    throw new CheckpointFormatError(
      `Unrecognised version:${readVersion}, expected version: ${version} in checkpoint file at: ${location}`,
    );
  }
  if (lines.length === 1) return [];
  const expected = parseJavaInt(lines[1]!, 32);
  if (expected === undefined) throw malformed(lines[1]!);
  const entries: T[] = [];
  for (let i = 2; i < lines.length; i++) {
    const e = fmt.fromString(lines[i]!);
    if (e === undefined) throw malformed(lines[i]!);
    entries.push(e);
  }
  if (entries.length !== expected) {
    throw new CheckpointFormatError(
      `Expected [${expected}] entries in checkpoint file [${location}], but found only [${entries.length}]`,
    );
  }
  return entries;
}

export async function writeCheckpointFile<T>(
  file: string,
  version: number,
  entries: readonly T[],
  fmt: EntryFormatter<T>,
): Promise<void> {
  await atomicWriteFile(file, formatCheckpoint(version, entries, fmt));
}

/** A missing file reads as no entries (Kafka creates it empty). */
export async function readCheckpointFile<T>(file: string, version: number, fmt: EntryFormatter<T>): Promise<T[]> {
  const text = await readTextIfExists(file);
  return text === undefined ? [] : parseCheckpoint(text, version, fmt, file);
}

// ---- offset checkpoints ----

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: number;
}

export const OFFSET_CHECKPOINT_VERSION = 0;

export const offsetCheckpointFormatter: EntryFormatter<TopicPartitionOffset> = {
  toString: (e) => `${e.topic} ${e.partition} ${e.offset}`,
  fromString: (line) => {
    const parts = line.split(/\s+/);
    if (parts.length !== 3) return undefined;
    const partition = parseJavaInt(parts[1]!, 32);
    const offset = parseJavaInt(parts[2]!, 64);
    if (partition === undefined || offset === undefined) return undefined;
    return { topic: parts[0]!, partition, offset };
  },
};

/** Key used for per-partition maps throughout the log layer: `<topic>-<partition>` (= the directory name). */
export function tpKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export function formatOffsetCheckpoint(entries: readonly TopicPartitionOffset[]): string {
  return formatCheckpoint(OFFSET_CHECKPOINT_VERSION, entries, offsetCheckpointFormatter);
}

export function parseOffsetCheckpoint(text: string, location?: string): TopicPartitionOffset[] {
  return parseCheckpoint(text, OFFSET_CHECKPOINT_VERSION, offsetCheckpointFormatter, location);
}

export async function writeOffsetCheckpoint(file: string, entries: Iterable<TopicPartitionOffset>): Promise<void> {
  await writeCheckpointFile(file, OFFSET_CHECKPOINT_VERSION, [...entries], offsetCheckpointFormatter);
}

export async function readOffsetCheckpoint(file: string): Promise<TopicPartitionOffset[]> {
  return readCheckpointFile(file, OFFSET_CHECKPOINT_VERSION, offsetCheckpointFormatter);
}

/** Reads an offset checkpoint into a map keyed by tpKey(topic, partition). */
export async function readOffsetCheckpointMap(file: string): Promise<Map<string, number>> {
  const m = new Map<string, number>();
  for (const e of await readOffsetCheckpoint(file)) m.set(tpKey(e.topic, e.partition), e.offset);
  return m;
}

// ---- clean shutdown marker ----

/**
 * Writes `.kafka_cleanshutdown` in place (not atomically, as Kafka does) with
 * `{"version":0,"brokerEpoch":N}` and fsyncs it.
 */
export async function writeCleanShutdownMarker(logDir: string, brokerEpoch = -1): Promise<void> {
  const fh = await fsp.open(path.join(logDir, CLEAN_SHUTDOWN_FILE), 'w');
  try {
    await fh.writeFile(JSON.stringify({ version: 0, brokerEpoch }));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsyncDir(logDir);
}

export async function hasCleanShutdownMarker(logDir: string): Promise<boolean> {
  try {
    await fsp.stat(path.join(logDir, CLEAN_SHUTDOWN_FILE));
    return true;
  } catch {
    return false;
  }
}

/** The broker epoch stored in the marker; undefined if missing, empty (old brokers) or unparsable. */
export async function readCleanShutdownMarker(logDir: string): Promise<number | undefined> {
  try {
    const text = await fsp.readFile(path.join(logDir, CLEAN_SHUTDOWN_FILE), 'utf8');
    const v = JSON.parse(text) as { brokerEpoch?: unknown };
    return typeof v.brokerEpoch === 'number' ? v.brokerEpoch : undefined;
  } catch {
    return undefined;
  }
}

export async function deleteCleanShutdownMarker(logDir: string): Promise<void> {
  await fsp.rm(path.join(logDir, CLEAN_SHUTDOWN_FILE), { force: true });
}
