// The samples behind a Kafka (Yammer) histogram, as the JMX exporter shows it: a count of every
// update and percentiles over recent ones. Yammer's reservoir keeps 1028 samples; this one keeps the
// last 1028 (a ring, one array write per update: the request path pays nothing more). Percentiles are
// computed at scrape time with Yammer's Snapshot.getValue interpolation.

const SIZE = 1028;

/** The percentile attributes the exporter reads (50thPercentile … 999thPercentile) and its labels. */
export const QUANTILES: readonly (readonly [q: number, label: string])[] = [
  [0.5, '0.50'],
  [0.75, '0.75'],
  [0.95, '0.95'],
  [0.98, '0.98'],
  [0.99, '0.99'],
  [0.999, '0.999'],
];

export class Reservoir {
  /** Updates ever (the exporter's `_count`). */
  count = 0;
  private readonly values = new Float64Array(SIZE);

  update(v: number): void {
    this.values[this.count % SIZE] = v;
    this.count++;
  }

  /** The quantiles of QUANTILES over the kept samples (zeros when empty, as Yammer's empty snapshot). */
  quantiles(): number[] {
    const n = Math.min(this.count, SIZE);
    if (n === 0) return QUANTILES.map(() => 0);
    const sorted = this.values.slice(0, n).sort();
    return QUANTILES.map(([q]) => {
      // Yammer UniformSnapshot.getValue
      const pos = q * (n + 1);
      const index = Math.floor(pos);
      if (index < 1) return sorted[0]!;
      if (index >= n) return sorted[n - 1]!;
      const lower = sorted[index - 1]!;
      const upper = sorted[index]!;
      return lower + (pos - index) * (upper - lower);
    });
  }
}
