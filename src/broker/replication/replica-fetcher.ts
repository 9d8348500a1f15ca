// One follower fetch loop per source broker (Kafka's ReplicaFetcherThread over AbstractFetcherThread,
// with RemoteLeaderEndPoint as its LeaderEndPoint): every partition this broker follows whose leader
// is that broker goes into one Fetch (v17 with tkafka or Kafka 4.4: ReplicaState {replicaId,
// replicaEpoch}, topic ids, each partition's current leader epoch and last fetched epoch). Fetches
// are sessionless (session id 0, epoch -1: a full fetch every time); the leader long-polls them with
// replica.fetch.wait.max.ms / replica.fetch.min.bytes.
//
// A response's partition (AbstractFetcherThread.processFetchResponse):
// - records: appended as follower (the leader's offsets and epochs, CRCs checked, a trailing partial
//   batch left for the next fetch), then the follower's HW = min(leader HW, log end offset) and its
//   log start offset follows the leader's;
// - a diverging epoch: truncate (truncateOnFetchResponse / getOffsetTruncationState) and fetch again;
// - OFFSET_OUT_OF_RANGE: fetchOffsetAndTruncate with the leader's latest and earliest offsets
//   (ListOffsets as a replica);
// - FENCED_LEADER_EPOCH: the partition waits for new metadata (the image re-adds it); other errors
//   (NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH, ...) delay it by replica.fetch.backoff.ms.
// A connection failure closes the connection and retries after replica.fetch.backoff.ms.
//
// The fetcher owns its partitions' fetch states; the logs are changed only through the replica
// manager's follower operations, which check the partition is still this follower of this epoch.
import { apiByKey } from '../../client/apis.js';
import { BrokerConnection } from '../../client/connection.js';
import type { Input } from '../../protocol/codec/types.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { FetchRequest, FetchResponse } from '../../protocol/generated/protocol/Fetch.js';
import type { ListOffsetsResponse } from '../../protocol/generated/protocol/ListOffsets.js';
import { LOG_OVERHEAD } from '../../protocol/records/layout.js';
import { validateBatch } from '../../protocol/records/batch-header.js';
import type { Partition } from './partition.js';
import type { ReplicaManager } from './replica-manager.js';
import type { ReplicaLogger } from './types.js';
import type { OutgoingSecurity } from '../security/outgoing.js';

const FETCH = apiByKey(1)!;
const LIST_OFFSETS = apiByKey(2)!;
const LATEST_TIMESTAMP = -1n;
const EARLIEST_LOCAL_TIMESTAMP = -4n;
const EARLIEST_TIMESTAMP = -2n;

export interface ReplicaFetcherConfig {
  /** replica.fetch.wait.max.ms */
  waitMaxMs: number;
  /** replica.fetch.min.bytes */
  minBytes: number;
  /** replica.fetch.max.bytes (per partition) */
  maxBytes: number;
  /** replica.fetch.response.max.bytes */
  responseMaxBytes: number;
  /** replica.fetch.backoff.ms */
  backoffMs: number;
  /** replica.socket.timeout.ms: the request time-out on top of the wait */
  socketTimeoutMs: number;
  /** TLS / SASL of the inter-broker listener (security/outgoing.ts); absent: PLAINTEXT. */
  security?: OutgoingSecurity;
}

/** A fetched partition's state (Kafka's PartitionFetchState). */
interface FetchState {
  readonly partition: Partition;
  /** the leader epoch this state follows; a different one on the partition ends it */
  readonly leaderEpoch: number;
  fetchOffset: number;
  /** not fetched before this time (errors) */
  delayedUntil: number;
  /** waiting for new metadata (fenced) */
  parked: boolean;
  /** the leader's high watermark minus the next fetch offset, after the last response that moved it; unknown at first */
  lag: number | undefined;
}

/** Cuts a fetched record set before a trailing partial batch and checks each batch's CRC. */
export function completeBatches(buf: Buffer): Buffer {
  let pos = 0;
  while (buf.length - pos >= LOG_OVERHEAD) {
    const size = buf.readInt32BE(pos + 8) + LOG_OVERHEAD;
    if (size > buf.length - pos) break;
    validateBatch(buf, pos, pos + size);
    pos += size;
  }
  return pos === buf.length ? buf : buf.subarray(0, pos);
}

function recordsBuffer(r: unknown): Buffer {
  if (r === null || r === undefined) return Buffer.alloc(0);
  if (Buffer.isBuffer(r)) return r;
  if (Array.isArray(r)) return Buffer.concat(r as Buffer[]);
  return Buffer.from(r as Uint8Array);
}

export class ReplicaFetcher {
  private readonly states = new Map<string, FetchState>();
  private conn: BrokerConnection | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  /** fetch responses handled (for tests and logs) */
  fetches = 0;

  constructor(
    readonly sourceBrokerId: number,
    private readonly rm: ReplicaManager,
    private readonly endpoint: () => { host: string; port: number } | undefined,
    private readonly config: ReplicaFetcherConfig,
    private readonly logger: ReplicaLogger,
  ) {}

  get size(): number {
    return this.states.size;
  }

  /** Follows `p` (a new follower, or a new leader epoch) from its log end offset. */
  add(p: Partition): void {
    const cur = this.states.get(p.key);
    if (cur && cur.partition === p && cur.leaderEpoch === p.leaderEpoch && !cur.parked) return;
    this.states.set(p.key, {
      partition: p,
      leaderEpoch: p.leaderEpoch,
      fetchOffset: p.logEndOffset,
      delayedUntil: 0,
      parked: false,
      lag: undefined,
    });
    if (!this.loop) this.loop = this.run();
    this.signal();
  }

  remove(p: Partition): void {
    if (this.states.get(p.key)?.partition === p) this.states.delete(p.key);
  }

  private signal(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    this.signal();
    this.conn?.close();
    await this.loop?.catch(() => undefined);
  }

  /** Waits up to `ms` or until signalled. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Drops states whose partition is gone or moved on (another epoch, led here, closed). */
  private live(s: FetchState): boolean {
    const p = s.partition;
    if (p.closed || p.isLeader || p.leaderEpoch !== s.leaderEpoch || p.leaderId !== this.sourceBrokerId) {
      if (this.states.get(p.key) === s) this.states.delete(p.key);
      return false;
    }
    return true;
  }

  /**
   * RemoteLeaderEndPoint.shouldFollowerThrottle: a replica not known to be caught up (lag unknown or
   * above 0) of a partition this broker throttles as follower, while the follower quota is exceeded.
   */
  private shouldFollowerThrottle(s: FetchState): boolean {
    if (s.lag !== undefined && s.lag <= 0) return false;
    const q = this.rm.quotas.follower;
    return q.isThrottled(s.partition.topic, s.partition.index) && q.isQuotaExceeded();
  }

  private async connection(): Promise<BrokerConnection> {
    if (this.conn?.connected) return this.conn;
    this.conn?.close();
    this.conn = null;
    const ep = this.endpoint();
    if (!ep) throw new Error(`no endpoint known for broker ${this.sourceBrokerId}`);
    const c = new BrokerConnection({
      host: ep.host,
      port: ep.port,
      clientId: `broker-${this.rm.nodeId}-fetcher-0`,
      requestTimeoutMs: this.config.socketTimeoutMs,
      connectTimeoutMs: Math.min(this.config.socketTimeoutMs, 10_000),
      ...this.config.security,
    });
    await c.open();
    this.conn = c;
    return c;
  }

  private async run(): Promise<void> {
    let failures = 0;
    for (;;) {
      if (this.stopped) return;
      const now = Date.now();
      const ready: FetchState[] = [];
      let nextDelay = Infinity;
      for (const s of [...this.states.values()]) {
        if (!this.live(s) || s.parked) continue;
        if (s.delayedUntil > now) nextDelay = Math.min(nextDelay, s.delayedUntil - now);
        else ready.push(s);
      }
      if (ready.length === 0) {
        await this.pause(Number.isFinite(nextDelay) ? nextDelay : 60_000);
        continue;
      }
      // RemoteLeaderEndPoint.buildFetch: throttled partitions are left out while over the quota
      const fetchable = ready.filter((s) => !this.shouldFollowerThrottle(s));
      if (fetchable.length === 0) {
        // AbstractFetcherThread.maybeFetch: nothing to fetch, back off
        await this.pause(this.config.backoffMs);
        continue;
      }
      try {
        await this.fetchOnce(fetchable);
        failures = 0;
      } catch (e) {
        if (this.stopped) return;
        failures++;
        if (failures === 1 || failures % 50 === 0)
          this.logger.warn(
            `Error in fetch from broker ${this.sourceBrokerId} (${failures} in a row): ${(e as Error)?.message ?? String(e)}`,
          );
        this.conn?.close();
        this.conn = null;
        await this.pause(this.config.backoffMs);
      }
    }
  }

  private async fetchOnce(ready: readonly FetchState[]): Promise<void> {
    const conn = await this.connection();
    const version = conn.pickVersion(FETCH, { maxVersion: 17 });
    const byTopic = new Map<string, FetchState[]>();
    for (const s of ready) {
      const k = version >= 13 ? s.partition.topicId : s.partition.topic;
      byTopic.set(k, [...(byTopic.get(k) ?? []), s]);
    }
    const epoch = this.rm.localBrokerEpoch();
    const body: Input<FetchRequest> = {
      clusterId: null,
      replicaId: version >= 15 ? -1 : this.rm.nodeId,
      replicaState: {
        replicaId: version >= 15 ? this.rm.nodeId : -1,
        replicaEpoch: BigInt(version >= 15 ? epoch : -1),
      },
      maxWaitMs: this.config.waitMaxMs,
      minBytes: this.config.minBytes,
      maxBytes: this.config.responseMaxBytes,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [...byTopic.values()].map((ss) => ({
        topic: ss[0]!.partition.topic,
        topicId: ss[0]!.partition.topicId,
        partitions: ss.map((s) => ({
          partition: s.partition.index,
          currentLeaderEpoch: s.leaderEpoch,
          fetchOffset: BigInt(s.fetchOffset),
          lastFetchedEpoch: s.partition.log.epochCache.latestEpoch() ?? -1,
          logStartOffset: BigInt(s.partition.logStartOffset),
          partitionMaxBytes: this.config.maxBytes,
        })),
      })),
      forgottenTopicsData: [],
      rackId: '',
    };
    const res = await conn.send<FetchResponse>(FETCH, body, {
      version,
      timeoutMs: this.config.socketTimeoutMs + this.config.waitMaxMs,
    });
    this.fetches++;
    if (res.body.errorCode !== ErrorCode.NONE) throw new Error(`fetch failed with error ${res.body.errorCode}`);
    const byKey = new Map<string, FetchState>();
    for (const s of ready)
      byKey.set(`${version >= 13 ? s.partition.topicId : s.partition.topic}:${s.partition.index}`, s);
    for (const t of res.body.responses) {
      for (const pd of t.partitions) {
        const s = byKey.get(`${version >= 13 ? t.topicId : t.topic}:${pd.partitionIndex}`);
        if (!s || this.states.get(s.partition.key) !== s || !this.live(s)) continue;
        try {
          await this.processPartition(conn, s, pd);
        } catch (e) {
          if (this.stopped) return;
          this.logger.warn(
            `Error processing data of ${s.partition.key} from broker ${this.sourceBrokerId} at offset ${s.fetchOffset}: ${(e as Error)?.message ?? String(e)}`,
          );
          s.delayedUntil = Date.now() + this.config.backoffMs;
          await this.realign(s);
        }
      }
    }
  }

  private async processPartition(
    conn: BrokerConnection,
    s: FetchState,
    pd: FetchResponse['responses'][number]['partitions'][number],
  ): Promise<void> {
    const p = s.partition;
    switch (pd.errorCode) {
      case ErrorCode.NONE:
        break;
      case ErrorCode.OFFSET_OUT_OF_RANGE: {
        const before = s.fetchOffset;
        await this.handleOutOfRange(conn, s);
        // nothing moved: do not ask again at once
        if (s.fetchOffset === before) s.delayedUntil = Date.now() + this.config.backoffMs;
        return;
      }
      case ErrorCode.FENCED_LEADER_EPOCH:
        // AbstractFetcherThread.onPartitionFenced: wait for metadata with a new leader epoch
        this.logger.info(
          `Partition ${p.key} has a newer leader epoch than ${s.leaderEpoch} at its leader: waiting for metadata`,
        );
        s.parked = true;
        return;
      default:
        s.delayedUntil = Date.now() + this.config.backoffMs;
        return;
    }
    const diverging = pd.divergingEpoch;
    if (diverging && diverging.epoch >= 0) {
      await this.truncateOnDivergence(s, diverging.epoch, Number(diverging.endOffset));
      return;
    }
    const records = completeBatches(recordsBuffer(pd.records));
    if (records.length > 0) {
      const r = await this.rm.appendAsFollower(p, s.leaderEpoch, records);
      if (r === null) return;
      s.fetchOffset = r.lastOffset + 1;
    }
    // processFetchResponse: the lag moves with appended bytes (or is first known)
    if (records.length > 0 || s.lag === undefined) s.lag = Math.max(0, Number(pd.highWatermark) - s.fetchOffset);
    // ReplicaFetcherThread.processPartitionData: in-sync or not, throttled traffic counts
    const quota = this.rm.quotas.follower;
    if (records.length > 0 && quota.isThrottled(p.topic, p.index)) quota.record(records.length);
    await this.rm.updateFollowerOffsets(p, s.leaderEpoch, Number(pd.highWatermark), Number(pd.logStartOffset));
  }

  /**
   * After a failed append the fetch state stays where it was, as in Kafka (the partition is retried
   * after replica.fetch.backoff.ms). A log that ends past the fetch offset holds data this leader
   * did not send in this epoch (nothing should write a follower's log but the fetcher): it is
   * truncated back to the fetch offset rather than fetched from its end, since the divergence check
   * cannot see a foreign batch stamped with the current epoch.
   */
  private async realign(s: FetchState): Promise<void> {
    const p = s.partition;
    if (p.logEndOffset <= s.fetchOffset) {
      s.fetchOffset = p.logEndOffset;
      return;
    }
    this.logger.warn(
      `Log of ${p.key} ends at ${p.logEndOffset}, past the fetch offset ${s.fetchOffset} of leader epoch ${s.leaderEpoch}: truncating to ${s.fetchOffset}`,
    );
    await this.rm.truncateFollower(p, s.leaderEpoch, { to: s.fetchOffset });
  }

  /** AbstractFetcherThread.getOffsetTruncationState for the leader's diverging epoch, then truncate. */
  private async truncateOnDivergence(s: FetchState, leaderEpoch: number, leaderEndOffset: number): Promise<void> {
    const p = s.partition;
    const leo = p.logEndOffset;
    let target: number;
    if (leaderEndOffset < 0) target = s.fetchOffset;
    else {
      const mine = p.log.epochCache.endOffsetFor(leaderEpoch, leo);
      if (mine.epoch < 0 || mine.endOffset < 0) target = Math.min(leaderEndOffset, leo);
      else if (mine.epoch !== leaderEpoch) target = Math.min(mine.endOffset, leo);
      else target = Math.min(mine.endOffset, leaderEndOffset, leo);
    }
    this.logger.info(
      `Truncating ${p.key} to offset ${target} (leader's diverging epoch ${leaderEpoch} ends at ${leaderEndOffset}, log end offset ${leo})`,
    );
    if (await this.rm.truncateFollower(p, s.leaderEpoch, { to: target })) s.fetchOffset = p.logEndOffset;
  }

  /** AbstractFetcherThread.fetchOffsetAndTruncate: the follower is outside the leader's log. */
  private async handleOutOfRange(conn: BrokerConnection, s: FetchState): Promise<void> {
    const p = s.partition;
    const leo = p.logEndOffset;
    const leaderEnd = await this.listOffset(conn, s, LATEST_TIMESTAMP);
    if (leaderEnd < leo) {
      // only after an unclean leader election
      this.logger.warn(`Truncating ${p.key} from ${leo} to the leader's log end offset ${leaderEnd}`);
      if (await this.rm.truncateFollower(p, s.leaderEpoch, { to: leaderEnd })) s.fetchOffset = p.logEndOffset;
      return;
    }
    let leaderStart: number;
    try {
      leaderStart = await this.listOffset(conn, s, EARLIEST_LOCAL_TIMESTAMP);
    } catch {
      leaderStart = await this.listOffset(conn, s, EARLIEST_TIMESTAMP);
    }
    if (leaderStart > leo) {
      this.logger.info(
        `Log of ${p.key} ends at ${leo}, before the leader's log start offset ${leaderStart}: starting over there`,
      );
      if (await this.rm.truncateFollower(p, s.leaderEpoch, { fullyAt: leaderStart })) s.fetchOffset = leaderStart;
    } else s.fetchOffset = leo;
  }

  private async listOffset(conn: BrokerConnection, s: FetchState, timestamp: bigint): Promise<number> {
    const minVersion = timestamp === EARLIEST_LOCAL_TIMESTAMP ? 8 : 1;
    const res = await conn.send<ListOffsetsResponse>(
      LIST_OFFSETS,
      {
        replicaId: this.rm.nodeId,
        isolationLevel: 0,
        timeoutMs: this.config.socketTimeoutMs,
        topics: [
          {
            name: s.partition.topic,
            partitions: [
              { partitionIndex: s.partition.index, currentLeaderEpoch: s.leaderEpoch, timestamp, maxNumOffsets: 1 },
            ],
          },
        ],
      },
      { minVersion, maxVersion: 9, timeoutMs: this.config.socketTimeoutMs },
    );
    const pr = res.body.topics[0]?.partitions[0];
    if (!pr || pr.errorCode !== ErrorCode.NONE)
      throw new Error(`ListOffsets ${timestamp} of ${s.partition.key} failed with error ${pr?.errorCode ?? 'none'}`);
    return Number(pr.offset);
  }
}
