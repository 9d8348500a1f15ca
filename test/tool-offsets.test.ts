// `tkafka get-offsets` and `tkafka delete-records` against a real `tkafka server start` process
// holding records produced with kafkajs; the resulting low watermarks are checked with kafkajs.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { run as getOffsets } from '../src/tools/get-offsets/main.js';
import { run as deleteRecords } from '../src/tools/delete-records/main.js';
import type { ToolIO } from '../src/tools/common/io.js';

const { Kafka, logLevel } = kafkajs;

let broker: BrokerProcess;
let kafka: kafkajs.Kafka;
let admin: kafkajs.Admin;
let dir: string;

async function tkafka(
  tool: (argv: string[], io: ToolIO) => Promise<number>,
  argv: string[],
): Promise<{ code: number; out: string; err: string }> {
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
  const code = await tool(argv, { stdout, stderr, stdin: process.stdin, env: {} });
  return { code, out, err };
}

const B = (): string[] => ['--bootstrap-server', broker.bootstrap];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-offsets-'));
  broker = await startBroker();
  kafka = new Kafka({ brokers: [broker.bootstrap], clientId: 'tool-offsets-test', logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: 'events', numPartitions: 12, replicationFactor: 1 },
      { topic: 'empty', numPartitions: 1, replicationFactor: 1 },
    ],
  });
  const producer = kafka.producer();
  await producer.connect();
  // Partition p gets p + 1 records (partition 10 gets 11: sorted as text it comes before 2).
  for (let p = 0; p < 12; p++) {
    await producer.send({
      topic: 'events',
      messages: Array.from({ length: p + 1 }, (_, i) => ({
        partition: p,
        key: `k${i}`,
        value: `v${i}`,
        timestamp: String(1_700_000_000_000 + i * 1000),
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

test('get-offsets prints topic:partition:offset sorted as Kafka sorts "topic-partition"', async () => {
  const r = await tkafka(getOffsets, [...B(), '--topic', 'events']);
  assert.equal(r.code, 0, r.err);
  const expected = Array.from({ length: 12 }, (_, p) => ({ key: `events-${p}`, line: `events:${p}:${p + 1}` }))
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((x) => x.line);
  assert.deepEqual(r.out.split('\n').slice(0, -1), expected);
  assert.equal(expected[2], 'events:10:11');
  const fromKafkajs = await admin.fetchTopicOffsets('events');
  for (const o of fromKafkajs) assert.ok(r.out.includes(`events:${o.partition}:${o.high}\n`));
});

test('get-offsets --time and --topic-partitions / --partitions filters', async () => {
  assert.equal(
    (await tkafka(getOffsets, [...B(), '--topic-partitions', 'events:1-3', '--time', 'earliest'])).out,
    'events:1:0\nevents:2:0\n',
  );
  assert.equal(
    (await tkafka(getOffsets, [...B(), '--topic', 'events', '--partitions', '4,0', '--time', '-1'])).out,
    'events:0:1\nevents:4:5\n',
  );
  // The first record at or after the timestamp.
  assert.equal(
    (await tkafka(getOffsets, [...B(), '--topic-partitions', 'events:5', '--time', String(1_700_000_000_000 + 2500)]))
      .out,
    'events:5:3\n',
  );
  // Past every record: -1, which Kafka leaves out.
  assert.equal(
    (await tkafka(getOffsets, [...B(), '--topic-partitions', 'events:5', '--time', String(1_800_000_000_000)])).out,
    '',
  );
  const json = JSON.parse(
    (await tkafka(getOffsets, [...B(), '--topic-partitions', 'events:3,empty', '--output', 'json'])).out,
  );
  assert.deepEqual(json, {
    offsets: [
      { topic: 'empty', partition: 0, offset: 0 },
      { topic: 'events', partition: 3, offset: 4 },
    ],
    errors: [],
  });
});

test('get-offsets errors: Kafka\'s "Error occurred:" lines, exit 1', async () => {
  const fail = async (args: string[], message: string): Promise<void> => {
    assert.deepEqual(
      await tkafka(getOffsets, [...B(), ...args]),
      { code: 1, out: '', err: `Error occurred: ${message}\n` },
      args.join(' '),
    );
  };
  await fail(['--topic', 'nope'], 'Could not match any topic-partitions with the specified filters');
  await fail(
    ['--topic', 'events', '--time', 'x'],
    'Malformed time argument x. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload, or a specified long format timestamp',
  );
  await fail(
    ['--topic-partitions', 'a', '--topic', 'b'],
    '--topic-partitions cannot be used with --topic or --partitions',
  );
  await fail(
    ['--partitions', 'a'],
    '--partitions expects a comma separated list of numeric partition ids, but received: a',
  );
  await fail(['--topic-partitions', 'a:x'], 'org.apache.kafka.tools.TerseException: Invalid rule specification: a:x');
  const usage = await tkafka(getOffsets, ['--bootstrap-server', 'bad']);
  assert.equal(usage.err.split('\n')[0], 'Please provide valid host:port like host1:9091,host2:9092');
});

test('delete-records moves low watermarks and reports per-partition errors', async () => {
  const file = join(dir, 'offsets.json');
  writeFileSync(
    file,
    JSON.stringify({
      partitions: [
        { topic: 'events', partition: 3, offset: 2 },
        { topic: 'events', partition: 4, offset: -1 },
        { topic: 'events', partition: 0, offset: 99 },
      ],
      version: 1,
    }),
  );
  const r = await tkafka(deleteRecords, [...B(), '--offset-json-file', file]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n').slice(0, -1);
  assert.deepEqual(lines.slice(0, 2), ['Executing records delete operation', 'Records delete operation completed:']);
  // Kafka's own order is an immutable map's (random per JVM run): compare as a set.
  assert.deepEqual(lines.slice(2).sort(), [
    'partition: events-0\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.',
    'partition: events-3\tlow_watermark: 2',
    'partition: events-4\tlow_watermark: 5',
  ]);
  const low = new Map((await admin.fetchTopicOffsets('events')).map((o) => [o.partition, o.low]));
  assert.equal(low.get(3), '2');
  assert.equal(low.get(4), '5');
  assert.equal(
    (await tkafka(getOffsets, [...B(), '--topic-partitions', 'events:3', '--time', 'earliest'])).out,
    'events:3:2\n',
  );
});

test('delete-records input errors', async () => {
  const write = (name: string, text: string): string => {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  };
  const fail = async (file: string, message: string): Promise<void> => {
    assert.deepEqual(await tkafka(deleteRecords, [...B(), '--offset-json-file', file]), {
      code: 1,
      out: '',
      err: `${message}\n`,
    });
  };
  await fail(write('a.json', 'nope'), 'The input string is not a valid JSON');
  await fail(write('b.json', '{"version":1}'), 'Missing partitions field');
  await fail(write('c.json', '{"version":2,"partitions":[]}'), 'Not supported version field value 2');
  await fail(
    write(
      'd.json',
      '{"partitions":[{"topic":"events","partition":1,"offset":1},{"topic":"events","partition":1,"offset":2}]}',
    ),
    'Offset json file contains duplicate topic partitions: events-1',
  );
  await fail(
    write('e.json', '{"partitions":[{"topic":"events","partition":"x","offset":1}]}'),
    'Expected `Integer` value, received "x"',
  );
  const usage = await tkafka(deleteRecords, [...B()]);
  assert.equal(usage.err.split('\n')[0], 'Missing required argument "[offset-json-file]"');
});
