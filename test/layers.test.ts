// The layer check (npm run check:layers, .dependency-cruiser.cjs) can fail: on a small tree with an
// upward import in each of client, storage and tools, and an import cycle, dependency-cruiser run
// with the repository's own configuration exits non-zero and names each broken rule and import.
// The real tree passes the same check, and ARCHITECTURE.md names only paths that exist.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { REPO_ROOT } from './helpers/spec-models.js';

const DEPCRUISE = join(REPO_ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const CONFIG = join(REPO_ROOT, '.dependency-cruiser.cjs');

interface Run {
  code: number | null;
  output: string;
}

/** depcruise <dirs> with the repository's configuration, in `cwd`; bounded by a timeout. */
function depcruise(cwd: string, dirs: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DEPCRUISE, ...dirs, '--config', CONFIG, '--output-type', 'err'], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 240_000,
    });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** A tree with the repository's layout: each entry is a path and the modules it imports. */
function writeTree(root: string, modules: Record<string, string[]>): void {
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  for (const [path, imports] of Object.entries(modules)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    const lines = imports.map((spec, i) => `import { x as x${i} } from '${spec}';\nvoid x${i};`);
    writeFileSync(join(root, path), `${lines.join('\n')}\nexport const x = 1;\n`);
  }
}

/** Each reported violation on one line: `error <rule>: <from> → <to>` (a cycle: its whole path). */
function violations(output: string): string[] {
  const blocks: string[] = [];
  for (const line of output.split('\n').map((l) => l.trim())) {
    if (line.startsWith('error ')) blocks.push(line);
    else if (blocks.length && line.startsWith('src/')) blocks[blocks.length - 1] += ` ${line}`;
  }
  return blocks.map((b) => b.replace(/\s+/g, ' ').replace(/ →$/, ''));
}

test('the layer check fails on an upward import and on a cycle, naming the rule', { timeout: 300_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'tkafka-layers-'));
  try {
    writeTree(root, {
      'src/protocol/codec.ts': [],
      'src/config/keys.ts': ['../protocol/codec.js'],
      'src/storage/segment.ts': ['../protocol/codec.js', '../config/keys.js', '../broker/log.js'],
      'src/broker/log.ts': ['../storage/segment.js', './group.js'],
      'src/broker/group.ts': ['./coordinator.js'],
      'src/broker/coordinator.ts': ['./log.js'],
      'src/client/admin.ts': ['../protocol/codec.js', '../broker/log.js'],
      'src/tools/topics.ts': ['../client/admin.js', '../storage/segment.js', '../broker/group.js'],
      'src/cli.ts': ['./tools/topics.js'],
    });
    const run = await depcruise(root, ['src']);
    assert.notEqual(run.code, 0, `depcruise passed a tree with wrong imports:\n${run.output}`);
    const found = violations(run.output);
    const expected = [
      'error client-imports-only-protocol-config: src/client/admin.ts → src/broker/log.ts',
      'error storage-imports-only-protocol-config: src/storage/segment.ts → src/broker/log.ts',
      'error tools-imports-only-protocol-client-storage-config: src/tools/topics.ts → src/broker/group.ts',
    ];
    for (const line of expected) assert.ok(found.includes(line), `missing "${line}" in:\n${run.output}`);
    // log → group → coordinator → log, reported once from whichever module of the cycle comes first
    const cycle = found.find((l) => l.startsWith('error no-circular:') && l.includes('src/broker/group.ts'));
    assert.ok(cycle, `no cycle reported through src/broker/group.ts:\n${run.output}`);
    for (const m of ['src/broker/log.ts', 'src/broker/coordinator.ts']) assert.ok(cycle.includes(m), cycle);
    // The allowed imports are not reported: protocol, config and cli.ts break no rule.
    for (const ok of ['src/config/keys.ts', 'src/cli.ts', 'src/protocol/codec.ts']) {
      assert.ok(!found.some((l) => l.includes(`: ${ok} →`)), `${ok} was reported:\n${run.output}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the repository passes the layer check (npm run check:layers)', { timeout: 300_000 }, async () => {
  const run = await depcruise(REPO_ROOT, ['src', 'test', 'bench', 'scripts']);
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /no dependency violations found/);
});

test('every path ARCHITECTURE.md names exists', () => {
  const text = readFileSync(join(REPO_ROOT, 'ARCHITECTURE.md'), 'utf8');
  // `src/...`, `test/...`, `scripts/...` and `bench/...` paths, and the short `<folder>/<file>.ts` forms under src/broker/
  const named = [...text.matchAll(/`((?:src|test|scripts|bench)\/[\w./-]+|[\w-]+\/[\w.-]+\.ts)`/g)].map((m) => m[1]);
  assert.ok(named.length > 50, `only ${named.length} paths found`);
  const basenames = new Set(readdirSync(join(REPO_ROOT, 'src'), { recursive: true }).map((f) => basename(String(f))));
  // bare file names (`acceptor.ts`) continue the folder named before them: they must exist somewhere in src/
  for (const [, file] of text.matchAll(/`([\w-]+\.ts)`/g)) assert.ok(basenames.has(file), `${file} is not in src/`);
  const missing = named.filter((p) => {
    if (p.includes('<')) return false;
    const candidates = /^(src|test|scripts|bench)\//.test(p) ? [p] : [join('src/broker', p), join('src', p)];
    return !candidates.some((c) => existsSync(join(REPO_ROOT, c)));
  });
  assert.deepEqual(missing, []);
});
