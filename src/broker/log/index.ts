// Public surface of the partition-log layer.
export * from './log-config.js';
export * from './log-errors.js';
export { LeaderEpochCache, LEADER_EPOCH_CHECKPOINT_FILE, type EpochEntry } from './leader-epoch.js';
export {
  PartitionLog,
  type AppendResult,
  type PartitionLogOptions,
  type ReadOptions,
  type ReadResult,
  EARLIEST_LOCAL_TIMESTAMP,
  EARLIEST_TIMESTAMP,
  LATEST_TIERED_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type TimestampAndOffset,
} from './partition-log.js';
export { LogManager, logDeleteDirName, parseTopicPartitionDirName, type LogManagerOptions } from './log-manager.js';
export {
  cleanLog,
  logToClean,
  shouldClean,
  type CleanResult,
  type CleanerOptions,
  type CleanerStats,
  type LogToClean,
} from './cleaner.js';
export { LogSegment } from './segment.js';
export { OffsetIndex } from '../../storage/offset-index.js';
export { TimeIndex } from '../../storage/time-index.js';
export { SerialQueue } from './serial-queue.js';
