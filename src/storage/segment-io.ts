// The metadata log's segment access (`__cluster_metadata-0` and snapshot `.checkpoint` files, both v2
// batches only): a batch walk over FileRecords with the metadata log's recovery rules, and the sparse
// index rule of LogSegment that builds `.index` / `.timeindex` entries while batches are appended.

import * as L from '../protocol/records/layout.js';
import { ensureValidBatch } from '../protocol/records/batch-stored.js';
import { CorruptRecordError } from '../protocol/records/layout.js';
import { FileRecords } from './file-records.js';
import { encodeOffsetIndexEntry } from './offset-index.js';
import { encodeTimeIndexEntry } from './time-index.js';

export interface ScannedBatch {
  /** File position of the batch. */
  readonly position: number;
  readonly size: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly epoch: number;
  readonly maxTimestamp: number;
}

export interface ReadBatchesOptions {
  readonly verifyCrc: boolean;
  /** Stop quietly at the first malformed batch (recovery) instead of throwing. */
  readonly stopOnError: boolean;
  /** Read only up to this file position. */
  readonly end?: number;
}

export interface ReadBatchesResult {
  /** File position after the last complete, valid batch delivered or skipped. */
  readonly validEnd: number;
  /** Why reading stopped early (malformed or partial batch), if it did. */
  readonly error: Error | null;
}

/**
 * Reads the v2 batches of a segment file from `start` (FileRecords' chunked walk), calling
 * `onBatch` for each complete batch (return false to stop); `buf` is valid only during the call.
 * A batch that is not magic 2, too short, or (with verifyCrc) fails its CRC, and a partial batch at
 * the end, are errors: thrown, or reported in the result with `stopOnError`.
 */
export async function readBatches(
  file: string,
  start: number,
  onBatch: (b: ScannedBatch, buf: Buffer) => boolean | void,
  opts: ReadBatchesOptions,
): Promise<ReadBatchesResult> {
  const records = await FileRecords.open(file, false, true);
  const fail = (position: number, error: Error): ReadBatchesResult => {
    if (opts.stopOnError) return { validEnd: position, error };
    throw error;
  };
  try {
    const end = Math.min(opts.end ?? records.size, records.size);
    let pos = start;
    try {
      for await (const b of records.batches(start, { end, withData: true })) {
        if (b.magic !== 2) throw new CorruptRecordError(`unexpected magic ${b.magic} at ${b.position}`);
        if (b.size < L.RECORD_BATCH_OVERHEAD)
          throw new CorruptRecordError(`invalid batch length ${b.size - L.LOG_OVERHEAD} at ${b.position}`);
        if (opts.verifyCrc) ensureValidBatch(b.data!, b);
        const info: ScannedBatch = {
          position: b.position,
          size: b.size,
          baseOffset: b.baseOffset,
          lastOffset: b.lastOffset,
          epoch: b.partitionLeaderEpoch,
          maxTimestamp: b.maxTimestamp,
        };
        if (onBatch(info, b.data!) === false) return { validEnd: pos, error: null };
        pos = b.position + b.size;
      }
    } catch (e) {
      return fail(pos, e as Error);
    }
    if (pos < end) return fail(pos, new CorruptRecordError(`partial batch of ${end - pos} bytes at ${pos}`));
    return { validEnd: pos, error: null };
  } finally {
    await records.close();
  }
}

/**
 * Kafka's sparse-index rule (LogSegment.append/recover): after more than `interval` bytes since
 * the last entry, the next batch gets an offset-index entry (its last offset -> its position) and a
 * time-index entry (max timestamp so far -> offset of the batch holding it) if that timestamp grew.
 */
export class SegmentIndexer {
  private bytesSince = 0;
  private maxTs = -1;
  private maxTsOffset = -1;
  private lastTimeTs = -1;
  private readonly offsetEntries: Buffer[] = [];
  private readonly timeEntries: Buffer[] = [];

  constructor(
    private readonly baseOffset: number,
    private readonly interval: number,
  ) {}

  onBatch(
    position: number,
    size: number,
    lastOffset: number,
    maxTimestamp: number,
  ): { offset: Buffer | null; time: Buffer | null } {
    if (maxTimestamp > this.maxTs) {
      this.maxTs = maxTimestamp;
      this.maxTsOffset = lastOffset;
    }
    let offset: Buffer | null = null;
    let time: Buffer | null = null;
    if (this.bytesSince > this.interval) {
      offset = encodeOffsetIndexEntry(lastOffset - this.baseOffset, position);
      this.offsetEntries.push(offset);
      time = this.timeEntry();
      this.bytesSince = 0;
    }
    this.bytesSince += size;
    return { offset, time };
  }

  private timeEntry(): Buffer | null {
    if (this.maxTs <= this.lastTimeTs) return null;
    const b = encodeTimeIndexEntry(this.maxTs, this.maxTsOffset - this.baseOffset);
    this.lastTimeTs = this.maxTs;
    this.timeEntries.push(b);
    return b;
  }

  /** The entry appended when the segment is rolled or closed (LogSegment.onBecomeInactiveSegment). */
  finalTimeEntry(): Buffer | null {
    return this.timeEntry();
  }

  offsetIndexBytes(): Buffer {
    return Buffer.concat(this.offsetEntries);
  }

  timeIndexBytes(): Buffer {
    return Buffer.concat(this.timeEntries);
  }
}
