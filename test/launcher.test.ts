// bin/tkafka's first lines are a sh launcher that sets the memory options before node starts
// (MALLOC_ARENA_MAX, and node's flags from TKAFKA_NODE_OPTS; README, Memory), and a comment to JavaScript. A preload
// given in NODE_OPTIONS reports what the node process got, then exits before the CLI runs.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './helpers/spec-models.js';

const BIN = join(REPO_ROOT, 'bin', 'tkafka');

interface Seen {
  arena: string | null;
  execArgv: string[];
}

async function launch(env: Record<string, string>): Promise<Seen> {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-launcher-'));
  try {
    const preload = join(dir, 'report.cjs');
    writeFileSync(
      preload,
      'process.stdout.write(JSON.stringify({ arena: process.env.MALLOC_ARENA_MAX ?? null, ' +
        'execArgv: process.execArgv }));\nprocess.exit(0);\n',
    );
    const base = { PATH: process.env.PATH ?? '', NODE_OPTIONS: `--require ${preload}` };
    const r = await execa(BIN, ['--version'], { env: { ...base, ...env }, extendEnv: false });
    return JSON.parse(r.stdout) as Seen;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the launcher sets the allocator option', async () => {
  assert.deepEqual(await launch({}), { arena: '2', execArgv: [] });
});

test("the launcher keeps the user's settings", async () => {
  const seen = await launch({ MALLOC_ARENA_MAX: '4', TKAFKA_NODE_OPTS: '--max-semi-space-size=8 --no-warnings' });
  assert.deepEqual(seen, { arena: '4', execArgv: ['--max-semi-space-size=8', '--no-warnings'] });
});

test('node reads the launcher line as a comment', async () => {
  const direct = await execa(BIN, ['--version']);
  const viaNode = await execa(process.execPath, [BIN, '--version']);
  assert.equal(viaNode.stdout, direct.stdout);
  assert.match(direct.stdout, /^\d+\.\d+\.\d+/);
});
