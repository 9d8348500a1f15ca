// Shapes shared by the replica manager, the delayed operations, fetch sessions and the handlers.
// Offsets are JS numbers (exact below 2^53); handlers convert to the codec's bigint at the edge.

import type { PartitionLog } from '../log/partition-log.js';
import type { AppendOrigin, RecordErrorEntry, ValidatedBatch } from './record-validator.js';
import type { ClientMetadata } from './replica-selector.js';
import type { DeferredBytes } from '../../protocol/codec/types.js';

export const CONSUMER_REPLICA_ID = -1;
export const DEBUGGING_REPLICA_ID = -2;
export const READ_UNCOMMITTED = 0;
export const READ_COMMITTED = 1;

/** Request-level fetch parameters (Kafka's FetchParams). */
export interface FetchParams {
  /** fetch version (decides hardMaxBytesLimit and error down-conversion) */
  version: number;
  /** -1 for consumers; a broker id for followers */
  replicaId: number;
  /** the follower's broker epoch (Fetch v15+ ReplicaState.replicaEpoch); -1 or absent when not sent */
  replicaEpoch?: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  isolationLevel: number;
  /** client rack (v11+) */
  rackId?: string;
  /** KIP-392: a v11+ consumer fetch's client (rack, id, address, listener); absent before v11 */
  clientMetadata?: ClientMetadata;
  /**
   * The Fetch API's own read: records of a read_uncommitted fetch may stay in the file, read as the
   * response is written (Kafka sends FileRecords with transferTo). Share fetches and read_committed
   * fetches (whose aborted transactions need the batches' offsets) read into memory.
   */
  lazyRecords?: boolean;
}

export const isFromFollower = (p: FetchParams): boolean => p.replicaId >= 0;

/** FetchParams.fetchOnlyLeader: followers, and consumers without client metadata (Fetch < v11), read the leader only. */
export const fetchOnlyLeader = (p: FetchParams): boolean => isFromFollower(p) || p.clientMetadata === undefined;

/** One partition to read (Kafka's FetchRequest.PartitionData plus its topic). */
export interface FetchPartitionRequest {
  topic: string;
  topicId: string;
  partition: number;
  fetchOffset: number;
  /** the fetcher's log start offset (followers), -1 for consumers */
  logStartOffset: number;
  maxBytes: number;
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
}

/** What a fetch returns for one partition (FetchResponseData.PartitionData, numbers). */
export interface FetchPartitionResult {
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /**
   * the bytes the log read, sent as they are (may end in a partial batch); empty when none. With
   * FetchParams.lazyRecords, the file range still to be read as the response is written.
   */
  records: Buffer | DeferredBytes;
  /** aborted transactions in the returned range: null unless READ_COMMITTED */
  abortedTransactions: { producerId: number; firstOffset: number }[] | null;
  preferredReadReplica: number;
  /** set when the follower's last fetched epoch diverges from the leader's log */
  divergingEpoch?: { epoch: number; endOffset: number };
}

export const EMPTY_RECORDS: Buffer = Buffer.alloc(0);

export const recordsSize = (r: FetchPartitionResult): number => r.records.length;

/** The records of a result read into memory (every read but the Fetch API's lazy one). */
export function recordsInMemory(r: FetchPartitionResult): Buffer {
  if (!Buffer.isBuffer(r.records)) throw new Error('a fetch result read lazily was used as bytes in memory');
  return r.records;
}

export function errorFetchResult(errorCode: number): FetchPartitionResult {
  return {
    errorCode,
    highWatermark: -1,
    lastStableOffset: -1,
    logStartOffset: -1,
    records: EMPTY_RECORDS,
    abortedTransactions: null,
    preferredReadReplica: -1,
  };
}

/** Leader hint for NOT_LEADER_OR_FOLLOWER answers (KIP-951). */
export interface LeaderHint {
  leaderId: number;
  leaderEpoch: number;
  endpoint?: { nodeId: number; host: string; port: number; rack: string | null };
}

/** Outcome of looking a partition up for a leader-only operation. */
export type PartitionLookup<P> = { ok: true; partition: P } | { ok: false; errorCode: number; leader?: LeaderHint };

/** What the replica manager reads from the broker configuration (ServerConfig satisfies it). */
export interface BrokerConfigLike {
  readonly originals: ReadonlyMap<string, string> | Readonly<Record<string, string>>;
  getInt?(name: string): number;
  getString?(name: string): string | null | undefined;
}

export interface ReplicaLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

/** The partition a produced batch goes to, as the producer-state hook sees it (Partition is one). */
export interface ProducerBatchPartition {
  readonly topic: string;
  readonly index: number;
  readonly log: PartitionLog;
}

/** A produced batch as the idempotence/transaction layer sees it. */
export interface ProducerBatch {
  partition: ProducerBatchPartition;
  batch: ValidatedBatch;
  transactionalId: string | null;
  origin: AppendOrigin;
  /** how transaction verification may act and report (from the produce request version) */
  transactionSupportedOperation?: TransactionSupportedOperation;
}

/**
 * AddPartitionsToTxnManager's TransactionSupportedOperation: Produce v<11 / TxnOffsetCommit v<4
 * (defaultError: TRANSACTION_ABORTABLE is reported as INVALID_TXN_STATE), Produce v11 /
 * TxnOffsetCommit v4 (genericErrorSupported), Produce v12+ / TxnOffsetCommit v5+ (addPartition:
 * the partition is added to the transaction, transactions V2).
 */
export type TransactionSupportedOperation = 'defaultError' | 'genericErrorSupported' | 'addPartition';

export type ProducerVerdict =
  | { kind: 'append' }
  /** a retried batch already in the log: answer with its original offsets, append nothing */
  | { kind: 'duplicate'; baseOffset: number; logAppendTime: number }
  | { kind: 'error'; errorCode: number; message: string };

/**
 * Hook for idempotent and transactional producers (producer id / epoch / sequence checks, the
 * transaction verification guard). Both calls run inside the partition's append queue, so a check
 * and the append it allows are atomic with respect to other appends to the partition.
 */
export interface ProducerStateHook {
  beforeAppend(b: ProducerBatch): ProducerVerdict | Promise<ProducerVerdict>;
  afterAppend(b: ProducerBatch, firstOffset: number, lastOffset: number, appendTimeMs: number): void | Promise<void>;
}

export interface AppendOptions {
  /** -1 (all in-sync replicas), 0 (none: the caller sends no response), 1 (leader) */
  acks: number;
  timeoutMs: number;
  origin?: AppendOrigin;
  transactionalId?: string | null;
  transactionSupportedOperation?: TransactionSupportedOperation;
  /** whether internal topics may be written (Kafka: only the admin client and coordinators) */
  internalTopicsAllowed?: boolean;
  connectionId?: string;
}

export interface AppendResult {
  errorCode: number;
  /** only for record validation failures, as Kafka */
  errorMessage: string | null;
  baseOffset: number;
  logAppendTime: number;
  logStartOffset: number;
  recordErrors: readonly RecordErrorEntry[];
  leader?: LeaderHint;
  /** for logs: why the append failed */
  detail?: string;
}

export interface EnsurePartitionOptions {
  replicas?: readonly number[];
  isr?: readonly number[];
  /** the leader per metadata (default: this broker); another broker makes this a follower */
  leaderId?: number;
  partitionEpoch?: number;
}
