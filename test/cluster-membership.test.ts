// The controller side of cluster membership on a real tkafka node: a broker made of forged
// BrokerRegistration / BrokerHeartbeat requests registers, is unfenced once caught up, is fenced by
// the controller's own timer when its session expires, comes back, and shuts down in a controlled
// way (its partition's leadership moved away first). test/interop/kafka-broker-on-tkafka-controller
// runs the same scenario on Apache Kafka 4.4.0 and checks that the answers are the same.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { EXPECTED_TRANSCRIPT, membershipScenario } from './helpers/membership-scenario.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

const SESSION_TIMEOUT_MS = 3000;
let node: BrokerProcess | null = null;
after(async () => {
  await node?.stop();
  node?.cleanup();
});

test('a forged broker registers, heartbeats, is fenced on session expiry and shuts down in a controlled way', async () => {
  node = await startBroker({ overrides: { 'broker.session.timeout.ms': SESSION_TIMEOUT_MS } });
  const started = node;
  const r = await membershipScenario({
    port: node.port,
    controllerPort: node.controllerPort,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
  }).catch((e: Error) => {
    throw new Error(`${e.message}\nthe node's log:\n${started.output().slice(-6000)}`);
  });
  console.log(
    `tkafka: fenced ${r.fencedAfterMs} ms after the last heartbeat (broker.session.timeout.ms=${SESSION_TIMEOUT_MS})`,
  );
  console.log(r.transcript.join('\n'));
  assert.deepEqual(r.transcript, EXPECTED_TRANSCRIPT);
  // the node's own broker (combined mode) is untouched: still registered and unfenced
  const c = await RawClient.connect(node.port);
  try {
    const d = await c.request(ApiKey.DescribeCluster, 2, {
      includeClusterAuthorizedOperations: false,
      endpointType: 1,
      includeFencedBrokers: true,
    });
    assert.equal(d.brokers.find((b) => b.brokerId === 1)?.isFenced, false);
  } finally {
    c.close();
  }
});

test('the registration APIs are served on the controller listener only', async () => {
  assert.ok(node, 'the node of the previous test');
  const ctl = await RawClient.connect(node.controllerPort);
  const brk = await RawClient.connect(node.port);
  try {
    const versions = async (c: RawClient) =>
      new Map(
        (await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' })).apiKeys.map(
          (a) => [a.apiKey, `${a.minVersion}-${a.maxVersion}`],
        ),
      );
    const onCtl = await versions(ctl);
    const onBrk = await versions(brk);
    assert.equal(onCtl.get(ApiKey.BrokerRegistration), '0-4');
    assert.equal(onCtl.get(ApiKey.BrokerHeartbeat), '0-2');
    assert.equal(onCtl.get(ApiKey.ControllerRegistration), '0-0');
    for (const k of [ApiKey.BrokerRegistration, ApiKey.BrokerHeartbeat, ApiKey.ControllerRegistration])
      assert.equal(onBrk.get(k), undefined);
  } finally {
    ctl.close();
    brk.close();
  }
});
