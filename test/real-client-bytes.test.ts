// Bytes from real clients: kcat (librdkafka) and kafkajs talk to a recording listener; every
// frame they send decodes, its records check out, and it re-encodes byte for byte.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import kafkajs from 'kafkajs';
import { Writer } from '../src/protocol/codec/writer.js';
import { apiSpec, requestHeaderVersion } from '../src/protocol/frame.js';
import { writeRequestHeader } from '../src/protocol/generated/protocol/RequestHeader.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import type { ProduceRequest } from '../src/protocol/generated/protocol/Produce.js';
import { iterateBatches, decodeBatch, type KafkaRecord } from '../src/protocol/records/batch.js';
import { compress, decompress } from '../src/protocol/records/compression.js';
import { CompressionType } from '../src/protocol/records/layout.js';
import { defaultPartition } from '../src/protocol/partitioner.js';
import { startCaptureBroker, type Captured } from './helpers/capture-broker.js';

const { Kafka, CompressionTypes, CompressionCodecs, logLevel } = kafkajs;

function reencode(c: Captured): Buffer {
  const { request } = c;
  const w = new Writer(256);
  writeRequestHeader(w, requestHeaderVersion(request.apiKey, request.apiVersion), request.header);
  apiSpec(request.apiKey)!.writeRequest(w, request.apiVersion, request.body);
  return w.toBuffer();
}

interface Produced {
  partition: number;
  codec: number;
  record: KafkaRecord;
}

async function producedRecords(captured: Captured[]): Promise<Produced[]> {
  const out: Produced[] = [];
  for (const c of captured.filter((x) => x.request.apiKey === ApiKey.Produce)) {
    for (const t of (c.request.body as ProduceRequest).topicData) {
      for (const p of t.partitionData) {
        const records = p.records as Buffer; // a decoded request's records are the received bytes
        const it = iterateBatches(records, { verifyCrc: true });
        for (const e of it) {
          const b = await decodeBatch(records, e.position);
          for (const r of b.records) out.push({ partition: p.index, codec: b.compression, record: r });
        }
        assert.equal(it.partial, null, 'a produce request carried a partial batch');
      }
    }
  }
  return out;
}

function checkAllFrames(captured: Captured[], label: string): void {
  assert.ok(captured.length > 0, `${label}: nothing captured`);
  for (const c of captured) {
    assert.ok(
      reencode(c).equals(c.frame),
      `${label}: ${apiSpec(c.request.apiKey)!.name} v${c.request.apiVersion} did not re-encode byte-identically`,
    );
  }
  const apis = new Set(captured.map((c) => c.request.apiKey));
  for (const k of [ApiKey.ApiVersions, ApiKey.Metadata, ApiKey.Produce])
    assert.ok(apis.has(k), `${label}: no ${k} request seen`);
}

const KCAT_CODECS: [string, CompressionType][] = [
  ['none', CompressionType.None],
  ['gzip', CompressionType.Gzip],
  ['snappy', CompressionType.Snappy],
  ['lz4', CompressionType.Lz4],
  ['zstd', CompressionType.Zstd],
];

for (const [name, type] of KCAT_CODECS) {
  test(`kcat (librdkafka) produce with ${name}: frames decode, records match, bytes re-encode`, async () => {
    const broker = await startCaptureBroker(3);
    try {
      const lines: string[] = [];
      for (let i = 0; i < 200; i++) lines.push(`key-${i}:value-${i}-${'x'.repeat(i % 50)}`);
      await execa(
        'kcat',
        [
          '-P',
          '-b',
          `127.0.0.1:${broker.port}`,
          '-t',
          'capture',
          '-z',
          name,
          '-K:',
          '-H',
          'h1=v1',
          '-X',
          'api.version.request=true',
          // One batch: librdkafka sends a batch uncompressed when compressing does not make it smaller, which
          // a batch of one record cut by the default 5 ms linger on a busy machine is. kcat flushes at EOF.
          '-X',
          'linger.ms=5000',
        ],
        {
          input: lines.join('\n') + '\n',
          timeout: 30_000,
        },
      );
      assert.deepStrictEqual(broker.errors, []);
      checkAllFrames(broker.captured, `kcat ${name}`);
      const recs = await producedRecords(broker.captured);
      assert.equal(recs.length, 200);
      for (const r of recs) assert.equal(r.codec, type, 'compression codec of the batch');
      const byKey = new Map(recs.map((r) => [r.record.key!.toString(), r]));
      for (let i = 0; i < 200; i++) {
        const r = byKey.get(`key-${i}`);
        assert.ok(r, `record key-${i} missing`);
        assert.equal(r.record.value!.toString(), `value-${i}-${'x'.repeat(i % 50)}`);
        assert.deepStrictEqual(
          r.record.headers.map((h) => [h.key, h.value?.toString()]),
          [['h1', 'v1']],
        );
        // librdkafka's default partitioner is consistent_random (crc32); with murmur2_random it would match ours
      }
    } finally {
      await broker.close();
    }
  });
}

test('kcat with partitioner=murmur2_random puts keyed records where the Java partitioner does', async () => {
  const broker = await startCaptureBroker(6);
  try {
    const lines = Array.from({ length: 300 }, (_, i) => `user-${i * 7919}:v${i}`);
    await execa(
      'kcat',
      ['-P', '-b', `127.0.0.1:${broker.port}`, '-t', 'keyed', '-K:', '-X', 'partitioner=murmur2_random'],
      {
        input: lines.join('\n') + '\n',
        timeout: 30_000,
      },
    );
    const recs = await producedRecords(broker.captured);
    assert.equal(recs.length, 300);
    for (const r of recs) assert.equal(r.partition, defaultPartition(r.record.key!, 6), `key ${r.record.key}`);
  } finally {
    await broker.close();
  }
});

// kafkajs ships GZIP; the other codecs are plug-ins, which we provide from our own compression module
// (so this also checks that kafkajs reads what we write and the broker side reads what kafkajs frames).
const plug = (type: CompressionType) => () => ({
  compress: async (encoder: { buffer: Buffer }) => compress(type, encoder.buffer),
  decompress: async (buf: Buffer) => decompress(type, buf),
});
(CompressionCodecs as Record<number, unknown>)[CompressionTypes.Snappy] = plug(CompressionType.Snappy);
(CompressionCodecs as Record<number, unknown>)[CompressionTypes.LZ4] = plug(CompressionType.Lz4);
(CompressionCodecs as Record<number, unknown>)[CompressionTypes.ZSTD] = plug(CompressionType.Zstd);

const KAFKAJS_CODECS: [string, number, CompressionType][] = [
  ['none', CompressionTypes.None, CompressionType.None],
  ['gzip', CompressionTypes.GZIP, CompressionType.Gzip],
  ['snappy', CompressionTypes.Snappy, CompressionType.Snappy],
  ['lz4', CompressionTypes.LZ4, CompressionType.Lz4],
  ['zstd', CompressionTypes.ZSTD, CompressionType.Zstd],
];

for (const [name, kjs, type] of KAFKAJS_CODECS) {
  test(`kafkajs produce with ${name}: frames decode, records match, bytes re-encode; keys land on murmur2 partitions`, async () => {
    const broker = await startCaptureBroker(4);
    const kafka = new Kafka({
      clientId: 'capture-test',
      brokers: [`127.0.0.1:${broker.port}`],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    try {
      await producer.connect();
      const messages = Array.from({ length: 100 }, (_, i) => ({
        key: `k${i}`,
        value: `v${i}`,
        headers: { trace: `t${i}` },
        timestamp: String(1700000000000 + i),
      }));
      await producer.send({ topic: 'capture', compression: kjs, messages });
      await producer.send({ topic: 'capture', acks: 1, messages: [{ key: null, value: 'nokey' }] });
      assert.deepStrictEqual(broker.errors, []);
      checkAllFrames(broker.captured, `kafkajs ${name}`);
      const recs = await producedRecords(broker.captured);
      assert.equal(recs.length, 101);
      for (let i = 0; i < 100; i++) {
        const r = recs.find((x) => x.record.key?.toString() === `k${i}`)!;
        assert.ok(r);
        assert.equal(r.codec, type);
        assert.equal(r.record.value!.toString(), `v${i}`);
        assert.equal(r.record.timestamp, 1700000000000 + i);
        assert.deepStrictEqual(
          r.record.headers.map((h) => [h.key, h.value?.toString()]),
          [['trace', `t${i}`]],
        );
        assert.equal(r.partition, defaultPartition(Buffer.from(`k${i}`), 4));
      }
      const nokey = recs.find((x) => x.record.key === null)!;
      assert.equal(nokey.record.value!.toString(), 'nokey');
    } finally {
      await producer.disconnect();
      await broker.close();
    }
  });
}
