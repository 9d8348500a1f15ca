// Fetch from the closest replica (KIP-392) on a cluster of one controller-only node and three
// broker-only nodes on racks r1/r2/r3 with the rack-aware selector, run on tkafka
// (test/kip392-cluster.test.ts) and on Apache Kafka 4.4.0 (test/interop/kip392.test.ts). An RF=3
// topic led by the r1 broker holds 200 records; raw Fetches from an r2 client, confluent-kafka and
// kafka-clients 4.4.0 consumers with client.rack=r2, and the r2 follower killed and restarted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execa } from 'execa';
import { type Cluster, type NodeSpec, topicIds } from './cluster.js';
import { createReplicatedTopic, produceAll, waitPartition } from './replication.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { PYTHON } from './txn-cluster-scenario.js';
import { REPO_ROOT } from './spec-models.js';
import { compileJava, requireJavaClient } from './javac.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { defaultFetchRequest, type FetchResponsePartitionData } from '../../src/protocol/generated/protocol/Fetch.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { RACK_AWARE_REPLICA_SELECTOR } from '../../src/config/definitions.js';

export const TOPIC = 'kip392';
export const BROKERS = [2, 3, 4];
const RACKS: Record<number, string> = { 2: 'r1', 3: 'r2', 4: 'r3' };
/** the leader (r1) and the r2 follower */
export const LEADER = 2;
export const R2 = 3;
export const R3 = 4;
export const COUNT = 200;

/** Controller 1 and brokers 2-4 with their racks (the cluster's launcher unless `broker` is given). */
export function kip392Nodes(broker: Partial<NodeSpec> = {}): NodeSpec[] {
  return [
    { id: 1, roles: 'controller' },
    ...BROKERS.map((id) => ({ ...broker, id, roles: 'broker' as const, overrides: { 'broker.rack': RACKS[id]! } })),
  ];
}

/** A killed broker is fenced (and leaves the ISR) within 6 s. */
export const KIP392_CONTROLLER_OVERRIDES = { 'broker.session.timeout.ms': 6000 };
export const KIP392_BROKER_OVERRIDES = {
  'broker.heartbeat.interval.ms': 500,
  'replica.selector.class': RACK_AWARE_REPLICA_SELECTOR,
  'replica.fetch.backoff.ms': 200,
};

/** Creates the topic (replicas 2,3,4: led by 2), writes COUNT records with acks=all; the topic id. */
export async function prepareTopic(cluster: Cluster): Promise<string> {
  assert.equal(
    await createReplicatedTopic(cluster.node(LEADER).port, TOPIC, { replicationFactor: 3, assignment: BROKERS }),
    ErrorCode.NONE,
  );
  await waitPartition(
    cluster,
    TOPIC,
    'led by broker 2, ISR of three',
    (p) => p.leader === LEADER && p.isr.length === 3,
    120_000,
  );
  const topicId = (await topicIds(cluster.node(LEADER).port, [TOPIC]))!.get(TOPIC)!;
  const values = Array.from({ length: COUNT }, (_, i) => `value-${i}-${'x'.repeat(100)}`);
  const acked = await produceAll(cluster, TOPIC, values, -1);
  assert.equal(acked.size, COUNT);
  return topicId;
}

/** One consumer Fetch of partition 0 from offset 0 (maxWait 0) to broker `id`, as a client in `rack`. */
export async function fetchAs(
  cluster: Cluster,
  topicId: string,
  id: number,
  version: number,
  rack: string,
): Promise<FetchResponsePartitionData> {
  const c = await RawClient.connect(cluster.node(id).port);
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

const recordBytes = (p: FetchResponsePartitionData): number => p.records?.length ?? 0;

/**
 * The leader names the r2 follower for an r2 client and sends no records; its own rack and no rack
 * are served by the leader; the r2 follower serves the r2 client up to its high watermark and names
 * no replica; a v10 Fetch (no client metadata) is NOT_LEADER_OR_FOLLOWER there. A summary line.
 */
export async function checkRawFetches(cluster: Cluster, topicId: string): Promise<string> {
  const p = await fetchAs(cluster, topicId, LEADER, 17, 'r2');
  assert.equal(p.errorCode, ErrorCode.NONE);
  assert.equal(p.preferredReadReplica, R2);
  assert.equal(recordBytes(p), 0, 'no records with a preferred read replica');
  assert.equal(p.highWatermark, BigInt(COUNT));
  for (const rack of ['r1', '']) {
    const own = await fetchAs(cluster, topicId, LEADER, 17, rack);
    assert.equal(own.preferredReadReplica, -1, `rack '${rack}'`);
    assert.ok(recordBytes(own) > COUNT * 100, `rack '${rack}'`);
  }
  // the follower's HW reaches the leader's with its next fetch
  const served = await waitFor(
    async () => {
      const f = await fetchAs(cluster, topicId, R2, 17, 'r2');
      return f.errorCode === ErrorCode.NONE && f.highWatermark === BigInt(COUNT) ? f : null;
    },
    { what: 'the r2 follower at high watermark 200', timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.equal(served.preferredReadReplica, -1, 'only the leader names a replica');
  assert.ok(recordBytes(served) > COUNT * 100, `records: ${recordBytes(served)} bytes`);
  const old = await fetchAs(cluster, topicId, R2, 10, 'r2');
  assert.equal(old.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  return `leader ${LEADER} (r1) answered PreferredReadReplica=${p.preferredReadReplica} (${recordBytes(p)} B of records); follower ${R2} (r2) served ${recordBytes(served)} B`;
}

/** confluent-kafka with client.rack=r2 reads the COUNT records in order; librdkafka's preferred-replica lines. */
export async function consumeWithConfluent(cluster: Cluster, clientId: string): Promise<string[]> {
  const spec = {
    bootstrap: cluster.bootstrap(),
    topic: TOPIC,
    rack: 'r2',
    client_id: clientId,
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
  const report = String(r.stdout)
    .split('\n')
    .filter((l) => l.startsWith('report: '));
  assert.ok(
    report.some((l) => l.includes(`migrating from broker ${LEADER} to ${R2}`)),
    `librdkafka moved to broker ${R2}: ${report.join(' | ')}`,
  );
  return report;
}

const JAVA_SOURCE = join(REPO_ROOT, 'test', 'helpers', 'java', 'RackConsumer.java');
const JAVA_LIB = join(REPO_ROOT, '.cache', 'clients', 'java', 'lib');
const JAVA_CLASSES = join(REPO_ROOT, 'dist', 'test', 'helpers', 'classes');

/** Compiles RackConsumer.java (as the chaos workload is) when its class is missing or older. */
async function ensureRackConsumerCompiled(): Promise<void> {
  requireJavaClient(JAVA_LIB);
  await compileJava(JAVA_SOURCE, JAVA_CLASSES, `${JAVA_LIB}/*`);
}

/** kafka-clients 4.4.0 with client.rack=r2 reads the COUNT records in order. */
export async function consumeWithJava(cluster: Cluster, clientId: string): Promise<void> {
  await ensureRackConsumerCompiled();
  const args = [cluster.bootstrap(), TOPIC, 'r2', clientId, String(COUNT), '60000'];
  const r = await execa(
    'java',
    [
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-Xmx256m',
      '-cp',
      `${JAVA_CLASSES}:${JAVA_LIB}/*`,
      'RackConsumer',
      ...args,
    ],
    { reject: false, all: true, timeout: 90_000 },
  );
  assert.equal(r.exitCode, 0, `RackConsumer failed:\n${String(r.all).slice(-4000)}`);
  assert.equal(String(r.stdout).trim(), `values value-0 value-${COUNT - 1}`);
}

/**
 * kill -9 of the r2 follower: once fenced and out of the ISR the leader serves r2 clients itself;
 * restarted and back in the ISR it is named again. How long leaving the ISR took (ms).
 */
export async function followerDownAndBack(cluster: Cluster, topicId: string): Promise<number> {
  const follower = cluster.node(R2);
  await follower.kill();
  const started = Date.now();
  await waitPartition(cluster, TOPIC, 'broker 3 out of the ISR', (p) => p.leader === LEADER && !p.isr.includes(R2));
  const outMs = Date.now() - started;
  // The metadata answer may come from a broker whose image is a moment ahead of the leader's own
  // (Kafka 4.4.0 named r2 once in CI right after another broker listed the shrunken ISR): the leader
  // stops naming r2 once its own image has the new ISR.
  const alone = await waitFor(
    async () => {
      const f = await fetchAs(cluster, topicId, LEADER, 17, 'r2');
      return f.preferredReadReplica === -1 ? f : null;
    },
    { what: 'the leader serving r2 itself', timeoutMs: 15_000, intervalMs: 100 },
  );
  assert.equal(alone.errorCode, ErrorCode.NONE);
  assert.ok(recordBytes(alone) > COUNT * 100);
  await follower.start();
  await waitPartition(cluster, TOPIC, 'broker 3 back in the ISR', (p) => p.isr.includes(R2), 120_000);
  const again = await waitFor(
    async () => {
      const f = await fetchAs(cluster, topicId, LEADER, 17, 'r2');
      return f.preferredReadReplica === R2 ? f : null;
    },
    { what: 'the leader naming broker 3 again', timeoutMs: 30_000, intervalMs: 200 },
  );
  assert.equal(recordBytes(again), 0);
  return outMs;
}
