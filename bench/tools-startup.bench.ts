// End-to-end start-up cost of the tools: wall time of `node bin/tkafka <tool> ...` against a local
// tkafka broker (process spawn, module loading, connect + ApiVersions, the request, exit), and
// what each tool loads. Each median is also shown as a multiple of `node -e 0`'s (the floor); the
// target for `tkafka topics --list` is within about 1.5x of it (issue 22).
//   npm run build && node dist/bench/tools-startup.bench.js [runs]
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { startBroker } from '../test/helpers/broker-process.js';
import { REPO_ROOT } from '../test/helpers/spec-models.js';

const RUNS = Number(process.argv[2] ?? 20);
const BIN = join(REPO_ROOT, 'bin', 'tkafka');

function time(args: string[]): { ms: number; code: number | null } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`tkafka ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, code: r.status };
}

/** The median of `node -e 0`, set by the first case: each tool's median is also shown as a multiple of it. */
let floorMs = NaN;

function stats(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  if (Number.isNaN(floorMs)) floorMs = q(0.5);
  const ratio = `${(q(0.5) / floorMs).toFixed(2)}x`.padStart(6);
  return `median ${q(0.5).toFixed(0).padStart(4)} ms ${ratio}   p90 ${q(0.9).toFixed(0).padStart(4)} ms   min ${s[0]!.toFixed(0).padStart(4)} ms`;
}

/** Modules loaded by a tool run, counted through the ESM loader's resolve hook would be heavier; count files instead. */
function loadedModules(args: string[]): number {
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
    env: { PATH: process.env.PATH ?? '' },
  });
  return r.stderr.split('\n').filter((l) => l.startsWith('LOADED ')).length;
}

const broker = await startBroker();
try {
  const bs = broker.bootstrap;
  time(['topics', '--bootstrap-server', bs, '--create', '--topic', 'bench', '--partitions', '3']);
  const cases: [string, string[]][] = [
    ['node -e 0 (the floor)', []],
    ['tkafka --version', ['--version']],
    ['tkafka topics --list', ['topics', '--bootstrap-server', bs, '--list']],
    ['tkafka topics --describe', ['topics', '--bootstrap-server', bs, '--describe']],
    [
      'tkafka configs --describe --topic bench',
      ['configs', '--bootstrap-server', bs, '--describe', '--topic', 'bench'],
    ],
    ['tkafka get-offsets --topic bench', ['get-offsets', '--bootstrap-server', bs, '--topic', 'bench']],
    ['tkafka cluster cluster-id', ['cluster', 'cluster-id', '--bootstrap-server', bs]],
  ];
  console.log(`tool start-up, end to end (${RUNS} runs each, after 3 warm-up runs)`);
  for (const [label, args] of cases) {
    const run = (): number =>
      args.length === 0
        ? (() => {
            const t0 = performance.now();
            spawnSync(process.execPath, ['-e', '0']);
            return performance.now() - t0;
          })()
        : time(args).ms;
    for (let i = 0; i < 3; i++) run();
    const samples = Array.from({ length: RUNS }, run);
    const mods = args.length > 0 ? `   ${String(loadedModules(args)).padStart(3)} tkafka modules` : '';
    console.log(`${label.padEnd(42)} ${stats(samples)}${mods}`);
  }
} finally {
  await broker.stop();
  broker.cleanup();
}
