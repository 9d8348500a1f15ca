// `.index` and `.timeindex` files: DumpLogSegments.dumpIndex / dumpTimeIndex. Entries are read
// from the file in chunks; each is checked against the sibling `.log` (the batch at the indexed
// position must end at the indexed offset; the time index entry must match the batch's max record
// timestamp). Mismatches go to the end-of-run reports; what Kafka would have died on (an entry
// pointing past the log, a corrupt batch there, a failed sanity check) is reported with the entry.
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

/** Reads `.index` entries (int32 relative offset, int32 position) lazily in chunks. */
class OffsetIndexFile {
  readonly entries: number;
  private loaded: Int32Array | null = null;
  constructor(
    readonly file: ChunkedFile,
    readonly baseOffset: bigint,
  ) {
    this.entries = Math.floor(file.size / 8);
  }
  relative(i: number): number {
    if (this.loaded) return this.loaded[i * 2]!;
    return this.file.read(i * 8, 8).readInt32BE(0);
  }
  position(i: number): number {
    if (this.loaded) return this.loaded[i * 2 + 1]!;
    return this.file.read(i * 8 + 4, 4).readInt32BE(0);
  }
  offset(i: number): bigint {
    return this.baseOffset + BigInt(this.relative(i));
  }
  /** Loads all entries for repeated lookups (bounded; large corrupt files stay on chunked reads). */
  load(): void {
    if (this.file.size > MAX_LOADED_INDEX || this.loaded) return;
    const b = this.file.readFully(0, this.entries * 8);
    const a = new Int32Array(this.entries * 2);
    for (let i = 0; i < a.length; i++) a[i] = b.readInt32BE(i * 4);
    this.loaded = a;
  }
  /** OffsetIndex.lookup: AbstractIndex's warm/hot binary search for the largest offset <= target. */
  lookupPosition(target: bigint): number {
    const n = this.entries;
    if (n === 0) return 0;
    const cmp = (i: number): number => (this.offset(i) < target ? -1 : this.offset(i) > target ? 1 : 0);
    const search = (begin: number, end: number): number => {
      let lo = begin;
      let hi = end;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        const c = cmp(mid);
        if (c > 0) hi = mid - 1;
        else if (c < 0) lo = mid;
        else return mid;
      }
      return lo;
    };
    const firstHot = Math.max(0, n - 1 - 8192 / 8);
    let slot: number;
    if (cmp(firstHot) < 0) slot = search(firstHot, n - 1);
    else if (cmp(0) > 0) slot = -1;
    else slot = search(0, firstHot);
    return slot === -1 ? 0 : this.position(slot);
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
      if (last < base)
        return problem(
          out,
          path,
          null,
          `${CIE}Corrupt index found, index file ${abs} has non-zero size but the last offset is ${last} which is less than the base offset ${base}`,
        );
      if (file.size % 8 !== 0)
        return problem(
          out,
          path,
          null,
          `${CIE}Index file ${abs} is corrupt, found ${file.size} bytes which is neither positive nor a multiple of 8`,
        );
      return emitMessage(out, path, 'sanity-check-passed', `${path} passed sanity check.`);
    }
    out.startProgress(`Checking ${path}`);
    for (let i = 0; i < index.entries; i++) {
      const offset = index.offset(i);
      const position = index.position(i);
      if (offset === base && i > 0) return;
      const end = Math.min(position + opts.maxMessageSize, log.size);
      if (position < 0 || position > log.size) {
        problem(
          out,
          path,
          i * 8,
          `index entry (offset: ${offset} position: ${position}) points ${position < 0 ? 'before the start' : 'past the end'} of ${logPath} (${log.size} bytes)`,
        );
      } else {
        try {
          const b = nextBatch(log, position, opts.maxMessageSize < 0 ? position : end, logPath);
          if (b === null) {
            problem(
              out,
              path,
              i * 8,
              `index entry (offset: ${offset} position: ${position}): no complete batch of at most ${opts.maxMessageSize} bytes (--max-message-size) starts there in ${logPath}`,
            );
          } else {
            const last = batchLastOffset(log, b);
            if (last !== offset) ctx.reports.indexMismatch(abs, offset, last);
          }
        } catch (e) {
          if (!(e instanceof SegmentError)) throw e;
          problem(out, path, i * 8, `index entry (offset: ${offset} position: ${position}): ${e.message}`);
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
      out.progress(i * 8, file.size);
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
    const entries = Math.floor(file.size / 12);
    const entry = (i: number): { timestamp: bigint; offset: bigint } => {
      const b = file.read(i * 12, 12);
      return { timestamp: b.readBigInt64BE(0), offset: base + BigInt(b.readInt32BE(8)) };
    };
    if (opts.indexSanityOnly) {
      if (entries !== 0) {
        const first = entry(0).timestamp;
        const last = entry(entries - 1);
        if (last.timestamp < first) {
          return problem(
            out,
            path,
            null,
            `${CIE}Corrupt time index found, time index file (${abs}) has non-zero size but the last timestamp is ${last.timestamp} which is less than the first timestamp ${first}`,
          );
        }
        if (last.offset < base) {
          return problem(
            out,
            path,
            null,
            `${CIE}Corrupt time index found, time index file (${abs}) has non-zero size but the last offset is ${last.offset} which is less than the first offset ${base}`,
          );
        }
      }
      if (file.size % 12 !== 0)
        return problem(
          out,
          path,
          null,
          `${CIE}Time index file ${abs} is corrupt, found ${file.size} bytes which is neither positive nor a multiple of 12`,
        );
      return emitMessage(out, path, 'sanity-check-passed', `${path} passed sanity check.`);
    }
    index.load();
    out.startProgress(`Checking ${path}`);
    let prev = -1n;
    for (let i = 0; i < entries; i++) {
      const e = entry(i);
      if (e.offset === base && i > 0) return;
      await checkTimeEntry(ctx, path, abs, log, logPath, index.lookupPosition(e.offset), e, prev, i * 12);
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
      out.progress(i * 12, file.size);
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
