// Connection limits (Kafka's ConnectionQuotas) on a real `tkafka server start`: the connection over
// max.connections.per.ip is closed right after accept while the established ones keep working;
// max.connections makes the next connection wait until one closes; a flood of connection attempts
// leaves existing clients served; a dynamic max.connections.per.ip applies without a restart. The
// queued-request memory bound (queued.max.request.bytes) is checked on an in-process socket server
// whose handler is held until the bound is reached.
//
//   npm run build && nice -n 19 node --test --test-concurrency=1 dist/test/connection-limits.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { startBroker } from './helpers/broker-process.js';
import { waitFor, waitForLine } from './helpers/wait-for.js';
import { createTopicAt } from './helpers/create-topic.js';
import { Conn } from './helpers/limit-conn.js';
import { runTkafka } from './helpers/tool-run.js';
import { makeCerts } from './helpers/certs.js';
import { listenerTls } from '../src/broker/network/tls-listener.js';
import { connect as tlsConnect } from 'node:tls';
import { encodeRequest, decodeResponse } from '../src/protocol/frame.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { SocketServer } from '../src/broker/network/socket-server.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { createApiVersionsHandler } from '../src/broker/api/api-versions.js';
import { genericErrorResponse } from '../src/broker/api/error-responses.js';
import type { ApiHandler } from '../src/broker/api/types.js';
import { KafkaClient } from '../src/client/client.js';
import { Producer } from '../src/client/producer.js';
import { Consumer } from '../src/client/consumer.js';
import { incrementalAlterConfigs, OpType, ResourceType } from '../src/client/admin/configs.js';

test('max.connections.per.ip: the 11th connection is closed at once, the 10 others serve; overrides and dynamic changes apply', async () => {
  const b = await startBroker({
    overrides: { 'max.connections.per.ip': 10, 'max.connections.per.ip.overrides': '127.0.0.2:3' },
  });
  const conns: Conn[] = [];
  try {
    for (let i = 0; i < 10; i++) {
      const c = await Conn.open(b.port);
      conns.push(c);
      assert.equal(await c.ping(), true, `connection ${i + 1} is served`);
    }
    const eleventh = await Conn.open(b.port); // TCP accepts (the kernel), then the broker closes it
    assert.equal(await eleventh.ping(), false, 'the 11th connection is closed without an answer');
    await waitForLine(
      b.output,
      /INFO Rejected connection from \/127\.0\.0\.1, address already has the configured maximum of 10 connections\.$/m,
      { what: 'the rejection line' },
    );
    for (const c of conns) assert.equal(await c.ping(), true, 'established connections keep working');
    // a slot frees when one closes: a new connection is served again
    conns.shift()!.close();
    const again = await waitFor(
      async () => {
        const c = await Conn.open(b.port);
        if (await c.ping()) return c;
        c.close();
        return null;
      },
      { what: 'a connection to be served once one closed' },
    );
    conns.push(again);

    // max.connections.per.ip.overrides: 127.0.0.2 may open 3
    const from2: Conn[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await Conn.open(b.port, '127.0.0.2');
      from2.push(c);
      assert.equal(await c.ping(), true);
    }
    const fourth = await Conn.open(b.port, '127.0.0.2');
    assert.equal(await fourth.ping(), false);
    await waitForLine(
      b.output,
      /Rejected connection from \/127\.0\.0\.2, address already has the configured maximum of 3 connections\./,
      {
        what: 'the override rejection line',
      },
    );
    conns.push(...from2);

    // dynamic: the cluster default max.connections.per.ip lowered to 4 applies without a restart
    // (7 connections from 127.0.0.1 stay open; the admin client has room for its own)
    for (let i = 0; i < 4; i++) conns.shift()!.close();
    // the broker has counted the closes once a new connection is served (6 open + this probe)
    const probe = await waitFor(
      async () => {
        const c = await Conn.open(b.port);
        if (await c.ping()) return c;
        c.close();
        return null;
      },
      { what: 'room for the admin client' },
    );
    conns.push(probe);
    const client = new KafkaClient({ bootstrapServers: [b.bootstrap] });
    try {
      const r = await incrementalAlterConfigs(client, [
        {
          resource: { type: ResourceType.BROKER, name: '' },
          ops: [{ name: 'max.connections.per.ip', op: OpType.SET, value: '4' }],
        },
      ]);
      for (const x of r.values()) assert.ok(x.ok, JSON.stringify(x));
    } finally {
      client.close();
    }
    await waitForLine(b.output, /Updated connection limits: .*max\.connections\.per\.ip=4/, {
      what: 'the new limit applied',
    });
    const over = await Conn.open(b.port);
    assert.equal(await over.ping(), false, 'over the new limit: refused');
    await waitForLine(b.output, /address already has the configured maximum of 4 connections\./, {
      what: 'the line with 4',
    });
    for (const c of conns) assert.equal(await c.ping(), true, 'lowering the per-IP limit closes no open connection');
  } finally {
    for (const c of conns) c.close();
    await b.stop();
    b.cleanup();
  }
});

test('max.connections: the connection over the limit waits until one closes, then is served', async () => {
  const b = await startBroker({ overrides: { 'max.connections': 3 } });
  const conns: Conn[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const c = await Conn.open(b.port);
      conns.push(c);
      assert.equal(await c.ping(), true);
    }
    const waiting = await Conn.open(b.port);
    waiting.sendApiVersions();
    // while it waits, the three established connections are answered (several round trips each)
    for (let round = 0; round < 3; round++) for (const c of conns) assert.equal(await c.ping(), true);
    assert.equal(waiting.answered, 0, 'the 4th connection is not served while 3 are open');
    assert.equal(waiting.closed, false, 'nor closed: it waits');
    conns.shift()!.close();
    const f = await waiting.next(15_000);
    assert.ok(f !== null, 'served once a connection closed');
    assert.equal(decodeResponse(ApiKey.ApiVersions, 3, f).correlationId, 1);
    conns.push(waiting);
    for (const c of conns) assert.equal(await c.ping(), true);
  } finally {
    for (const c of conns) c.close();
    await b.stop();
    b.cleanup();
  }
});

test('a flood of 5,000 connection attempts leaves the broker serving its clients (produce and fetch during the flood)', async () => {
  const b = await startBroker({ overrides: { 'max.connections.per.ip': 50 } });
  const client = new KafkaClient({ bootstrapServers: [b.bootstrap] });
  const producer = new Producer(client, { lingerMs: 0 });
  const consumer = new Consumer(client, {});
  try {
    await createTopicAt(b.port, 'flooded');
    await producer.send({ topic: 'flooded', partition: 0, key: null, value: Buffer.from('before') });
    // the flood: from 127.0.0.2, at most 200 attempts at a time, each held until the broker
    // answers or closes it; bounded by count and a 120 s deadline
    const TOTAL = 5000;
    const deadline = Date.now() + 120_000;
    let started = 0;
    let refused = 0;
    let served = 0;
    const open: Conn[] = [];
    const worker = async (): Promise<void> => {
      while (started < TOTAL && Date.now() < deadline) {
        started++;
        let c: Conn;
        try {
          c = await Conn.open(b.port, '127.0.0.2');
        } catch {
          refused++;
          continue;
        }
        if (await c.ping().catch(() => false)) {
          served++;
          open.push(c); // keep the served ones: the address stays at its limit
        } else {
          refused++;
          c.close();
        }
      }
    };
    const flood = Promise.all(Array.from({ length: 200 }, () => worker()));
    // during the flood: produce and fetch
    await waitFor(() => started >= 500, { what: 'the flood to be under way', timeoutMs: 60_000 });
    const sent = await producer.send({ topic: 'flooded', partition: 0, key: null, value: Buffer.from('during') });
    assert.ok(sent);
    consumer.assign([{ topic: 'flooded', partition: 0 }]);
    consumer.seekToBeginning([{ topic: 'flooded', partition: 0 }]);
    const values: string[] = [];
    await waitFor(
      async () => {
        for (const r of await consumer.poll(500)) values.push(r.value?.toString() ?? '');
        return values.includes('during');
      },
      { what: 'the record produced during the flood to be fetched', timeoutMs: 60_000 },
    );
    await flood;
    for (const c of open) c.close();
    assert.deepEqual(values.slice(0, 2), ['before', 'during']);
    assert.equal(started, TOTAL, 'the flood ran to its count');
    assert.equal(served, 50, 'the flooding address got exactly its 50 connections');
    assert.equal(refused, TOTAL - 50);
  } finally {
    await consumer.close().catch(() => undefined);
    await producer.close().catch(() => undefined);
    client.close();
    await b.stop();
    b.cleanup();
  }
});

test('queued.max.request.bytes: reading stops while requests held in memory reach the bound', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const registry = new HandlerRegistry();
  registry.register(createApiVersionsHandler(registry));
  // SaslAuthenticate as a test double: answers once the gate opens
  const held: ApiHandler = {
    apiKey: ApiKey.SaslAuthenticate,
    minVersion: 0,
    maxVersion: 1,
    listeners: ['broker'],
    async handle(_ctx, req: { authBytes: Buffer }) {
      await gate;
      return { errorCode: 0, errorMessage: null, authBytes: req.authBytes.subarray(0, 4), sessionLifetimeMs: 0n };
    },
    errorResponse: genericErrorResponse,
  };
  registry.register(held);
  const CAPACITY = 64 * 1024;
  const FRAME = 8 * 1024;
  const server = new SocketServer({
    listeners: 'PLAINTEXT://127.0.0.1:0',
    registry,
    logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
    socketRequestMaxBytes: 1 << 16,
    queuedMaxRequestBytes: CAPACITY,
  });
  await server.start();
  const port = server.boundListeners[0]!.port;
  const CONNS = 20;
  const PER_CONN = 30;
  const conns: Conn[] = [];
  try {
    for (let i = 0; i < CONNS; i++) conns.push(await Conn.open(port));
    for (const c of conns)
      for (let i = 0; i < PER_CONN; i++)
        for (const b of encodeRequest(ApiKey.SaslAuthenticate, 1, i + 1, 'mem', { authBytes: Buffer.alloc(FRAME, 1) }))
          c.socket.write(b);
    const pool = server.requestMemory!;
    await waitFor(() => pool.usedBytes >= CAPACITY, { what: 'the pool to be reached' });
    // the connections stopped reading: all of them wait, paused, with their data unread
    await waitFor(() => server.connectionStats().every((s) => s.readingPaused), { what: 'every connection paused' });
    // bound: the capacity plus, per connection, what its last socket read brought (at most 64 KiB,
    // Node's read size) and the frame it had begun (SimpleMemoryPool is not strict either)
    const frameBytes = 65536 + FRAME + 64;
    assert.ok(pool.peakUsed <= CAPACITY + CONNS * frameBytes, `peak ${pool.peakUsed}`);
    assert.ok(pool.peakUsed < CONNS * PER_CONN * FRAME, 'far less than what was sent');
    release();
    for (const c of conns) {
      for (let i = 0; i < PER_CONN; i++) {
        const f = await c.next(30_000);
        assert.ok(f !== null);
        assert.equal(decodeResponse(ApiKey.SaslAuthenticate, 1, f).correlationId, i + 1);
      }
    }
    assert.ok(pool.peakUsed <= CAPACITY + CONNS * frameBytes, `peak ${pool.peakUsed}`);
    await waitFor(() => pool.usedBytes === 0, { what: 'the pool to be empty' });
  } finally {
    release();
    for (const c of conns) c.close();
    await server.close();
  }
});

/** An in-process socket server serving ApiVersions, with connection limits from `limits`. */
async function limitedServer(
  listeners: string,
  limits: Record<string, string>,
  interBrokerListenerName?: string,
  ipConnectionRate?: (ip: string) => number | undefined,
): Promise<{ server: SocketServer; port: (name: string) => number; logs: string[] }> {
  const registry = new HandlerRegistry();
  registry.register(createApiVersionsHandler(registry));
  const logs: string[] = [];
  const server = new SocketServer({
    listeners,
    registry,
    logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    connectionLimits: new Map(Object.entries(limits)),
    ...(interBrokerListenerName ? { interBrokerListenerName } : {}),
    ...(ipConnectionRate ? { ipConnectionRate } : {}),
  });
  await server.start();
  return { server, port: (name) => server.port(name), logs };
}

test('max.connection.creation.rate: connections over the rate wait (throttled), then are all served', async () => {
  const { server, port } = await limitedServer('PLAINTEXT://127.0.0.1:0', {
    'max.connection.creation.rate': '2',
    'quota.window.num': '2',
    'quota.window.size.seconds': '1',
  });
  const conns: Conn[] = [];
  try {
    for (let i = 0; i < 6; i++) conns.push(await Conn.open(port('PLAINTEXT')));
    await waitFor(() => server.connectionCounts().pending > 0, { what: 'connections held by the rate throttle' });
    for (const c of conns) assert.equal(await c.ping(), true, 'served once its throttle ends');
    assert.deepEqual(server.connectionCounts(), { counted: 6, pending: 0 });
  } finally {
    for (const c of conns) c.close();
    await server.close();
  }
});

test('the inter-broker listener may exceed max.connections: the least recently active other connection is closed', async () => {
  const { server, port } = await limitedServer(
    'PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0',
    { 'max.connections': '2' },
    'INTERNAL',
  );
  const conns: Conn[] = [];
  try {
    const older = await Conn.open(port('PLAINTEXT'));
    const newer = await Conn.open(port('PLAINTEXT'));
    conns.push(older, newer);
    assert.equal(await older.ping(), true);
    assert.equal(await newer.ping(), true); // `older` is now the least recently active
    // a third on PLAINTEXT waits
    const third = await Conn.open(port('PLAINTEXT'));
    conns.push(third);
    third.sendApiVersions();
    // the inter-broker listener is protected: accepted over the limit
    const internal = await Conn.open(port('INTERNAL'));
    conns.push(internal);
    assert.equal(await internal.ping(), true);
    await waitFor(() => older.closed, { what: 'the least recently active connection to be closed' });
    assert.equal(await newer.ping(), true);
    assert.equal(third.answered, 0, 'PLAINTEXT is still at the broker-wide limit');
    assert.equal(third.closed, false);
    newer.close();
    assert.ok((await third.next()) !== null, 'served once a PLAINTEXT slot frees');
  } finally {
    for (const c of conns) c.close();
    await server.close();
  }
});

test('an IP connection-rate quota (KIP-612 hook): the connection over the rate is closed unserved; other addresses are not throttled', async () => {
  const { server, port } = await limitedServer(
    'PLAINTEXT://127.0.0.1:0',
    { 'quota.window.num': '2', 'quota.window.size.seconds': '1' },
    undefined,
    (ip) => (ip === '127.0.0.3' ? 1 : undefined),
  );
  const conns: Conn[] = [];
  try {
    const first = await Conn.open(port('PLAINTEXT'), '127.0.0.3');
    const second = await Conn.open(port('PLAINTEXT'), '127.0.0.3');
    conns.push(first, second);
    assert.equal(await first.ping(), true);
    assert.equal(await second.ping(), false, 'over 1 connection/s: closed when its throttle ends, never served');
    for (let i = 0; i < 3; i++) {
      const other = await Conn.open(port('PLAINTEXT'), '127.0.0.4');
      conns.push(other);
      assert.equal(await other.ping(), true);
    }
    assert.equal(server.connectionCounts().counted, 4, 'the throttled connection was never counted');
  } finally {
    for (const c of conns) c.close();
    await server.close();
  }
});

test('an IP connection-rate quota set with tkafka configs (connection_creation_rate of an ips entity) closes the connection over the rate on a real broker; other addresses are not throttled', async () => {
  const b = await startBroker({ overrides: { 'quota.window.num': 2, 'quota.window.size.seconds': 1 } });
  const conns: Conn[] = [];
  try {
    const set = await runTkafka('configs', [
      '--bootstrap-server',
      b.bootstrap,
      '--alter',
      '--entity-type',
      'ips',
      '--entity-name',
      '127.0.0.3',
      '--add-config',
      'connection_creation_rate=1',
    ]);
    assert.equal(set.code, 0, set.err);
    // the quota is in the broker's image once DescribeClientQuotas shows it
    await waitFor(
      async () => {
        const d = await runTkafka('configs', [
          '--bootstrap-server',
          b.bootstrap,
          '--describe',
          '--entity-type',
          'ips',
          '--entity-name',
          '127.0.0.3',
        ]);
        return d.out.includes('connection_creation_rate=1') ? true : null;
      },
      { what: 'the ip quota in the broker image' },
    );
    const first = await Conn.open(b.port, '127.0.0.3');
    const second = await Conn.open(b.port, '127.0.0.3');
    conns.push(first, second);
    assert.equal(await first.ping(), true);
    assert.equal(await second.ping(), false, 'over 1 connection/s from 127.0.0.3: closed, never served');
    for (let i = 0; i < 3; i++) {
      const other = await Conn.open(b.port, '127.0.0.4');
      conns.push(other);
      assert.equal(await other.ping(), true, 'another address is not throttled');
    }
  } finally {
    for (const c of conns) c.close();
    await b.stop();
  }
});

test('SSL listener: the connection over max.connections.per.ip is closed before the TLS handshake, as Kafka does at accept', async () => {
  const certs = makeCerts();
  const registry = new HandlerRegistry();
  registry.register(createApiVersionsHandler(registry));
  const logs: string[] = [];
  const settings = new Map([
    ['listener.name.ssl.ssl.keystore.type', 'PEM'],
    ['listener.name.ssl.ssl.keystore.location', certs.server.keystorePemPath],
  ]);
  const server = new SocketServer({
    listeners: [{ name: 'SSL', host: '127.0.0.1', port: 0, tls: listenerTls(settings, 'SSL') }],
    registry,
    logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    connectionLimits: new Map([['max.connections.per.ip', '1']]),
  });
  await server.start();
  const handshake = (): Promise<{ ok: boolean; socket: ReturnType<typeof tlsConnect> }> =>
    new Promise((resolve) => {
      const s = tlsConnect(
        { host: '127.0.0.1', port: server.port('SSL'), ca: certs.ca.cert, checkServerIdentity: () => undefined },
        () => resolve({ ok: true, socket: s }),
      );
      s.once('error', () => resolve({ ok: false, socket: s }));
      s.once('close', () => resolve({ ok: false, socket: s }));
    });
  try {
    const first = await handshake();
    assert.equal(first.ok, true);
    const second = await handshake();
    assert.equal(second.ok, false, 'closed before its handshake completes');
    await waitFor(
      () =>
        logs.includes(
          'Rejected connection from /127.0.0.1, address already has the configured maximum of 1 connections.',
        ),
      { what: 'the rejection line' },
    );
    assert.deepEqual(
      logs.filter((l) => l.startsWith('Failed authentication')),
      [],
      'refused at accept: no TLS handshake was attempted',
    );
    first.socket.destroy();
    second.socket.destroy();
  } finally {
    await server.close();
    certs.cleanup();
  }
});
