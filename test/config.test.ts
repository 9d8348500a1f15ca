import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  parseProperties,
  parsePropertiesEntries,
  formatProperties,
  javaPropertiesOrder,
  javaDateString,
  PropertiesSyntaxError,
} from '../src/config/properties.js';
import { BROKER_CONFIGS, ConfigError, javaDoubleToString, parseType } from '../src/config/definitions.js';
import { loadServerConfig, parseOverrides, EMBEDDED_DEFAULT_CONFIG } from '../src/config/load.js';
import {
  effectiveTopicConfig,
  effectiveBrokerConfig,
  validateTopicConfigs,
  TOPIC_CONFIGS,
  CONFIG_SOURCE,
} from '../src/config/topic-configs.js';
import { metadataVersionFromString, LATEST_PRODUCTION } from '../src/config/features.js';

const KRAFT = {
  'process.roles': 'broker,controller',
  'node.id': '1',
  listeners: 'PLAINTEXT://:9092,CONTROLLER://:9093',
  'controller.listener.names': 'CONTROLLER',
  'controller.quorum.voters': '1@localhost:9093',
  'log.dirs': '/tmp/x',
};
const load = (extra: Record<string, string> = {}) => loadServerConfig({ properties: { ...KRAFT, ...extra } });
function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected ConfigError, got ${e}`);
    return e;
  }
  assert.fail('expected a ConfigError');
}

// ---------------------------------------------------------------- .properties

test('properties: comments, the three separators, leading whitespace, empty values', () => {
  const m = parseProperties(
    [
      '# comment',
      '! also a comment',
      '   # indented comment',
      '',
      '   ',
      'a=1',
      'b:2',
      'c 3',
      'd\t=\t4',
      '   e = 5',
      'f',
      'g=',
      'h = =6',
      'i   :  x:y=z',
    ].join('\n'),
  );
  assert.deepEqual(
    [...m],
    [
      ['a', '1'],
      ['b', '2'],
      ['c', '3'],
      ['d', '4'],
      ['e', '5'],
      ['f', ''],
      ['g', ''],
      ['h', '=6'],
      ['i', 'x:y=z'],
    ],
  );
});

test('properties: continuations, escapes, trailing whitespace kept, CRLF, last duplicate wins', () => {
  const text =
    'k1 = first \\\n     second\\\r\n   third\r\nk2=a\\\\\nk3=tab\\there\\nnl\\u0041\\\\u0042\nk\\=ey\\ x=v\nk1=again \n#c \\\nk4=after\nk5=\\\n';
  const entries = parsePropertiesEntries(text);
  assert.deepEqual(entries, [
    ['k1', 'first secondthird'],
    ['k2', 'a\\'],
    ['k3', 'tab\there\nnlA\\u0042'],
    ['k=ey x', 'v'],
    ['k1', 'again '],
    ['k4', 'after'],
    ['k5', ''],
  ]);
  assert.equal(parseProperties(text).get('k1'), 'again ');
  assert.throws(() => parseProperties('a=\\u12g4'), PropertiesSyntaxError);
});

test('properties: writer escapes like Properties.store and round-trips', () => {
  const entries: Array<[string, string]> = [
    ['a key', ' lead and: = # ! \\ \t'],
    ['k=v', 'x'],
    ['uni', 'é'],
  ];
  const text = formatProperties(entries, { comment: '', date: null, order: 'insertion' });
  assert.equal(text, '#\na\\ key=\\ lead and\\: \\= \\# \\! \\\\ \\t\nk\\=v=x\nuni=é\n');
  assert.deepEqual(parsePropertiesEntries(text), entries);
  assert.match(formatProperties(entries, { escapeUnicode: true, date: null }), /uni=\\u00E9/);
  assert.deepEqual(javaPropertiesOrder(['version', 'cluster.id', 'node.id', 'directory.id']), [
    'node.id',
    'directory.id',
    'version',
    'cluster.id',
  ]);
  assert.equal(javaDateString(new Date(Date.UTC(2024, 9, 25, 10, 0, 0)), 'UTC'), 'Fri Oct 25 10:00:00 UTC 2024');
});

// ---------------------------------------------------------------- broker config

test('embedded default configuration and derived values', () => {
  const { config, warnings, source } = loadServerConfig();
  assert.equal(source, 'embedded');
  assert.deepEqual(warnings, []);
  assert.deepEqual(config.processRoles, ['broker', 'controller']);
  assert.equal(config.nodeId, 1);
  assert.deepEqual(config.logDirs, ['./tkafka-data']);
  assert.equal(config.metadataLogDir, './tkafka-data');
  assert.deepEqual(config.listeners, [
    { listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port: 9092 },
    { listenerName: 'CONTROLLER', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port: 9093 },
  ]);
  assert.deepEqual(
    config.brokerListeners.map((l) => l.listenerName),
    ['PLAINTEXT'],
  );
  assert.deepEqual(
    config.controllerListeners.map((l) => l.port),
    [9093],
  );
  assert.deepEqual(
    config.effectiveAdvertisedBrokerListeners.map((l) => `${l.host}:${l.port}`),
    ['127.0.0.1:9092'],
  );
  assert.deepEqual(
    config.effectiveAdvertisedControllerListeners.map((l) => l.port),
    [9093],
  );
  assert.deepEqual(config.quorumVoters, [{ id: 1, host: '127.0.0.1', port: 9093 }]);
  assert.equal(config.interBrokerListenerName, 'PLAINTEXT');
  assert.equal(config.getInt('offsets.topic.replication.factor'), 1);
  assert.equal(config.getInt('transaction.state.log.min.isr'), 1);
  assert.equal(config.getInt('share.coordinator.state.topic.replication.factor'), 1);
  assert.equal(config.getInt('share.coordinator.state.topic.min.isr'), 1);
  assert.equal(EMBEDDED_DEFAULT_CONFIG.length, 14);
});

test('Kafka 4.0 defaults', () => {
  const { config } = load();
  assert.equal(config.getInt('num.partitions'), 1);
  assert.equal(config.getInt('log.segment.bytes'), 1073741824);
  assert.equal(config.getInt('message.max.bytes'), 1048588);
  assert.equal(config.getInt('socket.request.max.bytes'), 104857600);
  assert.equal(config.getLong('log.retention.check.interval.ms'), 300000n);
  assert.equal(config.getLong('log.flush.interval.messages'), 9223372036854775807n);
  assert.equal(config.getLong('log.message.timestamp.after.max.ms'), 3600000n);
  assert.deepEqual(config.getList('log.cleanup.policy'), ['delete']);
  assert.deepEqual(config.getList('group.coordinator.rebalance.protocols'), ['classic', 'consumer', 'streams']);
  assert.equal(config.getInt('offsets.topic.num.partitions'), 50);
  assert.equal(config.getInt('offsets.topic.replication.factor'), 3);
  assert.equal(config.getInt('transaction.state.log.min.isr'), 2);
  assert.equal(config.getInt('transaction.max.timeout.ms'), 900000);
  assert.equal(config.getInt('group.initial.rebalance.delay.ms'), 3000);
  assert.equal(config.getInt('fetch.max.bytes'), 57671680);
  assert.equal(config.getString('compression.type'), 'producer');
  assert.equal(config.getBoolean('auto.create.topics.enable'), true);
  assert.equal(config.getBoolean('unclean.leader.election.enable'), false);
  assert.equal(config.getBoolean('tkafka.request.log'), false);
  assert.equal(
    config.getString('listener.security.protocol.map'),
    'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT',
  );
  assert.equal(config.logRetentionMs, 604800000);
  assert.equal(config.logRollMs, 604800000);
  assert.equal(config.logRollJitterMs, 0);
  // KRaft: controller listeners default to PLAINTEXT when the map is not given.
  assert.equal(config.listenerSecurityProtocolMap.get('CONTROLLER'), 'PLAINTEXT');
  assert.equal(BROKER_CONFIGS.get('num.io.threads')?.informational, true);
  for (const key of BROKER_CONFIGS.values()) assert.ok(key.doc.length > 10, `${key.name} has documentation`);
});

test('invalid values throw ConfigError naming the key as Kafka does', () => {
  const cases: Array<[Record<string, string>, string, string]> = [
    [
      { 'num.partitions': '0' },
      'num.partitions',
      'Invalid value 0 for configuration num.partitions: Value must be at least 1',
    ],
    [{ 'node.id': 'abc' }, 'node.id', 'Invalid value abc for configuration node.id: Not a number of type INT'],
    [
      { 'log.retention.ms': '1.5' },
      'log.retention.ms',
      'Invalid value 1.5 for configuration log.retention.ms: Not a number of type LONG',
    ],
    [
      { 'log.cleanup.policy': 'delete,foo' },
      'log.cleanup.policy',
      'Invalid value foo for configuration log.cleanup.policy: String must be one of: compact, delete',
    ],
    [
      { 'log.message.timestamp.type': 'createtime' },
      'log.message.timestamp.type',
      'Invalid value createtime for configuration log.message.timestamp.type: String must be one of: CreateTime, LogAppendTime',
    ],
    [
      { 'auto.create.topics.enable': 'yes' },
      'auto.create.topics.enable',
      'Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false',
    ],
    [
      { 'log.cleaner.min.cleanable.ratio': '2' },
      'log.cleaner.min.cleanable.ratio',
      'Invalid value 2.0 for configuration log.cleaner.min.cleanable.ratio: Value must be no more than 1',
    ],
    [
      { 'log.segment.bytes': '1024' },
      'log.segment.bytes',
      'Invalid value 1024 for configuration log.segment.bytes: Value must be at least 1048576',
    ],
    [
      { 'compression.type': 'brotli' },
      'compression.type',
      'Invalid value brotli for configuration compression.type: String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer',
    ],
    [
      { 'message.max.bytes': '3000000000' },
      'message.max.bytes',
      'Invalid value 3000000000 for configuration message.max.bytes: Not a number of type INT',
    ],
    [
      { 'process.roles': 'broker,observer' },
      'process.roles',
      'Invalid value observer for configuration process.roles: String must be one of: broker, controller',
    ],
  ];
  for (const [extra, key, message] of cases) {
    const e = configError(() => load(extra));
    assert.equal(e.message, message);
    assert.equal(e.key, key);
  }
  const missing = configError(() => loadServerConfig({ properties: { 'node.id': '1' } }));
  assert.equal(missing.message, 'Missing required configuration "process.roles" which has no default value.');
});

test('KRaft startup validations', () => {
  const noListenerNames = configError(() =>
    loadServerConfig({ properties: { ...KRAFT, 'controller.listener.names': '' } }),
  );
  assert.match(noListenerNames.message, /No security protocol defined for listener CONTROLLER/);
  assert.equal(
    configError(() => load({ 'controller.quorum.voters': '2@localhost:9093' })).message,
    "requirement failed: If process.roles contains the 'controller' role, the node id 1 must be included in the set of voters controller.quorum.voters=Set(2)",
  );
  assert.equal(
    configError(() => load({ 'process.roles': 'broker', listeners: 'PLAINTEXT://:9092' })).message,
    "requirement failed: If process.roles contains just the 'broker' role, the node id 1 must not be included in the set of voters controller.quorum.voters=Set(1)",
  );
  assert.equal(
    configError(() => load({ 'controller.quorum.voters': '' })).message,
    'If using process.roles, either controller.quorum.bootstrap.servers must contain the set of bootstrap controllers or controller.quorum.voters must contain a parseable set of controllers.',
  );
  assert.equal(
    configError(() => load({ 'controller.quorum.voters': 'x@h:1' })).message,
    'Failed to parse voter ID as an integer from x',
  );
  assert.equal(
    configError(() => load({ 'log.retention.ms': '0' })).message,
    'requirement failed: log.retention.ms must be unlimited (-1) or, greater than or equal to 1',
  );
  assert.equal(
    configError(() => load({ 'broker.id': '2' })).message,
    'You must set `node.id` to the same value as `broker.id`.',
  );
  // KafkaConfig.validateCordonedLogDirs, then tkafka's refusal: cordoning is not implemented.
  assert.equal(
    configError(() => load({ 'log.dirs': '/a,/b', 'cordoned.log.dirs': '*,/a' })).message,
    'requirement failed: When cordoned.log.dirs is set to *, it must not contain other values',
  );
  assert.equal(
    configError(() => load({ 'log.dirs': '/a,/b', 'cordoned.log.dirs': '/a,/c,/d' })).message,
    'requirement failed: All entries in cordoned.log.dirs must be present in log.dirs or log.dir. Missing entries : /c,/d',
  );
  const cordoned = configError(() => load({ 'log.dirs': '/a,/b', 'cordoned.log.dirs': '/a' }));
  assert.equal(cordoned.key, 'cordoned.log.dirs');
  assert.match(cordoned.message, /cordoned\.log\.dirs is not supported by tkafka/);
  assert.doesNotThrow(() => load({ 'cordoned.log.dirs': '' }));
  assert.equal(
    configError(() => load({ listeners: 'PLAINTEXT://:9092,CONTROLLER://:9092' })).message,
    'requirement failed: Each listener must have a different port, listeners: PLAINTEXT://:9092,CONTROLLER://:9092',
  );
  assert.equal(
    configError(() => load({ 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' })).message,
    'requirement failed: advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address.',
  );
  // Kafka's key names (security.inter.broker.protocol, connection.failed.authentication.delay.ms).
  assert.equal(
    configError(() => load({ 'connection.failed.authentication.delay.ms': '500', 'connections.max.idle.ms': '500' }))
      .message,
    'requirement failed: connection.failed.authentication.delay.ms=500 should always be less than connections.max.idle.ms=500 to prevent failed authentication responses from timing out',
  );
  assert.equal(
    configError(() =>
      load({ 'inter.broker.listener.name': 'PLAINTEXT', 'security.inter.broker.protocol': 'PLAINTEXT' }),
    ).message,
    'Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.',
  );
  assert.deepEqual(load({ 'leader.imbalance.per.broker.percentage': '10' }).unknownKeys, [
    'leader.imbalance.per.broker.percentage',
  ]);
  // broker.id alone stands in for node.id
  assert.equal(
    loadServerConfig({ properties: { ...KRAFT, 'node.id': undefined as unknown as string, 'broker.id': '1' } }).config
      .nodeId,
    1,
  );
});

test('unknown keys are warnings; overrides follow kafka-server-start', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'tkafka-config-'));
  try {
    const file = join(dir, 'server.properties');
    await writeFile(
      file,
      Object.entries(KRAFT)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n') + '\nnum.partitions=3\nfoo.bar=1\n',
    );
    const { config, warnings, unknownKeys } = loadServerConfig({
      file,
      overrides: ['num.partitions=5', 'log.retention.minutes=10', 'zzz'],
    });
    assert.deepEqual(unknownKeys, ['foo.bar', 'zzz']);
    assert.deepEqual(warnings, ["These configurations '[foo.bar, zzz]' were supplied but are not used yet."]);
    assert.equal(config.getInt('num.partitions'), 5);
    assert.equal(config.logRetentionMs, 600000);
    assert.equal(config.originals.get('num.partitions'), '5');
    assert.deepEqual(
      [...parseOverrides(['a=b=c', 'k', 'e='])],
      [
        ['a', 'b=c'],
        ['k', ''],
        ['e', ''],
      ],
    );
    const notFound = configError(() => loadServerConfig({ file: join(dir, 'missing.properties') }));
    assert.equal(notFound.javaClass, 'java.nio.file.NoSuchFileException');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('retention and roll precedence (ms > minutes > hours)', () => {
  assert.equal(load({ 'log.retention.hours': '24' }).config.logRetentionMs, 86400000);
  assert.equal(load({ 'log.retention.hours': '24', 'log.retention.minutes': '30' }).config.logRetentionMs, 1800000);
  assert.equal(
    load({ 'log.retention.hours': '24', 'log.retention.minutes': '30', 'log.retention.ms': '500' }).config
      .logRetentionMs,
    500,
  );
  assert.equal(load({ 'log.retention.ms': '-1' }).config.logRetentionMs, -1);
  assert.equal(load({ 'log.retention.ms': '-5' }).config.logRetentionMs, -1);
  assert.equal(load({ 'log.roll.hours': '2' }).config.logRollMs, 7200000);
  assert.equal(load({ 'log.roll.hours': '2', 'log.roll.ms': '1000' }).config.logRollMs, 1000);
  assert.equal(load({ 'metadata.log.dir': '/tmp/meta' }).config.metadataLogDir, '/tmp/meta');
  assert.deepEqual(load({ 'log.dirs': ' /a , /b ,' }).config.logDirs, ['/a', '/b']);
  assert.deepEqual(
    loadServerConfig({ properties: { ...KRAFT, 'log.dirs': undefined as unknown as string } }).config.logDirs,
    ['/tmp/kafka-logs'],
  );
});

test('value parsing helpers match Java', () => {
  assert.equal(javaDoubleToString(0.5), '0.5');
  assert.equal(javaDoubleToString(1), '1.0');
  assert.equal(javaDoubleToString(Number.MAX_VALUE), '1.7976931348623157E308');
  assert.equal(javaDoubleToString(1e7), '1.0E7');
  assert.equal(parseType('x', ' +42 ', 'int'), 42);
  assert.deepEqual(parseType('x', 'a, b ,c', 'list'), ['a', 'b', 'c']);
  assert.deepEqual(parseType('x', '  ', 'list'), []);
  assert.equal(parseType('x', 'TRUE', 'boolean'), true);
  assert.equal(parseType('x', '1e3', 'double'), 1000);
  assert.equal(metadataVersionFromString('3.7').version, '3.7-IV4');
  assert.equal(metadataVersionFromString('4.0-IV0').level, 22);
  assert.equal(LATEST_PRODUCTION.version, '4.4-IV2');
  assert.throws(() => metadataVersionFromString('9.9'), /Version 9.9 is not a valid version/);
});

// ---------------------------------------------------------------- topic configs

test('topic configs: DescribeConfigs sources and synonyms', () => {
  const { config } = load({ 'log.segment.bytes': '2097152', 'log.retention.ms': '1000', 'log.retention.hours': '5' });
  const eff = effectiveTopicConfig(config, { 'cleanup.policy': 'compact', 'max.message.bytes': '2048' });
  const seg = eff.get('segment.bytes')!;
  assert.equal(seg.value, '2097152');
  assert.equal(seg.source, 'STATIC_BROKER_CONFIG');
  assert.deepEqual(seg.synonyms, [
    { name: 'log.segment.bytes', value: '2097152', source: 'STATIC_BROKER_CONFIG' },
    { name: 'log.segment.bytes', value: '1073741824', source: 'DEFAULT_CONFIG' },
  ]);
  const ret = eff.get('retention.ms')!;
  assert.equal(ret.value, '1000');
  assert.deepEqual(
    ret.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`),
    [
      'STATIC_BROKER_CONFIG:log.retention.ms=1000',
      'STATIC_BROKER_CONFIG:log.retention.hours=5',
      'DEFAULT_CONFIG:log.retention.hours=168',
    ],
  );
  const cp = eff.get('cleanup.policy')!;
  assert.equal(cp.source, 'DYNAMIC_TOPIC_CONFIG');
  assert.deepEqual(cp.synonyms[0], { name: 'cleanup.policy', value: 'compact', source: 'DYNAMIC_TOPIC_CONFIG' });
  assert.equal(cp.synonyms[1].name, 'log.cleanup.policy');
  assert.equal(eff.get('max.message.bytes')!.synonyms[1].name, 'message.max.bytes');
  const remote = eff.get('remote.storage.enable')!;
  assert.equal(remote.source, 'DEFAULT_CONFIG');
  assert.deepEqual(remote.synonyms, []);
  assert.equal(eff.get('min.cleanable.dirty.ratio')!.value, '0.5');
  assert.equal(eff.get('flush.ms')!.value, '9223372036854775807');
  assert.equal(CONFIG_SOURCE[cp.source], 1);
  assert.deepEqual(
    TOPIC_CONFIGS.get('retention.ms')!.synonyms.map((s) => s.name),
    ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
  );
  assert.deepEqual(
    TOPIC_CONFIGS.get('segment.ms')!.synonyms.map((s) => s.name),
    ['log.roll.ms', 'log.roll.hours'],
  );
  assert.equal(TOPIC_CONFIGS.has('message.format.version'), false);

  // ConfigHelper drops synonyms listed before the primary one: only log.retention.hours set → none.
  const hoursOnly = effectiveTopicConfig(load({ 'log.retention.hours': '24' }).config).get('retention.ms')!;
  assert.equal(hoursOnly.value, '86400000');
  assert.equal(hoursOnly.source, 'DEFAULT_CONFIG');
  assert.deepEqual(hoursOnly.synonyms, []);
});

test('topic configs: Kafka 4.4 keys with their defaults, types and broker synonyms', () => {
  const eff = effectiveTopicConfig(load({ 'log.remote.copy.lag.ms': '60000' }).config);
  const row = (k: string) => {
    const e = eff.get(k)!;
    return [e.value, e.type, e.source, e.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`).join(' ')];
  };
  assert.deepEqual(row('errors.deadletterqueue.group.enable'), ['false', 'boolean', 'DEFAULT_CONFIG', '']);
  assert.deepEqual(row('max.decompressed.message.bytes'), [
    '2147483639',
    'int',
    'DEFAULT_CONFIG',
    'DEFAULT_CONFIG:max.decompressed.message.bytes=2147483639',
  ]);
  assert.deepEqual(row('remote.copy.lag.bytes'), [
    '-1',
    'long',
    'DEFAULT_CONFIG',
    'DEFAULT_CONFIG:log.remote.copy.lag.bytes=-1',
  ]);
  assert.deepEqual(row('remote.copy.lag.ms'), [
    '60000',
    'long',
    'STATIC_BROKER_CONFIG',
    'STATIC_BROKER_CONFIG:log.remote.copy.lag.ms=60000 DEFAULT_CONFIG:log.remote.copy.lag.ms=0',
  ]);
  // Removed in Kafka 4: refused as unknown (topic) and no longer a broker key (only a warning at start-up).
  assert.equal(TOPIC_CONFIGS.has('message.downconversion.enable'), false);
  assert.equal(
    validateTopicConfigs({ 'message.downconversion.enable': 'false' }),
    'Unknown topic config name: message.downconversion.enable',
  );
  assert.deepEqual(load({ 'log.message.downconversion.enable': 'false' }).unknownKeys, [
    'log.message.downconversion.enable',
  ]);
  assert.equal(
    validateTopicConfigs({ 'max.decompressed.message.bytes': '0' }),
    'Invalid value 0 for configuration max.decompressed.message.bytes: Value must be at least 1',
  );
  assert.equal(
    validateTopicConfigs({ 'remote.copy.lag.ms': '-2' }),
    'Invalid value -2 for configuration remote.copy.lag.ms: Value must be at least -1',
  );
  assert.equal(
    validateTopicConfigs({ 'errors.deadletterqueue.group.enable': 'true', 'remote.copy.lag.bytes': '-1' }),
    null,
  );
});

test('topic configs: CreateTopics view (controller) with dynamic broker configs', () => {
  const { config } = load({ 'log.roll.hours': '2', 'log.retention.minutes': '240', 'log.roll.jitter.ms': '123' });
  const eff = effectiveTopicConfig(
    config,
    { 'index.interval.bytes': '9999999' },
    {
      flavor: 'createTopics',
      clusterDefault: { 'log.retention.ms': '10800000' },
      perBroker: { 'log.cleaner.delete.retention.ms': '34' },
    },
  );
  const pick = (k: string) => [eff.get(k)!.value, eff.get(k)!.source];
  assert.deepEqual(pick('cleanup.policy'), ['delete', 'DEFAULT_CONFIG']);
  assert.deepEqual(pick('retention.ms'), ['10800000', 'DYNAMIC_DEFAULT_BROKER_CONFIG']);
  assert.deepEqual(pick('delete.retention.ms'), ['34', 'DYNAMIC_BROKER_CONFIG']);
  assert.deepEqual(pick('segment.jitter.ms'), ['123', 'STATIC_BROKER_CONFIG']);
  assert.deepEqual(pick('segment.ms'), ['7200000', 'STATIC_BROKER_CONFIG']);
  assert.deepEqual(pick('index.interval.bytes'), ['9999999', 'DYNAMIC_TOPIC_CONFIG']);
  assert.deepEqual(eff.get('segment.ms')!.synonyms, []);
});

test('topic configs: validation messages', () => {
  assert.equal(validateTopicConfigs({ 'retention.ms': '1000', 'cleanup.policy': 'compact,delete' }), null);
  assert.equal(validateTopicConfigs({ foo: '1' }), 'Unknown topic config name: foo');
  assert.equal(
    validateTopicConfigs({ 'retention.ms': 'abc' }),
    'Invalid value abc for configuration retention.ms: Not a number of type LONG',
  );
  assert.equal(
    validateTopicConfigs({ 'retention.ms': '-2' }),
    'Invalid value -2 for configuration retention.ms: Value must be at least -1',
  );
  assert.equal(
    validateTopicConfigs({ 'cleanup.policy': 'compact,x' }),
    'Invalid value x for configuration cleanup.policy: String must be one of: compact, delete',
  );
  assert.equal(
    validateTopicConfigs({ 'min.cleanable.dirty.ratio': '1.5' }),
    'Invalid value 1.5 for configuration min.cleanable.dirty.ratio: Value must be no more than 1',
  );
  assert.equal(
    validateTopicConfigs({ 'message.timestamp.type': 'Other' }),
    'Invalid value Other for configuration message.timestamp.type: String must be one of: CreateTime, LogAppendTime',
  );
  assert.equal(
    validateTopicConfigs({ 'segment.bytes': '100' }),
    'Invalid value 100 for configuration segment.bytes: Value must be at least 1048576',
  );
  assert.equal(
    validateTopicConfigs({ 'min.compaction.lag.ms': '10', 'max.compaction.lag.ms': '5' }),
    'conflict topic config setting min.compaction.lag.ms (10) > max.compaction.lag.ms (5)',
  );
  assert.equal(
    validateTopicConfigs({ 'retention.ms': null }),
    'Null value not supported for topic configs: retention.ms',
  );
  assert.equal(
    validateTopicConfigs({ 'remote.storage.enable': 'true' }),
    'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.',
  );
  assert.match(
    validateTopicConfigs({ 'leader.replication.throttled.replicas': '0:1,x' })!,
    /must be the literal '\*' or a list of replicas/,
  );
  assert.equal(validateTopicConfigs({ 'leader.replication.throttled.replicas': '*' }), null);
});

test('broker configs: DescribeConfigs entries with synonyms (DynamicBrokerReconfigurationTest shape)', () => {
  const { config } = load({ 'log.retention.ms': '1680000000', 'log.retention.hours': '168' });
  const eff = effectiveBrokerConfig(config);
  const syn = (k: string) => eff.get(k)!.synonyms.map((s) => `${s.name}:${s.source}`);
  assert.deepEqual(syn('log.retention.ms'), [
    'log.retention.ms:STATIC_BROKER_CONFIG',
    'log.retention.hours:STATIC_BROKER_CONFIG',
    'log.retention.hours:DEFAULT_CONFIG',
  ]);
  assert.deepEqual(syn('log.retention.hours'), [
    'log.retention.hours:STATIC_BROKER_CONFIG',
    'log.retention.hours:DEFAULT_CONFIG',
  ]);
  assert.deepEqual(syn('log.roll.hours'), ['log.roll.hours:DEFAULT_CONFIG']);
  assert.deepEqual(syn('log.cleaner.threads'), ['log.cleaner.threads:DEFAULT_CONFIG']);
  assert.equal(eff.get('log.retention.ms')!.readOnly, false);
  assert.equal(eff.get('log.retention.hours')!.readOnly, true);
  assert.equal(eff.get('unstable.api.versions.enable'), undefined, 'internal keys are not described');
  const dyn = effectiveBrokerConfig(config, { clusterDefault: { 'log.cleaner.threads': '2' } }, false);
  assert.equal(dyn.get('log.cleaner.threads')!.value, '2');
  assert.equal(dyn.get('log.cleaner.threads')!.source, 'DYNAMIC_DEFAULT_BROKER_CONFIG');
  assert.equal(dyn.get('log.retention.ms')!.source, 'DEFAULT_CONFIG');
});

// UTC zones are formatted without Intl (README, Memory): the same text as through it
test('javaDateString: a UTC zone without Intl, as with it', () => {
  const date = new Date(Date.UTC(2026, 0, 4, 3, 5, 9));
  for (const zone of ['UTC', 'Etc/UTC', 'GMT'])
    assert.equal(javaDateString(date, zone), 'Sun Jan 04 03:05:09 UTC 2026');
  // another zone goes through Intl
  assert.match(javaDateString(date, 'Asia/Tokyo'), /^Sun Jan 04 12:05:09 \S+ 2026$/);
});
