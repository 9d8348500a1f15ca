// `--watch` for consumer-group lag: samples the group's offsets every interval and shows them live
// (ink table: lag per partition and its rate, total lag with a sparkline, consume and produce
// rates) on a terminal, or as plain logfmt lines (lag-model.ts plainLines) when stdout is not a
// terminal, under --no-tty or with NO_COLOR. Runs until Ctrl-C / SIGTERM, a closed stdout, or
// `maxRefreshes` samples.
//
//   await watchLag(() => collectGroupsView(ctx, true), io, { intervalMs: 2000 });
import { isLive, type TtyIO } from '../tty.js';
import { LagTracker, plainLines, type LagFrame, type LagGroup, type LagView } from './lag-model.js';

export interface WatchLagOptions {
  intervalMs: number;
  /** Stop after this many samples (default: until interrupted; TKAFKA_WATCH_COUNT also sets it). */
  maxRefreshes?: number;
  /** Shown in the live view's title (e.g. the bootstrap servers). */
  source?: string;
}

/** Runs the watch; resolves with the exit status (0; 1 when every sample failed). */
export async function watchLag(
  fetch: () => Promise<readonly LagGroup[]>,
  io: TtyIO,
  opts: WatchLagOptions,
): Promise<number> {
  const live = isLive(io, 'stdout');
  const envCount = Number(io.env.TKAFKA_WATCH_COUNT ?? '');
  const maxRefreshes = opts.maxRefreshes ?? (Number.isInteger(envCount) && envCount > 0 ? envCount : Infinity);
  const intervalMs = Math.max(100, opts.intervalMs);
  const tracker = new LagTracker(Math.max(10_000, 3 * intervalMs));
  let view: LagView | null = null;
  if (live) {
    try {
      view = (await import('./lag-view.js')).mountLagView(io.stdout);
    } catch {
      view = null;
    }
  }

  let stopped = false;
  let wake: (() => void) | null = null;
  const stop = (): void => {
    stopped = true;
    wake?.();
  };
  const onSignal = (): void => stop();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  io.stdout.on('error', stop);
  io.stdout.on('close', stop);

  let okSamples = 0;
  let refreshes = 0;
  try {
    while (!stopped && refreshes < maxRefreshes) {
      const started = Date.now();
      let frame: LagFrame;
      try {
        const groups = await fetch();
        okSamples++;
        frame = tracker.add({ at: Date.now(), groups });
      } catch (e) {
        frame = tracker.add({ at: Date.now(), groups: [], error: (e as Error).message ?? String(e) });
      }
      refreshes++;
      if (stopped) break;
      if (view) view.render(frame, { intervalMs, ...(opts.source ? { source: opts.source } : {}) });
      else {
        const lines = plainLines(frame);
        if (lines.length) io.stdout.write(lines.join('\n') + '\n');
      }
      if (refreshes >= maxRefreshes) break;
      const wait = Math.max(0, intervalMs - (Date.now() - started));
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, wait);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = null;
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    io.stdout.off('error', stop);
    io.stdout.off('close', stop);
    await view?.close();
  }
  return okSamples > 0 || refreshes === 0 ? 0 : 1;
}
