// Kafka Streams 4.4.0 with the streams rebalance protocol (KIP-1071, group.protocol=streams) on
// Apache Kafka 4.4.0 and on tkafka: a word count (one repartition topic, one changelogged store) run
// by two instances of one application (test/helpers/java/StreamsWordCount.java). On each broker:
// every input line is counted (the output's latest counts equal the expected ones), the broker
// created the internal topics (Kafka Streams does not with this protocol), the group is Stable with
// both members, and StreamsGroupDescribe and Kafka's `kafka-streams-groups.sh` (StreamsGroupCommand
// from the 4.4.0 jars) describe it the same way once member ids, process ids, ports and which member
// got which task are set aside. Then the demo: exactly_once_v2, one of the two instances
// killed with -9 mid-run: the output still holds the exact counts (both brokers). The Kafka Streams jars come from Maven Central (mvn, as
// scripts/kafka-jars.sh gets Kafka's), into the local Maven repository.
//
//   npm run build && node --test dist/test/interop/streams-group-kafka.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { waitFor } from '../helpers/wait-for.js';
import { kafkaLibDir, runKafkaTool, startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode as E } from '../../src/protocol/errors.js';

const JAVA_SOURCE = join(REPO_ROOT, 'test', 'helpers', 'java', 'StreamsWordCount.java');
const JAVA_CLASSES = join(tmpdir(), 'tkafka-streams-wordcount-classes');
// provisioned by test/clients/java/setup.sh (scripts/provision.sh) with Kafka's Java client
const JAVA_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const STREAMS_JARS = [join(JAVA_LIB, 'kafka-streams-4.4.0.jar'), join(JAVA_LIB, 'rocksdbjni-10.1.3.jar')];
const LINES = 300;
const APP = 'wc';

/** The counts StreamsWordCount.line(i) gives for i < lines. */
function expectedCounts(lines = LINES): string[] {
  const m = new Map<string, number>();
  for (let i = 0; i < lines; i++)
    for (const w of [`w${i % 7}`, `w${i % 5}`, `w${i % 3}`]) m.set(w, (m.get(w) ?? 0) + 1);
  return [...m].sort(([a], [b]) => (a < b ? -1 : 1)).map(([w, n]) => `count ${w}=${n}`);
}
const TOTAL = LINES * 3;

let classpath = '';
let kafka: ApacheKafka | null = null;
let tkafka: BrokerProcess | null = null;
const children = new Set<ChildProcess>();

before(async () => {
  const lib = kafkaLibDir();
  for (const j of STREAMS_JARS)
    if (!existsSync(j))
      throw new Error(`Kafka Streams 4.4.0 is not provisioned (${j}): run bash test/clients/java/setup.sh`);
  classpath = [JAVA_CLASSES, `${lib}/*`, ...STREAMS_JARS].join(':');
  const classFile = join(JAVA_CLASSES, 'StreamsWordCount.class');
  if (!existsSync(classFile) || statSync(classFile).mtimeMs < statSync(JAVA_SOURCE).mtimeMs) {
    mkdirSync(JAVA_CLASSES, { recursive: true });
    await execa(
      'nice',
      [
        '-n',
        '19',
        'javac',
        '-nowarn',
        '-encoding',
        'UTF-8',
        '--release',
        '17',
        '-cp',
        classpath,
        '-d',
        JAVA_CLASSES,
        JAVA_SOURCE,
      ],
      {
        timeout: 120_000,
      },
    );
  }
});

after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await kafka?.cleanup();
  if (tkafka) {
    await tkafka.stop();
    tkafka.cleanup();
  }
});

const JVM = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xmx256m'];

async function java(args: string[], timeoutMs = 120_000): Promise<string> {
  const r = await execa('nice', ['-n', '19', 'java', ...JVM, '-cp', classpath, 'StreamsWordCount', ...args], {
    timeout: timeoutMs,
    reject: false,
  });
  if (r.exitCode !== 0) throw new Error(`StreamsWordCount ${args[0]} exited ${r.exitCode}:\n${r.stdout}\n${r.stderr}`);
  return String(r.stdout);
}

/** One application instance: its printed states; `stop()` closes it (leaving the group). */
function instance(bootstrap: string, tag: string, app = APP, topics = ['words-in', 'counts-out'], eos = false) {
  const stateDir = mkdtempSync(join(tmpdir(), 'tkafka-streams-state-'));
  // `nice` execs java: the pid is the JVM's (kill() is a kill -9 of the instance)
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
    app,
    topics[0]!,
    topics[1]!,
    stateDir,
    tag,
    ...(eos ? ['eos'] : []),
  ]);
  children.add(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => p.once('exit', () => r()));
  return {
    states: () => [...out.matchAll(/^state=(\w+)$/gm)].map((m) => m[1]!),
    log: () => `${out}\n${err.slice(-4000)}`,
    async kill() {
      p.kill('SIGKILL');
      await exited;
      children.delete(p);
    },
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

interface Observed {
  counts: string[];
  internalTopics: string[];
  changelogPolicy: string | null;
  describe: unknown;
  epochs: string;
  tool: Record<string, string[]>;
}

/** Member ids, process ids, coordinator address and task numbers vary between runs: set them aside. */
function normalizeTool(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) =>
      l
        .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<process>')
        .replace(/(^|\s)[A-Za-z0-9_-]{22}(?=\s)/g, '$1<member>')
        .replace(/127\.0\.0\.1:\d+ \(\d+\)/, '<coordinator>')
        .replace(/:\[[\d, ]+\]/g, ':[N]')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .sort();
}

async function scenario(bootstrap: string, port: number): Promise<Observed> {
  const c = await RawClient.connect(port);
  const instances: ReturnType<typeof instance>[] = [];
  try {
    const created = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        { name: 'words-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'counts-out', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.deepEqual(
      created.topics.map((t) => t.errorCode),
      [E.NONE, E.NONE],
    );
    assert.match(await java(['produce', bootstrap, 'words-in', String(LINES)]), new RegExp(`produced ${LINES}`));
    instances.push(instance(bootstrap, 'a'), instance(bootstrap, 'b'));
    const counts = (await java(['counts', bootstrap, 'counts-out', String(TOTAL), '150000'], 200_000))
      .split('\n')
      .filter((l) => l.startsWith('count '));
    // both instances run, and the group settles with both members reconciled
    await waitFor(() => instances.every((i) => i.states().at(-1) === 'RUNNING'), {
      what: 'both instances to be RUNNING',
      timeoutMs: 90_000,
      intervalMs: 500,
    });
    const described = await waitFor(
      async () => {
        const r = await c.request(ApiKey.StreamsGroupDescribe, 1, {
          groupIds: [APP],
          includeAuthorizedOperations: false,
          includeTopologyDescription: false,
        });
        const g = r.groups[0]!;
        return g.errorCode === E.NONE && g.groupState === 'Stable' && g.members.length === 2 ? g : null;
      },
      { what: `${APP} to be Stable with two members`, timeoutMs: 90_000, intervalMs: 500 },
    );
    const metadata = await c.request(ApiKey.Metadata, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const internalTopics = metadata.topics
      .filter((t) => (t.name ?? '').startsWith(`${APP}-`))
      .map((t) => `${t.name}:${t.partitions.length}`)
      .sort();
    const cfg = await c.request(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: 2, resourceName: `${APP}-counts-changelog`, configurationKeys: ['cleanup.policy'] }],
      includeSynonyms: false,
      includeDocumentation: false,
    });
    const tool: Record<string, string[]> = {};
    for (const [name, args] of [
      ['offsets', ['--describe']],
      ['members', ['--describe', '--members']],
      ['state', ['--describe', '--state']],
    ] as const) {
      const r = await runKafkaTool('org.apache.kafka.tools.streams.StreamsGroupCommand', [
        '--bootstrap-server',
        bootstrap,
        ...args,
        '--group',
        APP,
      ]);
      assert.equal(r.exitCode, 0, r.stderr);
      tool[name] = normalizeTool(r.stdout);
    }
    const g = described;
    return {
      counts,
      internalTopics,
      changelogPolicy: cfg.results[0]!.configs[0]?.value ?? null,
      epochs: `group ${g.groupEpoch}, assignment ${g.assignmentEpoch}, members ${g.members.map((m) => m.memberEpoch).join('/')}`,
      describe: {
        groupState: g.groupState,
        assignorName: g.assignorName,
        topology: g.topology,
        members: g.members
          .map((m) => ({
            clientId: m.clientId,
            clientHost: m.clientHost,
            topologyEpoch: m.topologyEpoch,
            userEndpoint: m.userEndpoint,
            instanceId: m.instanceId,
            rackId: m.rackId,
            clientTags: m.clientTags,
            isClassic: m.isClassic,
            activeTasks: m.assignment.activeTasks.map((t) => [t.subtopologyId, t.partitions.length]),
            standbyTasks: m.assignment.standbyTasks.length,
            targetActive: m.targetAssignment.activeTasks.map((t) => [t.subtopologyId, t.partitions.length]),
          }))
          .sort((a, b) => (a.clientId < b.clientId ? -1 : 1)),
      },
      tool,
    };
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${instances.map((i) => i.log()).join('\n----\n')}`, { cause: e });
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
    c.close();
  }
}

/**
 * The demo: exactly_once_v2, two instances, one killed (-9) mid-run. Half the input is counted
 * by both; instance b is killed; the other half is produced; after b's session expires (45 s) instance
 * a takes its tasks and the output (read_committed) holds the exact counts of all the input.
 */
async function eosScenario(bootstrap: string, port: number): Promise<string[]> {
  const c = await RawClient.connect(port);
  const app = 'wc-eos';
  const instances: ReturnType<typeof instance>[] = [];
  try {
    const created = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        { name: 'eos-in', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] },
        { name: 'eos-out', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.deepEqual(
      created.topics.map((t) => t.errorCode),
      [E.NONE, E.NONE],
    );
    await java(['produce', bootstrap, 'eos-in', String(LINES), '0']);
    instances.push(
      instance(bootstrap, 'a', app, ['eos-in', 'eos-out'], true),
      instance(bootstrap, 'b', app, ['eos-in', 'eos-out'], true),
    );
    const half = await java(['counts', bootstrap, 'eos-out', String(TOTAL), '150000'], 200_000);
    assert.equal(half.split('\n').filter((l) => l.startsWith('count ')).length, 7, half);
    await waitFor(
      async () => {
        const r = await c.request(ApiKey.StreamsGroupDescribe, 1, {
          groupIds: [app],
          includeAuthorizedOperations: false,
          includeTopologyDescription: false,
        });
        const g = r.groups[0]!;
        return (
          g.groupState === 'Stable' &&
          g.members.length === 2 &&
          g.members.every((m) => m.assignment.activeTasks.length > 0)
        );
      },
      { what: `${app} to be Stable with both instances working`, timeoutMs: 90_000, intervalMs: 500 },
    );
    await instances[1]!.kill();
    await java(['produce', bootstrap, 'eos-in', String(LINES), String(LINES)]);
    return (await java(['counts', bootstrap, 'eos-out', String(2 * TOTAL), '200000'], 260_000))
      .split('\n')
      .filter((l) => l.startsWith('count '));
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${instances.map((i) => i.log()).join('\n----\n')}`, { cause: e });
  } finally {
    await Promise.all(instances.map((i) => i.stop()));
    c.close();
  }
}

const observed = new Map<string, Observed>();
const eosCounts = new Map<string, string[]>();

test('Kafka Streams 4.4.0 on Apache Kafka 4.4.0', { timeout: 600_000 }, async () => {
  kafka = await startApacheKafka();
  const o = await scenario(kafka.bootstrap, kafka.port);
  console.log(`Apache Kafka 4.4.0: ${o.epochs}`);
  assert.deepEqual(o.counts, expectedCounts());
  observed.set('kafka', o);
  const eos = await eosScenario(kafka.bootstrap, kafka.port);
  console.log(`Apache Kafka 4.4.0, exactly_once_v2 with an instance killed: ${eos.join(' ')}`);
  assert.deepEqual(eos, expectedCounts(2 * LINES));
  eosCounts.set('kafka', eos);
  await kafka.cleanup();
  kafka = null;
});

test('Kafka Streams 4.4.0 on tkafka', { timeout: 600_000 }, async () => {
  tkafka = await startBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  const o = await scenario(tkafka.bootstrap, tkafka.port);
  console.log(`tkafka: ${o.epochs}`);
  assert.deepEqual(o.counts, expectedCounts());
  assert.deepEqual(o.internalTopics, [`${APP}-counts-changelog:2`, `${APP}-words-repartition:2`]);
  assert.equal(o.changelogPolicy, 'compact');
  observed.set('tkafka', o);
  const eos = await eosScenario(tkafka.bootstrap, tkafka.port);
  console.log(`tkafka, exactly_once_v2 with an instance killed: ${eos.join(' ')}`);
  assert.deepEqual(eos, expectedCounts(2 * LINES));
  eosCounts.set('tkafka', eos);
});

test('same output, internal topics and descriptions on both', () => {
  const k = observed.get('kafka');
  const t = observed.get('tkafka');
  assert.ok(k && t, 'both runs completed');
  assert.deepEqual(t.counts, k.counts);
  assert.deepEqual(t.internalTopics, k.internalTopics);
  assert.equal(t.changelogPolicy, k.changelogPolicy);
  assert.deepEqual(t.describe, k.describe);
  assert.deepEqual(t.tool, k.tool);
  assert.deepEqual(eosCounts.get('tkafka'), eosCounts.get('kafka'));
});
