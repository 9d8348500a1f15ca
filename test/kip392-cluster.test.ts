// Fetch from the closest replica (KIP-392) on a real cluster: one controller-only node and three
// broker-only tkafka processes with broker.rack r1/r2/r3 and
// replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector, an RF=3 topic led
// by the r1 broker. A raw Fetch v17 with rackId r2 to the leader is answered PreferredReadReplica =
// the r2 broker and no records; the same Fetch to the r2 follower returns the records up to its
// high watermark (a v10 Fetch there is NOT_LEADER_OR_FOLLOWER). confluent-kafka (librdkafka) with
// client.rack=r2 and kafka-clients 4.4.0 (test/helpers/java/RackConsumer.java) with client.rack=r2
// read every record, and the request logs show their Fetches: the leader's answers carry no records,
// the r2 follower's carry them all. With the r2 follower killed (fenced, out of the ISR) the leader
// serves r2 clients itself, and names the follower again once it is back in the ISR.
//
//   npm run build && nice -n 19 node --test dist/test/kip392-cluster.test.js
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { startCluster, tkafkaLauncher, topicIds, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { createReplicatedTopic, produceAll, waitPartition } from './helpers/replication.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { PYTHON } from './helpers/txn-cluster-scenario.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { defaultFetchRequest, type FetchResponsePartitionData } from '../src/protocol/generated/protocol/Fetch.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { RACK_AWARE_REPLICA_SELECTOR } from '../src/config/definitions.js';

const TOPIC = 'kip392';
const RACKS: Record<number, string> = { 2: 'r1', 3: 'r2', 4: 'r3' };
const BROKERS = [2, 3, 4];
const LEADER = 2;
const R2 = 3;
const COUNT = 200;
const CLIENT_ID = 'kip392-r2';

let cluster: Cluster;
let topicId: string;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      ...BROKERS.map((id) => ({ id, roles: 'broker' as const, overrides: { 'broker.rack': RACKS[id]! } })),
    ],
    controllerOverrides: { 'broker.session.timeout.ms': 6000 },
    brokerOverrides: {
      'broker.heartbeat.interval.ms': 500,
      'replica.selector.class': RACK_AWARE_REPLICA_SELECTOR,
      'tkafka.request.log': true,
      'replica.fetch.backoff.ms': 200,
    },
  });
  await waitForUnfenced(cluster, { ids: BROKERS });
  assert.equal(
    await createReplicatedTopic(cluster.node(LEADER).port, TOPIC, { replicationFactor: 3, assignment: [2, 3, 4] }),
    ErrorCode.NONE,
  );
  await waitPartition(
    cluster,
    TOPIC,
    'led by broker 2, ISR of three',
    (p) => p.leader === LEADER && p.isr.length === 3,
  );
  topicId = (await topicIds(cluster.node(LEADER).port, [TOPIC]))!.get(TOPIC)!;
  const values = Array.from({ length: COUNT }, (_, i) => `value-${i}-${'x'.repeat(100)}`);
  const acked = await produceAll(cluster, TOPIC, values, -1);
  assert.equal(acked.size, COUNT);
});

after(async () => {
  await cluster?.cleanup();
});

/** One consumer Fetch of partition 0 from offset 0 (maxWait 0), as a client in `rack`. */
async function fetchAs(port: number, version: number, rack: string): Promise<FetchResponsePartitionData> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.Fetch, version, {
      ...defaultFetchRequest(),
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      rackId: rack,
      topics: [
        {
          topic: TOPIC,
          topicId,
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: -1,
              fetchOffset: 0n,
              lastFetchedEpoch: -1,
              logStartOffset: -1n,
              partitionMaxBytes: 1 << 20,
            },
          ],
        },
      ],
    });
    assert.equal(r.errorCode, 0);
    return r.responses[0]!.partitions[0]!;
  } finally {
    c.close();
  }
}

test('the leader names the r2 follower for an r2 client; the follower serves it up to its high watermark', async (t) => {
  const p = await fetchAs(cluster.node(LEADER).port, 17, 'r2');
  assert.equal(p.errorCode, ErrorCode.NONE);
  assert.equal(p.preferredReadReplica, R2);
  assert.equal(p.records?.length ?? 0, 0, 'no records with a preferred read replica');
  assert.equal(p.highWatermark, BigInt(COUNT));
  // its own rack, or no rack: the leader serves
  for (const rack of ['r1', '']) {
    const own = await fetchAs(cluster.node(LEADER).port, 17, rack);
    assert.equal(own.preferredReadReplica, -1, `rack '${rack}'`);
    assert.ok((own.records?.length ?? 0) > 0, `rack '${rack}'`);
  }
  // the follower's HW reaches the leader's with its next fetch
  const served = await waitFor(
    async () => {
      const f = await fetchAs(cluster.node(R2).port, 17, 'r2');
      return f.errorCode === ErrorCode.NONE && f.highWatermark === BigInt(COUNT) ? f : null;
    },
    { what: 'the r2 follower at high watermark 200', timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.equal(served.preferredReadReplica, -1, 'only the leader names a replica');
  assert.ok((served.records?.length ?? 0) > COUNT * 100, `records: ${served.records?.length} bytes`);
  // Fetch v10 has no client metadata: followers do not serve it
  const old = await fetchAs(cluster.node(R2).port, 10, 'r2');
  assert.equal(old.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  t.diagnostic(
    `leader ${LEADER} (r1) answered PreferredReadReplica=${R2}; follower ${R2} (r2) served ${served.records?.length} B`,
  );
});

/** `[request]` Fetch lines from `clientId` in a broker's log: the response sizes in bytes. */
function fetchResponses(id: number, clientId: string): number[] {
  const re = new RegExp(`\\[request\\] client=${clientId}[^\\n]* api=Fetch v\\d+ [^\\n]* response=(\\d+)B`, 'g');
  return [...cluster.node(id).logs(Number.MAX_SAFE_INTEGER).matchAll(re)].map((m) => Number(m[1]));
}

test('confluent-kafka with client.rack=r2 reads every record from the r2 follower', async (t) => {
  const spec = {
    bootstrap: cluster.bootstrap(),
    topic: TOPIC,
    rack: 'r2',
    client_id: CLIENT_ID,
    expect: COUNT,
    timeout_s: 60,
  };
  const r = await execa(PYTHON, [join(REPO_ROOT, 'test', 'helpers', 'kip392_consumer.py'), JSON.stringify(spec)], {
    reject: false,
    all: true,
    timeout: 90_000,
  });
  assert.equal(r.exitCode, 0, `kip392_consumer.py failed:\n${String(r.all).slice(-4000)}`);
  const out = JSON.parse(String(r.stdout).split('\n')[0]!) as { values: string[]; offsets: number[] };
  assert.deepEqual(
    out.offsets,
    Array.from({ length: COUNT }, (_, i) => i),
  );
  out.values.forEach((v, i) => assert.ok(v.startsWith(`value-${i}-`), `offset ${i}: ${v.slice(0, 20)}`));
  const onLeader = fetchResponses(LEADER, CLIENT_ID);
  const onR2 = fetchResponses(R2, CLIENT_ID);
  const onR3 = fetchResponses(4, CLIENT_ID);
  assert.ok(onLeader.length >= 1, 'the consumer asked the leader first');
  assert.ok(
    onLeader.every((b) => b < 1000),
    `the leader's answers carry no records: ${onLeader.join(', ')} B`,
  );
  const r2Bytes = onR2.reduce((a, b) => a + b, 0);
  assert.ok(r2Bytes > COUNT * 100, `the r2 follower served the records: ${r2Bytes} B in ${onR2.length} Fetches`);
  assert.equal(onR3.length, 0, 'nothing from the r3 follower');
  const report = String(r.stdout)
    .split('\n')
    .filter((l) => l.startsWith('report: '));
  t.diagnostic(
    `${COUNT} records; Fetch responses to ${CLIENT_ID}: leader ${onLeader.length} (max ${Math.max(...onLeader)} B), r2 follower ${onR2.length} (${r2Bytes} B)`,
  );
  for (const l of report) t.diagnostic(l);
});

const JAVA_SOURCE = join(REPO_ROOT, 'test', 'helpers', 'java', 'RackConsumer.java');
const JAVA_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const JAVA_CLASSES = join(REPO_ROOT, 'dist', 'test', 'helpers', 'classes');

/** Compiles RackConsumer.java (as the chaos workload is) when its class is missing or older. */
async function ensureRackConsumerCompiled(): Promise<void> {
  const classFile = join(JAVA_CLASSES, 'RackConsumer.class');
  if (!existsSync(join(JAVA_LIB, 'kafka-clients-4.4.0.jar')))
    throw new Error(`Kafka's Java client is not provisioned in ${JAVA_LIB}: run bash test/clients/java/setup.sh`);
  if (existsSync(classFile) && statSync(classFile).mtimeMs >= statSync(JAVA_SOURCE).mtimeMs) return;
  mkdirSync(JAVA_CLASSES, { recursive: true });
  await execa(
    'javac',
    ['-nowarn', '-encoding', 'UTF-8', '--release', '17', '-cp', `${JAVA_LIB}/*`, '-d', JAVA_CLASSES, JAVA_SOURCE],
    {
      timeout: 120_000,
    },
  );
}

test('kafka-clients 4.4.0 with client.rack=r2 reads every record from the r2 follower', async (t) => {
  await ensureRackConsumerCompiled();
  const clientId = 'kip392-java-r2';
  const r = await execa(
    'java',
    [
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Xmx256m',
      '-cp',
      `${JAVA_CLASSES}:${JAVA_LIB}/*`,
      'RackConsumer',
      cluster.bootstrap(),
      TOPIC,
      'r2',
      clientId,
      String(COUNT),
      '60000',
    ],
    { reject: false, all: true, timeout: 90_000 },
  );
  assert.equal(r.exitCode, 0, `RackConsumer failed:\n${String(r.all).slice(-4000)}`);
  assert.equal(String(r.stdout).trim(), `values value-0 value-${COUNT - 1}`);
  const onLeader = fetchResponses(LEADER, clientId);
  const onR2 = fetchResponses(R2, clientId);
  assert.ok(onLeader.length >= 1, 'the consumer asked the leader first');
  assert.ok(
    onLeader.every((b) => b < 1000),
    `the leader's answers carry no records: ${onLeader.join(', ')} B`,
  );
  const r2Bytes = onR2.reduce((a, b) => a + b, 0);
  assert.ok(r2Bytes > COUNT * 100, `the r2 follower served the records: ${r2Bytes} B in ${onR2.length} Fetches`);
  assert.equal(fetchResponses(4, clientId).length, 0, 'nothing from the r3 follower');
  t.diagnostic(
    `${COUNT} records; Fetch responses to ${clientId}: leader ${onLeader.length} (max ${Math.max(...onLeader)} B), r2 follower ${onR2.length} (${r2Bytes} B)`,
  );
});

test('the r2 follower killed: the leader serves r2 clients itself; back in the ISR, it is named again', async (t) => {
  const follower = cluster.node(R2);
  await follower.kill();
  const started = Date.now();
  await waitPartition(cluster, TOPIC, 'broker 3 out of the ISR', (p) => p.leader === LEADER && !p.isr.includes(R2));
  const alone = await fetchAs(cluster.node(LEADER).port, 17, 'r2');
  assert.equal(alone.errorCode, ErrorCode.NONE);
  assert.equal(alone.preferredReadReplica, -1);
  assert.ok((alone.records?.length ?? 0) > COUNT * 100);
  t.diagnostic(`broker 3 left the ISR ${Date.now() - started} ms after kill -9; the leader served the r2 client`);
  await follower.start();
  await waitPartition(cluster, TOPIC, 'broker 3 back in the ISR', (p) => p.isr.includes(R2));
  const again = await waitFor(
    async () => {
      const f = await fetchAs(cluster.node(LEADER).port, 17, 'r2');
      return f.preferredReadReplica === R2 ? f : null;
    },
    { what: 'the leader naming broker 3 again', timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.equal(again.records?.length ?? 0, 0);
});
