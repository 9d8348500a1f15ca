// Common machinery of Kafka's sparse segment indexes (AbstractIndex.java): a file of fixed-size
// big-endian entries, pre-allocated to the max index size while the segment is active and trimmed
// to exactly the valid entries when it is rolled or closed. Kafka memory-maps the file; here an
// in-memory Buffer mirrors the entries, and appended entries reach the file with positional
// writes. The mirror is loaded lazily (like Kafka's LazyIndex).
//
// Write-behind: appended entries are written in runs of WRITE_BEHIND_BYTES (one page), and before
// any flush, resize or close, not one small write per entry (an entry every index.interval.bytes was
// a write on the thread pool per 4 KiB of log). Lookups read the mirror, so only the file lags, as
// Kafka's mapped stores reach the disk only when the page is written back. A crash loses at most
// the entries of one run, in an active segment: those after the recovery point, which recovery
// rebuilds; a flush writes them first, so segments below the recovery point have all theirs.
//
// File handles: Kafka's indexes hold no descriptor (the mapping outlives the closed file), so a
// broker with N partitions holds about N fds (the .log files). Here a write needs a handle; an
// index keeps its handle between writes only while fewer than `maxKeptIndexHandles()` are kept
// process-wide, and past that opens, uses and closes one per operation — so 10,000 partitions
// cost ~10,000 + 1,024 fds, not 30,000 (two indexes per active segment).

import { promises as fsp } from 'node:fs';
import { deleteIfExists, renameFile } from './file-ops.js';

/** Appended entries are written to the file once this many bytes of them are pending. */
export const WRITE_BEHIND_BYTES = 4096;

/** Index handles kept open between operations, process-wide, and the cap on them. */
const kept = { count: 0, max: 1024 };

/** How many index file handles are kept open between operations (all indexes of this process). */
export const keptIndexHandles = (): number => kept.count;
export const maxKeptIndexHandles = (): number => kept.max;
/** Sets the cap (for tests and embedders); handles kept already stay until their index closes. */
export function setMaxKeptIndexHandles(n: number): void {
  kept.max = n;
}

export class CorruptIndexError extends Error {
  override name = 'CorruptIndexError';
}

export class InvalidOffsetError extends Error {
  override name = 'InvalidOffsetError';
}

export class IndexOffsetOverflowError extends Error {
  override name = 'IndexOffsetOverflowError';
}

export const enum SearchType {
  Key,
  Value,
}

const INT32_MAX = 0x7fffffff;

/** The big-endian int32 at buf[off, off + 4), unchecked (Buffer.readInt32BE checks its argument: slower in a loop). */
export function int32At(buf: Buffer, off: number): number {
  return (buf[off]! << 24) | (buf[off + 1]! << 16) | (buf[off + 2]! << 8) | buf[off + 3]!;
}

export function roundDownToExactMultiple(n: number, factor: number): number {
  return factor * Math.floor(n / factor);
}

/**
 * Kafka's AbstractIndex.indexSlotRangeFor over `entries` slots of `entrySize` bytes: the binary
 * search first looks at the "warm" last 8 KiB of entries. `compare(n)` orders slot n against the
 * target (<0, 0, >0). Returns the largest slot <= target (or -1), or with `largestLowerBound`
 * false the smallest slot >= target (or -1).
 */
export function indexSlotFor(
  entries: number,
  entrySize: number,
  compare: (n: number) => number,
  largestLowerBound: boolean,
): number {
  if (entries === 0) return -1;
  const binarySearch = (begin: number, end: number): number => {
    let lo = begin;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const c = compare(mid);
      if (c > 0) hi = mid - 1;
      else if (c < 0) lo = mid;
      else return mid;
    }
    if (largestLowerBound) return lo;
    return lo === entries - 1 ? -1 : lo + 1;
  };
  const firstHot = Math.max(0, entries - 1 - Math.floor(8192 / entrySize));
  if (compare(firstHot) < 0) return binarySearch(firstHot, entries - 1);
  if (compare(0) > 0) return largestLowerBound ? -1 : 0;
  return binarySearch(0, firstHot);
}

export abstract class AbstractIndex {
  protected abstract readonly entrySize: number;

  private _file: string;
  readonly baseOffset: number;
  readonly maxIndexSize: number;

  /** The kept handle (counted in `kept`), or null: see "File handles" above. */
  private fh: fsp.FileHandle | null = null;
  /** Written or resized since the last flush (the data to fsync may have gone through a closed handle). */
  private unsynced = false;
  private loaded = false;
  /** mirror of entries [0, entries*entrySize); capacity may be larger */
  protected mirror: Buffer = Buffer.alloc(0);
  private _entries = 0;
  /** Entries [0, written) are in the file; [written, entries) only in the mirror (write-behind). */
  private written = 0;
  /** Bumped by every truncation: a write that a truncation overtook counts for nothing. */
  private truncations = 0;
  private _length = 0;
  private _maxEntries = 0;

  constructor(file: string, baseOffset: number, maxIndexSize: number) {
    this._file = file;
    this.baseOffset = baseOffset;
    this.maxIndexSize = maxIndexSize;
  }

  get file(): string {
    return this._file;
  }
  get entries(): number {
    return this._entries;
  }
  get maxEntries(): number {
    return this._maxEntries;
  }
  /** current length of the index file (pre-allocated size while active) */
  get length(): number {
    return this._length;
  }
  get isLoaded(): boolean {
    return this.loaded;
  }
  sizeInBytes(): number {
    return this.entrySize * this._entries;
  }
  isFull(): boolean {
    return this._entries >= this._maxEntries;
  }

  /**
   * Opens (creating and pre-allocating if missing) and loads the index. For an existing file the
   * number of entries is its length / entry size, exactly as Kafka positions the mmap.
   * Returns true if the file was newly created.
   */
  async load(): Promise<boolean> {
    if (this.loaded) return false;
    let newlyCreated = false;
    let data: Buffer;
    try {
      data = await fsp.readFile(this._file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      if (this.maxIndexSize < this.entrySize)
        throw new Error(`Invalid max index size: ${this.maxIndexSize}`, { cause: e });
      const fh = await fsp.open(this._file, 'wx+');
      try {
        await fh.truncate(roundDownToExactMultiple(this.maxIndexSize, this.entrySize));
      } finally {
        await this.keepOrClose(fh);
      }
      this.unsynced = true;
      newlyCreated = true;
      data = Buffer.alloc(0);
    }
    this.setLoaded(newlyCreated ? roundDownToExactMultiple(this.maxIndexSize, this.entrySize) : data.length, data);
    return newlyCreated;
  }

  /**
   * Loads the index from `data`, the file's whole content as read just now (the loader checks a
   * segment's index files before trusting them and hands over what it read: one read, not two).
   * Nothing when already loaded.
   */
  adopt(data: Buffer): void {
    if (!this.loaded) this.setLoaded(data.length, data);
  }

  private setLoaded(length: number, data: Buffer): void {
    this._length = length;
    this._maxEntries = Math.floor(length / this.entrySize);
    this._entries = Math.floor(data.length / this.entrySize);
    this.written = this._entries;
    this.mirror = data;
    this.loaded = true;
    this.onEntriesChanged();
  }

  /** Loads only the file length (no entries): used before reset() so recovery needn't read a stale index. */
  protected async ensureLoaded(): Promise<void> {
    if (!this.loaded) await this.load();
  }

  /** Keeps `fh` as this index's handle while under the cap (and none is kept already), else closes it. */
  private async keepOrClose(fh: fsp.FileHandle): Promise<void> {
    if (this.fh === null && kept.count < kept.max) {
      this.fh = fh;
      kept.count++;
    } else {
      await fh.close();
    }
  }

  /** Runs `op` with the kept handle, or one opened for it (kept afterwards if under the cap). */
  private async withHandle<T>(op: (fh: fsp.FileHandle) => Promise<T>): Promise<T> {
    if (this.fh) return op(this.fh);
    const fh = await fsp.open(this._file, 'r+');
    try {
      return await op(fh);
    } finally {
      await this.keepOrClose(fh);
    }
  }

  /** hook for subclasses to refresh cached last entry */
  protected onEntriesChanged(): void {}

  protected relativeOffsetOrThrow(offset: number): number {
    const rel = offset - this.baseOffset;
    if (rel < 0 || rel > INT32_MAX)
      throw new IndexOffsetOverflowError(`Integer overflow for offset: ${offset} (${this._file})`);
    return rel;
  }

  canAppendOffset(offset: number): boolean {
    const rel = offset - this.baseOffset;
    return rel >= 0 && rel <= INT32_MAX;
  }

  /** Appends one encoded entry; it reaches the file with the next run of entries (see Write-behind). */
  protected async appendEntry(entry: Buffer): Promise<void> {
    const pos = this._entries * this.entrySize;
    if (this.mirror.length < pos + this.entrySize) {
      const grown = Buffer.alloc(
        Math.min(Math.max(this.entrySize * 64, this.mirror.length * 2), this._maxEntries * this.entrySize),
      );
      this.mirror.copy(grown, 0, 0, pos);
      this.mirror = grown;
    }
    entry.copy(this.mirror, pos);
    this.unsynced = true;
    this._entries++;
    this.onEntriesChanged();
    if ((this._entries - this.written) * this.entrySize >= WRITE_BEHIND_BYTES) await this.writePending();
  }

  /** Writes the entries appended since the last write to the file, in one positional write. */
  async writePending(): Promise<void> {
    const from = this.written;
    const to = this._entries;
    if (to <= from) return;
    const size = this.entrySize;
    const mirror = this.mirror;
    const truncations = this.truncations;
    await this.withHandle((fh) => fh.write(mirror, from * size, (to - from) * size, from * size));
    if (this.truncations === truncations && this.written < to) this.written = to;
  }

  /** Entries appended but not yet written to the file (tests). */
  get pendingEntries(): number {
    return this._entries - this.written;
  }

  protected truncateToEntries(n: number): void {
    this._entries = n;
    this.truncations++;
    if (this.written > n) this.written = n;
    this.onEntriesChanged();
  }

  /** Removes every entry whose offset (the key or the value field, `t`) is >= `offset`. */
  protected async truncateFrom(offset: number, t: SearchType): Promise<void> {
    await this.ensureLoaded();
    const slot = this.largestLowerBoundSlotFor(offset, t);
    const at = (n: number): number => (t === SearchType.Key ? this.keyAt(n) : this.valueAt(n));
    this.truncateToEntries(slot < 0 ? 0 : at(slot) === offset ? slot : slot + 1);
  }

  /** Removes all entries. */
  async truncate(): Promise<void> {
    await this.ensureLoaded();
    this.truncateToEntries(0);
  }

  /** Resizes the file (rounded down to a multiple of the entry size). Returns false if unchanged. */
  async resize(newSize: number): Promise<boolean> {
    await this.ensureLoaded();
    const rounded = roundDownToExactMultiple(newSize, this.entrySize);
    if (this._length === rounded) return false;
    await this.writePending();
    this.unsynced = true;
    await this.withHandle((fh) => fh.truncate(rounded));
    this._length = rounded;
    this._maxEntries = Math.floor(rounded / this.entrySize);
    if (this._entries > this._maxEntries) this.truncateToEntries(this._maxEntries);
    return true;
  }

  async trimToValidSize(): Promise<void> {
    await this.resize(this.entrySize * this._entries);
  }

  /** Drops all entries and re-extends the file to the max size (before a rebuild). */
  async reset(): Promise<void> {
    if (!this.loaded) {
      // Skip reading a possibly huge, stale index: we only need its length.
      let length: number;
      try {
        length = (await fsp.stat(this._file)).size;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        await this.load();
        length = this._length;
      }
      this.loaded = true;
      this._length = length;
      this._maxEntries = Math.floor(length / this.entrySize);
      this.mirror = Buffer.alloc(0);
    }
    this.truncateToEntries(0);
    await this.resize(this.maxIndexSize);
  }

  async flush(): Promise<void> {
    await this.writePending();
    if (!this.unsynced) return;
    this.unsynced = false;
    try {
      await this.withHandle((fh) => fh.sync());
    } catch (e) {
      this.unsynced = true;
      throw e;
    }
  }

  /** Kafka's close(): trim to the valid entries and release the file. */
  async close(): Promise<void> {
    if (this.loaded) {
      await this.writePending();
      await this.trimToValidSize();
    }
    await this.closeHandler();
  }

  /**
   * Releases the file without trimming it (Kafka's closeHandler, which unmaps: the entries stored in
   * the mapping stay in the page cache). The pending entries are written first, as they would be.
   */
  async closeHandler(): Promise<void> {
    try {
      if (this.loaded) await this.writePending();
    } finally {
      await this.releaseHandle();
    }
  }

  private async releaseHandle(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    if (fh) {
      kept.count--;
      await fh.close();
    }
  }

  async renameTo(newFile: string): Promise<void> {
    try {
      await renameFile(this._file, newFile, true);
    } finally {
      this._file = newFile;
    }
  }

  async deleteIfExists(): Promise<boolean> {
    this.written = this._entries; // the file goes: its pending entries with it
    await this.releaseHandle();
    return deleteIfExists(this._file);
  }

  updateParentDir(newFile: string): void {
    this._file = newFile;
  }

  // ---- search (Kafka's indexSlotRangeFor / binarySearch, including the warm-entries split) ----

  /** the value compared for slot n */
  protected abstract keyAt(n: number): number;
  protected abstract valueAt(n: number): number;

  private compare(n: number, target: number, t: SearchType): number {
    const v = t === SearchType.Key ? this.keyAt(n) : this.valueAt(n);
    return v < target ? -1 : v > target ? 1 : 0;
  }

  protected largestLowerBoundSlotFor(target: number, t: SearchType): number {
    return this.slotRangeFor(target, t, true);
  }

  protected smallestUpperBoundSlotFor(target: number, t: SearchType): number {
    return this.slotRangeFor(target, t, false);
  }

  private slotRangeFor(target: number, t: SearchType, largestLowerBound: boolean): number {
    return indexSlotFor(this._entries, this.entrySize, (n) => this.compare(n, target, t), largestLowerBound);
  }

  abstract sanityCheck(): void;
}
