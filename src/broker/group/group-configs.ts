// Group-level dynamic configs (KIP-848's GroupConfig): set with IncrementalAlterConfigs on GROUP resources,
// kept by the controller as ConfigRecords of resource type GROUP in the metadata log, validated there
// (GroupConfig.validate) and applied by the coordinator to the group's next heartbeat (the effective value
// capped to the broker's bounds, GroupConfig.evaluate). tkafka serves consumer groups only, so the share.*
// and streams.* keys of Kafka 4.4 are neither accepted nor described.
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

const BY_NAME = new Map(GROUP_CONFIG_KEYS.map((k) => [k.name, k]));

const SESSION = 'consumer.session.timeout.ms';
const HEARTBEAT = 'consumer.heartbeat.interval.ms';

/** ConfigDef.parse of an INT with its atLeast: the message of the ConfigException, or the value. */
function parseInt32(name: string, raw: string): number | string {
  const atLeast = BY_NAME.get(name)?.atLeast ?? 1;
  const t = raw.trim();
  if (!/^[+-]?\d+$/.test(t) || Number(t) > 2147483647 || Number(t) < -2147483648)
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
  for (const name of configs.keys()) if (!BY_NAME.has(name)) return `Unknown group config name: ${name}`;
  const values = new Map<string, number>();
  for (const [name, raw] of configs) {
    const v = parseInt32(name, raw);
    if (typeof v === 'string') return v;
    values.set(name, v);
  }
  for (const k of GROUP_CONFIG_KEYS) {
    const v = values.get(k.name);
    if (v !== undefined && (v < k.min(c) || v > k.max(c)))
      return `${k.name} must be in the range ${k.min(c)} to ${k.max(c)} inclusive.`;
  }
  if (values.has(SESSION) || values.has(HEARTBEAT)) {
    const session = values.get(SESSION) ?? c.consumerSessionTimeoutMs;
    const heartbeat = values.get(HEARTBEAT) ?? c.consumerHeartbeatIntervalMs;
    if (session <= heartbeat) return `${SESSION} must be greater than ${HEARTBEAT}`;
  }
  return null;
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
