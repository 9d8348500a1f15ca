// Two tkafka broker-only nodes (`process.roles=broker`) on a tkafka controller-only node, every one a
// real `tkafka server start` process: the brokers follow the controller's metadata log as observers,
// register and are unfenced; a topic created through one broker (CreateTopics forwarded in an
// Envelope) shows with the same id on both; records produced through one broker are read through the
// other; producer ids come from the controller (AllocateProducerIds); an auto-created topic is
// created by the controller; DescribeQuorum asked of a broker is forwarded; SIGTERM makes a broker
// go through a controlled shutdown with the controller.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import {
  startCluster,
  tkafkaLauncher,
  describeBrokers,
  topicIds,
  pickPort,
  propertiesText,
  type Cluster,
} from './helpers/cluster.js';
import { REPO_ROOT } from './helpers/spec-models.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { run as producerTool } from '../src/tools/console-producer/main.js';
import { run as consumerTool } from '../src/tools/console-consumer/main.js';
import type { ToolIO } from '../src/tools/common/io.js';

let cluster: Cluster;

before(async () => {
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: [
      { id: 1, roles: 'controller' },
      { id: 2, roles: 'broker' },
      { id: 3, roles: 'broker' },
    ],
    brokerOverrides: { 'broker.heartbeat.interval.ms': 500, 'auto.create.topics.enable': true },
  });
});

after(async () => {
  await cluster?.cleanup();
});

async function withClient<T>(port: number, f: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(port);
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

async function tool(
  run: (argv: string[], io: ToolIO) => Promise<number>,
  argv: string[],
  input = '',
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(c, _e, cb) {
        append(String(c));
        cb();
      },
    });
  const code = await run(argv, {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: Readable.from([Buffer.from(input)]),
    env: {},
  });
  return { code, out, err };
}

test('both brokers registered with the tkafka controller and are unfenced', async () => {
  // the controller's unfencing answer can reach the broker a moment before its own image applies the record
  const brokers = await waitFor(
    async () => {
      const list = await describeBrokers(cluster.node(2).port);
      return list && list.length === 2 && list.every((b) => !b.isFenced) ? list : null;
    },
    { what: 'brokers 2 and 3 unfenced in broker 2’s image', timeoutMs: 10_000 },
  ).catch(async () => describeBrokers(cluster.node(2).port));
  assert.deepEqual(brokers, [
    { brokerId: 2, isFenced: false },
    { brokerId: 3, isFenced: false },
  ]);
});

test('a topic created through one broker (forwarded) has the same id on both; records cross brokers', async () => {
  const created = await withClient(cluster.node(3).port, (c) =>
    c.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: 'spread',
          numPartitions: -1,
          replicationFactor: -1,
          assignments: [
            { partitionIndex: 0, brokerIds: [2] },
            { partitionIndex: 1, brokerIds: [3] },
          ],
          configs: [],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    }),
  );
  assert.equal(created.topics[0]!.errorCode, ErrorCode.NONE);
  const id = String(created.topics[0]!.topicId);
  for (const b of [2, 3]) {
    const ids = await waitFor(
      async () => {
        const m = await topicIds(cluster.node(b).port, ['spread']);
        return m?.get('spread') ?? null;
      },
      { what: `the topic on broker ${b}`, timeoutMs: 30_000 },
    );
    assert.equal(ids, id, `topic id on broker ${b}`);
  }

  const lines = Array.from({ length: 20 }, (_, i) => `${i}:v${i}`);
  const produced = await tool(
    producerTool,
    [
      '--bootstrap-server',
      `127.0.0.1:${cluster.node(2).port}`,
      '--topic',
      'spread',
      '--property',
      'parse.key=true',
      '--property',
      'key.separator=:',
    ],
    lines.join('\n') + '\n',
  );
  assert.equal(produced.code, 0, produced.err);
  const consumed = await tool(consumerTool, [
    '--bootstrap-server',
    `127.0.0.1:${cluster.node(3).port}`,
    '--topic',
    'spread',
    '--from-beginning',
    '--max-messages',
    '20',
    '--timeout-ms',
    '30000',
  ]);
  assert.equal(consumed.code, 0, consumed.err);
  assert.deepEqual(consumed.out.trim().split('\n').sort(), lines.map((l) => l.split(':')[1]).sort());
});

test('producer ids come from the controller (AllocateProducerIds), auto-created topics from CreateTopics to it', async () => {
  const ids = await withClient(cluster.node(2).port, async (c) => {
    const out: bigint[] = [];
    for (let i = 0; i < 2; i++) {
      const r = await waitFor(
        async () => {
          const x = await c.request(ApiKey.InitProducerId, 5, {
            transactionalId: null,
            transactionTimeoutMs: 60_000,
            producerId: -1n,
            producerEpoch: -1,
          });
          return x.errorCode === ErrorCode.NONE ? x : null;
        },
        { what: 'InitProducerId to succeed', timeoutMs: 30_000 },
      );
      out.push(r.producerId);
    }
    return out;
  });
  assert.ok(ids[0]! >= 0n && ids[1]! === ids[0]! + 1n, `producer ids ${ids.join(', ')}`);

  await withClient(cluster.node(3).port, (c) =>
    c.request(ApiKey.Metadata, 12, {
      topics: [{ name: 'auto-made', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: true,
      includeTopicAuthorizedOperations: false,
    }),
  );
  await waitFor(async () => (await topicIds(cluster.node(2).port, ['auto-made']))?.has('auto-made') ?? false, {
    what: 'the auto-created topic on the other broker',
    timeoutMs: 30_000,
  });
});

test('DescribeQuorum asked of a broker is forwarded to the controller', async () => {
  const r = await withClient(cluster.node(2).port, (c) =>
    c.request(ApiKey.DescribeQuorum, 2, {
      topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
    }),
  );
  assert.equal(r.errorCode, ErrorCode.NONE);
  const p = r.topics[0]!.partitions[0]!;
  assert.equal(p.errorCode, ErrorCode.NONE);
  assert.equal(p.leaderId, 1);
  assert.deepEqual(
    p.observers.map((o) => o.replicaId).sort(),
    [2, 3],
    'both brokers fetch the metadata log as observers',
  );
});

test('SIGTERM: the broker goes through a controlled shutdown with the controller', async () => {
  const b = cluster.node(3);
  const t0 = Date.now();
  await b.stop();
  const ms = Date.now() - t0;
  assert.match(b.logs(20_000), /The controller has asked us to exit controlled shutdown\./);
  assert.ok(ms < 9000, `stopped in ${ms} ms, within broker.session.timeout.ms`);
  console.log(`controlled shutdown of broker 3 took ${ms} ms`);
});

test('a broker-only node that cannot register within initial.broker.registration.timeout.ms exits', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-broker-node-'));
  try {
    const nowhere = await pickPort(); // nothing listens there: no controller answers
    const cfg = join(dir, 'server.properties');
    writeFileSync(
      cfg,
      propertiesText({
        'process.roles': 'broker',
        'node.id': '7',
        listeners: 'PLAINTEXT://127.0.0.1:0',
        'controller.listener.names': 'CONTROLLER',
        'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
        'controller.quorum.voters': `1@127.0.0.1:${nowhere}`,
        'log.dirs': join(dir, 'data'),
        'initial.broker.registration.timeout.ms': '3000',
      }),
    );
    const tkafka = join(REPO_ROOT, 'bin', 'tkafka');
    const fmt = await execa('node', [tkafka, 'storage', 'format', '-t', cluster.clusterId, '-c', cfg], {
      reject: false,
    });
    assert.equal(fmt.exitCode, 0, String(fmt.stderr));
    const t0 = Date.now();
    const r = await execa('node', [tkafka, 'server', 'start', cfg], { reject: false, all: true, timeout: 60_000 });
    const ms = Date.now() - t0;
    assert.equal(r.exitCode, 1, String(r.all));
    assert.match(String(r.all), /Unable to register with the controller quorum within 3000 ms/);
    assert.ok(ms < 30_000, `exited after ${ms} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
