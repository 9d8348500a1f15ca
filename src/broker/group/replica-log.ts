// CoordinatorLog over the broker's ReplicaManager: appends go through the leader append path with
// acks=all (origin 'coordinator', so internal topics are writable), reads go to the partition log.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { buildRecordBatch, decodeBatch, iterateBatches } from '../../protocol/records/batch.js';
import type { CoordinatorLog, LoggedRecord } from './log.js';
import type { EncodedRecord } from './records.js';

/** The parts of ReplicaManager this adapter uses. */
export interface ReplicaManagerLike {
  appendRecords(
    topic: string,
    partition: number,
    records: Buffer,
    o: {
      acks: number;
      timeoutMs: number;
      origin?: 'client' | 'coordinator';
      internalTopicsAllowed?: boolean;
    },
  ): Promise<{ errorCode: number; baseOffset: number; detail?: string; errorMessage?: string | null }>;
  partition(topic: string, partition: number): { log: PartitionLogLike; closed: boolean } | undefined;
}

interface PartitionLogLike {
  readonly logEndOffset: number;
  readonly logStartOffset: number;
  read(
    fetchOffset: number,
    maxBytes: number,
    opts?: { maxOffset?: number; minOneMessage?: boolean },
  ): Promise<{ error?: string; records: Buffer }>;
}

export class ReplicaCoordinatorLog implements CoordinatorLog {
  constructor(
    private readonly replicas: ReplicaManagerLike,
    private readonly topic = '__consumer_offsets',
    private readonly commitTimeoutMs = 5000,
    private readonly loadBufferSize = 5 * 1024 * 1024,
  ) {}

  async append(partition: number, records: readonly EncodedRecord[]): Promise<number> {
    const now = Date.now();
    const batch = await buildRecordBatch({
      records: records.map((r) => ({ key: r.key, value: r.value, timestamp: now })),
    });
    const r = await this.replicas.appendRecords(this.topic, partition, batch, {
      acks: -1,
      timeoutMs: this.commitTimeoutMs,
      origin: 'coordinator',
      internalTopicsAllowed: true,
    });
    if (r.errorCode !== ErrorCode.NONE)
      throw new KafkaError(r.errorCode, r.detail ?? r.errorMessage ?? `append to ${this.topic}-${partition} failed`);
    return r.baseOffset;
  }

  async read(partition: number, fromOffset: number, onBatch: (records: LoggedRecord[]) => void): Promise<number> {
    const p = this.replicas.partition(this.topic, partition);
    if (!p) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `${this.topic}-${partition} is not led here`);
    const end = p.log.logEndOffset;
    let offset = Math.max(fromOffset, p.log.logStartOffset);
    // bounded: every round advances past at least one batch or stops
    for (let rounds = 0; offset < end && rounds < 10_000_000; rounds++) {
      if (p.closed) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, `${this.topic}-${partition} was unloaded`);
      const read = await p.log.read(offset, this.loadBufferSize, { maxOffset: end, minOneMessage: true });
      if (read.error)
        throw new KafkaError(
          ErrorCode.OFFSET_OUT_OF_RANGE,
          `reading ${this.topic}-${partition} at ${offset}: ${read.error}`,
        );
      if (read.records.length === 0) break;
      const before = offset;
      for (const entry of iterateBatches(read.records)) {
        const batch = await decodeBatch(read.records.subarray(entry.position, entry.position + entry.sizeInBytes), 0, {
          copy: true,
        });
        if (batch.lastOffset < offset) continue;
        offset = batch.lastOffset + 1;
        if (batch.isControl) continue;
        const out: LoggedRecord[] = [];
        for (const rec of batch.records) {
          if (rec.key === null || rec.offset < before) continue;
          out.push({ key: rec.key, value: rec.value, offset: rec.offset, timestamp: rec.timestamp });
        }
        if (out.length > 0) onBatch(out);
      }
      if (offset === before) break;
    }
    return offset;
  }
}
