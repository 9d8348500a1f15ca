// Crash points on a 3-node tkafka cluster (three combined broker+controller nodes, RF=3,
// min.insync.replicas=2): the same mixed load and checks as crash-points.test.ts (test/crash/run.ts),
// each crash point killing one seeded node with -9, or all three at once (one point in five).
// CRASH_CLUSTER_POINTS sets the count (default 4 in CI), CRASH_SEED replays a schedule.
//
//   node --test dist/test/crash/crash-points-cluster.test.js
//   CRASH_CLUSTER_POINTS=30 CRASH_SEED=1234 node --test dist/test/crash/crash-points-cluster.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCrashPoints } from './run.js';

const points = Number(process.env.CRASH_CLUSTER_POINTS ?? 4);
const metaEvery = Number(process.env.CRASH_META_EVERY ?? 1);
if (!Number.isSafeInteger(points) || points < 1) throw new Error(`CRASH_CLUSTER_POINTS must be a positive integer`);

test(
  `3 nodes: ${points} kill -9 crash points under mixed load lose nothing, show no aborted record, keep the metadata image`,
  { timeout: (15 + 2 * points) * 60_000 },
  async () => {
    const report = await runCrashPoints({ nodes: 3, points, metaEvery, maxTotalMs: (5 + 2 * points) * 60_000 });
    console.log(`crash: broker activity seen: ${JSON.stringify(report.activity)}`);
    assert.equal(report.points.length, points, `only ${report.points.length} of ${points} crash points ran in time`);
    assert.ok(report.final.acked > 0, 'nothing was acknowledged');
    assert.ok(report.final.txns.committed > 0, `txns: ${JSON.stringify(report.final.txns)}`);
    assert.ok(report.metadataChecks >= 3, 'metadata images compared');
    assert.deepEqual(report.problems, [], report.summary);
    assert.equal(report.final.ok, true, report.summary);
  },
);
