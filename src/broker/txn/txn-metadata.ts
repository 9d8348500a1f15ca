// Transaction metadata of one transactional id and its state machine (Kafka's TransactionMetadata):
// a transition is prepared (pendingState set, a TxnTransit describing the new values), written to
// __transaction_state, then completed — or abandoned when the write fails. While a transition is
// pending the coordinator answers CONCURRENT_TRANSACTIONS. With transactions V2 (a client
// transaction version of 2, KIP-890 part 2) every PrepareCommit/PrepareAbort bumps the epoch, an
// exhausted epoch rotates to the next producer id at completion, and an abort may start from
// Empty/CompleteCommit/CompleteAbort; the log value records clientTransactionVersion.

import { TXN_STATE_NAMES } from '../../protocol/txn-states.js';

export const enum TxnState {
  Empty = 0,
  Ongoing = 1,
  PrepareCommit = 2,
  PrepareAbort = 3,
  CompleteCommit = 4,
  CompleteAbort = 5,
  Dead = 6,
  PrepareEpochFence = 7,
}

export { TXN_STATE_NAMES };

export const stateName = (s: TxnState): string => TXN_STATE_NAMES[s] ?? 'Unknown';

export function stateFromName(name: string): TxnState | undefined {
  const i = TXN_STATE_NAMES.indexOf(name);
  return i < 0 ? undefined : (i as TxnState);
}

const VALID_PREVIOUS: Record<TxnState, readonly TxnState[]> = {
  [TxnState.Empty]: [TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort],
  [TxnState.Ongoing]: [TxnState.Ongoing, TxnState.Empty, TxnState.CompleteCommit, TxnState.CompleteAbort],
  [TxnState.PrepareCommit]: [TxnState.Ongoing],
  [TxnState.PrepareAbort]: [
    TxnState.Ongoing,
    TxnState.PrepareEpochFence,
    TxnState.Empty,
    TxnState.CompleteCommit,
    TxnState.CompleteAbort,
  ],
  [TxnState.CompleteCommit]: [TxnState.PrepareCommit],
  [TxnState.CompleteAbort]: [TxnState.PrepareAbort],
  [TxnState.Dead]: [TxnState.Empty, TxnState.CompleteAbort, TxnState.CompleteCommit],
  [TxnState.PrepareEpochFence]: [TxnState.Ongoing],
};

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const SHORT_MAX = 32767;

/** TransactionVersion.supportsEpochBump: transactions V2. */
export const supportsEpochBump = (clientTransactionVersion: number): boolean => clientTransactionVersion >= 2;

export const isEpochExhausted = (epoch: number): boolean => epoch >= SHORT_MAX - 1;

export interface TopicPartitionRef {
  topic: string;
  partition: number;
}

export const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;
export const tpOf = (key: string): TopicPartitionRef => {
  const i = key.lastIndexOf('\u0000');
  return { topic: key.slice(0, i), partition: Number(key.slice(i + 1)) };
};

/** The values a prepared transition will give the metadata (Kafka's TxnTransitMetadata). */
export interface TxnTransit {
  producerId: number;
  prevProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  txnState: TxnState;
  /** tpKey()s */
  topicPartitions: Set<string>;
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: number;
}

export class IllegalTxnStateError extends Error {
  override name = 'IllegalTxnStateError';
}

export class TransactionMetadata {
  pendingState: TxnState | undefined;
  hasFailedEpochFence = false;
  readonly topicPartitions = new Set<string>();

  constructor(
    readonly transactionalId: string,
    public producerId: number,
    public previousProducerId: number,
    public nextProducerId: number,
    public producerEpoch: number,
    public lastProducerEpoch: number,
    public txnTimeoutMs: number,
    public state: TxnState,
    public txnStartTimestamp: number,
    public txnLastUpdateTimestamp: number,
    public clientTransactionVersion = 0,
  ) {}

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== undefined;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  /** Partitions as topic/partition pairs, sorted (for responses and logs). */
  partitions(): TopicPartitionRef[] {
    return [...this.topicPartitions]
      .map(tpOf)
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  removePartition(key: string): void {
    if (this.state !== TxnState.PrepareCommit && this.state !== TxnState.PrepareAbort) {
      throw new IllegalTxnStateError(
        `Transaction metadata's current state is ${stateName(this.state)}, and its pending state is ${this.pendingState} while trying to remove partitions whose txn marker has been sent, this is not expected`,
      );
    }
    this.topicPartitions.delete(key);
  }

  private prepare(
    state: TxnState,
    producerId: number,
    epoch: number,
    lastEpoch: number,
    timeoutMs: number,
    partitions: Set<string>,
    startTs: number,
    updateTs: number,
    nextProducerId = NO_PRODUCER_ID,
    clientTransactionVersion = this.clientTransactionVersion,
  ): TxnTransit {
    if (this.pendingState !== undefined) {
      throw new IllegalTxnStateError(
        `Preparing transaction state transition to ${stateName(state)} while it already a pending state ${stateName(this.pendingState)}`,
      );
    }
    if (producerId < 0) throw new IllegalTxnStateError(`Illegal new producer id ${producerId}`);
    if (state !== TxnState.Dead && epoch < 0) throw new IllegalTxnStateError(`Illegal new producer epoch ${epoch}`);
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new IllegalTxnStateError(
        `Preparing transaction state transition to ${stateName(state)} failed since the target state ${stateName(state)} is not a valid previous state of the current state ${stateName(this.state)}`,
      );
    }
    this.pendingState = state;
    return {
      producerId,
      prevProducerId: this.producerId,
      nextProducerId,
      producerEpoch: epoch,
      lastProducerEpoch: lastEpoch,
      txnTimeoutMs: timeoutMs,
      txnState: state,
      topicPartitions: partitions,
      txnStartTimestamp: startTs,
      txnLastUpdateTimestamp: updateTs,
      clientTransactionVersion,
    };
  }

  /** The current values, no transition (used to re-write a state, e.g. after a failed fence). */
  prepareNoTransit(): TxnTransit {
    return {
      producerId: this.producerId,
      prevProducerId: this.previousProducerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      txnState: this.state,
      topicPartitions: new Set(this.topicPartitions),
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
      clientTransactionVersion: this.clientTransactionVersion,
    };
  }

  prepareFenceProducerEpoch(): TxnTransit {
    // at Short.MaxValue (a V2 bug state) the epoch is not increased again, to avoid an overflow
    const bumped =
      this.hasFailedEpochFence || this.producerEpoch === SHORT_MAX ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepare(
      TxnState.PrepareEpochFence,
      this.producerId,
      bumped,
      NO_PRODUCER_EPOCH,
      this.txnTimeoutMs,
      new Set(this.topicPartitions),
      this.txnStartTimestamp,
      this.txnLastUpdateTimestamp,
    );
  }

  /** InitProducerId on an existing id: the next epoch (or the same one for a retry of the last bump). */
  prepareIncrementProducerEpoch(
    newTimeoutMs: number,
    expectedEpoch: number | undefined,
    now: number,
  ): TxnTransit | 'PRODUCER_FENCED' {
    if (this.isProducerEpochExhausted)
      throw new IllegalTxnStateError(`Cannot allocate any more producer epochs for producerId ${this.producerId}`);
    const bumped = this.producerEpoch + 1;
    let next: [number, number];
    if (expectedEpoch === undefined) next = [bumped, NO_PRODUCER_EPOCH];
    else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === this.producerEpoch)
      next = [bumped, this.producerEpoch];
    else if (expectedEpoch === this.lastProducerEpoch) next = [this.producerEpoch, this.lastProducerEpoch];
    else return 'PRODUCER_FENCED';
    return this.prepare(TxnState.Empty, this.producerId, next[0], next[1], newTimeoutMs, new Set(), -1, now);
  }

  prepareProducerIdRotation(
    newProducerId: number,
    newTimeoutMs: number,
    now: number,
    recordLastEpoch: boolean,
  ): TxnTransit {
    if (
      this.state === TxnState.Ongoing ||
      this.state === TxnState.PrepareAbort ||
      this.state === TxnState.PrepareCommit
    ) {
      throw new IllegalTxnStateError('Cannot rotate producer ids while a transaction is still pending');
    }
    return this.prepare(
      TxnState.Empty,
      newProducerId,
      0,
      recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH,
      newTimeoutMs,
      new Set(),
      -1,
      now,
    );
  }

  prepareAddPartitions(added: Iterable<string>, now: number, clientTransactionVersion: number): TxnTransit {
    const start =
      this.state === TxnState.Empty || this.state === TxnState.CompleteAbort || this.state === TxnState.CompleteCommit
        ? now
        : this.txnStartTimestamp;
    const parts = new Set(this.topicPartitions);
    for (const k of added) parts.add(k);
    return this.prepare(
      TxnState.Ongoing,
      this.producerId,
      this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      parts,
      start,
      now,
      NO_PRODUCER_ID,
      clientTransactionVersion,
    );
  }

  /**
   * EndTxn's first step. With transactions V2 the epoch is bumped (not past Short.MaxValue: an abort
   * at that epoch goes through unchanged) and the last epoch remembers the client's; `nextProducerId`
   * is the id an exhausted epoch rotates to at completion. An abort with no partition added (V2)
   * starts its transaction now.
   */
  prepareAbortOrCommit(
    state: TxnState.PrepareCommit | TxnState.PrepareAbort,
    clientTransactionVersion: number,
    nextProducerId: number,
    now: number,
    noPartitionAdded: boolean,
  ): TxnTransit {
    let epoch = this.producerEpoch;
    let lastEpoch = this.lastProducerEpoch;
    if (supportsEpochBump(clientTransactionVersion)) {
      if (!(this.producerEpoch === SHORT_MAX && state === TxnState.PrepareAbort)) epoch = this.producerEpoch + 1;
      lastEpoch = this.producerEpoch;
    }
    return this.prepare(
      state,
      this.producerId,
      epoch,
      lastEpoch,
      this.txnTimeoutMs,
      new Set(this.topicPartitions),
      noPartitionAdded ? now : this.txnStartTimestamp,
      now,
      nextProducerId,
      clientTransactionVersion,
    );
  }

  /**
   * After the markers: CompleteCommit/CompleteAbort. With V2 and a next producer id (the epoch was
   * exhausted) the transaction completes on that id at epoch 0; the last epoch stays the one the
   * client last saw.
   */
  prepareComplete(now: number): TxnTransit {
    const state = this.state === TxnState.PrepareCommit ? TxnState.CompleteCommit : TxnState.CompleteAbort;
    this.hasFailedEpochFence = false;
    const rotate = supportsEpochBump(this.clientTransactionVersion) && this.nextProducerId !== NO_PRODUCER_ID;
    return this.prepare(
      state,
      rotate ? this.nextProducerId : this.producerId,
      rotate ? 0 : this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      new Set(),
      this.txnStartTimestamp,
      now,
    );
  }

  prepareDead(): TxnTransit {
    return this.prepare(
      TxnState.Dead,
      this.producerId,
      this.producerEpoch,
      this.lastProducerEpoch,
      this.txnTimeoutMs,
      new Set(),
      this.txnStartTimestamp,
      this.txnLastUpdateTimestamp,
    );
  }

  /** Applies a transition whose record was written (TransactionMetadata.completeTransitionTo). */
  completeTransitionTo(t: TxnTransit): void {
    const to = this.pendingState;
    if (to === undefined)
      throw new IllegalTxnStateError(
        `TransactionalId ${this.transactionalId} completing transaction state transition while it does not have a pending state`,
      );
    if (to !== t.txnState)
      throw new IllegalTxnStateError(
        `TransactionalId ${this.transactionalId} failed transition to state ${stateName(t.txnState)} (pending ${stateName(to)})`,
      );
    if (to === TxnState.PrepareEpochFence)
      throw new IllegalTxnStateError(`cannot complete a transition to ${stateName(to)}`);
    // an expired id (Dead) is removed from the cache by the state manager; otherwise Kafka 4.4's
    // completeTransitionTo: the written values replace the current ones
    if (to !== TxnState.Dead) this.replaceWith(t);
    this.pendingState = undefined;
    this.state = to;
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp;
  }

  private replaceWith(t: TxnTransit): void {
    this.producerId = t.producerId;
    this.previousProducerId = t.prevProducerId;
    this.nextProducerId = t.nextProducerId;
    this.producerEpoch = t.producerEpoch;
    this.lastProducerEpoch = t.lastProducerEpoch;
    this.txnTimeoutMs = t.txnTimeoutMs;
    this.topicPartitions.clear();
    for (const k of t.topicPartitions) this.topicPartitions.add(k);
    this.txnStartTimestamp = t.txnStartTimestamp;
    this.clientTransactionVersion = t.clientTransactionVersion;
  }

  toString(): string {
    return `TransactionMetadata(transactionalId=${this.transactionalId}, producerId=${this.producerId}, producerEpoch=${this.producerEpoch}, txnTimeoutMs=${this.txnTimeoutMs}, state=${stateName(this.state)}, pendingState=${this.pendingState === undefined ? 'None' : stateName(this.pendingState)}, topicPartitions=${[
      ...this.topicPartitions,
    ]
      .map((k) => {
        const t = tpOf(k);
        return `${t.topic}-${t.partition}`;
      })
      .join(',')}, txnStartTimestamp=${this.txnStartTimestamp}, txnLastUpdateTimestamp=${this.txnLastUpdateTimestamp})`;
  }
}
