// DumpLogSegments' message parsers: what `key:` and `payload:` show for a record. The decoder
// classes (StringDecoder, IntegerDecoder, LongDecoder, DefaultDecoder), and the offsets,
// transaction-log, cluster-metadata and share-group-state decoders, with Kafka's texts.
import { Reader } from '../../protocol/codec/reader.js';
import { crc32 } from '../../protocol/records/crc.js';
import { SCHEMAS } from './schemas.generated.js';
import {
  messageJson,
  readMessage,
  type FieldSchema,
  type JsonObject,
  type JsonValue,
  type MessageSchema,
} from './kafka-json.js';
import { javaStringHash, orderByTable } from './java.js';
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

const utf8 = (b: Buffer): string => b.toString('utf8');

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

const schema = (name: string): MessageSchema => {
  const s = SCHEMAS[name];
  if (!s) throw new Error(`no schema ${name}`);
  return s;
};

const errMsg = (e: unknown): string => (e instanceof Error ? e.message : String(e));

class UnknownRecordType extends Error {
  constructor(readonly type: number) {
    super(`Unknown record type ${type}`);
  }
}

/** CoordinatorRecordSerde.deserialize: key version = record type, value = version + message. */
function coordinatorRecord(
  key: Buffer,
  value: Buffer | null,
  keyFor: (type: number) => MessageSchema | undefined,
  valueFor: (type: number) => MessageSchema | undefined,
): {
  key: JsonObject;
  keyVersion: number;
  keySchema: MessageSchema;
  value: JsonObject | null;
  valueVersion: number;
  valueSchema: MessageSchema | null;
} {
  const readVersion = (b: Buffer, name: string): number => {
    if (b.length < 2) throw new Error(`Could not read version from ${name}'s buffer.`);
    return b.readInt16BE(0);
  };
  const readBody = (s: MessageSchema, b: Buffer, v: number, name: string): JsonObject => {
    try {
      return readMessage(s, new Reader(b, 2), v);
    } catch (e) {
      throw new Error(`Could not read record with version ${v} from ${name}'s buffer due to: ${errMsg(e)}.`);
    }
  };
  const type = readVersion(key, 'key');
  const keySchema = keyFor(type);
  if (!keySchema) throw new UnknownRecordType(type);
  // Kafka 4.4's "coordinator-key" specs (an apiKey per record type, every field in version 0) are
  // read and printed at version 0; the older specs gave the key the record type as its version.
  const k = readBody(keySchema, key, keySchema.apiKey !== undefined ? 0 : type, 'key');
  if (value === null) return { key: k, keyVersion: type, keySchema, value: null, valueVersion: -1, valueSchema: null };
  const valueSchema = valueFor(type);
  if (!valueSchema) throw new UnknownRecordType(type);
  const vv = readVersion(value, 'value');
  return {
    key: k,
    keyVersion: type,
    keySchema,
    value: readBody(valueSchema, value, vv, 'value'),
    valueVersion: vv,
    valueSchema,
  };
}

const OFFSET_KEYS: (string | undefined)[] = [];
for (const s of Object.values(SCHEMAS)) {
  if (!s.name.endsWith('Key') || !s.valid || !SCHEMAS[s.name.replace(/Key$/, 'Value')]) continue;
  if (s.name.startsWith('Share') && !s.name.startsWith('ShareGroup')) continue;
  if (s.name === 'TransactionLogKey') continue;
  if (s.apiKey !== undefined) OFFSET_KEYS[s.apiKey] = s.name;
  else for (let t = s.valid[0]; t <= s.valid[1]; t++) OFFSET_KEYS[t] = s.name;
}

/** GroupMetadataValue: consumer-protocol members get their subscription/assignment bytes as JSON. */
function groupMetadataOverride(value: JsonObject): ((f: FieldSchema, v: JsonValue) => string | undefined) | undefined {
  if (value.protocolType !== 'consumer') return undefined;
  return (f, v) => {
    const target =
      f.n === 'subscription'
        ? 'ConsumerProtocolSubscription'
        : f.n === 'assignment'
          ? 'ConsumerProtocolAssignment'
          : null;
    if (!target || !Buffer.isBuffer(v)) return undefined;
    try {
      if (v.length < 2) return undefined;
      const version = v.readInt16BE(0);
      const s = schema(target);
      if (!s.valid || version < s.valid[0] || version > s.valid[1]) return undefined; // UnsupportedVersionException: keep the bytes
      return messageJson(s, readMessage(s, new Reader(v, 2), version), version);
    } catch {
      return undefined; // Swallowed by Kafka: the original bytes stay.
    }
  };
}

/**
 * Kafka 4.4's CoordinatorRecordMessageParser (offsets, share group state and, new in 4.4, the
 * transaction log): `{"type":"<record type>","data":<key>}` and `{"version":"<v>","data":<value>}`.
 */
function coordinatorParser(kind: 'offsets' | 'share' | 'txn'): MessageParser {
  const keyFor =
    kind === 'share'
      ? (t: number) => (t === 0 ? schema('ShareSnapshotKey') : t === 1 ? schema('ShareUpdateKey') : undefined)
      : kind === 'txn'
        ? (t: number) => (t === 0 ? schema('TransactionLogKey') : undefined)
        : (t: number) => (OFFSET_KEYS[t] ? schema(OFFSET_KEYS[t]!) : undefined);
  const valueFor = (t: number) => {
    const k = keyFor(t);
    return k ? schema(k.name.replace(/Key$/, 'Value')) : undefined;
  };
  return (r) => {
    if (r.key === null) {
      throw new DecoderFailure(
        `Failed to decode message at offset ${r.offset} using the specified decoder (message had a missing key)`,
      );
    }
    try {
      const rec = coordinatorRecord(r.key, r.value, keyFor, valueFor);
      const keyVersion = rec.keySchema.apiKey !== undefined ? 0 : rec.keyVersion;
      const key = `{"type":"${rec.keyVersion}","data":${messageJson(rec.keySchema, rec.key, keyVersion)}}`;
      if (rec.value === null) return { key, payload: '<DELETE>', keyIsJson: true };
      let override: ((f: FieldSchema, v: JsonValue) => string | undefined) | undefined;
      if (rec.valueSchema!.name === 'GroupMetadataValue') override = groupMetadataOverride(rec.value);
      // TransactionLogMessageParser: the status as TransactionState.stateName().
      if (kind === 'txn')
        override = (f, v) => (f.n === 'transactionStatus' ? `"${TXN_STATES[v as number] ?? String(v)}"` : undefined);
      const data = messageJson(rec.valueSchema!, rec.value, rec.valueVersion, override);
      return { key, payload: `{"version":"${rec.valueVersion}","data":${data}}`, keyIsJson: true, payloadIsJson: true };
    } catch (e) {
      if (e instanceof UnknownRecordType)
        return { key: `Unknown record type ${e.type} at offset ${r.offset}, skipping.` };
      return { key: `Error at offset ${r.offset}, skipping. ${errMsg(e)}` };
    }
  };
}

const TXN_STATES = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
  'Dead',
  'PrepareEpochFence',
];

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

const METADATA_BY_KEY = new Map<number, MessageSchema>();
for (const s of Object.values(SCHEMAS))
  if (s.apiKey !== undefined && s.name.endsWith('Record') && !s.name.startsWith('KRaft'))
    METADATA_BY_KEY.set(s.apiKey, s);

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
      throw new Error(`Error while reading ${what}`);
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
  const s = METADATA_BY_KEY.get(type);
  if (!s) throw new Error(`org.apache.kafka.common.errors.UnsupportedVersionException: Unknown metadata id ${type}`);
  let data: JsonObject;
  try {
    data = readMessage(s, r, version);
  } catch (e) {
    throw new Error(`Failed to deserialize record with type ${type}`);
  }
  if (r.remaining > 0) throw new Error(`Found ${r.remaining} byte(s) of garbage after ${type}`);
  return `{"type":"${metadataTypeName(s.name)}","version":${version},"data":${messageJson(s, data, version)}}`;
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

/** KRaft control record values (SnapshotHeader, SnapshotFooter, KRaftVersion, KRaftVoters) as JSON. */
export function controlRecordJson(schemaName: string, value: Buffer | null): string {
  const s = schema(schemaName);
  if (value === null) throw new Error(`null value for ${schemaName}`);
  const m = readMessage(s, new Reader(value), 0);
  return messageJson(s, m, m.version as number);
}
