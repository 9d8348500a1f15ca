// The chaos harness's short schedule (issue 15): a 3-broker cluster (+ one controller), RF=3 and
// min.insync.replicas=2, idempotent acks=all producers and a transactional producer writing
// numbered records while ≥ 20 faults (kill -9, SIGSTOP, network partitions through the harness's
// proxies) happen one at a time; the checker then finds nothing lost, duplicated, reordered, or
// partly visible. On tkafka by default; CHAOS_TARGET=kafka runs it on Apache Kafka 4.4.0 (the
// oracle). CHAOS_SEED replays a schedule; CHAOS_FAULTS changes the count.
//
//   node --test dist/test/chaos/chaos.test.js
//   CHAOS_TARGET=kafka CHAOS_SEED=1234 node --test dist/test/chaos/chaos.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runChaos } from './run.js';
import type { ChaosTarget } from './cluster.js';

const target = (process.env.CHAOS_TARGET ?? 'tkafka') as ChaosTarget;
if (target !== 'tkafka' && target !== 'kafka') throw new Error(`CHAOS_TARGET must be tkafka or kafka, not ${target}`);
const faults = Number(process.env.CHAOS_FAULTS ?? 21);

test(
  `chaos on ${target}: ${faults} faults (kill -9, pause, partition) lose no acknowledged record`,
  { timeout: 30 * 60_000 },
  async () => {
    const report = await runChaos({ target, faults, maxTotalMs: 20 * 60_000 });
    console.log(`${report.summary} wall=${Math.round(report.wallMs / 1000)}s`);
    assert.ok(report.counts.kill > 0 && report.counts.pause > 0 && report.counts.partition > 0, report.summary);
    assert.ok(
      report.faults.length >= Math.min(20, faults),
      `only ${report.faults.length} faults within the time bound`,
    );
    assert.ok(report.result.acked > 0, 'nothing was acknowledged');
    assert.equal(report.result.ok, true, `${report.summary}\n${report.result.problems.join('\n')}`);
  },
);
