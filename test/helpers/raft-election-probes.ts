// Forged election requests (Vote, BeginQuorumEpoch, EndQuorumEpoch) sent to one follower voter of a
// running quorum, and what it answered, as plain data: the same probes run against tkafka
// (test/raft-election.test.ts) and Apache Kafka 4.4.0 (test/interop/raft-election.test.ts), so the
// answers can be compared field by field. None of them may move the quorum: the stale and the
// behind-log votes are pre-votes or stale, the cluster-id ones are refused before any state check.
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { describeQuorum, type Cluster } from './cluster.js';

const TOPIC = '__cluster_metadata';
const OTHER_CLUSTER = 'AAAAAAAAAAAAAAAAAAAAAw';

/** One answer: top-level error, partition error, vote granted (Vote only), the leader it names. */
export interface ProbeAnswer {
  readonly errorCode: number;
  readonly partitionError: number | null;
  readonly voteGranted: boolean | null;
  readonly leaderId: number | null;
  readonly leaderEpoch: number | null;
  readonly leaderEndpointCount: number;
}

export type ProbeName =
  | 'vote: other cluster id'
  | 'vote: stale epoch (pre-vote)'
  | 'vote: log behind (pre-vote)'
  | 'vote: last epoch above candidate epoch'
  | 'begin-quorum-epoch: other cluster id'
  | 'begin-quorum-epoch: stale epoch'
  | 'end-quorum-epoch: other cluster id'
  | 'end-quorum-epoch: stale epoch';

export interface ProbeTarget {
  readonly port: number;
  readonly clusterId: string;
  /** The voter probed (a follower). */
  readonly voterId: number;
  /** Another voter, posing as candidate / leader. */
  readonly otherVoterId: number;
  readonly leaderId: number;
  readonly leaderEpoch: number;
}

function voteBody(
  t: ProbeTarget,
  clusterId: string,
  epoch: number,
  lastEpoch: number,
  lastOffset: number,
  preVote: boolean,
) {
  return {
    clusterId,
    voterId: t.voterId,
    topics: [
      {
        topicName: TOPIC,
        partitions: [
          {
            partitionIndex: 0,
            replicaEpoch: epoch,
            replicaId: t.otherVoterId,
            replicaDirectoryId: ZERO_UUID,
            voterDirectoryId: ZERO_UUID,
            lastOffsetEpoch: lastEpoch,
            lastOffset: BigInt(lastOffset),
            preVote,
          },
        ],
      },
    ],
  };
}

function beginBody(t: ProbeTarget, clusterId: string, epoch: number) {
  return {
    clusterId,
    voterId: t.voterId,
    topics: [
      {
        topicName: TOPIC,
        partitions: [{ partitionIndex: 0, voterDirectoryId: ZERO_UUID, leaderId: t.otherVoterId, leaderEpoch: epoch }],
      },
    ],
    leaderEndpoints: [],
  };
}

function endBody(t: ProbeTarget, clusterId: string, epoch: number) {
  return {
    clusterId,
    topics: [
      {
        topicName: TOPIC,
        partitions: [
          {
            partitionIndex: 0,
            leaderId: t.otherVoterId,
            leaderEpoch: epoch,
            preferredSuccessors: [],
            preferredCandidates: [],
          },
        ],
      },
    ],
    leaderEndpoints: [],
  };
}

interface AnyElectionResponse {
  errorCode: number;
  topics: {
    partitions: { errorCode: number; leaderId: number; leaderEpoch: number; voteGranted?: boolean }[];
  }[];
  nodeEndpoints?: unknown[];
}

function answer(r: AnyElectionResponse): ProbeAnswer {
  const p = r.topics[0]?.partitions[0];
  return {
    errorCode: r.errorCode,
    partitionError: p ? p.errorCode : null,
    voteGranted: p && p.voteGranted !== undefined ? p.voteGranted : null,
    leaderId: p ? p.leaderId : null,
    leaderEpoch: p ? p.leaderEpoch : null,
    leaderEndpointCount: r.nodeEndpoints?.length ?? 0,
  };
}

/** Sends every probe to `t.port` (a controller listener) and returns the answers by name. */
export async function probeElectionRequests(t: ProbeTarget): Promise<Record<ProbeName, ProbeAnswer>> {
  const c = await RawClient.connect(t.port);
  try {
    const e = t.leaderEpoch;
    const vote = async (clusterId: string, epoch: number, lastEpoch: number, lastOffset: number, preVote: boolean) =>
      answer(await c.request(ApiKey.Vote, 2, voteBody(t, clusterId, epoch, lastEpoch, lastOffset, preVote)));
    return {
      'vote: other cluster id': await vote(OTHER_CLUSTER, e + 1, e, 1_000_000, true),
      'vote: stale epoch (pre-vote)': await vote(t.clusterId, e - 1, 0, 0, true),
      'vote: log behind (pre-vote)': await vote(t.clusterId, e, 0, 0, true),
      'vote: last epoch above candidate epoch': await vote(t.clusterId, e, e + 1, 0, false),
      'begin-quorum-epoch: other cluster id': answer(
        await c.request(ApiKey.BeginQuorumEpoch, 1, beginBody(t, OTHER_CLUSTER, e + 5)),
      ),
      'begin-quorum-epoch: stale epoch': answer(
        await c.request(ApiKey.BeginQuorumEpoch, 1, beginBody(t, t.clusterId, e - 1)),
      ),
      'end-quorum-epoch: other cluster id': answer(
        await c.request(ApiKey.EndQuorumEpoch, 1, endBody(t, OTHER_CLUSTER, e)),
      ),
      'end-quorum-epoch: stale epoch': answer(
        await c.request(ApiKey.EndQuorumEpoch, 1, endBody(t, t.clusterId, e - 1)),
      ),
    };
  } finally {
    c.close();
  }
}

/** What Kafka's KafkaRaftClient answers to each probe (handleVoteRequest & co.). */
export function expectedProbeAnswers(t: ProbeTarget): Record<ProbeName, ProbeAnswer> {
  const { INCONSISTENT_CLUSTER_ID, FENCED_LEADER_EPOCH, INVALID_REQUEST } = ErrorCode;
  const topLevel: ProbeAnswer = {
    errorCode: INCONSISTENT_CLUSTER_ID,
    partitionError: null,
    voteGranted: null,
    leaderId: null,
    leaderEpoch: null,
    leaderEndpointCount: 0,
  };
  const part = (partitionError: number, vote: boolean | null): ProbeAnswer => ({
    errorCode: 0,
    partitionError,
    voteGranted: vote,
    leaderId: t.leaderId,
    leaderEpoch: t.leaderEpoch,
    leaderEndpointCount: 1,
  });
  return {
    'vote: other cluster id': topLevel,
    'vote: stale epoch (pre-vote)': part(FENCED_LEADER_EPOCH, false),
    'vote: log behind (pre-vote)': part(0, false),
    'vote: last epoch above candidate epoch': part(INVALID_REQUEST, false),
    'begin-quorum-epoch: other cluster id': topLevel,
    'begin-quorum-epoch: stale epoch': part(FENCED_LEADER_EPOCH, null),
    'end-quorum-epoch: other cluster id': topLevel,
    'end-quorum-epoch: stale epoch': part(FENCED_LEADER_EPOCH, null),
  };
}

/**
 * The first moment a quorum is settled enough to probe: a leader answers DescribeQuorum, and
 * `cluster.controllers[i]` (the first other voter) names that leader in that epoch and has fetched
 * from it. The leader is looked up again on every poll: on a loaded machine a freshly elected
 * leader can resign (check-quorum) and the voters move on to a later epoch, which a target fixed
 * at the first leader would wait for forever.
 */
export async function settledProbeTarget(cluster: Cluster, timeoutMs = 120_000): Promise<ProbeTarget> {
  return waitFor(
    async () => {
      const q = await currentLeader(cluster);
      if (!q) return null;
      const others = cluster.controllers.filter((n) => n.id !== q.leaderId);
      const t: ProbeTarget = {
        port: others[0]!.controllerPort,
        clusterId: cluster.clusterId,
        voterId: others[0]!.id,
        otherVoterId: others[1]!.id,
        leaderId: q.leaderId,
        leaderEpoch: q.leaderEpoch,
      };
      return (await isFollowing(t, cluster.node(q.leaderId).controllerPort)) ? t : null;
    },
    { what: 'a quorum leader followed by the voter to probe', timeoutMs, intervalMs: 100 },
  );
}

async function currentLeader(cluster: Cluster) {
  for (const c of cluster.controllers.filter((n) => n.running())) {
    const q = await describeQuorum(c.controllerPort);
    if (q && q.leaderId >= 0 && cluster.node(q.leaderId).running()) return q;
  }
  return null;
}

/**
 * The probed voter names the leader (its answer to a stale BeginQuorumEpoch, which changes nothing,
 * carries its current leader) and the leader's DescribeQuorum shows it has fetched the epoch's
 * first batch (a voter learns of a new leader, and then fetches, a little after the leader answers
 * DescribeQuorum).
 */
async function isFollowing(t: ProbeTarget, leaderPort: number): Promise<boolean> {
  const c = await RawClient.connect(t.port).catch(() => null);
  if (!c) return false;
  try {
    const r = answer(await c.request(ApiKey.BeginQuorumEpoch, 1, beginBody(t, t.clusterId, t.leaderEpoch - 1)));
    if (r.leaderId !== t.leaderId || r.leaderEpoch !== t.leaderEpoch) return false;
  } finally {
    c.close();
  }
  const q = await describeQuorum(leaderPort);
  const v = q?.voters.find((x) => x.replicaId === t.voterId);
  return !!v && v.logEndOffset > 0n;
}
