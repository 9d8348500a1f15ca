// The ACL checks of the group, offset, coordinator and transaction APIs answer as Kafka 4.4.0's
// KafkaApis does: the same raw requests of a SASL PLAIN user who is no super user (bob) against an
// Apache Kafka 4.4.0 node and a tkafka node, both with the StandardAuthorizer, give the same codes,
// first without any ACL for bob, then once ACLs grant him READ/DELETE on group g1, READ/WRITE on topic
// gt and WRITE on transactional id tx1 (see test/helpers/acl-groups-scenario.ts). Then Kafka's own
// console consumer, run as bob on a group he may not read, fails with the same
// GroupAuthorizationException on both. Last, OffsetCommit/OffsetFetch v10 (topic ids) and the
// consumer group protocol: ConsumerGroupDescribe's authorized operations, and the
// TOPIC_AUTHORIZATION_FAILED of ConsumerGroupDescribe and ConsumerGroupHeartbeat once bob may no
// longer DESCRIBE his assigned topic.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, boundPorts, type BrokerProcess } from '../helpers/broker-process.js';
import {
  ALLOWED,
  CLUSTER_WIDE,
  AUTHZ,
  CONSUMER_GROUP,
  DENIED,
  JAAS,
  PLAIN_MODULE,
  TKAFKA_SASL,
  assertSubset,
  clusterScenario,
  consumerGroupScenario,
  grant,
  prepare,
  scenario,
} from '../helpers/acl-groups-scenario.js';

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
let dir: string;
let ports: [string, number][];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-acl-groups-'));
  kafka = await startApacheKafka({
    extraListeners: { SASL: 'SASL_PLAINTEXT' },
    overrides: {
      ...AUTHZ,
      'listener.name.sasl.sasl.enabled.mechanisms': 'PLAIN',
      'listener.name.sasl.plain.sasl.jaas.config': JAAS,
    },
  });
  tkafka = await startBroker({ overrides: TKAFKA_SASL });
  ports = [
    ['Kafka 4.4.0', kafka.listenerPorts['SASL']!],
    ['tkafka', boundPorts(tkafka.output(), ['PLAINTEXT', 'CONTROLLER', 'SASL'])!.get('SASL')!],
  ];
  for (const [, port] of ports) await prepare(port);
});

after(async () => {
  await kafka?.cleanup();
  await tkafka?.stop();
  tkafka?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('group, offset, coordinator and transaction APIs check ACLs as Kafka 4.4.0 does', async () => {
  const [[, kPort], [, tPort]] = ports as [[string, number], [string, number]];
  const kDenied = await scenario(kPort);
  const tDenied = await scenario(tPort);
  assert.deepEqual(tDenied, kDenied);
  assertSubset(kDenied, DENIED, 'Kafka, no ACLs');
  await grant(kPort);
  await grant(tPort);
  const kAllowed = await scenario(kPort);
  const tAllowed = await scenario(tPort);
  assert.deepEqual(tAllowed, kAllowed);
  assertSubset(kAllowed, ALLOWED, 'Kafka, with ACLs');
});

test("Kafka's console consumer gets the same GroupAuthorizationException from both", async () => {
  const config = join(dir, 'bob.properties');
  writeFileSync(
    config,
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=PLAIN',
      `sasl.jaas.config=${PLAIN_MODULE} required username="bob" password="bob-secret";`,
      '',
    ].join('\n'),
  );
  const errors: string[] = [];
  for (const [, port] of ports) {
    const r = await kafka.runTool('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server',
      `127.0.0.1:${port}`,
      '--command-config',
      config,
      '--topic',
      'gt',
      '--group',
      'g2',
      '--from-beginning',
      '--timeout-ms',
      '20000',
    ]);
    // (ConsoleConsumer logs the exception and exits with 0)
    const line = /org\.apache\.kafka\.common\.errors\.GroupAuthorizationException: [^\n]*/.exec(r.stdout + r.stderr);
    assert.ok(line, r.stdout + r.stderr);
    errors.push(line[0]);
  }
  assert.equal(errors[1], errors[0]);
  assert.equal(
    errors[0],
    'org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group: g2',
  );
});

test('topic ids and the consumer group protocol under ACLs answer as on Kafka 4.4.0', async () => {
  const [[, kPort], [, tPort]] = ports as [[string, number], [string, number]];
  const k = await consumerGroupScenario(kPort);
  const t = await consumerGroupScenario(tPort);
  assert.deepEqual(t, k);
  assertSubset(k, CONSUMER_GROUP, 'Kafka');
});

test('with DESCRIBE and CLUSTER_ACTION on the cluster, as on Kafka 4.4.0', async () => {
  const [[, kPort], [, tPort]] = ports as [[string, number], [string, number]];
  const k = await clusterScenario(kPort);
  const t = await clusterScenario(tPort);
  assert.deepEqual(t, k);
  assertSubset(k, CLUSTER_WIDE, 'Kafka');
});
