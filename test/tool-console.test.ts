// `tkafka console-producer` and `tkafka console-consumer` against a real `tkafka server start`
// process. What the producer writes is read back with kafkajs (keys, headers, nulls, partitions,
// binary values); what the consumer prints is checked against records kafkajs produced, with
// Kafka's formatter properties, partitions/offsets, groups (committed offsets checked with kafkajs),
// JSON/table output and base64/hex encodings.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { run as producerTool } from '../src/tools/console-producer/main.js';
import { run as consumerTool } from '../src/tools/console-consumer/main.js';
import { defaultPartition } from '../src/protocol/partitioner.js';
import type { ToolIO } from '../src/tools/common/io.js';
import { waitFor } from './helpers/wait-for.js';

const { Kafka, logLevel } = kafkajs;

let broker: BrokerProcess;
let kafka: kafkajs.Kafka;
let admin: kafkajs.Admin;

type Tool = (argv: string[], io: ToolIO) => Promise<number>;

async function tool(
  run: Tool,
  argv: string[],
  input: string | Buffer = '',
): Promise<{ code: number; out: Buffer; err: string }> {
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
  const code = await run(argv, { stdout, stderr, stdin: Readable.from([Buffer.from(input)]), env: {} });
  return { code, out: Buffer.concat(out), err };
}

const B = (): string[] => ['--bootstrap-server', broker.bootstrap];
// Recent timestamps: records older than log.retention.ms would be deleted by the broker mid-test.
const TS = Date.now() - 60_000;
const produce = (topic: string, input: string | Buffer, ...args: string[]) =>
  tool(producerTool, [...B(), '--topic', topic, ...args], input);
const consume = (topic: string, ...args: string[]) =>
  tool(consumerTool, [...B(), '--topic', topic, '--timeout-ms', '1500', ...args]);

/** Every record of a topic, read with kafkajs from the beginning. */
async function readAll(topic: string, count: number): Promise<kafkajs.KafkaMessage[] & { partition?: number }[]> {
  const consumer = kafka.consumer({ groupId: `check-${topic}-${Math.random()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: (kafkajs.KafkaMessage & { partition: number })[] = [];
  await consumer.run({
    eachMessage: async ({ message, partition }) => {
      seen.push({ ...message, partition });
    },
  });
  await waitFor(() => seen.length >= count, { what: `${count} records from ${topic}`, timeoutMs: 20_000 }).catch(
    () => undefined, // the assertion below says how many came
  );
  await consumer.disconnect();
  assert.equal(seen.length, count, `records read back from ${topic}`);
  return seen.sort((a, b) => a.partition - b.partition || Number(a.offset) - Number(b.offset));
}

before(async () => {
  broker = await startBroker({
    overrides: {
      'group.initial.rebalance.delay.ms': 0,
      'group.min.session.timeout.ms': 1000,
      'auto.create.topics.enable': false,
    },
  });
  kafka = new Kafka({
    brokers: [broker.bootstrap],
    clientId: 'console-test',
    logLevel: logLevel.NOTHING,
    retry: { retries: 10, initialRetryTime: 100 },
  });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: ['plain', 'keyed', 'binary', 'source', 'grouped', 'inc-a', 'inc-b', 'gz', 'halt'].map((topic) => ({
      topic,
      numPartitions: topic === 'keyed' || topic === 'grouped' ? 3 : 1,
    })),
    waitForLeaders: true,
  });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({
    topic: 'source',
    acks: -1,
    messages: [
      { key: 'k1', value: 'hello', headers: { h1: 'v1', h2: 'v2' }, timestamp: String(TS + 3) },
      { key: null, value: null, timestamp: String(TS + 4) },
      { key: 'k3', value: Buffer.from([0, 1, 2, 255]), timestamp: String(TS + 5) },
      { key: Buffer.from([0, 0, 0, 0, 0, 0, 0, 42]), value: 'last', timestamp: String(TS + 6) },
    ],
  });
  await producer.send({
    topic: 'grouped',
    acks: -1,
    messages: Array.from({ length: 12 }, (_, i) => ({ partition: i % 3, value: `g${i}` })),
  });
  await producer.send({ topic: 'inc-a', acks: -1, messages: [{ value: 'from-a' }] });
  await producer.send({ topic: 'inc-b', acks: -1, messages: [{ value: 'from-b' }] });
  await producer.disconnect();
});

after(async () => {
  await admin?.disconnect();
  await broker?.stop();
  broker?.cleanup();
});

test('console-producer: one record per line, read back with kafkajs', async () => {
  const r = await produce('plain', 'one\ntwo\r\nthree\n\nfive');
  assert.deepEqual([r.code, r.err], [0, '']);
  const seen = await readAll('plain', 5);
  assert.deepEqual(
    seen.map((m) => m.value?.toString()),
    ['one', 'two', 'three', '', 'five'],
  );
  assert.ok(seen.every((m) => m.key === null));
});

test("console-producer: parse.key / parse.headers / null.marker; keys land on Kafka's murmur2 partition", async () => {
  const input = 'h1:a,h2:b|k1|v1\nNULL|k2|NULL\nh3:c|NULL|v3 with | bar\n';
  const r = await produce(
    'keyed',
    input,
    '--reader-property',
    'parse.key=true',
    '--reader-property',
    'key.separator=|',
    '--reader-property',
    'parse.headers=true',
    '--reader-property',
    'headers.delimiter=|',
    '--reader-property',
    'null.marker=NULL',
    '--sync',
  );
  assert.deepEqual([r.code, r.err], [0, '']);
  const seen = await readAll('keyed', 3);
  const byValue = new Map(seen.map((m) => [m.value?.toString() ?? null, m]));
  const k1 = byValue.get('v1')!;
  assert.equal(k1.key?.toString(), 'k1');
  assert.deepEqual(Object.fromEntries(Object.entries(k1.headers ?? {}).map(([k, v]) => [k, String(v)])), {
    h1: 'a',
    h2: 'b',
  });
  assert.equal((k1 as { partition?: number }).partition, defaultPartition(Buffer.from('k1'), 3));
  const k2 = byValue.get(null)!;
  assert.equal(k2.key?.toString(), 'k2');
  assert.deepEqual(k2.headers, {});
  assert.equal((k2 as { partition?: number }).partition, defaultPartition(Buffer.from('k2'), 3));
  const k3 = byValue.get('v3 with | bar')!;
  assert.equal(k3.key, null);
  assert.equal(String(k3.headers!.h3), 'c');
});

test('console-producer: binary keys, values and headers with base64 / hex encodings', async () => {
  const value = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x0a, 0x0d]);
  const r = await produce(
    'binary',
    `${Buffer.from('key\u0000').toString('hex')}\t${value.toString('base64')}\n`,
    '--reader-property',
    'parse.key=true',
    '--reader-property',
    'key.encoding=hex',
    '--reader-property',
    'value.encoding=base64',
  );
  assert.deepEqual([r.code, r.err], [0, '']);
  const [m] = await readAll('binary', 1);
  assert.deepEqual(m!.key, Buffer.from('key\u0000'));
  assert.deepEqual(m!.value, value);
  const printed = await consume(
    'binary',
    '--from-beginning',
    '--formatter-property',
    'print.key=true',
    '--formatter-property',
    'key.encoding=hex',
    '--formatter-property',
    'value.encoding=base64',
  );
  assert.equal(printed.out.toString(), `6b657900\t${value.toString('base64')}\n`);
  const bad = await produce('binary', 'zz\n', '--reader-property', 'value.encoding=hex');
  assert.equal(bad.code, 1);
  assert.equal(bad.err, "Invalid hex value on line number 1: 'zz'\n");
});

test('console-producer: gzip compression, parse errors after good lines, usage errors', async () => {
  const gz = await produce('gz', 'a\nb\n', '--compression-codec');
  assert.equal(gz.code, 0, gz.err);
  assert.deepEqual(
    (await readAll('gz', 2)).map((m) => m.value?.toString()),
    ['a', 'b'],
  );
  const halt = await produce('halt', 'k\tgood\nno-separator\nnever\n', '--reader-property', 'parse.key=true');
  assert.equal(halt.code, 1);
  assert.equal(halt.err, "No key separator found on line number 2: 'no-separator'\n");
  assert.deepEqual(
    (await readAll('halt', 1)).map((m) => m.value?.toString()),
    ['good'],
  );
  const usage = async (argv: string[], first: string): Promise<void> => {
    const u = await tool(producerTool, argv);
    assert.equal(u.code, 1);
    assert.equal(u.err.split('\n')[0], first, argv.join(' '));
  };
  await usage([...B()], 'Missing required argument "[topic]"');
  await usage(
    ['--topic', 't', '--bootstrap-server', 'nohost'],
    'Please provide valid host:port like host1:9091,host2:9092',
  );
  const conflict = await produce('plain', 'x\n', '--reader-property', 'headers.delimiter=,');
  assert.deepEqual([conflict.code, conflict.err], [1, 'headers.delimiter and headers.separator may not be equal\n']);
  const unknown = await produce('no-such-topic', 'x\n', '--max-block-ms', '1000');
  assert.equal(unknown.code, 1);
  assert.equal(
    unknown.err,
    'ERROR Error when sending message to topic no-such-topic with key: null, value: 1 bytes with error: Topic no-such-topic not present in metadata after 1000 ms.\n',
  );
});

test('console-consumer: Kafka\'s default output and formatter properties, "Processed a total" on stderr, exit 0 on timeout', async () => {
  const plain = await consume('source', '--from-beginning');
  assert.equal(plain.code, 0);
  assert.equal(plain.err, 'Processed a total of 4 messages\n');
  assert.deepEqual(
    plain.out,
    Buffer.concat([Buffer.from('hello\nnull\n'), Buffer.from([0, 1, 2, 255]), Buffer.from('\nlast\n')]),
  );
  const all = await consume(
    'source',
    '--from-beginning',
    '--max-messages',
    '2',
    '--formatter-property',
    'print.timestamp=true',
    '--formatter-property',
    'print.partition=true',
    '--formatter-property',
    'print.offset=true',
    '--formatter-property',
    'print.headers=true',
    '--formatter-property',
    'print.key=true',
    '--formatter-property',
    'print.epoch=true',
    '--formatter-property',
    'print.delivery=true',
  );
  assert.equal(
    all.out.toString(),
    `CreateTime:${TS + 3}\tPartition:0\tOffset:0\tDelivery:NOT_PRESENT\tEpoch:NOT_PRESENT\th1:v1,h2:v2\tk1\thello\n` +
      `CreateTime:${TS + 4}\tPartition:0\tOffset:1\tDelivery:NOT_PRESENT\tEpoch:NOT_PRESENT\tNO_HEADERS\tnull\tnull\n`,
  );
  assert.equal(all.err, 'Processed a total of 2 messages\n');
  const seps = await consume(
    'source',
    '--from-beginning',
    '--max-messages',
    '2',
    '--formatter-property',
    'print.key=true',
    '--formatter-property',
    'key.separator=|',
    '--formatter-property',
    'line.separator=;',
    '--formatter-property',
    'null.literal=<none>',
    '--formatter-property',
    'print.value=false',
  );
  assert.equal(seps.out.toString(), 'k1;<none>;');
  const longKey = await consume(
    'source',
    '--partition',
    '0',
    '--offset',
    '3',
    '--formatter-property',
    'print.key=true',
    '--key-deserializer',
    'org.apache.kafka.common.serialization.LongDeserializer',
  );
  assert.equal(longKey.out.toString(), '42\tlast\n');
  const latest = await consume('source', '--partition', '0');
  assert.deepEqual([latest.code, latest.out.toString(), latest.err], [0, '', 'Processed a total of 0 messages\n']);
  const earliest = await consume('source', '--partition', '0', '--offset', 'earliest', '--max-messages', '1');
  assert.equal(earliest.out.toString(), 'hello\n');
});

test('console-consumer: --output json keeps non-text bytes intact (base64), --output table', async () => {
  const r = await consume('source', '--from-beginning', '--output', 'json');
  const lines = r.out
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.length, 4);
  assert.deepEqual(lines[0], {
    topic: 'source',
    partition: 0,
    offset: 0,
    timestamp: TS + 3,
    timestampType: 'CreateTime',
    leaderEpoch: lines[0].leaderEpoch,
    headers: [
      { key: 'h1', value: 'v1', valueEncoding: 'utf8' },
      { key: 'h2', value: 'v2', valueEncoding: 'utf8' },
    ],
    key: 'k1',
    keyEncoding: 'utf8',
    value: 'hello',
    valueEncoding: 'utf8',
  });
  assert.deepEqual([lines[1].key, lines[1].value], [null, null]);
  assert.deepEqual(Buffer.from(lines[2].value, lines[2].valueEncoding), Buffer.from([0, 1, 2, 255]));
  assert.equal(lines[2].valueEncoding, 'base64');
  const hex = await consume(
    'source',
    '--from-beginning',
    '--output',
    'json',
    '--formatter-property',
    'value.encoding=hex',
    '--max-messages',
    '1',
  );
  assert.equal(JSON.parse(hex.out.toString()).value, Buffer.from('hello').toString('hex'));
  const table = await consume('source', '--from-beginning', '--output', 'table', '--max-messages', '1');
  const t = table.out.toString().split('\n');
  assert.match(t[0]!, /^PARTITION\s+OFFSET\s+TIMESTAMP\s+HEADERS\s+KEY\s+VALUE$/);
  assert.match(t[1]!, new RegExp(`^0\\s+0\\s+CreateTime:${TS + 3}\\s+h1:v1,h2:v2\\s+k1\\s+hello$`));
});

test('console-consumer --group commits what it printed; the next run continues (checked with kafkajs)', async () => {
  const first = await tool(consumerTool, [
    ...B(),
    '--topic',
    'grouped',
    '--group',
    'readers',
    '--from-beginning',
    '--max-messages',
    '5',
    '--timeout-ms',
    '5000',
  ]);
  assert.equal(first.code, 0, first.err);
  assert.equal(first.out.toString().split('\n').length - 1, 5);
  const offsets = (await admin.fetchOffsets({ groupId: 'readers', topics: ['grouped'] }))[0]!.partitions;
  const total = offsets.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0);
  assert.equal(total, 5, JSON.stringify(offsets));
  const second = await tool(consumerTool, [...B(), '--topic', 'grouped', '--group', 'readers', '--timeout-ms', '2000']);
  const values = [...first.out.toString().trim().split('\n'), ...second.out.toString().trim().split('\n')];
  assert.deepEqual(values.sort(), Array.from({ length: 12 }, (_, i) => `g${i}`).sort());
  assert.equal(second.err, 'Processed a total of 7 messages\n');
  const after = (await admin.fetchOffsets({ groupId: 'readers', topics: ['grouped'] }))[0]!.partitions;
  assert.deepEqual(after.map((p) => p.offset).sort(), ['4', '4', '4']);
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
  assert.ok(groups.includes('readers'));
});

test('console-consumer --include subscribes to every matching topic', async () => {
  const r = await tool(consumerTool, [...B(), '--include', 'inc-.*', '--from-beginning', '--timeout-ms', '2000']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.out.toString().trim().split('\n').sort(), ['from-a', 'from-b']);
});

test('console-consumer usage errors', async () => {
  const cases: [string[], string][] = [
    [[...B()], 'Exactly one of the following arguments is required: [topic], [include]'],
    [
      [...B(), '--topic', 't', '--include', 'x'],
      'Exactly one of the following arguments is required: [topic], [include]',
    ],
    [[...B(), '--topic', 't', '--offset', '3'], 'The partition is required when offset is specified.'],
    [[...B(), '--include', 't', '--partition', '0'], 'The topic is required when partition is specified.'],
    [
      [...B(), '--topic', 't', '--partition', '0', '--offset', '1', '--from-beginning'],
      'Options from-beginning and offset cannot be specified together.',
    ],
    [
      [...B(), '--topic', 't', '--partition', '0', '--offset', 'x'],
      "The provided offset value 'x' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.",
    ],
    [
      [...B(), '--topic', 't', '--group', 'a', '--consumer-property', 'group.id=b'],
      "The group ids provided in different places (directly using '--group', via '--consumer-property', or via '--consumer.config') do not match. Detected group ids: 'a', 'b'",
    ],
    [
      [...B(), '--topic', 't', '--group', 'a', '--partition', '0'],
      'Options group and partition cannot be specified together.',
    ],
    [['--topic', 't'], 'Missing required argument "[bootstrap-server]"'],
  ];
  for (const [argv, first] of cases) {
    const r = await tool(consumerTool, argv);
    assert.equal(r.code, 1, argv.join(' '));
    assert.equal(r.err.split('\n')[0], first, argv.join(' '));
    assert.match(r.err, /\nOption +Description/);
  }
  const conflict = await tool(consumerTool, [
    ...B(),
    '--topic',
    't',
    '--from-beginning',
    '--consumer-property',
    'auto.offset.reset=latest',
  ]);
  assert.deepEqual(
    [conflict.code, conflict.err],
    [1, "Can't simultaneously specify --from-beginning and 'auto.offset.reset=latest', please remove one option\n"],
  );
});
