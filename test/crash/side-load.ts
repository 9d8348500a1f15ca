// The crash driver's second load, beside the chaos workload's producers: acks=all Produce
// requests (RawClient, to each partition's leader), in turn a batch for a compacted topic (keys
// cycling over KEYS, so the cleaner has work: value `<key>:<seq>`) and a batch for a topic whose
// retention deletes segments. It reconnects when a node goes away (a crash point) and records, per key, the
// last sequence acknowledged: after a restart the compacted topic must still hold, for every key,
// that value or a later one (compaction keeps the latest value of a key, never an older one).
import { setTimeout as delay } from 'node:timers/promises';
import { ApiKey } from '../../src/protocol/frame.js';
import { buildRecordBatchSync } from '../../src/protocol/records/batch-build.js';
import { RawClient } from '../helpers/raw-client.js';

export const KEYS = 24;
const RECORDS_PER_BATCH = 12;
/** Pause between two requests: a steady, light load (the CI machine has 2 cores). */
const PACE_MS = 15;

interface Conn {
  client: RawClient;
  /** Rejects when the socket closes (then an answer never comes). */
  closed: Promise<never>;
}

export class SideLoad {
  /** key → last acknowledged sequence of the compacted topic. */
  readonly lastAcked = new Map<string, number>();
  ackedCompacted = 0;
  ackedRetained = 0;
  failures = 0;
  private seq = 0;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private readonly conns = new Map<number, Conn>();

  /** `leaderPort`: where partition 0 of a topic is led now (null: no leader). */
  constructor(
    private readonly leaderPort: (topic: string) => Promise<number | null>,
    private readonly compacted: string,
    private readonly retained: string,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** A copy of the acknowledged state now (what must survive the next crash). */
  snapshot(): Map<string, number> {
    return new Map(this.lastAcked);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.dropConnections();
    await this.loop;
  }

  private dropConnections(): void {
    for (const c of this.conns.values()) c.client.close();
    this.conns.clear();
  }

  private async connFor(topic: string): Promise<Conn> {
    const port = await this.leaderPort(topic);
    if (port === null) throw new Error(`${topic} has no leader`);
    let c = this.conns.get(port);
    if (!c) {
      const client = await RawClient.connect(port);
      c = { client, closed: closedPromise(client) };
      this.conns.set(port, c);
    }
    return c;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.once();
        await delay(PACE_MS);
      } catch {
        // a node went away (a crash point), leadership moved, or an error answer: look the
        // leaders up again, paced
        this.failures++;
        this.dropConnections();
        await delay(100);
      }
    }
  }

  private async produce(topic: string, records: { key?: string; value: string }[]): Promise<void> {
    const c = await this.connFor(topic);
    const answer = await Promise.race([
      c.client.request(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [{ name: topic, partitionData: [{ index: 0, records: buildRecordBatchSync({ records }) }] }],
      }),
      c.closed,
    ]);
    const code = answer.responses[0]!.partitionResponses[0]!.errorCode;
    if (code !== 0) throw new Error(`produce to ${topic}: error ${code}`);
  }

  private async once(): Promise<void> {
    const first = this.seq;
    this.seq += RECORDS_PER_BATCH;
    const keyed = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => {
      const s = first + i;
      const key = `k${s % KEYS}`;
      return { key, value: `${key}:${s}`, seq: s };
    });
    await this.produce(
      this.compacted,
      keyed.map(({ key, value }) => ({ key, value })),
    );
    this.ackedCompacted += keyed.length;
    for (const r of keyed) this.lastAcked.set(r.key, r.seq);
    await this.produce(
      this.retained,
      Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ value: `r${first + i}` })),
    );
    this.ackedRetained += RECORDS_PER_BATCH;
  }
}

function closedPromise(c: RawClient): Promise<never> {
  const p = new Promise<never>((_, reject) => {
    if (c.closed) reject(new Error('connection closed'));
    c.socket.once('close', () => reject(new Error('connection closed')));
  });
  p.catch(() => undefined); // observed by the race of each request; never unhandled
  return p;
}
