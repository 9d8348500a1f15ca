// Record batch, magic v2 (Kafka's DefaultRecordBatch / DefaultRecord): header access, CRC-32C
// validation, batch iteration over a buffer (any magic), record decoding and encoding, control
// records, and the in-place rewrites the broker performs on append.
//
// Number types: offsets, timestamps, epochs and sequences are JS `number`s (int64 fields are read
// as hi * 2^32 + lo, exact below 2^53 — always true for real offsets and millisecond timestamps;
// larger values lose precision when decoded but are never rewritten unless a setter is called).
// The producer id is a `bigint`, matching the wire codec's int64 type.
//
// Validation (validateBatch, verifyBatchCrc, validateRecords, BatchIterator) never allocates
// beyond a subarray view for the CRC and never trusts a length before checking it against the
// bytes available. Decoding allocates only the objects it returns; keys/values are views into
// the input (or into the decompressed buffer) unless `copy` is requested.
//
// This module is the entry point; the code lives in batch-types.ts (types), batch-header.ts
// (header, CRC, in-place setters), batch-iterate.ts (BatchIterator), batch-records.ts (record
// decoding and validation, control records), record-cursor.ts (zero-copy record iteration),
// batch-stored.ts (the shallow header view of a batch in a segment file, and its validity check),
// batch-retain.ts (per-record views and retained-record rebuilds for compaction) and batch-build.ts
// (encoding, markers).

export { DecompressionLimitError } from './compression.js';
export { CorruptRecordError } from './layout.js';

export {
  ControlRecordType,
  type RecordHeader,
  type ControlRecordInfo,
  type KafkaRecord,
  type RecordBatchHeader,
  type RecordBatch,
  type RecordInput,
  type BuildBatchOptions,
  type DecodeOptions,
} from './batch-types.js';
export {
  type ExactBatchHeader,
  readBatchHeaderExact,
  readBatchHeader,
  computeBatchCrc,
  verifyBatchCrc,
  writeBatchCrc,
  validateBatch,
  setBaseOffset,
  setPartitionLeaderEpoch,
  setMaxTimestamp,
  setLogAppendTime,
} from './batch-header.js';
export {
  type BatchEntry,
  type PartialBatch,
  type IterateOptions,
  verifyLegacyCrc,
  BatchIterator,
  iterateBatches,
} from './batch-iterate.js';
export { validateRecords, decodeRecords, parseControlRecord, decodeBatch, decodeBatchSync } from './batch-records.js';
export {
  RecordCursor,
  INVALID_RECORD_STRUCTURE,
  RECORDS_REMAINING,
  PREMATURE_EOF,
  incrementSequence,
  view,
} from './record-cursor.js';
export {
  type StoredBatch,
  isControlBatch,
  isTransactional,
  hasDeleteHorizon,
  isLogAppendTime,
  parseBatchHeader,
  storedBatchSize,
  storedBatchLastOffset,
  ensureValidBatch,
} from './batch-stored.js';
export {
  type RecordView,
  type RebuildOptions,
  recordsPayload,
  readRecordViews,
  offsetOfMaxTimestamp,
  controlRecordTypeOf,
  rebuildRetained,
  emptyBatchOf,
} from './batch-retain.js';
export {
  buildRecordBatchSync,
  buildRecordBatch,
  controlRecordKey,
  endTxnMarkerValue,
  type EndTxnMarkerOptions,
  buildEndTxnMarker,
} from './batch-build.js';
