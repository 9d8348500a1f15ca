// The durable-file operations every storage format shares: Kafka's atomic replace
// (Utils.atomicMoveWithFallback after an fsynced temporary file), directory fsync, and the
// "missing file" cases (a file that does not exist reads as absent, deletes as nothing).

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** fsync a directory so a rename/creation inside it is durable. Errors are ignored (not all platforms allow it). */
export async function fsyncDir(dir: string): Promise<void> {
  let fh: fsp.FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    // ignore: directory fsync unsupported or directory gone
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

/**
 * Kafka's atomic replace: write `<file>.tmp` (or `tmp`; a stale one removed first), fsync it, rename
 * over `<file>`, fsync the parent directory (CheckpointFile / Utils.atomicMoveWithFallback).
 */
export async function atomicWriteFile(
  file: string,
  data: string | Uint8Array,
  tmp: string = file + '.tmp',
): Promise<void> {
  await fsp.rm(tmp, { force: true });
  const fh = await fsp.open(tmp, 'w');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsp.rename(tmp, file);
  await fsyncDir(path.dirname(file));
}

/** The file's text, or undefined when it does not exist (also when `alsoNotDir` and a parent is a file). */
export async function readTextIfExists(
  file: string,
  encoding: BufferEncoding = 'utf8',
  alsoNotDir = false,
): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, encoding);
  } catch (e) {
    if (isMissing(e) || (alsoNotDir && (e as NodeJS.ErrnoException).code === 'ENOTDIR')) return undefined;
    throw e;
  }
}

/** Deletes a file; false when it did not exist. */
export async function deleteIfExists(file: string): Promise<boolean> {
  try {
    await fsp.unlink(file);
    return true;
  } catch (e) {
    if (isMissing(e)) return false;
    throw e;
  }
}

/** Renames a file; a missing source is ignored when `ignoreMissing`. */
export async function renameFile(from: string, to: string, ignoreMissing: boolean): Promise<void> {
  try {
    await fsp.rename(from, to);
  } catch (e) {
    if (!ignoreMissing || !isMissing(e)) throw e;
  }
}

/** The names in a directory; none when it cannot be read. */
export async function listDir(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch {
    return [];
  }
}
