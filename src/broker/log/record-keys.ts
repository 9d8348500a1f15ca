// The log layer's names for the records layer's per-record access and retained-record rebuilding
// (src/protocol/records/batch-retain.ts): a BatchInfo from a segment scan is a StoredBatchHeader.
export {
  readRecordViews as readRecords,
  offsetOfMaxTimestamp,
  controlRecordTypeOf as controlRecordType,
  rebuildRetained as rebuildBatch,
  emptyBatchOf as emptyBatch,
  recordsPayload,
  type RecordView,
  type RebuildOptions,
} from '../../protocol/records/batch-retain.js';
