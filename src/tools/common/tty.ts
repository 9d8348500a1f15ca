// When tkafka draws live terminal views (ink: the lag watch, progress displays) and when it prints
// plain, script-friendly lines instead. One decision for every tool:
//
//   live  ⇔  the stream is a terminal (isTTY)
//            and TKAFKA_NO_TTY is unset, empty or "0" (`--no-tty` on any command sets it)
//            and NO_COLOR is unset or empty (https://no-color.org)
//            and TERM is not "dumb"
//            and CI is not set (ink draws only a final frame there).
//
// `--no-tty` is a global flag: the CLI removes it from any command line (before a `--`) and sets
// TKAFKA_NO_TTY=1 for the tool, so tools whose flags follow Kafka's never see it.
// This module is tiny on purpose: the CLI imports it on every run; ink is loaded only by the live
// views, and only after this decision said yes.

import { WriteStream as TtyWriteStream } from 'node:tty';

export const NO_TTY_FLAG = '--no-tty';
export const NO_TTY_ENV = 'TKAFKA_NO_TTY';

export type TtyStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

export interface TtyIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** Why output is (not) live; `live` is the decision. */
export interface TtyDecision {
  live: boolean;
  reason: 'tty' | 'not-a-terminal' | 'no-tty' | 'no-color' | 'dumb-terminal' | 'ci';
}

const set = (v: string | undefined): boolean => v !== undefined && v !== '' && v !== '0';

/** The decision for one of the tool's streams (stdout unless the view draws on stderr). */
export function ttyDecision(io: TtyIO, stream: 'stdout' | 'stderr' = 'stdout'): TtyDecision {
  const s = (stream === 'stdout' ? io.stdout : io.stderr) as TtyStream;
  const env = io.env ?? {};
  if (set(env[NO_TTY_ENV])) return { live: false, reason: 'no-tty' };
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return { live: false, reason: 'no-color' };
  if (s.isTTY !== true) return { live: false, reason: 'not-a-terminal' };
  if (env.TERM === 'dumb') return { live: false, reason: 'dumb-terminal' };
  if (set(env.CI) && env.CI !== 'false') return { live: false, reason: 'ci' };
  return { live: true, reason: 'tty' };
}

/** True when a live (ink) view may be drawn on `stream`. */
export function isLive(io: TtyIO, stream: 'stdout' | 'stderr' = 'stdout'): boolean {
  return ttyDecision(io, stream).live;
}

/** Terminal width of a stream (80 when unknown). */
export function columnsOf(stream: NodeJS.WritableStream): number {
  const c = (stream as TtyStream).columns;
  return typeof c === 'number' && c > 0 ? c : 80;
}

/**
 * Removes the global `--no-tty` flag from a command line (only before a `--` end-of-options
 * marker) and reports whether it was there.
 */
export function takeNoTtyFlag(args: readonly string[]): { args: string[]; noTty: boolean } {
  const out: string[] = [];
  let noTty = false;
  let ended = false;
  for (const a of args) {
    if (!ended && a === '--') ended = true;
    if (!ended && a === NO_TTY_FLAG) {
      noTty = true;
      continue;
    }
    out.push(a);
  }
  return { args: out, noTty };
}

/**
 * A terminal that reports no size (a pseudo-terminal nobody sized, e.g. under `script`) would make
 * ink lay out one character per line: give it 80x24.
 */
export function ensureTerminalSize(stream: NodeJS.WritableStream): void {
  const s = stream as TtyStream;
  if (!s.columns) Object.defineProperty(s, 'columns', { value: 80, configurable: true, writable: true });
  if (!s.rows) Object.defineProperty(s, 'rows', { value: 24, configurable: true, writable: true });
}

/** A real terminal stream (not just an object claiming isTTY, as test doubles do): ink can draw on it. */
export function isTerminalStream(stream: NodeJS.WritableStream): boolean {
  return stream instanceof TtyWriteStream;
}
