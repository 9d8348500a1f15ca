// Replica placement administration on top of KafkaClient, following KafkaAdminClient's
// alterPartitionReassignments (AlterPartitionReassignments to the controller), electLeaders
// (ElectLeaders to the controller), alterReplicaLogDirs (AlterReplicaLogDirs per broker) and
// describeReplicaLogDirs (DescribeLogDirs per broker, read per replica). Listing reassignments is
// listPartitionReassignments in topics.ts. Per-partition results keep each partition's own error;
// a top-level error fails every partition, as Kafka's futures do.
import type { KafkaClient, Target } from '../client.js';
import { ApiError } from '../errors.js';
import type { Outcome } from './topics.js';
import type { AlterPartitionReassignmentsResponse } from '../../protocol/generated/protocol/AlterPartitionReassignments.js';
import type { AlterReplicaLogDirsResponse } from '../../protocol/generated/protocol/AlterReplicaLogDirs.js';
import type { DescribeLogDirsResponse } from '../../protocol/generated/protocol/DescribeLogDirs.js';
import type { ElectLeadersResponse } from '../../protocol/generated/protocol/ElectLeaders.js';

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** TopicPartition.toString. */
export const tpString = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;

/** A replica of a partition on a broker (TopicPartitionReplica). */
export interface TopicPartitionReplica extends TopicPartition {
  brokerId: number;
}

/** TopicPartitionReplica.toString: `topic-partition-broker`. */
export const replicaString = (r: TopicPartitionReplica): string => `${r.topic}-${r.partition}-${r.brokerId}`;

function groupByTopic<T extends TopicPartition>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) out.set(it.topic, [...(out.get(it.topic) ?? []), it]);
  return out;
}

/** A target replica list for a partition; `replicas: null` cancels its reassignment. */
export interface NewPartitionReassignment extends TopicPartition {
  replicas: number[] | null;
}

/**
 * AlterPartitionReassignments (KIP-455): starts (or, with null replicas, cancels) reassignments.
 * `allowReplicationFactorChange` false (KIP-860, version 1) makes the controller refuse a change
 * of the replica count. Keyed `topic-partition`.
 */
export async function alterPartitionReassignments(
  client: KafkaClient,
  reassignments: readonly NewPartitionReassignment[],
  opts: { allowReplicationFactorChange?: boolean; timeoutMs?: number; target?: Target } = {},
): Promise<Map<string, Outcome<void>>> {
  const allow = opts.allowReplicationFactorChange ?? true;
  const topics = [...groupByTopic(reassignments)].map(([name, ps]) => ({
    name,
    partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas })),
  }));
  const resp = await client.request<AlterPartitionReassignmentsResponse>(
    opts.target ?? 'controller',
    'AlterPartitionReassignments',
    (version: number) => {
      if (!allow && version < 1) {
        throw new ApiError(
          35,
          'The broker does not support the AllowReplicationFactorChange option for AlterPartitionReassignments',
        );
      }
      return {
        timeoutMs: opts.timeoutMs ?? client.config.requestTimeoutMs,
        allowReplicationFactorChange: allow,
        topics,
      };
    },
  );
  const out = new Map<string, Outcome<void>>();
  const top = resp.body.errorCode !== 0 ? new ApiError(resp.body.errorCode, resp.body.errorMessage) : null;
  for (const t of resp.body.responses) {
    for (const p of t.partitions) {
      const key = `${t.name}-${p.partitionIndex}`;
      const err = top ?? (p.errorCode !== 0 ? new ApiError(p.errorCode, p.errorMessage) : null);
      out.set(key, err ? { ok: false, error: err } : { ok: true, value: undefined });
    }
  }
  for (const r of reassignments) {
    const key = tpString(r);
    if (!out.has(key))
      out.set(key, {
        ok: false,
        error: top ?? new ApiError(-1, `The controller response did not contain a result for ${key}`),
      });
  }
  return out;
}

export type ElectionType = 'PREFERRED' | 'UNCLEAN';

const ELECTION_TYPE_ID: Record<ElectionType, number> = { PREFERRED: 0, UNCLEAN: 1 };

/**
 * ElectLeaders (KIP-460): `partitions` null elects on every eligible partition. Returns one outcome
 * per partition of the response (ELECTION_NOT_NEEDED included, as an error); a top-level error is
 * thrown.
 */
export async function electLeaders(
  client: KafkaClient,
  type: ElectionType,
  partitions: readonly TopicPartition[] | null,
): Promise<Map<string, Outcome<void> & TopicPartition>> {
  const topicPartitions =
    partitions === null
      ? null
      : [...groupByTopic(partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) }));
  const resp = await client.request<ElectLeadersResponse>('controller', 'ElectLeaders', (version: number) => {
    if (version === 0 && type !== 'PREFERRED')
      throw new ApiError(35, `Attempted to write a non-default electionType at version 0`);
    return { electionType: ELECTION_TYPE_ID[type], topicPartitions, timeoutMs: client.config.requestTimeoutMs };
  });
  if (resp.body.errorCode !== 0) throw new ApiError(resp.body.errorCode);
  const out = new Map<string, Outcome<void> & TopicPartition>();
  for (const r of resp.body.replicaElectionResults) {
    for (const p of r.partitionResult) {
      const tp = { topic: r.topic, partition: p.partitionId };
      out.set(
        tpString(tp),
        p.errorCode === 0
          ? { ...tp, ok: true, value: undefined }
          : { ...tp, ok: false, error: new ApiError(p.errorCode, p.errorMessage) },
      );
    }
  }
  return out;
}

/** Where a replica's log is (ReplicaLogDirInfo): its current dir, and the dir it is moving to. */
export interface ReplicaLogDirInfo {
  current: string | null;
  future: string | null;
}

/**
 * describeReplicaLogDirs: DescribeLogDirs on each replica's broker for its partitions. Every asked
 * replica gets an entry (both dirs null when the broker has no log for it); log dirs that are
 * offline (KafkaStorageException) are skipped; any other failure is thrown. Keyed `topic-partition-broker`.
 */
export async function describeReplicaLogDirs(
  client: KafkaClient,
  replicas: readonly TopicPartitionReplica[],
): Promise<Map<string, ReplicaLogDirInfo>> {
  const byBroker = new Map<number, TopicPartitionReplica[]>();
  for (const r of replicas) byBroker.set(r.brokerId, [...(byBroker.get(r.brokerId) ?? []), r]);
  const out = new Map<string, ReplicaLogDirInfo>();
  for (const r of replicas) out.set(replicaString(r), { current: null, future: null });
  await Promise.all(
    [...byBroker].map(async ([brokerId, rs]) => {
      const topics = [...groupByTopic(rs)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) }));
      const resp = await client.request<DescribeLogDirsResponse>({ node: brokerId }, 'DescribeLogDirs', { topics });
      if (resp.body.errorCode) throw new ApiError(resp.body.errorCode);
      for (const d of resp.body.results) {
        if (d.errorCode === 56) continue; // an offline log dir lists no replicas
        if (d.errorCode !== 0) {
          throw new Error(
            `The error ${new ApiError(d.errorCode).javaClass} for log directory ${d.logDir} in the response from broker ${brokerId} is illegal`,
          );
        }
        for (const t of d.topics) {
          for (const p of t.partitions) {
            const info = out.get(`${t.name}-${p.partitionIndex}-${brokerId}`);
            if (!info) continue;
            if (p.isFutureKey) info.future = d.logDir;
            else info.current = d.logDir;
          }
        }
      }
    }),
  );
  return out;
}

/**
 * AlterReplicaLogDirs: asks each broker to move replicas to the given log dirs (a replica the
 * broker does not host yet answers REPLICA_NOT_AVAILABLE). Keyed `topic-partition-broker`.
 */
export async function alterReplicaLogDirs(
  client: KafkaClient,
  moves: readonly (TopicPartitionReplica & { logDir: string })[],
): Promise<Map<string, Outcome<void>>> {
  const byBroker = new Map<number, (TopicPartitionReplica & { logDir: string })[]>();
  for (const m of moves) byBroker.set(m.brokerId, [...(byBroker.get(m.brokerId) ?? []), m]);
  const out = new Map<string, Outcome<void>>();
  await Promise.all(
    [...byBroker].map(async ([brokerId, ms]) => {
      const byDir = new Map<string, (TopicPartitionReplica & { logDir: string })[]>();
      for (const m of ms) byDir.set(m.logDir, [...(byDir.get(m.logDir) ?? []), m]);
      const dirs = [...byDir].map(([path, rs]) => ({
        path,
        topics: [...groupByTopic(rs)].map(([name, ps]) => ({ name, partitions: ps.map((p) => p.partition) })),
      }));
      try {
        const resp = await client.request<AlterReplicaLogDirsResponse>({ node: brokerId }, 'AlterReplicaLogDirs', {
          dirs,
        });
        for (const t of resp.body.results) {
          for (const p of t.partitions) {
            out.set(
              `${t.topicName}-${p.partitionIndex}-${brokerId}`,
              p.errorCode === 0 ? { ok: true, value: undefined } : { ok: false, error: new ApiError(p.errorCode) },
            );
          }
        }
      } catch (e) {
        for (const m of ms) out.set(replicaString(m), { ok: false, error: e as Error });
      }
      for (const m of ms) {
        const key = replicaString(m);
        if (!out.has(key))
          out.set(key, {
            ok: false,
            error: new ApiError(-1, `The response from broker ${brokerId} did not contain a result for replica ${key}`),
          });
      }
    }),
  );
  return out;
}
