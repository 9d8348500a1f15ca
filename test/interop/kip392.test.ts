// Fetch from the closest replica (KIP-392) on Apache Kafka 4.4.0: the scenario of
// test/kip392-cluster.test.ts (test/helpers/kip392-scenario.ts) on a Kafka controller and three
// Kafka brokers on racks r1/r2/r3 with the rack-aware selector — the oracle for tkafka's answers
// (PreferredReadReplica from the leader, the follower serving v11+ consumers up to its HW, v10 refused
// there, the leader serving r2 clients while the r2 follower is out of the ISR). Kafka has no request
// log here: librdkafka's "migrating from broker 2 to 3" line shows where confluent-kafka read.
//
//   npm run build && nice -n 19 node --test dist/test/interop/kip392.test.js
import { test, before, after } from 'node:test';
import { startCluster, waitForUnfenced, type Cluster } from '../helpers/cluster.js';
import {
  BROKERS,
  checkRawFetches,
  consumeWithConfluent,
  consumeWithJava,
  followerDownAndBack,
  KIP392_BROKER_OVERRIDES,
  KIP392_CONTROLLER_OVERRIDES,
  kip392Nodes,
  prepareTopic,
} from '../helpers/kip392-scenario.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';

let cluster: Cluster;
let topicId: string;

before(async () => {
  cluster = await startCluster({
    launcher: kafkaLauncher(),
    nodes: kip392Nodes(),
    quorum: 'static',
    controllerOverrides: KIP392_CONTROLLER_OVERRIDES,
    brokerOverrides: KIP392_BROKER_OVERRIDES,
    startTimeoutMs: 420_000,
  });
  await waitForUnfenced(cluster, { ids: BROKERS, timeoutMs: 120_000 });
  topicId = await prepareTopic(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

test('Kafka 4.4.0: the leader names the r2 follower for an r2 client; the follower serves it up to its high watermark', async (t) => {
  t.diagnostic(await checkRawFetches(cluster, topicId));
});

test('Kafka 4.4.0: confluent-kafka with client.rack=r2 moves to the r2 follower and reads every record', async (t) => {
  for (const l of await consumeWithConfluent(cluster, 'kip392-r2')) t.diagnostic(l);
});

test('Kafka 4.4.0: kafka-clients 4.4.0 with client.rack=r2 reads every record', async () => {
  await consumeWithJava(cluster, 'kip392-java-r2');
});

test('Kafka 4.4.0: the r2 follower killed: the leader serves r2 clients itself; back in the ISR, it is named again', async (t) => {
  const ms = await followerDownAndBack(cluster, topicId);
  t.diagnostic(`broker 3 left the ISR ${ms} ms after kill -9; the leader served the r2 client`);
});
