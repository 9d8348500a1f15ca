// The metadata log's upkeep settings from the server configuration (Kafka's MetadataLogConfig and
// the snapshot/no-op settings of KafkaConfig), shared by controllers, combined nodes and brokers.

export interface UpkeepConfigSource {
  getInt(name: string): number;
  getLong(name: string): bigint;
}

export interface MetadataLogUpkeep {
  /** metadata.log.segment.bytes */
  readonly segmentBytes: number;
  /** metadata.log.segment.ms */
  readonly segmentMs: number;
  /** metadata.max.retention.bytes (-1: no size rule) */
  readonly retentionBytes: number;
  /** metadata.max.retention.ms (-1: no time rule) */
  readonly retentionMs: number;
  /** metadata.log.max.record.bytes.between.snapshots */
  readonly snapshotMaxBytes: number;
  /** metadata.log.max.snapshot.interval.ms (0: no time rule) */
  readonly snapshotIntervalMs: number;
  /** metadata.max.idle.interval.ms (0: no NoOpRecords) */
  readonly maxIdleIntervalMs: number;
}

export function metadataLogUpkeep(config: UpkeepConfigSource): MetadataLogUpkeep {
  return {
    segmentBytes: config.getInt('metadata.log.segment.bytes'),
    segmentMs: Number(config.getLong('metadata.log.segment.ms')),
    retentionBytes: Number(config.getLong('metadata.max.retention.bytes')),
    retentionMs: Number(config.getLong('metadata.max.retention.ms')),
    snapshotMaxBytes: Number(config.getLong('metadata.log.max.record.bytes.between.snapshots')),
    snapshotIntervalMs: Number(config.getLong('metadata.log.max.snapshot.interval.ms')),
    maxIdleIntervalMs: config.getInt('metadata.max.idle.interval.ms'),
  };
}
