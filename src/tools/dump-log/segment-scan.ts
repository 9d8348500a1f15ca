// Walking the batches of a segment file as Kafka's FileRecords/FileLogInputStream do, for the
// index checks: the next batch boundary, a batch's last offset, and its records.
import { CorruptRecordError } from '../../protocol/records/layout.js';
import { nextBatchSize } from '../../storage/file-records.js';
import type { ChunkedFile } from './chunked-file.js';
import {
  COMPRESSION_NAMES,
  HEADER_SIZE_UP_TO_MAGIC,
  RECORD_BATCH_OVERHEAD,
  RecordError,
  decompressPayload,
  lastOffsetOf,
  legacyInnerRecords,
  legacyRecord,
  readLegacyEntry,
  readV2Header,
  v2Records,
  type DumpRecord,
} from './records.js';

/** What Kafka would have thrown while walking batches (CorruptRecordException and friends). */
export class SegmentError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

export interface BatchRef {
  position: number;
  size: number;
  magic: number;
}

/**
 * FileLogInputStream.nextBatch over [pos, end): null when fewer than 17 bytes remain or the batch
 * runs past `end`; SegmentError for a size below the minimum record overhead.
 */
export function nextBatch(f: ChunkedFile, pos: number, end: number, path: string): BatchRef | null {
  if (pos >= end - HEADER_SIZE_UP_TO_MAGIC) return null;
  const head = f.read(pos, HEADER_SIZE_UP_TO_MAGIC);
  let size: number | null;
  try {
    size = nextBatchSize(head, 0, pos, end, path);
  } catch (e) {
    if (!(e instanceof CorruptRecordError)) throw e;
    throw new SegmentError(pos, `org.apache.kafka.common.errors.CorruptRecordException: ${e.message}`);
  }
  return size === null ? null : { position: pos, size, magic: head.readInt8(16) };
}

/** The batch's last offset (v2 header, or the legacy entry's offset field). */
export function batchLastOffset(f: ChunkedFile, b: BatchRef): bigint {
  if (b.magic >= 2) {
    const h = f.read(b.position, RECORD_BATCH_OVERHEAD);
    if (h.length < RECORD_BATCH_OVERHEAD)
      throw new SegmentError(
        b.position,
        'java.io.EOFException: Failed to read `record batch header` from file channel',
      );
    return lastOffsetOf(readV2Header(h));
  }
  return f.read(b.position, 8).readBigInt64BE(0);
}

/** All records of the batch (decompressed), as Kafka's batch iterator yields them. */
export async function batchRecords(f: ChunkedFile, b: BatchRef): Promise<DumpRecord[]> {
  const buf = f.readFully(b.position, b.size);
  try {
    if (b.magic >= 2) {
      if (buf.length < RECORD_BATCH_OVERHEAD) throw new RecordError('batch shorter than its header');
      const h = readV2Header(buf);
      const codec = h.attributes & 0x07;
      if (codec >= COMPRESSION_NAMES.length) throw new RecordError(`Unknown compression type id: ${codec}`);
      if (h.count === 0) return [];
      if (codec === 0) return [...v2Records(h, buf, RECORD_BATCH_OVERHEAD, buf.length)];
      const data = await decompressPayload(codec, buf.subarray(RECORD_BATCH_OVERHEAD), 2);
      return [...v2Records(h, data, 0, data.length)];
    }
    const e = readLegacyEntry(buf, 0, buf.length);
    const codec = e.attributes & 0x07;
    if (codec === 0) return [legacyRecord(e)];
    if (codec >= COMPRESSION_NAMES.length) throw new RecordError(`Unknown compression type id: ${codec}`);
    if (e.value === null) throw new RecordError('Found invalid compressed record set with null value');
    return legacyInnerRecords(e, await decompressPayload(codec, e.value, e.magic));
  } catch (err) {
    throw new SegmentError(b.position, err instanceof Error ? err.message : String(err));
  }
}
