// KIP-853 voter-change requests forged with the raw client and sent to the controller listener of a
// tkafka controller and of an Apache Kafka 4.4.0 node, both single voters of a dynamic quorum (formatted
// with --standalone: kraft.version 1). The leader-side checks of
// raft/voter-changes.ts must answer as Kafka's KafkaRaftClient / AddVoterHandler / RemoveVoterHandler /
// UpdateVoterHandler do: same error codes, same messages once each node's own cluster id, directory
// id and ports are written as placeholders.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomClusterId, startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { startController, type ControllerNode } from './dynamic-quorum-nodes.js';
import { unusedPort } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';

interface Node {
  name: string;
  controllerPort: number;
  clusterId: string;
  directoryId: string;
  epoch: number;
}

let kafka: ApacheKafka | null = null;
let tkafka: ControllerNode | null = null;
let root = '';
const nodes: Node[] = [];
/** A port nothing listens on: the endpoint of a would-be voter that is not running. */
let deadPort = 0;
const OTHER_DIR = 'f2NdKPhpQS2xW6gMOQWzHQ';

async function describe(port: number): Promise<{ clusterId: string; directoryId: string; epoch: number }> {
  const c = await RawClient.connect(port);
  try {
    const q = await c.request(ApiKey.DescribeQuorum, 2, {
      topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
    });
    const p = q.topics[0]!.partitions[0]!;
    const cluster = await c.request(ApiKey.DescribeCluster, 1, {
      includeClusterAuthorizedOperations: false,
      endpointType: 2,
    });
    return { clusterId: cluster.clusterId, directoryId: p.currentVoters[0]!.replicaDirectoryId, epoch: p.leaderEpoch };
  } finally {
    c.close();
  }
}

before(async () => {
  root = mkdtempSync(join(tmpdir(), 'tkafka-dq-forged-'));
  [kafka, tkafka] = await Promise.all([
    startApacheKafka({ quorum: 'dynamic' }),
    startController(root, randomClusterId(), 1, null, 'tkafka'),
  ]);
  deadPort = await unusedPort();
  for (const [name, port] of [
    ['kafka', kafka.controllerPort],
    ['tkafka', tkafka.port],
  ] as const) {
    nodes.push({ name, controllerPort: port, ...(await describe(port)) });
  }
});

after(async () => {
  await Promise.all([kafka?.cleanup(), tkafka?.stop()]);
  if (root) rmSync(root, { recursive: true, force: true });
});

/** The answer with this node's own facts replaced by placeholders. */
function normalise(node: Node, v: unknown): string {
  return JSON.stringify(v)
    .replaceAll(node.clusterId, '<cluster>')
    .replaceAll(node.directoryId, '<dir>')
    .replaceAll(String(node.controllerPort), '<port>');
}

/** The same request (built per node) to both nodes; the normalised answers must be equal. */
async function same<T>(what: string, send: (c: RawClient, n: Node) => Promise<T>): Promise<T> {
  const answers: string[] = [];
  let first: T | undefined;
  for (const n of nodes) {
    const c = await RawClient.connect(n.controllerPort);
    try {
      // bounded: a node that dies mid-request never answers
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        send(c, n),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`${what}: no answer from ${n.name} in 60 s`)), 60_000);
        }),
      ]).finally(() => clearTimeout(timer));
      first ??= r;
      answers.push(normalise(n, r));
    } finally {
      c.close();
    }
  }
  assert.equal(answers[1], answers[0], `${what}: tkafka (second) differs from Kafka (first)`);
  return first!;
}

const listener = (port: number, name = 'CONTROLLER') => [{ name, host: '127.0.0.1', port }];

test('AddRaftVoter: cluster id, voter key, listener, duplicate voter — as Kafka answers', async () => {
  const add = (c: RawClient, body: Parameters<RawClient['request']>[2]) => c.request(ApiKey.AddRaftVoter, 1, body);
  const base = { timeoutMs: 2000, voterId: 7, voterDirectoryId: OTHER_DIR, ackWhenCommitted: true };
  let r = await same('another cluster id', (c) =>
    add(c, { ...base, clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', listeners: listener(deadPort) }),
  );
  assert.equal(r.errorCode, 104); // INCONSISTENT_CLUSTER_ID
  r = await same('no directory id', (c) =>
    add(c, { ...base, clusterId: null, voterDirectoryId: ZERO_UUID, listeners: listener(deadPort) }),
  );
  assert.equal(r.errorCode, 42); // INVALID_REQUEST
  r = await same('no endpoint on the controller listener', (c) =>
    add(c, { ...base, clusterId: null, listeners: listener(deadPort, 'OTHER') }),
  );
  assert.equal(r.errorCode, 42);
  r = await same('the leader itself', (c, n) =>
    add(c, {
      ...base,
      clusterId: n.clusterId,
      voterId: 1,
      voterDirectoryId: n.directoryId,
      listeners: listener(n.controllerPort),
    }),
  );
  assert.equal(r.errorCode, 126); // DUPLICATE_VOTER
  r = await same('the leader id with another directory', (c, n) =>
    add(c, { ...base, clusterId: null, voterId: 1, listeners: listener(n.controllerPort) }),
  );
  assert.equal(r.errorCode, 126);
});

test('RemoveRaftVoter: the last voter, an unknown voter, a wrong directory id — as Kafka answers', async () => {
  const remove = (c: RawClient, body: Parameters<RawClient['request']>[2]) =>
    c.request(ApiKey.RemoveRaftVoter, 0, body);
  let r = await same('the only voter', (c, n) =>
    remove(c, { clusterId: null, voterId: 1, voterDirectoryId: n.directoryId }),
  );
  assert.equal(r.errorCode, 127); // VOTER_NOT_FOUND
  r = await same('an unknown voter', (c) => remove(c, { clusterId: null, voterId: 9, voterDirectoryId: OTHER_DIR }));
  assert.equal(r.errorCode, 127);
  r = await same('the voter id with another directory id', (c) =>
    remove(c, { clusterId: null, voterId: 1, voterDirectoryId: OTHER_DIR }),
  );
  assert.equal(r.errorCode, 127);
  r = await same('no directory id', (c) => remove(c, { clusterId: null, voterId: 1, voterDirectoryId: ZERO_UUID }));
  assert.equal(r.errorCode, 42);
  r = await same('another cluster id', (c) =>
    remove(c, { clusterId: 'AAAAAAAAAAAAAAAAAAAAAA', voterId: 1, voterDirectoryId: OTHER_DIR }),
  );
  assert.equal(r.errorCode, 104);
});

test('UpdateRaftVoter: epochs, cluster id, voter key, kraft.version range, unknown voter — as Kafka answers', async () => {
  const update = (c: RawClient, body: Parameters<RawClient['request']>[2]) =>
    c.request(ApiKey.UpdateRaftVoter, 0, body);
  const body = (n: Node, over: Record<string, unknown> = {}) => ({
    clusterId: n.clusterId,
    currentLeaderEpoch: n.epoch,
    voterId: 1,
    voterDirectoryId: n.directoryId,
    listeners: listener(n.controllerPort),
    kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
    ...over,
  });
  // the epoch differs between the two nodes: compare the codes and the leader fields separately
  const epochOf = (n: Node): string => String(n.epoch);
  const codes = async (what: string, over: (n: Node) => Record<string, unknown>): Promise<number> => {
    const r = await same(what, async (c, n) => {
      const a = await update(c, body(n, over(n)));
      return {
        ...a,
        currentLeader: { ...a.currentLeader, leaderEpoch: a.currentLeader.leaderEpoch === n.epoch ? 'E' : epochOf(n) },
      };
    });
    return r.errorCode;
  };
  assert.equal(await codes('a stale epoch', (n) => ({ currentLeaderEpoch: n.epoch - 1 })), 74); // FENCED_LEADER_EPOCH
  assert.equal(await codes('a future epoch', (n) => ({ currentLeaderEpoch: n.epoch + 1 })), 75); // UNKNOWN_LEADER_EPOCH
  assert.equal(await codes('another cluster id', () => ({ clusterId: 'AAAAAAAAAAAAAAAAAAAAAA' })), 104);
  assert.equal(await codes('no directory id', () => ({ voterDirectoryId: ZERO_UUID })), 42);
  assert.equal(
    await codes('a range without the finalized kraft.version', () => ({
      kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 0 },
    })),
    42,
  );
  assert.equal(await codes('an unknown voter', () => ({ voterId: 5, voterDirectoryId: OTHER_DIR })), 127);
  // Not compared: the leader updating itself. Apache Kafka 4.4.0's raft IO thread dies on it
  // (UpdateVoterHandler.storeUpdatedVoters -> LeaderState.updateFetchedVoters: "Received a
  // FETCH/FETCH_SNAPSHOT request from the leader itself.", a fatal fault that ends the process).
});
