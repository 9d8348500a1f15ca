// A tkafka cluster where every listener is secured: one controller and two brokers, the CONTROLLER
// listener SASL_SSL with PLAIN (raft, broker registration and heartbeats, forwarding), the brokers'
// BROKER listener SASL_SSL with SCRAM-SHA-512 between brokers (replica fetchers) and for clients;
// the SCRAM users are made with `storage format --add-scram`, as Kafka's docs require for SCRAM
// between brokers (helpers/secured-nodes.ts). An RF=2 topic is created through a broker (forwarded to
// the controller), written with acks=all once both replicas are in the ISR (the follower must have
// fetched each batch), read through each broker, and after the leader is killed the follower leads
// with every record. A broker whose controller password is wrong never registers and logs why; one
// whose inter-broker password is wrong registers (as on Kafka) but its replica fetcher logs the refusal.
// An SSL controller listener with ssl.client.auth=required takes the brokers' key stores as client
// certificates (mTLS between nodes); a broker without one is refused.
// Certificates are made by the test.
//
//   npm run build && node --test dist/test/secured-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { makeCerts, type TestCerts } from './helpers/certs.js';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import {
  aliceClientProperties,
  consumeAssigned,
  describePartition,
  SCRAM_FORMAT_ARGS,
  securedNodeProperties,
} from './helpers/secured-nodes.js';
import { runTkafka } from './helpers/tool-run.js';
import { waitFor } from './helpers/wait-for.js';

let certs: TestCerts;
let cluster: Cluster;
let clientProps: string;

before(async () => {
  certs = makeCerts();
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    brokerListener: 'BROKER',
    nodes: [
      { id: 1, roles: 'controller', formatArgs: SCRAM_FORMAT_ARGS },
      { id: 2, roles: 'broker' },
      { id: 3, roles: 'broker' },
    ],
    overrides: securedNodeProperties(certs),
  });
  clientProps = aliceClientProperties(certs);
});

after(async () => {
  await cluster?.cleanup();
  certs?.cleanup();
});

const addr = (id: number): string => `127.0.0.1:${cluster.node(id).port}`;
const logs = (): string => cluster.logs(3000);

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
  assert.equal(created.code, 0, created.out + created.err + logs());
  // both replicas in the ISR: the follower fetched over the SCRAM-SHA-512 inter-broker listener
  await waitFor(async () => (await describePartition(addr(3), clientProps, topic))?.isr.length === 2, {
    what: `the ISR of ${topic} to hold both brokers`,
    timeoutMs: 30_000,
  }).catch((e: Error) => assert.fail(`${e.message}\n${logs()}`));

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
  assert.equal(await consumeAssigned(addr(2), clientProps, topic, lines.length, logs), expected);
  assert.equal(await consumeAssigned(addr(3), clientProps, topic, lines.length, logs), expected);

  const before = await describePartition(addr(2), clientProps, topic);
  assert.ok(before && (before.leader === 2 || before.leader === 3), JSON.stringify(before));
  const survivor = before.leader === 2 ? 3 : 2;
  await cluster.node(before.leader).kill();
  // the controller fences the dead broker once its heartbeats stop: the follower leads
  await waitFor(async () => (await describePartition(addr(survivor), clientProps, topic))?.leader === survivor, {
    what: `broker ${survivor} to lead ${topic}`,
    timeoutMs: 60_000,
  });
  assert.equal(await consumeAssigned(addr(survivor), clientProps, topic, lines.length, logs), expected);
});

test('a broker with a wrong controller password never registers, and says why', async () => {
  const started = await startCluster({
    launcher: tkafkaLauncher,
    brokerListener: 'BROKER',
    nodes: [{ id: 4, roles: 'broker' }],
    overrides: securedNodeProperties(certs, { controllerPassword: 'not-the-password' }),
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
  // the controller knows the brokers registered before, never 4
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

test('a broker with a wrong inter-broker password registers, but cannot follow: its fetcher says why', async () => {
  const leader = cluster.brokers.find((n) => n.running())!;
  const joined = await startCluster({
    launcher: tkafkaLauncher,
    brokerListener: 'BROKER',
    nodes: [{ id: 5, roles: 'broker' }],
    overrides: securedNodeProperties(certs, { brokerPassword: 'not-the-password' }),
    external: {
      clusterId: cluster.clusterId,
      quorum: 'static',
      controllers: [{ id: 1, port: cluster.node(1).controllerPort }],
    },
  });
  try {
    const topic = 'follower-refused';
    const created = await runTkafka('topics', [
      '--bootstrap-server',
      addr(leader.id),
      '--command-config',
      clientProps,
      '--create',
      '--topic',
      topic,
      '--replica-assignment',
      `${leader.id}:5`,
    ]);
    assert.equal(created.code, 0, created.out + created.err);
    const node5 = joined.node(5);
    // SCRAM's server message, from the leader's inter-broker listener to broker 5's replica fetcher
    await waitFor(
      () => /Error in fetch from broker \d+ .*invalid credentials with SASL mechanism SCRAM-SHA-512/.test(node5.logs()),
      {
        what: 'broker 5 to log that the leader refused its SCRAM-SHA-512 credentials',
        timeoutMs: 30_000,
      },
    ).catch((e: Error) => assert.fail(`${e.message}\n${node5.logs()}`));
    // registered (its controller credentials are right), as a Kafka broker with a wrong inter-broker password is
    const versions = await runTkafka('broker-api-versions', [
      '--bootstrap-server',
      addr(leader.id),
      '--command-config',
      clientProps,
    ]);
    assert.match(versions.out, /\(id: 5 rack: /, versions.err);
  } finally {
    await joined.cleanup();
  }
});

test('an SSL controller listener with ssl.client.auth=required: brokers present their key store; one without is refused', async () => {
  const mtls = (withKeystore: boolean): Record<string, string> => {
    const props: Record<string, string> = {
      ...securedNodeProperties(certs),
      'listener.security.protocol.map': 'CONTROLLER:SSL,BROKER:SASL_SSL',
      'listener.name.controller.ssl.client.auth': 'required',
    };
    if (!withKeystore)
      for (const k of Object.keys(props)) if (k.startsWith('listener.name.controller.ssl.keystore.')) delete props[k];
    return props;
  };
  const mtlsCluster = await startCluster({
    launcher: tkafkaLauncher,
    brokerListener: 'BROKER',
    nodes: [
      { id: 11, roles: 'controller', formatArgs: SCRAM_FORMAT_ARGS },
      { id: 12, roles: 'broker' },
    ],
    overrides: mtls(true),
  });
  try {
    const created = await runTkafka('topics', [
      '--bootstrap-server',
      mtlsCluster.bootstrap(),
      '--command-config',
      clientProps,
      '--create',
      '--topic',
      'over-mtls-controller',
    ]);
    assert.equal(created.code, 0, created.out + created.err + mtlsCluster.logs(3000));
    const refused = await startCluster({
      launcher: tkafkaLauncher,
      brokerListener: 'BROKER',
      nodes: [{ id: 13, roles: 'broker' }],
      overrides: mtls(false),
      external: {
        clusterId: mtlsCluster.clusterId,
        quorum: 'static',
        controllers: [{ id: 11, port: mtlsCluster.node(11).controllerPort }],
      },
      startTimeoutMs: 15_000,
    }).then(
      async (c) => {
        await c.cleanup();
        return null;
      },
      (e: Error) => e.message,
    );
    assert.ok(refused !== null, 'a broker without a client certificate must not start serving');
    assert.match(
      refused,
      /Raft fetch failed: .*SslAuthenticationException: SSL handshake failed: the broker requires a client certificate/,
    );
  } finally {
    await mtlsCluster.cleanup();
  }
});
