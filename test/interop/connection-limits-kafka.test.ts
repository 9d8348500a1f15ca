// Connection limits, tkafka against Apache Kafka 4.4.0: the same scenarios run on both brokers and
// what a client sees is compared. With max.connections.per.ip=10 the 11th connection from 127.0.0.1
// is accepted by TCP and closed by the broker without an answer, the ten established ones keep
// being served, and the broker logs the same INFO line. With max.connections=3 the 4th connection
// is neither served nor closed while three are open, and is served once one closes.
//
//   npm run build && nice -n 19 node --test --test-concurrency=1 dist/test/interop/connection-limits-kafka.test.js
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka } from './helpers/apache-kafka.js';
import { startBroker } from '../helpers/broker-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { Conn } from '../helpers/limit-conn.js';
import { decodeResponse } from '../../src/protocol/frame.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';

interface Node {
  port: number;
  logs(): string;
  stop(): Promise<void>;
}

async function tkafka(overrides: Record<string, number>): Promise<Node> {
  const b = await startBroker({ overrides });
  return {
    port: b.port,
    logs: b.output,
    stop: async () => {
      await b.stop();
      b.cleanup();
    },
  };
}

async function kafka(overrides: Record<string, number>): Promise<Node> {
  const k = await startApacheKafka({ overrides });
  return { port: k.port, logs: () => k.logs(), stop: () => k.cleanup() };
}

const REJECTED =
  /Rejected connection from \/127\.0\.0\.1, address already has the configured maximum of 10 connections\./;

/** What a client sees with max.connections.per.ip=10. */
async function perIpScenario(node: Node): Promise<Record<string, unknown>> {
  const conns: Conn[] = [];
  try {
    let served = 0;
    for (let i = 0; i < 10; i++) {
      const c = await Conn.open(node.port);
      conns.push(c);
      if (await c.ping()) served++;
    }
    const eleventh = await Conn.open(node.port);
    const eleventhAnswered = await eleventh.ping();
    let stillServed = 0;
    for (const c of conns) if (await c.ping()) stillServed++;
    await waitFor(() => REJECTED.test(node.logs()), { what: 'the rejection line' });
    conns.shift()!.close();
    const afterClose = await waitFor(
      async () => {
        const c = await Conn.open(node.port);
        if (await c.ping()) return c;
        c.close();
        return null;
      },
      { what: 'a new connection to be served once one closed' },
    );
    conns.push(afterClose);
    return { served, eleventhAnswered, eleventhClosed: eleventh.closed, stillServed, servedAfterClose: true };
  } finally {
    for (const c of conns) c.close();
  }
}

/** What a client sees with max.connections=3. */
async function maxConnectionsScenario(node: Node): Promise<Record<string, unknown>> {
  const conns: Conn[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const c = await Conn.open(node.port);
      conns.push(c);
      assert.equal(await c.ping(), true);
    }
    const waiting = await Conn.open(node.port);
    waiting.sendApiVersions();
    for (let round = 0; round < 3; round++) for (const c of conns) assert.equal(await c.ping(), true);
    const answeredWhileFull = waiting.answered;
    const closedWhileFull = waiting.closed;
    conns.shift()!.close();
    const f = await waiting.next(30_000);
    conns.push(waiting);
    return {
      answeredWhileFull,
      closedWhileFull,
      servedOnceOneClosed: f !== null && decodeResponse(ApiKey.ApiVersions, 3, f).correlationId === 1,
    };
  } finally {
    for (const c of conns) c.close();
  }
}

test('max.connections.per.ip=10: the 11th connection is closed right after accept, on Kafka 4.4.0 as on tkafka', async () => {
  const k = await kafka({ 'max.connections.per.ip': 10 });
  let onKafka: Record<string, unknown>;
  let kafkaLine: string;
  try {
    onKafka = await perIpScenario(k);
    kafkaLine = REJECTED.exec(k.logs())![0];
  } finally {
    await k.stop();
  }
  const t = await tkafka({ 'max.connections.per.ip': 10 });
  try {
    const onTkafka = await perIpScenario(t);
    console.log(`Kafka 4.4.0: ${JSON.stringify(onKafka)}\ntkafka:      ${JSON.stringify(onTkafka)}`);
    assert.deepEqual(onKafka, {
      served: 10,
      eleventhAnswered: false,
      eleventhClosed: true,
      stillServed: 10,
      servedAfterClose: true,
    });
    assert.deepEqual(onTkafka, onKafka);
    assert.equal(REJECTED.exec(t.logs())![0], kafkaLine);
  } finally {
    await t.stop();
  }
});

test('max.connections=3: the 4th connection waits until one closes, on Kafka 4.4.0 as on tkafka', async () => {
  const k = await kafka({ 'max.connections': 3 });
  let onKafka: Record<string, unknown>;
  try {
    onKafka = await maxConnectionsScenario(k);
  } finally {
    await k.stop();
  }
  const t = await tkafka({ 'max.connections': 3 });
  try {
    const onTkafka = await maxConnectionsScenario(t);
    console.log(`Kafka 4.4.0: ${JSON.stringify(onKafka)}\ntkafka:      ${JSON.stringify(onTkafka)}`);
    assert.deepEqual(onKafka, { answeredWhileFull: 0, closedWhileFull: false, servedOnceOneClosed: true });
    assert.deepEqual(onTkafka, onKafka);
  } finally {
    await t.stop();
  }
});
