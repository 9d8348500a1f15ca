// Decompression bombs, tkafka against Apache Kafka 4.4.0: the same bytes (test/helpers/bombs.ts)
// produced to both brokers get the same partition error code, and each broker keeps serving a
// correct producer on another connection. The codes are also those test/memory-bounds.test.ts
// expects (BOMB_CASES.expected). Besides the bombs: a batch whose records section is not valid
// compressed data, and a record that declares more bytes than its stream holds.
//
//   npm run build && nice -n 19 node --test --test-concurrency=1 dist/test/interop/memory-bounds-kafka.test.js
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka } from './helpers/apache-kafka.js';
import { startBroker } from '../helpers/broker-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { BOMB_CASES, BOMB_TOPIC, createBombTopics, GoodProducer, produceOnce } from '../helpers/bomb-scenario.js';
import { batchAround, recordBytes } from '../helpers/bombs.js';
import { compress } from '../../src/protocol/records/compression.js';
import { CompressionType } from '../../src/protocol/records/layout.js';

interface Node {
  port: number;
  bootstrap: string;
  stop(): Promise<void>;
}

/** More cases, compared between the brokers only: malformed compressed data and records. */
const MALFORMED: { name: string; build: () => Promise<Buffer> }[] = [
  {
    // a record declaring a 1000-byte value followed by 10 bytes: the stream ends inside it
    name: 'gzip record longer than its stream',
    build: async () => {
      const rec = recordBytes(Buffer.alloc(1000, 7)).subarray(0, 20);
      return batchAround(CompressionType.Gzip, await compress(CompressionType.Gzip, rec));
    },
  },
  {
    name: 'zstd record longer than its stream',
    build: async () => {
      const rec = recordBytes(Buffer.alloc(1000, 7)).subarray(0, 20);
      return batchAround(CompressionType.Zstd, await compress(CompressionType.Zstd, rec));
    },
  },
  ...(
    [
      ['gzip', CompressionType.Gzip],
      ['snappy', CompressionType.Snappy],
      ['lz4', CompressionType.Lz4],
      ['zstd', CompressionType.Zstd],
    ] as const
  ).map(([name, codec]) => ({
    name: `${name} batch whose records section is not ${name} data`,
    build: () => Promise.resolve(batchAround(codec, Buffer.from('this is not compressed data, not at all'))),
  })),
  {
    name: 'two records declared, one sent (lz4)',
    build: async () =>
      batchAround(CompressionType.Lz4, await compress(CompressionType.Lz4, recordBytes(Buffer.from('x'))), 2),
  },
];

async function codesOn(node: Node): Promise<Map<string, number>> {
  await createBombTopics(node.port);
  const good = new GoodProducer(node.bootstrap);
  const codes = new Map<string, number>();
  try {
    await waitFor(() => good.acked >= 10, { what: 'the correct producer to be served', timeoutMs: 60_000 });
    for (const c of [...BOMB_CASES, ...MALFORMED.map((m) => ({ ...m, topic: BOMB_TOPIC }))]) {
      const before = good.acked;
      codes.set(c.name, await produceOnce(node.port, c.topic, await c.build()));
      await waitFor(() => good.acked > before, { what: `the correct producer served after ${c.name}` });
    }
  } finally {
    await good.stop();
  }
  assert.equal(good.failed, 0, 'no send of the correct producer failed');
  return codes;
}

test('decompression bombs and malformed compressed batches: the same error codes as Apache Kafka 4.4.0', async () => {
  const k = await startApacheKafka();
  let kafkaCodes: Map<string, number>;
  try {
    kafkaCodes = await codesOn({ port: k.port, bootstrap: k.bootstrap, stop: () => k.cleanup() });
  } finally {
    await k.cleanup();
  }
  const b = await startBroker();
  let tkafkaCodes: Map<string, number>;
  try {
    tkafkaCodes = await codesOn({ port: b.port, bootstrap: b.bootstrap, stop: () => b.stop() });
  } finally {
    await b.stop();
    b.cleanup();
  }
  for (const [name, code] of kafkaCodes) console.log(`${name}: Kafka 4.4.0 ${code}, tkafka ${tkafkaCodes.get(name)}`);
  for (const c of BOMB_CASES) assert.equal(kafkaCodes.get(c.name), c.expected, `Kafka 4.4.0, ${c.name}`);
  assert.deepEqual(Object.fromEntries(tkafkaCodes), Object.fromEntries(kafkaCodes));
});
