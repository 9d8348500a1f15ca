// `tkafka reassign-partitions` and `tkafka leader-election` against an Apache Kafka 4.4.0 cluster
// (1 controller + brokers 2, 3, 4), compared line by line with Kafka's own ReassignPartitionsCommand
// and LeaderElectionCommand. Changing commands run on twin topics, first Kafka's tool on `k-…`, then
// tkafka on `t-…` in the same state, and their outputs are compared with the name swapped. A
// reassignment is kept in progress by a 1 B/s throttle on a partition holding 2 MB (fetched 10 KB at a
// time), so verify, list and cancel see it; the throttle configs each tool sets are compared too.
//
//   The suite runs on Apache Kafka 4.4.0 (test/interop/reassign-tools.test.ts) and on tkafka
//   (test/interop/reassign-tools-tkafka.test.ts), where Kafka's tools talk to tkafka.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, tkafkaLauncher, waitForUnfenced, type Cluster } from '../../helpers/cluster.js';
import {
  createReplicatedTopic,
  produceRawAppended,
  topicPartitions,
  waitPartition,
} from '../../helpers/replication.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ELECTION_COMMAND, REASSIGN_COMMAND, runKafka, runTkafka, type Run } from './tool-runs.js';
import { kafkaLauncher } from './kafka-cluster.js';
import { KafkaClient } from '../../../src/client/client.js';
import { listPartitionReassignments } from '../../../src/client/admin/topics.js';
import { describeConfigs, ResourceType } from '../../../src/client/admin/configs.js';

const BROKERS = [2, 3, 4];

/** The suite on a cluster of Apache Kafka 4.4.0 or of tkafka. */
export function reassignToolsSuite(CLUSTER: 'kafka' | 'tkafka'): void {
  const REASSIGN = REASSIGN_COMMAND;
  const ELECTION = ELECTION_COMMAND;

  let cluster: Cluster;
  let dir: string;
  let client: KafkaClient;

  const tkafka = (tool: 'reassign-partitions' | 'leader-election', args: string[]): Promise<Run> =>
    runTkafka(tool, args);
  const kafka = runKafka;

  /** Kafka's text without Java stack-trace lines and log4j lines (tkafka prints neither). */
  const noStack = (s: string): string =>
    s
      .split('\n')
      .filter(
        (l) =>
          !/^\s+at |^\[\d{4}-|^Caused by: |^\s+\.\.\. \d+ more|^\s+Suppressed: |^(org|java)\.[\w.$]+(Exception|Error)/.test(
            l,
          ),
      )
      .join('\n');

  const transcript: string[] = [];

  /**
   * Kafka's tool with `kArgs`, then tkafka's with the same arguments for the twin (`k-` → `t-`); asserts
   * equal exit codes and stdout (stack traces left out), and returns both.
   */
  async function twin(
    tool: 'reassign-partitions' | 'leader-election',
    kArgs: string[],
    opts: { stdoutOnly?: boolean; normalize?: (s: string) => string } = {},
  ): Promise<{ k: Run; t: Run }> {
    const swap = (s: string): string => s.replace(/\bk-(move|elect)/g, 't-$1');
    const k = await kafka(tool === 'reassign-partitions' ? REASSIGN : ELECTION, kArgs);
    const t = await tkafka(tool, kArgs.map(swap));
    // An `Error:` line is followed by Kafka's stack trace and a blank line: compare up to the last text.
    const norm = opts.normalize ?? (opts.stdoutOnly ? (s: string) => s.replace(/\n+$/, '\n') : (s: string) => s);
    const label = `${tool} ${kArgs.join(' ')}`;
    transcript.push(
      `$ kafka-${tool}.sh ${kArgs.join(' ')}\n${k.out}${k.err}`,
      `$ tkafka ${tool} ${kArgs.map(swap).join(' ')}\n${t.out}${t.err}`,
    );
    assert.equal(t.code, k.code, `${label}: exit code (kafka: ${k.out}${k.err}; tkafka: ${t.out}${t.err})`);
    assert.equal(norm(t.out), norm(swap(noStack(k.out))), `${label}: stdout`);
    if (!opts.stdoutOnly) {
      const kErr = noStack(k.err)
        .split('\n')
        .filter((l) => l !== '');
      const tErr = t.err.split('\n').filter((l) => l !== '');
      assert.deepEqual(tErr, kErr.map(swap), `${label}: stderr`);
    }
    return { k, t };
  }

  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tkafka-reassign-'));
    cluster = await startCluster({
      launcher: CLUSTER === 'tkafka' ? tkafkaLauncher : kafkaLauncher(),
      nodes: [{ id: 1, roles: 'controller' }, ...BROKERS.map((id) => ({ id, roles: 'broker' as const }))],
      overrides: { 'auto.leader.rebalance.enable': false },
      // Fetches of 10 KB: a 1 B/s throttle holds a reassignment of a 2 MB partition for hours.
      brokerOverrides: { 'replica.fetch.max.bytes': 10240, 'offsets.topic.replication.factor': 3 },
      startTimeoutMs: 300_000,
    });
    await waitForUnfenced(cluster);
    client = new KafkaClient({ bootstrapServers: cluster.bootstrap().split(',') });
    for (const prefix of ['k', 't']) {
      const port = cluster.brokers[0]!.port;
      assert.equal(
        await createReplicatedTopic(port, `${prefix}-move`, {
          replicationFactor: 2,
          assignments: [
            [2, 3],
            [3, 4],
            [4, 2],
          ],
        }),
        0,
      );
      assert.equal(
        await createReplicatedTopic(port, `${prefix}-elect`, {
          replicationFactor: 2,
          assignments: [
            [2, 3],
            [3, 2],
          ],
        }),
        0,
      );
    }
    // 2 MB in partition 0 of each move topic, in 10 KB batches.
    const value = 'x'.repeat(1000);
    for (const prefix of ['k', 't']) {
      await waitPartition(cluster, `${prefix}-move`, 'a leader', (p) => p.leader === 2);
      for (let i = 0; i < 200; i++) {
        await produceRawAppended(cluster.node(2).port, `${prefix}-move`, Array(10).fill(value), {
          acks: -1,
          partition: 0,
        });
      }
    }
  });

  after(async () => {
    client?.close();
    await cluster?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
    if (transcript.length > 0) console.log(transcript.join('\n'));
  });

  async function throttleConfigs(topic: string): Promise<Record<string, string | null>> {
    const res = await describeConfigs(client, [
      { type: ResourceType.TOPIC, name: topic },
      ...BROKERS.map((b) => ({ type: ResourceType.BROKER, name: String(b) })),
    ]);
    const out: Record<string, string | null> = {};
    for (const [key, r] of res) {
      assert.ok(r.ok, key);
      for (const e of r.value)
        if (/throttled|alter\.log\.dirs\.io/.test(e.name) && !e.isDefault && e.value !== null && e.value !== '')
          out[`${key.replace(/^2:.*/, 'topic')}/${e.name}`] = e.value;
    }
    return out;
  }

  /** The brokers apply a config change from the metadata log shortly after the tool returns. */
  const throttlesCleared = (topic: string): Promise<unknown> =>
    waitFor(async () => Object.keys(await throttleConfigs(topic)).length === 0, {
      what: `every throttle config of ${topic} and the brokers removed`,
      timeoutMs: 15_000,
    });

  const ongoing = async (): Promise<string[]> => [...(await listPartitionReassignments(client, null)).keys()].sort();

  // Kafka's run of each step, kept for the comparison with tkafka's run on the twin topic.
  const kExec: string[] = [];
  const tExec: string[] = [];
  let kThrottles: Record<string, string | null> = {};
  const kOut: Record<string, Run> = {};

  test('reassign-partitions: generate, execute with a throttle, verify, list, cancel as kafka-reassign-partitions.sh', async () => {
    const B = ['--bootstrap-server', cluster.bootstrap()];
    // generate: the current assignment (with each replica's log dir) line by line; the proposal is random in both.
    const topicsFile = file('topics.json', '{"topics":[{"topic":"k-move"}],"version":1}');
    file('topics-t.json', '{"topics":[{"topic":"t-move"}],"version":1}');
    const k = await kafka(REASSIGN, [
      ...B,
      '--generate',
      '--topics-to-move-json-file',
      topicsFile,
      '--broker-list',
      '2,3,4',
    ]);
    const t = await tkafka('reassign-partitions', [
      ...B,
      '--generate',
      '--topics-to-move-json-file',
      join(dir, 'topics-t.json'),
      '--broker-list',
      '2,3,4',
    ]);
    transcript.push(
      `$ kafka-reassign-partitions.sh --generate\n${k.out}`,
      `$ tkafka reassign-partitions --generate\n${t.out}`,
    );
    assert.equal(k.code, 0, k.out + k.err);
    assert.equal(t.code, 0, t.out + t.err);
    const kl = k.out.split('\n');
    const tl = t.out.split('\n');
    assert.equal(tl.length, kl.length);
    assert.deepEqual([tl[0], tl[1], tl[2], tl[3]], [kl[0], kl[1]!.replaceAll('k-move', 't-move'), kl[2], kl[3]]);
    assert.match(kl[1]!, /"log_dirs":\["\/[^"]+","\/[^"]+"\]/, "the current assignment names each replica's log dir");
    for (const [out, topic] of [
      [kl, 'k-move'],
      [tl, 't-move'],
    ] as const) {
      const proposed = JSON.parse(out[4]!) as {
        partitions: { topic: string; partition: number; replicas: number[]; log_dirs: string[] }[];
      };
      assert.deepEqual(
        proposed.partitions.map((p) => `${p.topic}-${p.partition}`),
        [0, 1, 2].map((i) => `${topic}-${i}`),
      );
      const leaders = new Set(proposed.partitions.map((p) => p.replicas[0]));
      assert.equal(leaders.size, 3, 'one partition led by each broker');
      for (const p of proposed.partitions) {
        assert.equal(new Set(p.replicas).size, 2);
        assert.ok(p.replicas.every((b) => BROKERS.includes(b)));
        assert.deepEqual(p.log_dirs, ['any', 'any']);
      }
    }
    // generate errors
    await twin(
      'reassign-partitions',
      [
        ...B,
        '--generate',
        '--topics-to-move-json-file',
        file('nope.json', '{"topics":[{"topic":"nope"}]}'),
        '--broker-list',
        '2,3',
      ],
      { stdoutOnly: true },
    );
    await twin(
      'reassign-partitions',
      [...B, '--generate', '--topics-to-move-json-file', topicsFile, '--broker-list', '2,2'],
      { stdoutOnly: true },
    );

    const plan = (prefix: string): string =>
      file(
        `${prefix}-plan.json`,
        JSON.stringify({
          version: 1,
          partitions: [
            { topic: `${prefix}-move`, partition: 0, replicas: [3, 4] },
            { topic: `${prefix}-move`, partition: 1, replicas: [4, 2] },
            { topic: `${prefix}-move`, partition: 2, replicas: [2, 3] },
          ],
        }),
      );
    plan('t');
    const kPlan = plan('k');

    // execute errors (nothing changes)
    const badBroker = file(
      'k-move-bad.json',
      '{"version":1,"partitions":[{"topic":"k-move","partition":0,"replicas":[2,9]}]}',
    );
    file('t-move-bad.json', '{"version":1,"partitions":[{"topic":"t-move","partition":0,"replicas":[2,9]}]}');
    await twin('reassign-partitions', [...B, '--execute', '--reassignment-json-file', badBroker], { stdoutOnly: true });
    const badPart = file(
      'k-move-badpart.json',
      '{"version":1,"partitions":[{"topic":"k-move","partition":7,"replicas":[2,3]}]}',
    );
    file('t-move-badpart.json', '{"version":1,"partitions":[{"topic":"t-move","partition":7,"replicas":[2,3]}]}');
    await twin('reassign-partitions', [...B, '--execute', '--reassignment-json-file', badPart], { stdoutOnly: true });
    await twin('reassign-partitions', [...B, '--list']);
    await twin('reassign-partitions', ['--bootstrap-controller', cluster.controllerBootstrap(), '--list']);

    for (const prefix of ['k', 't']) {
      const args = [...B, '--execute', '--reassignment-json-file', join(dir, `${prefix}-plan.json`), '--throttle', '1'];
      const run = prefix === 'k' ? await kafka(REASSIGN, args) : await tkafka('reassign-partitions', args);
      transcript.push(
        `$ ${prefix === 'k' ? 'kafka-reassign-partitions.sh' : 'tkafka reassign-partitions'} ${args.join(' ')}\n${run.out}${run.err}`,
      );
      assert.equal(run.code, 0, run.out + run.err);
      (prefix === 'k' ? kExec : tExec).push(run.out);
      // partitions 1 and 2 hold nothing and complete; partition 0 is held by the throttle
      await waitFor(async () => (await ongoing()).join() === `${prefix}-move-0`, {
        what: `only ${prefix}-move-0 still reassigning`,
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      if (prefix === 'k') {
        kThrottles = await throttleConfigs('k-move');
        // verify, list, a second execute refused, cancel: Kafka first
        kOut.verify = await kafka(REASSIGN, [...B, '--verify', '--reassignment-json-file', kPlan]);
        kOut.list = await kafka(REASSIGN, [...B, '--list']);
        kOut.listController = await kafka(REASSIGN, [
          '--bootstrap-controller',
          cluster.controllerBootstrap(),
          '--list',
        ]);
        kOut.again = await kafka(REASSIGN, [...B, '--execute', '--reassignment-json-file', kPlan]);
        kOut.cancel = await kafka(REASSIGN, [...B, '--cancel', '--reassignment-json-file', kPlan]);
        kOut.after = await kafka(REASSIGN, [...B, '--verify', '--reassignment-json-file', kPlan]);
        kOut.listAfter = await kafka(REASSIGN, [...B, '--list']);
        assert.deepEqual(await ongoing(), []);
        await throttlesCleared('k-move');
      } else {
        const tPlan = join(dir, 't-plan.json');
        assert.deepEqual(await throttleConfigs('t-move'), kThrottles, 'the same throttle configs as Kafka set');
        const tOut: Record<string, Run> = {};
        tOut.verify = await tkafka('reassign-partitions', [...B, '--verify', '--reassignment-json-file', tPlan]);
        tOut.list = await tkafka('reassign-partitions', [...B, '--list']);
        tOut.listController = await tkafka('reassign-partitions', [
          '--bootstrap-controller',
          cluster.controllerBootstrap(),
          '--list',
        ]);
        tOut.again = await tkafka('reassign-partitions', [...B, '--execute', '--reassignment-json-file', tPlan]);
        tOut.cancel = await tkafka('reassign-partitions', [...B, '--cancel', '--reassignment-json-file', tPlan]);
        tOut.after = await tkafka('reassign-partitions', [...B, '--verify', '--reassignment-json-file', tPlan]);
        tOut.listAfter = await tkafka('reassign-partitions', [...B, '--list']);
        assert.deepEqual(await ongoing(), []);
        await throttlesCleared('t-move');
        const swap = (s: string): string => s.replaceAll('k-move', 't-move');
        assert.equal(tExec[0], swap(kExec[0]!), 'execute');
        for (const step of Object.keys(tOut)) {
          const k = kOut[step]!;
          const t = tOut[step]!;
          transcript.push(`[${step}] kafka:\n${k.out}${k.err}\n[${step}] tkafka:\n${t.out}${t.err}`);
          assert.equal(t.code, k.code, `${step}: exit code (kafka ${k.out}${k.err}; tkafka ${t.out}${t.err})`);
          assert.equal(t.out, swap(noStack(k.out)), `${step}: stdout`);
        }
      }
    }
    // A reassignment JSON tkafka prints for rollback is accepted by both tools' verify.
    const json = JSON.parse(
      (
        await tkafka('reassign-partitions', [
          ...B,
          '--verify',
          '--reassignment-json-file',
          join(dir, 't-plan.json'),
          '--output',
          'json',
        ])
      ).out,
    ) as {
      partitions: { state: string }[];
      throttlesCleared: unknown;
    };
    assert.deepEqual(
      json.partitions.map((p) => p.state),
      ['mismatch', 'completed', 'completed'],
    );
  });

  test('leader-election: preferred and unclean elections as kafka-leader-election.sh', async () => {
    const B = ['--bootstrap-server', cluster.bootstrap()];
    // Broker 2 restarts: the partitions it preferred are led by 3 until an election.
    await cluster.node(2).stop();
    await waitPartition(cluster, 'k-elect', 'leader 3', (p) => p.leader === 3);
    await cluster.node(2).start();
    await waitForUnfenced(cluster);
    for (const topic of ['k-elect', 't-elect'])
      await waitPartition(
        cluster,
        topic,
        'broker 2 back in the ISR, leader 3',
        (p) => p.isr.includes(2) && p.leader === 3,
        120_000,
      );
    await twin('leader-election', [...B, '--election-type', 'preferred', '--topic', 'k-elect', '--partition', '0']);
    // The election is in the metadata log when the tools return; broker 3 shows it once it applied it.
    for (const topic of ['k-elect', 't-elect'])
      await waitPartition(cluster, topic, 'leader 2 again', (p) => p.leader === 2, 15_000);
    await twin('leader-election', [...B, '--election-type', 'PREFERRED', '--topic', 'k-elect', '--partition', '0']);
    await twin('leader-election', [...B, '--election-type', 'unclean', '--topic', 'k-elect', '--partition', '1']);
    // Nothing to elect: both tools on the same topic (the partitions come in a HashSet's order, which
    // depends on the topic's name).
    await twin('leader-election', [
      ...B,
      '--election-type',
      'preferred',
      '--path-to-json-file',
      file('t-elect.json', '{"partitions":[{"topic":"t-elect","partition":1},{"topic":"t-elect","partition":0}]}'),
    ]);
    await twin('leader-election', [...B, '--election-type', 'preferred', '--topic', 'nope', '--partition', '0']);
    // --all-topic-partitions: tkafka elects exactly the partitions not led by their preferred replica.
    const notPreferred: string[] = [];
    for (const topic of ['k-move', 't-move', 'k-elect', 't-elect', '__consumer_offsets']) {
      const ps = (await topicPartitions(cluster.node(3).port, topic)) ?? [];
      ps.forEach((p, i) => {
        if (p.leader !== p.replicas[0]) notPreferred.push(`${topic}-${i}`);
      });
    }
    const all = await tkafka('leader-election', [...B, '--election-type', 'preferred', '--all-topic-partitions']);
    transcript.push(`$ tkafka leader-election --all-topic-partitions\n${all.out}${all.err}`);
    assert.equal(all.code, 0, all.err);
    const elected =
      notPreferred.length === 0
        ? []
        : all.out
            .replace(/^Successfully completed leader election \(PREFERRED\) for partitions /, '')
            .trim()
            .split(', ');
    assert.deepEqual(elected.sort(), notPreferred.sort());
    await twin('leader-election', [...B, '--election-type', 'preferred', '--all-topic-partitions']);
  });
}
