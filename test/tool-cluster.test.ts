// `tkafka broker-api-versions`, `log-dirs`, `cluster` and `features` against a real
// `tkafka server start` process: Kafka's lines, the json/table views, and the errors.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { run as brokerApiVersions } from '../src/tools/broker-api-versions/main.js';
import { run as logDirs } from '../src/tools/log-dirs/main.js';
import { run as cluster } from '../src/tools/cluster/main.js';
import { run as features } from '../src/tools/features/main.js';
import type { ToolIO } from '../src/tools/common/io.js';

const { Kafka, logLevel } = kafkajs;

let broker: BrokerProcess;

async function tkafka(
  tool: (argv: string[], io: ToolIO) => Promise<number>,
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const stdout = new Writable({
    write(c, _e, cb) {
      out += String(c);
      cb();
    },
  });
  const stderr = new Writable({
    write(c, _e, cb) {
      err += String(c);
      cb();
    },
  });
  const code = await tool(argv, { stdout, stderr, stdin: process.stdin, env });
  return { code, out, err };
}

before(async () => {
  broker = await startBroker();
  const kafka = new Kafka({ brokers: [broker.bootstrap], clientId: 'tool-cluster-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      { topic: 'logs', numPartitions: 2, replicationFactor: 1 },
      { topic: 'other', numPartitions: 1, replicationFactor: 1 },
    ],
  });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'logs', messages: [{ partition: 0, key: 'k', value: 'x'.repeat(100) }] });
  await producer.disconnect();
  await admin.disconnect();
});

after(async () => {
  await broker?.stop();
  broker?.cleanup();
});

test('broker-api-versions prints every broker with its versions and the usable one', async () => {
  const r = await tkafka(brokerApiVersions, ['--bootstrap-server', broker.bootstrap]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], `${broker.bootstrap} (id: 1 rack: null isFenced: false) -> (`);
  assert.equal(lines.at(-2), ')');
  // Every API the broker advertises, cross-checked with a raw ApiVersions exchange.
  const raw = await RawClient.connect(broker.port);
  const av = await raw.request(18, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
  raw.close();
  for (const k of av.apiKeys as { apiKey: number; minVersion: number; maxVersion: number }[]) {
    const range = k.minVersion === k.maxVersion ? `${k.minVersion}` : `${k.minVersion} to ${k.maxVersion}`;
    assert.ok(
      lines.some((l) => new RegExp(`^\\t\\w+\\(${k.apiKey}\\): ${range} \\[usable: \\d+\\],?$`).test(l)),
      `api ${k.apiKey}`,
    );
  }
  assert.ok(lines.includes('\tOffsetCommit(8): UNSUPPORTED,') || lines.some((l) => /^\tOffsetCommit\(8\): \d/.test(l)));
  assert.ok(!lines.some((l) => l.startsWith('\tLeaderAndIsr(4)')), 'zk-only APIs are not client APIs');
  const json = JSON.parse(
    (await tkafka(brokerApiVersions, ['--bootstrap-server', broker.bootstrap, '--output', 'json'])).out,
  );
  assert.equal(json.brokers[0].id, 1);
  const md = json.brokers[0].apis.find((a: { name: string }) => a.name === 'Metadata');
  assert.equal(md.status, 'usable');
  // usable as a Kafka 4.4 client sees it: the highest version both sides know (Metadata v13)
  assert.equal(md.usableVersion, Math.min(md.maxVersion, 13));
});

test("log-dirs prints Kafka's two lines and one JSON line with the replicas", async () => {
  const r = await tkafka(logDirs, ['--bootstrap-server', broker.bootstrap, '--describe', '--topic-list', 'logs']);
  assert.equal(r.code, 0, r.err);
  const [q, received, json, end] = r.out.split('\n');
  assert.equal(q, 'Querying brokers for log directories information');
  assert.equal(received, 'Received log directory information from brokers 1');
  assert.equal(end, '');
  assert.match(json!, /^\{"brokers":\[\{"broker":1,"logDirs":\[\{"partitions":\[/);
  assert.match(json!, /\],"version":1\}$/);
  const doc = JSON.parse(json!);
  const dir = doc.brokers[0].logDirs[0];
  assert.deepEqual(Object.keys(dir), ['partitions', 'error', 'logDir']);
  assert.equal(dir.error, null);
  const parts = new Map(dir.partitions.map((p: { partition: string }) => [p.partition, p]));
  assert.deepEqual([...parts.keys()].sort(), ['logs-0', 'logs-1']);
  assert.deepEqual(Object.keys(parts.get('logs-0') as object), ['partition', 'size', 'offsetLag', 'isFuture']);
  assert.ok((parts.get('logs-0') as { size: number }).size > 100);
  assert.equal((parts.get('logs-1') as { size: number }).size, 0);
  assert.deepEqual(
    await tkafka(logDirs, ['--bootstrap-server', broker.bootstrap, '--describe', '--broker-list', '1,7']),
    {
      code: 1,
      out: '',
      err: 'ERROR: The given brokers do not exist from --broker-list: 7. Current existent brokers: 1\n',
    },
  );
  const usage = await tkafka(logDirs, ['--bootstrap-server', broker.bootstrap]);
  assert.equal(usage.err.split('\n')[0], 'Missing required argument "[describe]"');
});

test('cluster cluster-id / list-endpoints / unregister', async () => {
  const r = await tkafka(cluster, ['cluster-id', '--bootstrap-server', broker.bootstrap]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^Cluster ID: [A-Za-z0-9_-]{22}\n$/);
  const id = r.out.slice('Cluster ID: '.length).trim();
  const raw = await RawClient.connect(broker.port);
  const md = await raw.request(3, 12, { topics: [], allowAutoTopicCreation: false });
  raw.close();
  assert.equal(id, md.clusterId);
  assert.deepEqual(
    JSON.parse((await tkafka(cluster, ['cluster-id', '-b', broker.bootstrap, '--output', 'json'])).out),
    { clusterId: id },
  );
  const ep = await tkafka(cluster, ['list-endpoints', '--bootstrap-server', broker.bootstrap]);
  const port = String(broker.port);
  assert.equal(
    ep.out,
    `${'ID'.padEnd(10)} HOST      ${'PORT'.padEnd(10)} ${'RACK'.padEnd(10)} ${'STATE'.padEnd(10)} ${'ENDPOINT_TYPE'.padEnd(15)}\n` +
      `${'1'.padEnd(10)} 127.0.0.1 ${port.padEnd(10)} ${'null'.padEnd(10)} ${'unfenced'.padEnd(10)} ${'broker'.padEnd(15)}\n`,
  );
  // DescribeCluster v2: with one unfenced broker, --include-fenced-brokers lists the same line
  const fenced = await tkafka(cluster, [
    'list-endpoints',
    '--bootstrap-server',
    broker.bootstrap,
    '--include-fenced-brokers',
  ]);
  assert.deepEqual([fenced.code, fenced.out], [0, ep.out]);
  // UnregisterBroker of an id that is not registered fails as Kafka 4.4's ClusterTool does (exit 1)
  const u = await tkafka(cluster, ['unregister', '--bootstrap-server', broker.bootstrap, '--id', '3']);
  assert.deepEqual([u.code, u.out], [1, '']);
  assert.match(
    u.err,
    /^org\.apache\.kafka\.common\.errors\.BrokerIdNotRegisteredException: Broker ID 3 is not currently registered\n/,
  );
  const missing = await tkafka(cluster, ['cluster-id']);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /kafka-cluster: {1,2}error: .*one {1,3}of .*--bootstrap-server\/-b/s);
  assert.equal(
    (await tkafka(cluster, ['cluster-id'], { TKAFKA_BOOTSTRAP_SERVER: broker.bootstrap })).out,
    `Cluster ID: ${id}\n`,
  );
});

test('features describe prints one line per supported feature', async () => {
  const r = await tkafka(features, ['--bootstrap-server', broker.bootstrap, 'describe']);
  assert.equal(r.code, 0, r.err);
  const raw = await RawClient.connect(broker.port);
  const av = await raw.request(18, 4, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
  raw.close();
  const names = (av.supportedFeatures as { name: string }[]).map((f) => f.name).sort();
  const lines = r.out.split('\n').slice(0, -1);
  // Kafka 4.4's columns: "Feature: %-40s  SupportedMinVersion: %-15s  SupportedMaxVersion: %-15s  ...".
  assert.deepEqual(
    lines.map((l) => l.split(/ {2,}/)[0]!.trimEnd()),
    names.map((n) => `Feature: ${n}`),
  );
  const mv = lines.find((l) => l.startsWith('Feature: metadata.version '))!;
  assert.match(
    mv,
    /^Feature: metadata\.version {24} {2}SupportedMinVersion: \d\.\d-IV\d {8} {2}SupportedMaxVersion: \d\.\d-IV\d {8} {2}FinalizedVersionLevel: \d\.\d-IV\d {8} {2}Epoch: (\d+|-)$/,
  );
  const json = JSON.parse(
    (await tkafka(features, ['--bootstrap-server', broker.bootstrap, 'describe', '--output', 'json'])).out,
  );
  assert.deepEqual(
    json.features.map((f: { name: string }) => f.name),
    names,
  );
  // --node-id (Kafka 4.4): the same features, asked of that node; a negative id is refused before any request
  const byNode = await tkafka(features, ['--bootstrap-server', broker.bootstrap, 'describe', '--node-id', '1']);
  assert.equal(byNode.code, 0, byNode.err);
  const noEpoch = (s: string) => s.replace(/Epoch: \S+/g, 'Epoch: N');
  assert.equal(noEpoch(byNode.out), noEpoch(r.out));
  assert.deepEqual(await tkafka(features, ['--bootstrap-server', broker.bootstrap, 'describe', '--node-id', '-1']), {
    code: 1,
    out: '',
    err: 'Invalid node id -1: must be non-negative.\n',
  });
  assert.deepEqual(await tkafka(features, ['--bootstrap-server', broker.bootstrap, 'upgrade', '--feature', 'x']), {
    code: 1,
    out: '',
    err: "Can't parse feature=level string x: equals sign not found.\n",
  });
  assert.equal(
    (
      await tkafka(features, [
        '--bootstrap-server',
        broker.bootstrap,
        'feature-dependencies',
        '--feature',
        'metadata.version=22',
      ])
    ).out,
    'metadata.version=22 (4.0-IV0) has no dependencies.\n',
  );
});

test('cluster api-versions prints each node with the API versions it advertises (as broker-api-versions)', async () => {
  const r = await tkafka(cluster, ['api-versions', '--bootstrap-server', broker.bootstrap]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^\S+:\d+ \(id: 1 rack: null isFenced: false\) -> \(\n\tProduce\(0\): \d+ to \d+ \[usable: \d+\],\n/,
  );
  // one node here: the same text as broker-api-versions, whose lines Kafka's tools share (NodeApiVersions)
  const b = await tkafka(brokerApiVersions, ['--bootstrap-server', broker.bootstrap]);
  assert.equal(r.out, b.out);
});
