// Fetch (API 1), v4-17 (Kafka 4 serves 4+: older versions needed down-conversion to magic 0/1).
// KafkaApis.handleFetchRequest: the fetch session decides which partitions the request covers
// (KIP-227), unknown topic ids and partitions are answered at once, the rest is read through the
// replica manager with long polling (min_bytes / max_wait_ms), and the session prunes unchanged
// partitions from incremental responses. Topics are named in v4-12 and by id in v13+. Record bytes
// go out as the log read them. A v11+ consumer fetch carries client metadata (KIP-392): a follower
// serves it, and a leader with replica.selector.class may answer PreferredReadReplica instead.
// With an authorizer: a follower needs CLUSTER_ACTION on the cluster, a consumer READ on each topic
// (else TOPIC_AUTHORIZATION_FAILED for the partitions).
import { quotasOf, setRequestThrottle } from '../quota/managers.js';
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  FetchRequest,
  FetchResponse,
  FetchResponseFetchableTopicResponse,
  FetchResponseNodeEndpoint,
  FetchResponsePartitionData,
} from '../../protocol/generated/protocol/Fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { BrokerServices } from '../services.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { FetchEntry, ResponseEntry, TopicIdPartition } from '../replication/fetch-sessions.js';
import {
  errorFetchResult,
  type FetchParams,
  type FetchPartitionRequest,
  type FetchPartitionResult,
} from '../replication/types.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, ResourceType, authorize, authorizeCluster } from './authz.js';
import { genericErrorResponse } from './error-responses.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

export const FETCH_MIN_VERSION = 4;
// v18 (KIP-1166) adds the follower's high watermark as a tagged partition field; a leader with no
// followers has nothing to do with it, and the response is unchanged.
export const FETCH_MAX_VERSION = 18;

/** The request in one shape for every version. */
interface NormalizedFetch {
  params: FetchParams;
  sessionId: number;
  sessionEpoch: number;
  fetchData: FetchEntry[];
  toForget: TopicIdPartition[];
}

function normalize(v: number, req: FetchRequest, rm: ReplicaManager, ctx: RequestContext): NormalizedFetch {
  const replicaId = req.replicaId !== -1 ? req.replicaId : v >= 15 ? req.replicaState.replicaId : -1;
  const name = (topic: string, topicId: string): string | null =>
    v >= 13 ? (rm.topicNameById(topicId) ?? null) : topic;
  const id = (topicId: string): string => (v >= 13 ? topicId : ZERO_UUID);
  const fetchData: FetchEntry[] = [];
  for (const t of req.topics) {
    const tp = { topic: name(t.topic, t.topicId), topicId: id(t.topicId) };
    for (const p of t.partitions) {
      fetchData.push({
        tp: { ...tp, partition: p.partition },
        data: {
          fetchOffset: Number(p.fetchOffset),
          logStartOffset: Number(p.logStartOffset),
          maxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch,
          lastFetchedEpoch: p.lastFetchedEpoch,
        },
      });
    }
  }
  const toForget: TopicIdPartition[] = [];
  for (const f of req.forgottenTopicsData ?? []) {
    for (const partition of f.partitions)
      toForget.push({ topic: name(f.topic, f.topicId), topicId: id(f.topicId), partition });
  }
  const maxBytes = Math.min(req.maxBytes, rm.fetchMaxBytes);
  return {
    params: {
      version: v,
      replicaId,
      replicaEpoch: v >= 15 && req.replicaId === -1 ? Number(req.replicaState.replicaEpoch) : -1,
      maxWaitMs: req.maxWaitMs,
      minBytes: Math.min(req.minBytes, maxBytes),
      maxBytes,
      isolationLevel: req.isolationLevel,
      rackId: req.rackId,
      // the records stay in the file until the connection writes the response (FileRecords.slice)
      lazyRecords: true,
      // KafkaApis: Fetch v11 added the preferred replica logic (KIP-392)
      ...(v >= 11
        ? {
            clientMetadata: {
              rackId: req.rackId ?? '',
              clientId: ctx.clientId ?? '',
              clientAddress: ctx.clientAddress,
              listenerName: ctx.listenerName,
            },
          }
        : {}),
    },
    sessionId: req.sessionId,
    sessionEpoch: req.sessionEpoch,
    fetchData,
    toForget,
  };
}

/** KafkaApis.maybeConvertFetchedData and the storage-error down-conversion, per partition. */
function adjust(v: number, rm: ReplicaManager, tp: TopicIdPartition, r: FetchPartitionResult): FetchPartitionResult {
  if (v < 10 && tp.topic !== null && rm.partition(tp.topic, tp.partition)?.config.policy.compressionType === 'zstd') {
    return errorFetchResult(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  }
  if (v <= 5 && r.errorCode === ErrorCode.KAFKA_STORAGE_ERROR)
    return { ...r, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
  return r;
}

function partitionData(v: number, partition: number, r: FetchPartitionResult): Input<FetchResponsePartitionData> {
  const out: Input<FetchResponsePartitionData> = {
    partitionIndex: partition,
    errorCode: r.errorCode,
    highWatermark: BigInt(r.highWatermark),
    lastStableOffset: BigInt(r.lastStableOffset),
    logStartOffset: BigInt(r.logStartOffset),
    abortedTransactions:
      r.abortedTransactions === null
        ? null
        : r.abortedTransactions.map((a) => ({ producerId: BigInt(a.producerId), firstOffset: BigInt(a.firstOffset) })),
    preferredReadReplica: v >= 11 ? r.preferredReadReplica : -1,
    records: r.records,
  };
  if (v >= 12 && r.divergingEpoch)
    out.divergingEpoch = { epoch: r.divergingEpoch.epoch, endOffset: BigInt(r.divergingEpoch.endOffset) };
  return out;
}

/** FetchResponse.of: consecutive partitions of one topic share a topic entry. */
function buildResponse(
  v: number,
  ctx: RequestContext,
  rm: ReplicaManager,
  errorCode: number,
  sessionId: number,
  entries: readonly ResponseEntry[],
): Input<FetchResponse> {
  const responses: Input<FetchResponseFetchableTopicResponse>[] = [];
  const endpoints = new Map<number, Input<FetchResponseNodeEndpoint>>();
  let current: Input<FetchResponseFetchableTopicResponse> | undefined;
  let currentKey = '';
  for (const { tp, result } of entries) {
    const key = `${tp.topicId}\u0000${tp.topic ?? ''}`;
    if (!current || key !== currentKey) {
      current =
        v >= 13 ? { topic: '', topicId: tp.topicId, partitions: [] } : { topic: tp.topic ?? '', partitions: [] };
      currentKey = key;
      responses.push(current);
    }
    const pd = partitionData(v, tp.partition, result);
    if (
      v >= 16 &&
      tp.topic !== null &&
      (result.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER || result.errorCode === ErrorCode.FENCED_LEADER_EPOCH)
    ) {
      const leader = rm.leaderHint(tp.topic, tp.partition, ctx.listenerName);
      if (leader) {
        pd.currentLeader = { leaderId: leader.leaderId, leaderEpoch: leader.leaderEpoch };
        if (leader.endpoint) endpoints.set(leader.endpoint.nodeId, { ...leader.endpoint });
      }
    }
    current.partitions!.push(pd);
  }
  const body: Input<FetchResponse> = { throttleTimeMs: 0, responses };
  if (v >= 7) {
    body.errorCode = errorCode;
    body.sessionId = sessionId;
  }
  if (v >= 16) body.nodeEndpoints = [...endpoints.values()];
  return body;
}

async function handleFetch(
  ctx: RequestContext,
  req: FetchRequest,
  services: BrokerServices,
): Promise<Input<FetchResponse>> {
  const rm = services.replicas as ReplicaManager;
  const v = ctx.apiVersion;
  const n = normalize(v, req, rm, ctx);
  const isFollower = n.params.replicaId >= 0;
  const context = rm.fetchSessions.newContext(
    v,
    n.sessionId,
    n.sessionEpoch,
    isFollower,
    n.fetchData,
    n.toForget,
    (id) => rm.topicNameById(id),
  );

  const interesting: FetchEntry[] = [];
  const erroneous: ResponseEntry[] = [];
  // KafkaApis.handleFetchRequest: a follower needs CLUSTER_ACTION on the cluster (else every partition
  // is TOPIC_AUTHORIZATION_FAILED), a consumer READ on each topic (checked once per topic)
  const followerAuthorized = !isFollower || authorizeCluster(services, ctx, AclOperation.CLUSTER_ACTION);
  const readable = new Map<string, boolean>();
  const mayRead = (topic: string): boolean => {
    if (isFollower) return followerAuthorized;
    let ok = readable.get(topic);
    if (ok === undefined)
      readable.set(topic, (ok = authorize(services, ctx, AclOperation.READ, ResourceType.TOPIC, topic)));
    return ok;
  };
  for (const e of context.partitions()) {
    if (!followerAuthorized)
      erroneous.push({ tp: e.tp, result: errorFetchResult(ErrorCode.TOPIC_AUTHORIZATION_FAILED) });
    else if (e.tp.topic === null) erroneous.push({ tp: e.tp, result: errorFetchResult(ErrorCode.UNKNOWN_TOPIC_ID) });
    else if (!mayRead(e.tp.topic))
      erroneous.push({ tp: e.tp, result: errorFetchResult(ErrorCode.TOPIC_AUTHORIZATION_FAILED) });
    else if (!rm.contains(e.tp.topic, e.tp.partition))
      erroneous.push({ tp: e.tp, result: errorFetchResult(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) });
    else interesting.push(e);
  }
  const reqs: FetchPartitionRequest[] = interesting.map((e) => ({
    topic: e.tp.topic!,
    topicId: e.tp.topicId,
    partition: e.tp.partition,
    ...e.data,
  }));
  const results = reqs.length > 0 ? await rm.fetchMessages(n.params, reqs, ctx.connectionId) : [];
  const updates: ResponseEntry[] = interesting.map((e, i) => ({ tp: e.tp, result: adjust(v, rm, e.tp, results[i]!) }));
  for (const e of erroneous) updates.push(e);
  let throttleMs = 0;
  if (!isFollower) {
    // KafkaApis.handleFetchRequest: a consumer's response size against consumer_byte_rate (quota/);
    // a throttled fetch is taken back off the rate and answered empty, its session left as it was
    let size = 0;
    for (const e of updates) size += e.result.records.length;
    const quota = quotasOf(services).fetch;
    const now = Date.now();
    throttleMs = quota.recordAndGetThrottleTimeMs(ctx.principal, ctx.clientId ?? '', size, now);
    if (throttleMs > 0) {
      quota.unrecord(ctx.principal, ctx.clientId ?? '', size, now);
      setRequestThrottle(ctx, throttleMs);
    }
  }
  const out = throttleMs > 0 ? context.throttledResponse() : context.updateAndGenerateResponseData(updates);
  const body = buildResponse(v, ctx, rm, out.errorCode, out.sessionId, out.entries);
  body.throttleTimeMs = throttleMs;
  return body;
}

export const handler: ApiHandler<BrokerServices, FetchRequest, Input<FetchResponse>> = {
  apiKey: ApiKey.Fetch,
  minVersion: FETCH_MIN_VERSION,
  maxVersion: FETCH_MAX_VERSION,
  listeners: ['broker'],
  handle: handleFetch,
  errorResponse: genericErrorResponse,
};
