// Share-group administration (KIP-932) on top of KafkaClient, following Kafka 4.4's Admin client:
// list (ListGroups with the `Share` type filter, to every broker), describe (ShareGroupDescribe),
// the start offsets (DescribeShareGroupOffsets), alter them (AlterShareGroupOffsets), delete them
// per topic (DeleteShareGroupOffsets) and delete groups (DeleteGroups). Coordinator errors are
// retried by KafkaClient.call after a new FindCoordinator; other errors are kept per group / topic.
import type { BrokerNode, KafkaClient } from '../client.js';
import { ApiError } from '../errors.js';
import type { Outcome } from './topics.js';
import { tpKey, type TopicPartition } from './offsets.js';
import { parseGroupState, type GroupListing } from './groups.js';
import type { ShareGroupDescribeResponse } from '../../protocol/generated/protocol/ShareGroupDescribe.js';
import type { DescribeShareGroupOffsetsResponse } from '../../protocol/generated/protocol/DescribeShareGroupOffsets.js';
import type { AlterShareGroupOffsetsResponse } from '../../protocol/generated/protocol/AlterShareGroupOffsets.js';
import type { DeleteShareGroupOffsetsResponse } from '../../protocol/generated/protocol/DeleteShareGroupOffsets.js';
import type { DeleteGroupsResponse } from '../../protocol/generated/protocol/DeleteGroups.js';
import type { ListGroupsResponse } from '../../protocol/generated/protocol/ListGroups.js';

export interface ShareMemberDescription {
  memberId: string;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  host: string;
  subscribedTopicNames: string[];
  assignment: TopicPartition[];
}

export interface ShareGroupDescription {
  groupId: string;
  /** `Empty`, `Stable`, `Dead` (Kafka's GroupState names). */
  state: string;
  groupEpoch: number;
  targetAssignmentEpoch: number;
  assignor: string;
  coordinator: BrokerNode;
  members: ShareMemberDescription[];
}

/** One partition of DescribeShareGroupOffsets: null offset fields when the group has no state for it. */
export interface SharePartitionOffset {
  tp: TopicPartition;
  startOffset: bigint | null;
  leaderEpoch: number | null;
  lag: bigint | null;
}

async function coordinatorNode(client: KafkaClient, groupId: string): Promise<BrokerNode> {
  const id = await client.coordinatorOf('group', groupId);
  const node = client.cachedMetadata?.brokers.get(id);
  return node ?? { id, host: '', port: -1, rack: null };
}

/** Share groups of every broker (ListGroups v5 with types [Share]), sorted by id. */
export async function listShareGroups(client: KafkaClient, opts: { states?: string[] } = {}): Promise<GroupListing[]> {
  const states = opts.states ?? [];
  const md = await client.call('listShareGroups', () => client.metadata({ refresh: true }));
  const out = new Map<string, GroupListing>();
  await Promise.all(
    [...md.brokers.keys()].map((node) =>
      client.call('listShareGroups', async () => {
        const resp = await client.send<ListGroupsResponse>(
          { node },
          'ListGroups',
          { statesFilter: states, typesFilter: ['Share'] },
          { minVersion: 5 },
        );
        const b = resp.body;
        if (b.errorCode !== 0) throw new ApiError(b.errorCode);
        for (const g of b.groups) {
          // Kafka's ListGroupsHandler keeps only the groups of the requested types.
          if ((g.groupType ?? '').toLowerCase() !== 'share') continue;
          out.set(g.groupId, {
            groupId: g.groupId,
            protocolType: g.protocolType ?? '',
            state: g.groupState ? parseGroupState(g.groupState) : null,
            type: 'Share',
          });
        }
      }),
    ),
  );
  return [...out.values()].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

/** ShareGroupDescribe of each group, at its coordinator. */
export async function describeShareGroups(
  client: KafkaClient,
  groupIds: string[],
): Promise<Map<string, Outcome<ShareGroupDescription>>> {
  const out = new Map<string, Outcome<ShareGroupDescription>>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        const value = await client.call('describeShareGroups', async () => {
          const coordinator = await coordinatorNode(client, groupId);
          const resp = await client.send<ShareGroupDescribeResponse>({ node: coordinator.id }, 'ShareGroupDescribe', {
            groupIds: [groupId],
            includeAuthorizedOperations: false,
          });
          const g = resp.body.groups.find((x) => x.groupId === groupId) ?? resp.body.groups[0];
          if (!g) throw new ApiError(-1, `The response did not include group ${groupId}`);
          if (g.errorCode !== 0) throw new ApiError(g.errorCode, g.errorMessage);
          return {
            groupId,
            state: parseGroupState(g.groupState),
            groupEpoch: g.groupEpoch,
            targetAssignmentEpoch: g.assignmentEpoch,
            assignor: g.assignorName,
            coordinator,
            members: g.members.map((m) => ({
              memberId: m.memberId,
              rackId: m.rackId,
              memberEpoch: m.memberEpoch,
              clientId: m.clientId,
              host: m.clientHost,
              subscribedTopicNames: m.subscribedTopicNames,
              assignment: m.assignment.topicPartitions.flatMap((t) =>
                t.partitions.map((partition) => ({ topic: t.topicName, partition })),
              ),
            })),
          };
        });
        out.set(groupId, { ok: true, value });
      } catch (e) {
        out.set(groupId, { ok: false, error: e as Error });
      }
    }),
  );
  return out;
}

/** DescribeShareGroupOffsets of one group (all its topics when `partitions` is null). */
export async function listShareGroupOffsets(
  client: KafkaClient,
  groupId: string,
  partitions: TopicPartition[] | null = null,
): Promise<Map<string, SharePartitionOffset>> {
  return client.call('listShareGroupOffsets', async () => {
    const resp = await client.send<DescribeShareGroupOffsetsResponse>(
      { coordinator: { type: 'group', key: groupId } },
      'DescribeShareGroupOffsets',
      {
        groups: [
          {
            groupId,
            topics:
              partitions === null
                ? null
                : [...byTopic(partitions)].map(([topicName, ps]) => ({ topicName, partitions: ps })),
          },
        ],
      },
    );
    const g = resp.body.groups.find((x) => x.groupId === groupId) ?? resp.body.groups[0];
    if (!g) throw new ApiError(-1, `The response did not include group ${groupId}`);
    if (g.errorCode !== 0) throw new ApiError(g.errorCode, g.errorMessage);
    const out = new Map<string, SharePartitionOffset>();
    for (const t of g.topics) {
      for (const p of t.partitions) {
        const tp = { topic: t.topicName, partition: p.partitionIndex };
        if (p.errorCode !== 0) throw new ApiError(p.errorCode, p.errorMessage);
        // Kafka's ListShareGroupOffsetsHandler: a start offset of -1 means no offset information.
        const none = p.startOffset < 0n;
        out.set(tpKey(tp), {
          tp,
          startOffset: none ? null : p.startOffset,
          leaderEpoch: none || p.leaderEpoch < 0 ? null : p.leaderEpoch,
          lag: none || p.lag < 0n ? null : p.lag,
        });
      }
    }
    return out;
  });
}

/** AlterShareGroupOffsets: the group-level error or per-partition errors (the first one thrown, as `all()`). */
export async function alterShareGroupOffsets(
  client: KafkaClient,
  groupId: string,
  offsets: { tp: TopicPartition; offset: bigint }[],
): Promise<void> {
  await client.call('alterShareGroupOffsets', async () => {
    const topics = new Map<string, { partitionIndex: number; startOffset: bigint }[]>();
    for (const o of offsets)
      topics.set(o.tp.topic, [
        ...(topics.get(o.tp.topic) ?? []),
        { partitionIndex: o.tp.partition, startOffset: o.offset },
      ]);
    const resp = await client.send<AlterShareGroupOffsetsResponse>(
      { coordinator: { type: 'group', key: groupId } },
      'AlterShareGroupOffsets',
      { groupId, topics: [...topics].map(([topicName, partitions]) => ({ topicName, partitions })) },
    );
    const b = resp.body;
    if (b.errorCode !== 0) throw new ApiError(b.errorCode, b.errorMessage);
    for (const t of b.responses)
      for (const p of t.partitions) if (p.errorCode !== 0) throw new ApiError(p.errorCode, p.errorMessage);
  });
}

export interface DeleteShareOffsetsResult {
  /** The group-level error, or the first topic error (Kafka's `all()`). */
  topLevel: ApiError | null;
  topics: Map<string, ApiError | null>;
}

/** DeleteShareGroupOffsets of whole topics. */
export async function deleteShareGroupOffsets(
  client: KafkaClient,
  groupId: string,
  topics: string[],
): Promise<DeleteShareOffsetsResult> {
  const result: DeleteShareOffsetsResult = { topLevel: null, topics: new Map() };
  try {
    await client.call('deleteShareGroupOffsets', async () => {
      const resp = await client.send<DeleteShareGroupOffsetsResponse>(
        { coordinator: { type: 'group', key: groupId } },
        'DeleteShareGroupOffsets',
        { groupId, topics: topics.map((topicName) => ({ topicName })) },
      );
      const b = resp.body;
      if (b.errorCode !== 0) throw new ApiError(b.errorCode, b.errorMessage);
      for (const t of b.responses)
        result.topics.set(t.topicName, t.errorCode === 0 ? null : new ApiError(t.errorCode, t.errorMessage));
    });
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    result.topLevel = e;
    for (const t of topics) result.topics.set(t, e);
    return result;
  }
  for (const t of topics) {
    const r = result.topics.get(t);
    if (r === undefined) result.topics.set(t, new ApiError(-1, `The response did not include topic ${t}`));
    else if (r !== null && result.topLevel === null) result.topLevel = r;
  }
  return result;
}

/** DeleteGroups of share groups, at each group's coordinator. */
export async function deleteShareGroups(client: KafkaClient, groupIds: string[]): Promise<Map<string, Outcome<void>>> {
  const out = new Map<string, Outcome<void>>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        await client.call('deleteShareGroups', async () => {
          const resp = await client.send<DeleteGroupsResponse>(
            { coordinator: { type: 'group', key: groupId } },
            'DeleteGroups',
            { groupsNames: [groupId] },
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

function byTopic(tps: TopicPartition[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const tp of tps) m.set(tp.topic, [...(m.get(tp.topic) ?? []), tp.partition]);
  return m;
}
