// The live-broker fuzzer (issue 20) against a real `tkafka server start`: FUZZ_FRAMES mutated
// frames (default 100,000; the 1,000,000-frame run is `node dist/test/fuzz/run.js --frames
// 1000000`) of every advertised API over many loopback connections: the broker stays alive, a
// correct client's produce/fetch/metadata keep succeeding during and after, the RSS stays under
// FUZZ_RSS_BOUND_MIB (default 512 MiB), no connection hangs, and no request ends in a handler
// exception (UNKNOWN_SERVER_ERROR). FUZZ_SEED replays a run's frames.
//
//   node --test dist/test/fuzz/live-fuzz.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzBroker, rssBound, verdict } from './run.js';

const frames = Number(process.env.FUZZ_FRAMES ?? 100_000);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

test(
  `live fuzz: ${frames} mutated frames (seed ${seed}): no crash, no hang, bounded RSS, no handler exception`,
  { timeout: 30 * 60_000 },
  async () => {
    const r = await fuzzBroker({ frames, seed, maxMs: 20 * 60_000 });
    console.log(
      `fuzz: seed=${r.seed} frames=${r.frames} mutated=${r.mutated} processed=${r.processed} connections=${r.connections} responses=${r.responses} ` +
        `closed_by_broker=${r.closedByBroker} stuck=${r.stuck} apis=${r.apis} seeds=${r.seeds} probes=${r.probes.ok}/${r.probes.failed} ` +
        `probe_max=${r.probes.maxMs}ms rss=${r.rssMiB.baseline}→${r.rssMiB.peak}→${r.rssMiB.last}MiB wall=${Math.round(r.wallMs / 1000)}s ` +
        `mutations=${JSON.stringify(r.byMutation)} (replay with FUZZ_SEED=${r.seed})`,
    );
    for (const [k, n] of Object.entries(r.handlerErrors)) console.log(`fuzz: handler exception ${n}× ${k}`);
    for (const c of r.stuckConnections) console.log(`fuzz: stuck connection, seed APIs [${c.apis}], bytes ${c.frames}`);
    assert.ok(r.processed >= frames, `only ${r.processed} of ${frames} mutated frames processed within the time bound`);
    assert.deepEqual(verdict(r, rssBound()), [], `seed ${r.seed}`);
  },
);
