// Broker (re)start time: ms from launching `tkafka server start` on an existing data directory
// (a combined broker + KRaft controller node) until it answers Metadata, polled every 10 ms —
// bench/vs-kafka/targets.ts's restartMs, the start-up row of `npm run bench:vs-kafka` — for the
// bundled broker (dist/bundle/broker.js, what `server start` loads) and for dist/src
// (TKAFKA_UNBUNDLED=1), alternating, next to `node -e 0` as the floor. Loopback only; RUNS restarts
// of each (default 10).
//   npm run build && node dist/bench/broker-startup.bench.js [runs]
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { startTarget } from './vs-kafka/targets.js';

const RUNS = Math.max(1, Math.min(50, Number(process.argv[2] ?? 10)));

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const floor: number[] = [];
const samples: Record<'bundled' | 'unbundled', number[]> = { bundled: [], unbundled: [] };
const target = await startTarget('tkafka');
try {
  for (let i = 0; i < RUNS + 1; i++) {
    for (const kind of ['bundled', 'unbundled'] as const) {
      if (kind === 'unbundled') process.env.TKAFKA_UNBUNDLED = '1';
      else delete process.env.TKAFKA_UNBUNDLED;
      const ms = await target.restartMs();
      if (i > 0) samples[kind].push(ms); // the first round warms the page cache
    }
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    if (i > 0) floor.push(performance.now() - t0);
  }
} finally {
  delete process.env.TKAFKA_UNBUNDLED;
  await target.cleanup();
}
const f = median(floor);
console.log(`broker restart to first Metadata answer (${RUNS} restarts each, median)`);
console.log(`node -e 0 (the floor)      ${f.toFixed(0).padStart(5)} ms`);
for (const [kind, s] of Object.entries(samples)) {
  const m = median(s);
  const sorted = [...s].sort((a, b) => a - b);
  console.log(
    `${`tkafka, ${kind}`.padEnd(26)} ${m.toFixed(0).padStart(5)} ms   ${(m / f).toFixed(1)}x node -e 0   min ${sorted[0]!.toFixed(0)} ms   max ${sorted.at(-1)!.toFixed(0)} ms`,
  );
}
