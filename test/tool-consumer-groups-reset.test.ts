// `tkafka consumer-groups --reset-offsets` with every scenario against a real `tkafka server start`
// process: dry run (the default) changes nothing, --execute commits, --export / --from-file CSV in
// both layouts, active groups are refused; committed offsets are checked with kafkajs.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { run as consumerGroups } from '../src/tools/consumer-groups/main.js';
import { waitFor } from './helpers/wait-for.js';

const { Kafka, logLevel } = kafkajs;

let broker: BrokerProcess;
let kafka: kafkajs.Kafka;
let admin: kafkajs.Admin;
let dir: string;
const T0 = 1_700_000_000_000;

async function cg(argv: string[]): Promise<{ code: number; out: string; err: string }> {
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
  const code = await consumerGroups(['--bootstrap-server', broker.bootstrap, ...argv], {
    stdout,
    stderr,
    stdin: Readable.from([]),
    env: {},
  });
  return { code, out, err };
}

async function committed(groupId: string, topic = 'events'): Promise<Record<number, string>> {
  const r = await admin.fetchOffsets({ groupId, topics: [topic] });
  return Object.fromEntries(r[0]!.partitions.map((p) => [p.partition, p.offset]));
}

async function seed(groupId: string, offsets: Record<number, number>): Promise<void> {
  await admin.setOffsets({
    groupId,
    topic: 'events',
    partitions: Object.entries(offsets).map(([p, o]) => ({ partition: Number(p), offset: String(o) })),
  });
}

/** The reset table rows (sorted: Kafka prints them in HashMap order). */
function planRows(out: string): string[] {
  const lines = out.split('\n');
  assert.equal(lines[0], '');
  assert.equal(lines[lines.length - 1], '');
  const rows = lines.slice(2, -1).map((l) => l.trimEnd().split(/\s+/));
  // Kafka 4.4's printOffsetsToReset: group and topic columns as wide as the longest value, at least 15.
  const groupWidth = Math.max(15, ...rows.map((r) => r[0]!.length));
  const topicWidth = Math.max(15, ...rows.map((r) => r[1]!.length));
  assert.equal(
    lines[1],
    `${'GROUP'.padEnd(groupWidth)} ${'TOPIC'.padEnd(topicWidth)} ${'PARTITION'.padEnd(10)} NEW-OFFSET`,
  );
  return rows.map((r) => r.join(' ')).sort();
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-reset-'));
  broker = await startBroker({
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 1000 },
  });
  kafka = new Kafka({
    brokers: [broker.bootstrap],
    clientId: 'reset-test',
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 100 },
  });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 2 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  // Partition p: 10 records with timestamps T0 + i * 1000.
  for (let p = 0; p < 2; p++) {
    await producer.send({
      topic: 'events',
      acks: -1,
      messages: Array.from({ length: 10 }, (_, i) => ({
        partition: p,
        value: `v${i}`,
        timestamp: String(T0 + i * 1000),
      })),
    });
  }
  await producer.disconnect();
});

after(async () => {
  await admin?.disconnect();
  await broker?.stop();
  broker?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("dry run is the default (with Kafka's warning) and changes nothing", async () => {
  await seed('dry', { 0: 5, 1: 6 });
  const r = await cg(['--reset-offsets', '--group', 'dry', '--topic', 'events', '--to-earliest']);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    /^WARN: No action will be performed as the --execute option is missing\. In a future major release/,
  );
  assert.deepEqual(planRows(r.out), ['dry events 0 0', 'dry events 1 0']);
  const explicit = await cg(['--reset-offsets', '--group', 'dry', '--all-topics', '--to-latest', '--dry-run']);
  assert.equal(explicit.err, '');
  assert.deepEqual(planRows(explicit.out), ['dry events 0 10', 'dry events 1 10']);
  assert.deepEqual(await committed('dry'), { 0: '5', 1: '6' });
});

test('--execute with each scenario commits what the plan shows', async () => {
  await seed('ex', { 0: 5, 1: 6 });
  const step = async (args: string[], expected: Record<number, string>): Promise<void> => {
    const r = await cg(['--reset-offsets', '--group', 'ex', ...args, '--execute']);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    const only = args.find((a) => a.startsWith('events:'))?.split(':')[1];
    const shown = Object.entries(expected).filter(([p]) => only === undefined || p === only);
    assert.deepEqual(planRows(r.out), shown.map(([p, o]) => `ex events ${p} ${o}`).sort(), args.join(' '));
    assert.deepEqual(await committed('ex'), expected, args.join(' '));
  };
  await step(['--all-topics', '--shift-by', '-2'], { 0: '3', 1: '4' });
  await step(['--topic', 'events:1', '--to-offset', '7'], { 0: '3', 1: '7' });
  await step(['--topic', 'events', '--to-earliest'], { 0: '0', 1: '0' });
  await step(['--topic', 'events', '--to-latest'], { 0: '10', 1: '10' });
  await step(['--topic', 'events', '--to-datetime', new Date(T0 + 3500).toISOString().replace('Z', '')], {
    0: '4',
    1: '4',
  });
  await step(['--topic', 'events', '--to-datetime', '2023-11-14T22:13:25.000+00:00'], { 0: '5', 1: '5' });
  await step(['--topic', 'events:0', '--to-current'], { 0: '5', 1: '5' });
  await step(['--topic', 'events', '--by-duration', 'P3650D'], { 0: '0', 1: '0' });
});

test("new offsets are clamped into the log with Kafka's WARN lines; a new group is seeded", async () => {
  const r = await cg(['--reset-offsets', '--group', 'fresh', '--topic', 'events', '--to-offset', '99', '--execute']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(planRows(r.out), ['fresh events 0 10', 'fresh events 1 10']);
  assert.match(
    r.err,
    /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] WARN New offset \(99\) is higher than latest offset for topic partition events-\d\. Value will be set to 10 \(org\.apache\.kafka\.tools\.consumer\.group\.ConsumerGroupCommand\)$/m,
  );
  assert.deepEqual(await committed('fresh'), { 0: '10', 1: '10' });
  const shift = await cg([
    '--reset-offsets',
    '--group',
    'nothing-yet',
    '--topic',
    'events',
    '--shift-by',
    '1',
    '--dry-run',
  ]);
  assert.equal(shift.code, 1);
  assert.match(
    shift.err,
    /^Cannot shift offset for partition events-\d since there is no current committed offset\nOption /,
  );
});

test('--export prints CSV (topic,partition,offset for one group, group,topic,... otherwise); --from-file reads it back', async () => {
  await seed('csv-a', { 0: 1, 1: 2 });
  await seed('csv-b', { 0: 3, 1: 4 });
  const one = await cg([
    '--reset-offsets',
    '--group',
    'csv-a',
    '--all-topics',
    '--to-current',
    '--dry-run',
    '--export',
  ]);
  assert.equal(one.code, 0, one.err);
  assert.ok(one.out.endsWith('\n\n'));
  assert.deepEqual(one.out.split('\n').slice(0, -2).sort(), ['events,0,1', 'events,1,2']);
  const two = await cg([
    '--reset-offsets',
    '--group',
    'csv-a',
    '--group',
    'csv-b',
    '--all-topics',
    '--shift-by',
    '1',
    '--dry-run',
    '--export',
  ]);
  assert.deepEqual(two.out.split('\n').slice(0, -2).sort(), [
    'csv-a,events,0,2',
    'csv-a,events,1,3',
    'csv-b,events,0,4',
    'csv-b,events,1,5',
  ]);

  const single = join(dir, 'single.csv');
  writeFileSync(single, 'events,0,8\nevents,1,9\n');
  const a = await cg(['--reset-offsets', '--group', 'csv-a', '--from-file', single, '--execute']);
  assert.equal(a.code, 0, a.err);
  assert.deepEqual(await committed('csv-a'), { 0: '8', 1: '9' });
  const multi = join(dir, 'multi.csv');
  writeFileSync(
    multi,
    two.out.replace(/,(\d)\n/g, (_m, o: string) => `,${Number(o) + 2}\n`),
  );
  const b = await cg(['--reset-offsets', '--group', 'csv-a', '--group', 'csv-b', '--from-file', multi, '--dry-run']);
  assert.equal(b.code, 0, b.err);
  assert.deepEqual(planRows(b.out), ['csv-a events 0 4', 'csv-a events 1 5', 'csv-b events 0 6', 'csv-b events 1 7']);
  assert.deepEqual(await committed('csv-b'), { 0: '3', 1: '4' });
  const missingGroup = await cg([
    '--reset-offsets',
    '--group',
    'csv-a',
    '--group',
    'other',
    '--from-file',
    multi,
    '--dry-run',
  ]);
  assert.equal(missingGroup.code, 1);
  assert.match(missingGroup.out, /\nError: No reset plan for group other found\.\n/);
});

test('a malformed CSV or a missing file is one line on stderr and exit 1', async () => {
  const bad = join(dir, 'bad.csv');
  writeFileSync(bad, 'csv-a,events,0,1\ncsv-a,events,zero,1\n');
  const r = await cg(['--reset-offsets', '--group', 'csv-a', '--group', 'csv-b', '--from-file', bad, '--dry-run']);
  assert.equal(r.code, 1);
  assert.equal(
    r.out,
    `\nError: Executing consumer group command failed due to Malformed reset plan in ${bad} at line 2: 'csv-a,events,zero,1' (expected group,topic,partition,offset)\n`,
  );
  assert.equal(
    r.err,
    `Error: Malformed reset plan in ${bad} at line 2: 'csv-a,events,zero,1' (expected group,topic,partition,offset)\n`,
  );
  const none = await cg(['--reset-offsets', '--group', 'csv-a', '--from-file', join(dir, 'nope.csv'), '--dry-run']);
  assert.equal(none.code, 1);
  assert.equal(none.err.split('\n').length, 2);
  assert.match(none.err, /NoSuchFileException: .*nope\.csv/);
});

test('a group with active members is refused like Kafka; its offsets stay', async () => {
  const consumer = kafka.consumer({ groupId: 'busy', sessionTimeout: 10_000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'events', fromBeginning: true });
  let seen = 0;
  await consumer.run({
    autoCommitInterval: 100,
    eachMessage: async () => {
      seen++;
    },
  });
  try {
    await waitFor(async () => (await admin.describeGroups(['busy'])).groups[0]!.state === 'Stable', {
      what: 'group busy to be Stable',
    });
    await waitFor(() => seen >= 20, { what: '20 records consumed by group busy' });
    // what was consumed is committed (autoCommitInterval 100 ms) before the offsets are compared
    await waitFor(async () => Object.values(await committed('busy')).some((o) => Number(o) > 0), {
      what: 'group busy to commit',
    });
    const before = await committed('busy');
    const r = await cg(['--reset-offsets', '--group', 'busy', '--topic', 'events', '--to-earliest', '--execute']);
    assert.equal(r.code, 1);
    assert.equal(
      r.out,
      "\nError: Assignments can only be reset if the group 'busy' is inactive, but the current state is Stable.\n" +
        `\n${'GROUP'.padEnd(15)} ${'TOPIC'.padEnd(15)} ${'PARTITION'.padEnd(10)} NEW-OFFSET\n`,
    );
    assert.deepEqual(await committed('busy'), before);
    assert.deepEqual(before, { 0: '10', 1: '10' });
  } finally {
    await consumer.disconnect();
  }
});

test('reset errors: bad scope, bad topic argument, unknown topic, bad date and duration', async () => {
  const scope = await cg(['--reset-offsets', '--group', 'g', '--to-earliest', '--dry-run']);
  assert.equal(scope.err.split('\n')[0], 'One of the reset scopes should be defined: --all-topics, --topic.');
  const scenario = await cg(['--reset-offsets', '--group', 'g', '--topic', 'events', '--dry-run']);
  assert.match(scenario.err, /^Option '\[reset-offsets\]' requires one of the following scenarios: \[\[to-offset\], /);
  const arg = await cg(['--reset-offsets', '--group', 'g', '--topic', 'events:x', '--to-earliest', '--dry-run']);
  assert.equal(arg.err.split('\n')[0], "Invalid partition 'x' specified in topic arg 'events:x''");
  const unknown = await cg(['--reset-offsets', '--group', 'g', '--topic', 'nosuch', '--to-earliest', '--dry-run']);
  assert.equal(unknown.code, 1);
  assert.equal(
    unknown.out,
    '\nError: Executing consumer group command failed due to This server does not host this topic-partition.\n',
  );
  const date = await cg([
    '--reset-offsets',
    '--group',
    'g',
    '--topic',
    'events',
    '--to-datetime',
    '2020-02-30T00:00:00.000',
    '--dry-run',
  ]);
  assert.equal(
    date.out,
    '\nError: Executing consumer group command failed due to java.text.ParseException: Unparseable date: "2020-02-30T00:00:00.000Z"\n',
  );
  const duration = await cg([
    '--reset-offsets',
    '--group',
    'g',
    '--topic',
    'events',
    '--by-duration',
    '1h',
    '--dry-run',
  ]);
  assert.equal(
    duration.out,
    '\nError: Executing consumer group command failed due to Text cannot be parsed to a Duration\n',
  );
  const json = JSON.parse(
    (
      await cg([
        '--reset-offsets',
        '--group',
        'jsong',
        '--topic',
        'events',
        '--to-latest',
        '--dry-run',
        '--output',
        'json',
      ])
    ).out,
  );
  json.groups[0].offsets.sort((a: { partition: number }, b: { partition: number }) => a.partition - b.partition);
  assert.deepEqual(json, {
    execute: false,
    groups: [
      {
        group: 'jsong',
        error: null,
        offsets: [
          { topic: 'events', partition: 0, newOffset: 10 },
          { topic: 'events', partition: 1, newOffset: 10 },
        ],
      },
    ],
  });
});
