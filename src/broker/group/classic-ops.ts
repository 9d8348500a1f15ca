// The classic rebalance protocol (GroupMetadataManager's classic half): JoinGroup with member ids
// issued by the coordinator (KIP-394) and static members (KIP-345), the delayed initial rebalance,
// join completion with leader election and protocol selection, SyncGroup, Heartbeat, LeaveGroup,
// and the session / rebalance / pending-sync timers.
import { streamsGroupTombstones } from './streams-group.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  ClassicGroup,
  ClassicMember,
  EMPTY_ASSIGNMENT,
  joinError,
  syncError,
  type JoinResponse,
  type SyncResponse,
} from './classic-group.js';
import {
  appendErrorToResponseError,
  classicResult,
  emptyGroupMetadataRecord,
  groupMetadataRecord,
  hbKey,
  joinKey,
  NONE,
  syncKey,
  type JoinRequest,
  type Op,
  type Parked,
  type SyncRequest,
} from './classic-support.js';
import type { ClassicMembersInConsumerGroup } from './classic-members.js';
import { consumerGroupTombstones } from './consumer-group.js';
import type { CoordinatorRecord } from './records.js';
import { deferred, type RequestInfo, type ShardContext } from './shard-types.js';

export {
  appendErrorToResponseError,
  groupMetadataRecord,
  hbKey,
  type JoinRequest,
  type Parked,
  type SyncRequest,
} from './classic-support.js';

export class ClassicGroupManager {
  /** Classic-protocol members of consumer groups (set by the shard). */
  mixed: ClassicMembersInConsumerGroup | null = null;

  constructor(private readonly ctx: ShardContext) {}

  /** The classic group, or undefined when absent (or of another type). */
  group(groupId: string): ClassicGroup | undefined {
    const g = this.ctx.groups.get(groupId);
    return g && g.type === 'classic' ? g : undefined;
  }

  getOrCreate(groupId: string): ClassicGroup {
    let g = this.group(groupId);
    if (!g) {
      g = new ClassicGroup(groupId, this.ctx.clock);
      this.ctx.groups.set(groupId, g);
    }
    return g;
  }

  // ------------------------------------------------------------------ JoinGroup

  join(req: JoinRequest, info: RequestInfo): Op<Parked<JoinResponse>> {
    const d = deferred<JoinResponse>();
    const records: CoordinatorRecord[] = [];
    const existing = this.ctx.groups.get(req.groupId);
    // classicGroupJoin: a share group's id cannot be joined with the classic protocol
    if (existing && existing.type === 'share') {
      d.resolve(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
      return classicResult({ wait: d.promise });
    }
    // a streams group with members cannot be joined either; an empty one becomes a classic group
    if (existing && existing.type === 'streams') {
      if (!existing.isEmpty) {
        d.resolve(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        return classicResult({ wait: d.promise });
      }
      records.push(...streamsGroupTombstones(existing));
      this.ctx.groups.delete(req.groupId);
      this.ctx.log('INFO', `[GroupId ${req.groupId}] Converted the empty streams group to a classic group.`);
    }
    if (existing && existing.type === 'consumer') {
      if (existing.members.size > 0) {
        // a classic member of a consumer group (classicGroupJoinToConsumerGroup)
        if (this.mixed) return this.mixed.join(existing, req, info);
        d.resolve(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
        return classicResult({ wait: d.promise });
      }
      records.push(...consumerGroupTombstones(existing));
      this.ctx.groups.delete(req.groupId);
    }
    const isUnknown = req.memberId === '';
    const isNewGroup = !this.ctx.groups.has(req.groupId);
    if (isNewGroup && !isUnknown) {
      d.resolve(joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return classicResult({ wait: d.promise }, records);
    }
    const group = this.getOrCreate(req.groupId);
    let r: Op<void>;
    if (!this.acceptJoiningMember(group, req.memberId)) {
      group.remove(req.memberId);
      d.resolve(joinError('', ErrorCode.GROUP_MAX_SIZE_REACHED));
      r = classicResult(undefined);
    } else if (isUnknown) {
      r = this.joinNewMember(req, info, group, d.resolve);
    } else {
      r = this.joinExistingMember(req, info, group, d.resolve);
    }
    records.push(...r.records);
    if (isNewGroup && r.records.length === 0) {
      records.push(emptyGroupMetadataRecord(group));
      return classicResult({ wait: d.promise }, records, (e) => {
        if (e === NONE) return;
        // the group was never written: forget it (Kafka reverts its timeline)
        const code = appendErrorToResponseError(e);
        for (const m of group.members.values()) group.completeJoinFuture(m, joinError(m.memberId, code));
        if (this.ctx.groups.get(req.groupId) === group) this.ctx.groups.delete(req.groupId);
        this.ctx.timer.cancel(joinKey(req.groupId));
        d.resolve(joinError('', code));
      });
    }
    return classicResult({ wait: d.promise }, records, r.onAppended);
  }

  private acceptJoiningMember(g: ClassicGroup, memberId: string): boolean {
    const max = this.ctx.config.classicMaxSize;
    switch (g.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance':
        return (g.hasMember(memberId) && g.member(memberId).awaitingJoin !== null) || g.numMembersAwaitingJoin < max;
      default:
        return g.hasMember(memberId) || g.numMembers < max;
    }
  }

  private joinNewMember(
    req: JoinRequest,
    info: RequestInfo,
    g: ClassicGroup,
    respond: (r: JoinResponse) => void,
  ): Op<void> {
    if (g.is('Dead')) {
      respond(joinError('', ErrorCode.COORDINATOR_NOT_AVAILABLE));
    } else if (!g.supportsProtocols(req.protocolType, req.protocols)) {
      respond(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    } else {
      const newMemberId = g.generateMemberId(info.clientId, req.groupInstanceId);
      if (req.groupInstanceId !== null) {
        const existingId = g.staticMemberId(req.groupInstanceId);
        if (existingId !== undefined)
          return this.updateStaticMemberThenRebalanceOrCompleteJoin(req, info, g, existingId, newMemberId, respond);
        return this.addMemberThenRebalanceOrCompleteJoin(req, info, g, newMemberId, respond);
      }
      if (info.apiVersion >= 4) {
        // KIP-394: hand out the member id and expect the member to join again with it
        g.addPendingMember(newMemberId);
        this.ctx.timer.schedule(hbKey(g.groupId, newMemberId), req.sessionTimeoutMs, () =>
          this.expireHeartbeat(g.groupId, newMemberId),
        );
        respond(joinError(newMemberId, ErrorCode.MEMBER_ID_REQUIRED));
      } else {
        return this.addMemberThenRebalanceOrCompleteJoin(req, info, g, newMemberId, respond);
      }
    }
    return classicResult(undefined);
  }

  private joinExistingMember(
    req: JoinRequest,
    info: RequestInfo,
    g: ClassicGroup,
    respond: (r: JoinResponse) => void,
  ): Op<void> {
    const memberId = req.memberId;
    if (g.is('Dead')) {
      respond(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    } else if (!g.supportsProtocols(req.protocolType, req.protocols)) {
      respond(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    } else if (g.isPendingMember(memberId)) {
      if (req.groupInstanceId !== null) {
        respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
        return classicResult(undefined);
      }
      return this.addMemberThenRebalanceOrCompleteJoin(req, info, g, memberId, respond);
    } else {
      try {
        g.validateMember(memberId, req.groupInstanceId);
      } catch (e) {
        respond(joinError(memberId, (e as KafkaError).code));
        return classicResult(undefined);
      }
      const member = g.member(memberId);
      const current = (members: JoinResponse['members']): JoinResponse => ({
        errorCode: NONE,
        generationId: g.generationId,
        protocolType: g.protocolType,
        protocolName: g.protocolName,
        leader: g.leaderId ?? '',
        skipAssignment: false,
        memberId,
        members,
      });
      if (g.is('PreparingRebalance')) {
        return this.updateMemberThenRebalanceOrCompleteJoin(req, g, member, respond);
      } else if (g.is('CompletingRebalance')) {
        if (member.matches(req.protocols)) respond(current(g.isLeader(memberId) ? g.currentMembersForJoin() : []));
        else return this.updateMemberThenRebalanceOrCompleteJoin(req, g, member, respond);
      } else if (g.is('Stable')) {
        if (g.isLeader(memberId) || !member.matches(req.protocols))
          return this.updateMemberThenRebalanceOrCompleteJoin(req, g, member, respond);
        respond(current([]));
      } else {
        respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      }
    }
    return classicResult(undefined);
  }

  private updateMemberThenRebalanceOrCompleteJoin(
    req: JoinRequest,
    g: ClassicGroup,
    m: ClassicMember,
    respond: (r: JoinResponse) => void,
  ): Op<void> {
    g.updateMember(m, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, respond);
    return this.maybePrepareRebalanceOrCompleteJoin(g, `member ${m.memberId} rejoins`);
  }

  private addMemberThenRebalanceOrCompleteJoin(
    req: JoinRequest,
    info: RequestInfo,
    g: ClassicGroup,
    memberId: string,
    respond: (r: JoinResponse) => void,
  ): Op<void> {
    const m = new ClassicMember(
      memberId,
      req.groupInstanceId,
      info.clientId,
      info.clientHost,
      req.rebalanceTimeoutMs,
      req.sessionTimeoutMs,
      req.protocolType,
      req.protocols,
    );
    m.isNew = true;
    if (g.is('PreparingRebalance') && g.previousState === 'Empty') g.newMemberAdded = true;
    g.add(m, respond);
    // a new member cannot heartbeat while its JoinGroup is parked: time the JoinGroup out instead
    this.rescheduleHeartbeat(g, m, this.ctx.config.classicNewMemberJoinTimeoutMs);
    return this.maybePrepareRebalanceOrCompleteJoin(g, `adding new member ${memberId}`);
  }

  private updateStaticMemberThenRebalanceOrCompleteJoin(
    req: JoinRequest,
    info: RequestInfo,
    g: ClassicGroup,
    oldMemberId: string,
    newMemberId: string,
    respond: (r: JoinResponse) => void,
  ): Op<void> {
    const currentLeader = g.leaderId;
    const newMember = g.replaceStaticMember(req.groupInstanceId!, oldMemberId, newMemberId);
    this.ctx.timer.cancel(hbKey(g.groupId, oldMemberId));
    this.rescheduleHeartbeat(g, newMember);
    const old = {
      protocols: newMember.protocols,
      rebalance: newMember.rebalanceTimeoutMs,
      session: newMember.sessionTimeoutMs,
    };
    g.updateMember(newMember, req.protocols, req.rebalanceTimeoutMs, req.sessionTimeoutMs, respond);
    if (g.is('Stable')) {
      if ((g.protocolName ?? '') === g.selectProtocol()) {
        // the protocol stays: persist the new member id, no rebalance
        const records = [groupMetadataRecord(g, g.groupAssignment())];
        return classicResult(undefined, records, (e) => {
          if (e !== NONE) {
            g.updateMember(newMember, old.protocols, old.rebalance, old.session, null);
            const reverted = g.replaceStaticMember(req.groupInstanceId!, newMemberId, oldMemberId);
            this.rescheduleHeartbeat(g, reverted);
            respond({
              ...joinError('', appendErrorToResponseError(e)),
              generationId: g.generationId,
              protocolType: g.protocolType,
              protocolName: g.protocolName,
              leader: currentLeader ?? '',
            });
            return;
          }
          const isLeader = g.isLeader(newMemberId);
          const skip = info.apiVersion >= 9;
          g.completeJoinFuture(newMember, {
            errorCode: NONE,
            generationId: g.generationId,
            protocolType: g.protocolType,
            protocolName: g.protocolName,
            leader: skip ? (g.leaderId ?? '') : (currentLeader ?? ''),
            skipAssignment: skip && isLeader,
            memberId: newMemberId,
            members: skip && isLeader ? g.currentMembersForJoin() : [],
          });
        });
      }
      return this.maybePrepareRebalanceOrCompleteJoin(g, `static member ${newMemberId} changed protocol`);
    } else if (g.is('CompletingRebalance')) {
      return this.prepareRebalance(g, `updating metadata for static member ${newMemberId}`);
    }
    return this.maybeCompleteJoinPhase(g);
  }

  // ------------------------------------------------------------------ rebalance

  private maybePrepareRebalanceOrCompleteJoin(g: ClassicGroup, reason: string): Op<void> {
    return g.canRebalance() ? this.prepareRebalance(g, reason) : this.maybeCompleteJoinPhase(g);
  }

  private maybeCompleteJoinPhase(g: ClassicGroup): Op<void> {
    if (!g.is('PreparingRebalance') || g.previousState === 'Empty' || !g.hasAllMembersJoined())
      return classicResult(undefined);
    return this.completeJoin(g);
  }

  prepareRebalance(g: ClassicGroup, reason: string): Op<void> {
    if (g.is('CompletingRebalance')) this.resetAndPropagateAssignmentWithError(g, ErrorCode.REBALANCE_IN_PROGRESS);
    g.pendingSyncMembers.clear();
    this.ctx.timer.cancel(syncKey(g.groupId));
    const initial = g.is('Empty');
    if (initial) {
      const delay = this.ctx.config.classicInitialRebalanceDelayMs;
      const remaining = Math.max(g.rebalanceTimeoutMs() - delay, 0);
      this.ctx.timer.schedule(joinKey(g.groupId), delay, () =>
        this.tryCompleteInitialRebalanceElseSchedule(g.groupId, delay, remaining),
      );
    }
    g.transitionTo('PreparingRebalance');
    this.ctx.log(
      'INFO',
      `Preparing to rebalance group ${g.groupId} in state ${g.state} with old generation ${g.generationId} (reason: ${reason}).`,
    );
    if (initial) return classicResult(undefined);
    if (g.hasAllMembersJoined()) return this.completeJoin(g);
    this.ctx.timer.schedule(joinKey(g.groupId), g.rebalanceTimeoutMs(), () => this.completeJoinById(g.groupId));
    return classicResult(undefined);
  }

  private tryCompleteInitialRebalanceElseSchedule(groupId: string, delayMs: number, remainingMs: number): Op<void> {
    const g = this.group(groupId);
    if (!g) return classicResult(undefined);
    if (g.newMemberAdded && remainingMs !== 0) {
      g.newMemberAdded = false;
      const newDelay = Math.min(this.ctx.config.classicInitialRebalanceDelayMs, remainingMs);
      const newRemaining = Math.max(remainingMs - delayMs, 0);
      this.ctx.timer.schedule(joinKey(groupId), newDelay, () =>
        this.tryCompleteInitialRebalanceElseSchedule(groupId, newDelay, newRemaining),
      );
      return classicResult(undefined);
    }
    return this.completeJoin(g);
  }

  private completeJoinById(groupId: string): Op<void> {
    const g = this.group(groupId);
    return g ? this.completeJoin(g) : classicResult(undefined);
  }

  /** Ends the join phase: drops dynamic members that did not rejoin, starts the next generation. */
  completeJoin(g: ClassicGroup): Op<void> {
    this.ctx.timer.cancel(joinKey(g.groupId));
    for (const m of g.notYetRejoinedMembers()) {
      if (m.isStatic) continue;
      g.remove(m.memberId);
      this.ctx.timer.cancel(hbKey(g.groupId, m.memberId));
    }
    if (g.is('Dead')) return classicResult(undefined);
    if (!g.maybeElectNewJoinedLeader() && g.numMembers > 0) {
      // nobody rejoined: wait for the session timeouts to remove the silent members
      this.ctx.timer.schedule(joinKey(g.groupId), g.rebalanceTimeoutMs(), () => this.completeJoinById(g.groupId));
      return classicResult(undefined);
    }
    g.initNextGeneration();
    if (g.is('Empty')) {
      this.ctx.log('INFO', `Group ${g.groupId} with generation ${g.generationId} is now empty.`);
      return classicResult(undefined, [groupMetadataRecord(g, new Map())]);
    }
    this.ctx.log('INFO', `Stabilized group ${g.groupId} generation ${g.generationId} with ${g.numMembers} members.`);
    for (const m of [...g.members.values()]) {
      g.completeJoinFuture(m, {
        errorCode: NONE,
        generationId: g.generationId,
        protocolType: g.protocolType,
        protocolName: g.protocolName,
        leader: g.leaderId ?? '',
        skipAssignment: false,
        memberId: m.memberId,
        members: g.isLeader(m.memberId) ? g.currentMembersForJoin() : [],
      });
      this.rescheduleHeartbeat(g, m);
      m.isNew = false;
      g.pendingSyncMembers.add(m.memberId);
    }
    const generation = g.generationId;
    this.ctx.timer.schedule(syncKey(g.groupId), g.rebalanceTimeoutMs(), () =>
      this.expirePendingSync(g.groupId, generation),
    );
    return classicResult(undefined);
  }

  private expirePendingSync(groupId: string, generationId: number): Op<void> {
    const g = this.group(groupId);
    if (!g || g.generationId !== generationId) return classicResult(undefined);
    if ((g.is('CompletingRebalance') || g.is('Stable')) && g.pendingSyncMembers.size > 0) {
      const pending = [...g.pendingSyncMembers];
      for (const id of pending) {
        g.remove(id);
        this.ctx.timer.cancel(hbKey(groupId, id));
      }
      return this.prepareRebalance(g, `removing ${pending.join(', ')} on pending sync request expiration`);
    }
    return classicResult(undefined);
  }

  private resetAndPropagateAssignmentWithError(g: ClassicGroup, error: number): void {
    for (const m of g.members.values()) m.assignment = EMPTY_ASSIGNMENT;
    this.propagateAssignment(g, error);
  }

  private propagateAssignment(g: ClassicGroup, error: number): void {
    for (const m of [...g.members.values()]) {
      const r: SyncResponse =
        error === NONE
          ? { errorCode: NONE, protocolType: g.protocolType, protocolName: g.protocolName, assignment: m.assignment }
          : { ...syncError(error), assignment: m.assignment };
      if (g.completeSyncFuture(m, r)) this.rescheduleHeartbeat(g, m);
    }
  }

  rescheduleHeartbeat(g: ClassicGroup, m: ClassicMember, timeoutMs = m.sessionTimeoutMs): void {
    const groupId = g.groupId;
    const memberId = m.memberId;
    this.ctx.timer.schedule(hbKey(groupId, memberId), timeoutMs, () => this.expireHeartbeat(groupId, memberId));
  }

  private expireHeartbeat(groupId: string, memberId: string): Op<void> {
    const g = this.group(groupId);
    if (!g || g.is('Dead')) return classicResult(undefined);
    if (g.isPendingMember(memberId)) {
      g.remove(memberId);
      if (g.is('PreparingRebalance') && g.hasAllMembersJoined()) return this.completeJoin(g);
      return classicResult(undefined);
    }
    const m = g.members.get(memberId);
    if (!m || m.hasSatisfiedHeartbeat()) return classicResult(undefined);
    this.ctx.log('INFO', `Member ${memberId} in group ${groupId} has failed, removing it from the group.`);
    return this.removeMemberAndUpdateGroup(g, m);
  }

  private removeMemberAndUpdateGroup(g: ClassicGroup, m: ClassicMember): Op<void> {
    g.completeJoinFuture(m, joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    g.remove(m.memberId);
    if (g.is('Stable') || g.is('CompletingRebalance'))
      return this.maybePrepareRebalanceOrCompleteJoin(g, `removing member ${m.memberId} on heartbeat expiration`);
    if (g.is('PreparingRebalance') && g.hasAllMembersJoined()) return this.completeJoin(g);
    return classicResult(undefined);
  }

  // ------------------------------------------------------------------ SyncGroup

  sync(req: SyncRequest): Op<Parked<SyncResponse>> {
    const d = deferred<SyncResponse>();
    const any = this.ctx.groups.get(req.groupId);
    if (any && any.type === 'consumer' && !any.isEmpty && this.mixed) return this.mixed.sync(any, req);
    const g = any && any.type === 'classic' ? any : undefined;
    if (!g || g.isEmpty) {
      d.resolve(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      return classicResult({ wait: d.promise });
    }
    const error = this.validateSync(g, req);
    if (error !== null) {
      d.resolve(syncError(error));
    } else if (g.is('PreparingRebalance')) {
      d.resolve(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
    } else if (g.is('CompletingRebalance')) {
      g.member(req.memberId).awaitingSync = d.resolve;
      this.removePendingSyncMember(g, req.memberId);
      if (g.isLeader(req.memberId)) {
        const assignment = new Map<string, Buffer>();
        for (const a of req.assignments) assignment.set(a.memberId, a.assignment);
        for (const id of g.members.keys()) if (!assignment.has(id)) assignment.set(id, EMPTY_ASSIGNMENT);
        const generation = req.generationId;
        return classicResult({ wait: d.promise }, [groupMetadataRecord(g, assignment)], (e) => {
          if (!g.is('CompletingRebalance') || g.generationId !== generation) return;
          if (e !== NONE) {
            const err = appendErrorToResponseError(e);
            this.resetAndPropagateAssignmentWithError(g, err);
            this.maybePrepareRebalanceOrCompleteJoin(g, `error ${err} when storing group assignment`);
            return;
          }
          for (const m of g.members.values()) m.assignment = assignment.get(m.memberId) ?? EMPTY_ASSIGNMENT;
          this.propagateAssignment(g, NONE);
          g.transitionTo('Stable');
        });
      }
    } else if (g.is('Stable')) {
      this.removePendingSyncMember(g, req.memberId);
      const m = g.member(req.memberId);
      d.resolve({
        errorCode: NONE,
        protocolType: g.protocolType,
        protocolName: g.protocolName,
        assignment: m.assignment,
      });
    }
    return classicResult({ wait: d.promise });
  }

  private validateSync(g: ClassicGroup, req: SyncRequest): number | null {
    if (g.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    try {
      g.validateMember(req.memberId, req.groupInstanceId);
    } catch (e) {
      return (e as KafkaError).code;
    }
    if (req.generationId !== g.generationId) return ErrorCode.ILLEGAL_GENERATION;
    const inconsistent = (a: string | null, b: string | null): boolean => a !== null && b !== null && a !== b;
    if (inconsistent(req.protocolType, g.protocolType) || inconsistent(req.protocolName, g.protocolName))
      return ErrorCode.INCONSISTENT_GROUP_PROTOCOL;
    return null;
  }

  private removePendingSyncMember(g: ClassicGroup, memberId: string): void {
    g.pendingSyncMembers.delete(memberId);
    if (g.is('Dead') || g.is('Empty') || g.is('PreparingRebalance') || g.pendingSyncMembers.size === 0)
      this.ctx.timer.cancel(syncKey(g.groupId));
  }

  // ------------------------------------------------------------------ Heartbeat

  heartbeat(req: {
    groupId: string;
    generationId: number;
    memberId: string;
    groupInstanceId: string | null;
  }): Op<number> {
    const any = this.ctx.groups.get(req.groupId);
    if (any && any.type === 'consumer' && this.mixed) return this.mixed.heartbeat(any, req);
    const g = this.group(req.groupId);
    if (!g) return classicResult(ErrorCode.UNKNOWN_MEMBER_ID);
    if (g.is('Dead')) return classicResult(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    try {
      g.validateMember(req.memberId, req.groupInstanceId);
    } catch (e) {
      return classicResult((e as KafkaError).code);
    }
    if (req.generationId !== g.generationId) return classicResult(ErrorCode.ILLEGAL_GENERATION);
    switch (g.state) {
      case 'Empty':
        return classicResult(ErrorCode.UNKNOWN_MEMBER_ID);
      case 'PreparingRebalance':
        this.rescheduleHeartbeat(g, g.member(req.memberId));
        return classicResult(ErrorCode.REBALANCE_IN_PROGRESS);
      default:
        this.rescheduleHeartbeat(g, g.member(req.memberId));
        return classicResult(NONE);
    }
  }

  // ------------------------------------------------------------------ LeaveGroup

  leave(
    groupId: string,
    members: { memberId: string; groupInstanceId: string | null }[],
  ): Op<{ errorCode: number; members: { memberId: string; groupInstanceId: string | null; errorCode: number }[] }> {
    const any = this.ctx.groups.get(groupId);
    if (any && any.type === 'consumer' && this.mixed) return this.mixed.leave(any, members);
    const g = this.group(groupId);
    if (!g) {
      return classicResult({
        errorCode: NONE,
        members: members.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })),
      });
    }
    if (g.is('Dead')) return classicResult({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] });
    const out: { memberId: string; groupInstanceId: string | null; errorCode: number }[] = [];
    for (const m of members) {
      if (m.memberId === '') {
        const id = m.groupInstanceId !== null ? g.staticMemberId(m.groupInstanceId) : undefined;
        if (id !== undefined) {
          this.removeCurrentMember(g, id);
          out.push({ ...m, errorCode: NONE });
        } else {
          out.push({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID });
        }
      } else if (g.isPendingMember(m.memberId)) {
        g.remove(m.memberId);
        this.ctx.timer.cancel(hbKey(groupId, m.memberId));
        out.push({ ...m, errorCode: NONE });
      } else {
        try {
          g.validateMember(m.memberId, m.groupInstanceId);
          this.removeCurrentMember(g, m.memberId);
          out.push({ ...m, errorCode: NONE });
        } catch (e) {
          out.push({ ...m, errorCode: (e as KafkaError).code });
        }
      }
    }
    let r: Op<void> = classicResult(undefined);
    if (out.some((x) => x.errorCode === NONE)) {
      if (g.is('Stable') || g.is('CompletingRebalance'))
        r = this.maybePrepareRebalanceOrCompleteJoin(g, 'explicit LeaveGroup request');
      else if (g.is('PreparingRebalance')) r = this.maybeCompleteJoinPhase(g);
    }
    return classicResult({ errorCode: NONE, members: out }, r.records, r.onAppended);
  }

  private removeCurrentMember(g: ClassicGroup, memberId: string): void {
    const m = g.member(memberId);
    this.ctx.timer.cancel(hbKey(g.groupId, memberId));
    g.completeJoinFuture(m, joinError('', ErrorCode.UNKNOWN_MEMBER_ID));
    g.remove(memberId);
  }

  // ------------------------------------------------------------------ loading / unloading

  onLoaded(g: ClassicGroup): void {
    for (const m of g.members.values()) this.rescheduleHeartbeat(g, m);
  }

  /** Fails every parked request with NOT_COORDINATOR and marks the group Dead (partition unloaded). */
  onUnloaded(g: ClassicGroup): void {
    for (const m of g.members.values()) {
      g.completeJoinFuture(m, joinError(m.memberId, ErrorCode.NOT_COORDINATOR));
      g.completeSyncFuture(m, syncError(ErrorCode.NOT_COORDINATOR));
    }
    g.transitionTo('Dead');
  }
}
