// A classic (JoinGroup/SyncGroup) group and its members, as Kafka's ClassicGroup and
// ClassicGroupMember model them: states, the protocol votes, leader, static members, members
// pending join (KIP-394) and pending sync, and the parked JoinGroup/SyncGroup responses.
import { randomUUID } from 'node:crypto';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { parseSubscriptionTopics } from './consumer-protocol.js';

export type ClassicState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

const VALID_PREVIOUS: Record<ClassicState, readonly ClassicState[]> = {
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Empty: ['PreparingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export interface Protocol {
  name: string;
  metadata: Buffer;
}

export interface JoinResponse {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export interface SyncResponse {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export const EMPTY_ASSIGNMENT = Buffer.alloc(0);

export function joinError(memberId: string, errorCode: number): JoinResponse {
  return {
    errorCode,
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    skipAssignment: false,
    memberId,
    members: [],
  };
}

export function syncError(errorCode: number): SyncResponse {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY_ASSIGNMENT };
}

export class ClassicMember {
  awaitingJoin: ((r: JoinResponse) => void) | null = null;
  awaitingSync: ((r: SyncResponse) => void) | null = null;
  isNew = false;

  constructor(
    readonly memberId: string,
    readonly groupInstanceId: string | null,
    public clientId: string,
    public clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: Protocol[],
    public assignment: Buffer = EMPTY_ASSIGNMENT,
  ) {}

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  metadata(protocolName: string): Buffer {
    const p = this.protocols.find((x) => x.name === protocolName);
    if (!p) throw new Error(`Member does not support protocol ${protocolName}`);
    return p.metadata;
  }

  /** Same protocols in the same order with the same metadata (JoinGroupRequestProtocolCollection.equals). */
  matches(protocols: readonly Protocol[]): boolean {
    return (
      protocols.length === this.protocols.length &&
      protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata))
    );
  }

  vote(candidates: ReadonlySet<string>): string {
    const p = this.protocols.find((x) => candidates.has(x.name));
    if (!p) throw new Error('Member does not support any of the candidate protocols');
    return p.name;
  }

  /** An existing member awaiting join or sync satisfies its heartbeat; a new member does not. */
  hasSatisfiedHeartbeat(): boolean {
    return this.isNew ? false : this.awaitingJoin !== null || this.awaitingSync !== null;
  }
}

export class ClassicGroup {
  readonly type = 'classic' as const;
  state: ClassicState;
  previousState: ClassicState;
  currentStateTimestamp: number | null;
  protocolType: string | null;
  protocolName: string | null;
  generationId: number;
  leaderId: string | null;
  readonly members = new Map<string, ClassicMember>();
  readonly staticMembers = new Map<string, string>();
  readonly pendingJoinMembers = new Set<string>();
  readonly pendingSyncMembers = new Set<string>();
  private readonly supportedProtocols = new Map<string, number>();
  numMembersAwaitingJoin = 0;
  newMemberAdded = false;
  subscribedTopics: Set<string> | null = null;

  constructor(
    readonly groupId: string,
    private readonly clock: () => number,
    init: {
      state?: ClassicState;
      generationId?: number;
      protocolType?: string | null;
      protocolName?: string | null;
      leaderId?: string | null;
      currentStateTimestamp?: number | null;
    } = {},
  ) {
    this.state = init.state ?? 'Empty';
    this.previousState = this.state;
    this.generationId = init.generationId ?? 0;
    this.protocolType = init.protocolType ?? null;
    this.protocolName = init.protocolName ?? null;
    this.leaderId = init.leaderId ?? null;
    this.currentStateTimestamp = init.currentStateTimestamp ?? null;
  }

  is(state: ClassicState): boolean {
    return this.state === state;
  }

  get isEmpty(): boolean {
    return this.state === 'Empty';
  }

  get numMembers(): number {
    return this.members.size;
  }

  hasMember(memberId: string): boolean {
    return this.members.has(memberId);
  }

  member(memberId: string): ClassicMember {
    const m = this.members.get(memberId);
    if (!m) throw new Error(`member ${memberId} not in group ${this.groupId}`);
    return m;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  transitionTo(target: ClassicState): void {
    if (!VALID_PREVIOUS[target].includes(this.state)) {
      throw new Error(
        `Group ${this.groupId} should be in one of ${VALID_PREVIOUS[target].join(',')} states before moving to ${target} state. Instead it is in ${this.state} state.`,
      );
    }
    this.previousState = this.state;
    this.state = target;
    this.currentStateTimestamp = this.clock();
  }

  add(member: ClassicMember, future: ((r: JoinResponse) => void) | null = null): void {
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId))
        throw new Error(`static member ${member.groupInstanceId} already in group`);
      this.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    this.incrementProtocols(member);
    member.awaitingJoin = future;
    if (future) this.numMembersAwaitingJoin++;
    this.pendingJoinMembers.delete(member.memberId);
  }

  remove(memberId: string): void {
    const removed = this.members.get(memberId);
    if (removed) {
      this.members.delete(memberId);
      this.decrementProtocols(removed);
      if (removed.awaitingJoin) this.numMembersAwaitingJoin--;
      if (removed.groupInstanceId !== null) this.staticMembers.delete(removed.groupInstanceId);
    }
    if (this.isLeader(memberId)) {
      const next = this.members.keys().next();
      this.leaderId = next.done ? null : next.value;
    }
    this.pendingJoinMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
  }

  /** Keeps the leader if it rejoined, else elects a member that did; false if none rejoined. */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader && leader.awaitingJoin) return true;
    for (const m of this.members.values()) {
      if (m.awaitingJoin) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  replaceStaticMember(instanceId: string, oldMemberId: string, newMemberId: string): ClassicMember {
    const old = this.members.get(oldMemberId);
    if (!old) throw new Error(`Cannot replace non-existing member id ${oldMemberId}`);
    this.members.delete(oldMemberId);
    // fence a duplicate that is still waiting
    if (old.awaitingJoin) {
      old.awaitingJoin({ ...joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID), generationId: -1 });
      old.awaitingJoin = null;
      this.numMembersAwaitingJoin--;
    }
    if (old.awaitingSync) {
      old.awaitingSync(syncError(ErrorCode.FENCED_INSTANCE_ID));
      old.awaitingSync = null;
    }
    const m = new ClassicMember(
      newMemberId,
      old.groupInstanceId,
      old.clientId,
      old.clientHost,
      old.rebalanceTimeoutMs,
      old.sessionTimeoutMs,
      old.protocolType,
      old.protocols,
      old.assignment,
    );
    this.members.set(newMemberId, m);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    this.staticMembers.set(instanceId, newMemberId);
    this.pendingSyncMembers.delete(oldMemberId);
    return m;
  }

  isPendingMember(memberId: string): boolean {
    return this.pendingJoinMembers.has(memberId);
  }

  addPendingMember(memberId: string): void {
    this.pendingJoinMembers.add(memberId);
  }

  staticMemberId(instanceId: string): string | undefined {
    return this.staticMembers.get(instanceId);
  }

  hasAllMembersJoined(): boolean {
    return this.members.size === this.numMembersAwaitingJoin && this.pendingJoinMembers.size === 0;
  }

  notYetRejoinedMembers(): ClassicMember[] {
    return [...this.members.values()].filter((m) => !m.awaitingJoin);
  }

  /** The largest rebalance timeout of the members. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  generateMemberId(clientId: string, instanceId: string | null): string {
    return `${instanceId ?? clientId}-${randomUUID()}`;
  }

  /** UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID checks shared by join, sync, heartbeat, leave and commit. */
  validateMember(memberId: string, instanceId: string | null): void {
    if (instanceId !== null) {
      const existing = this.staticMemberId(instanceId);
      if (existing === undefined) throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, 'unknown static member');
      if (existing !== memberId)
        throw new KafkaError(ErrorCode.FENCED_INSTANCE_ID, `static member ${instanceId} is fenced`);
    }
    if (!this.hasMember(memberId)) throw new KafkaError(ErrorCode.UNKNOWN_MEMBER_ID, `unknown member ${memberId}`);
  }

  canRebalance(): boolean {
    return VALID_PREVIOUS.PreparingRebalance.includes(this.state);
  }

  private incrementProtocols(m: ClassicMember): void {
    for (const p of m.protocols) this.supportedProtocols.set(p.name, (this.supportedProtocols.get(p.name) ?? 0) + 1);
  }

  private decrementProtocols(m: ClassicMember): void {
    for (const p of m.protocols) this.supportedProtocols.set(p.name, (this.supportedProtocols.get(p.name) ?? 0) - 1);
  }

  private candidateProtocols(): Set<string> {
    const out = new Set<string>();
    for (const [name, n] of this.supportedProtocols) if (n === this.members.size) out.add(name);
    return out;
  }

  /** The protocol with most votes among those every member supports. */
  selectProtocol(): string {
    if (this.members.size === 0) throw new Error('Cannot select protocol for empty group');
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best: string | null = null;
    let bestVotes = -1;
    for (const [name, n] of votes) {
      if (n > bestVotes) {
        best = name;
        bestVotes = n;
      }
    }
    return best!;
  }

  supportsProtocols(protocolType: string, protocols: readonly Protocol[]): boolean {
    if (this.is('Empty')) return protocolType !== '' && protocols.length > 0;
    return (
      this.protocolType === protocolType &&
      protocols.some((p) => (this.supportedProtocols.get(p.name) ?? 0) === this.members.size)
    );
  }

  updateMember(
    m: ClassicMember,
    protocols: Protocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    future: ((r: JoinResponse) => void) | null,
  ): void {
    this.decrementProtocols(m);
    m.protocols = protocols;
    this.incrementProtocols(m);
    m.rebalanceTimeoutMs = rebalanceTimeoutMs;
    m.sessionTimeoutMs = sessionTimeoutMs;
    if (future && !m.awaitingJoin) this.numMembersAwaitingJoin++;
    else if (!future && m.awaitingJoin) this.numMembersAwaitingJoin--;
    m.awaitingJoin = future;
  }

  completeJoinFuture(m: ClassicMember, r: JoinResponse): boolean {
    if (!m.awaitingJoin) return false;
    const f = m.awaitingJoin;
    m.awaitingJoin = null;
    this.numMembersAwaitingJoin--;
    f(r);
    return true;
  }

  completeSyncFuture(m: ClassicMember, r: SyncResponse): boolean {
    if (!m.awaitingSync) return false;
    const f = m.awaitingSync;
    m.awaitingSync = null;
    f(r);
    return true;
  }

  /** Bumps the generation and moves to CompletingRebalance (members) or Empty (none). */
  initNextGeneration(): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('CompletingRebalance');
    } else {
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('Empty');
    }
    this.pendingSyncMembers.clear();
  }

  currentMembersForJoin(): JoinResponse['members'] {
    return [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata(this.protocolName!),
    }));
  }

  usesConsumerProtocol(): boolean {
    return this.protocolType === 'consumer';
  }

  /** Topics the members subscribe to (consumer protocol), or null when unknown. */
  computeSubscribedTopics(): Set<string> | null {
    if (this.protocolType !== 'consumer') return null;
    if (this.members.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const all = new Set<string>();
    try {
      for (const m of this.members.values())
        for (const t of parseSubscriptionTopics(m.metadata(this.protocolName))) all.add(t);
      return all;
    } catch {
      return null;
    }
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics ? this.subscribedTopics.has(topic) : this.usesConsumerProtocol();
  }

  groupAssignment(): Map<string, Buffer> {
    return new Map([...this.members.values()].map((m) => [m.memberId, m.assignment]));
  }
}
