// Incremental fetch sessions (KIP-227), as Kafka's FetchSession.scala: a FULL fetch may create a
// session whose partitions the broker caches; INCREMENTAL fetches then name only what changed,
// forget partitions explicitly, and get back only partitions with news (records, a moved high
// watermark or log start offset, an error). Sessions live in a bounded cache
// (max.incremental.fetch.session.cache.slots) with Kafka's eviction rules.

import { ErrorCode } from '../../protocol/errors.js';
import { type FetchPartitionResult, recordsSize } from './types.js';

export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS */
export const DEFAULT_SESSION_EVICTION_MS = 120000;

/** FetchMetadata.nextEpoch */
export function nextEpoch(prev: number): number {
  if (prev < 0) return FINAL_EPOCH;
  if (prev === 0x7fffffff) return 1;
  return prev + 1;
}

/** A partition named by topic id (v13+; name null while unknown) or by name (id all zeros). */
export interface TopicIdPartition {
  topic: string | null;
  topicId: string;
  partition: number;
}

/** The per-partition request parameters a session caches. */
export interface PartitionFetchData {
  fetchOffset: number;
  logStartOffset: number;
  maxBytes: number;
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
}

export interface FetchEntry {
  tp: TopicIdPartition;
  data: PartitionFetchData;
}

export interface ResponseEntry {
  tp: TopicIdPartition;
  result: FetchPartitionResult;
}

export interface ContextResponse {
  errorCode: number;
  sessionId: number;
  entries: ResponseEntry[];
}

/** Identity of a request partition (TopicIdPartition.equals: id, name and index). */
export const requestKey = (tp: TopicIdPartition): string => `${tp.topicId}\u0000${tp.topic ?? ''}\u0000${tp.partition}`;

class CachedPartition {
  highWatermark = -1;
  localLogStartOffset = -1;
  constructor(
    public topic: string | null,
    readonly topicId: string,
    readonly partition: number,
    public data: PartitionFetchData,
  ) {}

  /** CachedPartition.maybeUpdateResponseData */
  maybeUpdateResponseData(r: FetchPartitionResult, update: boolean): boolean {
    let mustRespond = recordsSize(r) > 0;
    if (this.highWatermark !== r.highWatermark) {
      mustRespond = true;
      if (update) this.highWatermark = r.highWatermark;
    }
    if (this.localLogStartOffset !== r.logStartOffset) {
      mustRespond = true;
      if (update) this.localLogStartOffset = r.logStartOffset;
    }
    if (r.preferredReadReplica >= 0) mustRespond = true;
    if (r.errorCode !== ErrorCode.NONE) {
      // forget the high watermark so the partition is sent again once the error clears
      if (update) this.highWatermark = -1;
      mustRespond = true;
    }
    if (r.divergingEpoch !== undefined) mustRespond = true;
    return mustRespond;
  }
}

export class FetchSession {
  /** last known size while in the cache (-1: not cached) */
  cachedSize = -1;
  evictableByAll = false;
  evictableByPrivileged = false;

  constructor(
    readonly id: number,
    readonly privileged: boolean,
    readonly partitions: Map<string, CachedPartition>,
    readonly usesTopicIds: boolean,
    readonly creationMs: number,
    public lastUsedMs: number,
    public epoch: number,
  ) {}

  key(tp: TopicIdPartition): string {
    return this.usesTopicIds ? `${tp.topicId}:${tp.partition}` : `${tp.topic}:${tp.partition}`;
  }

  get size(): number {
    return this.partitions.size;
  }
}

export interface FetchContext {
  readonly kind: 'error' | 'sessionless' | 'full' | 'incremental';
  /** The partitions this fetch covers, in order (an incremental fetch covers the whole session). */
  partitions(): FetchEntry[];
  /** The response's top-level error, session id and partitions (pruned for incremental fetches). */
  updateAndGenerateResponseData(updates: ResponseEntry[]): ContextResponse;
  /**
   * FetchContext.getThrottledResponse: a quota-throttled fetch is answered empty and leaves the
   * session as it was (no session is created), so the same data comes with the next fetch.
   */
  throttledResponse(): ContextResponse;
}

class SessionErrorContext implements FetchContext {
  readonly kind = 'error';
  constructor(readonly error: number) {}
  partitions(): FetchEntry[] {
    return [];
  }
  updateAndGenerateResponseData(): ContextResponse {
    return { errorCode: this.error, sessionId: INVALID_SESSION_ID, entries: [] };
  }
  throttledResponse(): ContextResponse {
    return this.updateAndGenerateResponseData();
  }
}

class SessionlessFetchContext implements FetchContext {
  readonly kind: 'sessionless' | 'full' = 'sessionless';
  constructor(protected readonly fetchData: Map<string, FetchEntry>) {}
  partitions(): FetchEntry[] {
    return [...this.fetchData.values()];
  }
  updateAndGenerateResponseData(updates: ResponseEntry[]): ContextResponse {
    return { errorCode: ErrorCode.NONE, sessionId: INVALID_SESSION_ID, entries: updates };
  }
  throttledResponse(): ContextResponse {
    return { errorCode: ErrorCode.NONE, sessionId: INVALID_SESSION_ID, entries: [] };
  }
}

class FullFetchContext extends SessionlessFetchContext {
  override readonly kind = 'full';
  constructor(
    private readonly cache: FetchSessionCache,
    fetchData: Map<string, FetchEntry>,
    private readonly usesTopicIds: boolean,
    private readonly isFromFollower: boolean,
  ) {
    super(fetchData);
  }

  override updateAndGenerateResponseData(updates: ResponseEntry[]): ContextResponse {
    const sessionId = this.cache.maybeCreateSession(
      this.isFromFollower,
      updates.length,
      this.usesTopicIds,
      (session) => {
        for (const u of updates) {
          const req = this.fetchData.get(requestKey(u.tp));
          if (!req) continue;
          const cp = new CachedPartition(u.tp.topic, u.tp.topicId, u.tp.partition, req.data);
          cp.highWatermark = u.result.highWatermark;
          cp.localLogStartOffset = u.result.logStartOffset;
          session.partitions.set(session.key(u.tp), cp);
        }
      },
    );
    return { errorCode: ErrorCode.NONE, sessionId, entries: updates };
  }
}

class IncrementalFetchContext implements FetchContext {
  readonly kind = 'incremental';
  constructor(
    private readonly session: FetchSession,
    private readonly requestEpoch: number,
    private readonly topicName: (id: string) => string | undefined,
  ) {}

  partitions(): FetchEntry[] {
    const out: FetchEntry[] = [];
    for (const cp of this.session.partitions.values()) {
      if (this.session.usesTopicIds && cp.topic === null) cp.topic = this.topicName(cp.topicId) ?? null;
      out.push({ tp: { topic: cp.topic, topicId: cp.topicId, partition: cp.partition }, data: cp.data });
    }
    return out;
  }

  throttledResponse(): ContextResponse {
    const s = this.session;
    if (s.epoch !== nextEpoch(this.requestEpoch))
      return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: s.id, entries: [] };
    return { errorCode: ErrorCode.NONE, sessionId: s.id, entries: [] };
  }

  updateAndGenerateResponseData(updates: ResponseEntry[]): ContextResponse {
    const s = this.session;
    if (s.epoch !== nextEpoch(this.requestEpoch)) {
      // another request of this session got in between: possibly a duplicate
      return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: s.id, entries: [] };
    }
    const entries: ResponseEntry[] = [];
    for (const u of updates) {
      const key = s.key(u.tp);
      const cp = s.partitions.get(key);
      if (cp === undefined) {
        entries.push(u);
        continue;
      }
      if (!cp.maybeUpdateResponseData(u.result, true)) continue;
      entries.push(u);
      if (recordsSize(u.result) > 0) {
        // partitions that returned data go to the back, so the others get their turn next time
        s.partitions.delete(key);
        s.partitions.set(key, cp);
      }
    }
    return { errorCode: ErrorCode.NONE, sessionId: s.id, entries };
  }
}

export interface FetchSessionCacheOptions {
  /** max.incremental.fetch.session.cache.slots (default 1000) */
  maxEntries?: number;
  evictionMs?: number;
  clock?: () => number;
  /** session id source (tests); default random positive int31 */
  random?: () => number;
}

export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();
  private numPartitions = 0;
  private evictions = 0;
  readonly maxEntries: number;
  private readonly evictionMs: number;
  private readonly clock: () => number;
  private readonly random: () => number;

  constructor(opts: FetchSessionCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 1000;
    this.evictionMs = opts.evictionMs ?? DEFAULT_SESSION_EVICTION_MS;
    this.clock = opts.clock ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  get size(): number {
    return this.sessions.size;
  }
  get totalPartitions(): number {
    return this.numPartitions;
  }
  get evictionCount(): number {
    return this.evictions;
  }
  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  /** FetchManager.newContext */
  newContext(
    version: number,
    sessionId: number,
    sessionEpoch: number,
    isFromFollower: boolean,
    fetchData: readonly FetchEntry[],
    toForget: readonly TopicIdPartition[],
    topicName: (id: string) => string | undefined,
  ): FetchContext {
    const isFull = sessionEpoch === INITIAL_EPOCH || sessionEpoch === FINAL_EPOCH;
    const byKey = new Map<string, FetchEntry>();
    for (const e of fetchData) {
      const k = requestKey(e.tp);
      const prev = byKey.get(k);
      if (prev)
        prev.data = e.data; // LinkedHashMap.put: last value, first position
      else byKey.set(k, { tp: e.tp, data: e.data });
    }
    if (isFull) {
      // any session named by a FULL fetch is closed
      if (sessionId !== INVALID_SESSION_ID) this.remove(sessionId);
      if (sessionEpoch === FINAL_EPOCH) return new SessionlessFetchContext(byKey);
      return new FullFetchContext(this, byKey, version >= 13, isFromFollower);
    }
    const session = this.sessions.get(sessionId);
    if (!session) return new SessionErrorContext(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    if (session.epoch !== sessionEpoch) return new SessionErrorContext(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    if (session.usesTopicIds !== version >= 13) return new SessionErrorContext(ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
    for (const e of byKey.values()) {
      const key = session.key(e.tp);
      const cp = session.partitions.get(key);
      if (cp) cp.data = e.data;
      else session.partitions.set(key, new CachedPartition(e.tp.topic, e.tp.topicId, e.tp.partition, e.data));
    }
    for (const tp of toForget) session.partitions.delete(session.key(tp));
    if (session.size === 0) {
      this.remove(session.id);
      return new SessionlessFetchContext(byKey);
    }
    this.touch(session, this.clock());
    session.epoch = nextEpoch(session.epoch);
    return new IncrementalFetchContext(session, sessionEpoch, topicName);
  }

  /** FetchSessionCacheShard.maybeCreateSession: the new id, or INVALID_SESSION_ID when full. */
  maybeCreateSession(
    privileged: boolean,
    size: number,
    usesTopicIds: boolean,
    fill: (s: FetchSession) => void,
  ): number {
    const now = this.clock();
    if (this.maxEntries <= 0) return INVALID_SESSION_ID;
    if (this.sessions.size >= this.maxEntries && !this.tryEvict(privileged, size, now)) return INVALID_SESSION_ID;
    const session = new FetchSession(
      this.newSessionId(),
      privileged,
      new Map(),
      usesTopicIds,
      now,
      now,
      nextEpoch(INITIAL_EPOCH),
    );
    fill(session);
    this.sessions.set(session.id, session);
    this.touch(session, now);
    return session.id;
  }

  private newSessionId(): number {
    for (;;) {
      const id = 1 + Math.floor(this.random() * 0x7ffffffe);
      if (!this.sessions.has(id)) return id;
    }
  }

  /** Kafka's touch: refreshes last use and the eviction classes decided at this moment. */
  private touch(s: FetchSession, now: number): void {
    s.lastUsedMs = now;
    if (s.cachedSize !== -1) this.numPartitions -= s.cachedSize;
    s.cachedSize = s.size;
    this.numPartitions += s.cachedSize;
    const old = now - s.creationMs > this.evictionMs;
    s.evictableByPrivileged = !s.privileged || old;
    s.evictableByAll = old;
  }

  /**
   * A new session may evict a stale one (unused for evictionMs), else the least valuable evictable
   * one if it is worth less: (privileged, size, id) ordering, unprivileged and smaller first.
   */
  private tryEvict(privileged: boolean, size: number, now: number): boolean {
    let lru: FetchSession | undefined;
    for (const s of this.sessions.values()) {
      if (!lru || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)) lru = s;
    }
    if (!lru) return false;
    if (now - lru.lastUsedMs > this.evictionMs) {
      this.remove(lru.id);
      this.evictions++;
      return true;
    }
    let victim: FetchSession | undefined;
    for (const s of this.sessions.values()) {
      if (!(privileged ? s.evictableByPrivileged : s.evictableByAll)) continue;
      if (!victim || compareEvictable(s, victim) < 0) victim = s;
    }
    if (!victim) return false;
    if (compareKeys(privileged, size, 0, victim.privileged, victim.cachedSize, victim.id) < 0) return false;
    this.remove(victim.id);
    this.evictions++;
    return true;
  }

  remove(id: number): FetchSession | undefined {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    this.sessions.delete(id);
    if (s.cachedSize !== -1) this.numPartitions -= s.cachedSize;
    s.cachedSize = -1;
    return s;
  }
}

function compareKeys(p1: boolean, size1: number, id1: number, p2: boolean, size2: number, id2: number): number {
  if (p1 !== p2) return p1 ? 1 : -1;
  if (size1 !== size2) return size1 - size2;
  return id1 - id2;
}

const compareEvictable = (a: FetchSession, b: FetchSession): number =>
  compareKeys(a.privileged, a.cachedSize, a.id, b.privileged, b.cachedSize, b.id);
