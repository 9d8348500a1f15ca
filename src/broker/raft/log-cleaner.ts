// The metadata log's retention (KafkaRaftLog.maybeClean, run by KafkaRaftClient's
// RaftMetadataLogCleanerManager every 60 s): the log itself has no retention; a snapshot older than
// metadata.max.retention.ms, or the oldest ones while the log plus the snapshots exceed
// metadata.max.retention.bytes, are dropped together with the log before the next snapshot
// (deleteBeforeSnapshot: the log start moves to that snapshot, whole segments below it go). The
// newest snapshot always stays. The owner of the snapshot list passes it in and keeps what is returned.

import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { decodeMetadataBatch, ControlRecordType } from '../../protocol/records/metadata-batches.js';
import { compareOffsetAndEpoch, snapshotFileName } from '../../storage/snapshot-file.js';
import { readBatches } from '../../storage/segment-io.js';
import type { MetadataLog } from './metadata-log.js';
import type { OffsetAndEpoch } from './types.js';

/** metadata.max.retention.ms default (7 days). */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** metadata.max.retention.bytes default (100 MiB). */
export const DEFAULT_RETENTION_BYTES = 100 * 1024 * 1024;
/** KafkaRaftClient's snapshot cleaner period. */
export const CLEANER_INTERVAL_MS = 60_000;

export interface MetadataLogCleanerOptions {
  readonly log: MetadataLog;
  /** The partition directory (snapshot files). */
  readonly dir: string;
  /** metadata.max.retention.ms; negative: no time rule. */
  readonly retentionMs?: number;
  /** metadata.max.retention.bytes; negative: no size rule. */
  readonly retentionBytes?: number;
  readonly now: () => number;
  readonly logger: { info(msg: string): void };
}

const name = (id: OffsetAndEpoch): string => `OffsetAndEpoch[offset=${id.offset}, epoch=${id.epoch}]`;

/** The SnapshotHeaderRecord's lastContainedLogTimestamp of a snapshot file (its first batch only). */
async function readSnapshotTimestamp(file: string): Promise<number | null> {
  let ts: number | null = null;
  await readBatches(
    file,
    0,
    (_info, buf) => {
      for (const c of decodeMetadataBatch(buf, 0).controls) {
        if (c.type === ControlRecordType.SnapshotHeader && c.data) ts = Number(c.data.lastContainedLogTimestamp);
      }
      return false;
    },
    { verifyCrc: true, stopOnError: true },
  );
  return ts;
}

export class MetadataLogCleaner {
  private readonly timestamps = new Map<string, number>();

  constructor(private readonly o: MetadataLogCleanerOptions) {}

  /** Records a snapshot's lastContainedLogTimestamp when the owner writes it (saves reading the file). */
  remember(id: OffsetAndEpoch, lastContainedLogTimestamp: number): void {
    this.timestamps.set(snapshotFileName(id), lastContainedLogTimestamp);
  }

  /**
   * maybeClean over the owner's list: `get` reads it, `set` replaces it with the snapshots left
   * plus any the owner added meanwhile (a snapshot installed while the cleaner ran stays).
   */
  async clean(get: () => readonly OffsetAndEpoch[], set: (snapshots: OffsetAndEpoch[]) => void): Promise<void> {
    const before = new Set(get());
    const left = new Set(await this.maybeClean([...before]));
    set(get().filter((s) => left.has(s) || !before.has(s)));
  }

  /** KafkaRaftLog.maybeClean over `snapshots` (oldest first); returns the snapshots left. */
  async maybeClean(snapshots: readonly OffsetAndEpoch[]): Promise<OffsetAndEpoch[]> {
    let left = [...snapshots].sort(compareOffsetAndEpoch);
    left = await this.cleanRetentionSize(left);
    left = await this.cleanRetentionMs(left);
    return left;
  }

  private async cleanRetentionSize(snapshots: OffsetAndEpoch[]): Promise<OffsetAndEpoch[]> {
    const max = this.o.retentionBytes ?? DEFAULT_RETENTION_BYTES;
    if (max < 0) return snapshots;
    const sizes = new Map<string, number>();
    for (const id of snapshots) {
      const st = await fsp.stat(path.join(this.o.dir, snapshotFileName(id))).catch(() => null);
      if (st) sizes.set(snapshotFileName(id), st.size);
    }
    let total = [...sizes.values()].reduce((a, b) => a + b, 0);
    return this.cleanSnapshots(snapshots, async (id) => {
      const size = sizes.get(snapshotFileName(id));
      if (size === undefined) return null;
      const logSize = this.o.log.sizeInBytes;
      if (logSize + total <= max) return null;
      const before = total;
      total -= size;
      return `the log size (${logSize}) and snapshots size (${before}) is greater than ${max}`;
    });
  }

  private async cleanRetentionMs(snapshots: OffsetAndEpoch[]): Promise<OffsetAndEpoch[]> {
    const max = this.o.retentionMs ?? DEFAULT_RETENTION_MS;
    if (max < 0) return snapshots;
    return this.cleanSnapshots(snapshots, async (id) => {
      const ts = await this.timestampOf(id);
      if (ts === null) return null;
      const now = this.o.now();
      return now - ts > max ? `its timestamp (${ts}) is now (${now}) older than the retention (${max})` : null;
    });
  }

  private async timestampOf(id: OffsetAndEpoch): Promise<number | null> {
    const key = snapshotFileName(id);
    const known = this.timestamps.get(key);
    if (known !== undefined) return known;
    const ts = await readSnapshotTimestamp(path.join(this.o.dir, key)).catch(() => null);
    if (ts !== null) this.timestamps.set(key, ts);
    return ts;
  }

  /**
   * KafkaRaftLog.truncateToLatestSnapshot's FullTruncation: after a snapshot from the leader
   * replaced the log, the older snapshots are deleted. Returns the snapshots left.
   */
  async forgetBefore(snapshots: readonly OffsetAndEpoch[], id: OffsetAndEpoch): Promise<OffsetAndEpoch[]> {
    for (const s of snapshots) {
      if (compareOffsetAndEpoch(s, id) >= 0) continue;
      this.o.logger.info(`Marking snapshot ${name(s)} for deletion because the partition was fully truncated`);
      await fsp.rm(path.join(this.o.dir, snapshotFileName(s)), { force: true });
      this.timestamps.delete(snapshotFileName(s));
    }
    return snapshots.filter((s) => compareOffsetAndEpoch(s, id) >= 0);
  }

  /** KafkaRaftLog.cleanSnapshots: while the oldest snapshots breach the rule, delete before the next one. */
  private async cleanSnapshots(
    snapshots: OffsetAndEpoch[],
    breach: (id: OffsetAndEpoch) => Promise<string | null>,
  ): Promise<OffsetAndEpoch[]> {
    const ids = snapshots.slice();
    let left = snapshots;
    for (let i = 0; i < ids.length - 1; i++) {
      const reason = await breach(ids[i]!);
      if (reason === null) break;
      const next = await this.deleteBeforeSnapshot(left, ids[i + 1]!, reason);
      if (next === null) break;
      left = next;
    }
    return left;
  }

  /** KafkaRaftLog.deleteBeforeSnapshot: moves the log start to `id`, forgets and deletes older snapshots. */
  private async deleteBeforeSnapshot(
    snapshots: OffsetAndEpoch[],
    id: OffsetAndEpoch,
    reason: string,
  ): Promise<OffsetAndEpoch[] | null> {
    const latest = snapshots[snapshots.length - 1];
    if (!latest || !snapshots.some((s) => compareOffsetAndEpoch(s, id) === 0) || id.offset > latest.offset) return null;
    const segmentsBefore = this.o.log.segmentBaseOffsets.length;
    if (!(await this.o.log.advanceLogStartOffset(id.offset))) return null;
    const forgotten = snapshots.filter((s) => compareOffsetAndEpoch(s, id) < 0);
    for (const s of forgotten) {
      this.o.logger.info(`Marking snapshot ${name(s)} for deletion because ${reason}`);
      await fsp.rm(path.join(this.o.dir, snapshotFileName(s)), { force: true });
      this.timestamps.delete(snapshotFileName(s));
    }
    const deletedSegments = segmentsBefore - this.o.log.segmentBaseOffsets.length;
    if (deletedSegments > 0) {
      this.o.logger.info(`Deleted ${deletedSegments} metadata log segment(s); log start offset is now ${id.offset}`);
    }
    return snapshots.filter((s) => compareOffsetAndEpoch(s, id) >= 0);
  }
}

/**
 * Runs `clean` every `intervalMs` (RaftMetadataLogCleanerManager), logging a failure; returns the
 * function that stops it. 0 or less: never.
 */
export function schedulePeriodicClean(
  intervalMs: number,
  clean: () => Promise<void>,
  logger: { error(msg: string, err?: unknown): void },
): () => void {
  if (intervalMs <= 0) return () => undefined;
  let running = false;
  const handle = setInterval(() => {
    if (running) return;
    running = true;
    clean()
      .catch((e: unknown) => logger.error('Had an error during log cleaning', e))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  handle.unref();
  return () => clearInterval(handle);
}
