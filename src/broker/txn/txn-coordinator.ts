// The transaction coordinator (Kafka's TransactionCoordinator): InitProducerId (new ids, epoch
// bumps, KIP-360 recovery with the expected producer id/epoch, fencing an open transaction of an
// older producer), AddPartitionsToTxn (and the verify-only form used by the produce path of V1
// clients; the add-partition form the produce path of V2 clients uses), EndTxn (PrepareCommit/
// PrepareAbort, then markers, then CompleteCommit/CompleteAbort; with transactions V2 the epoch is
// bumped by every EndTxn and an exhausted epoch rotates to a new producer id), DescribeTransactions,
// ListTransactions, aborting transactions past their timeout and expiring idle transactional ids.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { ProducerIdManager } from './producer-id-manager.js';
import type { TransactionMarkerManager } from './txn-markers.js';
import {
  IllegalTxnStateError,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  SHORT_MAX,
  stateName,
  supportsEpochBump,
  TransactionMetadata,
  type TxnTransit,
  TxnState,
  tpOf,
} from './txn-metadata.js';
import type { TransactionStateManager } from './txn-state-manager.js';

export interface InitProducerIdResult {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export interface TxnCoordinatorOptions {
  stateManager: TransactionStateManager;
  producerIds: ProducerIdManager;
  markers: TransactionMarkerManager;
  clock: () => number;
  logger: (level: string, msg: string) => void;
  /** how long EndTxn waits for its markers before answering (0: answer at once, as Kafka) */
  endTxnMarkerWaitMs?: number;
  /** the cluster's finalized transaction.version: the version of the coordinator's own aborts */
  transactionVersionLevel?: () => number;
}

const initError = (errorCode: number): InitProducerIdResult => ({
  errorCode,
  producerId: NO_PRODUCER_ID,
  producerEpoch: NO_PRODUCER_EPOCH,
});

type Prepared = { errorCode: number } | { errorCode: 0; coordinatorEpoch: number; transit: TxnTransit };

export class TransactionCoordinator {
  private active = false;

  constructor(readonly opts: TxnCoordinatorOptions) {}

  get stateManager(): TransactionStateManager {
    return this.opts.stateManager;
  }
  get isActive(): boolean {
    return this.active;
  }

  startup(): void {
    this.active = true;
  }

  shutdown(): void {
    this.active = false;
    this.opts.markers.shutdown();
  }

  /** txnManager.transactionVersionLevel(): what aborts not asked for by a client use. */
  private serverTransactionVersion(): number {
    return this.opts.transactionVersionLevel?.() ?? 0;
  }

  private async newProducerId(): Promise<number | { errorCode: number }> {
    try {
      return await this.opts.producerIds.generateProducerId();
    } catch (e) {
      return { errorCode: e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR };
    }
  }

  // ------------------------------------------------------------------ InitProducerId

  async handleInitProducerId(
    transactionalId: string | null,
    transactionTimeoutMs: number,
    expected?: { producerId: number; producerEpoch: number },
  ): Promise<InitProducerIdResult> {
    if (transactionalId === null) {
      const id = await this.newProducerId();
      return typeof id === 'number'
        ? { errorCode: ErrorCode.NONE, producerId: id, producerEpoch: 0 }
        : initError(id.errorCode);
    }
    if (transactionalId === '') return initError(ErrorCode.INVALID_REQUEST);
    const sm = this.opts.stateManager;
    if (!sm.validateTransactionTimeoutMs(transactionTimeoutMs)) return initError(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    let st = sm.getTransactionState(transactionalId);
    if (st.errorCode !== ErrorCode.NONE) return initError(st.errorCode);
    if (!('entry' in st) || st.entry === undefined) {
      const id = await this.newProducerId();
      if (typeof id !== 'number') return initError(id.errorCode);
      const created = new TransactionMetadata(
        transactionalId,
        id,
        NO_PRODUCER_ID,
        NO_PRODUCER_ID,
        NO_PRODUCER_EPOCH,
        NO_PRODUCER_EPOCH,
        transactionTimeoutMs,
        TxnState.Empty,
        -1,
        this.opts.clock(),
      );
      st = sm.putTransactionStateIfNotExists(created);
      if (st.errorCode !== ErrorCode.NONE) return initError(st.errorCode);
    }
    const entry = (st as { entry: { coordinatorEpoch: number; metadata: TransactionMetadata } }).entry;
    const m = entry.metadata;
    const prepared = await this.prepareInitProducerIdTransit(
      transactionalId,
      transactionTimeoutMs,
      entry.coordinatorEpoch,
      m,
      expected,
    );
    if (prepared.errorCode !== ErrorCode.NONE || !('transit' in prepared)) return initError(prepared.errorCode);
    if (prepared.transit.txnState === TxnState.PrepareEpochFence) {
      // abort the open transaction first; the client retries and then gets the next epoch
      const r = await this.endTransaction(
        transactionalId,
        prepared.transit.producerId,
        prepared.transit.producerEpoch,
        false,
        false,
        this.serverTransactionVersion(),
        true,
      );
      return initError(r.errorCode === ErrorCode.NONE ? ErrorCode.CONCURRENT_TRANSACTIONS : r.errorCode);
    }
    const code = await sm.appendTransactionToLog(transactionalId, prepared.coordinatorEpoch, prepared.transit);
    if (code !== ErrorCode.NONE) return initError(code);
    this.opts.logger(
      'INFO',
      `Initialized transactionalId ${transactionalId} with producerId ${prepared.transit.producerId} and producer epoch ${prepared.transit.producerEpoch} on partition __transaction_state-${sm.partitionFor(transactionalId)}`,
    );
    return {
      errorCode: ErrorCode.NONE,
      producerId: prepared.transit.producerId,
      producerEpoch: prepared.transit.producerEpoch,
    };
  }

  private async prepareInitProducerIdTransit(
    transactionalId: string,
    timeoutMs: number,
    coordinatorEpoch: number,
    m: TransactionMetadata,
    expected?: { producerId: number; producerEpoch: number },
  ): Promise<Prepared> {
    const validPid = (e: { producerId: number; producerEpoch: number }): boolean =>
      m.producerEpoch === NO_PRODUCER_EPOCH ||
      e.producerId === m.producerId ||
      (e.producerId === m.previousProducerId && e.producerEpoch >= 32766);
    if (m.pendingTransitionInProgress) return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS };
    if (expected && !validPid(expected)) return { errorCode: ErrorCode.PRODUCER_FENCED };
    switch (m.state) {
      case TxnState.PrepareAbort:
      case TxnState.PrepareCommit:
        return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS };
      case TxnState.CompleteAbort:
      case TxnState.CompleteCommit:
      case TxnState.Empty: {
        if (m.isProducerEpochExhausted && (!expected || expected.producerEpoch === m.producerEpoch)) {
          const id = await this.newProducerId();
          if (typeof id !== 'number') return { errorCode: id.errorCode };
          if (m.pendingTransitionInProgress) return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS };
          return {
            errorCode: 0,
            coordinatorEpoch,
            transit: m.prepareProducerIdRotation(id, timeoutMs, this.opts.clock(), expected !== undefined),
          };
        }
        const t = m.prepareIncrementProducerEpoch(timeoutMs, expected?.producerEpoch, this.opts.clock());
        if (t === 'PRODUCER_FENCED') return { errorCode: ErrorCode.PRODUCER_FENCED };
        return { errorCode: 0, coordinatorEpoch, transit: t };
      }
      case TxnState.Ongoing:
        return { errorCode: 0, coordinatorEpoch, transit: m.prepareFenceProducerEpoch() };
      default:
        throw new IllegalTxnStateError(
          `Found transactionalId ${transactionalId} with state ${stateName(m.state)}. This is illegal as we should never have transitioned to this state.`,
        );
    }
  }

  // ------------------------------------------------------------------ AddPartitionsToTxn

  /**
   * AddPartitionsToTxn / AddOffsetsToTxn, and the implicit add of a V2 client's first transactional
   * Produce / TxnOffsetCommit to a partition: one error for the whole set of partitions. The client
   * transaction version is recorded with the Ongoing state.
   */
  async handleAddPartitions(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    partitionKeys: readonly string[],
    clientTransactionVersion = 0,
  ): Promise<number> {
    if (!transactionalId) return ErrorCode.INVALID_REQUEST;
    const sm = this.opts.stateManager;
    const st = sm.getTransactionState(transactionalId);
    if (st.errorCode !== ErrorCode.NONE) return st.errorCode;
    const entry = 'entry' in st ? st.entry : undefined;
    if (!entry) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    const m = entry.metadata;
    if (m.producerId !== producerId) return ErrorCode.INVALID_PRODUCER_ID_MAPPING;
    if (m.producerEpoch !== producerEpoch) return ErrorCode.PRODUCER_FENCED;
    if (m.pendingTransitionInProgress) return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (m.state === TxnState.PrepareCommit || m.state === TxnState.PrepareAbort)
      return ErrorCode.CONCURRENT_TRANSACTIONS;
    if (m.state === TxnState.Ongoing && partitionKeys.every((k) => m.topicPartitions.has(k))) return ErrorCode.NONE;
    const transit = m.prepareAddPartitions(partitionKeys, this.opts.clock(), clientTransactionVersion);
    return sm.appendTransactionToLog(transactionalId, entry.coordinatorEpoch, transit);
  }

  /** AddPartitionsToTxn v4+ verifyOnly (handleVerifyPartitionsInTransaction): per partition. */
  verifyPartitions(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    partitionKeys: readonly string[],
  ): Map<string, number> {
    const all = (code: number) => new Map(partitionKeys.map((k) => [k, code]));
    if (!transactionalId) return all(ErrorCode.INVALID_REQUEST);
    const st = this.opts.stateManager.getTransactionState(transactionalId);
    if (st.errorCode !== ErrorCode.NONE) return all(st.errorCode);
    const entry = 'entry' in st ? st.entry : undefined;
    if (!entry) return all(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const m = entry.metadata;
    if (m.producerId !== producerId) return all(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (m.producerEpoch !== producerEpoch) return all(ErrorCode.PRODUCER_FENCED);
    if (m.state === TxnState.PrepareCommit || m.state === TxnState.PrepareAbort)
      return all(ErrorCode.CONCURRENT_TRANSACTIONS);
    return new Map(
      partitionKeys.map((k) => [k, m.topicPartitions.has(k) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE]),
    );
  }

  // ------------------------------------------------------------------ EndTxn

  /** EndTxn from a client; v5+ clients use transactions V2 (TransactionVersion.transactionVersionForEndTxn). */
  handleEndTxn(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
    clientTransactionVersion = 0,
  ): Promise<InitProducerIdResult> {
    return this.endTransaction(
      transactionalId,
      producerId,
      producerEpoch,
      commit,
      true,
      clientTransactionVersion,
      true,
    );
  }

  /**
   * Kafka's endTransaction. With `waitForMarkers` the answer waits (up to endTxnMarkerWaitMs) for
   * the markers and the completion, so a client's next request rarely meets CONCURRENT_TRANSACTIONS.
   */
  private async endTransaction(
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
    isFromClient: boolean,
    clientTransactionVersion: number,
    waitForMarkers: boolean,
  ): Promise<InitProducerIdResult> {
    if (!transactionalId) return initError(ErrorCode.INVALID_REQUEST);
    const sm = this.opts.stateManager;
    const st = sm.getTransactionState(transactionalId);
    if (st.errorCode !== ErrorCode.NONE) return initError(st.errorCode);
    const entry = 'entry' in st ? st.entry : undefined;
    if (!entry) return initError(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    const pre = supportsEpochBump(clientTransactionVersion)
      ? await this.prepareEndTxnV2(entry.metadata, producerId, producerEpoch, commit, isFromClient)
      : this.prepareEndTxnV1(entry.metadata, producerId, producerEpoch, commit, isFromClient);
    if ('result' in pre) return pre.result;
    const { transit, isEpochFence } = pre;
    const coordinatorEpoch = entry.coordinatorEpoch;
    const code = await sm.appendTransactionToLog(transactionalId, coordinatorEpoch, transit);
    if (code !== ErrorCode.NONE) {
      if (isEpochFence) {
        const again = sm.getTransactionState(transactionalId);
        if ('entry' in again && again.entry?.coordinatorEpoch === coordinatorEpoch)
          again.entry.metadata.hasFailedEpochFence = true;
      }
      return initError(code);
    }
    // the markers: state now PrepareCommit/PrepareAbort; the completion is prepared (pending) while they are written
    const again = sm.getTransactionState(transactionalId);
    if (again.errorCode !== ErrorCode.NONE) return initError(again.errorCode);
    const now = 'entry' in again ? again.entry : undefined;
    if (!now || now.coordinatorEpoch !== coordinatorEpoch) return initError(ErrorCode.NOT_COORDINATOR);
    const nm = now.metadata;
    const bumped = supportsEpochBump(clientTransactionVersion) && nm.producerEpoch === producerEpoch + 1;
    if (nm.producerId !== producerId) return initError(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (nm.producerEpoch !== producerEpoch && !bumped) return initError(ErrorCode.PRODUCER_FENCED);
    if (nm.pendingTransitionInProgress) return initError(ErrorCode.CONCURRENT_TRANSACTIONS);
    if (nm.state !== (commit ? TxnState.PrepareCommit : TxnState.PrepareAbort))
      return this.invalidState(nm, commit).result;
    // the answer carries the new producer id and epoch (EndTxn v5): an exhausted epoch continues on the next id at 0
    const answer: InitProducerIdResult =
      supportsEpochBump(nm.clientTransactionVersion) && nm.nextProducerId !== NO_PRODUCER_ID
        ? { errorCode: ErrorCode.NONE, producerId: nm.nextProducerId, producerEpoch: 0 }
        : { errorCode: ErrorCode.NONE, producerId: nm.producerId, producerEpoch: nm.producerEpoch };
    const complete = nm.prepareComplete(this.opts.clock());
    const done = this.opts.markers.addTxnMarkersToSend(coordinatorEpoch, commit, nm, complete);
    const wait = waitForMarkers ? (this.opts.endTxnMarkerWaitMs ?? 0) : 0;
    if (wait > 0) await Promise.race([done, new Promise<void>((r) => setTimeout(r, wait).unref?.())]);
    return answer;
  }

  private invalidState(m: TransactionMetadata, commit: boolean): { result: InitProducerIdResult } {
    this.opts.logger(
      'WARN',
      `TransactionalId: ${m.transactionalId}'s state is ${stateName(m.state)}, but received transaction marker result to send: ${commit ? 'COMMIT' : 'ABORT'}`,
    );
    return { result: initError(ErrorCode.INVALID_TXN_STATE) };
  }

  private illegalState(m: TransactionMetadata): never {
    throw new IllegalTxnStateError(
      `Found transactionalId ${m.transactionalId} with state ${stateName(m.state)}. This is illegal as we should never have transitioned to this state.`,
    );
  }

  /** Clears a pending epoch fence so the abort that follows it can be prepared with the fenced epoch. */
  private takeEpochFence(m: TransactionMetadata, producerEpoch: number): void {
    m.pendingState = undefined;
    m.producerEpoch = producerEpoch;
    m.lastProducerEpoch = NO_PRODUCER_EPOCH;
  }

  /** endTransactionWithTV1's checks and the PrepareCommit/PrepareAbort transition (no epoch bump). */
  private prepareEndTxnV1(
    m: TransactionMetadata,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
    isFromClient: boolean,
  ): { result: InitProducerIdResult } | { transit: TxnTransit; isEpochFence: boolean } {
    const fail = (code: number) => ({ result: initError(code) });
    const current = {
      result: { errorCode: ErrorCode.NONE, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH },
    };
    if (m.producerId !== producerId) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if ((isFromClient && producerEpoch !== m.producerEpoch) || producerEpoch < m.producerEpoch)
      return fail(ErrorCode.PRODUCER_FENCED);
    if (m.pendingTransitionInProgress && m.pendingState !== TxnState.PrepareEpochFence)
      return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
    switch (m.state) {
      case TxnState.Ongoing: {
        const next = commit ? TxnState.PrepareCommit : TxnState.PrepareAbort;
        let isEpochFence = false;
        if (next === TxnState.PrepareAbort && m.pendingState === TxnState.PrepareEpochFence) {
          isEpochFence = true;
          this.takeEpochFence(m, producerEpoch);
        }
        return { transit: m.prepareAbortOrCommit(next, 0, NO_PRODUCER_ID, this.opts.clock(), false), isEpochFence };
      }
      case TxnState.CompleteCommit:
        return commit ? current : this.invalidState(m, commit);
      case TxnState.CompleteAbort:
        return !commit ? current : this.invalidState(m, commit);
      case TxnState.PrepareCommit:
        return commit ? fail(ErrorCode.CONCURRENT_TRANSACTIONS) : this.invalidState(m, commit);
      case TxnState.PrepareAbort:
        return !commit ? fail(ErrorCode.CONCURRENT_TRANSACTIONS) : this.invalidState(m, commit);
      case TxnState.Empty:
        return this.invalidState(m, commit);
      default:
        return this.illegalState(m);
    }
  }

  /**
   * endTransaction with transactions V2: a retry is recognised by the epoch the first attempt
   * bumped (or by the overflow to a new producer id); Empty, CompleteCommit and CompleteAbort accept
   * an abort of a transaction with no partition; an exhausted epoch gets the next producer id.
   */
  private async prepareEndTxnV2(
    m: TransactionMetadata,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
    isFromClient: boolean,
  ): Promise<{ result: InitProducerIdResult } | { transit: TxnTransit; isEpochFence: boolean }> {
    const fail = (code: number) => ({ result: initError(code) });
    const current = {
      result: { errorCode: ErrorCode.NONE, producerId: m.producerId, producerEpoch: m.producerEpoch },
    };
    // PrepareEpochFence (only from Ongoing) bumps the epoch its own way
    const isEpochFence = m.pendingState === TxnState.PrepareEpochFence;
    const retryOnOverflow =
      !isEpochFence && m.previousProducerId === producerId && producerEpoch === SHORT_MAX - 1 && m.producerEpoch === 0;
    const retryOnEpochBump = !isEpochFence && m.producerEpoch === producerEpoch + 1;
    let validEpoch: boolean;
    if (isEpochFence)
      validEpoch = (!isFromClient || producerEpoch === m.producerEpoch) && producerEpoch >= m.producerEpoch;
    else if (m.state === TxnState.PrepareCommit || m.state === TxnState.PrepareAbort) validEpoch = retryOnEpochBump;
    else if (m.state === TxnState.CompleteCommit || m.state === TxnState.CompleteAbort)
      validEpoch = retryOnEpochBump || retryOnOverflow || producerEpoch === m.producerEpoch;
    else validEpoch = producerEpoch === m.producerEpoch;
    const isRetry = retryOnEpochBump || retryOnOverflow;

    if (m.producerId !== producerId && !retryOnOverflow) return fail(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    if (!validEpoch) return fail(ErrorCode.PRODUCER_FENCED);
    if (m.pendingTransitionInProgress && !isEpochFence) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);

    const complete = async (
      next: TxnState.PrepareCommit | TxnState.PrepareAbort,
      noPartitionAdded: boolean,
    ): Promise<{ result: InitProducerIdResult } | { transit: TxnTransit; isEpochFence: boolean }> => {
      let nextProducerId = NO_PRODUCER_ID;
      if (!isEpochFence && m.isProducerEpochExhausted) {
        const id = await this.newProducerId();
        if (typeof id !== 'number') return fail(id.errorCode);
        // the id allocation awaited: someone else may have moved the transaction meanwhile
        if (m.pendingTransitionInProgress) return fail(ErrorCode.CONCURRENT_TRANSACTIONS);
        nextProducerId = id;
      }
      if (next === TxnState.PrepareAbort && isEpochFence) this.takeEpochFence(m, producerEpoch);
      return {
        transit: m.prepareAbortOrCommit(next, 2, nextProducerId, this.opts.clock(), noPartitionAdded),
        isEpochFence,
      };
    };

    switch (m.state) {
      case TxnState.Ongoing:
        return complete(commit ? TxnState.PrepareCommit : TxnState.PrepareAbort, false);
      case TxnState.CompleteCommit:
        if (commit) return isRetry ? current : this.invalidState(m, commit);
        return isRetry ? this.invalidState(m, commit) : complete(TxnState.PrepareAbort, true);
      case TxnState.CompleteAbort:
        if (!commit) return isRetry ? current : complete(TxnState.PrepareAbort, true);
        return this.invalidState(m, commit);
      case TxnState.PrepareCommit:
        return commit ? fail(ErrorCode.CONCURRENT_TRANSACTIONS) : this.invalidState(m, commit);
      case TxnState.PrepareAbort:
        return !commit ? fail(ErrorCode.CONCURRENT_TRANSACTIONS) : this.invalidState(m, commit);
      case TxnState.Empty:
        return !commit ? complete(TxnState.PrepareAbort, true) : this.invalidState(m, commit);
      default:
        return this.illegalState(m);
    }
  }

  // ------------------------------------------------------------------ recovery, timeouts, expiration

  /**
   * After loading a __transaction_state partition: transactions caught between PrepareCommit /
   * PrepareAbort and their completion get their markers (again) and complete.
   */
  onPartitionLoaded(coordinatorEpoch: number, loaded: readonly TransactionMetadata[]): void {
    for (const m of loaded) {
      if (m.state !== TxnState.PrepareCommit && m.state !== TxnState.PrepareAbort) continue;
      if (m.pendingTransitionInProgress) continue;
      const complete = m.prepareComplete(this.opts.clock());
      this.opts.logger(
        'INFO',
        `Completing ${m.state === TxnState.PrepareCommit ? 'commit' : 'abort'} of transaction ${m.transactionalId} (producer ${m.producerId}, epoch ${m.producerEpoch}) loaded in state ${stateName(m.state)}`,
      );
      void this.opts.markers.addTxnMarkersToSend(coordinatorEpoch, m.state === TxnState.PrepareCommit, m, complete);
    }
  }

  /** Aborts ongoing transactions past their timeout (abortTimedOutTransactions). */
  async abortTimedOutTransactions(): Promise<number> {
    const sm = this.opts.stateManager;
    let n = 0;
    for (const t of sm.timedOutTransactions(this.opts.clock())) {
      const st = sm.getTransactionState(t.transactionalId);
      const m = 'entry' in st ? st.entry?.metadata : undefined;
      if (!m || m.producerId !== t.producerId || m.pendingTransitionInProgress) continue;
      const fence = m.prepareFenceProducerEpoch();
      const r = await this.endTransaction(
        m.transactionalId,
        fence.producerId,
        fence.producerEpoch,
        false,
        false,
        this.serverTransactionVersion(),
        false,
      );
      if (r.errorCode === ErrorCode.NONE) {
        n++;
        this.opts.logger(
          'INFO',
          `Completed rollback of ongoing transaction for transactionalId ${t.transactionalId} due to timeout`,
        );
      } else
        this.opts.logger(
          'INFO',
          `Rollback of ongoing transaction for transactionalId ${t.transactionalId} failed with error ${r.errorCode}`,
        );
    }
    return n;
  }

  /** Writes tombstones for transactional ids idle past transactional.id.expiration.ms. */
  async removeExpiredTransactionalIds(): Promise<number> {
    const sm = this.opts.stateManager;
    let n = 0;
    for (const m of sm.expiredTransactionalIds(this.opts.clock())) {
      const st = sm.getTransactionState(m.transactionalId);
      if (!('entry' in st) || !st.entry || st.entry.metadata !== m || m.pendingTransitionInProgress) continue;
      const code = await sm.appendTransactionToLog(m.transactionalId, st.entry.coordinatorEpoch, m.prepareDead());
      if (code === ErrorCode.NONE) n++;
    }
    return n;
  }

  // ------------------------------------------------------------------ inspection

  handleDescribe(transactionalId: string): {
    errorCode: number;
    transactionalId: string;
    transactionState: string;
    transactionTimeoutMs: number;
    transactionStartTimeMs: number;
    producerId: number;
    producerEpoch: number;
    topics: { topic: string; partitions: number[] }[];
  } {
    const out = {
      errorCode: ErrorCode.NONE,
      transactionalId,
      transactionState: '',
      transactionTimeoutMs: 0,
      transactionStartTimeMs: -1,
      producerId: -1,
      producerEpoch: -1,
      topics: [] as { topic: string; partitions: number[] }[],
    };
    if (!this.active) return { ...out, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
    if (transactionalId === '') return { ...out, errorCode: ErrorCode.INVALID_REQUEST };
    const st = this.opts.stateManager.getTransactionState(transactionalId);
    if (st.errorCode !== ErrorCode.NONE) return { ...out, errorCode: st.errorCode };
    const m = 'entry' in st ? st.entry?.metadata : undefined;
    if (!m || m.state === TxnState.Dead) return { ...out, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
    const topics = new Map<string, number[]>();
    for (const k of m.topicPartitions) {
      const { topic, partition } = tpOf(k);
      let l = topics.get(topic);
      if (!l) topics.set(topic, (l = []));
      l.push(partition);
    }
    return {
      errorCode: ErrorCode.NONE,
      transactionalId,
      transactionState: stateName(m.state),
      transactionTimeoutMs: m.txnTimeoutMs,
      transactionStartTimeMs: m.txnStartTimestamp,
      producerId: m.producerId,
      producerEpoch: m.producerEpoch,
      topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
    };
  }

  handleList(
    producerIds: readonly number[],
    states: readonly string[],
    durationMs: number,
    transactionalIdPattern: string | null = null,
  ): ReturnType<TransactionStateManager['listTransactionStates']> {
    if (!this.active)
      return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, unknownStateFilters: [], transactionStates: [] };
    return this.opts.stateManager.listTransactionStates(producerIds, states, durationMs, transactionalIdPattern);
  }
}
