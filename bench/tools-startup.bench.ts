// End-to-end start-up cost of the tools: wall time of `node bin/tkafka <tool> ...` against a local
// tkafka broker (process spawn, module loading, connect + ApiVersions, the request, exit), and
// how many ES modules of dist/src each loads (none when it runs from dist/bundle/cli.cjs; `topics
// --list` is also run with TKAFKA_UNBUNDLED=1, from dist/src). Each median is also shown as a multiple of the median of `node -e 0` (the
// floor) run alternately with it; the target for `tkafka topics --list` is within about 1.5x of it
// (issue 22).
//   npm run build && node dist/bench/tools-startup.bench.js [runs]
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { startBroker } from '../test/helpers/broker-process.js';
import { REPO_ROOT } from '../test/helpers/spec-models.js';

const RUNS = Number(process.argv[2] ?? 20);
const BIN = join(REPO_ROOT, 'bin', 'tkafka');

function time(args: string[], env: Record<string, string> = {}): { ms: number; code: number | null } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`tkafka ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, code: r.status };
}

/** Median, p90, min; with `floor` (the samples of `node -e 0` taken alongside), the median's multiple of it. */
function stats(samples: number[], floor?: number[]): string {
  const q = (xs: number[], p: number): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  };
  const ratio = floor ? `${(q(samples, 0.5) / q(floor, 0.5)).toFixed(2)}x`.padStart(6) : '';
  return `median ${q(samples, 0.5).toFixed(0).padStart(4)} ms ${ratio.padStart(6)}   p90 ${q(samples, 0.9).toFixed(0).padStart(4)} ms   min ${q(samples, 0).toFixed(0).padStart(4)} ms`;
}

function floorRun(): number {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return performance.now() - t0;
}

/** Modules loaded by a tool run, counted through the ESM loader's resolve hook would be heavier; count files instead. */
function loadedModules(args: string[], env: Record<string, string> = {}): number {
  const code = `
    const seen = new Set();
    const { register } = await import('node:module');
    const { pathToFileURL } = await import('node:url');
    register('data:text/javascript,' + encodeURIComponent(\`
      export async function load(url, ctx, next) { if (url.startsWith('file:') && url.includes('/dist/src/')) console.error('LOADED ' + url); return next(url, ctx); }
    \`), pathToFileURL('./'));
    process.argv = [process.argv[0], ${JSON.stringify(BIN)}, ...${JSON.stringify(args)}];
    await import(${JSON.stringify('file://' + BIN)});
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return r.stderr.split('\n').filter((l) => l.startsWith('LOADED ')).length;
}

const broker = await startBroker();
try {
  const bs = broker.bootstrap;
  time(['topics', '--bootstrap-server', bs, '--create', '--topic', 'bench', '--partitions', '3']);
  const unbundled = { TKAFKA_UNBUNDLED: '1' };
  const cases: [string, string[], Record<string, string>?][] = [
    ['tkafka --version', ['--version']],
    ['tkafka topics --list', ['topics', '--bootstrap-server', bs, '--list']],
    ['tkafka topics --list (TKAFKA_UNBUNDLED=1)', ['topics', '--bootstrap-server', bs, '--list'], unbundled],
    ['tkafka topics --describe', ['topics', '--bootstrap-server', bs, '--describe']],
    [
      'tkafka configs --describe --topic bench',
      ['configs', '--bootstrap-server', bs, '--describe', '--topic', 'bench'],
    ],
    ['tkafka get-offsets --topic bench', ['get-offsets', '--bootstrap-server', bs, '--topic', 'bench']],
    ['tkafka cluster cluster-id', ['cluster', 'cluster-id', '--bootstrap-server', bs]],
  ];
  console.log(`tool start-up, end to end (${RUNS} runs each, after 3 warm-up runs)`);
  // each tool's runs alternate with runs of `node -e 0`, so that its ratio to the floor holds on a
  // busy machine too
  const allFloor: number[] = [];
  const lines: string[] = [];
  for (const [label, args, env] of cases) {
    for (let i = 0; i < 3; i++) time(args, env);
    const samples: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floor.push(floorRun());
      samples.push(time(args, env).ms);
    }
    allFloor.push(...floor);
    lines.push(
      `${label.padEnd(42)} ${stats(samples, floor)}   ${String(loadedModules(args, env)).padStart(3)} dist/src modules`,
    );
  }
  console.log(`${'node -e 0 (the floor)'.padEnd(42)} ${stats(allFloor)}`);
  for (const l of lines) console.log(l);
} finally {
  await broker.stop();
  broker.cleanup();
}
