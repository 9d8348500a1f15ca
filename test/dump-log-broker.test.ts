// Golden: segments written by a real `tkafka server start` from real clients' produce requests
// (kcat/librdkafka: every codec, keyed and null-keyed records, headers) dump to
// the expected lines: one batch line per produced batch with the codec, consecutive offsets, and one
// record line per record with exactly the key, payload, headers, sequence the client sent; the
// offset index and time index check clean against the log; and --output json agrees.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, CompressionTypes, logLevel } from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { dumpLog } from './dump-log-fixtures.js';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
const N = 120;
let broker: BrokerProcess;
/** Codecs librdkafka refused to use with this broker (its feature detection, from ApiVersions). */
const refused = new Set<string>();

const keyOf = (i: number): string | null => (i % 4 === 0 ? null : `key-${i}`);
const valueOf = (i: number): string => `value-${i}-${'é'.repeat(i % 7)}-${'compressible '.repeat(8)}end`;

before(async () => {
  broker = await startBroker({ overrides: { 'log.index.interval.bytes': 256 } });
  for (const codec of CODECS) {
    const input = Array.from({ length: N }, (_, i) => `${keyOf(i) ?? ''}\t${valueOf(i)}`).join('\n') + '\n';
    const r = await execa(
      'kcat',
      [
        '-P',
        '-b',
        broker.bootstrap,
        '-t',
        `golden-${codec}`,
        '-p',
        '0',
        '-K',
        '\t',
        '-Z',
        '-z',
        codec,
        '-H',
        'trace=abc',
        '-H',
        'empty=',
        '-X',
        'batch.num.messages=16',
        '-d',
        'msg',
      ],
      { input, timeout: 60_000 },
    );
    if (r.stderr.includes(`Broker does not support compression type ${codec}`)) refused.add(codec);
  }
  // kafkajs (gzip is built in): a second real client's compressed batches.
  const kafka = new Kafka({ clientId: 'dump-log-golden', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  for (let b = 0; b < N / 12; b++) {
    await producer.send({
      topic: 'golden-kafkajs',
      compression: CompressionTypes.GZIP,
      messages: Array.from({ length: 12 }, (_, j) => {
        const i = b * 12 + j;
        return { partition: 0, key: keyOf(i), value: valueOf(i), headers: { trace: 'abc', empty: '' } };
      }),
    });
  }
  await producer.disconnect();
  await broker.stop(); // indexes trimmed, segments closed
});

after(() => broker?.cleanup());

const CASES: [string, string, string][] = [
  ...CODECS.map((c): [string, string, string] => ['kcat', c, `golden-${c}`]),
  ['kafkajs', 'gzip', 'golden-kafkajs'],
];

for (const [client, codec, topic] of CASES) {
  test(`${client} → tkafka broker, ${codec}: every batch and record line as produced`, async () => {
    // librdkafka decides from the broker's ApiVersions whether it may compress with a codec (KAFKA-18659)
    assert.ok(!(client === 'kcat' && refused.has(codec)), `librdkafka refused to compress with ${codec}`);
    const dir = join(broker.dataDir, 'logs', `${topic}-0`);
    assert.ok(readdirSync(dir).includes('00000000000000000000.log'));
    const r = await dumpLog(['--files', '00000000000000000000.log', '--print-data-log'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const lines = r.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 2), ['Dumping 00000000000000000000.log', 'Log starting offset: 0']);
    let next = 0;
    let position = 0;
    let producerId: string | null = null;
    const codecs = new Set<string>();
    let batchBase = 0;
    let baseSequence = -1;
    for (const line of lines.slice(2)) {
      if (line.startsWith('baseOffset: ')) {
        const m =
          /^baseOffset: (\d+) lastOffset: (\d+) count: (\d+) baseSequence: (-?\d+) lastSequence: (-?\d+) producerId: (-1) producerEpoch: -?\d+ partitionLeaderEpoch: (\d+) isTransactional: false isControl: false deleteHorizonMs: OptionalLong\.empty position: (\d+) CreateTime: \d+ size: (\d+) magic: 2 compresscodec: (\w+) crc: \d+ isvalid: true$/.exec(
            line,
          );
        assert.ok(m, line);
        assert.equal(Number(m[1]), next);
        assert.equal(Number(m[2]) - Number(m[1]) + 1, Number(m[3]));
        assert.equal(Number(m[8]), position);
        codecs.add(m[10]!); // librdkafka sends a batch uncompressed when compressing does not pay
        assert.ok(m[10] === codec || m[10] === 'none', line);
        producerId ??= m[6]!;
        batchBase = Number(m[1]);
        baseSequence = Number(m[4]);
        assert.equal(m[6], producerId);
        position += Number(m[9]);
        continue;
      }
      const i = next++;
      const k = keyOf(i);
      const v = valueOf(i);
      const kv = `${k === null ? '' : ` key: ${k}`} payload: ${v}`;
      const expected = new RegExp(
        `^\\| offset: ${i} CreateTime: \\d+ keySize: ${k === null ? -1 : Buffer.byteLength(k)} valueSize: ${Buffer.byteLength(v)} sequence: ${baseSequence >= 0 ? baseSequence + i - batchBase : -1} headerKeys: \\[trace,empty\\]${kv.replace(/[|\\^$.()[\]{}*+?]/g, '\\$&')}$`,
      );
      assert.match(line, expected);
    }
    assert.equal(next, N);
    assert.ok(codecs.has(codec), `some batch is ${codec}`);

    const idx = await dumpLog(['--files', '00000000000000000000.index,00000000000000000000.timeindex'], dir);
    assert.equal(idx.code, 0, idx.stderr);
    assert.equal(idx.stderr, '', 'index and time index agree with the log');
    assert.match(idx.stdout, /^offset: \d+ position: \d+$/m);

    const json = await dumpLog(['--files', '00000000000000000000.log', '--print-data-log', '--output', 'json'], dir);
    const records = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'record');
    assert.equal(records.length, N);
    assert.deepEqual(records[1].headers, [
      { key: 'trace', value: 'abc' },
      { key: 'empty', value: '' },
    ]);
    assert.equal(records[4].key, undefined);
    assert.equal(records[5].key, 'key-5');
  });
}
