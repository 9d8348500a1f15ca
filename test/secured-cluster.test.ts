// A tkafka cluster where every listener is secured: one controller and two brokers, the CONTROLLER
// listener SASL_SSL with PLAIN (raft, broker registration and heartbeats, forwarding), the brokers'
// BROKER listener SASL_SSL with SCRAM-SHA-512 between brokers (replica fetchers) and for clients;
// the SCRAM users are made with `storage format --add-scram`, as Kafka's docs require for SCRAM
// between brokers. An RF=2 topic is created through a broker (forwarded to the controller), written
// with acks=all once both replicas are in the ISR (the follower must have fetched each batch), read through
// each broker, and after the leader is killed the follower leads with every record. A broker whose
// controller password is wrong never registers and logs why. Certificates are made by the test.
//
//   npm run build && node --test dist/test/secured-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCerts, type TestCerts } from './helpers/certs.js';
import { propertiesText, startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';

let certs: TestCerts;
let cluster: Cluster;
let clientProps: string;

/** Every node's security settings; `controllerPassword` / `brokerPassword` are what this node sends. */
function securedProperties(
  certs: TestCerts,
  opts: { controllerPassword?: string; brokerPassword?: string } = {},
): Record<string, string> {
  const tls = (l: string): Record<string, string> => ({
    [`listener.name.${l}.ssl.keystore.type`]: 'PEM',
    [`listener.name.${l}.ssl.keystore.location`]: certs.server.keystorePemPath,
    [`listener.name.${l}.ssl.truststore.type`]: 'PEM',
    [`listener.name.${l}.ssl.truststore.location`]: certs.ca.certPath,
  });
  return {
    'listener.security.protocol.map': 'CONTROLLER:SASL_SSL,BROKER:SASL_SSL',
    ...tls('controller'),
    ...tls('broker'),
    'sasl.mechanism.controller.protocol': 'PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.controller.plain.sasl.jaas.config': `${PLAIN_MODULE} required username="controller" password="${opts.controllerPassword ?? 'controller-secret'}" user_controller="controller-secret";`,
    'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
    'listener.name.broker.sasl.enabled.mechanisms': 'SCRAM-SHA-512',
    'listener.name.broker.scram-sha-512.sasl.jaas.config': `${SCRAM_MODULE} required username="broker" password="${opts.brokerPassword ?? 'broker-secret'}";`,
  };
}

before(async () => {
  certs = makeCerts();
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    brokerListener: 'BROKER',
    nodes: [
      {
        id: 1,
        roles: 'controller',
        formatArgs: [
          '--add-scram',
          'SCRAM-SHA-512=[name=broker,password=broker-secret]',
          '--add-scram',
          'SCRAM-SHA-512=[name=alice,password=alice-secret]',
        ],
      },
      { id: 2, roles: 'broker' },
      { id: 3, roles: 'broker' },
    ],
    overrides: securedProperties(certs),
  });
  clientProps = join(certs.dir, 'alice.properties');
  writeFileSync(
    clientProps,
    propertiesText({
      'security.protocol': 'SASL_SSL',
      'sasl.mechanism': 'SCRAM-SHA-512',
      'sasl.jaas.config': `${SCRAM_MODULE} required username="alice" password="alice-secret";`,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': certs.ca.certPath,
    }),
  );
});

after(async () => {
  await cluster?.cleanup();
  certs?.cleanup();
});

const addr = (id: number): string => `127.0.0.1:${cluster.node(id).port}`;

/** The partition line of `topics --describe` through broker `via`: leader and ISR. */
async function describe(via: number, topic: string): Promise<{ leader: number; isr: number[] } | null> {
  const r = await runTkafka('topics', [
    '--bootstrap-server',
    addr(via),
    '--command-config',
    clientProps,
    '--describe',
    '--topic',
    topic,
  ]);
  const m = /Partition: 0\s+Leader: (-?\d+)\s+Replicas: [\d,]+\s+Isr: ([\d,]*)/.exec(r.out);
  return m ? { leader: Number(m[1]), isr: m[2]!.split(',').filter(Boolean).map(Number) } : null;
}

async function consume(via: number, topic: string, n: number): Promise<string> {
  const r = await runTkafka('console-consumer', [
    '--bootstrap-server',
    addr(via),
    '--command-config',
    clientProps,
    '--topic',
    topic,
    // assigned, no group: the group coordinator's __consumer_offsets has one replica (the helper's default)
    '--partition',
    '0',
    '--offset',
    'earliest',
    '--max-messages',
    String(n),
    '--timeout-ms',
    '30000',
  ]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out.split('\n').length - 1, n, `${r.err}\n${cluster.logs(3000)}`);
  return r.out;
}

test('every listener secured: forwarding, replication with acks=all, fail-over to the follower', async () => {
  const topic = 'secured-rf2';
  const created = await runTkafka('topics', [
    '--bootstrap-server',
    addr(2),
    '--command-config',
    clientProps,
    '--create',
    '--topic',
    topic,
    '--partitions',
    '1',
    '--replication-factor',
    '2',
  ]);
  assert.equal(created.code, 0, created.out + created.err + cluster.logs());
  // both replicas in the ISR: the follower fetched over the SCRAM-SHA-512 inter-broker listener
  await waitFor(async () => (await describe(3, topic))?.isr.length === 2, {
    what: 'the ISR of secured-rf2 to hold both brokers',
    timeoutMs: 30_000,
  }).catch((e: Error) => assert.fail(`${e.message}\n${cluster.logs()}`));

  const lines = Array.from({ length: 20 }, (_, i) => `record-${i}`);
  const produced = await runTkafka(
    'console-producer',
    [
      '--bootstrap-server',
      addr(3),
      '--command-config',
      clientProps,
      '--topic',
      topic,
      '--request-required-acks',
      'all',
    ],
    {},
    lines.join('\n') + '\n',
  );
  assert.equal(produced.code, 0, produced.out + produced.err);
  const expected = lines.join('\n') + '\n';
  assert.equal(await consume(2, topic, lines.length), expected);
  assert.equal(await consume(3, topic, lines.length), expected);

  const before = await describe(2, topic);
  assert.ok(before && (before.leader === 2 || before.leader === 3), JSON.stringify(before));
  const survivor = before.leader === 2 ? 3 : 2;
  await cluster.node(before.leader).kill();
  // the controller fences the dead broker once its heartbeats stop: the follower leads
  await waitFor(async () => (await describe(survivor, topic))?.leader === survivor, {
    what: `broker ${survivor} to lead secured-rf2`,
    timeoutMs: 60_000,
  });
  assert.equal(await consume(survivor, topic, lines.length), expected);
});

test('a broker with a wrong controller password never registers, and says why', async () => {
  const started = await startCluster({
    launcher: tkafkaLauncher,
    brokerListener: 'BROKER',
    nodes: [{ id: 4, roles: 'broker' }],
    overrides: securedProperties(certs, { controllerPassword: 'not-the-password' }),
    external: {
      clusterId: cluster.clusterId,
      quorum: 'static',
      controllers: [{ id: 1, port: cluster.node(1).controllerPort }],
    },
    startTimeoutMs: 15_000,
  }).then(
    async (c) => {
      await c.cleanup();
      return null;
    },
    (e: Error) => e.message,
  );
  assert.ok(started !== null, 'the broker must not start serving');
  // PlainSaslServer's message, from the controller's SASL_SSL listener to the broker's raft fetches
  assert.match(started, /Raft fetch failed: Authentication failed: Invalid username or password/);
  // the controller knows brokers 2 and 3 (registered before), never 4
  const versions = await runTkafka('broker-api-versions', [
    '--bootstrap-server',
    cluster.bootstrap(),
    '--command-config',
    clientProps,
  ]);
  assert.equal(versions.code, 0, versions.err);
  assert.match(versions.out, /\(id: \d+ rack: /);
  assert.doesNotMatch(versions.out, /\(id: 4 rack: /);
});
