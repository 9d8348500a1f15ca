// The ink screen of `tkafka top` (imported only on a terminal). No JSX: React.createElement.
// Sections: the cluster line, brokers, topics (by produce rate), partitions with problems, consumer
// groups (by lag), each cut to the terminal's height.
import React from 'react';
import { Box, Text } from 'ink';
import { mountWatchView, type ScreenProps } from '../common/live/ink-watch-view.js';
import { grouped, rate, sparkline } from '../common/live/format.js';
import type { TopFrame, TopView } from './model.js';

const h = React.createElement;

/** Aligned columns: a header and rows of cells, each line cut to `width`. */
function table(head: string[], rows: string[][], width: number): string[] {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .slice(0, width),
  );
}

function Section(props: {
  title: string;
  head: string[];
  rows: string[][];
  colors?: (string | undefined)[];
  width: number;
  max: number;
  empty: string;
}): React.ReactElement {
  const { title, head, rows, width, max } = props;
  const shown = rows.slice(0, Math.max(1, max));
  const lines = table(head, shown, width);
  return h(
    Box,
    { flexDirection: 'column', marginTop: 1 },
    h(Text, { bold: true }, title),
    rows.length === 0
      ? h(Text, { dimColor: true }, props.empty)
      : h(
          Box,
          { flexDirection: 'column' },
          h(Text, { bold: true }, lines[0]!),
          ...shown.map((_, i) => h(Text, { key: i, color: props.colors?.[i] }, lines[i + 1]!)),
          rows.length > shown.length ? h(Text, { dimColor: true }, `… ${rows.length - shown.length} more`) : null,
        ),
  );
}

const trendColor = (v: number | null): string | undefined =>
  v === null || Math.abs(v) < 0.05 ? undefined : v > 0 ? 'red' : 'green';

function TopScreen(props: ScreenProps<TopFrame>): React.ReactElement {
  const { frame: f, width, height } = props;
  const time = new Date(f.at).toLocaleTimeString();
  const problems = f.offline + f.underMinIsr + f.underReplicated;
  // Lines left for the rows of the four tables (titles, headers, margins and the two header lines).
  const budget = Math.max(4, height - 14);
  const brokersMax = Math.min(f.brokers.length, Math.max(1, Math.floor(budget / 4)));
  const rest = budget - brokersMax;
  const problemsMax = f.problems.length ? Math.max(1, Math.floor(rest / 4)) : 1;
  const topicsMax = Math.max(1, Math.floor((rest - problemsMax) / 2));
  const groupsMax = Math.max(1, rest - problemsMax - topicsMax);
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      { dimColor: true },
      `${time} · refresh every ${props.intervalMs / 1000}s${props.source ? ` · ${props.source}` : ''} · q to quit`,
    ),
    h(
      Text,
      null,
      h(Text, { bold: true }, `Cluster ${f.clusterId ?? '-'}`),
      `  controller ${f.controllerId ?? '-'}  quorum leader ${f.quorumLeader ?? '-'}${f.quorumEpoch !== null ? ` (epoch ${f.quorumEpoch})` : ''}  `,
      h(
        Text,
        { color: problems ? (f.offline ? 'red' : 'yellow') : 'green' },
        `offline ${f.offline}  under-min-isr ${f.underMinIsr}  under-replicated ${f.underReplicated}`,
      ),
    ),
    f.error !== undefined ? h(Text, { color: 'red' }, `Refresh failed: ${f.error}`) : null,
    h(Section, {
      title: `Brokers (${f.brokers.length})`,
      head: ['ID', 'HOST:PORT', 'RACK', 'STATE', 'ROLE', 'LEADERS', 'REPLICAS'],
      rows: f.brokers.map((b) => [
        String(b.id),
        `${b.host}:${b.port}`,
        b.rack ?? '-',
        b.state,
        [b.quorumLeader ? 'quorum-leader' : '', b.controller ? 'controller' : ''].filter(Boolean).join(',') || '-',
        String(b.leaders),
        String(b.replicas),
      ]),
      colors: f.brokers.map((b) => (b.fenced ? 'red' : undefined)),
      width,
      max: brokersMax,
      empty: 'No brokers.',
    }),
    h(Section, {
      title: `Topics (${f.topics.length})`,
      head: ['TOPIC', 'PARTITIONS', 'LOG-END-OFFSET', 'PRODUCE', 'CONSUME', 'URP', 'UNDER-MIN-ISR', 'OFFLINE'],
      rows: f.topics.map((t) => [
        t.name,
        String(t.partitions),
        grouped(t.logEndOffset),
        rate(t.produceRate),
        rate(t.consumeRate),
        String(t.underReplicated),
        String(t.underMinIsr),
        String(t.offline),
      ]),
      colors: f.topics.map((t) => (t.offline ? 'red' : t.underMinIsr || t.underReplicated ? 'yellow' : undefined)),
      width,
      max: topicsMax,
      empty: 'No topics.',
    }),
    f.problems.length
      ? h(Section, {
          title: `Partitions with problems (${f.problems.length})`,
          head: ['TOPIC', 'PARTITION', 'LEADER', 'REPLICAS', 'ISR', 'PROBLEMS'],
          rows: f.problems.map((p) => [
            p.topic,
            String(p.partition),
            String(p.leader),
            p.replicas.join(','),
            p.isr.join(',') || '-',
            p.problems.join(','),
          ]),
          colors: f.problems.map((p) => (p.problems[0] === 'offline' ? 'red' : 'yellow')),
          width,
          max: problemsMax,
          empty: '',
        })
      : null,
    h(Section, {
      title: `Consumer groups (${f.groups.length}) by lag`,
      head: ['GROUP', 'TYPE', 'STATE', 'LAG', 'LAG/S', 'CONSUME', 'PRODUCE', 'TREND'],
      rows: f.groups.map((g) => [
        g.group,
        g.type ?? '-',
        g.state,
        grouped(g.totalLag),
        rate(g.lagRate, true),
        rate(g.consumeRate),
        rate(g.produceRate),
        sparkline(g.history.slice(-20)),
      ]),
      colors: f.groups.map((g) => trendColor(g.lagRate)),
      width,
      max: groupsMax,
      empty: 'No consumer groups.',
    }),
  );
}

export function mountTopView(stream: NodeJS.WritableStream): TopView {
  return mountWatchView<TopFrame>(stream, TopScreen);
}
