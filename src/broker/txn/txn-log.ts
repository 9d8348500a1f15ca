// Records of __transaction_state (Kafka's TransactionLog): key = int16 version (0) +
// TransactionLogKey {transactionalId}; value = int16 version + TransactionLogValue, v0 unless the
// cluster's transaction.version is at least 1 (then v1, flexible, with the previous/next producer
// ids and the client transaction version as tagged fields). A null value is a tombstone (an
// expired transactional id). Partitions: abs(transactionalId.hashCode()) % partitions.

import { Reader } from '../../protocol/codec/reader.js';
import { Writer } from '../../protocol/codec/writer.js';
import { TRANSACTION_LOG_RECORDS } from '../../protocol/generated/records.js';
import type { TransactionLogValue } from '../../protocol/generated/txn/TransactionLog.js';
import { coordinatorPartition } from '../../protocol/partitioner.js';
import { NO_PRODUCER_EPOCH, TransactionMetadata, type TxnTransit, TxnState, tpKey, tpOf } from './txn-metadata.js';

export const TRANSACTION_STATE_TOPIC = '__transaction_state';
const SPEC = TRANSACTION_LOG_RECORDS[0]!;

export function partitionFor(transactionalId: string, numPartitions: number): number {
  return coordinatorPartition(transactionalId, numPartitions);
}

export function encodeKey(transactionalId: string): Buffer {
  const w = new Writer(32 + transactionalId.length * 3);
  w.int16(0);
  SPEC.key.write(w, 0, { transactionalId });
  return w.toBuffer();
}

/** TransactionVersion.transactionLogValueVersion: v1 from transaction.version 1. */
export const valueVersionFor = (transactionVersionLevel: number): number => (transactionVersionLevel >= 1 ? 1 : 0);

export function encodeValue(t: TxnTransit, valueVersion: number): Buffer {
  if (t.txnState === TxnState.Empty && t.topicPartitions.size > 0) {
    throw new Error(
      `Transaction is not expected to have any partitions since its state is Empty: ${[...t.topicPartitions].length} partitions`,
    );
  }
  let partitions: { topic: string; partitionIds: number[] }[] | null = null;
  if (t.txnState !== TxnState.Empty) {
    const byTopic = new Map<string, number[]>();
    for (const k of t.topicPartitions) {
      const { topic, partition } = tpOf(k);
      let ids = byTopic.get(topic);
      if (!ids) byTopic.set(topic, (ids = []));
      ids.push(partition);
    }
    partitions = [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds }));
  }
  const flexible = valueVersion >= 1;
  const value: Partial<TransactionLogValue> = {
    producerId: BigInt(t.producerId),
    previousProducerId: flexible ? BigInt(t.prevProducerId) : -1n,
    nextProducerId: flexible ? BigInt(t.nextProducerId) : -1n,
    producerEpoch: t.producerEpoch,
    transactionTimeoutMs: t.txnTimeoutMs,
    transactionStatus: t.txnState,
    transactionPartitions: partitions,
    transactionLastUpdateTimestampMs: BigInt(t.txnLastUpdateTimestamp),
    transactionStartTimestampMs: BigInt(t.txnStartTimestamp),
    clientTransactionVersion: flexible ? t.clientTransactionVersion : 0,
  };
  const w = new Writer(128);
  w.int16(valueVersion);
  SPEC.value!.write(w, valueVersion, value);
  return w.toBuffer();
}

/** The transactional id of a key, or undefined for an unknown key version. */
export function decodeKey(key: Buffer): string | undefined {
  const r = new Reader(key);
  const version = r.int16();
  if (version < SPEC.key.minVersion || version > SPEC.key.maxVersion) return undefined;
  return (SPEC.key.read(r, version) as { transactionalId: string }).transactionalId;
}

/** The metadata a value describes (TransactionLog.readTxnRecordValue); null for a tombstone. */
export function decodeValue(transactionalId: string, value: Buffer | null): TransactionMetadata | null {
  if (value === null) return null;
  const r = new Reader(value);
  const version = r.int16();
  if (version < SPEC.value!.minVersion || version > SPEC.value!.maxVersion)
    throw new Error(`Unknown version ${version} from the transaction log message value`);
  const v = SPEC.value!.read(r, version) as TransactionLogValue;
  const m = new TransactionMetadata(
    transactionalId,
    Number(v.producerId),
    Number(v.previousProducerId),
    Number(v.nextProducerId),
    v.producerEpoch,
    NO_PRODUCER_EPOCH,
    v.transactionTimeoutMs,
    v.transactionStatus as TxnState,
    Number(v.transactionStartTimestampMs),
    Number(v.transactionLastUpdateTimestampMs),
    v.clientTransactionVersion,
  );
  if (m.state !== TxnState.Empty) {
    for (const p of v.transactionPartitions ?? [])
      for (const id of p.partitionIds) m.topicPartitions.add(tpKey(p.topic, id));
  }
  return m;
}
