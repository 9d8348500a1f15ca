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
import { boundPorts, startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { javaFixed, simpleDateFormat } from '../src/tools/producer-perf-test/java-format.js';
import { Stats, splitPayloads } from '../src/tools/producer-perf-test/main.js';
import { headerLine, summaryLine } from '../src/tools/consumer-perf-test/main.js';

const { Kafka, logLevel } = kafkajs;
const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

let broker: BrokerProcess;
let admin: kafkajs.Admin;
let dir: string;
/** The broker's SASL_PLAINTEXT listener (PLAIN, user alice). */
let saslBootstrap: string;

const PLAIN_JAAS = (user: string, password: string): string =>
  `org.apache.kafka.common.security.plain.PlainLoginModule required username="${user}" password="${password}";`;

before(async () => {
  const names = ['PLAINTEXT', 'CONTROLLER', 'SASL_PLAINTEXT'];
  broker = await startBroker({
    overrides: {
      listeners: names.map((n) => `${n}://127.0.0.1:0`).join(','),
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
      'sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl_plaintext.plain.sasl.jaas.config':
        'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
    },
  });
  saslBootstrap = `127.0.0.1:${boundPorts(broker.output(), names)!.get('SASL_PLAINTEXT')!}`;
  admin = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: 'perf', numPartitions: 3 },
      { topic: 'perf-small', numPartitions: 1 },
      { topic: 'perf-sasl', numPartitions: 2 },
      { topic: 'perf-keys', numPartitions: 1 },
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
  // --warmup-records: the steady-state Stats announces itself in its first window and its total.
  now = 0;
  const steadyLines: string[] = [];
  const steady = new Stats(
    4,
    (l) => steadyLines.push(l),
    () => now,
    1000,
    true,
  );
  for (let i = 0; i < 4; i++) {
    now += 600;
    steady.record(2, 100, now);
  }
  assert.deepEqual(steadyLines, [
    'In steady state.',
    '2 records sent, 1.7 records/sec (0.00 MB/sec), 2.0 ms avg latency, 2.0 ms max latency.',
    '2 records sent, 1.7 records/sec (0.00 MB/sec), 2.0 ms avg latency, 2.0 ms max latency.',
  ]);
  assert.match(steady.totalLine(), /^4 steady state records sent, 1\.666667 records\/sec /);
  const quiet: string[] = [];
  const warm = new Stats(
    4,
    (l) => quiet.push(l),
    () => now,
    1,
  );
  warm.suppressPrinting();
  warm.record(1, 1, now + 5);
  assert.deepEqual(quiet, []);
  assert.deepEqual(splitPayloads('a\nb\n\nc\n', '\n').map(String), ['a', 'b', '', 'c']);
  assert.deepEqual(splitPayloads('x;y', ';').map(String), ['x', 'y']);
});

test('producer-perf-test: usage and checks as Kafka', async () => {
  const none = await tk(['producer-perf-test']);
  assert.equal(none.exitCode, 0);
  assert.match(
    none.stdout,
    /^usage: kafka-producer-perf-test\s+\[-h\]\s+\[--bootstrap-server BOOTSTRAP-SERVER\]\s+--topic TOPIC\s+--num-records NUM-RECORDS/,
  );
  const help = await tk(['producer-perf-test', '-h']);
  assert.equal(help.exitCode, 1, 'Kafka 4.4 exits 1 after -h');
  assert.match(help.stdout, /This\s+tool\s+is\s+used\s+to\s+verify\s+the\s+producer\s+performance/);
  const noPayload = await tk([
    'producer-perf-test',
    '--topic',
    'perf',
    '--num-records',
    '5',
    '--throughput',
    '-1',
    '--command-property',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(noPayload.exitCode, 1);
  assert.match(
    flat(noPayload.stderr),
    /kafka-producer-perf-test: error: one of the arguments --record-size --payload-file --payload-monotonic is required/,
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
    '--command-property',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(zero.exitCode, 1);
  assert.match(flat(zero.stderr), /kafka-producer-perf-test: error: --num-records should be greater than zero\./);
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
  assert.match(
    flat(noProps.stderr),
    /kafka-producer-perf-test: error: At least one of --bootstrap-server, --command-property, --producer-props, --producer\.config or --command-config must be specified\./,
  );
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
    '--command-property',
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
    '--command-property',
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
    '--command-property',
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
    '--command-property',
    `bootstrap.servers=${broker.bootstrap}`,
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], `Reading payloads from: ${file}`);
  assert.equal(lines[1], 'Number of records read: 3');
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
    '--command-property',
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
      '--command-property',
      'acks=all',
    ],
    { TKAFKA_BOOTSTRAP_SERVER: broker.bootstrap },
  );
  assert.equal(m.exitCode, 0, m.stderr);
  assert.match(m.stdout.trim(), TOTAL(10));
});

test('consumer-perf-test: usage, summary row, detailed rows, timeout warning', async () => {
  const missing = await tk(['consumer-perf-test', '--bootstrap-server', broker.bootstrap, '--num-records', '10']);
  assert.equal(missing.exitCode, 1);
  assert.match(
    missing.stderr,
    /^Exactly one of the following arguments is required: \[topic\], \[include\]\nOption\s+Description/,
  );
  const badInterval = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf',
    '--num-records',
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
    '--num-records',
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
    '--num-records',
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
    '--num-records',
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
    const cmd = `stty cols 120 rows 40; exec node bin/tkafka producer-perf-test --topic perf-small --num-records 3000 --record-size 10 --throughput 2000 --command-property bootstrap.servers=${broker.bootstrap}`;
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

/** A client properties file for the SASL_PLAINTEXT listener. */
function saslConfig(name: string, password: string): string {
  const file = join(dir, `${name}.properties`);
  writeFileSync(
    file,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=PLAIN',
      `sasl.jaas.config=${PLAIN_JAAS('alice', password)}`,
      '',
    ].join('\n'),
  );
  return file;
}

const produceArgs = (extra: string[]): string[] => [
  'producer-perf-test',
  '--topic',
  'perf-small',
  '--num-records',
  '5',
  '--throughput',
  '-1',
  '--record-size',
  '10',
  ...extra,
];

test('producer-perf-test: Kafka 4.4 flags --command-property / --command-config / --bootstrap-server / --reporting-interval', async () => {
  const help = await tk(['producer-perf-test', '-h']);
  for (const flag of ['--bootstrap-server', '--command-property', '--command-config', '--reporting-interval'])
    assert.ok(help.stdout.includes(flag), flag);
  assert.match(flat(help.stdout), /\(DEPRECATED\) Producer config properties file\./);
  const cfg = join(dir, 'producer.properties');
  writeFileSync(cfg, 'acks=1\n');
  const cases: [string[], RegExp][] = [
    [
      ['--command-property', 'acks=1', '--producer-props', 'acks=1'],
      /--command-property and --producer-props cannot be specified together\./,
    ],
    [
      ['--command-config', cfg, '--producer.config', cfg],
      /--command-config and --producer\.config cannot be specified together\./,
    ],
    [
      ['--bootstrap-server', broker.bootstrap, '--transaction-duration-ms', '0'],
      /--transaction-duration-ms should be greater than zero\./,
    ],
    [
      ['--bootstrap-server', broker.bootstrap, '--reporting-interval', '0'],
      /--reporting-interval should be greater than zero\./,
    ],
    [
      ['--bootstrap-server', broker.bootstrap, '--warmup-records', '5'],
      /The value for --warmup-records must be strictly fewer than the number of records in the test, --num-records\./,
    ],
    [
      ['--bootstrap-server', broker.bootstrap, '--key-distribution', 'range'],
      /--record-key-range is required when --key-distribution is 'range' or 'random'\./,
    ],
    [
      ['--bootstrap-server', broker.bootstrap, '--record-key-range', '3'],
      /--key-distribution must be 'range' or 'random' when --record-key-range is specified\./,
    ],
    [
      ['--bootstrap-server', broker.bootstrap, '--record-key-range', '0', '--key-distribution', 'random'],
      /--record-key-range should be greater than zero\./,
    ],
    [['--bootstrap-server', broker.bootstrap, '--key-distribution', 'hash'], /invalid choice: 'hash'/],
  ];
  for (const [extra, message] of cases) {
    const r = await tk(produceArgs(extra));
    assert.equal(r.exitCode, 1, extra.join(' '));
    assert.match(flat(r.stderr), message, extra.join(' '));
  }

  // --bootstrap-server alone is enough; it wins over bootstrap.servers of the file and properties.
  const before = await endOffsets('perf-small');
  const direct = await tk(
    produceArgs([
      '--bootstrap-server',
      broker.bootstrap,
      '--command-property',
      'bootstrap.servers=127.0.0.1:1',
      '--reporting-interval',
      '1',
    ]),
  );
  assert.equal(direct.exitCode, 0, direct.stderr);
  assert.ok(!direct.stdout.includes('deprecated'), direct.stdout);
  assert.match(direct.stdout.trim().split('\n').pop()!, TOTAL(5));
  assert.equal((await endOffsets('perf-small')) - before, 5n);

  // The deprecated flags still work, with Kafka's notice on stdout.
  const old = await tk(
    produceArgs(['--producer-props', `bootstrap.servers=${broker.bootstrap}`, '--producer.config', cfg]),
  );
  assert.equal(old.exitCode, 0, old.stderr);
  const lines = old.stdout.trim().split('\n');
  assert.deepEqual(lines.slice(0, 2), [
    'Option --producer-props has been deprecated and will be removed in a future version. Use --command-property instead.',
    'Option --producer.config has been deprecated and will be removed in a future version. Use --command-config instead.',
  ]);
  assert.match(lines.pop()!, TOTAL(5));
});

test('consumer-perf-test: Kafka 4.4 flags --num-records / --include / --command-config / --command-property', async () => {
  const base = ['consumer-perf-test', '--bootstrap-server', broker.bootstrap];
  const cfg = join(dir, 'consumer.properties');
  writeFileSync(cfg, 'client.id=from-file\n');
  const usage: [string[], string][] = [
    [['--topic', 'perf-small'], 'Exactly one of the following arguments is required: [messages], [num-records]'],
    [
      ['--topic', 'perf-small', '--messages', '1', '--num-records', '1'],
      'Exactly one of the following arguments is required: [messages], [num-records]',
    ],
    [
      ['--topic', 'perf-small', '--include', 'perf.*', '--num-records', '1'],
      'Exactly one of the following arguments is required: [topic], [include]',
    ],
    [
      ['--topic', 'perf-small', '--num-records', '1', '--consumer.config', cfg, '--command-config', cfg],
      'Option "[consumer.config]" can\'t be used with option "[command-config]"',
    ],
  ];
  for (const [extra, message] of usage) {
    const r = await tk([...base, ...extra]);
    assert.equal(r.exitCode, 1, extra.join(' '));
    assert.ok(r.stderr.startsWith(`${message}\nOption`), r.stderr);
  }
  const help = await tk(['consumer-perf-test', '--help']);
  const helpText = help.stderr.replace(/\s+/g, ' ');
  assert.match(helpText, /--num-records <Long: count> REQUIRED: The number of records to consume\./);
  assert.match(helpText, /--include <String: Java regex \(String\)> Regular expression specifying list of topics/);
  assert.match(helpText, /--command-property <String: prop1=val1> Kafka consumer related configuration properties/);

  // The deprecated names: Kafka's warnings on stdout, before the header.
  const old = await tk([
    ...base,
    '--topic',
    'perf-small',
    '--messages',
    '10',
    '--consumer.config',
    cfg,
    '--print-metrics',
  ]);
  assert.equal(old.exitCode, 0, old.stderr);
  const lines = old.stdout.split('\n');
  assert.deepEqual(lines.slice(0, 3), [
    'Warning: --messages is deprecated. Use --num-records instead.',
    'Warning: --consumer.config is deprecated. Use --command-config instead.',
    headerLine(false),
  ]);
  assert.match(old.stdout, /\{client-id=from-file\}/, 'client.id from --consumer.config');

  // --include subscribes to a pattern: perf-small only (perf and perf-sasl do not match).
  const small = Number(await endOffsets('perf-small'));
  const inc = await tk([...base, '--include', 'perf-sm.*', '--num-records', String(small), '--timeout', '20000']);
  assert.equal(inc.exitCode, 0, inc.stderr);
  const [header, row] = inc.stdout.trim().split('\n');
  assert.equal(header, headerLine(false));
  assert.equal(Number(row!.split(', ')[4]), small);
});

test('the perf tools with --command-config through a SASL_PLAINTEXT listener', async () => {
  const good = saslConfig('sasl-good', 'alice-secret');
  const bad = saslConfig('sasl-bad', 'wrong');
  const produced = await tk([
    'producer-perf-test',
    '--bootstrap-server',
    saslBootstrap,
    '--command-config',
    good,
    '--topic',
    'perf-sasl',
    '--num-records',
    '500',
    '--record-size',
    '32',
    '--throughput',
    '-1',
  ]);
  assert.equal(produced.exitCode, 0, produced.stderr);
  assert.match(produced.stdout.trim().split('\n').pop()!, TOTAL(500));
  assert.equal(await endOffsets('perf-sasl'), 500n);

  const consumed = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    saslBootstrap,
    '--command-config',
    good,
    '--topic',
    'perf-sasl',
    '--num-records',
    '500',
    '--timeout',
    '20000',
  ]);
  assert.equal(consumed.exitCode, 0, consumed.stderr);
  assert.equal(Number(consumed.stdout.trim().split('\n').pop()!.split(', ')[4]), 500);

  // --command-property wins over the file: the file's wrong password is replaced.
  const overridden = await tk([
    'consumer-perf-test',
    '--bootstrap-server',
    saslBootstrap,
    '--command-config',
    bad,
    '--command-property',
    `sasl.jaas.config=${PLAIN_JAAS('alice', 'alice-secret')}`,
    '--topic',
    'perf-sasl',
    '--num-records',
    '500',
    '--timeout',
    '20000',
  ]);
  assert.equal(overridden.exitCode, 0, overridden.stderr);
  assert.equal(Number(overridden.stdout.trim().split('\n').pop()!.split(', ')[4]), 500);

  // A wrong password fails: the file's SASL settings are what the client uses.
  const refused = await tk([
    'producer-perf-test',
    '--bootstrap-server',
    saslBootstrap,
    '--command-config',
    bad,
    '--topic',
    'perf-sasl',
    '--num-records',
    '5',
    '--record-size',
    '8',
    '--throughput',
    '-1',
  ]);
  assert.equal(refused.exitCode, 1);
  assert.match(refused.stderr, /Authentication failed/i);
  assert.equal(await endOffsets('perf-sasl'), 500n);
});

test('producer-perf-test: --key-distribution range|random keys the records in [0, KEY-RANGE)', async () => {
  const produce = (dist: string, n: number) =>
    tk([
      'producer-perf-test',
      '--bootstrap-server',
      broker.bootstrap,
      '--topic',
      'perf-keys',
      '--num-records',
      String(n),
      '--payload-monotonic',
      '--throughput',
      '-1',
      '--record-key-range',
      '3',
      '--key-distribution',
      dist,
      '--random-seed',
      '42',
    ]);
  const range = await produce('range', 6);
  assert.equal(range.exitCode, 0, range.stderr);
  const random = await produce('random', 20);
  assert.equal(random.exitCode, 0, random.stderr);
  const read = await tk([
    'console-consumer',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf-keys',
    '--from-beginning',
    '--max-messages',
    '26',
    '--formatter-property',
    'print.key=true',
    '--timeout-ms',
    '20000',
  ]);
  assert.equal(read.exitCode, 0, read.stderr);
  const rows = read.stdout
    .trim()
    .split('\n')
    .map((l) => l.split('\t'));
  assert.equal(rows.length, 26, read.stdout);
  assert.deepEqual(
    rows.slice(0, 6).map(([k, v]) => `${k}:${v}`),
    ['0:0', '1:1', '2:2', '0:3', '1:4', '2:5'],
  );
  for (const [k] of rows.slice(6)) assert.match(k!, /^[012]$/);
});

test('producer-perf-test: --warmup-records prints the steady-state summary after the total', async () => {
  const r = await tk([
    'producer-perf-test',
    '--bootstrap-server',
    broker.bootstrap,
    '--topic',
    'perf-small',
    '--num-records',
    '2000',
    '--warmup-records',
    '500',
    '--record-size',
    '16',
    '--throughput',
    '-1',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines[0], 'Warmup first 500 records. Steady state results will print after the complete test summary.');
  assert.match(lines.at(-2)!, TOTAL(2000));
  assert.match(
    lines.at(-1)!,
    /^1500 steady state records sent, \d+\.\d{6} records\/sec \(\d+\.\d\d MB\/sec\), \d+\.\d\d ms avg latency, \d+\.\d\d ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.$/,
  );
});
