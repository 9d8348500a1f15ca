// Turning one partition of a Fetch response into consumer records: batches are iterated (a
// partial trailing batch is left for the next fetch), decoded (decompressed), records before the
// fetch offset dropped, control batches skipped, and under read_committed the records of aborted
// transactions filtered out using the response's aborted-transaction list (Kafka's
// CompletedFetch logic). Returns the records and the next fetch offset.
import type { RecordBatch } from '../protocol/records/batch.js';

export type TimestampTypeName = 'CreateTime' | 'LogAppendTime' | 'NO_TIMESTAMP_TYPE';

export interface ConsumerHeader {
  key: string;
  value: Buffer | null;
}

export interface ConsumerRecord {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: number;
  timestampType: TimestampTypeName;
  key: Buffer | null;
  value: Buffer | null;
  headers: ConsumerHeader[];
  /** The batch's partition leader epoch, null when absent. */
  leaderEpoch: number | null;
}

export interface AbortedTxn {
  producerId: bigint;
  firstOffset: bigint;
}

export interface DecodedPartition {
  records: ConsumerRecord[];
  /** Where the next fetch starts (unchanged when nothing complete was returned). */
  nextOffset: bigint;
  /** Size of a batch that did not fit (the next fetch must allow at least this much), else 0. */
  partialSize: number;
}

export async function decodePartition(
  topic: string,
  partition: number,
  data: Buffer | null,
  fetchOffset: bigint,
  readCommitted: boolean,
  aborted: AbortedTxn[] | null,
): Promise<DecodedPartition> {
  const out: ConsumerRecord[] = [];
  let next = fetchOffset;
  if (!data || data.length === 0) return { records: out, nextOffset: next, partialSize: 0 };
  const { iterateBatches, decodeBatch } = await import('../protocol/records/batch.js');
  const pendingAborts = [...(aborted ?? [])].sort((a, b) =>
    a.firstOffset < b.firstOffset ? -1 : a.firstOffset > b.firstOffset ? 1 : 0,
  );
  const abortedProducers = new Set<bigint>();
  const it = iterateBatches(data);
  for (const entry of it) {
    if (entry.magic < 2) {
      const legacy = await decodeLegacy(data, entry.position, topic, partition, fetchOffset);
      for (const r of legacy) out.push(r);
      if (legacy.length > 0) next = legacy[legacy.length - 1]!.offset + 1n;
      else next = BigInt(entry.offset) + 1n > next ? BigInt(entry.offset) + 1n : next;
      continue;
    }
    const batch: RecordBatch = await decodeBatch(data.subarray(entry.position, entry.position + entry.sizeInBytes), 0, {
      copy: true,
    });
    const last = BigInt(batch.lastOffset);
    if (last < fetchOffset) continue;
    if (readCommitted && batch.isTransactional) {
      while (pendingAborts.length > 0 && pendingAborts[0]!.firstOffset <= last)
        abortedProducers.add(pendingAborts.shift()!.producerId);
    }
    if (batch.isControl) {
      // An ABORT marker ends the producer's aborted transaction.
      if (readCommitted && batch.records[0]?.control?.type === 0) abortedProducers.delete(batch.producerId);
      next = last + 1n;
      continue;
    }
    if (readCommitted && batch.isTransactional && abortedProducers.has(batch.producerId)) {
      next = last + 1n;
      continue;
    }
    const type: TimestampTypeName = batch.timestampType === 1 ? 'LogAppendTime' : 'CreateTime';
    for (const r of batch.records) {
      if (BigInt(r.offset) < fetchOffset) continue;
      out.push({
        topic,
        partition,
        offset: BigInt(r.offset),
        timestamp: r.timestamp,
        timestampType: type,
        key: r.key,
        value: r.value,
        headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
        leaderEpoch: batch.partitionLeaderEpoch >= 0 ? batch.partitionLeaderEpoch : null,
      });
    }
    next = last + 1n;
  }
  const partial = it.partial;
  return {
    records: out,
    nextOffset: next,
    partialSize: out.length === 0 && next === fetchOffset && partial ? Math.max(partial.required, 0) : 0,
  };
}

async function decodeLegacy(
  data: Buffer,
  pos: number,
  topic: string,
  partition: number,
  fetchOffset: bigint,
): Promise<ConsumerRecord[]> {
  const { decodeLegacyEntry } = await import('../protocol/records/legacy.js');
  const out: ConsumerRecord[] = [];
  for (const e of await decodeLegacyEntry(data, pos)) {
    const offset = BigInt(e.offset);
    if (offset < fetchOffset) continue;
    out.push({
      topic,
      partition,
      offset,
      timestamp: e.timestamp,
      timestampType:
        e.timestampType === -1 || e.timestamp < 0
          ? 'NO_TIMESTAMP_TYPE'
          : e.timestampType === 1
            ? 'LogAppendTime'
            : 'CreateTime',
      key: e.key,
      value: e.value,
      headers: [],
      leaderEpoch: null,
    });
  }
  return out;
}
