// Forwarding across a controller failover, every node a real `tkafka server start` process: three
// tkafka controllers and one tkafka broker-only node. An Envelope sent to a controller that is not the
// active one is answered NOT_CONTROLLER with no data (RequestChannel.buildResponseSend), which is what
// makes a forwarding broker look for the new controller; after the active controller is killed, a
// CreateTopics forwarded by the broker reaches the newly elected one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForLeader, topicIds, type Cluster } from './helpers/cluster.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { encodeRequest } from '../src/protocol/frame.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { ANONYMOUS, serializePrincipal } from '../src/broker/forwarding/principal.js';

let cluster: Cluster;
const BROKER = 4;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'controller' },
      { id: 3, roles: 'controller' },
      { id: BROKER, roles: 'broker' },
    ],
    brokerOverrides: { 'broker.heartbeat.interval.ms': 500 },
  });
});

after(async () => {
  await cluster?.cleanup();
});

const createTopicsBody = (name: string) => ({
  topics: [{ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
  timeoutMs: 30_000,
  validateOnly: false,
});

async function createThroughBroker(name: string): Promise<number> {
  const c = await RawClient.connect(cluster.node(BROKER).port);
  try {
    const r = await c.request(ApiKey.CreateTopics, 7, createTopicsBody(name));
    return r.topics[0]!.errorCode;
  } finally {
    c.close();
  }
}

test('an Envelope to a controller that is not active is answered NOT_CONTROLLER', async () => {
  // asked again when an election happened meanwhile (the follower may have become the leader)
  for (let attempt = 1; ; attempt++) {
    const q = await waitForLeader(cluster, { timeoutMs: 60_000 });
    const follower = cluster.controllers.find((c) => c.id !== q.leaderId)!;
    const c = await RawClient.connect(follower.controllerPort);
    let r;
    try {
      r = await c.request(ApiKey.Envelope, 0, {
        requestData: Buffer.concat(
          encodeRequest(ApiKey.CreateTopics, 7, 9, 'x', createTopicsBody(`not-here-${attempt}`)),
        ).subarray(4),
        requestPrincipal: serializePrincipal(ANONYMOUS),
        clientHostAddress: Buffer.from([127, 0, 0, 1]),
      });
    } finally {
      c.close();
    }
    const after = await waitForLeader(cluster, { timeoutMs: 60_000 });
    if (after.leaderEpoch !== q.leaderEpoch && attempt < 5) continue;
    assert.equal(r.errorCode, ErrorCode.NOT_CONTROLLER, `asked node ${follower.id} while ${q.leaderId} led`);
    assert.equal(r.responseData, null);
    break;
  }
});

test('after the active controller is killed, the broker forwards to the new one', async () => {
  assert.equal(await createThroughBroker('before-failover'), ErrorCode.NONE);
  const q = await waitForLeader(cluster, { timeoutMs: 60_000 });
  await cluster.node(q.leaderId).kill();
  const t0 = Date.now();
  const next = await waitForLeader(cluster, { not: q.leaderId, afterEpoch: q.leaderEpoch, timeoutMs: 60_000 });
  const code = await createThroughBroker('after-failover');
  assert.equal(code, ErrorCode.NONE);
  console.log(
    `controller ${q.leaderId} killed; ${next.leaderId} elected; a forwarded CreateTopics succeeded ${Date.now() - t0} ms after the kill`,
  );
  await waitFor(async () => (await topicIds(cluster.node(BROKER).port, ['after-failover']))?.has('after-failover'), {
    what: 'the topic on the broker',
    timeoutMs: 30_000,
  });
});
