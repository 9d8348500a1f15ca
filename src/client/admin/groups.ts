// Consumer-group administration on top of KafkaClient, following Kafka's Admin client: list
// (ListGroups to every broker), describe (ConsumerGroupDescribe, falling back to DescribeGroups for
// classic groups and old brokers), committed offsets (OffsetFetch), alter offsets (OffsetCommit as
// a simple-consumer commit), delete groups (DeleteGroups) and delete offsets (OffsetDelete).
// Coordinator errors (not coordinator, not available, loading) are retried after a new
// FindCoordinator; other errors are kept per group / per partition.
import type { BrokerNode, KafkaClient } from '../client.js';
import { ApiError } from '../errors.js';
import type { Outcome } from './topics.js';
import { tpKey, type TopicPartition } from './offsets.js';
import type { ConsumerGroupDescribeResponse } from '../../protocol/generated/protocol/ConsumerGroupDescribe.js';
import type { DeleteGroupsResponse } from '../../protocol/generated/protocol/DeleteGroups.js';
import type { DescribeGroupsResponse } from '../../protocol/generated/protocol/DescribeGroups.js';
import type { ListGroupsResponse } from '../../protocol/generated/protocol/ListGroups.js';
import type { OffsetCommitResponse } from '../../protocol/generated/protocol/OffsetCommit.js';
import type { OffsetDeleteResponse } from '../../protocol/generated/protocol/OffsetDelete.js';
import type { OffsetFetchResponse } from '../../protocol/generated/protocol/OffsetFetch.js';

export { tpKey, type TopicPartition };

export interface GroupListing {
  groupId: string;
  protocolType: string;
  /** e.g. `Stable`; null when the broker does not report it (ListGroups < v4). */
  state: string | null;
  /** `Classic`, `Consumer`, ...; null when the broker does not report it (ListGroups < v5). */
  type: string | null;
}

export interface MemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  host: string;
  assignment: TopicPartition[];
  /** Consumer-protocol groups only. */
  targetAssignment: TopicPartition[] | null;
  memberEpoch: number | null;
  /** Consumer-protocol groups: true for a consumer-protocol member, false for a classic member; else null. */
  upgraded: boolean | null;
}

export interface ConsumerGroupDescription {
  groupId: string;
  /** A group with an empty protocol type (offsets committed by a simple consumer). */
  simple: boolean;
  members: MemberDescription[];
  partitionAssignor: string;
  type: 'Classic' | 'Consumer';
  state: string;
  coordinator: BrokerNode;
  groupEpoch: number | null;
  targetAssignmentEpoch: number | null;
}

export interface CommittedOffset {
  tp: TopicPartition;
  /** null when the group has no committed offset for the partition (Kafka's `null` OffsetAndMetadata). */
  offset: bigint | null;
  leaderEpoch: number | null;
  metadata: string | null;
}

/** Kafka's IllegalArgumentException cases of the Admin client (e.g. not a consumer group). */
export class GroupArgumentError extends Error {
  override name = 'GroupArgumentError';
}

const COORDINATOR_CODES = new Set([14, 15, 16]);
const sorted = <T>(xs: T[], key: (x: T) => string): T[] =>
  xs.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));

/** Kafka's GroupState.parse: case-insensitive, Unknown otherwise. */
export const GROUP_STATES = [
  'Unknown',
  'PreparingRebalance',
  'CompletingRebalance',
  'Stable',
  'Dead',
  'Empty',
  'Assigning',
  'Reconciling',
  'NotReady',
] as const;
export const GROUP_TYPES = ['Unknown', 'Consumer', 'Classic', 'Share', 'Streams'] as const;

export function parseGroupState(s: string): string {
  return GROUP_STATES.find((x) => x.toLowerCase() === s.toLowerCase()) ?? 'Unknown';
}
export function parseGroupType(s: string): string {
  return GROUP_TYPES.find((x) => x.toLowerCase() === s.toLowerCase()) ?? 'Unknown';
}

/** Consumer groups (protocol type `consumer` or empty) of every broker, sorted by id. */
export async function listConsumerGroups(
  client: KafkaClient,
  opts: { states?: string[]; types?: string[] } = {},
): Promise<GroupListing[]> {
  const states = opts.states ?? [];
  const types = opts.types ?? [];
  const md = await client.call('listConsumerGroups', () => client.metadata({ refresh: true }));
  const out = new Map<string, GroupListing>();
  await Promise.all(
    [...md.brokers.keys()].map((node) =>
      client.call('listConsumerGroups', async () => {
        const resp = await client.send<ListGroupsResponse>(
          { node },
          'ListGroups',
          (v: number) => ({ statesFilter: v >= 4 ? states : [], typesFilter: v >= 5 ? types : [] }),
          { minVersion: types.length > 0 ? 5 : states.length > 0 ? 4 : 0 },
        );
        const b = resp.body;
        if (b.errorCode !== 0) throw new ApiError(b.errorCode);
        for (const g of b.groups) {
          const protocolType: string = g.protocolType ?? '';
          if (protocolType !== 'consumer' && protocolType !== '') continue;
          out.set(g.groupId, {
            groupId: g.groupId,
            protocolType,
            state: resp.version >= 4 && g.groupState ? parseGroupState(g.groupState) : null,
            type: resp.version >= 5 && g.groupType ? parseGroupType(g.groupType) : null,
          });
        }
      }),
    ),
  );
  return sorted([...out.values()], (g) => g.groupId);
}

/** Reads a ConsumerProtocolAssignment (version prefix, then the body); [] for an empty buffer. */
export async function decodeAssignment(buf: Buffer | null): Promise<TopicPartition[]> {
  if (!buf || buf.length === 0) return [];
  const [{ Reader }, { readConsumerProtocolAssignment }] = await Promise.all([
    import('../../protocol/codec/reader.js'),
    import('../../protocol/generated/protocol/ConsumerProtocolAssignment.js'),
  ]);
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0) throw new ApiError(-1, `Unsupported consumer protocol version ${version}`);
  const a = readConsumerProtocolAssignment(r, Math.min(version, 3));
  return a.assignedPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
}

function fromTopicPartitions(
  a: { topicPartitions: { topicName: string; partitions: number[] }[] } | null | undefined,
): TopicPartition[] {
  return (a?.topicPartitions ?? []).flatMap((t) =>
    t.partitions.map((partition) => ({ topic: t.topicName, partition })),
  );
}

async function coordinatorNode(client: KafkaClient, groupId: string): Promise<BrokerNode> {
  const id = await client.coordinatorOf('group', groupId);
  const node = client.cachedMetadata?.brokers.get(id);
  return node ?? { id, host: '', port: -1, rack: null };
}

/** Describes each group (ConsumerGroupDescribe, then DescribeGroups for classic groups). */
export async function describeConsumerGroups(
  client: KafkaClient,
  groupIds: string[],
): Promise<Map<string, Outcome<ConsumerGroupDescription>>> {
  const out = new Map<string, Outcome<ConsumerGroupDescription>>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        out.set(groupId, { ok: true, value: await describeOne(client, groupId) });
      } catch (e) {
        out.set(groupId, { ok: false, error: e as Error });
      }
    }),
  );
  return out;
}

async function describeOne(client: KafkaClient, groupId: string): Promise<ConsumerGroupDescription> {
  let useClassic = false;
  let notFoundMessage: string | null = null;
  return client.call('describeConsumerGroups', async () => {
    const coordinator = await coordinatorNode(client, groupId);
    if (!useClassic && !(await client.supports({ node: coordinator.id }, 'ConsumerGroupDescribe'))) useClassic = true;
    if (!useClassic) {
      const resp = await client.send<ConsumerGroupDescribeResponse>({ node: coordinator.id }, 'ConsumerGroupDescribe', {
        groupIds: [groupId],
        includeAuthorizedOperations: false,
      });
      const g = resp.body.groups.find((x) => x.groupId === groupId) ?? resp.body.groups[0];
      if (!g) throw new ApiError(-1, `The response did not include group ${groupId}`);
      if (g.errorCode === 69 || g.errorCode === 35) {
        if (g.errorCode === 69) notFoundMessage = g.errorMessage ?? null;
        useClassic = true;
      } else if (g.errorCode !== 0) {
        throw new ApiError(g.errorCode, g.errorMessage);
      } else {
        return {
          groupId,
          simple: false,
          partitionAssignor: g.assignorName ?? '',
          type: 'Consumer',
          state: parseGroupState(g.groupState),
          coordinator,
          groupEpoch: g.groupEpoch,
          targetAssignmentEpoch: g.assignmentEpoch,
          members: g.members.map((m) => ({
            memberId: m.memberId,
            groupInstanceId: m.instanceId ?? null,
            clientId: m.clientId,
            host: m.clientHost,
            assignment: fromTopicPartitions(m.assignment),
            targetAssignment: fromTopicPartitions(m.targetAssignment),
            memberEpoch: m.memberEpoch,
            upgraded: m.memberType === undefined || m.memberType === -1 ? null : m.memberType === 1,
          })),
        };
      }
    }
    const resp = await client.send<DescribeGroupsResponse>({ node: coordinator.id }, 'DescribeGroups', {
      groups: [groupId],
      includeAuthorizedOperations: false,
    });
    const g = resp.body.groups.find((x) => x.groupId === groupId) ?? resp.body.groups[0];
    if (!g) throw new ApiError(-1, `The response did not include group ${groupId}`);
    if (g.errorCode !== 0)
      throw new ApiError(g.errorCode, g.errorCode === 69 ? (notFoundMessage ?? g.errorMessage) : g.errorMessage);
    // DescribeGroups v6 (not in this codec) reports an unknown group as GROUP_ID_NOT_FOUND, as
    // ConsumerGroupDescribe already did; older versions describe it as Dead.
    if (notFoundMessage !== null && parseGroupState(g.groupState) === 'Dead' && g.members.length === 0)
      throw new ApiError(69, notFoundMessage);
    const protocolType: string = g.protocolType ?? '';
    if (protocolType !== 'consumer' && protocolType !== '') {
      throw new GroupArgumentError(`GroupId ${groupId} is not a consumer group (${protocolType}).`);
    }
    const members: MemberDescription[] = [];
    for (const m of g.members) {
      members.push({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId ?? null,
        clientId: m.clientId,
        host: m.clientHost,
        assignment: await decodeAssignment(m.memberAssignment),
        targetAssignment: null,
        memberEpoch: null,
        upgraded: null,
      });
    }
    return {
      groupId,
      simple: protocolType === '',
      members,
      partitionAssignor: g.protocolData ?? '',
      type: 'Classic',
      state: parseGroupState(g.groupState),
      coordinator,
      groupEpoch: null,
      targetAssignmentEpoch: null,
    };
  });
}

/** The group's committed offsets (all partitions, or those given); throws the group's error. */
export async function listConsumerGroupOffsets(
  client: KafkaClient,
  groupId: string,
  opts: { partitions?: TopicPartition[]; requireStable?: boolean } = {},
): Promise<Map<string, CommittedOffset>> {
  const byTopic = opts.partitions ? groupByTopic(opts.partitions) : null;
  return client.call('listConsumerGroupOffsets', async () => {
    const resp = await client.send<OffsetFetchResponse>(
      { coordinator: { type: 'group', key: groupId } },
      'OffsetFetch',
      (v: number) => {
        const topics = byTopic ? [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })) : null;
        return v >= 8
          ? {
              groups: [{ groupId, memberId: null, memberEpoch: -1, topics }],
              requireStable: opts.requireStable ?? false,
            }
          : { groupId, topics, requireStable: opts.requireStable ?? false };
      },
      { minVersion: opts.partitions ? 1 : 2 },
    );
    const b = resp.body;
    let errorCode: number;
    let topics: OffsetFetchResponse['topics'] | OffsetFetchResponse['groups'][number]['topics'];
    if (resp.version >= 8) {
      const g = b.groups.find((x) => x.groupId === groupId) ?? b.groups[0];
      errorCode = g?.errorCode ?? 0;
      topics = g?.topics ?? [];
    } else {
      errorCode = b.errorCode ?? 0;
      topics = b.topics;
    }
    if (errorCode !== 0) throw new ApiError(errorCode);
    const out = new Map<string, CommittedOffset>();
    for (const t of topics) {
      for (const p of t.partitions) {
        if (p.errorCode !== 0) {
          if (COORDINATOR_CODES.has(p.errorCode)) throw new ApiError(p.errorCode);
          continue;
        }
        const tp = { topic: t.name, partition: p.partitionIndex };
        const offset: bigint = p.committedOffset;
        out.set(tpKey(tp), {
          tp,
          offset: offset < 0n ? null : offset,
          leaderEpoch:
            p.committedLeaderEpoch === undefined || p.committedLeaderEpoch < 0 ? null : p.committedLeaderEpoch,
          metadata: p.metadata ?? null,
        });
      }
    }
    return out;
  });
}

function groupByTopic(tps: Iterable<TopicPartition>): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const tp of tps) m.set(tp.topic, [...(m.get(tp.topic) ?? []), tp.partition]);
  return m;
}

/** Commits offsets for a group with no active member (Admin.alterConsumerGroupOffsets). */
export async function alterConsumerGroupOffsets(
  client: KafkaClient,
  groupId: string,
  offsets: { tp: TopicPartition; offset: bigint; leaderEpoch?: number; metadata?: string }[],
): Promise<Map<string, Outcome<void>>> {
  const out = new Map<string, Outcome<void>>();
  if (offsets.length === 0) return out;
  const byTopic = new Map<string, typeof offsets>();
  for (const o of offsets) byTopic.set(o.tp.topic, [...(byTopic.get(o.tp.topic) ?? []), o]);
  await client.call('alterConsumerGroupOffsets', async () => {
    const resp = await client.send<OffsetCommitResponse>(
      { coordinator: { type: 'group', key: groupId } },
      'OffsetCommit',
      {
        groupId,
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [...byTopic].map(([name, os]) => ({
          name,
          partitions: os.map((o) => ({
            partitionIndex: o.tp.partition,
            committedOffset: o.offset,
            committedLeaderEpoch: o.leaderEpoch ?? -1,
            commitTimestamp: -1n,
            committedMetadata: o.metadata ?? '',
          })),
        })),
      },
    );
    for (const t of resp.body.topics) {
      for (const p of t.partitions) {
        if (COORDINATOR_CODES.has(p.errorCode)) throw new ApiError(p.errorCode);
        const key = tpKey({ topic: t.name, partition: p.partitionIndex });
        out.set(
          key,
          p.errorCode === 0 ? { ok: true, value: undefined } : { ok: false, error: new ApiError(p.errorCode) },
        );
      }
    }
  });
  return out;
}

/** Deletes groups (DeleteGroups to each group's coordinator). */
export async function deleteConsumerGroups(
  client: KafkaClient,
  groupIds: string[],
): Promise<Map<string, Outcome<void>>> {
  const out = new Map<string, Outcome<void>>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        await client.call('deleteConsumerGroups', async () => {
          const resp = await client.send<DeleteGroupsResponse>(
            { coordinator: { type: 'group', key: groupId } },
            'DeleteGroups',
            {
              groupsNames: [groupId],
            },
          );
          const r = resp.body.results.find((x) => x.groupId === groupId) ?? resp.body.results[0];
          const code: number = r?.errorCode ?? -1;
          if (code !== 0) throw new ApiError(code);
        });
        out.set(groupId, { ok: true, value: undefined });
      } catch (e) {
        out.set(groupId, { ok: false, error: e as Error });
      }
    }),
  );
  return out;
}

export interface DeleteOffsetsResult {
  /** The group-level error (or the first partition error, as Kafka's `all()` reports it). */
  topLevel: ApiError | null;
  partitions: Map<string, Outcome<void>>;
}

/** Deletes committed offsets of a group (OffsetDelete). */
export async function deleteConsumerGroupOffsets(
  client: KafkaClient,
  groupId: string,
  partitions: TopicPartition[],
): Promise<DeleteOffsetsResult> {
  const result: DeleteOffsetsResult = { topLevel: null, partitions: new Map() };
  try {
    await client.call('deleteConsumerGroupOffsets', async () => {
      const resp = await client.send<OffsetDeleteResponse>(
        { coordinator: { type: 'group', key: groupId } },
        'OffsetDelete',
        {
          groupId,
          topics: [...groupByTopic(partitions)].map(([name, ps]) => ({
            name,
            partitions: ps.map((partitionIndex) => ({ partitionIndex })),
          })),
        },
      );
      const b = resp.body;
      if (b.errorCode !== 0) throw new ApiError(b.errorCode);
      for (const t of b.topics) {
        for (const p of t.partitions) {
          const key = tpKey({ topic: t.name, partition: p.partitionIndex });
          result.partitions.set(
            key,
            p.errorCode === 0 ? { ok: true, value: undefined } : { ok: false, error: new ApiError(p.errorCode) },
          );
        }
      }
    });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    result.topLevel = e;
    for (const tp of partitions) result.partitions.set(tpKey(tp), { ok: false, error: e });
    return result;
  }
  for (const tp of partitions) {
    const r = result.partitions.get(tpKey(tp));
    if (!r)
      result.partitions.set(tpKey(tp), {
        ok: false,
        error: new ApiError(-1, `The response did not include ${tpKey(tp)}`),
      });
    else if (!r.ok && result.topLevel === null) result.topLevel = r.error as ApiError;
  }
  return result;
}
