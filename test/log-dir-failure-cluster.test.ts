// KIP-858 end to end on tkafka: one controller and three brokers, each with two log dirs. A topic with
// replication factor 3 led by broker 2, one partition in each of broker 2's dirs (the brokers tell the
// controller which dir holds each replica: AssignReplicasToDirs). Writes to broker 2's data2 fail
// with ENOSPC (the test-only seam TKAFKA_TEST_FAULTS) while an idempotent acks=all producer writes to
// both partitions. The dir goes offline, broker 2 reports it in its heartbeats, and the controller
// (Kafka's handleDirectoriesOffline) logs Kafka's line, moves the leadership of the partition in
// data2 to another broker and takes broker 2 out of its ISR; the producer goes on with nothing lost;
// DescribeLogDirs on broker 2 reports data2 with KAFKA_STORAGE_ERROR; the partition in broker 2's
// other dir stays led by broker 2 with a full ISR.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { faultEnvLauncher } from './helpers/fault-env-launcher.js';
import { LedgerProducer, ledgerViolation, readPartitions } from './helpers/ledger.js';
import { withRawClient } from './helpers/raw-client.js';
import { partitionLeaders } from './helpers/offline-dir-cluster-scenario.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode } from '../src/protocol/errors.js';

const CONTROLLER = 1;
const FAILING = 2;
const TOPIC = 'dirfail';
let cluster: Cluster;
let faults: (nodeDir: string) => string | undefined = () => undefined;

const broker = () => cluster.node(FAILING);
const dataDir = () => join(broker().dir, 'data');
const data2Dir = () => join(broker().dir, 'data2');
const directoryId = (dir: string): string =>
  /directory\.id=(\S+)/.exec(readFileSync(join(dir, 'meta.properties'), 'utf8'))![1]!;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: CONTROLLER, roles: 'controller' },
      { id: FAILING, roles: 'broker', logDirs: 2, launcher: faultEnvLauncher((d) => faults(d)) },
      { id: 3, roles: 'broker', logDirs: 2 },
      { id: 4, roles: 'broker', logDirs: 2 },
    ],
  });
  await waitForUnfenced(cluster);
});

after(async () => {
  await cluster?.cleanup();
});

/** DescribeLogDirs v4 on broker 2: per dir, its error code and the partitions of TOPIC it holds. */
async function logDirs(): Promise<Map<string, { errorCode: number; partitions: number[] }>> {
  const r = await withRawClient(broker().port, (c) => c.request(ApiKey.DescribeLogDirs, 4, { topics: null }));
  return new Map(
    r.results.map((d) => [
      d.logDir,
      {
        errorCode: d.errorCode,
        partitions: d.topics.filter((t) => t.name === TOPIC).flatMap((t) => t.partitions.map((p) => p.partitionIndex)),
      },
    ]),
  );
}

test('a failed log dir: the controller moves its partitions off the broker, the producer loses nothing', async () => {
  // from the ~24th kB written to data2's segments of TOPIC, every write fails (ENOSPC)
  faults = (d) => `${join(d, 'data2')}/${TOPIC}-*/*.log:write:ENOSPC:24001`;
  await broker().stop();
  await broker().start();
  await waitForUnfenced(cluster);

  const created = await withRawClient(broker().port, (c) =>
    c.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [
            { partitionIndex: 0, brokerIds: [FAILING, 3, 4] },
            { partitionIndex: 1, brokerIds: [FAILING, 4, 3] },
          ],
          configs: [],
        },
      ],
      timeoutMs: 15_000,
      validateOnly: false,
    }),
  );
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE, created.topics[0]!.errorMessage ?? '');
  // one partition in each of broker 2's dirs
  const { inData, inData2 } = await waitFor(
    async () => {
      const dirs = await logDirs();
      const a = dirs.get(dataDir())?.partitions ?? [];
      const b = dirs.get(data2Dir())?.partitions ?? [];
      return a.length === 1 && b.length === 1 ? { inData: a[0]!, inData2: b[0]! } : null;
    },
    { what: `${TOPIC}'s partitions in both of broker 2's dirs`, timeoutMs: 30_000, intervalMs: 100 },
  );
  await waitFor(
    async () => {
      const ps = await partitionLeaders(broker().port, TOPIC);
      return [...ps.values()].length === 2 && [...ps.values()].every((p) => p.leader === FAILING && p.isr.length === 3);
    },
    { what: 'both partitions led by broker 2 with 3 in-sync replicas', timeoutMs: 60_000, intervalMs: 200 },
  );

  const producer = new LedgerProducer(cluster.bootstrap().split(','), TOPIC, [inData, inData2], { batch: 10 });
  producer.start();
  let movedTo: number | undefined;
  try {
    // Kafka's line on the controller, with the dir ids of broker 2's meta.properties
    const failed = directoryId(data2Dir());
    const remaining = directoryId(dataDir());
    await waitFor(
      () =>
        cluster
          .node(CONTROLLER)
          .logs(400_000)
          .includes(`Directories [${failed}] in broker 2 marked offline, remaining directories: [${remaining}]`),
      {
        what: `the controller to mark broker 2's data2 (${failed}) offline\n${cluster.logs(4000)}`,
        timeoutMs: 90_000,
        intervalMs: 200,
      },
    );
    // the partition in data2 moves to another broker; broker 2 leaves its ISR
    const moved = await waitFor(
      async () => {
        const p = (await partitionLeaders(cluster.node(3).port, TOPIC)).get(inData2);
        return p && p.leader !== FAILING && p.leader !== -1 && !p.isr.includes(FAILING) ? p : null;
      },
      {
        what: `${TOPIC}-${inData2} led by another broker, without broker 2 in its ISR`,
        timeoutMs: 30_000,
        intervalMs: 100,
      },
    );
    assert.ok([3, 4].includes(moved.leader));
    movedTo = moved.leader;
    // the producer keeps going on both partitions after the move
    await producer.progress(inData2, 200, 60_000);
    await producer.progress(inData, 200, 60_000);
    // broker 2's replica in the failed dir does not follow (Kafka's HostedPartition.Offline): it
    // does not come back into the ISR while the new leader takes writes
    const after = (await partitionLeaders(cluster.node(3).port, TOPIC)).get(inData2)!;
    assert.equal(after.leader, movedTo);
    assert.ok(!after.isr.includes(FAILING), `ISR ${after.isr.join(',')}`);
    // the partition in broker 2's other dir: still broker 2's, full ISR
    const kept = (await partitionLeaders(cluster.node(3).port, TOPIC)).get(inData)!;
    assert.equal(kept.leader, FAILING);
    assert.equal(kept.isr.length, 3);
    // DescribeLogDirs on broker 2: data2 offline
    const dirs = await logDirs();
    assert.equal(dirs.get(data2Dir())?.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
    assert.equal(dirs.get(dataDir())?.errorCode, ErrorCode.NONE);
    assert.deepEqual(dirs.get(dataDir())?.partitions, [inData]);
  } catch (e) {
    (e as Error).message += `\n${cluster.logs(12_000)}`;
    throw e;
  } finally {
    await producer.stop();
  }
  assert.deepEqual(producer.failed, [], 'no send failed');
  assert.ok(producer.idempotent);
  assert.ok(broker().running(), 'broker 2 still runs with one dir');

  const ends = new Map([...producer.acked].map(([p, a]) => [p, a.length > 0 ? a[a.length - 1]!.offset + 1n : 0n]));
  const read = await readPartitions(cluster.bootstrap().split(','), TOPIC, ends);
  for (const p of [inData, inData2]) {
    assert.equal(ledgerViolation(producer.acked.get(p)!, read.get(p)!), null, `${TOPIC}-${p}`);
    assert.ok(producer.acked.get(p)!.length >= 200);
  }
  console.log(
    `acked ${[...producer.acked].map(([p, a]) => `${TOPIC}-${p}: ${a.length}`).join(', ')}; ${TOPIC}-${inData2} moved to broker ${movedTo}`,
  );
});
