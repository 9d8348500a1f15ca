// Restart time of one data directory under two (or more) builds, alternating: each round relaunches
// the stopped combined node from each tree in turn (`nice -n 19 <tree>/bin/tkafka server start`, through its launcher,
// on loopback ports 19192/19193, below the ephemeral range so that no client socket holds them,
// `log.dirs=<dataDir>/logs`), times it from the spawn until it answers
// Metadata (polled every 10 ms, as bench/vs-kafka/targets.ts's restartMs), then stops it with
// SIGTERM (a clean shutdown, so the next start needs no recovery). The first round is discarded
// (page cache, the bundle's code cache). Prints each tree's median, min and max.
//
// The data dir is prepared once, e.g. as README, Start-up, "Loading the logs" describes: start a node
// with these ports and log.dirs, create the bench's topics, produce into them, run a consumer group,
// stop it. A "before" tree is a copy of bin/, dist/ and package.json with node_modules linked.
// With TKAFKA_STARTUP_TRACE=1 in the environment the nodes' trace lines are passed on to stderr.
//   node dist/bench/restart-compare.bench.js <rounds> <dataDir> <label>=<tree> [<label>=<tree> ...]
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { metadataAnswers } from '../test/interop/helpers/apache-kafka.js';

const PORT = 19192;
const CONTROLLER_PORT = 19193;
const rounds = Math.max(0, Math.min(50, Number(process.argv[2] ?? 10)));
const dataDir = process.argv[3];
const trees = process.argv.slice(4).map((a) => {
  const i = a.indexOf('=');
  return { label: a.slice(0, i), tree: a.slice(i + 1) };
});
if (!dataDir || trees.length === 0 || trees.some((t) => !t.label || !t.tree)) {
  console.error('usage: restart-compare.bench.js <rounds> <dataDir> <label>=<tree> [<label>=<tree> ...]');
  process.exit(2);
}

const overrides = {
  listeners: `PLAINTEXT://127.0.0.1:${PORT},CONTROLLER://127.0.0.1:${CONTROLLER_PORT}`,
  'advertised.listeners': `PLAINTEXT://127.0.0.1:${PORT}`,
  'controller.quorum.voters': `1@127.0.0.1:${CONTROLLER_PORT}`,
  'log.dirs': `${dataDir}/logs`,
  'group.initial.rebalance.delay.ms': '0',
  'num.partitions': '1',
};
const args = [
  'bin/tkafka',
  'server',
  'start',
  ...Object.entries(overrides).flatMap(([k, v]) => ['--override', `${k}=${v}`]),
];

/** ms from the spawn until Metadata answers; the node is stopped (SIGTERM) before this resolves. */
async function restartMs(tree: string): Promise<number> {
  const t0 = performance.now();
  const child = spawn('nice', ['-n', '19', ...args], { cwd: tree, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  let tail = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    tail = (tail + d.toString()).slice(-4000);
    const lines = err.split('\n');
    err = lines.pop()!;
    for (const l of lines) if (l.startsWith('[startup-trace]')) process.stderr.write(`${l}\n`);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  try {
    // at most 2 minutes of polling
    for (let i = 0; i < 12_000 && !exitedEarly; i++) {
      if (await metadataAnswers(PORT, 1, 1000)) return performance.now() - t0;
      await delay(10);
    }
    throw new Error(`${tree}: no Metadata answer on port ${PORT}${exitedEarly ? ' (the node exited)' : ''}:\n${tail}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const samples = new Map(trees.map((t) => [t.label, [] as number[]]));
for (let r = 0; r <= rounds; r++) {
  for (const t of r % 2 ? trees : [...trees].reverse()) {
    const ms = await restartMs(t.tree);
    if (r > 0) samples.get(t.label)!.push(ms);
  }
}
for (const [label, s] of samples) {
  if (s.length === 0) continue;
  const sorted = [...s].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const range = `min ${sorted[0]!.toFixed(0)}   max ${sorted.at(-1)!.toFixed(0)}`;
  const each = `${s.length} restarts: ${s.map((x) => x.toFixed(0)).join(' ')}`;
  console.log(`${label.padEnd(12)} median ${median.toFixed(0).padStart(5)} ms   ${range}   (${each})`);
}
