// Byte layout of a v2 record batch header (Kafka's DefaultRecordBatch) and of the
// legacy (magic 0/1) message-set entry header. Every reader of batch headers uses these.

export const LOG_OVERHEAD = 12; // baseOffset int64 + batchLength int32

export const BASE_OFFSET = 0;
export const BATCH_LENGTH = 8;
export const PARTITION_LEADER_EPOCH = 12;
export const MAGIC = 16;
export const CRC = 17;
export const ATTRIBUTES = 21;
export const LAST_OFFSET_DELTA = 23;
export const BASE_TIMESTAMP = 27;
export const MAX_TIMESTAMP = 35;
export const PRODUCER_ID = 43;
export const PRODUCER_EPOCH = 51;
export const BASE_SEQUENCE = 53;
export const RECORDS_COUNT = 57;
export const RECORD_BATCH_OVERHEAD = 61;

// attributes bits (v2)
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08; // 1 = LogAppendTime
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export const enum CompressionType {
  None = 0,
  Gzip = 1,
  Snappy = 2,
  Lz4 = 3,
  Zstd = 4,
}

// legacy message set entry: offset int64, size int32, crc uint32, magic int8, attributes int8,
// [timestamp int64 when magic 1], key bytes, value bytes
export const LEGACY_CRC = 12;
export const LEGACY_MAGIC = 16;
export const LEGACY_ATTRIBUTES = 17;
export const LEGACY_RECORD_OVERHEAD_V0 = 14; // crc + magic + attributes + key len + value len
export const LEGACY_RECORD_OVERHEAD_V1 = 22; // v0 + timestamp
