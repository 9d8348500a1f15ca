// Public surface of the Raft layer.
export * from './types.js';
export { silentLogger, type Logger } from './logger.js';
export { RaftClient, type RaftClientOptions } from './raft-client.js';
export { MetadataLog, LEADER_EPOCH_CHECKPOINT, PARTITION_METADATA_FILE } from './metadata-log.js';
export { RaftChannel, type RaftChannelOptions, type RaftTarget, type HostPort } from './channel.js';
export { ReplicaProgress, OBSERVER_SESSION_TIMEOUT_MS, type ReplicaKey } from './replica-progress.js';
export {
  LeaderFetch,
  serveFetch,
  serveFetchSnapshot,
  validateLeaderOnlyRequest,
  endOffsetForEpoch,
  lastFetchedEpoch,
  type RaftStateView,
  type LeaderFetchOptions,
} from './leader-fetch.js';
export { FollowerFetcher, type FollowerFetcherOptions, type LeaderHint } from './follower-fetcher.js';
export { ObserverQuorum, type ObserverQuorumOptions } from './observer.js';
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
