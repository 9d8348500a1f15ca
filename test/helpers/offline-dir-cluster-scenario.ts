// A failed log dir in a replicated cluster (KIP-858), as a scenario for any implementation: a
// controller-only node and brokers 2, 3, 4; broker 2 has two log dirs, the second on a tiny
// loop-mounted ext4 (test/helpers/full-log-dir-scenario.ts `smallFileSystem`: real ENOSPC, no seam).
// A topic with replication factor 3 led by broker 2, one partition in each of its dirs; acks=1
// batches go to the partition in the small dir until it fails. Then the controller must log
// "Directories [<id>] in broker 2 marked offline, remaining directories: [<id>]", move that
// partition's leadership to broker 3 or 4 and take broker 2 out of its ISR, while the partition in
// broker 2's other dir keeps leader 2 and its full ISR; DescribeLogDirs on broker 2 answers
// KAFKA_STORAGE_ERROR for the full dir. What was seen is returned for comparison. Needs root (mount).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startCluster, waitForUnfenced, type Cluster, type NodeLauncher } from './cluster.js';
import { logDirsByPath, partitionsInBothDirs, smallFileSystem } from './full-log-dir-scenario.js';
import { produceRaw, produceRawAppended } from './replication.js';
import { withRawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/codec/types.js';

const BROKER = 2;
const TOPIC = 'offdir';
/** Kafka's ReplicationControlManager.handleDirectoriesOffline line. */
export const OFFLINE_DIRS_LINE = /Directories \[(\S+)\] in broker 2 marked offline, remaining directories: \[(\S+)\]/;

export interface OfflineDirOutcome {
  /** the error of the first produce to the full dir's partition that failed */
  readonly firstError: number | null;
  /** the controller logged Kafka's line with one offline and one remaining dir */
  readonly controllerLine: boolean;
  /** leader and ISR of the full dir's partition after the move, of the other partition */
  readonly moved: { leader: number; isr: number[] };
  readonly kept: { leader: number; isr: number[] };
  readonly fullDirError: number;
  readonly otherDirError: number;
}

/** Metadata v12 of `topic` through `port`: partition → leader and (sorted) ISR. */
export async function partitionLeaders(
  port: number,
  topic: string,
): Promise<Map<number, { leader: number; isr: number[] }>> {
  const md = await withRawClient(port, (c) =>
    c.request(ApiKey.Metadata, 12, {
      topics: [{ name: topic, topicId: ZERO_UUID }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    }),
  );
  return new Map(
    (md.topics[0]?.partitions ?? []).map((p) => [
      p.partitionIndex,
      { leader: p.leaderId, isr: [...p.isrNodes].sort((a, b) => a - b) },
    ]),
  );
}

export async function offlineDirClusterScenario(
  launcher: NodeLauncher,
  opts: { startTimeoutMs?: number } = {},
): Promise<OfflineDirOutcome> {
  const fs = smallFileSystem(24);
  let cluster: Cluster | undefined;
  try {
    const data1 = join(fs.base, 'data1');
    cluster = await startCluster({
      launcher,
      nodes: [
        { id: 1, roles: 'controller' },
        { id: BROKER, roles: 'broker', overrides: { 'log.dirs': `${data1},${fs.dir}` } },
        { id: 3, roles: 'broker' },
        { id: 4, roles: 'broker' },
      ],
      startTimeoutMs: opts.startTimeoutMs,
    });
    const c = cluster;
    await waitForUnfenced(c, { timeoutMs: 180_000 });
    const port = c.node(BROKER).port;
    await waitFor(
      async () => {
        const r = await withRawClient(port, (rc) =>
          rc.request(ApiKey.CreateTopics, 7, {
            topics: [
              {
                name: TOPIC,
                numPartitions: -1,
                replicationFactor: -1,
                assignments: [
                  { partitionIndex: 0, brokerIds: [BROKER, 3, 4] },
                  { partitionIndex: 1, brokerIds: [BROKER, 4, 3] },
                ],
                configs: [],
              },
            ],
            timeoutMs: 15_000,
            validateOnly: false,
          }),
        );
        const code = r.topics[0]?.errorCode;
        return code === ErrorCode.NONE || code === ErrorCode.TOPIC_ALREADY_EXISTS;
      },
      { what: `${TOPIC} created`, timeoutMs: 60_000, intervalMs: 500 },
    );
    const { inFull, inOther } = await partitionsInBothDirs(port, TOPIC, data1, fs.dir);
    await waitFor(
      async () => {
        const ps = [...(await partitionLeaders(port, TOPIC)).values()];
        return ps.length === 2 && ps.every((p) => p.leader === BROKER && p.isr.length === 3);
      },
      { what: 'both partitions led by broker 2 with 3 in-sync replicas', timeoutMs: 60_000, intervalMs: 200 },
    );
    const batch = (p: number, i: number) =>
      Array.from({ length: 20 }, (_, j) => `${TOPIC}-${p}-${i * 20 + j}-`.padEnd(1000, 'x'));
    for (const p of [inFull, inOther]) await produceRawAppended(port, TOPIC, batch(p, 0), { acks: 1, partition: p });
    let firstError: number | null | undefined;
    // ~21 kB a batch: 24 MiB are full after ~1,100 batches; bounded at 2,000
    for (let i = 1; i < 2000 && firstError === undefined; i++) {
      const code = await produceRaw(port, TOPIC, batch(inFull, i), { acks: 1, partition: inFull });
      if (code !== ErrorCode.NONE) firstError = code;
    }
    assert.notEqual(firstError, undefined, 'the small file system filled up');
    const line = await waitFor(() => OFFLINE_DIRS_LINE.exec(c.node(1).logs(2_000_000)), {
      what: "the controller's line for broker 2's full dir",
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const moved = await waitFor(
      async () => {
        const p = (await partitionLeaders(c.node(3).port, TOPIC)).get(inFull);
        return p && p.leader !== BROKER && p.leader !== -1 && !p.isr.includes(BROKER) ? p : null;
      },
      { what: `${TOPIC}-${inFull} led by another broker without broker 2`, timeoutMs: 60_000, intervalMs: 200 },
    );
    // the new leader takes acks=all writes; broker 2's replica in the failed dir does not follow
    // (Kafka's HostedPartition.Offline), so it does not come back into the ISR
    const leaderPort = c.node(moved.leader).port;
    for (let i = 0; i < 5; i++)
      await produceRawAppended(leaderPort, TOPIC, batch(inFull, 3000 + i), { acks: -1, partition: inFull });
    const after = (await partitionLeaders(c.node(3).port, TOPIC)).get(inFull)!;
    assert.deepEqual(after, moved, 'the ISR stays without broker 2');
    const kept = (await partitionLeaders(c.node(3).port, TOPIC)).get(inOther)!;
    const dirs = await logDirsByPath(port);
    const outcome: OfflineDirOutcome = {
      firstError: firstError ?? null,
      controllerLine: line[1] !== line[2],
      moved,
      kept,
      fullDirError: dirs.get(fs.dir)?.errorCode ?? -1,
      otherDirError: dirs.get(data1)?.errorCode ?? -1,
    };
    assert.equal(outcome.firstError, ErrorCode.KAFKA_STORAGE_ERROR, JSON.stringify(outcome));
    assert.ok([3, 4].includes(moved.leader), JSON.stringify(outcome));
    assert.deepEqual(moved.isr, [3, 4], JSON.stringify(outcome));
    assert.equal(kept.leader, BROKER, JSON.stringify(outcome));
    assert.deepEqual(kept.isr, [2, 3, 4], JSON.stringify(outcome));
    assert.equal(outcome.fullDirError, ErrorCode.KAFKA_STORAGE_ERROR, JSON.stringify(outcome));
    assert.equal(outcome.otherDirError, ErrorCode.NONE, JSON.stringify(outcome));
    return outcome;
  } catch (e) {
    if (cluster) (e as Error).message += `\n${cluster.logs(8000)}`;
    throw e;
  } finally {
    await cluster?.cleanup();
    fs.release();
  }
}
