// The follower/observer side of raft replication (KafkaRaftClient.buildFetchRequest,
// handleFetchResponse, appendAsFollower, truncation, handleFetchSnapshotResponse; the fetch loop of
// pollFollower/pollUnattached with maybeSendFetchToBestNode and the bootstrap servers).
//
// One FollowerFetcher runs one fetch loop: one Fetch in flight at a time, to the leader when known,
// otherwise to the voters / bootstrap servers in turn (their answer names the leader). Each Fetch
// carries the log end offset, lastFetchedEpoch, the known epoch as CurrentLeaderEpoch, the replica
// id and directory id (ReplicaState) and maxWaitMs = 500, as KafkaRaftClient builds it for voters
// and observers alike. On an answer:
// - CurrentLeader newer than what we know, or a leader error (NOT_LEADER_OR_FOLLOWER,
//   FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH): adopt the hint (onLeader) and fetch again;
// - DivergingEpoch: truncate the log to where it agrees with the leader (truncateToEndOffset; never
//   below the high watermark);
// - SnapshotId: download the snapshot with FetchSnapshot in chunks, write it atomically, drop the
//   whole log and restart it at the snapshot's end offset (onSnapshot);
// - records: append whole batches (fsynced), then take the leader's high watermark (onHighWatermark).
// No successful fetch for `fetchTimeoutMs` forgets the leader (back to discovery). The owner gets
// every change through callbacks, called from the loop (so nothing interleaves with an append).

import { ApiKey } from '../../protocol/generated/apis.js';
import type { FetchResponse, FetchResponsePartitionData } from '../../protocol/generated/protocol/Fetch.js';
import type { FetchSnapshotResponse } from '../../protocol/generated/protocol/FetchSnapshot.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { readInt32, readInt64, LOG_OVERHEAD } from '../../protocol/records/layout.js';
import type { MetadataLog } from './metadata-log.js';
import type { RaftChannel, RaftTarget } from './channel.js';
import { endOffsetForEpoch, lastFetchedEpoch } from './leader-fetch.js';
import { METADATA_PARTITION, METADATA_TOPIC_ID, METADATA_TOPIC_NAME, type OffsetAndEpoch } from './types.js';

/** KafkaRaftClient's fetchMaxWaitMs. */
export const FETCH_MAX_WAIT_MS = 500;
/** QuorumConfig's fetch max bytes (8 MiB) and FetchSnapshot's. */
export const FETCH_MAX_BYTES = 8 * 1024 * 1024;

export interface LeaderHint {
  readonly leaderId: number;
  readonly epoch: number;
  readonly host?: string;
  readonly port?: number;
}

export interface FollowerFetcherOptions {
  readonly channel: RaftChannel;
  readonly log: MetadataLog;
  readonly clusterId: string;
  readonly nodeId: number;
  readonly directoryId?: string;
  /** Complete snapshots, oldest first (the owner's list). */
  readonly snapshots: () => readonly OffsetAndEpoch[];
  /** The leader and epoch to start with (-1: unknown, discover through voters/bootstrap servers). */
  readonly leader: LeaderHint;
  /** Where to look for the leader when unknown: voter ids and bootstrap indexes of the channel. */
  readonly discovery: readonly RaftTarget[];
  /** controller.quorum.fetch.timeout.ms (2000). */
  readonly fetchTimeoutMs: number;
  /** controller.quorum.retry.backoff.ms (20). */
  readonly retryBackoffMs: number;
  /** The leader or epoch changed (a hint from a response, or the leader forgotten: leaderId -1). */
  readonly onLeader?: (hint: LeaderHint) => void;
  /** The leader's high watermark after an append (called in the loop; may return a promise). */
  readonly onHighWatermark: (hw: number) => void | Promise<void>;
  /**
   * A snapshot was downloaded: write it (atomically) and load it. The fetcher then drops the log
   * and restarts it at the snapshot's end offset.
   */
  readonly onSnapshot: (id: OffsetAndEpoch, bytes: Buffer) => Promise<void>;
  /** Batches appended (the log end moved). */
  readonly onAppended?: () => void;
  /** Records appended from a fetch answer (raft-metrics fetch-records-rate). */
  readonly onRecords?: (records: number) => void;
  /** A fetch answered by the leader without error (FollowerState's fetch timer restarts). */
  readonly onFetched?: () => void;
  readonly now?: () => number;
  readonly logger?: { info(msg: string): void; warn(msg: string): void };
}

export class FollowerFetcher {
  private leader: LeaderHint;
  private hw = -1;
  private running = false;
  private loop: Promise<void> | null = null;
  private lastSuccess: number;
  private discoveryIndex = 0;
  private wakeSleep: (() => void) | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: FollowerFetcherOptions) {
    this.leader = opts.leader;
    this.now = opts.now ?? Date.now;
    this.lastSuccess = this.now();
  }

  get leaderHint(): LeaderHint {
    return this.leader;
  }

  get highWatermark(): number {
    return this.hw;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastSuccess = this.now();
    this.loop = this.run();
  }

  /** Stops after the request in flight (at most maxWait + request timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.wakeSleep?.();
    await this.loop;
    this.loop = null;
  }

  private async sleep(ms: number): Promise<void> {
    if (!this.running || ms <= 0) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      this.wakeSleep = done;
    });
    this.wakeSleep = null;
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const backoff = await this.fetchOnce();
        if (backoff > 0) await this.sleep(backoff);
      } catch (e) {
        this.opts.logger?.warn(`Raft fetch failed: ${(e as Error).message}`);
        await this.sleep(this.opts.retryBackoffMs);
      }
      if (this.leader.leaderId >= 0 && this.now() - this.lastSuccess >= this.opts.fetchTimeoutMs) {
        this.opts.logger?.info(
          `No successful fetch from leader ${this.leader.leaderId} in ${this.opts.fetchTimeoutMs} ms; looking for the leader`,
        );
        this.setLeader({ leaderId: -1, epoch: this.leader.epoch });
      }
    }
  }

  private setLeader(hint: LeaderHint): void {
    const same =
      hint.leaderId === this.leader.leaderId &&
      hint.epoch === this.leader.epoch &&
      hint.host === this.leader.host &&
      hint.port === this.leader.port;
    this.leader = hint;
    if (hint.leaderId >= 0 && hint.host !== undefined && hint.port !== undefined)
      this.opts.channel.setVoterEndpoint(hint.leaderId, hint.host, hint.port);
    if (!same) {
      this.lastSuccess = this.now();
      this.opts.onLeader?.(hint);
    }
  }

  private target(): RaftTarget | null {
    if (this.leader.leaderId >= 0 && this.opts.channel.voterEndpoint(this.leader.leaderId))
      return { voterId: this.leader.leaderId };
    const d = this.opts.discovery;
    if (d.length === 0) return null;
    const t = d[this.discoveryIndex % d.length]!;
    this.discoveryIndex++;
    return t;
  }

  /** One Fetch and its handling; returns how long to back off before the next. */
  private async fetchOnce(): Promise<number> {
    const target = this.target();
    if (!target) return this.opts.retryBackoffMs;
    if (!this.opts.channel.isReady(target)) return Math.max(1, this.opts.channel.backoffMs(target));
    const log = this.opts.log;
    const snaps = this.opts.snapshots();
    const fetchOffset = log.logEndOffset;
    const body = {
      clusterId: this.opts.clusterId,
      replicaId: -1,
      replicaState: { replicaId: this.opts.nodeId, replicaEpoch: -1n },
      maxWaitMs: FETCH_MAX_WAIT_MS,
      minBytes: 0,
      maxBytes: FETCH_MAX_BYTES,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic: METADATA_TOPIC_NAME,
          topicId: METADATA_TOPIC_ID,
          partitions: [
            {
              partition: METADATA_PARTITION,
              currentLeaderEpoch: Math.max(0, this.leader.epoch),
              fetchOffset: BigInt(fetchOffset),
              lastFetchedEpoch: lastFetchedEpoch(log, snaps),
              logStartOffset: -1n,
              partitionMaxBytes: 0,
              replicaDirectoryId: this.opts.directoryId ?? ZERO_UUID,
              highWatermark: this.hw < 0 ? -1n : BigInt(this.hw),
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    };
    const resp = await this.opts.channel.send<FetchResponse>(target, ApiKey.Fetch, body, { minVersion: 13 });
    if (!this.running) return 0;
    return this.handleFetchResponse(resp.body);
  }

  private async handleFetchResponse(r: FetchResponse): Promise<number> {
    if (r.errorCode !== ErrorCode.NONE) {
      this.opts.logger?.warn(`Raft Fetch answered with top-level error ${r.errorCode}`);
      return this.opts.retryBackoffMs;
    }
    const t = r.responses[0];
    const p = t?.partitions[0];
    if (!t || !p || r.responses.length !== 1 || t.partitions.length !== 1 || t.topicId !== METADATA_TOPIC_ID)
      return this.opts.retryBackoffMs;
    const { leaderId, leaderEpoch } = p.currentLeader;
    const ep = r.nodeEndpoints.find((e) => e.nodeId === leaderId);
    const hint: LeaderHint = ep
      ? { leaderId, epoch: leaderEpoch, host: ep.host, port: ep.port }
      : { leaderId, epoch: leaderEpoch };
    if (leaderEpoch < this.leader.epoch) return this.opts.retryBackoffMs; // a stale answer (maybeHandleCommonResponse)
    const leaderError =
      p.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER ||
      p.errorCode === ErrorCode.FENCED_LEADER_EPOCH ||
      p.errorCode === ErrorCode.UNKNOWN_LEADER_EPOCH;
    if (
      leaderEpoch > this.leader.epoch ||
      (leaderEpoch === this.leader.epoch && leaderId !== this.leader.leaderId && leaderId >= 0)
    ) {
      this.setLeader(hint);
      if (p.errorCode !== ErrorCode.NONE) return 0; // fetch again from the new leader at once
    } else if (leaderError) {
      // nothing newer to learn: try again later (the hint may come with the next answer)
      if (leaderId < 0) this.setLeader({ leaderId: -1, epoch: this.leader.epoch });
      return this.opts.retryBackoffMs;
    }
    if (p.errorCode !== ErrorCode.NONE) {
      this.opts.logger?.warn(`Raft Fetch answered with error ${p.errorCode}`);
      return this.opts.retryBackoffMs;
    }
    if (leaderId !== this.leader.leaderId) return 0; // answered by a node that is not the leader
    this.lastSuccess = this.now();
    this.opts.onFetched?.();
    if (p.divergingEpoch.epoch >= 0) {
      await this.truncateToEndOffset({ offset: Number(p.divergingEpoch.endOffset), epoch: p.divergingEpoch.epoch });
      return 0;
    }
    if (p.snapshotId.epoch >= 0 || p.snapshotId.endOffset >= 0n) {
      if (p.snapshotId.epoch < 0 || p.snapshotId.endOffset < 0n) return this.opts.retryBackoffMs;
      await this.downloadSnapshot({ offset: Number(p.snapshotId.endOffset), epoch: p.snapshotId.epoch });
      return 0;
    }
    await this.appendAsFollower(p.records);
    if (p.highWatermark >= 0n) {
      const hw = Math.min(Number(p.highWatermark), this.opts.log.logEndOffset);
      if (hw > this.hw) {
        this.hw = hw;
        await this.opts.onHighWatermark(hw);
      }
    }
    return 0;
  }

  /** KafkaRaftLog.truncateToEndOffset. */
  private async truncateToEndOffset(end: OffsetAndEpoch): Promise<void> {
    const log = this.opts.log;
    let offset: number;
    if (end.epoch === 0) offset = Math.min(end.offset, log.logEndOffset);
    else {
      const local = endOffsetForEpoch(log, this.opts.snapshots(), end.epoch);
      offset = local.epoch === end.epoch ? Math.min(local.offset, end.offset) : local.offset;
    }
    if (this.hw >= 0 && offset < this.hw)
      throw new Error(`The leader requested truncation to offset ${offset}, below the high watermark ${this.hw}`);
    await log.truncateTo(offset);
    this.opts.logger?.info(`Truncated to offset ${offset} from Fetch response from leader ${this.leader.leaderId}`);
  }

  /** Appends the whole batches of a fetch answer (a trailing partial batch is dropped, as Kafka's reader does). */
  private async appendAsFollower(records: FetchResponsePartitionData['records']): Promise<void> {
    if (!records) return;
    const buf = Buffer.isBuffer(records) ? records : Buffer.concat(records as readonly Buffer[]);
    const log = this.opts.log;
    let appended = false;
    for (let pos = 0; pos + LOG_OVERHEAD <= buf.length;) {
      const size = LOG_OVERHEAD + readInt32(buf, pos + 8);
      if (size <= LOG_OVERHEAD || pos + size > buf.length) break;
      const base = Number(readInt64(buf, pos));
      const batch = buf.subarray(pos, pos + size);
      pos += size;
      if (base < log.logEndOffset) continue; // already have it
      if (base > log.logEndOffset) break; // a gap: refetch from our end
      await log.append(Buffer.from(batch));
      appended = true;
      // RecordBatch: records count at offset 57
      if (size >= 61) this.opts.onRecords?.(readInt32(batch, 57));
    }
    if (appended) this.opts.onAppended?.();
  }

  /** Fetches a whole snapshot with FetchSnapshot, hands it to the owner, restarts the log after it. */
  private async downloadSnapshot(id: OffsetAndEpoch): Promise<void> {
    const have = this.opts.snapshots().some((s) => s.offset === id.offset && s.epoch === id.epoch);
    if (!have) {
      this.opts.logger?.info(
        `Fetching snapshot ${id.offset}-${id.epoch} from Fetch response from leader ${this.leader.leaderId}`,
      );
      const chunks: Buffer[] = [];
      let position = 0;
      for (let i = 0; this.running; i++) {
        if (i > 1_000_000) throw new Error('snapshot download does not progress');
        const r = await this.opts.channel.send<FetchSnapshotResponse>(
          { voterId: this.leader.leaderId },
          ApiKey.FetchSnapshot,
          {
            clusterId: this.opts.clusterId,
            replicaId: this.opts.nodeId,
            maxBytes: FETCH_MAX_BYTES,
            topics: [
              {
                name: METADATA_TOPIC_NAME,
                partitions: [
                  {
                    partition: METADATA_PARTITION,
                    currentLeaderEpoch: this.leader.epoch,
                    snapshotId: { endOffset: BigInt(id.offset), epoch: id.epoch },
                    position: BigInt(position),
                    replicaDirectoryId: this.opts.directoryId ?? ZERO_UUID,
                  },
                ],
              },
            ],
          },
        );
        const sp = r.body.topics[0]?.partitions[0];
        if (r.body.errorCode !== ErrorCode.NONE || !sp || sp.errorCode !== ErrorCode.NONE) {
          throw new Error(
            `FetchSnapshot ${id.offset}-${id.epoch} at ${position} failed: error ${sp?.errorCode ?? r.body.errorCode}`,
          );
        }
        if (Number(sp.position) !== position)
          throw new Error(`FetchSnapshot answered position ${sp.position}, expected ${position}`);
        const bytes = Buffer.isBuffer(sp.unalignedRecords)
          ? sp.unalignedRecords
          : Buffer.concat((sp.unalignedRecords ?? []) as readonly Buffer[]);
        chunks.push(Buffer.from(bytes));
        position += bytes.length;
        if (position >= Number(sp.size)) break;
        if (bytes.length === 0) throw new Error('FetchSnapshot answered an empty chunk');
      }
      if (!this.running) return;
      await this.opts.onSnapshot(id, Buffer.concat(chunks));
    }
    if (this.opts.log.logEndOffset !== id.offset || this.opts.log.epochEntries.length > 0)
      await this.opts.log.truncateFullyAndStartAt(id.offset);
    if (id.offset > this.hw) this.hw = id.offset;
  }
}
