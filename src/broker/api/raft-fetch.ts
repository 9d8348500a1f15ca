// Fetch (API 1) on the controller listener: raft replication of `__cluster_metadata`-0 to voters and
// observers (KafkaRaftClient.handleFetchRequest; RaftUtil.singletonFetchResponse). The cluster id
// (INCONSISTENT_CLUSTER_ID, top level) and the one-topic-id, one-partition shape (INVALID_REQUEST,
// top level) are checked here; epochs, divergence, snapshots, long polling and replica progress are
// the quorum's (raft/leader-fetch.ts through Quorum.fetchServer). v17+ answers carry the leader's
// endpoint on the listener the request came in on (NodeEndpoints).
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { FetchRequest, FetchResponse } from '../../protocol/generated/protocol/Fetch.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { METADATA_PARTITION, METADATA_TOPIC_ID, METADATA_TOPIC_NAME, type RaftFetchResult } from '../raft/types.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { FETCH_MAX_VERSION, FETCH_MIN_VERSION } from './fetch.js';
import { AclOperation, requireCluster } from './authz-admin.js';

type Response = Input<FetchResponse>;

/** A top-level error with no partitions (new FetchResponseData().setErrorCode(...)). */
export function topLevelFetchError(errorCode: number): Response {
  return { throttleTimeMs: 0, errorCode, sessionId: 0, responses: [], nodeEndpoints: [] };
}

/** RaftUtil.singletonFetchResponse for one partition result. */
export function raftFetchResponse(version: number, listenerName: string, r: RaftFetchResult): Response {
  const endpoint = r.leaderEndpoints.find((e) => e.name === listenerName);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    sessionId: 0,
    responses: [
      {
        topic: METADATA_TOPIC_NAME,
        topicId: METADATA_TOPIC_ID,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION,
            errorCode: r.errorCode,
            highWatermark: BigInt(r.highWatermark),
            lastStableOffset: -1n,
            logStartOffset: BigInt(r.logStartOffset),
            divergingEpoch: r.divergingEpoch
              ? { epoch: r.divergingEpoch.epoch, endOffset: BigInt(r.divergingEpoch.offset) }
              : { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: r.leaderId, leaderEpoch: r.leaderEpoch },
            snapshotId: r.snapshotId
              ? { endOffset: BigInt(r.snapshotId.offset), epoch: r.snapshotId.epoch }
              : { endOffset: -1n, epoch: -1 },
            abortedTransactions: null,
            preferredReadReplica: -1,
            records: r.records.length > 0 ? r.records : null,
          },
        ],
      },
    ],
    nodeEndpoints:
      version >= 17 && endpoint && r.leaderId >= 0
        ? [{ nodeId: r.leaderId, host: endpoint.host, port: endpoint.port, rack: null }]
        : [],
  };
}

async function handle(ctx: RequestContext, req: FetchRequest, services: BrokerServices): Promise<Response> {
  if (req.clusterId !== null && req.clusterId !== services.clusterId) {
    return topLevelFetchError(ErrorCode.INCONSISTENT_CLUSTER_ID);
  }
  const t = req.topics;
  const valid =
    t.length === 1 &&
    t[0]!.topicId === METADATA_TOPIC_ID &&
    t[0]!.partitions.length === 1 &&
    t[0]!.partitions[0]!.partition === METADATA_PARTITION;
  const server = services.controller.quorum.fetchServer;
  if (!valid || !server) return topLevelFetchError(ErrorCode.INVALID_REQUEST);
  const p = t[0]!.partitions[0]!;
  const replicaId = ctx.apiVersion >= 15 ? req.replicaState.replicaId : req.replicaId;
  const result = await server.handleFetch({
    replicaId,
    replicaDirectoryId: p.replicaDirectoryId ?? ZERO_UUID,
    currentLeaderEpoch: p.currentLeaderEpoch,
    fetchOffset: Number(p.fetchOffset),
    lastFetchedEpoch: p.lastFetchedEpoch,
    maxBytes: req.maxBytes,
    maxWaitMs: req.maxWaitMs,
    highWatermark:
      p.highWatermark >= BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(p.highWatermark),
  });
  return raftFetchResponse(ctx.apiVersion, ctx.listenerName, result);
}

export const handler: ApiHandler<BrokerServices, FetchRequest, Response> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.Fetch,
    minVersion: FETCH_MIN_VERSION,
    maxVersion: FETCH_MAX_VERSION,
    listeners: ['controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => topLevelFetchError(errorCode),
  },
);
