// The leader side of raft Fetch and FetchSnapshot (KafkaRaftClient.handleFetchRequest,
// tryCompleteFetchRequest, handleFetchSnapshotRequest; RaftLog.validateOffsetAndEpoch).
//
// `serveFetch` / `serveFetchSnapshot` take the replica's current state (a RaftStateView) and, when
// it leads, the LeaderFetch of its epoch:
// - requests must be well formed (maxWaitMs >= 0, fetchOffset >= 0, 0 <= lastFetchedEpoch <=
//   currentLeaderEpoch): INVALID_REQUEST otherwise;
// - the epoch is checked as validateLeaderOnlyRequest does: FENCED_LEADER_EPOCH (older),
//   UNKNOWN_LEADER_EPOCH (newer), NOT_LEADER_OR_FOLLOWER, BROKER_NOT_AVAILABLE (shutting down),
//   always with CurrentLeader;
// - fetchOffset 0 with a snapshot (other than the bootstrap 0-0) answers SnapshotId; an offset below
//   the log start, or at it with another epoch than the earliest snapshot's, answers the latest
//   SnapshotId; a (fetchOffset, lastFetchedEpoch) not on the leader's log answers DivergingEpoch
//   (the largest epoch <= lastFetchedEpoch and where it ends, LeaderEpochFileCache.endOffsetFor);
//   otherwise whole batches from the one holding fetchOffset, at least one, up to maxBytes;
// - a valid fetch updates the replica's progress (ReplicaProgress; a voter's can move the high
//   watermark); an empty answer waits up to maxWaitMs for an append past fetchOffset or a high
//   watermark change (the fetch purgatory), and is then recomputed.
// One LeaderFetch lives for one leader epoch; close() releases its parked fetches (they answer at once).

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import { snapshotFileName } from '../../storage/snapshot-file.js';
import type { MetadataLog } from './metadata-log.js';
import type { ReplicaProgress } from './replica-progress.js';
import type {
  OffsetAndEpoch,
  RaftEndpoint,
  RaftFetchRequest,
  RaftFetchResult,
  RaftFetchSnapshotRequest,
  RaftFetchSnapshotResult,
} from './types.js';

/** What the Fetch path needs to know about the replica's election state. */
export interface RaftStateView {
  epoch(): number;
  /** -1 when unknown. */
  leaderId(): number;
  isLeader(): boolean;
  shuttingDown(): boolean;
  /** The leader's controller endpoints, when known. */
  leaderEndpoints(): readonly RaftEndpoint[];
}

export interface LeaderFetchOptions {
  readonly log: MetadataLog;
  /** The partition directory (snapshot files). */
  readonly dir: string;
  /** Complete snapshots, oldest first. */
  readonly snapshots: () => readonly OffsetAndEpoch[];
  readonly progress: ReplicaProgress;
  /** Called when a follower's fetch moved the high watermark (the owner commits and delivers). */
  readonly onHighWatermark?: (hw: number) => void;
  readonly now?: () => number;
  readonly logger?: { warn(msg: string): void };
}

/** Kafka's Snapshots.BOOTSTRAP_SNAPSHOT_ID. */
const BOOTSTRAP_SNAPSHOT_ID: OffsetAndEpoch = { offset: 0, epoch: 0 };
const isBootstrap = (id: OffsetAndEpoch): boolean =>
  id.offset === BOOTSTRAP_SNAPSHOT_ID.offset && id.epoch === BOOTSTRAP_SNAPSHOT_ID.epoch;

type Validity =
  { kind: 'valid' } | { kind: 'diverging'; at: OffsetAndEpoch } | { kind: 'snapshot'; at: OffsetAndEpoch };

interface Waiter {
  readonly threshold: number;
  readonly wake: () => void;
}

export class LeaderFetch {
  private waiters = new Set<Waiter>();
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly opts: LeaderFetchOptions) {
    this.now = opts.now ?? Date.now;
  }

  get progress(): ReplicaProgress {
    return this.opts.progress;
  }

  /** The leader appended: its end offset moved; parked fetches below it complete. Returns whether the HW moved. */
  onAppended(): boolean {
    const moved = this.opts.progress.updateLocal(this.opts.log.logEndOffset);
    if (moved) this.wakeAll();
    else this.wake(this.opts.log.logEndOffset);
    return moved;
  }

  /** Releases parked fetches (they are answered with the state at that moment). */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  /** Kafka's RaftLog.validateOffsetAndEpoch with KafkaRaftLog.endOffsetForEpoch. */
  validateOffsetAndEpoch(offset: number, epoch: number): Validity {
    const log = this.opts.log;
    const start = log.logStartOffset;
    if (start === 0 && offset === 0) return { kind: 'valid' };
    const snaps = this.opts.snapshots();
    const earliest = snaps[0];
    if (!earliest || (offset >= start && (offset !== start || epoch === earliest.epoch) && epoch >= earliest.epoch)) {
      const end = this.endOffsetForEpoch(epoch);
      return end.epoch === epoch && end.offset >= offset ? { kind: 'valid' } : { kind: 'diverging', at: end };
    }
    const latest = snaps[snaps.length - 1];
    if (!latest) throw new Error(`log start offset ${start} is greater than zero but there is no snapshot`);
    return { kind: 'snapshot', at: latest };
  }

  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    return endOffsetForEpoch(this.opts.log, this.opts.snapshots(), epoch);
  }

  /** tryCompleteFetchRequest after the leader checks: records, divergence or snapshot id, and progress. */
  async tryComplete(req: RaftFetchRequest, view: RaftStateView): Promise<RaftFetchResult> {
    const snaps = this.opts.snapshots();
    const latest = snaps[snaps.length - 1];
    const validity: Validity =
      req.fetchOffset === 0 && latest && !isBootstrap(latest)
        ? { kind: 'snapshot', at: latest }
        : this.validateOffsetAndEpoch(req.fetchOffset, req.lastFetchedEpoch);
    let records: Buffer[] = [];
    if (validity.kind === 'valid') {
      records = await this.read(req.fetchOffset, req.maxBytes);
      const key = { id: req.replicaId, directoryId: req.replicaDirectoryId || ZERO_UUID };
      if (req.replicaId >= 0 && req.replicaId !== view.leaderId()) {
        if (this.opts.progress.updateReplica(key, req.fetchOffset, this.now())) {
          this.wakeAll();
          this.opts.onHighWatermark?.(this.opts.progress.highWatermark);
        }
      }
    }
    return {
      errorCode: ErrorCode.NONE,
      leaderId: view.leaderId(),
      leaderEpoch: view.epoch(),
      highWatermark: this.opts.progress.highWatermark,
      logStartOffset: this.opts.log.logStartOffset,
      records,
      divergingEpoch: validity.kind === 'diverging' ? validity.at : null,
      snapshotId: validity.kind === 'snapshot' ? validity.at : null,
      leaderEndpoints: view.leaderEndpoints(),
    };
  }

  /** Whole batches from the one holding `from`, at least one, up to maxBytes (UnifiedLog.read, minOneMessage). */
  private async read(from: number, maxBytes: number): Promise<Buffer[]> {
    const out: Buffer[] = [];
    let total = 0;
    if (from >= this.opts.log.logEndOffset) return out;
    await this.opts.log.read(from, (buf) => {
      if (out.length > 0 && total + buf.length > maxBytes) return false;
      out.push(Buffer.from(buf));
      total += buf.length;
      return total < maxBytes;
    });
    return out;
  }

  /** Resolves when the log end passes `fetchOffset`, the HW moves, the epoch ends, or after `maxWaitMs`. */
  awaitData(fetchOffset: number, maxWaitMs: number): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const w: Waiter = {
        threshold: fetchOffset,
        wake: () => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve();
        },
      };
      const timer = setTimeout(w.wake, maxWaitMs);
      this.waiters.add(w);
    });
  }

  private wake(endOffset: number): void {
    for (const w of [...this.waiters]) if (w.threshold < endOffset) w.wake();
  }

  private wakeAll(): void {
    for (const w of [...this.waiters]) w.wake();
  }

  /** handleFetchSnapshotRequest after the leader checks. */
  async readSnapshot(req: RaftFetchSnapshotRequest, view: RaftStateView): Promise<RaftFetchSnapshotResult> {
    const base = {
      leaderId: view.leaderId(),
      leaderEpoch: view.epoch(),
      leaderEndpoints: view.leaderEndpoints(),
      snapshotId: null,
      size: 0,
      position: 0,
      bytes: null,
    };
    const id = req.snapshotId;
    const known = this.opts.snapshots().some((s) => s.offset === id.offset && s.epoch === id.epoch);
    if (!known || isBootstrap(id)) return { ...base, errorCode: ErrorCode.SNAPSHOT_NOT_FOUND };
    let fh: fsp.FileHandle;
    try {
      fh = await fsp.open(path.join(this.opts.dir, snapshotFileName(id)), 'r');
    } catch {
      return { ...base, errorCode: ErrorCode.SNAPSHOT_NOT_FOUND }; // deleted by retention meanwhile
    }
    try {
      const size = (await fh.stat()).size;
      if (req.position < 0 || req.position >= size) return { ...base, errorCode: ErrorCode.POSITION_OUT_OF_RANGE };
      const len = Math.min(Math.max(0, req.maxBytes), size, size - req.position);
      const bytes = Buffer.alloc(len);
      let done = 0;
      while (done < len) {
        const { bytesRead } = await fh.read(bytes, done, len - done, req.position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return {
        ...base,
        errorCode: ErrorCode.NONE,
        snapshotId: id,
        size,
        position: req.position,
        bytes: bytes.subarray(0, done),
      };
    } finally {
      await fh.close();
    }
  }
}

/** KafkaRaftLog.endOffsetForEpoch over LeaderEpochFileCache.endOffsetFor (snapshots oldest first). */
export function endOffsetForEpoch(
  log: MetadataLog,
  snapshots: readonly OffsetAndEpoch[],
  epoch: number,
): OffsetAndEpoch {
  const entries = log.epochEntries;
  const leo = log.logEndOffset;
  let found: OffsetAndEpoch | null = null;
  const latest = entries[entries.length - 1];
  if (epoch === -1) found = null;
  else if (latest && latest.epoch === epoch) found = { epoch, offset: leo };
  else {
    const higher = entries.find((e) => e.epoch > epoch);
    if (higher) {
      let floor: number | null = null;
      for (const e of entries) if (e.epoch <= epoch) floor = e.epoch;
      found = { epoch: floor ?? epoch, offset: higher.startOffset };
    }
  }
  if (found) {
    const earliest = snapshots[0];
    if (earliest && found.offset === earliest.offset && found.epoch === epoch) return earliest;
    return found;
  }
  return { offset: leo, epoch: lastFetchedEpoch(log, snapshots) };
}

/** KafkaRaftLog.lastFetchedEpoch: the log's last epoch, or the latest snapshot's when the log has none. */
export function lastFetchedEpoch(log: MetadataLog, snapshots: readonly OffsetAndEpoch[]): number {
  const entries = log.epochEntries;
  if (entries.length > 0) return entries[entries.length - 1]!.epoch;
  const latest = snapshots[snapshots.length - 1];
  return latest ? latest.epoch : 0;
}

/** KafkaRaftClient.validateLeaderOnlyRequest: an error code, or NONE. */
export function validateLeaderOnlyRequest(view: RaftStateView, requestEpoch: number): number {
  if (requestEpoch < view.epoch()) return ErrorCode.FENCED_LEADER_EPOCH;
  if (requestEpoch > view.epoch()) return ErrorCode.UNKNOWN_LEADER_EPOCH;
  if (!view.isLeader()) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  if (view.shuttingDown()) return ErrorCode.BROKER_NOT_AVAILABLE;
  return ErrorCode.NONE;
}

/** An answer without records (buildEmptyFetchResponse). */
export function emptyFetchResult(
  view: RaftStateView,
  errorCode: number,
  logStartOffset: number,
  highWatermark = -1,
): RaftFetchResult {
  return {
    errorCode,
    leaderId: view.leaderId(),
    leaderEpoch: view.epoch(),
    highWatermark,
    logStartOffset,
    records: [],
    divergingEpoch: null,
    snapshotId: null,
    leaderEndpoints: view.leaderEndpoints(),
  };
}

/** KafkaRaftClient.handleFetchRequest (after the cluster id and topic-partition checks of the handler). */
export async function serveFetch(
  view: RaftStateView,
  leader: () => LeaderFetch | null,
  logStartOffset: () => number,
  req: RaftFetchRequest,
): Promise<RaftFetchResult> {
  if (
    req.maxWaitMs < 0 ||
    req.fetchOffset < 0 ||
    req.lastFetchedEpoch < 0 ||
    req.lastFetchedEpoch > req.currentLeaderEpoch
  ) {
    return emptyFetchResult(view, ErrorCode.INVALID_REQUEST, logStartOffset());
  }
  const attempt = async (): Promise<{ result: RaftFetchResult; lf: LeaderFetch | null }> => {
    const error = validateLeaderOnlyRequest(view, req.currentLeaderEpoch);
    const lf = leader();
    if (error !== ErrorCode.NONE || !lf) {
      const code = error !== ErrorCode.NONE ? error : ErrorCode.NOT_LEADER_OR_FOLLOWER;
      return { result: emptyFetchResult(view, code, logStartOffset()), lf: null };
    }
    try {
      return { result: await lf.tryComplete(req, view), lf };
    } catch {
      return { result: emptyFetchResult(view, ErrorCode.UNKNOWN_SERVER_ERROR, logStartOffset()), lf: null };
    }
  };
  const first = await attempt();
  const r = first.result;
  const park =
    first.lf !== null &&
    r.errorCode === ErrorCode.NONE &&
    r.records.length === 0 &&
    req.maxWaitMs !== 0 &&
    r.divergingEpoch === null &&
    r.snapshotId === null &&
    !(req.highWatermark < r.highWatermark);
  if (!park) return r;
  await first.lf!.awaitData(req.fetchOffset, req.maxWaitMs);
  return (await attempt()).result;
}

/** KafkaRaftClient.handleFetchSnapshotRequest (after the cluster id and shape checks of the handler). */
export async function serveFetchSnapshot(
  view: RaftStateView,
  leader: () => LeaderFetch | null,
  req: RaftFetchSnapshotRequest,
): Promise<RaftFetchSnapshotResult> {
  const error = validateLeaderOnlyRequest(view, req.currentLeaderEpoch);
  const lf = leader();
  if (error !== ErrorCode.NONE || !lf) {
    return {
      errorCode: error !== ErrorCode.NONE ? error : ErrorCode.NOT_LEADER_OR_FOLLOWER,
      leaderId: view.leaderId(),
      leaderEpoch: view.epoch(),
      snapshotId: null,
      size: 0,
      position: 0,
      bytes: null,
      leaderEndpoints: view.leaderEndpoints(),
    };
  }
  return lf.readSnapshot(req, view);
}
