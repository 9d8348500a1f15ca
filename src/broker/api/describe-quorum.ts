// DescribeQuorum (API 55), v0-2: the state of the KRaft metadata quorum (KafkaRaftClient
// .handleDescribeQuorumRequest, RaftUtil.singletonDescribeQuorumResponse). Served on controller
// listeners and on broker listeners (Kafka's broker forwards it to the active controller; here the
// controller is in the same process). The request must name exactly __cluster_metadata-0
// (UNKNOWN_TOPIC_OR_PARTITION otherwise); a node that is not the quorum leader answers
// NOT_LEADER_OR_FOLLOWER. The leader reports itself with the current time as its fetch and
// caught-up timestamps; v2 adds replica directory ids and the voters' endpoints.
import { ApiKey } from '../../protocol/generated/apis.js';
import type { Input } from '../../protocol/codec/types.js';
import type {
  DescribeQuorumRequest,
  DescribeQuorumResponse,
} from '../../protocol/generated/protocol/DescribeQuorum.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { QuorumDescription, ReplicaDescription } from '../raft/types.js';
import type { BrokerServices } from '../services.js';
import type { ApiHandler, RequestContext } from './types.js';
import { controllerOf } from './admin-support.js';
import { AclOperation, requireCluster } from './authz-admin.js';

const METADATA_TOPIC = '__cluster_metadata';

type Response = Input<DescribeQuorumResponse>;
type ReplicaState = Response['topics'] extends (infer T)[] | undefined
  ? T extends { partitions?: (infer P)[] }
    ? P extends { currentVoters?: (infer R)[] }
      ? R
      : never
    : never
  : never;

function partitionError(req: DescribeQuorumRequest, code: number): Response {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topics: req.topics.map((t) => ({
      topicName: t.topicName,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: code,
        errorMessage: errorInfo(code).message,
      })),
    })),
    nodes: [],
  };
}

function singletonError(code: number): Response {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topics: [
      {
        topicName: METADATA_TOPIC,
        partitions: [{ partitionIndex: 0, errorCode: code, errorMessage: errorInfo(code).message }],
      },
    ],
    nodes: [],
  };
}

const replica = (r: ReplicaDescription, version: number): ReplicaState => ({
  replicaId: r.replicaId,
  ...(version >= 2 ? { replicaDirectoryId: r.replicaDirectoryId } : {}),
  logEndOffset: BigInt(r.logEndOffset),
  lastFetchTimestamp: BigInt(r.lastFetchTimestamp),
  lastCaughtUpTimestamp: BigInt(r.lastCaughtUpTimestamp),
});

/** The response body for a quorum description at `version` (what the leader answers). */
export function describeQuorumResponse(q: QuorumDescription, version: number): Response {
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    topics: [
      {
        topicName: METADATA_TOPIC,
        partitions: [
          {
            partitionIndex: 0,
            errorCode: ErrorCode.NONE,
            errorMessage: null,
            leaderId: q.leaderId,
            leaderEpoch: q.leaderEpoch,
            highWatermark: BigInt(q.highWatermark),
            currentVoters: q.currentVoters.map((r) => replica(r, version)),
            observers: q.observers.map((r) => replica(r, version)),
          },
        ],
      },
    ],
    nodes:
      version >= 2
        ? q.nodes.map((n) => ({
            nodeId: n.nodeId,
            listeners: n.listeners.map((l) => ({ name: l.name, host: l.host, port: l.port })),
          }))
        : [],
  };
}

function handle(
  ctx: RequestContext,
  req: DescribeQuorumRequest,
  services: BrokerServices,
): Input<DescribeQuorumResponse> {
  const t = req.topics;
  const valid =
    t.length === 1 &&
    t[0]!.topicName === METADATA_TOPIC &&
    t[0]!.partitions.length === 1 &&
    t[0]!.partitions[0]!.partitionIndex === 0;
  if (!valid) return partitionError(req, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const controller = controllerOf(services);
  if (!controller || !controller.isActive()) return singletonError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  return describeQuorumResponse(controller.describeQuorum(), ctx.apiVersion);
}

export const handler: ApiHandler<BrokerServices, DescribeQuorumRequest, Input<DescribeQuorumResponse>> = requireCluster(
  { operations: [AclOperation.DESCRIBE], message: null },
  {
    apiKey: ApiKey.DescribeQuorum,
    minVersion: 0,
    maxVersion: 2,
    listeners: ['broker', 'controller'],
    handle,
    errorResponse: (_ctx, _req, errorCode) => ({
      errorCode,
      errorMessage: errorInfo(errorCode).message,
      topics: [],
      nodes: [],
    }),
  },
);
