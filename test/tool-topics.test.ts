// `tkafka topics` against a real `tkafka server start` process: Kafka's output lines, messages and
// exit codes, --output json/table, and the resulting cluster state checked with kafkajs.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { run as topics } from '../src/tools/topics/main.js';

const { Kafka, logLevel, ConfigResourceTypes } = kafkajs;

let broker: BrokerProcess;
let admin: kafkajs.Admin;

interface Result {
  code: number;
  out: string;
  err: string;
}

async function tkafka(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Result> {
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
  const code = await topics(argv, { stdout, stderr, stdin: process.stdin, env });
  return { code, out, err };
}

const B = (): string[] => ['--bootstrap-server', broker.bootstrap];

before(async () => {
  broker = await startBroker();
  admin = new Kafka({ brokers: [broker.bootstrap], clientId: 'tool-topics-test', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
});

after(async () => {
  await admin?.disconnect();
  await broker?.stop();
  broker?.cleanup();
});

test('--create makes the topic with its partitions, replication factor and configs', async () => {
  const r = await tkafka([
    ...B(),
    '--create',
    '--topic',
    'orders',
    '--partitions',
    '3',
    '--replication-factor',
    '1',
    '--config',
    'retention.ms=86400000',
    '--config',
    'cleanup.policy = compact',
  ]);
  assert.deepEqual(r, { code: 0, out: 'Created topic orders.\n', err: '' });
  const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
  assert.deepEqual(md.topics[0]!.partitions.map((p) => p.partitionId).sort(), [0, 1, 2]);
  const cfg = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders' }],
    includeSynonyms: false,
  });
  const entries = new Map(cfg.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
  assert.equal(entries.get('retention.ms'), '86400000');
  assert.equal(entries.get('cleanup.policy'), 'compact');
});

test("--create of an existing topic: Kafka's error line on stdout, exit 1; --if-not-exists: silent success", async () => {
  assert.deepEqual(await tkafka([...B(), '--create', '--topic', 'orders']), {
    code: 1,
    out: "Error while executing topic command : Topic 'orders' already exists.\n",
    err: '',
  });
  assert.deepEqual(await tkafka([...B(), '--create', '--topic', 'orders', '--if-not-exists']), {
    code: 0,
    out: '',
    err: '',
  });
});

test('--create warns about . and _ and validates values client-side like Kafka', async () => {
  const r = await tkafka([...B(), '--create', '--topic', 'metrics.cpu_load', '--partitions', '1']);
  assert.equal(r.code, 0);
  assert.equal(
    r.out,
    "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\nCreated topic metrics.cpu_load.\n",
  );
  const bad = async (args: string[], line: string): Promise<void> => {
    const x = await tkafka([...B(), '--create', '--topic', 'bad', ...args]);
    assert.deepEqual([x.code, x.out], [1, `Error while executing topic command : ${line}\n`], args.join(' '));
  };
  await bad(['--replication-factor', '0'], 'The replication factor must be between 1 and 32767 inclusive');
  await bad(['--partitions', '0'], 'The partitions must be greater than 0');
  await bad(['--partitions', 'x'], "Cannot parse argument 'x' of option partitions");
  await bad(['--config', 'foo=bar'], 'Unknown topic config name: foo');
  await bad(
    ['--config', 'retention.ms'],
    'requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".',
  );
  await bad(['--replica-assignment', '1:1'], 'Partition replica lists may not contain duplicate entries: 1');
  await bad(['--replica-assignment', '1,1:2'], 'Partition 1 has different replication factor: [1, 2]');
  assert.ok(!(await admin.listTopics()).includes('bad'));
});

test('--list prints sorted names; json and table views carry the same topics', async () => {
  const r = await tkafka([...B(), '--list']);
  assert.equal(r.code, 0);
  assert.deepEqual(
    r.out.split('\n').filter((l) => l !== ''),
    [...(await admin.listTopics())].sort(),
  );
  assert.equal((await tkafka([...B(), '--list', '--topic', 'ord.*'])).out, 'orders\n');
  assert.equal((await tkafka([...B(), '--list', '--topic', 'nothing-matches'])).out, '\n');
  const json = JSON.parse((await tkafka([...B(), '--list', '--output', 'json'])).out);
  assert.deepEqual(
    json.topics.map((t: { name: string }) => t.name),
    r.out.split('\n').filter((l) => l !== ''),
  );
  assert.match(json.topics[0].topicId, /^[A-Za-z0-9_-]{22}$/);
  const table = (await tkafka([...B(), '--list', '--output', 'table'])).out.split('\n');
  assert.match(table[0]!, /^TOPIC\s+TOPIC ID\s+INTERNAL$/);
  assert.ok(!table.join('\n').includes('\u001b['), 'no colours when stdout is not a TTY');
});

test("--describe prints Kafka's topic and partition lines", async () => {
  const r = await tkafka([...B(), '--describe', '--topic', 'orders']);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n').slice(0, -1);
  assert.equal(lines.length, 4);
  assert.match(
    lines[0]!,
    /^Topic: orders\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 3\tReplicationFactor: 1\tConfigs: (cleanup\.policy=compact,retention\.ms=86400000|retention\.ms=86400000,cleanup\.policy=compact)$/,
  );
  for (const p of [0, 1, 2])
    assert.equal(
      lines[p + 1],
      `\tTopic: orders\tPartition: ${p}\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: \tLastKnownElr: `,
    );
  const json = JSON.parse((await tkafka([...B(), '--describe', '--topic', 'orders', '--output', 'json'])).out);
  assert.equal(json.topics[0].name, 'orders');
  assert.equal(lines[0]!.split('\t')[1], `TopicId: ${json.topics[0].topicId}`);
  assert.deepEqual(json.topics[0].configs, { 'retention.ms': '86400000', 'cleanup.policy': 'compact' });
  assert.deepEqual(json.topics[0].partitions[2], {
    partition: 2,
    leader: 1,
    replicas: [1],
    isr: [1],
    elr: [],
    lastKnownElr: [],
    addingReplicas: [],
    removingReplicas: [],
  });
  const byId = await tkafka([...B(), '--describe', '--topic-id', json.topics[0].topicId]);
  assert.equal(byId.code, 0);
  assert.match(byId.out, /^Topic: orders\t/);
  assert.match(byId.out, /Elr: N\/A\tLastKnownElr: N\/A$/m, 'described through Metadata by id, as Kafka does');
});

test('--describe filters select partitions as Kafka does', async () => {
  assert.deepEqual(await tkafka([...B(), '--describe', '--topic', 'orders', '--under-replicated-partitions']), {
    code: 0,
    out: '',
    err: '',
  });
  assert.deepEqual(await tkafka([...B(), '--describe', '--topic', 'orders', '--unavailable-partitions']), {
    code: 0,
    out: '',
    err: '',
  });
  const atMin = await tkafka([...B(), '--describe', '--topic', 'orders', '--at-min-isr-partitions']);
  assert.equal(atMin.out.split('\n').filter((l) => l.startsWith('\tTopic: orders')).length, 3);
  assert.ok(!atMin.out.startsWith('Topic:'), 'no topic line with a partition filter');
  const overrides = await tkafka([...B(), '--describe', '--topics-with-overrides']);
  assert.match(overrides.out, /^Topic: orders\t/m);
  assert.doesNotMatch(overrides.out, /^Topic: metrics\.cpu_load\t/m);
  assert.doesNotMatch(overrides.out, /Partition:/);
});

test("--alter adds partitions; a decrease fails with the controller's message", async () => {
  assert.deepEqual(await tkafka([...B(), '--alter', '--topic', 'orders', '--partitions', '5']), {
    code: 0,
    out: '',
    err: '',
  });
  const md = await admin.fetchTopicMetadata({ topics: ['orders'] });
  assert.equal(md.topics[0]!.partitions.length, 5);
  const r = await tkafka([...B(), '--alter', '--topic', 'orders', '--partitions', '2']);
  assert.equal(r.code, 1);
  assert.match(r.out, /^Error while executing topic command : .*(would not be an increase|already has).*\n$/);
});

test("unknown topics: Kafka's message and exit 1, or nothing with --if-exists", async () => {
  assert.deepEqual(await tkafka([...B(), '--describe', '--topic', 'nope']), {
    code: 1,
    out: "Error while executing topic command : Topic 'nope' does not exist as expected\n",
    err: '',
  });
  assert.deepEqual(await tkafka([...B(), '--describe', '--topic', 'nope', '--if-exists']), {
    code: 0,
    out: '',
    err: '',
  });
  assert.deepEqual(await tkafka([...B(), '--delete', '--topic', 'nope', '--if-exists']), { code: 0, out: '', err: '' });
  assert.equal(
    (await tkafka([...B(), '--describe', '--topic-id', 'AAAAAAAAAAAAAAAAAAAABA'])).out,
    "Error while executing topic command : TopicId 'AAAAAAAAAAAAAAAAAAAABA' does not exist as expected\n",
  );
});

test('usage errors: the message and the help table on stderr, exit 1', async () => {
  const usage = async (args: string[], first: string): Promise<void> => {
    const r = await tkafka(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.equal(r.out, '');
    const lines = r.err.split('\n');
    assert.equal(lines[0], first);
    assert.match(lines[1]!, /^Option\s+Description\s*$/);
  };
  await usage([], 'Create, delete, describe, or change a topic.');
  await usage(['--help'], 'This tool helps to create, delete, describe, or change a topic.');
  await usage(
    [...B(), '--list', '--describe'],
    'Command must include exactly one action: --list, --describe, --create, --alter or --delete',
  );
  await usage([...B(), '--create'], 'Missing required argument "[topic]"');
  await usage([...B(), '--alter', '--topic', 'x'], 'Missing required argument "[partitions]"');
  await usage([...B(), '--list', '--partitions', '3'], 'Option "[partitions]" can\'t be used with option "[list]"');
  await usage([...B(), '--describe', '--if-exists'], '--topic or --topic-id is required to describe a topic');
  await usage(
    [...B(), '--describe', '--topics-with-overrides', '--under-replicated-partitions'],
    'Option "[under-replicated-partitions]" can\'t be used with option "[topics-with-overrides]"',
  );
  assert.deepEqual(await tkafka(['--list']), { code: 1, out: '', err: '--bootstrap-server must be specified\n' });
  assert.deepEqual(await tkafka([...B(), '--list', '--foo']), {
    code: 1,
    out: '',
    err: 'foo is not a recognized option\n',
  });
});

test('the cluster comes from the flag, else TKAFKA_BOOTSTRAP_SERVER, else the profile', async () => {
  const env = { TKAFKA_BOOTSTRAP_SERVER: broker.bootstrap };
  assert.match((await tkafka(['--list'], env)).out, /^orders$/m);
  // The flag wins over the environment: a dead address fails although the environment is good.
  const dead = await tkafka(['--bootstrap-server', '127.0.0.1:1', '--list'], env);
  assert.deepEqual([dead.code, dead.out], [1, '']);
  assert.equal(
    dead.err,
    'Error while executing topic command : Could not connect to any bootstrap server (127.0.0.1:1 failed: connection refused)\n',
  );
});

test('--command-config: client properties are used; a missing file is one line', async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-cc-'));
  try {
    const file = join(dir, 'client.properties');
    writeFileSync(file, '# tools\nclient.id=ops-tool\nrequest.timeout.ms=5000\n');
    assert.equal((await tkafka([...B(), '--command-config', file, '--list', '--topic', 'orders'])).out, 'orders\n');
    writeFileSync(file, 'security.protocol=SSLv3\n');
    assert.deepEqual(await tkafka([...B(), '--command-config', file, '--list']), {
      code: 1,
      out: '',
      err: 'Invalid value SSLv3 for configuration security.protocol: String must be one of (case insensitive): PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL\n',
    });
    assert.deepEqual(await tkafka([...B(), '--command-config', join(dir, 'missing'), '--list']), {
      code: 1,
      out: '',
      err: `java.nio.file.NoSuchFileException: ${join(dir, 'missing')}\n`,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--delete removes every topic the regex matches', async () => {
  await tkafka([...B(), '--create', '--topic', 'tmp-a']);
  await tkafka([...B(), '--create', '--topic', 'tmp-b']);
  assert.deepEqual(await tkafka([...B(), '--delete', '--topic', 'tmp-.*']), { code: 0, out: '', err: '' });
  const left = await admin.listTopics();
  assert.ok(!left.includes('tmp-a') && !left.includes('tmp-b'));
  assert.ok(left.includes('orders'));
});
