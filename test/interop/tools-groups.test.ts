// tkafka consumer-groups, console-producer and console-consumer against a real Apache Kafka 4.4
// broker, compared line by line with Kafka's own tool classes (ConsumerGroupCommand,
// ConsoleProducer, ConsoleConsumer) for the same cluster state. Groups: Empty ones made by Kafka's
// and tkafka's console consumers, active classic groups (a Kafka and a tkafka console consumer in
// the background) and an active consumer-protocol group (KIP-848). Exit codes are Kafka's except
// where tkafka deliberately exits 1 after printing Kafka's `Error:` lines (Kafka exits 0).
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { TOOL_JVM_FLAGS, kafkaLibDir, startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import type { ToolIO } from '../../src/tools/common/io.js';
import { waitFor } from '../helpers/wait-for.js';

const CLASSES: Record<string, string> = {
  'consumer-groups': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  'console-producer': 'org.apache.kafka.tools.ConsoleProducer',
  'console-consumer': 'org.apache.kafka.tools.consumer.ConsoleConsumer',
};

interface Run {
  code: number;
  out: string;
  err: string;
}

let kafka: ApacheKafka;
let dir: string;
const background: ChildProcess[] = [];

async function tkafka(tool: string, args: string[], input = ''): Promise<Run> {
  const mod = (await import(`../../src/tools/${tool}/main.js`)) as { run(argv: string[], io: ToolIO): Promise<number> };
  const out: Buffer[] = [];
  let err = '';
  const stdout = new Writable({
    write(c, _e, cb) {
      out.push(Buffer.from(c));
      cb();
    },
  });
  const stderr = new Writable({
    write(c, _e, cb) {
      err += String(c);
      cb();
    },
  });
  const code = await mod.run(args, { stdout, stderr, stdin: Readable.from([Buffer.from(input)]), env: {} });
  return { code, out: Buffer.concat(out).toString('utf8'), err };
}

async function apache(tool: string, args: string[], input = ''): Promise<Run> {
  const r = await kafka.runTool(CLASSES[tool]!, args, { input });
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/** stderr without log4j lines and stack traces (tkafka prints neither). */
const errorLines = (err: string): string[] =>
  err
    .split('\n')
    .filter(
      (l) =>
        l !== '' &&
        !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more|^Exception in thread|^java\.|^org\.apache\.kafka\.common\.errors\.|^joptsimple\./.test(
          l,
        ),
    );

/** Same stdout lines; exit codes equal, or Kafka 0 / tkafka 1 where Kafka printed `Error:` and exited 0. */
async function same(
  tool: string,
  args: string[],
  opts: { stderr?: boolean; rename?: [string, string]; unordered?: boolean } = {},
): Promise<Run> {
  const [k, t] = [await apache(tool, args), await tkafka(tool, args)];
  const label = `${tool} ${args.slice(2).join(' ')}`;
  const errored = /^Error: /m.test(k.out);
  assert.equal(
    t.code,
    errored && k.code === 0 ? 1 : k.code,
    `${label}: exit code (kafka ${k.code}, stderr: ${k.err.slice(0, 400)}; tkafka stderr: ${t.err})`,
  );
  const lines = (s: string): string[] => (opts.unordered ? s.split('\n').sort() : s.split('\n'));
  assert.deepEqual(lines(t.out), lines(k.out), `${label}: stdout`);
  if (opts.stderr)
    assert.deepEqual(
      errorLines(t.err).filter((l) => !l.startsWith('Error: ')),
      errorLines(k.err),
      `${label}: stderr`,
    );
  return t;
}

const B = (): string[] => ['--bootstrap-server', kafka.bootstrap];
const CG = (...a: string[]): string[] => [...B(), ...a];

function startBackground(cmd: string, args: string[]): void {
  const c = spawn(cmd, args, { cwd: REPO_ROOT, stdio: 'ignore' });
  background.push(c);
}

/** Waits until the group has committed every partition it reads up to the log end. */
async function waitCommitted(group: string): Promise<void> {
  type Row = { currentOffset: number | null; lag: number | null };
  await waitFor(
    async () => {
      const r = await tkafka('consumer-groups', CG('--describe', '--group', group, '--offsets', '--output', 'json'));
      const rows: Row[] = r.code === 0 ? (JSON.parse(r.out).groups[0]?.offsets ?? []) : [];
      return rows.length > 0 && rows.every((o) => o.currentOffset !== null && o.lag === 0);
    },
    { what: `group ${group} to commit what it read`, timeoutMs: 60_000, intervalMs: 500 },
  );
}

async function waitStable(group: string, members = 1): Promise<void> {
  await waitFor(
    async () => {
      const r = await tkafka('consumer-groups', CG('--describe', '--group', group, '--state', '--output', 'json'));
      const g = r.code === 0 ? JSON.parse(r.out).groups[0] : null;
      return g && g.state === 'Stable' && g.members === members;
    },
    { what: `group ${group} to be Stable with ${members} member(s)`, timeoutMs: 60_000, intervalMs: 300 },
  );
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-interop-groups-'));
  kafka = await startApacheKafka();
  for (const [t, n] of [
    ['orders', 3],
    ['audit', 1],
    ['live', 2],
    ['mixed', 2],
    ['kp', 1],
    ['txn', 1],
  ] as const) {
    const r = await kafka.runTool('org.apache.kafka.tools.TopicCommand', [
      ...B(),
      '--create',
      '--topic',
      t,
      '--partitions',
      String(n),
    ]);
    assert.equal(r.exitCode, 0, r.stderr);
    await kafka.waitForTopic(t, { partitions: n });
  }
  const keyed = Array.from({ length: 30 }, (_, i) => `k${i}\tv${i}`).join('\n') + '\n';
  assert.equal(
    (await apache('console-producer', [...B(), '--topic', 'orders', '--property', 'parse.key=true'], keyed)).code,
    0,
  );
  assert.equal((await tkafka('console-producer', [...B(), '--topic', 'audit'], 'a1\na2\na3\n')).code, 0);
  assert.equal((await tkafka('console-producer', [...B(), '--topic', 'live'], 'l1\nl2\nl3\nl4\n')).code, 0);
  // Empty groups with committed offsets: one made by Kafka's console consumer, one by tkafka's.
  const consumeArgs = (g: string): string[] => [
    ...B(),
    '--topic',
    'orders',
    '--group',
    g,
    '--from-beginning',
    '--max-messages',
    '17',
    '--timeout-ms',
    '20000',
  ];
  assert.equal((await apache('console-consumer', consumeArgs('by-kafka'))).code, 0);
  assert.equal((await tkafka('console-consumer', consumeArgs('by-tkafka'))).code, 0);
  assert.equal(
    (
      await tkafka('console-consumer', [
        ...B(),
        '--topic',
        'audit',
        '--group',
        'by-tkafka',
        '--from-beginning',
        '--max-messages',
        '2',
      ])
    ).code,
    0,
  );
  // Active groups: a Kafka classic consumer, a Kafka consumer-protocol consumer, a tkafka consumer.
  const java = ['java', ...TOOL_JVM_FLAGS, '-cp', `${kafkaLibDir()}/*`, CLASSES['console-consumer']!];
  startBackground(java[0]!, [
    ...java.slice(1),
    ...B(),
    '--topic',
    'live',
    '--group',
    'active-classic',
    '--from-beginning',
  ]);
  startBackground(java[0]!, [
    ...java.slice(1),
    ...B(),
    '--include',
    'live|audit',
    '--group',
    'active-new',
    '--from-beginning',
    '--consumer-property',
    'group.protocol=consumer',
  ]);
  startBackground('node', [
    'bin/tkafka',
    'console-consumer',
    ...B(),
    '--topic',
    'live',
    '--group',
    'active-tkafka',
    '--from-beginning',
  ]);
  await waitStable('active-classic');
  await waitStable('active-new');
  await waitStable('active-tkafka');
  // the console consumers auto-commit (every 5 s) what they read
  for (const g of ['active-classic', 'active-new', 'active-tkafka']) await waitCommitted(g);
});

after(async () => {
  for (const c of background) c.kill('SIGTERM');
  await kafka?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('consumer-groups --list with and without --state/--type filters', async () => {
  await same('consumer-groups', CG('--list'), { unordered: true });
  await same('consumer-groups', CG('--list', '--state'), { unordered: true });
  await same('consumer-groups', CG('--list', '--type', '--state'), { unordered: true });
  await same('consumer-groups', CG('--list', '--state', 'stable'), { unordered: true });
  await same('consumer-groups', CG('--list', '--state', 'Empty,Dead'), { unordered: true });
  await same('consumer-groups', CG('--list', '--type', 'consumer'));
  await same('consumer-groups', CG('--list', '--type', 'classic', '--state'), { unordered: true });
});

test('consumer-groups --describe: offsets, members, state, verbose, for empty, classic, consumer-protocol and tkafka-consumer groups', async () => {
  for (const g of ['by-kafka', 'by-tkafka', 'active-classic', 'active-new', 'active-tkafka']) {
    for (const view of [
      [],
      ['--offsets'],
      ['--verbose'],
      ['--members'],
      ['--members', '--verbose'],
      ['--state'],
      ['--state', '--verbose'],
    ]) {
      await same('consumer-groups', CG('--describe', '--group', g, ...view), { stderr: true });
    }
  }
  await same('consumer-groups', CG('--describe', '--all-groups'), { stderr: true });
  await same('consumer-groups', CG('--describe', '--all-groups', '--members'), { stderr: true });
  await same('consumer-groups', CG('--describe', '--group', 'by-kafka', '--group', 'active-new', '--state'), {
    stderr: true,
  });
  await same('consumer-groups', CG('--describe', '--group', 'nope'));
  await same('consumer-groups', CG('--describe', '--group', 'nope', '--members'));
});

test('consumer-groups --reset-offsets --dry-run: every scenario, --export, --from-file, refused for active groups', async () => {
  const dry = (...a: string[]): string[] => CG('--reset-offsets', '--dry-run', ...a);
  for (const g of ['by-kafka', 'by-tkafka', 'brand-new']) {
    await same('consumer-groups', dry('--group', g, '--all-topics', '--to-earliest'));
    await same('consumer-groups', dry('--group', g, '--topic', 'orders', '--to-latest'));
    await same('consumer-groups', dry('--group', g, '--topic', 'orders:0,2', '--to-offset', '3'));
    await same('consumer-groups', dry('--group', g, '--topic', 'orders', '--to-offset', '1000'));
    await same('consumer-groups', dry('--group', g, '--topic', 'orders', '--to-current'));
    await same('consumer-groups', dry('--group', g, '--topic', 'orders', '--to-datetime', '2020-01-01T00:00:00.000'));
    await same(
      'consumer-groups',
      dry('--group', g, '--topic', 'orders', '--to-datetime', '2999-01-01T00:00:00.000+02:00'),
    );
    await same('consumer-groups', dry('--group', g, '--topic', 'orders', '--by-duration', 'PT1H'));
    await same('consumer-groups', dry('--group', g, '--all-topics', '--to-earliest', '--export'));
  }
  await same('consumer-groups', dry('--group', 'by-kafka', '--all-topics', '--shift-by', '-2'));
  await same('consumer-groups', dry('--group', 'by-tkafka', '--all-topics', '--shift-by', '5'));
  await same(
    'consumer-groups',
    dry('--group', 'by-kafka', '--group', 'by-tkafka', '--all-topics', '--to-latest', '--export'),
  );
  await same('consumer-groups', dry('--all-groups', '--all-topics', '--to-earliest'));
  await same(
    'consumer-groups',
    dry('--group', 'active-classic', '--group', 'by-kafka', '--all-topics', '--to-earliest'),
  );
  await same('consumer-groups', dry('--group', 'active-new', '--topic', 'live', '--to-earliest'));
  const single = join(dir, 'single.csv');
  writeFileSync(single, 'orders,0,1\norders,1,2\norders,2,999\n');
  await same('consumer-groups', dry('--group', 'by-kafka', '--from-file', single));
  const multi = join(dir, 'multi.csv');
  writeFileSync(multi, 'by-kafka,orders,0,1\nby-tkafka,orders,1,0\nby-tkafka,audit,0,1\n');
  await same('consumer-groups', dry('--group', 'by-kafka', '--group', 'by-tkafka', '--from-file', multi));
  await same('consumer-groups', dry('--group', 'by-kafka', '--group', 'other', '--from-file', multi));
  for (const bad of [
    ['--to-datetime', 'yesterday'],
    ['--to-datetime', '2020-02-30T00:00:00.000'],
    ['--by-duration', 'P1X'],
  ]) {
    await same('consumer-groups', dry('--group', 'by-kafka', '--topic', 'orders', ...bad));
  }
  await same('consumer-groups', dry('--group', 'by-kafka', '--topic', 'nosuch', '--to-earliest'));
});

test("consumer-groups --reset-offsets --execute changes offsets as Kafka's tool does (checked with Kafka's --describe)", async () => {
  const seed = async (g: string): Promise<void> => {
    const r = await apache(
      'consumer-groups',
      CG('--reset-offsets', '--execute', '--group', g, '--all-topics', '--to-earliest', '--topic', 'orders'),
    );
    assert.equal(r.code, 0, r.err);
  };
  const scenarios = [
    ['--to-offset', '4'],
    ['--shift-by', '2'],
    ['--to-latest'],
    ['--to-datetime', '2020-01-01T00:00:00.000'],
  ];
  for (const s of scenarios) {
    for (const [who, g] of [
      ['kafka', 'ex-k'],
      ['tkafka', 'ex-t'],
    ] as const) {
      await seed(g);
      const args = CG('--reset-offsets', '--execute', '--group', g, '--topic', 'orders', ...s);
      const r = who === 'kafka' ? await apache('consumer-groups', args) : await tkafka('consumer-groups', args);
      assert.equal(r.code, 0, `${who} ${s.join(' ')}: ${r.err}`);
    }
    const k = await apache('consumer-groups', CG('--describe', '--group', 'ex-k'));
    const t = await apache('consumer-groups', CG('--describe', '--group', 'ex-t'));
    assert.equal(t.out.replaceAll('ex-t', 'ex-k'), k.out, s.join(' '));
  }
});

test('consumer-groups --delete-offsets and --delete', async () => {
  await same('consumer-groups', CG('--delete-offsets', '--group', 'active-classic', '--topic', 'live'));
  await same('consumer-groups', CG('--delete-offsets', '--group', 'nope', '--topic', 'orders'));
  await same('consumer-groups', CG('--delete-offsets', '--group', 'by-kafka', '--topic', 'nosuch'));
  await same('consumer-groups', CG('--delete', '--group', 'active-classic', '--group', 'nope'));
  for (const g of ['d-k', 'd-t']) {
    assert.equal(
      (
        await apache(
          'consumer-groups',
          CG('--reset-offsets', '--execute', '--group', g, '--topic', 'orders', '--topic', 'audit', '--to-earliest'),
        )
      ).code,
      0,
    );
  }
  const k = await apache(
    'consumer-groups',
    CG('--delete-offsets', '--group', 'd-k', '--topic', 'audit', '--topic', 'orders:1'),
  );
  const t = await tkafka(
    'consumer-groups',
    CG('--delete-offsets', '--group', 'd-t', '--topic', 'audit', '--topic', 'orders:1'),
  );
  assert.deepEqual([t.code, t.out.replaceAll('d-t', 'd-k')], [k.code, k.out]);
  const kd = await apache('consumer-groups', CG('--describe', '--group', 'd-k'));
  const td = await apache('consumer-groups', CG('--describe', '--group', 'd-t'));
  assert.equal(td.out.replaceAll('d-t', 'd-k'), kd.out);
  const kdel = await apache('consumer-groups', CG('--delete', '--group', 'd-k'));
  const tdel = await tkafka('consumer-groups', CG('--delete', '--group', 'd-t'));
  assert.deepEqual([tdel.code, tdel.out.replaceAll('d-t', 'd-k')], [kdel.code, kdel.out]);
  await same('consumer-groups', CG('--list'), { unordered: true });
});

test('consumer-groups usage errors: same message, help and exit code', async () => {
  const cases = [
    [],
    ['--list'],
    ['--describe'],
    ['--list', '--group', 'g'],
    ['--describe', '--group', 'g', '--members', '--state'],
    ['--describe', '--group', 'g', '--state', 'x'],
    ['--delete', '--group', 'g', '--topic', 't'],
    ['--delete-offsets', '--group', 'g'],
    ['--reset-offsets', '--group', 'g', '--to-offset', '1', '--to-latest'],
    ['--reset-offsets', '--group', 'g', '--dry-run', '--execute'],
    ['--reset-offsets', '--all-topics', '--to-latest'],
    ['--list', '--state', 'foo'],
    ['--list', '--type', 'foo'],
    ['--reset-offsets', '--group', 'by-kafka', '--topic', 'a:b:c', '--to-latest', '--dry-run'],
    ['--reset-offsets', '--group', 'by-kafka', '--topic', 'orders:x', '--to-latest', '--dry-run'],
    ['--reset-offsets', '--group', 'by-kafka', '--to-latest', '--dry-run'],
    ['--group', 'g'],
    ['--list', '--all-topics', '--topic', 't'],
  ];
  for (const c of cases) {
    const args = c.length === 0 ? [] : CG(...c);
    const [k, t] = [await apache('consumer-groups', args), await tkafka('consumer-groups', args)];
    assert.equal(t.code, k.code, c.join(' '));
    assert.equal(t.out, k.out, c.join(' '));
    // Kafka lists option sets and valid states from HashSets of identity-hashed objects: their order is not stable.
    const norm = (err: string): string[] =>
      err
        .split('\n')
        .filter((l) => !l.startsWith('WARN:'))
        .slice(0, 3)
        .map((l) =>
          l
            .replace(/((?:\[[a-z-]+\](?:, )?)+)$/, (m) => m.split(', ').sort().join(', '))
            .replace(
              /(Valid states are: )(.*)$/,
              (_m, p: string, list: string) => p + list.split(', ').sort().join(', '),
            ),
        );
    assert.deepEqual(norm(t.err), norm(k.err), c.join(' '));
  }
  for (const c of [['--list', '--members'], ['--describe', '--group', 'g', '--type'], ['--bogus']]) {
    const [k, t] = [await apache('consumer-groups', CG(...c)), await tkafka('consumer-groups', CG(...c))];
    assert.equal(t.code, k.code);
    assert.equal(t.err, `${k.err.split('\n')[0]!.replace(/^Exception in thread "main" joptsimple\.\w+: /, '')}\n`);
  }
});

test("console-consumer prints what Kafka's console consumer prints (formatter properties, partitions, offsets, deserializers)", async () => {
  const input = 'h1:a,h2:b\tk1\tone\nNULL\tk2\tNULL\nh3:c\tNULL\tthree\tTAB\n\tk4\tfour\n';
  const props = [
    'print.timestamp',
    'print.partition',
    'print.offset',
    'print.headers',
    'print.key',
    'print.epoch',
    'print.delivery',
  ].flatMap((x) => ['--property', `${x}=true`]);
  const r = await tkafka(
    'console-producer',
    [
      ...B(),
      '--topic',
      'mixed',
      '--property',
      'parse.key=true',
      '--property',
      'parse.headers=true',
      '--property',
      'null.marker=NULL',
      '--sync',
    ],
    input.split('\n').slice(0, 3).join('\n') + '\n',
  );
  assert.equal(r.code, 0, r.err);
  assert.equal(
    (
      await apache(
        'console-producer',
        [...B(), '--topic', 'kp', '--property', 'parse.key=true', '--property', 'parse.headers=true'],
        'x:1\tkk\tfrom kafka\n',
      )
    ).code,
    0,
  );
  const consume = (topic: string, ...extra: string[]): string[] => [
    ...B(),
    '--topic',
    topic,
    '--from-beginning',
    '--timeout-ms',
    '4000',
    ...extra,
  ];
  for (const topic of ['mixed', 'kp', 'orders']) {
    const k = await apache('console-consumer', consume(topic, ...props));
    const t = await tkafka('console-consumer', consume(topic, ...props));
    assert.deepEqual(t.out.split('\n').sort(), k.out.split('\n').sort(), topic);
    assert.equal(errorLines(t.err).at(-1), errorLines(k.err).at(-1));
  }
  for (const extra of [
    [
      '--property',
      'print.key=true',
      '--property',
      'key.separator=|',
      '--property',
      'line.separator=;',
      '--property',
      'null.literal=~',
    ],
    ['--partition', '1', '--offset', '2', '--max-messages', '3', '--property', 'print.offset=true'],
    ['--partition', '0', '--offset', 'earliest', '--property', 'print.value=false', '--property', 'print.key=true'],
    ['--value-deserializer', 'org.apache.kafka.common.serialization.BytesDeserializer', '--property', 'print.key=true'],
  ]) {
    const args =
      extra[0] === '--partition'
        ? [...B(), '--topic', 'orders', '--timeout-ms', '4000', ...extra]
        : consume('orders', ...extra);
    const [k, t] = [await apache('console-consumer', args), await tkafka('console-consumer', args)];
    assert.equal(t.code, k.code, extra.join(' '));
    assert.deepEqual(t.out.split(/[\n;]/).sort(), k.out.split(/[\n;]/).sort(), extra.join(' '));
  }
});

test('console tools: binary values, read_committed, group commits, validation errors', async () => {
  const bin = Buffer.from([0, 1, 2, 0x7f, 0x80, 0xfe, 0xff, 0x5c]);
  assert.equal(
    (
      await tkafka(
        'console-producer',
        [...B(), '--topic', 'kp', '--property', 'value.encoding=base64'],
        `${bin.toString('base64')}\n`,
      )
    ).code,
    0,
  );
  const bytesArgs = [
    ...B(),
    '--topic',
    'kp',
    '--from-beginning',
    '--timeout-ms',
    '4000',
    '--value-deserializer',
    'org.apache.kafka.common.serialization.BytesDeserializer',
  ];
  const [kb, tb] = [await apache('console-consumer', bytesArgs), await tkafka('console-consumer', bytesArgs)];
  assert.equal(tb.out, kb.out);
  assert.match(tb.out, /\\x00\\x01\\x02\\x7F\\x80\\xFE\\xFF\\x5C\n$/);
  const hex = await tkafka('console-consumer', [
    ...B(),
    '--topic',
    'kp',
    '--partition',
    '0',
    '--offset',
    '1',
    '--max-messages',
    '1',
    '--formatter-property',
    'value.encoding=hex',
  ]);
  assert.equal(hex.out, `${bin.toString('hex')}\n`);

  const { KafkaClient } = await import('../../src/client/client.js');
  const { Producer } = await import('../../src/client/producer.js');
  const client = new KafkaClient({ bootstrapServers: [kafka.bootstrap] });
  const producer = new Producer(client, { transactionalId: 'interop-tx', lingerMs: 0 });
  await producer.initTransactions();
  producer.beginTransaction();
  await producer.send({ topic: 'txn', value: Buffer.from('aborted') });
  await producer.abortTransaction();
  producer.beginTransaction();
  await producer.send({ topic: 'txn', value: Buffer.from('committed') });
  await producer.commitTransaction();
  await producer.close();
  client.close();
  for (const iso of ['read_committed', 'read_uncommitted']) {
    const args = [
      ...B(),
      '--topic',
      'txn',
      '--from-beginning',
      '--timeout-ms',
      '4000',
      '--isolation-level',
      iso,
      '--formatter-property',
      'print.offset=true',
    ];
    const [k, t] = [await apache('console-consumer', args), await tkafka('console-consumer', args)];
    assert.equal(t.out, k.out, iso);
    assert.equal(
      t.out,
      iso === 'read_committed' ? 'Offset:2\tcommitted\n' : 'Offset:0\taborted\nOffset:2\tcommitted\n',
    );
  }

  // The groups both console consumers left (17 records read, then closed): same committed total.
  const committedTotal = (out: string): number =>
    out
      .split('\n')
      .filter((l) => / orders /.test(l))
      .reduce((n, l) => n + Number(l.split(/\s+/)[3]), 0);
  assert.equal(committedTotal((await apache('consumer-groups', CG('--describe', '--group', 'by-kafka'))).out), 17);
  assert.equal(committedTotal((await apache('consumer-groups', CG('--describe', '--group', 'by-tkafka'))).out), 17);

  const consumerCases = [
    ['--topic', 't', '--include', 'x'],
    ['--topic', 't', '--offset', '3'],
    ['--include', 't', '--partition', '0'],
    ['--topic', 't', '--partition', '0', '--offset', '1', '--from-beginning'],
    ['--topic', 't', '--partition', '0', '--offset', 'x'],
    ['--topic', 't', '--group', 'a', '--consumer-property', 'group.id=b'],
    ['--topic', 't', '--group', 'a', '--partition', '0'],
    ['--topic', 't', '--from-beginning', '--consumer-property', 'auto.offset.reset=latest'],
    ['--topic', 't', '--bogus'],
  ];
  for (const c of consumerCases) {
    const [k, t] = [await apache('console-consumer', [...B(), ...c]), await tkafka('console-consumer', [...B(), ...c])];
    assert.equal(t.code, k.code, c.join(' '));
    assert.equal(t.err.split('\n')[0], k.err.split('\n')[0], c.join(' '));
  }
  for (const c of [
    ['--topic', 'kp', '--bootstrap-server', 'nohost'],
    ['--bootstrap-server', kafka.bootstrap],
    ['--topic', 'kp', '--bootstrap-server', kafka.bootstrap, '--property', 'headers.delimiter=,'],
  ]) {
    const [k, t] = [await apache('console-producer', c, 'x\n'), await tkafka('console-producer', c, 'x\n')];
    assert.equal(t.code, k.code, c.join(' '));
    assert.equal(
      t.err.split('\n')[0],
      errorLines(k.err)[0]?.replace(/^org\.apache\.kafka\.common\.KafkaException: /, '') ?? k.err.split('\n')[0],
      c.join(' '),
    );
  }
});
