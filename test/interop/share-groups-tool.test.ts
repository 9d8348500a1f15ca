// tkafka share-groups against a real Apache Kafka 4.4 broker (a new 4.4 cluster finalizes
// share.version), compared line by line with Kafka's own ShareGroupCommand for the same cluster
// state. Share groups are made by Kafka's ConsoleShareConsumer: two Empty ones that read a topic
// to its end (share.auto.offset.reset=earliest as a group config) and one Stable group with a
// consumer in the background. Exit codes are Kafka 4.4's (0 after `Error:` lines on stdout).
// The whole scenario runs twice: against Apache Kafka 4.4.0 and against a tkafka broker, with Kafka's
// tools and tkafka's both pointed at the broker of the run; then Kafka's tool's offsets tables of the
// two runs are compared with each other, LAG (KIP-1226) included.
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { TOOL_JVM_FLAGS, kafkaLibDir, runKafkaTool, startApacheKafka } from './helpers/apache-kafka.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { startBroker } from '../helpers/broker-process.js';
import { runTkafka, type Run } from '../helpers/tool-run.js';
import { waitFor } from '../helpers/wait-for.js';

const SHARE_GROUPS = 'org.apache.kafka.tools.consumer.group.ShareGroupCommand';
const SHARE_CONSUMER = 'org.apache.kafka.tools.consumer.ConsoleShareConsumer';

/** The broker a run points both tools at. */
interface Target {
  name: 'Apache Kafka 4.4.0' | 'tkafka';
  bootstrap: string;
  waitForTopic(topic: string, partitions: number): Promise<void>;
  stop(): Promise<void>;
}

const TARGETS: Record<Target['name'], () => Promise<Target>> = {
  'Apache Kafka 4.4.0': async () => {
    const k = await startApacheKafka();
    return {
      name: 'Apache Kafka 4.4.0',
      bootstrap: k.bootstrap,
      waitForTopic: (t, partitions) => k.waitForTopic(t, { partitions }),
      stop: () => k.cleanup(),
    };
  },
  tkafka: async () => {
    const b = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
    return {
      name: 'tkafka',
      bootstrap: `127.0.0.1:${b.port}`,
      waitForTopic: async (t, partitions) => {
        await waitFor(
          async () => {
            const r = await runTkafka('get-offsets', ['--bootstrap-server', `127.0.0.1:${b.port}`, '--topic', t], {});
            return r.code === 0 && r.out.split('\n').filter(Boolean).length === partitions;
          },
          { what: `topic ${t} on tkafka`, timeoutMs: 30_000, intervalMs: 200 },
        );
      },
      stop: async () => {
        await b.stop();
        b.cleanup();
      },
    };
  },
};

let target: Target;
const background: ChildProcess[] = [];

const B = (): string[] => ['--bootstrap-server', target.bootstrap];
const kafkaTool = (mainClass: string, args: string[], opts?: Parameters<typeof runKafkaTool>[2]) =>
  runKafkaTool(mainClass, args, opts);
const SG = (...a: string[]): string[] => [...B(), ...a];

async function apache(args: string[]): Promise<Run> {
  const r = await kafkaTool(SHARE_GROUPS, args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/** Kafka's stderr without log4j lines and stack traces (tkafka prints neither). */
const errorLines = (err: string): string[] =>
  err.split('\n').filter((l) => l !== '' && !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more|^java\./.test(l));

/** The same stdout lines and exit code (and, with `stderr`, the same first stderr line). */
async function same(args: string[], opts: { stderr?: boolean; rename?: [string, string] } = {}): Promise<Run> {
  const [k, t] = [await apache(args), await runTkafka('share-groups', args, {})];
  const label = `share-groups ${args.slice(2).join(' ')}`;
  assert.equal(t.code, k.code, `${label}: exit code (kafka stderr: ${k.err.slice(0, 400)}; tkafka stderr: ${t.err})`);
  const kOut = opts.rename ? k.out.split(opts.rename[0]).join(opts.rename[1]) : k.out;
  assert.deepEqual(t.out.split('\n'), kOut.split('\n'), `${label}: stdout`);
  if (opts.stderr) assert.equal(errorLines(t.err)[0], errorLines(k.err)[0], `${label}: stderr`);
  const runs = outputs.get(target.name)!;
  let key = label;
  for (let n = 2; runs.has(key); n++) key = `${label} (${n})`;
  runs.set(key, k.out);
  return t;
}

/** Kafka's tool's stdout per broker run and command (the nth run of a command gets ` (n)`). */
const outputs = new Map<Target['name'], Map<string, string>>([
  ['Apache Kafka 4.4.0', new Map()],
  ['tkafka', new Map()],
]);

/** The LAG column of an offsets table, as `[0, 5]`. */
const lags = (out: string): string =>
  `[${maskLag(out, (l) => l.trim().split(/\s+/).pop() ?? '')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('GROUP '))
    .join(', ')}]`;

/** An offsets table (describe) with its LAG column, the last, masked (or each row mapped by `row`). */
const maskLag = (out: string, row = (l: string): string => l.replace(/\S+\s*$/, '<lag>')): string => {
  const lines = out.split('\n');
  const lag = lines.findIndex((l) => /^GROUP +TOPIC +PARTITION +(LEADER-EPOCH +)?START-OFFSET +LAG *$/.test(l));
  return lag < 0 ? out : lines.map((l, i) => (i > lag && l.trim() !== '' ? row(l) : l)).join('\n');
};

/** Kafka's Set.of order of the valid states varies between JVM runs: compare them as sets. */
const sortedStates = (line: string | undefined): string =>
  (line ?? '').replace(
    /Valid states are: (.*)$/,
    (_m, s: string) => `Valid states are: ${s.split(', ').sort().join(', ')}`,
  );

async function shareConsumer(args: string[]): Promise<Run> {
  const r = await kafkaTool(SHARE_CONSUMER, [...B(), ...args], { timeoutMs: 90_000 });
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

async function groupConfig(group: string): Promise<void> {
  const r = await kafkaTool('org.apache.kafka.tools.ConfigCommand', [
    ...B(),
    '--alter',
    '--entity-type',
    'groups',
    '--entity-name',
    group,
    '--add-config',
    'share.auto.offset.reset=earliest',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
}

interface StateJson {
  group: string;
  state: string;
  members: number;
}

async function describeState(group: string): Promise<StateJson | null> {
  const r = await runTkafka('share-groups', SG('--describe', '--group', group, '--state', '--output', 'json'), {});
  return r.code === 0 && r.out.startsWith('{') ? (JSON.parse(r.out).groups[0] as StateJson) : null;
}

/** The log end offset of each partition of `topic` (GetOffsetShell's `topic:partition:offset` lines). */
async function logEnds(topic: string): Promise<Map<number, number>> {
  const r = await runTkafka('get-offsets', [...B(), '--topic', topic], {});
  assert.equal(r.code, 0, r.err);
  return new Map(
    r.out
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':').slice(1).map(Number) as [number, number]),
  );
}

/**
 * Waits until the group has read everything: a start offset on every partition holding records
 * (an empty one has none) and lag 0 there (or none, `-`, where the partition's delivery-complete
 * count is not known yet).
 */
async function waitSettled(group: string): Promise<void> {
  type Row = { partition: number; startOffset: number | null; lag: number | null };
  const ends = await logEnds('queue');
  let last = '';
  await waitFor(
    async () => {
      const r = await runTkafka('share-groups', SG('--describe', '--group', group, '--output', 'json'), {});
      last = `${r.out}${r.err}`;
      const rows: Row[] = r.code === 0 && r.out.startsWith('{') ? (JSON.parse(r.out).groups[0]?.offsets ?? []) : [];
      return (
        rows.length === 2 &&
        rows.every((o) => (o.startOffset === null ? ends.get(o.partition) === 0 : o.lag === 0 || o.lag === null))
      );
    },
    { what: `share group ${group} to settle at the log end`, timeoutMs: 60_000, intervalMs: 500 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}: log ends ${JSON.stringify([...ends])}, last describe ${last}`);
  });
}

function scenario(name: Target['name']): void {
  before(async () => {
    target = await TARGETS[name]();
    for (const [t, n] of [
      ['queue', 2],
      ['other', 1],
    ] as const) {
      const r = await kafkaTool('org.apache.kafka.tools.TopicCommand', [
        ...B(),
        '--create',
        '--topic',
        t,
        '--partitions',
        String(n),
      ]);
      assert.equal(r.exitCode, 0, r.stderr);
      await target.waitForTopic(t, n);
    }
    // one key: every record on the same partition on both brokers (murmur2), one partition left empty
    const produced = await kafkaTool(
      'org.apache.kafka.tools.ConsoleProducer',
      [...B(), '--topic', 'queue', '--property', 'parse.key=true', '--property', 'key.separator=:'],
      { input: ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((v) => `k:${v}\n`).join('') },
    );
    assert.equal(produced.exitCode, 0, produced.stderr);
    for (const g of ['done-k', 'done-t', 'live']) await groupConfig(g);
    // Two Empty groups that read every record once.
    for (const g of ['done-k', 'done-t']) {
      const r = await shareConsumer(['--topic', 'queue', '--group', g, '--max-messages', '6', '--timeout-ms', '60000']);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(r.out.split('\n').filter(Boolean).sort(), ['q1', 'q2', 'q3', 'q4', 'q5', 'q6']);
    }
    // A Stable group: Kafka's console share consumer in the background.
    const c = spawn(
      'java',
      [...TOOL_JVM_FLAGS, '-cp', `${kafkaLibDir()}/*`, SHARE_CONSUMER, ...B(), '--topic', 'queue', '--group', 'live'],
      { cwd: REPO_ROOT, stdio: 'ignore' },
    );
    background.push(c);
    await waitFor(async () => (await describeState('live'))?.members === 1, {
      what: 'share group live to have its member',
      timeoutMs: 60_000,
      intervalMs: 300,
    });
    await waitFor(async () => (await describeState('live'))?.state === 'Stable', {
      what: 'share group live to be Stable',
      timeoutMs: 60_000,
      intervalMs: 300,
    });
    for (const g of ['done-k', 'done-t', 'live']) await waitSettled(g);
    for (const g of ['done-k', 'done-t'])
      await waitFor(async () => (await describeState(g))?.state === 'Empty', {
        what: `share group ${g} to be Empty`,
        timeoutMs: 60_000,
        intervalMs: 300,
      });
  });

  after(async () => {
    for (const c of background.splice(0)) c.kill('SIGTERM');
    await target?.stop();
  });

  test('list', async () => {
    const all = await same(SG('--list'));
    assert.deepEqual(all.out.split('\n').filter(Boolean).sort(), ['done-k', 'done-t', 'live']);
    await same(SG('--list', '--state'));
    await same(SG('--list', '--state', 'stable'));
    await same(SG('--list', '--state', 'Empty,Dead'));
    const [k, t] = [
      await apache(SG('--list', '--state', 'bogus')),
      await runTkafka('share-groups', SG('--list', '--state', 'bogus'), {}),
    ];
    assert.equal(t.code, k.code);
    assert.equal(sortedStates(t.err.split('\n')[0]), sortedStates(k.err.split('\n')[0]));
  });

  test('describe offsets, members, state', async () => {
    for (const g of ['done-k', 'live']) {
      for (const view of [
        [],
        ['--offsets'],
        ['--verbose'],
        ['--members'],
        ['--members', '--verbose'],
        ['--state'],
        ['--state', '--verbose'],
      ])
        await same(SG('--describe', '--group', g, ...view), { stderr: true });
    }
    await same(SG('--describe', '--all-groups'));
    await same(SG('--describe', '--all-groups', '--members'));
    const live = await runTkafka(
      'share-groups',
      SG('--describe', '--group', 'live', '--members', '--output', 'json'),
      {},
    );
    const members = JSON.parse(live.out).groups[0].members;
    assert.equal(members.length, 1);
    assert.equal(members[0].clientId, 'console-share-consumer');
    assert.deepEqual(members[0].assignment, [
      { topic: 'queue', partition: 0 },
      { topic: 'queue', partition: 1 },
    ]);
  });

  test('errors and usage', async () => {
    await same(SG('--describe', '--group', 'nope'));
    await same(SG('--describe', '--group', 'nope', '--state'));
    for (const args of [
      SG('--group', 'x'),
      SG('--describe'),
      SG('--describe', '--group', 'x', '--members', '--state'),
      SG('--delete'),
      SG('--delete', '--group', 'x', '--all-groups'),
      SG('--delete', '--group', 'x', '--topic', 'queue'),
      SG('--delete-offsets', '--group', 'x'),
      SG('--reset-offsets', '--group', 'x', '--to-earliest', '--topic', 'queue'),
      SG('--reset-offsets', '--group', 'x', '--to-earliest', '--topic', 'queue', '--dry-run', '--execute'),
      SG('--reset-offsets', '--group', 'x', '--to-earliest', '--dry-run'),
      SG('--list', '--group', 'x'),
      SG('--list', '--topic', 'queue'),
    ])
      await same(args, { stderr: true });
    // an active group is not reset: the message alone on stderr, exit 1
    await same(SG('--reset-offsets', '--group', 'live', '--to-earliest', '--topic', 'queue', '--dry-run'), {
      stderr: true,
    });
  });

  test('reset-offsets dry run and execute', async () => {
    for (const scenario of [
      ['--to-earliest', '--topic', 'queue'],
      ['--to-latest', '--all-topics'],
      ['--to-offset', '1', '--topic', 'queue:0'],
      ['--to-offset', '99', '--topic', 'queue'],
      ['--to-datetime', '2020-01-01T00:00:00.000', '--topic', 'queue'],
    ])
      await same(SG('--reset-offsets', '--group', 'done-k', ...scenario, '--dry-run'));
    await same(SG('--reset-offsets', '--group', 'done-k', '--to-earliest', '--all-topics', '--dry-run', '--export'));
    // --to-current: Kafka 4.4 fails with a NullPointerException for a partition without a start
    // offset (an empty one); tkafka plans the log end there, and the start offset elsewhere.
    const current = await runTkafka(
      'share-groups',
      SG('--reset-offsets', '--group', 'done-k', '--to-current', '--all-topics', '--dry-run', '--output', 'json'),
      {},
    );
    assert.equal(current.code, 0, current.err);
    assert.equal(JSON.parse(current.out).groups[0].offsets.length, 2);
    // execute: tkafka on done-k, Kafka on done-t; the same plan, and Kafka's describe sees both
    const t = await runTkafka(
      'share-groups',
      SG('--reset-offsets', '--group', 'done-k', '--to-offset', '1', '--topic', 'queue', '--execute'),
      {},
    );
    const k = await apache(
      SG('--reset-offsets', '--group', 'done-t', '--to-offset', '1', '--topic', 'queue', '--execute'),
    );
    assert.equal(t.code, k.code);
    assert.deepEqual(t.out.split('\n'), k.out.split('done-t').join('done-k').split('\n'));
    const described = await apache(SG('--describe', '--group', 'done-k'));
    // the partition holding records starts at 1 now (an empty one is clamped to its log end, 0)
    assert.match(described.out, /done-k\s+queue\s+[01]\s+1\s+/);
    const other = await apache(SG('--describe', '--group', 'done-t'));
    assert.deepEqual(described.out.split('\n'), other.out.split('done-t').join('done-k').split('\n'));
    await same(SG('--describe', '--group', 'done-t'));
  });

  test('delete-offsets and delete', async () => {
    // delete-offsets: tkafka on done-k, Kafka on done-t (same state); the output names no group
    const [t, k] = [
      await runTkafka('share-groups', SG('--delete-offsets', '--group', 'done-k', '--topic', 'queue'), {}),
      await apache(SG('--delete-offsets', '--group', 'done-t', '--topic', 'queue')),
    ];
    assert.equal(t.code, k.code);
    assert.deepEqual(t.out.split('\n'), k.out.split('\n'));
    await same(SG('--describe', '--group', 'done-k'));
    await same(SG('--delete-offsets', '--group', 'live', '--topic', 'queue'));
    await same(SG('--delete-offsets', '--group', 'nope', '--topic', 'queue'));
    // delete: an active group, a missing one, then the Empty ones
    await same(SG('--delete', '--group', 'live'));
    await same(SG('--delete', '--group', 'nope'));
    const [td, kd] = [
      await runTkafka('share-groups', SG('--delete', '--group', 'done-k'), {}),
      await apache(SG('--delete', '--group', 'done-t')),
    ];
    assert.equal(td.code, kd.code);
    assert.deepEqual(td.out.split('\n'), kd.out.split('done-t').join('done-k').split('\n'));
    await same(SG('--list'));
  });

  test(
    'console-share-consumer: each record once, --release redelivers, --reject archives',
    { timeout: 240_000 },
    async () => {
      const made = await kafkaTool('org.apache.kafka.tools.TopicCommand', [
        ...B(),
        '--create',
        '--topic',
        'cq',
        '--partitions',
        '1',
      ]);
      assert.equal(made.exitCode, 0, made.stderr);
      await target.waitForTopic('cq', 1);
      const produced = await kafkaTool('org.apache.kafka.tools.ConsoleProducer', [...B(), '--topic', 'cq'], {
        input: 'c1\nc2\nc3\nc4\nc5\n',
      });
      assert.equal(produced.exitCode, 0, produced.stderr);
      for (const g of ['tk-accept', 'tk-part', 'tk-release', 'tk-reject']) await groupConfig(g);
      const consume = (group: string, ...extra: string[]): Promise<Run> =>
        runTkafka('console-share-consumer', [...B(), '--topic', 'cq', '--group', group, ...extra], {});
      const values = (r: Run): string[] => r.out.split('\n').filter(Boolean).sort();
      const all = ['c1', 'c2', 'c3', 'c4', 'c5'];

      const first = await consume('tk-accept', '--max-messages', '5', '--timeout-ms', '30000');
      assert.equal(first.code, 0, first.err);
      assert.deepEqual(values(first), all);
      assert.match(first.err, /Processed a total of 5 messages\n$/);
      const again = await consume('tk-accept', '--timeout-ms', '3000');
      assert.equal(again.code, 0, again.err);
      assert.deepEqual(values(again), []);
      assert.match(
        again.err,
        /ERROR Error processing message, terminating consumer process: {2}\(org\.apache\.kafka\.tools\.consumer\.ConsoleShareConsumer\)\norg\.apache\.kafka\.common\.errors\.TimeoutException\nProcessed a total of 0 messages\n$/,
      );
      // Kafka's tool sees the group tkafka's consumer made
      assert.match((await apache(SG('--list'))).out, /^tk-accept$/m);
      await same(SG('--describe', '--group', 'tk-accept'));
      await same(SG('--describe', '--group', 'tk-accept', '--state'));
      // two of five records acknowledged (the others released as the consumer closes)
      const part = await consume('tk-part', '--max-messages', '2', '--timeout-ms', '30000');
      assert.equal(part.code, 0, part.err);
      assert.equal(values(part).length, 2);
      await same(SG('--describe', '--group', 'tk-part'));
      await same(SG('--describe', '--group', 'tk-part', '--verbose'));

      const released = await consume(
        'tk-release',
        '--release',
        '--max-messages',
        '5',
        '--timeout-ms',
        '30000',
        '--formatter-property',
        'print.delivery=true',
      );
      assert.deepEqual(
        values(released),
        all.map((v) => `Delivery:1\t${v}`),
      );
      const redelivered = await consume(
        'tk-release',
        '--max-messages',
        '5',
        '--timeout-ms',
        '30000',
        '--formatter-property',
        'print.delivery=true',
      );
      assert.deepEqual(
        values(redelivered),
        all.map((v) => `Delivery:2\t${v}`),
      );

      const rejected = await consume('tk-reject', '--reject', '--max-messages', '5', '--timeout-ms', '30000');
      assert.deepEqual(values(rejected), all);
      assert.deepEqual(values(await consume('tk-reject', '--timeout-ms', '3000')), []);
      // Kafka's console share consumer agrees: nothing left for tk-accept
      const k = await shareConsumer(['--topic', 'cq', '--group', 'tk-accept', '--timeout-ms', '3000']);
      assert.equal(k.code, 0, k.err);
      assert.equal(k.out, '');
    },
  );
}

for (const name of Object.keys(TARGETS) as Target['name'][]) describe(`on ${name}`, () => scenario(name));

// The brokers against each other: Kafka's tool's offsets tables (describe, reset-offsets plans) of
// the same scenario, LAG included; the LAG columns are printed.
test('both brokers: the same offsets tables', (t) => {
  const [kafka, tkafka] = [outputs.get('Apache Kafka 4.4.0')!, outputs.get('tkafka')!];
  const tables = [...kafka.keys()].filter(
    (k) =>
      tkafka.has(k) &&
      /--describe --group \S+( --offsets| --verbose)?$|--reset-offsets .*--dry-run$/.test(k) &&
      /START-OFFSET|NEW-OFFSET/.test(kafka.get(k)!),
  );
  assert.ok(tables.length >= 10, `offsets tables of both runs: ${tables.length}`);
  for (const k of tables) {
    const [a, b] = [kafka.get(k)!, tkafka.get(k)!];
    t.diagnostic(`${k}: LAG ${lags(a)} on Apache Kafka 4.4.0, ${lags(b)} on tkafka`);
    assert.equal(b, a, k);
  }
});
