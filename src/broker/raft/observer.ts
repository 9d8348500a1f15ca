// The metadata quorum as a broker-only node sees it: an observer that replicates
// `__cluster_metadata`-0 from the quorum leader and delivers what is committed (KafkaRaftClient on a
// node that is not a voter: FollowerState/UnattachedState without voting, RaftClient.Listener
// callbacks). It never appends (NOT_CONTROLLER: not a voter) and never serves raft Fetch.
//
// - open(): the metadata log and its snapshots; start(): the latest snapshot goes to the listeners
//   (handleLoadSnapshot), then the fetch loop (raft/follower-fetcher.ts) runs: the leader is found
//   through controller.quorum.voters or controller.quorum.bootstrap.servers and followed as its
//   Fetch answers direct;
// - every high watermark the leader reports delivers the committed batches not yet delivered, in
//   offset order (control batches are not delivered; KRaftVersion/Voters records are tracked);
// - a snapshot fetched from the leader (the log start moved past this node) is written atomically,
//   the log restarts at its end offset and listeners get handleLoadSnapshot;
// - leader changes reach listeners through handleLeaderChange.
// Listener callbacks, snapshot writes and deliveries run on one SerialQueue.

import { RaftStats } from '../metrics/sampled.js';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SerialQueue } from '../log/serial-queue.js';
import { KafkaError, ErrorCode } from '../../protocol/errors.js';
import type { MetadataRecord } from '../../protocol/metadata-records.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { ControlRecordType, decodeMetadataBatch } from '../../protocol/records/metadata-batches.js';
import { atomicWriteFile } from '../../storage/file-ops.js';
import {
  listSnapshots,
  PARTIAL_SUFFIX,
  readSnapshotFile,
  snapshotFileName,
  writeSnapshotFile,
} from '../../storage/snapshot-file.js';
import { MetadataLog } from './metadata-log.js';
import { CLEANER_INTERVAL_MS, MetadataLogCleaner, schedulePeriodicClean } from './log-cleaner.js';
import { RaftChannel, type HostPort, type RaftTarget } from './channel.js';
import type { OutgoingSecurity } from '../security/outgoing.js';
import { FollowerFetcher, type LeaderHint } from './follower-fetcher.js';
import { lastFetchedEpoch } from './leader-fetch.js';
import {
  METADATA_PARTITION_DIR,
  METADATA_TOPIC_ID,
  type CommittedBatch,
  type LeaderAndEpoch,
  type OffsetAndEpoch,
  type Quorum,
  type QuorumDescription,
  type RaftListener,
  type SnapshotData,
  type VoterInfo,
} from './types.js';

export interface ObserverLogger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string, err?: unknown): void;
}

export interface ObserverQuorumOptions {
  /** `metadata.log.dir`; the log lives in `<dir>/__cluster_metadata-0`. */
  readonly metadataLogDir: string;
  readonly nodeId: number;
  readonly clusterId: string;
  /** `directory.id` of the metadata log dir; all-zero if unknown. */
  readonly directoryId?: string;
  /** controller.quorum.voters (static quorum), with their controller-listener endpoints. */
  readonly voters?: readonly { readonly id: number; readonly host: string; readonly port: number }[];
  /** controller.quorum.bootstrap.servers (dynamic quorum). */
  readonly bootstrapServers?: readonly HostPort[];
  /** The controller listener name (the first of controller.listener.names). */
  readonly listenerName: string;
  /** controller.quorum.request.timeout.ms (2000). */
  readonly requestTimeoutMs?: number;
  /** controller.quorum.retry.backoff.ms (20). */
  readonly retryBackoffMs?: number;
  /** controller.quorum.fetch.timeout.ms (2000). */
  readonly fetchTimeoutMs?: number;
  readonly segmentBytes?: number;
  /** metadata.log.segment.ms */
  readonly segmentMs?: number;
  /** metadata.max.retention.bytes / metadata.max.retention.ms (raft/log-cleaner.ts). */
  readonly retentionBytes?: number;
  readonly retentionMs?: number;
  /** How often the log cleaner runs (Kafka: 60 s); 0: only after each snapshot written. */
  readonly cleanerIntervalMs?: number;
  readonly now?: () => number;
  readonly logger?: ObserverLogger;
  /** TLS / SASL of connections to the controller listener (security/outgoing.ts); absent: PLAINTEXT. */
  readonly security?: OutgoingSecurity;
}

const quiet: ObserverLogger = { info() {}, warn() {}, error() {} };

export class ObserverQuorum implements Quorum {
  /** raft-metrics: the fetch record rate (src/broker/metrics) */
  readonly raftStats = new RaftStats();
  readonly nodeId: number;
  private readonly listeners: RaftListener[] = [];
  private readonly queue = new SerialQueue();
  private readonly channel: RaftChannel;
  private fetcher: FollowerFetcher | null = null;
  private readonly discovery: RaftTarget[];
  private readonly logger: ObserverLogger;
  private snapshots: OffsetAndEpoch[] = [];
  private readonly cleaner: MetadataLogCleaner;
  private stopCleaner: () => void = () => undefined;
  private leader: LeaderHint = { leaderId: -1, epoch: 0 };
  private hw = -1;
  /** Offset of the next record to deliver. */
  private delivered = 0;
  private votersRecord: VotersRecord | null = null;
  private kraftVersionInLog = 0;
  private started = false;
  private closed = false;

  private constructor(
    private readonly opts: ObserverQuorumOptions,
    readonly dir: string,
    readonly log: MetadataLog,
  ) {
    this.nodeId = opts.nodeId;
    this.logger = opts.logger ?? quiet;
    this.cleaner = new MetadataLogCleaner({
      log,
      dir,
      retentionMs: opts.retentionMs,
      retentionBytes: opts.retentionBytes,
      now: opts.now ?? Date.now,
      logger: this.logger,
    });
    const voters = new Map<number, HostPort>((opts.voters ?? []).map((v) => [v.id, { host: v.host, port: v.port }]));
    this.channel = new RaftChannel({
      nodeId: opts.nodeId,
      listenerName: opts.listenerName,
      requestTimeoutMs: opts.requestTimeoutMs ?? 2000,
      retryBackoffMs: opts.retryBackoffMs ?? 20,
      voters,
      bootstrapServers: opts.bootstrapServers ?? [],
      now: opts.now,
      security: opts.security,
    });
    this.discovery =
      voters.size > 0
        ? [...voters.keys()].map((voterId) => ({ voterId }))
        : (opts.bootstrapServers ?? []).map((_, bootstrapIndex) => ({ bootstrapIndex }));
  }

  /** Opens (and recovers) the metadata log directory. Call register() and start() next. */
  static async open(opts: ObserverQuorumOptions): Promise<ObserverQuorum> {
    const dir = path.join(opts.metadataLogDir, METADATA_PARTITION_DIR);
    const log = await MetadataLog.open({
      dir,
      topicId: METADATA_TOPIC_ID,
      segmentBytes: opts.segmentBytes,
      segmentMs: opts.segmentMs,
      now: opts.now,
    });
    const q = new ObserverQuorum(opts, dir, log);
    q.snapshots = await listSnapshots(dir);
    return q;
  }

  get leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.leader.leaderId, epoch: this.leader.epoch };
  }
  get leaderId(): number {
    return this.leader.leaderId;
  }
  get leaderEpoch(): number {
    return this.leader.epoch;
  }
  get highWatermark(): number {
    return this.hw;
  }
  get logEndOffset(): number {
    return this.log.logEndOffset;
  }
  get kraftVersion(): number {
    return this.kraftVersionInLog;
  }
  get voters(): readonly VoterInfo[] {
    if (this.votersRecord) {
      return this.votersRecord.voters.map((v) => ({
        id: v.voterId,
        directoryId: v.voterDirectoryId,
        endpoints: v.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
      }));
    }
    return (this.opts.voters ?? []).map((v) => ({
      id: v.id,
      directoryId: ZERO_UUID,
      endpoints: [{ name: this.opts.listenerName, host: v.host, port: v.port }],
    }));
  }
  isLeader(): boolean {
    return false;
  }

  register(listener: RaftListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  onCommit(listener: (batch: CommittedBatch) => void): () => void {
    return this.register({ handleCommit: listener });
  }

  latestSnapshotId(): OffsetAndEpoch | null {
    return this.snapshots.length > 0 ? this.snapshots[this.snapshots.length - 1]! : null;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('quorum already started');
    this.started = true;
    await this.queue.run(async () => {
      const snap = this.latestSnapshotId();
      if (snap) {
        if (this.log.logEndOffset < snap.offset || this.log.logStartOffset > snap.offset)
          await this.log.truncateFullyAndStartAt(snap.offset);
        await this.loadSnapshot(snap);
      } else if (this.log.logStartOffset > 0) {
        throw new Error(`metadata log starts at ${this.log.logStartOffset} but there is no snapshot`);
      }
      // The epoch of the last record is one that existed: fetching in it is valid (lastFetchedEpoch <=
      // currentLeaderEpoch) and the leader's answer names the current one (Kafka keeps it in quorum-state).
      this.leader = { leaderId: -1, epoch: lastFetchedEpoch(this.log, this.snapshots) };
      this.fetcher = new FollowerFetcher({
        channel: this.channel,
        log: this.log,
        clusterId: this.opts.clusterId,
        nodeId: this.opts.nodeId,
        directoryId: this.opts.directoryId ?? ZERO_UUID,
        snapshots: () => this.snapshots,
        leader: this.leader,
        discovery: this.discovery,
        fetchTimeoutMs: this.opts.fetchTimeoutMs ?? 2000,
        retryBackoffMs: this.opts.retryBackoffMs ?? 20,
        now: this.opts.now,
        logger: this.logger,
        onRecords: (n) => this.raftStats.fetchRecords.record(n),
        onLeader: (hint) => this.onLeader(hint),
        onHighWatermark: (hw) => this.queue.run(() => this.deliverUpTo(hw)),
        onSnapshot: (id, bytes) => this.queue.run(() => this.installSnapshot(id, bytes)),
      });
      this.fetcher.start();
      this.stopCleaner = schedulePeriodicClean(
        this.opts.cleanerIntervalMs ?? CLEANER_INTERVAL_MS,
        () =>
          this.queue.run(async () => {
            if (!this.closed)
              await this.cleaner.clean(
                () => this.snapshots,
                (left) => (this.snapshots = left),
              );
          }),
        this.logger,
      );
    });
  }

  private async loadSnapshot(id: OffsetAndEpoch): Promise<void> {
    const loaded = await readSnapshotFile(path.join(this.dir, snapshotFileName(id)));
    if (loaded.voters) this.votersRecord = loaded.voters;
    if (loaded.kraftVersion > 0) this.kraftVersionInLog = loaded.kraftVersion;
    this.delivered = id.offset;
    for (const l of this.listeners) {
      try {
        l.handleLoadSnapshot?.({
          id,
          lastContainedLogTimestamp: loaded.lastContainedLogTimestamp,
          records: loaded.records,
        });
      } catch (e) {
        this.logger.error(`Raft listener failed on snapshot ${snapshotFileName(id)}`, e);
      }
    }
  }

  /** A snapshot downloaded from the leader: written atomically, then loaded (the fetcher restarts the log). */
  private async installSnapshot(id: OffsetAndEpoch, bytes: Buffer): Promise<void> {
    const file = path.join(this.dir, snapshotFileName(id));
    const stem = file.slice(0, -'.checkpoint'.length);
    await atomicWriteFile(file, bytes, `${stem}-${randomBytes(8).toString('hex')}${PARTIAL_SUFFIX}`);
    this.snapshots = [...this.snapshots.filter((s) => s.offset !== id.offset || s.epoch !== id.epoch), id].sort(
      (a, b) => a.offset - b.offset || a.epoch - b.epoch,
    );
    this.logger.info(`Fetched metadata snapshot ${snapshotFileName(id)} (${bytes.length} bytes)`);
    await this.loadSnapshot(id);
    if (id.offset > this.hw) this.hw = id.offset;
    this.snapshots = await this.cleaner.forgetBefore(this.snapshots, id);
  }

  /** Delivers the committed batches in [delivered, hw). */
  private async deliverUpTo(hw: number): Promise<void> {
    if (hw > this.hw) this.hw = hw;
    if (this.delivered >= hw) return;
    const from = this.delivered;
    const batches: CommittedBatch[] = [];
    let next = from;
    await this.log.read(from, (buf, info) => {
      if (info.lastOffset < from) return true;
      if (info.lastOffset >= hw) return false;
      const b = decodeMetadataBatch(buf);
      next = b.lastOffset + 1;
      if (b.isControl) {
        for (const c of b.controls) {
          if (c.type === ControlRecordType.KRaftVoters && c.data) this.votersRecord = c.data as VotersRecord;
          else if (c.type === ControlRecordType.KRaftVersion && c.data)
            this.kraftVersionInLog = (c.data as { kRaftVersion: number }).kRaftVersion;
        }
        return true;
      }
      batches.push({
        baseOffset: Math.max(from, b.baseOffset),
        lastOffset: b.lastOffset,
        epoch: b.epoch,
        appendTimestamp: b.appendTimestamp,
        sizeInBytes: b.sizeInBytes,
        records: b.baseOffset < from ? b.records.slice(from - b.baseOffset) : b.records,
      });
      return true;
    });
    this.delivered = next;
    for (const batch of batches) {
      for (const l of this.listeners) {
        try {
          l.handleCommit(batch);
        } catch (e) {
          this.logger.error(`Raft listener failed on batch ${batch.baseOffset}-${batch.lastOffset}`, e);
        }
      }
    }
  }

  private onLeader(hint: LeaderHint): void {
    this.leader = hint;
    for (const l of this.listeners) {
      try {
        l.handleLeaderChange?.({ leaderId: hint.leaderId, epoch: hint.epoch });
      } catch (e) {
        this.logger.error('Raft listener failed on a leader change', e);
      }
    }
  }

  append(_records: readonly MetadataRecord[]): Promise<number> {
    return Promise.reject(new KafkaError(ErrorCode.NOT_CONTROLLER, 'This node is an observer, not a voter.'));
  }

  /** What an observer knows: the leader, its epoch and the high watermark (no replica states). */
  describe(): QuorumDescription {
    return {
      leaderId: this.leader.leaderId,
      leaderEpoch: this.leader.epoch,
      highWatermark: this.hw,
      currentVoters: [],
      observers: [],
      nodes: [],
    };
  }

  createSnapshot(snapshot: SnapshotData): Promise<void> {
    return this.queue.run(async () => {
      if (snapshot.id.offset > this.hw)
        throw new Error(`snapshot end offset ${snapshot.id.offset} is beyond the high watermark ${this.hw}`);
      const latest = this.latestSnapshotId();
      if (latest && latest.offset >= snapshot.id.offset) return;
      await writeSnapshotFile(path.join(this.dir, snapshotFileName(snapshot.id)), {
        epoch: snapshot.id.epoch,
        lastContainedLogTimestamp: snapshot.lastContainedLogTimestamp,
        records: snapshot.records,
        kraftVersion: this.kraftVersionInLog,
        voters: this.kraftVersionInLog > 0 ? this.votersRecord : null,
      });
      this.snapshots.push(snapshot.id);
      this.cleaner.remember(snapshot.id, snapshot.lastContainedLogTimestamp);
      await this.cleaner.clean(
        () => this.snapshots,
        (left) => (this.snapshots = left),
      );
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopCleaner();
    await this.fetcher?.stop();
    this.channel.close();
    await this.queue.run(async () => {
      await this.log.close();
    });
  }
}
