// Iterating the batches (any magic) of a buffer, with optional CRC checks. Import through batch.ts.

import * as L from './layout.js';
import { readInt32 as rdI32, readInt64 as rdI64 } from './layout.js';
import { crc32 } from './crc.js';
import { corrupt, validateBatch } from './batch-header.js';

export interface BatchEntry {
  position: number;
  sizeInBytes: number;
  magic: number;
  /** Raw offset field: v2 base offset; legacy entry offset (last inner offset for wrappers). */
  offset: number;
}

export interface PartialBatch {
  position: number;
  /** Bytes present from `position` to the end of the buffer. */
  available: number;
  /** Full size of the batch, or -1 if not even its length field could be read. */
  required: number;
}

export interface IterateOptions {
  start?: number;
  end?: number;
  /** Verify CRC-32C (v2) / CRC-32 (legacy) of every complete batch. */
  verifyCrc?: boolean;
  /** Reject batches larger than this (CorruptRecordError TOO_LARGE). */
  maxBatchSize?: number;
}

/** Checks the CRC-32 of the legacy (magic 0/1) entry at `pos` (magic byte .. end). */
export function verifyLegacyCrc(buf: Uint8Array, pos: number, size: number): boolean {
  return crc32(buf, pos + L.LEGACY_MAGIC, pos + size) === rdI32(buf, pos + L.LEGACY_CRC) >>> 0;
}

/**
 * Iterates the batches/legacy entries of a buffer. Stops cleanly at a partial trailing batch and
 * reports it in `partial`; throws CorruptRecordError on impossible lengths or magic values.
 */
export class BatchIterator implements IterableIterator<BatchEntry> {
  position: number;
  partial: PartialBatch | null = null;
  private readonly end: number;

  constructor(
    private readonly buf: Uint8Array,
    private readonly opts: IterateOptions = {},
  ) {
    this.position = opts.start ?? 0;
    this.end = opts.end ?? buf.length;
  }

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<BatchEntry> {
    const { buf, end } = this;
    const pos = this.position;
    const avail = end - pos;
    if (avail <= 0) return { done: true, value: undefined };
    if (avail < L.LOG_OVERHEAD) return this.stop(pos, avail, -1);
    const len = rdI32(buf, pos + L.BATCH_LENGTH);
    if (len < L.LEGACY_RECORD_OVERHEAD_V0)
      throw corrupt('INVALID_LENGTH', `batch length ${len} at ${pos} is below the minimum record overhead`);
    const size = len + L.LOG_OVERHEAD;
    if (this.opts.maxBatchSize !== undefined && size > this.opts.maxBatchSize) {
      throw corrupt('TOO_LARGE', `batch of ${size} bytes at ${pos} exceeds ${this.opts.maxBatchSize}`);
    }
    if (avail < L.HEADER_SIZE_UP_TO_MAGIC) return this.stop(pos, avail, size);
    const magic = buf[pos + L.MAGIC]!;
    const min =
      magic === 2
        ? L.RECORD_BATCH_OVERHEAD
        : magic === 1
          ? L.LOG_OVERHEAD + L.LEGACY_RECORD_OVERHEAD_V1
          : L.LOG_OVERHEAD + L.LEGACY_RECORD_OVERHEAD_V0;
    if (magic > 2) throw corrupt('INVALID_MAGIC', `unknown magic ${magic} at ${pos}`);
    if (size < min)
      throw corrupt('INVALID_LENGTH', `batch length ${len} at ${pos} is below the minimum for magic ${magic}`);
    if (avail < size) return this.stop(pos, avail, size);
    if (this.opts.verifyCrc) {
      if (magic === 2) validateBatch(buf, pos, pos + size);
      else if (!verifyLegacyCrc(buf, pos, size))
        throw corrupt('CRC_MISMATCH', `legacy message at ${pos} is corrupt (CRC-32 mismatch)`);
    }
    this.position = pos + size;
    return { done: false, value: { position: pos, sizeInBytes: size, magic, offset: rdI64(buf, pos) } };
  }

  private stop(position: number, available: number, required: number): IteratorResult<BatchEntry> {
    this.partial = { position, available, required };
    return { done: true, value: undefined };
  }
}

export function iterateBatches(buf: Uint8Array, opts: IterateOptions = {}): BatchIterator {
  return new BatchIterator(buf, opts);
}
