// KIP-853 dynamic quorums driven by `tkafka metadata-quorum` on an Apache Kafka 4.4.0 controller quorum:
// controller 1 formatted with `--standalone`, controllers 2 and 3 with `--no-initial-controllers`
// (observers of the metadata log); tkafka's add-controller makes 2 and 3 voters, remove-controller
// takes 3 out again (and --unregister unregisters it). After each step `tkafka metadata-quorum describe
// --status` and `--replication` must print what Kafka's MetadataQuorumCommand prints on the same
// cluster (timestamps masked: the two tools ask at different instants), and the refusals (a duplicate
// voter, an unknown voter) must be reported as Kafka's tool reports them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { tkafkaQuorum } from './dynamic-quorum-nodes.js';
import { firstLines, QUORUM_TOOL } from './dynamic-quorum-probes.js';
import { dynamicQuorumScenario } from './dynamic-quorum-scenario.js';

const { nodes, bootstrap, waitForQuorum, compareDescribe } = dynamicQuorumScenario('kafka');

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
