// DumpLogSegments' message parsers: what `key:` and `payload:` show for a record. The decoder
// classes (StringDecoder, IntegerDecoder, LongDecoder, DefaultDecoder), and the offsets,
// transaction-log, cluster-metadata and share-group-state decoders, with Kafka's texts. Records are
// read and printed by the codec generated from Kafka 4.4's specs (src/protocol/generated: readers,
// records.ts's tables by record type, json.ts's JsonConverter-style writers).
import { Reader } from '../../protocol/codec/reader.js';
import { jsonString, type JsonHook } from '../../protocol/codec/json.js';
import { crc32 } from '../../protocol/records/crc.js';
import { JSON_WRITERS, MESSAGE_VERSIONS } from '../../protocol/generated/json.js';
import {
  METADATA_RECORDS,
  OFFSETS_TOPIC_RECORDS,
  SHARE_GROUP_STATE_RECORDS,
  TRANSACTION_LOG_RECORDS,
  type RecordSpec,
} from '../../protocol/generated/records.js';
import { readConsumerProtocolAssignment } from '../../protocol/generated/protocol/ConsumerProtocolAssignment.js';
import { readConsumerProtocolSubscription } from '../../protocol/generated/protocol/ConsumerProtocolSubscription.js';
import { readKRaftVersionRecord } from '../../protocol/generated/protocol/KRaftVersionRecord.js';
import { readLeaderChangeMessage } from '../../protocol/generated/protocol/LeaderChangeMessage.js';
import { readSnapshotFooterRecord } from '../../protocol/generated/protocol/SnapshotFooterRecord.js';
import { readSnapshotHeaderRecord } from '../../protocol/generated/protocol/SnapshotHeaderRecord.js';
import { readVotersRecord } from '../../protocol/generated/protocol/VotersRecord.js';
import { TXN_STATE_NAMES } from '../../protocol/txn-states.js';
import { javaStringHash, orderByTable } from './java.js';
import { javaUtf8 } from './java-utf8.js';
import type { DecoderKind } from './options.js';

export interface ParsedRecord {
  key?: string;
  payload?: string;
  /** The text is JSON (spliced as a value in --output json). */
  keyIsJson?: boolean;
  payloadIsJson?: boolean;
}

export interface ParserInput {
  offset: bigint;
  key: Buffer | null;
  value: Buffer | null;
}

/** A failure that Kafka does not catch (the dump stops there): reported, then the tool goes on. */
export class DecoderFailure extends Error {}

export type MessageParser = (r: ParserInput) => ParsedRecord;

/** StringDecoder: new String(bytes, UTF_8), malformed input replaced as the JDK does. */
const utf8 = (b: Buffer): string => javaUtf8(b);

type ClassDecoder = (b: Buffer) => string;
const DECODER_CLASSES: Record<string, ClassDecoder> = {
  StringDecoder: utf8,
  IntegerDecoder: (b) => {
    if (b.length < 4) throw new DecoderFailure('java.nio.BufferUnderflowException (IntegerDecoder needs 4 bytes)');
    return String(b.readInt32BE(0));
  },
  LongDecoder: (b) => {
    if (b.length < 8) throw new DecoderFailure('java.nio.BufferUnderflowException (LongDecoder needs 8 bytes)');
    return String(b.readBigInt64BE(0));
  },
  // byte[].toString() in Java is the array's identity ("[B@1b6d3586"); tkafka prints a stable stand-in.
  DefaultDecoder: (b) => `[B@${crc32(b).toString(16)}`,
};

/** The decoder for a --key-decoder-class / --value-decoder-class name (FQCN or simple name). */
export function decoderClass(name: string): ClassDecoder | undefined {
  const simple = name.startsWith('org.apache.kafka.tools.api.')
    ? name.slice('org.apache.kafka.tools.api.'.length)
    : name;
  return DECODER_CLASSES[simple];
}

export const SUPPORTED_DECODER_CLASSES = Object.keys(DECODER_CLASSES).map((n) => `org.apache.kafka.tools.api.${n}`);

/** The message as Kafka's `XJsonConverter.write(message, version).toString()` (generated codec). */
function messageJson(name: string, message: unknown, version: number, hook?: JsonHook): string {
  const write = JSON_WRITERS[name];
  if (!write) throw new Error(`no JSON writer for ${name}`);
  return write(message, version, hook);
}

const errMsg = (e: unknown): string => (e instanceof Error ? e.message : String(e));

class UnknownRecordType extends Error {
  constructor(readonly type: number) {
    super(`Unknown record type ${type}`);
  }
}

type CoordinatorRecordType = { readonly key: RecordSpec; readonly value: RecordSpec | null };
const byType = (table: readonly CoordinatorRecordType[]): Map<number, CoordinatorRecordType> =>
  new Map(table.map((e) => [e.key.type, e]));
const COORDINATOR_RECORDS = {
  offsets: byType(OFFSETS_TOPIC_RECORDS),
  share: byType(SHARE_GROUP_STATE_RECORDS),
  txn: byType(TRANSACTION_LOG_RECORDS),
};

/**
 * CoordinatorRecordSerde.deserialize: key version = record type, value = version + message. Kafka
 * 4.4's "coordinator-key" specs (an apiKey per record type, every field in version 0) are read and
 * printed at version 0, as is the transaction log's key (record type 0).
 */
function coordinatorRecord(
  key: Buffer,
  value: Buffer | null,
  types: Map<number, CoordinatorRecordType>,
): { type: number; spec: CoordinatorRecordType; key: unknown; value: unknown; valueVersion: number } {
  const readVersion = (b: Buffer, name: string): number => {
    if (b.length < 2) throw new Error(`Could not read version from ${name}'s buffer.`);
    return b.readInt16BE(0);
  };
  const readBody = (s: RecordSpec, b: Buffer, v: number, name: string): unknown => {
    try {
      return s.read(new Reader(b, 2), v);
    } catch (e) {
      throw new Error(`Could not read record with version ${v} from ${name}'s buffer due to: ${errMsg(e)}.`, {
        cause: e,
      });
    }
  };
  const type = readVersion(key, 'key');
  const spec = types.get(type);
  if (!spec) throw new UnknownRecordType(type);
  const k = readBody(spec.key, key, 0, 'key');
  if (value === null) return { type, spec, key: k, value: null, valueVersion: -1 };
  if (!spec.value) throw new UnknownRecordType(type);
  const vv = readVersion(value, 'value');
  return { type, spec, key: k, value: readBody(spec.value, value, vv, 'value'), valueVersion: vv };
}

const CONSUMER_PROTOCOL: Record<string, { name: string; read: (r: Reader, v: number) => unknown }> = {
  subscription: { name: 'ConsumerProtocolSubscription', read: readConsumerProtocolSubscription },
  assignment: { name: 'ConsumerProtocolAssignment', read: readConsumerProtocolAssignment },
};

/** GroupMetadataValue: consumer-protocol members get their subscription/assignment bytes as JSON. */
function groupMetadataHook(value: { protocolType: string }): JsonHook | undefined {
  if (value.protocolType !== 'consumer') return undefined;
  return (field, v) => {
    const target = CONSUMER_PROTOCOL[field];
    if (!target || !Buffer.isBuffer(v)) return undefined;
    try {
      if (v.length < 2) return undefined;
      const version = v.readInt16BE(0);
      const [lo, hi] = MESSAGE_VERSIONS[target.name]!;
      if (version < lo || version > hi) return undefined; // UnsupportedVersionException: keep the bytes
      return messageJson(target.name, target.read(new Reader(v, 2), version), version);
    } catch {
      return undefined; // Swallowed by Kafka: the original bytes stay.
    }
  };
}

/** TransactionLogMessageParser: the status as TransactionState.stateName(). */
const txnStatusHook: JsonHook = (field, v) =>
  field === 'transactionStatus' ? jsonString(TXN_STATE_NAMES[v as number] ?? String(v)) : undefined;

/**
 * Kafka 4.4's CoordinatorRecordMessageParser (offsets, share group state and, new in 4.4, the
 * transaction log): `{"type":"<record type>","data":<key>}` and `{"version":"<v>","data":<value>}`.
 */
function coordinatorParser(kind: 'offsets' | 'share' | 'txn'): MessageParser {
  const types = COORDINATOR_RECORDS[kind];
  return (r) => {
    if (r.key === null) {
      throw new DecoderFailure(
        `Failed to decode message at offset ${r.offset} using the specified decoder (message had a missing key)`,
      );
    }
    try {
      const rec = coordinatorRecord(r.key, r.value, types);
      const key = `{"type":"${rec.type}","data":${messageJson(rec.spec.key.name, rec.key, 0)}}`;
      if (rec.value === null) return { key, payload: '<DELETE>', keyIsJson: true };
      const valueName = rec.spec.value!.name;
      let hook: JsonHook | undefined;
      if (valueName === 'GroupMetadataValue') hook = groupMetadataHook(rec.value as { protocolType: string });
      if (kind === 'txn') hook = txnStatusHook;
      const data = messageJson(valueName, rec.value, rec.valueVersion, hook);
      return { key, payload: `{"version":"${rec.valueVersion}","data":${data}}`, keyIsJson: true, payloadIsJson: true };
    } catch (e) {
      if (e instanceof UnknownRecordType)
        return { key: `Unknown record type ${e.type} at offset ${r.offset}, skipping.` };
      return { key: `Error at offset ${r.offset}, skipping. ${errMsg(e)}` };
    }
  };
}

/**
 * The order Kafka prints a transaction's partitions in: TransactionMetadata keeps them in a Scala
 * mutable.HashSet (16 buckets to start, load factor 0.75) filled topic by topic with `++=`, and
 * mkString walks its hash table. Sets of up to 4 partitions (Scala's Set1..Set4) go in element by
 * element, growing the table when needed; larger ones (immutable.HashSet) go in without a growth
 * check. (Checked against Kafka 4.0.0's output.)
 */
export function txnPartitionOrder(groups: readonly { topic: string; partitionIds: readonly number[] }[]): string[] {
  let len = 16;
  const hashes = new Map<string, number>();
  for (const g of groups) {
    const distinct = [...new Set(g.partitionIds)];
    for (const p of distinct) {
      const name = `${g.topic}-${p}`;
      if (distinct.length <= 4 && hashes.size + 1 >= Math.floor(len * 0.75)) len *= 2;
      if (hashes.has(name)) continue;
      const h = (Math.imul(31, 31 + p) + javaStringHash(g.topic)) | 0;
      hashes.set(name, h ^ (h >>> 16));
    }
  }
  return orderByTable([...hashes.keys()], (k) => hashes.get(k)!, len);
}

const METADATA_BY_TYPE = new Map<number, RecordSpec>(METADATA_RECORDS.map((s) => [s.type, s]));

/** MetadataRecordType constant name: toSnakeCase(name).toUpperCase(). */
export function metadataTypeName(name: string): string {
  let out = '';
  let prevCap = true;
  for (const c of name) {
    const upper = c !== c.toLowerCase() && c === c.toUpperCase();
    if (upper && !prevCap) out += '_';
    out += c.toUpperCase();
    prevCap = upper;
  }
  return out;
}

/** MetadataRecordSerde.read + MetadataJsonConverters (cluster-metadata decoder). */
export function decodeMetadataRecord(value: Buffer): string {
  const r = new Reader(value);
  const small = (what: string): number => {
    let v: number;
    try {
      v = r.uvarint();
    } catch (e) {
      throw new Error(`Error while reading ${what}`, { cause: e });
    }
    if (v > 32767) throw new Error(`Value for ${what} was too large.`);
    return v;
  };
  const frame = small('frame version');
  if (frame === 0) {
    throw new Error(
      'Could not deserialize metadata record with frame version 0. Note that upgrades from the preview release of KRaft in 2.8 to newer versions are not supported.',
    );
  }
  if (frame !== 1)
    throw new Error(
      `Could not deserialize metadata record due to unknown frame version ${frame}(only frame version 1 is supported)`,
    );
  const type = small('type');
  const version = small('version');
  const s = METADATA_BY_TYPE.get(type);
  if (!s) throw new Error(`org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id ${type}`);
  let data: unknown;
  try {
    data = s.read(r, version);
  } catch {
    throw new Error(`Failed to deserialize record with type ${type}`);
  }
  if (r.remaining > 0) throw new Error(`Found ${r.remaining} byte(s) of garbage after ${type}`);
  return `{"type":"${metadataTypeName(s.name)}","version":${version},"data":${messageJson(s.name, data, version)}}`;
}

const clusterMetadataParser: MessageParser = (r) => {
  try {
    if (r.value === null) throw new Error('null value');
    return { payload: decodeMetadataRecord(r.value), payloadIsJson: true };
  } catch (e) {
    return { payload: `Error at ${r.offset}, skipping. ${errMsg(e)}` };
  }
};

const remoteLogMetadataParser: MessageParser = (r) => ({
  payload: `Error at offset ${r.offset}, skipping. tkafka does not decode remote log metadata records`,
});

/** DumpLogSegmentsOptions.messageParser. Throws an Error naming an unknown decoder class. */
export function messageParser(kind: DecoderKind, keyClass: string, valueClass: string): MessageParser {
  switch (kind) {
    case 'offsets':
      return coordinatorParser('offsets');
    case 'share-group-state':
      return coordinatorParser('share');
    case 'transaction-log':
      return coordinatorParser('txn');
    case 'cluster-metadata':
      return clusterMetadataParser;
    case 'remote-log-metadata':
      return remoteLogMetadataParser;
    case 'classes': {
      const kd = decoderClass(keyClass);
      const vd = decoderClass(valueClass);
      for (const [name, d] of [
        [valueClass, vd],
        [keyClass, kd],
      ] as const) {
        if (!d)
          throw new Error(
            `java.lang.ClassNotFoundException: ${name} (tkafka decoders: ${SUPPORTED_DECODER_CLASSES.join(', ')})`,
          );
      }
      return (r) => {
        const out: ParsedRecord = {};
        if (r.key !== null) out.key = kd!(r.key);
        if (r.value !== null) out.payload = vd!(r.value);
        return out;
      };
    }
  }
}

const CONTROL_RECORD_READERS: Record<string, (r: Reader, v: number) => { version: number }> = {
  SnapshotHeaderRecord: readSnapshotHeaderRecord,
  SnapshotFooterRecord: readSnapshotFooterRecord,
  KRaftVersionRecord: readKRaftVersionRecord,
  VotersRecord: readVotersRecord,
  LeaderChangeMessage: readLeaderChangeMessage,
};

/** KRaft control record values (SnapshotHeader, SnapshotFooter, KRaftVersion, KRaftVoters) as JSON. */
export function controlRecordJson(schemaName: string, value: Buffer | null): string {
  const read = CONTROL_RECORD_READERS[schemaName];
  if (!read) throw new Error(`no schema ${schemaName}`);
  if (value === null) throw new Error(`null value for ${schemaName}`);
  const m = read(new Reader(value), 0);
  return messageJson(schemaName, m, m.version);
}
