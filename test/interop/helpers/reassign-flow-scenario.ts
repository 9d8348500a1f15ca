// The operator's path through a reassignment and a leader election, the same on a tkafka cluster and
// on an Apache Kafka 4.4.0 cluster (1 controller + brokers 2, 3, 4), driven by tkafka's tools:
// - generate → execute with a throttle → verify until done, for a partition holding 3 MB while a
//   producer keeps writing to it: the throttle configs are set during the move and gone after
//   `--verify`; `--list` and `--list --watch` show the move (bytes copied, rate); every acknowledged
//   record is read back once, in order, from the new replicas, whose logs are byte-identical;
// - cancel in the middle leaves the old assignment and clears the throttles;
// - after a broker restart, `leader-election --election-type preferred --all-topic-partitions` gives
//   the partitions back to their preferred leader (checked with Kafka's own TopicCommand);
// - a partition whose ISR is gone stays leaderless until `--election-type unclean` is asked for.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from '../../helpers/cluster.js';
import { LedgerProducer, ledgerViolation, readPartitions } from '../../helpers/ledger.js';
import {
  createReplicatedTopic,
  logBytes,
  logRecords,
  partitionInfo,
  produceRaw,
  produceRawAppended,
  waitIdentical,
  waitPartition,
} from '../../helpers/replication.js';
import { waitFor } from '../../helpers/wait-for.js';
import { kafkaLauncher } from './kafka-cluster.js';
import { screenText, tkafkaUnderPty } from '../../helpers/pty.js';
import { runKafka, runTkafka, TOPIC_COMMAND, type Run } from './tool-runs.js';
import { KafkaClient } from '../../../src/client/client.js';
import { describeConfigs, ResourceType } from '../../../src/client/admin/configs.js';

export const BROKERS = [2, 3, 4];
const PREFILL_BATCHES = 300; // 300 × 10 records of 1,000 bytes: 3 MB
const VALUE = 'x'.repeat(1000);

export async function startReassignCluster(impl: 'kafka' | 'tkafka'): Promise<Cluster> {
  const cluster = await startCluster({
    launcher: impl === 'tkafka' ? tkafkaLauncher : kafkaLauncher(),
    nodes: [{ id: 1, roles: 'controller' }, ...BROKERS.map((id) => ({ id, roles: 'broker' as const }))],
    overrides: { 'auto.leader.rebalance.enable': false },
    brokerOverrides: { 'offsets.topic.replication.factor': 3, 'replica.fetch.max.bytes': 65536 },
    startTimeoutMs: 300_000,
  });
  await waitForUnfenced(cluster);
  return cluster;
}

const reassign = (args: string[]): Promise<Run> => runTkafka('reassign-partitions', args);
const elect = (args: string[]): Promise<Run> => runTkafka('leader-election', args);
const ok = (r: Run, what: string): string => (assert.equal(r.code, 0, `${what}: ${r.out}${r.err}`), r.out);

/** The throttle configs set on the topic and the brokers (name → value), read with DescribeConfigs. */
async function throttleConfigs(client: KafkaClient, topic: string): Promise<Record<string, string>> {
  const res = await describeConfigs(client, [
    { type: ResourceType.TOPIC, name: topic },
    ...BROKERS.map((b) => ({ type: ResourceType.BROKER, name: String(b) })),
  ]);
  const out: Record<string, string> = {};
  for (const [key, r] of res) {
    assert.ok(r.ok, key);
    for (const e of r.value)
      if (/throttled/.test(e.name) && !e.isDefault && e.value !== null && e.value !== '')
        out[`${key.startsWith('2:') ? 'topic' : key}/${e.name}`] = e.value;
  }
  return out;
}

async function prefill(cluster: Cluster, topic: string, leader: number): Promise<void> {
  await waitPartition(cluster, topic, `leader ${leader}`, (p) => p.leader === leader);
  for (let i = 0; i < PREFILL_BATCHES; i++)
    await produceRawAppended(cluster.node(leader).port, topic, Array(10).fill(VALUE), { acks: -1 });
}

export interface FlowFigures {
  reassignMs: number;
  watchLines: number;
  acked: number;
}

export async function reassignWhileProducing(cluster: Cluster): Promise<FlowFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-flow-'));
  const B = ['--bootstrap-server', cluster.bootstrap()];
  const client = new KafkaClient({ bootstrapServers: cluster.bootstrap().split(',') });
  const topic = 'flow';
  try {
    assert.equal(
      await createReplicatedTopic(cluster.brokers[0]!.port, topic, { replicationFactor: 2, assignment: [2, 3] }),
      0,
    );
    await prefill(cluster, topic, 2);
    const ledger = new LedgerProducer(cluster.bootstrap().split(','), topic, [0], {
      batch: 5,
      maxPerPartition: 50_000,
    });
    ledger.start();
    try {
      await ledger.progress(0, 50);
      assert.ok(ledger.idempotent, 'the producer got a producer id: a retried batch cannot be written twice');
      // generate: onto brokers 3 and 4 (so broker 4 must copy all of it)
      const topicsFile = join(dir, 'topics.json');
      writeFileSync(topicsFile, JSON.stringify({ topics: [{ topic }], version: 1 }));
      const gen = ok(
        await reassign([...B, '--generate', '--topics-to-move-json-file', topicsFile, '--broker-list', '3,4']),
        'generate',
      );
      const lines = gen.split('\n');
      assert.equal(lines[0], 'Current partition replica assignment');
      assert.match(
        lines[1]!,
        /^\{"version":1,"partitions":\[\{"topic":"flow","partition":0,"replicas":\[2,3\],"log_dirs":\["[^"]+","[^"]+"\]\}\]\}$/,
      );
      assert.equal(lines[3], 'Proposed partition reassignment configuration');
      const proposed = JSON.parse(lines[4]!) as { partitions: { replicas: number[] }[] };
      assert.deepEqual([...proposed.partitions[0]!.replicas].sort(), [3, 4]);
      const plan = join(dir, 'plan.json');
      writeFileSync(plan, lines[4]!);

      // execute with a throttle of 500 KB/s
      const started = Date.now();
      const exec = ok(
        await reassign([...B, '--execute', '--reassignment-json-file', plan, '--throttle', '500000']),
        'execute',
      );
      assert.match(
        exec,
        /^Current partition replica assignment\n\n\{.*\}\n\nSave this to use as the --reassignment-json-file option during rollback\n/,
      );
      assert.match(
        exec,
        /Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed\.\n/,
      );
      assert.match(exec, /The inter-broker throttle limit was set to 500000 B\/s\n/);
      assert.match(exec, /Successfully started partition reassignment for flow-0\n$/);
      // the throttle configs are set while the move runs (a broker shows its own once it applied them)
      const during = await waitFor(
        async () => {
          const c = await throttleConfigs(client, topic);
          return Object.keys(c).length === 2 + 2 * BROKERS.length ? c : null;
        },
        { what: 'the throttle configs of the topic and of brokers 2, 3, 4', timeoutMs: 15_000, intervalMs: 100 },
      );
      for (const b of BROKERS) {
        assert.equal(during[`4:${b}/leader.replication.throttled.rate`], '500000', JSON.stringify(during));
        assert.equal(during[`4:${b}/follower.replication.throttled.rate`], '500000', JSON.stringify(during));
      }
      assert.equal(during['topic/leader.replication.throttled.replicas'], '0:2,0:3');
      assert.equal(during['topic/follower.replication.throttled.replicas'], '0:4');
      const listed = ok(await reassign([...B, '--list']), 'list');
      assert.match(
        listed,
        /^Current partition reassignments:\nflow-0: replicas: [\d,]+\. adding: 4\. removing: 2\.\n$/,
      );

      // the watch (piped: logfmt lines) follows the move to its end
      const watch = await runTkafka('reassign-partitions', [...B, '--list', '--watch', '0.5'], {
        TKAFKA_WATCH_COUNT: '600',
      });
      ok(watch, 'list --watch');
      const watchLines = watch.out.trim().split('\n');
      assert.match(watchLines[watchLines.length - 1]!, /^time=\S+ partitions=0 done=true$/);
      const copies = watchLines.filter((l) => / topic=flow partition=0 broker=4 /.test(l));
      assert.ok(copies.length >= 2, watch.out);
      const moved = copies.map((l) => Number(/moved-bytes=(\d+)/.exec(l)?.[1] ?? 0));
      assert.ok(moved[moved.length - 1]! > moved[0]!, `bytes copied grow: ${moved.join(' ')}`);
      assert.ok(
        copies.some((l) => /target-bytes=\d{7,}/.test(l)),
        "the target is the existing replicas' size",
      );
      const reassignMs = Date.now() - started;

      // verify: done, and the throttles removed
      const verify = ok(await reassign([...B, '--verify', '--reassignment-json-file', plan]), 'verify');
      assert.equal(
        verify,
        'Status of partition reassignment:\nReassignment of partition flow-0 is completed.\n\n' +
          'Clearing broker-level throttles on brokers 2,3,4\nClearing topic-level throttles on topic flow\n',
      );
      await waitFor(async () => Object.keys(await throttleConfigs(client, topic)).length === 0, {
        what: 'the throttle configs removed',
        timeoutMs: 15_000,
      });
      await ledger.progress(0, 50);
      await ledger.stop();
      assert.deepEqual(ledger.failed, []);
      const info = await waitPartition(cluster, topic, 'replicas 3, 4 in sync', (p) => p.isr.length === 2);
      assert.deepEqual([...info.replicas].sort(), [3, 4]);
      // every acknowledged record, once, in order, read from the new replicas; their logs identical
      const acked = ledger.acked.get(0)!;
      const end = acked[acked.length - 1]!.offset + 1n;
      const read = await readPartitions(cluster.bootstrap().split(','), topic, new Map([[0, end]]));
      const mine = read.get(0)!.filter((r) => r.value.startsWith('flow-0-'));
      const violation = ledgerViolation(acked, mine);
      if (violation !== null) {
        // Enough context to tell a log holding a record twice from a reader that returned it twice.
        const at = Number(/offset (\d+)/.exec(violation)?.[1] ?? 0);
        const near = read.get(0)!.filter((r) => Math.abs(Number(r.offset) - at) <= 8);
        const sent = acked.filter((a) => Math.abs(Number(a.offset) - at) <= 8);
        const logs = [3, 4].map((b) => {
          const recs = logRecords(logBytes(cluster.node(b), topic));
          return `broker ${b}: ${[...recs]
            .filter(([o]) => Math.abs(o - at) <= 8)
            .map(([o, v]) => `${o}=${v}`)
            .join(' ')}`;
        });
        assert.fail(
          `${violation}\nread: ${near.map((r) => `${r.offset}=${r.value}`).join(' ')}\n` +
            `acked: ${sent.map((a) => `${a.offset}=${a.value}`).join(' ')}\n${logs.join('\n')}`,
        );
      }
      assert.equal(
        read.get(0)!.filter((r) => r.value === VALUE).length,
        PREFILL_BATCHES * 10,
        'the prefilled records are all there',
      );
      await waitIdentical(topic, [cluster.node(3), cluster.node(4)], PREFILL_BATCHES * 10 + acked.length);
      return { reassignMs, watchLines: watchLines.length, acked: acked.length };
    } finally {
      await ledger.stop().catch(() => undefined);
    }
  } finally {
    client.close();
  }
}

export async function cancelInTheMiddle(cluster: Cluster): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-cancel-'));
  const B = ['--bootstrap-server', cluster.bootstrap()];
  const client = new KafkaClient({ bootstrapServers: cluster.bootstrap().split(',') });
  const topic = 'held';
  try {
    assert.equal(
      await createReplicatedTopic(cluster.brokers[0]!.port, topic, { replicationFactor: 2, assignment: [2, 3] }),
      0,
    );
    await prefill(cluster, topic, 2);
    const plan = join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic, partition: 0, replicas: [3, 4] }] }));
    // 1 KB/s: the 3 MB copy cannot finish while the test looks at it
    ok(await reassign([...B, '--execute', '--reassignment-json-file', plan, '--throttle', '1000']), 'execute');
    assert.match(ok(await reassign([...B, '--list']), 'list'), /held-0: replicas: 3,4,2\. adding: 4\. removing: 2\./);
    const verify = await reassign([...B, '--verify', '--reassignment-json-file', plan]);
    assert.equal(
      verify.out,
      'Status of partition reassignment:\nReassignment of partition held-0 is still in progress.\n\n',
    );
    assert.ok(Object.keys(await throttleConfigs(client, topic)).length > 0, 'throttles set while in progress');
    // On a terminal, --list --watch draws the move live: the copy to broker 4 with its bytes and a bar.
    const live = await tkafkaUnderPty(['reassign-partitions', ...B, '--list', '--watch', '0.3'], {
      TKAFKA_WATCH_COUNT: '3',
    });
    assert.equal(live.exitCode, 0, live.raw);
    assert.ok(/\x1b\[/.test(live.raw), 'escape sequences: a live view');
    const screen = screenText(live.raw);
    assert.match(screen, /TOPIC\s+PARTITION\s+TO-BROKER\s+MOVED\s+OF\s+RATE\s+ETA\s+PROGRESS/);
    assert.match(screen, /^held\s+0\s+4\s+\d/m);
    assert.match(screen, /1 partition reassigning · .* of 2\.9 MiB/);
    const cancel = ok(await reassign([...B, '--cancel', '--reassignment-json-file', plan]), 'cancel');
    assert.equal(
      cancel,
      'Successfully cancelled partition reassignment for: held-0\nNone of the specified partition moves are active.' +
        'Clearing broker-level throttles on brokers 2,3,4\nClearing topic-level throttles on topic held\n',
    );
    assert.equal(ok(await reassign([...B, '--list']), 'list'), 'No partition reassignments found.\n');
    await waitFor(async () => Object.keys(await throttleConfigs(client, topic)).length === 0, {
      what: 'the throttle configs removed by --cancel',
      timeoutMs: 15_000,
    });
    // the old assignment, in sync, with every record
    const info = await waitPartition(cluster, topic, 'replicas 2, 3 in sync', (p) => p.isr.length === 2);
    // Kafka's PartitionReassignmentRevert keeps the order of the replica list in flight (target first),
    // without the adding replicas: [3, 4, 2] becomes [3, 2].
    assert.deepEqual(info.replicas, [3, 2]);
    assert.equal(info.leader, 2);
    const read = await readPartitions(
      cluster.bootstrap().split(','),
      topic,
      new Map([[0, BigInt(PREFILL_BATCHES * 10)]]),
    );
    assert.equal(read.get(0)!.length, PREFILL_BATCHES * 10);
  } finally {
    client.close();
  }
}

/** Kafka's TopicCommand --describe of one partition: its Leader, Replicas and Isr as Kafka's client sees them. */
async function describedByKafka(cluster: Cluster, topic: string): Promise<{ leader: string; isr: string }> {
  const r = await runKafka(TOPIC_COMMAND, ['--bootstrap-server', cluster.bootstrap(), '--describe', '--topic', topic]);
  assert.equal(r.code, 0, r.out + r.err);
  const m = /\tPartition: 0\tLeader: (\S+)\tReplicas: \S+\tIsr: (\S*)/.exec(r.out);
  assert.ok(m, r.out);
  return { leader: m[1]!, isr: m[2]! };
}

export async function preferredElectionAfterRestart(cluster: Cluster): Promise<void> {
  const B = ['--bootstrap-server', cluster.bootstrap()];
  const topic = 'prefer';
  assert.equal(
    await createReplicatedTopic(cluster.brokers[0]!.port, topic, { replicationFactor: 3, assignment: [2, 3, 4] }),
    0,
  );
  await waitPartition(cluster, topic, 'leader 2, all in sync', (p) => p.leader === 2 && p.isr.length === 3);
  await cluster.node(2).stop();
  await waitPartition(cluster, topic, 'another leader', (p) => p.leader !== 2 && p.leader >= 0);
  await cluster.node(2).start();
  await waitForUnfenced(cluster);
  await waitPartition(cluster, topic, 'broker 2 back in the ISR', (p) => p.isr.includes(2), 120_000);
  assert.notEqual(
    (await describedByKafka(cluster, topic)).leader,
    '2',
    'the leader stays away from 2 (no auto rebalance)',
  );
  const out = ok(await elect([...B, '--election-type', 'preferred', '--all-topic-partitions']), 'leader-election');
  assert.match(out, /^Successfully completed leader election \(PREFERRED\) for partitions .*\bprefer-0\b/);
  await waitFor(async () => (await describedByKafka(cluster, topic)).leader === '2', {
    what: "Kafka's TopicCommand sees broker 2 lead prefer-0 again",
    timeoutMs: 30_000,
  });
  // nothing left to elect
  const again = ok(await elect([...B, '--election-type', 'preferred', '--topic', topic, '--partition', '0']), 'again');
  assert.equal(again, 'Valid replica already elected for partitions prefer-0\n');
}

export async function uncleanOnlyWhenAsked(cluster: Cluster): Promise<void> {
  const B = ['--bootstrap-server', cluster.bootstrap()];
  const topic = 'lost-isr';
  assert.equal(
    await createReplicatedTopic(cluster.brokers[0]!.port, topic, { replicationFactor: 2, assignment: [3, 4] }),
    0,
  );
  await waitPartition(cluster, topic, 'leader 3, both in sync', (p) => p.leader === 3 && p.isr.length === 2);
  await cluster.node(4).stop();
  await waitPartition(cluster, topic, 'ISR 3', (p) => p.isr.join() === '3');
  assert.equal(await produceRaw(cluster.node(3).port, topic, ['only-on-3'], { acks: -1 }), 0);
  await cluster.node(3).stop();
  await waitPartition(cluster, topic, 'no leader', (p) => p.leader === -1);
  await cluster.node(4).start();
  await waitForUnfenced(cluster, { ids: [2, 4] });
  // Broker 4 is alive but was not in the ISR: no leader without an unclean election.
  const preferred = await elect([...B, '--election-type', 'preferred', '--topic', topic, '--partition', '0']);
  assert.equal(preferred.code, 1, preferred.out);
  assert.match(preferred.out, /^Error completing leader election \(PREFERRED\) for partition: lost-isr-0: /m);
  assert.equal((await partitionInfo(cluster.node(2).port, topic))!.leader, -1);
  assert.equal((await describedByKafka(cluster, topic)).leader, 'none');
  const unclean = ok(
    await elect([...B, '--election-type', 'unclean', '--topic', topic, '--partition', '0']),
    'unclean',
  );
  assert.equal(unclean, 'Successfully completed leader election (UNCLEAN) for partitions lost-isr-0\n');
  await waitFor(async () => (await describedByKafka(cluster, topic)).leader === '4', {
    what: "Kafka's TopicCommand sees broker 4 lead lost-isr-0",
    timeoutMs: 30_000,
  });
  await cluster.node(3).start();
  await waitForUnfenced(cluster);
}

/** The four scenarios on one cluster of `impl`, as node:test tests. */
export function reassignFlowSuite(impl: 'kafka' | 'tkafka'): void {
  let cluster: Cluster;
  before(async () => {
    cluster = await startReassignCluster(impl);
  });
  after(async () => {
    await cluster?.cleanup();
  });
  test('generate → execute with a throttle → verify, while producing: every record on the new replicas', async (t) => {
    const f = await reassignWhileProducing(cluster);
    t.diagnostic(`${impl}: 3 MB moved at 500 KB/s in ${f.reassignMs} ms, ${f.acked} records produced meanwhile`);
  });
  test('cancel in the middle leaves the old assignment', () => cancelInTheMiddle(cluster));
  test('preferred leader election after a broker restart', () => preferredElectionAfterRestart(cluster));
  test('unclean election only when asked', () => uncleanOnlyWhenAsked(cluster));
}
