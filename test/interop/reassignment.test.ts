// Partition reassignment and leader election by request on Apache Kafka 4.4.0: the scenario of
// test/reassignment-cluster.test.ts (test/helpers/reassignment-scenario.ts) on a Kafka controller and
// three Kafka brokers, with the same expected answers — the oracle for tkafka's
// AlterPartitionReassignments, ListPartitionReassignments and ElectLeaders (error codes and messages,
// the merged replica list, cancellation, completion, deletion of the removed replica).
//
//   npm run build && nice -n 19 node --test dist/test/interop/reassignment.test.js
import { test, before, after } from 'node:test';
import { startCluster, waitForUnfenced, type Cluster } from '../helpers/cluster.js';
import {
  BROKERS,
  electionsAndReturn,
  moveTopic,
  prepareTopics,
  REASSIGNMENT_BROKER_OVERRIDES,
  REASSIGNMENT_CONTROLLER_OVERRIDES,
  reassignmentNodes,
  stuckWhileDown,
} from '../helpers/reassignment-scenario.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: kafkaLauncher(),
    nodes: reassignmentNodes(),
    quorum: 'static',
    controllerOverrides: REASSIGNMENT_CONTROLLER_OVERRIDES,
    brokerOverrides: REASSIGNMENT_BROKER_OVERRIDES,
    startTimeoutMs: 420_000,
  });
  await waitForUnfenced(cluster, { ids: BROKERS, timeoutMs: 120_000 });
  await prepareTopics(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

test('Kafka 4.4.0: a partition moves from broker 2 to brokers 3 and 4; refused partitions', async (t) => {
  t.diagnostic(await moveTopic(cluster));
});

test('Kafka 4.4.0: with broker 4 down a reassignment to it is listed, cancelled, refused without RF change, started again', async () => {
  await stuckWhileDown(cluster);
});

test('Kafka 4.4.0: ElectLeaders PREFERRED and UNCLEAN per partition; broker 4 back completes the reassignment', async (t) => {
  t.diagnostic(await electionsAndReturn(cluster));
});
