// A partition moved between brokers with and without a replication throttle, shared by
// test/replication-throttle-cluster.test.ts and bench/reassign-throttle.bench.ts: fill a partition
// with N bytes, start its reassignment (`reassign-partitions --execute [--throttle R]`, run in this
// process as the user runs it, or AlterPartitionReassignments without a throttle), sample how the
// new replica's log grows, and wait until the reassignment completes.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cluster, ClusterNode } from './cluster.js';
import { createReplicatedTopic, partitionDir, produceRaw, produceRawAppended, waitPartition } from './replication.js';
import { alterReassignments } from './reassignment-scenario.js';
import { waitFor } from './wait-for.js';
import { runTkafka, type Run } from './tool-run.js';

/** Creates `topic` with one partition on `leader` and appends about `bytes` bytes of 1000-byte values in 10 KB batches. */
export async function fillPartition(cluster: Cluster, topic: string, leader: number, bytes: number): Promise<void> {
  const port = cluster.node(leader).port;
  assert.equal(await createReplicatedTopic(port, topic, { replicationFactor: -1, assignment: [leader] }), 0);
  await waitPartition(cluster, topic, `led by ${leader}`, (p) => p.leader === leader);
  const value = 'x'.repeat(1000);
  // the leader may learn of its partition after another broker does
  await produceRawAppended(port, topic, Array(10).fill(value), { acks: -1 });
  const batches = Math.ceil(bytes / 10_000);
  for (let i = 1; i < batches; i++) {
    const code = await produceRaw(port, topic, Array(10).fill(value), { acks: -1 });
    assert.equal(code, 0, `produce ${i} to ${topic}`);
  }
}

/** Bytes of a partition's segment files on a node (0 before it exists). */
export function logSize(node: ClusterNode, topic: string): number {
  const dir = partitionDir(node, topic);
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.log')) continue;
    try {
      total += statSync(join(dir, f)).size;
    } catch {
      // a segment deleted between the listing and the stat
    }
  }
  return total;
}

/** `tkafka reassign-partitions <args>` in this process; exit code and output. */
export const reassignTool = (args: string[]): Promise<Run> => runTkafka('reassign-partitions', args);

export interface MoveResult {
  /** from the request to replicas = target and ISR = target */
  durationMs: number;
  /** the new replica's log size at the end */
  bytes: number;
  /** the most the new replica's log grew in any one second (sampled every 250 ms) */
  peakBytesPerSec: number;
}

/**
 * Moves partition 0 of `topic` from its single replica to `[to]`: with `throttle` through
 * `reassign-partitions --execute --throttle`, else by AlterPartitionReassignments. Waits until the
 * partition's replicas and ISR are `[to]`, then (throttled) clears the throttles with `--verify`.
 */
export async function moveReplica(
  cluster: Cluster,
  topic: string,
  to: ClusterNode,
  throttle?: number,
  timeoutMs = 120_000,
): Promise<MoveResult> {
  const samples: Array<[number, number]> = [];
  const sample = (): void => {
    samples.push([Date.now(), logSize(to, topic)]);
  };
  const timer = setInterval(sample, 250);
  const started = Date.now();
  let dir: string | undefined;
  try {
    sample();
    if (throttle === undefined) {
      const r = await alterReassignments(to.port, [
        { name: topic, partitions: [{ partitionIndex: 0, replicas: [to.id] }] },
      ]);
      assert.equal(r.responses[0]?.partitions[0]?.errorCode, 0, JSON.stringify(r));
    } else {
      dir = mkdtempSync(join(tmpdir(), 'tkafka-throttle-'));
      const plan = join(dir, 'plan.json');
      writeFileSync(
        plan,
        JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas: [to.id], log_dirs: ['any'] }] }),
      );
      const B = ['--bootstrap-server', cluster.bootstrap()];
      const r = await reassignTool([
        ...B,
        '--execute',
        '--reassignment-json-file',
        plan,
        '--throttle',
        String(throttle),
      ]);
      assert.equal(r.code, 0, r.out + r.err);
    }
    await waitPartition(
      cluster,
      topic,
      `replicas and ISR [${to.id}]`,
      (p) => p.replicas.join() === String(to.id) && p.isr.join() === String(to.id),
      timeoutMs,
    );
    const durationMs = Date.now() - started;
    sample();
    if (dir !== undefined) {
      const plan = join(dir, 'plan.json');
      const B = ['--bootstrap-server', cluster.bootstrap()];
      await waitFor(
        async () => {
          const r = await reassignTool([...B, '--verify', '--reassignment-json-file', plan]);
          return r.code === 0 && /Clearing broker-level throttles/.test(r.out);
        },
        { what: `${topic}: --verify clears the throttles`, timeoutMs: 30_000, intervalMs: 500 },
      );
    }
    let peak = 0;
    for (let i = 0; i < samples.length; i++) {
      for (let j = i + 1; j < samples.length && samples[j]![0] - samples[i]![0] <= 1000; j++)
        peak = Math.max(peak, samples[j]![1] - samples[i]![1]);
    }
    return { durationMs, bytes: samples[samples.length - 1]![1], peakBytesPerSec: peak };
  } finally {
    clearInterval(timer);
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
