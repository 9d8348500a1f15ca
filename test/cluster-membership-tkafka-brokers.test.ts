// Two tkafka broker-only nodes on a tkafka controller-only node: both register and are unfenced;
// kill -9 of one → the controller fences it after broker.session.timeout.ms (measured, seen from
// the other broker's DescribeCluster); restart → unfenced; SIGTERM of a broker leading a partition →
// controlled shutdown granted by the controller once its leadership moved away.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, describeBrokers, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/generated/apis.js';

const SESSION_TIMEOUT_MS = 3000;
let cluster: Cluster | null = null;
after(async () => {
  await cluster?.cleanup();
});

test('tkafka brokers on a tkafka controller: registered, fenced on kill -9, unfenced on restart, controlled shutdown', async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    quorum: 'static',
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'broker' },
      { id: 3, roles: 'broker' },
    ],
    overrides: { 'broker.session.timeout.ms': SESSION_TIMEOUT_MS, 'broker.heartbeat.interval.ms': 500 },
  });
  const c = cluster;
  const ctl = c.node(1);
  const b2 = c.node(2);
  const b3 = c.node(3);
  const fail = (what: string) => (e: Error) => {
    throw new Error(`${what}: ${e.message}\n${c.logs(3000)}`);
  };
  const fencedOf = async (id: number) => (await describeBrokers(b2.port))?.find((b) => b.brokerId === id)?.isFenced;
  await waitFor(async () => (await fencedOf(2)) === false && (await fencedOf(3)) === false, {
    what: 'brokers 2 and 3 to be unfenced',
  }).catch(fail('unfence'));

  // a partition on broker 3 only, created on the controller
  const admin = await RawClient.connect(ctl.controllerPort);
  try {
    const r = await admin.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: 'on-3',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [{ partitionIndex: 0, brokerIds: [3] }],
          configs: [],
        },
      ],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.equal(r.topics[0]?.errorCode, 0);
  } finally {
    admin.close();
  }

  // kill -9: fenced by the controller after the session timeout
  const killedAt = Date.now();
  await b3.kill();
  await waitFor(async () => (await fencedOf(3)) === true, {
    what: 'broker 3 to be fenced',
    timeoutMs: SESSION_TIMEOUT_MS * 5 + 10_000,
    intervalMs: 50,
  }).catch(fail('fence'));
  const fencedAfter = Date.now() - killedAt;
  console.log(
    `tkafka broker 3 killed -9: fenced after ${fencedAfter} ms (broker.session.timeout.ms=${SESSION_TIMEOUT_MS})`,
  );
  assert.ok(fencedAfter >= SESSION_TIMEOUT_MS - 500, `fenced after ${fencedAfter} ms`);
  assert.match(ctl.logs(50_000), /Fencing broker 3 at epoch \d+ because its session has timed out\./);

  // restart: a new incarnation, unfenced again
  await b3.start();
  await waitFor(async () => (await fencedOf(3)) === false, { what: 'broker 3 to be unfenced again' }).catch(
    fail('unfence after restart'),
  );

  // SIGTERM: controlled shutdown (it leads on-3-0), then ShouldShutDown
  await waitFor(() => / to unfence has been granted/.test(ctl.logs(50_000)), { what: 'the unfence line' });
  await b3.stop();
  const log = ctl.logs(50_000);
  assert.match(log, /Unfenced broker 3 has requested and been granted a controlled shutdown\./);
  assert.match(log, /The request from broker 3 to shut down has been granted/);
  assert.equal(await fencedOf(2), false, 'broker 2 is untouched');
});
