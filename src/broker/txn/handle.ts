// What the transaction coordinator offers the API handlers once a broker has started it
// (src/broker/txn/broker-glue.ts builds it; BrokerServices.txnCoordinator holds it).
import type { TransactionVerifier } from '../replication/eos.js';
import type { TransactionalOffsetCoordinator } from './group-bridge.js';
import type { TransactionCoordinator } from './txn-coordinator.js';
import type { MarkerWriter, TransactionMarkerManager } from './txn-markers.js';
import type { SampledStat } from '../metrics/sampled.js';

export interface TxnCoordinatorHandle {
  readonly coordinator: TransactionCoordinator;
  readonly markers: TransactionMarkerManager;
  /** Appends one COMMIT/ABORT marker to a partition led here (WriteTxnMarkers uses it too). */
  readonly writeMarker: MarkerWriter;
  /** The group coordinator's transactional-offset side (or the fallback). */
  offsets(): TransactionalOffsetCoordinator;
  /** The __consumer_offsets partition of a group. */
  offsetsPartitionFor(groupId: string): number;
  /**
   * Transaction verification (AddPartitionsToTxnManager.addOrVerifyTransaction) with the transactional
   * id's coordinator, here or on another broker; the code as the produce path translates it.
   */
  verifyTransaction(...args: Parameters<TransactionVerifier>): Promise<number>;
  /** The state manager's partition load times (transaction-coordinator-metrics). */
  readonly partitionLoadTimes: SampledStat;
  shutdown(): Promise<void>;
}
