// The crash driver's second load, beside the chaos workload's producers: one RawClient writing
// acks=all Produce requests, each with a batch for a compacted topic (keys cycling over KEYS, so
// the cleaner has work: value `<key>:<seq>`) and a batch for a topic whose retention deletes
// segments. It reconnects when the broker goes away (a crash point) and records, per key, the
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

export class SideLoad {
  /** key → last acknowledged sequence of the compacted topic. */
  readonly lastAcked = new Map<string, number>();
  ackedCompacted = 0;
  ackedRetained = 0;
  failures = 0;
  private seq = 0;
  private stopped = false;
  private loop: Promise<void> | null = null;
  private client: RawClient | null = null;
  /** Rejects when this.client's socket closes (then an answer never comes). */
  private closed: Promise<never> = new Promise<never>(() => undefined);

  constructor(
    private readonly port: () => number,
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
    this.client?.close();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.client) {
          this.client = await RawClient.connect(this.port());
          this.closed = closedPromise(this.client);
        }
        await this.once(this.client);
        await delay(PACE_MS);
      } catch {
        // the broker went away (a crash point) or answered an error: reconnect, paced
        this.failures++;
        this.client?.close();
        this.client = null;
        await delay(100);
      }
    }
  }

  private async once(c: RawClient): Promise<void> {
    const first = this.seq;
    this.seq += RECORDS_PER_BATCH;
    const keyed = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => {
      const s = first + i;
      const key = `k${s % KEYS}`;
      return { key, value: `${key}:${s}`, seq: s };
    });
    const retained = Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({ value: `r${first + i}` }));
    const answer = await Promise.race([
      c.request(ApiKey.Produce, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          {
            name: this.compacted,
            partitionData: [{ index: 0, records: buildRecordBatchSync({ records: keyed }) }],
          },
          { name: this.retained, partitionData: [{ index: 0, records: buildRecordBatchSync({ records: retained }) }] },
        ],
      }),
      this.closed,
    ]);
    for (const t of answer.responses) {
      const p = t.partitionResponses[0]!;
      if (p.errorCode !== 0) {
        this.failures++;
        continue;
      }
      if (t.name === this.compacted) {
        this.ackedCompacted += keyed.length;
        for (const r of keyed) this.lastAcked.set(r.key, r.seq);
      } else this.ackedRetained += retained.length;
    }
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
