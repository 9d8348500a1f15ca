// Kafka's sparse offset index `.index` (OffsetIndex.java): 8-byte entries
//   int32 relativeOffset (offset - baseOffset), int32 position (byte position of a batch in .log)
// strictly increasing in offset.

import { AbstractIndex, CorruptIndexError, InvalidOffsetError, SearchType, int32At } from './abstract-index.js';

export interface OffsetPosition {
  offset: number;
  position: number;
}

export const OFFSET_INDEX_ENTRY_SIZE = 8;

/**
 * OffsetIndex.sanityCheck's failure for a file of `length` bytes holding `entries` entries, the
 * last one at `lastOffset`; undefined when it passes. Offsets may be numbers or exact bigints.
 */
export function offsetIndexSanityError<T extends number | bigint>(
  file: string,
  length: number,
  baseOffset: T,
  entries: number,
  lastOffset: T,
): string | undefined {
  if (entries !== 0 && lastOffset < baseOffset)
    return `Corrupt index found, index file ${file} has non-zero size but the last offset is ${lastOffset} which is less than the base offset ${baseOffset}`;
  if (length % OFFSET_INDEX_ENTRY_SIZE !== 0)
    return `Index file ${file} is corrupt, found ${length} bytes which is neither positive nor a multiple of 8`;
  return undefined;
}

/**
 * Checks the bytes of a whole `.index` file before the index is trusted at load (tkafka checks more
 * than Kafka, which skips the sanity check of segments it does not recover): OffsetIndex.sanityCheck
 * (Kafka's wording), then offsets and positions strictly increasing and every position inside the
 * `.log` file of `logSize` bytes. Returns the failure, or undefined when the file is sane.
 */
export function offsetIndexContentError(
  file: string,
  data: Buffer,
  baseOffset: number,
  logSize: number,
): string | undefined {
  const entries = Math.floor(data.length / OFFSET_INDEX_ENTRY_SIZE);
  const lastOffset = entries === 0 ? baseOffset : baseOffset + data.readInt32BE((entries - 1) * 8);
  const kafka = offsetIndexSanityError(file, data.length, baseOffset, entries, lastOffset);
  if (kafka !== undefined) return kafka;
  let prevRel = -1;
  let prevPos = -1;
  // every entry of every segment is checked at start-up: two int32s each, read from the bytes
  for (let n = 0; n < entries; n++) {
    const relativeOffset = int32At(data, n * 8);
    const position = int32At(data, n * 8 + 4);
    if (relativeOffset <= prevRel || position <= prevPos)
      return `Corrupt index found, index file ${file} has entry ${n} (offset ${baseOffset + relativeOffset}, position ${position}) not after the previous entry (offset ${baseOffset + prevRel}, position ${prevPos})`;
    if (position >= logSize)
      return `Corrupt index found, index file ${file} has entry ${n} at position ${position} beyond the log file size ${logSize}`;
    prevRel = relativeOffset;
    prevPos = position;
  }
  return undefined;
}

/** The `.index` entry at buf[off, off + 8). */
export function readOffsetIndexEntry(buf: Buffer, off: number): { relativeOffset: number; position: number } {
  return { relativeOffset: buf.readInt32BE(off), position: buf.readInt32BE(off + 4) };
}

/** One `.index` entry: the batch's offset relative to the segment base, and its position in `.log`. */
export function encodeOffsetIndexEntry(relativeOffset: number, position: number): Buffer {
  const e = Buffer.allocUnsafe(OFFSET_INDEX_ENTRY_SIZE);
  e.writeInt32BE(relativeOffset, 0);
  e.writeInt32BE(position, 4);
  return e;
}

export class OffsetIndex extends AbstractIndex {
  protected readonly entrySize = OFFSET_INDEX_ENTRY_SIZE;
  /** cached offset of the last entry (baseOffset when empty) */
  private _lastOffset = this.baseOffset;

  /** the last offset in the index (baseOffset when empty) */
  get lastOffset(): number {
    return this._lastOffset;
  }

  protected override onEntriesChanged(): void {
    this._lastOffset = this.entries === 0 ? this.baseOffset : this.entry(this.entries - 1).offset;
  }

  protected keyAt(n: number): number {
    return this.baseOffset + this.mirror.readInt32BE(n * 8);
  }

  protected valueAt(n: number): number {
    return this.mirror.readInt32BE(n * 8 + 4);
  }

  entry(n: number): OffsetPosition {
    if (n >= this.entries)
      throw new RangeError(`Attempt to fetch the ${n}th entry from index ${this.file}, which has size ${this.entries}`);
    return { offset: this.keyAt(n), position: this.valueAt(n) };
  }

  /** Largest entry with offset <= target, or (baseOffset, 0). Call load() first. */
  lookup(targetOffset: number): OffsetPosition {
    const slot = this.largestLowerBoundSlotFor(targetOffset, SearchType.Key);
    return slot === -1 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
  }

  /** Smallest entry whose position >= startPosition + fetchSize (used to bound aborted-txn lookups). */
  fetchUpperBoundOffset(startPosition: number, fetchSize: number): OffsetPosition | undefined {
    const slot = this.smallestUpperBoundSlotFor(startPosition + fetchSize, SearchType.Value);
    return slot === -1 ? undefined : this.entry(slot);
  }

  async append(offset: number, position: number): Promise<void> {
    await this.ensureLoaded();
    if (this.isFull()) throw new RangeError(`Attempt to append to a full index (size = ${this.entries}).`);
    if (this.entries === 0 || offset > this._lastOffset) {
      await this.appendEntry(encodeOffsetIndexEntry(this.relativeOffsetOrThrow(offset), position));
    } else {
      throw new InvalidOffsetError(
        `Attempt to append an offset ${offset} to position ${this.entries} no larger than the last offset appended (${this._lastOffset}) to ${this.file}`,
      );
    }
  }

  /** Removes all entries with offset >= `offset`. */
  async truncateTo(offset: number): Promise<void> {
    await this.truncateFrom(offset, SearchType.Key);
  }

  sanityCheck(): void {
    const error = offsetIndexSanityError(this.file, this.length, this.baseOffset, this.entries, this._lastOffset);
    if (error) throw new CorruptIndexError(error);
  }
}
