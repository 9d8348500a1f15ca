// Kafka's KafkaMetrics sampled stats with the default MetricConfig (2 samples of 30 s): Avg and Max
// over the samples not older than the window, and Rate (per second) as Kafka's Rate computes its
// elapsed time. For the raft-metrics group (commit latency, append and fetch record rates).

const WINDOW_MS = 30_000;
const SAMPLES = 2;

interface Sample {
  start: number;
  count: number;
  sum: number;
  max: number;
}

export class SampledStat {
  private readonly samples: Sample[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  record(value: number): void {
    const now = this.clock();
    let s = this.samples.at(-1);
    if (!s || now - s.start >= WINDOW_MS) {
      s = { start: now, count: 0, sum: 0, max: -Infinity };
      this.samples.push(s);
      if (this.samples.length > SAMPLES) this.samples.shift();
    }
    s.count++;
    s.sum += value;
    if (value > s.max) s.max = value;
  }

  private live(now: number): Sample[] {
    return this.samples.filter((s) => now - s.start < SAMPLES * WINDOW_MS);
  }

  /** Avg: NaN without samples, as Kafka's. */
  avg(): number {
    const live = this.live(this.clock());
    const count = live.reduce((n, s) => n + s.count, 0);
    return count === 0 ? NaN : live.reduce((n, s) => n + s.sum, 0) / count;
  }

  /** Max: NaN without samples. */
  max(): number {
    const live = this.live(this.clock());
    return live.length === 0 ? NaN : Math.max(...live.map((s) => s.max));
  }

  /** Rate per second: the live samples' sum over Rate.windowSize's elapsed time. */
  rate(): number {
    const now = this.clock();
    const live = this.live(now);
    const sum = live.reduce((n, s) => n + s.sum, 0);
    let elapsed = live.length === 0 ? 0 : now - live[0]!.start;
    const fullWindows = Math.floor(elapsed / WINDOW_MS);
    if (fullWindows < SAMPLES - 1) elapsed += (SAMPLES - 1 - fullWindows) * WINDOW_MS;
    return elapsed <= 0 ? 0 : sum / (elapsed / 1000);
  }
}

/** The raft-metrics a KRaft client records (KafkaRaftMetrics). */
export class RaftStats {
  /** ms from a leader append to its commit */
  readonly commitLatency = new SampledStat();
  /** records appended as leader */
  readonly appendRecords = new SampledStat();
  /** records fetched from the leader and appended */
  readonly fetchRecords = new SampledStat();
}
