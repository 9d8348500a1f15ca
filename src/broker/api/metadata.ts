// Metadata (API 3), v0-13: brokers on the request's listener, cluster id, a controller id, and
// topic/partition state from the metadata image, with auto-creation of unknown topics through the
// controller (Kafka's KafkaApis.handleTopicMetadataRequest, KRaftMetadataCache.getTopicMetadata,
// AutoTopicCreationManager). With an authorizer: DESCRIBE on each topic (the others are
// TOPIC_AUTHORIZATION_FAILED, or absent from an all-topics answer), CREATE on the cluster or the topic
// to auto-create it, and the authorized-operations bit fields from the principal's ACLs.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  MetadataRequest,
  MetadataResponse,
  MetadataResponsePartition,
  MetadataResponseTopic,
} from '../../protocol/generated/protocol/Metadata.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { MetadataImage } from '../metadata/image.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { errorResponseAs, genericErrorResponse } from './error-responses.js';
import {
  AUTHORIZED_OPERATIONS_OMITTED,
  aliveBrokerNodes,
  autoCreatableTopic,
  createTopicsOnController,
  imageOf,
  invalidTopicReason,
  isInternalTopic,
  leaderOnListener,
  offlineReplicas,
  randomAliveBrokerId,
  sortedPartitions,
} from './admin-support.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import {
  AclOperation,
  ResourceType,
  authorize,
  authorizeCluster,
  clusterAuthorizedOperations,
  topicAuthorizedOperations,
} from './authz.js';

type Topic = MetadataResponseTopic;
type Partition = MetadataResponsePartition;

/** Topics whose auto-creation this process has sent to the controller and not seen finish. */
const inflightTopics = new Set<string>();

function topicEntry(
  errorCode: number,
  name: string | null,
  topicId: string,
  isInternal: boolean,
  partitions: Partition[] = [],
): Topic {
  return { errorCode, name, topicId, isInternal, partitions, topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

/** A v0 response lists only replicas on live brokers reachable on the listener (errorUnavailableEndpoints). */
function filterAlive(image: MetadataImage, ids: readonly number[], listener: string, filter: boolean): number[] {
  if (!filter) return ids.slice();
  return ids.filter((id) => {
    const b = image.brokers.get(id);
    return b !== undefined && !b.fenced && b.endpoints.some((e) => e.name === listener);
  });
}

/** KRaftMetadataCache.getPartitionMetadata for one existing topic. */
function partitionsOf(image: MetadataImage, name: string, listener: string, version: number): Partition[] {
  const topic = image.topic(name)!;
  const errorUnavailableEndpoints = version === 0;
  const errorUnavailableListeners = version >= 6;
  return sortedPartitions(topic.partitions).map((p): Partition => {
    const replicaNodes = filterAlive(image, p.replicas, listener, errorUnavailableEndpoints);
    const isrNodes = filterAlive(image, p.isr, listener, errorUnavailableEndpoints);
    const base = {
      partitionIndex: p.partitionId,
      leaderEpoch: p.leaderEpoch,
      replicaNodes,
      isrNodes,
      offlineReplicas: offlineReplicas(image, p, listener),
    };
    if (!leaderOnListener(image, p.leader, listener)) {
      const error = !image.brokers.has(p.leader)
        ? ErrorCode.LEADER_NOT_AVAILABLE
        : errorUnavailableListeners
          ? ErrorCode.LISTENER_NOT_FOUND
          : ErrorCode.LEADER_NOT_AVAILABLE;
      return { errorCode: error, leaderId: -1, ...base };
    }
    const incomplete = replicaNodes.length < p.replicas.length || isrNodes.length < p.isr.length;
    return { errorCode: incomplete ? ErrorCode.REPLICA_NOT_AVAILABLE : ErrorCode.NONE, leaderId: p.leader, ...base };
  });
}

function existingTopic(image: MetadataImage, name: string, listener: string, version: number): Topic {
  return topicEntry(
    ErrorCode.NONE,
    name,
    image.topic(name)!.id,
    isInternalTopic(name),
    partitionsOf(image, name, listener, version),
  );
}

/**
 * AutoTopicCreationManager.createTopics as a KRaft broker does it: valid names not already in
 * flight go to the controller; the answer is UNKNOWN_TOPIC_OR_PARTITION (the client retries and
 * finds the topic), INVALID_TOPIC_EXCEPTION for invalid names. Unlike Kafka, which does not wait
 * for the controller, the creation is awaited so the client's retry sees the new topic.
 */
async function autoCreate(names: string[], services: BrokerServices): Promise<Topic[]> {
  const out: Topic[] = [];
  const creatable: string[] = [];
  for (const name of names) {
    if (invalidTopicReason(name) !== null)
      out.push(topicEntry(ErrorCode.INVALID_TOPIC_EXCEPTION, name, ZERO_UUID, isInternalTopic(name)));
    else if (inflightTopics.has(name))
      out.push(topicEntry(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, ZERO_UUID, isInternalTopic(name)));
    else creatable.push(name);
  }
  if (creatable.length === 0) return out;
  for (const n of creatable) inflightTopics.add(n);
  try {
    await createTopicsOnController(
      services,
      creatable.map((n) => autoCreatableTopic(n, services.config)),
    );
  } catch {
    // Kafka only logs a failed auto-creation; the client sees UNKNOWN_TOPIC_OR_PARTITION and retries.
  } finally {
    for (const n of creatable) inflightTopics.delete(n);
  }
  for (const n of creatable)
    out.push(topicEntry(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, n, ZERO_UUID, isInternalTopic(n)));
  return out;
}

async function handle(
  ctx: RequestContext,
  req: MetadataRequest,
  services: BrokerServices,
): Promise<Input<MetadataResponse>> {
  const v = ctx.apiVersion;
  const allTopics = req.topics === null || (v === 0 && req.topics.length === 0);
  if (!allTopics) {
    for (const t of req.topics!) {
      if ((t.name === null && v < 12) || (t.topicId !== ZERO_UUID && v < 12)) {
        // InvalidRequestException from handleTopicMetadataRequest: MetadataRequest.getErrorResponse.
        return errorResponseAs<Input<MetadataResponse>>(ApiKey.Metadata, req, ErrorCode.INVALID_REQUEST, v);
      }
    }
  }
  const image = imageOf(services);
  const listener = ctx.listenerName;

  const topicIds = allTopics ? [] : [...new Set(req.topics!.map((t) => t.topicId).filter((id) => id !== ZERO_UUID))];
  const useTopicIds = topicIds.length > 0;
  const unknownIdEntries = topicIds
    .filter((id) => !image.topicById(id))
    .map((id) => topicEntry(ErrorCode.UNKNOWN_TOPIC_ID, null, id, false));

  let names: string[];
  if (allTopics) names = [...image.topicsByName.keys()].sort();
  else if (useTopicIds)
    names = topicIds.map((id) => image.topicById(id)?.name).filter((n): n is string => n !== undefined);
  else names = [...new Set(req.topics!.map((t) => t.name as string))];

  // DESCRIBE on each topic: the others are answered TOPIC_AUTHORIZATION_FAILED (without their id, or
  // without their name when asked by id), or left out of an all-topics answer
  const unauthorizedForDescribe = names.filter(
    (n) => !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, n),
  );
  names = names.filter((n) => !unauthorizedForDescribe.includes(n));
  const autoCreation =
    !allTopics && services.config.getBoolean('auto.create.topics.enable') && req.allowAutoTopicCreation;
  // auto-creation needs CREATE on the cluster or on the topic
  let unauthorizedForCreate: string[] = [];
  if (autoCreation && !authorizeCluster(services, ctx, AclOperation.CREATE)) {
    unauthorizedForCreate = names.filter(
      (n) => !image.topicsByName.has(n) && !authorize(services, ctx, AclOperation.CREATE, ResourceType.TOPIC, n),
    );
    names = names.filter((n) => !unauthorizedForCreate.includes(n));
  }

  const existing = names.filter((n) => image.topicsByName.has(n));
  const missing = names.filter((n) => !image.topicsByName.has(n));
  const topics: Topic[] = existing.map((n) => existingTopic(image, n, listener, v));
  if (!allTopics && missing.length > 0) {
    if (autoCreation) {
      topics.push(...(await autoCreate(missing, services)));
    } else {
      for (const n of missing) {
        const error =
          invalidTopicReason(n) === null ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.INVALID_TOPIC_EXCEPTION;
        topics.push(topicEntry(error, n, ZERO_UUID, isInternalTopic(n)));
      }
    }
  }
  if (v >= 8 && req.includeTopicAuthorizedOperations) {
    for (const t of topics) t.topicAuthorizedOperations = topicAuthorizedOperations(services, ctx, t.name ?? '');
  }
  for (const n of unauthorizedForCreate)
    topics.push(topicEntry(ErrorCode.TOPIC_AUTHORIZATION_FAILED, n, ZERO_UUID, isInternalTopic(n)));
  // an all-topics request does not disclose the topics it may not describe
  if (!allTopics)
    for (const n of unauthorizedForDescribe)
      topics.push(
        useTopicIds
          ? topicEntry(ErrorCode.TOPIC_AUTHORIZATION_FAILED, null, image.topic(n)!.id, false)
          : topicEntry(ErrorCode.TOPIC_AUTHORIZATION_FAILED, n, ZERO_UUID, false),
      );

  // The image after a possible auto-creation: brokers and controller id as of now.
  const now = imageOf(services);
  const response: MetadataResponse = {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    brokers: aliveBrokerNodes(now, listener).map((b) => ({ nodeId: b.id, host: b.host, port: b.port, rack: b.rack })),
    clusterId: services.clusterId,
    controllerId: randomAliveBrokerId(now),
    topics: [...unknownIdEntries, ...topics],
    clusterAuthorizedOperations:
      v >= 8 && v <= 10 && req.includeClusterAuthorizedOperations
        ? clusterAuthorizedOperations(services, ctx)
        : AUTHORIZED_OPERATIONS_OMITTED,
  };
  return response;
}

export const handler: ApiHandler<BrokerServices, MetadataRequest, Input<MetadataResponse>> = {
  apiKey: ApiKey.Metadata,
  minVersion: 0,
  // v13 adds a top-level ErrorCode (KIP-1102); Kafka 4.4's handleTopicMetadataRequest never sets it.
  maxVersion: 13,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
