// The socket server end to end over loopback: raw sockets speaking the wire protocol through the
// codec, and kafkajs negotiating ApiVersions.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createConnection, type Socket } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import kafkajs from 'kafkajs';
import { ApiKey } from '../src/protocol/generated/apis.js';
import type { ApiVersionsResponse } from '../src/protocol/generated/protocol/ApiVersions.js';
import type { BrokerHeartbeatResponse } from '../src/protocol/generated/protocol/BrokerHeartbeat.js';
import type { SaslAuthenticateResponse } from '../src/protocol/generated/protocol/SaslAuthenticate.js';
import { decodeResponse, encodeRequest } from '../src/protocol/frame.js';
import { FrameReader } from '../src/broker/network/frame-reader.js';
import { SocketServer, parseListeners, type SocketServerOptions } from '../src/broker/network/socket-server.js';
import { formatRequestLogLine, type RequestLogEntry } from '../src/broker/network/request-log.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { createApiVersionsHandler } from '../src/broker/api/api-versions.js';
import { genericErrorResponse } from '../src/broker/api/error-responses.js';
import type { ApiHandler } from '../src/broker/api/types.js';
import type { Logger } from '../src/broker/api/dispatcher.js';
import { waitFor } from './helpers/wait-for.js';

const HOST = '127.0.0.1';

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** authBytes for the test handler: [op, delayMs, responseSize int32]. op 0xff throws, 0xfe answers nothing. */
function auth(delayMs: number, responseSize = 0, op = 0): Buffer {
  const b = Buffer.alloc(6);
  b[0] = op;
  b[1] = delayMs;
  b.writeUInt32BE(responseSize, 2);
  return b;
}

interface Harness {
  server: SocketServer;
  port: number;
  entries: RequestLogEntry[];
  logs: string[];
  handled: { count: number };
}

async function start(overrides: Partial<SocketServerOptions> = {}): Promise<Harness> {
  const handled = { count: 0 };
  const registry = new HandlerRegistry();
  registry.register(createApiVersionsHandler(registry));
  // SaslAuthenticate v0-1 as a test double: sleeps, echoes or sends a sized payload, or throws.
  const slow: ApiHandler = {
    apiKey: ApiKey.SaslAuthenticate,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['broker'],
    async handle(_ctx, req: { authBytes: Buffer }) {
      const b = req.authBytes;
      if (b[0] === 0xff) throw new Error('boom from the test handler');
      if (b[1]) await sleep(b[1]); // time is the point: a handler that takes b[1] ms
      if (b[0] === 0xfe) return null; // like Produce with acks=0
      handled.count++;
      const size = b.length >= 6 ? b.readUInt32BE(2) : 0;
      return {
        errorCode: 0,
        errorMessage: null,
        authBytes: size > 0 ? Buffer.alloc(size, 0x61) : b,
        sessionLifetimeMs: 0n,
      };
    },
    errorResponse: genericErrorResponse,
  };
  registry.register(slow);
  registry.register({
    apiKey: ApiKey.BrokerHeartbeat,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['controller'],
    handle: () => ({ errorCode: 0, isCaughtUp: true, isFenced: false, shouldShutDown: false }),
    errorResponse: genericErrorResponse,
  });
  const entries: RequestLogEntry[] = [];
  const logs: string[] = [];
  const logger: Logger = { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) };
  const server = new SocketServer({
    listeners: `PLAINTEXT://${HOST}:0`,
    registry,
    logger,
    onRequest: (e) => entries.push(e),
    socketRequestMaxBytes: 1 << 16,
    ...overrides,
  });
  await server.start();
  return { server, port: server.boundListeners[0]!.port, entries, logs, handled };
}

class RawClient {
  readonly frames: Buffer[] = [];
  private readonly reader = new FrameReader(1 << 30);
  private wake: (() => void) | undefined;
  readonly closed: Promise<void>;
  private constructor(readonly socket: Socket) {
    socket.on('data', (c: Buffer) => {
      this.frames.push(...this.reader.push(c));
      this.wake?.();
    });
    socket.on('error', () => {});
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }
  static async connect(port: number): Promise<RawClient> {
    const s = createConnection({ host: HOST, port });
    await within(once(s, 'connect'), 2000, 'connect');
    return new RawClient(s);
  }
  send(apiKey: number, version: number, correlationId: number, body: unknown): void {
    for (const b of encodeRequest(apiKey, version, correlationId, 'raw-client', body)) this.socket.write(b);
  }
  async frame(): Promise<Buffer> {
    for (let i = 0; i < 1000 && this.frames.length === 0; i++) {
      await within(new Promise<void>((r) => (this.wake = r)), 5000, 'a response frame');
    }
    return this.frames.shift()!;
  }
  /** The next response, decoded as `apiKey` at `version`; T is that API's generated response type. */
  async response<T = unknown>(apiKey: number, version: number): Promise<{ correlationId: number; body: T }> {
    const { correlationId, body } = decodeResponse(apiKey, version, await this.frame());
    return { correlationId, body: body as T };
  }
  /** ApiVersions round trip: proves the connection (and server) still serve. */
  async ping(correlationId = 4242): Promise<void> {
    this.send(ApiKey.ApiVersions, 3, correlationId, {
      clientSoftwareName: 'tkafka-test',
      clientSoftwareVersion: '1.0',
    });
    const r = await this.response<ApiVersionsResponse>(ApiKey.ApiVersions, 3);
    assert.equal(r.correlationId, correlationId);
    assert.equal(r.body.errorCode, 0);
  }
}

const apiVersionsV3 = { clientSoftwareName: 'tkafka-test', clientSoftwareVersion: '1.0' };

test('100 pipelined requests on one connection are answered in order', async () => {
  const h = await start();
  try {
    const c = await RawClient.connect(h.port);
    const bufs: Buffer[] = [];
    for (let i = 0; i < 100; i++) {
      if (i % 3 === 0) bufs.push(...encodeRequest(ApiKey.ApiVersions, 3, i, 'p', apiVersionsV3));
      else bufs.push(...encodeRequest(ApiKey.SaslAuthenticate, 1, i, 'p', { authBytes: auth((i * 7) % 6, 0, 0) }));
    }
    c.socket.write(Buffer.concat(bufs)); // one write: the server reads them all ahead
    for (let i = 0; i < 100; i++) {
      const api = i % 3 === 0 ? ApiKey.ApiVersions : ApiKey.SaslAuthenticate;
      const r = await c.response<ApiVersionsResponse | SaslAuthenticateResponse>(
        api,
        api === ApiKey.ApiVersions ? 3 : 1,
      );
      assert.equal(r.correlationId, i);
      if ('authBytes' in r.body) assert.deepEqual(r.body.authBytes, auth((i * 7) % 6, 0, 0));
      else assert.equal(api, ApiKey.ApiVersions);
    }
    const keys = h.entries.map((e) => e.correlationId);
    assert.deepEqual(keys, [...Array(100).keys()]);
    assert.ok(h.entries.every((e) => e.outcome === 'response' && e.clientId === 'p' && e.latencyMs >= 0));
    const line = formatRequestLogLine(h.entries[1]!);
    assert.match(
      line,
      /client=p \(tkafka-test 1\.0\) api=SaslAuthenticate v1 correlationId=1 latency=\d+\.\d+ms request=\d+B response=\d+B/,
    );
    c.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('ApiVersions: registry-derived keys, features, KIP-511 fallback, invalid software names', async () => {
  const h = await start();
  try {
    const c = await RawClient.connect(h.port);
    c.send(ApiKey.ApiVersions, 4, 1, apiVersionsV3);
    const v4 = (await c.response<ApiVersionsResponse>(ApiKey.ApiVersions, 4)).body;
    assert.deepEqual(
      v4.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion]),
      [
        [18, 0, 5],
        [36, 0, 1],
      ],
    );
    const mv = v4.supportedFeatures.find((f) => f.name === 'metadata.version');
    assert.deepEqual([mv?.minVersion, mv?.maxVersion], [7, 33]);
    assert.ok(v4.supportedFeatures.some((f) => f.name === 'group.version' && f.minVersion === 0));
    assert.ok(v4.finalizedFeatures.some((f) => f.name === 'metadata.version' && f.maxVersionLevel === 33));
    // Before v4, features whose minimum is 0 are left out (KAFKA-17492).
    c.send(ApiKey.ApiVersions, 3, 2, apiVersionsV3);
    const v3 = (await c.response<ApiVersionsResponse>(ApiKey.ApiVersions, 3)).body;
    assert.deepEqual(
      v3.supportedFeatures.map((f) => f.name),
      ['metadata.version'],
    );
    c.send(ApiKey.ApiVersions, 0, 3, {});
    assert.equal((await c.response<ApiVersionsResponse>(ApiKey.ApiVersions, 0)).body.apiKeys.length, 2);

    // v127 with a v2 (flexible) header and a body nobody can read: a v0 body with error 35.
    const header = Buffer.from([0, 18, 0, 127, 0, 0, 0, 77, 0, 3, 0x72, 0x61, 0x77, 0]);
    const body = Buffer.from([0xde, 0xad, 0xbe, 0xef]);
    const size = Buffer.alloc(4);
    size.writeInt32BE(header.length + body.length, 0);
    c.socket.write(Buffer.concat([size, header, body]));
    const raw = await c.frame();
    assert.equal(raw.length, 4 + 2 + 4 + 6); // correlation id, error, one ApiKeys entry (v0)
    const fallback = decodeResponse(ApiKey.ApiVersions, 0, raw) as { correlationId: number; body: ApiVersionsResponse };
    assert.equal(fallback.correlationId, 77);
    assert.equal(fallback.body.errorCode, 35);
    assert.deepEqual(
      fallback.body.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion]),
      [[18, 0, 5]],
    );
    assert.equal(h.entries.at(-1)!.apiVersion, 127);

    c.send(ApiKey.ApiVersions, 3, 5, { clientSoftwareName: 'bad name!', clientSoftwareVersion: '1.0' });
    const invalid = (await c.response<ApiVersionsResponse>(ApiKey.ApiVersions, 3)).body;
    assert.equal(invalid.errorCode, 42);
    assert.deepEqual(invalid.apiKeys, []);
    await c.ping(); // the connection survived all of it
    c.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('the controller listener lists controller APIs; broker-only APIs are not served there', async () => {
  const h = await start({ listeners: parseListeners(`PLAINTEXT://${HOST}:0,CONTROLLER://${HOST}:0`) });
  try {
    const ctl = h.server.boundListeners.find((l) => l.name === 'CONTROLLER')!;
    assert.equal(ctl.isController, true);
    assert.notEqual(ctl.port, 0);
    assert.equal(h.server.port('PLAINTEXT'), h.port);
    const b = await RawClient.connect(h.port);
    const c = await RawClient.connect(ctl.port);
    for (const [client, expected] of [
      [b, [18, 36]],
      [c, [18, 63]],
    ] as const) {
      client.send(ApiKey.ApiVersions, 3, 1, apiVersionsV3);
      assert.deepEqual(
        (await client.response<ApiVersionsResponse>(ApiKey.ApiVersions, 3)).body.apiKeys.map((k) => k.apiKey),
        expected,
      );
    }
    c.send(ApiKey.BrokerHeartbeat, 1, 2, { brokerId: 1 });
    assert.equal((await c.response<BrokerHeartbeatResponse>(ApiKey.BrokerHeartbeat, 1)).body.errorCode, 0);
    b.send(ApiKey.BrokerHeartbeat, 1, 2, { brokerId: 1 }); // a controller API on the broker listener
    await within(b.closed, 2000, 'broker listener closes on a controller API');
    c.send(ApiKey.SaslAuthenticate, 1, 3, { authBytes: auth(0) }); // not registered for controllers
    await within(c.closed, 2000, 'controller listener closes on a broker API');
  } finally {
    await h.server.close();
  }
});

test('invalid requests close only their own connection', async () => {
  const h = await start();
  try {
    const witness = await RawClient.connect(h.port);
    await witness.ping(1);
    const size = (n: number): Buffer => {
      const b = Buffer.alloc(4);
      b.writeInt32BE(n, 0);
      return b;
    };
    const unknownKey = Buffer.from([0x03, 0xe7, 0, 0, 0, 0, 0, 9, 0, 0]); // key 999
    const truncated = encodeRequest(ApiKey.SaslAuthenticate, 1, 9, 'x', { authBytes: auth(0) });
    const whole = Buffer.concat(truncated);
    const cases: [string, Buffer][] = [
      ['oversize frame (socket.request.max.bytes)', size((1 << 16) + 1)],
      ['negative size', size(-5)],
      ['HTTP garbage', Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')],
      ['frame shorter than a header', Buffer.concat([size(3), Buffer.from([0, 18, 0])])],
      ['unknown API key', Buffer.concat([size(unknownKey.length), unknownKey])],
      [
        'version the handler does not register',
        Buffer.concat(encodeRequest(ApiKey.SaslAuthenticate, 2, 9, 'x', { authBytes: auth(0) })),
      ],
      [
        'API known to the codec but not registered',
        Buffer.concat(encodeRequest(ApiKey.Metadata, 12, 9, 'x', { topics: null })),
      ],
      ['malformed body', Buffer.concat([size(whole.length - 4 - 3), whole.subarray(4, whole.length - 3)])],
    ];
    for (const [what, bytes] of cases) {
      const c = await RawClient.connect(h.port);
      c.socket.write(bytes);
      await within(c.closed, 2000, `${what} closes the connection`);
      assert.equal(c.frames.length, 0, what);
      await witness.ping(2);
    }
    // Bytes after the body are ignored, as Kafka's AbstractRequest.parseRequest does: answered, not closed.
    const trailing = await RawClient.connect(h.port);
    trailing.socket.write(Buffer.concat([size(whole.length - 4 + 2), whole.subarray(4), Buffer.from([1, 2])]));
    const answered = await trailing.response<SaslAuthenticateResponse>(ApiKey.SaslAuthenticate, 1);
    assert.deepEqual([answered.correlationId, answered.body.errorCode], [9, 0], 'trailing bytes after the body');
    await trailing.ping(3);
    trailing.socket.destroy();
    assert.ok(h.logs.some((l) => /larger than 65536/.test(l)));
    assert.ok(h.logs.some((l) => /unknown API key 999/.test(l)));
    assert.ok(h.logs.some((l) => /SaslAuthenticate with version 2 which is not enabled/.test(l)));
    witness.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('a throwing handler gets UNKNOWN_SERVER_ERROR; a null response writes nothing; order holds', async () => {
  const h = await start();
  try {
    const c = await RawClient.connect(h.port);
    c.send(ApiKey.SaslAuthenticate, 1, 1, { authBytes: auth(0, 0, 0xff) });
    c.send(ApiKey.SaslAuthenticate, 1, 2, { authBytes: auth(20, 0, 0xfe) }); // slow, then no response
    c.send(ApiKey.SaslAuthenticate, 1, 3, { authBytes: auth(0) });
    const failed = await c.response<SaslAuthenticateResponse>(ApiKey.SaslAuthenticate, 1);
    assert.deepEqual([failed.correlationId, failed.body.errorCode], [1, -1]);
    assert.equal((await c.response(ApiKey.SaslAuthenticate, 1)).correlationId, 3);
    assert.deepEqual(
      h.entries.map((e) => [e.correlationId, e.outcome]),
      [
        [1, 'response'],
        [2, 'noResponse'],
        [3, 'response'],
      ],
    );
    assert.ok(
      h.logs.some((l) => l.includes('boom from the test handler') && l.includes('    at ')),
      'logged with its stack',
    );
    c.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('back-pressure: a client that never reads does not make the server buffer without bound', async () => {
  const h = await start();
  const MiB = 1 << 20;
  try {
    const s = createConnection({ host: HOST, port: h.port });
    s.on('error', () => {});
    await once(s, 'connect');
    const bufs: Buffer[] = [];
    for (let i = 0; i < 100; i++)
      bufs.push(...encodeRequest(ApiKey.SaslAuthenticate, 1, i, 'bp', { authBytes: auth(0, MiB) }));
    s.write(Buffer.concat(bufs)); // 100 MiB of responses asked for; nothing is read
    // the connection stops reading once writes are blocked and its queue is full
    await waitFor(() => h.server.connectionStats()[0]?.readingPaused, { what: 'reading to pause', timeoutMs: 10_000 });
    const st = h.server.connectionStats()[0]!;
    assert.ok(h.handled.count < 100, `handling stopped (handled ${h.handled.count})`);
    assert.equal(st.readingPaused, true);
    assert.ok(st.maxWritableLength < 2 * MiB, `user-space write buffer stayed bounded (${st.maxWritableLength})`);
    // Now read: every response arrives, in order.
    const reader = new FrameReader(2 * MiB);
    let n = 0;
    const done = new Promise<void>((resolve, reject) => {
      s.on('data', (chunk: Buffer) => {
        for (const f of reader.push(chunk)) {
          const r = decodeResponse(ApiKey.SaslAuthenticate, 1, f);
          if (r.correlationId !== n || (r.body as SaslAuthenticateResponse).authBytes.length !== MiB)
            reject(new Error(`bad response ${r.correlationId} at ${n}`));
          if (++n === 100) resolve();
        }
      });
    });
    await within(done, 30000, '100 responses after reading resumes');
    assert.equal(h.handled.count, 100);
    s.destroy();
  } finally {
    await h.server.close();
  }
});

test('connections idle for connections.max.idle.ms are closed; active ones are not', async () => {
  const h = await start({ connectionsMaxIdleMs: 150 });
  try {
    const idle = await RawClient.connect(h.port);
    const active = await RawClient.connect(h.port);
    const t0 = Date.now();
    for (let i = 0; i < 8; i++) {
      await sleep(50); // time is the point: activity every 50 ms keeps a 150 ms idle timeout away
      await active.ping(i);
    }
    await within(idle.closed, 2000, 'the idle connection is closed');
    assert.ok(Date.now() - t0 >= 140);
    await active.ping(99);
    assert.ok(h.logs.some((l) => l.includes('connections.max.idle.ms')));
    active.socket.destroy();
  } finally {
    await h.server.close();
  }
});

test('close() finishes the request in flight, then closes and stops accepting', async () => {
  const h = await start();
  const c = await RawClient.connect(h.port);
  c.send(ApiKey.SaslAuthenticate, 1, 31, { authBytes: auth(150) });
  // the request has arrived (its handler takes 150 ms): close() now finds it in flight
  await waitFor(() => (h.server.connectionStats()[0]?.bytesIn ?? 0) > 0, { what: 'the request to arrive' });
  const closing = h.server.close();
  const r = await c.response(ApiKey.SaslAuthenticate, 1);
  assert.equal(r.correlationId, 31);
  await within(c.closed, 7000, 'connection closed after its response');
  await within(closing, 7000, 'server closed');
  const s = createConnection({ host: HOST, port: h.port });
  const [err] = (await within(once(s, 'error'), 2000, 'connection refused')) as [NodeJS.ErrnoException];
  assert.equal(err.code, 'ECONNREFUSED');
});

test('kafkajs negotiates ApiVersions with the server', async () => {
  const h = await start();
  try {
    const kafka = new kafkajs.Kafka({
      clientId: 'tkafka-kafkajs',
      brokers: [`${HOST}:${h.port}`],
      logLevel: kafkajs.logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 2000,
      requestTimeout: 2000,
    });
    const admin = kafka.admin();
    // admin.connect() connects to the seed broker and negotiates ApiVersions, nothing more.
    await within(admin.connect(), 10000, 'kafkajs admin.connect');
    // Metadata is not registered: kafkajs learned that from our ApiVersions answer and refuses
    // to send it, which shows the answer was parsed and used.
    await assert.rejects(within(admin.listTopics(), 10000, 'kafkajs listTopics'), {
      name: 'KafkaJSServerDoesNotSupportApiKey',
    });
    await admin.disconnect();
    const av = h.entries.filter((e) => e.apiKey === ApiKey.ApiVersions);
    assert.ok(av.length >= 1);
    assert.equal(av[0]!.clientId, 'tkafka-kafkajs');
    assert.equal(av[0]!.outcome, 'response');
    assert.ok(av[0]!.responseSize > 10);
    assert.equal(h.entries.filter((e) => e.apiKey === ApiKey.Metadata).length, 0);
  } finally {
    await h.server.close();
  }
});
