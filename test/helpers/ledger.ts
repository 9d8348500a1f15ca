// A ledger of numbered records for failover tests: the repo's idempotent acks=all producer writes
// `<topic>-<partition>-<n>` to each partition, n counting up, a small batch at a time, and records
// what was acknowledged at which offset (and what failed); at the end the repo's consumer reads the
// partitions from the beginning and the check is Kafka's no-loss contract: every acknowledged record
// is there exactly once, in the order it was sent, at the offset it was acknowledged with.
import { KafkaClient } from '../../src/client/client.js';
import { Consumer } from '../../src/client/consumer.js';
import { Producer } from '../../src/client/producer.js';
import { waitFor } from './wait-for.js';

export interface Acked {
  n: number;
  offset: bigint;
  value: string;
}

export class LedgerProducer {
  /** Per partition, the acknowledged records in the order they were sent. */
  readonly acked = new Map<number, Acked[]>();
  readonly failed: string[] = [];
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly client: KafkaClient;
  private readonly producer: Producer;

  constructor(
    bootstrap: readonly string[],
    private readonly topic: string,
    private readonly partitions: readonly number[],
    private readonly opts: { batch?: number; maxPerPartition?: number } = {},
  ) {
    this.client = new KafkaClient({ bootstrapServers: [...bootstrap] });
    this.producer = new Producer(this.client, { acks: -1, idempotence: true, lingerMs: 5 });
    for (const p of partitions) this.acked.set(p, []);
  }

  start(): void {
    for (const p of this.partitions) this.loops.push(this.loop(p));
  }

  /** True once the producer writes idempotently (it produces without sequence numbers when the cluster refuses a producer id). */
  get idempotent(): boolean {
    return this.producer.idempotent;
  }

  /** Acknowledged records of one partition so far. */
  count(partition: number): number {
    return this.acked.get(partition)!.length;
  }

  /** Waits until `partition` has `more` acknowledged records beyond what it had when called. */
  async progress(partition: number, more: number, timeoutMs = 60_000): Promise<number> {
    const from = this.count(partition);
    const started = Date.now();
    await waitFor(() => this.count(partition) >= from + more || this.failed.length > 0, {
      what: `${more} more acknowledged records in ${this.topic}-${partition} (had ${from})`,
      timeoutMs,
      intervalMs: 50,
    });
    if (this.failed.length > 0) throw new Error(`sends failed: ${this.failed.slice(0, 5).join('; ')}`);
    return Date.now() - started;
  }

  /** Stops sending, waits for what is in flight, closes the producer. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
    await this.producer.close();
    this.client.close();
  }

  private async loop(partition: number): Promise<void> {
    const batch = this.opts.batch ?? 10;
    const max = this.opts.maxPerPartition ?? 100_000;
    const acked = this.acked.get(partition)!;
    for (let n = 0; !this.stopping && n < max; n += batch) {
      const values = Array.from({ length: batch }, (_, i) => `${this.topic}-${partition}-${n + i}`);
      const results = await Promise.allSettled(
        values.map((value) => this.producer.send({ topic: this.topic, partition, value: Buffer.from(value) })),
      );
      results.forEach((r, i) => {
        if (r.status === 'fulfilled') acked.push({ n: n + i, offset: r.value.offset, value: values[i]! });
        else this.failed.push(`${values[i]}: ${(r.reason as Error).message}`);
      });
    }
  }
}

/**
 * Reads `partitions` of `topic` from the beginning with the repo's consumer (assign mode) until each
 * reached `until` (its end offset), then polls once more; the values in offset order, per partition.
 */
export async function readPartitions(
  bootstrap: readonly string[],
  topic: string,
  until: Map<number, bigint>,
  timeoutMs = 60_000,
): Promise<Map<number, { offset: bigint; value: string }[]>> {
  const client = new KafkaClient({ bootstrapServers: [...bootstrap] });
  const consumer = new Consumer(client, { groupId: null, enableAutoCommit: false });
  const out = new Map<number, { offset: bigint; value: string }[]>([...until.keys()].map((p) => [p, []]));
  try {
    const tps = [...until.keys()].map((partition) => ({ topic, partition }));
    consumer.assign(tps);
    consumer.seekToBeginning(tps);
    const take = async (ms: number): Promise<void> => {
      for (const r of await consumer.poll(ms)) out.get(r.partition)?.push({ offset: r.offset, value: String(r.value) });
    };
    const reached = (): boolean =>
      [...until].every(([p, end]) => {
        const got = out.get(p)!;
        return end <= 0n || (got.length > 0 && got[got.length - 1]!.offset >= end - 1n);
      });
    await waitFor(async () => (await take(500), reached()), {
      what: `${topic} read up to ${[...until].map(([p, e]) => `${p}:${e}`).join(', ')}`,
      timeoutMs,
      intervalMs: 1,
    });
    await take(1000);
    return out;
  } finally {
    await consumer.close();
    client.close();
  }
}

/**
 * The ledger check of one partition: the read records are exactly the acknowledged ones, each once,
 * in the order sent, at their acknowledged offsets. Returns a description of the first violation, or null.
 */
export function ledgerViolation(
  acked: readonly Acked[],
  read: readonly { offset: bigint; value: string }[],
): string | null {
  const seen = new Set<string>();
  for (const r of read) {
    if (seen.has(r.value)) return `${r.value} read twice (again at offset ${r.offset})`;
    seen.add(r.value);
  }
  const byValue = new Map(read.map((r) => [r.value, r.offset]));
  for (const a of acked) {
    const at = byValue.get(a.value);
    if (at === undefined) return `acknowledged ${a.value} (offset ${a.offset}) lost`;
    if (at !== a.offset) return `${a.value} acknowledged at offset ${a.offset}, read at ${at}`;
  }
  const numbers = read.map((r) => Number(r.value.slice(r.value.lastIndexOf('-') + 1)));
  for (let i = 1; i < numbers.length; i++)
    if (numbers[i]! <= numbers[i - 1]!) return `out of order: ${read[i - 1]!.value} then ${read[i]!.value}`;
  if (read.length !== acked.length) return `${read.length} records read, ${acked.length} acknowledged`;
  return null;
}
