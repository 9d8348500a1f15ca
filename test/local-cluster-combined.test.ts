// `tkafka local start -n 3`: three combined nodes (process.roles=broker,controller) on one static
// quorum. Each node's broker registers with the active controller through its lifecycle manager and
// heartbeats, as Kafka's combined nodes do, so all three brokers are registered and unfenced whichever
// node leads. kill -9 of the leader node: another node leads, the killed broker is fenced after its
// session, and the two others keep serving (a topic created then, records produced and consumed
// through them); the restarted node follows the leader again and its broker is unfenced. Stop.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeBrokers, topicIds, type BrokerEntry } from './helpers/cluster.js';
import { localClusterFolder, tk, type StatusNode } from './helpers/local-cluster.js';
import { waitFor } from './helpers/wait-for.js';

const { dir: folder, status } = localClusterFolder('tkafka-local-combined-');

const portOf = (n: StatusNode): number => Number(n.broker!.split(':')[1]);

/** The brokers one node lists (DescribeCluster with fenced brokers), once they match `want`. */
const brokersSeen = (port: number, want: (list: BrokerEntry[]) => boolean, what: string) =>
  waitFor(
    async () => {
      const list = await describeBrokers(port);
      return list && want(list) ? list : null;
    },
    { what, timeoutMs: 60_000, intervalMs: 200 },
  );

const unfenced = (list: BrokerEntry[]): number[] => list.filter((b) => !b.isFenced).map((b) => b.brokerId);

let nodes: StatusNode[] = [];

test('local start -n 3: three combined nodes, one leader, three unfenced brokers', async () => {
  // single-replica partitions until issue 15 (replication): the group coordinator's topic too, so that
  // it can be created on the two brokers left after the kill
  const r = await tk([
    'local',
    'start',
    '-n',
    '3',
    '--port',
    '0',
    '--dir',
    folder(),
    '--timeout',
    '150',
    '--override',
    'offsets.topic.replication.factor=1',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /did not form one cluster/);
  const s = await waitFor(
    async () => {
      const x = await status();
      return x.code === 0 && x.nodes.every((n) => n.quorum !== 'unknown') ? x : null;
    },
    { what: 'every node in the quorum', timeoutMs: 60_000, intervalMs: 500 },
  );
  nodes = s.nodes;
  assert.deepEqual(
    s.nodes.map((n) => [n.id, n.roles]),
    [
      [1, 'broker,controller'],
      [2, 'broker,controller'],
      [3, 'broker,controller'],
    ],
  );
  assert.equal(s.nodes.filter((n) => n.quorum === 'leader').length, 1);
  assert.equal(s.nodes.filter((n) => n.quorum === 'follower').length, 2);
  for (const n of s.nodes)
    await brokersSeen(portOf(n), (l) => unfenced(l).join() === '1,2,3', `brokers 1, 2, 3 unfenced, seen by ${n.id}`);
  // the registrations went through the lifecycle manager: every node logged its own
  for (const n of s.nodes) {
    const log = readFileSync(join(folder(), `node-${n.id}`, 'server.log'), 'utf8');
    assert.match(log, new RegExp(`Successfully registered broker ${n.id} with broker epoch`), `node ${n.id}`);
  }
});

test('kill -9 of the leader node: the others keep serving; the restarted node rejoins', async () => {
  const before = await status();
  const leader = before.quorum!.leaderId;
  const survivors = nodes.filter((n) => n.id !== leader);
  const killed = await tk(['local', 'kill', String(leader), '--dir', folder()]);
  assert.equal(killed.exitCode, 0, killed.stderr);
  const t0 = Date.now();
  await waitFor(
    async () => {
      const x = await status();
      return x.quorum && x.quorum.leaderId !== leader && x.quorum.leaderId > 0 ? x : null;
    },
    { what: 'a new leader', timeoutMs: 60_000, intervalMs: 200 },
  );
  console.log(`new leader ${Date.now() - t0} ms after kill -9 of node ${leader}`);
  await brokersSeen(
    portOf(survivors[0]!),
    (l) => l.some((b) => b.brokerId === leader && b.isFenced),
    `broker ${leader} fenced`,
  );
  console.log(`broker ${leader} fenced ${Date.now() - t0} ms after its kill`);

  const bootstrap = survivors.map((n) => n.broker!).join(',');
  const env = { TKAFKA_BOOTSTRAP_SERVER: bootstrap };
  const created = await tk(['topics', '--create', '--topic', 'lcc-after', '--partitions', '2'], { env });
  assert.equal(created.exitCode, 0, created.stderr);
  for (const n of survivors)
    await waitFor(async () => (await topicIds(portOf(n), ['lcc-after']))?.has('lcc-after'), {
      what: `lcc-after on broker ${n.id}`,
    });
  const lines = Array.from({ length: 10 }, (_, i) => `m${i}`);
  const produced = await tk(['console-producer', '--bootstrap-server', survivors[0]!.broker!, '--topic', 'lcc-after'], {
    input: lines.join('\n') + '\n',
  });
  assert.equal(produced.exitCode, 0, produced.stderr);
  const consumed = await tk([
    'console-consumer',
    '--bootstrap-server',
    survivors[1]!.broker!,
    '--topic',
    'lcc-after',
    '--from-beginning',
    '--max-messages',
    '10',
    '--timeout-ms',
    '30000',
  ]);
  assert.equal(consumed.exitCode, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trim().split('\n').sort(), lines);

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
  for (const n of nodes)
    await brokersSeen(portOf(n), (l) => unfenced(l).join() === '1,2,3', `brokers 1, 2, 3 unfenced, seen by ${n.id}`);
  await waitFor(
    async () => (await topicIds(portOf(nodes.find((n) => n.id === leader)!), ['lcc-after']))?.has('lcc-after'),
    {
      what: `lcc-after on the restarted broker ${leader}`,
    },
  );
});

test('local stop: nothing left running', async () => {
  const stop = await tk(['local', 'stop', '--dir', folder()]);
  assert.equal(stop.exitCode, 0, stop.stderr);
  assert.match(stop.stderr, /Stopped the local cluster .* \(3 nodes\)/);
  assert.equal((await status()).code, 3);
});
