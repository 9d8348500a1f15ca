// tkafka streams-groups compared line by line with Kafka 4.4's own StreamsGroupCommand
// (kafka-streams-groups.sh) for the same cluster state, on Apache Kafka 4.4.0 and on a tkafka broker
// (one scenario function, a suite per broker; both tools pointed at the broker of the run). The
// streams group is made by the Kafka Streams 4.4.0 word count of streams-group-kafka.test.ts
// (test/helpers/java/StreamsWordCount.java, group.protocol=streams): one instance running (Stable),
// then stopped (Empty). Exit codes are Kafka 4.4's (usage errors and Admin failures 1).
//
//   npm run build && node --test dist/test/interop/streams-groups-tool.test.js
import test, { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { kafkaLibDir, runKafkaTool, startApacheKafka } from './helpers/apache-kafka.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { compileJava } from '../helpers/javac.js';
import { startBroker } from '../helpers/broker-process.js';
import { runTkafka, type Run } from '../helpers/tool-run.js';
import { waitFor } from '../helpers/wait-for.js';

const STREAMS_GROUPS = 'org.apache.kafka.tools.streams.StreamsGroupCommand';
const JAVA_SOURCE = join(REPO_ROOT, 'test', 'helpers', 'java', 'StreamsWordCount.java');
const JAVA_CLASSES = join(tmpdir(), 'tkafka-streams-wordcount-classes');
const M2 = join(homedir(), '.m2', 'repository');
const STREAMS_JARS = [
  join(M2, 'org', 'apache', 'kafka', 'kafka-streams', '4.4.0', 'kafka-streams-4.4.0.jar'),
  join(M2, 'org', 'rocksdb', 'rocksdbjni', '10.1.3', 'rocksdbjni-10.1.3.jar'),
];
const APP = 'wc';
const LINES = 120;
const JVM = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xmx256m'];

/** The broker a run points both tools at. */
interface Target {
  name: 'Apache Kafka 4.4.0' | 'tkafka';
  bootstrap: string;
  stop(): Promise<void>;
}

const TARGETS: Record<Target['name'], () => Promise<Target>> = {
  'Apache Kafka 4.4.0': async () => {
    const k = await startApacheKafka();
    return { name: 'Apache Kafka 4.4.0', bootstrap: k.bootstrap, stop: () => k.cleanup() };
  },
  tkafka: async () => {
    const b = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
    return {
      name: 'tkafka',
      bootstrap: `127.0.0.1:${b.port}`,
      stop: async () => {
        await b.stop();
        b.cleanup();
      },
    };
  },
};

let target: Target;
let classpath = '';
const children = new Set<ChildProcess>();

const B = (): string[] => ['--bootstrap-server', target.bootstrap];
const SG = (...a: string[]): string[] => [...B(), ...a];

before(async () => {
  const lib = kafkaLibDir();
  if (STREAMS_JARS.some((j) => !existsSync(j)))
    await execa('mvn', ['-q', '-B', 'dependency:get', '-Dartifact=org.apache.kafka:kafka-streams:4.4.0'], {
      timeout: 600_000,
    });
  for (const j of STREAMS_JARS) if (!existsSync(j)) throw new Error(`Kafka Streams 4.4.0 is not in ${M2}: ${j}`);
  classpath = [JAVA_CLASSES, `${lib}/*`, ...STREAMS_JARS].join(':');
  await compileJava(JAVA_SOURCE, JAVA_CLASSES, classpath);
});

after(() => {
  for (const c of children) c.kill('SIGKILL');
});

async function java(args: string[], timeoutMs = 120_000): Promise<string> {
  const r = await execa('nice', ['-n', '19', 'java', ...JVM, '-cp', classpath, 'StreamsWordCount', ...args], {
    timeout: timeoutMs,
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`StreamsWordCount ${args[0]} exited ${r.exitCode}:\n${r.stdout}\n${r.stderr}`);
  return String(r.stdout);
}

/** One application instance (as streams-group-kafka.test.ts starts it); `stop()` closes it, leaving the group. */
function instance(bootstrap: string) {
  const stateDir = mkdtempSync(join(tmpdir(), 'tkafka-streams-state-'));
  const p = spawn('nice', [
    '-n',
    '19',
    'java',
    ...JVM,
    '-cp',
    classpath,
    'StreamsWordCount',
    'run',
    bootstrap,
    APP,
    'words-in',
    'counts-out',
    stateDir,
    'a',
  ]);
  children.add(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  return {
    log: () => `${out}\n${err.slice(-4000)}`,
    async stop() {
      if (!children.has(p)) return;
      p.stdin!.end('stop\n');
      const t = setTimeout(() => p.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(t);
      children.delete(p);
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

async function apache(args: string[]): Promise<Run> {
  const r = await runKafkaTool(STREAMS_GROUPS, args);
  return { code: r.exitCode, out: r.stdout, err: r.stderr };
}

/** Kafka's stderr without log4j lines and stack traces (tkafka prints neither). */
const errorLines = (err: string): string[] =>
  err.split('\n').filter((l) => l !== '' && !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more|^java\./.test(l));

/** Kafka's Set.of order of the valid states varies between JVM runs: compare them as sets. */
const sortedStates = (line: string | undefined): string =>
  (line ?? '').replace(
    /Valid states are: (.*)$/,
    (_m, s: string) => `Valid states are: ${s.split(', ').sort().join(', ')}`,
  );

/** The same stdout lines and exit code (and, with `stderr`, the same first stderr line). */
async function same(args: string[], opts: { stderr?: boolean } = {}): Promise<Run> {
  const [k, t] = [await apache(args), await runTkafka('streams-groups', args, {})];
  const label = `streams-groups ${args.slice(2).join(' ')}`;
  assert.equal(t.code, k.code, `${label}: exit code (kafka stderr: ${k.err.slice(0, 600)}; tkafka stderr: ${t.err})`);
  assert.deepEqual(t.out.split('\n'), k.out.split('\n'), `${label}: stdout`);
  if (opts.stderr)
    assert.equal(sortedStates(errorLines(t.err)[0]), sortedStates(errorLines(k.err)[0]), `${label}: stderr`);
  return t;
}

interface StateJson {
  state: string;
  members: number;
}

async function describeState(): Promise<StateJson | null> {
  const r = await runTkafka('streams-groups', SG('--describe', '--group', APP, '--state', '--output', 'json'), {});
  return r.code === 0 && r.out.startsWith('{') ? (JSON.parse(r.out).groups[0] as StateJson) : null;
}

/** Every partition of the group's offsets table committed and at lag 0 (nothing moves any more). */
async function waitCaughtUp(): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      const r = await runTkafka('streams-groups', SG('--describe', '--group', APP, '--output', 'json'), {});
      last = `${r.out}${r.err}`;
      if (r.code !== 0 || !r.out.startsWith('{')) return false;
      const rows = (JSON.parse(r.out).groups[0]?.offsets ?? []) as { currentOffset: number | null; lag: number }[];
      return rows.length >= 2 && rows.every((o) => o.currentOffset !== null && o.lag === 0);
    },
    { what: `streams group ${APP} to commit everything`, timeoutMs: 120_000, intervalMs: 1000 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}: last describe ${last}`);
  });
}

function scenario(name: Target['name']): void {
  let app: ReturnType<typeof instance> | null = null;
  before(async () => {
    target = await TARGETS[name]();
    for (const [t, n] of [
      ['words-in', 2],
      ['counts-out', 1],
    ] as const) {
      const r = await runTkafka('topics', [...B(), '--create', '--topic', t, '--partitions', String(n)], {});
      assert.equal(r.code, 0, r.err);
    }
    assert.match(await java(['produce', target.bootstrap, 'words-in', String(LINES)]), new RegExp(`produced ${LINES}`));
    app = instance(target.bootstrap);
    try {
      await waitFor(async () => (await describeState())?.state === 'Stable', {
        what: `${APP} to be Stable`,
        timeoutMs: 120_000,
        intervalMs: 1000,
      });
      await waitCaughtUp();
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${app.log()}`, { cause: e });
    }
  });
  after(async () => {
    await app?.stop();
    await target.stop();
  });

  test('list and describe a Stable group', async () => {
    const listed = await same(SG('--list'));
    assert.equal(listed.out, `${APP}\n`);
    await same(SG('--list', '--state'));
    await same(SG('--list', '--state', 'stable,empty'));
    await same(SG('--list', '--state', 'Assigning'));
    await same(SG('--list', '--state', 'PreparingRebalance'), { stderr: true });
    const offsets = await same(SG('--describe', '--group', APP));
    assert.match(offsets.out, /^GROUP +TOPIC +PARTITION +OFFSET-LAG\n/);
    await same(SG('--describe', '--group', APP, '--offsets', '--verbose'));
    const members = await same(SG('--describe', '--group', APP, '--members'));
    assert.match(members.out, /ACTIVE: /);
    await same(SG('--describe', '--group', APP, '--members', '--verbose'));
    const state = await same(SG('--describe', '--group', APP, '--state'));
    assert.match(state.out, / Stable +1\n$/);
    await same(SG('--describe', '--group', APP, '--state', '--verbose'));
    await same(SG('--describe', '--all-groups', '--state'));
    await same(SG('--describe', '--group', 'missing', '--state'));
  });

  test('topology', async () => {
    await same(SG('--describe', '--group', APP, '--topology'));
  });

  test('refused while Stable', async () => {
    await same(SG('--delete', '--group', APP));
    await same(SG('--delete', '--group', 'missing'));
    await same(SG('--reset-offsets', '--group', APP, '--dry-run', '--to-earliest', '--all-input-topics'));
  });

  test('usage errors', async () => {
    for (const args of [
      ['--all-groups'],
      ['--describe'],
      ['--describe', '--group', APP, '--members', '--state'],
      ['--delete', '--group', APP, '--input-topic', 'words-in'],
      ['--delete-offsets', '--group', APP],
      ['--reset-offsets', '--group', APP, '--to-latest', '--all-input-topics'],
      ['--list', '--dry-run'],
      ['--list', '--members'],
      ['--list', '--group', APP],
    ])
      await same(SG(...args), { stderr: true });
  });

  test('an Empty group: describe, reset plans, execute, delete', async () => {
    await app!.stop();
    await waitFor(async () => (await describeState())?.state === 'Empty', {
      what: `${APP} to be Empty`,
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    await same(SG('--list', '--state'));
    await same(SG('--describe', '--group', APP));
    await same(SG('--describe', '--group', APP, '--members'));
    await same(SG('--describe', '--group', APP, '--state', '--verbose'));
    const dir = mkdtempSync(join(tmpdir(), 'tkafka-sg-reset-'));
    const plan = join(dir, 'plan.csv');
    writeFileSync(plan, 'words-in,0,3\nwords-in,1,4\n');
    for (const scenarioArgs of [
      ['--to-earliest', '--all-input-topics'],
      ['--to-latest', '--all-input-topics'],
      ['--to-offset', '10', '--all-input-topics'],
      ['--shift-by', '-5', '--input-topic', 'words-in'],
      ['--to-current', '--input-topic', 'words-in:1'],
      ['--to-datetime', '2020-01-01T00:00:00.000', '--all-input-topics'],
      ['--from-file', plan],
      ['--to-earliest', '--input-topic', 'counts-out'],
    ])
      await same(SG('--reset-offsets', '--group', APP, '--dry-run', ...scenarioArgs));
    await same(SG('--reset-offsets', '--group', APP, '--dry-run', '--to-earliest', '--all-input-topics', '--export'));
    // tkafka's tool executes; both tools then plan --to-current from what it committed
    const executed = await runTkafka(
      'streams-groups',
      SG('--reset-offsets', '--group', APP, '--execute', '--to-offset', '2', '--all-input-topics'),
      {},
    );
    assert.equal(executed.code, 0, executed.err);
    assert.match(executed.out, /\nwc +words-in +[01] +2 +\n/);
    const current = await same(
      SG('--reset-offsets', '--group', APP, '--dry-run', '--to-current', '--all-input-topics'),
    );
    assert.equal(current.out.match(/ 2 +$/gm)?.length, 2, current.out);
    await same(SG('--delete-offsets', '--group', APP, '--input-topic', 'words-in:0'));
    await same(SG('--reset-offsets', '--group', APP, '--dry-run', '--to-current', '--all-input-topics'));
    const deleted = await runTkafka(
      'streams-groups',
      SG('--delete', '--group', APP, '--delete-all-internal-topics'),
      {},
    );
    assert.equal(deleted.code, 0, deleted.err);
    assert.equal(
      deleted.out,
      `Deletion of requested streams groups ('${APP}') was successful.\n` +
        `Deletion of associated internal topics of the streams groups ('${APP}') was successful.\n`,
    );
    await same(SG('--list'));
    await same(SG('--delete', '--group', APP));
    // the internal topics are gone (the controller deletes them; the listing follows)
    let listed = '';
    await waitFor(
      async () => {
        const topics = await runTkafka('topics', [...B(), '--list'], {});
        listed = topics.out;
        return topics.code === 0 && !topics.out.split('\n').some((t) => t.startsWith(`${APP}-`));
      },
      { what: `the internal topics of ${APP} to be deleted`, timeoutMs: 30_000, intervalMs: 500 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}: ${listed}`);
    });
    rmSync(dir, { recursive: true, force: true });
  });
}

for (const name of Object.keys(TARGETS) as Target['name'][]) describe(`on ${name}`, () => scenario(name));
