// tkafka's admin tools against a real Apache Kafka broker, compared line by line with the output
// of Kafka's own tool classes for the same cluster state (same command line, same moment):
// topics, configs, get-offsets, delete-records, log-dirs, broker-api-versions, cluster, features.
// Read-only commands run both tools on identical state; changing commands run on twin entities
// (`k-…` by Kafka's tool, `t-…` by tkafka) and are compared with the name swapped.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { execa } from 'execa';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import type { ToolIO } from '../../src/tools/common/io.js';
import { API_SPECS } from '../../src/protocol/generated/apis.js';

let kafka: ApacheKafka;
let dir: string;

const CLASSES: Record<string, string> = {
  topics: 'org.apache.kafka.tools.TopicCommand',
  configs: 'org.apache.kafka.tools.ConfigCommand',
  'get-offsets': 'org.apache.kafka.tools.GetOffsetShell',
  'delete-records': 'org.apache.kafka.tools.DeleteRecordsCommand',
  'log-dirs': 'org.apache.kafka.tools.LogDirsCommand',
  'broker-api-versions': 'org.apache.kafka.tools.BrokerApiVersionsCommand',
  cluster: 'org.apache.kafka.tools.ClusterTool',
  features: 'org.apache.kafka.tools.FeatureCommand',
};

interface Run {
  code: number;
  out: string;
  err: string;
}

async function tkafka(tool: string, args: string[]): Promise<Run> {
  const mod = (await import(`../../src/tools/${tool}/main.js`)) as { run(argv: string[], io: ToolIO): Promise<number> };
  let out = '';
  let err = '';
  const stdout = new Writable({
    write(c, _e, cb) {
      out += String(c);
      cb();
    },
  });
  const stderr = new Writable({
    write(c, _e, cb) {
      err += String(c);
      cb();
    },
  });
  const code = await mod.run(args, { stdout, stderr, stdin: process.stdin, env: {} });
  return { code, out, err };
}

async function apache(tool: string, args: string[]): Promise<Run> {
  const r = await kafka.runTool(CLASSES[tool]!, args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/** Kafka's stderr without log4j lines and stack-trace lines (tkafka prints neither). */
function firstErrorLines(err: string): string[] {
  return err
    .split('\n')
    .filter(
      (l) =>
        l !== '' && !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more/.test(l) && !/^\s*\(org\.apache|^ \(/.test(l),
    );
}

/** Runs both tools with `args` and asserts identical stdout lines and exit codes. */
async function same(
  tool: string,
  args: string[],
  opts: { unordered?: boolean; stderrLines?: number; normalize?: (s: string) => string } = {},
): Promise<Run> {
  const [k, t] = [await apache(tool, args), await tkafka(tool, args)];
  const label = `${tool} ${args.join(' ')}`;
  assert.equal(t.code, k.code, `${label}: exit code (kafka stderr: ${k.err.slice(0, 500)}; tkafka stderr: ${t.err})`);
  const norm = opts.normalize ?? ((x: string) => x);
  const lines = (s: string): string[] => (opts.unordered ? norm(s).split('\n').sort() : norm(s).split('\n'));
  assert.deepEqual(lines(t.out), lines(k.out), `${label}: stdout`);
  if (opts.stderrLines) {
    assert.deepEqual(
      firstErrorLines(t.err).slice(0, opts.stderrLines),
      firstErrorLines(k.err).slice(0, opts.stderrLines),
      `${label}: stderr`,
    );
  }
  return k;
}

/**
 * A change that cannot run twice: Kafka's tool runs it, `reset` puts the state back, tkafka runs
 * it; outputs and exit codes must match.
 */
async function sameChange(tool: string, args: string[], reset: () => Promise<unknown>): Promise<void> {
  const k = await apache(tool, args);
  await reset();
  const t = await tkafka(tool, args);
  const label = `${tool} ${args.join(' ')}`;
  assert.equal(t.code, k.code, `${label}: exit code (kafka stderr: ${k.err.slice(0, 500)}; tkafka stderr: ${t.err})`);
  assert.equal(t.out, k.out, `${label}: stdout`);
}

/** Kafka's tool on `k-<name>`, tkafka on `t-<name>`: same output with the name swapped. */
async function twin(
  tool: string,
  args: (prefix: string) => string[],
  opts: { stderrLines?: number } = {},
): Promise<void> {
  const k = await apache(tool, args('k'));
  const t = await tkafka(tool, args('t'));
  const label = `${tool} ${args('t').join(' ')}`;
  assert.equal(t.code, k.code, `${label}: exit code (kafka stderr: ${k.err.slice(0, 500)}; tkafka: ${t.err})`);
  assert.equal(t.out.replaceAll('t-', 'k-'), k.out, `${label}: stdout`);
  if (opts.stderrLines) {
    assert.deepEqual(
      firstErrorLines(t.err.replaceAll('t-', 'k-')).slice(0, opts.stderrLines),
      firstErrorLines(k.err).slice(0, opts.stderrLines),
      `${label}: stderr`,
    );
  }
}

const B = (): string[] => ['--bootstrap-server', kafka.bootstrap];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-interop-tools-'));
  kafka = await startApacheKafka();
  const created = await apache('topics', [
    ...B(),
    '--create',
    '--topic',
    'orders',
    '--partitions',
    '3',
    '--replication-factor',
    '1',
    '--config',
    'retention.ms=86400000',
    '--config',
    'min.insync.replicas=1',
  ]);
  assert.equal(created.code, 0, created.err);
  for (const t of [
    'alpha',
    'beta',
    'gamma',
    'delta',
    'epsilon',
    'zeta',
    'eta',
    'theta',
    'iota',
    'kappa',
    'lambda',
    'mu',
  ]) {
    assert.equal((await apache('topics', [...B(), '--create', '--topic', t, '--partitions', '2'])).code, 0);
  }
  await kafka.waitForTopic('orders', { partitions: 3 });
  // 12 partitions so that "events-10" sorts before "events-2".
  assert.equal((await apache('topics', [...B(), '--create', '--topic', 'events', '--partitions', '12'])).code, 0);
  await kafka.waitForTopic('events', { partitions: 12 });
  for (let p = 0; p < 12; p++) {
    const input = Array.from({ length: p + 1 }, (_, i) => `k${i}:v${i}`).join('\n') + '\n';
    const r = await execa('kcat', ['-P', '-b', kafka.bootstrap, '-t', 'events', '-p', String(p), '-K:'], {
      input,
      timeout: 60_000,
    });
    assert.equal(r.exitCode, 0);
  }
});

after(async () => {
  await kafka?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('topics: list, describe (all topics, filters, by id), errors', async () => {
  await same('topics', [...B(), '--list']);
  await same('topics', [...B(), '--list', '--exclude-internal']);
  await same('topics', [...B(), '--describe']);
  await same('topics', [...B(), '--describe', '--exclude-internal']);
  await same('topics', [...B(), '--describe', '--topic', 'orders']);
  await same('topics', [...B(), '--describe', '--topic', 'a.*,orders']);
  await same('topics', [...B(), '--describe', '--topics-with-overrides']);
  await same('topics', [...B(), '--describe', '--at-min-isr-partitions']);
  await same('topics', [...B(), '--describe', '--under-replicated-partitions']);
  await same('topics', [...B(), '--describe', '--unavailable-partitions']);
  await same('topics', [...B(), '--describe', '--under-min-isr-partitions']);
  await same('topics', [...B(), '--describe', '--topic', 'nope']);
  await same('topics', [...B(), '--describe', '--topic', 'nope', '--if-exists']);
  const id = (await tkafka('topics', [...B(), '--describe', '--topic', 'orders'])).out
    .split('\t')[1]!
    .replace('TopicId: ', '');
  await same('topics', [...B(), '--describe', '--topic-id', id]);
  await same('topics', [...B(), '--describe', '--topic-id', 'AAAAAAAAAAAAAAAAAAAABA']);
  await same('topics', [...B(), '--create', '--topic', 'orders']);
  await same('topics', [...B(), '--create', '--topic', 'orders', '--if-not-exists']);
  await same('topics', [...B(), '--alter', '--topic', 'orders', '--partitions', '2']);
  await same('topics', [...B(), '--alter', '--topic', 'orders', '--partitions', '3']);
});

test('topics: validation messages (first stderr line) and exit codes', async () => {
  for (const args of [
    [...B(), '--list', '--describe'],
    [...B(), '--create'],
    [...B(), '--alter', '--topic', 'x'],
    [...B(), '--list', '--partitions', '3'],
    [...B(), '--describe', '--if-exists'],
    [...B(), '--create', '--topic', 'x', '--replica-assignment', '1', '--partitions', '3'],
    [...B(), '--list', '--foo'],
    ['--list'],
  ])
    await same('topics', args, { stderrLines: 1 });
  for (const args of [
    ['--replication-factor', '0'],
    ['--partitions', '0'],
    ['--partitions', 'x'],
    ['--config', 'foo=bar'],
    ['--config', 'retention.ms=abc'],
    ['--config', 'retention.ms'],
    ['--replica-assignment', '1:1'],
    ['--replica-assignment', '1,1:2'],
    ['--replication-factor', '3'],
  ])
    await same('topics', [...B(), '--create', '--topic', 'never', ...args]);
});

test('topics: create, alter, delete on twin topics', async () => {
  await twin('topics', (p) => [
    ...B(),
    '--create',
    '--topic',
    `${p}-new`,
    '--partitions',
    '2',
    '--config',
    'cleanup.policy=compact',
  ]);
  await twin('topics', (p) => [...B(), '--create', '--topic', `${p}-dotted.name`]);
  await kafka.waitForTopic('k-new', { partitions: 2 });
  await kafka.waitForTopic('t-new', { partitions: 2 });
  await same('topics', [...B(), '--describe', '--topic', '.-new']);
  await twin('topics', (p) => [...B(), '--alter', '--topic', `${p}-new`, '--partitions', '4']);
  await twin('topics', (p) => [...B(), '--delete', '--topic', `${p}-new`]);
});

test('configs: describe and alter topics, brokers, broker defaults, broker loggers', async () => {
  await same('configs', [...B(), '--describe', '--entity-type', 'topics', '--entity-name', 'orders']);
  await same('configs', [...B(), '--describe', '--topic', 'orders', '--all']);
  await same('configs', [...B(), '--describe', '--entity-type', 'topics']);
  await same('configs', [...B(), '--describe', '--broker', '1']);
  await same('configs', [...B(), '--describe', '--entity-type', 'topics', '--force'], { stderrLines: 1 });
  await same('configs', [...B(), '--describe', '--broker', '1', '--all']);
  await same('configs', [...B(), '--describe', '--entity-type', 'brokers', '--entity-default']);
  await same('configs', [...B(), '--describe', '--entity-type', 'brokers']);
  await same('configs', [...B(), '--describe', '--broker-logger', '1']);
  await twin('configs', (p) => [
    ...B(),
    '--alter',
    '--topic',
    `${p}-dotted.name`,
    '--add-config',
    'retention.ms=1000,cleanup.policy=[compact,delete]',
  ]);
  await twin('configs', (p) => [...B(), '--describe', '--topic', `${p}-dotted.name`]);
  await twin('configs', (p) => [...B(), '--alter', '--topic', `${p}-dotted.name`, '--delete-config', 'retention.ms']);
  await twin('configs', (p) => [...B(), '--alter', '--topic', `${p}-dotted.name`, '--delete-config', 'retention.ms'], {
    stderrLines: 1,
  });
  await same('configs', [...B(), '--alter', '--broker', '1', '--add-config', 'log.cleaner.threads=2']);
  await same('configs', [...B(), '--describe', '--broker', '1']);
  await same('configs', [
    ...B(),
    '--alter',
    '--entity-type',
    'brokers',
    '--entity-default',
    '--add-config',
    'log.cleaner.threads=3',
  ]);
  await same('configs', [...B(), '--describe', '--entity-type', 'brokers', '--entity-default']);
  await sameChange('configs', [...B(), '--alter', '--broker', '1', '--delete-config', 'log.cleaner.threads'], () =>
    apache('configs', [...B(), '--alter', '--broker', '1', '--add-config', 'log.cleaner.threads=2']),
  );
  await same('configs', [...B(), '--describe', '--entity-type', 'topics', '--entity-name', 'nope'], { stderrLines: 2 });
});

test('configs: client quotas and SCRAM credentials', async () => {
  await same('configs', [
    ...B(),
    '--alter',
    '--entity-type',
    'users',
    '--entity-name',
    'alice',
    '--add-config',
    'producer_byte_rate=1024,consumer_byte_rate=2048',
  ]);
  await same('configs', [
    ...B(),
    '--alter',
    '--entity-type',
    'clients',
    '--entity-name',
    'app',
    '--add-config',
    'request_percentage=50',
  ]);
  await same('configs', [
    ...B(),
    '--alter',
    '--entity-type',
    'users',
    '--entity-default',
    '--add-config',
    'producer_byte_rate=10000000',
  ]);
  await same('configs', [...B(), '--describe', '--entity-type', 'users', '--entity-name', 'alice']);
  await same('configs', [...B(), '--describe', '--entity-type', 'users']);
  await same('configs', [...B(), '--describe', '--entity-type', 'clients']);
  await same('configs', [...B(), '--describe', '--entity-type', 'users', '--entity-default']);
  await same('configs', [
    ...B(),
    '--alter',
    '--entity-type',
    'users',
    '--entity-name',
    'bob',
    '--add-config',
    'SCRAM-SHA-256=[iterations=8192,password=bob-secret]',
  ]);
  await same('configs', [...B(), '--describe', '--entity-type', 'users', '--entity-name', 'bob']);
  await sameChange(
    'configs',
    [...B(), '--alter', '--entity-type', 'users', '--entity-name', 'alice', '--delete-config', 'consumer_byte_rate'],
    () =>
      apache('configs', [
        ...B(),
        '--alter',
        '--entity-type',
        'users',
        '--entity-name',
        'alice',
        '--add-config',
        'consumer_byte_rate=2048',
      ]),
  );
  await same('configs', [...B(), '--describe', '--user', 'alice']);
});

test('configs: validation messages', async () => {
  for (const args of [
    ['--describe', '--entity-type', 'topics'],
    [...B(), '--describe', '--entity-type', 'foo'],
    [...B(), '--describe'],
    [...B(), '--describe', '--entity-type', 'topics', '--entity-type', 'topics'],
    [...B(), '--describe', '--topic', 'x', '--entity-default'],
    [...B(), '--describe', '--entity-type', 'brokers', '--entity-name', 'x'],
    [...B(), '--describe', '--entity-type', 'broker-loggers'],
    [...B(), '--alter', '--entity-type', 'topics', '--add-config', 'a=b'],
    [...B(), '--alter', '--topic', 't'],
    [...B(), '--alter', '--topic', 'orders', '--add-config', 'a'],
    [...B(), '--alter', '--topic', 'orders', '--add-config', 'a$=b'],
    [...B(), '--alter', '--topic', 'orders', '--delete-config', 'nope'],
    [...B(), '--describe', '--alter', '--topic', 'x'],
    [...B(), '--alter', '--entity-type', 'users', '--entity-name', 'u', '--add-config', 'producer_byte_rate=abc'],
  ])
    await same('configs', args, { stderrLines: 1 });
});

test('get-offsets and delete-records', async () => {
  await same('get-offsets', [...B(), '--topic', 'events']);
  await same('get-offsets', [...B(), '--topic', 'events', '--time', 'earliest']);
  await same('get-offsets', [...B(), '--topic-partitions', 'events:1-3,orders', '--time', '-1']);
  await same('get-offsets', [...B(), '--topic', 'events', '--partitions', '4,0']);
  await same('get-offsets', [...B(), '--topic', 'events', '--time', 'max-timestamp']);
  await same('get-offsets', [...B()]);
  await same('get-offsets', [...B(), '--exclude-internal-topics']);
  await same('get-offsets', [...B(), '--topic', 'nope'], { stderrLines: 1 });
  await same('get-offsets', [...B(), '--topic', 'events', '--time', 'x'], { stderrLines: 1 });
  await same('get-offsets', [...B(), '--partitions', 'a'], { stderrLines: 1 });
  const file = (name: string, doc: unknown): string => {
    const f = join(dir, name);
    writeFileSync(f, typeof doc === 'string' ? doc : JSON.stringify(doc));
    return f;
  };
  await twinRecords(file);
  await same('delete-records', [...B(), '--offset-json-file', file('bad.json', 'nope')], { stderrLines: 1 });
  await same(
    'delete-records',
    [
      ...B(),
      '--offset-json-file',
      file('dup.json', {
        partitions: [
          { topic: 'events', partition: 1, offset: 0 },
          { topic: 'events', partition: 1, offset: 0 },
        ],
      }),
    ],
    { stderrLines: 1 },
  );
  await same('get-offsets', [...B(), '--topic', 'events', '--time', 'earliest']);
});

/** delete-records on partitions 3 (Kafka's tool) and 5 (tkafka) of `events`, same offsets. */
async function twinRecords(file: (name: string, doc: unknown) => string): Promise<void> {
  const k = await apache('delete-records', [
    ...B(),
    '--offset-json-file',
    file('k.json', {
      partitions: [
        { topic: 'events', partition: 3, offset: 2 },
        { topic: 'events', partition: 0, offset: 99 },
      ],
    }),
  ]);
  const t = await tkafka('delete-records', [
    ...B(),
    '--offset-json-file',
    file('t.json', {
      partitions: [
        { topic: 'events', partition: 5, offset: 2 },
        { topic: 'events', partition: 1, offset: 99 },
      ],
    }),
  ]);
  assert.equal(t.code, k.code);
  const norm = (s: string): string[] =>
    s.replace('events-5', 'events-3').replace('events-1\t', 'events-0\t').split('\n').sort();
  assert.deepEqual(norm(t.out), k.out.split('\n').sort());
}

test('log-dirs, broker-api-versions, cluster, features', async () => {
  await same('log-dirs', [...B(), '--describe', '--topic-list', 'events,orders']);
  await same('log-dirs', [...B(), '--describe', '--broker-list', '1,7'], { stderrLines: 1 });
  // tkafka's codec was generated from Kafka's 4.0.0-SNAPSHOT message specs, Kafka 4.4's client knows
  // more: ListConfigResources (74, ListClientMetricsResources in tkafka's table), APIs 88-94 (UNKNOWN
  // to tkafka) and newer versions (e.g. ShareFetch v1-2, "node too new" for tkafka). Kafka's lines are
  // re-rendered as NodeApiVersions would with tkafka's API table: the node's ranges, the keys and their
  // order come from Kafka's output; names and usable versions from what tkafka's client can send.
  const k = await apache('broker-api-versions', [...B()]);
  const t = await tkafka('broker-api-versions', [...B()]);
  assert.equal(t.code, k.code);
  const specs = new Map(API_SPECS.map((s) => [s.key, s]));
  const rerender = (_m: string, key: string, min: string, max: string | undefined, end: string): string => {
    const spec = specs.get(Number(key));
    const range = max === undefined ? min : `${min} to ${max}`;
    if (!spec) return `\tUNKNOWN(${key}): ${range}${end}`;
    const [lo, hi] = [Number(min), Number(max ?? min)];
    const suffix =
      spec.maxVersion < lo
        ? ' [unusable: node too new]'
        : hi < spec.minVersion
          ? ' [unusable: node too old]'
          : ` [usable: ${Math.min(spec.maxVersion, hi)}]`;
    return `\t${spec.name}(${key}): ${range}${suffix}${end}`;
  };
  const expected = k.out
    .replace(/^\t\w+\((\d+)\): (\d+)(?: to (\d+))?(?: \[[^\]\n]*\])?(,?)$/gm, rerender)
    .replace(/^\t\w+\((\d+)\): UNSUPPORTED(,?)\n/gm, (m, key: string) =>
      specs.get(Number(key))?.listeners.includes('broker') ? m : '',
    );
  assert.deepEqual(t.out.split('\n'), expected.split('\n'));
  // cluster api-versions (ClusterTool 4.4): the same NodeApiVersions lines per node, re-rendered likewise
  const ka = await apache('cluster', ['api-versions', '--bootstrap-server', kafka.bootstrap]);
  const ta = await tkafka('cluster', ['api-versions', '--bootstrap-server', kafka.bootstrap]);
  assert.equal(ta.code, ka.code, ta.err);
  assert.match(ka.out, /\(id: \d+ rack: null isFenced: false\) -> \(\n\tProduce\(0\)/);
  const expectedApis = ka.out
    .replace(/^\t\w+\((\d+)\): (\d+)(?: to (\d+))?(?: \[[^\]\n]*\])?(,?)$/gm, rerender)
    .replace(/^\t\w+\((\d+)\): UNSUPPORTED(,?)\n/gm, (m, key: string) =>
      specs.get(Number(key))?.listeners.includes('broker') ? m : '',
    );
  assert.deepEqual(ta.out.split('\n'), expectedApis.split('\n'));
  await same('cluster', ['cluster-id', '--bootstrap-server', kafka.bootstrap]);
  await same('cluster', ['list-endpoints', '--bootstrap-server', kafka.bootstrap]);
  await same('cluster', ['unregister', '--bootstrap-server', kafka.bootstrap, '--id', '7'], { stderrLines: 1 });
  // The epoch is the metadata log's offset, which moves between the two runs.
  await same('features', [...B(), 'describe'], { normalize: (x) => x.replace(/Epoch: \d+/g, 'Epoch: N') });
  await same('features', [...B(), 'describe', '--node-id', String(kafka.nodeId)], {
    normalize: (x) => x.replace(/Epoch: \d+/g, 'Epoch: N'),
  });
  await same('features', [...B(), 'describe', '--node-id', '-1'], { stderrLines: 1 });
  await same('features', [...B(), 'upgrade', '--feature', 'x'], { stderrLines: 1 });
});
