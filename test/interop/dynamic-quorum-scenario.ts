// The first steps of issue 14's KIP-853 scenario, the same on Apache Kafka 4.4.0 controllers
// (dynamic-quorum.test.ts) and on tkafka controllers (dynamic-quorum-tkafka-voters.test.ts): controller 1
// formatted --standalone leads, controllers 2 and 3 formatted --no-initial-controllers follow it as
// observers; `tkafka metadata-quorum add-controller` makes each a voter (its --dry-run printing what
// Kafka's prints), and a second add is DUPLICATE_VOTER, reported as Kafka's tool reports it. After each
// step both tools' `describe --status` and `--replication` agree. A file calls dynamicQuorumScenario()
// at its top level (it registers before/after and the three tests) and adds its own steps.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomClusterId, runKafkaTool } from './helpers/apache-kafka.js';
import { startController, tkafkaQuorum, type ControllerNode } from './dynamic-quorum-nodes.js';
import { firstLines, QUORUM_TOOL, quorumProbes, type QuorumProbes } from './dynamic-quorum-probes.js';

export interface DynamicQuorum extends QuorumProbes {
  /** The three controllers (a step may replace one, e.g. after a restart). */
  readonly nodes: ControllerNode[];
  /** The first controller's CONTROLLER address. */
  bootstrap(): string;
}

export function dynamicQuorumScenario(impl: 'kafka' | 'tkafka'): DynamicQuorum {
  const name = impl === 'kafka' ? 'Kafka' : 'tkafka';
  let root = '';
  const nodes: ControllerNode[] = [];
  const bootstrap = (): string => `127.0.0.1:${nodes[0]!.port}`;
  const probes = quorumProbes(bootstrap);
  const { quorum, waitForQuorum, compareDescribe } = probes;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), `tkafka-dynamic-quorum-${impl}-`));
    const clusterId = randomClusterId();
    nodes.push(await startController(root, clusterId, 1, null, impl));
    // the two observers start together (a JVM start costs seconds)
    nodes.push(...(await Promise.all([2, 3].map((id) => startController(root, clusterId, id, nodes[0]!.port, impl)))));
    await waitForQuorum([1], [2, 3]);
  });

  after(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test(`a --standalone ${name} controller with two --no-initial-controllers observers: both tools describe it alike`, async () => {
    const q = await quorum();
    assert.equal(q.leaderId, 1);
    assert.deepEqual(
      q.voters.map((v) => v.replicaDirectoryId),
      [nodes[0]!.directoryId],
    );
    await compareDescribe('before any change');
  });

  test('tkafka add-controller makes the observers voters, as Kafka prints it', async () => {
    for (const node of nodes.slice(1)) {
      const conn = ['--bootstrap-controller', bootstrap(), '--command-config', node.configFile];
      const dry = await runKafkaTool(QUORUM_TOOL, [...conn, 'add-controller', '--dry-run']);
      assert.equal(dry.exitCode, 0, dry.stderr);
      const tkafkaDry = await tkafkaQuorum([...conn, 'add-controller', '--dry-run']);
      assert.deepEqual([tkafkaDry.exitCode, tkafkaDry.stdout], [0, dry.stdout]);

      const r = await tkafkaQuorum([...conn, 'add-controller']);
      assert.deepEqual([r.exitCode, r.stderr], [0, '']);
      assert.equal(r.stdout, dry.stdout.replace(/^DRY RUN of adding/, 'Added'));
      assert.equal(
        r.stdout,
        `Added controller ${node.id} with directory id ${node.directoryId} and endpoints: CONTROLLER://127.0.0.1:${node.port}\n`,
      );
      const voters = nodes.filter((n) => n.id <= node.id).map((n) => n.id);
      await waitForQuorum(
        voters,
        nodes.filter((n) => n.id > node.id).map((n) => n.id),
      );
      await compareDescribe(`after adding controller ${node.id}`);
    }
  });

  test('adding a voter twice is refused as Kafka refuses it (DUPLICATE_VOTER), by both tools alike', async () => {
    const args = ['--bootstrap-controller', bootstrap(), '--command-config', nodes[1]!.configFile, 'add-controller'];
    const k = await runKafkaTool(QUORUM_TOOL, args);
    const t = await tkafkaQuorum(args);
    assert.equal(k.exitCode, 1, k.stdout + k.stderr);
    assert.match(k.stderr, /DuplicateVoterException/);
    // Kafka prints the exception's message, then its stack trace; tkafka the message and the trace's first line
    assert.deepEqual([t.exitCode, t.stdout, t.stderr], [1, '', firstLines(k.stderr)]);
  });

  return { ...probes, nodes, bootstrap };
}
