// `tkafka top` against a real tkafka cluster (a controller and three brokers, RF=3 topics): under a
// pseudo-terminal the view lists the brokers and the quorum leader, a non-zero produce rate while a
// bounded producer runs, and a group with the lag `consumer-groups --describe` reports; `--output
// json` is one snapshot with the same numbers; piped output is plain lines; a running consumer gives
// its topic a consume rate; `q` and Ctrl-C quit. With a broker stopped
// the partitions it held are under-replicated, as `topics --describe --under-replicated-partitions`
// lists them, and the broker is fenced.
//
//   npm run build && nice -n 19 node --test --test-concurrency=1 dist/test/top.test.js
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import { execa } from 'execa';
import { hasScript } from './helpers/pty.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { waitFor } from './helpers/wait-for.js';
import {
  checkLiveView,
  checkSnapshotAndPiped,
  commitOffsets,
  describeShareLag,
  lastFrame,
  produce,
  quitWithKey,
  shareGroupAtEarliest,
  startProducer,
  tkafka,
  topJson,
  topUnderPty,
} from './helpers/top.js';

const BROKERS = [2, 3, 4];
const BUSY = 'top-busy';
const LAGGING = 'top-lag';
const GROUP = 'top-group';
const SHARE = 'top-share';
const READER = 'top-reader';
let cluster: Cluster;
let bootstrap: string;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [{ id: 1, roles: 'controller' }, ...BROKERS.map((id) => ({ id, roles: 'broker' as const }))],
    controllerOverrides: { 'broker.session.timeout.ms': 6000 },
    brokerOverrides: { 'broker.heartbeat.interval.ms': 500 },
  });
  await waitForUnfenced(cluster, { ids: BROKERS });
  bootstrap = cluster.bootstrap();
  for (const topic of [BUSY, LAGGING]) {
    const r = await tkafka([
      'topics',
      '--bootstrap-server',
      bootstrap,
      '--create',
      '--topic',
      topic,
      '--partitions',
      '3',
      '--replication-factor',
      '3',
    ]);
    assert.equal(r.exitCode, 0, r.stderr);
  }
  await produce(bootstrap, LAGGING, 300);
  await commitOffsets(bootstrap, GROUP, LAGGING, 5);
  await shareGroupAtEarliest(bootstrap, SHARE, LAGGING);
});

after(async () => {
  await cluster?.cleanup();
});

test('live view: brokers, produce rate, group lag', { skip: !hasScript() }, async () => {
  const frame = await checkLiveView({ bootstrap, busy: BUSY, group: GROUP, brokerIds: BROKERS });
  assert.match(frame, /quorum leader 1 /, frame);
});

test('json snapshot and piped lines', async () => {
  await checkSnapshotAndPiped(bootstrap, GROUP);
  const j = await topJson(bootstrap, ['--iterations', '1']);
  assert.equal(j.quorumLeader, 1);
  assert.deepEqual(
    j.brokers.map((b) => [b.id, b.state]),
    BROKERS.map((id) => [id, 'unfenced']),
  );
  assert.equal(j.underReplicatedPartitions, 0);
  assert.deepEqual(
    j.groups.map((g) => [g.group, g.type]),
    [
      [SHARE, 'share'],
      [GROUP, 'classic'],
    ],
    'by lag: the share group starts at the earliest offsets',
  );
  // the share group's lag is share-groups --describe's
  const lags = await describeShareLag(bootstrap, SHARE);
  assert.equal(lags.size, 3);
  assert.equal(
    BigInt(j.groups[0]!.totalLag),
    [...lags.values()].reduce((n, l) => n + l, 0n),
  );
  assert.equal(j.groups[0]!.totalLag, 300);
});

test('consume rate from a running consumer', async () => {
  const producer = startProducer(bootstrap, BUSY, 20_000, 1000);
  const consumer = execa(
    'node',
    [
      'bin/tkafka',
      'console-consumer',
      '--bootstrap-server',
      bootstrap,
      '--topic',
      BUSY,
      '--group',
      READER,
      '--consumer-property',
      'auto.commit.interval.ms=200',
      '--max-messages',
      '20000',
      '--timeout-ms',
      '20000',
    ],
    { cwd: REPO_ROOT, reject: false, timeout: 60_000, stdout: 'ignore' },
  );
  try {
    const j = await waitFor(
      async () => {
        const s = await topJson(bootstrap, ['--interval', '1', '--topic', BUSY, '--group', READER]);
        const t = s.topics[0];
        return t && (t.consumeRate ?? 0) > 0 && (t.produceRate ?? 0) > 0 ? s : null;
      },
      { what: `${READER} consuming ${BUSY}`, timeoutMs: 60_000, intervalMs: 200 },
    );
    assert.equal(j.groups[0]!.group, READER);
    assert.ok((j.groups[0]!.consumeRate ?? 0) > 0, JSON.stringify(j.groups[0]));
  } finally {
    producer.kill();
    consumer.kill();
    await Promise.all([producer, consumer]);
  }
});

test('q and Ctrl-C quit the live view', { skip: !hasScript() }, async () => {
  for (const key of ['q', '\u0003']) {
    const { exitCode } = await quitWithKey(bootstrap, key);
    assert.equal(exitCode, 0, JSON.stringify(key));
  }
});

test('a broker down: fenced, URP as topics lists them', async () => {
  await cluster.node(4).stop();
  const j = await waitFor(
    async () => {
      const s = await topJson(bootstrap, ['--iterations', '1']);
      const b4 = s.brokers.find((b) => b.id === 4);
      return s.underReplicatedPartitions > 0 && b4?.state === 'fenced' ? s : null;
    },
    { what: 'under-replicated partitions and broker 4 fenced', timeoutMs: 60_000, intervalMs: 500 },
  );
  // what `topics --describe` lists with Kafka's filters
  const topicsTool = async (flag: string): Promise<string[]> => {
    const r = await tkafka(['topics', '--bootstrap-server', bootstrap, '--describe', flag]);
    assert.equal(r.exitCode, 0, r.stderr);
    return r.stdout
      .split('\n')
      .map((l) => /Topic: (\S+)\s+Partition: (\d+)/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => `${m[1]}-${m[2]}`)
      .sort();
  };
  const problem = (what: string): string[] =>
    j.problemPartitions
      .filter((p) => p.problems.includes(what))
      .map((p) => `${p.topic}-${p.partition}`)
      .sort();
  const listed = await topicsTool('--under-replicated-partitions');
  const fromTop = problem('under-replicated');
  assert.deepEqual(fromTop, listed, 'internal topics included');
  for (const t of [BUSY, LAGGING]) for (const p of [0, 1, 2]) assert.ok(fromTop.includes(`${t}-${p}`), `${t}-${p}`);
  assert.equal(j.underReplicatedPartitions, listed.length);
  // single-replica internal partitions on broker 4 have no leader now
  assert.deepEqual(problem('offline'), await topicsTool('--unavailable-partitions'));
  assert.equal(j.offlinePartitions, problem('offline').length);
  if (hasScript()) {
    const { raw, exitCode } = await topUnderPty(bootstrap, ['--topic', LAGGING], 1);
    assert.equal(exitCode, 0, raw);
    const frame = lastFrame(raw);
    assert.match(frame, /under-replicated 3\b/, frame);
    assert.match(frame, /Partitions with problems \(3\)/, frame);
    for (const p of [0, 1, 2])
      assert.match(
        frame,
        new RegExp(`^${LAGGING}\\s+${p}\\s+\\d+\\s+[\\d,]+\\s+[\\d,]+\\s+under-replicated`, 'm'),
        frame,
      );
    assert.match(frame, /^4\s+127\.0\.0\.1:\d+\s+-\s+fenced\s/m, frame);
  }
});
