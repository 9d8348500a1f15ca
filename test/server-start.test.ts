// `tkafka server start` as a process: configuration errors, unknown keys, clean shutdown.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './helpers/spec-models.js';
import { startBroker } from './helpers/broker-process.js';

test('an invalid value stops start-up with a message naming the key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-cfg-'));
  try {
    const r = await execa(
      'node',
      ['bin/tkafka', 'server', 'start', '--override', `log.dirs=${dir}`, '--override', 'num.partitions=abc'],
      { cwd: REPO_ROOT, reject: false, timeout: 30_000 },
    );
    assert.equal(r.exitCode, 1);
    assert.match(r.stderr, /Invalid value abc for configuration num\.partitions/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing properties file is one clear error line', async () => {
  const r = await execa('node', ['bin/tkafka', 'server', 'start', '/nonexistent/server.properties'], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 30_000,
  });
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /server\.properties/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('unknown keys are warned about once and the server starts; SIGTERM shuts down cleanly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-cfg-'));
  const b = await startBroker({ dataDir: dir, overrides: {} });
  try {
    await b.stop();
    // start again on the same data with an unknown key
    const logs = join(dir, 'logs');
    assert.ok(existsSync(join(logs, '.kafka_cleanshutdown')), 'clean shutdown marker written');
    assert.ok(readdirSync(logs).includes('recovery-point-offset-checkpoint'));
    const withFile = await startBroker({ dataDir: dir, overrides: { 'my.unknown.key': 'x' } });
    const out = withFile.output();
    await withFile.stop();
    const warnings = out.split('\n').filter((l) => l.includes('my.unknown.key'));
    assert.equal(warnings.length, 1, out);
    assert.match(warnings[0]!, /WARN/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
