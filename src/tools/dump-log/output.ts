// Where dump-log writes: stdout lines buffered in 64 KiB chunks with back-pressure (a 1 GiB
// segment dumped into a slow pipe never piles up in memory), stderr lines in order with stdout,
// and a one-line progress indicator on stderr when stderr is a terminal (silent when piped; off
// with TKAFKA_PROGRESS=0; TKAFKA_PROGRESS_AFTER_MS / TKAFKA_PROGRESS_EVERY_MS tune when it shows).
import type { ToolIO } from '../common/io.js';
import { isLive, isTerminalStream } from '../common/tty.js';
import { createProgress, type Progress } from '../common/live/progress.js';

const CHUNK = 64 * 1024;
const PROGRESS_EVERY_MS = 200;
const PROGRESS_AFTER_MS = 300;

type TtyStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** stdout went away (a reader like `head` closed the pipe): the dump stops quietly. */
export class OutputClosed extends Error {}

export class Output {
  private buf: string[] = [];
  private size = 0;
  private progressShown = false;
  private lastProgress = 0;
  private progressLabel = '';
  private progressStart = 0;
  private readonly progressEnabled: boolean;
  private readonly progressAfterMs: number;
  private readonly progressEveryMs: number;
  private readonly stdoutIsTty: boolean;
  /** True once anything was reported as a problem (exit status 1). */
  failed = false;
  private broken = false;
  private wake: (() => void) | null = null;
  /** stdout redirected, stderr a terminal: the ink progress view (common/live/progress.ts). */
  private live: Progress | null = null;

  constructor(
    private readonly io: ToolIO,
    readonly json: boolean,
  ) {
    const err = io.stderr as TtyStream;
    const env = io.env ?? {};
    this.progressEnabled = err.isTTY === true && isLive(io, 'stderr') && env.TKAFKA_PROGRESS !== '0';
    this.progressAfterMs = Number(env.TKAFKA_PROGRESS_AFTER_MS ?? PROGRESS_AFTER_MS);
    this.progressEveryMs = Number(env.TKAFKA_PROGRESS_EVERY_MS ?? PROGRESS_EVERY_MS);
    this.stdoutIsTty = (io.stdout as TtyStream).isTTY === true;
    const onGone = (): void => {
      this.broken = true;
      void this.live?.finish();
      this.wake?.();
    };
    io.stdout.on('error', onGone);
    io.stdout.on('close', onGone);
  }

  private waitDrain(): Promise<void> {
    if (this.broken) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.wake = null;
        this.io.stdout.removeListener('drain', done);
        resolve();
      };
      this.wake = done;
      this.io.stdout.once('drain', done);
    });
  }

  /** One stdout line (text mode: Kafka's text; json mode: one JSON object). */
  line(s: string): void {
    this.buf.push(s, '\n');
    this.size += s.length + 1;
  }

  /** Appends to the current stdout text without a newline (Kafka's `print`). */
  print(s: string): void {
    this.buf.push(s);
    this.size += s.length;
  }

  /** One stderr line, after everything printed so far on stdout. */
  errLine(s: string): void {
    this.flushNow();
    if (this.live) return this.live.line(s);
    this.clearProgress();
    this.io.stderr.write(`${s}\n`);
  }

  /** Writes buffered stdout when a chunk is full, waiting for the stream to drain (back-pressure). */
  async maybeFlush(): Promise<void> {
    if (this.broken) throw new OutputClosed();
    if (this.size < CHUNK) return;
    const ok = this.flushNow();
    if (!ok) await this.waitDrain();
    if (this.broken) throw new OutputClosed();
  }

  private flushNow(): boolean {
    if (this.size === 0 || this.broken) {
      this.buf = [];
      this.size = 0;
      return true;
    }
    const text = this.buf.join('');
    this.buf = [];
    this.size = 0;
    if (this.progressShown && this.stdoutIsTty) this.clearProgress();
    return this.io.stdout.write(text);
  }

  /** Starts timing a file for the progress line. */
  startProgress(label: string): void {
    this.progressLabel = label;
    this.progressStart = Date.now();
    this.lastProgress = 0;
  }

  /** Shows `label: 45% (460.0 MiB of 1.0 GiB)` on a terminal, at most every 200 ms. */
  progress(done: number, total: number): void {
    if (!this.progressEnabled || total <= 0) return;
    const now = Date.now();
    if (now - this.progressStart < this.progressAfterMs || now - this.lastProgress < this.progressEveryMs) return;
    this.lastProgress = now;
    if (!this.stdoutIsTty && isTerminalStream(this.io.stderr)) {
      this.live ??= createProgress(this.io, {
        stream: 'stderr',
        title: this.progressLabel,
        total,
        unit: 'bytes',
        keep: false,
      });
      return this.live.update(done, { total, title: this.progressLabel });
    }
    if (this.stdoutIsTty) this.flushNow();
    const pct = Math.min(100, Math.floor((done / total) * 100));
    const text = `${this.progressLabel}: ${pct}% (${human(done)} of ${human(total)})`;
    const cols = (this.io.stderr as TtyStream).columns || 80;
    this.io.stderr.write(`\r\x1b[K${text.length >= cols ? text.slice(text.length - cols + 1) : text}`);
    this.progressShown = true;
  }

  clearProgress(): void {
    if (!this.progressShown) return;
    this.io.stderr.write('\r\x1b[K');
    this.progressShown = false;
  }

  async close(): Promise<void> {
    await this.live?.finish();
    this.clearProgress();
    const ok = this.flushNow();
    if (!ok) await this.waitDrain();
  }
}

function human(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** A JSON object line from ordered [key, raw JSON value] pairs (values already rendered). */
export function jsonLine(pairs: readonly (readonly [string, string])[]): string {
  return `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

export const js = (s: string | null): string => (s === null ? 'null' : JSON.stringify(s));
