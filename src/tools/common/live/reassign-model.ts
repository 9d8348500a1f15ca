// The numbers of the reassignment watch (`tkafka reassign-partitions --list --watch`), independent
// of how they are shown: for every replica being added by an ongoing reassignment, the bytes it
// holds against the bytes of the partition's existing replicas, the rate it grows at over a window
// of recent samples, and the time left at that rate.
import { logfmtFixed as fixed, logfmtValue as lf, type WatchView } from './watch-loop.js';

/** One ongoing partition reassignment, with the sizes DescribeLogDirs reports. */
export interface ReassignPartitionSample {
  readonly topic: string;
  readonly partition: number;
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
  /** Bytes of the largest existing (not adding) replica: what each new replica must copy; null if unknown. */
  readonly sourceBytes: number | null;
  /** Bytes each adding replica holds so far (null: not created yet or its broker did not answer). */
  readonly addingBytes: ReadonlyMap<number, number | null>;
}

export interface ReassignSample {
  readonly at: number;
  readonly partitions: readonly ReassignPartitionSample[];
  readonly error?: string;
}

export interface ReassignRow {
  readonly topic: string;
  readonly partition: number;
  /** The broker receiving this copy. */
  readonly broker: number;
  readonly moved: number | null;
  readonly target: number | null;
  /** Bytes per second over the rate window; null until two samples exist. */
  readonly rate: number | null;
  /** Seconds left at `rate`; null when unknown. */
  readonly etaSeconds: number | null;
}

export interface ReassignFrame {
  readonly at: number;
  readonly rows: readonly ReassignRow[];
  /** Partitions being reassigned (rows come only from those adding replicas). */
  readonly partitions: number;
  readonly moved: number;
  readonly target: number;
  readonly rate: number | null;
  readonly etaSeconds: number | null;
  readonly error?: string;
  /** True once a sample found no reassignment in progress. */
  readonly done: boolean;
}

interface Point {
  readonly at: number;
  readonly moved: number;
}

/** Keeps the recent samples of each copy and computes rates over `windowMs`. */
export class ReassignTracker {
  private readonly history = new Map<string, Point[]>();
  private last: ReassignFrame | null = null;

  constructor(private readonly windowMs: number) {}

  add(sample: ReassignSample): ReassignFrame {
    if (sample.error !== undefined) {
      const kept = this.last ?? { rows: [], partitions: 0, moved: 0, target: 0, rate: null, etaSeconds: null };
      return { ...kept, at: sample.at, error: sample.error, done: false };
    }
    const rows: ReassignRow[] = [];
    const seen = new Set<string>();
    for (const p of sample.partitions) {
      for (const broker of p.adding) {
        const key = `${p.topic}\u0000${p.partition}\u0000${broker}`;
        seen.add(key);
        const moved = p.addingBytes.get(broker) ?? null;
        const points = this.history.get(key) ?? [];
        if (moved !== null) points.push({ at: sample.at, moved });
        while (points.length > 2 && points[0]!.at < sample.at - this.windowMs) points.shift();
        this.history.set(key, points);
        const first = points[0];
        const lastPoint = points[points.length - 1];
        const dt = first && lastPoint ? (lastPoint.at - first.at) / 1000 : 0;
        const rate = first && lastPoint && dt > 0 ? Math.max(0, (lastPoint.moved - first.moved) / dt) : null;
        const target = p.sourceBytes;
        const left = target !== null && moved !== null ? Math.max(0, target - moved) : null;
        const etaSeconds = left === null ? null : left === 0 ? 0 : rate !== null && rate > 0 ? left / rate : null;
        rows.push({ topic: p.topic, partition: p.partition, broker, moved, target, rate, etaSeconds });
      }
    }
    for (const key of [...this.history.keys()]) if (!seen.has(key)) this.history.delete(key);
    rows.sort((a, b) =>
      a.topic !== b.topic ? (a.topic < b.topic ? -1 : 1) : a.partition - b.partition || a.broker - b.broker,
    );
    const moved = rows.reduce((s, r) => s + (r.moved ?? 0), 0);
    const target = rows.reduce((s, r) => s + (r.target ?? 0), 0);
    const rates = rows.map((r) => r.rate).filter((r): r is number => r !== null);
    const rate = rates.length > 0 ? rates.reduce((s, r) => s + r, 0) : null;
    // The whole move ends with its slowest copy.
    const etas = rows.map((r) => r.etaSeconds);
    const etaSeconds = etas.length > 0 && etas.every((e) => e !== null) ? Math.max(...(etas as number[])) : null;
    const frame: ReassignFrame = {
      at: sample.at,
      rows,
      partitions: sample.partitions.length,
      moved,
      target,
      rate,
      etaSeconds,
      done: sample.partitions.length === 0,
    };
    this.last = frame;
    return frame;
  }
}

/**
 * One refresh as plain logfmt lines: a line per replica being added, then the totals.
 *   time=… topic=t partition=0 broker=4 moved-bytes=1048576 target-bytes=20971520 rate=1000000.0 eta-seconds=19.9
 *   time=… partitions=1 moved-bytes=1048576 target-bytes=20971520 rate=1000000.0 eta-seconds=19.9
 */
export function plainLines(frame: ReassignFrame): string[] {
  const time = new Date(frame.at).toISOString();
  if (frame.error !== undefined) return [`time=${time} error=${lf(frame.error)}`];
  if (frame.done) return [`time=${time} partitions=0 done=true`];
  const out = frame.rows.map(
    (r) =>
      `time=${time} topic=${lf(r.topic)} partition=${r.partition} broker=${r.broker} moved-bytes=${lf(r.moved)} ` +
      `target-bytes=${lf(r.target)} rate=${fixed(r.rate)} eta-seconds=${fixed(r.etaSeconds)}`,
  );
  out.push(
    `time=${time} partitions=${frame.partitions} moved-bytes=${frame.moved} target-bytes=${frame.target} ` +
      `rate=${fixed(frame.rate)} eta-seconds=${fixed(frame.etaSeconds)}`,
  );
  return out;
}

/** The live table the watch draws frames on (reassign-view.ts; mounted only on a terminal). */
export type ReassignView = WatchView<ReassignFrame>;
