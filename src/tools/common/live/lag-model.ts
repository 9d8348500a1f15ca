// The numbers of the consumer-group lag watch, independent of how they are shown: per partition
// lag and its rate, per group total lag, its rate (negative: the group is catching up), and the
// consume and produce rates, from successive samples of the group's offsets.
import { logfmtFixed as fixed, logfmtValue as lf, type WatchView } from './watch-loop.js';

export interface LagRow {
  readonly topic: string | null;
  readonly partition: number | null;
  readonly currentOffset: bigint | null;
  readonly logEndOffset: bigint | null;
  readonly lag: bigint | null;
  readonly consumerId?: string | null;
  readonly host?: string | null;
  readonly clientId?: string | null;
}

/** One group as the describe view models it (consumer-groups' GroupView has this shape). */
export interface LagGroup {
  readonly group: string;
  readonly state: string;
  readonly offsets: readonly LagRow[];
}

export interface LagSample {
  /** When the sample was taken (ms since the epoch). */
  readonly at: number;
  readonly groups: readonly LagGroup[];
  /** Why the sample failed, when it did (the last good numbers are kept on screen). */
  readonly error?: string;
}

export interface RowView extends LagRow {
  /** Change of this partition's lag per second over the rate window; null until known. */
  readonly lagRate: number | null;
}

export interface GroupFrame {
  readonly group: string;
  readonly state: string;
  readonly rows: readonly RowView[];
  /** Sum of the known partition lags. */
  readonly totalLag: bigint;
  readonly lagRate: number | null;
  /** Committed-offset progress per second (records consumed). */
  readonly consumeRate: number | null;
  /** Log-end-offset growth per second (records produced). */
  readonly produceRate: number | null;
  /** Total lag of the recent samples, oldest first (for a sparkline). */
  readonly history: readonly number[];
}

export interface LagFrame {
  readonly at: number;
  readonly groups: readonly GroupFrame[];
  readonly error?: string;
  /** Samples taken so far. */
  readonly refreshes: number;
}

const rowKey = (g: string, r: LagRow): string => `${g}\u0000${r.topic}\u0000${r.partition}`;

function sum(rows: readonly LagRow[], f: (r: LagRow) => bigint | null): bigint | null {
  let total = 0n;
  let any = false;
  for (const r of rows) {
    const v = f(r);
    if (v !== null && v >= 0n) {
      total += v;
      any = true;
    }
  }
  return any ? total : null;
}

/**
 * Keeps recent samples and turns each new one into a frame. Rates are measured over the window
 * (default 10 s, at least the previous sample), so one slow refresh does not make them jump.
 */
export class LagTracker {
  private readonly samples: LagSample[] = [];
  private refreshes = 0;

  constructor(
    private readonly windowMs = 10_000,
    private readonly historyLength = 40,
  ) {}

  add(sample: LagSample): LagFrame {
    this.refreshes++;
    if (sample.error !== undefined) {
      const last = this.samples[this.samples.length - 1];
      const base = last ? this.frameFor(last) : { at: sample.at, groups: [], refreshes: this.refreshes };
      return { ...base, at: sample.at, error: sample.error, refreshes: this.refreshes };
    }
    this.samples.push(sample);
    const keep = this.samples.length - Math.max(this.historyLength, 2);
    if (keep > 0) this.samples.splice(0, keep);
    return this.frameFor(sample);
  }

  /** The oldest earlier sample inside the rate window, else the previous one. */
  private baseline(now: LagSample): LagSample | null {
    const older = this.samples.filter((s) => s !== now && s.at < now.at);
    if (!older.length) return null;
    const inWindow = older.filter((s) => now.at - s.at <= this.windowMs);
    return inWindow.length ? inWindow[0]! : older[older.length - 1]!;
  }

  private frameFor(cur: LagSample): LagFrame {
    const base = this.baseline(cur);
    const dt = base ? (cur.at - base.at) / 1000 : 0;
    const before = new Map<string, LagRow>();
    const beforeGroups = new Map<string, LagGroup>();
    if (base) {
      for (const g of base.groups) {
        beforeGroups.set(g.group, g);
        for (const r of g.offsets) before.set(rowKey(g.group, r), r);
      }
    }
    const perSec = (a: bigint | null, b: bigint | null): number | null =>
      a !== null && b !== null && dt > 0 ? Number(a - b) / dt : null;
    const groups = cur.groups.map((g): GroupFrame => {
      const rows = g.offsets.map((r): RowView => {
        const prev = before.get(rowKey(g.group, r));
        return { ...r, lagRate: perSec(r.lag, prev?.lag ?? null) };
      });
      const prevGroup = beforeGroups.get(g.group);
      const totalLag = sum(g.offsets, (r) => r.lag) ?? 0n;
      // Rates over the partitions present in both samples (a new partition is not "produced").
      const common = prevGroup ? g.offsets.filter((r) => before.has(rowKey(g.group, r))) : [];
      const prevCommon = common.map((r) => before.get(rowKey(g.group, r))!);
      const history = this.samples
        .filter((s) => s.at <= cur.at)
        .map((s) => s.groups.find((x) => x.group === g.group))
        .filter((x): x is LagGroup => !!x)
        .map((x) => Number(sum(x.offsets, (r) => r.lag) ?? 0n));
      return {
        group: g.group,
        state: g.state,
        rows,
        totalLag,
        lagRate: prevGroup ? perSec(totalLag, sum(prevGroup.offsets, (r) => r.lag) ?? 0n) : null,
        consumeRate: prevGroup
          ? perSec(
              sum(common, (r) => r.currentOffset),
              sum(prevCommon, (r) => r.currentOffset),
            )
          : null,
        produceRate: prevGroup
          ? perSec(
              sum(common, (r) => r.logEndOffset),
              sum(prevCommon, (r) => r.logEndOffset),
            )
          : null,
        history: history.slice(-this.historyLength),
      };
    });
    return { at: cur.at, groups, refreshes: this.refreshes };
  }
}

// ---- plain output (not a terminal, --no-tty, NO_COLOR) -------------------------------------------

/** logfmt value: bare when simple, else double-quoted with escapes. */
/**
 * One refresh as plain logfmt lines: a line per partition, then a line per group with the totals.
 *   time=… group=g topic=t partition=0 current-offset=5 log-end-offset=10 lag=5 lag-rate=-1.0 consumer-id=…
 *   time=… group=g state=Stable total-lag=15 lag-rate=-2.5 consume-rate=10.0 produce-rate=7.5
 * Rates are records per second (`-` until two samples exist).
 */
export function plainLines(frame: LagFrame): string[] {
  const time = new Date(frame.at).toISOString();
  const out: string[] = [];
  if (frame.error !== undefined) out.push(`time=${time} error=${lf(frame.error)}`);
  for (const g of frame.groups) {
    if (frame.error !== undefined) continue;
    for (const r of g.rows) {
      if (r.topic === null) continue;
      out.push(
        `time=${time} group=${lf(g.group)} topic=${lf(r.topic)} partition=${lf(r.partition)} current-offset=${lf(r.currentOffset)} ` +
          `log-end-offset=${lf(r.logEndOffset)} lag=${lf(r.lag)} lag-rate=${fixed(r.lagRate)} consumer-id=${lf(r.consumerId)}`,
      );
    }
    out.push(
      `time=${time} group=${lf(g.group)} state=${lf(g.state)} total-lag=${g.totalLag} lag-rate=${fixed(g.lagRate)} ` +
        `consume-rate=${fixed(g.consumeRate)} produce-rate=${fixed(g.produceRate)}`,
    );
  }
  return out;
}

/** The live table a watch draws frames on (lag-view.ts; mounted only on a terminal). */
export type LagView = WatchView<LagFrame>;
