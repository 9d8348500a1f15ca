// Kafka's sparse time index `.timeindex` (TimeIndex.java): 12-byte entries
//   int64 timestamp, int32 relativeOffset
// Entry (T, O): the max timestamp seen up to and including the batch ending at offset O is T.
// Timestamps strictly increase, offsets never decrease. One slot is always kept free so the
// final entry at roll/close fits (isFull = entries >= maxEntries - 1).

import { AbstractIndex, CorruptIndexError, InvalidOffsetError, SearchType, int32At } from './abstract-index.js';

export interface TimestampOffset {
  timestamp: number;
  offset: number;
}

export const TIME_INDEX_ENTRY_SIZE = 12;
export const NO_TIMESTAMP = -1;

/**
 * TimeIndex.sanityCheck's failure for a file of `length` bytes holding `entries` entries (the first
 * with `firstTimestamp`, the last `last`); undefined when it passes. Numbers or exact bigints.
 */
export function timeIndexSanityError<T extends number | bigint>(
  file: string,
  length: number,
  baseOffset: T,
  entries: number,
  firstTimestamp: T,
  last: { timestamp: T; offset: T },
): string | undefined {
  if (entries !== 0 && last.timestamp < firstTimestamp)
    return `Corrupt time index found, time index file (${file}) has non-zero size but the last timestamp is ${last.timestamp} which is less than the first timestamp ${firstTimestamp}`;
  if (entries !== 0 && last.offset < baseOffset)
    return `Corrupt time index found, time index file (${file}) has non-zero size but the last offset is ${last.offset} which is less than the first offset ${baseOffset}`;
  if (length % TIME_INDEX_ENTRY_SIZE !== 0)
    return `Time index file ${file} is corrupt, found ${length} bytes which is neither positive nor a multiple of 12`;
  return undefined;
}

/**
 * Checks the bytes of a whole `.timeindex` file before it is trusted at load (more than Kafka checks,
 * see offsetIndexContentError): TimeIndex.sanityCheck (Kafka's wording), then timestamps strictly
 * increasing (TimeIndex.maybeAppend only appends a larger one) and offsets non-decreasing, at or
 * above the base offset and below `endOffset` (the next segment's base) when known.
 */
export function timeIndexContentError(
  file: string,
  data: Buffer,
  baseOffset: number,
  endOffset?: number,
): string | undefined {
  const entries = Math.floor(data.length / TIME_INDEX_ENTRY_SIZE);
  const at = (n: number) => {
    const e = readTimeIndexEntry(data, n * TIME_INDEX_ENTRY_SIZE);
    return { timestamp: e.timestamp, offset: BigInt(baseOffset) + BigInt(e.relativeOffset) };
  };
  const first = entries === 0 ? BigInt(NO_TIMESTAMP) : at(0).timestamp;
  const last = entries === 0 ? { timestamp: BigInt(NO_TIMESTAMP), offset: BigInt(baseOffset) } : at(entries - 1);
  const kafka = timeIndexSanityError(file, data.length, BigInt(baseOffset), entries, first, last);
  if (kafka !== undefined) return kafka;
  // every entry of every segment is checked at start-up: in int32 halves, without BigInts or objects.
  // The timestamp is int64 (high half signed, low half unsigned, compared in that order); the offset
  // is baseOffset + the int32 relative offset, so offset < baseOffset is relative < 0 and the
  // offsets' order is the relative offsets'.
  const endRel = endOffset === undefined ? Number.POSITIVE_INFINITY : endOffset - baseOffset;
  let prevHi = 0;
  let prevLo = 0;
  let prevRel = 0;
  for (let n = 0; n < entries; n++) {
    const off = n * TIME_INDEX_ENTRY_SIZE;
    const hi = int32At(data, off);
    const lo = int32At(data, off + 4) >>> 0;
    const rel = int32At(data, off + 8);
    if (rel < 0 || rel >= endRel || (n > 0 && (hi < prevHi || (hi === prevHi && lo <= prevLo) || rel < prevRel))) {
      const e = at(n);
      return `Corrupt time index found, time index file (${file}) has entry ${n} (timestamp ${e.timestamp}, offset ${e.offset}) out of order or outside the segment`;
    }
    prevHi = hi;
    prevLo = lo;
    prevRel = rel;
  }
  return undefined;
}

/** The `.timeindex` entry at buf[off, off + 12), its timestamp exact. */
export function readTimeIndexEntry(buf: Buffer, off: number): { timestamp: bigint; relativeOffset: number } {
  return { timestamp: buf.readBigInt64BE(off), relativeOffset: buf.readInt32BE(off + 8) };
}

/** One `.timeindex` entry: a max timestamp and the offset (relative to the segment base) it was reached at. */
export function encodeTimeIndexEntry(timestamp: number, relativeOffset: number): Buffer {
  const e = Buffer.allocUnsafe(TIME_INDEX_ENTRY_SIZE);
  e.writeBigInt64BE(BigInt(timestamp), 0);
  e.writeInt32BE(relativeOffset, 8);
  return e;
}

export class TimeIndex extends AbstractIndex {
  protected readonly entrySize = TIME_INDEX_ENTRY_SIZE;
  /** cached last entry ((-1, baseOffset) when empty) */
  private _lastEntry: TimestampOffset = { timestamp: NO_TIMESTAMP, offset: this.baseOffset };

  /** the last entry, or (-1, baseOffset) when empty */
  lastEntry(): TimestampOffset {
    return this._lastEntry;
  }

  protected override onEntriesChanged(): void {
    this._lastEntry =
      this.entries === 0 ? { timestamp: NO_TIMESTAMP, offset: this.baseOffset } : this.entry(this.entries - 1);
  }

  override isFull(): boolean {
    return this.entries >= this.maxEntries - 1;
  }

  protected keyAt(n: number): number {
    return Number(this.mirror.readBigInt64BE(n * 12));
  }

  protected valueAt(n: number): number {
    return this.baseOffset + this.mirror.readInt32BE(n * 12 + 8);
  }

  entry(n: number): TimestampOffset {
    if (n >= this.entries)
      throw new RangeError(
        `Attempt to fetch the ${n}th entry from time index ${this.file} which has size ${this.entries}`,
      );
    return { timestamp: this.keyAt(n), offset: this.valueAt(n) };
  }

  /** Largest entry with timestamp <= target, or (-1, baseOffset). Call load() first. */
  lookup(targetTimestamp: number): TimestampOffset {
    const slot = this.largestLowerBoundSlotFor(targetTimestamp, SearchType.Key);
    return slot === -1 ? { timestamp: NO_TIMESTAMP, offset: this.baseOffset } : this.entry(slot);
  }

  /** Appends (timestamp, offset) if timestamp is larger than the last entry's (Kafka's maybeAppend). */
  async maybeAppend(timestamp: number, offset: number, skipFullCheck = false): Promise<void> {
    await this.ensureLoaded();
    if (!skipFullCheck && this.isFull())
      throw new RangeError(`Attempt to append to a full time index (size = ${this.entries}).`);
    const last = this._lastEntry;
    if (this.entries !== 0 && offset < last.offset) {
      throw new InvalidOffsetError(
        `Attempt to append an offset (${offset}) to slot ${this.entries} no larger than the last offset appended (${last.offset}) to ${this.file}`,
      );
    }
    if (this.entries !== 0 && timestamp < last.timestamp) {
      throw new Error(
        `Attempt to append a timestamp (${timestamp}) to slot ${this.entries} no larger than the last timestamp appended (${last.timestamp}) to ${this.file}`,
      );
    }
    if (timestamp > last.timestamp) {
      if (this.entries >= this.maxEntries) {
        // Kafka's mmap would throw BufferOverflowException here; the roll rule prevents it.
        throw new RangeError(`Time index ${this.file} has no room for another entry`);
      }
      await this.appendEntry(encodeTimeIndexEntry(timestamp, this.relativeOffsetOrThrow(offset)));
    }
  }

  /** Removes all entries whose offset >= `offset`. */
  async truncateTo(offset: number): Promise<void> {
    await this.truncateFrom(offset, SearchType.Value);
  }

  sanityCheck(): void {
    const first = this.entries === 0 ? NO_TIMESTAMP : this.keyAt(0);
    const error = timeIndexSanityError(this.file, this.length, this.baseOffset, this.entries, first, this._lastEntry);
    if (error) throw new CorruptIndexError(error);
  }
}
