// Registers the transaction APIs: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
// WriteTxnMarkers, TxnOffsetCommit, DescribeProducers, DescribeTransactions, ListTransactions (broker
// listeners), and AllocateProducerIds (controller listener).
// They reach the transaction coordinator through `services.txnCoordinator` (src/broker/txn/broker-glue.ts:
// startTxnCoordinator / txnCoordinatorOf).
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as initProducerId } from './init-producer-id.js';
import { handler as addPartitionsToTxn } from './add-partitions-to-txn.js';
import { handler as addOffsetsToTxn } from './add-offsets-to-txn.js';
import { handler as endTxn } from './end-txn.js';
import { handler as writeTxnMarkers } from './write-txn-markers.js';
import { handler as txnOffsetCommit } from './txn-offset-commit.js';
import { handler as describeProducers } from './describe-producers.js';
import { handler as describeTransactions } from './describe-transactions.js';
import { handler as listTransactions } from './list-transactions.js';
import { handler as allocateProducerIds } from './allocate-producer-ids.js';

export const TXN_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  initProducerId,
  addPartitionsToTxn,
  addOffsetsToTxn,
  endTxn,
  writeTxnMarkers,
  txnOffsetCommit,
  describeProducers,
  describeTransactions,
  listTransactions,
  allocateProducerIds,
];

export function registerTxnHandlers(registry: HandlerRegistry): HandlerRegistry {
  for (const h of TXN_HANDLERS) registry.register(h);
  return registry;
}
