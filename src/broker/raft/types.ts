// The Raft quorum behind the metadata log, as the controller and the metadata loader see it
// (Kafka's RaftClient + RaftClient.Listener). RaftClient (raft-client.ts) implements it for the
// voters of any quorum, one voter included; ObserverQuorum (observer.ts) for a broker-only node.
//
// Offsets are JS numbers (exact below 2^53). The high watermark uses Kafka's meaning: the offset
// *after* the last committed record (all offsets < highWatermark are committed).

import type { MetadataRecord } from '../../protocol/metadata-records.js';

export const METADATA_TOPIC_NAME = '__cluster_metadata';
export const METADATA_PARTITION = 0;
/** Uuid.METADATA_TOPIC_ID (uuid 0…01). */
export const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
export const METADATA_PARTITION_DIR = `${METADATA_TOPIC_NAME}-${METADATA_PARTITION}`;

export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

export interface LeaderAndEpoch {
  /** -1 when unknown. */
  readonly leaderId: number;
  readonly epoch: number;
}

/** A committed batch of metadata records (control batches are not delivered as batches). */
export interface CommittedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  /** Leader epoch that wrote the batch. */
  readonly epoch: number;
  /** The batch's append time (CreateTime of the batch, ms). */
  readonly appendTimestamp: number;
  readonly sizeInBytes: number;
  readonly records: readonly MetadataRecord[];
}

/** A metadata snapshot: id.offset = end offset (exclusive), id.epoch = epoch of its last record. */
export interface SnapshotData {
  readonly id: OffsetAndEpoch;
  readonly lastContainedLogTimestamp: number;
  readonly records: readonly MetadataRecord[];
}

export interface RaftListener {
  /** A snapshot replaces everything applied so far (delivered before the log tail that follows it). */
  handleLoadSnapshot?(snapshot: SnapshotData): void;
  /** Committed batches, in offset order. Called synchronously, before the append that wrote them resolves. */
  handleCommit(batch: CommittedBatch): void;
  handleLeaderChange?(leader: LeaderAndEpoch): void;
}

export interface RaftEndpoint {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

export interface VoterInfo {
  readonly id: number;
  readonly directoryId: string;
  readonly endpoints: readonly RaftEndpoint[];
}

/** One row of DescribeQuorum's CurrentVoters/Observers. */
export interface ReplicaDescription {
  readonly replicaId: number;
  readonly replicaDirectoryId: string;
  readonly logEndOffset: number;
  /** -1 if unknown. */
  readonly lastFetchTimestamp: number;
  /** -1 if unknown. */
  readonly lastCaughtUpTimestamp: number;
}

/** What DescribeQuorum returns for the metadata partition. */
export interface QuorumDescription {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: number;
  readonly currentVoters: readonly ReplicaDescription[];
  readonly observers: readonly ReplicaDescription[];
  readonly nodes: readonly { readonly nodeId: number; readonly listeners: readonly RaftEndpoint[] }[];
}

/** One Fetch of `__cluster_metadata`-0 from a replica (the partition of a raft Fetch request). */
export interface RaftFetchRequest {
  /** -1 for a consumer-like fetcher (not tracked). */
  readonly replicaId: number;
  /** ZERO_UUID when the fetcher does not send one (Fetch < v17). */
  readonly replicaDirectoryId: string;
  readonly currentLeaderEpoch: number;
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
  readonly maxBytes: number;
  readonly maxWaitMs: number;
  /** The fetcher's high watermark (Fetch v18, KIP-1166); -1 when unknown. */
  readonly highWatermark: number;
}

/** The partition answer to a raft Fetch (KafkaRaftClient.buildFetchResponse). */
export interface RaftFetchResult {
  readonly errorCode: number;
  /** -1 when unknown. */
  readonly leaderId: number;
  readonly leaderEpoch: number;
  /** -1 when not the leader or unknown. */
  readonly highWatermark: number;
  readonly logStartOffset: number;
  /** Whole record batches as stored, starting with the one holding fetchOffset. */
  readonly records: readonly Buffer[];
  readonly divergingEpoch: OffsetAndEpoch | null;
  readonly snapshotId: OffsetAndEpoch | null;
  /** The leader's controller-listener endpoints (NodeEndpoints, Fetch v17+). */
  readonly leaderEndpoints: readonly RaftEndpoint[];
}

export interface RaftFetchSnapshotRequest {
  readonly replicaId: number;
  readonly replicaDirectoryId: string;
  readonly currentLeaderEpoch: number;
  readonly snapshotId: OffsetAndEpoch;
  readonly position: number;
  readonly maxBytes: number;
}

export interface RaftFetchSnapshotResult {
  readonly errorCode: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly snapshotId: OffsetAndEpoch | null;
  /** Total size of the snapshot file; 0 on error. */
  readonly size: number;
  readonly position: number;
  readonly bytes: Buffer | null;
  readonly leaderEndpoints: readonly RaftEndpoint[];
}

/**
 * The replica side of Fetch/FetchSnapshot on the controller listener, implemented by whatever runs
 * the quorum on this node (KafkaRaftClient.handleFetchRequest / handleFetchSnapshotRequest). The
 * cluster id and topic-partition checks are the handler's; everything else is here.
 */
export interface RaftFetchServer {
  handleFetch(req: RaftFetchRequest): Promise<RaftFetchResult>;
  handleFetchSnapshot(req: RaftFetchSnapshotRequest): Promise<RaftFetchSnapshotResult>;
}

// KIP-853 voter changes (AddRaftVoter, RemoveRaftVoter, UpdateRaftVoter) as the handlers see them.

export interface ChangeResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface UpdateVoterResult {
  readonly errorCode: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  /** The leader's endpoint on the request's listener; null when unknown. */
  readonly leaderEndpoint: { host: string; port: number } | null;
}

export interface AddVoterRequest {
  readonly voterId: number;
  readonly voterDirectoryId: string;
  readonly listeners: readonly RaftEndpoint[];
  readonly ackWhenCommitted: boolean;
}

export interface RemoveVoterRequest {
  readonly voterId: number;
  readonly voterDirectoryId: string;
}

export interface UpdateVoterRequest {
  readonly currentLeaderEpoch: number;
  readonly voterId: number;
  readonly voterDirectoryId: string;
  readonly listeners: readonly RaftEndpoint[];
  readonly kraftVersion: { readonly min: number; readonly max: number };
  /** The listener the request arrived on (for CurrentLeader's endpoint). */
  readonly requestListener: string;
}

/** KIP-853 voter changes as the API handlers call them (Quorum.voterChanges; raft/voter-changes.ts). */
export interface VoterChangeServer {
  addVoter(req: AddVoterRequest): Promise<ChangeResult>;
  removeVoter(req: RemoveVoterRequest): Promise<ChangeResult>;
  updateVoter(req: UpdateVoterRequest): Promise<UpdateVoterResult>;
}

export interface Quorum {
  readonly nodeId: number;
  readonly leaderAndEpoch: LeaderAndEpoch;
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly voters: readonly VoterInfo[];
  /** Offset after the last committed record; -1 before the first commit of this leader. */
  readonly highWatermark: number;
  /** Offset the next appended record will get. */
  readonly logEndOffset: number;
  /** kraft.version in effect (0 static quorum, 1 dynamic quorum). */
  readonly kraftVersion: number;
  isLeader(): boolean;
  /** Adds a listener; must be called before start() to see the initial snapshot and log. */
  register(listener: RaftListener): () => void;
  /** Convenience: only committed batches. */
  onCommit(listener: (batch: CommittedBatch) => void): () => void;
  /** Loads the latest snapshot and log, elects itself leader (single voter), delivers everything committed. */
  start(): Promise<void>;
  /**
   * Appends records as one atomic batch in the current epoch. Resolves with the offset of the
   * last record once it is committed (durable on a majority) and listeners have seen it.
   */
  append(records: readonly MetadataRecord[]): Promise<number>;
  /** DescribeQuorum data (leader only). */
  describe(): QuorumDescription;
  latestSnapshotId(): OffsetAndEpoch | null;
  /** Writes a snapshot file for the given id (id.offset <= highWatermark). */
  createSnapshot(snapshot: SnapshotData): Promise<void>;
  /** Graceful shutdown: stops accepting appends, flushes, closes files. */
  close(): Promise<void>;
  /** Serves raft Fetch/FetchSnapshot from other replicas (absent: this node does not serve them). */
  readonly fetchServer?: RaftFetchServer;
  /**
   * KIP-853 voter changes led by this node (raft/voter-changes.ts VoterChanges over the leader's
   * state). Absent: the API handlers answer from the voter set this interface shows, and refuse a
   * change they cannot write (voter-changes.ts fixedVoterSetLeader).
   */
  readonly voterChanges?: VoterChangeServer;
}
