// The comparison behind `tkafka replica-verification`: Kafka 4.4's ReplicaVerificationTool.ReplicaBuffer.
// Each round every replica's fetch of a partition is added (addFetchedData); verifyCheckSum then walks
// the batches of all replicas in step: below every replica's high watermark, the batch of each replica
// must end at the same offset (else the tool prints the mismatch and exits 1) and should carry the same
// checksum (else a line is printed and it goes on); when every replica has the batch, the partition's
// fetch offset moves past it. The largest lag (high watermark - fetch offset) is reported once per
// report interval. Iteration orders are Java's HashMap orders (TopicPartition and Integer keys), so the
// partition named in a tie and the replica compared against are the ones Kafka names.
import * as L from '../../protocol/records/layout.js';
import { iterateBatches } from '../../protocol/records/batch.js';
import { hashSetOrder, intSetOrder, tpHash, tpKey, type TopicPartition } from '../reassign-partitions/json.js';

/** What one replica answered for one partition (FetchResponseData.PartitionData, the fields used). */
export interface FetchedPartition {
  highWatermark: number;
  records: Uint8Array | null;
}

/** A batch as RecordBatch exposes it to the tool: lastOffset, nextOffset, checksum. */
export interface BatchInfo {
  lastOffset: number;
  nextOffset: number;
  checksum: number;
}

/** The batches of a fetch response's records (v2 batches and legacy entries); a partial trailing batch is left out. */
export function batchInfos(records: Uint8Array | null): BatchInfo[] {
  if (records === null || records.length === 0) return [];
  const out: BatchInfo[] = [];
  const dv = new DataView(records.buffer, records.byteOffset, records.byteLength);
  for (const b of iterateBatches(records)) {
    if (b.magic === 2) {
      const last = b.offset + dv.getInt32(b.position + L.LAST_OFFSET_DELTA);
      out.push({ lastOffset: last, nextOffset: last + 1, checksum: dv.getUint32(b.position + L.CRC) });
    } else {
      // AbstractLegacyRecordBatch: the entry's offset is its last offset; the checksum is its CRC-32 field
      out.push({ lastOffset: b.offset, nextOffset: b.offset + 1, checksum: dv.getUint32(b.position + L.LEGACY_CRC) });
    }
  }
  return out;
}

/** SimpleDateFormat("yyyy-MM-dd HH:mm:ss,SSS") in the local time zone. */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return (
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`
  );
}

/** Thrown by verifyCheckSum where Kafka calls Exit.exit(1) (replicas disagree on a batch's offset). */
export class ReplicaOffsetMismatch extends Error {
  override name = 'ReplicaOffsetMismatch';
}

interface MessageInfo {
  replicaId: number;
  offset: number;
  nextOffset: number;
  checksum: number;
}

export class ReplicaBuffer {
  private readonly fetchOffsets = new Map<string, number>();
  /** recordsCache: its keys in Java's HashMap order; the fetched data per replica. */
  private readonly partitions: TopicPartition[];
  private readonly cache = new Map<string, Map<number, FetchedPartition>>();
  private lastReportTime: number;
  private maxLag = -1;
  private offsetWithMaxLag = -1;
  private maxLagPartition: TopicPartition | null = null;

  constructor(
    partitions: readonly TopicPartition[],
    initialOffsets: ReadonlyMap<string, number>,
    private readonly reportIntervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastReportTime = now();
    this.partitions = hashSetOrder(partitions, tpHash, tpKey);
    for (const tp of this.partitions) this.cache.set(tpKey(tp), new Map());
    for (const [k, o] of initialOffsets) this.fetchOffsets.set(k, o);
  }

  addFetchedData(tp: TopicPartition, replicaId: number, data: FetchedPartition): void {
    this.cache.get(tpKey(tp))?.set(replicaId, data);
  }

  getOffset(tp: TopicPartition): number {
    return this.fetchOffsets.get(tpKey(tp)) ?? 0;
  }

  /**
   * Compares what the replicas returned and prints (through `println`) checksum mismatches and, once
   * per report interval, the max lag line. Throws ReplicaOffsetMismatch after printing an offset mismatch.
   */
  verifyCheckSum(println: (line: string) => void): void {
    this.maxLag = -1;
    for (const tp of this.partitions) {
      const key = tpKey(tp);
      const perReplica = this.cache.get(key)!;
      const replicaIds = intSetOrder([...perReplica.keys()]);
      const iterators = new Map<number, Iterator<BatchInfo>>();
      for (const id of replicaIds) iterators.set(id, batchInfos(perReplica.get(id)!.records)[Symbol.iterator]());
      let maxHw = -1;
      for (const d of perReplica.values()) maxHw = Math.max(maxHw, d.highWatermark);
      // (Kafka always has every replica's answer here; without any, there is nothing to walk)
      let inAll = replicaIds.length > 0;
      while (inAll) {
        let first: MessageInfo | null = null;
        for (const replicaId of replicaIds) {
          const next = iterators.get(replicaId)!.next();
          if (next.done) {
            inAll = false;
            continue;
          }
          const batch = next.value;
          if (batch.lastOffset >= perReplica.get(replicaId)!.highWatermark) inAll = false;
          else if (first === null)
            first = { replicaId, offset: batch.lastOffset, nextOffset: batch.nextOffset, checksum: batch.checksum };
          else {
            if (first.offset !== batch.lastOffset) {
              println(
                `${formatDate(this.now())}: partition ${key}: replica ${first.replicaId}'s offset ${first.offset} ` +
                  `doesn't match replica ${replicaId}'s offset ${batch.lastOffset}`,
              );
              throw new ReplicaOffsetMismatch(`partition ${key}: replicas disagree at offset ${first.offset}`);
            }
            if (first.checksum !== batch.checksum)
              println(
                `${formatDate(this.now())}: partition ${key} has unmatched checksum at offset ${batch.lastOffset}; ` +
                  `replica ${first.replicaId}'s checksum ${first.checksum}; replica ${replicaId}'s checksum ${batch.checksum}`,
              );
          }
        }
        if (inAll) this.fetchOffsets.set(key, first === null ? -1 : first.nextOffset);
      }
      const offset = this.getOffset(tp);
      if (maxHw - offset > this.maxLag) {
        this.offsetWithMaxLag = offset;
        this.maxLag = maxHw - offset;
        this.maxLagPartition = tp;
      }
      perReplica.clear();
    }
    const now = this.now();
    if (now - this.lastReportTime > this.reportIntervalMs) {
      const p = this.maxLagPartition === null ? 'null' : tpKey(this.maxLagPartition);
      println(
        `${formatDate(now)}: max lag is ${this.maxLag} for partition ${p} at offset ${this.offsetWithMaxLag} ` +
          `among ${this.cache.size} partitions`,
      );
      this.lastReportTime = now;
    }
  }
}
