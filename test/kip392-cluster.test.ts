// Fetch from the closest replica (KIP-392) on a real tkafka cluster (test/helpers/kip392-scenario.ts):
// one controller-only node and three broker-only tkafka processes with broker.rack r1/r2/r3 and
// replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector, an RF=3 topic led
// by the r1 broker. A raw Fetch v17 with rackId r2 to the leader is answered PreferredReadReplica =
// the r2 broker and no records; the same Fetch to the r2 follower returns the records up to its
// high watermark (a v10 Fetch there is NOT_LEADER_OR_FOLLOWER). confluent-kafka (librdkafka) and
// kafka-clients 4.4.0 (test/helpers/java/RackConsumer.java) with client.rack=r2 read every record,
// and the request logs show their Fetches: the leader's answers carry no records, the r2
// follower's carry them all. With the r2 follower killed (fenced, out of the ISR) the leader serves
// r2 clients itself, and names the follower again once it is back in the ISR.
// The same scenario on Apache Kafka 4.4.0: test/interop/kip392.test.ts.
//
//   npm run build && nice -n 19 node --test dist/test/kip392-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import {
  BROKERS,
  checkRawFetches,
  consumeWithConfluent,
  consumeWithJava,
  COUNT,
  followerDownAndBack,
  KIP392_BROKER_OVERRIDES,
  KIP392_CONTROLLER_OVERRIDES,
  kip392Nodes,
  LEADER,
  prepareTopic,
  R2,
  R3,
} from './helpers/kip392-scenario.js';

let cluster: Cluster;
let topicId: string;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: kip392Nodes(),
    controllerOverrides: KIP392_CONTROLLER_OVERRIDES,
    brokerOverrides: { ...KIP392_BROKER_OVERRIDES, 'tkafka.request.log': true },
  });
  await waitForUnfenced(cluster, { ids: BROKERS });
  topicId = await prepareTopic(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

/** `[request]` Fetch lines from `clientId` in a broker's log: the response sizes in bytes. */
function fetchResponses(id: number, clientId: string): number[] {
  const re = new RegExp(`\\[request\\] client=${clientId}[^\\n]* api=Fetch v\\d+ [^\\n]* response=(\\d+)B`, 'g');
  return [...cluster.node(id).logs(Number.MAX_SAFE_INTEGER).matchAll(re)].map((m) => Number(m[1]));
}

/** The consumer's Fetches: answered by the leader without records, by the r2 follower with all of them. */
function assertServedByR2(clientId: string): string {
  const onLeader = fetchResponses(LEADER, clientId);
  const onR2 = fetchResponses(R2, clientId);
  assert.ok(onLeader.length >= 1, 'the consumer asked the leader first');
  assert.ok(
    onLeader.every((b) => b < 1000),
    `the leader's answers carry no records: ${onLeader.join(', ')} B`,
  );
  const r2Bytes = onR2.reduce((a, b) => a + b, 0);
  assert.ok(r2Bytes > COUNT * 100, `the r2 follower served the records: ${r2Bytes} B in ${onR2.length} Fetches`);
  assert.equal(fetchResponses(R3, clientId).length, 0, 'nothing from the r3 follower');
  return `${COUNT} records; Fetch responses to ${clientId}: leader ${onLeader.length} (max ${Math.max(...onLeader)} B), r2 follower ${onR2.length} (${r2Bytes} B)`;
}

test('the leader names the r2 follower for an r2 client; the follower serves it up to its high watermark', async (t) => {
  t.diagnostic(await checkRawFetches(cluster, topicId));
});

test('confluent-kafka with client.rack=r2 reads every record from the r2 follower', async (t) => {
  const report = await consumeWithConfluent(cluster, 'kip392-r2');
  t.diagnostic(assertServedByR2('kip392-r2'));
  for (const l of report) t.diagnostic(l);
});

test('kafka-clients 4.4.0 with client.rack=r2 reads every record from the r2 follower', async (t) => {
  await consumeWithJava(cluster, 'kip392-java-r2');
  t.diagnostic(assertServedByR2('kip392-java-r2'));
});

test('the r2 follower killed: the leader serves r2 clients itself; back in the ISR, it is named again', async (t) => {
  const ms = await followerDownAndBack(cluster, topicId);
  t.diagnostic(`broker 3 left the ISR ${ms} ms after kill -9; the leader served the r2 client`);
});
