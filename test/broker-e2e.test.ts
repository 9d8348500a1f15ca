// A real `tkafka server start` process driven by real clients: kafkajs, kcat (librdkafka),
// kafka-python; restart and kill -9; malformed input.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { iterateBatches, readBatchHeader } from '../src/protocol/records/batch.js';
import kafkajs from 'kafkajs';
import { waitFor } from './helpers/wait-for.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { defaultPartition } from '../src/protocol/partitioner.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

const { Kafka, CompressionTypes, logLevel } = kafkajs;

let broker: BrokerProcess;

before(async () => {
  broker = await startBroker({ overrides: { 'num.partitions': 3 } });
});
after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

function kafka() {
  return new Kafka({
    clientId: 'e2e',
    brokers: [broker.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 5, initialRetryTime: 100 },
  });
}

async function kcatConsume(topic: string, format: string, extra: string[] = []): Promise<string[]> {
  const r = await execa(
    'kcat',
    ['-C', '-b', broker.bootstrap, '-t', topic, '-o', 'beginning', '-e', '-q', '-f', format, ...extra],
    { timeout: 120_000 },
  );
  return r.stdout.length ? r.stdout.split('\n') : [];
}

async function topicIds(): Promise<Map<string, string>> {
  const c = await RawClient.connect(broker.port);
  try {
    const md = await c.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false });
    return new Map(md.topics.map((t) => [t.name ?? '', t.topicId]));
  } finally {
    c.close();
  }
}

test('kafkajs admin creates topics and sees them in metadata', async () => {
  const admin = kafka().admin();
  await admin.connect();
  try {
    assert.equal(await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 6 }] }), true);
    assert.equal(await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 6 }] }), false);
    const md = await admin.fetchTopicMetadata({ topics: ['kjs'] });
    assert.equal(md.topics[0]!.partitions.length, 6);
    assert.ok((await admin.listTopics()).includes('kjs'));
  } finally {
    await admin.disconnect();
  }
});

test('kafkajs produces keyed records with headers; they land on murmur2 partitions and read back in order', async () => {
  const producer = kafka().producer();
  await producer.connect();
  const N = 20_000;
  try {
    for (let i = 0; i < N; i += 1000) {
      await producer.send({
        topic: 'kjs',
        compression: CompressionTypes.GZIP,
        acks: -1,
        messages: Array.from({ length: 1000 }, (_, j) => ({
          key: `k${i + j}`,
          value: `v${i + j}`,
          headers: { h: `x${i + j}` },
          timestamp: String(1700000000000 + i + j),
        })),
      });
    }
  } finally {
    await producer.disconnect();
  }
  const lines = await kcatConsume('kjs', '%p|%o|%k|%s|%T|%h\\n');
  assert.equal(lines.length, N);
  const lastOffset = new Map<number, number>();
  for (const line of lines) {
    const [p, o, k, v, ts, h] = line.split('|');
    const i = Number(k!.slice(1));
    assert.equal(Number(p), defaultPartition(Buffer.from(k!), 6), `key ${k} partition`);
    assert.equal(v, `v${i}`);
    assert.equal(Number(ts), 1700000000000 + i);
    assert.equal(h, `h=x${i}`);
    const prev = lastOffset.get(Number(p)) ?? -1;
    assert.equal(Number(o), prev + 1, 'offsets are contiguous per partition');
    lastOffset.set(Number(p), Number(o));
  }
});

const CODEC_IDS: Record<string, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

/** The compression codecs of the batches stored in a partition's first segment. */
function storedCodecs(topic: string): Set<number> {
  const file = join(broker.dataDir, 'logs', `${topic}-0`, '00000000000000000000.log');
  const buf = readFileSync(file);
  const codecs = new Set<number>();
  for (const e of iterateBatches(buf)) codecs.add(readBatchHeader(buf, e.position).compression);
  return codecs;
}

for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
  test(`kcat produces 100,000 records with ${codec}; the log stores ${codec} batches; kcat reads them back complete and in order`, async () => {
    const topic = `kcat-${codec}`;
    const N = 100_000;
    const input = Array.from({ length: N }, (_, i) => `${i}`).join('\n') + '\n';
    await execa(
      'kcat',
      ['-P', '-b', broker.bootstrap, '-t', topic, '-p', '0', '-z', codec, '-X', 'topic.request.required.acks=-1'],
      { input, timeout: 120_000 },
    );
    // stored as kcat sent them: its codec (librdkafka sends a batch uncompressed when compressing does not shrink it)
    const codecs = storedCodecs(topic);
    assert.ok(codecs.has(CODEC_IDS[codec]!), `no ${codec} batch stored: ${[...codecs]}`);
    for (const c of codecs) assert.ok(c === CODEC_IDS[codec] || c === 0, `unexpected codec ${c}`);
    const lines = await kcatConsume(topic, '%o %s\\n', ['-p', '0']);
    assert.equal(lines.length, N);
    for (let i = 0; i < N; i++) assert.equal(lines[i], `${i} ${i}`);
  });
}

test('kafka-python produces and reads back with an assigned consumer', async () => {
  const script = `
import sys
from kafka import KafkaProducer, KafkaConsumer, TopicPartition
b = sys.argv[1]
p = KafkaProducer(bootstrap_servers=b, acks='all', compression_type='gzip')
for i in range(2000):
    p.send('py', key=b'k%d' % i, value=b'v%d' % i, partition=i % 3)
p.flush(); p.close()
c = KafkaConsumer(bootstrap_servers=b, enable_auto_commit=False, consumer_timeout_ms=5000)
tps = [TopicPartition('py', i) for i in range(3)]
c.assign(tps); c.seek_to_beginning()
seen = 0
for m in c:
    assert m.value == b'v' + m.key[1:], m
    seen += 1
    if seen == 2000: break
print(seen)
`;
  const r = await execa('/usr/bin/python3', ['-c', script, broker.bootstrap], { timeout: 120_000 });
  assert.equal(r.stdout.trim(), '2000');
});

test('restart: topics, ids and records are all there', async () => {
  const before = await topicIds();
  const countBefore = (await kcatConsume('kcat-lz4', '%o\\n')).length;
  await broker.restart();
  const afterIds = await topicIds();
  for (const [name, id] of before) assert.equal(afterIds.get(name), id, `topic id of ${name}`);
  assert.equal((await kcatConsume('kcat-lz4', '%o\\n')).length, countBefore);
  // producing continues at the next offset
  await execa('kcat', ['-P', '-b', broker.bootstrap, '-t', 'kcat-lz4', '-p', '0'], { input: 'after-restart\n' });
  const last = (await kcatConsume('kcat-lz4', '%o %s\\n', ['-p', '0'])).at(-1);
  assert.equal(last, `${countBefore} after-restart`);
});

test('kill -9 while producing with acks=all: every acknowledged record is readable after restart', async () => {
  const admin = kafka().admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'crash', numPartitions: 1 }] });
  await admin.disconnect();
  const producer = kafka().producer({ retry: { retries: 0 } });
  await producer.connect();
  const acked: string[] = [];
  let i = 0;
  const writer = (async () => {
    for (;;) {
      const batch = Array.from({ length: 50 }, () => ({ value: `m${i++}` }));
      try {
        await producer.send({ topic: 'crash', acks: -1, messages: batch });
        acked.push(...batch.map((m) => m.value));
      } catch {
        return;
      }
      if (i > 2_000_000) return;
    }
  })();
  await waitFor(() => acked.length >= 2000, { what: '2000 acknowledged records', timeoutMs: 60_000 });
  await broker.kill();
  await writer;
  await producer.disconnect().catch(() => undefined);
  await broker.restart();
  const values = new Set(await kcatConsume('crash', '%s\\n'));
  for (const v of acked) assert.ok(values.has(v), `acknowledged record ${v} lost`);
  // the producer can continue
  await execa('kcat', ['-P', '-b', broker.bootstrap, '-t', 'crash'], { input: 'after-crash\n' });
  assert.ok((await kcatConsume('crash', '%s\\n')).includes('after-crash'));
});

test('bad input: oversize frame, garbage, unknown API key; the broker keeps serving', async () => {
  const witness = await RawClient.connect(broker.port);
  const apiVersions = () =>
    witness.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
  assert.equal((await apiVersions()).errorCode, 0);

  const big = await RawClient.connect(broker.port);
  const hdr = Buffer.alloc(4);
  hdr.writeInt32BE(200 * 1024 * 1024);
  big.writeRaw(hdr);
  assert.ok(await big.waitClosed(), 'oversize frame closes the connection');

  const garbage = await RawClient.connect(broker.port);
  garbage.writeRaw(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  assert.ok(await garbage.waitClosed(), 'garbage closes the connection');

  const unknown = await RawClient.connect(broker.port);
  const f = Buffer.alloc(14);
  f.writeInt32BE(10, 0);
  f.writeInt16BE(999, 4);
  f.writeInt16BE(0, 6);
  f.writeInt32BE(1, 8);
  f.writeInt16BE(-1, 12);
  unknown.writeRaw(f);
  assert.ok(await unknown.waitClosed(), 'unknown API key closes the connection');

  assert.equal((await apiVersions()).errorCode, 0);
  witness.close();
});

test('@platformatic/kafka produces keyed records; kcat reads them back where murmur2 puts them', async () => {
  const { Producer, Admin, stringSerializers } = await import('@platformatic/kafka');
  const admin = new Admin({ clientId: 'pf-admin', bootstrapBrokers: [broker.bootstrap] });
  await admin.createTopics({ topics: ['pf'], partitions: 4, replicas: 1 });
  await admin.close();
  const producer = new Producer({
    clientId: 'pf',
    bootstrapBrokers: [broker.bootstrap],
    serializers: stringSerializers,
    idempotent: false,
    acks: -1,
  });
  const N = 10_000;
  try {
    for (let i = 0; i < N; i += 500) {
      await producer.send({
        messages: Array.from({ length: 500 }, (_, j) => ({
          topic: 'pf',
          key: `p${i + j}`,
          value: `val${i + j}`,
          headers: { src: 'pf' },
        })),
      });
    }
  } finally {
    await producer.close();
  }
  const lines = await kcatConsume('pf', '%p|%k|%s|%h\\n');
  assert.equal(lines.length, N);
  for (const line of lines) {
    const [p, k, v, h] = line.split('|');
    assert.equal(v, `val${k!.slice(1)}`);
    assert.equal(h, 'src=pf');
    assert.equal(Number(p), defaultPartition(Buffer.from(k!), 4), `key ${k}`);
  }
});
