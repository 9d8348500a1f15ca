// Proves the interop harness: a real Apache Kafka broker from Maven Central's jars, Kafka's own
// tool classes run against it, and a real client (kcat / librdkafka) producing and consuming.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execa } from 'execa';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startApacheKafka, KAFKA_VERSION, type ApacheKafka } from './helpers/apache-kafka.js';

let kafka: ApacheKafka;

before(async () => {
  const t0 = Date.now();
  kafka = await startApacheKafka();
  console.log(
    `Apache Kafka ${KAFKA_VERSION} serving on ${kafka.bootstrap} after ${kafka.startMs} ms (format + start: ${Date.now() - t0} ms)`,
  );
});

after(async () => {
  await kafka?.cleanup();
});

const N = 200;

test('Kafka TopicCommand creates and describes a topic on the Apache Kafka broker', async () => {
  const created = await kafka.runTool('org.apache.kafka.tools.TopicCommand', [
    '--bootstrap-server',
    kafka.bootstrap,
    '--create',
    '--topic',
    'smoke',
    '--partitions',
    '3',
    '--replication-factor',
    '1',
  ]);
  assert.equal(created.exitCode, 0, created.stderr);
  assert.equal(created.stdout, 'Created topic smoke.\n');
  await kafka.waitForTopic('smoke', { partitions: 3 });

  const described = await kafka.runTool('org.apache.kafka.tools.TopicCommand', [
    '--bootstrap-server',
    kafka.bootstrap,
    '--describe',
    '--topic',
    'smoke',
  ]);
  assert.equal(described.exitCode, 0, described.stderr);
  assert.match(described.stdout, /^Topic: smoke\tTopicId: \S+\tPartitionCount: 3\tReplicationFactor: 1\t/m);
  for (const p of [0, 1, 2])
    assert.match(described.stdout, new RegExp(`\\tTopic: smoke\\tPartition: ${p}\\tLeader: 1\\tReplicas: 1\\tIsr: 1`));
});

test('kcat produces to the Apache Kafka broker and reads every record back in order', async () => {
  const input = Array.from({ length: N }, (_, i) => `k${i}:value-${i}`).join('\n') + '\n';
  const p = await execa('kcat', ['-P', '-b', kafka.bootstrap, '-t', 'smoke', '-p', '0', '-K:'], {
    input,
    timeout: 60_000,
  });
  assert.equal(p.exitCode, 0);
  const c = await execa(
    'kcat',
    ['-C', '-b', kafka.bootstrap, '-t', 'smoke', '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%o|%k|%s\\n'],
    {
      timeout: 60_000,
    },
  );
  const lines = c.stdout.split('\n').filter((l) => l.length > 0);
  assert.equal(lines.length, N);
  lines.forEach((l, i) => assert.equal(l, `${i}|k${i}|value-${i}`));
});

test("Kafka's DumpLogSegments reads the broker's segment", async () => {
  const dir = join(kafka.dataDir, 'smoke-0');
  const segs = readdirSync(dir).filter((f) => f.endsWith('.log'));
  assert.deepEqual(segs, ['00000000000000000000.log']);
  const r = await kafka.runTool('org.apache.kafka.tools.DumpLogSegments', [
    '--files',
    join(dir, segs[0]!),
    '--print-data-log',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^Dumping .*00000000000000000000\.log$/m);
  assert.match(r.stdout, /^Log starting offset: 0$/m);
  assert.match(r.stdout, new RegExp(`lastOffset: ${N - 1} `));
  assert.match(r.stdout, /\| offset: 0 .* key: k0 payload: value-0$/m);
});

test("Kafka's MetadataQuorumCommand describes the quorum through the controller listener", async () => {
  const r = await kafka.runTool('org.apache.kafka.tools.MetadataQuorumCommand', [
    '--bootstrap-controller',
    kafka.controllerBootstrap,
    'describe',
    '--status',
  ]);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.match(r.stdout, /^ClusterId:\s+(\S+)$/m);
  assert.equal(/^ClusterId:\s+(\S+)$/m.exec(r.stdout)![1], kafka.clusterId);
  assert.match(r.stdout, /^LeaderId:\s+1$/m);
});
