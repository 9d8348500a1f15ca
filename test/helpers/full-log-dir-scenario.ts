// A log dir whose file system fills up (ENOSPC from a real, tiny ext4 file system loop-mounted for
// the test, no fault seam), as a scenario for any implementation: a controller-only node and broker
// 2 with two log.dirs, the second on the small file system. A topic with one partition in each dir;
// acks=1 batches go to both until the full dir's partition fails. What a client sees is returned
// (the failing produce's error, what the next produces answer, DescribeLogDirs' error per dir) and
// the shared expectations are asserted: the first failure is KAFKA_STORAGE_ERROR, the other dir keeps
// serving, DescribeLogDirs answers KAFKA_STORAGE_ERROR for the full dir. Needs root (mount).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTopic, startCluster, waitForUnfenced, type Cluster, type NodeLauncher } from './cluster.js';
import { produceRaw, produceRawAppended } from './replication.js';
import { withRawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const BROKER = 2;
const TOPIC = 'full';

export interface FullDirOutcome {
  /** acknowledged batches to the full dir's partition before it failed */
  readonly ackedBatches: number;
  /** the error of the first produce that failed */
  readonly firstError: number | null;
  /** what the next produces to that partition answered */
  readonly later: Array<number | null>;
  /** DescribeLogDirs' error code for the full dir and for the other */
  readonly fullDirError: number;
  readonly otherDirError: number;
}

/**
 * A loop-mounted ext4 file system of `mb` MiB at `<base>/small`, `dir` a folder in it (a log dir may
 * not hold ext4's lost+found: Kafka refuses to start); `release` unmounts it and removes `base`.
 */
export function smallFileSystem(mb: number): { base: string; mount: string; dir: string; release(): void } {
  const base = mkdtempSync(join(tmpdir(), 'tkafka-full-dir-'));
  const img = join(base, 'small.img');
  const mount = join(base, 'small');
  execFileSync('truncate', ['-s', `${mb}M`, img]);
  execFileSync('mkfs.ext4', ['-q', '-F', img]);
  mkdirSync(mount);
  execFileSync('mount', ['-o', 'loop', img, mount]);
  const dir = join(mount, 'logs');
  mkdirSync(dir);
  return {
    base,
    mount,
    dir,
    release() {
      try {
        execFileSync('umount', [mount]);
      } catch {
        execFileSync('umount', ['-l', mount]);
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** DescribeLogDirs v4 through `port`, by log dir path. */
export async function logDirsByPath(port: number) {
  const r = await withRawClient(port, (c) => c.request(ApiKey.DescribeLogDirs, 4, { topics: null }));
  return new Map(r.results.map((d) => [d.logDir, d]));
}

/**
 * Waits until DescribeLogDirs through `port` shows one partition of a two-partition `topic` in
 * `other` and one in `full`; returns their indexes.
 */
export async function partitionsInBothDirs(
  port: number,
  topic: string,
  other: string,
  full: string,
): Promise<{ inOther: number; inFull: number }> {
  return waitFor(
    async () => {
      const dirs = await logDirsByPath(port);
      const of = (d: string) =>
        dirs
          .get(d)
          ?.topics.filter((t) => t.name === topic)
          .flatMap((t) => t.partitions.map((p) => p.partitionIndex)) ?? [];
      const [a, b] = [of(other), of(full)];
      return a.length === 1 && b.length === 1 ? { inOther: a[0]!, inFull: b[0]! } : null;
    },
    { what: `${topic}'s partitions in both log dirs`, timeoutMs: 60_000, intervalMs: 200 },
  );
}

export async function fullLogDirScenario(
  launcher: NodeLauncher,
  opts: { startTimeoutMs?: number } = {},
): Promise<FullDirOutcome> {
  const fs = smallFileSystem(24);
  let cluster: Cluster | undefined;
  try {
    const data1 = join(fs.base, 'data1');
    cluster = await startCluster({
      launcher,
      nodes: [
        { id: 1, roles: 'controller' },
        { id: BROKER, roles: 'broker', overrides: { 'log.dirs': `${data1},${fs.dir}` } },
      ],
      startTimeoutMs: opts.startTimeoutMs,
    });
    await waitForUnfenced(cluster, { ids: [BROKER] });
    assert.equal(await createTopic(cluster, TOPIC, { partitions: 2 }), ErrorCode.NONE);
    const port = cluster.node(BROKER).port;
    const { inFull, inOther } = await partitionsInBothDirs(port, TOPIC, data1, fs.dir);
    const batch = (p: number, i: number) =>
      Array.from({ length: 20 }, (_, j) => `${TOPIC}-${p}-${i * 20 + j}-`.padEnd(1000, 'x'));
    for (const p of [inFull, inOther]) await produceRawAppended(port, TOPIC, batch(p, 0), { acks: 1, partition: p });
    let ackedBatches = 1;
    let firstError: number | null | undefined;
    // ~21 kB a batch: 24 MiB are full after ~1,100 batches; bounded at 2,000
    for (let i = 1; i < 2000 && firstError === undefined; i++) {
      const code = await produceRaw(port, TOPIC, batch(inFull, i), { acks: 1, partition: inFull });
      if (code === ErrorCode.NONE) ackedBatches++;
      else firstError = code;
    }
    assert.notEqual(firstError, undefined, 'the small file system filled up');
    const later: Array<number | null> = [];
    for (let i = 0; i < 5; i++) {
      later.push(await produceRaw(port, TOPIC, batch(inFull, 5000 + i), { acks: 1, partition: inFull }));
      const other = await produceRaw(port, TOPIC, batch(inOther, 1 + i), { acks: 1, partition: inOther });
      assert.equal(other, ErrorCode.NONE, 'the other log dir keeps serving');
    }
    const dirs = await logDirsByPath(port);
    const outcome: FullDirOutcome = {
      ackedBatches,
      firstError: firstError ?? null,
      later,
      fullDirError: dirs.get(fs.dir)?.errorCode ?? -1,
      otherDirError: dirs.get(data1)?.errorCode ?? -1,
    };
    assert.equal(outcome.firstError, ErrorCode.KAFKA_STORAGE_ERROR, JSON.stringify(outcome));
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
