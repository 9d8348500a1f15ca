// StreamsGroupHeartbeat (API 88), v0-1 (Kafka 4.4): the streams rebalance protocol of KIP-1071 (see
// group/streams-ops.ts). KafkaApis.handleStreamsGroupHeartbeat: UNSUPPORTED_VERSION unless `streams`
// is an enabled rebalance protocol and streams.version is finalized at 1 or more; READ on the group;
// a topology naming Kafka's internal topics or invalid topic names is STREAMS_INVALID_TOPOLOGY;
// DESCRIBE on every topic of the topology; then the coordinator. When the answer names internal topics
// to create, the broker creates them (CREATE on the cluster or on each topic, else the
// MISSING_INTERNAL_TOPICS status says which were not authorized) without waiting for them.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  StreamsGroupHeartbeatRequest,
  StreamsGroupHeartbeatResponse,
} from '../../protocol/generated/protocol/StreamsGroupHeartbeat.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { genericErrorResponse } from './error-responses.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from './authz.js';
import { groupCoordinatorOf, requestInfoOf } from '../group/broker-glue.js';
import { createTopicsOnController } from './admin-support.js';
import { invalidTopicReason, isInternalTopic } from '../controller/topic-names.js';
import { StreamsStatus, type InternalTopicToCreate } from '../group/streams-topology.js';

/** StreamsGroupHeartbeatRequest.getErrorResponse: the error code only. */
const errorOnly = (errorCode: number, errorMessage: string | null = null): Input<StreamsGroupHeartbeatResponse> => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
});

/** Internal topics being created by this broker (AutoTopicCreationManager's in-flight set). */
const inflight = new Set<string>();

function createInternalTopics(services: BrokerServices, topics: InternalTopicToCreate[]): void {
  const todo = topics.filter((t) => !inflight.has(t.name));
  if (todo.length === 0) return;
  for (const t of todo) inflight.add(t.name);
  void createTopicsOnController(
    services,
    todo.map((t) => ({
      name: t.name,
      numPartitions: t.numPartitions,
      replicationFactor: t.replicationFactor,
      assignments: [],
      configs: t.configs,
    })),
  )
    .catch(() => undefined)
    .finally(() => {
      for (const t of todo) inflight.delete(t.name);
    });
}

async function handle(
  ctx: RequestContext,
  req: StreamsGroupHeartbeatRequest,
  services: BrokerServices,
): Promise<Input<StreamsGroupHeartbeatResponse>> {
  const coordinator = await groupCoordinatorOf(services);
  if (!coordinator.streamsGroupsEnabled) return errorOnly(ErrorCode.UNSUPPORTED_VERSION);
  if (!authorize(services, ctx, AclOperation.READ, ResourceType.GROUP, req.groupId))
    return errorOnly(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (req.topology !== null) {
    const required = [
      ...new Set(
        req.topology.subtopologies.flatMap((s) => [
          ...s.sourceTopics,
          ...s.repartitionSinkTopics,
          ...s.repartitionSourceTopics.map((t) => t.name),
          ...s.stateChangelogTopics.map((t) => t.name),
        ]),
      ),
    ];
    const prohibited = required.filter((t) => isInternalTopic(t));
    if (prohibited.length > 0)
      return errorOnly(
        ErrorCode.STREAMS_INVALID_TOPOLOGY,
        `Use of Kafka internal topics ${prohibited.join(',')} in a Kafka Streams topology is prohibited.`,
      );
    const invalid = required.filter((t) => invalidTopicReason(t) !== null);
    if (invalid.length > 0)
      return errorOnly(
        ErrorCode.STREAMS_INVALID_TOPOLOGY,
        `Topic names ${invalid.join(',')} are not valid topic names.`,
      );
    if (required.some((t) => !authorize(services, ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t)))
      return errorOnly(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  }
  const r = await coordinator.streamsGroupHeartbeat(req, requestInfoOf(ctx));
  const response = r.response;
  if (r.internalTopicsToCreate.size > 0) {
    const all = [...r.internalTopicsToCreate.values()];
    const clusterCreate = authorizeCluster(services, ctx, AclOperation.CREATE);
    const unauthorized = clusterCreate
      ? []
      : all
          .filter((t) => !authorize(services, ctx, AclOperation.CREATE, ResourceType.TOPIC, t.name))
          .map((t) => t.name);
    if (unauthorized.length > 0) {
      const status = [...(response.status ?? [])];
      const i = status.findIndex((s) => s.statusCode === StreamsStatus.MISSING_INTERNAL_TOPICS);
      if (i >= 0)
        status[i] = {
          ...status[i]!,
          statusDetail: `${status[i]!.statusDetail}; Unauthorized to CREATE on topics ${unauthorized.join(',')}.`,
        };
      else
        status.push({
          statusCode: StreamsStatus.MISSING_INTERNAL_TOPICS,
          statusDetail: `Unauthorized to CREATE on topics ${unauthorized.join(',')}.`,
        });
      response.status = status;
    } else createInternalTopics(services, all);
  }
  return { throttleTimeMs: 0, ...response };
}

export const handler: ApiHandler<BrokerServices, StreamsGroupHeartbeatRequest, Input<StreamsGroupHeartbeatResponse>> = {
  apiKey: ApiKey.StreamsGroupHeartbeat,
  minVersion: 0,
  maxVersion: 1,
  listeners: ['broker'],
  handle,
  errorResponse: genericErrorResponse,
};
