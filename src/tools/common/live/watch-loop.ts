// The loop behind every `--watch` (consumer-groups' lag, reassign-partitions' progress): take a
// sample every interval, turn it into a frame (a tracker keeps the rates), and show the frame live
// (an ink view, mounted only on a terminal) or as plain logfmt lines (stdout not a terminal,
// --no-tty, NO_COLOR). Runs until Ctrl-C / SIGTERM, a closed stdout, `maxRefreshes` samples
// (TKAFKA_WATCH_COUNT also sets it) or a frame the loop calls final.
import { isLive, type TtyIO } from '../tty.js';

export interface WatchOptions {
  intervalMs: number;
  /** Stop after this many samples (default: until interrupted; TKAFKA_WATCH_COUNT also sets it). */
  maxRefreshes?: number;
  /** Shown in the live view's title (e.g. the bootstrap servers). */
  source?: string;
  /** Ends the watch when aborted (e.g. `q` pressed in `tkafka top`). */
  signal?: AbortSignal;
}

/** A live view of frames (mounted only on a terminal). */
export interface WatchView<F> {
  render(frame: F, info: { intervalMs: number; source?: string }): void;
  close(): Promise<void>;
}

/** What one kind of watch supplies to the loop. */
export interface Watch<S, F> {
  /** Takes a sample (may throw: the failure becomes `failed(message)`). */
  sample(): Promise<S>;
  failed(at: number, error: string): S;
  /** Turns a sample into a frame (keeping what the rates need). */
  frame(sample: S): F;
  plainLines(frame: F): string[];
  mountView(stream: NodeJS.WritableStream): Promise<WatchView<F>>;
  /** True when this frame is the last one (shown, then the watch ends). */
  isFinal?(frame: F): boolean;
}

/** Runs the watch; resolves with the exit status (0; 1 when every sample failed). */
export async function runWatch<S, F>(watch: Watch<S, F>, io: TtyIO, opts: WatchOptions): Promise<number> {
  const live = isLive(io, 'stdout');
  const envCount = Number(io.env.TKAFKA_WATCH_COUNT ?? '');
  const maxRefreshes = opts.maxRefreshes ?? (Number.isInteger(envCount) && envCount > 0 ? envCount : Infinity);
  const intervalMs = Math.max(100, opts.intervalMs);
  let view: WatchView<F> | null = null;
  if (live) {
    try {
      view = await watch.mountView(io.stdout);
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
  opts.signal?.addEventListener('abort', stop);
  if (opts.signal?.aborted) stopped = true;
  io.stdout.on('error', stop);
  io.stdout.on('close', stop);

  let okSamples = 0;
  let refreshes = 0;
  try {
    while (!stopped && refreshes < maxRefreshes) {
      const started = Date.now();
      let sample: S;
      try {
        sample = await watch.sample();
        okSamples++;
      } catch (e) {
        sample = watch.failed(Date.now(), (e as Error).message ?? String(e));
      }
      const frame = watch.frame(sample);
      refreshes++;
      if (stopped) break;
      if (view) view.render(frame, { intervalMs, ...(opts.source ? { source: opts.source } : {}) });
      else {
        const lines = watch.plainLines(frame);
        if (lines.length) io.stdout.write(lines.join('\n') + '\n');
      }
      if (refreshes >= maxRefreshes || watch.isFinal?.(frame)) break;
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
    opts.signal?.removeEventListener('abort', stop);
    io.stdout.off('error', stop);
    io.stdout.off('close', stop);
    await view?.close();
  }
  return okSamples > 0 || refreshes === 0 ? 0 : 1;
}

/** A logfmt value: bare when safe, JSON-quoted otherwise, `-` when unknown. */
export function logfmtValue(v: string | number | bigint | null | undefined): string {
  if (v === null || v === undefined) return '-';
  const s = String(v);
  return /^[A-Za-z0-9._:/@+-]+$/.test(s) ? s : JSON.stringify(s);
}

/** A number with one decimal for logfmt (`-` when unknown). */
export const logfmtFixed = (v: number | null): string =>
  v === null || !Number.isFinite(v) ? '-' : v.toFixed(1) === '-0.0' ? '0.0' : v.toFixed(1);
