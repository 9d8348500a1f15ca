// Client telemetry on a broker-only node (broker-server.ts) of a cluster with a separate controller:
// a client-metrics subscription made with `tkafka client-metrics` through the broker (forwarded to
// the controller, which validates it) reaches GetTelemetrySubscriptions and PushTelemetry there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { withRawClient } from './helpers/raw-client.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/frame.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const BROKER = 2;
let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: BROKER, roles: 'broker' },
    ],
    brokerOverrides: { 'tkafka.client.telemetry.enable': true },
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('broker-only node', async () => {
  const B = ['--bootstrap-server', cluster.bootstrap()];
  const refused = await runTkafka('client-metrics', [...B, '--alter', '--name', 'bad', '--match', 'nope=x']);
  assert.deepEqual(
    [refused.code, refused.out],
    [1, 'Error while executing client metrics command : Illegal client matching pattern: nope=x\n'],
  );
  const alter = await runTkafka('client-metrics', [
    ...B,
    '--alter',
    '--name',
    's',
    '--metrics',
    'm.',
    '--interval',
    '500',
  ]);
  assert.equal(alter.code, 0, alter.err);
  const port = cluster.node(BROKER).port;
  await withRawClient(port, async (c) => {
    const versions = await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
    assert.deepEqual(
      versions.apiKeys.filter((a) => a.apiKey === 71 || a.apiKey === 72).map((a) => a.apiKey),
      [71, 72],
    );
    // the broker applies the controller's records: wait until a fresh instance gets the subscription
    const got = await waitFor(
      async () => {
        const r = await c.request(ApiKey.GetTelemetrySubscriptions, 0, { clientInstanceId: ZERO });
        return r.requestedMetrics.length === 1 ? r : undefined;
      },
      { what: 'the subscription on the broker', timeoutMs: 30_000 },
    );
    assert.deepEqual([got.requestedMetrics, got.pushIntervalMs], [['m.'], 500]);
    const push = await c.request(ApiKey.PushTelemetry, 0, {
      clientInstanceId: got.clientInstanceId,
      subscriptionId: got.subscriptionId,
      terminating: false,
      compressionType: 0,
      metrics: Buffer.alloc(0),
    });
    assert.equal(push.errorCode, 0);
  });
});
