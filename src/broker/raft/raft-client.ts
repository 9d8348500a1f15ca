// The multi-voter KRaft client (Kafka's KafkaRaftClient): elections among the voters of
// `__cluster_metadata-0`, the epoch state persisted before each transition (epoch-state.ts), and
// the Quorum interface the controller and the metadata loader see.
//
// States and transitions, as KafkaRaftClient's poll* methods drive them:
//   Unattached --election timeout--> Prospective (pre-vote, KIP-996: Vote with PreVote=true, same
//   epoch, nothing persisted) --majority--> Candidate (epoch+1, votes for itself) --majority-->
//   Leader (LeaderChangeMessage control batch at the epoch start, BeginQuorumEpoch to the voters);
//   BeginQuorumEpoch / a response naming a leader --> Follower (fetch timeout --> Prospective);
//   close() as leader --> Resigned (EndQuorumEpoch with the preferred successors).
// One voter elects itself at once (Prospective and Candidate need only its own vote).
//
// Replication is A2's. The leader side (raft/leader-fetch.ts, one LeaderFetch per epoch) serves
// Fetch/FetchSnapshot through `fetchServer` and tracks each replica's progress; the high watermark
// is the offset a majority of voters have fetched past, once it is past the epoch start
// (replica-progress.ts). A follower runs A2's FollowerFetcher to the leader of its epoch: batches
// appended as follower (truncated on divergence, a snapshot downloaded when behind the leader's log
// start), the leader's high watermark delivered to listeners, and each successful fetch restarting
// the fetch timer. With an injected `sender` (no channel) a follower has no fetcher and treats the
// leader's periodic BeginQuorumEpoch as its sign of life.
//
// Dynamic quorums (KIP-853): an unattached replica with controller.quorum.bootstrap.servers fetches
// from them and follows the CurrentLeader of the answer; a node with kraft.version 1 and no voter set
// (formatted --no-initial-controllers) is an observer. The leader of each epoch serves
// `voterChanges` (raft/voter-changes.ts) by appending VotersRecord control batches; the latest
// VotersRecord sets the voter set (the leader's at its append, the others' at its commit). Not done:
// recomputing the voter set when a log truncation drops an uncommitted VotersRecord. A follower
// that is a voter sends UpdateRaftVoter to its leader (raft/voter-updater.ts).
//
// Every state change runs on one SerialQueue; an append waits for its commit outside the queue.

import { startupMark } from '../startup-trace.js';
import { RaftStats } from '../metrics/sampled.js';
import * as path from 'node:path';
import { SerialQueue } from '../log/serial-queue.js';
import { KafkaError, ErrorCode } from '../../protocol/errors.js';
import type { Input } from '../../protocol/codec/types.js';
import type { MetadataRecord } from '../../protocol/metadata-records.js';
import type { VotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import type { VoteRequest, VoteResponse } from '../../protocol/generated/protocol/Vote.js';
import type {
  BeginQuorumEpochRequest,
  BeginQuorumEpochResponse,
} from '../../protocol/generated/protocol/BeginQuorumEpoch.js';
import type {
  EndQuorumEpochRequest,
  EndQuorumEpochResponse,
} from '../../protocol/generated/protocol/EndQuorumEpoch.js';
import {
  buildControlBatch,
  buildDataBatch,
  ControlRecordType,
  decodeMetadataBatch,
  MAX_BATCH_SIZE_BYTES,
  type ControlRecord,
} from '../../protocol/records/metadata-batches.js';
import { ATTRIBUTES, CONTROL_FLAG_MASK } from '../../protocol/records/layout.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { QUORUM_STATE_FILE, readQuorumState } from '../../storage/quorum-state.js';
import { listSnapshots, readSnapshotFile, snapshotFileName, writeSnapshotFile } from '../../storage/snapshot-file.js';
import { MetadataLog } from './metadata-log.js';
import { CLEANER_INTERVAL_MS, MetadataLogCleaner, schedulePeriodicClean } from './log-cleaner.js';
import { silentLogger, type Logger } from './logger.js';
import { isLogUpToDate, QuorumStateMachine, type EpochElection, type ReplicaKey } from './epoch-state.js';
import {
  Deadline,
  DEFAULT_QUORUM_TIMEOUTS,
  electionBackoffMs,
  randomElectionTimeoutMs,
  strictElectionBackoffMs,
  type QuorumTimeouts,
} from './election-timer.js';
import { ChannelRaftSender, type RaftDestination, type RaftSender } from './election-channel.js';
import { RaftChannel, type RaftTarget } from './channel.js';
import type { OutgoingSecurity } from '../security/outgoing.js';
import { LeaderFetch, serveFetch, serveFetchSnapshot, type RaftStateView } from './leader-fetch.js';
import { ReplicaProgress } from './replica-progress.js';
import { FollowerFetcher, type LeaderHint } from './follower-fetcher.js';
import { VoterUpdater } from './voter-updater.js';
import { atomicWriteFile } from '../../storage/file-ops.js';
import {
  fromVotersRecord,
  probeApiVersions,
  SUPPORTED_KRAFT_VERSIONS,
  VoterChanges,
  type VoterChangeLeader,
  type VoterChangeServer,
  type VoterNode,
} from './voter-changes.js';
import {
  METADATA_PARTITION_DIR,
  METADATA_TOPIC_ID,
  METADATA_TOPIC_NAME,
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

/** A static voter (`controller.quorum.voters` entry). */
export interface StaticVoter {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

export interface RaftClientOptions {
  readonly metadataLogDir: string;
  readonly nodeId: number;
  readonly clusterId: string;
  readonly directoryId?: string;
  /** This node's controller listeners; the first names the listener raft RPCs use. */
  readonly controllerListeners?: readonly RaftEndpoint[];
  /** controller.quorum.voters (kraft.version 0); a VotersRecord in the log wins when there is one. */
  readonly staticVoters?: readonly StaticVoter[];
  /**
   * controller.quorum.bootstrap.servers: where an unattached replica (voter or observer) fetches to
   * find the leader (KafkaRaftClient.maybeSendFetchToAnyBootstrap). With kraft.version 1 and no
   * VotersRecord in the log (formatted --no-initial-controllers) this node is an observer.
   */
  readonly bootstrapServers?: readonly { readonly host: string; readonly port: number }[];
  readonly kraftVersion?: 0 | 1;
  readonly timeouts?: Partial<QuorumTimeouts>;
  readonly segmentBytes?: number;
  /** metadata.log.segment.ms */
  readonly segmentMs?: number;
  readonly indexIntervalBytes?: number;
  /** metadata.max.retention.bytes / metadata.max.retention.ms (raft/log-cleaner.ts). */
  readonly retentionBytes?: number;
  readonly retentionMs?: number;
  /** How often the log cleaner runs (Kafka: 60 s); 0 only after each snapshot written. */
  readonly cleanerIntervalMs?: number;
  /** Election RPCs (tests); by default they go over the client's RaftChannel, which also fetches as follower. */
  readonly sender?: RaftSender;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly logger?: Logger;
  /** TLS / SASL of connections to the controller listener (security/outgoing.ts); absent: PLAINTEXT. */
  readonly security?: OutgoingSecurity;
}

type VoteResponseInput = Input<VoteResponse>;
type BeginResponseInput = Input<BeginQuorumEpochResponse>;
type EndResponseInput = Input<EndQuorumEpochResponse>;

interface PendingCommit {
  readonly offset: number;
  /** performance.now() at the append (raft-metrics commit-latency) */
  readonly appendedAt: number;
  readonly resolve: (offset: number) => void;
  readonly reject: (e: Error) => void;
}

export class RaftClient implements Quorum {
  readonly nodeId: number;
  readonly kraftVersion: number;
  private readonly directoryId: string;
  private readonly listeners: RaftListener[] = [];
  private readonly queue = new SerialQueue();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly logger: Logger;
  private readonly t: QuorumTimeouts;
  private readonly sender: RaftSender;
  private readonly sm: QuorumStateMachine;
  private readonly changeLeader: VoterChangeLeader;
  private readonly timer: Deadline;
  private readonly beginTimer: Deadline;
  private snapshots: OffsetAndEpoch[] = [];
  private readonly cleaner: MetadataLogCleaner;
  private stopCleaner: () => void = () => undefined;
  private votersRecord: VotersRecord | null = null;
  /** Offset of the batch holding `votersRecord` (-1: from a snapshot or the bootstrap checkpoint). */
  private votersRecordOffset = -1;
  /** The voter changes of this node's current leader epoch (KIP-853; closed when the epoch ends). */
  private epochVoterChanges: VoterChanges | null = null;
  /** kraft.version 0: the voter set the leader learnt through UpdateRaftVoter (LeaderState.volatileVoters). */
  private volatileVoterSet: readonly VoterNode[] | null = null;
  private kraftVersionInLog = -1;
  private hw = -1;
  /** Next offset to deliver to listeners (everything below it has been delivered). */
  private nextDelivery = 0;
  private epochStartOffset = -1;
  private pending: PendingCommit[] = [];
  /** raft-metrics: commit latency, append and fetch record rates (src/broker/metrics) */
  readonly raftStats = new RaftStats();
  /** Leader: when each voter last acknowledged a BeginQuorumEpoch of this epoch (its sign of life without fetches). */
  private readonly lastAcknowledged = new Map<number, number>();
  private electionRetries = 0;
  private tickHandle: NodeJS.Timeout | null = null;
  private started = false;
  private closed = false;
  private lastFiredLeader: LeaderAndEpoch = { leaderId: -1, epoch: -1 };
  private readonly channel: RaftChannel | null;
  /** Follower: the fetch loop to the leader (A2's follower-fetcher.ts); one at a time. */
  private fetcher: FollowerFetcher | null = null;
  /** Resolves when every fetcher stopped so far has stopped (fetchers start only after it). */
  private fetcherIdle: Promise<void> = Promise.resolve();
  private voterUpdater: VoterUpdater | null = null;
  /** The leader side of raft Fetch/FetchSnapshot for the current epoch (A2's leader-fetch.ts). */
  private leaderFetch: LeaderFetch | null = null;
  private readonly view: RaftStateView = {
    epoch: () => this.sm.epoch,
    leaderId: () => this.sm.leaderId,
    isLeader: () => this.isLeader(),
    shuttingDown: () => this.closed,
    leaderEndpoints: () => this.sm.state.leaderEndpoints,
  };
  /** Fetch and FetchSnapshot from followers and observers (served while this node leads). */
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
    private readonly opts: RaftClientOptions,
    readonly dir: string,
    readonly log: MetadataLog,
  ) {
    this.nodeId = opts.nodeId;
    this.directoryId = opts.directoryId ?? ZERO_UUID;
    this.kraftVersion = opts.kraftVersion ?? (opts.staticVoters && opts.staticVoters.length > 0 ? 0 : 1);
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.logger = opts.logger ?? silentLogger;
    this.t = { ...DEFAULT_QUORUM_TIMEOUTS, ...opts.timeouts };
    this.channel = opts.sender
      ? null
      : new RaftChannel({
          nodeId: opts.nodeId,
          listenerName: opts.controllerListeners?.[0]?.name ?? 'CONTROLLER',
          requestTimeoutMs: this.t.requestTimeoutMs,
          retryBackoffMs: this.t.retryBackoffMs,
          bootstrapServers: opts.bootstrapServers,
          now: this.now,
          security: opts.security,
        });
    this.sender = opts.sender ?? new ChannelRaftSender(this.channel!);
    this.timer = new Deadline(this.now);
    this.beginTimer = new Deadline(this.now);
    this.cleaner = new MetadataLogCleaner({
      log,
      dir,
      retentionMs: opts.retentionMs,
      retentionBytes: opts.retentionBytes,
      now: this.now,
      logger: this.logger,
    });
    this.changeLeader = this.makeChangeLeader();
    this.sm = new QuorumStateMachine({
      file: path.join(dir, QUORUM_STATE_FILE),
      localId: opts.nodeId,
      localDirectoryId: this.directoryId,
      dataVersion: () => (this.kraftVersion >= 1 ? 1 : 0),
      voterIds: () => this.voters.map((v) => v.id),
    });
  }

  static async open(opts: RaftClientOptions): Promise<RaftClient> {
    const dir = path.join(opts.metadataLogDir, METADATA_PARTITION_DIR);
    const log = await MetadataLog.open({
      dir,
      topicId: METADATA_TOPIC_ID,
      segmentBytes: opts.segmentBytes,
      segmentMs: opts.segmentMs,
      indexIntervalBytes: opts.indexIntervalBytes,
      now: opts.now,
    });
    const c = new RaftClient(opts, dir, log);
    if (log.truncatedBytesAtOpen > 0) {
      c.logger.warn(`Truncated ${log.truncatedBytesAtOpen} byte(s) of torn tail from ${dir}`);
    }
    c.snapshots = await listSnapshots(dir);
    return c;
  }

  // ------------------------------------------------------------------ Quorum reads

  get leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.sm.leaderId, epoch: this.sm.epoch };
  }
  get leaderId(): number {
    return this.sm.leaderId;
  }
  get leaderEpoch(): number {
    return this.sm.epoch;
  }
  get highWatermark(): number {
    return this.hw;
  }
  get logEndOffset(): number {
    return this.log.logEndOffset;
  }
  /** The state's name (Unattached, Prospective, Candidate, Leader, Follower, Resigned). */
  get stateName(): string {
    return this.sm.state.name;
  }

  /** The latest VotersRecord in the log/snapshot, else the static voters, else this node alone. */
  get voters(): readonly VoterInfo[] {
    if (this.votersRecord) {
      // this node's own entry: the endpoints it listens on (a port-0 listener's bound port)
      const local = this.localEndpoints;
      return this.votersRecord.voters.map((v) => ({
        id: v.voterId,
        directoryId: v.voterDirectoryId,
        endpoints:
          v.voterId === this.nodeId && local.length > 0
            ? local
            : v.endpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
      }));
    }
    const name = this.listenerName;
    if (this.opts.staticVoters && this.opts.staticVoters.length > 0) {
      const local = this.localEndpoints;
      return this.opts.staticVoters.map((v) =>
        v.id === this.nodeId && local.length > 0
          ? { id: v.id, directoryId: this.directoryId, endpoints: local }
          : { id: v.id, directoryId: ZERO_UUID, endpoints: [{ name, host: v.host, port: v.port }] },
      );
    }
    // formatted --no-initial-controllers: no voter yet, this node observes until a voter change adds it
    if (this.kraftVersion >= 1 && (this.opts.bootstrapServers?.length ?? 0) > 0) return [];
    return [{ id: this.nodeId, directoryId: this.directoryId, endpoints: this.opts.controllerListeners ?? [] }];
  }

  private get listenerName(): string {
    return this.opts.controllerListeners?.[0]?.name ?? 'CONTROLLER';
  }

  private get localEndpoints(): readonly RaftEndpoint[] {
    return this.opts.controllerListeners ?? [];
  }

  isLeader(): boolean {
    return this.started && !this.closed && this.sm.is('Leader');
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

  /** The log's end (offset, epoch): the Raft up-to-dateness of this replica. */
  private endOffset(): OffsetAndEpoch {
    const snap = this.latestSnapshotId();
    if (this.log.logEndOffset === 0 || (snap && this.log.logEndOffset <= snap.offset && this.log.lastEpoch <= 0)) {
      return snap ? { offset: snap.offset, epoch: snap.epoch } : { offset: 0, epoch: 0 };
    }
    return { offset: this.log.logEndOffset, epoch: Math.max(this.log.lastEpoch, snap?.epoch ?? 0) };
  }

  // ------------------------------------------------------------------ start

  async start(): Promise<void> {
    if (this.started) throw new Error('quorum already started');
    await this.queue.run(async () => {
      const snap = this.latestSnapshotId();
      let from = 0;
      if (snap) {
        const loaded = await readSnapshotFile(path.join(this.dir, snapshotFileName(snap)));
        if (loaded.voters) {
          this.votersRecord = loaded.voters;
          this.votersRecordOffset = snap.offset - 1; // its last contained offset: -1 for the bootstrap checkpoint
        }
        if (loaded.kraftVersion > 0) this.kraftVersionInLog = loaded.kraftVersion;
        if (this.log.logEndOffset < snap.offset) await this.log.truncateFullyAndStartAt(snap.offset);
        else if (this.log.logStartOffset > snap.offset) {
          throw new Error(`metadata log starts at ${this.log.logStartOffset}, after the latest snapshot`);
        }
        from = snap.offset;
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
      this.nextDelivery = from;
      // Control records decide the voter set (the latest VotersRecord wins).
      await this.log.read(from, (buf, info) => {
        if (info.lastOffset < from || (buf.readInt16BE(ATTRIBUTES) & CONTROL_FLAG_MASK) === 0) return true;
        for (const c of decodeMetadataBatch(buf).controls) this.trackControl(c, info.lastOffset);
        return true;
      });
      startupMark('raft: snapshot loaded, log scanned for control records');
      const stored = await readQuorumState(path.join(this.dir, QUORUM_STATE_FILE));
      await this.sm.initialize(stored?.state ?? null, this.endOffset());
      startupMark('raft: quorum state initialized');
      this.started = true;
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
      this.logger.info(
        `Raft client ${this.nodeId} starting in ${this.sm.state.name} epoch ${this.sm.epoch} with voters [${this.voters.map((v) => v.id).join(',')}]`,
      );
      if (this.sm.is('Resigned')) await this.sm.toUnattached(this.sm.epoch);
      this.timer.reset(this.voters.length === 1 ? 0 : randomElectionTimeoutMs(this.t, this.random));
      await this.poll();
    });
  }

  // ------------------------------------------------------------------ the poll loop

  private schedule(ms: number): void {
    if (this.closed) return;
    if (this.tickHandle) clearTimeout(this.tickHandle);
    this.tickHandle = setTimeout(
      () => {
        this.tickHandle = null;
        this.queue.run(() => this.poll()).catch((e) => this.logger.error('Raft poll failed', e));
      },
      Math.max(0, Math.min(ms, 60_000)),
    );
    this.tickHandle.unref?.();
  }

  /** One round of KafkaRaftClient.poll for the current state (runs on the queue). */
  private async poll(): Promise<void> {
    if (this.closed || !this.started) return;
    const s = this.sm.state;
    const isVoter = this.sm.isVoter();
    switch (s.name) {
      case 'Unattached':
      case 'Follower':
        if (
          s.name === 'Unattached' &&
          s.leaderId < 0 &&
          !this.fetcher &&
          (!isVoter || (this.opts.bootstrapServers?.length ?? 0) > 0) &&
          this.discovery().length > 0
        ) {
          // pollUnattachedCommon: fetch from the bootstrap servers; the answer names the leader
          this.startFetcher(-1, s.epoch, []);
        }
        if (isVoter && this.timer.expired()) {
          this.logger.info(
            s.name === 'Follower'
              ? `No fetch from leader ${s.leaderId} in epoch ${s.epoch} within ${this.t.fetchTimeoutMs} ms; starting a pre-vote`
              : `Election timeout in epoch ${s.epoch}; starting a pre-vote`,
          );
          await this.startProspective();
          return;
        }
        break;
      case 'Prospective':
      case 'Candidate':
        if (this.timer.expired()) {
          if (s.name === 'Candidate') {
            this.logger.info(`Election in epoch ${s.epoch} was not granted; back to prospective`);
            await this.startProspective();
          } else await this.afterProspectiveLoss();
          return;
        }
        break;
      case 'Leader':
        if (this.checkQuorumExpired()) {
          this.logger.warn(`Leader ${this.nodeId} lost contact with a majority of voters in epoch ${s.epoch}`);
          await this.resign();
          return;
        }
        if (this.beginTimer.expired()) this.sendBeginQuorumEpoch();
        this.schedule(this.beginTimer.remainingMs());
        return;
      case 'Resigned':
        // pollResigned: after the election timeout a resigned leader may take part in elections again
        if (this.timer.expired()) {
          await this.becomeUnattached(s.epoch);
          return;
        }
        break;
    }
    this.schedule(this.timer.remainingMs());
  }

  private async startProspective(): Promise<void> {
    this.stopFetcher();
    const election = await this.sm.toProspective();
    this.timer.reset(randomElectionTimeoutMs(this.t, this.random));
    await this.afterVote(election);
    if (this.sm.is('Prospective')) this.requestVotes(election, true);
  }

  /** ProspectiveState lost: back to following a known leader, else Unattached with a backoff. */
  private async afterProspectiveLoss(): Promise<void> {
    const s = this.sm.state;
    this.electionRetries++;
    if (s.leaderId >= 0 && s.leaderId !== this.nodeId) {
      await this.becomeFollower(s.epoch, s.leaderId, s.leaderEndpoints);
    } else {
      await this.sm.toUnattached(s.epoch);
      this.timer.reset(electionBackoffMs(this.t, this.electionRetries, this.random));
      this.schedule(this.timer.remainingMs());
    }
  }

  private async startCandidate(): Promise<void> {
    const election = await this.sm.toCandidate();
    this.logger.info(`Became candidate in epoch ${this.sm.epoch}`);
    this.timer.reset(randomElectionTimeoutMs(this.t, this.random));
    await this.afterVote(election);
    if (this.sm.is('Candidate')) this.requestVotes(election, false);
  }

  /** maybeTransitionForward: a won pre-vote makes a candidate, a won vote a leader. */
  private async afterVote(election: EpochElection): Promise<void> {
    if (!election.isVoteGranted()) {
      this.schedule(this.timer.remainingMs());
      return;
    }
    if (this.sm.is('Prospective')) await this.startCandidate();
    else if (this.sm.is('Candidate')) await this.becomeLeader(election);
  }

  private voteRequest(to: VoterInfo, preVote: boolean): Input<VoteRequest> {
    const end = this.endOffset();
    return {
      clusterId: this.opts.clusterId,
      voterId: to.id,
      topics: [
        {
          topicName: METADATA_TOPIC_NAME,
          partitions: [
            {
              partitionIndex: 0,
              replicaEpoch: this.sm.epoch,
              replicaId: this.nodeId,
              replicaDirectoryId: this.directoryId,
              voterDirectoryId: to.directoryId,
              lastOffsetEpoch: end.epoch,
              lastOffset: BigInt(end.offset),
              preVote,
            },
          ],
        },
      ],
    };
  }

  private destination(v: VoterInfo): RaftDestination | null {
    const e = v.endpoints.find((x) => x.name === this.listenerName) ?? v.endpoints[0];
    return e ? { id: v.id, host: e.host, port: e.port } : null;
  }

  private requestVotes(election: EpochElection, preVote: boolean): void {
    const epoch = this.sm.epoch;
    for (const id of election.unrecordedVoters()) {
      const v = this.voters.find((x) => x.id === id);
      const to = v && this.destination(v);
      if (!v || !to) continue;
      void this.sender.send<VoteResponse>(to, 52, this.voteRequest(v, preVote), preVote ? 2 : 0).then((r) =>
        this.queue
          .run(async () => {
            const s = this.sm.state;
            if (this.closed || s.epoch !== epoch || s.election !== election) return;
            if (!r.ok) {
              // PreVote unsupported by a voter: go straight to candidate (KafkaRaftClient.handleVoteResponse)
              if (r.unsupportedVersion && preVote) await this.startCandidate();
              return;
            }
            if (r.body.errorCode !== 0) return;
            const p = r.body.topics[0]?.partitions[0];
            if (!p) return;
            if (await this.handleCommonResponse(p.errorCode, p.leaderId, p.leaderEpoch, r.body.nodeEndpoints)) return;
            if (p.errorCode !== 0) return;
            election.record(id, p.voteGranted);
            if (p.voteGranted) await this.afterVote(election);
            else if (election.isVoteRejected() && this.sm.is('Prospective')) await this.afterProspectiveLoss();
          })
          .catch((e) => this.logger.error('Vote response handling failed', e)),
      );
    }
  }

  /**
   * maybeHandleCommonResponse: a response in a newer epoch, or naming a leader we did not know,
   * moves this replica; returns true when the response needs no further handling.
   */
  private async handleCommonResponse(
    error: number,
    leaderId: number,
    epoch: number,
    nodeEndpoints: readonly { nodeId: number; host: string; port: number }[],
  ): Promise<boolean> {
    const endpoints = this.endpointsOf(leaderId, nodeEndpoints);
    if (epoch < this.sm.epoch || error === ErrorCode.UNKNOWN_LEADER_EPOCH) return true;
    if (
      epoch > this.sm.epoch ||
      error === ErrorCode.FENCED_LEADER_EPOCH ||
      error === ErrorCode.NOT_LEADER_OR_FOLLOWER
    ) {
      await this.maybeTransition(leaderId, epoch, endpoints);
      return true;
    }
    if (leaderId >= 0 && this.sm.leaderId < 0) {
      await this.becomeFollower(epoch, leaderId, endpoints);
      return error !== 0;
    }
    return false;
  }

  private endpointsOf(
    leaderId: number,
    nodeEndpoints: readonly { nodeId: number; host: string; port: number }[],
  ): readonly RaftEndpoint[] {
    if (leaderId < 0) return [];
    const fromResponse = nodeEndpoints
      .filter((n) => n.nodeId === leaderId)
      .map((n) => ({ name: this.listenerName, host: n.host, port: n.port }));
    if (fromResponse.length > 0) return fromResponse;
    return this.voters.find((v) => v.id === leaderId)?.endpoints ?? [];
  }

  private async maybeTransition(leaderId: number, epoch: number, endpoints: readonly RaftEndpoint[]): Promise<void> {
    if (epoch > this.sm.epoch) {
      if (leaderId >= 0 && leaderId !== this.nodeId) await this.becomeFollower(epoch, leaderId, endpoints);
      else await this.becomeUnattached(epoch);
    } else if (leaderId >= 0 && leaderId !== this.nodeId && this.sm.leaderId < 0) {
      await this.becomeFollower(epoch, leaderId, endpoints);
    }
  }

  private async becomeUnattached(epoch: number): Promise<void> {
    const wasLeader = this.sm.is('Leader');
    this.stopFetcher();
    await this.sm.toUnattached(epoch);
    if (wasLeader) this.failPending('This node is no longer the metadata leader.');
    this.stopLeading();
    this.timer.reset(randomElectionTimeoutMs(this.t, this.random));
    this.fireLeaderChange();
    this.schedule(this.timer.remainingMs());
  }

  private async becomeFollower(epoch: number, leaderId: number, endpoints: readonly RaftEndpoint[]): Promise<void> {
    const wasLeader = this.sm.is('Leader');
    await this.sm.toFollower(epoch, leaderId, endpoints);
    if (wasLeader) this.failPending('This node is no longer the metadata leader.');
    this.stopLeading();
    this.electionRetries = 0;
    this.timer.reset(this.t.fetchTimeoutMs);
    this.logger.info(`Following leader ${leaderId} in epoch ${epoch}`);
    this.startFetcher(leaderId, epoch, endpoints);
    this.fireLeaderChange();
    this.schedule(this.timer.remainingMs());
  }

  private async becomeLeader(election: EpochElection): Promise<void> {
    // the last fetcher's in-flight append must be done before this node writes its epoch start
    this.stopFetcher();
    await this.fetcherIdle;
    await this.sm.toLeader(this.localEndpoints);
    startupMark('raft: leader (quorum-state written)');
    this.electionRetries = 0;
    const epoch = this.sm.epoch;
    this.lastAcknowledged.clear();
    const start = this.now();
    for (const v of this.voters) if (v.id !== this.nodeId) this.lastAcknowledged.set(v.id, start);
    const controls: ControlRecord[] = [
      {
        type: ControlRecordType.LeaderChange,
        data: {
          version: 0,
          leaderId: this.nodeId,
          voters: this.voters.map((v) => ({ voterId: v.id, voterDirectoryId: ZERO_UUID })),
          grantingVoters: [...election.granted].map((id) => ({ voterId: id, voterDirectoryId: ZERO_UUID })),
        },
      },
    ];
    // LeaderState.appendStartOfEpochControlRecords: a voter set that only the bootstrap checkpoint
    // holds (offset -1) is written into the log, so observers and new voters learn it by fetching
    if (this.kraftVersion >= 1 && this.votersRecordOffset < 0) {
      controls.push({
        type: ControlRecordType.KRaftVersion,
        data: { version: 0, kRaftVersion: this.kraftVersionInLog > 0 ? this.kraftVersionInLog : this.kraftVersion },
      });
      controls.push({ type: ControlRecordType.KRaftVoters, data: this.votersRecord ?? this.localVotersRecord() });
    }
    this.epochStartOffset = this.log.logEndOffset;
    const self = { id: this.nodeId, directoryId: this.directoryId };
    this.leaderFetch = new LeaderFetch({
      log: this.log,
      dir: this.dir,
      snapshots: () => this.snapshots,
      progress: new ReplicaProgress(
        self,
        this.voters.map((v) => (v.id === this.nodeId ? self : { id: v.id, directoryId: v.directoryId })),
        this.epochStartOffset,
      ),
      onHighWatermark: (hw) => {
        this.queue.run(() => this.setHighWatermark(hw)).catch((e) => this.logger.error('Commit failed', e));
      },
      now: this.now,
      logger: this.logger,
    });
    await this.log.append(
      buildControlBatch({ baseOffset: this.epochStartOffset, epoch, timestamp: this.now() }, controls),
    );
    for (const c of controls) this.trackControl(c, this.epochStartOffset + controls.length - 1);
    this.epochVoterChanges = new VoterChanges(this.changeLeader, this.now);
    this.logger.info(
      `Became leader of ${METADATA_PARTITION_DIR} in epoch ${epoch} (epoch start offset ${this.epochStartOffset})`,
    );
    this.beginTimer.reset(0);
    startupMark('raft: epoch start appended');
    await this.maybeAdvanceHighWatermark();
    startupMark('raft: high watermark advanced, the log delivered to the image');
    this.fireLeaderChange();
    this.sendBeginQuorumEpoch();
    this.schedule(Math.floor(this.t.fetchTimeoutMs / 2));
  }

  private localVotersRecord(): VotersRecord {
    return {
      version: 0,
      voters: [
        {
          voterId: this.nodeId,
          voterDirectoryId: this.directoryId,
          endpoints: this.localEndpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
          kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
        },
      ],
    };
  }

  /** LeaderState.timeUntilCheckQuorumExpires: no contact with a majority for 1.5 x fetch timeout. */
  private checkQuorumExpired(): boolean {
    const voters = this.voters;
    if (voters.length <= 1) return false;
    const limit = this.now() - this.t.fetchTimeoutMs * 1.5;
    const fetched = this.lastFetchTimes();
    let alive = 1;
    for (const v of voters) {
      if (v.id === this.nodeId) continue;
      if (Math.max(this.lastAcknowledged.get(v.id) ?? -1, fetched.get(v.id) ?? -1) >= limit) alive++;
    }
    return alive < Math.floor(voters.length / 2) + 1;
  }

  /** When each voter last fetched from this leader (-1: never), from the replica progress of the epoch. */
  private lastFetchTimes(): Map<number, number> {
    const m = new Map<number, number>();
    for (const r of this.leaderFetch?.progress.describeVoters(this.now()) ?? [])
      m.set(r.replicaId, r.lastFetchTimestamp);
    return m;
  }

  /** BeginQuorumEpoch to the voters that have not fetched within fetch.timeout/2 (maybeSendBeginQuorumEpochRequests). */
  private sendBeginQuorumEpoch(): void {
    const half = Math.floor(this.t.fetchTimeoutMs / 2);
    this.beginTimer.reset(half);
    const epoch = this.sm.epoch;
    const now = this.now();
    const fetched = this.lastFetchTimes();
    for (const v of this.voters) {
      if (v.id === this.nodeId) continue;
      if (now - (fetched.get(v.id) ?? -1) < half) continue;
      const to = this.destination(v);
      if (!to) continue;
      const body: Input<BeginQuorumEpochRequest> = {
        clusterId: this.opts.clusterId,
        voterId: v.id,
        topics: [
          {
            topicName: METADATA_TOPIC_NAME,
            partitions: [
              { partitionIndex: 0, voterDirectoryId: v.directoryId, leaderId: this.nodeId, leaderEpoch: epoch },
            ],
          },
        ],
        leaderEndpoints: this.localEndpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
      };
      void this.sender.send<BeginQuorumEpochResponse>(to, 53, body).then((r) =>
        this.queue
          .run(async () => {
            if (!r.ok || r.body.errorCode !== 0 || this.closed) return;
            const p2 = r.body.topics[0]?.partitions[0];
            if (!p2) return;
            if (await this.handleCommonResponse(p2.errorCode, p2.leaderId, p2.leaderEpoch, r.body.nodeEndpoints))
              return;
            // An acknowledged BeginQuorumEpoch is a sign of life (a voter that does not fetch yet).
            if (p2.errorCode === 0 && this.sm.is('Leader') && this.sm.epoch === epoch)
              this.lastAcknowledged.set(v.id, this.now());
          })
          .catch((e) => this.logger.error('BeginQuorumEpoch response handling failed', e)),
      );
    }
  }

  // ------------------------------------------------------------------ follower fetching (A2's FollowerFetcher)

  /**
   * Fetches from `leaderId` in `epoch` until the state changes. The fetcher's callbacks never wait
   * for the client's queue, so the queue may wait for a fetcher to stop (becomeLeader).
   */
  private startFetcher(leaderId: number, epoch: number, endpoints: readonly RaftEndpoint[]): void {
    this.stopFetcher();
    const channel = this.channel;
    if (!channel || this.closed) return;
    for (const v of this.voters) {
      const d = v.id === this.nodeId ? null : this.destination(v);
      if (d) channel.setVoterEndpoint(d.id, d.host, d.port);
    }
    const ep = endpoints.find((e) => e.name === this.listenerName) ?? endpoints[0];
    const leader: LeaderHint = ep ? { leaderId, epoch, host: ep.host, port: ep.port } : { leaderId, epoch };
    const f: FollowerFetcher = new FollowerFetcher({
      channel,
      log: this.log,
      clusterId: this.opts.clusterId,
      nodeId: this.nodeId,
      directoryId: this.directoryId,
      snapshots: () => this.snapshots,
      leader,
      discovery: this.discovery(),
      fetchTimeoutMs: this.t.fetchTimeoutMs,
      retryBackoffMs: this.t.retryBackoffMs,
      now: this.now,
      logger: this.logger,
      onRecords: (n) => this.raftStats.fetchRecords.record(n),
      onFetched: () => {
        if (this.fetcher !== f || !this.sm.is('Follower') || this.sm.leaderId !== leaderId) return;
        this.sm.state.hasFetchedFromLeader = true;
        this.timer.reset(this.t.fetchTimeoutMs);
        this.schedule(this.timer.remainingMs());
        if (this.voters.some((v) => v.id === this.nodeId))
          this.updaterFor(channel).onFetched(leaderId, epoch, this.kraftVersionNow(), this.votersRecord);
      },
      onHighWatermark: (hw) => {
        if (this.fetcher !== f) return;
        this.queue
          .run(async () => {
            if (this.fetcher === f && hw > this.hw) await this.setHighWatermark(Math.min(hw, this.log.logEndOffset));
          })
          .catch((e) => this.logger.error('Follower commit failed', e));
      },
      onSnapshot: (id, bytes) => this.installSnapshot(id, bytes),
      onLeader: (hint) => {
        if (this.fetcher !== f || hint.leaderId < 0 || hint.epoch < this.sm.epoch) return;
        if (hint.epoch === this.sm.epoch && this.sm.leaderId >= 0) return;
        const eps =
          hint.host !== undefined && hint.port !== undefined
            ? [{ name: this.listenerName, host: hint.host, port: hint.port }]
            : [];
        this.queue
          .run(() => this.maybeTransition(hint.leaderId, hint.epoch, eps))
          .catch((e) => this.logger.error('Leader hint handling failed', e));
      },
    });
    this.fetcher = f;
    this.fetcherIdle = this.fetcherIdle.then(() => {
      if (this.fetcher === f && !this.closed) f.start();
    });
  }

  /**
   * Where a replica that does not know the leader fetches: controller.quorum.bootstrap.servers when
   * set (an unattached voter and an observer alike, maybeSendFetchToAnyBootstrap), else an
   * observer of a static quorum asks the voters. An unattached static voter waits for
   * BeginQuorumEpoch or an election, as before.
   */
  private discovery(): RaftTarget[] {
    if (!this.channel || this.closed) return [];
    const boot = this.channel.bootstrapServers;
    if (boot.length > 0) return boot.map((_, i) => ({ bootstrapIndex: i }));
    return this.voters.filter((v) => v.id !== this.nodeId).map((v) => ({ voterId: v.id }));
  }

  private updaterFor(channel: RaftChannel): VoterUpdater {
    this.voterUpdater ??= new VoterUpdater({
      channel,
      clusterId: this.opts.clusterId,
      local: () => ({ id: this.nodeId, directoryId: this.directoryId, endpoints: this.localEndpoints }),
      periodMs: this.t.fetchTimeoutMs,
      now: this.now,
      logger: this.logger,
    });
    return this.voterUpdater;
  }

  /** The finalized kraft.version: the latest KRaftVersionRecord of the log or a snapshot (0 without one). */
  private kraftVersionNow(): number {
    return Math.max(0, this.kraftVersionInLog);
  }

  private stopFetcher(): void {
    const f = this.fetcher;
    if (!f) return;
    this.fetcher = null;
    this.fetcherIdle = this.fetcherIdle.then(() => f.stop()).catch(() => undefined);
  }

  /** A snapshot downloaded from the leader replaces everything delivered (the fetcher then restarts the log at it). */
  private async installSnapshot(id: OffsetAndEpoch, bytes: Buffer): Promise<void> {
    await atomicWriteFile(path.join(this.dir, snapshotFileName(id)), bytes);
    this.snapshots = [...this.snapshots.filter((s) => s.offset !== id.offset || s.epoch !== id.epoch), id].sort(
      (a, b) => a.offset - b.offset || a.epoch - b.epoch,
    );
    this.snapshots = await this.cleaner.forgetBefore(this.snapshots, id);
    const loaded = await readSnapshotFile(path.join(this.dir, snapshotFileName(id)));
    if (loaded.voters) {
      this.votersRecord = loaded.voters;
      this.votersRecordOffset = id.offset - 1;
    }
    if (loaded.kraftVersion > 0) this.kraftVersionInLog = loaded.kraftVersion;
    for (const l of this.listeners) {
      l.handleLoadSnapshot?.({
        id,
        lastContainedLogTimestamp: loaded.lastContainedLogTimestamp,
        records: loaded.records,
      });
    }
    this.nextDelivery = id.offset;
    if (id.offset > this.hw) this.hw = id.offset;
    this.logger.info(`Fetched metadata snapshot ${snapshotFileName(id)} (${bytes.length} bytes)`);
  }

  /** LeaderState.maybeUpdateHighWatermark: the majority's offset, once past the epoch start. */
  private async maybeAdvanceHighWatermark(): Promise<void> {
    const lf = this.leaderFetch;
    if (!lf || !this.sm.is('Leader')) return;
    lf.onAppended();
    const candidate = lf.progress.highWatermark;
    if (candidate > this.epochStartOffset) await this.setHighWatermark(candidate);
  }

  private async setHighWatermark(hw: number): Promise<void> {
    if (hw <= this.hw) return;
    this.hw = hw;
    if (this.nextDelivery < hw) {
      const from = this.nextDelivery;
      await this.log.read(from, (buf, info) => {
        if (info.baseOffset >= hw) return false;
        if (info.lastOffset < from) return true;
        const b = decodeMetadataBatch(buf);
        for (const c of b.controls) this.trackControl(c, b.lastOffset);
        if (!b.isControl) {
          const records = info.baseOffset < from ? b.records.slice(from - info.baseOffset) : b.records;
          this.deliver({
            baseOffset: Math.max(from, b.baseOffset),
            lastOffset: b.lastOffset,
            epoch: b.epoch,
            appendTimestamp: b.appendTimestamp,
            sizeInBytes: b.sizeInBytes,
            records,
          });
        }
        return true;
      });
      this.nextDelivery = hw;
    }
    const done = this.pending.filter((p) => p.offset < hw);
    this.pending = this.pending.filter((p) => p.offset >= hw);
    const now = performance.now();
    for (const p of done) {
      this.raftStats.commitLatency.record(now - p.appendedAt);
      p.resolve(p.offset);
    }
    if (this.sm.is('Leader')) this.epochVoterChanges?.highWatermarkUpdated(hw);
  }

  /** The epoch's leader side ends: parked fetches answer at once, a pending voter change fails. */
  private stopLeading(): void {
    this.leaderFetch?.close();
    this.leaderFetch = null;
    this.epochVoterChanges?.close();
    this.epochVoterChanges = null;
  }

  /** The voter set in the log changed: the leader's majority and every node's voter endpoints follow it. */
  private onVoterSetChanged(): void {
    const voters = this.voters;
    this.logger.info(
      `Voter set changed to [${voters.map((v) => v.id).join(',')}] (VotersRecord at offset ${this.votersRecordOffset})`,
    );
    this.leaderFetch?.progress.updateVoters(voters.map((v) => ({ id: v.id, directoryId: v.directoryId })));
    for (const v of voters) {
      const d = v.id === this.nodeId ? null : this.destination(v);
      if (d) this.channel?.setVoterEndpoint(d.id, d.host, d.port);
    }
  }

  // ------------------------------------------------------------------ KIP-853 voter changes (leader)

  /**
   * AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (raft/voter-changes.ts): answered by the
   * voter changes of this node's leader epoch; when not leading, with NOT_LEADER_OR_FOLLOWER.
   */
  readonly voterChanges: VoterChangeServer = {
    addVoter: (req) => this.currentVoterChanges().addVoter(req),
    removeVoter: (req) => this.currentVoterChanges().removeVoter(req),
    updateVoter: (req) => this.currentVoterChanges().updateVoter(req),
  };

  private currentVoterChanges(): VoterChanges {
    return this.epochVoterChanges ?? new VoterChanges(this.changeLeader, this.now);
  }

  /** What VoterChanges needs from this node's leader state (made once, in the constructor). */
  private makeChangeLeader(): VoterChangeLeader {
    return {
      localKey: { id: this.nodeId, directoryId: this.directoryId },
      listenerName: this.listenerName,
      requestTimeoutMs: this.t.requestTimeoutMs,
      epoch: () => this.sm.epoch,
      isLeader: () => this.isLeader(),
      isShuttingDown: () => this.closed,
      highWatermark: () =>
        this.isLeader() && this.leaderFetch !== null && this.leaderFetch.progress.highWatermark >= 0 ? this.hw : null,
      lastKraftVersion: () => Math.max(0, this.kraftVersionInLog),
      lastVoterSetEntry: () =>
        this.votersRecord ? { offset: this.votersRecordOffset, voters: fromVotersRecord(this.votersRecord) } : null,
      volatileVoters: () => {
        if (this.kraftVersionInLog >= 1) return null;
        return (
          this.volatileVoterSet ??
          this.voters.map((v) => ({
            key: { id: v.id, directoryId: v.directoryId },
            endpoints: v.endpoints,
            kraftVersion: SUPPORTED_KRAFT_VERSIONS,
          }))
        );
      },
      setVolatileVoters: (expected, next) => {
        if (this.volatileVoterSet !== null && this.volatileVoterSet !== expected) return false;
        this.volatileVoterSet = next;
        return true;
      },
      isReplicaCaughtUp: (key, nowMs) => {
        const o = this.leaderFetch?.progress
          .describeObservers(nowMs)
          .find((r) => r.replicaId === key.id && r.replicaDirectoryId === key.directoryId);
        // LeaderState.isReplicaCaughtUp: caught up once, and fetched within the last hour
        return o !== undefined && o.lastCaughtUpTimestamp > 0 && o.lastFetchTimestamp > nowMs - 3_600_000;
      },
      appendVotersRecord: (voters) => this.appendVotersRecord(voters),
      requestResign: () => {
        this.queue
          .run(async () => {
            if (this.sm.is('Leader')) await this.resign();
          })
          .catch((e) => this.logger.error('Resignation after leaving the voter set failed', e));
      },
      leaderEndpoints: () => this.localEndpoints,
      apiVersions: (address) =>
        probeApiVersions(address, this.t.requestTimeoutMs, `raft-client-${this.nodeId}`, this.opts.security),
    };
  }

  /** KafkaRaftClient.appendVotersRecord: the new voter set as a control batch of this epoch; it takes effect at once. */
  private appendVotersRecord(voters: VotersRecord): Promise<number> {
    return this.queue.run(async () => {
      if (!this.isLeader())
        throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, 'This node is not the quorum leader.');
      const baseOffset = this.log.logEndOffset;
      const control: ControlRecord = { type: ControlRecordType.KRaftVoters, data: voters };
      await this.log.append(buildControlBatch({ baseOffset, epoch: this.sm.epoch, timestamp: this.now() }, [control]));
      this.trackControl(control, baseOffset);
      await this.maybeAdvanceHighWatermark();
      return baseOffset;
    });
  }

  private failPending(message: string): void {
    const failed = this.pending;
    this.pending = [];
    for (const p of failed) p.reject(new KafkaError(ErrorCode.NOT_CONTROLLER, message));
  }

  /** A control record at (the batch ending at) `offset`: the latest VotersRecord sets the voter set. */
  private trackControl(c: ControlRecord, offset: number): void {
    if (c.type === ControlRecordType.KRaftVoters && c.data) {
      const data = c.data as VotersRecord;
      if (offset < this.votersRecordOffset) return; // already following a later one (the leader's own append)
      const changed = JSON.stringify(this.votersRecord?.voters ?? null) !== JSON.stringify(data.voters);
      this.votersRecord = data;
      this.votersRecordOffset = offset;
      if (changed) this.onVoterSetChanged();
    } else if (c.type === ControlRecordType.KRaftVersion && c.data)
      this.kraftVersionInLog = (c.data as { kRaftVersion: number }).kRaftVersion;
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

  private fireLeaderChange(): void {
    const now = this.leaderAndEpoch;
    if (now.leaderId === this.lastFiredLeader.leaderId && now.epoch === this.lastFiredLeader.epoch) return;
    this.lastFiredLeader = now;
    for (const l of this.listeners) {
      try {
        l.handleLeaderChange?.(now);
      } catch (e) {
        this.logger.error('Raft listener failed on a leader change', e);
      }
    }
  }

  // ------------------------------------------------------------------ inbound election RPCs

  private validCluster(clusterId: string | null): boolean {
    return clusterId === null || clusterId === this.opts.clusterId;
  }

  private static validPartition(
    topics: readonly { topicName: string; partitions: readonly { partitionIndex: number }[] }[],
  ): boolean {
    return (
      topics.length === 1 &&
      topics[0]!.topicName === METADATA_TOPIC_NAME &&
      topics[0]!.partitions.length === 1 &&
      topics[0]!.partitions[0]!.partitionIndex === 0
    );
  }

  /** RaftUtil.singleton*Response: the partition error with this node's epoch, leader and its endpoints. */
  private partitionResponse(errorCode: number): {
    topics: {
      topicName: string;
      partitions: { partitionIndex: number; errorCode: number; leaderId: number; leaderEpoch: number }[];
    }[];
    nodeEndpoints: { nodeId: number; host: string; port: number }[];
  } {
    const s = this.sm.state;
    const listener = s.leaderEndpoints.find((e) => e.name === this.listenerName) ?? s.leaderEndpoints[0];
    return {
      topics: [
        {
          topicName: METADATA_TOPIC_NAME,
          partitions: [{ partitionIndex: 0, errorCode, leaderId: s.leaderId, leaderEpoch: s.epoch }],
        },
      ],
      nodeEndpoints:
        s.leaderId >= 0 && listener ? [{ nodeId: s.leaderId, host: listener.host, port: listener.port }] : [],
    };
  }

  /** isValidVoterKey: the request's voter key, when given, must name this replica. */
  private isValidVoterKey(voterId: number, voterDirectoryId: string): boolean {
    if (voterId < 0) return true;
    if (voterId !== this.nodeId) return false;
    return voterDirectoryId === ZERO_UUID || voterDirectoryId === this.directoryId;
  }

  /** KafkaRaftClient.handleVoteRequest. */
  handleVote(req: VoteRequest): Promise<VoteResponseInput> {
    return this.queue.run(async () => {
      if (!this.validCluster(req.clusterId))
        return { errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, topics: [], nodeEndpoints: [] };
      if (!RaftClient.validPartition(req.topics))
        return { errorCode: ErrorCode.INVALID_REQUEST, topics: [], nodeEndpoints: [] };
      const p = req.topics[0]!.partitions[0]!;
      const vote = (errorCode: number, voteGranted: boolean): VoteResponseInput => {
        const r = this.partitionResponse(errorCode);
        return {
          errorCode: 0,
          topics: r.topics.map((t) => ({ ...t, partitions: t.partitions.map((x) => ({ ...x, voteGranted })) })),
          nodeEndpoints: r.nodeEndpoints,
        };
      };
      const lastOffset = Number(p.lastOffset);
      const illegalEpoch = p.preVote ? p.lastOffsetEpoch > p.replicaEpoch : p.lastOffsetEpoch >= p.replicaEpoch;
      if (lastOffset < 0 || p.lastOffsetEpoch < 0 || illegalEpoch) return vote(ErrorCode.INVALID_REQUEST, false);
      if (p.replicaEpoch < this.sm.epoch) return vote(ErrorCode.FENCED_LEADER_EPOCH, false);
      if (p.replicaId < 0) return vote(ErrorCode.INVALID_REQUEST, false);
      if (p.replicaEpoch > this.sm.epoch) await this.becomeUnattached(p.replicaEpoch);
      if (!this.isValidVoterKey(req.voterId, p.voterDirectoryId)) return vote(ErrorCode.INVALID_VOTER_KEY, false);
      const candidate: ReplicaKey = { id: p.replicaId, directoryId: p.replicaDirectoryId };
      const upToDate = isLogUpToDate({ offset: lastOffset, epoch: p.lastOffsetEpoch }, this.endOffset());
      const granted = this.sm.canGrantVote(candidate, upToDate, p.preVote);
      if (granted && !p.preVote && (this.sm.is('Unattached') || this.sm.is('Prospective')) && !this.sm.state.votedKey) {
        await this.sm.addVotedState(p.replicaEpoch, candidate);
        this.timer.reset(randomElectionTimeoutMs(this.t, this.random));
        this.schedule(this.timer.remainingMs());
      }
      this.logger.info(
        `Vote request from ${p.replicaId} (epoch ${p.replicaEpoch}, preVote=${p.preVote}) is ${granted ? 'granted' : 'rejected'}`,
      );
      return vote(0, granted);
    });
  }

  /** KafkaRaftClient.handleBeginQuorumEpochRequest. */
  handleBeginQuorumEpoch(req: BeginQuorumEpochRequest): Promise<BeginResponseInput> {
    return this.queue.run(async () => {
      if (!this.validCluster(req.clusterId))
        return { errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, topics: [], nodeEndpoints: [] };
      if (!RaftClient.validPartition(req.topics))
        return { errorCode: ErrorCode.INVALID_REQUEST, topics: [], nodeEndpoints: [] };
      const p = req.topics[0]!.partitions[0]!;
      const respond = (errorCode: number): BeginResponseInput => ({
        errorCode: 0,
        ...this.partitionResponse(errorCode),
      });
      if (p.leaderEpoch < this.sm.epoch) return respond(ErrorCode.FENCED_LEADER_EPOCH);
      if (p.leaderId < 0) return respond(ErrorCode.INVALID_REQUEST);
      const endpoints =
        req.leaderEndpoints.length > 0
          ? req.leaderEndpoints.map((e) => ({ name: e.name, host: e.host, port: e.port }))
          : (this.voters.find((v) => v.id === p.leaderId)?.endpoints ?? []);
      if (p.leaderId !== this.nodeId) await this.maybeTransition(p.leaderId, p.leaderEpoch, endpoints);
      // Stopgap until A2's fetcher reports fetches: the leader's BeginQuorumEpoch is its sign of life.
      if (!this.channel && this.sm.is('Follower') && this.sm.leaderId === p.leaderId) {
        this.sm.state.hasFetchedFromLeader = true;
        this.timer.reset(this.t.fetchTimeoutMs);
        this.schedule(this.timer.remainingMs());
      }
      if (!this.isValidVoterKey(req.voterId, p.voterDirectoryId)) return respond(ErrorCode.INVALID_VOTER_KEY);
      return respond(0);
    });
  }

  /** KafkaRaftClient.handleEndQuorumEpochRequest. */
  handleEndQuorumEpoch(req: EndQuorumEpochRequest): Promise<EndResponseInput> {
    return this.queue.run(async () => {
      if (!this.validCluster(req.clusterId))
        return { errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, topics: [], nodeEndpoints: [] };
      if (!RaftClient.validPartition(req.topics))
        return { errorCode: ErrorCode.INVALID_REQUEST, topics: [], nodeEndpoints: [] };
      const p = req.topics[0]!.partitions[0]!;
      const respond = (errorCode: number): EndResponseInput => ({ errorCode: 0, ...this.partitionResponse(errorCode) });
      if (p.leaderEpoch < this.sm.epoch) return respond(ErrorCode.FENCED_LEADER_EPOCH);
      if (p.leaderId < 0) return respond(ErrorCode.INVALID_REQUEST);
      const endpoints =
        req.leaderEndpoints.length > 0
          ? req.leaderEndpoints.map((e) => ({ name: e.name, host: e.host, port: e.port }))
          : (this.voters.find((v) => v.id === p.leaderId)?.endpoints ?? []);
      if (p.leaderId !== this.nodeId) await this.maybeTransition(p.leaderId, p.leaderEpoch, endpoints);
      if (this.sm.is('Follower') && this.sm.leaderId === p.leaderId) {
        const successors =
          p.preferredCandidates.length > 0
            ? p.preferredCandidates.map((c) => c.candidateId)
            : p.preferredSuccessors.slice();
        const pos = successors.indexOf(this.nodeId);
        const backoff = strictElectionBackoffMs(this.t, pos < 0 ? successors.length : pos, successors.length);
        this.timer.reset(backoff);
        this.schedule(backoff);
      }
      return respond(0);
    });
  }

  // ------------------------------------------------------------------ append, describe, snapshots

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
    return this.queue
      .run(async () => {
        if (!this.isLeader()) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'This node is not the metadata leader.');
        const baseOffset = this.log.logEndOffset;
        const batch = buildDataBatch({ baseOffset, epoch: this.sm.epoch, timestamp: this.now() }, records);
        if (batch.length > MAX_BATCH_SIZE_BYTES) {
          throw new KafkaError(
            ErrorCode.POLICY_VIOLATION,
            `Unable to perform excessively large batch operation (${batch.length} bytes).`,
          );
        }
        await this.log.append(batch);
        this.raftStats.appendRecords.record(records.length);
        const lastOffset = baseOffset + records.length - 1;
        const committed = new Promise<number>((resolve, reject) =>
          this.pending.push({ offset: lastOffset, appendedAt: performance.now(), resolve, reject }),
        );
        await this.maybeAdvanceHighWatermark();
        return { committed };
      })
      .then((r) => r.committed);
  }

  describe(): QuorumDescription {
    const now = this.now();
    const leo = this.log.logEndOffset;
    return {
      leaderId: this.sm.leaderId,
      leaderEpoch: this.sm.epoch,
      highWatermark: this.hw,
      currentVoters:
        this.leaderFetch?.progress.describeVoters(now) ??
        this.voters.map((v) => ({
          replicaId: v.id,
          replicaDirectoryId: v.directoryId,
          logEndOffset: v.id === this.nodeId ? leo : -1,
          lastFetchTimestamp: v.id === this.nodeId ? now : -1,
          lastCaughtUpTimestamp: v.id === this.nodeId ? now : -1,
        })),
      observers: this.leaderFetch?.progress.describeObservers(now) ?? [],
      nodes: this.voters.map((v) => ({ nodeId: v.id, listeners: v.endpoints.map((e) => ({ ...e })) })),
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
        kraftVersion: this.kraftVersionInLog > 0 ? this.kraftVersionInLog : 0,
        voters: this.kraftVersionInLog > 0 ? this.votersRecord : null,
        now: this.now(),
      });
      this.snapshots.push(snapshot.id);
      this.cleaner.remember(snapshot.id, snapshot.lastContainedLogTimestamp);
      await this.cleaner.clean(
        () => this.snapshots,
        (left) => (this.snapshots = left),
      );
    });
  }

  /** Graceful shutdown: a leader resigns (EndQuorumEpoch to the others), then the log closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.queue.run(async () => {
      if (this.sm.is('Leader') && this.voters.length > 1) await this.resign();
    });
    this.closed = true;
    this.stopCleaner();
    if (this.tickHandle) clearTimeout(this.tickHandle);
    this.stopFetcher();
    this.stopLeading();
    this.failPending('The metadata quorum is shutting down.');
    // the fetcher's last request and append finish before the channel and the log close
    await this.fetcherIdle;
    await this.queue.run(async () => {
      this.sender.close();
      await this.log.close();
    });
  }

  /** Leader → Resigned: EndQuorumEpoch with the other voters ordered by fetch progress. */
  private async resign(): Promise<void> {
    const epoch = this.sm.epoch;
    await this.sm.toResigned();
    this.logger.info(`Resigned as leader in epoch ${epoch}`);
    this.failPending('This node is no longer the metadata leader.');
    // LeaderState.nonLeaderVotersByDescendingFetchOffset
    const order = this.leaderFetch?.progress.followersByDescendingEndOffset().map((k) => k.id) ?? [];
    const rank = (id: number): number => (order.includes(id) ? order.indexOf(id) : order.length);
    const others = this.voters.filter((v) => v.id !== this.nodeId).sort((a, b) => rank(a.id) - rank(b.id));
    this.stopLeading();
    const body: Input<EndQuorumEpochRequest> = {
      clusterId: this.opts.clusterId,
      topics: [
        {
          topicName: METADATA_TOPIC_NAME,
          partitions: [
            {
              partitionIndex: 0,
              leaderId: this.nodeId,
              leaderEpoch: epoch,
              preferredSuccessors: others.map((v) => v.id),
              preferredCandidates: others.map((v) => ({ candidateId: v.id, candidateDirectoryId: v.directoryId })),
            },
          ],
        },
      ],
      leaderEndpoints: this.localEndpoints.map((e) => ({ name: e.name, host: e.host, port: e.port })),
    };
    const sends = others.map((v) => {
      const to = this.destination(v);
      return to ? this.sender.send<EndQuorumEpochResponse>(to, 54, body) : Promise.resolve(null);
    });
    // Bounded: each request times out after controller.quorum.request.timeout.ms.
    if (this.closed || !this.started) return;
    await Promise.all(sends);
    this.timer.reset(this.t.electionTimeoutMs + this.t.fetchTimeoutMs);
    this.fireLeaderChange();
    this.schedule(this.timer.remainingMs());
  }
}
