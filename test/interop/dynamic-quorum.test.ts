// KIP-853 dynamic quorums driven by `tkafka metadata-quorum` on an Apache Kafka 4.4.0 controller quorum:
// controller 1 formatted with `--standalone`, controllers 2 and 3 with `--no-initial-controllers`
// (observers of the metadata log); tkafka's add-controller makes 2 and 3 voters, remove-controller
// takes 3 out again (and --unregister unregisters it). After each step `tkafka metadata-quorum describe
// --status` and `--replication` must print what Kafka's MetadataQuorumCommand prints on the same
// cluster (timestamps masked: the two tools ask at different instants), and the refusals (a duplicate
// voter, an unknown voter) must be reported as Kafka's tool reports them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomClusterId, runKafkaTool } from './helpers/apache-kafka.js';
import { startController, tkafkaQuorum, type ControllerNode } from './dynamic-quorum-nodes.js';
import { firstLines, QUORUM_TOOL, quorumProbes } from './dynamic-quorum-probes.js';

let root = '';
let clusterId = '';
const nodes: ControllerNode[] = [];
const bootstrap = (): string => `127.0.0.1:${nodes[0]!.port}`;
const { quorum, waitForQuorum, compareDescribe } = quorumProbes(bootstrap);

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'tkafka-dynamic-quorum-'));
  clusterId = randomClusterId();
  nodes.push(await startController(root, clusterId, 1, null));
  // the two observers start together (a JVM start costs seconds)
  nodes.push(...(await Promise.all([2, 3].map((id) => startController(root, clusterId, id, nodes[0]!.port)))));
  await waitForQuorum([1], [2, 3]);
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  if (root) rmSync(root, { recursive: true, force: true });
});

test('a --standalone Kafka controller with two --no-initial-controllers observers: both tools describe it alike', async () => {
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
    const dry = await runKafkaTool(QUORUM_TOOL, [
      '--bootstrap-controller',
      bootstrap(),
      '--command-config',
      node.configFile,
      'add-controller',
      '--dry-run',
    ]);
    assert.equal(dry.exitCode, 0, dry.stderr);
    const tkafkaDry = await tkafkaQuorum([
      '--bootstrap-controller',
      bootstrap(),
      '--command-config',
      node.configFile,
      'add-controller',
      '--dry-run',
    ]);
    assert.deepEqual([tkafkaDry.exitCode, tkafkaDry.stdout], [0, dry.stdout]);

    const r = await tkafkaQuorum([
      '--bootstrap-controller',
      bootstrap(),
      '--command-config',
      node.configFile,
      'add-controller',
    ]);
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

test('tkafka remove-controller --unregister takes a voter out and unregisters it, as Kafka prints it', async () => {
  const third = nodes[2]!;
  const args = [
    '--bootstrap-controller',
    bootstrap(),
    'remove-controller',
    '--controller-id',
    String(third.id),
    '--controller-directory-id',
    third.directoryId,
  ];
  const dry = await runKafkaTool(QUORUM_TOOL, [...args, '--unregister', '--dry-run']);
  assert.equal(dry.exitCode, 0, dry.stderr);
  const tkafkaDry = await tkafkaQuorum([...args, '--unregister', '--dry-run']);
  assert.deepEqual([tkafkaDry.exitCode, tkafkaDry.stdout], [0, dry.stdout]);

  const r = await tkafkaQuorum([...args, '--unregister']);
  assert.deepEqual([r.exitCode, r.stderr], [0, '']);
  assert.equal(
    r.stdout,
    dry.stdout.replace(/DRY RUN of removing /, 'Removed ').replace(/DRY RUN of unregistering /, 'Unregistered '),
  );
  await waitForQuorum([1, 2], [3]);
  await compareDescribe('after removing controller 3');

  // a second removal: VOTER_NOT_FOUND, reported alike
  const k = await runKafkaTool(QUORUM_TOOL, args);
  const t = await tkafkaQuorum(args);
  assert.equal(k.exitCode, 1, k.stdout + k.stderr);
  assert.match(k.stderr, /VoterNotFoundException/);
  assert.deepEqual([t.exitCode, t.stdout, t.stderr], [1, '', firstLines(k.stderr)]);
});
