// The group coordinator service (GroupCoordinatorService): routes each group to the shard of its
// __consumer_offsets partition (abs(javaHashCode(groupId)) % partitions), loads and unloads shards
// as this node gains and loses partition leadership, validates what Kafka validates before the
// shard, and fans ListGroups out to every shard.
import { ErrorCode, KafkaError, errorInfo } from '../../protocol/errors.js';
import { coordinatorPartition } from '../../protocol/partitioner.js';
import type { JoinResponse, SyncResponse } from './classic-group.js';
import { joinError, syncError } from './classic-group.js';
import type { JoinRequest, SyncRequest } from './classic-ops.js';
import type { GroupConfig } from './config.js';
import { consumerGroupTombstones } from './consumer-group.js';
import { validateHeartbeatRequest, type HeartbeatRequest, type HeartbeatResponse } from './consumer-ops.js';
import type { CoordinatorLog } from './log.js';
import type { CommitRequest, CommitResponseTopics, FetchGroupRequest, FetchGroupResponse } from './offsets.js';
import type { CoordinatorRecord } from './records.js';
import { GroupShard } from './shard.js';
import {
  endOffsetKey,
  type LatestOffsets,
  type Persister,
  type PersisterSummaryResult,
  type ShareGroupListener,
} from '../share/types.js';
import { shareGroupTombstones } from './share-group.js';
import {
  validateShareHeartbeatRequest,
  type ShareDescribedGroup,
  type ShareHeartbeatRequest,
  type ShareHeartbeatResponse,
  type ShareInitializeRequest,
} from './share-ops.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { streamsGroupTombstones } from './streams-group.js';
import {
  errorResponse as streamsErrorResponse,
  validateStreamsHeartbeatRequest,
  type StreamsDescribedGroup,
  type StreamsHeartbeatResult,
} from './streams-ops.js';
import type { StreamsGroupHeartbeatRequest } from '../../protocol/generated/protocol/StreamsGroupHeartbeat.js';
import { result, type MetadataView, type RequestInfo } from './shard-types.js';
import { SampledStat } from '../metrics/sampled.js';

export interface GroupCoordinatorOptions {
  config: GroupConfig;
  log: CoordinatorLog;
  metadata: MetadataView;
  clock?: () => number;
  logger?: (level: string, msg: string) => void;
  unrefTimers?: boolean;
  /** Whether this node leads a __consumer_offsets partition per metadata (its shard may not be created yet). */
  leadsPartition?: (partition: number) => boolean;
  /** Share groups: the share-partition state store (initialize, summaries, delete). */
  persister?: Persister;
  /** Share groups: the share-partition side, told when members leave. */
  shareListener?: ShareGroupListener;
  /** Share groups: partitions' latest offsets, for the lag of DescribeShareGroupOffsets v1 (KIP-1226). */
  latestOffsets?: LatestOffsets;
  /**
   * Share groups: whether the share group protocol is on (KafkaApis.isShareGroupProtocolEnabled: share.version
   * finalized at 1 or more); absent: on.
   */
  shareEnabled?: () => boolean;
  /**
   * Streams groups: whether streams.version is finalized at 1 or more (KafkaApis.isStreamsGroupProtocolEnabled
   * also needs `streams` in group.coordinator.rebalance.protocols); absent: on.
   */
  streamsEnabled?: () => boolean;
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  groupState: string;
  groupType: string;
}

export interface DescribedGroup {
  errorCode: number;
  errorMessage?: string | null;
  groupId: string;
  groupState: string;
  protocolType: string;
  protocolData: string;
  members: {
    memberId: string;
    groupInstanceId: string | null;
    clientId: string;
    clientHost: string;
    memberMetadata: Buffer;
    memberAssignment: Buffer;
  }[];
}

export const codeOf = (e: unknown): number => (e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR);
export const messageOf = (e: unknown): string | null => (e instanceof KafkaError ? e.message : null);

export class GroupCoordinator {
  readonly shards = new Map<number, GroupShard>();
  /** group-coordinator-metrics partition-load-time-avg/max: ms per completed __consumer_offsets load. */
  readonly partitionLoadTimes = new SampledStat();
  private readonly clock: () => number;
  private readonly logger: (level: string, msg: string) => void;
  private active = true;

  constructor(readonly opts: GroupCoordinatorOptions) {
    this.clock = opts.clock ?? Date.now;
    this.logger = opts.logger ?? (() => undefined);
  }

  get config(): GroupConfig {
    return this.opts.config;
  }

  partitionFor(groupId: string): number {
    return coordinatorPartition(groupId, this.opts.config.offsetsTopicPartitions);
  }

  // ------------------------------------------------------------------ shard lifecycle

  /** Starts loading a partition this node now leads (no-op when already loaded or loading). */
  loadPartition(partition: number): Promise<void> {
    const existing = this.shards.get(partition);
    if (existing && existing.state !== 'closed') return Promise.resolve();
    const shard = new GroupShard({
      partition,
      config: this.opts.config,
      log: this.opts.log,
      metadata: this.opts.metadata,
      clock: this.clock,
      logger: this.logger,
      unrefTimers: this.opts.unrefTimers,
    });
    shard.share.listener = this.opts.shareListener ?? null;
    shard.share.initializeEnabled = this.opts.persister !== undefined;
    this.shards.set(partition, shard);
    const started = this.clock();
    return shard.load().then(
      () => this.partitionLoadTimes.record(this.clock() - started),
      (e: unknown) => {
        this.logger('WARN', `Failed to load __consumer_offsets-${partition}: ${(e as Error).message}`);
        if (this.shards.get(partition) === shard) this.shards.delete(partition);
        void shard.unload();
      },
    );
  }

  async unloadPartition(partition: number): Promise<void> {
    const shard = this.shards.get(partition);
    if (!shard) return;
    this.shards.delete(partition);
    await shard.unload();
  }

  async shutdown(): Promise<void> {
    this.active = false;
    for (const p of [...this.shards.keys()]) await this.unloadPartition(p);
  }

  /** The shard of a group: NOT_COORDINATOR when this node does not own its partition. */
  shardFor(groupId: string): GroupShard {
    if (!this.active) throw new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'The coordinator is not active.');
    const partition = this.partitionFor(groupId);
    const shard = this.shards.get(partition);
    if (!shard || shard.state === 'closed') {
      // led here but not yet loaded (the metadata is ahead of the coordinator): the client retries
      if (!shard && this.opts.leadsPartition?.(partition))
        throw new KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, `__consumer_offsets-${partition} is loading`);
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `This is not the correct coordinator for ${groupId}.`);
    }
    return shard;
  }

  // ------------------------------------------------------------------ classic protocol

  async joinGroup(req: JoinRequest, info: RequestInfo): Promise<JoinResponse> {
    if (req.groupId === '') return joinError(req.memberId, ErrorCode.INVALID_GROUP_ID);
    if (
      req.sessionTimeoutMs < this.config.classicMinSessionTimeoutMs ||
      req.sessionTimeoutMs > this.config.classicMaxSessionTimeoutMs
    ) {
      return joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT);
    }
    try {
      const shard = this.shardFor(req.groupId);
      return await (
        await shard.write(() => shard.classic.join(req, info))
      ).wait;
    } catch (e) {
      return joinError(req.memberId, codeOf(e));
    }
  }

  async syncGroup(req: SyncRequest): Promise<SyncResponse> {
    if (req.groupId === '') return syncError(ErrorCode.INVALID_GROUP_ID);
    try {
      const shard = this.shardFor(req.groupId);
      return await (
        await shard.write(() => shard.classic.sync(req))
      ).wait;
    } catch (e) {
      return syncError(codeOf(e));
    }
  }

  async heartbeat(req: {
    groupId: string;
    generationId: number;
    memberId: string;
    groupInstanceId: string | null;
  }): Promise<number> {
    if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
    try {
      const shard = this.shardFor(req.groupId);
      return await shard.write(() => shard.classic.heartbeat(req));
    } catch (e) {
      const code = codeOf(e);
      // a loading coordinator answers heartbeats blindly
      return code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? ErrorCode.NONE : code;
    }
  }

  async leaveGroup(
    groupId: string,
    members: { memberId: string; groupInstanceId: string | null }[],
  ): Promise<{
    errorCode: number;
    members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
  }> {
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    try {
      const shard = this.shardFor(groupId);
      return await shard.write(() => shard.classic.leave(groupId, members));
    } catch (e) {
      return { errorCode: codeOf(e), members: [] };
    }
  }

  // ------------------------------------------------------------------ offsets

  /** OffsetCommit: throws KafkaError for group-level errors (the handler puts them on every partition). */
  async commitOffsets(req: CommitRequest, apiVersion: number): Promise<CommitResponseTopics> {
    const shard = this.shardFor(req.groupId);
    return shard.write(() => shard.offsetManager.commit(req, apiVersion));
  }

  async fetchOffsets(req: FetchGroupRequest): Promise<FetchGroupResponse> {
    try {
      const shard = this.shardFor(req.groupId);
      return await shard.read(() => shard.offsetManager.fetch(req));
    } catch (e) {
      return { groupId: req.groupId, errorCode: codeOf(e), topics: [] };
    }
  }

  async deleteOffsets(
    groupId: string,
    topics: { name: string; partitions: { partitionIndex: number }[] }[],
  ): Promise<{
    errorCode: number;
    topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
  }> {
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, topics: [] };
    try {
      const shard = this.shardFor(groupId);
      return {
        errorCode: ErrorCode.NONE,
        topics: await shard.write(() => shard.offsetManager.deleteOffsets(groupId, topics)),
      };
    } catch (e) {
      return { errorCode: codeOf(e), topics: [] };
    }
  }

  /** Offsets of deleted topics are removed from every shard (GroupCoordinator.onPartitionsDeleted). */
  async onTopicsDeleted(topics: readonly string[]): Promise<void> {
    const set = new Set(topics);
    for (const shard of [...this.shards.values()]) {
      if (shard.state !== 'active') continue;
      await shard.write(() => result(undefined, shard.offsetManager.onTopicsDeleted(set))).catch(() => undefined);
      await shard.write(() => shard.share.cleanupDeletedTopics(set)).catch(() => undefined);
    }
  }

  /** Topic metadata changed: KIP-848 groups re-check their subscriptions on the next heartbeat. */
  onTopicsChanged(): void {
    for (const shard of this.shards.values())
      if (shard.state === 'active') {
        shard.consumer.requestMetadataRefresh();
        shard.share.requestMetadataRefresh();
        shard.streams.requestMetadataRefresh();
      }
  }

  // ------------------------------------------------------------------ admin

  /** ListGroups over every shard; a loading shard fails the whole answer (COORDINATOR_LOAD_IN_PROGRESS). */
  async listGroups(
    statesFilter: readonly string[],
    typesFilter: readonly string[],
  ): Promise<{ errorCode: number; groups: ListedGroup[] }> {
    const states = new Set(statesFilter.map((s) => s.toLowerCase()));
    const types = new Set(typesFilter.map((s) => s.toLowerCase()));
    const out: ListedGroup[] = [];
    for (const shard of [...this.shards.values()]) {
      if (shard.state === 'closed') continue;
      try {
        out.push(
          ...(await shard.read(() =>
            [...shard.groups.values()].map((g): ListedGroup =>
              g.type === 'classic'
                ? { groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: 'classic' }
                : g.type === 'share'
                  ? { groupId: g.groupId, protocolType: 'share', groupState: g.state, groupType: 'share' }
                  : g.type === 'streams'
                    ? { groupId: g.groupId, protocolType: 'streams', groupState: g.state, groupType: 'streams' }
                    : { groupId: g.groupId, protocolType: 'consumer', groupState: g.state, groupType: 'consumer' },
            ),
          )),
        );
      } catch (e) {
        const code = codeOf(e);
        if (code === ErrorCode.NOT_COORDINATOR) continue;
        return { errorCode: code, groups: [] };
      }
    }
    return {
      errorCode: ErrorCode.NONE,
      groups: out.filter(
        (g) =>
          (states.size === 0 || states.has(g.groupState.toLowerCase())) && (types.size === 0 || types.has(g.groupType)),
      ),
    };
  }

  /**
   * GroupMetadataManager.describeGroups: a group that is missing or not a classic group is Dead,
   * with GROUP_ID_NOT_FOUND and the lookup's message from DescribeGroups v6 on (KIP-1043).
   */
  async describeGroups(groupIds: readonly string[], requestVersion = 0): Promise<DescribedGroup[]> {
    const out: DescribedGroup[] = [];
    for (const groupId of groupIds) {
      try {
        const shard = this.shardFor(groupId);
        out.push(
          await shard.read(() => {
            const g = shard.groups.get(groupId);
            if (!g || g.type !== 'classic')
              return {
                ...(requestVersion >= 6
                  ? {
                      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
                      errorMessage: g ? `Group ${groupId} is not a classic group.` : `Group ${groupId} not found.`,
                    }
                  : { errorCode: ErrorCode.NONE }),
                groupId,
                groupState: 'Dead',
                protocolType: '',
                protocolData: '',
                members: [],
              };
            const stable = g.is('Stable');
            return {
              errorCode: ErrorCode.NONE,
              groupId,
              groupState: g.state,
              protocolType: g.protocolType ?? '',
              protocolData: stable ? (g.protocolName ?? '') : '',
              members: [...g.members.values()].map((m) => ({
                memberId: m.memberId,
                groupInstanceId: m.groupInstanceId,
                clientId: m.clientId,
                clientHost: m.clientHost,
                memberMetadata: stable ? m.metadata(g.protocolName!) : Buffer.alloc(0),
                memberAssignment: m.assignment,
              })),
            };
          }),
        );
      } catch (e) {
        out.push({ errorCode: codeOf(e), groupId, groupState: '', protocolType: '', protocolData: '', members: [] });
      }
    }
    return out;
  }

  async deleteGroups(groupIds: readonly string[]): Promise<{ groupId: string; errorCode: number }[]> {
    const out: { groupId: string; errorCode: number }[] = [];
    for (const groupId of groupIds) {
      try {
        const shard = this.shardFor(groupId);
        // a share group's share-partition state goes first (GroupCoordinatorService.deleteShareGroups)
        const shareState = await shard.read(() => {
          const g = shard.groups.get(groupId);
          if (g?.type !== 'share') return null;
          if (!g.isEmpty) throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.');
          const parts: { topicId: string; partition: number }[] = [];
          for (const m of [g.statePartitions?.initialized, g.statePartitions?.initializing])
            for (const [topicId, t] of m ?? []) for (const p of t.partitions) parts.push({ topicId, partition: p });
          return parts;
        });
        if (shareState && shareState.length > 0) {
          const persister = this.opts.persister;
          if (!persister) throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, 'No share-group state persister.');
          const results = await Promise.all(
            shareState.map((p) => persister.deleteState({ groupId, topicId: p.topicId, partition: p.partition })),
          );
          const failed = results.find((r) => r.errorCode !== ErrorCode.NONE);
          if (failed) throw new KafkaError(failed.errorCode, failed.errorMessage ?? '');
        }
        await shard.write(() => {
          const g = shard.groups.get(groupId);
          if (!g || (g.type === 'classic' && g.is('Dead')))
            throw new KafkaError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
          if (!g.isEmpty) throw new KafkaError(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.');
          const records: CoordinatorRecord[] = [];
          shard.offsetManager.deleteAllOffsets(groupId, records);
          if (g.type === 'classic') records.push({ type: 'GroupMetadata', group: groupId, value: null });
          else if (g.type === 'share') records.push(...shareGroupTombstones(g));
          else if (g.type === 'streams') records.push(...streamsGroupTombstones(g));
          else records.push(...consumerGroupTombstones(g));
          return result(undefined, records);
        });
        out.push({ groupId, errorCode: ErrorCode.NONE });
      } catch (e) {
        out.push({ groupId, errorCode: codeOf(e) });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ KIP-848

  async consumerGroupHeartbeat(req: HeartbeatRequest, info: RequestInfo): Promise<HeartbeatResponse> {
    const error = (e: unknown): HeartbeatResponse => ({
      errorCode: codeOf(e),
      errorMessage: messageOf(e),
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    try {
      if (!this.config.protocols.includes('consumer'))
        throw new KafkaError(ErrorCode.UNSUPPORTED_VERSION, 'The consumer group protocol is not enabled.');
      validateHeartbeatRequest(req, this.config.consumerAssignors);
      const shard = this.shardFor(req.groupId);
      return await shard.write(() => shard.consumer.heartbeat(req, info));
    } catch (e) {
      return error(e);
    }
  }

  async consumerGroupDescribe(groupIds: readonly string[]): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (const groupId of groupIds) {
      if (groupId === '') {
        out.push({ errorCode: ErrorCode.INVALID_GROUP_ID, errorMessage: null, groupId: '', members: [] });
        continue;
      }
      try {
        const shard = this.shardFor(groupId);
        out.push(await shard.read(() => shard.consumer.describe(groupId)));
      } catch (e) {
        out.push({ errorCode: codeOf(e), errorMessage: messageOf(e), groupId, members: [] });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ streams groups (KIP-1071)

  /** KafkaApis.isStreamsGroupProtocolEnabled: `streams` in the rebalance protocols and streams.version >= 1. */
  get streamsGroupsEnabled(): boolean {
    return this.config.protocols.includes('streams') && (this.opts.streamsEnabled?.() ?? true);
  }

  /**
   * GroupCoordinatorService.streamsGroupHeartbeat: validation, then the shard's write. The answer
   * carries the internal topics the broker creates (KafkaApis).
   */
  async streamsGroupHeartbeat(req: StreamsGroupHeartbeatRequest, info: RequestInfo): Promise<StreamsHeartbeatResult> {
    const error = (e: unknown): StreamsHeartbeatResult => ({
      // an unexpected failure carries no message (CoordinatorOperationExceptionHelper)
      response: streamsErrorResponse(codeOf(e), messageOf(e) || null),
      internalTopicsToCreate: new Map(),
    });
    if (!this.active)
      return {
        response: streamsErrorResponse(ErrorCode.COORDINATOR_NOT_AVAILABLE, null),
        internalTopicsToCreate: new Map(),
      };
    try {
      validateStreamsHeartbeatRequest(req);
      const shard = this.shardFor(req.groupId);
      return await shard.write(() => shard.streams.heartbeat(req, info));
    } catch (e) {
      return error(e);
    }
  }

  /**
   * GroupCoordinatorService.streamsGroupDescribe: empty group ids (INVALID_GROUP_ID) first, then the
   * others by __consumer_offsets partition.
   */
  async streamsGroupDescribe(groupIds: readonly string[]): Promise<StreamsDescribedGroup[]> {
    const failed = (groupId: string, errorCode: number, errorMessage: string | null): StreamsDescribedGroup => ({
      errorCode,
      errorMessage,
      groupId,
      groupState: '',
      groupEpoch: 0,
      assignmentEpoch: 0,
      topology: null,
      members: [],
      authorizedOperations: -2147483648,
      topologyDescription: null,
      topologyDescriptionStatus: 0,
      assignorName: null,
    });
    if (!this.active) return groupIds.map((g) => failed(g, ErrorCode.COORDINATOR_NOT_AVAILABLE, null));
    const out: StreamsDescribedGroup[] = groupIds
      .filter((g) => g === '')
      .map((g) => failed(g, ErrorCode.INVALID_GROUP_ID, null));
    const byPartition = new Map<number, string[]>();
    for (const groupId of groupIds) {
      if (groupId === '') continue;
      const p = this.partitionFor(groupId);
      byPartition.set(p, [...(byPartition.get(p) ?? []), groupId]);
    }
    for (const ids of byPartition.values())
      for (const groupId of ids) {
        try {
          const shard = this.shardFor(groupId);
          out.push(await shard.read(() => shard.streams.describe(groupId)));
        } catch (e) {
          out.push(failed(groupId, codeOf(e), codeOf(e) === ErrorCode.GROUP_ID_NOT_FOUND ? messageOf(e) : null));
        }
      }
    return out;
  }

  // ------------------------------------------------------------------ share groups (KIP-932)

  /**
   * Plugs in the share-group collaborators built elsewhere (the persister of the share coordinator, the
   * SharePartitionManager's listener); loaded shards get the listener at once.
   */
  setShareCollaborators(c: {
    persister?: Persister;
    listener?: ShareGroupListener;
    latestOffsets?: LatestOffsets;
  }): void {
    if (c.latestOffsets) this.opts.latestOffsets = c.latestOffsets;
    if (c.persister) {
      this.opts.persister = c.persister;
      for (const shard of this.shards.values()) shard.share.initializeEnabled = true;
    }
    if (c.listener) {
      this.opts.shareListener = c.listener;
      for (const shard of this.shards.values()) shard.share.listener = c.listener;
    }
  }

  /** KafkaApis.isShareGroupProtocolEnabled. */
  get shareGroupsEnabled(): boolean {
    return this.opts.shareEnabled?.() ?? true;
  }

  /**
   * GroupCoordinatorService.shareGroupHeartbeat: validation, the shard's write, then (not awaited by the
   * answer) the initialization of newly subscribed share-partitions through the persister.
   */
  async shareGroupHeartbeat(req: ShareHeartbeatRequest, info: RequestInfo): Promise<ShareHeartbeatResponse> {
    const error = (e: unknown): ShareHeartbeatResponse => ({
      errorCode: codeOf(e),
      errorMessage: messageOf(e),
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    if (!this.active)
      return { ...error(undefined), errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null };
    try {
      validateShareHeartbeatRequest(req);
      const shard = this.shardFor(req.groupId);
      const r = await shard.write(() => shard.share.heartbeat(req, info));
      if (r.initialize) this.pendingInitializations.add(this.initializeShareState(shard, r.initialize));
      return r.response;
    } catch (e) {
      return error(e);
    }
  }

  /** Initializations in flight (tests await them). */
  readonly pendingInitializations = new Set<Promise<void>>();

  /** Waits for the share-partition initializations in flight. */
  async settleShareInitializations(): Promise<void> {
    while (this.pendingInitializations.size > 0) await Promise.all([...this.pendingInitializations]);
  }

  private initializeShareState(shard: GroupShard, init: ShareInitializeRequest): Promise<void> {
    const p = (async () => {
      const persister = this.opts.persister;
      const ok = new Map<string, Set<number>>();
      const failed = new Map<string, Set<number>>();
      const add = (m: Map<string, Set<number>>, t: string, part: number) => {
        const s = m.get(t) ?? new Set<number>();
        s.add(part);
        m.set(t, s);
      };
      await Promise.all(
        init.topics.flatMap((t) =>
          t.partitions.map(async (part) => {
            if (!persister) return add(failed, t.topicId, part);
            try {
              const r = await persister.initializeState(
                { groupId: init.groupId, topicId: t.topicId, partition: part },
                init.stateEpoch,
                t.startOffset,
              );
              add(r.errorCode === ErrorCode.NONE ? ok : failed, t.topicId, part);
            } catch {
              add(failed, t.topicId, part);
            }
          }),
        ),
      );
      if (failed.size > 0)
        this.logger(
          'WARN',
          `[GroupId ${init.groupId}] Failed to initialize the state of ${[...failed].map(([t, ps]) => `${t}:${[...ps].join(',')}`).join(' ')}; retried later.`,
        );
      await shard
        .write(() => shard.share.completeInitialize(init.groupId, ok, failed))
        .catch((e) =>
          this.logger(
            'WARN',
            `[GroupId ${init.groupId}] Failed to record initialized share partitions: ${(e as Error).message}`,
          ),
        );
    })();
    const tracked = p.finally(() => this.pendingInitializations.delete(tracked));
    return tracked;
  }

  /**
   * GroupCoordinatorService.shareGroupDescribe: empty group ids (INVALID_GROUP_ID) first, then the others
   * by __consumer_offsets partition, in the order the partitions first appear.
   */
  async shareGroupDescribe(groupIds: readonly string[]): Promise<ShareDescribedGroup[]> {
    const failed = (groupId: string, errorCode: number, errorMessage: string | null): ShareDescribedGroup => ({
      errorCode,
      errorMessage,
      groupId,
      groupState: '',
      groupEpoch: 0,
      assignmentEpoch: 0,
      assignorName: '',
      members: [],
    });
    const out: ShareDescribedGroup[] = groupIds
      .filter((g) => g === '')
      .map((g) => failed(g, ErrorCode.INVALID_GROUP_ID, null));
    const byPartition = new Map<number, string[]>();
    for (const groupId of groupIds) {
      if (groupId === '') continue;
      const p = this.partitionFor(groupId);
      byPartition.set(p, [...(byPartition.get(p) ?? []), groupId]);
    }
    for (const ids of byPartition.values())
      for (const groupId of ids) {
        try {
          const shard = this.shardFor(groupId);
          out.push(await shard.read(() => shard.share.describe(groupId)));
        } catch (e) {
          out.push(failed(groupId, codeOf(e), messageOf(e)));
        }
      }
    return out;
  }

  // ------------------------------------------------------------------ share-group offsets

  /**
   * DescribeShareGroupOffsets for one group (GroupCoordinatorService.describeShareGroupOffsets /
   * describeShareGroupAllOffsets): each partition's start offset and leader epoch from the persister's
   * summary; a topic unknown to the metadata answers start offset -1 under the zero topic id; topics null:
   * every initialized partition of the group. Lag (v1, computeShareGroupLagAndBuildResponse): the
   * partition's latest offset - start offset - delivery-complete count, when the summary has no error,
   * a start offset and a delivery-complete count (else -1); a failed end-offset lookup answers its error.
   */
  async describeShareGroupOffsets(
    groupId: string,
    topics: readonly { topicName: string; partitions: readonly number[] }[] | null,
  ): Promise<ShareOffsetsGroup> {
    const failed = (code: number, message: string | null): ShareOffsetsGroup => ({
      groupId,
      errorCode: code,
      errorMessage: message,
      topics: [],
    });
    if (!this.active) return failed(ErrorCode.COORDINATOR_NOT_AVAILABLE, null);
    if (groupId === '') return failed(ErrorCode.INVALID_GROUP_ID, null);
    let wanted: { topicName: string; topicId: string | null; partitions: readonly number[] }[];
    try {
      const shard = this.shardFor(groupId);
      if (topics === null) {
        const initialized = await shard.read(() => shard.share.initializedOf(groupId));
        wanted = [...initialized].map(([topicId, t]) => ({ topicName: t.name, topicId, partitions: t.partitions }));
      } else {
        wanted = topics.map((t) => ({
          topicName: t.topicName,
          topicId: this.opts.metadata.topic(t.topicName)?.id ?? null,
          partitions: t.partitions,
        }));
      }
    } catch (e) {
      return failed(codeOf(e), messageOf(e));
    }
    const persister = this.opts.persister;
    const out: ShareOffsetsGroup = { groupId, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] };
    const lagged = new Map<string, PersisterSummaryResult>();
    for (const t of wanted) {
      if (t.topicId === null) {
        out.topics.push({
          topicName: t.topicName,
          topicId: ZERO_UUID,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p,
            startOffset: -1n,
            leaderEpoch: 0,
            lag: -1n,
            errorCode: ErrorCode.NONE,
            errorMessage: null,
          })),
        });
        continue;
      }
      const topicId = t.topicId;
      out.topics.push({
        topicName: t.topicName,
        topicId,
        partitions: await Promise.all(
          t.partitions.map(async (p) => {
            if (!persister)
              return {
                partitionIndex: p,
                startOffset: -1n,
                leaderEpoch: 0,
                lag: -1n,
                errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
                errorMessage: 'No share-group state persister.',
              };
            const r = await persister.readSummary({ groupId, topicId, partition: p }, -1);
            // GroupCoordinatorService.shouldComputeSharePartitionLag
            if (r.errorCode === ErrorCode.NONE && r.startOffset !== -1n && r.deliveryCompleteCount !== -1)
              lagged.set(endOffsetKey(t.topicName, p), r);
            // Kafka 4.4 answers a partition whose summary failed with start offset -1, leader epoch 0
            // and no error code (computeShareGroupLagAndBuildResponse sets neither)
            return {
              partitionIndex: p,
              startOffset: r.errorCode === ErrorCode.NONE ? r.startOffset : -1n,
              leaderEpoch: r.errorCode === ErrorCode.NONE ? r.leaderEpoch : 0,
              lag: -1n,
              errorCode: ErrorCode.NONE,
              errorMessage: null,
            };
          }),
        ),
      });
    }
    await this.withShareLag(out, lagged);
    return out;
  }

  /**
   * Fills in the lag of the partitions in `lagged` (summaries with a start offset and a delivery-complete
   * count). A failed end-offset lookup answers its error, the other fields at their defaults, as Kafka.
   */
  private async withShareLag(out: ShareOffsetsGroup, lagged: Map<string, PersisterSummaryResult>): Promise<void> {
    const latestOffsets = this.opts.latestOffsets;
    if (!latestOffsets || lagged.size === 0) return;
    const ends = await latestOffsets(
      out.topics.flatMap((t) =>
        t.partitions
          .filter((p) => lagged.has(endOffsetKey(t.topicName, p.partitionIndex)))
          .map((p) => ({ topic: t.topicName, partition: p.partitionIndex })),
      ),
    );
    for (const t of out.topics)
      t.partitions = t.partitions.map((p) => {
        const key = endOffsetKey(t.topicName, p.partitionIndex);
        const [summary, end] = [lagged.get(key), ends.get(key)];
        if (!summary || !end) return p;
        if (end.errorCode !== ErrorCode.NONE) {
          const { message } = errorInfo(end.errorCode);
          return { ...p, startOffset: 0n, leaderEpoch: 0, lag: -1n, errorCode: end.errorCode, errorMessage: message };
        }
        return { ...p, lag: end.offset - summary.startOffset - BigInt(summary.deliveryCompleteCount) };
      });
  }

  /**
   * AlterShareGroupOffsets (GroupCoordinatorService.alterShareGroupOffsets): an empty share group only;
   * the start offsets are written through the persister's initializeState, then recorded as initialized.
   */
  async alterShareGroupOffsets(
    groupId: string,
    topics: readonly { topicName: string; partitions: readonly { partitionIndex: number; startOffset: bigint }[] }[],
  ): Promise<{ errorCode: number; errorMessage: string | null; responses: ShareAlterResponseTopic[] }> {
    if (!this.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null, responses: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, errorMessage: null, responses: [] };
    try {
      const shard = this.shardFor(groupId);
      const plan = await shard.write(() => shard.share.prepareAlterOffsets(groupId, topics));
      const persister = this.opts.persister;
      const ok = new Map<string, Set<number>>();
      const bad = new Map<string, Set<number>>();
      const errors = new Map<string, { code: number; message: string | null }>();
      await Promise.all(
        plan.initialize.map(async (i) => {
          const r = persister
            ? await persister.initializeState(
                { groupId, topicId: i.topicId, partition: i.partition },
                plan.stateEpoch,
                i.startOffset,
              )
            : { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'No share-group state persister.' };
          const m = r.errorCode === ErrorCode.NONE ? ok : bad;
          m.set(i.topicId, (m.get(i.topicId) ?? new Set<number>()).add(i.partition));
          if (r.errorCode !== ErrorCode.NONE)
            errors.set(`${i.topicId}:${i.partition}`, { code: r.errorCode, message: r.errorMessage });
        }),
      );
      if (plan.initialize.length > 0) await shard.write(() => shard.share.completeInitialize(groupId, ok, bad));
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        responses: plan.responses.map((t) => ({
          ...t,
          partitions: t.partitions.map((p) => {
            const e = errors.get(`${t.topicId}:${p.partitionIndex}`);
            return e ? { partitionIndex: p.partitionIndex, errorCode: e.code, errorMessage: e.message } : p;
          }),
        })),
      };
    } catch (e) {
      return { errorCode: codeOf(e), errorMessage: messageOf(e), responses: [] };
    }
  }

  /**
   * DeleteShareGroupOffsets (GroupCoordinatorService.deleteShareGroupOffsets): an empty share group only;
   * the state of each topic with known state is deleted through the persister, then leaves the group's
   * state metadata.
   */
  async deleteShareGroupOffsets(
    groupId: string,
    topicNames: readonly string[],
  ): Promise<{
    errorCode: number;
    errorMessage: string | null;
    responses: { topicName: string; topicId: string; errorCode: number; errorMessage: string | null }[];
  }> {
    if (!this.active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorMessage: null, responses: [] };
    if (groupId === '') return { errorCode: ErrorCode.INVALID_GROUP_ID, errorMessage: null, responses: [] };
    try {
      const shard = this.shardFor(groupId);
      const plan = await shard.write(() => shard.share.prepareDeleteOffsets(groupId, topicNames));
      const persister = this.opts.persister;
      const responses = [...plan.responses];
      const done: string[] = [];
      for (const t of plan.delete) {
        const results = await Promise.all(
          t.partitions.map((p) =>
            persister
              ? persister.deleteState({ groupId, topicId: t.topicId, partition: p })
              : Promise.resolve({
                  errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
                  errorMessage: 'No share-group state persister.',
                }),
          ),
        );
        const failed = results.find((r) => r.errorCode !== ErrorCode.NONE);
        if (!failed) done.push(t.topicId);
        responses.push({
          topicName: t.topicName,
          topicId: t.topicId,
          errorCode: failed?.errorCode ?? ErrorCode.NONE,
          errorMessage: failed ? failed.errorMessage : null,
        });
      }
      if (done.length > 0) await shard.write(() => shard.share.completeDeleteOffsets(groupId, done));
      return { errorCode: ErrorCode.NONE, errorMessage: null, responses };
    } catch (e) {
      return { errorCode: codeOf(e), errorMessage: messageOf(e), responses: [] };
    }
  }
}

export interface ShareOffsetsGroup {
  groupId: string;
  errorCode: number;
  errorMessage: string | null;
  topics: {
    topicName: string;
    topicId: string;
    partitions: {
      partitionIndex: number;
      startOffset: bigint;
      leaderEpoch: number;
      lag: bigint;
      errorCode: number;
      errorMessage: string | null;
    }[];
  }[];
}

export interface ShareAlterResponseTopic {
  topicName: string;
  topicId: string;
  partitions: { partitionIndex: number; errorCode: number; errorMessage: string | null }[];
}
