// Reading a partition whole with read_uncommitted over one RawClient: the earliest offset
// (ListOffsets -2), then Fetch v12 rounds up to the high watermark; control records are skipped,
// records of aborted transactions are kept (read_committed is judged with Kafka's own consumer,
// the chaos workload's `consume`).
import { ApiKey } from '../../src/protocol/frame.js';
import { iterateBatches } from '../../src/protocol/records/batch-iterate.js';
import { decodeBatch } from '../../src/protocol/records/batch-records.js';
import type { RawClient } from '../helpers/raw-client.js';

export interface ReadRecord {
  offset: bigint;
  key: string | null;
  value: string;
}

export interface PartitionRead {
  records: ReadRecord[];
  logStartOffset: bigint;
  /** The high watermark the read went to. */
  end: bigint;
  errorCode: number;
}

const MAX_ROUNDS = 20_000;

/** Earliest (-2) or latest (-1) offset of a partition; throws on an error code. */
export async function listOffset(
  c: RawClient,
  topic: string,
  partition: number,
  timestamp: -1n | -2n,
): Promise<bigint> {
  const r = await c.request(ApiKey.ListOffsets, 7, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 10_000,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }],
  });
  const p = r.topics[0]!.partitions[0]!;
  if (p.errorCode !== 0) throw new Error(`ListOffsets ${topic}-${partition} ${timestamp}: error ${p.errorCode}`);
  return p.offset;
}

export async function readPartition(c: RawClient, topic: string, partition: number): Promise<PartitionRead> {
  const logStartOffset = await listOffset(c, topic, partition, -2n);
  const records: ReadRecord[] = [];
  let offset = logStartOffset;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const r = await c.request(ApiKey.Fetch, 12, {
      clusterId: null,
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 8 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [
        {
          topic,
          partitions: [
            {
              partition,
              currentLeaderEpoch: -1,
              fetchOffset: offset,
              lastFetchedEpoch: -1,
              logStartOffset: -1n,
              partitionMaxBytes: 8 << 20,
            },
          ],
        },
      ],
      forgottenTopicsData: [],
      rackId: '',
    });
    const p = r.responses[0]!.partitions[0]!;
    const end = p.highWatermark;
    if (p.errorCode !== 0) return { records, logStartOffset, end, errorCode: p.errorCode };
    const bytes = (p.records as Buffer | null) ?? Buffer.alloc(0);
    let next = offset;
    for (const entry of iterateBatches(bytes)) {
      const batch = await decodeBatch(bytes, entry.position);
      next = BigInt(batch.lastOffset) + 1n > next ? BigInt(batch.lastOffset) + 1n : next;
      if (batch.isControl) continue;
      for (const rec of batch.records) {
        const o = BigInt(rec.offset);
        if (o < offset || o >= end) continue;
        records.push({ offset: o, key: rec.key?.toString() ?? null, value: rec.value?.toString() ?? '' });
      }
    }
    if (next <= offset || next >= end) return { records, logStartOffset, end, errorCode: 0 };
    offset = next;
  }
  throw new Error(`readPartition ${topic}-${partition}: more than ${MAX_ROUNDS} fetch rounds`);
}
