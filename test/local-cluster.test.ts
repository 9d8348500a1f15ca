// `tkafka local` as a real cluster: `local start -n 3 --controllers 3` forms one cluster (every
// broker lists all three), `local status` shows one leader and two followers among the controllers
// and the brokers as observers, a topic is on every broker, `local kill` of the leader makes another
// controller lead, `local restart` brings it back as a caught-up follower, `local stop` stops
// everything. Dynamic quorum (KIP-853), local's default; TKAFKA_LOCAL_QUORUM=static runs the same with
// controller.quorum.voters.
import test from 'node:test';
import assert from 'node:assert/strict';
import { topicIds } from './helpers/cluster.js';
import { localClusterFolder, tk } from './helpers/local-cluster.js';
import { waitFor } from './helpers/wait-for.js';

/** dynamic (the default) or static, both end to end. */
const QUORUM = process.env.TKAFKA_LOCAL_QUORUM ?? 'dynamic';

const { dir: folder, status } = localClusterFolder('tkafka-local-cluster-');

test('local start -n 3 --controllers 3: one cluster, a leader, followers and observers', async () => {
  const r = await tk([
    'local',
    'start',
    '-n',
    '3',
    '--controllers',
    '3',
    '--quorum',
    QUORUM,
    '--port',
    '0',
    '--dir',
    folder(),
    '--timeout',
    '150',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\n?$/);
  assert.doesNotMatch(r.stderr, /did not form one cluster/);
  const s = await waitFor(
    async () => {
      const x = await status();
      return x.code === 0 && x.nodes.every((n) => n.quorum !== 'unknown') ? x : null;
    },
    { what: 'every node in the quorum', timeoutMs: 60_000, intervalMs: 500 },
  );
  assert.deepEqual(
    s.nodes.map((n) => [n.id, n.roles]),
    [
      [1, 'controller'],
      [2, 'controller'],
      [3, 'controller'],
      [4, 'broker'],
      [5, 'broker'],
      [6, 'broker'],
    ],
  );
  assert.equal(s.nodes.filter((n) => n.quorum === 'leader').length, 1);
  assert.equal(s.nodes.filter((n) => n.quorum === 'follower').length, 2);
  assert.deepEqual(
    s.nodes.filter((n) => n.quorum === 'observer').map((n) => n.id),
    [4, 5, 6],
  );
  const created = await tk(['topics', '--create', '--topic', 'lc-a'], {
    env: { TKAFKA_BOOTSTRAP_SERVER: r.stdout.trim() },
  });
  assert.equal(created.exitCode, 0, created.stderr);
  for (const n of s.nodes.filter((x) => x.broker))
    await waitFor(async () => (await topicIds(Number(n.broker!.split(':')[1]), ['lc-a']))?.has('lc-a'), {
      what: `lc-a on broker ${n.id}`,
    });
});

test('local kill of the leader: another controller leads; local restart: it follows', async () => {
  const s = await status();
  const leader = s.quorum!.leaderId;
  const killed = await tk(['local', 'kill', String(leader), '--dir', folder()]);
  assert.equal(killed.exitCode, 0, killed.stderr);
  const after = await waitFor(
    async () => {
      const x = await status();
      return x.quorum && x.quorum.leaderId !== leader && x.quorum.leaderId > 0 ? x : null;
    },
    { what: 'a new leader', timeoutMs: 60_000, intervalMs: 200 },
  );
  assert.equal(after.code, 1, 'one node is down');
  const restarted = await tk(['local', 'restart', String(leader), '--dir', folder()]);
  assert.equal(restarted.exitCode, 0, restarted.stderr);
  await waitFor(
    async () => {
      const x = await status();
      const n = x.nodes.find((y) => y.id === leader);
      return x.code === 0 && n?.quorum === 'follower' && n.lag === 0;
    },
    { what: `node ${leader} to follow again, caught up`, timeoutMs: 60_000, intervalMs: 500 },
  );
});

test('local stop: brokers, then controllers; nothing left running', async () => {
  const stop = await tk(['local', 'stop', '--dir', folder()]);
  assert.equal(stop.exitCode, 0, stop.stderr);
  assert.match(stop.stderr, /Stopped the local cluster .* \(6 nodes\)/);
  assert.equal((await status()).code, 3);
});
