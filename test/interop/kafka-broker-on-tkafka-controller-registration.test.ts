// The registration RPCs as a broker sends them, forged, against Apache Kafka 4.4.0 and against
// tkafka: the same scenario (register, heartbeat until unfenced, session expiry → fenced by the
// controller, back, controlled shutdown of a broker leading a partition, controller registration)
// must give the same answers on both. The fencing delay after the last heartbeat is printed for both.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { EXPECTED_TRANSCRIPT, membershipScenario } from '../helpers/membership-scenario.js';

const SESSION_TIMEOUT_MS = 3000;
let kafka: ApacheKafka | null = null;
let tk: BrokerProcess | null = null;
after(async () => {
  await kafka?.cleanup();
  await tk?.stop();
  tk?.cleanup();
});

test('BrokerRegistration / BrokerHeartbeat / ControllerRegistration: Apache Kafka 4.4.0 and tkafka answer alike', async () => {
  kafka = await startApacheKafka({
    overrides: { 'broker.session.timeout.ms': SESSION_TIMEOUT_MS, 'broker.heartbeat.interval.ms': 500 },
  });
  const onKafka = await membershipScenario({
    port: kafka.port,
    controllerPort: kafka.controllerPort,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
  });
  await kafka.cleanup();
  kafka = null;
  tk = await startBroker({ overrides: { 'broker.session.timeout.ms': SESSION_TIMEOUT_MS } });
  const onTkafka = await membershipScenario({
    port: tk.port,
    controllerPort: tk.controllerPort,
    sessionTimeoutMs: SESSION_TIMEOUT_MS,
  });
  console.log(
    `fenced after the last heartbeat (broker.session.timeout.ms=${SESSION_TIMEOUT_MS}): Apache Kafka ${onKafka.fencedAfterMs} ms, tkafka ${onTkafka.fencedAfterMs} ms`,
  );
  console.log(onKafka.transcript.join('\n'));
  assert.deepEqual(onTkafka.transcript, onKafka.transcript);
  assert.deepEqual(onKafka.transcript, EXPECTED_TRANSCRIPT);
});
