// A response whose record bytes are still in a file (DeferredBytes, what Fetch answers with): the
// connection reads them chunk by chunk as it writes, the bytes arrive whole and in order, later
// responses wait behind it, and a range that can no longer be read whole closes the connection
// (Kafka's FileRecords.writeTo of a file that shrank). Then the same through a real broker: a fetch
// of several MiB equals the segment file's bytes.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { once } from 'node:events';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKey } from '../src/protocol/generated/apis.js';
import type { DeferredBytes } from '../src/protocol/codec/types.js';
import type { FetchResponse } from '../src/protocol/generated/protocol/Fetch.js';
import { decodeResponse, encodeRequest } from '../src/protocol/frame.js';
import { FrameReader } from '../src/broker/network/frame-reader.js';
import { SocketServer } from '../src/broker/network/socket-server.js';
import { pooledChunks } from '../src/broker/network/stream-chunks.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { createApiVersionsHandler } from '../src/broker/api/api-versions.js';
import { genericErrorResponse } from '../src/broker/api/error-responses.js';
import type { Logger } from '../src/broker/api/dispatcher.js';
import { buildRecordBatchSync } from '../src/protocol/records/batch.js';
import { RawClient } from './helpers/raw-client.js';
import { startBroker } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';

const HOST = '127.0.0.1';

/** Bytes served from memory in reads of at most `maxRead`, `missing` bytes short of what they promise. */
class TestDeferred implements DeferredBytes {
  reads = 0;
  constructor(
    private readonly data: Buffer,
    private readonly missing = 0,
  ) {}
  get length(): number {
    return this.data.length;
  }
  async readInto(into: Buffer, offset: number, length: number, from: number): Promise<number> {
    this.reads++;
    await new Promise<void>((r) => setImmediate(r));
    const end = Math.min(from + length, this.data.length - this.missing);
    if (end <= from) return 0;
    this.data.copy(into, offset, from, end);
    return end - from;
  }
}

async function server(records: () => DeferredBytes): Promise<{ server: SocketServer; port: number; logs: string[] }> {
  const registry = new HandlerRegistry();
  registry.register(createApiVersionsHandler(registry));
  registry.register({
    apiKey: ApiKey.Fetch,
    minVersion: 4,
    maxVersion: 17,
    listeners: ['broker'],
    handle: () => ({
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [{ topic: 't', partitions: [{ partitionIndex: 0, highWatermark: 1n, records: records() }] }],
    }),
    errorResponse: genericErrorResponse,
  });
  const logs: string[] = [];
  const logger: Logger = { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) };
  const s = new SocketServer({ listeners: `PLAINTEXT://${HOST}:0`, registry, logger });
  await s.start();
  return { server: s, port: s.boundListeners[0]!.port, logs };
}

async function connect(port: number): Promise<{ socket: Socket; frames: Buffer[]; closed: Promise<void> }> {
  const socket = createConnection({ host: HOST, port });
  await once(socket, 'connect');
  const reader = new FrameReader(1 << 30);
  const frames: Buffer[] = [];
  socket.on('data', (c: Buffer) => frames.push(...reader.push(c)));
  socket.on('error', () => {});
  return { socket, frames, closed: new Promise((r) => socket.once('close', () => r())) };
}

const fetchBody = {
  replicaId: -1,
  maxWaitMs: 0,
  minBytes: 1,
  maxBytes: 1 << 30,
  isolationLevel: 0,
  topics: [{ topic: 't', partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 30 }] }],
};

test('deferred record bytes: several chunks arrive whole, and the next response waits behind them', async () => {
  const data = Buffer.alloc(3.5 * 1024 * 1024 + 17);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31) & 0xff;
  const deferred = new TestDeferred(data);
  const h = await server(() => deferred);
  try {
    const c = await connect(h.port);
    for (const b of encodeRequest(ApiKey.Fetch, 12, 1, 'test', fetchBody)) c.socket.write(b);
    for (const b of encodeRequest(ApiKey.ApiVersions, 3, 2, 'test', {})) c.socket.write(b);
    await waitFor(() => (c.frames.length >= 2 ? true : null), { what: 'two responses', timeoutMs: 10_000 });
    const fetch = decodeResponse(ApiKey.Fetch, 12, c.frames[0]!);
    assert.equal(fetch.correlationId, 1);
    const records = (fetch.body as FetchResponse).responses[0]!.partitions[0]!.records as Buffer;
    assert.equal(records.length, data.length);
    assert.ok(records.equals(data), 'the bytes as the file holds them');
    assert.equal(deferred.reads, 4, 'read in 1 MiB chunks');
    assert.equal(decodeResponse(ApiKey.ApiVersions, 3, c.frames[1]!).correlationId, 2);
    c.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('the chunks are reused: responses of different bytes streamed one after another each arrive whole', async () => {
  const patterned = (seed: number): Buffer => {
    const d = Buffer.alloc(2.5 * 1024 * 1024 + seed);
    for (let i = 0; i < d.length; i++) d[i] = (i * seed) & 0xff;
    return d;
  };
  const datas = [patterned(7), patterned(13), patterned(29)];
  let next = 0;
  const h = await server(() => new TestDeferred(datas[next++]!));
  try {
    const c = await connect(h.port);
    for (let i = 0; i < datas.length; i++) {
      for (const b of encodeRequest(ApiKey.Fetch, 12, i, 'test', fetchBody)) c.socket.write(b);
    }
    await waitFor(() => (c.frames.length >= datas.length ? true : null), { what: 'responses', timeoutMs: 10_000 });
    for (let i = 0; i < datas.length; i++) {
      const fetch = decodeResponse(ApiKey.Fetch, 12, c.frames[i]!);
      const records = (fetch.body as FetchResponse).responses[0]!.partitions[0]!.records as Buffer;
      assert.ok(records.equals(datas[i]!), `response ${i}: the bytes as the file holds them`);
    }
    assert.ok(pooledChunks() >= 2, `chunks back in the pool after the writes: ${pooledChunks()}`);
    c.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('deferred record bytes that end short of the size sent: the connection is closed, the server serves on', async () => {
  const h = await server(() => new TestDeferred(Buffer.alloc(2 * 1024 * 1024 + 5, 1), 1000));
  try {
    const c = await connect(h.port);
    for (const b of encodeRequest(ApiKey.Fetch, 12, 1, 'test', fetchBody)) c.socket.write(b);
    await c.closed;
    assert.equal(c.frames.length, 0, 'no partial response taken as whole');
    assert.ok(
      h.logs.some((l) => /records could not be read while sending them \(the log ended 1000 bytes short/.test(l)),
      h.logs.join('\n'),
    );
    const again = await connect(h.port);
    for (const b of encodeRequest(ApiKey.ApiVersions, 3, 7, 'test', {})) again.socket.write(b);
    await waitFor(() => (again.frames.length >= 1 ? true : null), { what: 'ApiVersions', timeoutMs: 10_000 });
    assert.equal(decodeResponse(ApiKey.ApiVersions, 3, again.frames[0]!).correlationId, 7);
    again.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('a broker streams a fetch of several MiB from the segment file: the bytes equal the file', async () => {
  const b = await startBroker();
  const c = await RawClient.connect(b.port);
  try {
    const created = await c.request(ApiKey.CreateTopics, 7, {
      topics: [{ name: 'big', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0]!.errorCode, 0);
    const value = Buffer.alloc(900 * 1024, 0x5a);
    for (let i = 0; i < 5; i++) {
      const records = buildRecordBatchSync({ records: [{ key: Buffer.from(`k${i}`), value }] });
      const produced = await waitFor(
        async () => {
          const r = await c.request(ApiKey.Produce, 9, {
            transactionalId: null,
            acks: -1,
            timeoutMs: 30_000,
            topicData: [{ name: 'big', partitionData: [{ index: 0, records }] }],
          });
          // the partition's leader may still be on its way right after creation
          const code = r.responses[0]!.partitionResponses[0]!.errorCode;
          return code === 0 ? true : null;
        },
        { what: `produce ${i}`, timeoutMs: 30_000 },
      );
      assert.ok(produced);
    }
    const fetched = await c.request(ApiKey.Fetch, 12, {
      ...fetchBody,
      topics: [{ ...fetchBody.topics[0]!, topic: 'big' }],
    });
    const got = fetched.responses[0]!.partitions[0]!.records as Buffer;
    const dir = join(b.dataDir, 'logs', 'big-0');
    const file = readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => f.endsWith('.log'))!,
      ),
    );
    assert.ok(got.length > 4 * 1024 * 1024, `fetched ${got.length} bytes`);
    assert.ok(got.equals(file), 'the fetched bytes are the segment file');
  } finally {
    c.close();
    await b.stop();
    b.cleanup();
  }
});
