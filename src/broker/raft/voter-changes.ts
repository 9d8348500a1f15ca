// KIP-853 voter changes on the quorum leader: Kafka's AddVoterHandler, RemoveVoterHandler,
// UpdateVoterHandler and ChangeVoterHandlerState (kafka-raft internals), and the leader-only checks
// of KafkaRaftClient.handleAdd/Remove/UpdateVoterRequest (validateLeaderOnlyRequest, the voter key
// and endpoint checks). The cluster id check is the API handler's (api/add-raft-voter.ts …).
//
// The logic needs a leader to work on: `VoterChangeLeader`, implemented by whatever leads the
// quorum on this node (the raft client, per leader epoch). It owns the log; this module owns the one
// pending change and answers the requests:
//   - one change at a time: a second request while one is pending gets REQUEST_TIMED_OUT; a pending
//     change expires after its timeout (REQUEST_TIMED_OUT), or ends with NOT_LEADER_OR_FOLLOWER when
//     the leader steps down (`close`);
//   - the leader must have a high watermark in its epoch, and the last VotersRecord must be
//     committed (offset < HWM), else REQUEST_TIMED_OUT;
//   - kraft.version 0 (a static quorum) refuses Add/Remove with UNSUPPORTED_VERSION;
//   - AddRaftVoter: DUPLICATE_VOTER when the id is a voter; the new voter is asked ApiVersions on
//     the default controller listener (its kraft.version range must include the finalized level,
//     else INVALID_REQUEST), it must be a caught-up observer (else REQUEST_TIMED_OUT "lagging
//     behind"), then the new voter set is appended as a VotersRecord control batch, and the answer
//     is sent when that batch is committed by the new majority (`highWatermarkUpdated`) — or at once
//     when AckWhenCommitted is false;
//   - RemoveRaftVoter: VOTER_NOT_FOUND unless the exact (id, directory id) is a voter and not the
//     last one; answered when the new set is committed; a leader that removed itself resigns;
//   - UpdateRaftVoter: a voter's endpoints and kraft.version range (KafkaRaftClient sends it at
//     start-up when the voter set's entry differs); with kraft.version 0 the in-memory voter set
//     (`volatileVoters`) is updated instead of the log.
// The leader calls `highWatermarkUpdated` whenever its high watermark moves and `close` when its
// epoch ends. Everything here runs on the leader's serial queue (no state interleaves across awaits
// except the ApiVersions round trip, after which the state is re-checked as Kafka does).

import { BrokerConnection } from '../../client/connection.js';
import type { OutgoingSecurity } from '../security/outgoing.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import type {
  AddVoterRequest,
  ChangeResult,
  Quorum,
  RaftEndpoint,
  RemoveVoterRequest,
  UpdateVoterRequest,
  UpdateVoterResult,
  VoterChangeServer,
} from './types.js';

export type {
  AddVoterRequest,
  ChangeResult,
  RemoveVoterRequest,
  UpdateVoterRequest,
  UpdateVoterResult,
  VoterChangeServer,
};

export const KRAFT_VERSION_FEATURE = 'kraft.version';

/** A replica's identity; directoryId ZERO_UUID means none (ReplicaKey with Optional.empty()). */
export interface VoterKey {
  readonly id: number;
  readonly directoryId: string;
}

export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

/** VoterSet.VoterNode. */
export interface VoterNode {
  readonly key: VoterKey;
  readonly endpoints: readonly RaftEndpoint[];
  readonly kraftVersion: VersionRange;
}

/** A voter set and the offset of the VotersRecord that set it (-1: the bootstrap checkpoint / static). */
export interface VoterSetEntry {
  readonly offset: number;
  readonly voters: readonly VoterNode[];
}

/** What the voter-change logic needs from the leader of the current epoch. */
export interface VoterChangeLeader {
  readonly localKey: VoterKey;
  /** The default controller listener (the first of controller.listener.names). */
  readonly listenerName: string;
  /** controller.quorum.request.timeout.ms: how long an AddRaftVoter waits for the new voter and commit. */
  readonly requestTimeoutMs: number;
  /** The quorum's epoch (quorum.epoch()). */
  epoch(): number;
  isLeader(): boolean;
  /** True once the node is shutting down (BROKER_NOT_AVAILABLE). */
  isShuttingDown(): boolean;
  /** The leader's high watermark in this epoch; null until established. */
  highWatermark(): number | null;
  /** kraft.version of the log's end (KRaftControlRecordStateMachine.lastKraftVersion). */
  lastKraftVersion(): number;
  /** The latest voter set in the log, committed or not (lastVoterSetEntry); null if none. */
  lastVoterSetEntry(): VoterSetEntry | null;
  /** kraft.version 0 only: the voter set the leader learnt through UpdateRaftVoter (volatileVoters). */
  volatileVoters(): readonly VoterNode[] | null;
  setVolatileVoters(expected: readonly VoterNode[], voters: readonly VoterNode[]): boolean;
  /** LeaderState.isReplicaCaughtUp: an observer that has fetched up to the leader's end recently. */
  isReplicaCaughtUp(key: VoterKey, nowMs: number): boolean;
  /** Appends the voter set as a VotersRecord control batch in this epoch; returns its offset. */
  appendVotersRecord(voters: VotersRecord): Promise<number>;
  /** LeaderState.updateCheckQuorumForFollowingVoter. */
  noteFollowingVoter?(key: VoterKey, nowMs: number): void;
  /** The leader leaves the voter set: resign (requestResign). */
  requestResign(): void;
  /** The leader's own endpoints (UpdateRaftVoter's CurrentLeader). */
  leaderEndpoints(): readonly RaftEndpoint[];
  /**
   * ApiVersions to the new voter at `address` (the default listener's): its error code and the
   * kraft.version range of its SupportedFeatures (null when absent); rejects when unreachable.
   */
  apiVersions(address: {
    host: string;
    port: number;
  }): Promise<{ errorCode: number; kraftVersion: VersionRange | null }>;
}

/** ReplicaKey.toString. */
export const replicaKeyText = (k: VoterKey): string =>
  `ReplicaKey(id=${k.id}, directoryId=${k.directoryId === ZERO_UUID ? '<undefined>' : k.directoryId})`;

/**
 * VoterSet.voterKeys() as printed in messages. Kafka's set is Collectors.toUnmodifiableSet, whose
 * iteration order is salted per JVM (ImmutableCollections.SALT), so no order is Kafka's; tkafka
 * lists the keys by id.
 */
export function voterKeysText(voters: readonly VoterNode[]): string {
  return `[${[...voters]
    .sort((a, b) => a.key.id - b.key.id)
    .map((v) => replicaKeyText(v.key))
    .join(', ')}]`;
}

const sameKey = (a: VoterKey, b: VoterKey): boolean => a.id === b.id && a.directoryId === b.directoryId;

/** VoterSet.toVotersRecord (VotersRecord version 0). */
export function toVotersRecord(voters: readonly VoterNode[]): VotersRecord {
  return {
    version: 0,
    voters: [...voters]
      .sort((a, b) => a.key.id - b.key.id)
      .map((v) => ({
        voterId: v.key.id,
        voterDirectoryId: v.key.directoryId,
        endpoints: v.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
        kRaftVersionFeature: { minSupportedVersion: v.kraftVersion.min, maxSupportedVersion: v.kraftVersion.max },
      })),
  };
}

/** VoterSet.fromVotersRecord. */
export function fromVotersRecord(r: VotersRecord): VoterNode[] {
  return r.voters.map((v) => ({
    key: { id: v.voterId, directoryId: v.voterDirectoryId },
    endpoints: v.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
    kraftVersion: { min: v.kRaftVersionFeature.minSupportedVersion, max: v.kRaftVersionFeature.maxSupportedVersion },
  }));
}

interface Pending<T> {
  readonly kind: 'add' | 'remove';
  readonly key: VoterKey;
  readonly deadline: number;
  /** Offset of the appended VotersRecord; null while an AddRaftVoter waits for ApiVersions. */
  lastOffset: number | null;
  readonly resolve: (r: T) => void;
}

const result = (errorCode: number, errorMessage: string | null = null): ChangeResult => ({ errorCode, errorMessage });

export class VoterChanges implements VoterChangeServer {
  private pending: Pending<ChangeResult> | null = null;
  private closed = false;

  constructor(
    private readonly leader: VoterChangeLeader,
    private readonly now: () => number = Date.now,
  ) {}

  /** KafkaRaftClient.validateLeaderOnlyRequest. */
  private leaderError(requestEpoch: number): number | null {
    const epoch = this.leader.epoch();
    if (requestEpoch < epoch) return ErrorCode.FENCED_LEADER_EPOCH;
    if (requestEpoch > epoch) return ErrorCode.UNKNOWN_LEADER_EPOCH;
    if (this.closed || !this.leader.isLeader()) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    if (this.leader.isShuttingDown()) return ErrorCode.BROKER_NOT_AVAILABLE;
    return null;
  }

  /** ChangeVoterHandlerState.isOperationPending (expiring a timed-out change first). */
  private isOperationPending(now: number): boolean {
    if (this.pending && now >= this.pending.deadline) this.finish(result(ErrorCode.REQUEST_TIMED_OUT));
    return this.pending !== null;
  }

  private finish(r: ChangeResult): void {
    const p = this.pending;
    this.pending = null;
    p?.resolve(r);
  }

  /**
   * The checks AddVoterHandler and RemoveVoterHandler share: no pending change, a high watermark,
   * kraft.version ≥ 1, the last voter set committed. Returns the committed voter set or the error.
   */
  private committedVoters(what: 'adding' | 'removing', now: number): VoterSetEntry | ChangeResult {
    if (this.isOperationPending(now))
      return result(
        ErrorCode.REQUEST_TIMED_OUT,
        'Request timed out waiting for leader to handle previous voter change request',
      );
    const hwm = this.leader.highWatermark();
    if (hwm === null)
      return result(
        ErrorCode.REQUEST_TIMED_OUT,
        'Request timed out waiting for leader to establish HWM and fence previous voter changes',
      );
    const kraftVersion = this.leader.lastKraftVersion();
    if (kraftVersion < 1)
      return result(
        ErrorCode.UNSUPPORTED_VERSION,
        `Cluster doesn't support ${what} voter because the ${KRAFT_VERSION_FEATURE} feature is ${kraftVersion}`,
      );
    const entry = this.leader.lastVoterSetEntry();
    if (entry === null || entry.offset >= hwm)
      return result(
        ErrorCode.REQUEST_TIMED_OUT,
        `Request timed out waiting for voters to commit the latest voter change at ${entry === null ? 'Optional.empty' : `Optional[${entry.offset}]`} with HWM ${hwm}`,
      );
    return entry;
  }

  async addVoter(req: AddVoterRequest): Promise<ChangeResult> {
    const leaderError = this.leaderError(this.leader.epoch());
    if (leaderError !== null) return result(leaderError);
    if (req.voterId < 0 || req.voterDirectoryId === ZERO_UUID)
      return result(ErrorCode.INVALID_REQUEST, "Add voter request didn't include a valid voter");
    const key: VoterKey = { id: req.voterId, directoryId: req.voterDirectoryId };
    const address = req.listeners.find((l) => l.name === this.leader.listenerName);
    if (!address) {
      return result(
        ErrorCode.INVALID_REQUEST,
        `Add voter request didn't include the endpoint (${endpointsText(req.listeners)}) for the default listener ListenerName(${this.leader.listenerName})`,
      );
    }
    const now = this.now();
    const entry = this.committedVoters('adding', now);
    if (!('voters' in entry)) return entry;
    if (entry.voters.some((v) => v.key.id === key.id)) {
      return result(
        ErrorCode.DUPLICATE_VOTER,
        `The voter id for ${replicaKeyText(key)} is already part of the set of voters ${voterKeysText(entry.voters)}.`,
      );
    }
    let done!: (r: ChangeResult) => void;
    const answer = new Promise<ChangeResult>((resolve) => (done = resolve));
    const state: Pending<ChangeResult> = {
      kind: 'add',
      key,
      deadline: now + this.leader.requestTimeoutMs,
      lastOffset: null,
      resolve: done,
    };
    this.pending = state;
    const timer = setTimeout(() => {
      if (this.pending === state) this.finish(result(ErrorCode.REQUEST_TIMED_OUT));
    }, this.leader.requestTimeoutMs);
    timer.unref?.();
    void answer.finally(() => clearTimeout(timer));
    void this.probeNewVoter(state, address, req, entry);
    return answer;
  }

  /** AddVoterHandler.handleApiVersionsResponse: the new voter's kraft.version range and progress. */
  private async probeNewVoter(
    state: Pending<ChangeResult>,
    address: RaftEndpoint,
    req: AddVoterRequest,
    entry: VoterSetEntry,
  ): Promise<void> {
    let response: { errorCode: number; kraftVersion: VersionRange | null };
    try {
      response = await this.leader.apiVersions({ host: address.host, port: address.port });
    } catch {
      // the request could not be sent or timed out: the operation expires (REQUEST_TIMED_OUT)
      return;
    }
    if (this.pending !== state) return;
    if (response.errorCode !== ErrorCode.NONE) {
      this.finish(
        result(
          ErrorCode.REQUEST_TIMED_OUT,
          `Aborted add voter operation for since API_VERSIONS returned an error ${errorName(response.errorCode)}`,
        ),
      );
      return;
    }
    const finalized = this.leader.lastKraftVersion();
    const range = response.kraftVersion;
    if (range === null || range.min > finalized || range.max < finalized) {
      this.finish(
        result(
          ErrorCode.INVALID_REQUEST,
          `Aborted add voter operation for ${replicaKeyText(state.key)} since the ${KRAFT_VERSION_FEATURE} range ${range === null ? '(min: 0, max: 0)' : `(min: ${range.min}, max: ${range.max}`} doesn't support the finalized version ${finalized}`,
        ),
      );
      return;
    }
    if (!this.leader.isReplicaCaughtUp(state.key, this.now())) {
      this.finish(
        result(
          ErrorCode.REQUEST_TIMED_OUT,
          `Aborted add voter operation for ${replicaKeyText(state.key)} since it is lagging behind`,
        ),
      );
      return;
    }
    const voters: VoterNode[] = [
      ...(this.leader.lastVoterSetEntry() ?? entry).voters,
      { key: state.key, endpoints: req.listeners, kraftVersion: range },
    ];
    try {
      state.lastOffset = await this.leader.appendVotersRecord(toVotersRecord(voters));
    } catch (e) {
      if (this.pending === state) this.finish(appendFailure(e));
      return;
    }
    if (!req.ackWhenCommitted && this.pending === state) {
      // answered now, but the change stays pending until it is committed
      const resolve = state.resolve;
      (state as { resolve: (r: ChangeResult) => void }).resolve = () => {};
      resolve(result(ErrorCode.NONE));
    }
    this.highWatermarkUpdated(this.leader.highWatermark() ?? -1);
  }

  async removeVoter(req: RemoveVoterRequest): Promise<ChangeResult> {
    const leaderError = this.leaderError(this.leader.epoch());
    if (leaderError !== null) return result(leaderError);
    if (req.voterId < 0 || req.voterDirectoryId === ZERO_UUID)
      return result(ErrorCode.INVALID_REQUEST, "Remove voter request didn't include a valid voter");
    const key: VoterKey = { id: req.voterId, directoryId: req.voterDirectoryId };
    const now = this.now();
    const entry = this.committedVoters('removing', now);
    if (!('voters' in entry)) return entry;
    const old = entry.voters.find((v) => v.key.id === key.id);
    if (!old || !sameKey(old.key, key) || entry.voters.length <= 1) {
      return result(
        ErrorCode.VOTER_NOT_FOUND,
        `Cannot remove voter ${replicaKeyText(key)} from the set of voters ${voterKeysText(entry.voters)}`,
      );
    }
    let done!: (r: ChangeResult) => void;
    const answer = new Promise<ChangeResult>((resolve) => (done = resolve));
    const state: Pending<ChangeResult> = {
      kind: 'remove',
      key,
      deadline: now + this.leader.requestTimeoutMs,
      lastOffset: null,
      resolve: done,
    };
    this.pending = state;
    try {
      state.lastOffset = await this.leader.appendVotersRecord(
        toVotersRecord(entry.voters.filter((v) => v.key.id !== key.id)),
      );
    } catch (e) {
      if (this.pending === state) this.finish(appendFailure(e));
      return answer;
    }
    this.highWatermarkUpdated(this.leader.highWatermark() ?? -1);
    return answer;
  }

  async updateVoter(req: UpdateVoterRequest): Promise<UpdateVoterResult> {
    const answer = (errorCode: number): UpdateVoterResult => {
      const endpoint = this.leader.isLeader()
        ? this.leader.leaderEndpoints().find((e) => e.name === req.requestListener)
        : undefined;
      return {
        errorCode,
        leaderId: this.leader.isLeader() ? this.leader.localKey.id : -1,
        leaderEpoch: this.leader.epoch(),
        leaderEndpoint: endpoint ? { host: endpoint.host, port: endpoint.port } : null,
      };
    };
    const leaderError = this.leaderError(req.currentLeaderEpoch);
    if (leaderError !== null) return answer(leaderError);
    if (req.voterId < 0 || req.voterDirectoryId === ZERO_UUID) return answer(ErrorCode.INVALID_REQUEST);
    if (!req.listeners.some((l) => l.name === this.leader.listenerName)) return answer(ErrorCode.INVALID_REQUEST);
    const range = req.kraftVersion;
    if (!(range.min >= 0 && range.max >= 0 && range.max >= range.min)) return answer(ErrorCode.INVALID_REQUEST);
    // UpdateVoterHandler.handleUpdateVoterRequest
    const now = this.now();
    if (this.isOperationPending(now)) return answer(ErrorCode.REQUEST_TIMED_OUT);
    const hwm = this.leader.highWatermark();
    if (hwm === null) return answer(ErrorCode.REQUEST_TIMED_OUT);
    const kraftVersion = this.leader.lastKraftVersion();
    let voters: readonly VoterNode[] | null;
    let inMemory: readonly VoterNode[] | null = null;
    if (kraftVersion >= 1) {
      const entry = this.leader.lastVoterSetEntry();
      voters = entry !== null && entry.offset < hwm ? entry.voters : null;
    } else {
      inMemory = this.leader.volatileVoters();
      if (inMemory === null) return answer(ErrorCode.REQUEST_TIMED_OUT);
      voters = inMemory;
    }
    if (voters === null) return answer(ErrorCode.REQUEST_TIMED_OUT);
    if (range.min > kraftVersion || range.max < kraftVersion) return answer(ErrorCode.INVALID_REQUEST);
    const key: VoterKey = { id: req.voterId, directoryId: req.voterDirectoryId };
    const old = voters.find((v) => v.key.id === key.id);
    // VoterSet.updateVoter (the voter key must match) or, at kraft.version 0, updateVoterIgnoringDirectoryId
    const matches = old !== undefined && (kraftVersion < 1 || isVoter(old.key, key));
    if (!matches) return answer(ErrorCode.VOTER_NOT_FOUND);
    const updated = voters.map((v) =>
      v.key.id === key.id ? { key, endpoints: req.listeners, kraftVersion: { min: range.min, max: range.max } } : v,
    );
    if (inMemory === null) {
      try {
        await this.leader.appendVotersRecord(toVotersRecord(updated));
      } catch (e) {
        return answer(appendFailure(e).errorCode);
      }
    } else if (!this.leader.setVolatileVoters(inMemory, updated)) {
      return answer(ErrorCode.REQUEST_TIMED_OUT);
    }
    this.leader.noteFollowingVoter?.(key, now);
    return answer(ErrorCode.NONE);
  }

  /** AddVoterHandler/RemoveVoterHandler.highWatermarkUpdated: the pending change is committed. */
  highWatermarkUpdated(highWatermark: number): void {
    const p = this.pending;
    if (!p || p.lastOffset === null || highWatermark <= p.lastOffset) return;
    this.finish(result(ErrorCode.NONE));
    if (p.kind === 'remove') {
      const voters = this.leader.lastVoterSetEntry()?.voters ?? [];
      if (!voters.some((v) => isVoter(v.key, this.leader.localKey))) this.leader.requestResign();
    }
  }

  /** The leader's epoch ended (LeaderState.close): a pending change fails with NOT_LEADER_OR_FOLLOWER. */
  close(): void {
    this.closed = true;
    this.finish(result(ErrorCode.NOT_LEADER_OR_FOLLOWER));
  }
}

/** VoterNode.isVoter: same id, and the same directory id unless the voter's is unknown. */
function isVoter(voter: VoterKey, key: VoterKey): boolean {
  if (voter.id !== key.id) return false;
  return voter.directoryId === ZERO_UUID || voter.directoryId === key.directoryId;
}

/** Endpoints.toString: Endpoints(endpoints={NAME=host/<unresolved>:port, …}). */
function endpointsText(listeners: readonly RaftEndpoint[]): string {
  return `Endpoints(endpoints={${listeners.map((l) => `ListenerName(${l.name})=${l.host}/<unresolved>:${l.port}`).join(', ')}})`;
}

function errorName(code: number): string {
  const entry = Object.entries(ErrorCode).find(([, v]) => v === code);
  return entry ? entry[0] : String(code);
}

/** A failed VotersRecord append: its KafkaError code, else NOT_LEADER_OR_FOLLOWER (the epoch ended). */
function appendFailure(e: unknown): ChangeResult {
  if (e instanceof KafkaError) return result(e.code, e.message);
  return result(ErrorCode.NOT_LEADER_OR_FOLLOWER, e instanceof Error ? e.message : String(e));
}

/** ApiVersions to a would-be voter as the leader's NetworkClient sends it: the kraft.version range it supports. */
export async function probeApiVersions(
  address: { host: string; port: number },
  timeoutMs: number,
  clientId: string,
  security: OutgoingSecurity = {},
): Promise<{ errorCode: number; kraftVersion: VersionRange | null }> {
  const conn = new BrokerConnection({
    ...address,
    clientId,
    requestTimeoutMs: timeoutMs,
    connectTimeoutMs: timeoutMs,
    ...security,
  });
  try {
    await conn.open();
    const features = conn.apiVersionsResponse?.supportedFeatures ?? [];
    const kraft = features.find((f) => f.name === KRAFT_VERSION_FEATURE);
    return {
      errorCode: conn.apiVersionsResponse?.errorCode ?? ErrorCode.NONE,
      kraftVersion: kraft ? { min: kraft.minVersion, max: kraft.maxVersion } : null,
    };
  } finally {
    conn.close();
  }
}

export interface FixedVoterSetOptions {
  /** The default controller listener (the first of controller.listener.names). */
  readonly listenerName: string;
  /** controller.quorum.request.timeout.ms. */
  readonly requestTimeoutMs: number;
  readonly now?: () => number;
  /** TLS / SASL of the controller listener (security/outgoing.ts), for the ApiVersions probe. */
  readonly security?: OutgoingSecurity;
}

/** The kraft.version range tkafka supports (its ApiVersions' SupportedFeatures). */
export const SUPPORTED_KRAFT_VERSIONS: VersionRange = { min: 0, max: 1 };

const AN_HOUR_MS = 3_600_000;

/**
 * A VoterChangeLeader read from the Quorum interface, for a quorum that cannot write a voter change
 * (no `voterChanges` of its own: today's RaftClient). Every check answers as Kafka's leader
 * would (the voter set, kraft.version, the high watermark, observers' progress from DescribeQuorum);
 * a change that passes them is refused with UNSUPPORTED_VERSION and a message saying so, instead of
 * being written.
 */
export function fixedVoterSetLeader(quorum: Quorum, opts: FixedVoterSetOptions): VoterChangeLeader {
  const self = quorum.voters.find((v) => v.id === quorum.nodeId);
  const voters = (): VoterNode[] =>
    quorum.voters.map((v) => ({
      key: { id: v.id, directoryId: v.directoryId },
      endpoints: v.endpoints,
      kraftVersion: SUPPORTED_KRAFT_VERSIONS,
    }));
  let volatile: readonly VoterNode[] | null = null;
  return {
    localKey: { id: quorum.nodeId, directoryId: self?.directoryId ?? ZERO_UUID },
    listenerName: opts.listenerName,
    requestTimeoutMs: opts.requestTimeoutMs,
    epoch: () => quorum.leaderEpoch,
    isLeader: () => quorum.isLeader(),
    isShuttingDown: () => false,
    highWatermark: () => (quorum.highWatermark >= 0 ? quorum.highWatermark : null),
    lastKraftVersion: () => quorum.kraftVersion,
    // the voter set is committed with the leader's first batch of its epoch: before the high watermark
    lastVoterSetEntry: () => (quorum.kraftVersion >= 1 ? { offset: -1, voters: voters() } : null),
    volatileVoters: () => (quorum.kraftVersion >= 1 ? null : (volatile ?? voters())),
    setVolatileVoters: (expected, next) => {
      if ((volatile ?? null) !== null && volatile !== expected) return false;
      volatile = next;
      return true;
    },
    isReplicaCaughtUp: (key, nowMs) => {
      const o = quorum
        .describe()
        .observers.find((r) => r.replicaId === key.id && r.replicaDirectoryId === key.directoryId);
      return o !== undefined && o.lastCaughtUpTimestamp > 0 && o.lastFetchTimestamp > nowMs - AN_HOUR_MS;
    },
    appendVotersRecord: () =>
      Promise.reject(
        new KafkaError(
          ErrorCode.UNSUPPORTED_VERSION,
          'tkafka cannot change the voter set of this quorum yet: its raft client does not write voter changes',
        ),
      ),
    requestResign: () => {},
    leaderEndpoints: () => self?.endpoints ?? [],
    apiVersions: (address) =>
      probeApiVersions(address, opts.requestTimeoutMs, `raft-client-${quorum.nodeId}`, opts.security),
  };
}
