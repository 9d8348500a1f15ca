// Partition reassignment and leader election by request on a real tkafka cluster
// (test/helpers/reassignment-scenario.ts): one controller-only node and three broker-only
// `tkafka server start` processes. AlterPartitionReassignments moves a partition between brokers (the
// new replicas fetch it, the old one deletes its replica once the reassignment completes), lists and
// cancels a reassignment that cannot complete while a broker is down, and completes it when the
// broker returns; ElectLeaders PREFERRED and UNCLEAN answer per partition as Kafka's controller does
// and move leadership back to the preferred replica. The same requests and answers on Apache Kafka
// 4.4.0: test/interop/reassignment.test.ts.
//
//   npm run build && nice -n 19 node --test dist/test/reassignment-cluster.test.js
import { test, before, after } from 'node:test';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import {
  BROKERS,
  electionsAndReturn,
  moveTopic,
  prepareTopics,
  REASSIGNMENT_BROKER_OVERRIDES,
  REASSIGNMENT_CONTROLLER_OVERRIDES,
  reassignmentNodes,
  stuckWhileDown,
} from './helpers/reassignment-scenario.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: reassignmentNodes(),
    controllerOverrides: REASSIGNMENT_CONTROLLER_OVERRIDES,
    brokerOverrides: REASSIGNMENT_BROKER_OVERRIDES,
  });
  await waitForUnfenced(cluster, { ids: BROKERS });
  await prepareTopics(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

test('a partition moves from broker 2 to brokers 3 and 4 with its records; refused partitions answer as Kafka', async (t) => {
  t.diagnostic(await moveTopic(cluster));
});

test('with broker 4 down a reassignment to it is listed, cancelled, refused without RF change, and started again', async () => {
  await stuckWhileDown(cluster);
});

test('ElectLeaders PREFERRED and UNCLEAN per partition; broker 4 back completes the reassignment and leads again', async (t) => {
  t.diagnostic(await electionsAndReturn(cluster));
});
