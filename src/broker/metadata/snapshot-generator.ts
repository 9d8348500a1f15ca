// Every node snapshots its own metadata image (Kafka's SnapshotGenerator, a publisher of the
// MetadataLoader): after metadata.log.max.record.bytes.between.snapshots bytes of committed batches,
// or at the first commit once metadata.log.max.snapshot.interval.ms has passed since the last
// snapshot (0 disables the time rule). Loading a snapshot resets both counters. It is registered on
// the quorum after the loader, so the loader's image already holds the batch it is told about;
// `emit` writes the snapshot (one at a time; a commit while one is written does not queue another).

import { snapshotFileName } from '../../storage/snapshot-file.js';
import type { CommittedBatch, OffsetAndEpoch, RaftListener, SnapshotData } from '../raft/types.js';
import { imageRecords } from './image-writer.js';
import type { MetadataLoader } from './loader.js';

/** metadata.log.max.record.bytes.between.snapshots default (20 MiB). */
export const DEFAULT_MAX_BYTES_BETWEEN_SNAPSHOTS = 20 * 1024 * 1024;
/** metadata.log.max.snapshot.interval.ms default (1 hour). */
export const DEFAULT_MAX_SNAPSHOT_INTERVAL_MS = 60 * 60 * 1000;

export interface SnapshotGeneratorOptions {
  /** metadata.log.max.record.bytes.between.snapshots */
  readonly maxBytesSinceLastSnapshot?: number;
  /** metadata.log.max.snapshot.interval.ms; 0 disables the time rule. */
  readonly maxTimeSinceLastSnapshotMs?: number;
  /** Also after this many records (tkafka's library option; Kafka has no such rule). */
  readonly maxRecordsSinceLastSnapshot?: number;
  /** Writes a snapshot of the current image; resolves with its id, or null when none was written. */
  readonly emit: () => Promise<OffsetAndEpoch | null>;
  readonly now?: () => number;
  readonly logger: { info(msg: string): void; error(msg: string, err?: unknown): void };
}

/** The snapshot of the loader's image, or null inside a metadata transaction or before any record. */
export function imageSnapshot(loader: MetadataLoader): SnapshotData | null {
  const image = loader.image;
  if (loader.transactionStartOffset >= 0 || image.offset < 0) return null;
  return {
    id: { offset: image.offset + 1, epoch: image.provenance.epoch },
    lastContainedLogTimestamp: image.provenance.lastContainedLogTimeMs,
    records: imageRecords(image),
  };
}

export class SnapshotGenerator implements RaftListener {
  private bytes = 0;
  private records = 0;
  private lastSnapshotTime: number;
  private emitting = false;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly o: SnapshotGeneratorOptions) {
    this.now = o.now ?? Date.now;
    this.lastSnapshotTime = this.now();
  }

  private reset(): void {
    this.bytes = 0;
    this.records = 0;
    this.lastSnapshotTime = this.now();
  }

  handleLoadSnapshot(): void {
    this.reset();
  }

  handleCommit(batch: CommittedBatch): void {
    this.bytes += batch.sizeInBytes;
    this.records += batch.records.length;
    const maxBytes = this.o.maxBytesSinceLastSnapshot ?? DEFAULT_MAX_BYTES_BETWEEN_SNAPSHOTS;
    const maxMs = this.o.maxTimeSinceLastSnapshotMs ?? DEFAULT_MAX_SNAPSHOT_INTERVAL_MS;
    const maxRecords = this.o.maxRecordsSinceLastSnapshot;
    if (this.bytes >= maxBytes) this.maybeEmit(`we have replayed at least ${maxBytes} bytes`);
    else if (maxRecords !== undefined && this.records >= maxRecords)
      this.maybeEmit(`we have replayed at least ${maxRecords} records`);
    else if (maxMs !== 0 && this.now() - this.lastSnapshotTime >= maxMs)
      this.maybeEmit(`we have waited at least ${maxMs} ms`);
  }

  private maybeEmit(reason: string): void {
    if (this.emitting || this.closed) return;
    this.emitting = true;
    this.reset();
    this.o
      .emit()
      .then((id) => {
        if (id)
          this.o.logger.info(
            `Created new KRaft snapshot file ${snapshotFileName(id).replace(/\.checkpoint$/, '')} because ${reason}.`,
          );
      })
      .catch((e: unknown) => this.o.logger.error('KRaft snapshot file generation error', e))
      .finally(() => {
        this.emitting = false;
      });
  }

  /** Stops emitting (SnapshotGenerator.beginShutdown). */
  close(): void {
    this.closed = true;
  }
}
