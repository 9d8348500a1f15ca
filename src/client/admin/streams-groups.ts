// Streams-group administration (KIP-1071) on top of KafkaClient, following Kafka 4.4's Admin client:
// list (ListGroups with the `Streams` type filter, to every broker), describe (StreamsGroupDescribe 89
// at the group's coordinator). Offsets of a streams group live in __consumer_offsets as a consumer
// group's do, so Admin's listStreamsGroupOffsets / alterStreamsGroupOffsets / deleteStreamsGroupOffsets
// / deleteStreamsGroups are OffsetFetch / OffsetCommit / OffsetDelete / DeleteGroups (groups.ts).
import type { BrokerNode, KafkaClient } from '../client.js';
import { ApiError } from '../errors.js';
import type { Outcome } from './topics.js';
import { parseGroupState, type GroupListing } from './groups.js';
import type {
  StreamsGroupDescribeResponse,
  StreamsGroupDescribeResponseAssignment,
  StreamsGroupDescribeResponseTopologyDescriptionNode,
} from '../../protocol/generated/protocol/StreamsGroupDescribe.js';
import type { ListGroupsResponse } from '../../protocol/generated/protocol/ListGroups.js';

export {
  listConsumerGroupOffsets as listStreamsGroupOffsets,
  alterConsumerGroupOffsets as alterStreamsGroupOffsets,
  deleteConsumerGroupOffsets as deleteStreamsGroupOffsets,
  deleteConsumerGroups as deleteStreamsGroups,
} from './groups.js';

export interface StreamsTaskIds {
  subtopologyId: string;
  partitions: number[];
}

export interface StreamsAssignment {
  active: StreamsTaskIds[];
  standby: StreamsTaskIds[];
  warmup: StreamsTaskIds[];
}

export interface StreamsMemberDescription {
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  clientId: string;
  clientHost: string;
  topologyEpoch: number;
  processId: string;
  isClassic: boolean;
  assignment: StreamsAssignment;
  targetAssignment: StreamsAssignment;
}

export interface StreamsSubtopologyDescription {
  subtopologyId: string;
  sourceTopics: string[];
  repartitionSinkTopics: string[];
  /** Topic name → partitions (Kafka's StreamsGroupSubtopologyDescription.TopicInfo). */
  stateChangelogTopics: string[];
  repartitionSourceTopics: string[];
}

export interface StreamsTopologyNode {
  name: string;
  /** 1 source, 2 processor, 3 sink. */
  nodeType: number;
  sourceTopics: string[];
  sinkTopic: string | null;
  stores: string[];
  successors: string[];
}

/** StreamsGroupDescribe v1's TopologyDescription (KIP-1331). */
export interface StreamsTopologyDescription {
  subtopologies: { subtopologyId: string; nodes: StreamsTopologyNode[] }[];
  globalStores: { source: StreamsTopologyNode; processor: StreamsTopologyNode }[];
}

export interface StreamsGroupDescription {
  groupId: string;
  /** Kafka's GroupState names: `Empty`, `NotReady`, `Assigning`, `Reconciling`, `Stable`, `Dead`. */
  state: string;
  groupEpoch: number;
  targetAssignmentEpoch: number;
  /** The topology epoch (-1 without a topology). */
  topologyEpoch: number;
  /** StreamsGroupDescribe v1's AssignorName; '' when the broker does not send it (Kafka's orElse("")). */
  assignor: string;
  coordinator: BrokerNode;
  subtopologies: StreamsSubtopologyDescription[];
  members: StreamsMemberDescription[];
  /** 0 NOT_REQUESTED, 1 NOT_STORED, 2 ERROR, 3 AVAILABLE (0 from a v0 broker). */
  topologyDescriptionStatus: number;
  topologyDescription: StreamsTopologyDescription | null;
}

/** Kafka's Admin: `java.lang.IllegalStateException: Topology information is missing`. */
export class TopologyMissingError extends Error {
  override name = 'TopologyMissingError';
  constructor() {
    super('Topology information is missing');
  }
  javaString(): string {
    return `java.lang.IllegalStateException: ${this.message}`;
  }
}

async function coordinatorNode(client: KafkaClient, groupId: string): Promise<BrokerNode> {
  const id = await client.coordinatorOf('group', groupId);
  const node = client.cachedMetadata?.brokers.get(id);
  return node ?? { id, host: '', port: -1, rack: null };
}

const byId = (a: GroupListing, b: GroupListing): number => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0);

/** Streams groups of every broker (ListGroups v5 with types [Streams]), sorted by id. */
export async function listStreamsGroups(
  client: KafkaClient,
  opts: { states?: string[] } = {},
): Promise<GroupListing[]> {
  const states = opts.states ?? [];
  const md = await client.call('listStreamsGroups', () => client.metadata({ refresh: true }));
  const out = new Map<string, GroupListing>();
  await Promise.all(
    [...md.brokers.keys()].map((node) =>
      client.call('listStreamsGroups', async () => {
        const resp = await client.send<ListGroupsResponse>(
          { node },
          'ListGroups',
          { statesFilter: states, typesFilter: ['Streams'] },
          { minVersion: 5 },
        );
        const b = resp.body;
        if (b.errorCode !== 0) throw new ApiError(b.errorCode);
        for (const g of b.groups) {
          // Kafka's ListGroupsHandler keeps only the groups of the requested types.
          if ((g.groupType ?? '').toLowerCase() !== 'streams') continue;
          out.set(g.groupId, {
            groupId: g.groupId,
            protocolType: g.protocolType ?? '',
            state: g.groupState ? parseGroupState(g.groupState) : null,
            type: 'Streams',
          });
        }
      }),
    ),
  );
  return [...out.values()].sort(byId);
}

function topologyNode(n: StreamsGroupDescribeResponseTopologyDescriptionNode): StreamsTopologyNode {
  return {
    name: n.name,
    nodeType: n.nodeType,
    sourceTopics: [...n.sourceTopics],
    sinkTopic: n.sinkTopic,
    stores: [...n.stores],
    successors: [...n.successors],
  };
}

function assignment(a: StreamsGroupDescribeResponseAssignment | null | undefined): StreamsAssignment {
  const ids = (xs: { subtopologyId: string; partitions: number[] }[] | undefined): StreamsTaskIds[] =>
    (xs ?? []).map((t) => ({ subtopologyId: t.subtopologyId, partitions: [...t.partitions] }));
  return { active: ids(a?.activeTasks), standby: ids(a?.standbyTasks), warmup: ids(a?.warmupTasks) };
}

/** StreamsGroupDescribe of each group, at its coordinator; a group's error is kept per group. */
export async function describeStreamsGroups(
  client: KafkaClient,
  groupIds: string[],
  opts: { includeTopologyDescription?: boolean } = {},
): Promise<Map<string, Outcome<StreamsGroupDescription>>> {
  const out = new Map<string, Outcome<StreamsGroupDescription>>();
  await Promise.all(
    [...new Set(groupIds)].map(async (groupId) => {
      try {
        const value = await client.call('describeStreamsGroups', async () => {
          const coordinator = await coordinatorNode(client, groupId);
          const resp = await client.send<StreamsGroupDescribeResponse>(
            { node: coordinator.id },
            'StreamsGroupDescribe',
            {
              groupIds: [groupId],
              includeAuthorizedOperations: false,
              includeTopologyDescription: opts.includeTopologyDescription ?? false,
            },
          );
          const g = resp.body.groups.find((x) => x.groupId === groupId) ?? resp.body.groups[0];
          if (!g) throw new ApiError(-1, `The response did not include group ${groupId}`);
          if (g.errorCode !== 0) throw new ApiError(g.errorCode, g.errorMessage);
          // DescribeStreamsGroupsHandler: a described group without its topology fails
          if (!g.topology) throw new TopologyMissingError();
          const description: StreamsGroupDescription = {
            groupId,
            state: parseGroupState(g.groupState),
            groupEpoch: g.groupEpoch,
            targetAssignmentEpoch: g.assignmentEpoch,
            topologyEpoch: g.topology?.epoch ?? -1,
            assignor: g.assignorName ?? '',
            coordinator,
            subtopologies: (g.topology?.subtopologies ?? []).map((s) => ({
              subtopologyId: s.subtopologyId,
              sourceTopics: [...s.sourceTopics],
              repartitionSinkTopics: [...s.repartitionSinkTopics],
              stateChangelogTopics: s.stateChangelogTopics.map((t) => t.name),
              repartitionSourceTopics: s.repartitionSourceTopics.map((t) => t.name),
            })),
            members: g.members.map((m) => ({
              memberId: m.memberId,
              memberEpoch: m.memberEpoch,
              instanceId: m.instanceId,
              rackId: m.rackId,
              clientId: m.clientId,
              clientHost: m.clientHost,
              topologyEpoch: m.topologyEpoch,
              processId: m.processId,
              isClassic: m.isClassic,
              assignment: assignment(m.assignment),
              targetAssignment: assignment(m.targetAssignment),
            })),
            topologyDescriptionStatus: g.topologyDescriptionStatus ?? 0,
            topologyDescription: g.topologyDescription
              ? {
                  subtopologies: g.topologyDescription.subtopologies.map((st) => ({
                    subtopologyId: st.subtopologyId,
                    nodes: st.nodes.map(topologyNode),
                  })),
                  globalStores: g.topologyDescription.globalStores.map((gs) => ({
                    source: topologyNode(gs.source),
                    processor: topologyNode(gs.processor),
                  })),
                }
              : null,
          };
          return description;
        });
        out.set(groupId, { ok: true, value });
      } catch (e) {
        out.set(groupId, { ok: false, error: e as Error });
      }
    }),
  );
  return out;
}
