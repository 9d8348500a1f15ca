// Per-log configuration (Kafka's LogConfig, storage/.../log/LogConfig.java) with Kafka's defaults.
// "Long.MAX_VALUE" defaults are represented by Number.MAX_SAFE_INTEGER.

export type TimestampType = 'CreateTime' | 'LogAppendTime';

export interface LogConfig {
  /** segment.bytes */
  segmentBytes: number;
  /** segment.ms */
  segmentMs: number;
  /** segment.jitter.ms */
  segmentJitterMs: number;
  /** segment.index.bytes */
  segmentIndexBytes: number;
  /** index.interval.bytes */
  indexIntervalBytes: number;
  /** retention.ms (-1 = unlimited) */
  retentionMs: number;
  /** retention.bytes (-1 = unlimited) */
  retentionBytes: number;
  /** file.delete.delay.ms */
  fileDeleteDelayMs: number;
  /** cleanup.policy contains "compact" */
  compact: boolean;
  /** cleanup.policy contains "delete" */
  delete: boolean;
  /** delete.retention.ms */
  deleteRetentionMs: number;
  /** min.compaction.lag.ms */
  minCompactionLagMs: number;
  /** max.compaction.lag.ms */
  maxCompactionLagMs: number;
  /** min.cleanable.dirty.ratio */
  minCleanableDirtyRatio: number;
  /** flush.messages */
  flushMessages: number;
  /** flush.ms */
  flushMs: number;
  /** message.timestamp.type */
  messageTimestampType: TimestampType;
  /** max.message.bytes */
  maxMessageBytes: number;
}

export const LONG_MAX = Number.MAX_SAFE_INTEGER;

export const DEFAULT_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1024 * 1024 * 1024,
  segmentMs: 7 * 24 * 60 * 60 * 1000,
  segmentJitterMs: 0,
  segmentIndexBytes: 10 * 1024 * 1024,
  indexIntervalBytes: 4096,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  retentionBytes: -1,
  fileDeleteDelayMs: 60000,
  compact: false,
  delete: true,
  deleteRetentionMs: 24 * 60 * 60 * 1000,
  minCompactionLagMs: 0,
  maxCompactionLagMs: LONG_MAX,
  minCleanableDirtyRatio: 0.5,
  flushMessages: LONG_MAX,
  flushMs: LONG_MAX,
  messageTimestampType: 'CreateTime',
  maxMessageBytes: 1024 * 1024 + 12,
});

export function makeLogConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return { ...DEFAULT_LOG_CONFIG, ...overrides };
}

function num(v: string, name: string): number {
  const n = Number(v.trim());
  if (!Number.isFinite(n)) throw new Error(`Invalid value ${v} for configuration ${name}`);
  return Math.min(n, LONG_MAX);
}

/**
 * Builds a LogConfig from Kafka topic-level property names (e.g. `segment.bytes`, `cleanup.policy`).
 * Unknown keys are ignored; missing keys take `base` values.
 */
export function logConfigFromProps(
  props: Record<string, string | undefined>,
  base: LogConfig = DEFAULT_LOG_CONFIG,
): LogConfig {
  const c: LogConfig = { ...base };
  for (const [k, raw] of Object.entries(props)) {
    if (raw === undefined) continue;
    switch (k) {
      case 'segment.bytes':
        c.segmentBytes = num(raw, k);
        break;
      case 'segment.ms':
        c.segmentMs = num(raw, k);
        break;
      case 'segment.jitter.ms':
        c.segmentJitterMs = num(raw, k);
        break;
      case 'segment.index.bytes':
        c.segmentIndexBytes = num(raw, k);
        break;
      case 'index.interval.bytes':
        c.indexIntervalBytes = num(raw, k);
        break;
      case 'retention.ms':
        c.retentionMs = num(raw, k);
        break;
      case 'retention.bytes':
        c.retentionBytes = num(raw, k);
        break;
      case 'file.delete.delay.ms':
        c.fileDeleteDelayMs = num(raw, k);
        break;
      case 'delete.retention.ms':
        c.deleteRetentionMs = num(raw, k);
        break;
      case 'min.compaction.lag.ms':
        c.minCompactionLagMs = num(raw, k);
        break;
      case 'max.compaction.lag.ms':
        c.maxCompactionLagMs = num(raw, k);
        break;
      case 'min.cleanable.dirty.ratio':
        c.minCleanableDirtyRatio = num(raw, k);
        break;
      case 'flush.messages':
        c.flushMessages = num(raw, k);
        break;
      case 'flush.ms':
        c.flushMs = num(raw, k);
        break;
      case 'max.message.bytes':
        c.maxMessageBytes = num(raw, k);
        break;
      case 'message.timestamp.type':
        c.messageTimestampType = raw.trim() === 'LogAppendTime' ? 'LogAppendTime' : 'CreateTime';
        break;
      case 'cleanup.policy': {
        const parts = raw
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter((s) => s.length > 0);
        c.compact = parts.includes('compact');
        c.delete = parts.includes('delete');
        break;
      }
      default:
        break;
    }
  }
  return c;
}

/** LogConfig.randomSegmentJitter: abs(random int) % min(segment.jitter.ms, segment.ms), 0 when no jitter. */
export function randomSegmentJitter(c: LogConfig): number {
  if (c.segmentJitterMs <= 0) return 0;
  const bound = Math.min(c.segmentJitterMs, c.segmentMs);
  return Math.floor(Math.random() * 0x7fffffff) % bound;
}

/** LogConfig.maxSegmentMs: compacted topics roll at least every max.compaction.lag.ms. */
export function maxSegmentMs(c: LogConfig): number {
  return c.compact && c.maxCompactionLagMs > 0 ? Math.min(c.maxCompactionLagMs, c.segmentMs) : c.segmentMs;
}
