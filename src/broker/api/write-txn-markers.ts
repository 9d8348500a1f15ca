// WriteTxnMarkers (API 27), v1-2: COMMIT/ABORT markers from a transaction coordinator (or an admin
// aborting a hanging transaction, `kafka-transactions abort`) appended to partitions this broker
// leads; __consumer_offsets partitions go through the group coordinator, which also materialises
// or drops the producer's pending offsets. Partitions not led here: UNKNOWN_TOPIC_OR_PARTITION
// (KafkaApis.handleWriteTxnMarkersRequest). v2's TransactionVersion of a marker (KIP-1228) is
// accepted; the partition validates a marker's epoch the same way for every version.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  WriteTxnMarkersRequest,
  WriteTxnMarkersResponse,
} from '../../protocol/generated/protocol/WriteTxnMarkers.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import { OFFSETS_TOPIC, txnCoordinatorOf } from '../txn/broker-glue.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, requireCluster } from './authz-admin.js';

const GROUP_NOT_READY = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.NOT_COORDINATOR,
]);

async function handle(
  _ctx: RequestContext,
  req: WriteTxnMarkersRequest,
  services: BrokerServices,
): Promise<Input<WriteTxnMarkersResponse>> {
  const rm = services.replicas as ReplicaManager;
  const h = await txnCoordinatorOf(services);
  const markers = await Promise.all(
    req.markers.map(async (m) => ({
      producerId: m.producerId,
      topics: await Promise.all(
        m.topics.map(async (t) => ({
          name: t.name,
          partitions: await Promise.all(
            t.partitionIndexes.map(async (p) => {
              if (!rm.partition(t.name, p))
                return { partitionIndex: p, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
              let code = await h.writeMarker(
                t.name,
                p,
                Number(m.producerId),
                m.producerEpoch,
                m.coordinatorEpoch,
                m.transactionResult,
              );
              if (t.name === OFFSETS_TOPIC && GROUP_NOT_READY.has(code)) code = ErrorCode.NOT_LEADER_OR_FOLLOWER;
              return { partitionIndex: p, errorCode: code };
            }),
          ),
        })),
      ),
    })),
  );
  return { markers };
}

export const handler: ApiHandler<
  BrokerServices,
  WriteTxnMarkersRequest,
  Input<WriteTxnMarkersResponse>
> = requireCluster(
  { operations: [AclOperation.ALTER, AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.WriteTxnMarkers,
    minVersion: 1, // Kafka 4 removed the older versions (KIP-896)
    maxVersion: 2,
    listeners: ['broker'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
