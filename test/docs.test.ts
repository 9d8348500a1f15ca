// Man pages and completion scripts are generated from the CLI's own definitions (npm run docs):
// the committed files must match what the generator produces now, every page must render with
// groff (and man -l) without warnings, and every command and option must appear in its page.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { REPO_ROOT } from './helpers/spec-models.js';
import { generateDocs } from '../src/tools/completion/docs.js';
import { loadCatalog } from '../src/tools/completion/catalog.js';
import { describeCli } from '../src/tools/program.js';
import type { CommandDoc } from '../src/tools/completion/model.js';
import { TOOLS } from '../src/tools/registry.js';
import { formatJoptHelp, type JoptToolSpec } from '../src/tools/common/jopt.js';
import { ArgumentParser } from '../src/tools/common/argparse.js';

const has = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** A page rendered to plain text (no overstrikes, no SGR), whitespace collapsed. */
function rendered(file: string): string {
  const text = execFileSync('groff', ['-man', '-Tutf8', '-P-cbou', join(REPO_ROOT, 'man', file)], {
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  return text.replace(/[\u2010\u2011\u2212]/g, '-').replace(/\s+/g, ' ');
}

test('the committed man pages, completion scripts and package.json "man" are what the generator produces', async () => {
  const { files, manList, missingSpecs } = await generateDocs();
  assert.deepEqual(missingSpecs, [], 'every tool in src/tools/registry.ts has a spec()');
  const stale: string[] = [];
  for (const [rel, text] of files) {
    const abs = join(REPO_ROOT, rel);
    if (!existsSync(abs) || readFileSync(abs, 'utf8') !== text) stale.push(rel);
  }
  assert.deepEqual(stale, [], 'out of date: run `npm run docs` and commit the result');
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    man?: string[];
    files?: string[];
    scripts?: Record<string, string>;
  };
  assert.deepEqual(pkg.man, manList);
  for (const m of pkg.man ?? []) assert.ok(existsSync(join(REPO_ROOT, m)), m);
  assert.ok(pkg.files?.includes('man') && pkg.files.includes('completions'), 'man/ and completions/ are published');
  assert.match(pkg.scripts?.docs ?? '', /generate-docs\.mjs/);
  // No generated file is left over from an earlier version of the command set.
  for (const dir of ['man', 'completions']) {
    for (const name of readdirSync(join(REPO_ROOT, dir)))
      assert.ok(files.has(`${dir}/${name}`), `${dir}/${name} is not generated any more`);
  }
});

test('scripts/generate-docs.mjs --check agrees', () => {
  const r = spawnSync(process.execPath, ['scripts/generate-docs.mjs', '--check'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /up to date/);
});

test('one page per command, named after it, plus tkafka(1) and tkafka-server.properties(5)', async () => {
  const { root } = await loadCatalog(describeCli());
  const pages = readdirSync(join(REPO_ROOT, 'man')).sort();
  const want = ['tkafka.1', 'tkafka-server.properties.5', ...root.subcommands.map((c) => `tkafka-${c.name}.1`)].sort();
  assert.deepEqual(pages, want);
  for (const t of TOOLS.filter((x) => !x.hidden)) assert.ok(pages.includes(`tkafka-${t.name}.1`), t.name);
  for (const name of [
    'tkafka-topics.1',
    'tkafka-consumer-groups.1',
    'tkafka-dump-log.1',
    'tkafka-server.1',
    'tkafka-local.1',
    'tkafka-completion.1',
    'tkafka-producer-perf-test.1',
    'tkafka-consumer-perf-test.1',
  ])
    assert.ok(pages.includes(name), name);
});

test('every page renders with groff -ww and man -l without warnings', { skip: !has('groff') }, () => {
  for (const file of readdirSync(join(REPO_ROOT, 'man'))) {
    const r = spawnSync('groff', ['-man', '-Tutf8', '-ww', '-z', join(REPO_ROOT, 'man', file)], { encoding: 'utf8' });
    assert.equal(r.status, 0, file);
    assert.equal(r.stderr, '', `${file}: ${r.stderr}`);
    if (has('man')) {
      const m = spawnSync('man', ['--warnings', '-l', join(REPO_ROOT, 'man', file)], {
        encoding: 'utf8',
        env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '80' },
      });
      assert.equal(m.status, 0, `man -l ${file}: ${m.stderr}`);
      assert.equal(m.stderr, '', `man -l ${file}: ${m.stderr}`);
      assert.ok(m.stdout.length > 200, file);
    }
  }
});

function longFlags(doc: CommandDoc): string[] {
  return [...new Set(doc.options.flatMap((o) => o.flags))];
}

test(
  'every command and every option appears in its rendered page, with the Kafka script and exit status',
  { skip: !has('groff') },
  async () => {
    const { root } = await loadCatalog(describeCli());
    const top = rendered('tkafka.1');
    for (const c of root.subcommands) {
      assert.ok(top.includes(`tkafka ${c.name}`), `tkafka(1) lists ${c.name}`);
      assert.ok(top.includes(`tkafka-${c.name}(1)`), `tkafka(1) refers to tkafka-${c.name}(1)`);
    }
    for (const f of longFlags(root)) assert.ok(top.includes(f), `tkafka(1) documents ${f}`);
    for (const c of root.subcommands) {
      const page = rendered(`tkafka-${c.name}.1`);
      for (const section of ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'EXIT STATUS', 'SEE ALSO'])
        assert.ok(page.includes(section), `${c.name}: ${section}`);
      if (c.kafka) assert.ok(page.includes(c.kafka), `${c.name} names ${c.kafka}`);
      for (const f of longFlags(c)) assert.ok(page.includes(f), `tkafka-${c.name}(1) documents ${f}`);
      for (const s of c.subcommands) {
        for (const u of s.usage)
          assert.ok(page.includes(u.replace(/\s+/g, ' ')), `tkafka-${c.name}(1) shows the synopsis of ${s.name}: ${u}`);
        for (const f of longFlags(s)) assert.ok(page.includes(f), `tkafka-${c.name}(1) documents ${s.name} ${f}`);
      }
      for (const p of c.positionals) assert.ok(page.includes(p.name), `${c.name}: argument ${p.name}`);
    }
  },
);

test('the pages list the flags --help prints (same definitions)', async () => {
  for (const tool of TOOLS.filter((t) => t.spec && !t.hidden)) {
    const spec = await tool.spec!();
    let help: string;
    if (spec instanceof ArgumentParser) help = spec.formatHelp();
    else if ('commands' in spec) continue;
    else help = formatJoptHelp(spec as JoptToolSpec);
    const page = readFileSync(join(REPO_ROOT, 'man', `tkafka-${tool.name}.1`), 'utf8').replace(/\\-/g, '-');
    for (const flag of new Set(help.match(/(?<![\w-])--[a-z][\w.-]*/g) ?? [])) {
      assert.ok(page.includes(flag.replace(/[.,]$/, '')), `${tool.name}: ${flag} from --help is in the page`);
    }
  }
});

test(
  'tkafka-server.properties(5) lists every broker configuration key with its default',
  { skip: !has('groff') },
  async () => {
    const { BROKER_CONFIG_KEYS, NO_DEFAULT, convertToString } = await import('../src/config/definitions.js');
    const page = rendered('tkafka-server.properties.5');
    const source = readFileSync(join(REPO_ROOT, 'man', 'tkafka-server.properties.5'), 'utf8');
    const entries = new Map<string, string>();
    for (const chunk of source.split('\n.TP\n').slice(1)) {
      const m = /^\\fB(.+?)\\fR\n/.exec(chunk);
      if (m)
        entries.set(m[1]!.replace(/\\-/g, '-').replace(/\\:/g, ''), chunk.replace(/\\-/g, '-').replace(/\\:/g, ''));
    }
    for (const k of BROKER_CONFIG_KEYS.filter((x) => !x.internal)) {
      assert.ok(page.includes(` ${k.name} `), k.name);
      const entry = entries.get(k.name);
      assert.ok(entry, `entry for ${k.name}`);
      const d =
        k.default === NO_DEFAULT
          ? '(none; must be set)'
          : k.default === null
            ? 'null'
            : (convertToString(k.default as never, k.type) ?? 'null');
      assert.ok(entry.includes(`Default: ${d === '' ? '(empty)' : d}.`), `${k.name} default ${d}`);
    }
  },
);

test('tkafka --help lists the same commands as the man pages (the hidden helper excepted)', () => {
  const r = spawnSync(process.execPath, ['bin/tkafka', '--help'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(r.status, 0);
  for (const t of TOOLS) {
    if (t.hidden) assert.ok(!r.stdout.includes(t.name), `${t.name} is hidden`);
    else assert.ok(r.stdout.includes(t.name), t.name);
  }
  assert.match(r.stdout, /--no-tty/);
});
