// AlterReplicaLogDirs (API 34), v1-2: moves this broker's replicas to other log dirs (KIP-113; Kafka's
// KafkaApis.handleAlterReplicaLogDirsRequest + ReplicaManager.alterReplicaLogDirs). Per partition:
// LOG_DIR_NOT_FOUND for a path not in log.dirs, KAFKA_STORAGE_ERROR for an unusable one,
// REPLICA_NOT_AVAILABLE when the partition has no replica here yet (it is created in that dir when it
// comes; UNKNOWN_TOPIC_OR_PARTITION when the metadata does not know it), INVALID_TOPIC_EXCEPTION when
// the future directory's name would pass 255 characters. The move itself is the log manager's
// (src/broker/log/log-manager.ts, future-log-copier.ts).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  AlterReplicaLogDirsRequest,
  AlterReplicaLogDirsResponse,
  AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResult,
} from '../../protocol/generated/protocol/AlterReplicaLogDirs.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { AlterLogDirOutcome } from '../log/log-manager.js';
import { metadataSourceOf, type BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, requireCluster } from './authz-admin.js';

/** What this handler needs of the broker's LogManager. */
export interface LogDirMover {
  alterReplicaLogDir(topic: string, partition: number, destDir: string): Promise<AlterLogDirOutcome>;
}

function moverOf(services: BrokerServices): LogDirMover | undefined {
  const lm = (services.replicas as { logManager?: Partial<LogDirMover> } | null | undefined)?.logManager;
  return lm && typeof lm.alterReplicaLogDir === 'function' ? (lm as LogDirMover) : undefined;
}

async function handle(
  _ctx: RequestContext,
  req: AlterReplicaLogDirsRequest,
  services: BrokerServices,
): Promise<AlterReplicaLogDirsResponse> {
  // AlterReplicaLogDirsRequest.partitionDirs: a partition named under two dirs goes to the last one
  const dirOf = new Map<string, { topic: string; partition: number; dir: string }>();
  for (const d of req.dirs)
    for (const t of d.topics)
      for (const p of t.partitions) dirOf.set(`${p}:${t.name}`, { topic: t.name, partition: p, dir: d.path });
  const mover = moverOf(services);
  const byTopic = new Map<string, AlterReplicaLogDirsResponseAlterReplicaLogDirTopicResult>();
  for (const { topic, partition, dir } of dirOf.values()) {
    let outcome: AlterLogDirOutcome | 'UNKNOWN_TOPIC_OR_PARTITION' = mover
      ? await mover.alterReplicaLogDir(topic, partition, dir)
      : 'LOG_DIR_NOT_FOUND';
    // getPartitionOrException: a partition the metadata does not know is UNKNOWN_TOPIC_OR_PARTITION
    // (a known one not hosted here is NOT_LEADER_OR_FOLLOWER, answered as REPLICA_NOT_AVAILABLE)
    if (outcome === 'REPLICA_NOT_AVAILABLE' && !metadataSourceOf(services).image.partition(topic, partition))
      outcome = 'UNKNOWN_TOPIC_OR_PARTITION';
    let t = byTopic.get(topic);
    if (!t) byTopic.set(topic, (t = { topicName: topic, partitions: [] }));
    t.partitions.push({ partitionIndex: partition, errorCode: ErrorCode[outcome] });
  }
  return { throttleTimeMs: 0, results: [...byTopic.values()] };
}

export const handler: ApiHandler<
  BrokerServices,
  AlterReplicaLogDirsRequest,
  Input<AlterReplicaLogDirsResponse>
> = requireCluster(
  { operations: [AclOperation.ALTER], message: null },
  {
    apiKey: ApiKey.AlterReplicaLogDirs,
    minVersion: 1, // Kafka 4 removed v0 (KIP-896)
    maxVersion: 2,
    listeners: ['broker'],
    handle,
    errorResponse: genericErrorResponse,
  },
);
