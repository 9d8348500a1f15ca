// Retention and compaction on a real broker: segments observably go away, compacted topics keep
// the latest value per key. Small segments and short intervals come from the test configuration.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { waitFor as waitForCondition } from './helpers/wait-for.js';

const { Kafka, logLevel } = kafkajs;
let broker: BrokerProcess;

before(async () => {
  broker = await startBroker({
    overrides: {
      'log.retention.check.interval.ms': 300,
      'log.cleaner.backoff.ms': 200,
      'log.segment.delete.delay.ms': 0,
    },
  });
});
after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

const MiB = 1024 * 1024;

async function createTopic(topic: string, configs: Record<string, string>): Promise<void> {
  const admin = new Kafka({ clientId: 'ret', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic, numPartitions: 1, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) },
    ],
  });
  await admin.disconnect();
}

async function earliestOffset(topic: string): Promise<bigint> {
  const c = await RawClient.connect(broker.port);
  try {
    const r = await c.request(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -2n }] }],
    });
    return r.topics[0].partitions[0].offset;
  } finally {
    c.close();
  }
}

function segments(topic: string): string[] {
  return readdirSync(join(broker.dataDir, 'logs', `${topic}-0`)).filter((f) => f.endsWith('.log'));
}

async function waitFor(what: string, cond: () => Promise<boolean>, ms = 30_000): Promise<void> {
  await waitForCondition(cond, { what, timeoutMs: ms });
}

const record = (i: number, key = `k${i}`) => `${key}:${String(i).padEnd(1000, '.')}`;

test('retention.bytes deletes old segments and moves the log start offset', async () => {
  await createTopic('ret-bytes', {
    'segment.bytes': String(MiB),
    'retention.bytes': String(MiB),
    'file.delete.delay.ms': '0',
  });
  const lines = Array.from({ length: 4000 }, (_, i) => record(i)).join('\n') + '\n';
  await execa('kcat', ['-P', '-b', broker.bootstrap, '-t', 'ret-bytes', '-K:'], { input: lines });
  assert.ok(segments('ret-bytes').length >= 3, 'rolled into several segments');
  await waitFor('the log start offset to move', async () => (await earliestOffset('ret-bytes')) > 0n);
  // The log start offset moves before the deleted segments' files are renamed and removed (as in Kafka's
  // UnifiedLog.deleteSegments), so the file count is a condition of its own.
  await waitFor('the old segments to be removed', async () => segments('ret-bytes').length <= 2);
});

test('retention.ms deletes segments whose records are older than the limit', async () => {
  await createTopic('ret-time', {
    'segment.bytes': String(MiB),
    'retention.ms': '3600000',
    'file.delete.delay.ms': '0',
  });
  const producer = new Kafka({ clientId: 'ret', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  const old = Date.now() - 24 * 3600 * 1000;
  for (let b = 0; b < 4; b++) {
    await producer.send({
      topic: 'ret-time',
      messages: Array.from({ length: 1000 }, (_, i) => ({ value: record(b * 1000 + i), timestamp: String(old) })),
    });
  }
  await producer.send({ topic: 'ret-time', messages: [{ value: 'fresh' }] });
  await producer.disconnect();
  await waitFor('old segments to be deleted', async () => (await earliestOffset('ret-time')) > 0n);
});

test('compaction keeps the latest value of every key; a tombstoned key keeps no old value', async () => {
  await createTopic('compacted', {
    'cleanup.policy': 'compact',
    'segment.bytes': String(MiB),
    'min.cleanable.dirty.ratio': '0.01',
    'delete.retention.ms': '0',
    'file.delete.delay.ms': '0',
  });
  const N = 4000;
  const lines = Array.from({ length: N }, (_, i) => record(i, `key${i % 50}`));
  await execa('kcat', ['-P', '-b', broker.bootstrap, '-t', 'compacted', '-K:'], { input: lines.join('\n') + '\n' });
  // a tombstone for key0 (kcat -Z sends empty values as null)
  await execa('kcat', ['-P', '-b', broker.bootstrap, '-t', 'compacted', '-K:', '-Z'], { input: 'key0:\n' });
  const read = async () => {
    const r = await execa(
      'kcat',
      ['-C', '-b', broker.bootstrap, '-t', 'compacted', '-o', 'beginning', '-e', '-q', '-f', '%k|%S|%s\\n'],
      { timeout: 60_000 },
    );
    return r.stdout.split('\n').filter((l) => l.length);
  };
  await waitFor('the cleaner to compact', async () => (await read()).length < N / 2, 60_000);
  const latest = new Map<string, string>();
  for (const l of await read()) {
    const [k, size, v] = l.split('|');
    latest.set(k!, Number(size) < 0 ? '<null>' : v!);
  }
  for (let key = 1; key < 50; key++) {
    const last = Math.max(...Array.from({ length: N }, (_, i) => i).filter((i) => i % 50 === key));
    assert.equal(latest.get(`key${key}`), String(last).padEnd(1000, '.'), `latest value of key${key}`);
  }
  // key0's values are gone: only its tombstone may remain until the delete horizon passes
  const k0 = latest.get('key0');
  assert.ok(k0 === undefined || k0 === '<null>', `key0 after compaction: ${k0?.slice(0, 20)}`);
});

test('a Produce request at a removed version (v2) closes the connection; others keep working', async () => {
  const c = await RawClient.connect(broker.port);
  const f = Buffer.alloc(14);
  f.writeInt32BE(10, 0);
  f.writeInt16BE(ApiKey.Produce, 4);
  f.writeInt16BE(2, 6); // Produce v2: removed in Kafka 4 (KIP-896); advertised only for librdkafka (KAFKA-18659)
  f.writeInt32BE(7, 8);
  f.writeInt16BE(-1, 12);
  c.writeRaw(f);
  assert.ok(await c.waitClosed(), 'connection closed');
  const ok = await RawClient.connect(broker.port);
  const v = await ok.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  assert.equal(v.errorCode, 0);
  // as Kafka 4.0 (KAFKA-18659): Produce is advertised from v0 so librdkafka compresses, though v0-2 are refused
  const produce = v.apiKeys.find((k: { apiKey: number }) => k.apiKey === ApiKey.Produce);
  assert.equal(produce?.minVersion, 0);
  const fetch = v.apiKeys.find((k: { apiKey: number }) => k.apiKey === ApiKey.Fetch);
  assert.equal(fetch?.minVersion, 4, 'Fetch v0-3 are not advertised (KIP-896)');
  ok.close();
});
