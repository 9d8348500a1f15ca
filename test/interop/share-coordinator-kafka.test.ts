// The share coordinator's persister RPCs (InitializeShareGroupState, ReadShareGroupState,
// WriteShareGroupState, DeleteShareGroupState, ReadShareGroupStateSummary) and FindCoordinator with
// SHARE keys, sent in the same sequence to a real Apache Kafka 4.4.0 and to tkafka: each answer,
// with the node's topic id replaced by a placeholder and share-partitions sorted (Kafka gathers
// them in hash maps), must be equal. Both answers are printed. Then `tkafka dump-log
// --share-group-state-decoder` prints what Kafka's DumpLogSegments prints for both brokers' segments.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ApiKeyWithMessages, ApiRequest } from '../../src/protocol/generated/apis.js';
import type { Input } from '../../src/protocol/codec/types.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dumpLog } from '../dump-log-fixtures.js';

const UNKNOWN_ID = 'EREREREREREREREREREREQ';
const GROUP = 'sg1';

interface Node {
  name: string;
  client: RawClient;
  topicId: string;
}

let kafka: ApacheKafka;
let tkafka: BrokerProcess;
const nodes: Node[] = [];

async function setUp(name: string, port: number): Promise<Node> {
  const client = await RawClient.connect(port);
  const created = await client.request(ApiKey.CreateTopics, 7, {
    topics: [{ name: 'st', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 30_000,
    validateOnly: false,
  });
  assert.equal(created.topics[0].errorCode, 0, `${name}: CreateTopics`);
  const topicId = created.topics[0].topicId;
  // the first SHARE lookup creates __share_group_state; wait for its leader
  await waitFor(
    async () => {
      const r = await client.request(ApiKey.FindCoordinator, 6, {
        key: '',
        keyType: 2,
        coordinatorKeys: [0, 1, 2, 9].map((p) => `${GROUP}:${topicId}:${p}`),
      });
      return r.coordinators.every((c: { errorCode: number }) => c.errorCode === 0);
    },
    { what: `${name}: a share coordinator`, timeoutMs: 60_000 },
  );
  // Kafka's share coordinator loads its __share_group_state partition after FindCoordinator names it,
  // answering NOT_COORDINATOR (16) or COORDINATOR_LOAD_IN_PROGRESS (14) until then: wait on a read
  // (a summary changes nothing) until the coordinator of every share-partition used below has loaded.
  await waitFor(
    async () => {
      const r = await client.request(ApiKey.ReadShareGroupStateSummary, 1, {
        groupId: GROUP,
        topics: [{ topicId, partitions: [0, 1, 2, 9].map((partition) => ({ partition, leaderEpoch: 0 })) }],
      });
      return r.results.every((t: { partitions: { errorCode: number }[] }) =>
        t.partitions.every((p) => ![14, 15, 16].includes(p.errorCode)),
      );
    },
    { what: `${name}: the share coordinator loaded`, timeoutMs: 60_000 },
  );
  return { name, client, topicId };
}

before(async () => {
  [kafka, tkafka] = await Promise.all([startApacheKafka(), startBroker()]);
  nodes.push(...(await Promise.all([setUp(`Kafka ${KAFKA_VERSION}`, kafka.port), setUp('tkafka', tkafka.port)])));
});

after(async () => {
  for (const n of nodes) n.client.close();
  await tkafka?.stop();
  tkafka?.cleanup();
  await kafka?.cleanup();
});

interface Results {
  results?: { topicId: string; partitions: { partition: number }[] }[];
}

/** The answer with the node's topic id replaced, bigints as strings, topics and partitions sorted. */
function normalize(node: Node, value: Results): unknown {
  const sorted = {
    ...value,
    results: [...(value.results ?? [])]
      .map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a.partition - b.partition) }))
      .sort((a, b) => (a.topicId < b.topicId ? -1 : a.topicId > b.topicId ? 1 : 0)),
  };
  const text = JSON.stringify(sorted, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  return JSON.parse(text.replaceAll(node.topicId, '<topic-id>'));
}

/** Sends the same request (its body may use the node's topic id) to both; the answers must be equal. */
async function same<K extends ApiKeyWithMessages>(
  what: string,
  apiKey: K,
  version: number,
  body: (n: Node) => Input<ApiRequest<K>>,
): Promise<unknown> {
  const [k, t] = await Promise.all(
    nodes.map(async (n) => normalize(n, (await n.client.request(apiKey, version, body(n))) as Results)),
  );
  console.log(`${what}\n  Kafka:  ${JSON.stringify(k)}\n  tkafka: ${JSON.stringify(t)}`);
  assert.deepEqual(t, k, `${what}: tkafka's answer differs from Kafka's`);
  return t;
}

const topics = <P>(n: Node, partitions: P[], topicId = n.topicId) => [{ topicId, partitions }];

test('before initialization: read and write refused, summary -1, delete a no-op', async () => {
  await same('read uninitialized', ApiKey.ReadShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 0, leaderEpoch: 0 }]),
  }));
  await same('write uninitialized', ApiKey.WriteShareGroupState, 1, (n) => ({
    groupId: GROUP,
    topics: topics(n, [
      { partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [] },
    ]),
  }));
  await same('summary uninitialized', ApiKey.ReadShareGroupStateSummary, 1, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 0, leaderEpoch: 0 }]),
  }));
  await same('delete uninitialized', ApiKey.DeleteShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 0 }]),
  }));
});

test('initialize, a leader reads, writes, is fenced; summaries; delete', async () => {
  await same('initialize 0-2 and an unknown partition', ApiKey.InitializeShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(
      n,
      [0, 1, 2, 9].map((partition) => ({ partition, stateEpoch: partition === 1 ? 3 : 0, startOffset: 0n })),
    ),
  }));
  await same('initialize an unknown topic', ApiKey.InitializeShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 0, stateEpoch: 0, startOffset: 0n }], UNKNOWN_ID),
  }));
  await same('read with leader epoch 1', ApiKey.ReadShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(
      n,
      [0, 1].map((partition) => ({ partition, leaderEpoch: 1 })),
    ),
  }));
  await same('write batches', ApiKey.WriteShareGroupState, 1, (n) => ({
    groupId: GROUP,
    topics: topics(n, [
      {
        partition: 0,
        stateEpoch: 0,
        leaderEpoch: 1,
        startOffset: 0n,
        deliveryCompleteCount: 3,
        stateBatches: [
          { firstOffset: 0n, lastOffset: 9n, deliveryState: 0, deliveryCount: 1 },
          { firstOffset: 3n, lastOffset: 5n, deliveryState: 2, deliveryCount: 1 },
        ],
      },
    ]),
  }));
  await same('write v0, start offset forward', ApiKey.WriteShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [
      {
        partition: 0,
        stateEpoch: 0,
        leaderEpoch: 1,
        startOffset: 4n,
        deliveryCompleteCount: -1,
        stateBatches: [{ firstOffset: 6n, lastOffset: 7n, deliveryState: 4, deliveryCount: 5 }],
      },
    ]),
  }));
  await same('read the combined batches', ApiKey.ReadShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 0, leaderEpoch: 1 }]),
  }));
  await same(
    'write with an older leader epoch, an older state epoch, negative epochs',
    ApiKey.WriteShareGroupState,
    1,
    (n) => ({
      groupId: GROUP,
      topics: topics(
        n,
        [
          [0, 0, 0],
          [1, 1, 1],
          [2, -1, 0],
          [-1, 0, 0],
        ].map(([partition, leaderEpoch, stateEpoch]) => ({
          partition: partition!,
          stateEpoch: stateEpoch!,
          leaderEpoch: leaderEpoch!,
          startOffset: 0n,
          deliveryCompleteCount: 0,
          stateBatches: [],
        })),
      ),
    }),
  );
  await same('read with an older and a negative leader epoch', ApiKey.ReadShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [
      { partition: 0, leaderEpoch: 0 },
      { partition: 2, leaderEpoch: -1 },
    ]),
  }));
  await same('summaries v1', ApiKey.ReadShareGroupStateSummary, 1, (n) => ({
    groupId: GROUP,
    topics: topics(
      n,
      [0, 1, 2, 9].map((partition) => ({ partition, leaderEpoch: 1 })),
    ),
  }));
  await same('summary v0', ApiKey.ReadShareGroupStateSummary, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 0, leaderEpoch: 1 }]),
  }));
  await same('re-initialize with an older state epoch', ApiKey.InitializeShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 1, stateEpoch: 2, startOffset: 0n }]),
  }));
  await same('delete', ApiKey.DeleteShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 1 }, { partition: 9 }]),
  }));
  await same('read deleted', ApiKey.ReadShareGroupState, 0, (n) => ({
    groupId: GROUP,
    topics: topics(n, [{ partition: 1, leaderEpoch: 1 }]),
  }));
});

test('empty group id, no topics, no partitions: empty answers', async () => {
  await same('empty group id', ApiKey.ReadShareGroupState, 0, (n) => ({
    groupId: '',
    topics: topics(n, [{ partition: 0, leaderEpoch: 1 }]),
  }));
  await same('no topics', ApiKey.WriteShareGroupState, 1, () => ({ groupId: GROUP, topics: [] }));
  await same('no partitions', ApiKey.DeleteShareGroupState, 0, (n) => ({ groupId: GROUP, topics: topics(n, []) }));
});

test('FindCoordinator SHARE: malformed keys and v5 are INVALID_REQUEST', async () => {
  const ask = async (n: Node, version: number, keys: string[]) => {
    const r = await n.client.request(ApiKey.FindCoordinator, version, { key: '', keyType: 2, coordinatorKeys: keys });
    return r.coordinators.map((c: { key: string; errorCode: number }) => [
      c.key.replaceAll(n.topicId, '<topic-id>'),
      c.errorCode,
    ]);
  };
  for (const [version, keys] of [
    [6, ['no-colons', `${GROUP}:x:0`, `${GROUP}:<id>:p`, `:<id>:0`]],
    [5, [`${GROUP}:<id>:0`]],
  ] as const) {
    const [k, t] = await Promise.all(
      nodes.map((n) =>
        ask(
          n,
          version,
          keys.map((x) => x.replace('<id>', n.topicId)),
        ),
      ),
    );
    console.log(
      `FindCoordinator v${version} SHARE ${JSON.stringify(keys)}\n  Kafka:  ${JSON.stringify(k)}\n  tkafka: ${JSON.stringify(t)}`,
    );
    assert.deepEqual(t, k);
  }
});

/** The non-empty __share_group_state segments under `dataDir`, copied to `into/<name>/` (paths relative to `into`). */
function copySegments(dataDir: string, into: string, name: string): string[] {
  const files: string[] = [];
  for (const dir of readdirSync(dataDir).filter((d) => d.startsWith('__share_group_state-'))) {
    for (const f of readdirSync(join(dataDir, dir)).filter((x) => x.endsWith('.log'))) {
      if (statSync(join(dataDir, dir, f)).size === 0) continue;
      cpSync(join(dataDir, dir, f), join(into, name, dir, f), { recursive: true });
      files.push(join(name, dir, f));
    }
  }
  return files.sort();
}

test("dump-log --share-group-state-decoder prints what Kafka's DumpLogSegments prints, for both brokers' segments", async () => {
  const root = mkdtempSync(join(tmpdir(), 'tkafka-share-dump-'));
  try {
    const files = [
      ...copySegments(kafka.dataDir, root, 'kafka'),
      ...copySegments(join(tkafka.dataDir, 'logs'), root, 'tkafka'),
    ];
    assert.ok(
      files.some((f) => f.startsWith('kafka/')),
      'Kafka wrote __share_group_state records',
    );
    assert.ok(
      files.some((f) => f.startsWith('tkafka/')),
      'tkafka wrote __share_group_state records',
    );
    for (const flags of [['--share-group-state-decoder'], ['--share-group-state-decoder', '--skip-record-metadata']]) {
      const args = ['--files', files.join(','), ...flags];
      const k = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', args, { cwd: root });
      const t = await dumpLog(args, root);
      assert.equal(k.exitCode, 0, `Kafka failed on ${args.join(' ')}: ${k.stderr}`);
      assert.equal(t.stdout, k.stdout, `stdout of ${args.join(' ')}`);
      assert.equal(t.stderr, k.stderr, `stderr of ${args.join(' ')}`);
      assert.equal(t.code, 0);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
