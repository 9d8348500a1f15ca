// The ink table of the lag watch (imported only on a terminal). No JSX: React.createElement.
import React from 'react';
import { Box, Text } from 'ink';
import { mountWatchView, type ScreenProps } from './ink-watch-view.js';
import { grouped, rate, sparkline } from './format.js';
import type { GroupFrame, LagFrame, LagView, RowView } from './lag-model.js';

const h = React.createElement;
const dash = (v: bigint | number | string | null | undefined): string =>
  v === null || v === undefined ? '-' : String(v);

const COLUMNS = ['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'LAG/S', 'CONSUMER-ID'] as const;

function cells(r: RowView): string[] {
  return [
    dash(r.topic),
    dash(r.partition),
    dash(r.currentOffset),
    dash(r.logEndOffset),
    dash(r.lag),
    rate(r.lagRate, true).replace('/s', ''),
    dash(r.consumerId),
  ];
}

const trendColor = (v: number | null): string | undefined =>
  v === null || Math.abs(v) < 0.05 ? undefined : v > 0 ? 'red' : 'green';

function GroupTable(props: { g: GroupFrame; width: number; maxRows: number }): React.ReactElement {
  const { g, width, maxRows } = props;
  const rows = g.rows.filter((r) => r.topic !== null);
  const shown = rows.slice(0, Math.max(1, maxRows));
  const table = [COLUMNS.map(String), ...shown.map(cells)];
  const widths = COLUMNS.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const line = (row: string[]): string =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .slice(0, width);
  const stateColor = g.state === 'Stable' ? 'green' : g.state === 'Dead' ? 'red' : 'yellow';
  return h(
    Box,
    { flexDirection: 'column', marginBottom: 1 },
    h(Text, null, h(Text, { bold: true }, `Consumer group ${g.group}`), '  ', h(Text, { color: stateColor }, g.state)),
    g.state === 'Dead'
      ? h(Text, { color: 'red' }, `Consumer group '${g.group}' does not exist.`)
      : rows.length === 0
        ? h(Text, { dimColor: true }, 'No committed offsets and no assigned partitions.')
        : h(
            Box,
            { flexDirection: 'column' },
            h(Text, { bold: true }, line(table[0]!)),
            ...shown.map((r, i) => h(Text, { key: i, color: trendColor(r.lagRate) }, line(table[i + 1]!))),
            rows.length > shown.length
              ? h(Text, { dimColor: true }, `… ${rows.length - shown.length} more partitions`)
              : null,
          ),
    h(
      Text,
      null,
      h(Text, { bold: true }, `Total lag ${grouped(g.totalLag)}`),
      '  ',
      h(Text, { color: trendColor(g.lagRate) }, `(${rate(g.lagRate, true)})`),
      '  ',
      h(Text, { color: 'cyan' }, sparkline(g.history.slice(-Math.max(5, Math.min(40, width - 60))))),
      '  ',
      h(Text, { dimColor: true }, `consumed ${rate(g.consumeRate)}  produced ${rate(g.produceRate)}`),
    ),
  );
}

function LagScreen(props: ScreenProps<LagFrame>): React.ReactElement {
  const { frame, width, height } = props;
  const groups = frame.groups;
  const perGroup = Math.max(1, Math.floor((height - 4) / Math.max(1, groups.length)) - 4);
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
    ...groups.map((g) => h(GroupTable, { key: g.group, g, width, maxRows: perGroup })),
  );
}

export function mountLagView(stream: NodeJS.WritableStream): LagView {
  return mountWatchView<LagFrame>(stream, LagScreen);
}
