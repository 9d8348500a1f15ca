// `tkafka consumer-groups --describe --group G --watch`: under a pseudo-terminal (script(1)) the ink
// view refreshes a few times and shows the lag per partition and the total lag that an independent
// client (kafkajs) computes; piped, with --no-tty or with NO_COLOR it prints plain logfmt lines
// with the same numbers and no escape sequences. Also the lag model's rates.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { screenText, tkafkaUnderPty } from './helpers/pty.js';
import { LagTracker, plainLines } from '../src/tools/common/live/lag-model.js';

const { Kafka, logLevel } = kafkajs;
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let broker: BrokerProcess;
const TOPIC = 'watched';
const GROUP = 'watchers';
/** partition → [committed, log end] as kafkajs sees them. */
let expected: Map<number, [bigint, bigint]>;

const ESC = /\x1b/;
const strip = screenText;

before(async () => {
  broker = await startBroker();
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }] });
  const producer = kafka.producer();
  await producer.connect();
  const counts = [30, 20, 12];
  for (let p = 0; p < 3; p++) {
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: counts[p]! }, (_, i) => ({ partition: p, value: `v${i}` })),
    });
  }
  await producer.disconnect();
  await admin.setOffsets({
    groupId: GROUP,
    topic: TOPIC,
    partitions: [
      { partition: 0, offset: '5' },
      { partition: 1, offset: '20' },
      { partition: 2, offset: '2' },
    ],
  });
  // The independent view: committed offsets and log end offsets from kafkajs.
  const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
  const ends = await admin.fetchTopicOffsets(TOPIC);
  expected = new Map();
  for (const e of ends) {
    const c = committed[0]!.partitions.find((x) => x.partition === e.partition)!;
    expected.set(e.partition, [BigInt(c.offset), BigInt(e.high)]);
  }
  await admin.disconnect();
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

const totalLag = (): bigint => [...expected.values()].reduce((n, [c, e]) => n + (e - c), 0n);
const watchArgs = (extra: string[] = []): string[] => [
  'bin/tkafka',
  'consumer-groups',
  '--bootstrap-server',
  broker.bootstrap,
  '--describe',
  '--group',
  GROUP,
  '--watch',
  '0.4',
  ...extra,
];

/** Runs the watch inside a pseudo-terminal for a few refreshes; returns what the terminal received. */
const underPty = (
  extraArgs: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<{ raw: string; exitCode: number | undefined }> =>
  tkafkaUnderPty(watchArgs(extraArgs).slice(1), { TKAFKA_WATCH_COUNT: '4', ...env });

test(
  'the watch view under a terminal shows the lag kafkajs computes, refreshing',
  { skip: !has('script') },
  async () => {
    const { raw, exitCode } = await underPty();
    assert.equal(exitCode, 0, raw);
    assert.ok(ESC.test(raw), 'the terminal received escape sequences (a live view)');
    const screen = strip(raw);
    const refreshes = screen.match(/Ctrl-C to quit/g)?.length ?? 0;
    assert.ok(refreshes >= 2, `several refreshes drawn (${refreshes}):\n${screen}`);
    assert.match(screen, new RegExp(`Consumer group ${GROUP}\\s+Empty`));
    // The last frame: one row per partition with current offset, log end offset and lag.
    const last = screen.slice(screen.lastIndexOf('Ctrl-C to quit'));
    for (const [p, [c, e]] of expected) {
      assert.match(
        last,
        new RegExp(`^${TOPIC}\\s+${p}\\s+${c}\\s+${e}\\s+${e - c}\\s`, 'm'),
        `partition ${p} in:\n${last}`,
      );
    }
    const total = /Total lag ([\d,]+)/.exec(last);
    assert.ok(total, last);
    assert.equal(BigInt(total[1]!.replace(/,/g, '')), totalLag());
    assert.match(last, /\(0\.0\/s\)/, 'nothing changes: the lag rate is 0');
  },
);

test('piped, the watch prints plain logfmt lines with the same numbers', async () => {
  const r = await execa('node', watchArgs(), {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 60_000,
    env: { TKAFKA_WATCH_COUNT: '2' },
  });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.ok(!ESC.test(r.stdout), 'no escape sequences');
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 2 * (expected.size + 1), r.stdout);
  for (const [p, [c, e]] of expected) {
    const rows = lines.filter((l) => l.includes(`partition=${p} `));
    assert.equal(rows.length, 2);
    for (const row of rows) {
      assert.match(
        row,
        new RegExp(
          `^time=\\S+Z group=${GROUP} topic=${TOPIC} partition=${p} current-offset=${c} log-end-offset=${e} lag=${e - c} lag-rate=\\S+ consumer-id=-$`,
        ),
      );
    }
  }
  const totals = lines.filter((l) => l.includes('total-lag='));
  assert.equal(totals.length, 2);
  assert.match(
    totals[0]!,
    new RegExp(`group=${GROUP} state=Empty total-lag=${totalLag()} lag-rate=- consume-rate=- produce-rate=-$`),
  );
  assert.match(totals[1]!, new RegExp(`total-lag=${totalLag()} lag-rate=0\\.0 consume-rate=0\\.0 produce-rate=0\\.0$`));
});

test('--no-tty and NO_COLOR give the plain lines even on a terminal', { skip: !has('script') }, async () => {
  for (const [args, env] of [
    [['--no-tty'], {}],
    [[], { NO_COLOR: '1' }],
  ] as const) {
    const { raw, exitCode } = await underPty([...args], { ...env, TKAFKA_WATCH_COUNT: '2' });
    assert.equal(exitCode, 0, raw);
    const text = raw.replace(/\r/g, '');
    assert.ok(!ESC.test(text), `plain output for ${JSON.stringify([args, env])}:\n${JSON.stringify(text)}`);
    assert.equal(text.match(/ total-lag=/g)?.length, 2, text);
    assert.ok(text.includes(`total-lag=${totalLag()} `));
  }
});

test('--watch needs --describe and a positive interval', async () => {
  const a = await execa(
    'node',
    ['bin/tkafka', 'consumer-groups', '--bootstrap-server', broker.bootstrap, '--list', '--watch'],
    { cwd: REPO_ROOT, reject: false, timeout: 30_000 },
  );
  assert.equal(a.exitCode, 1);
  assert.match(a.stderr, /Option\(s\) \[watch\] are unavailable given other options on the command line/);
  const b = await execa(
    'node',
    watchArgs(['--watch', '0']).filter((x, i, arr) => !(x === '0.4' && arr[i - 1] === '--watch')),
    { cwd: REPO_ROOT, reject: false, timeout: 30_000 },
  );
  assert.equal(b.exitCode, 1);
});

test('lag model: rates over the window, totals, plain lines', () => {
  const t = new LagTracker(10_000);
  const row = (p: number, c: bigint, e: bigint) => ({
    topic: 't',
    partition: p,
    currentOffset: c,
    logEndOffset: e,
    lag: e - c,
    consumerId: null,
  });
  const f1 = t.add({
    at: 1_000,
    groups: [{ group: 'g', state: 'Stable', offsets: [row(0, 10n, 20n), row(1, 0n, 5n)] }],
  });
  assert.equal(f1.groups[0]!.totalLag, 15n);
  assert.equal(f1.groups[0]!.lagRate, null);
  const f2 = t.add({
    at: 3_000,
    groups: [{ group: 'g', state: 'Stable', offsets: [row(0, 30n, 26n + 4n), row(1, 5n, 5n)] }],
  });
  // partition 0: consumed 20, produced 10; partition 1: consumed 5 → lag 15 → 0 in 2 s.
  assert.equal(f2.groups[0]!.totalLag, 0n);
  assert.equal(f2.groups[0]!.lagRate, -7.5);
  assert.equal(f2.groups[0]!.consumeRate, 12.5);
  assert.equal(f2.groups[0]!.produceRate, 5);
  assert.deepEqual(f2.groups[0]!.history, [15, 0]);
  const lines = plainLines(f2);
  assert.equal(lines.length, 3);
  assert.match(lines[2]!, /group=g state=Stable total-lag=0 lag-rate=-7\.5 consume-rate=12\.5 produce-rate=5\.0$/);
  const f3 = t.add({ at: 4_000, groups: [], error: 'connection refused' });
  assert.equal(f3.error, 'connection refused');
  assert.match(plainLines(f3)[0]!, /error="connection refused"$/);
});
