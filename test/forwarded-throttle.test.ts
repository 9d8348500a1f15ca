// A throttle the active controller applies to a forwarded request (controller_mutation_rate here)
// reaches the client through the broker-only node that forwarded it, as Kafka's
// RequestHandlerHelper.sendForwardedResponse does: the response carries the controller's
// throttle_time_ms and the client's connection to the broker is muted for that time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { runTkafka } from './helpers/tool-run.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'broker' },
    ],
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('controller_mutation_rate through a broker-only node: throttle_time_ms from the controller, the connection muted on the broker', async () => {
  // RawClient's client id is raw-test: 1 partition mutation per second, a burst of 11 (quota.window.num)
  const set = await runTkafka('configs', [
    '--bootstrap-server',
    cluster.bootstrap(),
    '--alter',
    '--entity-type',
    'clients',
    '--entity-name',
    'raw-test',
    '--add-config',
    'controller_mutation_rate=1',
  ]);
  assert.equal(set.code, 0, set.err);
  const client = await RawClient.connect(cluster.node(2).port);
  try {
    // CreateTopics v5 (not strict): over the rate the topic is created and the client only throttled;
    // the quota reaches the controller's image after the alter, so create (bounded) until throttled
    let throttled = 0;
    for (let i = 0; i < 20 && throttled === 0; i++) {
      const r = await client.request(ApiKey.CreateTopics, 5, {
        topics: [{ name: `ft-${i}`, numPartitions: 13, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 10_000,
        validateOnly: false,
      });
      assert.equal(r.topics[0]!.errorCode, ErrorCode.NONE);
      throttled = r.throttleTimeMs;
    }
    assert.ok(throttled > 0, 'the forwarded response carries the controller throttle');
    const t0 = performance.now();
    await client.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    const waited = performance.now() - t0;
    assert.ok(
      waited >= throttled / 2,
      `the next request answered after ${waited.toFixed(0)} ms, throttle ${throttled} ms`,
    );
  } finally {
    client.close();
  }
});
