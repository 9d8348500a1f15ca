// The Prometheus endpoint (tkafka.metrics.listener) of a real `tkafka server start` process: what
// GET /metrics serves after the project's client produced to and fetched from two topics, and the
// listener values start-up refuses.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { metricsUrl, scrape, type Scrape } from './helpers/metrics.js';
import { waitFor } from './helpers/wait-for.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { KafkaClient } from '../src/client/client.js';
import { Producer } from '../src/client/producer.js';
import { Consumer } from '../src/client/consumer.js';
import { createTopics } from '../src/client/admin/topics.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/frame.js';

let broker: BrokerProcess;
let url: string;

before(async () => {
  broker = await startBroker({ overrides: { 'tkafka.metrics.listener': 'http://127.0.0.1:0' } });
  url = metricsUrl(broker.output());
});
after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

test('coordinator partition load times once __consumer_offsets and __transaction_state load', async () => {
  const before = await scrape(url);
  for (const g of ['group', 'transaction'])
    assert.ok(Number.isNaN(before.value(`kafka_server_${g}coordinatormetrics_partition_load_time_max`)), `${g}: NaN`);
  const c = await RawClient.connect(broker.port);
  try {
    // FindCoordinator creates the internal topic; the answer is NONE once its partition has loaded
    for (const keyType of [0, 1])
      await waitFor(
        async () => {
          const r = await c.request(ApiKey.FindCoordinator, 4, { key: '', keyType, coordinatorKeys: ['load-me'] });
          return r.coordinators[0]?.errorCode === 0;
        },
        { what: `the coordinator of key type ${keyType}`, timeoutMs: 30_000 },
      );
  } finally {
    c.close();
  }
  const m = await scrape(url);
  for (const g of ['group', 'transaction'])
    for (const stat of ['avg', 'max']) {
      const v = m.value(`kafka_server_${g}coordinatormetrics_partition_load_time_${stat}`);
      assert.ok(v !== undefined && v >= 0, `${g} ${stat}: ${v}`);
    }
});

test('serves process metrics; 404 elsewhere', async () => {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const m = await scrape(url);
  assert.ok((m.value('process_cpu_user_seconds_total') ?? -1) >= 0);
  assert.ok((m.value('nodejs_heap_size_used_bytes') ?? 0) > 0);
  assert.equal((await fetch(url.replace('/metrics', '/'))).status, 404);
  assert.equal((await fetch(url.replace('/metrics', '/metricsx'))).status, 404);
  assert.equal((await fetch(url, { method: 'POST' })).status, 404);
});

const QUANTILES = ['0.50', '0.75', '0.95', '0.98', '0.99', '0.999'];

/** A histogram's quantile series and its _count, as the JMX exporter renders a Kafka histogram. */
function histogram(m: Scrape, name: string, request: string): number {
  for (const quantile of QUANTILES) {
    const v = m.value(name, { request, quantile });
    assert.ok(v !== undefined && v >= 0, `${name}{request="${request}",quantile="${quantile}"}`);
  }
  assert.equal(m.types.get(name), 'gauge');
  assert.equal(m.types.get(`${name}_count`), 'counter');
  return m.value(`${name}_count`, { request }) ?? 0;
}

test('counts what the project client produced and fetched', async () => {
  const client = new KafkaClient({ bootstrapServers: [broker.bootstrap] });
  const producer = new Producer(client, { lingerMs: 0 });
  const consumer = new Consumer(client, { autoOffsetReset: 'earliest' });
  const topics = { 'm-one': 3, 'm-two': 1 } as Record<string, number>;
  const counts = { 'm-one': 120, 'm-two': 45 } as Record<string, number>;
  try {
    const created = await createTopics(client, [
      { name: 'm-one', numPartitions: 3, replicationFactor: 1 },
      { name: 'm-two', numPartitions: 1, replicationFactor: 1 },
    ]);
    for (const [name, o] of created) assert.ok(o.ok, `create ${name}`);
    const bytes: Record<string, number> = { 'm-one': 0, 'm-two': 0 };
    for (const [topic, n] of Object.entries(counts)) {
      const sends = [];
      for (let i = 0; i < n; i++) {
        const value = Buffer.from(`${topic}-${i}-${'x'.repeat(i % 17)}`);
        bytes[topic]! += value.length;
        sends.push(producer.send({ topic, partition: i % topics[topic]!, key: null, value }));
      }
      await Promise.all(sends);
    }
    consumer.assign(
      Object.entries(topics).flatMap(([topic, n]) =>
        Array.from({ length: n }, (_, partition) => ({ topic, partition })),
      ),
    );
    const seen: Record<string, number> = { 'm-one': 0, 'm-two': 0 };
    await waitFor(
      async () => {
        for (const r of await consumer.poll(500)) seen[r.topic]!++;
        return seen['m-one'] === counts['m-one'] && seen['m-two'] === counts['m-two'];
      },
      { what: 'every record consumed', timeoutMs: 60_000 },
    );
    // nothing more to read: the next fetch waits in the fetch purgatory (its RemoteTimeMs)
    assert.deepEqual(await consumer.poll(1000), []);

    const m = await scrape(url);
    // BrokerTopicMetrics per topic and for all topics (no topic label)
    for (const topic of Object.keys(counts)) {
      assert.equal(m.value('kafka_server_brokertopicmetrics_messagesin_total', { topic }), counts[topic], topic);
      const bytesIn = m.value('kafka_server_brokertopicmetrics_bytesin_total', { topic }) ?? 0;
      assert.ok(bytesIn > bytes[topic]!, `${topic} bytes in ${bytesIn} > value bytes ${bytes[topic]}`);
      const bytesOut = m.value('kafka_server_brokertopicmetrics_bytesout_total', { topic }) ?? 0;
      assert.ok(bytesOut >= bytesIn, `${topic}: every byte appended was fetched (${bytesOut} >= ${bytesIn})`);
      assert.ok((m.value('kafka_server_brokertopicmetrics_totalproducerequests_total', { topic }) ?? 0) >= 1);
      assert.ok((m.value('kafka_server_brokertopicmetrics_totalfetchrequests_total', { topic }) ?? 0) >= 1);
      assert.equal(m.value('kafka_server_brokertopicmetrics_failedproducerequests_total', { topic }), 0);
      assert.equal(m.value('kafka_server_brokertopicmetrics_failedfetchrequests_total', { topic }), 0);
      assert.equal(m.value('kafka_server_brokertopicmetrics_producemessageconversions_total', { topic }), 0);
      assert.equal(m.value('kafka_server_brokertopicmetrics_bytesrejected_total', { topic }), 0);
    }
    const conns = { listener: 'PLAINTEXT', networkProcessor: '0' };
    assert.ok((m.value('kafka_server_socket_server_metrics_connection_count', conns) ?? 0) >= 1);
    const allIn = m.value('kafka_server_brokertopicmetrics_messagesin_total') ?? 0;
    assert.ok(allIn >= counts['m-one']! + counts['m-two']!, `all topics ${allIn}`);
    assert.equal(m.types.get('kafka_server_brokertopicmetrics_messagesin_total'), 'counter');

    // RequestMetrics: counts by version, errors, the latency breakdown per API
    const produceRequests = m
      .find('kafka_network_requestmetrics_requests_total', { request: 'Produce' })
      .reduce((n, s) => n + s.value, 0);
    assert.ok(produceRequests >= 1);
    assert.ok(
      m
        .find('kafka_network_requestmetrics_requests_total', { request: 'Produce' })
        .every((s) => /^\d+$/.test(s.labels.version ?? '')),
    );
    for (const h of [
      'requestqueuetimems',
      'localtimems',
      'remotetimems',
      'responsequeuetimems',
      'responsesendtimems',
      'totaltimems',
      'throttletimems',
      'requestbytes',
    ]) {
      assert.equal(histogram(m, `kafka_network_requestmetrics_${h}`, 'Produce'), produceRequests, h);
      const fetches = histogram(m, `kafka_network_requestmetrics_${h}`, 'Fetch');
      assert.equal(histogram(m, `kafka_network_requestmetrics_${h}`, 'FetchConsumer'), fetches, `${h} FetchConsumer`);
    }
    assert.ok(
      (m.value('kafka_network_requestmetrics_errors_total', { request: 'Produce', error: 'NONE' }) ?? 0) >=
        produceRequests,
    );
    // a consumer fetch that waited for data spent it in the fetch purgatory (RemoteTimeMs)
    assert.ok(
      (m.value('kafka_network_requestmetrics_remotetimems', { request: 'FetchConsumer', quantile: '0.999' }) ?? 0) > 0,
    );

    // log gauges: end offsets sum to what was produced
    for (const topic of Object.keys(counts)) {
      const leo = m.find('kafka_log_log_logendoffset', { topic });
      assert.equal(leo.length, topics[topic]);
      assert.equal(
        leo.reduce((n, s) => n + s.value, 0),
        counts[topic],
      );
      assert.ok(m.find('kafka_log_log_size', { topic }).every((s) => s.value > 0));
      assert.ok(m.find('kafka_log_log_numlogsegments', { topic }).every((s) => s.value === 1));
      assert.ok(m.find('kafka_log_log_logstartoffset', { topic }).every((s) => s.value === 0));
    }
  } finally {
    await consumer.close();
    await producer.close();
    client.close();
  }
  const m = await scrape(url);
  // ReplicaManager, KafkaController, raft, socket server gauges of the single combined node
  const partitions = m.value('kafka_server_replicamanager_partitioncount') ?? 0;
  assert.ok(partitions >= 4, `partitions ${partitions}`);
  assert.equal(m.value('kafka_server_replicamanager_leadercount'), partitions);
  for (const g of ['underreplicatedpartitions', 'underminisrpartitioncount', 'offlinereplicacount'])
    assert.equal(m.value(`kafka_server_replicamanager_${g}`), 0, g);
  assert.equal(m.value('kafka_server_replicamanager_atminisrpartitioncount'), partitions);
  assert.equal(m.value('kafka_server_replicamanager_isrshrinks_total'), 0);
  assert.equal(m.value('kafka_cluster_partition_replicascount', { topic: 'm-one', partition: '2' }), 1);
  assert.equal(m.value('kafka_controller_kafkacontroller_activecontrollercount'), 1);
  assert.ok((m.value('kafka_controller_kafkacontroller_globaltopiccount') ?? 0) >= 2);
  assert.equal(m.value('kafka_controller_kafkacontroller_globalpartitioncount'), partitions);
  assert.equal(m.value('kafka_controller_kafkacontroller_offlinepartitionscount'), 0);
  assert.equal(m.value('kafka_controller_kafkacontroller_activebrokercount'), 1);
  assert.equal(m.value('kafka_controller_kafkacontroller_fencedbrokercount'), 0);
  assert.equal(m.value('kafka_server_raftmetrics_current_leader'), 1);
  assert.equal(m.value('kafka_server_raftmetrics_current_state', { current_state: 'leader' }), 1);
  assert.ok((m.value('kafka_server_raftmetrics_high_watermark') ?? 0) > 0);
  // the topics' records were appended and committed by this leader
  assert.ok((m.value('kafka_server_raftmetrics_commit_latency_avg') ?? -1) >= 0);
  assert.ok((m.value('kafka_server_raftmetrics_append_records_rate') ?? 0) > 0);
  // no quota: no throttle
  assert.equal(m.value('kafka_network_requestmetrics_throttletimems', { request: 'Produce', quantile: '0.999' }), 0);
  for (const op of ['Produce', 'Fetch'])
    assert.equal(m.value('kafka_server_delayedoperationpurgatory_purgatorysize', { delayedOperation: op }), 0, op);
  assert.equal(m.value('kafka_network_requestchannel_requestqueuesize'), 0);
  const idle = m.value('kafka_network_socketserver_networkprocessoravgidlepercent') ?? -1;
  assert.ok(idle >= 0 && idle <= 1, `idle ${idle}`);
  // the client's connections closed (the scrape is HTTP, not a Kafka connection)
  await waitFor(
    async () =>
      (await scrape(url)).value('kafka_server_socket_server_metrics_connection_count', {
        listener: 'PLAINTEXT',
        networkProcessor: '0',
      }) === 0,
    { what: 'no connection left on PLAINTEXT' },
  );
  assert.ok((m.value('kafka_coordinator_group_groupmetadatamanager_numgroups') ?? -1) >= 0);
});

interface Dashboard {
  dashboard: string;
  source: { url: string };
  queries: { expr: string }[];
  metrics: { name: string; notOnBroker?: string; strimziRule?: string }[];
}

test('every metric of the Strimzi Kafka dashboard has a series', async () => {
  const d = JSON.parse(
    readFileSync(join(REPO_ROOT, 'test', 'data', 'grafana-kafka-dashboard.json'), 'utf8'),
  ) as Dashboard;
  assert.equal(d.dashboard, 'Strimzi Kafka');
  // every name the queries use is listed
  for (const q of d.queries)
    for (const [, name] of q.expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{/g))
      assert.ok(
        d.metrics.some((m) => m.name === name),
        `${name} of ${q.expr}`,
      );
  // a topic with data, so the per-topic and per-partition series exist
  const client = new KafkaClient({ bootstrapServers: [broker.bootstrap] });
  const producer = new Producer(client, { lingerMs: 0 });
  try {
    const created = await createTopics(client, [{ name: 'm-dash', numPartitions: 1, replicationFactor: 1 }]);
    assert.ok(created.get('m-dash')?.ok);
    await producer.send({ topic: 'm-dash', partition: 0, key: null, value: Buffer.from('v') });
  } finally {
    await producer.close();
    client.close();
  }
  const m = await scrape(url);
  const served = d.metrics.filter((x) => x.notOnBroker === undefined);
  assert.ok(served.length >= 20);
  for (const { name } of served) assert.ok(m.find(name).length > 0, `${name} has no series`);
  // the dashboard's per-topic panels select topic!=""
  for (const { name } of served.filter((x) => x.name.startsWith('kafka_server_brokertopicmetrics_')))
    assert.ok(m.find(name, { topic: 'm-dash' }).length === 1, `${name}{topic="m-dash"}`);
  assert.equal(m.value('kafka_log_log_size', { topic: 'm-dash', partition: '0' }) !== undefined, true);
});

test('docs/metrics.md lists every kafka_* family served', async () => {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'metrics.md'), 'utf8');
  const documented = new Set([...doc.matchAll(/`(kafka_[a-z0-9_]+)/g)].map((m) => m[1]!));
  const m = await scrape(url);
  const served = [...m.types.keys()].filter((n) => n.startsWith('kafka_'));
  assert.ok(served.length >= 60, `${served.length} families`);
  // a histogram's _count family is documented with its quantile family
  const missing = served.filter((n) => !documented.has(n) && !documented.has(n.replace(/_count$/, '')));
  assert.deepEqual(missing, []);
});

/** Starts a broker that must not start; its output. */
async function refused(listener: string): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tkafka-metrics-'));
  try {
    await startBroker({ dataDir, overrides: { 'tkafka.metrics.listener': listener } });
  } catch (e) {
    return (e as Error).message;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  assert.fail(`the broker started with tkafka.metrics.listener=${listener}`);
}

test('start-up refuses listeners it cannot honour', async () => {
  assert.match(
    await refused('https://127.0.0.1:9404'),
    /Invalid value https:\/\/127\.0\.0\.1:9404 for configuration tkafka\.metrics\.listener: expected http:/,
  );
  assert.match(await refused('http://127.0.0.1'), /Invalid value http:\/\/127\.0\.0\.1 for configuration/);
  assert.match(await refused('http://metrics.example.com:9404'), /the host must be an IP address or localhost/);
  assert.match(await refused('http://127.0.0.1:70000'), /port 70000 is out of range/);
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  const port = (taken.address() as { port: number }).port;
  try {
    assert.match(
      await refused(`http://127.0.0.1:${port}`),
      new RegExp(
        `Fatal error during startup: tkafka\\.metrics\\.listener: cannot listen on http://127\\.0\\.0\\.1:${port}: the address is already in use`,
      ),
    );
  } finally {
    taken.close();
  }
});
