// A failing log directory (Kafka's LogDirFailureChannel), on a real broker with two log.dirs and the
// test-only file-fault seam (TKAFKA_TEST_FAULTS): writes to one dir's segments fail with ENOSPC after
// a few batches. The partition there answers KAFKA_STORAGE_ERROR (Produce, ListOffsets) from then on,
// the other dir keeps serving, DescribeLogDirs reports the failed dir with KAFKA_STORAGE_ERROR, a
// controlled shutdown leaves `.kafka_cleanshutdown` only in the healthy dir, and after a restart
// (without faults) every acknowledged record is read back, nothing else. Then every dir fails: the
// broker logs Kafka's "Shutdown broker because all log dirs in ... have failed" and exits with
// status 1 (Kafka's Exit.halt(1)), leaving no clean-shutdown marker.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createTopic, startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { faultEnvLauncher } from './helpers/fault-env-launcher.js';
import { ledgerViolation, readPartitions, type Acked } from './helpers/ledger.js';
import { produceRaw, produceRawAppended } from './helpers/replication.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode } from '../src/protocol/errors.js';

const BROKER = 2;
/** What the next start of the broker runs with (a function of its node dir). */
let faults: (nodeDir: string) => string | undefined = () => undefined;
const launcher = faultEnvLauncher((d) => faults(d));
let cluster: Cluster;

const broker = () => cluster.node(BROKER);
const dataDir = () => join(broker().dir, 'data');
const data2Dir = () => join(broker().dir, 'data2');

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: BROKER, roles: 'broker', logDirs: 2, launcher },
    ],
  });
  await waitForUnfenced(cluster, { ids: [BROKER] });
});

after(async () => {
  await cluster?.cleanup();
});

async function request<T>(fn: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(broker().port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

/** DescribeLogDirs v4: per dir, its error code and the partitions of `topic` it holds. */
async function logDirs(topic: string): Promise<Map<string, { errorCode: number; partitions: number[] }>> {
  const r = await request((c) => c.request(ApiKey.DescribeLogDirs, 4, { topics: null }));
  return new Map(
    r.results.map((d) => [
      d.logDir,
      {
        errorCode: d.errorCode,
        partitions: d.topics.filter((t) => t.name === topic).flatMap((t) => t.partitions.map((p) => p.partitionIndex)),
      },
    ]),
  );
}

/** The partition of `topic` (2 partitions, one per dir) that lives in data2 and the one in data. */
async function placement(topic: string): Promise<{ inData: number; inData2: number }> {
  return waitFor(
    async () => {
      const dirs = await logDirs(topic);
      const a = dirs.get(dataDir())?.partitions ?? [];
      const b = dirs.get(data2Dir())?.partitions ?? [];
      return a.length === 1 && b.length === 1 ? { inData: a[0]!, inData2: b[0]! } : null;
    },
    { what: `${topic}'s partitions in both log dirs`, timeoutMs: 30_000, intervalMs: 100 },
  );
}

async function listLatest(topic: string, partition: number): Promise<{ errorCode: number; offset: bigint }> {
  const r = await request((c) =>
    c.request(ApiKey.ListOffsets, 7, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: topic, partitions: [{ partitionIndex: partition, timestamp: -1n }] }],
    }),
  );
  const p = r.topics[0]!.partitions[0]!;
  return { errorCode: p.errorCode, offset: p.offset };
}

const values = (topic: string, p: number, from: number, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${topic}-${p}-${from + i}-`.padEnd(200, 'x'));

test('a failed log dir goes offline: KAFKA_STORAGE_ERROR there, the other dir serves, restart recovers', async () => {
  const topic = 'faulty';
  // the 30001st byte written to data2's segments of this topic fails (ENOSPC), part-way through a batch
  faults = (d) => `${join(d, 'data2')}/${topic}-*/*.log:write:ENOSPC:30001`;
  await broker().stop();
  await broker().start();
  await waitForUnfenced(cluster, { ids: [BROKER] });
  assert.equal(await createTopic(cluster, topic, { partitions: 2 }), ErrorCode.NONE);
  const { inData, inData2 } = await placement(topic);

  const acked = new Map<number, Acked[]>([
    [inData, []],
    [inData2, []],
  ]);
  const codes = new Map<number, number[]>([
    [inData, []],
    [inData2, []],
  ]);
  const BATCH = 20; // ~4.3 kB a batch: the 7th batch to data2 crosses 30001 bytes
  const send = async (p: number, n: number): Promise<void> => {
    const vs = values(topic, p, n, BATCH);
    const before = await listLatest(topic, p);
    const code = await produceRaw(broker().port, topic, vs, { acks: 1, partition: p });
    assert.notEqual(code, null, 'the broker answers');
    codes.get(p)!.push(code!);
    if (code === ErrorCode.NONE)
      vs.forEach((value, i) => acked.get(p)!.push({ n: n + i, offset: before.offset + BigInt(i), value }));
  };
  // the first batch of each waits for the leadership to reach the broker
  for (const p of [inData, inData2]) {
    const vs = values(topic, p, 0, BATCH);
    await produceRawAppended(broker().port, topic, vs, { acks: 1, partition: p });
    vs.forEach((value, i) => acked.get(p)!.push({ n: i, offset: BigInt(i), value }));
  }
  for (let i = 0, next = BATCH; i < 12; i++, next += BATCH) {
    await send(inData2, next);
    await send(inData, next);
  }
  const c2 = codes.get(inData2)!;
  const firstFail = c2.indexOf(ErrorCode.KAFKA_STORAGE_ERROR);
  assert.ok(firstFail > 0, `data2's partition failed after some batches: ${c2.join(',')}`);
  assert.deepEqual(
    c2.slice(firstFail),
    c2.slice(firstFail).map(() => ErrorCode.KAFKA_STORAGE_ERROR),
    'every produce after the failure answers KAFKA_STORAGE_ERROR',
  );
  assert.ok(
    codes.get(inData)!.every((c) => c === ErrorCode.NONE),
    `data's partition kept serving: ${codes.get(inData)!.join(',')}`,
  );
  assert.equal((await listLatest(topic, inData2)).errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  assert.equal((await listLatest(topic, inData)).errorCode, ErrorCode.NONE);

  const dirs = await logDirs(topic);
  assert.equal(dirs.get(data2Dir())?.errorCode, ErrorCode.KAFKA_STORAGE_ERROR, 'DescribeLogDirs: data2 offline');
  assert.deepEqual(dirs.get(data2Dir())?.partitions, []);
  assert.equal(dirs.get(dataDir())?.errorCode, ErrorCode.NONE);
  assert.deepEqual(dirs.get(dataDir())?.partitions, [inData]);

  const log = broker().logs(200_000);
  assert.match(log, new RegExp(`ERROR .*Error while appending records to ${topic}-${inData2} in dir ${data2Dir()}`));
  assert.match(log, new RegExp(`Stopping serving logs in dir ${data2Dir()}`));

  // controlled shutdown: the failed dir gets no clean-shutdown marker, so the next start recovers it
  await broker().stop();
  assert.ok(existsSync(join(dataDir(), '.kafka_cleanshutdown')), 'the healthy dir shut down cleanly');
  assert.ok(!existsSync(join(data2Dir(), '.kafka_cleanshutdown')), 'no marker in the failed dir');

  faults = () => undefined;
  await broker().start();
  await waitForUnfenced(cluster, { ids: [BROKER] });
  const until = new Map([...acked].map(([p, a]) => [p, BigInt(a.length)]));
  const read = await readPartitions([cluster.bootstrap()], topic, until);
  for (const [p, a] of acked) {
    assert.equal(ledgerViolation(a, read.get(p)!), null, `partition ${p}`);
    assert.equal((await listLatest(topic, p)).offset, BigInt(a.length), `partition ${p} ends after its last ack`);
  }
  assert.equal((await logDirs(topic)).get(data2Dir())?.errorCode, ErrorCode.NONE, 'data2 online again');
});

test('a dir failing while the broker loads it goes offline; the other dir serves', async (t) => {
  const topic = 'faulty'; // from the test above: one partition in each dir, data2's holding records
  const { inData, inData2 } = await placement(topic);
  faults = (d) => `${join(d, 'data2')}/*/*.log:open:EIO`;
  await broker().stop();
  const from = broker().logs(1_000_000).length;
  await broker().start();
  await waitForUnfenced(cluster, { ids: [BROKER] });
  const log = () => broker().logs(1_000_000).slice(from);
  await waitFor(() => new RegExp(`Stopping serving logs in dir ${data2Dir()}`).test(log()), {
    what: 'data2 taken offline at load',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  assert.match(log(), new RegExp(`ERROR .*Error while loading log dir ${data2Dir()}`));
  const dirs = await logDirs(topic);
  assert.equal(dirs.get(data2Dir())?.errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  assert.equal(dirs.get(dataDir())?.errorCode, ErrorCode.NONE);
  assert.deepEqual(dirs.get(dataDir())?.partitions, [inData], "data2's partition was not created in data");
  await produceRawAppended(broker().port, topic, ['more'], { acks: 1, partition: inData });
  const code = await produceRaw(broker().port, topic, ['more'], { acks: 1, partition: inData2 });
  assert.ok(code !== ErrorCode.NONE && code !== null, `data2's partition refuses: ${code}`);
  t.diagnostic(`produce to the partition of the dir that failed at load: error ${code}`);
  faults = () => undefined;
});

test('every log dir failed: the broker halts with Kafka message, status 1, no clean-shutdown marker', async () => {
  const topic = 'doomed';
  faults = (d) => `${d}/data*/${topic}-*/*.log:write:EIO:0`;
  await broker().stop();
  await broker().start();
  await waitForUnfenced(cluster, { ids: [BROKER] });
  assert.equal(await createTopic(cluster, topic, { partitions: 2 }), ErrorCode.NONE);
  const { inData, inData2 } = await placement(topic);
  const exited = launcher.exited();
  // data2 first: data holds the metadata log, whose failure alone would halt the broker
  await waitFor(
    async () => {
      const code = await produceRaw(broker().port, topic, ['x'], { acks: 1, partition: inData2 });
      return code === ErrorCode.KAFKA_STORAGE_ERROR;
    },
    { what: `KAFKA_STORAGE_ERROR from ${topic}-${inData2}`, timeoutMs: 30_000, intervalMs: 100 },
  );
  assert.ok(broker().running(), 'one dir left: still running');
  const code = await produceRaw(broker().port, topic, ['x'], { acks: 1, partition: inData });
  assert.ok(code === ErrorCode.KAFKA_STORAGE_ERROR || code === null, `last dir's produce: ${code}`);
  assert.equal(await exited, 1, 'Exit.halt(1)');
  assert.match(
    broker().logs(200_000),
    new RegExp(`FATAL .*Shutdown broker because all log dirs in ${dataDir()}, ${data2Dir()} have failed`),
  );
  assert.ok(!existsSync(join(dataDir(), '.kafka_cleanshutdown')));
  assert.ok(!existsSync(join(data2Dir(), '.kafka_cleanshutdown')));
});
