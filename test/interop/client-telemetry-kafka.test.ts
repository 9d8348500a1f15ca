// Client telemetry (KIP-714) against a real Apache Kafka 4.4.0 (with a telemetry exporter,
// client-telemetry/TelemetrySink.java, without which Kafka does not serve the APIs) and tkafka
// (tkafka.client.telemetry.enable=true): client-metrics subscriptions made with `tkafka
// client-metrics` and with kafka-client-metrics.sh list and describe the same with both tools on both
// brokers; the same raw GetTelemetrySubscriptions/PushTelemetry exchanges get the same fields and
// error codes; Kafka's Java producer (4.4.0) and librdkafka's (confluent-kafka 2.15) push their
// metrics to tkafka, which shows them on its metrics endpoint while the producer is connected.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startApacheKafka, runKafkaTool, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { runTkafka } from '../helpers/tool-run.js';
import { waitFor } from '../helpers/wait-for.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { compileJava } from '../helpers/javac.js';
import { metricsUrl, scrape } from '../helpers/metrics.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { compress } from '../../src/protocol/records/compression.js';
import { CompressionType } from '../../src/protocol/records/layout.js';

const TOOL = 'org.apache.kafka.tools.ClientMetricsCommand';
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const MAX_BYTES = 16384;
const fixture = JSON.parse(
  readFileSync(resolve(REPO_ROOT, 'test/fixtures/telemetry/java-producer-push.json'), 'utf8'),
) as { compressionType: number; metrics: string };

interface Node {
  name: 'kafka' | 'tkafka';
  bootstrap: string;
  port: number;
}

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
let classes: string;
const nodes: Node[] = [];

before(async () => {
  classes = mkdtempSync(join(tmpdir(), 'telemetry-sink-'));
  await compileJava(
    resolve(REPO_ROOT, 'test/interop/client-telemetry/TelemetrySink.java'),
    classes,
    `${resolve(REPO_ROOT, '.cache/kafka-4.4.0/lib')}/*`,
  );
  [kafka, tkafka] = await Promise.all([
    startApacheKafka({
      classpath: [classes],
      overrides: { 'metric.reporters': 'TelemetrySink', 'telemetry.max.bytes': MAX_BYTES },
    }),
    startBroker({
      overrides: {
        'tkafka.client.telemetry.enable': true,
        'telemetry.max.bytes': MAX_BYTES,
        'tkafka.metrics.listener': 'http://127.0.0.1:0',
      },
    }),
  ]);
  nodes.push(
    { name: 'kafka', bootstrap: kafka.bootstrap, port: kafka.port },
    { name: 'tkafka', bootstrap: tkafka.bootstrap, port: tkafka.port },
  );
});

after(async () => {
  await Promise.allSettled([kafka?.cleanup(), tkafka?.stop()]);
  tkafka?.cleanup();
  if (classes) rmSync(classes, { recursive: true, force: true });
});

/** Both tools on one broker: stdout and exit code. */
async function both(node: Node, args: string[]): Promise<{ tkafka: string; kafka: string }> {
  const full = ['--bootstrap-server', node.bootstrap, ...args];
  const [t, k] = [await runTkafka('client-metrics', full), await runKafkaTool(TOOL, full)];
  assert.equal(t.code, k.exitCode, `${node.name} ${args.join(' ')}: exit codes (${t.err} / ${k.stderr})`);
  return { tkafka: t.out, kafka: k.stdout };
}

test('subscriptions by both tools', async () => {
  for (const node of nodes) {
    const t = await runTkafka('client-metrics', [
      '--bootstrap-server',
      node.bootstrap,
      '--alter',
      '--name',
      'producers',
      '--metrics',
      'org.apache.kafka.producer.,org.apache.kafka.consumer.',
      '--interval',
      '1000',
    ]);
    assert.deepEqual([t.code, t.out], [0, 'Altered client metrics config for producers.\n'], t.err);
    const k = await runKafkaTool(TOOL, [
      '--bootstrap-server',
      node.bootstrap,
      '--alter',
      '--name',
      'latency',
      '--metrics',
      'org.apache.kafka.producer.request.latency,org.apache.kafka.producer.record.queue.time',
      '--interval',
      '2000',
      '--match',
      'client_software_name=apache-kafka-java',
    ]);
    assert.deepEqual([k.exitCode, k.stdout], [0, 'Altered client metrics config for latency.\n'], k.stderr);
  }
  const seen: string[] = [];
  for (const node of nodes) {
    for (const args of [
      ['--list'],
      ['--describe'],
      ['--describe', '--name', 'latency'],
      ['--describe', '--name', 'none'],
    ]) {
      const r = await both(node, args);
      assert.equal(r.tkafka, r.kafka, `${node.name} ${args.join(' ')}`);
      seen.push(r.tkafka);
    }
  }
  // the same on both brokers
  assert.deepEqual(seen.slice(0, 4), seen.slice(4));
  assert.match(seen[1]!, /Client metrics configs for producers are:\n {2}interval\.ms=1000\n/);
  // errors the brokers answer (ClientMetricsConfigs.validate), as Kafka words them, on both brokers
  const errors: string[][] = [];
  for (const node of nodes) {
    const outs: string[] = [];
    for (const args of [
      ['--alter', '--name', 'bad', '--interval', '50'],
      ['--alter', '--name', 'bad', '--interval', '3600001'],
      ['--alter', '--name', 'bad', '--match', 'nope=x'],
      ['--alter', '--name', 'bad', '--match', 'client_id=['],
    ]) {
      const r = await both(node, args);
      assert.equal(r.tkafka, r.kafka, `${node.name} ${args.join(' ')}`);
      assert.match(r.tkafka, /^Error while executing client metrics command : /);
      outs.push(r.tkafka);
    }
    errors.push(outs);
  }
  assert.deepEqual(errors[1], errors[0]);
});

test('tool errors as Kafka', async () => {
  const B = nodes[1]!.bootstrap;
  const cases = [
    [],
    ['--bootstrap-server', B],
    ['--bootstrap-server', B, '--list', '--describe'],
    ['--list'],
    ['--bootstrap-server', B, '--alter'],
    ['--bootstrap-server', B, '--alter', '--name', 'a', '--generate-name'],
    ['--bootstrap-server', B, '--delete'],
    ['--bootstrap-server', B, '--list', '--name', 'x'],
    ['--bootstrap-server', B, '--describe', '--metrics', 'x'],
    ['--bootstrap-server', B, '--alter', '--name', 'a', '--interval', 'abc'],
    ['--bootstrap-server', B, '--alter', '--name', 'a', '--interval', '99999999999'],
    ['--bootstrap-server', B, '--alter', '--name', 'a', '--interval', ' 1000'],
    ['--bootstrap-server', B, '--nope'],
  ];
  for (const args of cases) {
    const [t, k] = [await runTkafka('client-metrics', args), await runKafkaTool(TOOL, args)];
    const what = args.join(' ');
    assert.equal(t.code, k.exitCode, what);
    assert.equal(t.out, k.stdout, what);
    // the message line; Kafka follows it with the help table or the exception's stack trace
    assert.equal(t.err.split('\n')[0], k.stderr.split('\n')[0], what);
    const kafkaSecond = k.stderr.split('\n')[1]!;
    if (kafkaSecond.startsWith('java.lang.')) assert.equal(t.err.split('\n')[1], kafkaSecond, what);
  }
});

test('generate-name, delete, json', async () => {
  const tk = nodes[1]!;
  const gen = await runTkafka('client-metrics', [
    '--bootstrap-server',
    tk.bootstrap,
    '--alter',
    '--generate-name',
    '--metrics',
    'm.',
  ]);
  const name = /^Altered client metrics config for ([A-Za-z0-9_-]{22})\.\n$/.exec(gen.out)?.[1];
  assert.ok(name, gen.out + gen.err);
  const json = await runTkafka('client-metrics', [
    '--bootstrap-server',
    tk.bootstrap,
    '--describe',
    '--name',
    name,
    '--output',
    'json',
  ]);
  assert.deepEqual(JSON.parse(json.out), {
    resources: [
      {
        name,
        configs: [
          { name: 'interval.ms', value: '300000' },
          { name: 'match', value: '' },
          { name: 'metrics', value: 'm.' },
        ],
      },
    ],
  });
  // deleting it (and one that never was) prints the same with both tools on both brokers
  for (const node of nodes) {
    const k = await runKafkaTool(TOOL, ['--bootstrap-server', node.bootstrap, '--delete', '--name', 'never']);
    const t = await runTkafka('client-metrics', ['--bootstrap-server', node.bootstrap, '--delete', '--name', 'never']);
    assert.deepEqual([t.code, t.out], [k.exitCode, k.stdout], node.name);
  }
  const del = await runTkafka('client-metrics', ['--bootstrap-server', tk.bootstrap, '--delete', '--name', name]);
  assert.equal(del.out, `Deleted client metrics config for ${name}.\n`);
  const list = await runTkafka('client-metrics', ['--bootstrap-server', tk.bootstrap, '--list', '--output', 'json']);
  assert.ok(!(JSON.parse(list.out) as { resources: string[] }).resources.includes(name));
});

/** The raw exchanges of one broker, each answer's fields. */
async function exchanges(node: Node): Promise<unknown[]> {
  const c = await RawClient.connect(node.port);
  try {
    const out: unknown[] = [];
    const get = (id: string) => c.request(ApiKey.GetTelemetrySubscriptions, 0, { clientInstanceId: id });
    const push = (id: string, sub: number, compressionType: number, metrics: Buffer, terminating = false) =>
      c.request(ApiKey.PushTelemetry, 0, {
        clientInstanceId: id,
        subscriptionId: sub,
        terminating,
        compressionType,
        metrics,
      });
    // the Java client's name, which the latency subscription matches
    const versions = await c.request(ApiKey.ApiVersions, 3, {
      clientSoftwareName: 'apache-kafka-java',
      clientSoftwareVersion: '4.4.0',
    });
    out.push(versions.apiKeys.filter((a) => a.apiKey === 71 || a.apiKey === 72));
    // Kafka applies the subscriptions from its metadata log: wait until a fresh instance gets them
    await waitFor(async () => (await get(ZERO)).requestedMetrics.length === 4, {
      what: `${node.name}: the subscriptions`,
      timeoutMs: 30_000,
    });
    const fresh = await get(ZERO);
    out.push({ newId: fresh.clientInstanceId !== ZERO, errorCode: fresh.errorCode });
    const ids = [
      'x4KjTkpnRmG0cNrNCbJpkw',
      'QUJDREVGR0hJSktMTU5PUA',
      'cXdlcnR5dWlvcGFzZGZnaA',
      'bW5idmN4enBvaXV5dHJlcQ',
      'WlhDVkJOTUFTREZHSEpLTA',
      'UE9JVVlUUkVXUUxLSkhHRg',
    ];
    const first = await get(ids[0]!);
    out.push(first);
    out.push({ again: (await get(ids[0]!)).errorCode });
    const payload = Buffer.from(fixture.metrics, 'base64');
    out.push({ push: (await push(ids[0]!, first.subscriptionId, fixture.compressionType, payload)).errorCode });
    out.push({ tooEarly: (await push(ids[0]!, first.subscriptionId, fixture.compressionType, payload)).errorCode });
    const s1 = (await get(ids[1]!)).subscriptionId;
    out.push({ unknownSub: (await push(ids[1]!, s1 + 1, 0, Buffer.alloc(0))).errorCode });
    const s2 = (await get(ids[2]!)).subscriptionId;
    out.push({ tooLarge: (await push(ids[2]!, s2, 0, Buffer.alloc(MAX_BYTES + 1, 1))).errorCode });
    const s3 = (await get(ids[3]!)).subscriptionId;
    out.push({ compression: (await push(ids[3]!, s3, 9, Buffer.alloc(0))).errorCode });
    // more than telemetry.max.bytes once decompressed: the exporter fails
    const s5 = (await get(ids[5]!)).subscriptionId;
    const bomb = await compress(CompressionType.Zstd, Buffer.alloc(MAX_BYTES + 1));
    out.push({ inflated: (await push(ids[5]!, s5, CompressionType.Zstd, bomb)).errorCode });
    const s4 = (await get(ids[4]!)).subscriptionId;
    out.push({ notOtlp: (await push(ids[4]!, s4, 0, Buffer.from([0x0a, 0x10, 0x01]))).errorCode });
    out.push({ zeroId: (await push(ZERO, 0, 0, Buffer.alloc(0))).errorCode });
    return out;
  } finally {
    c.close();
  }
}

test('raw exchanges as Kafka', async () => {
  const [k, t] = [await exchanges(nodes[0]!), await exchanges(nodes[1]!)];
  assert.deepEqual(t, k);
  const first = k[2] as { requestedMetrics: string[]; pushIntervalMs: number; telemetryMaxBytes: number };
  assert.equal(first.pushIntervalMs, 1000);
  assert.equal(first.telemetryMaxBytes, MAX_BYTES);
  assert.deepEqual(k.slice(3), [
    { again: 89 },
    { push: 0 },
    { tooEarly: 89 },
    { unknownSub: 117 },
    { tooLarge: 118 },
    { compression: 76 },
    { inflated: 87 },
    { notOtlp: 87 },
    { zeroId: 42 },
  ]);
});

/** ProducerPerformance's client id (the raw exchanges' instances, client id raw-test, stay until they expire). */
const PERF = { client_id: 'perf-producer-client' };

test('Java producer metrics on /metrics', async () => {
  const url = metricsUrl(tkafka.output());
  const sub = await runTkafka('client-metrics', [
    '--bootstrap-server',
    tkafka.bootstrap,
    '--alter',
    '--name',
    'java',
    '--metrics',
    'org.apache.kafka.producer.topic.record.send.total,org.apache.kafka.producer.request.latency.avg',
    '--interval',
    '1000',
    '--match',
    'client_id=perf-producer-client',
  ]);
  assert.equal(sub.code, 0, sub.err);
  // 150 records at 15/s: the producer stays connected ~10 s, pushing every second
  const producer = runKafkaTool(
    'org.apache.kafka.tools.ProducerPerformance',
    [
      '--topic',
      'tele',
      '--num-records',
      '150',
      '--throughput',
      '15',
      '--record-size',
      '100',
      '--bootstrap-server',
      tkafka.bootstrap,
      '--command-property',
      'enable.metrics.push=true',
    ],
    { timeoutMs: 120_000 },
  );
  let done = false;
  void producer.finally(() => (done = true));
  const sample = await waitFor(
    async () => {
      if (done) throw new Error(`the producer ended before its metrics were seen: ${(await producer).stderr}`);
      const s = await scrape(url);
      return s.find('org_apache_kafka_producer_topic_record_send_total', {
        client_id: 'perf-producer-client',
        topic: 'tele',
      })[0];
    },
    { what: "the producer's pushed metrics on /metrics", timeoutMs: 60_000, intervalMs: 250 },
  );
  assert.match(sample.labels.client_instance_id!, /^[A-Za-z0-9_-]{22}$/);
  const s = await scrape(url);
  assert.ok(s.find('org_apache_kafka_producer_request_latency_avg', PERF).length > 0);
  assert.equal(s.types.get('org_apache_kafka_producer_topic_record_send_total'), 'gauge');
  const r = await producer;
  assert.equal(r.exitCode, 0, r.stderr);
  // its connection closed: the instance and its series leave (Kafka's disconnect listener)
  await waitFor(
    async () => (await scrape(url)).find('org_apache_kafka_producer_topic_record_send_total', PERF).length === 0,
    {
      what: "the producer's series to leave",
      timeoutMs: 30_000,
    },
  );
});

test('librdkafka producer metrics on /metrics', async () => {
  const python = resolve(REPO_ROOT, '.cache/clients/venv/bin/python');
  const url = metricsUrl(tkafka.output());
  const created = await runTkafka('topics', ['--bootstrap-server', tkafka.bootstrap, '--create', '--topic', 'pytele']);
  assert.equal(created.code, 0, created.err);
  const sub = await runTkafka('client-metrics', [
    '--bootstrap-server',
    tkafka.bootstrap,
    '--alter',
    '--name',
    'rdkafka',
    '--metrics',
    'org.apache.kafka.producer.request.latency',
    '--interval',
    '1000',
    '--match',
    'client_id=py-telemetry',
  ]);
  assert.equal(sub.code, 0, sub.err);
  const producer = execa(
    'nice',
    ['-n', '19', python, resolve(REPO_ROOT, 'test/interop/client-telemetry/producer.py'), tkafka.bootstrap, '10'],
    { reject: false, timeout: 60_000 },
  );
  let done = false;
  void producer.finally(() => (done = true));
  const PY = { client_id: 'py-telemetry' };
  await waitFor(
    async () => {
      if (done) throw new Error(`the producer ended before its metrics were seen: ${String((await producer).stderr)}`);
      return (await scrape(url)).find('org_apache_kafka_producer_request_latency_avg', PY).length > 0;
    },
    { what: "librdkafka's pushed metrics on /metrics", timeoutMs: 60_000, intervalMs: 250 },
  );
  const r = await producer;
  assert.equal(r.exitCode, 0, String(r.stderr));
});
