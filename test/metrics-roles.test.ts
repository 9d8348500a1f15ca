// The metrics endpoint of each role in a cluster of tkafka processes (two controllers, one broker):
// the KafkaController gauges on every controller (ActiveControllerCount 1 on the active one only,
// the cluster counts from the metadata image on both), the broker's ReplicaManager and raft
// observer metrics, and no controller gauges on the broker-only node.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import { metricsUrl, scrape } from './helpers/metrics.js';
import { waitFor } from './helpers/wait-for.js';
import { runTkafka } from './helpers/tool-run.js';

let cluster: Cluster;
const BROKER = 3;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'controller' },
      { id: BROKER, roles: 'broker' },
    ],
    overrides: { 'tkafka.metrics.listener': 'http://127.0.0.1:0' },
  });
});
after(async () => {
  await cluster?.cleanup();
});

const urlOf = (id: number): string => metricsUrl(cluster.node(id).logs(1_000_000));

test('controllers and the broker report their roles', async () => {
  const created = await runTkafka('topics', [
    '--bootstrap-server',
    cluster.bootstrap(),
    '--create',
    '--topic',
    'roles',
    '--partitions',
    '2',
  ]);
  assert.equal(created.code, 0, created.err);
  // both controllers have applied the topic
  const controllers = await waitFor(
    async () => {
      const all = await Promise.all([1, 2].map(async (id) => scrape(urlOf(id))));
      return all.every((m) => m.value('kafka_controller_kafkacontroller_globalpartitioncount') === 2) ? all : null;
    },
    { what: 'both controllers to count the 2 partitions' },
  );
  const active = controllers.map((m) => m.value('kafka_controller_kafkacontroller_activecontrollercount'));
  assert.deepEqual([...active].sort(), [0, 1]);
  const leader = active.indexOf(1) + 1;
  for (const m of controllers) {
    assert.equal(m.value('kafka_controller_kafkacontroller_globaltopiccount'), 1);
    assert.equal(m.value('kafka_controller_kafkacontroller_offlinepartitionscount'), 0);
    assert.equal(m.value('kafka_controller_kafkacontroller_activebrokercount'), 1);
    assert.equal(m.value('kafka_controller_kafkacontroller_fencedbrokercount'), 0);
    assert.equal(m.value('kafka_server_raftmetrics_current_leader'), leader);
    assert.equal(m.value('kafka_server_raftmetrics_number_of_voters'), 2);
    // a controller-only node has no partitions of its own
    assert.equal(m.find('kafka_server_replicamanager_partitioncount').length, 0);
  }
  assert.equal(
    controllers[leader - 1]!.value('kafka_server_raftmetrics_current_state', { current_state: 'leader' }),
    1,
  );
  // the leader serves the others' raft Fetch (recorded as FetchFollower: a replica id is set)
  assert.ok(
    controllers[leader - 1]!.find('kafka_network_requestmetrics_totaltimems_count', { request: 'FetchFollower' })[0]!
      .value > 0,
  );

  const b = await waitFor(
    async () => {
      const m = await scrape(urlOf(BROKER));
      return m.value('kafka_server_replicamanager_partitioncount') === 2 ? m : null;
    },
    { what: 'the broker to host the 2 partitions' },
  );
  assert.equal(b.value('kafka_server_replicamanager_leadercount'), 2);
  assert.equal(b.find('kafka_controller_kafkacontroller_activecontrollercount').length, 0);
  assert.equal(b.value('kafka_server_raftmetrics_current_leader'), leader);
  assert.equal(b.value('kafka_server_raftmetrics_current_state', { current_state: 'observer' }), 1);
  assert.equal(b.find('kafka_log_log_logendoffset', { topic: 'roles' }).length, 2);
  // the observer fetched the metadata records (the topic's among them)
  assert.ok((b.value('kafka_server_raftmetrics_fetch_records_rate') ?? 0) > 0);
});
