// Share sessions (KIP-932): Kafka 4.4's ShareSessionCache, ShareSession and the share fetch
// contexts (ShareSessionContext full/incremental, FinalContext) of SharePartitionManager.newContext
// and acknowledgeSessionUpdate. A session is keyed by (group, member id) and holds the partitions a
// member fetches; its epoch starts at 0 (a new session), goes up by one per request (wrapping to
// 1) and -1 closes it. Errors are thrown as ShareSessionError and answered top-level.
import { ErrorCode } from '../../protocol/errors.js';

export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;

/** ShareRequestMetadata.nextEpoch. */
export const nextEpoch = (epoch: number): number => (epoch < 0 ? FINAL_EPOCH : epoch === 0x7fffffff ? 1 : epoch + 1);

/** A topic partition by id (the name resolved from metadata; null when the id is unknown). */
export interface ShareTopicIdPartition {
  topicId: string;
  topic: string | null;
  partition: number;
}

export const tipKey = (t: { topicId: string; partition: number }): string => `${t.topicId}:${t.partition}`;

export class ShareSessionError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'ShareSessionError';
  }
}

export class ShareSession {
  /** The partitions of the session, in insertion order. */
  readonly partitions = new Map<string, ShareTopicIdPartition>();
  lastUsedMs: number;
  constructor(
    readonly groupId: string,
    readonly memberId: string,
    public epoch: number,
    readonly connectionId: string,
    now: number,
  ) {
    this.lastUsedMs = now;
  }

  /** ShareSession.update: adds the request's partitions, removes the forgotten ones. */
  update(add: readonly ShareTopicIdPartition[], forget: readonly ShareTopicIdPartition[]): void {
    for (const p of add) this.partitions.set(tipKey(p), p);
    for (const p of forget) this.partitions.delete(tipKey(p));
  }
}

/** The context of one ShareFetch: which partitions it fetches and how the response is shaped. */
export interface ShareFetchContext {
  readonly kind: 'full' | 'incremental' | 'final';
  /** The partitions to fetch (the session's; none for a final context). */
  readonly partitions: readonly ShareTopicIdPartition[];
  readonly session: ShareSession | null;
}

/**
 * ShareSessionCache: sessions by (group, member), at most `maxEntries` (group.share.max.share.sessions).
 * Removing a session releases nothing: SharePartitionManager.releaseSession does (final epoch, member
 * left, connection closed); a member opening a new session keeps its acquired records until their locks end.
 */
export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>();
  constructor(
    readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  private static key(groupId: string, memberId: string): string {
    return `${groupId}\u0000${memberId}`;
  }

  get size(): number {
    return this.sessions.size;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(ShareSessionCache.key(groupId, memberId));
  }

  remove(groupId: string, memberId: string): ShareSession | undefined {
    const k = ShareSessionCache.key(groupId, memberId);
    const s = this.sessions.get(k);
    if (!s) return undefined;
    this.sessions.delete(k);
    return s;
  }

  /** The sessions of a group's member (ShareGroupListener.onMemberLeave), or of every member. */
  sessionsOf(groupId: string, memberId?: string): ShareSession[] {
    return [...this.sessions.values()].filter(
      (s) => s.groupId === groupId && (memberId === undefined || s.memberId === memberId),
    );
  }

  /** Sessions opened on a connection (ClientConnectionDisconnectListener). */
  sessionsOnConnection(connectionId: string): ShareSession[] {
    return [...this.sessions.values()].filter((s) => s.connectionId === connectionId);
  }

  /**
   * SharePartitionManager.newContext for a ShareFetch. `add` are the request's partitions (with
   * their acknowledgements or not), `forget` its forgotten topics.
   */
  newContext(
    groupId: string,
    memberId: string,
    epoch: number,
    add: readonly ShareTopicIdPartition[],
    forget: readonly ShareTopicIdPartition[],
    isAcknowledgeDataPresent: boolean,
    connectionId: string,
  ): ShareFetchContext {
    if (epoch === FINAL_EPOCH) {
      // FinalContext: the request only acknowledges, then the session is released
      if (!this.get(groupId, memberId))
        throw new ShareSessionError(ErrorCode.SHARE_SESSION_NOT_FOUND, 'The share session was not found.');
      return { kind: 'final', partitions: [], session: this.get(groupId, memberId)! };
    }
    if (epoch === INITIAL_EPOCH) {
      if (isAcknowledgeDataPresent)
        throw new ShareSessionError(ErrorCode.INVALID_REQUEST, 'Acknowledge data present in Initial Fetch Request');
      // a new session replaces the member's previous one
      this.remove(groupId, memberId);
      if (this.sessions.size >= this.maxEntries)
        throw new ShareSessionError(
          ErrorCode.SHARE_SESSION_LIMIT_REACHED,
          'The limit of share sessions has been reached.',
        );
      const s = new ShareSession(groupId, memberId, nextEpoch(INITIAL_EPOCH), connectionId, this.now());
      s.update(add, []);
      this.sessions.set(ShareSessionCache.key(groupId, memberId), s);
      return { kind: 'full', partitions: [...s.partitions.values()], session: s };
    }
    const s = this.get(groupId, memberId);
    if (!s) throw new ShareSessionError(ErrorCode.SHARE_SESSION_NOT_FOUND, 'The share session was not found.');
    if (s.epoch !== epoch)
      throw new ShareSessionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'The share session epoch is invalid.');
    s.update(add, forget);
    s.epoch = nextEpoch(s.epoch);
    s.lastUsedMs = this.now();
    return { kind: 'incremental', partitions: [...s.partitions.values()], session: s };
  }

  /**
   * SharePartitionManager.acknowledgeSessionUpdate for a ShareAcknowledge: epoch 0 is invalid, -1
   * closes the session (after the acknowledgements), any other must be the session's.
   */
  acknowledgeSessionUpdate(groupId: string, memberId: string, epoch: number): ShareSession {
    if (epoch === INITIAL_EPOCH)
      throw new ShareSessionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'The share session epoch is invalid.');
    const s = this.get(groupId, memberId);
    if (!s) throw new ShareSessionError(ErrorCode.SHARE_SESSION_NOT_FOUND, 'The share session was not found.');
    if (epoch === FINAL_EPOCH) return s;
    if (s.epoch !== epoch)
      throw new ShareSessionError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'The share session epoch is invalid.');
    s.epoch = nextEpoch(s.epoch);
    s.lastUsedMs = this.now();
    return s;
  }
}
