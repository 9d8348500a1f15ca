// A real Prometheus server (Debian's `prometheus` 2.42, on loopback with a generated config)
// scrapes a tkafka broker every second under a bounded produce load; through Prometheus's HTTP API
// the messages-in counter matches what was produced (its last value exactly, its increase within
// one scrape interval's worth), and Produce and Fetch latency quantiles are there.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, unusedPort, type BrokerProcess } from '../helpers/broker-process.js';
import { metricsUrl } from '../helpers/metrics.js';
import { waitFor } from '../helpers/wait-for.js';
import { KafkaClient } from '../../src/client/client.js';
import { Producer } from '../../src/client/producer.js';
import { Consumer } from '../../src/client/consumer.js';
import { createTopics } from '../../src/client/admin/topics.js';

let broker: BrokerProcess;
let prometheus: ChildProcess;
let promOut = '';
let promUrl: string;
let dir: string;

before(async () => {
  broker = await startBroker({ overrides: { 'tkafka.metrics.listener': 'http://127.0.0.1:0' } });
  const target = new URL(metricsUrl(broker.output())).host;
  dir = mkdtempSync(join(tmpdir(), 'tkafka-prom-'));
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global:',
      '  scrape_interval: 1s',
      '  evaluation_interval: 1s',
      'scrape_configs:',
      '  - job_name: tkafka',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const port = await unusedPort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout!.on('data', (d: Buffer) => (promOut += d.toString()));
  prometheus.stderr!.on('data', (d: Buffer) => (promOut += d.toString()));
  // the target is scraped and up
  await waitFor(
    async () => {
      if (prometheus.exitCode !== null) throw new Error(`prometheus exited: ${promOut.slice(-2000)}`);
      const r = (await api('/api/v1/targets').catch(() => null)) as {
        activeTargets: { health: string }[];
      } | null;
      return r?.activeTargets.some((t) => t.health === 'up');
    },
    { what: 'Prometheus to scrape the broker (target up)', timeoutMs: 60_000 },
  );
});

after(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((r) => prometheus.once('exit', r));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await broker?.stop();
  broker?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function api(path: string): Promise<unknown> {
  const res = await fetch(`${promUrl}${path}`);
  const body = (await res.json()) as { status: string; data: unknown; error?: string };
  if (body.status !== 'success') throw new Error(`${path}: ${body.error}`);
  return body.data;
}

interface Vector {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(q: string): Promise<Vector[]> {
  const data = (await api(`/api/v1/query?query=${encodeURIComponent(q)}`)) as { result: Vector[] };
  return data.result;
}

test('PromQL sees the records produced and the request latencies', async () => {
  const topic = 'scraped';
  const client = new KafkaClient({ bootstrapServers: [broker.bootstrap] });
  const producer = new Producer(client, { lingerMs: 0 });
  const consumer = new Consumer(client, { autoOffsetReset: 'earliest' });
  const series = `kafka_server_brokertopicmetrics_messagesin_total{topic="${topic}"}`;
  try {
    const created = await createTopics(client, [{ name: topic, numPartitions: 2, replicationFactor: 1 }]);
    assert.ok(created.get(topic)?.ok);
    // Kafka makes a topic's meters on its first use: one record, scraped, before the load
    await producer.send({ topic, partition: 0, key: null, value: Buffer.from('first') });
    await waitFor(async () => Number((await query(series))[0]?.value[1] ?? -1) === 1, {
      what: `${series} scraped at 1`,
    });
    // the load: bounded by count (40 rounds of 50 records) and time (30 s)
    const ROUNDS = 40;
    const PER_ROUND = 50;
    const deadline = Date.now() + 30_000;
    let produced = 1;
    const startedAt = Date.now() / 1000;
    for (let round = 0; round < ROUNDS && Date.now() < deadline; round++) {
      const sends = [];
      for (let i = 0; i < PER_ROUND; i++)
        sends.push(producer.send({ topic, partition: i % 2, key: null, value: Buffer.from(`r${round}-${i}`) }));
      await Promise.all(sends);
      produced += PER_ROUND;
      // spread the load over several scrapes: wait for the next scrape every ten rounds
      if (round % 10 === 9) {
        const seen = produced;
        await waitFor(async () => Number((await query(series))[0]?.value[1] ?? -1) >= seen, {
          what: `a scrape showing ${seen} records`,
        });
      }
    }
    assert.ok(produced >= 500, `produced ${produced}`);
    consumer.assign([
      { topic, partition: 0 },
      { topic, partition: 1 },
    ]);
    let consumed = 0;
    await waitFor(
      async () => {
        consumed += (await consumer.poll(500)).length;
        return consumed === produced;
      },
      { what: 'every record consumed', timeoutMs: 60_000 },
    );
    // the counter's last scraped value is what was produced
    await waitFor(async () => Number((await query(series))[0]?.value[1] ?? -1) === produced, {
      what: `Prometheus to hold ${series} = ${produced}`,
    });
    // increase() over the whole load, within one scrape interval's worth of records (the largest
    // step between two consecutive samples)
    const endedAt = Date.now() / 1000;
    const range = (await api(
      `/api/v1/query_range?query=${encodeURIComponent(series)}&start=${startedAt - 5}&end=${endedAt}&step=1`,
    )) as { result: { values: [number, string][] }[] };
    const values = range.result[0]!.values.map(([, v]) => Number(v));
    let step = 0;
    for (let i = 1; i < values.length; i++) step = Math.max(step, values[i]! - values[i - 1]!);
    const window = Math.ceil(endedAt - startedAt) + 10;
    const [inc] = await query(`sum(increase(${series}[${window}s]))`);
    const increase = Number(inc!.value[1]);
    assert.ok(Math.abs(increase - produced) <= step, `increase ${increase} vs ${produced} (one scrape: ${step})`);
    const [rate] = await query(`sum(rate(${series}[${window}s]))`);
    assert.ok(Number(rate!.value[1]) > 0);

    // request latency quantiles for Produce and Fetch (the JMX exporter's quantile labels), once a
    // scrape after the consumption is in
    for (const request of ['Produce', 'Fetch', 'FetchConsumer']) {
      const q = await waitFor(
        async () => {
          const r = await query(`kafka_network_requestmetrics_totaltimems{request="${request}",quantile="0.99"}`);
          return r.length === 1 ? r : null;
        },
        { what: `a ${request} TotalTimeMs 0.99 quantile in Prometheus` },
      );
      assert.ok(Number(q[0]!.value[1]) >= 0);
      const [count] = await query(`kafka_network_requestmetrics_totaltimems_count{request="${request}"}`);
      assert.ok(Number(count!.value[1]) >= 1, request);
    }
  } finally {
    await consumer.close();
    await producer.close();
    client.close();
  }
});
