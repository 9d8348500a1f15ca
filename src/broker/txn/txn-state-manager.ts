// The transaction coordinator's state (Kafka's TransactionStateManager): the metadata of every
// transactional id whose __transaction_state partition this node leads, loaded from the partition
// when it becomes leader (coordinator epoch = its leader epoch), written back with acks=all before
// a transition completes, and removed when leadership goes. Also: which transactions timed out,
// which transactional ids expired, and ListTransactions.

import { RE2JS, RE2JSException } from 're2js';
import { ErrorCode } from '../../protocol/errors.js';
import { decodeBatch, iterateBatches } from '../../protocol/records/batch.js';
import { decodeKey, decodeValue, encodeKey, encodeValue, partitionFor } from './txn-log.js';
import { stateFromName, stateName, type TransactionMetadata, type TxnTransit, TxnState } from './txn-metadata.js';
import { SampledStat } from '../metrics/sampled.js';

/** How the state manager reaches __transaction_state (implemented over the ReplicaManager). */
export interface TxnLogIO {
  /** Appends one batch of records to a partition; resolves with the append's error code. */
  append(partition: number, records: { key: Buffer; value: Buffer | null }[]): Promise<number>;
  /** Reads the whole partition in order; throws when the partition is not led here. */
  read(partition: number, onRecord: (key: Buffer, value: Buffer | null) => void): Promise<void>;
}

export interface CoordinatorEpochAndMetadata {
  coordinatorEpoch: number;
  metadata: TransactionMetadata;
}

export type GetStateResult = { errorCode: number } | { errorCode: 0; entry: CoordinatorEpochAndMetadata | undefined };

interface PartitionCache {
  coordinatorEpoch: number;
  txns: Map<string, TransactionMetadata>;
}

export interface TxnStateManagerOptions {
  io: TxnLogIO;
  numPartitions: number;
  /** transaction.max.timeout.ms */
  maxTimeoutMs: number;
  /** transactional.id.expiration.ms */
  idExpirationMs: number;
  /** __transaction_state value version (1 when transaction.version >= 1) */
  valueVersion: () => number;
  clock: () => number;
  logger: (level: string, msg: string) => void;
}

/** Kafka's mapping of append errors to what the coordinator answers. */
function mapAppendError(code: number): number {
  switch (code) {
    case ErrorCode.NONE:
      return ErrorCode.NONE;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

export class TransactionStateManager {
  private readonly owned = new Map<number, PartitionCache>();
  private readonly loading = new Map<number, number>(); // partition → epoch being loaded
  /** transaction-coordinator-metrics partition-load-time-avg/max: ms per completed partition load. */
  readonly partitionLoadTimes = new SampledStat();

  constructor(readonly opts: TxnStateManagerOptions) {}

  partitionFor(transactionalId: string): number {
    return partitionFor(transactionalId, this.opts.numPartitions);
  }

  validateTransactionTimeoutMs(timeoutMs: number): boolean {
    return timeoutMs <= this.opts.maxTimeoutMs && timeoutMs > 0;
  }

  get isLoading(): boolean {
    return this.loading.size > 0;
  }

  ownedPartitions(): number[] {
    return [...this.owned.keys()];
  }

  coordinatorEpochOf(partition: number): number | undefined {
    return this.owned.get(partition)?.coordinatorEpoch;
  }

  /** TransactionStateManager.getTransactionState: the metadata, or NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS. */
  getTransactionState(transactionalId: string): GetStateResult {
    const p = this.partitionFor(transactionalId);
    if (this.loading.has(p)) return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS };
    const cache = this.owned.get(p);
    if (!cache) return { errorCode: ErrorCode.NOT_COORDINATOR };
    const m = cache.txns.get(transactionalId);
    return { errorCode: 0, entry: m ? { coordinatorEpoch: cache.coordinatorEpoch, metadata: m } : undefined };
  }

  /** Adds metadata for a new transactional id unless one appeared meanwhile (then that one wins). */
  putTransactionStateIfNotExists(m: TransactionMetadata): GetStateResult {
    const p = this.partitionFor(m.transactionalId);
    if (this.loading.has(p)) return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS };
    const cache = this.owned.get(p);
    if (!cache) return { errorCode: ErrorCode.NOT_COORDINATOR };
    const existing = cache.txns.get(m.transactionalId);
    if (existing) return { errorCode: 0, entry: { coordinatorEpoch: cache.coordinatorEpoch, metadata: existing } };
    cache.txns.set(m.transactionalId, m);
    return { errorCode: 0, entry: { coordinatorEpoch: cache.coordinatorEpoch, metadata: m } };
  }

  /**
   * Writes a prepared transition (acks=all) and completes it when the write succeeded and this node
   * is still the coordinator at the same epoch; otherwise abandons it. Resolves with the error code
   * for the client (TransactionStateManager.appendTransactionToLog).
   */
  async appendTransactionToLog(
    transactionalId: string,
    coordinatorEpoch: number,
    t: TxnTransit,
    retryOnError: (code: number) => boolean = () => false,
  ): Promise<number> {
    const p = this.partitionFor(transactionalId);
    const value = t.txnState === TxnState.Dead ? null : encodeValue(t, this.opts.valueVersion());
    let code: number;
    const before = this.owned.get(p);
    if (!before || before.coordinatorEpoch !== coordinatorEpoch) code = ErrorCode.NOT_COORDINATOR;
    else {
      try {
        code = mapAppendError(await this.opts.io.append(p, [{ key: encodeKey(transactionalId), value }]));
      } catch (e) {
        this.opts.logger(
          'WARN',
          `Appending ${transactionalId}'s transition to ${stateName(t.txnState)} failed: ${(e as Error).message}`,
        );
        code = ErrorCode.UNKNOWN_SERVER_ERROR;
      }
    }
    const cache = this.owned.get(p);
    const m = cache?.txns.get(transactionalId);
    if (code === ErrorCode.NONE) {
      if (!cache || cache.coordinatorEpoch !== coordinatorEpoch || !m) return ErrorCode.NOT_COORDINATOR;
      if (t.txnState === TxnState.Dead) {
        m.pendingState = undefined;
        m.state = TxnState.Dead;
        cache.txns.delete(transactionalId);
        return ErrorCode.NONE;
      }
      m.completeTransitionTo(t);
      return ErrorCode.NONE;
    }
    if (retryOnError(code)) return code; // the caller retries with the transition still pending
    if (m && cache?.coordinatorEpoch === coordinatorEpoch && m.pendingState === t.txnState) m.pendingState = undefined;
    this.opts.logger(
      'INFO',
      `Appending ${transactionalId}'s new metadata ${stateName(t.txnState)} failed with error ${code}; the transition is abandoned`,
    );
    return code;
  }

  /**
   * Loads a partition this node now leads (at leader epoch coordinatorEpoch): replays its records,
   * last value per transactional id wins. Returns the loaded transactions.
   */
  async loadPartition(partition: number, coordinatorEpoch: number): Promise<TransactionMetadata[]> {
    const current = this.owned.get(partition);
    if (current && current.coordinatorEpoch === coordinatorEpoch) return [];
    this.loading.set(partition, coordinatorEpoch);
    const started = this.opts.clock();
    try {
      const txns = new Map<string, TransactionMetadata>();
      await this.opts.io.read(partition, (key, value) => {
        const id = decodeKey(key);
        if (id === undefined) return;
        const m = decodeValue(id, value);
        if (m === null) txns.delete(id);
        else txns.set(id, m);
      });
      if (this.loading.get(partition) !== coordinatorEpoch) return [];
      this.owned.set(partition, { coordinatorEpoch, txns });
      const took = this.opts.clock() - started;
      this.partitionLoadTimes.record(took);
      this.opts.logger(
        'INFO',
        `Finished loading ${txns.size} transaction metadata from __transaction_state-${partition} in ${took} milliseconds, of which 0 milliseconds was spent in the scheduler.`,
      );
      return [...txns.values()];
    } finally {
      if (this.loading.get(partition) === coordinatorEpoch) this.loading.delete(partition);
    }
  }

  removePartition(partition: number): void {
    this.loading.delete(partition);
    this.owned.delete(partition);
  }

  /** Ongoing transactions past their timeout with no transition pending. */
  timedOutTransactions(now: number): { transactionalId: string; producerId: number; producerEpoch: number }[] {
    const out: { transactionalId: string; producerId: number; producerEpoch: number }[] = [];
    for (const cache of this.owned.values()) {
      for (const m of cache.txns.values()) {
        if (m.pendingTransitionInProgress || m.state !== TxnState.Ongoing) continue;
        if (m.txnStartTimestamp + m.txnTimeoutMs < now)
          out.push({ transactionalId: m.transactionalId, producerId: m.producerId, producerEpoch: m.producerEpoch });
      }
    }
    return out;
  }

  /** Transactional ids idle longer than transactional.id.expiration.ms in a completed state. */
  expiredTransactionalIds(now: number): TransactionMetadata[] {
    const out: TransactionMetadata[] = [];
    for (const cache of this.owned.values()) {
      for (const m of cache.txns.values()) {
        if (m.pendingTransitionInProgress) continue;
        const done =
          m.state === TxnState.Empty || m.state === TxnState.CompleteCommit || m.state === TxnState.CompleteAbort;
        if (done && now - m.txnLastUpdateTimestamp >= this.opts.idExpirationMs) out.push(m);
      }
    }
    return out;
  }

  /**
   * ListTransactions (TransactionStateManager.listTransactionStates). A non-empty
   * `transactionalIdPattern` (v2, KIP-1152) is an RE2/J regular expression the whole transactional
   * id must match; an invalid one is INVALID_REGULAR_EXPRESSION.
   */
  listTransactionStates(
    producerIds: readonly number[],
    stateNames: readonly string[],
    durationMs: number,
    transactionalIdPattern: string | null = null,
  ): {
    errorCode: number;
    unknownStateFilters: string[];
    transactionStates: { transactionalId: string; producerId: number; transactionState: string }[];
  } {
    if (this.loading.size > 0)
      return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, unknownStateFilters: [], transactionStates: [] };
    const unknown: string[] = [];
    const states = new Set<TxnState>();
    for (const n of stateNames) {
      const s = stateFromName(n);
      if (s === undefined) unknown.push(n);
      else states.add(s);
    }
    let pattern: RE2JS | null = null;
    if (transactionalIdPattern !== null && transactionalIdPattern.length > 0) {
      try {
        pattern = RE2JS.compile(transactionalIdPattern);
      } catch (e) {
        if (!(e instanceof RE2JSException)) throw e;
        return { errorCode: ErrorCode.INVALID_REGULAR_EXPRESSION, unknownStateFilters: [], transactionStates: [] };
      }
    }
    const pids = new Set(producerIds);
    const now = this.opts.clock();
    const out: { transactionalId: string; producerId: number; transactionState: string }[] = [];
    for (const cache of this.owned.values()) {
      for (const m of cache.txns.values()) {
        if (m.state === TxnState.Dead) continue;
        if (pids.size > 0 && !pids.has(m.producerId)) continue;
        if (stateNames.length > 0 && !states.has(m.state)) continue;
        if (durationMs >= 0 && now - m.txnStartTimestamp <= durationMs) continue;
        if (pattern !== null && !pattern.matches(m.transactionalId)) continue;
        out.push({
          transactionalId: m.transactionalId,
          producerId: m.producerId,
          transactionState: stateName(m.state),
        });
      }
    }
    return { errorCode: ErrorCode.NONE, unknownStateFilters: unknown, transactionStates: out };
  }
}

/** Reads a partition's records through a log that returns raw batches (used by the broker glue). */
export async function readAllRecords(
  readBatches: (offset: number) => Promise<{ records: Buffer; end: number } | undefined>,
  startOffset: number,
  onRecord: (key: Buffer, value: Buffer | null) => void,
): Promise<void> {
  let offset = startOffset;
  for (let rounds = 0; rounds < 10_000_000; rounds++) {
    const r = await readBatches(offset);
    if (!r || r.records.length === 0 || offset >= r.end) return;
    const before = offset;
    for (const entry of iterateBatches(r.records)) {
      const batch = await decodeBatch(r.records.subarray(entry.position, entry.position + entry.sizeInBytes), 0, {
        copy: true,
      });
      if (batch.lastOffset < offset) continue;
      offset = batch.lastOffset + 1;
      if (batch.isControl) continue;
      for (const rec of batch.records) if (rec.key !== null && rec.offset >= before) onRecord(rec.key, rec.value);
    }
    if (offset === before) return;
  }
}
