// FetchSnapshot (API 59), v0-1, controller listener: chunks of a metadata snapshot file for a
// replica whose fetch offset is below the leader's log start (KafkaRaftClient
// .handleFetchSnapshotRequest; RaftUtil.singletonFetchSnapshotResponse). Cluster id
// (INCONSISTENT_CLUSTER_ID) and shape (one topic, one partition: INVALID_REQUEST) are top-level;
// another topic-partition is UNKNOWN_TOPIC_OR_PARTITION; epochs, SNAPSHOT_NOT_FOUND and
// POSITION_OUT_OF_RANGE come from the quorum (raft/leader-fetch.ts). v1 adds the leader's endpoint.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type { FetchSnapshotRequest, FetchSnapshotResponse } from '../../protocol/generated/protocol/FetchSnapshot.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { METADATA_PARTITION, METADATA_TOPIC_NAME, type RaftFetchSnapshotResult } from '../raft/types.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { AclOperation, requireCluster } from './authz-admin.js';

type Response = Input<FetchSnapshotResponse>;

function topLevelError(errorCode: number): Response {
  return { throttleTimeMs: 0, errorCode, topics: [], nodeEndpoints: [] };
}

function singleton(
  version: number,
  listenerName: string,
  topic: string,
  partition: number,
  r: Pick<RaftFetchSnapshotResult, 'leaderId' | 'leaderEpoch' | 'leaderEndpoints'> & Partial<RaftFetchSnapshotResult>,
): Response {
  const endpoint = r.leaderEndpoints.find((e) => e.name === listenerName);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    topics: [
      {
        name: topic,
        partitions: [
          {
            index: partition,
            errorCode: r.errorCode ?? ErrorCode.NONE,
            snapshotId: r.snapshotId
              ? { endOffset: BigInt(r.snapshotId.offset), epoch: r.snapshotId.epoch }
              : { endOffset: -1n, epoch: -1 },
            currentLeader: { leaderId: r.leaderId, leaderEpoch: r.leaderEpoch },
            size: BigInt(r.size ?? 0),
            position: BigInt(r.position ?? 0),
            unalignedRecords: r.bytes ?? Buffer.alloc(0),
          },
        ],
      },
    ],
    nodeEndpoints:
      version >= 1 && endpoint && r.leaderId >= 0
        ? [{ nodeId: r.leaderId, host: endpoint.host, port: endpoint.port }]
        : [],
  };
}

async function handle(ctx: RequestContext, req: FetchSnapshotRequest, services: BrokerServices): Promise<Response> {
  if (req.clusterId !== null && req.clusterId !== services.clusterId) {
    return topLevelError(ErrorCode.INCONSISTENT_CLUSTER_ID);
  }
  if (req.topics.length !== 1 || req.topics[0]!.partitions.length !== 1)
    return topLevelError(ErrorCode.INVALID_REQUEST);
  const server = services.controller.quorum.fetchServer;
  if (!server) return topLevelError(ErrorCode.INVALID_REQUEST);
  const quorum = services.controller.quorum;
  const t = req.topics[0]!;
  const p = t.partitions[0]!;
  if (t.name !== METADATA_TOPIC_NAME || p.partition !== METADATA_PARTITION) {
    const leaderEndpoints = quorum.voters.find((v) => v.id === quorum.leaderId)?.endpoints ?? [];
    return singleton(ctx.apiVersion, ctx.listenerName, t.name, p.partition, {
      errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      leaderId: quorum.leaderId,
      leaderEpoch: quorum.leaderEpoch,
      leaderEndpoints,
    });
  }
  const r = await server.handleFetchSnapshot({
    replicaId: req.replicaId,
    replicaDirectoryId: p.replicaDirectoryId ?? ZERO_UUID,
    currentLeaderEpoch: p.currentLeaderEpoch,
    snapshotId: { offset: Number(p.snapshotId.endOffset), epoch: p.snapshotId.epoch },
    position: Number(p.position),
    maxBytes: req.maxBytes,
  });
  return singleton(ctx.apiVersion, ctx.listenerName, METADATA_TOPIC_NAME, METADATA_PARTITION, r);
}

export const handler: ApiHandler<BrokerServices, FetchSnapshotRequest, Response> = requireCluster(
  { operations: [AclOperation.CLUSTER_ACTION], message: null },
  {
    apiKey: ApiKey.FetchSnapshot,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => topLevelError(errorCode),
  },
);
