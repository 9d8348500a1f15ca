// The ink view behind createProgress (imported only on a terminal). No JSX: React.createElement.
import React from 'react';
import { Box, Static, Text, render, type Instance } from 'ink';
import { bar, duration, grouped, humanBytes } from './format.js';
import type { ProgressState } from './progress-state.js';
import { ensureTerminalSize } from '../tty.js';

const h = React.createElement;

function amount(n: number, unit: ProgressState['unit']): string {
  return unit === 'bytes' ? humanBytes(n) : grouped(Math.round(n));
}

export function ProgressView(props: {
  state: ProgressState;
  lines: readonly string[];
  width: number;
  hide?: boolean;
}): React.ReactElement {
  const { state, lines, width } = props;
  const elapsed = (state.now - state.startedAt) / 1000;
  const fraction = state.total > 0 ? state.done / state.total : 0;
  const perSec = elapsed > 0 ? state.done / elapsed : 0;
  const eta =
    perSec > 0 && state.total > state.done ? (state.total - state.done) / perSec : state.done >= state.total ? 0 : NaN;
  const barWidth = Math.max(10, Math.min(40, width - 50));
  const pct = `${Math.min(100, Math.floor(fraction * 100))}%`.padStart(4);
  const counts =
    `${amount(state.done, state.unit)} / ${amount(state.total, state.unit)} ${state.unit === 'bytes' ? '' : state.unit}`.trim();
  const speed = state.unit === 'bytes' ? `${humanBytes(perSec)}/s` : `${grouped(Math.round(perSec))} ${state.unit}/s`;
  const timing = state.finished ? `done in ${duration(elapsed)}` : `elapsed ${duration(elapsed)}, ETA ${duration(eta)}`;
  return h(
    Box,
    { flexDirection: 'column' },
    h(Static<string>, { items: [...lines], children: (line: string, i: number) => h(Text, { key: i }, line) }),
    props.hide
      ? null
      : h(
          Box,
          { flexDirection: 'column' },
          h(
            Text,
            null,
            h(Text, { bold: true, color: 'cyan' }, state.title),
            '  ',
            h(Text, { color: state.finished ? 'green' : 'blue' }, bar(fraction, barWidth)),
            ' ',
            pct,
          ),
          h(Text, { dimColor: true }, [counts, speed, timing, ...state.details].join('  ·  ')),
        ),
  );
}

/** Mounts the view on `stream` (a terminal). */
export function mountProgress(stream: NodeJS.WritableStream): {
  render(state: ProgressState, lines: readonly string[]): void;
  unmount(keep: boolean, state: ProgressState, lines: readonly string[]): Promise<void>;
} {
  const tty = stream as NodeJS.WriteStream;
  ensureTerminalSize(tty);
  const width = (): number => tty.columns || 80;
  let instance: Instance | null = null;
  const element = (state: ProgressState, lines: readonly string[], hide = false): React.ReactElement =>
    h(ProgressView, { state, lines, width: width(), hide });
  return {
    render(state, lines) {
      if (!instance)
        instance = render(element(state, lines), { stdout: tty, stderr: tty, patchConsole: false, exitOnCtrlC: false });
      else instance.rerender(element(state, lines));
    },
    async unmount(keep, state, lines) {
      if (!instance) return;
      instance.rerender(element(state, lines, !keep));
      instance.unmount();
      await instance.waitUntilExit().catch(() => undefined);
      instance = null;
    },
  };
}
