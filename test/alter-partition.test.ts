// AlterPartition (API 56) on a real tkafka node's controller listener: the forged-leader scenario of
// test/helpers/alter-partition-scenario.ts (refusals with Kafka's error codes, shrink / no-op /
// expand with the resulting leader, epochs, ISR and recovery state, a fenced member refused);
// test/interop/alter-partition.test.ts runs it on Apache Kafka 4.4.0 as well. ApiVersions on the
// controller listener lists AlterPartition 2-3; the broker listener does not.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { alterPartitionScenario, EXPECTED_ALTER_PARTITION_TRANSCRIPT } from './helpers/alter-partition-scenario.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

let node: BrokerProcess | null = null;
after(async () => {
  await node?.stop();
  node?.cleanup();
});

test('AlterPartition: Kafka 4.4.0 validation and ISR changes on a tkafka controller', async () => {
  node = await startBroker({ overrides: { 'broker.session.timeout.ms': 30_000 } });
  const started = node;
  const transcript = await alterPartitionScenario({ port: node.port, controllerPort: node.controllerPort }).catch(
    (e: Error) => {
      throw new Error(`${e.message}\nthe node's log:\n${started.output().slice(-6000)}`);
    },
  );
  console.log(transcript.join('\n'));
  assert.deepEqual(transcript, EXPECTED_ALTER_PARTITION_TRANSCRIPT);
});

test('AlterPartition is listed (v2-3) on the controller listener only', async () => {
  assert.ok(node, 'the node of the previous test');
  for (const [port, expected] of [
    [node.controllerPort, '2-3'],
    [node.port, undefined],
  ] as const) {
    const c = await RawClient.connect(port);
    try {
      const av = await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
      const k = av.apiKeys.find((a) => a.apiKey === ApiKey.AlterPartition);
      assert.equal(k ? `${k.minVersion}-${k.maxVersion}` : undefined, expected);
    } finally {
      c.close();
    }
  }
});
