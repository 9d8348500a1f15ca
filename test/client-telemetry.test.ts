// Client telemetry (KIP-714) without a network: subscription matching, subscription ids as Kafka
// 4.4 computes them (reference values printed by kafka-clients 4.4.0's Crc32C and Uuid.hashCode over
// a java.util.HashSet), the GetTelemetrySubscriptions/PushTelemetry checks of ClientMetricsManagerTest,
// instance expiry, OTLP decoding of a payload the Java producer pushed, and the metrics store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Registry } from 'prom-client';
import {
  ClientMetricsManager,
  computeSubscriptionId,
  isMatch,
  javaHashSetOrder,
  parseMatchPatterns,
  subscriptionOf,
  uuidHashCode,
  validateClientMetricsConfigs,
  type TelemetryRequestInfo,
} from '../src/broker/telemetry/client-metrics-manager.js';
import { ClientMetricsStore, promName } from '../src/broker/telemetry/metrics-store.js';
import { clientTelemetryOf, createClientTelemetry } from '../src/broker/telemetry/service.js';
import { HandlerRegistry } from '../src/broker/api/registry.js';
import { registerTelemetryHandlers } from '../src/broker/api/register-telemetry.js';
import type { BrokerServices } from '../src/broker/services.js';
import { decodeMetricsData, OtlpDecodeError } from '../src/protocol/otlp.js';
import { decompress } from '../src/protocol/records/compression.js';
import type { CompressionType } from '../src/protocol/records/layout.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { REPO_ROOT } from './helpers/spec-models.js';

const ID = 'x4KjTkpnRmG0cNrNCbJpkw';
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

const fixture = JSON.parse(
  readFileSync(resolve(REPO_ROOT, 'test/fixtures/telemetry/java-producer-push.json'), 'utf8'),
) as { compressionType: number; metrics: string };
const javaPayload = async (): Promise<Buffer> =>
  decompress(fixture.compressionType as CompressionType, Buffer.from(fixture.metrics, 'base64'));

const info = (over: Partial<TelemetryRequestInfo> = {}): TelemetryRequestInfo => ({
  connectionId: '127.0.0.1:9092-127.0.0.1:50000-1',
  clientId: 'producer-1',
  softwareName: 'apache-kafka-java',
  softwareVersion: '4.4.0',
  clientAddress: '127.0.0.1',
  clientPort: 50000,
  ...over,
});

function manager(
  subs: Record<string, Record<string, string>>,
  clock: { t: number },
  maxBytes = 1024,
  exporter?: ConstructorParameters<typeof ClientMetricsManager>[0]['exporter'],
): ClientMetricsManager {
  const map = new Map(Object.entries(subs).map(([n, c]) => [n, new Map(Object.entries(c))]));
  return new ClientMetricsManager({
    telemetryMaxBytes: maxBytes,
    subscriptions: () => map,
    now: () => clock.t,
    ...(exporter ? { exporter } : {}),
  });
}

test('subscription id as Kafka', () => {
  assert.equal(uuidHashCode(ID), 807884401);
  assert.equal(computeSubscriptionId([], 1000, ID), 1521521081);
  assert.equal(computeSubscriptionId(['*'], 1000, ID), 44885192);
  assert.equal(computeSubscriptionId(['org.apache.kafka.producer.'], 1000, ID), 420074248);
  const many = javaHashSetOrder([
    'org.apache.kafka.producer.record.queue.time',
    'org.apache.kafka.producer.request.latency',
    'org.apache.kafka.consumer.',
    'a',
    'b',
    'zz',
    'org.apache.kafka.producer.node.request.latency.avg',
  ]);
  assert.deepEqual(many, [
    'zz',
    'a',
    'org.apache.kafka.producer.record.queue.time',
    'org.apache.kafka.consumer.',
    'b',
    'org.apache.kafka.producer.request.latency',
    'org.apache.kafka.producer.node.request.latency.avg',
  ]);
  assert.equal(computeSubscriptionId(many, 1000, ID), 689819741);
  const m13 = javaHashSetOrder(Array.from({ length: 13 }, (_, i) => `m${i + 1}`));
  assert.deepEqual(m13.slice(8), ['m9', 'm11', 'm10', 'm13', 'm12']);
  assert.equal(computeSubscriptionId(m13, 1000, ID), 1663883967);
});

test('match patterns', () => {
  const m = parseMatchPatterns(['client_id=prod.*', ' client_software_name = apache-kafka-java ']);
  assert.ok(isMatch({ client_id: 'producer-1', client_software_name: 'apache-kafka-java' }, m));
  assert.ok(!isMatch({ client_id: 'xproducer-1', client_software_name: 'apache-kafka-java' }, m));
  assert.ok(!isMatch({ client_id: 'producer-1' }, m), 'a missing attribute does not match');
  assert.ok(isMatch({}, new Map()), 'no pattern matches every client');
  for (const bad of ['client_id', 'client_id=', 'a=b=c', 'unknown=x', 'client_id=[']) {
    assert.throws(() => parseMatchPatterns([bad]), /Illegal client matching pattern/, bad);
  }
  const s = subscriptionOf('s', new Map([['metrics', ' a. , b ']]));
  assert.deepEqual([s.metrics, s.intervalMs], [['a.', 'b'], 300000]);
});

test('get: new id, union of matching subscriptions', () => {
  const clock = { t: 1_000_000 };
  const mgr = manager(
    {
      s1: { metrics: 'org.apache.kafka.producer.', 'interval.ms': '2000', match: 'client_id=producer-.*' },
      s2: { metrics: 'org.apache.kafka.consumer.', 'interval.ms': '1000' },
      s3: { metrics: 'x.', 'interval.ms': '100', match: 'client_software_name=librdkafka' },
    },
    clock,
  );
  const r = mgr.getSubscriptions(ZERO, info());
  assert.equal(r.errorCode, ErrorCode.NONE);
  assert.notEqual(r.clientInstanceId, ZERO);
  assert.equal(r.pushIntervalMs, 1000);
  assert.deepEqual([...r.requestedMetrics].sort(), ['org.apache.kafka.consumer.', 'org.apache.kafka.producer.']);
  assert.deepEqual(r.acceptedCompressionTypes, [4, 3, 1, 2]);
  assert.equal(r.telemetryMaxBytes, 1024);
  assert.equal(r.deltaTemporality, true);
  assert.equal(r.subscriptionId, computeSubscriptionId(r.requestedMetrics, 1000, r.clientInstanceId));
  // '*' wins; nothing matched: default interval, no metrics
  const all = manager({ a: { metrics: '*,x' }, b: { metrics: 'y' } }, clock).getSubscriptions(ID, info());
  assert.deepEqual(all.requestedMetrics, ['*']);
  const none = manager({ a: { metrics: 'y', match: 'client_id=other' } }, clock).getSubscriptions(ID, info());
  assert.deepEqual([none.requestedMetrics, none.pushIntervalMs], [[], 300000]);
});

test('get: throttled before the interval', () => {
  const clock = { t: 1_000_000 };
  const mgr = manager({ s: { metrics: 'm.', 'interval.ms': '1000' } }, clock);
  assert.equal(mgr.getSubscriptions(ID, info()).errorCode, ErrorCode.NONE);
  clock.t += 500;
  const again = mgr.getSubscriptions(ID, info());
  assert.equal(again.errorCode, ErrorCode.THROTTLING_QUOTA_EXCEEDED);
  assert.deepEqual([again.clientInstanceId, again.subscriptionId, again.pushIntervalMs], [ZERO, 0, 0]);
  clock.t += 500;
  assert.equal(mgr.getSubscriptions(ID, info()).errorCode, ErrorCode.NONE);
});

test('push: errors in Kafka order', async () => {
  const clock = { t: 1_000_000 };
  const mgr = manager({ s: { metrics: 'm.', 'interval.ms': '1000' } }, clock, 16);
  const push = (over: Partial<Parameters<ClientMetricsManager['push']>[0]> = {}): Promise<number> =>
    mgr.push(
      {
        clientInstanceId: ID,
        subscriptionId: sub,
        terminating: false,
        compressionType: 0,
        metrics: Buffer.alloc(0),
        ...over,
      },
      info(),
    );
  assert.equal(
    await mgr.push(
      { clientInstanceId: ZERO, subscriptionId: 0, terminating: false, compressionType: 0, metrics: Buffer.alloc(0) },
      info(),
    ),
    ErrorCode.INVALID_REQUEST,
  );
  const sub = mgr.getSubscriptions(ID, info()).subscriptionId;
  // the first push after a get is accepted at once; the next one only after the interval
  assert.equal(await push(), ErrorCode.NONE);
  clock.t += 10;
  assert.equal(await push(), ErrorCode.THROTTLING_QUOTA_EXCEEDED);
  clock.t += 1000;
  assert.equal(await push({ subscriptionId: sub + 1 }), ErrorCode.UNKNOWN_SUBSCRIPTION_ID);
  // after UNKNOWN_SUBSCRIPTION_ID the client may ask again at once
  assert.equal(mgr.getSubscriptions(ID, info()).errorCode, ErrorCode.NONE);
  clock.t += 1000;
  assert.equal(await push({ compressionType: 5 }), ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  clock.t += 1000;
  assert.equal(await push({ metrics: Buffer.alloc(17) }), ErrorCode.TELEMETRY_TOO_LARGE);
  clock.t += 1000;
  // a terminating push is never throttled; nothing is accepted after it
  assert.equal(await push(), ErrorCode.NONE);
  assert.equal(await push({ terminating: true }), ErrorCode.NONE);
  clock.t += 5000;
  assert.equal(await push(), ErrorCode.INVALID_REQUEST);
});

test('push: undecodable metrics are INVALID_RECORD', async () => {
  const telemetry = createClientTelemetry({
    telemetryMaxBytes: 1 << 20,
    configs: () =>
      new Map([
        [
          '16:s',
          new Map([
            ['metrics', '*'],
            ['interval.ms', '1000'],
          ]),
        ],
      ]),
  });
  try {
    const r = telemetry.manager.getSubscriptions(ZERO, info());
    const base = { clientInstanceId: r.clientInstanceId, subscriptionId: r.subscriptionId, terminating: false };
    const bad = await telemetry.manager.push({ ...base, compressionType: 4, metrics: Buffer.from('not zstd') }, info());
    assert.equal(bad, ErrorCode.INVALID_RECORD);
    // the Java producer's payload decodes into the store
    const ok = await telemetry.manager.push(
      {
        ...base,
        terminating: true,
        compressionType: fixture.compressionType,
        metrics: Buffer.from(fixture.metrics, 'base64'),
      },
      info(),
    );
    assert.equal(ok, ErrorCode.NONE);
    const v = telemetry.store.valuesOf('org_apache_kafka_producer_topic_byte_total');
    assert.equal(v.length, 1);
    assert.deepEqual(v[0]!.labels, { topic: 't1', client_instance_id: r.clientInstanceId, client_id: 'producer-1' });
  } finally {
    telemetry.close();
  }
});

test('instances expire and re-evaluate', () => {
  const clock = { t: 1_000_000 };
  const subs = new Map([
    [
      's',
      new Map([
        ['metrics', 'm.'],
        ['interval.ms', '1000'],
      ]),
    ],
  ]);
  const removed: string[] = [];
  const mgr = new ClientMetricsManager({
    telemetryMaxBytes: 10,
    subscriptions: () => subs,
    now: () => clock.t,
    onInstanceRemoved: (id) => removed.push(id),
  });
  const first = mgr.getSubscriptions(ID, info());
  // a changed subscription is answered at once, with the new id
  subs.set(
    's',
    new Map([
      ['metrics', 'm.,n.'],
      ['interval.ms', '1000'],
    ]),
  );
  const changed = mgr.getSubscriptions(ID, info());
  assert.equal(changed.errorCode, ErrorCode.NONE);
  assert.notEqual(changed.subscriptionId, first.subscriptionId);
  // max(60 s, 3 × interval) after the last request
  clock.t += 59_999;
  mgr.expire();
  assert.equal(mgr.list().length, 1);
  clock.t += 1;
  mgr.expire();
  assert.deepEqual([mgr.list().length, removed], [0, [ID]]);
  // a closed connection drops its instance
  mgr.getSubscriptions(ID, info());
  mgr.connectionClosed(info().connectionId);
  assert.equal(mgr.instance(ID), undefined);
});

test('OTLP: the Java producer payload', async () => {
  const data = decodeMetricsData(await javaPayload());
  const metrics = data.flatMap((r) => r.metrics);
  assert.equal(metrics.length, 106);
  assert.ok(metrics.every((m) => m.name.startsWith('org.apache.kafka.producer.')));
  const kinds = new Set(metrics.map((m) => m.kind));
  assert.deepEqual([...kinds].sort(), ['gauge', 'sum']);
  const total = metrics.find((m) => m.name === 'org.apache.kafka.producer.topic.byte.total')!;
  assert.equal(total.kind, 'sum');
  assert.equal(total.monotonic, true);
  assert.equal(total.temporality, 1, 'delta, as the broker asked');
  assert.deepEqual(total.points[0]!.attributes, { topic: 't1' });
  const rate = metrics.find((m) => m.name === 'org.apache.kafka.producer.node.incoming.byte.rate')!;
  assert.equal(rate.kind, 'gauge');
  assert.equal(typeof rate.points[0]!.attributes.node_id, 'string');
  assert.throws(() => decodeMetricsData(Buffer.from([0x0a, 0x10, 0x01])), OtlpDecodeError);
});

test('store: collector, series cap', async () => {
  const store = new ClientMetricsStore(3);
  const registry = new Registry();
  store.register(registry);
  const point = (v: number, attrs: Record<string, string> = {}) => ({
    attributes: attrs,
    timeUnixNano: 0n,
    startTimeUnixNano: 0n,
    value: v,
  });
  const metric = (name: string, points: ReturnType<typeof point>[]) => ({
    name,
    description: '',
    unit: '',
    kind: 'gauge' as const,
    monotonic: false,
    temporality: 0,
    points,
    histogramPoints: [],
  });
  store.record('i1', 'c1', [
    { resource: {}, metrics: [metric('a.b-c', [point(1, { 'k.x': 'v' }), point(2, { 'k.x': 'w' })])] },
  ]);
  store.record('i2', 'c2', [{ resource: {}, metrics: [metric('a.b-c', [point(3)]), metric('d', [point(4)])] }]);
  assert.equal(promName('a.b-c'), 'a_b_c');
  assert.deepEqual([store.seriesCount, store.droppedSeries], [3, 1]);
  const text = await registry.metrics();
  assert.match(text, /# TYPE a_b_c gauge/);
  assert.match(text, /a_b_c\{k_x="v",client_instance_id="i1",client_id="c1"\} 1/);
  assert.match(text, /a_b_c\{client_instance_id="i2",client_id="c2"\} 3/);
  store.removeInstance('i1');
  assert.doesNotMatch(await registry.metrics(), /client_instance_id="i1"/);
});

test('APIs 71 and 72 only when enabled', () => {
  const services = (enable: boolean) =>
    ({
      config: { getBoolean: () => enable, getInt: () => 1024 },
    }) as unknown as BrokerServices;
  const off = new HandlerRegistry();
  assert.equal(registerTelemetryHandlers(off, services(false)), null);
  assert.deepEqual(off.apis('broker'), []);
  const on = new HandlerRegistry();
  const s = services(true);
  const telemetry = registerTelemetryHandlers(on, s);
  try {
    assert.ok(telemetry);
    assert.equal(clientTelemetryOf(s), telemetry);
    assert.deepEqual(on.apis('broker'), [
      { apiKey: 71, minVersion: 0, maxVersion: 0 },
      { apiKey: 72, minVersion: 0, maxVersion: 0 },
    ]);
  } finally {
    telemetry?.close();
  }
});

test('ClientMetricsConfigs.validate', () => {
  const v = (name: string, c: Record<string, string>) => validateClientMetricsConfigs(name, new Map(Object.entries(c)));
  assert.equal(v('s', { metrics: 'a,b', 'interval.ms': '100', match: 'client_id=x.*' }), null);
  assert.equal(v('s', {}), null);
  assert.deepEqual(v('', {}), {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorMessage: "Subscription name can't be empty",
  });
  assert.deepEqual(v('s', { foo: '1' }), {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorMessage: 'Unknown client metrics configuration: foo',
  });
  assert.deepEqual(v('s', { 'interval.ms': '3600001' }), {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorMessage: 'Invalid value 3600001 for interval.ms, interval must be between 100 and 3600000 (1 hour)',
  });
  assert.deepEqual(v('s', { 'interval.ms': 'x' }), {
    errorCode: ErrorCode.INVALID_CONFIG,
    errorMessage: 'Invalid value x for configuration interval.ms: Not a number of type INT',
  });
  assert.deepEqual(v('s', { match: 'client_id=[' }), {
    errorCode: ErrorCode.INVALID_CONFIG,
    errorMessage: 'Illegal client matching pattern: client_id=[',
  });
});
