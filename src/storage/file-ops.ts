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
  if (faultsEnabled) {
    const f = injectedFault(file, 'open') ?? injectedFault(file, 'write', data.length) ?? injectedFault(file, 'fsync');
    if (f) throw f.error;
  }
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

// ---- test-only fault injection ----
//
// TKAFKA_TEST_FAULTS (TEST ONLY, never set in production) makes the file layer fail as a failing disk
// would. Read once when this module loads; when unset `faultsEnabled` is false and no rule is ever
// looked at. Rules are separated by ';', each `<file glob>:<op>:<errno>[:<after N bytes>]`:
//   - file glob: matched against the file's absolute path, `*` = any characters (also `/`);
//   - op: write | fsync | truncate | open | any;
//   - errno: EIO, ENOSPC, EROFS, EDQUOT, ... (the error's `code`);
//   - after N bytes (writes; default 0): the first N bytes written to matching files succeed, the
//     write that crosses N is cut short at N and fails (a torn write); every later one fails.
// e.g. TKAFKA_TEST_FAULTS='*/logs-b/*.log:write:ENOSPC:20000'

export type FaultOp = 'write' | 'fsync' | 'truncate' | 'open';

interface FaultRule {
  readonly pattern: RegExp;
  readonly op: FaultOp | 'any';
  readonly errno: string;
  readonly afterBytes: number;
  written: number;
}

const ERRNOS: Record<string, number> = { EIO: -5, ENOSPC: -28, EROFS: -30, EDQUOT: -122, EACCES: -13, EBADF: -9 };

/** Parses TKAFKA_TEST_FAULTS (exported for its unit test). */
export function parseTestFaults(spec: string | undefined): FaultRule[] {
  if (!spec) return [];
  return spec
    .split(';')
    .filter((s) => s.trim() !== '')
    .map((s) => {
      const parts = s.trim().split(':');
      if (parts.length < 3 || parts.length > 4) throw new Error(`Invalid TKAFKA_TEST_FAULTS rule '${s}'`);
      const [glob, op, errno, after] = parts as [string, string, string, string | undefined];
      if (!['write', 'fsync', 'truncate', 'open', 'any'].includes(op))
        throw new Error(`Invalid TKAFKA_TEST_FAULTS operation '${op}'`);
      const re = new RegExp('^' + glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
      const afterBytes = after === undefined ? 0 : Number(after);
      if (!Number.isInteger(afterBytes) || afterBytes < 0)
        throw new Error(`Invalid TKAFKA_TEST_FAULTS bytes '${after}'`);
      return { pattern: re, op: op as FaultOp | 'any', errno, afterBytes, written: 0 };
    });
}

const FAULT_RULES = parseTestFaults(process.env['TKAFKA_TEST_FAULTS']);

/** Whether TKAFKA_TEST_FAULTS is set (callers skip `injectedFault` entirely when false). */
export const faultsEnabled = FAULT_RULES.length > 0;

function faultError(rule: FaultRule, op: FaultOp, file: string): NodeJS.ErrnoException {
  const e = new Error(`${rule.errno}: injected test fault, ${op} '${file}'`) as NodeJS.ErrnoException;
  e.code = rule.errno;
  e.errno = ERRNOS[rule.errno] ?? -5;
  e.syscall = op;
  e.path = file;
  return e;
}

/**
 * The injected fault for `op` on `file` writing `bytes`: how many bytes may still be written before
 * it fails and the error to raise then; undefined when no rule matches (or the budget is not used up).
 */
export function injectedFault(
  file: string,
  op: FaultOp,
  bytes = 0,
): { allowed: number; error: NodeJS.ErrnoException } | undefined {
  for (const r of FAULT_RULES) {
    if ((r.op !== op && r.op !== 'any') || !r.pattern.test(file)) continue;
    if (op !== 'write') return { allowed: 0, error: faultError(r, op, file) };
    const left = r.afterBytes - r.written;
    if (bytes <= left) {
      r.written += bytes;
      continue;
    }
    r.written = r.afterBytes;
    return { allowed: Math.max(0, left), error: faultError(r, op, file) };
  }
  return undefined;
}

/**
 * Kafka's IOException: an error of the file system (a Node system error from an fs call: EIO,
 * ENOSPC, EROFS, ...) as opposed to a logic error. What takes a log directory offline.
 */
export function isIOError(e: unknown): e is NodeJS.ErrnoException {
  const x = e as NodeJS.ErrnoException | null | undefined;
  return !!x && typeof x.code === 'string' && typeof x.syscall === 'string';
}
