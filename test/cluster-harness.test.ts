// The multi-node harness of test/helpers/cluster.ts driving real tkafka processes, on the shape
// tkafka serves today (one combined node, a static voter): the node formatted with
// `tkafka storage format`, started, asked for its quorum (DescribeQuorum), brokers
// (DescribeCluster with fenced brokers) and topics (Metadata ids); killed with -9 and started
// again on its ports with its data. The multi-node shapes run in test/pending/ until issue 14's
// raft and membership work passes them.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import {
  createTopic,
  describeBrokers,
  startCluster,
  tkafkaLauncher,
  topicIds,
  waitForLeader,
  waitForUnfenced,
  type Cluster,
} from './helpers/cluster.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    nodes: [{ id: 1, roles: 'broker,controller' }],
    quorum: 'static',
    launcher: tkafkaLauncher,
    overrides: { 'broker.session.timeout.ms': 6000 },
  });
});

after(async () => {
  await cluster?.cleanup();
});

test('a one-node tkafka cluster: generated configuration, quorum, brokers and topics through the harness queries', async () => {
  const node = cluster.node(1);
  assert.ok(node.controllerPort > 0 && node.port > 0 && node.port !== node.controllerPort);
  assert.equal(cluster.bootstrap(), `127.0.0.1:${node.port}`);
  assert.equal(cluster.controllerBootstrap(), `127.0.0.1:${node.controllerPort}`);
  assert.equal(cluster.voters, `1@127.0.0.1:${node.controllerPort}`);
  const props = readFileSync(node.configFile, 'utf8');
  assert.match(props, /^process\.roles=broker,controller$/m);
  assert.match(
    props,
    new RegExp(
      `^listeners=PLAINTEXT://127\\.0\\.0\\.1:${node.port},CONTROLLER://127\\.0\\.0\\.1:${node.controllerPort}$`,
      'm',
    ),
  );
  assert.match(props, /^broker\.session\.timeout\.ms=6000$/m);
  assert.ok(existsSync(node.metadataDir), 'the metadata log is in log.dirs');

  const q = await waitForLeader(cluster);
  assert.equal(q.leaderId, 1);
  assert.deepEqual(
    q.voters.map((v) => v.replicaId),
    [1],
  );
  assert.deepEqual(await describeBrokers(node.port), [{ brokerId: 1, isFenced: false }]);
  assert.deepEqual(await waitForUnfenced(cluster), [{ brokerId: 1, isFenced: false }]);
  assert.equal(await createTopic(cluster, 'harness-a', { partitions: 2 }), 0);
  const ids = await topicIds(node.port, ['harness-a']);
  assert.match(ids?.get('harness-a') ?? '', /^[\w-]{22}$/);
});

test('kill -9 and start: the node comes back on its ports with its data', async () => {
  const node = cluster.node(1);
  const { port, controllerPort } = node;
  const before = (await topicIds(node.port, ['harness-a']))?.get('harness-a');
  const pid = node.pid();
  await node.kill();
  assert.equal(node.running(), false);
  assert.equal(node.pid(), undefined);
  assert.equal(cluster.bootstrap(), '', 'no running broker');
  await node.start();
  assert.notEqual(node.pid(), pid);
  assert.equal(node.port, port);
  assert.equal(node.controllerPort, controllerPort);
  const q = await waitForLeader(cluster);
  assert.equal(q.leaderId, 1);
  assert.equal((await topicIds(node.port, ['harness-a']))?.get('harness-a'), before, 'same topic id after the crash');
});
