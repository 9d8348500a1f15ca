// Schema-driven decoding of Kafka "data" messages (metadata records, __consumer_offsets keys and
// values, KRaft control records, ...) and their JSON text exactly as Kafka's generated
// *JsonConverter.write + Jackson's JsonNode.toString print it: fields in schema order, only those
// present at the version, tagged fields only when not at their default, int64 as exact integers,
// bytes as base64, float64 as Java's Double.toString, strings escaped as Jackson does.
//
// The tables come from schemas.generated.ts (generated from the same JSON specs as the wire codec).
// Like Kafka's generated readers, nothing here checks the version against validVersions: a record
// written at a newer version is read with the fields whose version ranges include it.
import { Reader } from '../../protocol/codec/reader.js';

export type VersionRange = readonly [number, number];

export interface FieldSchema {
  /** camelCase name (the JSON key). */
  readonly n: string;
  /** Spec type: int8..int64, uint16, uint32, float64, bool, string, bytes, uuid, records, []T, T. */
  readonly t: string;
  readonly v: VersionRange | null;
  readonly tv?: VersionRange;
  readonly tag?: number;
  readonly nv?: VersionRange;
  /** Per-field flexibleVersions override (null = never flexible). */
  readonly fv?: VersionRange | null;
  /** Spec default, as text. */
  readonly d?: string;
  /** Fields of a struct (or struct array) type. */
  readonly f?: readonly FieldSchema[];
}

export interface MessageSchema {
  readonly name: string;
  readonly valid: VersionRange | null;
  readonly flex: VersionRange | null;
  readonly apiKey?: number;
  readonly fields: readonly FieldSchema[];
}

export type JsonValue = null | boolean | number | bigint | string | Buffer | JsonValue[] | { [k: string]: JsonValue };
type Obj = { [k: string]: JsonValue };

const inRange = (v: number, r: VersionRange | null | undefined): boolean => !!r && v >= r[0] && v <= r[1];

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const INT_TYPES = new Set(['int8', 'int16', 'int32', 'uint16', 'uint32']);

function parseIntDefault(d: string | undefined): number {
  if (d === undefined || d === '') return 0;
  return d.startsWith('0x') ? parseInt(d.slice(2), 16) : Number(d);
}

/** FieldSpec.fieldDefault: the value a field has when absent or untagged-default. */
export function fieldDefault(f: FieldSchema): JsonValue {
  const d = f.d;
  if (f.t.startsWith('[]')) return d === 'null' ? null : [];
  if (INT_TYPES.has(f.t)) return parseIntDefault(d);
  switch (f.t) {
    case 'int64':
      return BigInt(parseIntDefault(d));
    case 'float64':
      return d === undefined ? 0 : Number(d);
    case 'bool':
      return d === 'true';
    case 'string':
      return d === 'null' ? null : (d ?? '');
    case 'uuid':
      return d ?? ZERO_UUID;
    case 'bytes':
    case 'records':
      return d === 'null' || f.t === 'records' ? null : Buffer.alloc(0);
    default:
      return d === 'null' ? null : defaultStruct(f.f ?? []);
  }
}

function defaultStruct(fields: readonly FieldSchema[]): Obj {
  const o: Obj = {};
  for (const f of fields) o[f.n] = fieldDefault(f);
  return o;
}

function equalValues(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b)) return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => equalValues(x, b[i]!));
  }
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => equalValues(a[k]!, (b as Obj)[k]!));
}

/** FieldSpec.generateNonDefaultValueCheck, inverted: true when a tagged field is left out of the JSON. */
function isDefault(f: FieldSchema, v: number, value: JsonValue): boolean {
  const dflt = fieldDefault(f);
  const nullable = inRange(v, f.nv);
  if (f.t.startsWith('[]') || f.t === 'bytes') {
    if (dflt === null) return value === null;
    const len = value === null ? -1 : Buffer.isBuffer(value) ? value.length : (value as JsonValue[]).length;
    return nullable ? value !== null && len === 0 : len === 0;
  }
  if (f.t === 'string' || f.t === 'uuid' || !isPrimitive(f.t)) {
    if (dflt === null) return value === null;
    return value !== null && equalValues(value, dflt);
  }
  return value === dflt || (typeof value === 'bigint' && value === dflt);
}

const isPrimitive = (t: string): boolean =>
  INT_TYPES.has(t) || ['int64', 'float64', 'bool', 'string', 'uuid', 'bytes', 'records'].includes(t);

// ---------------------------------------------------------------------------------------------
// Reading

function readPrimitive(r: Reader, t: string, flexible: boolean, nullable: boolean, name: string): JsonValue {
  switch (t) {
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'int32':
      return r.int32();
    case 'uint16':
      return r.uint16();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return r.int64();
    case 'float64':
      return r.float64();
    case 'bool':
      return r.bool();
    case 'uuid':
      return r.uuid();
    case 'string': {
      const n = flexible ? r.uvarint() - 1 : r.int16();
      if (n < 0) {
        if (!nullable) throw new Error(`non-nullable field ${name} was serialized as null`);
        return null;
      }
      if (n > 0x7fff) throw new Error(`string field ${name} had invalid length ${n}`);
      r.need(n);
      const s = r.buf.toString('utf8', r.pos, r.pos + n);
      r.pos += n;
      return s;
    }
    case 'bytes':
    case 'records': {
      const n = flexible ? r.uvarint() - 1 : r.int32();
      if (n < 0) {
        if (!nullable) throw new Error(`non-nullable field ${name} was serialized as null`);
        return null;
      }
      return Buffer.from(r.raw(n));
    }
  }
  throw new Error(`unknown type ${t}`);
}

function readField(r: Reader, f: FieldSchema, v: number, flexible: boolean, tagged = false): JsonValue {
  const flex = f.fv !== undefined ? inRange(v, f.fv) : flexible;
  const nullable = inRange(v, f.nv);
  if (f.t.startsWith('[]')) {
    const n = flex ? r.uvarint() - 1 : r.int32();
    if (n < 0) {
      if (!nullable) throw new Error(`non-nullable field ${f.n} was serialized as null`);
      return null;
    }
    if (n > r.remaining)
      throw new Error(
        `Tried to allocate a collection of size ${n}, but there are only ${r.remaining} bytes remaining.`,
      );
    const elem = f.t.slice(2);
    const out: JsonValue[] = [];
    for (let i = 0; i < n; i++)
      out.push(f.f ? readStruct(r, f.f, v, flexible) : readPrimitive(r, elem, flex, false, f.n));
    return out;
  }
  if (isPrimitive(f.t)) return readPrimitive(r, f.t, flex, nullable, f.n);
  // A nullable struct is prefixed by an int8 (negative = null), or in a tagged field by a uvarint (0 = null).
  if (nullable && (tagged ? r.uvarint() <= 0 : r.int8() < 0)) return null;
  return readStruct(r, f.f ?? [], v, flexible);
}

function readStruct(r: Reader, fields: readonly FieldSchema[], v: number, flexible: boolean): Obj {
  const o: Obj = {};
  for (const f of fields) {
    if (!inRange(v, f.v) || inRange(v, f.tv)) o[f.n] = fieldDefault(f);
    else o[f.n] = readField(r, f, v, flexible);
  }
  if (flexible) {
    const count = r.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint();
      const size = r.uvarint();
      r.need(size);
      const f = fields.find((x) => x.tag === tag && inRange(v, x.tv) && inRange(v, x.v));
      if (!f) {
        r.pos += size;
        continue;
      }
      const sub = new Reader(r.buf, r.pos, r.pos + size);
      o[f.n] = readField(sub, f, v, flexible, true);
      r.pos += size;
    }
  }
  return o;
}

/** Reads a message body at `version` (as the generated `new X(readable, version)` does). */
export function readMessage(schema: MessageSchema, r: Reader, version: number): Obj {
  return readStruct(r, schema.fields, version, inRange(version, schema.flex));
}

// ---------------------------------------------------------------------------------------------
// Writing (Jackson text)

/** Jackson's string escaping: `"` `\`, short escapes for \b \t \n \f \r, other controls as \u00XX (upper hex). */
export function jacksonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c >= 0x20) out += s[i];
    else if (c === 0x08) out += '\\b';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0d) out += '\\r';
    else out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
  }
  return out + '"';
}

/** Java's Double.toString. */
export function javaDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return 'Infinity';
  if (d === -Infinity) return '-Infinity';
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0';
  const a = Math.abs(d);
  if (a >= 1e-3 && a < 1e7) {
    const s = String(d);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mant, exp] = d.toExponential().split('e') as [string, string];
  return `${mant.includes('.') ? mant : `${mant}.0`}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** Replaces the JSON of a field value (e.g. consumer protocol bytes decoded as JSON); undefined = default. */
export type JsonOverride = (field: FieldSchema, value: JsonValue) => string | undefined;

function writeValue(f: FieldSchema, t: string, value: JsonValue, v: number, ov?: JsonOverride): string {
  if (value === null) return 'null';
  if (ov && t === f.t) {
    const o = ov(f, value);
    if (o !== undefined) return o;
  }
  if (t.startsWith('[]')) {
    const elem = t.slice(2);
    return `[${(value as JsonValue[]).map((x) => writeValue(f, f.f ? '' : elem, x, v, ov)).join(',')}]`;
  }
  switch (t) {
    case 'float64':
      return javaDouble(value as number);
    case 'string':
    case 'uuid':
      return jacksonString(value as string);
    case 'bytes':
    case 'records':
      return `"${(value as Buffer).toString('base64')}"`;
    case 'bool':
      return value ? 'true' : 'false';
  }
  if (typeof value === 'number' || typeof value === 'bigint') return value.toString();
  return writeStruct(value as Obj, f.f ?? [], v, ov);
}

function writeStruct(o: Obj, fields: readonly FieldSchema[], v: number, ov?: JsonOverride): string {
  const parts: string[] = [];
  for (const f of fields) {
    if (!inRange(v, f.v)) continue;
    const value = o[f.n] ?? null;
    if (inRange(v, f.tv) && isDefault(f, v, value)) continue;
    parts.push(`${jacksonString(f.n)}:${writeValue(f, f.t, value, v, ov)}`);
  }
  return `{${parts.join(',')}}`;
}

/** The message as Kafka's `XJsonConverter.write(message, version).toString()`. */
export function messageJson(schema: MessageSchema, message: Obj, version: number, override?: JsonOverride): string {
  return writeStruct(message, schema.fields, version, override);
}

export type { Obj as JsonObject };
