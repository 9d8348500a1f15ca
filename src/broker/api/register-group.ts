// Registers the group coordinator APIs: FindCoordinator, JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups, OffsetDelete,
// ConsumerGroupHeartbeat, ConsumerGroupDescribe, ShareGroupHeartbeat, ShareGroupDescribe, the streams-group APIs
// (StreamsGroupHeartbeat, StreamsGroupDescribe, StreamsGroupTopologyDescriptionUpdate) and the share-group
// offsets APIs (Describe/Alter/DeleteShareGroupOffsets). They reach the coordinator through
// `services.groupCoordinator` (src/broker/group/broker-glue.ts: startGroupCoordinator / groupCoordinatorOf).
import type { HandlerRegistry } from './registry.js';
import type { RegisteredHandler } from './types.js';
import type { BrokerServices } from '../services.js';
import { handler as findCoordinator } from './find-coordinator.js';
import { handler as joinGroup } from './join-group.js';
import { handler as syncGroup } from './sync-group.js';
import { handler as heartbeat } from './heartbeat.js';
import { handler as leaveGroup } from './leave-group.js';
import { handler as offsetCommit } from './offset-commit.js';
import { handler as offsetFetch } from './offset-fetch.js';
import { handler as listGroups } from './list-groups.js';
import { handler as describeGroups } from './describe-groups.js';
import { handler as deleteGroups } from './delete-groups.js';
import { handler as offsetDelete } from './offset-delete.js';
import { handler as consumerGroupHeartbeat } from './consumer-group-heartbeat.js';
import { handler as consumerGroupDescribe } from './consumer-group-describe.js';
import { handler as shareGroupHeartbeat } from './share-group-heartbeat.js';
import { handler as shareGroupDescribe } from './share-group-describe.js';
import { handler as describeShareGroupOffsets } from './describe-share-group-offsets.js';
import { handler as alterShareGroupOffsets } from './alter-share-group-offsets.js';
import { handler as deleteShareGroupOffsets } from './delete-share-group-offsets.js';
import { handler as streamsGroupHeartbeat } from './streams-group-heartbeat.js';
import { handler as streamsGroupDescribe } from './streams-group-describe.js';
import { handler as streamsGroupTopologyDescriptionUpdate } from './streams-group-topology-description-update.js';

export const GROUP_HANDLERS: readonly RegisteredHandler<BrokerServices>[] = [
  findCoordinator,
  joinGroup,
  syncGroup,
  heartbeat,
  leaveGroup,
  offsetCommit,
  offsetFetch,
  listGroups,
  describeGroups,
  deleteGroups,
  offsetDelete,
  consumerGroupHeartbeat,
  consumerGroupDescribe,
  shareGroupHeartbeat,
  shareGroupDescribe,
  describeShareGroupOffsets,
  alterShareGroupOffsets,
  deleteShareGroupOffsets,
  streamsGroupHeartbeat,
  streamsGroupDescribe,
  streamsGroupTopologyDescriptionUpdate,
];

export function registerGroupHandlers(registry: HandlerRegistry): HandlerRegistry {
  for (const h of GROUP_HANDLERS) registry.register(h);
  return registry;
}
