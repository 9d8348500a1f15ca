// How a partition log's load reads its small files (partition.metadata, leader-epoch-checkpoint, the
// `.index`/`.timeindex`/`.txnindex` files, producer snapshots) and lists its directory.
//
// `asyncLoadIO` goes through fs/promises, as every other file operation does. `syncLoadIO` makes the
// same calls synchronously, for the logs a broker finds at start-up: before its listeners serve,
// nothing else needs the event loop, and fs/promises' readFile of a small file is four thread-pool
// round trips (open, fstat, read, close) where the synchronous one is four system calls on this
// thread. Reading the ~340 small files and 78 directories of the bench's data dir took 45–105 ms of
// wall time and 65–110 ms of CPU through fs/promises (serially or 16 logs at a time), 9–18 ms
// synchronously (README, Start-up). The caller yields to the event loop between logs, so timers (raft,
// heartbeats) still run while thousands of logs load.
//
// Errors are the same either way: a Node system error (code and syscall set: EIO, ENOENT, ...), so an
// I/O error still takes the log directory offline (isIOError).

import { closeSync, openSync, promises as fsp, readFileSync, readdirSync, statSync, mkdirSync } from 'node:fs';

export interface LoadIO {
  /** The file's bytes; throws ENOENT when it does not exist. */
  read(file: string): Promise<Buffer>;
  /** The file's bytes, undefined when it does not exist. */
  readIfExists(file: string): Promise<Buffer | undefined>;
  /** The names of the regular files in `dir`. */
  listFiles(dir: string): Promise<string[]>;
  /** The file's size; throws ENOENT when it does not exist. */
  size(file: string): Promise<number>;
  /** Creates `dir` (and its parents) unless it exists. */
  ensureDir(dir: string): Promise<void>;
  /** Creates `file` empty unless it exists. */
  touch(file: string): Promise<void>;
}

const isMissing = (e: unknown): boolean => (e as NodeJS.ErrnoException).code === 'ENOENT';

export const asyncLoadIO: LoadIO = {
  read: (file) => fsp.readFile(file),
  async readIfExists(file) {
    try {
      return await fsp.readFile(file);
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  },
  async listFiles(dir) {
    return (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
  },
  async size(file) {
    return (await fsp.stat(file)).size;
  },
  async ensureDir(dir) {
    await fsp.mkdir(dir, { recursive: true });
  },
  async touch(file) {
    await (await fsp.open(file, 'a')).close();
  },
};

// async functions whose bodies never await: each runs to its end when called
export const syncLoadIO: LoadIO = {
  async read(file) {
    return readFileSync(file);
  },
  async readIfExists(file) {
    try {
      return readFileSync(file);
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw e;
    }
  },
  async listFiles(dir) {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  },
  async size(file) {
    return statSync(file).size;
  },
  async ensureDir(dir) {
    mkdirSync(dir, { recursive: true });
  },
  async touch(file) {
    closeSync(openSync(file, 'a'));
  },
};
