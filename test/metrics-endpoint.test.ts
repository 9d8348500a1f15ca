// The Prometheus endpoint (tkafka.metrics.listener) of a real `tkafka server start` process: what
// GET /metrics serves after the project's client produced to and fetched from two topics, and the
// listener values start-up refuses.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { metricsUrl, scrape } from './helpers/metrics.js';

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
