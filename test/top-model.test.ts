// `tkafka top`'s view model with injected samples and clock: rates from two samples, groups sorted
// by lag with their lag rate, partition problems as Kafka's tools count them, the plain lines and
// the JSON shape.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  TopTracker,
  jsonFrame,
  partitionProblems,
  plainLines,
  type PartitionSample,
  type TopSample,
} from '../src/tools/top/model.js';
import type { LagGroup } from '../src/tools/common/live/lag-model.js';

const part = (topic: string, partition: number, end: bigint | null, extra: Partial<PartitionSample> = {}) => ({
  topic,
  partition,
  leader: 1,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
  logEndOffset: end,
  ...extra,
});

const group = (id: string, rows: [string, number, bigint, bigint][]): LagGroup => ({
  group: id,
  state: 'Empty',
  offsets: rows.map(([topic, partition, current, end]) => ({
    topic,
    partition,
    currentOffset: current,
    logEndOffset: end,
    lag: end - current,
  })),
});

const brokers = [
  { id: 1, host: 'h', port: 1, rack: null, fenced: false },
  { id: 2, host: 'h', port: 2, rack: null, fenced: false },
  { id: 3, host: 'h', port: 3, rack: 'r', fenced: true },
];

function sample(at: number, ends: [bigint, bigint], groups: LagGroup[], extra: Partial<TopSample> = {}): TopSample {
  return {
    at,
    clusterId: 'c',
    controllerId: 2,
    quorumLeader: 1,
    quorumEpoch: 4,
    brokers,
    topics: [
      { name: 'a', minIsr: 2, partitions: [part('a', 0, ends[0]), part('a', 1, ends[1])] },
      { name: 'b', minIsr: 2, partitions: [part('b', 0, 0n)] },
    ],
    groups,
    ...extra,
  };
}

test('rates need two samples', () => {
  const f = new TopTracker().add(sample(1000, [10n, 20n], [group('g', [['a', 0, 5n, 10n]])]));
  assert.equal(f.topics.find((t) => t.name === 'a')!.produceRate, null);
  assert.equal(f.topics.find((t) => t.name === 'a')!.consumeRate, null);
  assert.equal(f.groups[0]!.lagRate, null);
  assert.equal(f.topics.find((t) => t.name === 'a')!.logEndOffset, 30n);
});

test('produce, consume and lag rates from two samples', () => {
  const t = new TopTracker();
  t.add(sample(1000, [10n, 20n], [group('g', [['a', 0, 5n, 10n]]), group('h', [['a', 1, 20n, 20n]])]));
  // 2 s later: a grew by 40 records, g committed 10 more, h 4 more.
  const f = t.add(sample(3000, [40n, 30n], [group('g', [['a', 0, 15n, 40n]]), group('h', [['a', 1, 24n, 30n]])]));
  const a = f.topics.find((x) => x.name === 'a')!;
  assert.equal(a.produceRate, 20);
  assert.equal(a.consumeRate, 7);
  const b = f.topics.find((x) => x.name === 'b')!;
  assert.equal(b.produceRate, 0);
  assert.equal(b.consumeRate, 0);
  assert.deepEqual(
    f.topics.map((x) => x.name),
    ['a', 'b'],
    'busiest topic first',
  );
  const g = f.groups.find((x) => x.group === 'g')!;
  assert.equal(g.totalLag, 25n);
  assert.equal(g.lagRate, 10); // 5 → 25 in 2 s
  assert.equal(g.consumeRate, 5);
});

test('groups sorted by total lag, then id', () => {
  const f = new TopTracker().add(
    sample(
      1000,
      [100n, 100n],
      [
        group('small', [['a', 0, 90n, 100n]]),
        group('zero', [['a', 0, 100n, 100n]]),
        group('big', [['a', 0, 1n, 100n]]),
        group('also-small', [['a', 1, 90n, 100n]]),
      ],
    ),
  );
  assert.deepEqual(
    f.groups.map((g) => [g.group, g.totalLag]),
    [
      ['big', 99n],
      ['also-small', 10n],
      ['small', 10n],
      ['zero', 0n],
    ],
  );
});

test('rates use the oldest sample in the window', () => {
  const t = new TopTracker(10_000);
  t.add(sample(0, [0n, 0n], []));
  t.add(sample(1000, [100n, 0n], []));
  const f = t.add(sample(2000, [100n, 0n], []));
  assert.equal(f.topics.find((x) => x.name === 'a')!.produceRate, 50);
  const later = t.add(sample(13_000, [100n, 0n], []));
  assert.equal(later.topics.find((x) => x.name === 'a')!.produceRate, 0, 'the first sample left the window');
});

test('partition problems as Kafka counts them', () => {
  const live = new Set([1, 2]);
  assert.deepEqual(partitionProblems(part('t', 0, 0n), 2, live), []);
  assert.deepEqual(partitionProblems(part('t', 0, 0n, { isr: [1, 2] }), 2, live), ['under-replicated']);
  assert.deepEqual(partitionProblems(part('t', 0, 0n, { isr: [1] }), 2, live), ['under-min-isr', 'under-replicated']);
  assert.deepEqual(partitionProblems(part('t', 0, 0n, { leader: -1, isr: [] }), 2, live), [
    'offline',
    'under-min-isr',
    'under-replicated',
  ]);
  assert.deepEqual(
    partitionProblems(part('t', 0, 0n, { leader: 3, isr: [3] }), null, live),
    ['offline', 'under-replicated'],
    'a fenced leader is not live; min ISR unknown',
  );
});

test('URP counts, problem order and broker roles', () => {
  const s = sample(1000, [0n, 0n], []);
  const f = new TopTracker().add({
    ...s,
    topics: [
      { name: 'a', minIsr: 2, partitions: [part('a', 0, 0n, { isr: [1, 2] }), part('a', 1, 0n, { isr: [1] })] },
      { name: 'b', minIsr: 1, partitions: [part('b', 0, null, { leader: -1, isr: [] })] },
    ],
  });
  assert.equal(f.underReplicated, 3);
  assert.equal(f.underMinIsr, 2);
  assert.equal(f.offline, 1);
  assert.deepEqual(
    f.problems.map((p) => `${p.topic}-${p.partition}:${p.problems.join('+')}`),
    ['b-0:offline+under-min-isr+under-replicated', 'a-1:under-min-isr+under-replicated', 'a-0:under-replicated'],
  );
  const roles = f.brokers.map((b) => [b.id, b.state, b.controller, b.quorumLeader, b.leaders, b.replicas]);
  assert.deepEqual(roles, [
    [1, 'unfenced', false, true, 2, 3],
    [2, 'unfenced', true, false, 0, 3],
    [3, 'fenced', false, false, 0, 3],
  ]);
});

test('a failed refresh keeps the last numbers', () => {
  const t = new TopTracker();
  t.add(sample(1000, [5n, 5n], [group('g', [['a', 0, 1n, 5n]])]));
  const f = t.add({ ...sample(2000, [0n, 0n], []), error: 'down' });
  assert.equal(f.error, 'down');
  assert.equal(f.groups[0]!.totalLag, 4n);
  assert.deepEqual(plainLines(f), [`time=${new Date(2000).toISOString()} error=down`]);
});

test('plain lines and json carry the same numbers', () => {
  const t = new TopTracker();
  t.add(sample(1000, [10n, 20n], [group('g', [['a', 0, 5n, 10n]])]));
  const f = t.add(sample(2000, [12n, 20n], [group('g', [['a', 0, 6n, 12n]])]));
  const lines = plainLines(f);
  assert.ok(lines.some((l) => / topic=a partitions=2 log-end-offset=32 produce-rate=2\.0 consume-rate=1\.0 /.test(l)));
  assert.ok(lines.some((l) => / group=g type=- state=Empty total-lag=6 lag-rate=1\.0 /.test(l)));
  assert.ok(lines.some((l) => / broker=3 .* state=fenced /.test(l)));
  assert.ok(lines.every((l) => !l.includes('\x1b')));
  const j = JSON.parse(JSON.stringify(jsonFrame(f), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))) as {
    topics: { name: string; produceRate: number }[];
    groups: { group: string; totalLag: number; partitions: { lag: number }[] }[];
  };
  assert.equal(j.topics.find((x) => x.name === 'a')!.produceRate, 2);
  assert.equal(j.groups[0]!.totalLag, 6);
  assert.deepEqual(
    j.groups[0]!.partitions.map((p) => p.lag),
    [6],
  );
});

test('internal topics count in the problems only', () => {
  const s = sample(1000, [0n, 0n], []);
  const f = new TopTracker().add({
    ...s,
    topics: [
      ...s.topics,
      {
        name: '__consumer_offsets',
        internal: true,
        minIsr: 2,
        partitions: [part('__consumer_offsets', 0, null, { isr: [1] })],
      },
    ],
  });
  assert.deepEqual(
    f.topics.map((t) => t.name),
    ['a', 'b'],
  );
  assert.equal(f.underReplicated, 1);
  assert.equal(f.underMinIsr, 1);
  assert.deepEqual(
    f.problems.map((p) => p.topic),
    ['__consumer_offsets'],
  );
});

test('group types from the sample', () => {
  const f = new TopTracker().add(
    sample(1000, [9n, 9n], [group('c', [['a', 0, 1n, 9n]]), group('s', [['a', 1, 2n, 9n]])], {
      groupTypes: new Map([
        ['c', 'consumer'],
        ['s', 'share'],
      ]),
    }),
  );
  assert.deepEqual(
    f.groups.map((g) => [g.group, g.type]),
    [
      ['c', 'consumer'],
      ['s', 'share'],
    ],
  );
  assert.ok(plainLines(f).some((l) => / group=s type=share state=Empty total-lag=7 /.test(l)));
});
