// The decompression-bomb scenario shared by test/memory-bounds.test.ts, its Apache Kafka 4.4.0
// comparison (test/interop/memory-bounds-kafka.test.ts) and bench/produce-bomb.bench.ts: topics,
// the bomb cases with the error code Kafka 4.4.0 answers for their bytes, a raw Produce of one
// batch, a correct producer that keeps producing on its own connection, and the peak RSS of a pid.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { CompressionType } from '../../src/protocol/records/layout.js';
import { KafkaClient } from '../../src/client/client.js';
import { Producer } from '../../src/client/producer.js';
import { RawClient } from './raw-client.js';
import { bigRecordBomb, trailingBomb } from './bombs.js';

const MiB = 1024 * 1024;
export const BOMB_TOPIC = 'bombs';
/** max.decompressed.message.bytes=1 MiB on this one */
export const LIMITED_TOPIC = 'bombs-limited';
export const GOOD_TOPIC = 'good';

export interface BombCase {
  name: string;
  topic: string;
  build: () => Promise<Buffer>;
  /** What Kafka 4.4.0 answers (checked against it by the interop test). */
  expected: number;
}

/**
 * Each one under message.max.bytes (1 MiB) compressed. trailing: one record then zeros the batch
 * does not declare; big: one record whose value is that many zeros.
 */
export const BOMB_CASES: readonly BombCase[] = [
  {
    name: 'zstd trailing 4 GiB',
    topic: BOMB_TOPIC,
    build: () => trailingBomb(CompressionType.Zstd, 4096 * MiB),
    expected: ErrorCode.INVALID_RECORD,
  },
  {
    name: 'gzip trailing 512 MiB',
    topic: BOMB_TOPIC,
    build: () => trailingBomb(CompressionType.Gzip, 512 * MiB),
    expected: ErrorCode.INVALID_RECORD,
  },
  {
    name: 'lz4 trailing 128 MiB',
    topic: BOMB_TOPIC,
    build: () => trailingBomb(CompressionType.Lz4, 128 * MiB),
    expected: ErrorCode.INVALID_RECORD,
  },
  {
    name: 'zstd 1 GiB record over max.decompressed.message.bytes',
    topic: LIMITED_TOPIC,
    build: () => bigRecordBomb(CompressionType.Zstd, 1024 * MiB),
    expected: ErrorCode.INVALID_RECORD,
  },
  {
    name: 'gzip 256 MiB record over max.decompressed.message.bytes',
    topic: LIMITED_TOPIC,
    build: () => bigRecordBomb(CompressionType.Gzip, 256 * MiB),
    expected: ErrorCode.INVALID_RECORD,
  },
  {
    name: 'lz4 64 MiB record over max.decompressed.message.bytes',
    topic: LIMITED_TOPIC,
    build: () => bigRecordBomb(CompressionType.Lz4, 64 * MiB),
    expected: ErrorCode.INVALID_RECORD,
  },
  {
    // Kafka streams the record through its skip iterator and stores the batch as received
    name: 'gzip 256 MiB record under the default limit',
    topic: BOMB_TOPIC,
    build: () => bigRecordBomb(CompressionType.Gzip, 256 * MiB),
    expected: ErrorCode.NONE,
  },
  {
    name: 'lz4 64 MiB record under the default limit',
    topic: BOMB_TOPIC,
    build: () => bigRecordBomb(CompressionType.Lz4, 64 * MiB),
    expected: ErrorCode.NONE,
  },
  {
    name: 'zstd 16 MiB record under the default limit',
    topic: BOMB_TOPIC,
    build: () => bigRecordBomb(CompressionType.Zstd, 16 * MiB),
    expected: ErrorCode.NONE,
  },
];

/** The bomb, limited and good topics (one partition each). */
export async function createBombTopics(port: number): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        { name: BOMB_TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        {
          name: LIMITED_TOPIC,
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: [{ name: 'max.decompressed.message.bytes', value: String(MiB) }],
        },
        { name: GOOD_TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    for (const t of r.topics) assert.equal(t.errorCode, 0, `CreateTopics ${t.name}: ${t.errorCode} ${t.errorMessage}`);
  } finally {
    c.close();
  }
}

/** Produce v9 (acks=1) of one batch to partition 0 of `topic` on `c`: the partition's error code. */
export async function produceBatch(c: RawClient, topic: string, batch: Buffer, timeoutMs = 60_000): Promise<number> {
  const r = await c.request(ApiKey.Produce, 9, {
    transactionalId: null,
    acks: 1,
    timeoutMs,
    topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
  });
  return r.responses[0]!.partitionResponses[0]!.errorCode;
}

/** Produce once through a fresh connection (retrying while the topic's leader is not known yet). */
export async function produceOnce(port: number, topic: string, batch: Buffer): Promise<number> {
  const c = await RawClient.connect(port);
  try {
    for (let i = 0; ; i++) {
      const code = await produceBatch(c, topic, batch);
      if ((code !== ErrorCode.NOT_LEADER_OR_FOLLOWER && code !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) || i >= 50)
        return code;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    c.close();
  }
}

/** A producer on its own connection sending to GOOD_TOPIC until stopped; counts acknowledged records. */
export class GoodProducer {
  acked = 0;
  failed = 0;
  slowestMs = 0;
  private stopping = false;
  private readonly done: Promise<void>;
  private readonly client: KafkaClient;

  constructor(bootstrap: string, maxRecords = 100_000) {
    this.client = new KafkaClient({ bootstrapServers: [bootstrap] });
    const producer = new Producer(this.client, { lingerMs: 0, compression: 'gzip' });
    this.done = (async () => {
      for (let i = 0; i < maxRecords && !this.stopping; i++) {
        const t = performance.now();
        try {
          await producer.send({ topic: GOOD_TOPIC, value: Buffer.from(`good-${i}`) });
          this.acked++;
        } catch {
          this.failed++;
        }
        this.slowestMs = Math.max(this.slowestMs, performance.now() - t);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.done;
    this.client.close();
  }
}

/** Peak resident set (VmHWM of /proc/<pid>/status), MiB. */
export function vmHwmMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Resident set now (VmRSS), MiB. */
export function vmRssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}
