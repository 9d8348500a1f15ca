// Share groups (KIP-932) end to end with Kafka's own share consumer: KafkaShareConsumer from
// kafka-clients 4.4.0 (test/helpers/java/ShareClient.java) against an Apache Kafka 4.4.0 broker and a
// tkafka broker, both with group.share.min.record.lock.duration.ms lowered to 1000 so that the
// stalled-consumer group can set share.record.lock.duration.ms=5000. The same program runs against each:
// - two share consumers of one share group (explicit acknowledgement) consume 20 records together, each
//   record first delivered to one of them; records RELEASEd come back with delivery count 2, records
//   REJECTed never come back;
// - a consumer that acquired records and stopped polling (its connection and heartbeats go on) loses
//   them to a second consumer once the acquisition lock duration has passed (delivery count 2);
// - a consumer process killed with records acquired (group lock 60 s): its connection closes and the
//   records go to another consumer at once (Kafka 4.4's ClientConnectionDisconnectListener);
// - Kafka's kafka-share-groups.sh (ShareGroupCommand from the 4.4.0 jars) describes both groups'
//   start offsets;
// - restart survival: a consumer accepts 6 of 10 records and crashes (halt) with the others acquired;
//   the broker is stopped and started again; a new consumer of the group gets exactly the 4 others
//   (the share-partition state comes back from __share_group_state);
// - confluent-kafka 2.15's ShareConsumer (test/interop/share-consumer/share_client.py) runs the first
//   scenario too (without the per-consumer split).
// Kafka's observations must be the expected ones below (two wrong sides cannot pass) and tkafka's must
// equal Kafka's.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { compileJava, requireJavaClient } from '../helpers/javac.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';
import { RawClient } from '../helpers/raw-client.js';
import { ApiKey } from '../../src/protocol/frame.js';

const JAVA_SOURCE = join(REPO_ROOT, 'test', 'helpers', 'java', 'ShareClient.java');
const JAVA_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const JAVA_CLASSES = join(REPO_ROOT, '.cache', 'i19-share-consumer', 'classes');
const PYTHON = join(REPO_ROOT, '.cache', 'clients', 'venv', 'bin', 'python');
const PYTHON_SCRIPT = join(REPO_ROOT, 'test', 'interop', 'share-consumer', 'share_client.py');
const LOCK_MS = 5000;
/** The lock of the stalled-consumer group (a group config); the broker default stays 30 s. */
const BROKER_CONFIGS = {
  'group.share.min.record.lock.duration.ms': 1000,
};

/** What Kafka 4.4.0's brokers give the scenario (ShareClient scenario). */
const EXPECTED_SCENARIO = [
  'obs together delivered=20 per-consumer=10,10 unexpected=0',
  'obs accepted=16 rejected=[3, 8, 13, 18]',
  'obs released-then-redelivered={1=2, 6=2, 11=2, 16=2}',
  'obs stalled acquired=[v-0@1, v-1@1, v-2@1, v-3@1]',
  'obs other got=[v-0@>1, v-1@>1, v-2@>1, v-3@>1] after-lock=true',
];

/**
 * The stalled consumer's records come to the other with a delivery count above 1: 2 mostly, 3 when a
 * loaded machine let the other's own 5 s lock expire once before its poll returned them (seen on
 * Kafka 4.4.0 in a run two test files at a time). The count itself is printed, then set aside.
 */
function redeliveredAbove1(lines: string[], broker: string): string[] {
  console.log(`${broker}: ${lines.join(' | ')}`);
  return lines.map((l) => (l.startsWith('obs other got=') ? l.replace(/@([2-9]|\d\d+)\b/g, '@>1') : l));
}

/** What Kafka 4.4.0 gives the killed consumer's records (ShareClient hold, then take). */
const EXPECTED_KILL = [
  'obs held=[v-0@1, v-1@1, v-2@1, v-3@1]',
  'obs took=[v-0@2, v-1@2, v-2@2, v-3@2] within-30s=true',
];

let kafka: ApacheKafka;
let tkafka: BrokerProcess;

/** Compiles ShareClient.java against kafka-clients 4.4.0 when its class is missing or older. */
async function ensureJavaCompiled(): Promise<void> {
  requireJavaClient(JAVA_LIB);
  await compileJava(JAVA_SOURCE, JAVA_CLASSES, `${JAVA_LIB}/*`);
}

/** The `obs` lines of one ShareClient run; its output in the error when it failed. */
const javaArgs = (args: string[]): string[] => [
  '-n',
  '19',
  'java',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-Xmx256m',
  '-cp',
  `${JAVA_CLASSES}:${JAVA_LIB}/*`,
  'ShareClient',
  ...args,
];

async function shareClient(args: string[]): Promise<string[]> {
  const r = await execa('nice', javaArgs(args), { reject: false, timeout: 300_000 });
  const lines = String(r.stdout)
    .split('\n')
    .filter((l) => l.startsWith('obs '));
  if (r.exitCode !== 0)
    throw new Error(
      `ShareClient ${args.join(' ')} exited ${r.exitCode}:\n${String(r.stdout)}\n${String(r.stderr).slice(-6000)}`,
    );
  return lines;
}

/** kafka-share-groups.sh --describe --group <g>: the rows of GROUP TOPIC PARTITION START-OFFSET, and LAG. */
async function describeShareGroup(bootstrap: string, group: string): Promise<{ rows: string[]; lag: string[] }> {
  const r = await kafka.runTool('org.apache.kafka.tools.consumer.group.ShareGroupCommand', [
    '--bootstrap-server',
    bootstrap,
    '--describe',
    '--group',
    group,
  ]);
  assert.equal(
    r.exitCode,
    0,
    `kafka-share-groups.sh --describe --group ${group} against ${bootstrap}: ${r.stdout}${r.stderr}`,
  );
  const lines = r.stdout.split('\n').filter((l) => l.trim() !== '');
  assert.deepEqual(lines[0]?.split(/\s+/), ['GROUP', 'TOPIC', 'PARTITION', 'START-OFFSET', 'LAG'], r.stdout);
  const cells = lines.slice(1).map((l) => l.trim().split(/\s+/));
  return { rows: cells.map((c) => c.slice(0, 4).join(' ')), lag: cells.map((c) => c[4] ?? '') };
}

/** Runs the same things once per broker: Kafka's answers are checked first, then compared with tkafka's. */
const runs = new Map<string, Promise<string[]>>();
function once(key: string, f: () => Promise<string[]>): Promise<string[]> {
  if (!runs.has(key)) runs.set(key, f());
  return runs.get(key)!;
}

before(async () => {
  if (!existsSync(PYTHON))
    throw new Error(`confluent-kafka's venv is missing (${PYTHON}): run bash test/clients/python/setup.sh`);
  [kafka, tkafka] = await Promise.all([
    startApacheKafka({ overrides: BROKER_CONFIGS }),
    startBroker({ overrides: BROKER_CONFIGS }),
    ensureJavaCompiled(),
  ]).then(([k, t]) => [k, t] as const);
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
});

const scenarioOn = (name: 'kafka' | 'tkafka'): Promise<string[]> =>
  once(`scenario@${name}`, () =>
    shareClient(['scenario', name === 'kafka' ? kafka.bootstrap : tkafka.bootstrap, String(LOCK_MS)]).catch(
      (e: Error) => {
        throw new Error(`${e.message}\n${name === 'tkafka' ? `tkafka's log:\n${tkafka.output().slice(-20_000)}` : ''}`);
      },
    ),
  );

test(`KafkaShareConsumer against Kafka ${KAFKA_VERSION}`, { timeout: 400_000 }, async () => {
  assert.deepEqual(redeliveredAbove1(await scenarioOn('kafka'), 'Kafka'), EXPECTED_SCENARIO);
});

test('KafkaShareConsumer against tkafka: the same', { timeout: 400_000 }, async () => {
  const k = await scenarioOn('kafka')
    .then((l) => redeliveredAbove1(l, 'Kafka'))
    .catch(() => EXPECTED_SCENARIO);
  assert.deepEqual(redeliveredAbove1(await scenarioOn('tkafka'), 'tkafka'), k);
});

test('kafka-share-groups --describe: start offsets', { timeout: 400_000 }, async () => {
  await Promise.all([scenarioOn('kafka'), scenarioOn('tkafka')]);
  for (const group of ['sg', 'sg-lock']) {
    const [k, t] = [
      await describeShareGroup(kafka.bootstrap, group),
      await describeShareGroup(tkafka.bootstrap, group),
    ];
    console.log(`${group}: Kafka ${JSON.stringify(k)}; tkafka ${JSON.stringify(t)}`);
    assert.equal(k.rows.length, group === 'sg' ? 2 : 1);
    assert.deepEqual(t.rows, k.rows);
  }
});

/** DescribeConfigs v4 of a GROUP resource: its share.* entries (name, value, source, synonyms), sorted. */
async function shareGroupConfigs(port: number, group: string): Promise<string[]> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.DescribeConfigs, 4, {
      resources: [{ resourceType: 32, resourceName: group, configurationKeys: null }],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    assert.equal(r.results[0]!.errorCode, 0, r.results[0]!.errorMessage ?? '');
    return r.results[0]!.configs.filter((e) => e.name.startsWith('share.') || e.name.startsWith('consumer.'))
      .map((e) =>
        JSON.stringify([
          e.name,
          e.value,
          e.configSource,
          e.configType,
          e.documentation,
          e.synonyms.map((x) => [x.name, x.value, x.source]),
        ]),
      )
      .sort();
  } finally {
    c.close();
  }
}

test('DescribeConfigs of a share group: the share.* keys', { timeout: 400_000 }, async () => {
  // share.auto.offset.reset was set on sg by the scenario; the others come from the group.share.* synonyms
  await Promise.all([scenarioOn('kafka'), scenarioOn('tkafka')]);
  const k = await shareGroupConfigs(kafka.port, 'sg');
  assert.ok(
    k.some((e) => e.startsWith('["share.auto.offset.reset","earliest",8')),
    k.join('\n'),
  );
  assert.deepEqual(await shareGroupConfigs(tkafka.port, 'sg'), k);
});

/** confluent-kafka 2.15's ShareConsumer: topic pq (2 partitions), group pg with share.auto.offset.reset=earliest. */
async function pythonRun(name: 'kafka' | 'tkafka'): Promise<string[]> {
  const bootstrap = name === 'kafka' ? kafka.bootstrap : tkafka.bootstrap;
  const tool = async (main: string, args: string[]): Promise<void> => {
    const r = await kafka.runTool(main, ['--bootstrap-server', bootstrap, ...args]);
    assert.equal(r.exitCode, 0, `${main} ${args.join(' ')} against ${name}: ${r.stdout}${r.stderr}`);
  };
  await tool('org.apache.kafka.tools.TopicCommand', ['--create', '--topic', 'pq', '--partitions', '2']);
  await tool('org.apache.kafka.tools.ConfigCommand', [
    '--alter',
    '--entity-type',
    'groups',
    '--entity-name',
    'pg',
    '--add-config',
    'share.auto.offset.reset=earliest',
  ]);
  const r = await execa('nice', ['-n', '19', PYTHON, PYTHON_SCRIPT, bootstrap, 'pq', 'pg', '20'], {
    reject: false,
    timeout: 300_000,
  });
  if (r.exitCode !== 0)
    throw new Error(
      `share_client.py against ${name} exited ${r.exitCode}:\n${String(r.stdout)}\n${String(r.stderr).slice(-6000)}`,
    );
  return String(r.stdout)
    .split('\n')
    .filter((l) => l.startsWith('obs '));
}

const pythonOn = (name: 'kafka' | 'tkafka'): Promise<string[]> => once(`python@${name}`, () => pythonRun(name));

test(`confluent-kafka ShareConsumer against Kafka ${KAFKA_VERSION}, then tkafka`, { timeout: 600_000 }, async () => {
  const k = await pythonOn('kafka');
  assert.deepEqual(k, [
    'obs together delivered=20 unexpected=0',
    'obs accepted=16 rejected=[3, 8, 13, 18]',
    'obs released-then-redelivered={1=2, 6=2, 11=2, 16=2}',
  ]);
  assert.deepEqual(await pythonOn('tkafka'), k);
});

/**
 * A consumer process killed (SIGKILL) with records acquired under a 60 s group lock: its connection
 * closes, and the records go to another consumer long before the lock would expire.
 */
async function killRun(name: 'kafka' | 'tkafka'): Promise<string[]> {
  const bootstrap = name === 'kafka' ? kafka.bootstrap : tkafka.bootstrap;
  const child = execa('nice', javaArgs(['hold', bootstrap, 'sk', 'gk', '4']), { reject: false, timeout: 180_000 });
  let out = '';
  const held = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^obs held=.*$/m.exec(out);
      if (m) resolve(m[0]);
    });
    void child.then((r) =>
      reject(new Error(`hold exited ${r.exitCode} first:\n${out}\n${String(r.stderr).slice(-4000)}`)),
    );
  });
  child.kill('SIGKILL');
  await child;
  return [held, ...(await shareClient(['take', bootstrap, 'sk', 'gk', '4']))];
}

test('a killed consumer: its records go to another at once', { timeout: 600_000 }, async () => {
  const k = await once('kill@kafka', () => killRun('kafka'));
  assert.deepEqual(k, EXPECTED_KILL, `Kafka ${KAFKA_VERSION}`);
  assert.deepEqual(await once('kill@tkafka', () => killRun('tkafka')), k);
});

/** A crash with records acquired, a broker restart, and a new consumer of the group. */
async function restartRun(name: 'kafka' | 'tkafka'): Promise<string[]> {
  const node = name === 'kafka' ? kafka : tkafka;
  const bootstrap = (): string => (name === 'kafka' ? kafka.bootstrap : tkafka.bootstrap);
  const seen = await shareClient(['partial', bootstrap(), 'sr', 'gr', '10', '6']);
  await node.stop();
  await node.restart();
  return [...seen, ...(await shareClient(['drain', bootstrap(), 'sr', 'gr', '4']))];
}

test('restart: a new consumer gets exactly the unacknowledged records', { timeout: 600_000 }, async () => {
  // after the other runs, which the restart would otherwise interrupt
  await Promise.all([scenarioOn('kafka'), scenarioOn('tkafka')]).catch(() => undefined);
  await Promise.all([pythonOn('kafka'), pythonOn('tkafka')]).catch(() => undefined);
  await Promise.all([once('kill@kafka', () => killRun('kafka')), once('kill@tkafka', () => killRun('tkafka'))]).catch(
    () => undefined,
  );
  const expected = ['obs partial unacknowledged=[6, 7, 8, 9]', 'obs drained=[6, 7, 8, 9] deliveries=4'];
  const k = await once('restart@kafka', () => restartRun('kafka'));
  assert.deepEqual(k, expected, `Kafka ${KAFKA_VERSION}`);
  assert.deepEqual(await once('restart@tkafka', () => restartRun('tkafka')), k);
});
