// AlterPartition (API 56) forged as a partition leader sends it, against Apache Kafka 4.4.0's
// controller and against tkafka's: the scenario of test/helpers/alter-partition-scenario.ts
// (refusals, shrink / no-op / expand, a fenced member) must give the same error codes, leaders,
// epochs, ISRs and recovery states on both.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { alterPartitionScenario, EXPECTED_ALTER_PARTITION_TRANSCRIPT } from '../helpers/alter-partition-scenario.js';

let kafka: ApacheKafka | null = null;
let tk: BrokerProcess | null = null;
after(async () => {
  await kafka?.cleanup();
  await tk?.stop();
  tk?.cleanup();
});

test('AlterPartition: Apache Kafka 4.4.0 and tkafka controllers answer alike', async () => {
  kafka = await startApacheKafka({ overrides: { 'broker.session.timeout.ms': 30_000 } });
  const onKafka = await alterPartitionScenario({ port: kafka.port, controllerPort: kafka.controllerPort });
  await kafka.cleanup();
  kafka = null;
  tk = await startBroker({ overrides: { 'broker.session.timeout.ms': 30_000 } });
  const onTkafka = await alterPartitionScenario({ port: tk.port, controllerPort: tk.controllerPort });
  console.log(onKafka.join('\n'));
  assert.deepEqual(onTkafka, onKafka);
  assert.deepEqual(onKafka, EXPECTED_ALTER_PARTITION_TRANSCRIPT);
});
