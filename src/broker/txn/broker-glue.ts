// Wiring of the transaction coordinator into a broker: __transaction_state through the
// ReplicaManager (acks=all appends, reads of the partition log), producer id blocks from the KRaft
// controller, markers appended through the ReplicaManager (and, for __consumer_offsets, through the
// group coordinator), a metadata publisher that loads a __transaction_state partition when this
// node leads it and unloads it when it stops, the periodic abort of timed-out transactions and
// expiration of idle transactional ids, and transaction verification on the produce path. Markers for
// partitions led by other brokers go there as WriteTxnMarkers (marker-channel.ts), and verification
// of a transaction whose coordinator is another broker asks it with AddPartitionsToTxn
// (add-partitions-manager.ts), both over inter.broker.listener.name (inter-broker-channel.ts). The
// coordinator lives in `services.txnCoordinator` (this module is its only writer).

import { ErrorCode } from '../../protocol/errors.js';
import { buildEndTxnMarker, buildRecordBatch } from '../../protocol/records/batch.js';
import type { MetadataImage } from '../metadata/image.js';
import type { MetadataPublisher, MetadataUpdate } from '../metadata/events.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { EosHook, TransactionVerifier } from '../replication/eos.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import { groupCoordinatorOf } from '../group/broker-glue.js';
import {
  FallbackTxnOffsets,
  isTransactionalOffsetCoordinator,
  type TransactionalOffsetCoordinator,
} from './group-bridge.js';
import { AddPartitionsBatcher } from './add-partitions-batcher.js';
import { AddPartitionsToTxnManager } from './add-partitions-manager.js';
import { brokerChannel } from './inter-broker-channel.js';
import { TxnMarkerChannel } from './marker-channel.js';
import { ProducerIdManager } from './producer-id-manager.js';
import { TransactionCoordinator } from './txn-coordinator.js';
import { TRANSACTION_STATE_TOPIC, valueVersionFor } from './txn-log.js';
import { type MarkerWriter, TransactionMarkerManager } from './txn-markers.js';
import { tpKey } from './txn-metadata.js';
import { readAllRecords, TransactionStateManager, type TxnLogIO } from './txn-state-manager.js';
import type { TxnCoordinatorHandle } from './handle.js';

export const OFFSETS_TOPIC = '__consumer_offsets';
export type { TxnCoordinatorHandle };

export interface StartTxnCoordinatorOptions {
  logger?: (level: string, msg: string) => void;
  /** the ReplicaManager's producer-state hook: the coordinator installs transaction verification on it */
  hook?: EosHook;
  clock?: () => number;
}

const starting = new WeakMap<BrokerServices, Promise<TxnCoordinatorHandle>>();

function transactionVersionLevel(image: MetadataImage): number {
  return image.features.get('transaction.version') ?? 0;
}

/**
 * Creates the transaction coordinator of a broker and subscribes it to metadata (call once at
 * startup, after the broker's partition publisher and the group coordinator).
 */
export function startTxnCoordinator(
  services: BrokerServices,
  opts: StartTxnCoordinatorOptions = {},
): Promise<TxnCoordinatorHandle> {
  const already = starting.get(services);
  if (already) return already;
  const p = start(services, opts);
  starting.set(services, p);
  return p;
}

async function start(services: BrokerServices, opts: StartTxnCoordinatorOptions): Promise<TxnCoordinatorHandle> {
  const logger = opts.logger ?? (() => undefined);
  const clock = opts.clock ?? Date.now;
  const controller = metadataSourceOf(services);
  const replicas = services.replicas as ReplicaManager;
  const config = services.config;
  const timeoutMs = config.getInt('request.timeout.ms');
  const loadBufferSize = config.getInt('transaction.state.log.load.buffer.size');

  const io: TxnLogIO = {
    async append(partition, records) {
      const now = clock();
      const batch = await buildRecordBatch({
        records: records.map((r) => ({ key: r.key, value: r.value, timestamp: now })),
      });
      const r = await replicas.appendRecords(TRANSACTION_STATE_TOPIC, partition, batch, {
        acks: -1,
        timeoutMs,
        origin: 'coordinator',
        internalTopicsAllowed: true,
      });
      return r.errorCode;
    },
    async read(partition, onRecord) {
      const part = replicas.partition(TRANSACTION_STATE_TOPIC, partition);
      if (!part) throw new Error(`${TRANSACTION_STATE_TOPIC}-${partition} is not led here`);
      const end = part.log.logEndOffset;
      await readAllRecords(
        async (offset) => {
          if (part.closed || offset >= end) return undefined;
          const r = await part.log.read(offset, loadBufferSize, { maxOffset: end, minOneMessage: true });
          if (r.error) throw new Error(`reading ${TRANSACTION_STATE_TOPIC}-${partition} at ${offset}: ${r.error}`);
          return { records: r.records, end };
        },
        part.log.logStartOffset,
        onRecord,
      );
    },
  };
  const stateManager = new TransactionStateManager({
    io,
    numPartitions: config.getInt('transaction.state.log.num.partitions'),
    maxTimeoutMs: config.getInt('transaction.max.timeout.ms'),
    idExpirationMs: config.getInt('transactional.id.expiration.ms'),
    valueVersion: () => valueVersionFor(transactionVersionLevel(controller.image)),
    clock,
    logger,
  });
  // a broker-only node asks the active controller (AllocateProducerIds), a combined node its own
  const remote = services.remote;
  const allocateProducerIds = remote
    ? () => remote.allocateProducerIds()
    : () => services.controller.allocateProducerIds();
  const producerIds = new ProducerIdManager({ allocateProducerIds }, logger);

  let fallback: FallbackTxnOffsets | undefined;
  const offsetsPartitions = config.getInt('offsets.topic.num.partitions');
  const offsets = (): TransactionalOffsetCoordinator => {
    const gc = services.groupCoordinator;
    if (isTransactionalOffsetCoordinator(gc)) return gc;
    fallback ??= new FallbackTxnOffsets(
      async () => await groupCoordinatorOf(services),
      replicas,
      offsetsPartitions,
      config.getInt('offset.metadata.max.bytes'),
      timeoutMs,
    );
    return fallback;
  };

  const nodeId = services.nodeId;
  // two sets of connections, as Kafka's two NetworkClients: a broker serves one request of a connection
  // at a time, and a marker waits for its partition's appends, which may wait for a verification
  const channel = brokerChannel(services, 'txn-marker-sender');
  const verifyChannel = brokerChannel(services, 'add-partitions-sender');
  const markerChannel = new TxnMarkerChannel(channel, logger);
  const addPartitionsManager = new AddPartitionsToTxnManager(verifyChannel, logger);

  /** Appends a marker to a partition led here (also what WriteTxnMarkers does). */
  const writeMarker: MarkerWriter = async (topic, partition, producerId, producerEpoch, coordinatorEpoch, commit) => {
    if (topic === OFFSETS_TOPIC)
      return offsets().completeTransaction(partition, producerId, producerEpoch, coordinatorEpoch, commit);
    const marker = buildEndTxnMarker({ producerId, producerEpoch, coordinatorEpoch, commit, timestamp: clock() });
    const r = await replicas.appendRecords(topic, partition, marker, {
      acks: -1,
      timeoutMs,
      origin: 'coordinator',
      internalTopicsAllowed: true,
    });
    return r.errorCode;
  };

  /**
   * A marker to the partition's leader as the latest image names it (getPartitionLeaderEndpoint): here
   * appended, elsewhere sent; no leader or no endpoint on the inter-broker listener yet: retried (Kafka's
   * queue for unknown brokers) as NOT_LEADER_OR_FOLLOWER.
   */
  const routeMarker: MarkerWriter = async (topic, partition, producerId, producerEpoch, coordinatorEpoch, commit) => {
    const leader = controller.image.partition(topic, partition)?.leader ?? -1;
    if (leader === nodeId) return writeMarker(topic, partition, producerId, producerEpoch, coordinatorEpoch, commit);
    if (leader < 0 || !channel.endpointOf(leader)) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    return markerChannel.write(leader, { topic, partition, producerId, producerEpoch, coordinatorEpoch, commit });
  };

  const markers = new TransactionMarkerManager({
    write: routeMarker,
    stateManager,
    partitionExists: (topic, partition) => controller.image.partition(topic, partition) !== undefined,
    logger,
  });
  const coordinator = new TransactionCoordinator({
    stateManager,
    producerIds,
    markers,
    clock,
    logger,
    endTxnMarkerWaitMs: 2000,
    transactionVersionLevel: () => transactionVersionLevel(controller.image),
  });

  const adds = new AddPartitionsBatcher((transactionalId, producerId, producerEpoch, keys) =>
    coordinator.handleAddPartitions(transactionalId, producerId, producerEpoch, keys, 2),
  );
  // ReplicaManager.maybeRetryOnConcurrentTransactions (Kafka 4.4): an add (V2) that meets the
  // transaction's pending transition (another broker's add, the EndTxn of the previous transaction)
  // is retried on the broker every add.partitions.to.txn.retry.backoff.ms while
  // add.partitions.to.txn.retry.backoff.max.ms has not passed, instead of answering the client the
  // retriable NOT_ENOUGH_REPLICAS (whose retry.backoff.ms is 100 ms)
  const addRetryBackoffMs = config.getInt('add.partitions.to.txn.retry.backoff.ms');
  const addRetryMaxMs = Math.min(config.getInt('add.partitions.to.txn.retry.backoff.max.ms'), timeoutMs);
  const verifyTransaction: TransactionVerifier = async (...args) => {
    const started = clock();
    for (;;) {
      const code = await verifyOnce(...args);
      if (code !== ErrorCode.CONCURRENT_TRANSACTIONS || args[5] !== 'addPartition') return code;
      if (clock() - started >= addRetryMaxMs) return code;
      await new Promise((r) => setTimeout(r, addRetryBackoffMs));
    }
  };
  const verifyOnce: TransactionVerifier = async (
    transactionalId,
    producerId,
    producerEpoch,
    topic,
    partition,
    operation,
  ) => {
    const key = tpKey(topic, partition);
    // AddPartitionsToTxnManager.getTransactionCoordinator: the leader of the id's __transaction_state partition
    const coordinatorNode =
      controller.image.partition(TRANSACTION_STATE_TOPIC, stateManager.partitionFor(transactionalId))?.leader ?? -1;
    if (coordinatorNode !== nodeId) {
      // getAliveBrokerNode: registered, not fenced, with an endpoint on the inter-broker listener
      if (coordinatorNode < 0 || controller.image.broker(coordinatorNode)?.fenced !== false)
        return ErrorCode.COORDINATOR_NOT_AVAILABLE;
      if (!verifyChannel.endpointOf(coordinatorNode)) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
      const codes = await addPartitionsManager.addOrVerifyTransaction(
        coordinatorNode,
        transactionalId,
        producerId,
        producerEpoch,
        [key],
        operation,
      );
      return codes.get(key) ?? ErrorCode.NONE;
    }
    // verifyOnly unless the operation adds (V2); the answer translated for the produce path
    const code =
      operation === 'addPartition'
        ? await adds.addPartition(transactionalId, producerId, producerEpoch, key)
        : (coordinator.verifyPartitions(transactionalId, producerId, producerEpoch, [key]).get(key) ??
          ErrorCode.UNKNOWN_SERVER_ERROR);
    if (code === ErrorCode.PRODUCER_FENCED) return ErrorCode.INVALID_PRODUCER_EPOCH;
    if (code === ErrorCode.TRANSACTION_ABORTABLE && operation === 'defaultError') return ErrorCode.INVALID_TXN_STATE;
    return code;
  };
  if (opts.hook) opts.hook.verifier = verifyTransaction;

  const load = (partition: number, epoch: number): void => {
    void stateManager.loadPartition(partition, epoch).then(
      (loaded) => coordinator.onPartitionLoaded(epoch, loaded),
      (e: unknown) => logger('WARN', `Failed to load ${TRANSACTION_STATE_TOPIC}-${partition}: ${(e as Error).message}`),
    );
  };
  const publisher: MetadataPublisher = {
    name: 'txn-coordinator',
    onMetadataUpdate: (u: MetadataUpdate) => {
      for (const ev of u.events) {
        if (ev.type === 'partitionsCreated' && ev.topic.name === TRANSACTION_STATE_TOPIC) {
          for (const part of ev.partitions) if (part.leader === nodeId) load(part.partitionId, part.leaderEpoch);
        } else if (ev.type === 'partitionsChanged' && ev.topic.name === TRANSACTION_STATE_TOPIC) {
          for (const { previous, current } of ev.partitions) {
            if (
              current.leader === nodeId &&
              (previous.leader !== nodeId || previous.leaderEpoch !== current.leaderEpoch)
            )
              load(current.partitionId, current.leaderEpoch);
            else if (current.leader !== nodeId && previous.leader === nodeId)
              stateManager.removePartition(current.partitionId);
          }
        } else if (ev.type === 'topicDeleted' && ev.topic.name === TRANSACTION_STATE_TOPIC) {
          for (const id of ev.topic.partitions.keys()) stateManager.removePartition(id);
        }
      }
    },
  };
  coordinator.startup();
  await controller.addPublisher(publisher);

  const every = (ms: number, task: () => Promise<unknown>): ReturnType<typeof setInterval> => {
    let running = false;
    const t = setInterval(() => {
      if (running) return;
      running = true;
      task()
        .catch((e: unknown) => logger('WARN', `transaction coordinator task failed: ${(e as Error).message}`))
        .finally(() => {
          running = false;
        });
    }, ms);
    t.unref?.();
    return t;
  };
  const timers = [
    every(config.getInt('transaction.abort.timed.out.transaction.cleanup.interval.ms'), () =>
      coordinator.abortTimedOutTransactions(),
    ),
    every(config.getInt('transaction.remove.expired.transaction.cleanup.interval.ms'), () =>
      coordinator.removeExpiredTransactionalIds(),
    ),
  ];

  const handle: TxnCoordinatorHandle = {
    coordinator,
    markers,
    writeMarker,
    offsets,
    offsetsPartitionFor: (groupId) => offsets().partitionFor(groupId),
    verifyTransaction: async (...args) => verifyTransaction(...args),
    partitionLoadTimes: stateManager.partitionLoadTimes,
    async shutdown() {
      for (const t of timers) clearInterval(t);
      if (opts.hook) opts.hook.verifier = undefined;
      coordinator.shutdown();
      channel.close();
      verifyChannel.close();
      await controller.removePublisher(publisher);
      services.txnCoordinator = null;
      starting.delete(services);
    },
  };
  services.txnCoordinator = handle;
  return handle;
}

/** The broker's transaction coordinator; started on first use when the server did not start it. */
export async function txnCoordinatorOf(services: BrokerServices): Promise<TxnCoordinatorHandle> {
  if (services.txnCoordinator) return services.txnCoordinator;
  return startTxnCoordinator(services);
}
