// Unit tests of the pieces behind the console tools and consumer-groups that need no broker:
// read_committed filtering of fetched batches, Kafka's LineMessageReader and DefaultMessageFormatter
// rules, the range assignor, the reset-offsets time formats and the reset plan CSV.
import test from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { buildEndTxnMarker, buildRecordBatchSync } from '../src/protocol/records/batch.js';
import { decodePartition } from '../src/client/consumer-fetch.js';
import { rangeAssign } from '../src/client/consumer-group-member.js';
import { parseLine, readLines, readerConfig } from '../src/tools/console-producer/line-reader.js';
import { formatRecord, formatterConfig } from '../src/tools/console-consumer/formatter.js';
import { parseDateTime, parseDuration } from '../src/tools/consumer-groups/time.js';
import { csvCell, parseResetPlan } from '../src/tools/consumer-groups/reset.js';
import { assignmentString } from '../src/tools/consumer-groups/describe.js';
import type { ConsumerRecord } from '../src/client/consumer.js';

test('read_committed drops aborted transactions and control batches; read_uncommitted keeps the data', async () => {
  const data = (base: number, pid: number, values: string[]): Buffer =>
    buildRecordBatchSync({
      baseOffset: base,
      producerId: BigInt(pid),
      producerEpoch: 0,
      baseSequence: 0,
      transactional: true,
      records: values.map((value) => ({ value })),
    });
  const log = Buffer.concat([
    buildRecordBatchSync({ baseOffset: 0, records: [{ value: 'plain' }] }),
    data(1, 7, ['a1', 'a2']),
    data(3, 8, ['c1']),
    buildEndTxnMarker({ baseOffset: 4, producerId: 7, producerEpoch: 0, coordinatorEpoch: 0, commit: false }),
    buildEndTxnMarker({ baseOffset: 5, producerId: 8, producerEpoch: 0, coordinatorEpoch: 0, commit: true }),
    data(6, 7, ['c2']),
    buildEndTxnMarker({ baseOffset: 7, producerId: 7, producerEpoch: 0, coordinatorEpoch: 0, commit: true }),
  ]);
  const committed = await decodePartition('t', 0, log, 0n, true, [{ producerId: 7n, firstOffset: 1n }]);
  assert.deepEqual(
    committed.records.map((r) => [Number(r.offset), r.value?.toString()]),
    [
      [0, 'plain'],
      [3, 'c1'],
      [6, 'c2'],
    ],
  );
  assert.equal(committed.nextOffset, 8n);
  const all = await decodePartition('t', 0, log, 2n, false, null);
  assert.deepEqual(
    all.records.map((r) => r.value?.toString()),
    ['a2', 'c1', 'c2'],
  );
  const partial = await decodePartition('t', 0, log.subarray(0, log.length - 5), 7n, false, null);
  assert.deepEqual([partial.records.length, partial.nextOffset, partial.partialSize > 0], [0, 7n, true]);
});

test('LineMessageReader: separators, headers, null marker, errors as Kafka words them', () => {
  const c = readerConfig(
    new Map([
      ['topic', 't'],
      ['parse.key', 'true'],
      ['parse.headers', ' TRUE '],
      ['null.marker', '-'],
    ]),
  );
  assert.deepEqual(parseLine(c, 'h1:x,h2:\tk\tv\tmore', 1), {
    key: Buffer.from('k'),
    value: Buffer.from('v\tmore'),
    headers: [
      { key: 'h1', value: Buffer.from('x') },
      { key: 'h2', value: Buffer.from('') },
    ],
  });
  assert.deepEqual(parseLine(c, '-\t-\t-', 2), { key: null, value: null, headers: [] });
  assert.throws(() => parseLine(c, 'h1:x\tnokey', 3), {
    message: "No key separator found on line number 3: 'h1:x\tnokey'",
  });
  assert.throws(() => parseLine(c, 'h1\tk\tv', 4), {
    message: "No header key separator found in pair 'h1' on line number 4",
  });
  assert.throws(() => parseLine(c, '-:v\tk\tv', 5), {
    message: "Header keys should not be equal to the null marker '-' as they can't be null",
  });
  const lenient = readerConfig(
    new Map([
      ['topic', 't'],
      ['parse.key', 'true'],
      ['ignore.error', 'true'],
      ['headers.separator', '[;,]'],
    ]),
  );
  assert.deepEqual(parseLine(lenient, 'value only', 1), { key: null, value: Buffer.from('value only'), headers: [] });
  assert.throws(
    () =>
      readerConfig(
        new Map([
          ['topic', 't'],
          ['null.marker', '\t'],
        ]),
      ),
    { message: 'null.marker and key.separator may not be equal' },
  );
  assert.throws(
    () =>
      readerConfig(
        new Map([
          ['topic', 't'],
          ['headers.key.separator', ','],
        ]),
      ),
    { message: 'headers.separator and headers.key.separator may not be equal' },
  );
});

test('readLines splits like BufferedReader.readLine (\\n, \\r, \\r\\n, across chunks)', async () => {
  const lines: string[] = [];
  for await (const l of readLines(
    Readable.from([Buffer.from('a\r'), Buffer.from('\nb\rc\n\nd\u00e9'), Buffer.from('f')]),
  ))
    lines.push(l);
  assert.deepEqual(lines, ['a', 'b', 'c', '', 'd\u00e9f']);
});

test('DefaultMessageFormatter: field order, separators, null literal, deserializers, encodings', () => {
  const r: ConsumerRecord = {
    topic: 't',
    partition: 2,
    offset: 9n,
    timestamp: 5,
    timestampType: 'LogAppendTime',
    key: Buffer.from([0, 0, 0, 0, 0, 0, 1, 0]),
    value: null,
    headers: [
      { key: 'a', value: Buffer.from('1') },
      { key: 'b', value: null },
    ],
    leaderEpoch: 3,
  };
  const all = formatterConfig(
    new Map(['timestamp', 'partition', 'offset', 'headers', 'key'].map((k) => [`print.${k}`, 'true'])),
    () => undefined,
  );
  assert.equal(
    formatRecord(all, r).toString('latin1'),
    'LogAppendTime:5\tPartition:2\tOffset:9\ta:1,b:null\t\u0000\u0000\u0000\u0000\u0000\u0000\u0001\u0000\tnull\n',
  );
  const warnings: string[] = [];
  const typed = formatterConfig(
    new Map([
      ['print.key', 'true'],
      ['key.deserializer', 'org.apache.kafka.common.serialization.LongDeserializer'],
      ['value.deserializer', 'com.example.Missing'],
      ['null.literal', 'NIL'],
      ['key.separator', ' => '],
    ]),
    (m) => warnings.push(m),
  );
  assert.equal(formatRecord(typed, r).toString(), '256 => NIL\n');
  assert.deepEqual(warnings, ['Unable to instantiate a deserializer from com.example.Missing']);
  const enc = formatterConfig(
    new Map([
      ['print.key', 'true'],
      ['key.encoding', 'hex'],
      ['print.value', 'false'],
    ]),
    () => undefined,
  );
  assert.equal(formatRecord(enc, r).toString(), '0000000000000100\n');
});

test('range assignor: consecutive ranges, the first members get the extra partitions', () => {
  const plan = rangeAssign(
    [
      { memberId: 'b', groupInstanceId: null, topics: ['t', 'u'] },
      { memberId: 'a', groupInstanceId: null, topics: ['t'] },
    ],
    new Map([
      ['t', 5],
      ['u', 2],
    ]),
  );
  assert.deepEqual(
    plan.get('a'),
    [0, 1, 2].map((partition) => ({ topic: 't', partition })),
  );
  assert.deepEqual(plan.get('b'), [
    { topic: 't', partition: 3 },
    { topic: 't', partition: 4 },
    { topic: 'u', partition: 0 },
    { topic: 'u', partition: 1 },
  ]);
  assert.equal(
    assignmentString([
      { topic: 'u', partition: 10 },
      { topic: 't', partition: 2 },
      { topic: 'u', partition: 9 },
    ]),
    't:2;u:10,9',
  );
});

test('--to-datetime and --by-duration parse as Kafka (UTC default, zones, strict fields)', () => {
  assert.equal(parseDateTime('2024-10-24T20:00:00.123'), BigInt(Date.UTC(2024, 9, 24, 20, 0, 0, 123)));
  assert.equal(parseDateTime('2024-10-24T22:00:00.123+02:00'), BigInt(Date.UTC(2024, 9, 24, 20, 0, 0, 123)));
  assert.equal(parseDateTime('2024-10-24T20:00:00.5Z'), BigInt(Date.UTC(2024, 9, 24, 20, 0, 0, 5)));
  assert.throws(() => parseDateTime('2024-10-24'), {
    message: "java.text.ParseException: Error parsing timestamp. It does not contain a 'T' according to ISO8601 format",
  });
  assert.throws(() => parseDateTime('2024-10-24T20:00:00'), {
    message: 'java.text.ParseException: Unparseable date: "2024-10-24T20:00:00Z"',
  });
  assert.throws(() => parseDateTime('2023-02-29T00:00:00.000'), {
    message: 'java.text.ParseException: Unparseable date: "2023-02-29T00:00:00.000Z"',
  });
  assert.equal(parseDuration('PT1H30M'), 5_400_000n);
  assert.equal(parseDuration('P2DT0.5S'), 172_800_500n);
  assert.equal(parseDuration('-PT-1M'), 60_000n);
  for (const bad of ['P', 'PT', '1H', 'P1H', 'PT1.5M'])
    assert.throws(() => parseDuration(bad), { message: 'Text cannot be parsed to a Duration' }, bad);
});

test('reset plan CSV: both layouts, quoting, malformed lines', () => {
  assert.deepEqual(
    [...parseResetPlan('t,0,5\nt,1,6\n', 'g', 'f')],
    [
      [
        'g',
        [
          { tp: { topic: 't', partition: 0 }, offset: 5n },
          { tp: { topic: 't', partition: 1 }, offset: 6n },
        ],
      ],
    ],
  );
  const multi = parseResetPlan('"a,b",t,0,1\r\nc,t,2,3\n', 'x', 'f');
  assert.deepEqual([...multi.keys()], ['a,b', 'c']);
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('plain'), 'plain');
  assert.throws(() => parseResetPlan('g,t,0,1\ng,t,0\n', null, 'plan.csv'), {
    message: "Malformed reset plan in plan.csv at line 2: 'g,t,0' (expected group,topic,partition,offset)",
  });
});
