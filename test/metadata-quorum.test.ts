// `tkafka metadata-quorum` (MetadataQuorumCommand) and the broker's DescribeQuorum handler: Kafka's
// text for --status and --replication (padding, TABs, Optional/null rules, lag computations,
// --human-readable and its clock-drift error), argparse errors and terse messages, add/remove
// controller dry runs, and a real `tkafka server start` answering over both listeners.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../src/tools/metadata-quorum/main.js';
import { replicationRows, replicationText, statusFacts, statusText } from '../src/tools/metadata-quorum/format.js';
import type { QuorumInfo } from '../src/tools/metadata-quorum/quorum.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/frame.js';

async function mq(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let o = '';
  let e = '';
  stdout.on('data', (d: Buffer) => (o += d));
  stderr.on('data', (d: Buffer) => (e += d));
  const code = await run(args, { stdout, stderr, stdin: new PassThrough(), env: {} });
  return { code, stdout: o, stderr: e };
}

const QUORUM: QuorumInfo = {
  leaderId: 1,
  leaderEpoch: 7,
  highWatermark: 1234n,
  voters: [
    {
      replicaId: 1,
      replicaDirectoryId: 'Bh2KPqq5T9mB8Rn0Zg3XwA',
      logEndOffset: 1234n,
      lastFetchTimestamp: 1729800000123n,
      lastCaughtUpTimestamp: 1729800000123n,
    },
    {
      replicaId: 2,
      replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA',
      logEndOffset: 1230n,
      lastFetchTimestamp: 1729800000100n,
      lastCaughtUpTimestamp: 1729800000050n,
    },
  ],
  observers: [
    {
      replicaId: 4,
      replicaDirectoryId: 'pQm3F0dTRXyaxZ0b3W8sXg',
      logEndOffset: 1234n,
      lastFetchTimestamp: 1729800000120n,
      lastCaughtUpTimestamp: null,
    },
  ],
  nodes: new Map([
    [1, [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }]],
    [
      2,
      [
        { name: 'CONTROLLER', host: '::1', port: 9094 },
        { name: 'SSL', host: 'h', port: 9095 },
      ],
    ],
  ]),
};

test('--status text: labels padded to column 25, lag computations, replica objects as Kafka prints them', () => {
  assert.equal(
    statusText(statusFacts('MkU3OEVBNTcwNTJENDM2Qg', QUORUM)),
    'ClusterId:              MkU3OEVBNTcwNTJENDM2Qg\n' +
      'LeaderId:               1\n' +
      'LeaderEpoch:            7\n' +
      'HighWatermark:          1234\n' +
      'MaxFollowerLag:         4\n' +
      'MaxFollowerLagTimeMs:   73\n' +
      'CurrentVoters:          [{"id": 1, "directoryId": "Bh2KPqq5T9mB8Rn0Zg3XwA", "endpoints": ["CONTROLLER://localhost:9093"]}, ' +
      '{"id": 2, "endpoints": ["CONTROLLER://[::1]:9094", "SSL://h:9095"]}]\n' +
      'CurrentObservers:       [{"id": 4, "directoryId": "pQm3F0dTRXyaxZ0b3W8sXg"}]\n',
  );
  // The leader is the most lagging voter: 0; a lagging voter without a caught-up time: -1.
  const single = { ...QUORUM, voters: [QUORUM.voters[0]!], observers: [] };
  assert.match(
    statusText(statusFacts('c', single)),
    /MaxFollowerLag: {9}0\nMaxFollowerLagTimeMs: {3}0\n[\s\S]*CurrentObservers: {7}\[\]\n$/,
  );
  const unknown = { ...QUORUM, voters: [QUORUM.voters[0]!, { ...QUORUM.voters[1]!, lastCaughtUpTimestamp: null }] };
  assert.match(statusText(statusFacts('c', unknown)), /MaxFollowerLagTimeMs: {3}-1\n/);
  assert.throws(() => statusFacts('c', { ...QUORUM, leaderId: 9 }), /No value present/);
});

test('--replication table: every cell padded and followed by a TAB; leader, followers, observers', () => {
  assert.equal(
    replicationText(replicationRows(QUORUM), false, 0n),
    'NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n' +
      '1     \tBh2KPqq5T9mB8Rn0Zg3XwA\t1234        \t0  \t1729800000123     \t1729800000123        \tLeader  \t\n' +
      '2     \tAAAAAAAAAAAAAAAAAAAAAA\t1230        \t4  \t1729800000100     \t1729800000050        \tFollower\t\n' +
      '4     \tpQm3F0dTRXyaxZ0b3W8sXg\t1234        \t0  \t1729800000120     \t-1                   \tObserver\t\n',
  );
  const human = replicationText(replicationRows(QUORUM), true, 1729800001000n);
  assert.match(human, /^1 +\tBh2KPqq5T9mB8Rn0Zg3XwA\t1234 +\t0 +\t877 ms ago +\t877 ms ago +\tLeader +\t$/m);
  assert.throws(
    () => replicationText(replicationRows(QUORUM), true, 1729800000000n),
    (e: Error) =>
      e.message ===
      'org.apache.kafka.common.KafkaException: Error while computing relative time, possible drift in system clock.\nCurrent timestamp is 1729800000000, last fetch timestamp is 1729800000123',
  );
});

test('argument errors and terse failures', async () => {
  let r = await mq(['describe', '--status']);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /kafka-metadata-quorum:\s+error:\s+one\s+of\s+the\s+arguments\s+--bootstrap-server\s+--\s*bootstrap-controller\s+is\s+required/,
  );
  r = await mq(['--bootstrap-server', 'x:1', 'describe']);
  assert.deepEqual(
    [r.code, r.stderr],
    [1, 'One of --status or --replication must be specified with describe sub-command\n'],
  );
  r = await mq(['--bootstrap-server', 'x:1', 'describe', '--status', '--replication']);
  assert.deepEqual(
    [r.code, r.stderr],
    [1, 'Only one of --status or --replication should be specified with describe sub-command\n'],
  );
  r = await mq(['--bootstrap-server', 'x:1', 'describe', '--status', '--human-readable']);
  assert.deepEqual([r.code, r.stderr], [1, 'The option --human-readable is only supported along with --replication\n']);
  r = await mq([
    '--bootstrap-server',
    'x:1',
    '--command-config',
    '/nonexistent/admin.properties',
    'describe',
    '--status',
  ]);
  assert.deepEqual([r.code, r.stderr], [1, 'Properties file /nonexistent/admin.properties does not exist.\n']);
  r = await mq(['--bootstrap-server', 'x:1', 'add-controller']);
  assert.deepEqual(
    [r.code, r.stderr],
    [1, 'You must supply the configuration file of the controller you are adding when using add-controller.\n'],
  );
  r = await mq(['--bootstrap-server', 'x:1', 'remove-controller', '-i', '-1', '-d', 'AAAAAAAAAAAAAAAAAAAAAQ']);
  assert.deepEqual([r.code, r.stderr], [1, 'Invalid negative --controller-id: -1\n']);
});

test('add-controller and remove-controller dry runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-mq-'));
  try {
    writeFileSync(
      join(dir, 'meta.properties'),
      '#\nversion=1\nnode.id=3\ncluster.id=c\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n',
    );
    const cfg = join(dir, 'controller.properties');
    writeFileSync(
      cfg,
      `node.id=3\nprocess.roles=controller\nmetadata.log.dir=${dir}\ncontroller.listener.names=CONTROLLER\nlisteners=CONTROLLER://:9093\nadvertised.listeners=CONTROLLER://[::1]:9099\n`,
    );
    let r = await mq(['--bootstrap-controller', 'x:1', '--command-config', cfg, 'add-controller', '--dry-run']);
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [
        0,
        'DRY RUN of adding controller 3 with directory id J8aAPcfLQt2bqs1JT_rMgQ and endpoints: CONTROLLER://[::1]:9099\n',
        '',
      ],
    );
    writeFileSync(cfg, 'node.id=3\nprocess.roles=broker\n');
    r = await mq(['--bootstrap-controller', 'x:1', '--command-config', cfg, 'add-controller', '--dry-run']);
    assert.equal(
      r.stderr,
      "process.roles did not contain 'controller' in configuration file. Is this a valid controller configuration file?\n",
    );
    r = await mq([
      '--bootstrap-server',
      'x:1',
      'remove-controller',
      '--controller-id',
      '3',
      '--controller-directory-id',
      'J8aAPcfLQt2bqs1JT_rMgQ',
      '--dry-run',
    ]);
    assert.deepEqual(
      [r.code, r.stdout],
      [0, 'DRY RUN of removing KRaft controller 3 with directory id J8aAPcfLQt2bqs1JT_rMgQ\n'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

let broker: BrokerProcess;
before(async () => {
  broker = await startBroker();
});
after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

test('against a tkafka broker: --status over --bootstrap-server and --bootstrap-controller', async () => {
  for (const conn of [
    ['--bootstrap-server', broker.bootstrap],
    ['--bootstrap-controller', `127.0.0.1:${broker.controllerPort}`],
  ]) {
    const r = await mq([...conn, 'describe', '--status']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        '^ClusterId: {14}[\\w-]{22}\\nLeaderId: {15}1\\nLeaderEpoch: {12}\\d+\\nHighWatermark: {10}\\d+\\nMaxFollowerLag: {9}0\\nMaxFollowerLagTimeMs: {3}0\\n' +
          `CurrentVoters: {10}\\[\\{"id": 1(, "directoryId": "[\\w-]{22}")?, "endpoints": \\["CONTROLLER://127\\.0\\.0\\.1:${broker.controllerPort}"\\]\\}\\]\\n` +
          'CurrentObservers: {7}\\[\\]\\n$',
      ),
    );
  }
});

test('against a tkafka broker: --replication, --human-readable, --output json', async () => {
  let r = await mq(['--bootstrap-server', broker.bootstrap, 'describe', '--replication']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(
    lines[0],
    'NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus\t',
  );
  assert.match(lines[1]!, /^1 {5}\t[\w-]{22}\t\d+ *\t0 {2}\t\d{13} *\t\d{13} *\tLeader\t$/);
  r = await mq([
    '--bootstrap-controller',
    `127.0.0.1:${broker.controllerPort}`,
    'describe',
    '--replication',
    '--human-readable',
  ]);
  assert.match(r.stdout.split('\n')[1]!, /\t\d+ ms ago *\t\d+ ms ago *\tLeader\t$/);
  r = await mq(['--bootstrap-server', broker.bootstrap, 'describe', '--status', '--output', 'json']);
  const status = JSON.parse(r.stdout);
  assert.equal(status.leaderId, 1);
  assert.deepEqual(status.currentVoters[0].endpoints, [`CONTROLLER://127.0.0.1:${broker.controllerPort}`]);
  r = await mq(['--bootstrap-server', broker.bootstrap, 'describe', '--replication', '--output', 'json']);
  assert.equal(JSON.parse(r.stdout)[0].status, 'Leader');
});

test('DescribeQuorum handler: v0-v2 on both listeners, UNKNOWN_TOPIC_OR_PARTITION for another partition', async () => {
  for (const port of [broker.port, broker.controllerPort]) {
    const c = await RawClient.connect(port);
    try {
      const ok = await c.request(ApiKey.DescribeQuorum, 2, {
        topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
      });
      const p = ok.topics[0].partitions[0];
      assert.equal(p.errorCode, 0);
      assert.equal(p.leaderId, 1);
      assert.equal(p.currentVoters.length, 1);
      assert.equal(p.currentVoters[0].replicaId, 1);
      assert.ok(p.currentVoters[0].lastFetchTimestamp > 0n);
      assert.equal(ok.nodes[0].nodeId, 1);
      for (const v of [0, 1]) {
        const old = await c.request(ApiKey.DescribeQuorum, v, {
          topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
        });
        assert.equal(old.topics[0].partitions[0].errorCode, 0, `v${v}`);
        assert.equal(old.topics[0].partitions[0].currentVoters[0].replicaId, 1);
      }
      const bad = await c.request(ApiKey.DescribeQuorum, 2, {
        topics: [{ topicName: 'other', partitions: [{ partitionIndex: 3 }] }],
      });
      assert.deepEqual(
        [
          bad.errorCode,
          bad.topics[0].topicName,
          bad.topics[0].partitions[0].partitionIndex,
          bad.topics[0].partitions[0].errorCode,
          bad.topics[0].partitions[0].errorMessage,
        ],
        [0, 'other', 3, 3, 'This server does not host this topic-partition.'],
      );
    } finally {
      c.close();
    }
  }
});
