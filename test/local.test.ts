// `tkafka local start | status | stop | kill | restart`: a single-node development cluster on free
// loopback ports with its data under one folder; the bootstrap string on stdout; idempotent start;
// status (roles, quorum state, lag) and its exit codes; kill -9 and restart of a node; restart with
// the data kept; stop --clean removes the folder. Every process the test
// starts is killed in `after`, whatever happened.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { REPO_ROOT } from './helpers/spec-models.js';

let root: string;
let dir: string;

before(() => {
  root = mkdtempSync(join(tmpdir(), 'tkafka-local-'));
  dir = join(root, 'cluster');
});

after(() => {
  // Bounded cleanup: SIGKILL whatever the state file still names.
  try {
    const state = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')) as { nodes: { pid: number | null }[] };
    for (const n of state.nodes) {
      if (n.pid) {
        try {
          process.kill(n.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
  } catch {
    // no state
  }
  rmSync(root, { recursive: true, force: true });
});

/** A live process (a zombie left for an init that does not reap counts as gone). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

const tk = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  execa('node', ['bin/tkafka', ...args], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 90_000,
    env: { TKAFKA_LOCAL_DIR: '', ...env },
  });

test('local start prints the bootstrap string of a running single-node cluster', async () => {
  const r = await tk(['local', 'start', '--dir', dir, '--port', '0']);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^127\.0\.0\.1:\d+\n?$/);
  const bootstrap = r.stdout.trim();
  assert.match(r.stderr, /Started a 1-node local cluster \(cluster id [\w-]{22}\)/);
  assert.ok(existsSync(join(dir, 'node-1', 'server.properties')));
  assert.ok(existsSync(join(dir, 'node-1', 'data', 'meta.properties')));
  const state = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8'));
  assert.equal(state.bootstrap, bootstrap);
  assert.equal(state.nodes.length, 1);

  const created = await tk(['topics', '--create', '--topic', 'local-topic', '--partitions', '2'], {
    TKAFKA_BOOTSTRAP_SERVER: bootstrap,
  });
  assert.equal(created.exitCode, 0, created.stderr);
  assert.equal(created.stdout, 'Created topic local-topic.');

  const again = await tk(['local', 'start', '--dir', dir]);
  assert.equal(again.exitCode, 0, again.stderr);
  assert.equal(again.stdout.trim(), bootstrap, 'starting a running cluster prints its bootstrap string');
  assert.match(again.stderr, /already running/);
  const other = await tk(['local', 'start', '--dir', dir, '-n', '2']);
  assert.equal(other.exitCode, 1);
  assert.match(other.stderr, /a 1-node cluster is running/);
});

test('local status: table, JSON and exit codes', async () => {
  const text = await tk(['local', 'status', '--dir', dir]);
  assert.equal(text.exitCode, 0, text.stderr);
  assert.match(
    text.stdout,
    /^NODE\s+PID\s+STATE\s+ROLES\s+QUORUM\s+LAG\s+BROKER\s+CONTROLLER\s+DATA\n1\s+\d+\s+running\s+broker,controller\s+leader \(epoch \d+\)\s+0\s+127\.0\.0\.1:\d+\s+127\.0\.0\.1:\d+\s+\S+node-1\n/,
  );
  assert.match(text.stdout, /^Bootstrap: 127\.0\.0\.1:\d+$/m);
  const json = await tk(['local', 'status', '--dir', dir, '--output', 'json']);
  assert.equal(json.exitCode, 0);
  const doc = JSON.parse(json.stdout);
  assert.equal(doc.running, true);
  assert.equal(doc.nodes[0].state, 'running');
  assert.equal(typeof doc.nodes[0].pid, 'number');
  assert.equal(doc.nodes[0].roles, 'broker,controller');
  assert.equal(doc.nodes[0].quorum, 'leader');
  assert.equal(doc.nodes[0].lag, 0);
  assert.equal(doc.quorum.leaderId, 1);
});

test('local kill NODE (SIGKILL) and local restart NODE: the node comes back on its ports with its data', async () => {
  const before = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8'));
  const pid = before.nodes[0].pid as number;
  const killed = await tk(['local', 'kill', '1', '--dir', dir]);
  assert.equal(killed.exitCode, 0, killed.stderr);
  assert.match(killed.stderr, new RegExp(`Killed node 1 \\(pid ${pid}\\) with SIGKILL`));
  assert.ok(!running(pid), 'the node process is gone');
  const down = await tk(['local', 'status', '--dir', dir, '--output', 'json']);
  assert.equal(down.exitCode, 3);
  assert.equal(JSON.parse(down.stdout).nodes[0].state, 'stopped');
  const again = await tk(['local', 'kill', '1', '--dir', dir]);
  assert.equal(again.exitCode, 1);
  assert.match(again.stderr, /Node 1 is not running/);
  const missing = await tk(['local', 'kill', '7', '--dir', dir]);
  assert.equal(missing.exitCode, 1);
  assert.match(missing.stderr, /has no node 7 \(nodes: 1\)/);

  const restarted = await tk(['local', 'restart', '1', '--dir', dir]);
  assert.equal(restarted.exitCode, 0, restarted.stderr);
  assert.match(restarted.stderr, /Restarted node 1 \(pid \d+\)/);
  const after = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8'));
  assert.notEqual(after.nodes[0].pid, pid);
  assert.equal(after.nodes[0].brokerPort, before.nodes[0].brokerPort, 'same client port');
  assert.equal(after.nodes[0].controllerPort, before.nodes[0].controllerPort, 'same controller port');
  const listed = await tk(['topics', '--list'], { TKAFKA_BOOTSTRAP_SERVER: before.bootstrap });
  assert.match(listed.stdout, /^local-topic$/m, 'the data survived the crash');
  // restart of a running node: SIGTERM, then start
  const bounced = await tk(['local', 'restart', '1', '--dir', dir]);
  assert.equal(bounced.exitCode, 0, bounced.stderr);
  assert.ok(!running(after.nodes[0].pid), 'the previous process was stopped');
  const up = await tk(['local', 'status', '--dir', dir]);
  assert.equal(up.exitCode, 0, up.stdout);
});

test('local stop stops the processes; start restarts with the data; stop --clean removes the folder', async () => {
  const pid = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')).nodes[0].pid as number;
  const stop = await tk(['local', 'stop', '--dir', dir]);
  assert.equal(stop.exitCode, 0, stop.stderr);
  assert.match(stop.stderr, /Stopped the local cluster/);
  assert.ok(!running(pid), 'the node process is gone');
  const status = await tk(['local', 'status', '--dir', dir]);
  assert.equal(status.exitCode, 3);
  assert.match(status.stdout, /stopped/);

  const restart = await tk(['local', 'start', '--dir', dir]);
  assert.equal(restart.exitCode, 0, restart.stderr);
  const listed = await tk(['topics', '--list'], { TKAFKA_BOOTSTRAP_SERVER: restart.stdout.trim() });
  assert.match(listed.stdout, /^local-topic$/m, 'the data survived the restart');

  const clean = await tk(['local', 'stop', '--dir', dir, '--clean']);
  assert.equal(clean.exitCode, 0, clean.stderr);
  assert.ok(!existsSync(dir));
  const none = await tk(['local', 'status', '--dir', dir]);
  assert.equal(none.exitCode, 3);
  assert.match(none.stdout, /No local cluster/);
});

test('local: usage errors', async () => {
  const r = await tk(['local']);
  assert.equal(r.exitCode, 1);
  assert.match(r.stderr, /usage: tkafka local \[-h\] \{start,stop,status,kill,restart\}/);
  const m = await tk(['local', 'start', '--dir', dir, '--controllers', '10']);
  assert.equal(m.exitCode, 1);
  assert.match(m.stderr, /--controllers must be between 0 and 9/);
  const bad = await tk(['local', 'start', '--dir', dir, '-n', '0']);
  assert.equal(bad.exitCode, 1);
  assert.match(bad.stderr, /--nodes must be between 1 and 32/);
  const help = await tk(['local', '--help']);
  assert.equal(help.exitCode, 0);
  assert.match(help.stdout, /usage: tkafka local/);
});
