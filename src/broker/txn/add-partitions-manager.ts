// Transaction verification through a transaction coordinator on another broker: Kafka's
// AddPartitionsToTxnManager (kafka-server). A Produce (or TxnOffsetCommit) of a transactional batch
// to a partition this broker leads, whose transactional id's coordinator (the leader of its
// __transaction_state partition) is another broker, asks that coordinator with an inter-broker
// AddPartitionsToTxn (v4+: several transactions per request, verifyOnly unless the operation adds the
// partition, transactions V2).
//
// Batching as Kafka's: one pending request per coordinator broker, one in flight; the partitions a
// transactional id asks for in one turn of the event loop (one produce request's partitions) join one
// transaction entry. A second entry for the same transactional id before the request leaves replaces
// the first (whose callers get NETWORK_EXCEPTION, or INVALID_PRODUCER_EPOCH when the newer entry has a
// higher epoch), an entry older than the pending one gets INVALID_PRODUCER_EPOCH (addTxnData).
//
// Answers, as AddPartitionsToTxnHandler.onComplete: a top-level error for every partition
// (CLUSTER_AUTHORIZATION_FAILED as INVALID_TXN_STATE), per partition PRODUCER_FENCED as
// INVALID_PRODUCER_EPOCH and TRANSACTION_ABORTABLE as INVALID_TXN_STATE for the defaultError
// operation; a partition missing from the results is verified; a failed request (disconnected, timed
// out) NETWORK_EXCEPTION; a coordinator that does not support v4 verifies nothing (NONE: Kafka's
// versionMismatch, "verification is not supported"). The produce path then answers the retriable ones
// as NOT_ENOUGH_REPLICAS (replication/eos.ts verificationErrorForProduce).
import { apiByKey } from '../../client/apis.js';
import { UnsupportedApiError } from '../../client/errors.js';
import { isNetworkFailure } from './inter-broker-channel.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { AddPartitionsToTxnResponse } from '../../protocol/generated/protocol/AddPartitionsToTxn.js';
import type { TransactionSupportedOperation } from '../replication/types.js';
import type { InterBrokerChannel } from './inter-broker-channel.js';
import { tpKey, tpOf } from './txn-metadata.js';

const ADD_PARTITIONS_TO_TXN = apiByKey(24)!;

type Codes = Map<string, number>;

interface Entry {
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly operation: TransactionSupportedOperation;
  readonly keys: Set<string>;
  readonly waiters: ((codes: Codes) => void)[];
}

interface Node {
  pending: Map<string, Entry>;
  inFlight: boolean;
  scheduled: boolean;
}

const verifyOnly = (op: TransactionSupportedOperation): boolean => op !== 'addPartition';

function allWith(keys: Iterable<string>, code: number): Codes {
  return new Map([...keys].map((k) => [k, code]));
}

export class AddPartitionsToTxnManager {
  private readonly nodes = new Map<number, Node>();
  private requests = 0;

  constructor(
    private readonly channel: InterBrokerChannel,
    private readonly logger: (level: string, msg: string) => void,
  ) {}

  /** AddPartitionsToTxn requests sent so far (figures, tests). */
  get requestsSent(): number {
    return this.requests;
  }

  /**
   * Verifies (or, for addPartition, adds) `keys` (tpKey) of a transaction with its coordinator on
   * broker `coordinator`; resolves with an error code per key (NONE when verified).
   */
  addOrVerifyTransaction(
    coordinator: number,
    transactionalId: string,
    producerId: number,
    producerEpoch: number,
    keys: readonly string[],
    operation: TransactionSupportedOperation,
  ): Promise<Codes> {
    let node = this.nodes.get(coordinator);
    if (!node) this.nodes.set(coordinator, (node = { pending: new Map(), inFlight: false, scheduled: false }));
    const n = node;
    return new Promise<Codes>((resolve) => {
      const existing = n.pending.get(transactionalId);
      const done = (codes: Codes): void => resolve(new Map(keys.map((k) => [k, codes.get(k) ?? ErrorCode.NONE])));
      if (existing) {
        if (existing.producerEpoch > producerEpoch) {
          resolve(allWith(keys, ErrorCode.INVALID_PRODUCER_EPOCH));
          return;
        }
        if (
          existing.producerEpoch === producerEpoch &&
          existing.producerId === producerId &&
          existing.operation === operation
        ) {
          for (const k of keys) existing.keys.add(k);
          existing.waiters.push(done);
          return;
        }
        const code =
          existing.producerEpoch < producerEpoch ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NETWORK_EXCEPTION;
        n.pending.delete(transactionalId);
        for (const w of existing.waiters) w(allWith(existing.keys, code));
      }
      n.pending.set(transactionalId, {
        transactionalId,
        producerId,
        producerEpoch,
        operation,
        keys: new Set(keys),
        waiters: [done],
      });
      this.schedule(coordinator, n);
    });
  }

  private schedule(id: number, n: Node): void {
    if (n.inFlight || n.scheduled || n.pending.size === 0) return;
    n.scheduled = true;
    setImmediate(() => {
      n.scheduled = false;
      void this.drain(id, n);
    });
  }

  private async drain(id: number, n: Node): Promise<void> {
    if (n.inFlight || n.pending.size === 0) return;
    const entries = [...n.pending.values()];
    n.pending = new Map();
    n.inFlight = true;
    try {
      const results = await this.send(id, entries);
      entries.forEach((e, i) => {
        for (const w of e.waiters) w(results[i]!);
      });
    } finally {
      n.inFlight = false;
      this.schedule(id, n);
    }
  }

  private async send(id: number, entries: readonly Entry[]): Promise<Codes[]> {
    const body = {
      transactions: entries.map((e) => {
        const topics = new Map<string, number[]>();
        for (const k of e.keys) {
          const { topic, partition } = tpOf(k);
          let ps = topics.get(topic);
          if (!ps) topics.set(topic, (ps = []));
          ps.push(partition);
        }
        return {
          transactionalId: e.transactionalId,
          producerId: BigInt(e.producerId),
          producerEpoch: e.producerEpoch,
          verifyOnly: verifyOnly(e.operation),
          topics: [...topics].map(([name, partitions]) => ({ name, partitions })),
        };
      }),
      v3AndBelowTransactionalId: '',
      v3AndBelowProducerId: 0n,
      v3AndBelowProducerEpoch: 0,
      v3AndBelowTopics: [],
    };
    this.requests++;
    let res: AddPartitionsToTxnResponse;
    try {
      res = (await this.channel.send<AddPartitionsToTxnResponse>(id, ADD_PARTITIONS_TO_TXN, body, { minVersion: 4 }))
        .body;
    } catch (e) {
      if (e instanceof UnsupportedApiError) {
        this.logger(
          'WARN',
          `AddPartitionsToTxnRequest failed for node ${id} with invalid version exception. This suggests verification is not supported. Continuing handling the produce request.`,
        );
        return entries.map(() => new Map());
      }
      if (!isNetworkFailure(e)) {
        this.logger('ERROR', `AddPartitionsToTxnRequest for node ${id} failed: ${(e as Error).stack ?? String(e)}`);
        return entries.map((x) => allWith(x.keys, ErrorCode.UNKNOWN_SERVER_ERROR));
      }
      this.logger(
        'WARN',
        `AddPartitionsToTxnRequest failed for node ${id} with a network exception: ${(e as Error).message}`,
      );
      return entries.map((x) => allWith(x.keys, ErrorCode.NETWORK_EXCEPTION));
    }
    if (res.errorCode !== ErrorCode.NONE) {
      this.logger('ERROR', `AddPartitionsToTxnRequest for node ${id} returned with error ${res.errorCode}.`);
      const code =
        res.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED ? ErrorCode.INVALID_TXN_STATE : res.errorCode;
      return entries.map((e) => allWith(e.keys, code));
    }
    const byTxn = new Map(res.resultsByTransaction.map((r) => [r.transactionalId, r]));
    return entries.map((e) => {
      const codes: Codes = new Map();
      for (const t of byTxn.get(e.transactionalId)?.topicResults ?? [])
        for (const p of t.resultsByPartition) {
          let code = p.partitionErrorCode;
          if (code === ErrorCode.NONE) continue;
          if (code === ErrorCode.PRODUCER_FENCED) code = ErrorCode.INVALID_PRODUCER_EPOCH;
          else if (code === ErrorCode.TRANSACTION_ABORTABLE && e.operation === 'defaultError')
            code = ErrorCode.INVALID_TXN_STATE;
          codes.set(tpKey(t.name, p.partitionIndex), code);
        }
      return codes;
    });
  }
}
