// A progress display for long runs (perf tests, dump-log): on a terminal, an ink view with a bar,
// counts, rate and ETA, and permanent lines printed above it; otherwise nothing but the plain
// lines. ink is imported only when the display actually shows (live, and after `delayMs`), so
// short or piped runs never pay for it.
//
//   const p = createProgress(io, { title: 'Producing', total: n, unit: 'records' });
//   p.update(done, { details: ['12.3 MB/s'] });   // cheap; rendering is throttled
//   p.line('50001 records sent, ...');            // a permanent line (plain write when not live)
//   await p.finish();
import { isLive, type TtyIO } from '../tty.js';
import type { ProgressState, ProgressUnit } from './progress-state.js';
import { importSrc } from '../import-src.js';

export interface ProgressOptions {
  /** The stream the view draws on (default stdout). */
  stream?: 'stdout' | 'stderr';
  title: string;
  total: number;
  unit: ProgressUnit;
  /** Show the view only once the run has lasted this long (default 0). */
  delayMs?: number;
  /** Leave the last frame on screen when finished (default true); false erases it. */
  keep?: boolean;
  /** Minimum time between frames (default 100 ms). */
  frameMs?: number;
}

export interface Progress {
  /** True when a live view is (or will be) drawn. */
  readonly live: boolean;
  update(done: number, fields?: { total?: number; title?: string; details?: readonly string[] }): void;
  /** A permanent line of output: above the live view, or written plainly. */
  line(text: string): void;
  finish(): Promise<void>;
}

interface Mounted {
  render(state: ProgressState, lines: readonly string[]): void;
  unmount(keep: boolean, state: ProgressState, lines: readonly string[]): Promise<void>;
}

export function createProgress(io: TtyIO, opts: ProgressOptions): Progress {
  const streamName = opts.stream ?? 'stdout';
  const stream = streamName === 'stdout' ? io.stdout : io.stderr;
  const live = isLive(io, streamName);
  const state: ProgressState = {
    title: opts.title,
    done: 0,
    total: opts.total,
    unit: opts.unit,
    details: [],
    startedAt: Date.now(),
    now: Date.now(),
    finished: false,
  };
  if (!live) {
    return {
      live: false,
      update(done, f) {
        state.done = done;
        if (f?.total !== undefined) state.total = f.total;
      },
      line(text) {
        stream.write(`${text}\n`);
      },
      async finish() {},
    };
  }

  const lines: string[] = [];
  let mounted: Mounted | null = null;
  let mounting: Promise<void> | null = null;
  let failed = false;
  let dirty = true;
  let finished = false;
  const frameMs = opts.frameMs ?? 100;
  const delay = opts.delayMs ?? 0;

  const mount = (): Promise<void> => {
    mounting ??= (importSrc('tools/common/live/progress-view.js') as Promise<typeof import('./progress-view.js')>)
      .then((m) => {
        if (finished) return;
        mounted = m.mountProgress(stream);
        mounted.render({ ...state, now: Date.now() }, lines);
      })
      .catch(() => {
        failed = true;
      });
    return mounting;
  };

  const timer = setInterval(() => {
    if (finished) return;
    if (!mounted) {
      if (!mounting && !failed && Date.now() - state.startedAt >= delay) void mount();
      return;
    }
    if (dirty) {
      dirty = false;
      mounted.render({ ...state, now: Date.now() }, lines);
    }
  }, frameMs);
  timer.unref();

  return {
    live: true,
    update(done, f) {
      state.done = done;
      if (f?.total !== undefined) state.total = f.total;
      if (f?.title !== undefined && f.title !== state.title) {
        // A new phase (e.g. the next file): rates and ETA start over.
        state.title = f.title;
        state.startedAt = Date.now();
      }
      if (f?.details !== undefined) state.details = f.details;
      dirty = true;
    },
    line(text) {
      // Before the view shows (or if it failed to load), lines go straight to the terminal.
      if (!mounted && !mounting) stream.write(`${text}\n`);
      else if (failed) stream.write(`${text}\n`);
      else {
        lines.push(text);
        dirty = true;
      }
    },
    async finish() {
      if (finished) return;
      clearInterval(timer);
      if (mounting) await mounting;
      finished = true;
      state.finished = true;
      state.now = Date.now();
      if (mounted) await mounted.unmount(opts.keep ?? true, state, lines);
      else if (failed) for (const l of lines) stream.write(`${l}\n`);
    },
  };
}
