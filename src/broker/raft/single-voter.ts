// A single-voter KRaft quorum: this node is the only voter, so it elects itself at start
// (Unattached/Resigned -> Candidate -> Leader, each transition persisted to `quorum-state` first,
// as QuorumState.durableTransitionTo does), starts every epoch with a LeaderChangeMessage control
// batch, and commits a batch as soon as it is fsynced (a majority of one). The high watermark is
// the log end offset once the epoch's first batch is durable.

import * as path from 'node:path';
import { SerialQueue } from '../log/serial-queue.js';
import { KafkaError, ErrorCode } from '../../protocol/errors.js';
import type { MetadataRecord } from '../../protocol/metadata-records.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import {
  buildControlBatch,
  buildDataBatch,
  ControlRecordType,
  decodeMetadataBatch,
  MAX_BATCH_SIZE_BYTES,
  type ControlRecord,
} from '../../protocol/records/metadata-batches.js';
import { MetadataLog } from './metadata-log.js';
import { LeaderFetch, serveFetch, serveFetchSnapshot, type RaftStateView } from './leader-fetch.js';
import { ReplicaProgress } from './replica-progress.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import {
  QUORUM_STATE_FILE,
  readQuorumState,
  writeQuorumState,
  type ElectionState,
} from '../../storage/quorum-state.js';
import { listSnapshots, readSnapshotFile, snapshotFileName, writeSnapshotFile } from '../../storage/snapshot-file.js';
import { promises as fsp } from 'node:fs';
import { ATTRIBUTES, CONTROL_FLAG_MASK } from '../../protocol/records/layout.js';
import {
  METADATA_PARTITION_DIR,
  METADATA_TOPIC_ID,
  type CommittedBatch,
  type LeaderAndEpoch,
  type OffsetAndEpoch,
  type Quorum,
  type QuorumDescription,
  type RaftEndpoint,
  type RaftFetchServer,
  type RaftListener,
  type SnapshotData,
  type VoterInfo,
} from './types.js';

export interface Logger {
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string, err?: unknown): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

export interface SingleVoterQuorumOptions {
  /** `metadata.log.dir`; the log lives in `<dir>/__cluster_metadata-0`. */
  readonly metadataLogDir: string;
  readonly nodeId: number;
  /** `directory.id` of the metadata log dir (meta.properties); all-zero if unknown. */
  readonly directoryId?: string;
  /** Controller listeners (VotersRecord endpoints, DescribeQuorum nodes). */
  readonly controllerListeners?: readonly RaftEndpoint[];
  /** 1 (default, dynamic quorum: quorum-state data_version 1, KRaftVersion/Voters records) or 0 (static). */
  readonly kraftVersion?: 0 | 1;
  readonly segmentBytes?: number;
  readonly indexIntervalBytes?: number;
  /** Keep this many newest snapshots (default 2). */
  readonly snapshotsToKeep?: number;
  /** Delete log segments covered by a retained snapshot once the log exceeds this (metadata.max.retention.bytes, 100 MiB). */
  readonly retentionBytes?: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

export class SingleVoterQuorum implements Quorum {
  readonly nodeId: number;
  private readonly directoryId: string;
  private readonly listeners: RaftListener[] = [];
  private readonly queue = new SerialQueue();
  private readonly now: () => number;
  private readonly logger: Logger;
  private epoch = 0;
  private leader = -1;
  private hw = -1;
  private started = false;
  private closed = false;
  private snapshots: OffsetAndEpoch[] = [];
  private votersRecord: VotersRecord | null = null;
  private kraftVersionInLog = -1;
  readonly kraftVersion: number;
  /** The leader side of raft Fetch/FetchSnapshot for this epoch (observers follow this node). */
  private leaderFetch: LeaderFetch | null = null;
  private readonly view: RaftStateView = {
    epoch: () => this.epoch,
    leaderId: () => this.leader,
    isLeader: () => this.started && this.leader === this.nodeId,
    shuttingDown: () => this.closed,
    leaderEndpoints: () => (this.leader === this.nodeId ? (this.opts.controllerListeners ?? []) : []),
  };
  readonly fetchServer: RaftFetchServer = {
    handleFetch: (req) =>
      serveFetch(
        this.view,
        () => this.leaderFetch,
        () => this.log.logStartOffset,
        req,
      ),
    handleFetchSnapshot: (req) => serveFetchSnapshot(this.view, () => this.leaderFetch, req),
  };

  private constructor(
    private readonly opts: SingleVoterQuorumOptions,
    readonly dir: string,
    readonly log: MetadataLog,
    private stored: ElectionState | null,
  ) {
    this.nodeId = opts.nodeId;
    this.directoryId = opts.directoryId ?? ZERO_UUID;
    this.kraftVersion = opts.kraftVersion ?? 1;
    this.now = opts.now ?? Date.now;
    this.logger = opts.logger ?? silentLogger;
  }

  /** Opens (and recovers) the metadata log directory. Call register() and start() next. */
  static async open(opts: SingleVoterQuorumOptions): Promise<SingleVoterQuorum> {
    const dir = path.join(opts.metadataLogDir, METADATA_PARTITION_DIR);
    const log = await MetadataLog.open({
      dir,
      topicId: METADATA_TOPIC_ID,
      segmentBytes: opts.segmentBytes,
      indexIntervalBytes: opts.indexIntervalBytes,
    });
    const stored = await readQuorumState(path.join(dir, QUORUM_STATE_FILE));
    const q = new SingleVoterQuorum(opts, dir, log, stored?.state ?? null);
    if (log.truncatedBytesAtOpen > 0) {
      q.logger.warn(
        `Truncated ${log.truncatedBytesAtOpen} byte(s) of torn tail from ${dir}; log end offset is ${log.logEndOffset}`,
      );
    }
    q.snapshots = await listSnapshots(dir);
    return q;
  }

  get leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.leader, epoch: this.epoch };
  }
  get leaderId(): number {
    return this.leader;
  }
  get leaderEpoch(): number {
    return this.epoch;
  }
  get highWatermark(): number {
    return this.hw;
  }
  get logEndOffset(): number {
    return this.log.logEndOffset;
  }
  get voters(): readonly VoterInfo[] {
    return [{ id: this.nodeId, directoryId: this.directoryId, endpoints: this.opts.controllerListeners ?? [] }];
  }
  isLeader(): boolean {
    return this.started && !this.closed && this.leader === this.nodeId;
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

  private async persist(state: ElectionState): Promise<void> {
    await writeQuorumState(path.join(this.dir, QUORUM_STATE_FILE), state, this.kraftVersion >= 1 ? 1 : 0);
    this.stored = state;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('quorum already started');
    await this.queue.run(async () => {
      // 1. The latest snapshot, if any, and the log range after it.
      const snap = this.latestSnapshotId();
      let from = 0;
      let snapshotEpoch = 0;
      if (snap) {
        const loaded = await readSnapshotFile(path.join(this.dir, snapshotFileName(snap)));
        if (loaded.voters) this.votersRecord = loaded.voters;
        if (loaded.kraftVersion > 0) this.kraftVersionInLog = loaded.kraftVersion;
        if (this.log.logEndOffset < snap.offset) {
          this.logger.warn(
            `Log end offset ${this.log.logEndOffset} is behind snapshot ${snapshotFileName(snap)}; restarting the log at ${snap.offset}`,
          );
          await this.log.truncateFullyAndStartAt(snap.offset);
        } else if (this.log.logStartOffset > snap.offset) {
          throw new Error(
            `metadata log starts at ${this.log.logStartOffset}, after the latest snapshot ${snapshotFileName(snap)}`,
          );
        }
        from = snap.offset;
        snapshotEpoch = snap.epoch;
        for (const l of this.listeners) {
          l.handleLoadSnapshot?.({
            id: snap,
            lastContainedLogTimestamp: loaded.lastContainedLogTimestamp,
            records: loaded.records,
          });
        }
      } else if (this.log.logStartOffset > 0) {
        throw new Error(`metadata log starts at ${this.log.logStartOffset} but there is no snapshot`);
      }
      // Control records already in the log decide whether the voter set must be written
      // (only control batches are decoded; a dynamic quorum's VotersRecord is near the start).
      if (this.kraftVersion >= 1 && this.votersRecord === null) {
        await this.log.read(from, (buf, info) => {
          if (info.lastOffset < from || (buf.readInt16BE(ATTRIBUTES) & CONTROL_FLAG_MASK) === 0) return true;
          for (const c of decodeMetadataBatch(buf).controls) this.trackControl(c);
          return this.votersRecord === null;
        });
      }

      // 2. Elect ourselves: Resigned/Unattached(E) -> Candidate(E+1) -> Leader(E+1).
      const newEpoch = Math.max(this.stored?.leaderEpoch ?? 0, this.log.lastEpoch, snapshotEpoch) + 1;
      await this.persist({
        leaderEpoch: newEpoch,
        leaderId: -1,
        votedId: this.nodeId,
        votedDirectoryId: this.directoryId,
        currentVoters: [this.nodeId],
      });
      await this.persist({
        leaderEpoch: newEpoch,
        leaderId: this.nodeId,
        votedId: -1,
        votedDirectoryId: ZERO_UUID,
        currentVoters: [this.nodeId],
      });
      this.epoch = newEpoch;
      this.leader = this.nodeId;
      this.started = true;

      // 3. Start-of-epoch control batch; committing it commits everything before it.
      const controls: ControlRecord[] = [
        {
          type: ControlRecordType.LeaderChange,
          data: {
            version: 0,
            leaderId: this.nodeId,
            voters: [{ voterId: this.nodeId, voterDirectoryId: ZERO_UUID }],
            grantingVoters: [{ voterId: this.nodeId, voterDirectoryId: ZERO_UUID }],
          },
        },
      ];
      if (this.kraftVersion >= 1 && this.votersRecord === null) {
        controls.push({ type: ControlRecordType.KRaftVersion, data: { version: 0, kRaftVersion: this.kraftVersion } });
        controls.push({ type: ControlRecordType.KRaftVoters, data: this.currentVotersRecord() });
      }
      const epochStart = this.log.logEndOffset;
      const self = { id: this.nodeId, directoryId: this.directoryId };
      this.leaderFetch = new LeaderFetch({
        log: this.log,
        dir: this.dir,
        snapshots: () => this.snapshots,
        progress: new ReplicaProgress(self, [self], epochStart),
        now: this.now,
        logger: this.logger,
      });
      await this.log.append(
        buildControlBatch({ baseOffset: epochStart, epoch: newEpoch, timestamp: this.now() }, controls),
      );
      for (const c of controls) this.trackControl(c);
      this.hw = this.log.logEndOffset;
      this.leaderFetch.onAppended();
      this.logger.info(
        `Became leader of ${METADATA_PARTITION_DIR} in epoch ${newEpoch} (epoch start offset ${epochStart})`,
      );

      // 4. Deliver everything committed after the snapshot, then the leader change.
      await this.log.read(from, (buf, info) => {
        if (info.lastOffset < from) return true;
        const b = decodeMetadataBatch(buf);
        if (b.isControl) return true;
        const records = info.baseOffset < from ? b.records.slice(from - info.baseOffset) : b.records;
        this.deliver({
          baseOffset: Math.max(from, b.baseOffset),
          lastOffset: b.lastOffset,
          epoch: b.epoch,
          appendTimestamp: b.appendTimestamp,
          sizeInBytes: b.sizeInBytes,
          records,
        });
        return true;
      });
      for (const l of this.listeners) l.handleLeaderChange?.(this.leaderAndEpoch);
    });
  }

  private trackControl(c: ControlRecord): void {
    if (c.type === ControlRecordType.KRaftVoters && c.data) this.votersRecord = c.data as VotersRecord;
    else if (c.type === ControlRecordType.KRaftVersion && c.data)
      this.kraftVersionInLog = (c.data as { kRaftVersion: number }).kRaftVersion;
  }

  private currentVotersRecord(): VotersRecord {
    return {
      version: 0,
      voters: [
        {
          voterId: this.nodeId,
          voterDirectoryId: this.directoryId,
          endpoints: (this.opts.controllerListeners ?? []).map((e) => ({ name: e.name, host: e.host, port: e.port })),
          kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
        },
      ],
    };
  }

  private deliver(batch: CommittedBatch): void {
    for (const l of this.listeners) {
      try {
        l.handleCommit(batch);
      } catch (e) {
        this.logger.error(`Raft listener failed on batch ${batch.baseOffset}-${batch.lastOffset}`, e);
      }
    }
  }

  append(records: readonly MetadataRecord[]): Promise<number> {
    if (!this.isLeader()) {
      return Promise.reject(
        new KafkaError(
          ErrorCode.NOT_CONTROLLER,
          this.closed ? 'The metadata quorum is shutting down.' : 'This node is not the metadata leader.',
        ),
      );
    }
    if (records.length === 0) return Promise.reject(new RangeError('cannot append an empty batch'));
    return this.queue.run(async () => {
      if (!this.isLeader()) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'The metadata quorum is shutting down.');
      const baseOffset = this.log.logEndOffset;
      const timestamp = this.now();
      const batch = buildDataBatch({ baseOffset, epoch: this.epoch, timestamp }, records);
      if (batch.length > MAX_BATCH_SIZE_BYTES) {
        throw new KafkaError(
          ErrorCode.POLICY_VIOLATION,
          `Unable to perform excessively large batch operation (${batch.length} bytes).`,
        );
      }
      await this.log.append(batch);
      const lastOffset = baseOffset + records.length - 1;
      this.hw = this.log.logEndOffset;
      this.leaderFetch?.onAppended();
      this.deliver({
        baseOffset,
        lastOffset,
        epoch: this.epoch,
        appendTimestamp: timestamp,
        sizeInBytes: batch.length,
        records: records.slice(),
      });
      return lastOffset;
    });
  }

  describe(): QuorumDescription {
    const now = this.now();
    return {
      leaderId: this.leader,
      leaderEpoch: this.epoch,
      highWatermark: this.hw,
      currentVoters: [
        {
          replicaId: this.nodeId,
          replicaDirectoryId: this.directoryId,
          logEndOffset: this.log.logEndOffset,
          lastFetchTimestamp: now,
          lastCaughtUpTimestamp: now,
        },
      ],
      observers: this.leaderFetch?.progress.describeObservers(now) ?? [],
      nodes: [{ nodeId: this.nodeId, listeners: (this.opts.controllerListeners ?? []).map((e) => ({ ...e })) }],
    };
  }

  createSnapshot(snapshot: SnapshotData): Promise<void> {
    return this.queue.run(async () => {
      if (snapshot.id.offset > this.hw)
        throw new Error(`snapshot end offset ${snapshot.id.offset} is beyond the high watermark ${this.hw}`);
      const latest = this.latestSnapshotId();
      if (latest && latest.offset >= snapshot.id.offset) return; // nothing new
      await writeSnapshotFile(path.join(this.dir, snapshotFileName(snapshot.id)), {
        epoch: snapshot.id.epoch,
        lastContainedLogTimestamp: snapshot.lastContainedLogTimestamp,
        records: snapshot.records,
        kraftVersion: this.kraftVersionInLog > 0 ? this.kraftVersionInLog : 0,
        voters: this.kraftVersionInLog > 0 ? this.votersRecord : null,
        now: this.now(),
      });
      this.snapshots.push(snapshot.id);
      this.logger.info(
        `Wrote metadata snapshot ${snapshotFileName(snapshot.id)} with ${snapshot.records.length} record(s)`,
      );
      await this.cleanup();
    });
  }

  /** Keeps the newest snapshots; deletes segments covered by the oldest kept one when over retention. */
  private async cleanup(): Promise<void> {
    const keep = Math.max(1, this.opts.snapshotsToKeep ?? 2);
    while (this.snapshots.length > keep) {
      const old = this.snapshots.shift()!;
      await fsp.rm(path.join(this.dir, snapshotFileName(old)), { force: true });
    }
    const retention = this.opts.retentionBytes ?? 100 * 1024 * 1024;
    const oldestKept = this.snapshots[0];
    if (oldestKept && this.log.sizeInBytes > retention) await this.log.deleteSegmentsBefore(oldestKept.offset);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.leaderFetch?.close();
    await this.queue.run(async () => {
      this.leaderFetch = null;
      await this.log.close();
    });
  }
}
