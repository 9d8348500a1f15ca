// `tkafka configs` against a real `tkafka server start` process: describe/alter of topics,
// brokers, the broker default and broker loggers with Kafka's lines and messages, checked with
// kafkajs; users/clients report the missing quota APIs of this broker in one line.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import kafkajs from 'kafkajs';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { run as configs } from '../src/tools/configs/main.js';

const { Kafka, logLevel, ConfigResourceTypes } = kafkajs;

let broker: BrokerProcess;
let admin: kafkajs.Admin;

async function tkafka(
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
  const code = await configs(argv, { stdout, stderr, stdin: process.stdin, env });
  return { code, out, err };
}

const B = (): string[] => ['--bootstrap-server', broker.bootstrap];

async function topicConfig(name: string): Promise<Map<string, string>> {
  const cfg = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name }],
    includeSynonyms: false,
  });
  return new Map(cfg.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]));
}

before(async () => {
  broker = await startBroker();
  admin = new Kafka({ brokers: [broker.bootstrap], clientId: 'tool-configs-test', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 1, replicationFactor: 1 }] });
});

after(async () => {
  await admin?.disconnect();
  await broker?.stop();
  broker?.cleanup();
});

test('--alter --add-config sets topic configs (bracketed lists too); --describe prints them with synonyms', async () => {
  const r = await tkafka([
    ...B(),
    '--alter',
    '--topic',
    'orders',
    '--add-config',
    'retention.ms=1000,cleanup.policy=[compact,delete]',
  ]);
  assert.deepEqual(r, { code: 0, out: 'Completed updating config for topic orders.\n', err: '' });
  const cfg = await topicConfig('orders');
  assert.equal(cfg.get('retention.ms'), '1000');
  assert.equal(cfg.get('cleanup.policy'), 'compact,delete');
  const d = await tkafka([...B(), '--describe', '--entity-type', 'topics', '--entity-name', 'orders']);
  assert.equal(d.code, 0, d.err);
  assert.deepEqual(d.out.split('\n'), [
    'Dynamic configs for topic orders are:',
    '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}',
    '  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}',
    '',
  ]);
  const all = await tkafka([...B(), '--describe', '--topic', 'orders', '--all']);
  assert.match(all.out, /^All configs for topic orders are:\n/);
  assert.match(
    all.out,
    /^ {2}segment\.bytes=\d+ sensitive=false synonyms=\{.*DEFAULT_CONFIG:log\.segment\.bytes=\d+\}$/m,
  );
  const json = JSON.parse((await tkafka([...B(), '--describe', '--topic', 'orders', '--output', 'json'])).out);
  assert.deepEqual(
    json.resources[0].configs.map((c: { name: string }) => c.name),
    ['cleanup.policy', 'retention.ms'],
  );
  assert.equal(json.resources[0].configs[1].source, 'DYNAMIC_TOPIC_CONFIG');
});

test('Kafka 4.4 topic configs: new keys with their defaults and synonyms; message.downconversion.enable is unknown', async () => {
  const all = await tkafka([...B(), '--describe', '--topic', 'orders', '--all']);
  assert.equal(all.code, 0, all.err);
  const lines = all.out.split('\n');
  for (const line of [
    '  errors.deadletterqueue.group.enable=false sensitive=false synonyms={}',
    '  max.decompressed.message.bytes=2147483639 sensitive=false synonyms={DEFAULT_CONFIG:max.decompressed.message.bytes=2147483639}',
    '  remote.copy.lag.bytes=-1 sensitive=false synonyms={DEFAULT_CONFIG:log.remote.copy.lag.bytes=-1}',
    '  remote.copy.lag.ms=0 sensitive=false synonyms={DEFAULT_CONFIG:log.remote.copy.lag.ms=0}',
  ]) {
    assert.ok(lines.includes(line), line);
  }
  assert.doesNotMatch(all.out, /downconversion/);
  const res = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.TOPIC, name: 'orders' }],
    includeSynonyms: false,
  });
  const entry = res.resources[0]!.configEntries.find((e) => e.configName === 'remote.copy.lag.ms')!;
  assert.deepEqual([entry.configValue, entry.readOnly, entry.isDefault, entry.isSensitive], ['0', false, true, false]);
  const r = await tkafka([
    ...B(),
    '--alter',
    '--topic',
    'orders',
    '--add-config',
    'message.downconversion.enable=false',
  ]);
  assert.equal(r.code, 1);
  assert.deepEqual(r.err.split('\n').slice(1, 2), [
    'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidConfigurationException: Unknown topic config name: message.downconversion.enable',
  ]);
  await assert.rejects(
    admin.createTopics({
      topics: [{ topic: 'dc', configEntries: [{ name: 'message.downconversion.enable', value: 'true' }] }],
    }),
    (e: Error & { errors?: Array<{ type: string }> }) => {
      assert.equal(e.errors?.[0]?.type, 'INVALID_CONFIG');
      return true;
    },
  );
});

test('--delete-config removes a topic config; deleting an unset key is no error (Kafka 4.4)', async () => {
  assert.equal((await tkafka([...B(), '--alter', '--topic', 'orders', '--delete-config', 'retention.ms'])).code, 0);
  assert.equal((await topicConfig('orders')).get('retention.ms'), '604800000');
  assert.deepEqual(await tkafka([...B(), '--alter', '--topic', 'orders', '--delete-config', 'retention.ms']), {
    code: 0,
    out: 'Completed updating config for topic orders.\n',
    err: '',
  });
});

test('broker and broker-default configs; broker loggers', async () => {
  assert.deepEqual(await tkafka([...B(), '--alter', '--broker', '1', '--add-config', 'log.cleaner.threads=2']), {
    code: 0,
    out: 'Completed updating config for broker 1.\n',
    err: '',
  });
  const d = await tkafka([...B(), '--describe', '--broker', '1']);
  assert.deepEqual(d.out.split('\n'), [
    'Dynamic configs for broker 1 are:',
    '  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, DEFAULT_CONFIG:log.cleaner.threads=1}',
    '',
  ]);
  assert.deepEqual(
    await tkafka([
      ...B(),
      '--alter',
      '--entity-type',
      'brokers',
      '--entity-default',
      '--add-config',
      'log.cleaner.threads=3',
    ]),
    { code: 0, out: 'Completed updating default config for brokers in the cluster.\n', err: '' },
  );
  const all = await tkafka([...B(), '--describe', '--entity-type', 'brokers']);
  assert.match(
    all.out,
    /^Dynamic configs for broker 1 are:\n {2}log\.cleaner\.threads=2 sensitive=false synonyms=\{DYNAMIC_BROKER_CONFIG:log\.cleaner\.threads=2, DYNAMIC_DEFAULT_BROKER_CONFIG:log\.cleaner\.threads=3, DEFAULT_CONFIG:log\.cleaner\.threads=1\}\nDefault configs for brokers in the cluster are:\n {2}log\.cleaner\.threads=3 /,
  );
  const loggers = await tkafka([...B(), '--describe', '--broker-logger', '1']);
  assert.match(
    loggers.out,
    /^Dynamic configs for broker-logger 1 are:\n {2}\S+=(INFO|WARN|DEBUG|ERROR|TRACE) sensitive=false synonyms=\{\}\n/,
  );
  assert.deepEqual(await tkafka([...B(), '--alter', '--broker-logger', '1', '--add-config', 'no.such.logger=DEBUG']), {
    code: 1,
    out: '',
    err: 'Invalid broker logger(s): no.such.logger\n',
  });
});

test("read-only broker keys: Kafka 4.4's messages with Java list brackets; advertised.listeners is read-only", async () => {
  const second = async (args: string[]): Promise<string | undefined> => {
    const r = await tkafka([...B(), '--alter', ...args]);
    assert.equal(r.code, 1, r.out);
    return r.err.split('\n')[1];
  };
  const e = 'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidRequestException: ';
  assert.equal(
    await second(['--broker', '1', '--add-config', 'node.id=2,process.roles=broker']),
    `${e}Cannot update these configs dynamically: [node.id, process.roles]`,
  );
  assert.equal(
    await second(['--broker', '1', '--add-config', 'advertised.listeners=PLAINTEXT://127.0.0.1:1']),
    `${e}Cannot update these configs dynamically: [advertised.listeners]`,
  );
  assert.equal(
    await second(['--entity-type', 'brokers', '--entity-default', '--add-config', 'listeners=PLAINTEXT://:1']),
    `${e}Cannot update these configs at default cluster level, broker id must be specified: [listeners]`,
  );
  const res = await admin.describeConfigs({
    resources: [{ type: ConfigResourceTypes.BROKER, name: '1' }],
    includeSynonyms: false,
  });
  const ro = new Map(res.resources[0]!.configEntries.map((c) => [c.configName, c.readOnly]));
  assert.deepEqual(
    [
      ro.get('advertised.listeners'),
      ro.get('listeners'),
      ro.get('max.decompressed.message.bytes'),
      ro.get('log.remote.copy.lag.ms'),
    ],
    [true, false, false, false],
  );
  assert.equal(ro.has('log.message.downconversion.enable'), false);
  assert.equal(ro.has('leader.imbalance.per.broker.percentage'), false);
  assert.equal(ro.has('security.inter.broker.protocol'), true);
  assert.equal(ro.has('connection.failed.authentication.delay.ms'), true);
});

test("validation messages are Kafka's, on stderr, exit 1", async () => {
  const fail = async (args: string[], message: string): Promise<void> => {
    assert.deepEqual(await tkafka(args), { code: 1, out: '', err: `${message}\n` }, args.join(' '));
  };
  await fail(
    ['--describe', '--entity-type', 'topics'],
    'Either --bootstrap-server or --bootstrap-controller must be specified.',
  );
  await fail(
    [...B(), '--describe', '--entity-type', 'foo'],
    'Invalid entity type foo, the entity type must be one of broker-loggers, topics, clients, users, brokers, ips, client-metrics, groups with a --bootstrap-server or --bootstrap-controller argument',
  );
  await fail([...B(), '--describe'], 'At least one entity type must be specified');
  // Kafka 4.4 removed --force: joptsimple's unknown-option line
  await fail([...B(), '--describe', '--entity-type', 'topics', '--force'], 'force is not a recognized option');
  await fail(
    [...B(), '--describe', '--entity-type', 'topics', '--entity-type', 'topics'],
    'Duplicate entity type(s) specified: topics',
  );
  await fail(
    [...B(), '--describe', '--topic', 'x', '--entity-default'],
    '--entity-{type,name,default} should not be used in conjunction with specific entity flags',
  );
  await fail(
    [...B(), '--describe', '--entity-type', 'brokers', '--entity-name', 'x'],
    'The entity name for brokers must be a valid integer broker id, but it is: x',
  );
  await fail(
    [...B(), '--alter', '--entity-type', 'topics', '--add-config', 'a=b'],
    'An entity name must be specified with --alter of topics',
  );
  await fail(
    [...B(), '--alter', '--topic', 't'],
    'At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter',
  );
  await fail(
    [...B(), '--alter', '--topic', 'orders', '--add-config', 'a'],
    'Invalid entity config: all configs to be added must be in the format "key=val" or  "key=[val1,val2]" to group values which contain commas.',
  );
  await fail(
    [...B(), '--alter', '--topic', 'orders', '--add-config', 'a#=b'],
    'Invalid character found for config key: a#',
  );
  const usage = await tkafka([...B(), '--describe', '--alter', '--topic', 'x']);
  assert.equal(usage.err.split('\n')[0], 'Command must include exactly one action: --describe, --alter');
  assert.match(usage.err.split('\n')[1]!, /^Option\s+Description/);
});

test("operation failures: Kafka's first two stderr lines, no stack trace", async () => {
  // Kafka 4.4 checks the topic exists first (4.0 failed with UnknownTopicOrPartitionException).
  const r = await tkafka([...B(), '--describe', '--entity-type', 'topics', '--entity-name', 'nope']);
  assert.deepEqual(r, { code: 0, out: "The topic 'nope' doesn't exist and doesn't have dynamic config.\n", err: '' });
  // Quotas (issue 18): set, described, removed, as kafka-configs.sh prints them.
  const set = (extra: string[]): Promise<{ code: number; out: string; err: string }> =>
    tkafka([...B(), '--alter', '--entity-type', 'clients', '--entity-name', 'c1', ...extra]);
  assert.deepEqual(await set(['--add-config', 'producer_byte_rate=1000']), {
    code: 0,
    out: 'Completed updating config for client c1.\n',
    err: '',
  });
  const d = await tkafka([...B(), '--describe', '--entity-type', 'clients', '--entity-name', 'c1']);
  assert.deepEqual(d, { code: 0, out: "Quota configs for client-id 'c1' are producer_byte_rate=1000.0\n", err: '' });
  assert.equal((await set(['--delete-config', 'producer_byte_rate'])).code, 0);
  const gone = await tkafka([...B(), '--describe', '--entity-type', 'clients', '--entity-name', 'c1']);
  assert.deepEqual(gone, { code: 0, out: '', err: '' });
});

test('groups: one that only has dynamic configs exists (ListConfigResources v1); an unknown one does not', async () => {
  const set = await tkafka([
    ...B(),
    '--alter',
    '--entity-type',
    'groups',
    '--entity-name',
    'cfg-only',
    '--add-config',
    'consumer.session.timeout.ms=50000',
  ]);
  assert.deepEqual([set.code, set.out], [0, 'Completed updating config for group cfg-only.\n']);
  // ConfigHelper.createGroupConfigEntry: the group's value, then its broker synonym (GroupConfig.brokerSynonym)
  const line =
    'consumer.session.timeout.ms=50000 sensitive=false synonyms={DYNAMIC_GROUP_CONFIG:consumer.session.timeout.ms=50000, DEFAULT_CONFIG:group.consumer.session.timeout.ms=45000}';
  const one = await tkafka([...B(), '--describe', '--entity-type', 'groups', '--entity-name', 'cfg-only']);
  assert.deepEqual([one.code, one.out], [0, `Dynamic configs for group cfg-only are:\n  ${line}\n`]);
  // listed among all groups though no member ever joined it (Kafka 4.4's ConfigCommand prints the same)
  const all = await tkafka([...B(), '--describe', '--entity-type', 'groups']);
  assert.equal(all.code, 0);
  assert.ok(all.out.includes(`Dynamic configs for group cfg-only are:\n  ${line}\n`), all.out);
  const none = await tkafka([...B(), '--describe', '--entity-type', 'groups', '--entity-name', 'nogroup']);
  assert.deepEqual([none.code, none.out], [0, "The group 'nogroup' doesn't exist and doesn't have dynamic config.\n"]);
});

test('replication throttle rates (DynamicConfig.Broker only): validated and described as Kafka 4.4 does', async () => {
  const ok = async (args: string[]): Promise<void> => {
    const r = await tkafka([...B(), '--alter', ...args]);
    assert.equal(r.code, 0, r.err);
  };
  await ok(['--broker', '1', '--add-config', 'leader.replication.throttled.rate=200000']);
  await ok([
    '--entity-type',
    'brokers',
    '--entity-default',
    '--add-config',
    'follower.replication.throttled.rate=300000',
  ]);
  const e = 'java.util.concurrent.ExecutionException: org.apache.kafka.common.errors.InvalidRequestException: ';
  const bad = await tkafka([
    ...B(),
    '--alter',
    '--broker',
    '1',
    '--add-config',
    'leader.replication.throttled.rate=abc',
  ]);
  assert.equal(bad.code, 1);
  assert.equal(
    bad.err.split('\n')[1],
    `${e}Invalid value abc for configuration leader.replication.throttled.rate: Not a number of type LONG`,
  );
  const neg = await tkafka([
    ...B(),
    '--alter',
    '--broker',
    '1',
    '--add-config',
    'replica.alter.log.dirs.io.max.bytes.per.second=-5',
  ]);
  assert.equal(neg.code, 1);
  assert.equal(
    neg.err.split('\n')[1],
    `${e}Invalid value -5 for configuration replica.alter.log.dirs.io.max.bytes.per.second: Value must be at least 0`,
  );
  const leader =
    '  leader.replication.throttled.rate=200000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:leader.replication.throttled.rate=200000}';
  const follower =
    '  follower.replication.throttled.rate=300000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:follower.replication.throttled.rate=300000}';
  const broker = (await tkafka([...B(), '--describe', '--broker', '1'])).out.split('\n');
  assert.ok(broker.includes(leader), broker.join('\n'));
  const dflt = (await tkafka([...B(), '--describe', '--entity-type', 'brokers', '--entity-default'])).out.split('\n');
  assert.ok(dflt.includes(follower), dflt.join('\n'));
  const all = (await tkafka([...B(), '--describe', '--broker', '1', '--all'])).out.split('\n');
  assert.ok(all.includes(leader) && all.includes(follower), all.join('\n'));
  assert.ok(!all.some((l) => l.includes('replica.alter.log.dirs.io.max.bytes.per.second')), 'listed only once set');
  await ok(['--broker', '1', '--delete-config', 'leader.replication.throttled.rate']);
  await ok(['--entity-type', 'brokers', '--entity-default', '--delete-config', 'follower.replication.throttled.rate']);
});
