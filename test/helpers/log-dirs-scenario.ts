// Moving a replica between the log dirs of one broker (KIP-113), as a scenario for any cluster of one
// controller-only node and broker 2 with two log.dirs: run on tkafka (test/log-dirs-cluster.test.ts)
// and on Apache Kafka 4.4.0 (test/interop/log-dirs.test.ts), with the same expectations, tool output
// included. `reassign-partitions --execute` with `log_dirs` moves a partition holding data to the
// other dir while an idempotent acks=all producer keeps writing; `--verify` reports the move
// complete; every acknowledged record is read back once, in order, at its offset; DescribeLogDirs
// lists the partition in the new dir only, the old dir no longer has it, and after a broker restart it
// is still there. AlterReplicaLogDirs's per-partition errors too.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTopic, waitForUnfenced, type Cluster, type NodeSpec } from './cluster.js';
import { LedgerProducer, ledgerViolation, readPartitions } from './ledger.js';
import { waitFor } from './wait-for.js';
import { KafkaClient } from '../../src/client/client.js';
import { Consumer } from '../../src/client/consumer.js';
import { describeReplicaLogDirs } from '../../src/client/admin/reassignments.js';
import {
  describeConfig,
  incrementalAlterConfigs,
  OpType,
  resourceKey,
  ResourceType,
} from '../../src/client/admin/configs.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { AlterReplicaLogDirsResponse } from '../../src/protocol/generated/protocol/AlterReplicaLogDirs.js';
import type { DescribeLogDirsResponse } from '../../src/protocol/generated/protocol/DescribeLogDirs.js';
import { runTkafka } from './tool-run.js';
import { produceRawAppended } from './replication.js';

export const LOG_DIRS_BROKER = 2;
const BROKER = LOG_DIRS_BROKER;
const TOPIC = 'moving';

export const logDirsNodes = (): NodeSpec[] => [
  { id: 1, roles: 'controller' },
  { id: BROKER, roles: 'broker', logDirs: 2 },
];

/** The old dir goes 1 s after the swap (log.segment.delete.delay.ms, Kafka's too). */
export const LOG_DIRS_BROKER_OVERRIDES = { 'log.segment.delete.delay.ms': 1000 };

/** Broker 2 unfenced, the topic created. */
export async function prepareLogDirs(cluster: Cluster): Promise<void> {
  await waitForUnfenced(cluster, { ids: [BROKER] });
  assert.equal(await createTopic(cluster, TOPIC, { partitions: 1 }), ErrorCode.NONE);
}

/** `tkafka reassign-partitions <args>` in this process (stdout and stderr together). */
async function tool(args: string[]): Promise<{ code: number; out: string }> {
  const r = await runTkafka('reassign-partitions', args);
  return { code: r.code, out: r.out + r.err };
}

/** The partitions of TOPIC per log dir as DescribeLogDirs answers (`<partition>` or `<partition>:future`). */
async function logDirsOf(client: KafkaClient): Promise<Map<string, string[]>> {
  const r = await client.request<DescribeLogDirsResponse>({ node: BROKER }, 'DescribeLogDirs', { topics: null });
  return new Map(
    r.body.results.map((d) => [
      d.logDir,
      d.topics
        .filter((t) => t.name === TOPIC)
        .flatMap((t) => t.partitions.map((p) => `${p.partitionIndex}${p.isFutureKey ? ':future' : ''}`)),
    ]),
  );
}

/** A consumer reading TOPIC-0 from the beginning until stopped (bounded): what it read, in order. */
function tailReader(bootstrap: string[]): { stop: () => Promise<{ offset: bigint; value: string }[]> } {
  const client = new KafkaClient({ bootstrapServers: bootstrap });
  const consumer = new Consumer(client, { groupId: null, enableAutoCommit: false });
  const read: { offset: bigint; value: string }[] = [];
  let stopping = false;
  const loop = (async () => {
    consumer.assign([{ topic: TOPIC, partition: 0 }]);
    consumer.seekToBeginning([{ topic: TOPIC, partition: 0 }]);
    for (let i = 0; !stopping && i < 100_000; i++)
      for (const r of await consumer.poll(200)) read.push({ offset: r.offset, value: String(r.value) });
  })();
  return {
    stop: async () => {
      stopping = true;
      try {
        await loop;
      } finally {
        await consumer.close();
        client.close();
      }
      return read;
    },
  };
}

/** The move while a producer writes; returns the tools' output (for the test's diagnostics). */
export async function moveWhileProducing(cluster: Cluster, dir: string): Promise<string> {
  const broker = cluster.node(BROKER);
  const bootstrap = cluster.bootstrap();
  const dirs = [join(broker.dir, 'data'), join(broker.dir, 'data2')];
  const client = new KafkaClient({ bootstrapServers: bootstrap.split(',') });
  const producer = new LedgerProducer(bootstrap.split(','), TOPIC, [0], { batch: 20, maxPerPartition: 200_000 });
  try {
    producer.start();
    // and a consumer reads throughout: the partition serves reads during the move and the swap
    const reader = tailReader(bootstrap.split(','));
    await producer.progress(0, 2000);
    const where = await describeReplicaLogDirs(client, [{ topic: TOPIC, partition: 0, brokerId: BROKER }]);
    const src = where.get(`${TOPIC}-0-${BROKER}`)!.current!;
    assert.ok(dirs.includes(src), `${src} is one of ${dirs.join(', ')}`);
    const dest = dirs.find((d) => d !== src)!;

    const json = join(dir, 'move.json');
    writeFileSync(
      json,
      JSON.stringify({
        version: 1,
        partitions: [{ topic: TOPIC, partition: 0, replicas: [BROKER], log_dirs: [dest] }],
      }),
    );
    const exec = await tool(['--bootstrap-server', bootstrap, '--reassignment-json-file', json, '--execute']);
    assert.equal(exec.code, 0, exec.out);
    assert.match(
      exec.out,
      new RegExp(
        `Successfully started moving log directory to ${dest} for replica ${TOPIC}-0 with broker ${BROKER} \n`,
      ),
    );

    const verify = await waitFor(
      async () => {
        const v = await tool(['--bootstrap-server', bootstrap, '--reassignment-json-file', json, '--verify']);
        return v.out.includes(`Reassignment of replica ${TOPIC}-0-${BROKER} completed successfully.`) ? v : null;
      },
      { what: `the move of ${TOPIC}-0 to ${dest}`, timeoutMs: 90_000, intervalMs: 500 },
    );
    assert.equal(verify.code, 0);
    assert.equal(
      verify.out,
      'Status of partition reassignment:\n' +
        `Reassignment of partition ${TOPIC}-0 is completed.\n` +
        `Reassignment of replica ${TOPIC}-0-${BROKER} completed successfully.\n` +
        `Clearing broker-level throttles on broker ${BROKER}\n` +
        `Clearing topic-level throttles on topic ${TOPIC}\n`,
    );
    // the producer goes on writing into the moved replica
    await producer.progress(0, 500);
    await producer.stop();
    const tailed = await reader.stop();
    assert.deepEqual(producer.failed, []);

    const acked = producer.acked.get(0)!;
    const end = acked[acked.length - 1]!.offset + 1n;
    const check = async (): Promise<void> => {
      const read = await readPartitions(bootstrap.split(','), TOPIC, new Map([[0, end]]));
      assert.equal(ledgerViolation(acked, read.get(0)!), null);
    };
    await check();

    const expectIn = async (): Promise<void> => {
      const byDir = await logDirsOf(client);
      assert.deepEqual(byDir.get(dest), ['0']);
      assert.deepEqual(byDir.get(src), []);
      const left = readdirSync(src).filter((f) => f.startsWith(`${TOPIC}-`));
      assert.deepEqual(left, [], `${src} still has ${left.join(', ')}`);
      assert.deepEqual(
        readdirSync(dest).filter((f) => f.startsWith(`${TOPIC}-`)),
        [`${TOPIC}-0`],
      );
    };
    // the old directory (renamed -delete) goes after log.segment.delete.delay.ms
    await waitFor(() => readdirSync(src).every((f) => !f.startsWith(`${TOPIC}-`)), {
      what: `${src} without ${TOPIC}-0`,
      timeoutMs: 30_000,
    });
    await expectIn();

    await broker.stop();
    await broker.start();
    await waitForUnfenced(cluster, { ids: [BROKER] });
    await expectIn();
    await check();
    const ackedAt = new Map(acked.map((a) => [a.offset, a.value]));
    assert.ok(tailed.length > 0);
    for (let i = 0; i < tailed.length; i++) {
      const r = tailed[i]!;
      if (i > 0) assert.ok(r.offset > tailed[i - 1]!.offset, `read ${r.offset} after ${tailed[i - 1]!.offset}`);
      if (ackedAt.has(r.offset)) assert.equal(r.value, ackedAt.get(r.offset), `value at ${r.offset}`);
    }
    return `${exec.out}${verify.out}${acked.length} acknowledged records read back once, in order; ${tailed.length} read during the move`;
  } finally {
    await producer.stop().catch(() => undefined);
    client.close();
  }
}

/** AlterReplicaLogDirs per partition: LOG_DIR_NOT_FOUND, UNKNOWN_TOPIC_OR_PARTITION, NONE when already there. */
export async function alterLogDirErrors(cluster: Cluster): Promise<void> {
  const broker = cluster.node(BROKER);
  const client = new KafkaClient({ bootstrapServers: cluster.bootstrap().split(',') });
  try {
    const where = await describeReplicaLogDirs(client, [{ topic: TOPIC, partition: 0, brokerId: BROKER }]);
    const current = where.get(`${TOPIC}-0-${BROKER}`)!.current!;
    const r = await client.request<AlterReplicaLogDirsResponse>({ node: BROKER }, 'AlterReplicaLogDirs', {
      dirs: [
        { path: join(broker.dir, 'nowhere'), topics: [{ name: TOPIC, partitions: [0] }] },
        { path: current, topics: [{ name: 'no-such-topic', partitions: [0] }] },
        { path: current, topics: [{ name: TOPIC, partitions: [1] }] },
      ],
    });
    const codes = r.body.results.flatMap((t) =>
      t.partitions.map((p) => `${t.topicName}-${p.partitionIndex}:${p.errorCode}`),
    );
    assert.deepEqual(codes.sort(), [
      `${TOPIC}-0:${ErrorCode.LOG_DIR_NOT_FOUND}`,
      `${TOPIC}-1:${ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}`,
      `no-such-topic-0:${ErrorCode.UNKNOWN_TOPIC_OR_PARTITION}`,
    ]);
    const again = await client.request<AlterReplicaLogDirsResponse>({ node: BROKER }, 'AlterReplicaLogDirs', {
      dirs: [{ path: current, topics: [{ name: TOPIC, partitions: [0] }] }],
    });
    assert.deepEqual(again.body.results, [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);
    assert.deepEqual((await logDirsOf(client)).get(current), ['0']);
  } finally {
    client.close();
  }
}

/**
 * A move throttled by `--replica-alter-log-dirs-throttle` (replica.alter.log.dirs.io.max.bytes.per.second
 * on the broker while it runs): 3 MB copied at `rate` B/s takes at least min(10 s, (size − one 1 MiB
 * chunk) / rate) — a lower bound only, never an upper one — and completes; `--verify` removes the
 * throttle from the broker's configs. Returns the move's duration in ms.
 */
export async function throttledMove(cluster: Cluster, dir: string, rate = 300_000): Promise<number> {
  const topic = 'slow-move';
  const broker = cluster.node(BROKER);
  const bootstrap = cluster.bootstrap();
  const client = new KafkaClient({ bootstrapServers: bootstrap.split(',') });
  try {
    assert.equal(await createTopic(cluster, topic, { partitions: 1 }), ErrorCode.NONE);
    const value = 'x'.repeat(1000);
    for (let i = 0; i < 300; i++) await produceRawAppended(broker.port, topic, Array(10).fill(value), { acks: -1 });
    const where = await describeReplicaLogDirs(client, [{ topic, partition: 0, brokerId: BROKER }]);
    const src = where.get(`${topic}-0-${BROKER}`)!.current!;
    const dest = [join(broker.dir, 'data'), join(broker.dir, 'data2')].find((d) => d !== src)!;
    const json = join(dir, 'slow-move.json');
    writeFileSync(
      json,
      JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas: [BROKER], log_dirs: [dest] }] }),
    );
    // The tool sets the broker throttle (through the controller) and then asks the broker to move;
    // the broker learns the throttle from the metadata log, so under load the copy could start before
    // it (on Kafka too). The throttle is set first here, and awaited in broker 2's own view.
    const throttle = { type: ResourceType.BROKER, name: String(BROKER) };
    const key = 'replica.alter.log.dirs.io.max.bytes.per.second';
    const ops = [{ name: key, op: OpType.SET, value: String(rate) }];
    const set = (await incrementalAlterConfigs(client, [{ resource: throttle, ops }])).get(resourceKey(throttle));
    assert.ok(set?.ok, set && !set.ok ? set.error.message : 'no result');
    const throttleOnBroker = async (): Promise<string | null | undefined> =>
      (await describeConfig(client, throttle)).find((c) => c.name === key)?.value;
    await waitFor(async () => (await throttleOnBroker()) === String(rate), { what: `${key} on broker ${BROKER}` });
    const started = Date.now();
    const exec = await tool([
      '--bootstrap-server',
      bootstrap,
      '--reassignment-json-file',
      json,
      '--execute',
      '--replica-alter-log-dirs-throttle',
      String(rate),
    ]);
    assert.equal(exec.code, 0, exec.out);
    assert.match(exec.out, new RegExp(`The replica-alter-dir throttle limit was set to ${rate} B/s\n`));
    const done = async (): Promise<boolean> => {
      const r = await describeReplicaLogDirs(client, [{ topic, partition: 0, brokerId: BROKER }]);
      const info = r.get(`${topic}-0-${BROKER}`);
      return info?.current === dest && info.future === null;
    };
    await waitFor(done, { what: `${topic}-0 in ${dest}`, timeoutMs: 120_000, intervalMs: 200 });
    const ms = Date.now() - started;
    const size = 300 * 10 * 1000;
    const bound = Math.min(10_000, ((size - 1_048_576) / rate) * 1000);
    assert.ok(ms >= bound, `a ${size} B move at ${rate} B/s took ${ms} ms, less than ${Math.round(bound)} ms`);
    const verify = await tool(['--bootstrap-server', bootstrap, '--reassignment-json-file', json, '--verify']);
    assert.match(verify.out, new RegExp(`Reassignment of replica ${topic}-0-${BROKER} completed successfully\\.\n`));
    assert.match(verify.out, new RegExp(`Clearing broker-level throttles on broker ${BROKER}\n`));
    await waitFor(async () => (await throttleOnBroker()) == null, { what: `${key} cleared on broker ${BROKER}` });
    return ms;
  } finally {
    client.close();
  }
}
