// `tkafka local`'s cluster layouts and generated files (src/tools/local/layout.ts): node ids,
// roles and ports of `-n N` and `-n N --controllers M`, each node's server.properties, and the
// `storage format` arguments of a dynamic quorum (--initial-controllers on every controller with
// the same voters, --no-initial-controllers on brokers) or a static one; a single node keeps the
// configuration it always had. Checked against Kafka 4.4's own parser and formatter through
// `tkafka storage format` (which ports StorageTool) on the generated files.
import test from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import {
  bootstrapOf,
  formatArgs,
  nodeProperties,
  planNodes,
  type LocalState,
  type QuorumMode,
} from '../src/tools/local/layout.js';
import { run as storage } from '../src/tools/storage/main.js';
import type { ToolIO } from '../src/tools/common/io.js';

async function cluster(
  brokers: number,
  controllers: number,
  basePort: number,
  quorum: QuorumMode,
): Promise<LocalState> {
  let picked = 40000;
  let dirId = 0;
  const nodes = await planNodes({
    brokers,
    controllers,
    basePort,
    pick: async () => picked++,
    directoryId: () => `dir${dirId++}AAAAAAAAAAAAAAAAAA`.slice(0, 22),
  });
  const s: LocalState = {
    version: 1,
    clusterId: 'MkU3OEVBNTcwNTJENDM2Qk',
    host: '127.0.0.1',
    quorum,
    nodes,
    bootstrap: '',
    startedAt: null,
  };
  s.bootstrap = bootstrapOf(s);
  return s;
}

const props = (text: string): Map<string, string> =>
  new Map(
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

test('a single node keeps the static voter and the configuration local start always wrote', async () => {
  const s = await cluster(1, 0, 9092, 'static');
  assert.deepEqual(
    s.nodes.map((n) => [n.id, n.roles, n.brokerPort, n.controllerPort, n.directoryId]),
    [[1, 'broker,controller', 9092, 9093, undefined]],
  );
  assert.equal(
    nodeProperties('/c', s, s.nodes[0]!, ['log.retention.ms=1000']),
    [
      '# Written by `tkafka local start`; edits are kept until the next start with different settings.',
      'process.roles=broker,controller',
      'node.id=1',
      'listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093',
      'advertised.listeners=PLAINTEXT://127.0.0.1:9092',
      'controller.listener.names=CONTROLLER',
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      'controller.quorum.voters=1@127.0.0.1:9093',
      'log.dirs=/c/node-1/data',
      'num.partitions=1',
      'offsets.topic.replication.factor=1',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      'share.coordinator.state.topic.replication.factor=1',
      'share.coordinator.state.topic.min.isr=1',
      'group.initial.rebalance.delay.ms=0',
      'log.retention.ms=1000',
      '',
    ].join('\n'),
  );
  assert.deepEqual(formatArgs(s, s.nodes[0]!), ['--ignore-formatted']);
  // --port 0: both listeners of a single node bind port 0
  const z = await cluster(1, 0, 0, 'static');
  assert.deepEqual([z.nodes[0]!.brokerPort, z.nodes[0]!.controllerPort], [0, 0]);
});

test('-n 3: three combined nodes in a dynamic quorum', async () => {
  const s = await cluster(3, 0, 9092, 'dynamic');
  assert.deepEqual(
    s.nodes.map((n) => [n.id, n.roles, n.brokerPort, n.controllerPort]),
    [
      [1, 'broker,controller', 9092, 9093],
      [2, 'broker,controller', 9094, 9095],
      [3, 'broker,controller', 9096, 9097],
    ],
  );
  assert.equal(s.bootstrap, '127.0.0.1:9092,127.0.0.1:9094,127.0.0.1:9096');
  const p2 = props(nodeProperties('/c', s, s.nodes[1]!, []));
  assert.equal(p2.get('process.roles'), 'broker,controller');
  assert.equal(p2.get('listeners'), 'PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095');
  assert.equal(p2.get('advertised.listeners'), 'PLAINTEXT://127.0.0.1:9094,CONTROLLER://127.0.0.1:9095');
  assert.equal(p2.get('controller.quorum.bootstrap.servers'), '127.0.0.1:9093,127.0.0.1:9095,127.0.0.1:9097');
  assert.equal(p2.has('controller.quorum.voters'), false);
  assert.equal(p2.get('inter.broker.listener.name'), 'PLAINTEXT');
  assert.equal(p2.get('offsets.topic.replication.factor'), '3');
  assert.equal(p2.get('transaction.state.log.min.isr'), '2');
  assert.equal(p2.get('share.coordinator.state.topic.replication.factor'), '3');
  assert.equal(p2.get('share.coordinator.state.topic.min.isr'), '2');
  const initial = s.nodes.map((n) => formatArgs(s, n));
  assert.deepEqual(initial[0], [
    '--ignore-formatted',
    '--initial-controllers',
    `1@127.0.0.1:9093:${s.nodes[0]!.directoryId},2@127.0.0.1:9095:${s.nodes[1]!.directoryId},3@127.0.0.1:9097:${s.nodes[2]!.directoryId}`,
  ]);
  assert.deepEqual(initial[1], initial[0], 'every controller is formatted with the same initial voters');
  assert.equal(new Set(s.nodes.map((n) => n.directoryId)).size, 3, 'one directory id per controller');
});

test('-n 2 --controllers 3: controller-only nodes 1..3, broker-only nodes 4..5; --port 0 picks the controller ports', async () => {
  const s = await cluster(2, 3, 0, 'dynamic');
  assert.deepEqual(
    s.nodes.map((n) => [n.id, n.roles, n.brokerPort, n.controllerPort]),
    [
      [1, 'controller', 0, 40000],
      [2, 'controller', 0, 40001],
      [3, 'controller', 0, 40002],
      [4, 'broker', 0, 0],
      [5, 'broker', 0, 0],
    ],
  );
  const c1 = props(nodeProperties('/c', s, s.nodes[0]!, []));
  assert.equal(c1.get('process.roles'), 'controller');
  assert.equal(c1.get('listeners'), 'CONTROLLER://127.0.0.1:40000');
  assert.equal(c1.get('advertised.listeners'), 'CONTROLLER://127.0.0.1:40000');
  assert.equal(c1.has('inter.broker.listener.name'), false);
  assert.equal(c1.has('offsets.topic.replication.factor'), false);
  const b4 = props(nodeProperties('/c', s, s.nodes[3]!, []));
  assert.equal(b4.get('process.roles'), 'broker');
  assert.equal(b4.get('listeners'), 'PLAINTEXT://127.0.0.1:0');
  assert.equal(b4.get('controller.quorum.bootstrap.servers'), '127.0.0.1:40000,127.0.0.1:40001,127.0.0.1:40002');
  assert.equal(b4.get('offsets.topic.replication.factor'), '2');
  assert.deepEqual(formatArgs(s, s.nodes[3]!), ['--ignore-formatted', '--no-initial-controllers']);
  assert.equal(s.nodes[3]!.directoryId, undefined);

  const st = await cluster(2, 3, 9092, 'static');
  assert.deepEqual(
    st.nodes.map((n) => [n.id, n.brokerPort, n.controllerPort]),
    [
      [1, 0, 9093],
      [2, 0, 9095],
      [3, 0, 9097],
      [4, 9098, 0],
      [5, 9100, 0],
    ],
  );
  assert.equal(st.bootstrap, '127.0.0.1:9098,127.0.0.1:9100');
  const sb = props(nodeProperties('/c', st, st.nodes[4]!, []));
  assert.equal(sb.get('controller.quorum.voters'), '1@127.0.0.1:9093,2@127.0.0.1:9095,3@127.0.0.1:9097');
  assert.deepEqual(formatArgs(st, st.nodes[4]!), ['--ignore-formatted']);
  assert.deepEqual(formatArgs(st, st.nodes[0]!), ['--ignore-formatted']);
});

test('the generated files format with `storage format` as Kafka 4.4 formats them', async () => {
  const root = mkdtempSync(join(tmpdir(), 'tkafka-local-layout-'));
  try {
    const s = await cluster(1, 3, 9092, 'dynamic');
    for (const n of s.nodes) {
      const file = join(root, `${n.id}.properties`);
      writeFileSync(file, nodeProperties(root, s, n, []));
      let text = '';
      const w = new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) });
      const io = { stdout: w, stderr: w, stdin: process.stdin, env: {} } as ToolIO;
      const code = await storage(['format', '-t', s.clusterId, '-c', file, ...formatArgs(s, n)], io);
      assert.equal(code, 0, `node ${n.id}: ${text}`);
      const meta = readFileSync(join(root, n.dir, 'data', 'meta.properties'), 'utf8');
      assert.match(meta, new RegExp(`^node.id=${n.id}$`, 'm'));
      assert.match(meta, new RegExp(`^cluster.id=${s.clusterId}$`, 'm'));
      if (n.directoryId) assert.match(meta, new RegExp(`^directory.id=${n.directoryId}$`, 'm'));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
