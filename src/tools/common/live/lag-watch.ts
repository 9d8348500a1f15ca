// `--watch` for consumer-group lag: samples the group's offsets every interval and shows them live
// (ink table: lag per partition and its rate, total lag with a sparkline, consume and produce
// rates) on a terminal, or as plain logfmt lines (lag-model.ts plainLines) otherwise; the loop
// itself is watch-loop.ts.
//
//   await watchLag(() => collectGroupsView(ctx, true), io, { intervalMs: 2000 });
import type { TtyIO } from '../tty.js';
import { LagTracker, plainLines, type LagGroup, type LagSample } from './lag-model.js';
import { runWatch, type WatchOptions } from './watch-loop.js';
import { importSrc } from '../import-src.js';

export type WatchLagOptions = WatchOptions;

/** Runs the watch; resolves with the exit status (0; 1 when every sample failed). */
export async function watchLag(
  fetch: () => Promise<readonly LagGroup[]>,
  io: TtyIO,
  opts: WatchLagOptions,
): Promise<number> {
  const tracker = new LagTracker(Math.max(10_000, 3 * Math.max(100, opts.intervalMs)));
  return runWatch(
    {
      sample: async (): Promise<LagSample> => ({ at: Date.now(), groups: await fetch() }),
      failed: (at, error) => ({ at, groups: [], error }),
      frame: (s) => tracker.add(s),
      plainLines,
      mountView: async (stream) =>
        ((await importSrc('tools/common/live/lag-view.js')) as typeof import('./lag-view.js')).mountLagView(stream),
    },
    io,
    opts,
  );
}
