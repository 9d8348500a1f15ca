// Kafka's DefaultMessageFormatter (print.timestamp, print.partition, print.offset, print.delivery,
// print.epoch, print.headers, print.key, print.value, key.separator, line.separator,
// headers.separator, null.literal, key/value/headers deserializers), writing raw bytes as Kafka
// does, plus tkafka's `key.encoding` / `value.encoding` / `headers.encoding` (text, base64, hex)
// for records that are not text, and the JSON-lines record shape of `--output json`.
import type { ConsumerRecord } from '../../client/consumer.js';

export type Encoding = 'text' | 'base64' | 'hex';
export const ENCODINGS: readonly Encoding[] = ['text', 'base64', 'hex'];

export class FormatterError extends Error {
  override name = 'FormatterError';
}

type Deserializer = (data: Buffer) => Buffer;

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

function sized(name: string, n: number, read: (b: Buffer) => string): Deserializer {
  return (b) => {
    if (b.length !== n) throw new FormatterError(`Size of data received by ${name} is not ${n}`);
    return utf8(read(b));
  };
}

/** Kafka's Java float/double toString for common values (integers print with `.0`). */
function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return `${v}.0`;
  const s = String(v);
  return /e/.test(s) ? s.replace(/e\+?/, 'E') : s;
}

/** org.apache.kafka.common.utils.Bytes.toString: printable ASCII as is, others as \xNN. */
function bytesToString(b: Buffer): string {
  let out = '';
  for (const c of b)
    out +=
      c >= 0x20 && c < 0x7f && c !== 0x5c
        ? String.fromCharCode(c)
        : `\\x${c.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const DESERIALIZERS: Record<string, Deserializer> = {
  StringDeserializer: (b) => utf8(b.toString('utf8')),
  ByteArrayDeserializer: (b) => b,
  ByteBufferDeserializer: (b) => b,
  BytesDeserializer: (b) => utf8(bytesToString(b)),
  VoidDeserializer: () => utf8('null'),
  LongDeserializer: sized('LongDeserializer', 8, (b) => b.readBigInt64BE(0).toString()),
  IntegerDeserializer: sized('IntegerDeserializer', 4, (b) => String(b.readInt32BE(0))),
  ShortDeserializer: sized('ShortDeserializer', 2, (b) => String(b.readInt16BE(0))),
  DoubleDeserializer: sized('DoubleDeserializer', 8, (b) => javaDouble(b.readDoubleBE(0))),
  FloatDeserializer: sized('FloatDeserializer', 4, (b) => javaDouble(Math.fround(b.readFloatBE(0)))),
  BooleanDeserializer: (b) => {
    if (b.length !== 1) throw new FormatterError('Size of data received by BooleanDeserializer is not 1');
    return utf8(b[0] !== 0 ? 'true' : 'false');
  },
  UUIDDeserializer: (b) => utf8(b.toString('utf8')),
};

/** A deserializer by Kafka class name (`org.apache.kafka.common.serialization.LongDeserializer`) or simple name. */
export function deserializerFor(name: string): Deserializer | null {
  const simple = name.startsWith('org.apache.kafka.common.serialization.')
    ? name.slice('org.apache.kafka.common.serialization.'.length)
    : name;
  return DESERIALIZERS[simple] ?? null;
}

export function parseEncoding(value: string | undefined, prop: string): Encoding {
  if (value === undefined) return 'text';
  const v = value.trim().toLowerCase();
  if (v === 'text' || v === 'utf8' || v === 'utf-8') return 'text';
  if (v === 'base64' || v === 'hex') return v;
  throw new FormatterError(`Invalid value '${value}' for ${prop}: expected text, base64 or hex`);
}

export function encode(b: Buffer, e: Encoding): Buffer {
  return e === 'text' ? b : utf8(b.toString(e));
}

export interface FormatterConfig {
  printTimestamp: boolean;
  printKey: boolean;
  printValue: boolean;
  printPartition: boolean;
  printOffset: boolean;
  printDelivery: boolean;
  printEpoch: boolean;
  printHeaders: boolean;
  keySeparator: Buffer;
  lineSeparator: Buffer;
  headersSeparator: Buffer;
  nullLiteral: Buffer;
  keyDeserializer: Deserializer | null;
  valueDeserializer: Deserializer | null;
  headersDeserializer: Deserializer | null;
  keyEncoding: Encoding;
  valueEncoding: Encoding;
  headersEncoding: Encoding;
}

const bool = (v: string): boolean => v.trim().toLowerCase() === 'true';

/** DefaultMessageFormatter.configure; `warn` receives Kafka's "Unable to instantiate" errors. */
export function formatterConfig(props: Map<string, string>, warn: (msg: string) => void): FormatterConfig {
  const b = (k: string, d: boolean): boolean => (props.has(k) ? bool(props.get(k)!) : d);
  const bytes = (k: string, d: string): Buffer => utf8(props.get(k) ?? d);
  const deser = (k: string): Deserializer | null => {
    const name = props.get(k);
    if (name === undefined) return null;
    const d = deserializerFor(name);
    if (!d) warn(`Unable to instantiate a deserializer from ${name}`);
    return d;
  };
  return {
    printTimestamp: b('print.timestamp', false),
    printKey: b('print.key', false),
    printValue: b('print.value', true),
    printPartition: b('print.partition', false),
    printOffset: b('print.offset', false),
    printDelivery: b('print.delivery', false),
    printEpoch: b('print.epoch', false),
    printHeaders: b('print.headers', false),
    keySeparator: bytes('key.separator', '\t'),
    lineSeparator: bytes('line.separator', '\n'),
    headersSeparator: bytes('headers.separator', ','),
    nullLiteral: bytes('null.literal', 'null'),
    keyDeserializer: deser('key.deserializer'),
    valueDeserializer: deser('value.deserializer'),
    headersDeserializer: deser('headers.deserializer'),
    keyEncoding: parseEncoding(props.get('key.encoding'), 'key.encoding'),
    valueEncoding: parseEncoding(props.get('value.encoding'), 'value.encoding'),
    headersEncoding: parseEncoding(props.get('headers.encoding'), 'headers.encoding'),
  };
}

function field(c: FormatterConfig, d: Deserializer | null, bytes: Buffer | null, e: Encoding): Buffer {
  if (bytes === null) return d ? d(c.nullLiteral) : c.nullLiteral;
  const raw = d ? d(bytes) : bytes;
  return encode(raw, e);
}

/** DefaultMessageFormatter.writeTo: the bytes printed for one record. */
export function formatRecord(c: FormatterConfig, r: ConsumerRecord): Buffer {
  const parts: Buffer[] = [];
  const sep = (more: boolean): void => {
    parts.push(more ? c.keySeparator : c.lineSeparator);
  };
  if (c.printTimestamp) {
    parts.push(utf8(r.timestampType === 'NO_TIMESTAMP_TYPE' ? 'NO_TIMESTAMP' : `${r.timestampType}:${r.timestamp}`));
    sep(
      c.printPartition ||
        c.printOffset ||
        c.printDelivery ||
        c.printEpoch ||
        c.printHeaders ||
        c.printKey ||
        c.printValue,
    );
  }
  if (c.printPartition) {
    parts.push(utf8(`Partition:${r.partition}`));
    sep(c.printOffset || c.printDelivery || c.printEpoch || c.printHeaders || c.printKey || c.printValue);
  }
  if (c.printOffset) {
    parts.push(utf8(`Offset:${r.offset}`));
    sep(c.printDelivery || c.printEpoch || c.printHeaders || c.printKey || c.printValue);
  }
  if (c.printDelivery) {
    // a share consumer's records carry their delivery count (ShareFetch's acquired records)
    parts.push(utf8(`Delivery:${(r as { deliveryCount?: number }).deliveryCount ?? 'NOT_PRESENT'}`));
    sep(c.printEpoch || c.printHeaders || c.printKey || c.printValue);
  }
  if (c.printEpoch) {
    // The console consumer hands the formatter a copy of the record without its leader epoch.
    parts.push(utf8('Epoch:NOT_PRESENT'));
    sep(c.printHeaders || c.printKey || c.printValue);
  }
  if (c.printHeaders) {
    if (r.headers.length === 0) parts.push(utf8('NO_HEADERS'));
    r.headers.forEach((h, i) => {
      parts.push(utf8(`${h.key}:`), field(c, c.headersDeserializer, h.value, c.headersEncoding));
      if (i < r.headers.length - 1) parts.push(c.headersSeparator);
    });
    sep(c.printKey || c.printValue);
  }
  if (c.printKey) {
    parts.push(field(c, c.keyDeserializer, r.key, c.keyEncoding));
    sep(c.printValue);
  }
  if (c.printValue) {
    parts.push(field(c, c.valueDeserializer, r.value, c.valueEncoding), c.lineSeparator);
  }
  return Buffer.concat(parts);
}

const isUtf8 = (b: Buffer): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};

/** A value in JSON: text when it is valid UTF-8 (or as asked), else base64; with the encoding used. */
function jsonBytes(b: Buffer | null, e: Encoding, d: Deserializer | null): { value: string | null; encoding: string } {
  if (b === null) return { value: null, encoding: e === 'text' ? 'utf8' : e };
  const raw = d ? d(b) : b;
  if (e !== 'text') return { value: raw.toString(e), encoding: e };
  return isUtf8(raw)
    ? { value: raw.toString('utf8'), encoding: 'utf8' }
    : { value: raw.toString('base64'), encoding: 'base64' };
}

/**
 * One record of `--output json` (one JSON object per line): topic, partition, offset, timestamp,
 * timestampType, leaderEpoch, headers [{key, value, valueEncoding}], key, keyEncoding, value,
 * valueEncoding. Encodings are `utf8`, `base64` or `hex`; bytes that are not UTF-8 are base64.
 */
export function jsonRecord(c: FormatterConfig, r: ConsumerRecord): Record<string, unknown> {
  const k = jsonBytes(r.key, c.keyEncoding, c.keyDeserializer);
  const v = jsonBytes(r.value, c.valueEncoding, c.valueDeserializer);
  return {
    topic: r.topic,
    partition: r.partition,
    offset: Number(r.offset),
    timestamp: r.timestamp,
    timestampType: r.timestampType,
    leaderEpoch: r.leaderEpoch,
    headers: r.headers.map((h) => {
      const x = jsonBytes(h.value, c.headersEncoding, c.headersDeserializer);
      return { key: h.key, value: x.value, valueEncoding: x.encoding };
    }),
    key: k.value,
    keyEncoding: k.encoding,
    value: v.value,
    valueEncoding: v.encoding,
  };
}

/** One row of `--output table`. */
export function tableRow(c: FormatterConfig, r: ConsumerRecord): (string | number)[] {
  const text = (b: Buffer | null, e: Encoding, d: Deserializer | null): string => {
    const j = jsonBytes(b, e, d);
    return j.value === null ? c.nullLiteral.toString('utf8') : j.value;
  };
  return [
    r.partition,
    Number(r.offset),
    r.timestampType === 'NO_TIMESTAMP_TYPE' ? '' : `${r.timestampType}:${r.timestamp}`,
    r.headers.map((h) => `${h.key}:${text(h.value, c.headersEncoding, c.headersDeserializer)}`).join(','),
    text(r.key, c.keyEncoding, c.keyDeserializer),
    text(r.value, c.valueEncoding, c.valueDeserializer),
  ];
}
