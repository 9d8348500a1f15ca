// Record-format layer: v2 record batches, legacy magic 0/1 message sets, compression, CRCs.
export * from './layout.js';
export * from './crc.js';
export * from './compression.js';
export * from './batch.js';
export {
  validateLegacyEntry,
  readLegacyEntry,
  decodeLegacyEntry,
  decodeLegacyMessageSet,
  encodeLegacyEntry,
  buildLegacyMessageSet,
  type LegacyRecord,
  type LegacyTimestampType,
  type LegacyDecodeOptions,
  type LegacyEntryInput,
  type LegacyMessageSetOptions,
} from './legacy.js';
