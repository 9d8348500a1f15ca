// The broker's group.streams.* keys (Kafka 4.4's GroupCoordinatorConfig, KIP-1071): defined with Kafka's
// types, defaults, validators and importance; read by the group coordinator's configuration; checked with
// GroupCoordinatorConfig.verifyStreamsGroupConfigs' cross-key rules and messages; classified for start-up.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  BROKER_CONFIGS,
  ConfigError,
  NO_DEFAULT,
  convertToString,
  type ConfigValue,
} from '../src/config/definitions.js';
import { loadServerConfig, EMBEDDED_DEFAULT_CONFIG } from '../src/config/load.js';
import { checkConfigSupport, keySupport } from '../src/config/support.js';
import { DEFAULT_GROUP_CONFIG, groupConfigFrom } from '../src/broker/group/config.js';

const withDefaults = (extra: Record<string, string>): Map<string, string> =>
  new Map([...EMBEDDED_DEFAULT_CONFIG.map(([k, v]) => [k, v] as [string, string]), ...Object.entries(extra)]);

const load = (extra: Record<string, string>) => loadServerConfig({ properties: withDefaults(extra) }).config;

function refused(extra: Record<string, string>): ConfigError {
  try {
    load(extra);
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e;
  }
  assert.fail(`no error for ${JSON.stringify(extra)}`);
}

// name, type, default (as Kafka's ConfigDef renders it), valid values, importance, internal — from
// `javap -c -constants org.apache.kafka.coordinator.group.GroupCoordinatorConfig` (Kafka 4.4.0)
const KAFKA_44: [string, string, string | null, string, string, boolean][] = [
  ['group.streams.session.timeout.ms', 'int', '45000', '[1,...]', 'medium', false],
  ['group.streams.min.session.timeout.ms', 'int', '45000', '[1,...]', 'medium', false],
  ['group.streams.max.session.timeout.ms', 'int', '60000', '[1,...]', 'medium', false],
  ['group.streams.heartbeat.interval.ms', 'int', '5000', '[1,...]', 'medium', false],
  ['group.streams.min.heartbeat.interval.ms', 'int', '5000', '[1,...]', 'medium', false],
  ['group.streams.max.heartbeat.interval.ms', 'int', '15000', '[1,...]', 'medium', false],
  ['group.streams.max.size', 'int', '2147483647', '[1,...]', 'medium', false],
  ['group.streams.num.standby.replicas', 'int', '0', '[0,...]', 'medium', false],
  ['group.streams.max.standby.replicas', 'int', '2', '[0,...]', 'medium', false],
  ['group.streams.initial.rebalance.delay.ms', 'int', '3000', '[0,...]', 'medium', false],
  ['group.streams.assignment.interval.ms', 'int', '1000', '[0,...]', 'medium', false],
  ['group.streams.min.assignment.interval.ms', 'int', '0', '[0,...]', 'medium', false],
  ['group.streams.max.assignment.interval.ms', 'int', '15000', '[0,...]', 'medium', false],
  ['group.streams.assignors', 'list', 'sticky', '', 'medium', false],
  ['group.streams.assignor.offload.enable', 'boolean', 'true', '', 'medium', true],
  ['group.streams.task.offset.interval.ms', 'int', '60000', '[1,...]', 'medium', true],
  ['group.streams.min.task.offset.interval.ms', 'int', '15000', '[1,...]', 'medium', true],
  ['group.streams.num.warmup.replicas', 'int', '2', '[0,...]', 'medium', true],
  ['group.streams.max.warmup.replicas', 'int', '20', '[0,...]', 'medium', true],
  ['group.streams.rack.aware.assignment.tags', 'list', '', '', 'low', false],
  ['group.streams.topology.description.plugin.class', 'class', null, '', 'medium', false],
  ['group.streams.acceptable.recovery.lag', 'long', '10000', '[0,...]', 'medium', true],
];

test('group.streams.* keys: Kafka 4.4 names, types, defaults, validators, importance', () => {
  const defined = [...BROKER_CONFIGS.keys()].filter((n) => n.startsWith('group.streams.'));
  assert.deepEqual(
    defined,
    KAFKA_44.map(([n]) => n),
    'the same keys, in CONFIG_DEF order',
  );
  for (const [name, type, dflt, valid, importance, internal] of KAFKA_44) {
    const k = BROKER_CONFIGS.get(name)!;
    assert.equal(k.type, type, name);
    assert.notEqual(k.default, NO_DEFAULT, name);
    assert.equal(convertToString(k.default as ConfigValue, k.type), dflt, name);
    assert.equal(k.validator?.text ?? '', valid, name);
    assert.equal(k.importance, importance, name);
    assert.equal(k.internal === true, internal, name);
    assert.ok(k.doc.length > 20, `${name} has Kafka's documentation`);
  }
});

test('the group coordinator reads them (a LONG and a LIST too)', () => {
  const d = groupConfigFrom(load({}));
  for (const k of Object.keys(DEFAULT_GROUP_CONFIG).filter((k) => k.startsWith('streams')))
    assert.equal(d[k as keyof typeof d], DEFAULT_GROUP_CONFIG[k as keyof typeof d], k);
  const c = groupConfigFrom(
    load({
      'group.streams.session.timeout.ms': '50000',
      'group.streams.num.standby.replicas': '1',
      'group.streams.acceptable.recovery.lag': '500',
      'group.streams.rack.aware.assignment.tags': 'zone, rack',
      'group.streams.max.size': '3',
    }),
  );
  assert.equal(c.streamsSessionTimeoutMs, 50000);
  assert.equal(c.streamsNumStandbyReplicas, 1);
  assert.equal(c.streamsAcceptableRecoveryLag, 500);
  assert.equal(c.streamsRackAwareAssignmentTags, 'zone,rack');
  assert.equal(c.streamsMaxSize, 3);
});

test('verifyStreamsGroupConfigs: cross-key rules with Kafka 4.4 messages', () => {
  const cases: [Record<string, string>, string][] = [
    [
      { 'group.streams.min.heartbeat.interval.ms': '16000' },
      'group.streams.max.heartbeat.interval.ms must be greater than or equal to group.streams.min.heartbeat.interval.ms',
    ],
    [
      { 'group.streams.heartbeat.interval.ms': '20000' },
      'group.streams.heartbeat.interval.ms must be less than or equal to group.streams.max.heartbeat.interval.ms',
    ],
    [
      { 'group.streams.session.timeout.ms': '40000' },
      'group.streams.session.timeout.ms must be greater than or equal to group.streams.min.session.timeout.ms',
    ],
    [
      {
        'group.streams.min.session.timeout.ms': '1000',
        'group.streams.session.timeout.ms': '5000',
      },
      'group.streams.heartbeat.interval.ms must be less than group.streams.session.timeout.ms',
    ],
    [
      { 'group.streams.assignment.interval.ms': '20000' },
      'group.streams.assignment.interval.ms must be less than or equal to group.streams.max.assignment.interval.ms',
    ],
    [
      { 'group.streams.num.standby.replicas': '3' },
      'group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas',
    ],
    [
      { 'group.streams.task.offset.interval.ms': '1000' },
      'group.streams.task.offset.interval.ms must be greater than or equal to group.streams.min.task.offset.interval.ms',
    ],
    [
      { 'group.streams.num.warmup.replicas': '21' },
      'group.streams.num.warmup.replicas must be less than or equal to group.streams.max.warmup.replicas',
    ],
  ];
  for (const [extra, message] of cases) {
    const e = refused(extra);
    assert.equal(e.message, message, JSON.stringify(extra));
    assert.equal(e.javaClass, 'java.lang.IllegalArgumentException');
  }
  // the lists: ValidList.anyNonDuplicateValues
  assert.equal(
    refused({ 'group.streams.rack.aware.assignment.tags': 'zone,zone' }).message,
    "Configuration 'group.streams.rack.aware.assignment.tags' values must not be duplicated.",
  );
  assert.equal(
    refused({ 'group.streams.assignors': '' }).message,
    "Configuration 'group.streams.assignors' must not be empty. Valid values include: any non-empty value",
  );
  assert.equal(
    refused({ 'group.streams.acceptable.recovery.lag': '-1' }).message,
    'Invalid value -1 for configuration group.streams.acceptable.recovery.lag: Value must be at least 0',
  );
  // the bounds are inclusive: equal values pass
  load({ 'group.streams.num.standby.replicas': '2', 'group.streams.heartbeat.interval.ms': '15000' });
});

test('start-up: the assignors and the topology plugin are refused when set, the offload flag warned about', () => {
  const support = (extra: Record<string, string>) => checkConfigSupport(load(extra));
  const e = (() => {
    try {
      support({ 'group.streams.assignors': 'org.example.MyAssignor' });
    } catch (err) {
      return err as ConfigError;
    }
    assert.fail('group.streams.assignors was not refused');
  })();
  assert.equal(e.key, 'group.streams.assignors');
  assert.throws(
    () => support({ 'group.streams.topology.description.plugin.class': 'org.example.Plugin' }),
    (err: ConfigError) => err.key === 'group.streams.topology.description.plugin.class',
  );
  assert.deepEqual(support({ 'group.streams.assignors': 'sticky' }), [], "Kafka's default is accepted");
  assert.deepEqual(support({ 'group.streams.assignor.offload.enable': 'false' }), [
    'group.streams.assignor.offload.enable=false is not supported by tkafka and is ignored: streams group assignments are computed on the event loop (see docs/config-support.md)',
  ]);
  for (const k of ['group.streams.num.standby.replicas', 'group.streams.acceptable.recovery.lag'])
    assert.equal(keySupport(k)?.status, 'honoured', k);
});
