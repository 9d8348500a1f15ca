// Public surface of the Raft layer.
export * from './types.js';
export { SingleVoterQuorum, silentLogger, type Logger, type SingleVoterQuorumOptions } from './single-voter.js';
export { MetadataLog, LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA_FILE } from './metadata-log.js';
export {
  QUORUM_STATE_FILE,
  readQuorumState,
  formatQuorumState,
  parseQuorumState,
  type ElectionState,
} from '../../storage/quorum-state.js';
export { listSnapshots, readSnapshotFile, snapshotFileName, encodeSnapshot } from '../../storage/snapshot-file.js';
export {
  decodeMetadataBatch,
  buildDataBatch,
  buildControlBatch,
  type MetadataBatch,
  type ControlRecord,
} from '../../protocol/records/metadata-batches.js';
