// The transaction index of a partition (Kafka's TransactionIndex, one `.txnindex` file per segment):
// a 34-byte entry per aborted transaction whose ABORT marker landed in the segment — int16 version
// (0), int64 producerId, int64 firstOffset, int64 lastOffset (the marker's offset), int64
// lastStableOffset (the LSO when the marker was written). Files are plain appends, created on first
// use. READ_COMMITTED fetches ask for the aborted transactions overlapping the fetched range.
//
// Besides the files, the index keeps the entries of the live segments in memory (sorted by
// lastOffset, which only grows), so a fetch never reads an index file.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { listDir } from './file-ops.js';
import { asyncLoadIO, type LoadIO } from './load-io.js';
import { TXN_INDEX_FILE_SUFFIX, offsetFromFileName } from './log-file-names.js';

export const ABORTED_TXN_SIZE = 34;
export const ABORTED_TXN_VERSION = 0;

export interface AbortedTxnEntry {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

export function encodeAbortedTxn(e: AbortedTxnEntry): Buffer {
  const b = Buffer.alloc(ABORTED_TXN_SIZE);
  b.writeInt16BE(ABORTED_TXN_VERSION, 0);
  b.writeBigInt64BE(BigInt(e.producerId), 2);
  b.writeBigInt64BE(BigInt(e.firstOffset), 10);
  b.writeBigInt64BE(BigInt(e.lastOffset), 18);
  b.writeBigInt64BE(BigInt(e.lastStableOffset), 26);
  return b;
}

/** One `.txnindex` entry with its int64 fields exact (as DumpLogSegments prints them). */
export interface RawAbortedTxn {
  version: number;
  producerId: bigint;
  firstOffset: bigint;
  lastOffset: bigint;
  lastStableOffset: bigint;
}

/**
 * The entry at `buf[p, p + 34)` (Kafka's AbortedTxn); a version above the current one is Kafka's
 * "Unexpected aborted transaction version" error, naming `file`.
 */
export function decodeAbortedTxn(buf: Buffer, p: number, file: string): RawAbortedTxn {
  const version = buf.readInt16BE(p);
  if (version > ABORTED_TXN_VERSION)
    throw new Error(
      `Unexpected aborted transaction version ${version} in transaction index ${file}, current version is ${ABORTED_TXN_VERSION}`,
    );
  return {
    version,
    producerId: buf.readBigInt64BE(p + 2),
    firstOffset: buf.readBigInt64BE(p + 10),
    lastOffset: buf.readBigInt64BE(p + 18),
    lastStableOffset: buf.readBigInt64BE(p + 26),
  };
}

/** Parses the whole entries of a `.txnindex` file (a torn trailing entry is ignored). */
export function decodeAbortedTxns(buf: Buffer, file = '<txnindex>'): AbortedTxnEntry[] {
  const out: AbortedTxnEntry[] = [];
  for (let p = 0; p + ABORTED_TXN_SIZE <= buf.length; p += ABORTED_TXN_SIZE) {
    const e = decodeAbortedTxn(buf, p, file);
    out.push({
      producerId: Number(e.producerId),
      firstOffset: Number(e.firstOffset),
      lastOffset: Number(e.lastOffset),
      lastStableOffset: Number(e.lastStableOffset),
    });
  }
  return out;
}

/** Kafka 4.4's AbortedTxn.toString (a record: no version). */
export function formatAbortedTxn(e: RawAbortedTxn): string {
  return `AbortedTxn(producerId=${e.producerId}, firstOffset=${e.firstOffset}, lastOffset=${e.lastOffset}, lastStableOffset=${e.lastStableOffset})`;
}

export class CorruptTxnIndexError extends Error {
  override name = 'CorruptIndexError';
}

/**
 * The entries of a whole `.txnindex` file of the segment [startOffset, endOffset), checked before they
 * are trusted: first TransactionIndex.sanityCheck (Kafka's wording: an entry whose last offset is
 * below the segment's start offset) and AbortedTxn's version check; then what Kafka does not check
 * but a reader relies on (tkafka): no torn trailing entry, a valid producer id, firstOffset <=
 * lastOffset, last offsets strictly increasing and below `endOffset` when known. Throws
 * CorruptTxnIndexError.
 */
export function checkTransactionIndex(
  data: Buffer,
  file: string,
  startOffset: number,
  endOffset?: number,
): AbortedTxnEntry[] {
  const raws: RawAbortedTxn[] = [];
  let prev = -1n;
  for (let p = 0; p + ABORTED_TXN_SIZE <= data.length; p += ABORTED_TXN_SIZE) {
    const e = decodeAbortedTxnUnchecked(data, p);
    if (e.version > ABORTED_TXN_VERSION)
      throw new CorruptTxnIndexError(
        `Unexpected aborted transaction version ${e.version} in transaction index ${file}, current version is ${ABORTED_TXN_VERSION}`,
      );
    if (e.lastOffset < BigInt(startOffset))
      throw new CorruptTxnIndexError(
        `Last offset of aborted transaction ${formatAbortedTxn(e)} in index ${file} is less than start offset ${startOffset}`,
      );
    if (
      e.version < 0 ||
      e.producerId < 0n ||
      e.firstOffset < 0n ||
      e.firstOffset > e.lastOffset ||
      e.lastOffset <= prev ||
      (endOffset !== undefined && e.lastOffset >= BigInt(endOffset))
    )
      throw new CorruptTxnIndexError(
        `Corrupt transaction index ${file}: ${formatAbortedTxn(e)} is not a valid aborted transaction of the segment [${startOffset}, ${endOffset ?? 'end'}) after last offset ${prev}`,
      );
    prev = e.lastOffset;
    raws.push(e);
  }
  if (data.length % ABORTED_TXN_SIZE !== 0)
    throw new CorruptTxnIndexError(
      `Corrupt transaction index ${file}: found ${data.length} bytes which is not a multiple of ${ABORTED_TXN_SIZE}`,
    );
  return raws.map((e) => ({
    producerId: Number(e.producerId),
    firstOffset: Number(e.firstOffset),
    lastOffset: Number(e.lastOffset),
    lastStableOffset: Number(e.lastStableOffset),
  }));
}

function decodeAbortedTxnUnchecked(buf: Buffer, p: number): RawAbortedTxn {
  return {
    version: buf.readInt16BE(p),
    producerId: buf.readBigInt64BE(p + 2),
    firstOffset: buf.readBigInt64BE(p + 10),
    lastOffset: buf.readBigInt64BE(p + 18),
    lastStableOffset: buf.readBigInt64BE(p + 26),
  };
}

export function txnIndexFile(dir: string, segmentBaseOffset: number): string {
  return path.join(dir, String(segmentBaseOffset).padStart(20, '0') + TXN_INDEX_FILE_SUFFIX);
}

interface Held extends AbortedTxnEntry {
  segmentBase: number;
}

export class TransactionIndex {
  private entries: Held[] = [];

  constructor(private dir: string) {}

  updateDir(dir: string): void {
    this.dir = dir;
  }

  get size(): number {
    return this.entries.length;
  }

  /** All entries, oldest first (for tests and tools). */
  all(): AbortedTxnEntry[] {
    return this.entries.map(({ segmentBase: _s, ...e }) => e);
  }

  /**
   * Loads the `.txnindex` files of the live segments. Entries at or beyond the log end offset (a
   * truncated tail) are dropped from memory and from their file. The files of segments at or above
   * `discardFrom` (whose entries the caller rebuilds from the log) are deleted unread, and so is a
   * file that fails checkTransactionIndex (never read as empty: read_committed would then serve
   * aborted data); the base offsets of those are returned with the reason, for the caller to
   * rebuild. `names`: the directory's files as just listed (else it is listed now); `io`: how
   * the files are read.
   */
  async load(
    segmentBases: readonly number[],
    logEndOffset: number,
    discardFrom = Number.POSITIVE_INFINITY,
    { io = asyncLoadIO, names }: { io?: LoadIO; names?: readonly string[] } = {},
  ): Promise<{ base: number; file: string; reason: string }[]> {
    const sorted = [...segmentBases].sort((a, b) => a - b);
    const loaded: Held[] = [];
    const corrupt: { base: number; file: string; reason: string }[] = [];
    for (const name of (names ?? (await listDir(this.dir))).filter((n) => n.endsWith(TXN_INDEX_FILE_SUFFIX)).sort()) {
      const base = offsetFromFileName(name);
      const i = sorted.indexOf(base);
      if (i < 0) continue;
      const file = path.join(this.dir, name);
      if (base >= discardFrom) {
        await fsp.rm(file, { force: true });
        continue;
      }
      let entries: AbortedTxnEntry[];
      try {
        entries = checkTransactionIndex(await io.read(file), file, base, sorted[i + 1]);
      } catch (e) {
        if (!(e instanceof CorruptTxnIndexError)) throw e;
        corrupt.push({ base, file, reason: e.message });
        await fsp.rm(file, { force: true });
        continue;
      }
      const kept = entries.filter((e) => e.lastOffset < logEndOffset);
      if (kept.length !== entries.length) await fsp.writeFile(file, Buffer.concat(kept.map(encodeAbortedTxn)));
      for (const e of kept) loaded.push({ ...e, segmentBase: base });
    }
    loaded.sort((a, b) => a.lastOffset - b.lastOffset);
    this.entries = loaded;
    return corrupt;
  }

  /** Last indexed marker offset (-1 when none). */
  get lastOffset(): number {
    return this.entries.length > 0 ? this.entries[this.entries.length - 1]!.lastOffset : -1;
  }

  /** Appends an entry to the segment's file and to memory; lastOffset must increase. */
  async append(segmentBase: number, e: AbortedTxnEntry): Promise<void> {
    if (e.lastOffset <= this.lastOffset) {
      throw new Error(
        `The last offset of appended log entry must increase sequentially, but ${e.lastOffset} is not greater than current last offset ${this.lastOffset} of index ${txnIndexFile(this.dir, segmentBase)}`,
      );
    }
    await fsp.appendFile(txnIndexFile(this.dir, segmentBase), encodeAbortedTxn(e));
    this.entries.push({ ...e, segmentBase });
  }

  /**
   * Aborted transactions overlapping [fetchOffset, upperBoundOffset): those whose marker is at or
   * after fetchOffset and which started before the upper bound (TransactionIndex.collectAbortedTxns).
   */
  collect(fetchOffset: number, upperBoundOffset: number): AbortedTxnEntry[] {
    const out: AbortedTxnEntry[] = [];
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid]!.lastOffset < fetchOffset) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.firstOffset < upperBoundOffset)
        out.push({
          producerId: e.producerId,
          firstOffset: e.firstOffset,
          lastOffset: e.lastOffset,
          lastStableOffset: e.lastStableOffset,
        });
    }
    return out;
  }

  /** Forgets entries whose marker is below the log start offset (retention, DeleteRecords). */
  dropBefore(logStartOffset: number): void {
    let n = 0;
    while (n < this.entries.length && this.entries[n]!.lastOffset < logStartOffset) n++;
    if (n > 0) this.entries = this.entries.slice(n);
  }

  /** Drops entries whose marker is at or beyond `offset` (truncation), in memory and on disk. */
  async truncateTo(offset: number): Promise<void> {
    const cut = this.entries.filter((e) => e.lastOffset >= offset);
    if (cut.length === 0) return;
    this.entries = this.entries.filter((e) => e.lastOffset < offset);
    for (const base of new Set(cut.map((e) => e.segmentBase))) {
      const kept = this.entries.filter((e) => e.segmentBase === base);
      const file = txnIndexFile(this.dir, base);
      if (kept.length === 0) await fsp.rm(file, { force: true });
      else await fsp.writeFile(file, Buffer.concat(kept.map(encodeAbortedTxn)));
    }
  }

  clear(): void {
    this.entries = [];
  }
}
