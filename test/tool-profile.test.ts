// `tkafka profile` (named clusters in $XDG_CONFIG_HOME/tkafka/config.json), the precedence
// flag > TKAFKA_BOOTSTRAP_SERVER > profile, and the error contract of the real `bin/tkafka`
// process: one line on stderr and a non-zero exit for an unreachable cluster, an unknown topic
// or an API the broker lacks; a stack trace only with --debug.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { execa } from 'execa';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { run as profile } from '../src/tools/profile/main.js';
import { run as topics } from '../src/tools/topics/main.js';
import type { ToolIO } from '../src/tools/common/io.js';

let broker: BrokerProcess;
let home: string;

async function tkafka(
  tool: (argv: string[], io: ToolIO) => Promise<number>,
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = new Writable({
    write(c, _e, cb) {
      out += String(c);
      cb();
    },
  });
  const stderr = new Writable({
    write(c, _e, cb) {
      err += String(c);
      cb();
    },
  });
  const code = await tool(argv, { stdout, stderr, stdin: process.stdin, env });
  return { code, out, err };
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return execa('node', ['bin/tkafka', ...args], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 60_000,
    env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'cfg'), ...env },
    extendEnv: false,
  });
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tkafka-profile-'));
  broker = await startBroker();
  await tkafka(topics, ['--bootstrap-server', broker.bootstrap, '--create', '--topic', 'visible'], {});
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
  rmSync(home, { recursive: true, force: true });
});

test('profile create / list / use / show / delete, stored in $XDG_CONFIG_HOME/tkafka/config.json', async () => {
  const env = { XDG_CONFIG_HOME: join(home, 'xdg') };
  const props = join(home, 'client.properties');
  writeFileSync(props, 'client.id=from-file\nrequest.timeout.ms=5000\nsasl.jaas.config=secret\n');
  const c1 = await tkafka(
    profile,
    [
      'create',
      'local',
      '--bootstrap-server',
      broker.bootstrap,
      '--command-config',
      props,
      '--property',
      'client.id=cli',
    ],
    env,
  );
  assert.equal(c1.code, 0, c1.err);
  const file = join(home, 'xdg', 'tkafka', 'config.json');
  assert.match(c1.out, new RegExp(`^Created profile local \\(current\\) in ${file.replace(/[.]/g, '\\.')}\\.\\n$`));
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const stored = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(stored.profiles.local, {
    bootstrapServers: broker.bootstrap,
    properties: { 'client.id': 'cli', 'request.timeout.ms': '5000', 'sasl.jaas.config': 'secret' },
  });
  assert.equal(
    (await tkafka(profile, ['create', 'prod', '--bootstrap-server', 'kafka1:9092,kafka2:9092'], env)).code,
    0,
  );
  assert.equal(
    (await tkafka(profile, ['list'], env)).out,
    `* local\t${broker.bootstrap}\n  prod\tkafka1:9092,kafka2:9092\n`,
  );
  assert.equal((await tkafka(profile, ['use', 'prod'], env)).out, 'Using profile prod.\n');
  const json = JSON.parse((await tkafka(profile, ['list', '--output', 'json'], env)).out);
  assert.equal(json.current, 'prod');
  assert.deepEqual(
    json.profiles.map((p: { name: string; current: boolean }) => [p.name, p.current]),
    [
      ['local', false],
      ['prod', true],
    ],
  );
  const shown = await tkafka(profile, ['show', 'local'], env);
  assert.equal(
    shown.out,
    `bootstrap.servers=${broker.bootstrap}\nclient.id=cli\nrequest.timeout.ms=5000\nsasl.jaas.config=[hidden]\n`,
  );
  assert.equal((await tkafka(profile, ['delete', 'prod'], env)).out, 'Deleted profile prod.\n');
  assert.deepEqual(await tkafka(profile, ['use', 'prod'], env), {
    code: 1,
    out: '',
    err: "Profile 'prod' does not exist\n",
  });
  assert.deepEqual(await tkafka(profile, ['create', 'x'], env), {
    code: 1,
    out: '',
    err: 'Missing required argument "[bootstrap-server]"\n',
  });
  assert.equal((await tkafka(profile, ['use', 'local'], env)).code, 0);
});

test('precedence: --bootstrap-server > TKAFKA_BOOTSTRAP_SERVER > profile', async () => {
  const env = { XDG_CONFIG_HOME: join(home, 'xdg') };
  // The profile alone gives the cluster.
  assert.equal((await tkafka(topics, ['--list', '--topic', 'visible'], env)).out, 'visible\n');
  // The environment beats the profile: a dead address there fails although the profile is good.
  const envDead = await tkafka(topics, ['--list'], { ...env, TKAFKA_BOOTSTRAP_SERVER: '127.0.0.1:1' });
  assert.equal(envDead.code, 1);
  assert.match(envDead.err, /127\.0\.0\.1:1 failed: connection refused/);
  // The flag beats the environment.
  assert.equal(
    (
      await tkafka(topics, ['--bootstrap-server', broker.bootstrap, '--list', '--topic', 'visible'], {
        ...env,
        TKAFKA_BOOTSTRAP_SERVER: '127.0.0.1:1',
      })
    ).out,
    'visible\n',
  );
  // TKAFKA_PROFILE picks a profile other than the current one.
  assert.deepEqual(await tkafka(topics, ['--list'], { ...env, TKAFKA_PROFILE: 'missing' }), {
    code: 1,
    out: '',
    err: "Profile 'missing' (from TKAFKA_PROFILE) does not exist; see tkafka profile list\n",
  });
});

test('--help documents the precedence', async () => {
  const r = await tkafka(topics, ['--help'], {});
  assert.match(r.err.replace(/\s+/g, ' '), /precedence: this flag > TKAFKA_BOOTSTRAP_SERVER > profile/);
  assert.match(
    (await tkafka(profile, ['--help'], {})).out,
    /--bootstrap-server wins; without it the TKAFKA_BOOTSTRAP_SERVER environment variable is used, then the active profile/,
  );
});

test('bin/tkafka: an unreachable cluster is one line on stderr, exit 1, no stack trace', async () => {
  for (const args of [
    ['topics', '--bootstrap-server', '127.0.0.1:1', '--list'],
    ['configs', '--bootstrap-server', '127.0.0.1:1', '--describe', '--broker', '1'],
    ['get-offsets', '--bootstrap-server', '127.0.0.1:1', '--topic', 'x'],
    ['cluster', 'cluster-id', '--bootstrap-server', '127.0.0.1:1'],
  ]) {
    const r = await cli(args);
    assert.equal(r.exitCode, 1, args.join(' '));
    assert.equal(r.stdout, '');
    const lines = String(r.stderr)
      .split('\n')
      .filter((l) => l !== '');
    assert.equal(lines.length, 1, String(r.stderr));
    assert.match(lines[0]!, /Could not connect to any bootstrap server \(127\.0\.0\.1:1 failed: connection refused\)$/);
  }
  const debug = await cli(['topics', '--bootstrap-server', '127.0.0.1:1', '--list', '--debug']);
  assert.match(String(debug.stderr), /^\s+at /m, '--debug shows the stack');
});

test('bin/tkafka: an unknown topic gives one clear line and exit 1; a quota is set', async () => {
  const unknown = await cli(['topics', '--bootstrap-server', broker.bootstrap, '--describe', '--topic', 'nope']);
  assert.equal(unknown.exitCode, 1);
  assert.equal(unknown.stdout, "Error while executing topic command : Topic 'nope' does not exist as expected");
  assert.equal(unknown.stderr, '');
  const offsets = await cli(['get-offsets', '--bootstrap-server', broker.bootstrap, '--topic', 'nope']);
  assert.deepEqual(
    [offsets.exitCode, offsets.stderr],
    [1, 'Error occurred: Could not match any topic-partitions with the specified filters'],
  );
  // Quotas are served since issue 18 (AlterClientQuotas): Kafka's one line on stdout.
  const quota = await cli([
    'configs',
    '--bootstrap-server',
    broker.bootstrap,
    '--alter',
    '--entity-type',
    'clients',
    '--entity-name',
    'c1',
    '--add-config',
    'producer_byte_rate=1000',
  ]);
  assert.deepEqual([quota.exitCode, quota.stdout, quota.stderr], [0, 'Completed updating config for client c1.', '']);
});
