// The effective configuration of a topic as the data plane needs it: the partition log's LogConfig
// and the append policy (LogValidator inputs, min.insync.replicas), from the topic's overrides and
// the broker's static configuration (topic-level defaults through their broker synonyms).

import {
  type BrokerConfigSource,
  type DynamicBrokerConfigs,
  effectiveTopicConfig,
} from '../../config/topic-configs.js';
import { logConfigFromProps, LONG_MAX, type LogConfig, type TimestampType } from '../log/log-config.js';

/** max.decompressed.message.bytes' default: Integer.MAX_VALUE - 8, the largest array the JVM allocates */
const MAX_DECOMPRESSED_DEFAULT = 2147483647 - 8;

export type TopicOverrides = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

export interface AppendPolicy {
  /** cleanup.policy contains compact: every record needs a key */
  compacted: boolean;
  /** cleanup.policy contains delete: DeleteRecords is allowed */
  deletable: boolean;
  timestampType: TimestampType;
  /** message.timestamp.before.max.ms (CreateTime only) */
  timestampBeforeMaxMs: number;
  /** message.timestamp.after.max.ms (CreateTime only) */
  timestampAfterMaxMs: number;
  /** max.message.bytes: the largest batch accepted */
  maxMessageBytes: number;
  /** max.decompressed.message.bytes: the largest decompressed record of a compressed batch (Kafka 4.4) */
  maxDecompressedMessageBytes: number;
  /** compression.type: producer, uncompressed, gzip, snappy, lz4, zstd */
  compressionType: string;
  /** level for the target codec when batches must be recompressed (undefined = codec default) */
  compressionLevel: number | undefined;
  minInsyncReplicas: number;
}

export interface TopicConfig {
  log: LogConfig;
  policy: AppendPolicy;
}

const EMPTY_BROKER: BrokerConfigSource = { originals: new Map() };

function toNumber(v: unknown, fallback: number): number {
  if (typeof v === 'bigint') return v > BigInt(LONG_MAX) ? LONG_MAX : v < BigInt(-LONG_MAX) ? -LONG_MAX : Number(v);
  if (typeof v === 'number') return Math.min(v, LONG_MAX);
  return fallback;
}

/**
 * Resolves a topic's configuration from its overrides, the broker's static configuration and the
 * dynamic broker configs (this broker's and the cluster default). Overrides that do not parse are
 * reported through `onInvalid` and ignored (the controller validates configs before they reach the metadata log).
 */
export function resolveTopicConfig(
  overrides: TopicOverrides = {},
  broker: BrokerConfigSource = EMPTY_BROKER,
  dynamic: DynamicBrokerConfigs = {},
  onInvalid?: (e: Error) => void,
): TopicConfig {
  let eff;
  try {
    eff = effectiveTopicConfig(broker, overrides, dynamic);
  } catch (e) {
    onInvalid?.(e as Error);
    eff = effectiveTopicConfig(broker, {}, dynamic);
  }
  const props: Record<string, string> = {};
  for (const [name, entry] of eff) if (entry.value !== null) props[name] = entry.value;
  const log = logConfigFromProps(props);
  const parsed = (name: string): unknown => eff.get(name)?.parsed;
  const compressionType = String(parsed('compression.type') ?? 'producer');
  const levelKey =
    compressionType === 'gzip' || compressionType === 'lz4' || compressionType === 'zstd'
      ? `compression.${compressionType}.level`
      : undefined;
  const level = levelKey === undefined ? undefined : toNumber(parsed(levelKey), NaN);
  return {
    log,
    policy: {
      compacted: log.compact,
      deletable: log.delete,
      timestampType: log.messageTimestampType,
      timestampBeforeMaxMs: toNumber(parsed('message.timestamp.before.max.ms'), LONG_MAX),
      timestampAfterMaxMs: toNumber(parsed('message.timestamp.after.max.ms'), 3600000),
      maxMessageBytes: log.maxMessageBytes,
      maxDecompressedMessageBytes: toNumber(parsed('max.decompressed.message.bytes'), MAX_DECOMPRESSED_DEFAULT),
      compressionType,
      // gzip -1 is "the codec default"
      compressionLevel: level === undefined || Number.isNaN(level) || level === -1 ? undefined : level,
      minInsyncReplicas: toNumber(parsed('min.insync.replicas'), 1),
    },
  };
}
