// Topic-level configurations (Kafka's LogConfig): definitions with their broker synonyms
// (ServerTopicConfigSynonyms, highest priority first), the effective value/source/synonyms of each
// key for DescribeConfigs and CreateTopics, and validation with Kafka's INVALID_CONFIG messages.
import {
  type ConfigKey,
  type ConfigType,
  type ConfigValue,
  type Validator,
  ConfigError,
  LONG_MAX,
  INT_MAX,
  atLeast,
  between,
  validString,
  validList,
  gzipLevel,
  lambda,
  indexKeys,
  invalidValue,
  parseConfigValue,
  convertToString,
  javaValueString,
  BROKER_CONFIGS,
  brokerConfigSynonyms,
  COMPRESSION_TYPES,
  DEFAULT_SEGMENT_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  SEGMENT_BYTES_MIN,
} from './definitions.js';
import { javaPropertiesOrder } from './properties.js';

/** A broker synonym of a topic config and how its value converts to the topic unit. */
export interface TopicSynonym {
  name: string;
  /** Multiply the broker value by this to get the topic value (hours → ms: 3600000). */
  factor?: number;
}

export interface TopicConfigKey extends ConfigKey {
  /** Broker configs that supply the default, highest priority first; empty if none. */
  synonyms: readonly TopicSynonym[];
}

/** DescribeConfigs ConfigSource (the wire ids of DescribeConfigsResponse). */
export const CONFIG_SOURCE = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  CLIENT_METRICS_CONFIG: 7,
  GROUP_CONFIG: 8,
} as const;
export type ConfigSourceName = keyof typeof CONFIG_SOURCE;

/** DescribeConfigsResponse ConfigType ids. */
export const CONFIG_TYPE_ID: Record<ConfigType, number> = {
  boolean: 1,
  string: 2,
  int: 3,
  short: 4,
  long: 5,
  double: 6,
  list: 7,
  class: 8,
  password: 9,
};

const HOURS = 3600000;
const MINUTES = 60000;
const WEEK_MS = 7 * 24 * HOURS;

const throttledReplicas = lambda('[partitionId]:[brokerId],[partitionId]:[brokerId],...', (name, value) => {
  const proposed = (value as string[]).map((s) => s.trim());
  if (!(proposed.every((s) => /^([0-9]+:[0-9]+)?$/.test(s)) || proposed.join('') === '*')) {
    throw invalidValue(
      name,
      javaValueString(value),
      `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`,
    );
  }
});

function t(
  name: string,
  type: ConfigType,
  dflt: ConfigValue,
  validator: Validator | null,
  doc: string,
  synonyms: Array<string | TopicSynonym>,
  importance: ConfigKey['importance'] = 'medium',
): TopicConfigKey {
  return {
    name,
    type,
    default: dflt,
    ...(validator ? { validator } : {}),
    importance,
    doc,
    synonyms: synonyms.map((s) => (typeof s === 'string' ? { name: s } : s)),
  };
}

/** LogConfig's keys in its definition order (Kafka 4.4: no message.format.version nor message.downconversion.enable). */
export const TOPIC_CONFIG_KEYS: readonly TopicConfigKey[] = [
  t(
    'segment.bytes',
    'int',
    DEFAULT_SEGMENT_BYTES,
    atLeast(SEGMENT_BYTES_MIN),
    'Segment file size of the log; retention and cleaning work a segment at a time.',
    ['log.segment.bytes'],
  ),
  t(
    'segment.ms',
    'long',
    BigInt(WEEK_MS),
    atLeast(1),
    'Time after which a segment is rolled even if not full, so retention can delete or compact old data.',
    ['log.roll.ms', { name: 'log.roll.hours', factor: HOURS }],
  ),
  t(
    'segment.jitter.ms',
    'long',
    0n,
    atLeast(0),
    'Maximum random jitter subtracted from segment.ms to avoid thundering herds of segment rolling.',
    ['log.roll.jitter.ms', { name: 'log.roll.jitter.hours', factor: HOURS }],
  ),
  t('segment.index.bytes', 'int', 10485760, atLeast(4), 'Size of the index mapping offsets to file positions.', [
    'log.index.size.max.bytes',
  ]),
  t(
    'flush.messages',
    'long',
    LONG_MAX,
    atLeast(1),
    'Number of messages written to a partition between forced fsyncs.',
    ['log.flush.interval.messages'],
  ),
  t('flush.ms', 'long', LONG_MAX, atLeast(0), 'Time between forced fsyncs of data written to the log.', [
    'log.flush.interval.ms',
    'log.flush.scheduler.interval.ms',
  ]),
  t(
    'retention.bytes',
    'long',
    -1n,
    null,
    "Maximum size a partition can grow to before old segments are discarded under the 'delete' policy; -1 means no limit.",
    ['log.retention.bytes'],
  ),
  t(
    'retention.ms',
    'long',
    BigInt(WEEK_MS),
    atLeast(-1),
    "How long a log is kept before old segments are discarded under the 'delete' policy; -1 means no limit.",
    [
      'log.retention.ms',
      { name: 'log.retention.minutes', factor: MINUTES },
      { name: 'log.retention.hours', factor: HOURS },
    ],
  ),
  t(
    'max.message.bytes',
    'int',
    DEFAULT_MAX_MESSAGE_BYTES,
    atLeast(0),
    'Largest record batch size allowed (after compression).',
    ['message.max.bytes'],
  ),
  t(
    'max.decompressed.message.bytes',
    'int',
    INT_MAX - 8,
    between(1, INT_MAX - 8),
    'Largest decompressed size of a single record of a compressed batch (checked by produce validation).',
    ['max.decompressed.message.bytes'],
  ),
  t('index.interval.bytes', 'int', 4096, atLeast(0), 'How often an entry is added to the offset index.', [
    'log.index.interval.bytes',
  ]),
  t(
    'delete.retention.ms',
    'long',
    86400000n,
    atLeast(0),
    'How long delete tombstones are retained on compacted topics.',
    ['log.cleaner.delete.retention.ms'],
  ),
  t('min.compaction.lag.ms', 'long', 0n, atLeast(0), 'Minimum time a message stays uncompacted in the log.', [
    'log.cleaner.min.compaction.lag.ms',
  ]),
  t('max.compaction.lag.ms', 'long', LONG_MAX, atLeast(1), 'Maximum time a message stays ineligible for compaction.', [
    'log.cleaner.max.compaction.lag.ms',
  ]),
  t('file.delete.delay.ms', 'long', 60000n, atLeast(0), 'Time to wait before deleting a file from the filesystem.', [
    'log.segment.delete.delay.ms',
  ]),
  t(
    'min.cleanable.dirty.ratio',
    'double',
    0.5,
    between(0, 1),
    'Minimum ratio of dirty log to total log for the log to be eligible for compaction.',
    ['log.cleaner.min.cleanable.ratio'],
  ),
  t(
    'cleanup.policy',
    'list',
    ['delete'],
    validList('compact', 'delete'),
    "Retention policy for old segments: 'delete', 'compact', or both.",
    ['log.cleanup.policy'],
  ),
  t(
    'unclean.leader.election.enable',
    'boolean',
    false,
    null,
    'Allow replicas outside the ISR to be elected leader as a last resort, even though it may lose data.',
    ['unclean.leader.election.enable'],
  ),
  t(
    'min.insync.replicas',
    'int',
    1,
    atLeast(1),
    'Minimum number of replicas that must acknowledge an acks=all write.',
    ['min.insync.replicas'],
  ),
  t(
    'compression.type',
    'string',
    'producer',
    validString(...COMPRESSION_TYPES),
    "Final compression of the topic's data; 'producer' keeps the producer's codec.",
    ['compression.type'],
  ),
  t('compression.gzip.level', 'int', -1, gzipLevel, "Compression level when compression.type is 'gzip'.", [
    'compression.gzip.level',
  ]),
  t('compression.lz4.level', 'int', 9, between(1, 17), "Compression level when compression.type is 'lz4'.", [
    'compression.lz4.level',
  ]),
  t('compression.zstd.level', 'int', 3, between(-131072, 22), "Compression level when compression.type is 'zstd'.", [
    'compression.zstd.level',
  ]),
  t('preallocate', 'boolean', false, null, 'Preallocate the file on disk when creating a new segment.', [
    'log.preallocate',
  ]),
  t(
    'message.timestamp.type',
    'string',
    'CreateTime',
    validString('CreateTime', 'LogAppendTime'),
    'Whether record timestamps are the producer create time or the broker append time.',
    ['log.message.timestamp.type'],
  ),
  t(
    'message.timestamp.before.max.ms',
    'long',
    LONG_MAX,
    atLeast(0),
    'With CreateTime, how far a record timestamp may lie before the broker time.',
    ['log.message.timestamp.before.max.ms'],
  ),
  t(
    'message.timestamp.after.max.ms',
    'long',
    3600000n,
    atLeast(0),
    'With CreateTime, how far a record timestamp may lie after the broker time.',
    ['log.message.timestamp.after.max.ms'],
  ),
  t(
    'leader.replication.throttled.replicas',
    'list',
    [],
    throttledReplicas,
    "Replicas throttled on the leader side, as partitionId:brokerId pairs or '*'.",
    [],
  ),
  t(
    'follower.replication.throttled.replicas',
    'list',
    [],
    throttledReplicas,
    "Replicas throttled on the follower side, as partitionId:brokerId pairs or '*'.",
    [],
  ),
  t(
    'remote.storage.enable',
    'boolean',
    false,
    null,
    'Enable tiered storage for the topic (not supported by tkafka).',
    [],
  ),
  t('local.retention.ms', 'long', -2n, atLeast(-2), 'Local retention with tiered storage; -2 means retention.ms.', [
    'log.local.retention.ms',
  ]),
  t(
    'local.retention.bytes',
    'long',
    -2n,
    atLeast(-2),
    'Local retention size with tiered storage; -2 means retention.bytes.',
    ['log.local.retention.bytes'],
  ),
  t(
    'remote.copy.lag.bytes',
    'long',
    -1n,
    atLeast(-1),
    'Bytes of newer local data after which a segment may be copied to remote storage; -1 derives it from local retention.',
    ['log.remote.copy.lag.bytes'],
  ),
  t(
    'remote.copy.lag.ms',
    'long',
    0n,
    atLeast(-1),
    'Time after its latest record before a segment may be copied to remote storage; -1 derives it from local retention.',
    ['log.remote.copy.lag.ms'],
  ),
  t(
    'remote.log.copy.disable',
    'boolean',
    false,
    null,
    'Stop copying segments to remote storage while keeping remote reads.',
    [],
  ),
  t(
    'remote.log.delete.on.disable',
    'boolean',
    false,
    null,
    'Delete remote data when tiered storage is disabled for the topic.',
    [],
  ),
  t(
    'errors.deadletterqueue.group.enable',
    'boolean',
    false,
    null,
    'Allow share groups to use this topic as a dead-letter queue (share groups are not supported by tkafka).',
    [],
  ),
];

export const TOPIC_CONFIGS: ReadonlyMap<string, TopicConfigKey> = indexKeys(TOPIC_CONFIG_KEYS) as ReadonlyMap<
  string,
  TopicConfigKey
>;

/** Topic config → its highest-priority broker synonym (ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS). */
export function topicConfigServerSynonym(name: string): string | undefined {
  return TOPIC_CONFIGS.get(name)?.synonyms[0]?.name;
}

type StringMap = ReadonlyMap<string, string> | Readonly<Record<string, string>>;
const toMap = (m: StringMap | undefined): Map<string, string> =>
  m === undefined ? new Map() : m instanceof Map ? new Map(m) : new Map(Object.entries(m));

/** What effectiveTopicConfig needs from the broker: its static configuration as written. */
export interface BrokerConfigSource {
  /** Static configuration (server.properties plus --override), values as written. */
  readonly originals: StringMap;
}

export interface DynamicBrokerConfigs {
  /** Dynamic configs of this broker (ConfigResource BROKER "<id>"). */
  perBroker?: StringMap;
  /** Cluster-wide dynamic broker defaults (ConfigResource BROKER ""). */
  clusterDefault?: StringMap;
}

export interface ConfigSynonymEntry {
  name: string;
  value: string | null;
  source: ConfigSourceName;
}

export interface EffectiveConfigEntry {
  name: string;
  /** The value as DescribeConfigs reports it (null when sensitive or unset). */
  value: string | null;
  parsed: ConfigValue;
  source: ConfigSourceName;
  synonyms: ConfigSynonymEntry[];
  type: ConfigType;
  isSensitive: boolean;
  readOnly: boolean;
  documentation: string;
}

/** Parse a broker key from a string map (default when absent). */
function brokerValue(merged: Map<string, string>, name: string): ConfigValue {
  const key = BROKER_CONFIGS.get(name);
  if (!key) throw new Error(`unknown broker config ${name}`);
  return parseConfigValue(key, merged.get(name));
}

/**
 * KafkaConfig.extractLogConfigMap: the topic-level defaults a broker configuration implies
 * (e.g. retention.ms from log.retention.ms > log.retention.minutes > log.retention.hours).
 */
export function brokerTopicDefaults(merged: Map<string, string>): Map<string, ConfigValue> {
  const out = new Map<string, ConfigValue>();
  for (const key of TOPIC_CONFIG_KEYS) {
    if (key.synonyms.length === 0) {
      out.set(key.name, key.default as ConfigValue);
      continue;
    }
    let value: ConfigValue = null;
    for (const syn of key.synonyms) {
      const v = brokerValue(merged, syn.name);
      if (v !== null) {
        value = syn.factor ? BigInt(syn.factor) * BigInt(v as number | bigint) : v;
        break;
      }
    }
    if (key.name === 'retention.ms' && typeof value === 'bigint' && value < 0n) value = -1n;
    if (key.type === 'long' && typeof value === 'number') value = BigInt(value);
    out.set(key.name, value);
  }
  return out;
}

function mergedBrokerConfig(broker: BrokerConfigSource, dyn: DynamicBrokerConfigs): Map<string, string> {
  return new Map([...toMap(broker.originals), ...toMap(dyn.clusterDefault), ...toMap(dyn.perBroker)]);
}

let defaultStrings: Map<string, string> | undefined;
/** KafkaConfig.defaultValues as strings (keys whose default is null are absent). */
function brokerDefaultStrings(): Map<string, string> {
  if (defaultStrings) return defaultStrings;
  const out = new Map<string, string>();
  for (const key of BROKER_CONFIGS.values()) {
    if (typeof key.default === 'symbol' || key.default === null) continue;
    const s = convertToString(key.default, key.type);
    if (s !== null) out.set(key.name, s);
  }
  defaultStrings = out;
  return out;
}

/**
 * ConfigHelper.configSynonyms: synonyms found in dynamic per-broker, dynamic default, static and
 * default configs, in that order, dropping entries before the first one named `name`.
 */
export function brokerSynonymEntries(
  name: string,
  broker: BrokerConfigSource,
  dyn: DynamicBrokerConfigs = {},
  sensitive = false,
): ConfigSynonymEntry[] {
  const names = brokerConfigSynonyms(name);
  const sources: Array<[Map<string, string>, ConfigSourceName]> = [
    [toMap(dyn.perBroker), 'DYNAMIC_BROKER_CONFIG'],
    [toMap(dyn.clusterDefault), 'DYNAMIC_DEFAULT_BROKER_CONFIG'],
    [toMap(broker.originals), 'STATIC_BROKER_CONFIG'],
    [brokerDefaultStrings(), 'DEFAULT_CONFIG'],
  ];
  const all: ConfigSynonymEntry[] = [];
  for (const [map, source] of sources) {
    for (const n of names) {
      const v = map.get(n);
      if (v !== undefined) all.push({ name: n, value: sensitive ? null : v, source });
    }
  }
  const first = all.findIndex((s) => s.name === name);
  return first < 0 ? [] : all.slice(first);
}

export interface EffectiveTopicConfigOptions extends DynamicBrokerConfigs {
  /**
   * 'describeConfigs' (default): the broker's DescribeConfigs view (ConfigHelper), with synonyms.
   * 'createTopics': the controller's CreateTopics view (KafkaConfigSchema): the first synonym that
   * is set wins, converted to the topic unit, and no synonyms are listed.
   */
  flavor?: 'describeConfigs' | 'createTopics';
}

/** Value, source and synonyms of every topic config for a topic with the given overrides. */
export function effectiveTopicConfig(
  broker: BrokerConfigSource,
  topicOverrides: StringMap = {},
  opts: EffectiveTopicConfigOptions = {},
): Map<string, EffectiveConfigEntry> {
  const overrides = toMap(topicOverrides);
  const merged = mergedBrokerConfig(broker, opts);
  const defaults = brokerTopicDefaults(merged);
  const result = new Map<string, EffectiveConfigEntry>();
  for (const key of TOPIC_CONFIG_KEYS) {
    const isSensitive = key.type === 'password';
    const base = { name: key.name, type: key.type, isSensitive, readOnly: false, documentation: key.doc };
    const raw = overrides.get(key.name);
    if (opts.flavor === 'createTopics') {
      const found =
        raw !== undefined
          ? { source: 'DYNAMIC_TOPIC_CONFIG' as const, v: raw, f: 1 }
          : findSynonym(key, [
              [toMap(opts.perBroker), 'DYNAMIC_BROKER_CONFIG'],
              [toMap(opts.clusterDefault), 'DYNAMIC_DEFAULT_BROKER_CONFIG'],
              [toMap(broker.originals), 'STATIC_BROKER_CONFIG'],
            ]);
      const str = found
        ? found.f === 1
          ? found.v
          : String(BigInt(found.v.trim()) * BigInt(found.f))
        : convertToString(key.default as ConfigValue, key.type);
      const parsed = str === null ? null : parseConfigValue(key, str);
      result.set(key.name, {
        ...base,
        value: isSensitive ? null : str,
        parsed,
        source: found ? found.source : 'DEFAULT_CONFIG',
        synonyms: [],
      });
      continue;
    }
    const parsed = raw !== undefined ? parseConfigValue(key, raw) : (defaults.get(key.name) ?? null);
    const value = isSensitive ? null : convertToString(parsed, key.type);
    const synonyms = key.synonyms.length ? brokerSynonymEntries(key.synonyms[0].name, broker, opts, isSensitive) : [];
    if (raw !== undefined) synonyms.unshift({ name: key.name, value, source: 'DYNAMIC_TOPIC_CONFIG' });
    result.set(key.name, {
      ...base,
      value,
      parsed,
      source: synonyms.length ? synonyms[0].source : 'DEFAULT_CONFIG',
      synonyms,
    });
  }
  return result;
}

function findSynonym(
  key: TopicConfigKey,
  sources: Array<[Map<string, string>, ConfigSourceName]>,
): { source: ConfigSourceName; v: string; f: number } | undefined {
  for (const [map, source] of sources) {
    for (const syn of key.synonyms) {
      const v = map.get(syn.name);
      if (v !== undefined) return { source, v, f: syn.factor ?? 1 };
    }
  }
  return undefined;
}

/**
 * LogConfig.validate as the controller runs it for CreateTopics/AlterConfigs: unknown names,
 * unparsable or out-of-range values, compaction-lag conflicts, tiered storage (always disabled in
 * tkafka). Returns Kafka's INVALID_CONFIG message, or null when the configs are valid.
 */
export function validateTopicConfigs(
  configs: ReadonlyMap<string, string | null> | Readonly<Record<string, string | null>>,
  broker?: BrokerConfigSource,
): string | null {
  const map = configs instanceof Map ? new Map(configs) : new Map(Object.entries(configs));
  const nulls = [...map.keys()].filter((k) => map.get(k) === null);
  if (nulls.length) return `Null value not supported for topic configs: ${nulls.join(',')}`;
  for (const name of javaPropertiesOrder([...map.keys()])) {
    if (!TOPIC_CONFIGS.has(name)) return `Unknown topic config name: ${name}`;
  }
  const defaults = broker ? brokerTopicDefaults(mergedBrokerConfig(broker, {})) : new Map<string, ConfigValue>();
  const values = new Map<string, ConfigValue>();
  try {
    for (const key of TOPIC_CONFIG_KEYS) {
      const raw = map.get(key.name);
      if (raw !== undefined && raw !== null) values.set(key.name, parseConfigValue(key, raw));
      else values.set(key.name, defaults.has(key.name) ? defaults.get(key.name)! : (key.default as ConfigValue));
    }
  } catch (e) {
    if (e instanceof ConfigError) return e.message;
    throw e;
  }
  const minLag = values.get('min.compaction.lag.ms') as bigint;
  const maxLag = values.get('max.compaction.lag.ms') as bigint;
  if (minLag > maxLag) {
    return `conflict topic config setting min.compaction.lag.ms (${minLag}) > max.compaction.lag.ms (${maxLag})`;
  }
  if (values.get('remote.storage.enable') === true) {
    return 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.';
  }
  return null;
}

/** Parse topic overrides into typed values (throws ConfigError); unknown names are rejected. */
export function parseTopicConfigs(configs: StringMap): Map<string, ConfigValue> {
  const out = new Map<string, ConfigValue>();
  for (const [name, raw] of toMap(configs)) {
    const key = TOPIC_CONFIGS.get(name);
    if (!key) throw new ConfigError(`Unknown topic config name: ${name}`, name);
    out.set(name, parseConfigValue(key, raw));
  }
  return out;
}

/**
 * ConfigHelper.createBrokerConfigEntry for every documented broker key: the value (dynamic
 * configs applied over the static ones), its source and synonyms, and readOnly = not dynamic.
 * `perBroker` false describes the cluster default resource (BROKER ""): only dynamic defaults.
 */
export function effectiveBrokerConfig(
  broker: BrokerConfigSource,
  dyn: DynamicBrokerConfigs = {},
  perBroker = true,
): Map<string, EffectiveConfigEntry> {
  const merged = mergedBrokerConfig(broker, dyn);
  const result = new Map<string, EffectiveConfigEntry>();
  for (const key of BROKER_CONFIGS.values()) {
    if (key.internal) continue;
    const isSensitive = key.type === 'password';
    let parsed: ConfigValue;
    try {
      parsed = parseConfigValue(key, merged.get(key.name));
    } catch {
      parsed = null; // e.g. process.roles missing from a partial configuration
    }
    const value = isSensitive ? null : convertToString(parsed, key.type);
    const synonyms = brokerSynonymEntries(key.name, broker, dyn, isSensitive).filter(
      (s) => perBroker || s.source === 'DYNAMIC_DEFAULT_BROKER_CONFIG',
    );
    result.set(key.name, {
      name: key.name,
      value,
      parsed,
      type: key.type,
      isSensitive,
      readOnly: key.dynamic === undefined,
      documentation: key.doc,
      source: synonyms.length ? synonyms[0].source : 'DEFAULT_CONFIG',
      synonyms,
    });
  }
  return result;
}
