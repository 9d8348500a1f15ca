// The metadata loader (Kafka's image/loader/MetadataLoader + MetadataBatchLoader): a Raft
// listener that turns committed batches and snapshots into new MetadataImages, and publishes
// each update, in order, to registered MetadataPublishers and typed event listeners.
//
// Metadata transactions (KIP-868): records between BeginTransactionRecord and
// EndTransactionRecord are applied as one unit (they may span batches); AbortTransactionRecord
// discards them. Nothing inside an open transaction is ever visible in a published image.

import { SerialQueue } from '../log/serial-queue.js';
import type { CommittedBatch, LeaderAndEpoch, RaftListener, SnapshotData } from '../raft/types.js';
import { diffImages, ImageBuilder, MetadataReplayError } from './delta.js';
import type { MetadataEvent, MetadataEventOf, MetadataEventType, MetadataPublisher, MetadataUpdate } from './events.js';
import { MetadataImage } from './image.js';
import { describeRecord, RecordType } from '../../protocol/metadata-records.js';
import type { Logger } from '../raft/logger.js';

type Handler = (event: MetadataEvent, update: MetadataUpdate) => void;

/** Kafka's FaultHandler: told what failed (a metadata publisher or listener on a committed image). */
export type MetadataFaultHandler = (failureMessage: string, cause: unknown) => void;

/**
 * Kafka's ProcessTerminatingFaultHandler (halt): "Encountered fatal fault: <message>" at ERROR, then
 * the process ends with status 1 at once (no shutdown hooks). The image this process serves would
 * otherwise drift from the log it has committed.
 */
export function processTerminatingFaultHandler(
  logger: Logger | undefined,
  halt: (code: number) => void = (code) => process.exit(code),
): MetadataFaultHandler {
  return (failureMessage, cause) => {
    logger?.error(`Encountered fatal fault: ${failureMessage}`, cause);
    halt(1);
  };
}

export interface MetadataLoaderOptions {
  readonly clusterId: string;
  readonly logger?: Logger;
  /**
   * Kafka's MetadataLoader faultHandler: a publisher or event listener that fails on an update. The
   * default logs (Kafka's LoggingFaultHandler, a broker-only node's "metadata loading" handler);
   * a process with the controller role uses `processTerminatingFaultHandler` (fatal), as Kafka's
   * SharedServer does.
   */
  readonly faultHandler?: MetadataFaultHandler;
  /**
   * For the first image a publisher receives (Kafka's initialBrokerMetadataLoadFaultHandler, fatal
   * in Kafka); default: `faultHandler`.
   */
  readonly initialFaultHandler?: MetadataFaultHandler;
}

export class MetadataLoader implements RaftListener {
  private current: MetadataImage;
  private txn: { builder: ImageBuilder; startOffset: number } | null = null;
  private readonly publishers: MetadataPublisher[] = [];
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly queue = new SerialQueue();
  private readonly logger: Logger | undefined;
  private readonly faultHandler: MetadataFaultHandler;
  private readonly initialFaultHandler: MetadataFaultHandler;
  /** Records and bytes applied since the image the last snapshot was taken from. */
  recordsSinceSnapshot = 0;
  bytesSinceSnapshot = 0;

  constructor(opts: MetadataLoaderOptions) {
    this.current = MetadataImage.empty(opts.clusterId);
    this.logger = opts.logger;
    this.faultHandler = opts.faultHandler ?? ((msg, e) => this.logger?.error(msg, e));
    this.initialFaultHandler = opts.initialFaultHandler ?? this.faultHandler;
  }

  /** The latest published image. */
  get image(): MetadataImage {
    return this.current;
  }

  /** Offset where the open metadata transaction began, or -1. */
  get transactionStartOffset(): number {
    return this.txn ? this.txn.startOffset : -1;
  }

  handleLoadSnapshot(snapshot: SnapshotData): void {
    const previous = this.current;
    const builder = new ImageBuilder(MetadataImage.empty(previous.clusterId, previous.controllerId));
    for (const rec of snapshot.records) this.applySafely(builder, rec, -1);
    const image = builder.build({
      offset: snapshot.id.offset - 1,
      epoch: snapshot.id.epoch,
      lastContainedLogTimeMs: snapshot.lastContainedLogTimestamp,
    });
    this.txn = null;
    this.recordsSinceSnapshot = 0;
    this.bytesSinceSnapshot = 0;
    this.publish('snapshot', previous, image, diffImages(previous, image));
  }

  handleCommit(batch: CommittedBatch): void {
    this.recordsSinceSnapshot += batch.records.length;
    this.bytesSinceSnapshot += batch.sizeInBytes;
    let builder = this.txn ? this.txn.builder : new ImageBuilder(this.current);
    let pendingOffset = -1; // offset of the last record applied to a non-transactional builder
    const flush = (offset: number) => {
      const previous = this.current;
      const image = builder.build({ offset, epoch: batch.epoch, lastContainedLogTimeMs: batch.appendTimestamp });
      this.publish('commit', previous, image, diffImages(previous, image, builder.scope));
    };
    for (let i = 0; i < batch.records.length; i++) {
      const rec = batch.records[i]!;
      const offset = batch.baseOffset + i;
      if (rec.type === RecordType.BeginTransaction) {
        if (this.txn) {
          this.logger?.error(
            `BeginTransactionRecord at offset ${offset} inside the transaction started at ${this.txn.startOffset}`,
          );
          continue;
        }
        if (pendingOffset >= 0) flush(pendingOffset);
        pendingOffset = -1;
        builder = new ImageBuilder(this.current);
        this.txn = { builder, startOffset: offset };
      } else if (rec.type === RecordType.EndTransaction) {
        if (!this.txn) {
          this.logger?.error(`EndTransactionRecord at offset ${offset} without an open transaction`);
          continue;
        }
        this.txn = null;
        flush(offset);
        builder = new ImageBuilder(this.current);
      } else if (rec.type === RecordType.AbortTransaction) {
        if (this.txn) {
          this.logger?.warn(
            `Aborting the metadata transaction started at ${this.txn.startOffset} (${rec.data.reason ?? 'no reason'})`,
          );
          this.txn = null;
        }
        builder = new ImageBuilder(this.current);
        pendingOffset = offset;
      } else {
        this.applySafely(builder, rec, offset);
        if (!this.txn) pendingOffset = offset;
      }
    }
    if (!this.txn) {
      if (pendingOffset >= 0) flush(batch.lastOffset);
      else if (this.current.provenance.offset < batch.lastOffset) {
        this.current = this.current.with({
          provenance: { offset: batch.lastOffset, epoch: batch.epoch, lastContainedLogTimeMs: batch.appendTimestamp },
        });
      }
    }
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.current = this.current.with({ controllerId: leader.leaderId });
  }

  private applySafely(builder: ImageBuilder, rec: Parameters<ImageBuilder['apply']>[0], offset: number): void {
    try {
      builder.apply(rec);
    } catch (e) {
      if (!(e instanceof MetadataReplayError)) throw e;
      this.logger?.error(`Error replaying metadata record at offset ${offset}: ${describeRecord(rec)}: ${e.message}`);
    }
  }

  private publish(
    kind: MetadataUpdate['kind'],
    previous: MetadataImage,
    image: MetadataImage,
    events: MetadataEvent[],
  ): void {
    this.current = image;
    const update: MetadataUpdate = { kind, previous, image, events };
    const publishers = this.publishers.slice();
    void this.queue.run(() => this.deliver(update, publishers));
  }

  private async deliver(update: MetadataUpdate, publishers: readonly MetadataPublisher[]): Promise<void> {
    const fault = update.kind === 'initial' ? this.initialFaultHandler : this.faultHandler;
    for (const p of publishers) {
      try {
        await p.onMetadataUpdate(update);
      } catch (e) {
        // MetadataLoader.maybePublishMetadata's message
        fault(
          `Unhandled error publishing the new metadata image ending at ${update.image.offset} with publisher ${p.name}`,
          e,
        );
      }
    }
    for (const ev of update.events) {
      const set = this.handlers.get(ev.type);
      if (!set) continue;
      for (const h of [...set]) {
        try {
          h(ev, update);
        } catch (e) {
          fault(
            `Unhandled error publishing the new metadata image ending at ${update.image.offset} with listener for ${ev.type}`,
            e,
          );
        }
      }
    }
  }

  /**
   * Adds a publisher. It first receives an 'initial' update describing the current image as a
   * change from the empty image (every topic as topicCreated + partitionsCreated), then every
   * later update. Resolves once that initial update has been handled.
   */
  addPublisher(publisher: MetadataPublisher): Promise<void> {
    return this.queue.run(async () => {
      const image = this.current;
      const empty = MetadataImage.empty(image.clusterId, image.controllerId);
      this.publishers.push(publisher);
      await this.deliver({ kind: 'initial', previous: empty, image, events: diffImages(empty, image) }, [publisher]);
    });
  }

  removePublisher(publisher: MetadataPublisher): Promise<void> {
    return this.queue.run(async () => {
      const i = this.publishers.indexOf(publisher);
      if (i >= 0) {
        this.publishers.splice(i, 1);
        await publisher.close?.();
      }
    });
  }

  /** Listens to one event type (events of updates published after this call). Returns an unsubscribe function. */
  on<T extends MetadataEventType>(
    type: T,
    handler: (event: MetadataEventOf<T>, update: MetadataUpdate) => void,
  ): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    const h = handler as Handler;
    set.add(h);
    return () => set!.delete(h);
  }

  /** Resolves once every update published so far has been delivered. */
  published(): Promise<void> {
    return this.queue.idle();
  }

  markSnapshotTaken(): void {
    this.recordsSinceSnapshot = 0;
    this.bytesSinceSnapshot = 0;
  }

  async close(): Promise<void> {
    await this.queue.idle();
    for (const p of this.publishers.splice(0)) {
      try {
        await p.close?.();
      } catch (e) {
        this.logger?.error(`Metadata publisher ${p.name} failed to close`, e);
      }
    }
    this.handlers.clear();
  }
}
