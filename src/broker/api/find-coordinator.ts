// FindCoordinator (API 10), v0-6: the leader of the key's partition of the coordinator's internal
// topic (KafkaApis.getCoordinator): GROUP keys on __consumer_offsets, TRANSACTION keys on
// __transaction_state, SHARE keys ("group:topicId:partition", v6+) on __share_group_state, partition
// abs(javaHashCode(key)) % partitions. When the internal topic does
// not exist yet it is created and the answer is COORDINATOR_NOT_AVAILABLE (the client retries).
// v4+ batches keys; v0-3 answer one key with the error message Kafka puts there.
// ACLs: DESCRIBE on the group (GROUP_AUTHORIZATION_FAILED) or transactional id
// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), per key from v4; SHARE keys (v6) CLUSTER_ACTION, else every key
// answers CLUSTER_AUTHORIZATION_FAILED.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  FindCoordinatorRequest,
  FindCoordinatorResponse,
} from '../../protocol/generated/protocol/FindCoordinator.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { coordinatorPartition } from '../../protocol/partitioner.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from './authz.js';
import { autoCreatableTopic, createTopicsOnController, imageOf } from './admin-support.js';

const GROUP = 0;
const TRANSACTION = 1;
const SHARE = 2;

interface Found {
  errorCode: number;
  nodeId: number;
  host: string;
  port: number;
}

const noNode = (errorCode: number): Found => ({ errorCode, nodeId: -1, host: '', port: -1 });

const INTERNAL_TOPICS = ['__consumer_offsets', '__transaction_state', '__share_group_state'];
const PARTITIONS_KEYS = [
  'offsets.topic.num.partitions',
  'transaction.state.log.num.partitions',
  'share.coordinator.state.topic.num.partitions',
];

/**
 * SharePartitionKey.getInstance(String): "groupId:topicId:partition" split on ':' as Java splits
 * (trailing empty parts dropped; the group id is everything before the last two parts, not blank),
 * Uuid.fromString (URL-safe base64 of 16 bytes), Integer.parseInt. Returns the key as
 * asCoordinatorKey writes it back (what the partition is computed from), or null when invalid.
 */
export function shareCoordinatorKey(key: string): string | null {
  const parts = key.split(':');
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length < 3) return null;
  const groupId = parts.slice(0, -2).join(':');
  if (groupId.trim() === '') return null;
  const topicId = parts[parts.length - 2]!;
  if (!/^[A-Za-z0-9_-]{22}(==)?$/.test(topicId)) return null;
  const partition = parts[parts.length - 1]!;
  if (!/^[+-]?\d+$/.test(partition)) return null;
  const n = Number(partition);
  if (n < -2147483648 || n > 2147483647) return null;
  return `${groupId}:${topicId.slice(0, 22)}:${n}`;
}

/** Internal topics whose creation this process started and has not seen finish. */
const creating = new Map<string, Promise<void>>();

function createInternalTopic(name: string, services: BrokerServices): void {
  if (creating.has(name)) return;
  const p = createTopicsOnController(services, [autoCreatableTopic(name, services.config)])
    .then(
      () => undefined,
      () => undefined,
    )
    .finally(() => creating.delete(name));
  creating.set(name, p);
}

/** Waits for an internal topic creation this process started (tests, and a quicker retry). */
export async function internalTopicCreations(): Promise<void> {
  await Promise.all([...creating.values()]);
}

async function findCoordinator(
  ctx: RequestContext,
  keyType: number,
  key: string,
  services: BrokerServices,
): Promise<Found> {
  // KafkaApis.getCoordinator: DESCRIBE on the group / transactional id first
  if (keyType === GROUP && !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.GROUP, key))
    return noNode(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (keyType === TRANSACTION && !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key))
    return noNode(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  if (keyType === SHARE) {
    // the partition is computed from the key as SharePartitionKey.asCoordinatorKey writes it back
    const canonical = ctx.apiVersion < 6 ? null : shareCoordinatorKey(key);
    if (canonical === null) return noNode(ErrorCode.INVALID_REQUEST);
    key = canonical;
  }
  if (keyType !== GROUP && keyType !== TRANSACTION && keyType !== SHARE) return noNode(ErrorCode.INVALID_REQUEST);
  const topicName = INTERNAL_TOPICS[keyType]!;
  const partitions = services.config.getInt(PARTITIONS_KEYS[keyType]!);
  const image = imageOf(services);
  const topic = image.topic(topicName);
  if (!topic) {
    createInternalTopic(topicName, services);
    await creating.get(topicName);
    return noNode(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  }
  const p = topic.partitions.get(coordinatorPartition(key, partitions));
  if (!p || p.leader < 0) return noNode(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const broker = image.brokers.get(p.leader);
  const endpoint = broker && !broker.fenced ? broker.endpoints.find((e) => e.name === ctx.listenerName) : undefined;
  if (!endpoint) return noNode(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  return { errorCode: ErrorCode.NONE, nodeId: p.leader, host: endpoint.host, port: endpoint.port };
}

/**
 * The node FindCoordinator(SHARE, key) answers on this broker, without a listener: what the
 * broker's persister (share/default-state-persister.ts) asks in-process. Creates
 * __share_group_state on first use (COORDINATOR_NOT_AVAILABLE until it has a leader).
 */
export async function findShareCoordinatorNode(
  services: BrokerServices,
  key: string,
): Promise<{ errorCode: number; nodeId: number }> {
  const canonical = shareCoordinatorKey(key);
  if (canonical === null) return { errorCode: ErrorCode.INVALID_REQUEST, nodeId: -1 };
  const topicName = INTERNAL_TOPICS[SHARE]!;
  const image = imageOf(services);
  const topic = image.topic(topicName);
  if (!topic) {
    createInternalTopic(topicName, services);
    await creating.get(topicName);
    return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, nodeId: -1 };
  }
  const p = topic.partitions.get(coordinatorPartition(canonical, services.config.getInt(PARTITIONS_KEYS[SHARE]!)));
  const broker = p && p.leader >= 0 ? image.brokers.get(p.leader) : undefined;
  if (!p || !broker || broker.fenced) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, nodeId: -1 };
  return { errorCode: ErrorCode.NONE, nodeId: p.leader };
}

async function handle(
  ctx: RequestContext,
  req: FindCoordinatorRequest,
  services: BrokerServices,
): Promise<Input<FindCoordinatorResponse>> {
  const v = ctx.apiVersion;
  const keyType = v >= 1 ? req.keyType : GROUP;
  if (v >= 4) {
    // KafkaApis.getCoordinator: a SHARE key (v6+) needs CLUSTER_ACTION; the exception fails the whole
    // request (FindCoordinatorResponse.prepareErrorResponse: every key, with the error's message)
    if (keyType === SHARE && v >= 6 && req.coordinatorKeys.length > 0) {
      if (!authorizeCluster(services, ctx, AclOperation.CLUSTER_ACTION)) {
        const errorCode = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
        const errorMessage = errorInfo(errorCode).message;
        return {
          throttleTimeMs: 0,
          coordinators: req.coordinatorKeys.map((key) => ({ key, ...noNode(errorCode), errorMessage })),
        };
      }
    }
    const coordinators = [];
    for (const key of req.coordinatorKeys) {
      const f = await findCoordinator(ctx, keyType, key, services);
      coordinators.push({ key, ...f, errorMessage: null });
    }
    return { throttleTimeMs: 0, coordinators };
  }
  const f = await findCoordinator(ctx, keyType, req.key, services);
  // Kafka: Errors.message() — "NONE" on success, the error's default message otherwise
  const errorMessage = f.errorCode === ErrorCode.NONE ? 'NONE' : errorInfo(f.errorCode).message;
  return { throttleTimeMs: 0, errorCode: f.errorCode, errorMessage, nodeId: f.nodeId, host: f.host, port: f.port };
}

export const handler: ApiHandler<BrokerServices, FindCoordinatorRequest, Input<FindCoordinatorResponse>> = {
  apiKey: ApiKey.FindCoordinator,
  minVersion: 0,
  maxVersion: 6,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
