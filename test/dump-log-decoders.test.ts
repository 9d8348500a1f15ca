// dump-log prints records with the codec generated from Kafka 4.4's specs: the generated JSON
// writers (src/protocol/generated/json.ts, Kafka's JsonConverter rules) against an independent
// reading of those rules over the generator's models. Random messages of every metadata,
// __consumer_offsets, __transaction_state and __share_group_state record type and of the KRaft
// control and consumer-protocol messages, at every version, written and read back with the generated
// codec, must print as the rules say: fields in schema order, only those of the version, tagged
// fields only when not at their default, int64 exact, bytes as base64, Jackson's string escapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Reader } from '../src/protocol/codec/reader.js';
import { Writer } from '../src/protocol/codec/writer.js';
import { javaDouble, jsonString } from '../src/protocol/codec/json.js';
import { JSON_WRITERS } from '../src/protocol/generated/json.js';
import { METADATA_RECORDS } from '../src/protocol/generated/records.js';
import { decodeMetadataRecord, metadataTypeName, txnPartitionOrder } from '../src/tools/dump-log/decoders.js';
import { javaUtf8 } from '../src/tools/dump-log/java-utf8.js';
import {
  defaultValue,
  inRange,
  loadModels,
  randomStruct,
  rng,
  type FieldModel,
  type GenModel,
  type SpecModel,
  type StructModel,
} from './helpers/spec-models.js';

const JSON_GROUPS = ['metadata', 'group', 'txn', 'share'];
const DATA_MESSAGES = [
  'ConsumerProtocolSubscription',
  'ConsumerProtocolAssignment',
  'SnapshotHeaderRecord',
  'SnapshotFooterRecord',
  'KRaftVersionRecord',
  'VotersRecord',
  'LeaderChangeMessage',
];

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).filter((k) => k !== '_unknownTaggedFields');
    const o = b as Record<string, unknown>;
    return ka.every((k) => sameValue((a as Record<string, unknown>)[k], o[k]));
  }
  return false;
}

/** The rules, read independently of the generator's code: what Kafka's converter prints. */
function expectedJson(g: GenModel, st: StructModel, m: Record<string, unknown>, v: number): string {
  const parts: string[] = [];
  for (const f of st.fields) {
    if (!inRange(f.versions, v)) continue;
    const value = m[f.prop] ?? null;
    if (inRange(f.tagged, v) && sameValue(value, defaultValue(g, f))) continue;
    parts.push(`${jsonString(f.prop)}:${expectedValue(g, f, value, v, f.isArray)}`);
  }
  return `{${parts.join(',')}}`;
}

function expectedValue(g: GenModel, f: FieldModel, value: unknown, v: number, array: boolean): string {
  if (value === null) return 'null';
  if (array) return `[${(value as unknown[]).map((e) => expectedValue(g, f, e, v, false)).join(',')}]`;
  if (f.isStruct) return expectedJson(g, g.struct(f.elem), value as Record<string, unknown>, v);
  if (f.elem === 'float64') return javaDouble(value as number);
  if (f.elem === 'string' || f.elem === 'uuid') return jsonString(value as string);
  if (f.elem === 'bytes' || f.elem === 'records') return `"${(value as Buffer).toString('base64')}"`;
  return String(value);
}

interface Codec {
  read: (r: Reader, v: number) => Record<string, unknown>;
  write: (w: Writer, v: number, m: unknown) => void;
}

async function codecOf(m: SpecModel): Promise<Codec> {
  const mod = m.group === 'protocol' ? m.spec.name : m.spec.name.replace(/(Key|Value)$/, '');
  const ns = (await import(`../src/protocol/generated/${m.group}/${mod}.js`)) as Record<string, unknown>;
  return { read: ns[`read${m.spec.name}`] as Codec['read'], write: ns[`write${m.spec.name}`] as Codec['write'] };
}

test("the generated JSON writers print every dump-log message as Kafka's JsonConverter rules say, at every version", async () => {
  const models = (await loadModels()).filter(
    (m) => JSON_GROUPS.includes(m.group) || (m.group === 'protocol' && DATA_MESSAGES.includes(m.spec.name)),
  );
  assert.equal(new Set(models.map((m) => m.spec.name)).size, Object.keys(JSON_WRITERS).length);
  const rnd = rng(20241025);
  let n = 0;
  for (const m of models) {
    const codec = await codecOf(m);
    const json = JSON_WRITERS[m.spec.name]!;
    for (let v = m.gen.valid[0]; v <= m.gen.valid[1]; v++) {
      for (let i = 0; i < 8; i++) {
        const w = new Writer(64);
        try {
          codec.write(w, v, randomStruct(m.gen, m.gen.root, v, rnd));
        } catch {
          continue; // e.g. a non-default value of a field this version cannot carry
        }
        const message = codec.read(new Reader(w.toBuffer()), v);
        const text = json(message, v);
        assert.equal(text, expectedJson(m.gen, m.gen.root, message, v), `${m.spec.name} v${v}`);
        assert.doesNotThrow(() => JSON.parse(text), `${m.spec.name} v${v}: ${text}`);
        n++;
      }
    }
  }
  assert.ok(n > 500, `${n} messages`);
});

test('metadata frames: type names, versions, and MetadataRecordSerde errors', () => {
  assert.equal(metadataTypeName('ZkMigrationStateRecord'), 'ZK_MIGRATION_STATE_RECORD');
  assert.equal(metadataTypeName('RegisterBrokerRecord'), 'REGISTER_BROKER_RECORD');
  const topic = METADATA_RECORDS.find((r) => r.name === 'TopicRecord')!;
  const w = new Writer(32);
  w.uvarint(1);
  w.uvarint(2);
  w.uvarint(0);
  topic.write(w, 0, { name: 'orders', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' });
  assert.equal(
    decodeMetadataRecord(w.toBuffer()),
    '{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}}',
  );
  assert.throws(() => decodeMetadataRecord(Buffer.from([0, 2, 0])), /frame version 0/);
  assert.throws(() => decodeMetadataRecord(Buffer.from([1, 99, 0])), /Unknown metadata id 99/);
  assert.throws(
    () => decodeMetadataRecord(Buffer.concat([w.toBuffer(), Buffer.from([1])])),
    /Found 1 byte\(s\) of garbage after 2/,
  );
});

test('Jackson text: string escapes and Java doubles', () => {
  assert.equal(jsonString('a"b\\c\u0001\n\t/é'), '"a\\"b\\\\c\\u0001\\n\\t/é"');
  assert.equal(jsonString('\u001f'), '"\\u001F"');
  assert.equal(javaDouble(1048576.5), '1048576.5');
  assert.equal(javaDouble(1e7), '1.0E7');
  assert.equal(javaDouble(100), '100.0');
  assert.equal(javaDouble(0.001), '0.001');
  assert.equal(javaDouble(1.5e-7), '1.5E-7');
  assert.equal(javaDouble(-0), '-0.0');
});

test("payload text as Java's new String(bytes, UTF_8) (checked against OpenJDK 17): malformed input replaced as the JDK does", () => {
  const java = (hex: string): string => javaUtf8(Buffer.from(hex, 'hex'));
  assert.equal(java('6b61666b61e282ac'), 'kafka€');
  assert.equal(java('f09f9880'), '😀');
  assert.equal(java('eda080'), '\ufffd'); // a surrogate in 3 bytes: one U+FFFD (Buffer.toString gives three)
  assert.equal(java('eda0'), '\ufffd');
  assert.equal(java('e0c0edbf'), '\ufffd\ufffd\ufffd');
  assert.equal(java('41e282'), 'A\ufffd');
  assert.equal(java('41f09f'), 'A\ufffd');
  assert.equal(java('f09f41'), '\ufffdA');
  assert.equal(java('8060eda0'), '\ufffd`\ufffd');
});

test("transaction partitions in the order of Kafka's Scala HashSet (checked against Kafka 4.0.0)", () => {
  assert.deepEqual(
    txnPartitionOrder([
      { topic: 'x', partitionIds: [3, 1] },
      { topic: 'y', partitionIds: [0] },
      { topic: 'z', partitionIds: [5, 4, 3, 2, 1] },
    ]),
    ['x-3', 'z-5', 'z-4', 'x-1', 'z-3', 'z-2', 'y-0', 'z-1'],
  );
  assert.deepEqual(
    txnPartitionOrder([
      { topic: 'orders', partitionIds: [0, 1, 2, 3] },
      { topic: 'payments', partitionIds: [0, 1, 2, 3] },
      { topic: 'events', partitionIds: [0, 1, 2, 3] },
      { topic: 'audit', partitionIds: [7] },
    ]),
    [
      'payments-3',
      'payments-0',
      'payments-2',
      'payments-1',
      'events-3',
      'audit-7',
      'orders-0',
      'orders-1',
      'orders-2',
      'orders-3',
      'events-0',
      'events-1',
      'events-2',
    ],
  );
});
