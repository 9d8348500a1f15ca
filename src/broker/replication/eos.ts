// Exactly-once support on the partition data plane: the ProducerStateHook that checks every
// produced batch against the partition's producer state (duplicates of the last five batches are
// answered with their original offsets; sequence gaps, stale epochs and non-transactional writes
// inside a transaction fail as in Kafka), optional transaction verification against the local
// transaction coordinator (KIP-890: a transactional batch that starts a transaction on a partition
// must belong to a partition the coordinator added), and the aborted-transaction list of
// READ_COMMITTED fetches from the `.txnindex`.

import { ErrorCode } from '../../protocol/errors.js';
import { RECORD_BATCH_OVERHEAD } from '../../protocol/records/layout.js';
import { storedBatchLastOffset, storedBatchSize } from '../../protocol/records/batch.js';
import { parseEndTxnMarker } from '../log/producer-state-manager.js';
import type { BatchHeaderInfo } from '../log/producer-state.js';
import type { PartitionLog } from '../log/partition-log.js';
import type {
  BrokerConfigLike,
  ProducerBatch,
  ProducerStateHook,
  ProducerVerdict,
  TransactionSupportedOperation,
} from './types.js';

/**
 * Asks the transaction coordinator whether a transactional batch may start a transaction on a
 * partition (or, for `addPartition`, adds the partition to the transaction): NONE when the
 * partition is part of the producer's ongoing transaction, else the error the broker reports
 * (AddPartitionsToTxnManager's translation: PRODUCER_FENCED as INVALID_PRODUCER_EPOCH,
 * TRANSACTION_ABORTABLE as INVALID_TXN_STATE for defaultError; CONCURRENT_TRANSACTIONS,
 * INVALID_PRODUCER_ID_MAPPING, COORDINATOR_LOAD_IN_PROGRESS, ... as they are).
 */
export type TransactionVerifier = (
  transactionalId: string,
  producerId: number,
  producerEpoch: number,
  topic: string,
  partition: number,
  operation: TransactionSupportedOperation,
) => Promise<number> | number;

export interface EosHook extends ProducerStateHook {
  /** set by the transaction coordinator when it starts (transaction.partition.verification.enable) */
  verifier: TransactionVerifier | undefined;
}

export interface EosHookOptions {
  config?: BrokerConfigLike;
  verifier?: TransactionVerifier;
}

const RETRIABLE_VERIFICATION = new Set<number>([
  ErrorCode.CONCURRENT_TRANSACTIONS,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

/** ReplicaManager's translation of verification errors into produce errors clients handle. */
export function verificationErrorForProduce(code: number): { errorCode: number; message: string } {
  if (code === ErrorCode.INVALID_TXN_STATE) {
    return { errorCode: ErrorCode.INVALID_TXN_STATE, message: 'Partition was not added to the transaction' };
  }
  if (code === ErrorCode.TRANSACTION_ABORTABLE)
    return { errorCode: code, message: 'Failed to add the partition to the transaction' };
  if (code === ErrorCode.PRODUCER_FENCED || code === ErrorCode.INVALID_PRODUCER_EPOCH)
    return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, message: 'Producer attempted to produce with an old epoch.' };
  if (RETRIABLE_VERIFICATION.has(code)) {
    return {
      errorCode: ErrorCode.NOT_ENOUGH_REPLICAS,
      message: `Unable to verify the partition has been added to the transaction. Underlying error: ${code}`,
    };
  }
  return { errorCode: code, message: 'transaction verification failed' };
}

function configInt(config: BrokerConfigLike | undefined, name: string): number | undefined {
  try {
    return config?.getInt?.(name);
  } catch {
    return undefined;
  }
}

function configBool(config: BrokerConfigLike | undefined, name: string, dflt: boolean): boolean {
  const c = config as { getBoolean?: (n: string) => boolean } | undefined;
  try {
    return c?.getBoolean?.(name) ?? dflt;
  } catch {
    return dflt;
  }
}

function headerOf(pb: ProducerBatch): BatchHeaderInfo {
  const b = pb.batch;
  return {
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    baseSequence: b.baseSequence,
    recordCount: b.recordCount,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    maxTimestamp: b.maxTimestamp,
  };
}

export function createProducerStateHook(opts: EosHookOptions = {}): EosHook {
  const expirationMs = configInt(opts.config, 'producer.id.expiration.ms');
  const checkIntervalMs = configInt(opts.config, 'producer.id.expiration.check.interval.ms');
  const verificationEnabled = configBool(opts.config, 'transaction.partition.verification.enable', true);
  const hook: EosHook = {
    verifier: opts.verifier,
    async beforeAppend(pb: ProducerBatch): Promise<ProducerVerdict> {
      const log = pb.partition.log;
      const psm = log.producerState;
      if (!psm) return { kind: 'append' };
      if (expirationMs !== undefined) psm.states.expirationMs = expirationMs;
      if (checkIntervalMs !== undefined) psm.expirationCheckIntervalMs = checkIntervalMs;
      psm.maybeRemoveExpired();
      const h = headerOf(pb);
      if (h.producerId < 0) return { kind: 'append' };
      const marker = h.isControl ? parseEndTxnMarker(pb.batch.records, 0) : undefined;
      const offset = log.logEndOffset;
      const v = psm.states.validate(h, offset, pb.origin, marker);
      if (v.kind === 'duplicate') return { kind: 'duplicate', baseOffset: v.firstOffset, logAppendTime: v.timestamp };
      if (v.kind === 'error') return { kind: 'error', errorCode: v.errorCode, message: v.message };
      const verifier = hook.verifier;
      if (
        verifier &&
        verificationEnabled &&
        pb.origin === 'client' &&
        h.isTransactional &&
        !h.isControl &&
        pb.transactionalId !== null &&
        !psm.states.hasOngoingTransaction(h.producerId, h.producerEpoch)
      ) {
        const code = await verifier(
          pb.transactionalId,
          h.producerId,
          h.producerEpoch,
          pb.partition.topic,
          pb.partition.index,
          pb.transactionSupportedOperation ?? 'defaultError',
        );
        if (code !== ErrorCode.NONE) return { kind: 'error', ...verificationErrorForProduce(code) };
      }
      return { kind: 'append' };
    },
    afterAppend(): void {
      // the log itself feeds appended batches into the producer state (PartitionLog.doAppend)
    },
  };
  return hook;
}

/** The hook partitions use when the replica manager was given none: idempotence without verification. */
export const DEFAULT_PRODUCER_STATE_HOOK: EosHook = createProducerStateHook();

/**
 * The aborted transactions a READ_COMMITTED fetch returns with `records` read from fetchOffset:
 * those overlapping the offsets the records cover (UnifiedLog.collectAbortedTransactions).
 */
export function abortedTransactionsIn(
  log: PartitionLog,
  fetchOffset: number,
  records: Buffer,
): { producerId: number; firstOffset: number }[] {
  const psm = log.producerState;
  if (!psm || psm.txnIndex.size === 0 || records.length < RECORD_BATCH_OVERHEAD) return [];
  let upper = fetchOffset;
  for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= records.length;) {
    const size = storedBatchSize(records, pos);
    const last = storedBatchLastOffset(records, pos);
    if (last + 1 > upper) upper = last + 1;
    if (size <= 0) break;
    pos += size;
  }
  return psm.txnIndex
    .collect(fetchOffset, upper)
    .map((e) => ({ producerId: e.producerId, firstOffset: e.firstOffset }));
}
