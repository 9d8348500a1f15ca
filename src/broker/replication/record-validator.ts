// Validation of produced record batches before they reach the log: Kafka's
// ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords and LogValidator, for magic
// v2 (the only format Kafka 4 accepts from producers). Batches are checked where they lie: the CRC,
// the header fields and every record's framing are read without copying or decoding records; the
// only rewrite is the batch max timestamp (in place, CRC recomputed) when it disagrees with the
// records. A batch is rebuilt only when Kafka rebuilds it too: the topic's compression.type differs
// from the producer's codec, or compressed inner offsets are not 0..n-1.

import { ErrorCode } from '../../protocol/errors.js';
import * as L from '../../protocol/records/layout.js';
import {
  CorruptRecordError,
  readInt16,
  readInt32,
  readInt64,
  CompressionType,
  TimestampType,
} from '../../protocol/records/layout.js';
import { RecordCursor, RECORDS_REMAINING } from '../../protocol/records/record-cursor.js';
import { crc32c } from '../../protocol/records/crc.js';
import {
  compressionTypeName,
  DEFAULT_MAX_WHOLE_SIZE,
  decompressChunks,
  decompressIfSmall,
  DecompressionBudget,
  DecompressionLimitError,
} from '../../protocol/records/compression.js';
import { RecordStreamWalker } from '../../protocol/records/record-stream.js';
import { buildRecordBatch, decodeBatch, setMaxTimestamp } from '../../protocol/records/batch.js';
import { LONG_MAX } from '../log/log-config.js';
import type { AppendPolicy } from './topic-config.js';

/**
 * now ± a message.timestamp.{before,after}.max.ms as Kafka prints it: Java long arithmetic, where the
 * configs' LONG_MAX (the largest safe number) stands for Long.MAX_VALUE, the default of before.max.ms.
 */
function timestampBound(now: number, sign: 1 | -1, maxMs: number): bigint {
  const ms = maxMs >= LONG_MAX ? 9223372036854775807n : BigInt(maxMs);
  return BigInt.asIntN(64, BigInt(now) + BigInt(sign) * ms);
}

export interface RecordErrorEntry {
  batchIndex: number;
  message: string | null;
}

/** A failed append: the partition error code, Kafka's message, and per-record errors (KIP-467). */
export class AppendError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
    readonly recordErrors: readonly RecordErrorEntry[] = [],
  ) {
    super(message);
    this.name = 'AppendError';
  }
}

/** Who is appending: producers (full validation) or the broker's own coordinators. */
export type AppendOrigin = 'client' | 'coordinator';

/** Header facts of the validated batch, for the idempotence/transaction hooks and the response. */
export interface ValidatedBatch {
  /** the bytes to append: one v2 batch, the received bytes unless Kafka would rebuild them */
  records: Buffer;
  recordCount: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  isControl: boolean;
  /** max record timestamp (CreateTime), as now stored in the batch header */
  maxTimestamp: number;
  compression: CompressionType;
  rebuilt: boolean;
}

const invalid = (msg: string) => new AppendError(ErrorCode.INVALID_RECORD, msg);
const corrupt = (msg: string) => new AppendError(ErrorCode.CORRUPT_MESSAGE, msg);

/** Position and size of the first complete entry, as MemoryRecords iterates (-1 if none). */
function firstEntry(buf: Buffer, pos: number): { pos: number; size: number; magic: number } | null {
  const avail = buf.length - pos;
  if (avail < L.LOG_OVERHEAD) return null;
  const len = readInt32(buf, pos + L.BATCH_LENGTH);
  if (len < L.LEGACY_RECORD_OVERHEAD_V0)
    throw corrupt(`Record size ${len} is less than the minimum record overhead (${L.LEGACY_RECORD_OVERHEAD_V0})`);
  if (avail < L.HEADER_SIZE_UP_TO_MAGIC) return null;
  const magic = buf.readInt8(pos + L.MAGIC);
  if (magic < 0 || magic > L.MAGIC_V2) throw corrupt(`Invalid magic found in record: ${magic}`);
  if (avail < len + L.LOG_OVERHEAD) return null;
  return { pos, size: len + L.LOG_OVERHEAD, magic };
}

/**
 * ProduceRequest.validateRecords for v3+: at least one batch, magic 2, no zstd before v7.
 * Returns the error for the partition, or null.
 */
export function checkProduceRecords(version: number, records: Buffer | null): AppendError | null {
  try {
    const first = records === null ? null : firstEntry(records, 0);
    if (first === null)
      return invalid(`Produce requests with version ${version} must have at least one record batch per partition`);
    if (first.magic !== L.MAGIC_V2)
      return invalid(
        `Produce requests with version ${version} are only allowed to contain record batches with magic version 2`,
      );
    const codec = records!.readInt16BE(first.pos + L.ATTRIBUTES) & L.COMPRESSION_CODEC_MASK;
    if (version < 7 && codec === CompressionType.Zstd) {
      return new AppendError(
        ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
        `Produce requests with version ${version} are not allowed to use ZStandard compression`,
      );
    }
    return null;
  } catch (e) {
    if (e instanceof AppendError) return e;
    throw e;
  }
}

/** Whether the first batch of a partition's records is transactional (RequestUtils.hasTransactionalRecords). */
export function isTransactionalRecords(records: Buffer | null): boolean {
  return (
    records !== null &&
    records.length >= L.RECORD_BATCH_OVERHEAD &&
    records[L.MAGIC] === L.MAGIC_V2 &&
    (records.readInt16BE(L.ATTRIBUTES) & L.TRANSACTIONAL_FLAG_MASK) !== 0
  );
}

function targetCodec(policy: AppendPolicy, source: CompressionType): CompressionType {
  switch (policy.compressionType) {
    case 'producer':
      return source;
    case 'uncompressed':
      return CompressionType.None;
    case 'gzip':
      return CompressionType.Gzip;
    case 'snappy':
      return CompressionType.Snappy;
    case 'lz4':
      return CompressionType.Lz4;
    case 'zstd':
      return CompressionType.Zstd;
    default:
      return source;
  }
}

interface WalkState {
  maxTimestamp: number;
  consecutive: boolean;
  errors: RecordErrorEntry[] | null;
  timestampError: boolean;
}

/** The walk's cursor: walkRecords runs to completion synchronously, so one serves every append. */
const cursor = new RecordCursor();

/** What LogValidator.validateRecord needs of the batch, and what the walk found so far. */
class RecordChecks {
  readonly st: WalkState = { maxTimestamp: L.NO_TIMESTAMP, consecutive: true, errors: null, timestampError: false };
  private readonly createTime: boolean;

  constructor(
    private readonly logAppendFlag: boolean,
    private readonly baseTimestamp: number,
    private readonly headerMaxTimestamp: number,
    private readonly policy: AppendPolicy,
    private readonly now: number,
    private readonly tp: string,
  ) {
    this.createTime = policy.timestampType === 'CreateTime';
  }

  /** LogValidator.validateRecord for record i (compacted topics need keys; CreateTime bounds; no LogAppendTime). */
  visit(i: number, offDelta: number, timestampDelta: number, keySize: number): void {
    const st = this.st;
    const policy = this.policy;
    const now = this.now;
    const timestamp = this.logAppendFlag ? this.headerMaxTimestamp : this.baseTimestamp + timestampDelta;
    if (timestamp > st.maxTimestamp) st.maxTimestamp = timestamp;
    if (offDelta !== i) st.consecutive = false;
    let err: string | null = null;
    if (policy.compacted && keySize < 0) {
      err = `Compacted topic cannot accept message without key in topic partition ${this.tp}`;
    } else if (this.createTime && timestamp !== L.NO_TIMESTAMP) {
      if (now - timestamp > policy.timestampBeforeMaxMs || timestamp - now > policy.timestampAfterMaxMs) {
        const lo = timestampBound(now, -1, policy.timestampBeforeMaxMs);
        const hi = timestampBound(now, 1, policy.timestampAfterMaxMs);
        err =
          `Timestamp ${timestamp} of message with offset ${offDelta} is out of range. ` +
          `The timestamp should be within [${lo}, ${hi}]`;
        st.timestampError = true;
      }
    } else if (this.logAppendFlag) {
      err = `Invalid timestamp type in message with offset ${offDelta}. Producer should not set timestamp type to LogAppendTime.`;
      st.timestampError = true;
    }
    if (err !== null) (st.errors ??= []).push({ batchIndex: i, message: err });
  }
}

/**
 * Walks the `count` v2 records of an uncompressed batch, data[start, end), with the records layer's
 * cursor (DefaultRecord.readFrom's framing checks). No allocation unless a record fails.
 */
function walkRecords(data: Uint8Array, start: number, end: number, count: number, checks: RecordChecks): WalkState {
  const c = cursor.reset(data, start, end, count);
  while (c.next()) checks.visit(c.index, c.offsetDelta, c.timestampDelta, c.keySize);
  if (c.position !== end) throw new CorruptRecordError(RECORDS_REMAINING);
  return checks.st;
}

/** Decompression memory of all produce validations in flight, across requests and partitions. */
export const PRODUCE_DECOMPRESSION_BUDGET = new DecompressionBudget(64 * 1024 * 1024);

/**
 * Walks the records of a compressed batch as Kafka 4.4's skipKeyValueIterator does: streamed from
 * the codec in bounded chunks (never the whole records section unless it is small), each record's
 * declared size checked against max.decompressed.message.bytes, keys and values skipped, and the
 * stream stopped at the first error or at the first byte after the declared count. Returns the
 * walk and the decompressed size. A codec failure is UNKNOWN_SERVER_ERROR (as Kafka answers it); a
 * decoded size tkafka refuses to hold (DecompressionLimitError) and malformed records are
 * INVALID_RECORD.
 */
async function walkCompressedRecords(
  batch: Buffer,
  codec: CompressionType,
  count: number,
  checks: RecordChecks,
  maxRecordSize: number,
  tp: string,
): Promise<{ st: WalkState; decompressedBytes: number }> {
  const walker = new RecordStreamWalker(count, maxRecordSize, (w) =>
    checks.visit(w.index, w.offsetDelta, w.timestampDelta, w.keySize),
  );
  const data = batch.subarray(L.RECORD_BATCH_OVERHEAD);
  const opts = { magic: L.MAGIC_V2, budget: PRODUCE_DECOMPRESSION_BUDGET };
  // Kafka: the codec's IOException becomes a KafkaException, which ReplicaManager answers with
  // UNKNOWN_SERVER_ERROR (not one of its known append exceptions)
  const failedToDecompress = (e: unknown): AppendError =>
    e instanceof DecompressionLimitError
      ? invalid(`${e.message} in topic partition ${tp}`)
      : new AppendError(
          ErrorCode.UNKNOWN_SERVER_ERROR,
          `Failed to decompress the ${compressionTypeName(codec)} record batch in topic partition ${tp}: ${(e as Error).message}`,
        );
  // the common batch: decoded in one call, then walked
  let whole: Buffer | null;
  try {
    whole = await decompressIfSmall(codec, data, opts);
  } catch (e) {
    throw failedToDecompress(e);
  }
  if (whole !== null) {
    walker.push(whole);
    walker.finish();
    return { st: checks.st, decompressedBytes: walker.bytesRead };
  }
  const chunks = decompressChunks(codec, data, opts);
  for (;;) {
    let next: IteratorResult<Buffer, void>;
    try {
      next = await chunks.next();
    } catch (e) {
      throw failedToDecompress(e);
    }
    if (next.done === true) break;
    try {
      walker.push(next.value);
    } catch (e) {
      await chunks.return();
      throw e;
    }
  }
  walker.finish();
  return { st: checks.st, decompressedBytes: walker.bytesRead };
}

/** LogValidator.processRecordErrors. */
function recordErrorsToException(st: WalkState): AppendError {
  const errors = st.errors!;
  if (st.timestampError)
    return new AppendError(
      ErrorCode.INVALID_TIMESTAMP,
      'One or more records have been rejected due to invalid timestamp',
      errors,
    );
  const shown = errors
    .slice(0, 3)
    .map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`)
    .join(', ');
  return new AppendError(
    ErrorCode.INVALID_RECORD,
    `One or more records have been rejected due to ${errors.length} record errors in total, and only showing the first three errors at most: [${shown}]`,
    errors,
  );
}

/**
 * Validates the records of one partition of a produce request as the leader's log would, and
 * returns the batch to append (or null when there is nothing to append). Throws AppendError.
 * Kafka's order: every batch's base offset, size and CRC first; then "one batch only"; then the
 * header checks (offset range, count, control, sequence); then the records.
 */
export async function validateRecordsForAppend(
  records: Buffer,
  tp: string,
  policy: AppendPolicy,
  now: number,
  origin: AppendOrigin,
): Promise<ValidatedBatch | null> {
  let pos = 0;
  let batches = 0;
  let first: { pos: number; size: number; magic: number } | null = null;
  for (;;) {
    const e = firstEntry(records, pos);
    if (e === null) break;
    if (e.magic !== L.MAGIC_V2)
      throw invalid(
        `Batch magic ${e.magic} is not supported by this broker; producers must send magic 2 record batches in topic partition ${tp}`,
      );
    if (origin === 'client' && readInt64(records, pos + L.BASE_OFFSET) !== 0) {
      throw invalid(
        `The baseOffset of the record batch in the append to ${tp} should be 0, but it is ${readInt64(records, pos + L.BASE_OFFSET)}`,
      );
    }
    if (e.size > policy.maxMessageBytes) {
      throw new AppendError(
        ErrorCode.MESSAGE_TOO_LARGE,
        `The record batch size in the append to ${tp} is ${e.size} bytes which exceeds the maximum configured value of ${policy.maxMessageBytes}.`,
      );
    }
    if (
      e.size < L.RECORD_BATCH_OVERHEAD ||
      crc32c(records, pos + L.ATTRIBUTES, pos + e.size) !== readInt32(records, pos + L.CRC) >>> 0
    ) {
      throw corrupt(
        `Record is corrupt (stored crc = ${e.size >= L.RECORD_BATCH_OVERHEAD ? readInt32(records, pos + L.CRC) >>> 0 : 0}) in topic partition ${tp}.`,
      );
    }
    first ??= e;
    batches++;
    pos += e.size;
  }
  if (first === null) return null;
  if (batches > 1) throw invalid('Compressed outer record has more than one batch');

  const b = first.pos;
  const batch = records.subarray(b, b + first.size);
  const attributes = readInt16(batch, L.ATTRIBUTES);
  const lastOffsetDelta = readInt32(batch, L.LAST_OFFSET_DELTA);
  const count = readInt32(batch, L.RECORDS_COUNT);
  const producerId = readInt64(batch, L.PRODUCER_ID);
  const baseSequence = readInt32(batch, L.BASE_SEQUENCE);
  const isControl = (attributes & L.CONTROL_FLAG_MASK) !== 0;
  if (origin === 'client') {
    const countFromOffsets = lastOffsetDelta + 1;
    if (countFromOffsets <= 0)
      throw invalid(`Batch has an invalid offset range: [0, ${lastOffsetDelta}] in topic partition ${tp}`);
    if (count <= 0) throw invalid(`Invalid reported count for record batch: ${count} in topic partition ${tp}`);
    if (countFromOffsets !== count)
      throw invalid(
        `Inconsistent batch offset range [0, ${lastOffsetDelta}] and count of records ${count} in topic partition ${tp}`,
      );
    if (isControl) throw invalid(`Clients are not allowed to write control records in topic partition ${tp}`);
    if (producerId >= 0 && baseSequence < 0)
      throw invalid(
        `Invalid sequence number ${baseSequence} in record batch with producerId ${producerId} in topic partition ${tp}`,
      );
  }

  const source = (attributes & L.COMPRESSION_CODEC_MASK) as CompressionType;
  if (source > CompressionType.Zstd) throw corrupt(`Unknown compression type id ${source} in topic partition ${tp}`);
  const target = targetCodec(policy, source);
  let inPlace = source === target || (source === CompressionType.None && isControl);
  const logAppendFlag = (attributes & L.TIMESTAMP_TYPE_MASK) !== 0;
  const baseTimestamp = readInt64(batch, L.BASE_TIMESTAMP);
  const headerMax = readInt64(batch, L.MAX_TIMESTAMP);
  const checks = new RecordChecks(logAppendFlag, baseTimestamp, headerMax, policy, now, tp);
  let st: WalkState;
  let decompressedBytes = 0;
  try {
    if (source === CompressionType.None) {
      st = walkRecords(batch, L.RECORD_BATCH_OVERHEAD, batch.length, count, checks);
    } else {
      ({ st, decompressedBytes } = await walkCompressedRecords(
        batch,
        source,
        count,
        checks,
        policy.maxDecompressedMessageBytes,
        tp,
      ));
      if (!st.consecutive) inPlace = false;
    }
  } catch (e) {
    if (e instanceof CorruptRecordError) throw invalid(`${e.message} in topic partition ${tp}`);
    throw e;
  }
  if (st.errors !== null) throw recordErrorsToException(st);

  const info: ValidatedBatch = {
    records: batch,
    recordCount: count,
    producerId,
    producerEpoch: readInt16(batch, L.PRODUCER_EPOCH),
    baseSequence,
    isTransactional: (attributes & L.TRANSACTIONAL_FLAG_MASK) !== 0,
    isControl,
    maxTimestamp: st.maxTimestamp,
    compression: source,
    rebuilt: false,
  };
  if (inPlace) {
    // the log stamps LogAppendTime itself; under CreateTime the header must carry the records' max
    if (policy.timestampType === 'CreateTime') setMaxTimestamp(batch, 0, TimestampType.CreateTime, st.maxTimestamp);
    return info;
  }
  const rebuilt = await rebuildBatch(batch, target, policy, decompressedBytes);
  if (rebuilt.length > policy.maxMessageBytes) {
    throw new AppendError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `Message batch size is ${rebuilt.length} bytes in append to partition ${tp} which exceeds the maximum configured size of ${policy.maxMessageBytes}.`,
    );
  }
  return { ...info, records: rebuilt, compression: target, rebuilt: true };
}

/**
 * LogValidator.buildRecordsAndAssignOffsets: the records re-encoded in one batch with the target
 * codec, consecutive offset deltas, the producer fields kept. Only for topics whose
 * compression.type differs from the producer's codec (or broken inner offsets): not a hot path.
 */
async function rebuildBatch(
  batch: Buffer,
  target: CompressionType,
  policy: AppendPolicy,
  decompressedBytes: number,
): Promise<Buffer> {
  // the records are held whole here (as Kafka's validatedRecords): their decoded size is known from
  // the walk and taken from the budget (all of it when larger) while the batch is rebuilt
  const release = await PRODUCE_DECOMPRESSION_BUDGET.acquire(2 * decompressedBytes);
  try {
    return await rebuildRecords(batch, target, policy, decompressedBytes);
  } finally {
    release();
  }
}

async function rebuildRecords(
  batch: Buffer,
  target: CompressionType,
  policy: AppendPolicy,
  decompressedBytes: number,
): Promise<Buffer> {
  if (decompressedBytes > DEFAULT_MAX_WHOLE_SIZE)
    throw invalid(
      `The decompressed size ${decompressedBytes} of the record batch exceeds ${DEFAULT_MAX_WHOLE_SIZE} bytes, the most tkafka re-encodes (compression.type ${policy.compressionType})`,
    );
  const decoded = await decodeBatch(batch, 0, { verifyCrc: false, maxDecompressedSize: DEFAULT_MAX_WHOLE_SIZE });
  return buildRecordBatch({
    baseOffset: 0,
    records: decoded.records.map((r, i) => ({
      key: r.key,
      value: r.value,
      headers: r.headers,
      timestamp: r.timestamp,
      offsetDelta: i,
    })),
    compression: target,
    compressionLevel: policy.compressionLevel,
    producerId: decoded.producerId,
    producerEpoch: decoded.producerEpoch,
    baseSequence: decoded.baseSequence,
    transactional: decoded.isTransactional,
    isControl: decoded.isControl,
    timestampType: TimestampType.CreateTime,
  });
}
