// `.index` and `.timeindex` files: DumpLogSegments.dumpIndex / dumpTimeIndex. Entries are read
// from the file in chunks; each is checked against the sibling `.log` (the batch at the indexed
// position must end at the indexed offset; the time index entry must match the batch's max record
// timestamp). Mismatches go to the end-of-run reports; what Kafka would have died on (an entry
// pointing past the log, a corrupt batch there, a failed sanity check) is reported with the entry.
import { indexSlotFor } from '../../storage/abstract-index.js';
import { OFFSET_INDEX_ENTRY_SIZE, offsetIndexSanityError, readOffsetIndexEntry } from '../../storage/offset-index.js';
import { readTimeIndexEntry, TIME_INDEX_ENTRY_SIZE, timeIndexSanityError } from '../../storage/time-index.js';
import { ChunkedFile } from './chunked-file.js';
import { javaAbsolutePath, parseJavaLong, siblingPath } from './java.js';
import type { DumpLogOptions } from './options.js';
import { jsonLine, js, type Output } from './output.js';
import { problem, type Reports } from './reports.js';
import { batchLastOffset, batchRecords, nextBatch, SegmentError } from './segment-scan.js';

export interface IndexDumpContext {
  out: Output;
  opts: DumpLogOptions;
  reports: Reports;
}

const MAX_LOADED_INDEX = 64 * 1024 * 1024;
const CIE = 'org.apache.kafka.storage.internals.log.CorruptIndexException: ';

/** Base offset from the file name (`name.split("\\.")(0).toLong`), or a problem text. */
function baseOffsetOf(path: string): bigint | string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const base = name.split('.')[0]!;
  return parseJavaLong(base) ?? `java.lang.NumberFormatException: For input string: "${base}"`;
}

function openOrReport(out: Output, path: string, shown: string): ChunkedFile | null {
  try {
    return ChunkedFile.open(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    problem(
      out,
      shown,
      null,
      code === 'ENOENT'
        ? `java.io.FileNotFoundException: ${path} (No such file or directory)`
        : `java.io.IOException: ${(e as Error).message}`,
    );
    return null;
  }
}

/** Reads `.index` entries lazily in chunks (whole, for repeated lookups, when small enough). */
class OffsetIndexFile {
  readonly entries: number;
  private loaded: Buffer | null = null;
  constructor(
    readonly file: ChunkedFile,
    readonly baseOffset: bigint,
  ) {
    this.entries = Math.floor(file.size / OFFSET_INDEX_ENTRY_SIZE);
  }
  entry(i: number): { relativeOffset: number; position: number } {
    const at = i * OFFSET_INDEX_ENTRY_SIZE;
    if (this.loaded) return readOffsetIndexEntry(this.loaded, at);
    return readOffsetIndexEntry(this.file.read(at, OFFSET_INDEX_ENTRY_SIZE), 0);
  }
  offset(i: number): bigint {
    return this.baseOffset + BigInt(this.entry(i).relativeOffset);
  }
  /** Loads all entries for repeated lookups (bounded; large corrupt files stay on chunked reads). */
  load(): void {
    if (this.file.size > MAX_LOADED_INDEX || this.loaded) return;
    this.loaded = this.file.readFully(0, this.entries * OFFSET_INDEX_ENTRY_SIZE);
  }
  /** OffsetIndex.lookup: the position of the largest offset <= target (0 when none). */
  lookupPosition(target: bigint): number {
    const compare = (i: number): number => {
      const o = this.offset(i);
      return o < target ? -1 : o > target ? 1 : 0;
    };
    const slot = indexSlotFor(this.entries, OFFSET_INDEX_ENTRY_SIZE, compare, true);
    return slot === -1 ? 0 : this.entry(slot).position;
  }
}

export async function dumpIndex(ctx: IndexDumpContext, path: string): Promise<void> {
  const { out, opts } = ctx;
  const abs = javaAbsolutePath(path);
  const base = baseOffsetOf(path);
  if (typeof base === 'string') return problem(out, path, null, base);
  const name = path.slice(path.lastIndexOf('/') + 1);
  const logPath = siblingPath(path, `${name.split('.')[0]}.log`);
  const log = openOrReport(out, logPath, path);
  if (!log) return;
  const file = openOrReport(out, path, path);
  if (!file) return log.close();
  try {
    const index = new OffsetIndexFile(file, base);
    if (index.entries === 0) return emitMessage(out, path, 'empty', `${path} is empty.`);
    if (opts.indexSanityOnly) {
      const last = index.offset(index.entries - 1);
      const error = offsetIndexSanityError(abs, file.size, base, index.entries, last);
      if (error) return problem(out, path, null, CIE + error);
      return emitMessage(out, path, 'sanity-check-passed', `${path} passed sanity check.`);
    }
    out.startProgress(`Checking ${path}`);
    for (let i = 0; i < index.entries; i++) {
      const offset = index.offset(i);
      const position = index.entry(i).position;
      if (offset === base && i > 0) return;
      const end = Math.min(position + opts.maxMessageSize, log.size);
      if (position < 0 || position > log.size) {
        problem(
          out,
          path,
          i * OFFSET_INDEX_ENTRY_SIZE,
          `index entry (offset: ${offset} position: ${position}) points ${position < 0 ? 'before the start' : 'past the end'} of ${logPath} (${log.size} bytes)`,
        );
      } else {
        try {
          const b = nextBatch(log, position, opts.maxMessageSize < 0 ? position : end, logPath);
          if (b === null) {
            problem(
              out,
              path,
              i * OFFSET_INDEX_ENTRY_SIZE,
              `index entry (offset: ${offset} position: ${position}): no complete batch of at most ${opts.maxMessageSize} bytes (--max-message-size) starts there in ${logPath}`,
            );
          } else {
            const last = batchLastOffset(log, b);
            if (last !== offset) ctx.reports.indexMismatch(abs, offset, last);
          }
        } catch (e) {
          if (!(e instanceof SegmentError)) throw e;
          problem(
            out,
            path,
            i * OFFSET_INDEX_ENTRY_SIZE,
            `index entry (offset: ${offset} position: ${position}): ${e.message}`,
          );
        }
      }
      if (!opts.verifyOnly) {
        if (out.json)
          out.line(
            jsonLine([
              ['type', js('index-entry')],
              ['file', js(path)],
              ['offset', String(offset)],
              ['position', String(position)],
            ]),
          );
        else out.line(`offset: ${offset} position: ${position}`);
      }
      out.progress(i * OFFSET_INDEX_ENTRY_SIZE, file.size);
      await out.maybeFlush();
    }
  } finally {
    file.close();
    log.close();
  }
}

export async function dumpTimeIndex(ctx: IndexDumpContext, path: string): Promise<void> {
  const { out, opts } = ctx;
  const abs = javaAbsolutePath(path);
  const base = baseOffsetOf(path);
  if (typeof base === 'string') return problem(out, path, null, base);
  const stem = path.slice(path.lastIndexOf('/') + 1).split('.')[0]!;
  const logPath = siblingPath(path, `${stem}.log`);
  const log = openOrReport(out, logPath, path);
  if (!log) return;
  const indexFile = openOrReport(out, siblingPath(path, `${stem}.index`), path);
  const file = indexFile && openOrReport(out, path, path);
  try {
    if (!indexFile || !file) return;
    const index = new OffsetIndexFile(indexFile, base);
    const entries = Math.floor(file.size / TIME_INDEX_ENTRY_SIZE);
    const entry = (i: number): { timestamp: bigint; offset: bigint } => {
      const e = readTimeIndexEntry(file.read(i * TIME_INDEX_ENTRY_SIZE, TIME_INDEX_ENTRY_SIZE), 0);
      return { timestamp: e.timestamp, offset: base + BigInt(e.relativeOffset) };
    };
    if (opts.indexSanityOnly) {
      const first = entries === 0 ? -1n : entry(0).timestamp;
      const last = entries === 0 ? { timestamp: -1n, offset: base } : entry(entries - 1);
      const error = timeIndexSanityError(abs, file.size, base, entries, first, last);
      if (error) return problem(out, path, null, CIE + error);
      return emitMessage(out, path, 'sanity-check-passed', `${path} passed sanity check.`);
    }
    index.load();
    out.startProgress(`Checking ${path}`);
    let prev = -1n;
    for (let i = 0; i < entries; i++) {
      const e = entry(i);
      if (e.offset === base && i > 0) return;
      await checkTimeEntry(
        ctx,
        path,
        abs,
        log,
        logPath,
        index.lookupPosition(e.offset),
        e,
        prev,
        i * TIME_INDEX_ENTRY_SIZE,
      );
      if (!opts.verifyOnly) {
        if (out.json)
          out.line(
            jsonLine([
              ['type', js('time-index-entry')],
              ['file', js(path)],
              ['timestamp', String(e.timestamp)],
              ['offset', String(e.offset)],
            ]),
          );
        else out.line(`timestamp: ${e.timestamp} offset: ${e.offset}`);
      }
      prev = e.timestamp;
      out.progress(i * TIME_INDEX_ENTRY_SIZE, file.size);
      await out.maybeFlush();
    }
  } finally {
    file?.close();
    indexFile?.close();
    log.close();
  }
}

async function checkTimeEntry(
  ctx: IndexDumpContext,
  path: string,
  abs: string,
  log: ChunkedFile,
  logPath: string,
  position: number,
  e: { timestamp: bigint; offset: bigint },
  prev: bigint,
  at: number,
): Promise<void> {
  if (position < 0 || position > log.size) {
    return problem(
      ctx.out,
      path,
      at,
      `time index entry (timestamp: ${e.timestamp} offset: ${e.offset}) maps to position ${position}, past the end of ${logPath} (${log.size} bytes)`,
    );
  }
  try {
    for (let p = position; ;) {
      const b = nextBatch(log, p, log.size, logPath);
      if (b === null) return ctx.reports.offsetNotFound(abs, e.offset, -1n);
      const last = batchLastOffset(log, b);
      if (last >= e.offset) {
        if (last !== e.offset) return ctx.reports.offsetNotFound(abs, e.offset, last);
        let max = -1n;
        for (const r of await batchRecords(log, b)) if (r.timestamp > max) max = r.timestamp;
        if (max !== e.timestamp) ctx.reports.timestampMismatch(abs, e.timestamp, max);
        if (prev >= e.timestamp) ctx.reports.outOfOrderTimestamp(abs, e.timestamp, prev);
        return;
      }
      p += b.size;
    }
  } catch (err) {
    if (!(err instanceof SegmentError)) throw err;
    problem(
      ctx.out,
      path,
      at,
      `time index entry (timestamp: ${e.timestamp} offset: ${e.offset}): ${err.message} (batch at position ${err.position} of ${logPath})`,
    );
  }
}

function emitMessage(out: Output, path: string, kind: string, text: string): void {
  if (out.json)
    out.line(
      jsonLine([
        ['type', js(kind)],
        ['file', js(path)],
      ]),
    );
  else out.line(text);
}
