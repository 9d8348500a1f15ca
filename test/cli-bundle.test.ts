// bin/tkafka runs the CLI from dist/bundle/cli.cjs (scripts/bundle.mjs) with V8's code cache, or
// from dist/src/cli.js when there is no bundle or TKAFKA_UNBUNDLED is set: both must behave alike.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBundle } from '../src/runtime/run-bundle.cjs';
import { REPO_ROOT } from './helpers/spec-models.js';

const BIN = join(REPO_ROOT, 'bin', 'tkafka');
const hasBundle = existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli.cjs'));

function tkafka(args: string[], unbundled: boolean): { status: number | null; stdout: string; stderr: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '' };
  if (unbundled) env.TKAFKA_UNBUNDLED = '1';
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, encoding: 'utf8', env });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('findBundle: undefined without the bundle or with TKAFKA_UNBUNDLED', () => {
  assert.equal(findBundle('no-such-bundle', 'cli.js'), undefined);
  const before = process.env.TKAFKA_UNBUNDLED;
  process.env.TKAFKA_UNBUNDLED = '1';
  try {
    assert.equal(findBundle('cli', 'cli.js'), undefined);
  } finally {
    if (before === undefined) delete process.env.TKAFKA_UNBUNDLED;
    else process.env.TKAFKA_UNBUNDLED = before;
  }
  if (!hasBundle) return;
  // (`.f<hash>`: this process's node options, see the next test)
  assert.match(findBundle('cli', 'cli.js')?.cacheFile ?? '', /cli\.cjs\.\d+-\d+(\.f[0-9a-f]{8})?\.cache$/);
  // a cache per command (bin/tkafka)
  const topics = findBundle('cli', 'cli.js', 'topics')?.cacheFile ?? '';
  assert.match(topics, /cli\.cjs\.\d+-\d+\.topics(\.f[0-9a-f]{8})?\.cache$/);
});

// V8 refuses a cache made under other flags: a node run with flags (TKAFKA_NODE_OPTS, NODE_OPTIONS)
// and one without must not share one
test('findBundle: a cache per set of node flags', { skip: !hasBundle && 'no bundle (esbuild not installed)' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-flags-'));
  try {
    const script = join(dir, 'cache-file.cjs');
    const runBundle = join(REPO_ROOT, 'dist', 'src', 'runtime', 'run-bundle.cjs');
    writeFileSync(
      script,
      `process.stdout.write(require(${JSON.stringify(runBundle)}).findBundle('cli', 'cli.js').cacheFile);`,
    );
    const cacheFile = (flags: string[]): string => {
      const env = { PATH: process.env.PATH ?? '' };
      return spawnSync(process.execPath, [...flags, script], { encoding: 'utf8', env }).stdout;
    };
    const plain = cacheFile([]);
    const small = cacheFile(['--max-semi-space-size=2']);
    assert.match(plain, /cli\.cjs\.\d+-\d+\.cache$/);
    assert.match(small, /cli\.cjs\.\d+-\d+\.f[0-9a-f]{8}\.cache$/);
    assert.notEqual(cacheFile(['--max-semi-space-size=4']), small);
    assert.equal(cacheFile(['--max-semi-space-size=2']), small);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test(
  'bin/tkafka: bundled and unbundled print the same',
  { skip: !hasBundle && 'no bundle (esbuild not installed)' },
  () => {
    const argvs = [
      ['--version'],
      ['--help'],
      ['topics', '--help'],
      // a usage error of a tool (jopt) and of the program (commander)
      ['topics', '--list'],
      ['no-such-command'],
      ['completion', 'bash'],
    ];
    for (const args of argvs) {
      assert.deepEqual(tkafka(args, false), tkafka(args, true), args.join(' '));
    }
  },
);
