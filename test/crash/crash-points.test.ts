// Crash points (issue 20): a single-node tkafka under mixed load (idempotent and transactional
// producers with aborts, a compacted topic with the cleaner running, retention deleting segments,
// frequent checkpoints and metadata snapshots), killed with -9 at seeded random moments and
// restarted; after each restart and at the end nothing acknowledged is lost or duplicated,
// read_committed never shows an aborted record, and the metadata image equals the one Kafka's
// DumpLogSegments decodes from the metadata log (test/crash/run.ts says how).
// CRASH_POINTS sets the count (the CI stage's default is small to stay within its time budget;
// the full run is CRASH_POINTS=100), CRASH_SEED replays a schedule, CRASH_META_EVERY spaces the
// metadata comparisons (default 1: after every restart).
//
//   node --test dist/test/crash/crash-points.test.js
//   CRASH_POINTS=100 CRASH_SEED=1234 node --test dist/test/crash/crash-points.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCrashPoints } from './run.js';

const points = Number(process.env.CRASH_POINTS ?? 12);
const metaEvery = Number(process.env.CRASH_META_EVERY ?? 1);
if (!Number.isSafeInteger(points) || points < 1) throw new Error(`CRASH_POINTS must be a positive integer`);

test(
  `${points} kill -9 crash points under mixed load lose nothing, show no aborted record, keep the metadata image`,
  { timeout: (15 + points) * 60_000 },
  async () => {
    const report = await runCrashPoints({ points, metaEvery, maxTotalMs: (5 + points) * 60_000 });
    console.log(`crash: broker activity seen (log lines): ${JSON.stringify(report.activity)}`);
    assert.equal(report.points.length, points, `only ${report.points.length} of ${points} crash points ran in time`);
    assert.ok(report.final.acked > 0, 'nothing was acknowledged');
    assert.ok(
      report.final.txns.committed > 0 && report.final.txns.aborted > 0,
      `txns: ${JSON.stringify(report.final.txns)}`,
    );
    assert.ok(report.metadataChecks >= Math.floor(points / metaEvery), 'metadata images compared');
    assert.ok(report.retainedLogStart > 0n, 'retention never deleted a segment of the retention topic');
    assert.ok(report.compactedRead < report.compactedAcked, 'the cleaner never compacted the compacted topic');
    assert.deepEqual(report.problems, [], report.summary);
    assert.equal(report.final.ok, true, report.summary);
  },
);
