// Errors raised by the partition log, tagged with the Kafka error name a request handler maps them to.

export class LogError extends Error {
  constructor(
    readonly kafkaError: string,
    message: string,
  ) {
    super(message);
    this.name = 'LogError';
  }
}

export class OffsetOutOfRangeError extends LogError {
  constructor(message: string) {
    super('OFFSET_OUT_OF_RANGE', message);
    this.name = 'OffsetOutOfRangeError';
  }
}

export class RecordBatchTooLargeError extends LogError {
  constructor(message: string) {
    super('RECORD_LIST_TOO_LARGE', message);
    this.name = 'RecordBatchTooLargeError';
  }
}

export class InvalidRecordError extends LogError {
  constructor(message: string) {
    super('CORRUPT_MESSAGE', message);
    this.name = 'InvalidRecordError';
  }
}

export class UnexpectedAppendOffsetError extends LogError {
  constructor(
    message: string,
    readonly firstOffset: number,
    readonly lastOffset: number,
  ) {
    super('UNKNOWN_SERVER_ERROR', message);
    this.name = 'UnexpectedAppendOffsetError';
  }
}

export class InconsistentTopicIdError extends LogError {
  constructor(message: string) {
    super('INCONSISTENT_TOPIC_ID', message);
    this.name = 'InconsistentTopicIdError';
  }
}

/**
 * The partition's role changed while an append waited for the log (Kafka appends under
 * Partition.leaderIsrUpdateLock, so makeLeader/makeFollower never interleave with one).
 */
export class NotLeaderOrFollowerError extends LogError {
  constructor(message: string) {
    super('NOT_LEADER_OR_FOLLOWER', message);
    this.name = 'NotLeaderOrFollowerError';
  }
}

export class KafkaStorageError extends LogError {
  constructor(message: string) {
    super('KAFKA_STORAGE_ERROR', message);
    this.name = 'KafkaStorageError';
  }
}

export interface LogLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

export const silentLogger: LogLogger = { info: () => undefined, warn: () => undefined };
