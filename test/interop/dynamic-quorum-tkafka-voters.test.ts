// Issue 14's KIP-853 scenario on a tkafka quorum (test/interop/dynamic-quorum.test.ts on Kafka's):
// a tkafka controller formatted --standalone leads; two tkafka controllers formatted
// --no-initial-controllers find it through controller.quorum.bootstrap.servers and follow it as
// observers; `tkafka metadata-quorum add-controller` makes each a voter (the leader appends a
// VotersRecord, committed by the new majority), a second add is DUPLICATE_VOTER, remove-controller
// takes the third out again (it stays an observer), a second removal is VOTER_NOT_FOUND. A voter
// restarted on another port sends UpdateRaftVoter and the leader's VotersRecord follows it.
// remove-controller --unregister also unregisters the removed controller (UnregisterController, API 94,
// KIP-1201); the still running controller registers again (as Kafka's ControllerRegistrationManager
// does) and Kafka 4.4's `kafka-cluster.sh unregister-controller`, then tkafka's, unregister it through
// tkafka's controller, printing the same. After each step Kafka 4.4's MetadataQuorumCommand prints what tkafka's prints.
import { test } from 'node:test';
import { execa } from 'execa';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { restartOnPort, tkafkaQuorum } from './dynamic-quorum-nodes.js';
import { firstLines, QUORUM_TOOL } from './dynamic-quorum-probes.js';
import { dynamicQuorumScenario } from './dynamic-quorum-scenario.js';
import { unusedPort } from '../helpers/broker-process.js';
import { waitFor } from '../helpers/wait-for.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { KafkaClient } from '../../src/client/client.js';
import { describeCluster } from '../../src/client/admin/cluster.js';

const CLUSTER_TOOL = 'org.apache.kafka.tools.ClusterTool';

const { nodes, bootstrap, quorum, waitForQuorum, compareDescribe } = dynamicQuorumScenario('tkafka');

/** `tkafka cluster …` as a user runs it (bin/tkafka, a process of its own). */
async function tkafkaCluster(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const r = await execa('node', [join(REPO_ROOT, 'bin', 'tkafka'), 'cluster', ...args], {
    reject: false,
    timeout: 120_000,
    stripFinalNewline: false,
  });
  return { stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? ''), exitCode: r.exitCode ?? -1 };
}

/** The controllers DescribeCluster (EndpointType CONTROLLER) lists through the first controller. */
async function controllersListed(): Promise<number[]> {
  const client = new KafkaClient({ bootstrapServers: [bootstrap()] });
  try {
    const { nodes: listed } = await describeCluster(client, { endpointType: 'controller' });
    return listed.map((n) => n.id).sort((a, b) => a - b);
  } finally {
    client.close();
  }
}

async function waitForControllers(expected: number[]): Promise<void> {
  let last: number[] = [];
  await waitFor(
    async () => {
      last = await controllersListed();
      return last.join(',') === expected.join(',');
    },
    { what: `controllers ${expected} registered`, timeoutMs: 60_000, intervalMs: 200 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}; listed: ${last.join(',')}`);
  });
}

test('a voter restarted on another port tells the leader (UpdateRaftVoter): the voter set has its new endpoint', async () => {
  const port = await unusedPort();
  const before = (await quorum()).nodes.get(2);
  assert.notEqual(before?.[0]?.port, port);
  nodes[1] = await restartOnPort(nodes[1]!, port);
  let last = '';
  await waitFor(
    async () => {
      const endpoints = (await quorum()).nodes.get(2);
      last = JSON.stringify(endpoints);
      return endpoints?.length === 1 && endpoints[0]!.port === port;
    },
    { what: `controller 2 listed on its new port ${port}`, timeoutMs: 60_000, intervalMs: 200 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}; its endpoints: ${last}`);
  });
  await waitForQuorum([1, 2, 3], []);
  await compareDescribe('after controller 2 moved');
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
  await waitForControllers([1, 2, 3]);
  const dryUnregister = await runKafkaTool(QUORUM_TOOL, [...args, '--unregister', '--dry-run']);
  assert.equal(dryUnregister.exitCode, 0, dryUnregister.stderr);
  const tkafkaDryUnregister = await tkafkaQuorum([...args, '--unregister', '--dry-run']);
  assert.deepEqual([tkafkaDryUnregister.exitCode, tkafkaDryUnregister.stdout], [0, dryUnregister.stdout]);
  const dry = await runKafkaTool(QUORUM_TOOL, [...args, '--dry-run']);
  assert.equal(dry.exitCode, 0, dry.stderr);
  const tkafkaDry = await tkafkaQuorum([...args, '--dry-run']);
  assert.deepEqual([tkafkaDry.exitCode, tkafkaDry.stdout], [0, dry.stdout]);

  const r = await tkafkaQuorum([...args, '--unregister']);
  assert.deepEqual([r.exitCode, r.stderr], [0, '']);
  assert.equal(
    r.stdout,
    dryUnregister.stdout
      .replace(/DRY RUN of removing /, 'Removed ')
      .replace(/DRY RUN of unregistering /, 'Unregistered '),
  );
  assert.equal(
    r.stdout,
    `Removed KRaft controller 3 with directory id ${third.directoryId}\nUnregistered KRaft controller 3\n`,
  );
  await waitForQuorum([1, 2], [3]);
  await compareDescribe('after removing controller 3');

  // a second removal: VOTER_NOT_FOUND, reported alike, with and without --unregister
  for (const extra of [[], ['--unregister']]) {
    const k = await runKafkaTool(QUORUM_TOOL, [...args, ...extra]);
    const t = await tkafkaQuorum([...args, ...extra]);
    assert.equal(k.exitCode, 1, k.stdout + k.stderr);
    assert.match(k.stderr, extra.length === 0 ? /VoterNotFoundException/ : /^Failed to remove KRaft voter 3: /);
    assert.deepEqual([t.exitCode, t.stdout, t.stderr], [1, '', extra.length === 0 ? firstLines(k.stderr) : k.stderr]);
  }
});

test('the unregistered controller, still running, registers again; kafka-cluster.sh unregister-controller of Kafka 4.4 and of tkafka unregister it alike', async () => {
  const conn = ['--bootstrap-controller', bootstrap()];
  await waitForControllers([1, 2, 3]);
  const k = await runKafkaTool(CLUSTER_TOOL, ['unregister-controller', ...conn, '--id', '3']);
  assert.deepEqual([k.exitCode, k.stdout], [0, 'Controller 3 is no longer registered.\n'], k.stderr);
  await waitForControllers([1, 2, 3]);
  const t = await tkafkaCluster(['unregister-controller', ...conn, '--id', '3']);
  assert.deepEqual([t.exitCode, t.stdout, t.stderr], [0, k.stdout, '']);

  // an id never registered (CONTROLLER_ID_NOT_REGISTERED) and the active controller itself (QuorumController:
  // InvalidRequestException): Kafka's stderr is the AdminClient's ERROR log line, the ExecutionException's
  // message and its stack trace; tkafka prints the message
  const leaderId = (await quorum()).leaderId;
  for (const [id, message] of [
    [
      9,
      'org.apache.kafka.common.errors.ControllerIdNotRegisteredException: Controller ID 9 is not currently registered.',
    ],
    [
      leaderId,
      'org.apache.kafka.common.errors.InvalidRequestException: Controller cannot unregister itself while it is active.',
    ],
  ] as const) {
    const kr = await runKafkaTool(CLUSTER_TOOL, ['unregister-controller', ...conn, '--id', String(id)]);
    assert.equal(kr.exitCode, 1, kr.stdout + kr.stderr);
    assert.equal(
      kr.stderr.split('\n').find((l) => l.startsWith('org.apache.kafka.')),
      message,
      kr.stderr,
    );
    const tr = await tkafkaCluster(['unregister-controller', ...conn, '--id', String(id)]);
    assert.deepEqual([tr.exitCode, tr.stdout, tr.stderr], [1, kr.stdout, `${message}\n`]);
  }
});
