// The ink table of the reassignment watch (imported only on a terminal). No JSX: React.createElement.
import React from 'react';
import { Box, Text } from 'ink';
import { mountWatchView, type ScreenProps } from './ink-watch-view.js';
import { bar, duration, humanBytes } from './format.js';
import type { ReassignFrame, ReassignRow, ReassignView } from './reassign-model.js';

const h = React.createElement;

const COLUMNS = ['TOPIC', 'PARTITION', 'TO-BROKER', 'MOVED', 'OF', 'RATE', 'ETA'] as const;

const bytes = (n: number | null): string => (n === null ? '-' : humanBytes(n));
const perSecond = (n: number | null): string => (n === null ? '-' : `${humanBytes(n)}/s`);
const eta = (s: number | null): string => (s === null ? '-' : duration(s));

function cells(r: ReassignRow): string[] {
  return [
    r.topic,
    String(r.partition),
    String(r.broker),
    bytes(r.moved),
    bytes(r.target),
    perSecond(r.rate),
    eta(r.etaSeconds),
  ];
}

const fraction = (moved: number | null, target: number | null): number =>
  moved === null || target === null ? 0 : target === 0 ? 1 : moved / target;

function ReassignScreen(props: ScreenProps<ReassignFrame>): React.ReactElement {
  const { frame, width, height } = props;
  const shown = frame.rows.slice(0, Math.max(1, height - 6));
  const table = [COLUMNS.map(String), ...shown.map(cells)];
  const widths = COLUMNS.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]): string => row.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  const barWidth = Math.max(5, Math.min(30, width - line(table[0]!).length - 8));
  const time = new Date(frame.at).toLocaleTimeString();
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      { dimColor: true },
      `${time} · refresh every ${props.intervalMs / 1000}s${props.source ? ` · ${props.source}` : ''} · Ctrl-C to quit`,
    ),
    frame.error !== undefined ? h(Text, { color: 'red' }, `Refresh failed: ${frame.error}`) : null,
    frame.done
      ? h(Text, { color: 'green' }, 'No partition reassignments in progress.')
      : h(
          Box,
          { flexDirection: 'column' },
          h(Text, { bold: true }, `${line(table[0]!)}  PROGRESS`.slice(0, width)),
          ...shown.map((r, i) =>
            h(
              Text,
              { key: i },
              `${line(table[i + 1]!)}  `.slice(0, width),
              h(Text, { color: 'cyan' }, bar(fraction(r.moved, r.target), barWidth)),
            ),
          ),
          frame.rows.length > shown.length
            ? h(Text, { dimColor: true }, `… ${frame.rows.length - shown.length} more replicas`)
            : null,
          h(
            Text,
            { bold: true },
            `${frame.partitions} partition${frame.partitions === 1 ? '' : 's'} reassigning · ` +
              `${bytes(frame.moved)} of ${bytes(frame.target)} · ${perSecond(frame.rate)} · ETA ${eta(frame.etaSeconds)}`,
          ),
        ),
  );
}

export function mountReassignView(stream: NodeJS.WritableStream): ReassignView {
  return mountWatchView<ReassignFrame>(stream, ReassignScreen);
}
