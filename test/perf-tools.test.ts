// `tkafka producer-perf-test` and `tkafka consumer-perf-test` against a real broker: Kafka's flags,
// checks, messages and output lines (checked with regular expressions, the numbers with kafkajs),
// the live progress view under a pseudo-terminal and its absence when piped; Java's number and
// date formatting.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { javaFixed, simpleDateFormat } from '../src/tools/producer-perf-test/java-format.js';
import { Stats, splitPayloads } from '../src/tools/producer-perf-test/main.js';
import { headerLine, summaryLine } from '../src/tools/consumer-perf-test/main.js';

const { Kafka, logLevel } = kafkajs;
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let broker: BrokerProcess;
let admin: kafkajs.Admin;
let dir: string;

before(async () => {
  broker = await startBroker();
  admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: 'perf', numPartitions: 3 },
      { topic: 'perf-small', numPartitions: 1 },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'tkafka-perf-'));
});

after(async () => {
  await admin?.disconnect();
  await broker?.stop();
  broker?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const tk = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  execa('node', ['bin/tkafka', ...args], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 120_000,
    env: { NO_COLOR: '', ...env },
  });

/** argparse4j's justified, hyphen-broken error text as one line. */
const flat = (s: string): string => s.replace(/-\n/g, '-').replace(/\s+/g, ' ');

async function endOffsets(topic: string): Promise<bigint> {
  const offs = await admin.fetchTopicOffsets(topic);
  return offs.reduce((n, o) => n + BigInt(o.high), 0n);
}

const WINDOW =
  /^\d+ records sent, \d+\.\d records\/sec \(\d+\.\d\d MB\/sec\), \d+\.\d ms avg latency, \d+\.\d ms max latency\.$/;
const TOTAL = (n: number): RegExp =>
  new RegExp(
    `^${n} records sent, \\d+\\.\\d{6} records/sec \\(\\d+\\.\\d\\d MB/sec\\), \\d+\\.\\d\\d ms avg latency, \\d+\\.\\d\\d ms max latency, \\d+ ms 50th, \\d+ ms 95th, \\d+ ms 99th, \\d+ ms 99\\.9th\\.$`,
  );

test('Java formatting: %.Nf rounds half-up on the shortest decimal form; SimpleDateFormat patterns', () => {
  assert.equal(javaFixed(1.005, 2), '1.01');
  assert.equal(javaFixed(0.125, 2), '0.13');
  assert.equal(javaFixed(2.5, 0), '3');
  assert.equal(javaFixed(9.9999, 2), '10.00');
  assert.equal(javaFixed(-1.25, 1), '-1.3');
  assert.equal(javaFixed(1e-7, 4), '0.0000');
  assert.equal(javaFixed(123456789.5, 1), '123456789.5');
  assert.equal(javaFixed(1e21, 1), '1000000000000000000000.0');
  assert.equal(javaFixed(Infinity, 4), 'Infinity');
  assert.equal(javaFixed(NaN, 4), 'NaN');
  assert.equal(javaFixed(46349.942063, 6), '46349.942063');
  const d = new Date(2024, 9, 25, 9, 5, 7, 42).getTime();
  assert.equal(simpleDateFormat('yyyy-MM-dd HH:mm:ss:SSS')(d), '2024-10-25 09:05:07:042');
  assert.equal(simpleDateFormat("dd/MM/yy 'at' h a")(d), '25/10/24 at 9 AM');
  assert.throws(() => simpleDateFormat('yyyy-qq'), /Illegal pattern character 'q'/);
});

test('ProducerPerformance.Stats: window and total lines, percentiles', () => {
  let now = 0;
  const lines: string[] = [];
  const s = new Stats(
    10,
    (l) => lines.push(l),
    () => now,
  );
  for (let i = 0; i < 10; i++) {
    now += 600;
    s.record(i + 1, 100, now);
  }
  assert.equal(lines.length, 1);
  assert.equal(lines[0], '9 records sent, 1.7 records/sec (0.00 MB/sec), 5.0 ms avg latency, 9.0 ms max latency.');
  assert.equal(
    s.totalLine(),
    '10 records sent, 1.666667 records/sec (0.00 MB/sec), 5.50 ms avg latency, 10.00 ms max latency, 6 ms 50th, 10 ms 95th, 10 ms 99th, 10 ms 99.9th.',
  );
  assert.deepEqual(splitPayloads('a\nb\n\nc\n', '\n').map(String), ['a', 'b', '', 'c']);
  assert.deepEqual(splitPayloads('x;y', ';').map(String), ['x', 'y']);
});

test('producer-perf-test: usage and checks as Kafka', async () => {
  const none = await tk(['producer-perf-test']);
  assert.equal(none.exitCode, 0);
  assert.match(none.stdout, /^usage: producer-performance \[-h\] --topic TOPIC --num-records NUM-RECORDS/);
  const help = await tk(['producer-perf-test', '-h']);
  assert.equal(help.exitCode, 1, 'Kafka 4.0 exits 1 after -h');
  assert.match(help.stdout, /This\s+tool\s+is\s+used\s+to\s+verify\s+the\s+producer\s+performance/);
  const noPayload = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '5',
    '--throughput',
    '-1',
    '--producer-props',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(noPayload.exitCode, 1);
  assert.match(
    flat(noPayload.stderr),
    /producer-performance: error: one of the arguments --record-size --payload-file --payload-monotonic is required/,
  );
  const zero = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '0',
    '--throughput',
    '-1',
    '--record-size',
    '10',
    '--producer-props',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(zero.exitCode, 1);
  assert.match(flat(zero.stderr), /producer-performance: error: --num-records should be greater than zero/);
  const noProps = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '5',
    '--throughput',
    '-1',
    '--record-size',
    '10',
  ]);
  assert.equal(noProps.exitCode, 1);
  assert.match(flat(noProps.stderr), /Either --producer-props or --producer.config must be specified\./);
  const badProp = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '5',
    '--throughput',
    '-1',
    '--record-size',
    '10',
    '--producer-props',
    'acks',
  ]);
  assert.equal(badProp.exitCode, 1);
  assert.match(flat(badProp.stderr), /Invalid property: acks/);
  const both = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '5',
    '--throughput',
    '-1',
    '--record-size',
    '10',
    '--payload-monotonic',
    '--producer-props',
    'acks=1',
  ]);
  assert.equal(both.exitCode, 1);
  assert.match(flat(both.stderr), /not allowed with argument/);
});

test("producer-perf-test: sends the records and prints Kafka's lines (piped: no live view)", async () => {
  const before = await endOffsets('perf');
  const r = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '20000',
    '--record-size',
    '64',
    '--throughput',
    '-1',
    '--producer-props',
    `bootstrap.servers=${broker.bootstrap}`,
    'acks=1',
    'linger.ms=2',
    '--print-metrics',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.ok(!/\x1b/.test(r.stdout), 'no escape sequences when piped');
  const lines = r.stdout.split('\n');
  const total = lines.find((l) => /^20000 records sent/.test(l));
  assert.ok(total, r.stdout);
  assert.match(total, TOTAL(20000));
  for (const l of lines.filter((x) => / records sent, /.test(x) && x !== total)) assert.match(l, WINDOW);
  assert.ok(lines.includes(''), 'a blank line before the metrics');
  assert.match(r.stdout, /^Metric Name\s+Value$/m);
  assert.match(r.stdout, /^producer-metrics:record-send-total:\{client-id=perf-producer-client\}\s+: 20000\.000$/m);
  assert.equal((await endOffsets('perf')) - before, 20000n);
});

test('producer-perf-test: payload file and monotonic payloads', async () => {
  const file = join(dir, 'payloads.txt');
  writeFileSync(file, 'alpha\nbeta\ngamma\n');
  const r = await tk([
    'producer-perf-test',
    '--topic',
    'perf-small',
    '--num-records',
    '30',
    '--payload-file',
    file,
    '--throughput',
    '1000',
    '--producer-props',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], `Reading payloads from: ${file}`);
  assert.equal(lines[1], 'Number of messages read: 3');
  assert.match(lines[lines.length - 1]!, TOTAL(30));
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '');
  const e = await tk([
    'producer-perf-test',
    '--topic',
    'perf-small',
    '--num-records',
    '3',
    '--payload-file',
    empty,
    '--throughput',
    '-1',
    '--producer-props',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(e.exitCode, 1);
  assert.match(e.stderr, /File does not exist or empty file provided\./);
  // bootstrap.servers may come from the environment (tkafka).
  const m = await tk(
    [
      'producer-perf-test',
      '--topic',
      'perf-small',
      '--num-records',
      '10',
      '--payload-monotonic',
      '--throughput',
      '-1',
      '--producer-props',
      'acks=all',
    ],
    { TKAFKA_BOOTSTRAP_SERVER: broker.bootstrap },
  );
  assert.equal(m.exitCode, 0, m.stderr);
  assert.match(m.stdout.trim(), TOTAL(10));
});

test('consumer-perf-test: usage, summary row, detailed rows, timeout warning', async () => {
  const missing = await tk(['consumer-perf-test', '--bootstrap-server', broker.bootstrap, '--messages', '10']);
  assert.equal(missing.exitCode, 1);
  assert.match(missing.stderr, /^Missing required argument "\[topic\]"\nOption\s+Description/);
  const badInterval = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf',
    '--messages',
    '10',
    '--reporting-interval',
    '-5',
  ]);
  assert.equal(badInterval.exitCode, 1);
  assert.match(badInterval.stderr, /Cannot parse argument '-5' of option reporting-interval/);

  const n = Number(await endOffsets('perf'));
  assert.ok(n >= 20000);
  const r = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf',
    '--messages',
    String(n),
    '--timeout',
    '20000',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  const [header, row] = r.stdout.trim().split('\n');
  assert.equal(header, headerLine(false));
  const cells = row!.split(', ');
  assert.equal(cells.length, 10, row);
  assert.match(cells[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}$/);
  assert.equal(Number(cells[4]), n, 'every record consumed');
  for (const i of [2, 3, 5, 8, 9]) assert.match(cells[i]!, /^(\d+\.\d{4}|Infinity|NaN)$/, `cell ${i}: ${cells[i]}`);
  assert.match(cells[6]!, /^\d+$/);

  const detailed = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf-small',
    '--messages',
    '40',
    '--show-detailed-stats',
    '--reporting-interval',
    '1',
    '--hide-header',
    '--group',
    'perf-detailed',
    '--timeout',
    '20000',
  ]);
  assert.equal(detailed.exitCode, 0, detailed.stderr);
  assert.ok(!detailed.stdout.includes('start.time'), 'header hidden, no summary with --show-detailed-stats');

  const short = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf-small',
    '--messages',
    '1000',
    '--timeout',
    '1500',
  ]);
  assert.equal(short.exitCode, 0, short.stderr);
  assert.match(
    short.stdout,
    /^WARNING: Exiting before consuming the expected number of messages: timeout \(1500 ms\) exceeded\. You can use the --timeout option to increase the timeout\.$/m,
  );
  const summary = short.stdout.trim().split('\n').pop()!;
  assert.equal(Number(summary.split(', ')[4]), 40);
});

test("consumer-perf-test summary arithmetic matches Kafka's format", () => {
  const f = simpleDateFormat('HH:mm:ss:SSS');
  const line = summaryLine({
    startMs: 0,
    endMs: 2000,
    bytes: 1024 * 1024,
    messages: 1000,
    joinTimeMs: 1000,
    format: () => 't',
  });
  assert.equal(line, 't, t, 1.0000, 0.5000, 1000, 500.0000, 1000, 1000, 1.0000, 1000.0000');
  assert.ok(f(0).length > 0);
});

test(
  'under a terminal the perf tests draw a progress view; NO_COLOR keeps the plain lines',
  { skip: !has('script') },
  async () => {
    const cmd = `stty cols 120 rows 40; exec node bin/tkafka producer-perf-test --topic perf-small --num-records 3000 --record-size 10 --throughput 2000 --producer-props bootstrap.servers=${broker.bootstrap}`;
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color', LANG: 'C.UTF-8' };
    const live = await execa('script', ['-qfec', cmd, '/dev/null'], {
      cwd: REPO_ROOT,
      reject: false,
      timeout: 60_000,
      extendEnv: false,
      env,
    });
    assert.equal(live.exitCode, 0, live.stdout);
    const screen = live.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
    assert.ok(/\x1b\[/.test(live.stdout), 'escape sequences: a live view');
    assert.match(screen, /Producing to perf-small/);
    assert.match(screen, /3,000 \/ 3,000 records/);
    assert.match(screen, /^3000 records sent, .* 99\.9th\.$/m);
    const plain = await execa('script', ['-qfec', cmd, '/dev/null'], {
      cwd: REPO_ROOT,
      reject: false,
      timeout: 60_000,
      extendEnv: false,
      env: { ...env, NO_COLOR: '1' },
    });
    assert.equal(plain.exitCode, 0, plain.stdout);
    assert.ok(!/\x1b/.test(plain.stdout), JSON.stringify(plain.stdout));
    assert.match(plain.stdout.replace(/\r/g, ''), TOTAL(3000));
  },
);
