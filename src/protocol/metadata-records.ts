// Typed KRaft metadata records and their framing inside `__cluster_metadata` batches.
//
// Framing (Kafka's AbstractApiMessageSerde / MetadataRecordSerde): each record of a data batch has
// a null key, no headers, and the value
//   uvarint frameVersion (= 1), uvarint recordType (the schema's apiKey), uvarint recordVersion,
//   record body at that version (all metadata schemas are flexible).
// Frame version 0 (the KRaft preview in 2.8) is rejected, as are trailing bytes after the body.

import { Reader } from './codec/reader.js';
import { Writer } from './codec/writer.js';
import { METADATA_RECORDS, type RecordSpec } from './generated/records.js';
import type * as M from './generated/metadata/index.js';

export const METADATA_FRAME_VERSION = 1;

/** Record type ids (the `apiKey` of each `metadata` schema). */
export const RecordType = {
  RegisterBroker: 0,
  UnregisterBroker: 1,
  Topic: 2,
  Partition: 3,
  Config: 4,
  PartitionChange: 5,
  FenceBroker: 7,
  UnfenceBroker: 8,
  RemoveTopic: 9,
  DelegationToken: 10,
  UserScramCredential: 11,
  FeatureLevel: 12,
  ClientQuota: 14,
  ProducerIds: 15,
  BrokerRegistrationChange: 17,
  AccessControlEntry: 18,
  RemoveAccessControlEntry: 19,
  NoOp: 20,
  ZkMigrationState: 21,
  RemoveUserScramCredential: 22,
  BeginTransaction: 23,
  EndTransaction: 24,
  AbortTransaction: 25,
  RemoveDelegationToken: 26,
  RegisterController: 27,
  ClearElr: 28,
  UnregisterController: 29,
} as const;

/** Record body type by record type id. */
export interface RecordDataByType {
  0: M.RegisterBrokerRecord;
  1: M.UnregisterBrokerRecord;
  2: M.TopicRecord;
  3: M.PartitionRecord;
  4: M.ConfigRecord;
  5: M.PartitionChangeRecord;
  7: M.FenceBrokerRecord;
  8: M.UnfenceBrokerRecord;
  9: M.RemoveTopicRecord;
  10: M.DelegationTokenRecord;
  11: M.UserScramCredentialRecord;
  12: M.FeatureLevelRecord;
  14: M.ClientQuotaRecord;
  15: M.ProducerIdsRecord;
  17: M.BrokerRegistrationChangeRecord;
  18: M.AccessControlEntryRecord;
  19: M.RemoveAccessControlEntryRecord;
  20: M.NoOpRecord;
  21: M.ZkMigrationStateRecord;
  22: M.RemoveUserScramCredentialRecord;
  23: M.BeginTransactionRecord;
  24: M.EndTransactionRecord;
  25: M.AbortTransactionRecord;
  26: M.RemoveDelegationTokenRecord;
  27: M.RegisterControllerRecord;
  28: M.ClearElrRecord;
  29: M.UnregisterControllerRecord;
}

export type MetadataRecordType = keyof RecordDataByType;

/** A metadata record with its version (Kafka's ApiMessageAndVersion). Narrow on `type`. */
export type MetadataRecord = {
  [K in MetadataRecordType]: { readonly type: K; readonly version: number; readonly data: RecordDataByType[K] };
}[MetadataRecordType];

/** Builds a record; `data` must be the full body (start from the generated `default…()`). */
export function metadataRecord<K extends MetadataRecordType>(
  type: K,
  version: number,
  data: RecordDataByType[K],
): MetadataRecord {
  return { type, version, data } as MetadataRecord;
}

const SPECS: (RecordSpec | undefined)[] = [];
for (const s of METADATA_RECORDS) SPECS[s.type] = s;

export function recordSpec(type: number): RecordSpec {
  const spec = SPECS[type];
  if (spec === undefined) throw new MetadataParseError(`unknown metadata record type ${type}`);
  return spec;
}

export function recordTypeName(type: number): string {
  return SPECS[type]?.name ?? `UnknownRecord(${type})`;
}

export class MetadataParseError extends Error {
  override name = 'MetadataParseError';
}

/** Serializes a record as a framed value (frame version, type, version, body). */
export function serializeMetadataRecord(rec: MetadataRecord): Buffer {
  const spec = recordSpec(rec.type);
  if (rec.version < spec.minVersion || rec.version > spec.maxVersion) {
    throw new RangeError(`${spec.name} version ${rec.version} is outside ${spec.minVersion}-${spec.maxVersion}`);
  }
  const w = new Writer(128);
  w.uvarint(METADATA_FRAME_VERSION);
  w.uvarint(rec.type);
  w.uvarint(rec.version);
  spec.write(w, rec.version, rec.data);
  return w.toBuffer();
}

function shortUvarint(r: Reader, what: string): number {
  let v: number;
  try {
    v = r.uvarint();
  } catch (e) {
    throw new MetadataParseError(`Error while reading ${what}: ${(e as Error).message}`);
  }
  if (v > 0x7fff) throw new MetadataParseError(`Value for ${what} was too large.`);
  return v;
}

/** Parses a framed record value (MetadataRecordSerde.read). */
export function deserializeMetadataRecord(value: Buffer): MetadataRecord {
  const r = new Reader(value);
  const frame = shortUvarint(r, 'frame version');
  if (frame === 0) {
    throw new MetadataParseError(
      'Could not deserialize metadata record with frame version 0. ' +
        'Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported.',
    );
  } else if (frame !== METADATA_FRAME_VERSION) {
    throw new MetadataParseError(
      `Could not deserialize metadata record due to unknown frame version ${frame}` +
        `(only frame version ${METADATA_FRAME_VERSION} is supported)`,
    );
  }
  const type = shortUvarint(r, 'type');
  const version = shortUvarint(r, 'version');
  const spec = recordSpec(type);
  if (version < spec.minVersion || version > spec.maxVersion) {
    throw new MetadataParseError(`${spec.name} has unsupported version ${version}`);
  }
  let data: unknown;
  try {
    data = spec.read(r, version);
  } catch (e) {
    throw new MetadataParseError(`Failed to deserialize record with type ${type}: ${(e as Error).message}`);
  }
  if (r.remaining > 0) throw new MetadataParseError(`Found ${r.remaining} byte(s) of garbage after ${type}`);
  return { type, version, data } as MetadataRecord;
}

/** A compact one-line description for logs. */
export function describeRecord(rec: MetadataRecord): string {
  return `${recordTypeName(rec.type)}(v${rec.version}) ${JSON.stringify(rec.data, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v !== null && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer')
      return `<${(v as { data: unknown[] }).data.length} bytes>`;
    return v;
  })}`;
}
