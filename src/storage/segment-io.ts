// Low-level segment reading and index building for the metadata log.

import { promises as fsp } from 'node:fs';
import { readBatchHeader, validateBatch } from '../protocol/records/batch.js';
import { LOG_OVERHEAD, MAGIC, RECORD_BATCH_OVERHEAD } from '../protocol/records/layout.js';

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
  readonly chunkSize?: number;
}

export interface ReadBatchesResult {
  /** File position after the last complete, valid batch delivered or skipped. */
  readonly validEnd: number;
  /** Why reading stopped early (malformed or partial batch), if it did. */
  readonly error: Error | null;
}

/**
 * Reads the v2 batches of a segment file from `start`, in chunks, calling `onBatch` for each
 * complete batch (return false to stop). A partial batch at the end is reported, not delivered.
 */
export async function readBatches(
  file: string,
  start: number,
  onBatch: (b: ScannedBatch, buf: Buffer) => boolean | void,
  opts: ReadBatchesOptions,
): Promise<ReadBatchesResult> {
  const fh = await fsp.open(file, 'r');
  try {
    const fileEnd = opts.end ?? (await fh.stat()).size;
    const chunk = opts.chunkSize ?? 1024 * 1024;
    let bufPos = start; // file position of buf[0]
    let buf: Buffer = Buffer.alloc(0);
    for (;;) {
      let off = 0;
      for (;;) {
        const avail = buf.length - off;
        if (avail < LOG_OVERHEAD) break;
        const size = buf.readInt32BE(off + 8) + LOG_OVERHEAD;
        if (size < RECORD_BATCH_OVERHEAD)
          return fail(bufPos + off, new Error(`invalid batch length ${size - LOG_OVERHEAD} at ${bufPos + off}`));
        if (avail < size) break;
        let info: ScannedBatch;
        try {
          if (buf[off + MAGIC] !== 2) throw new Error(`unexpected magic ${buf[off + MAGIC]} at ${bufPos + off}`);
          if (opts.verifyCrc) validateBatch(buf, off, off + size);
          const h = readBatchHeader(buf, off, off + size);
          info = {
            position: bufPos + off,
            size,
            baseOffset: h.baseOffset,
            lastOffset: h.lastOffset,
            epoch: h.partitionLeaderEpoch,
            maxTimestamp: h.maxTimestamp,
          };
        } catch (e) {
          return fail(bufPos + off, e as Error);
        }
        if (onBatch(info, buf.subarray(off, off + size)) === false) return { validEnd: bufPos + off, error: null };
        off += size;
      }
      const filePos = bufPos + buf.length;
      const rest = buf.subarray(off);
      if (filePos >= fileEnd) {
        if (rest.length === 0) return { validEnd: filePos, error: null };
        return fail(bufPos + off, new Error(`partial batch of ${rest.length} bytes at ${bufPos + off}`));
      }
      let want = chunk;
      if (rest.length >= LOG_OVERHEAD) want = Math.max(want, rest.readInt32BE(8) + LOG_OVERHEAD - rest.length);
      want = Math.min(want, fileEnd - filePos);
      const next = Buffer.allocUnsafe(rest.length + want);
      rest.copy(next, 0);
      const { bytesRead } = await fh.read(next, rest.length, want, filePos);
      bufPos += off;
      buf = next.subarray(0, rest.length + bytesRead);
      if (bytesRead === 0) {
        return fail(bufPos, new Error(`unexpected end of file at ${filePos}`));
      }
    }
  } finally {
    await fh.close();
  }

  function fail(position: number, error: Error): ReadBatchesResult {
    if (opts.stopOnError) return { validEnd: position, error };
    throw error;
  }
}

export interface IndexEntry {
  readonly relativeOffset: number;
  readonly position: number;
}

export async function readIndexFile(file: string): Promise<IndexEntry[]> {
  let data: Buffer;
  try {
    data = await fsp.readFile(file);
  } catch {
    return [];
  }
  const out: IndexEntry[] = [];
  for (let p = 0; p + 8 <= data.length; p += 8) {
    const relativeOffset = data.readInt32BE(p);
    const position = data.readInt32BE(p + 4);
    if (out.length > 0 && relativeOffset === 0 && position === 0) break; // zero padding
    out.push({ relativeOffset, position });
  }
  return out;
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
      offset = Buffer.allocUnsafe(8);
      offset.writeInt32BE(lastOffset - this.baseOffset, 0);
      offset.writeInt32BE(position, 4);
      this.offsetEntries.push(offset);
      time = this.timeEntry();
      this.bytesSince = 0;
    }
    this.bytesSince += size;
    return { offset, time };
  }

  private timeEntry(): Buffer | null {
    if (this.maxTs <= this.lastTimeTs) return null;
    const b = Buffer.allocUnsafe(12);
    b.writeBigInt64BE(BigInt(this.maxTs), 0);
    b.writeInt32BE(this.maxTsOffset - this.baseOffset, 8);
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
