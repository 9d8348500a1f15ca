// Group-level dynamic configs (KIP-848's GroupConfig): set with IncrementalAlterConfigs on GROUP resources,
// kept by the controller as ConfigRecords of resource type GROUP in the metadata log, validated there
// (GroupConfig.validate) and applied by the coordinator to the group's next heartbeat (the effective value
// capped to the broker's bounds, GroupConfig.evaluate). The share.* keys of share groups (KIP-932) are
// accepted, validated and described (SHARE_GROUP_CONFIG_KEYS with their group.share.* broker synonyms,
// SHARE_GROUP_OTHER_KEYS with their defaults); the streams.* keys of streams groups (KIP-1071,
// STREAMS_GROUP_CONFIG_KEYS, STREAMS_GROUP_OTHER_KEYS) are accepted, validated and described as Kafka 4.4
// describes them (the internal ones, defineInternal, are not; STREAMS_GROUP_DESCRIBED_OTHER_KEYS).
import type { GroupConfig } from './config.js';

export interface GroupConfigKey {
  name: string;
  /** The broker config that supplies the default (its synonym in DescribeConfigs). */
  brokerKey: string;
  doc: string;
  /** The ConfigDef validator's atLeast. */
  atLeast: number;
  /** The bounds from the broker's configuration. */
  min(c: GroupConfig): number;
  max(c: GroupConfig): number;
  dflt(c: GroupConfig): number;
  /** Which of the broker's bounds GroupConfig.validateValues checks (default both: validateIntRange). */
  bound?: 'range' | 'max' | 'min' | 'none';
  /** ConfigDef type (default INT). */
  type?: 'int' | 'long';
  /** ConfigDef.defineInternal: validated and applied, not described (DescribeConfigs leaves it out). */
  internal?: boolean;
}

export const GROUP_CONFIG_KEYS: readonly GroupConfigKey[] = [
  {
    name: 'consumer.heartbeat.interval.ms',
    brokerKey: 'group.consumer.heartbeat.interval.ms',
    doc: 'The heartbeat interval given to the members of a consumer group.',
    atLeast: 1,
    min: (c) => c.consumerMinHeartbeatIntervalMs,
    max: (c) => c.consumerMaxHeartbeatIntervalMs,
    dflt: (c) => c.consumerHeartbeatIntervalMs,
  },
  {
    name: 'consumer.session.timeout.ms',
    brokerKey: 'group.consumer.session.timeout.ms',
    doc: 'The timeout to detect client failures when using the consumer group protocol.',
    atLeast: 1,
    min: (c) => c.consumerMinSessionTimeoutMs,
    max: (c) => c.consumerMaxSessionTimeoutMs,
    dflt: (c) => c.consumerSessionTimeoutMs,
  },
  {
    // accepted and described as Kafka 4.4 does; tkafka computes a target assignment in the heartbeat that needs it
    name: 'consumer.assignment.interval.ms',
    brokerKey: 'group.consumer.assignment.interval.ms',
    doc: 'The interval between assignment updates for a consumer group.',
    atLeast: 0,
    min: (c) => c.consumerMinAssignmentIntervalMs,
    max: (c) => c.consumerMaxAssignmentIntervalMs,
    dflt: (c) => c.consumerAssignmentIntervalMs,
  },
];

/** A share.* group config that is not an INT (ConfigDef STRING / BOOLEAN). */
/** A LIST, BOOLEAN or STRING group key: validated only. */
export interface GroupConfigOther {
  name: string;
  type: 'string' | 'boolean';
  /** ConfigDef's validator: the ConfigException's text after "Invalid value X for configuration Y: ", or null. */
  check(value: string): string | null;
}

/** A share.* one, described too. */
export interface ShareGroupConfigOther extends GroupConfigOther {
  /** GroupConfig's documentation. */
  doc: string;
  /** GroupConfig's default (described with source DEFAULT_CONFIG when the group does not set it). */
  dflt: string;
}

const atLeastShare = (
  name: string,
  brokerKey: string,
  doc: string,
  atLeast: number,
  f: (c: GroupConfig) => [number, number, number],
): GroupConfigKey => ({
  name,
  brokerKey,
  doc,
  atLeast,
  min: (c) => f(c)[0],
  max: (c) => f(c)[1],
  dflt: (c) => f(c)[2],
});

/** The INT share.* keys of Kafka 4.4's GroupConfig, in validateValues' order. */
export const SHARE_GROUP_CONFIG_KEYS: readonly GroupConfigKey[] = [
  atLeastShare(
    'share.heartbeat.interval.ms',
    'group.share.heartbeat.interval.ms',
    'The heartbeat interval given to the members of a share group.',
    1,
    (c) => [c.shareMinHeartbeatIntervalMs, c.shareMaxHeartbeatIntervalMs, c.shareHeartbeatIntervalMs],
  ),
  atLeastShare(
    'share.session.timeout.ms',
    'group.share.session.timeout.ms',
    'The timeout to detect client failures when using the share group protocol.',
    1,
    (c) => [c.shareMinSessionTimeoutMs, c.shareMaxSessionTimeoutMs, c.shareSessionTimeoutMs],
  ),
  atLeastShare(
    'share.record.lock.duration.ms',
    'group.share.record.lock.duration.ms',
    'The record acquisition lock duration in milliseconds for share groups.',
    1000,
    (c) => [c.shareMinRecordLockDurationMs, c.shareMaxRecordLockDurationMs, c.shareRecordLockDurationMs],
  ),
  atLeastShare(
    'share.delivery.count.limit',
    'group.share.delivery.count.limit',
    'The maximum number of delivery attempts for a record delivered to a share group.',
    2,
    (c) => [c.shareMinDeliveryCountLimit, c.shareMaxDeliveryCountLimit, c.shareDeliveryCountLimit],
  ),
  atLeastShare(
    'share.partition.max.record.locks',
    'group.share.partition.max.record.locks',
    'Share-group record lock limit per share-partition.',
    100,
    (c) => [c.shareMinPartitionMaxRecordLocks, c.shareMaxPartitionMaxRecordLocks, c.sharePartitionMaxRecordLocks],
  ),
  atLeastShare(
    'share.assignment.interval.ms',
    'group.share.assignment.interval.ms',
    'The interval between assignment updates for a share group.',
    0,
    (c) => [c.shareMinAssignmentIntervalMs, c.shareMaxAssignmentIntervalMs, c.shareAssignmentIntervalMs],
  ),
];

const streamsKey = (
  name: string,
  doc: string,
  atLeast: number,
  bound: 'range' | 'max' | 'min' | 'none',
  f: (c: GroupConfig) => [number, number, number],
  type: 'int' | 'long' = 'int',
  internal = false,
): GroupConfigKey => ({
  name,
  brokerKey: `group.${name}`,
  doc,
  atLeast,
  bound,
  type,
  ...(internal ? { internal } : {}),
  min: (c) => f(c)[0],
  max: (c) => f(c)[1],
  dflt: (c) => f(c)[2],
});

const INT_MAX = 2147483647;

/** The numeric streams.* keys of Kafka 4.4's GroupConfig, in validateValues' order. */
export const STREAMS_GROUP_CONFIG_KEYS: readonly GroupConfigKey[] = [
  streamsKey('streams.heartbeat.interval.ms', 'The heartbeat interval given to the members.', 1, 'range', (c) => [
    c.streamsMinHeartbeatIntervalMs,
    c.streamsMaxHeartbeatIntervalMs,
    c.streamsHeartbeatIntervalMs,
  ]),
  streamsKey(
    'streams.session.timeout.ms',
    'The timeout to detect client failures when using the streams group protocol.',
    1,
    'range',
    (c) => [c.streamsMinSessionTimeoutMs, c.streamsMaxSessionTimeoutMs, c.streamsSessionTimeoutMs],
  ),
  streamsKey('streams.num.standby.replicas', 'The number of standby replicas for each task.', 0, 'max', (c) => [
    0,
    c.streamsMaxStandbyReplicas,
    c.streamsNumStandbyReplicas,
  ]),
  streamsKey(
    'streams.assignment.interval.ms',
    'The interval between assignment updates for a streams group.',
    0,
    'range',
    (c) => [c.streamsMinAssignmentIntervalMs, c.streamsMaxAssignmentIntervalMs, c.streamsAssignmentIntervalMs],
  ),
  streamsKey(
    'streams.task.offset.interval.ms',
    'The interval in which the warmup task changelog offsets on a client are updated on the broker. The offsets are sent with the next heartbeat after this time has passed.',
    1,
    'min',
    (c) => [c.streamsMinTaskOffsetIntervalMs, INT_MAX, c.streamsTaskOffsetIntervalMs],
    'int',
    true,
  ),
  streamsKey(
    'streams.num.warmup.replicas',
    'The maximum number of warmup task replicas.',
    0,
    'max',
    (c) => [0, c.streamsMaxWarmupReplicas, c.streamsNumWarmupReplicas],
    'int',
    true,
  ),
  streamsKey(
    'streams.initial.rebalance.delay.ms',
    'The amount of time the group coordinator will wait for more streams clients to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances.',
    0,
    'none',
    (c) => [0, INT_MAX, c.streamsInitialRebalanceDelayMs],
  ),
  streamsKey(
    'streams.acceptable.recovery.lag',
    'The maximum acceptable lag (number of offsets to catch up) for a client to be considered caught-up enough to receive an active task assignment.',
    0,
    'none',
    (c) => [0, Number.MAX_SAFE_INTEGER, c.streamsAcceptableRecoveryLag],
    'long',
    true,
  ),
];

/**
 * The streams.* keys of GroupConfig that are neither INT nor LONG and that DescribeConfigs lists: the value
 * of the broker key named `brokerKey` is their default (GroupConfig.ALL_GROUP_CONFIG_SYNONYMS).
 */
export const STREAMS_GROUP_DESCRIBED_OTHER_KEYS: readonly {
  name: string;
  brokerKey: string;
  type: 'list' | 'string';
  doc: string;
}[] = [
  {
    name: 'streams.rack.aware.assignment.tags',
    brokerKey: 'group.streams.rack.aware.assignment.tags',
    type: 'list',
    doc: 'List of client tag keys used to distribute standby replicas across Kafka Streams instances. When configured, and the used broker-side assignor supports it, it will make a best-effort to distribute standby tasks over each client tag dimension.',
  },
  {
    name: 'streams.assignor.name',
    brokerKey: 'group.streams.assignors',
    type: 'string',
    doc: "The task assignor to use for this streams group, selected by short name from the assignors registered via the broker configuration group.streams.assignors. When unset, the group defaults to the first assignor configured in the broker's group.streams.assignors setting. Changing the assignor does not trigger a rebalance for the group; the new assignor takes effect on the next rebalance.",
  },
];

/** The LIST, BOOLEAN and STRING streams.* keys of Kafka 4.4's GroupConfig. */
export const STREAMS_GROUP_OTHER_KEYS: readonly GroupConfigOther[] = [
  // ValidList.anyNonDuplicateValues(true, false): empty allowed; duplicates are refused by
  // validateNoDuplicateRackAwareAssignmentTags, checked in validateGroupConfigs
  { name: 'streams.rack.aware.assignment.tags', type: 'string', check: () => null },
  {
    name: 'streams.assignor.offload.enable',
    type: 'boolean',
    check: (v) => (/^(true|false)$/i.test(v.trim()) ? null : 'Expected value to be either true or false'),
  },
  { name: 'streams.assignor.name', type: 'string', check: () => null },
];

/** java.time.Duration.parse's PnDTnHnMn.nS without signs (a negative duration is refused anyway). */
const ISO_DURATION = /^P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:[.,]\d{1,9})?S)?)?$/i;

/**
 * ShareGroupAutoOffsetResetStrategy.Validator: earliest, latest or by_duration:<ISO-8601 duration>, not
 * negative (AutoOffsetResetStrategy.fromString, case-insensitive).
 */
function checkAutoOffsetReset(value: string): string | null {
  const v = value.trim().toLowerCase();
  if (v === 'earliest' || v === 'latest') return null;
  if (v.startsWith('by_duration:')) {
    const d = v.slice('by_duration:'.length);
    if (ISO_DURATION.test(d) && d !== 'p' && !d.endsWith('t')) return null;
  }
  return `Invalid value \`${value}\` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`;
}

/** The STRING and BOOLEAN share.* keys of Kafka 4.4's GroupConfig. */
export const SHARE_GROUP_OTHER_KEYS: readonly ShareGroupConfigOther[] = [
  {
    name: 'share.auto.offset.reset',
    type: 'string',
    dflt: 'latest',
    doc: 'The strategy to initialize the share-partition start offset. <ul><li>earliest: automatically reset the offset to the earliest offset</li><li>latest: automatically reset the offset to the latest offset</li><li>by_duration:&lt;duration&gt;: automatically reset the offset to a configured duration from the current timestamp. &lt;duration&gt; must be specified in ISO8601 format (PnDTnHnMn.nS). Negative duration is not allowed.</li><li>anything else: throw exception to the share consumer.</li></ul>',
    check: checkAutoOffsetReset,
  },
  {
    name: 'share.isolation.level',
    type: 'string',
    dflt: 'read_uncommitted',
    doc: 'Controls how to read records written transactionally. If set to "read_committed", the share group will only deliver transactional records which have been committed. If set to "read_uncommitted", the share group will return all messages, even transactional messages which have been aborted. Non-transactional records will be returned unconditionally in either mode.',
    check: (v) =>
      v === 'read_committed' || v === 'read_uncommitted'
        ? null
        : 'String must be one of: read_committed, read_uncommitted',
  },
  {
    name: 'share.renew.acknowledge.enable',
    type: 'boolean',
    dflt: 'true',
    doc: 'Whether the renew acknowledge type is enabled for the share group.',
    check: (v) => (/^(true|false)$/i.test(v.trim()) ? null : 'Expected value to be either true or false'),
  },
];

const NUMERIC_KEYS = [...GROUP_CONFIG_KEYS, ...SHARE_GROUP_CONFIG_KEYS, ...STREAMS_GROUP_CONFIG_KEYS];
const BY_NAME = new Map(NUMERIC_KEYS.map((k) => [k.name, k]));
const OTHER_BY_NAME = new Map<string, GroupConfigOther>(
  [...SHARE_GROUP_OTHER_KEYS, ...STREAMS_GROUP_OTHER_KEYS].map((k) => [k.name, k]),
);
/** GroupCoordinatorConfig.STREAMS_GROUP_ASSIGNORS_DEFAULT: the built-in assignors. */
const STREAMS_ASSIGNORS = ['sticky'];

const SESSION = 'consumer.session.timeout.ms';
const HEARTBEAT = 'consumer.heartbeat.interval.ms';
const SHARE_SESSION = 'share.session.timeout.ms';
const SHARE_HEARTBEAT = 'share.heartbeat.interval.ms';

/** ConfigDef.parse of an INT with its atLeast: the message of the ConfigException, or the value. */
function parseInt32(name: string, raw: string): number | string {
  const k = BY_NAME.get(name);
  const atLeast = k?.atLeast ?? 1;
  const t = raw.trim();
  if (k?.type === 'long') {
    if (!/^[+-]?\d+$/.test(t) || BigInt(t) > 9223372036854775807n || BigInt(t) < -9223372036854775808n)
      return `Invalid value ${raw} for configuration ${name}: Not a number of type LONG`;
  } else if (!/^[+-]?\d+$/.test(t) || Number(t) > 2147483647 || Number(t) < -2147483648)
    return `Invalid value ${raw} for configuration ${name}: Not a number of type INT`;
  const v = Number(t);
  if (v < atLeast) return `Invalid value ${v} for configuration ${name}: Value must be at least ${atLeast}`;
  return v;
}

/**
 * GroupConfig.validate (Kafka 4.4): unknown names, types, the broker's min/max bounds, and the session
 * timeout above the heartbeat interval (either side defaulting to the broker's value). Returns Kafka's
 * InvalidConfigurationException message, or null.
 */
export function validateGroupConfigs(configs: ReadonlyMap<string, string>, c: GroupConfig): string | null {
  for (const name of configs.keys())
    if (!BY_NAME.has(name) && !OTHER_BY_NAME.has(name)) return `Unknown group config name: ${name}`;
  const values = new Map<string, number>();
  for (const [name, raw] of configs) {
    const other = OTHER_BY_NAME.get(name);
    if (other) {
      const problem = other.check(raw);
      if (problem !== null) return `Invalid value ${raw} for configuration ${name}: ${problem}`;
      continue;
    }
    const v = parseInt32(name, raw);
    if (typeof v === 'string') return v;
    values.set(name, v);
  }
  const tags = configs.get('streams.rack.aware.assignment.tags');
  if (tags !== undefined) {
    const l = tags
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
    if (new Set(l).size !== l.length) return 'streams.rack.aware.assignment.tags must not contain duplicate tag keys.';
  }
  for (const k of NUMERIC_KEYS) {
    const v = values.get(k.name);
    if (v === undefined) continue;
    const bound = k.bound ?? 'range';
    if (bound === 'range' && (v < k.min(c) || v > k.max(c)))
      return `${k.name} must be in the range ${k.min(c)} to ${k.max(c)} inclusive.`;
    if (bound === 'max' && v > k.max(c)) return `${k.name} must be less than or equal to ${k.max(c)}`;
    if (bound === 'min' && v < k.min(c)) return `${k.name} must be greater than or equal to ${k.min(c)}`;
  }
  const assignor = configs.get('streams.assignor.name');
  if (assignor !== undefined && !STREAMS_ASSIGNORS.includes(assignor))
    return `streams.assignor.name '${assignor}' is not a registered task assignor. Registered assignors are: [${STREAMS_ASSIGNORS.join(', ')}].`;
  const sessionAboveHeartbeat = (session: string, sDefault: number, heartbeat: string, hDefault: number) => {
    if (!values.has(session) && !values.has(heartbeat)) return null;
    const s = values.get(session) ?? sDefault;
    const h = values.get(heartbeat) ?? hDefault;
    return s <= h ? `${session} must be greater than ${heartbeat}` : null;
  };
  return (
    sessionAboveHeartbeat(SESSION, c.consumerSessionTimeoutMs, HEARTBEAT, c.consumerHeartbeatIntervalMs) ??
    sessionAboveHeartbeat(SHARE_SESSION, c.shareSessionTimeoutMs, SHARE_HEARTBEAT, c.shareHeartbeatIntervalMs) ??
    sessionAboveHeartbeat(
      'streams.session.timeout.ms',
      c.streamsSessionTimeoutMs,
      'streams.heartbeat.interval.ms',
      c.streamsHeartbeatIntervalMs,
    )
  );
}

/**
 * GroupConfig.evaluate: the group's value of a key, or the broker's default; a value outside the broker's
 * current bounds (they may have changed since it was set) is capped to them.
 */
export function effectiveGroupConfig(
  name: 'consumer.session.timeout.ms' | 'consumer.heartbeat.interval.ms',
  overrides: ReadonlyMap<string, string> | undefined,
  c: GroupConfig,
): number {
  const k = BY_NAME.get(name)!;
  const raw = overrides?.get(name);
  if (raw === undefined) return k.dflt(c);
  const v = parseInt32(name, raw);
  if (typeof v === 'string') return k.dflt(c);
  return Math.min(Math.max(v, k.min(c)), k.max(c));
}
