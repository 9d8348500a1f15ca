// Client quotas on the controller (src/broker/controller/client-quotas.ts) on the cases of Kafka's
// ClientQuotaControlManagerTest: invalid entities and keys, alter and remove, every entity type, the
// IP entity check, and the ClientQuotaRecords read back into the metadata image.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  alterClientQuotas,
  entityToString,
  unresolvableIpNames,
  validateQuotaKeyValue,
} from '../src/broker/controller/client-quotas.js';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage } from '../src/broker/metadata/image.js';
import type { AlterClientQuotasRequestEntryData } from '../src/protocol/generated/protocol/AlterClientQuotas.js';
import {
  deserializeMetadataRecord,
  serializeMetadataRecord,
  type MetadataRecord,
} from '../src/protocol/metadata-records.js';
import { ErrorCode } from '../src/protocol/errors.js';

type Entity = [string, string | null][];

function entry(entity: Entity, ops: [string, number | null][]): AlterClientQuotasRequestEntryData {
  return {
    entity: entity.map(([entityType, entityName]) => ({ entityType, entityName })),
    ops: ops.map(([key, v]) => ({ key, value: v ?? 0, remove: v === null })),
  };
}

function replay(image: MetadataImage, records: MetadataRecord[]): MetadataImage {
  const builder = new ImageBuilder(image);
  for (const r of records) builder.apply(deserializeMetadataRecord(serializeMetadataRecord(r)));
  return builder.build({ offset: image.offset + records.length, epoch: 1, lastContainedLogTimeMs: -1 });
}

/** alterQuotas of the Java test: every result a success, the records replayed. */
function alter(image: MetadataImage, entries: AlterClientQuotasRequestEntryData[]): MetadataImage {
  const { records, results } = alterClientQuotas(image, entries);
  for (const r of results) assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  return replay(image, records);
}

function quotasOf(image: MetadataImage, entity: Entity): Record<string, number> | undefined {
  for (const q of image.clientQuotas.values()) {
    const names = new Map(q.entries.map((e) => [e.entityType, e.entityName]));
    if (names.size === entity.length && entity.every(([t, n]) => names.has(t) && names.get(t) === n))
      return Object.fromEntries(q.quotas);
  }
  return undefined;
}

function assertInvalid(entity: Entity, ops: [string, number | null][], message?: string): void {
  const { records, results } = alterClientQuotas(MetadataImage.empty('c'), [entry(entity, ops)]);
  assert.equal(results.length, 1);
  assert.equal(results[0]!.errorCode, ErrorCode.INVALID_REQUEST, JSON.stringify(entity));
  if (message !== undefined) assert.equal(results[0]!.errorMessage, message);
  assert.equal(records.length, 0);
}

test('testInvalidEntityTypes: unknown types, bad combinations, the empty entity', () => {
  const p: [string, number][] = [['producer_byte_rate', 10000]];
  assertInvalid([['foo', 'bar']], p, 'Unhandled client quota entity type: foo');
  assertInvalid([['', 'name']], p, 'Unhandled client quota entity type: ');
  assertInvalid(
    [
      ['user', 'user-1'],
      ['foo', 'bar'],
    ],
    p,
  );
  assertInvalid(
    [
      ['foo', 'bar'],
      ['ip', '1.2.3.4'],
    ],
    p,
  );
  const combo = 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId';
  assertInvalid(
    [
      ['user', 'user-1'],
      ['ip', '1.2.3.4'],
    ],
    p,
    combo,
  );
  assertInvalid(
    [
      ['client-id', 'user-1'],
      ['ip', '1.2.3.4'],
    ],
    p,
    combo,
  );
  assertInvalid([], p, 'Invalid empty client quota entity');
  assertInvalid([['user', '']], p, 'Empty user not supported');
});

test('testInvalidQuotaKeys: an unknown key with a valid one fails the entity, either order', () => {
  const user: Entity = [['user', 'user-1']];
  assertInvalid(
    user,
    [
      ['not.a.quota.key', 0],
      ['request_percentage', 99.9],
    ],
    'Invalid configuration key not.a.quota.key',
  );
  assertInvalid(
    user,
    [
      ['request_percentage', 99.9],
      ['not.a.quota.key', 0],
    ],
    'Invalid configuration key not.a.quota.key',
  );
  // the ip key on a user, a user key on an ip
  assertInvalid(user, [['connection_creation_rate', 10]], 'Invalid configuration key connection_creation_rate');
  assertInvalid([['ip', '1.2.3.4']], [['producer_byte_rate', 10]], 'Invalid configuration key producer_byte_rate');
});

test('validateQuotaKeyValue: positive, integral for LONG/INT, within range', () => {
  const { records, results } = alterClientQuotas(MetadataImage.empty('c'), [
    entry([['user', 'a']], [['producer_byte_rate', 0]]),
    entry([['user', 'b']], [['consumer_byte_rate', 1.5]]),
    entry([['user', 'c']], [['producer_byte_rate', 2 ** 64]]),
    entry([['ip', '10.0.0.1']], [['connection_creation_rate', 2 ** 31]]),
    entry([['client-id', 'd']], [['request_percentage', 0.25]]),
  ]);
  const byName = new Map(results.map((r) => [r.entity[0]!.entityName, r]));
  assert.equal(byName.get('a')!.errorMessage, 'Quota producer_byte_rate must be greater than 0');
  assert.equal(byName.get('b')!.errorMessage, 'consumer_byte_rate cannot be a fractional value.');
  assert.equal(byName.get('c')!.errorMessage, 'Proposed value for producer_byte_rate is too large for a LONG.');
  assert.equal(
    byName.get('10.0.0.1')!.errorMessage,
    'Proposed value for connection_creation_rate is too large for an INT.',
  );
  assert.equal(byName.get('d')!.errorCode, ErrorCode.NONE);
  assert.equal(byName.get('d')!.errorMessage, null);
  // only the valid entity wrote its record
  assert.equal(records.length, 1);
  const keys = new Map([['controller_mutation_rate', 'DOUBLE' as const]]);
  assert.equal(validateQuotaKeyValue(keys, 'controller_mutation_rate', -1).errorCode, ErrorCode.INVALID_REQUEST);
});

test('testAlterAndRemove: set, replace, remove, remove an absent key, mixed', () => {
  const user: Entity = [['user', 'user-1']];
  let image = alter(MetadataImage.empty('c'), [entry(user, [['producer_byte_rate', 10000]])]);
  assert.deepEqual(quotasOf(image, user), { producer_byte_rate: 10000 });
  image = alter(image, [
    entry(user, [
      ['producer_byte_rate', 10001],
      ['consumer_byte_rate', 20000],
    ]),
  ]);
  assert.deepEqual(quotasOf(image, user), { producer_byte_rate: 10001, consumer_byte_rate: 20000 });
  image = alter(image, [entry(user, [['producer_byte_rate', null]])]);
  assert.deepEqual(quotasOf(image, user), { consumer_byte_rate: 20000 });
  // removing an absent key writes nothing
  assert.equal(alterClientQuotas(image, [entry(user, [['request_percentage', null]])]).records.length, 0);
  // setting the same value writes nothing
  assert.equal(alterClientQuotas(image, [entry(user, [['consumer_byte_rate', 20000]])]).records.length, 0);
  image = alter(image, [entry(user, [['consumer_byte_rate', null]])]);
  assert.equal(quotasOf(image, user), undefined);
  image = alter(image, [
    entry(user, [
      ['request_percentage', 99],
      ['controller_mutation_rate', null],
      ['producer_byte_rate', 10002],
      ['consumer_byte_rate', 20001],
    ]),
  ]);
  assert.deepEqual(quotasOf(image, user), {
    request_percentage: 99,
    producer_byte_rate: 10002,
    consumer_byte_rate: 20001,
  });
});

test('testEntityTypes: every combination of user and client-id, defaults (null names) included', () => {
  const cases: [Entity, number][] = [
    [
      [
        ['user', 'user-1'],
        ['client-id', 'client-id-1'],
      ],
      50.5,
    ],
    [
      [
        ['user', 'user-2'],
        ['client-id', 'client-id-1'],
      ],
      51.51,
    ],
    [
      [
        ['user', 'user-3'],
        ['client-id', 'client-id-2'],
      ],
      52.52,
    ],
    [
      [
        ['user', null],
        ['client-id', 'client-id-1'],
      ],
      53.53,
    ],
    [
      [
        ['user', 'user-1'],
        ['client-id', null],
      ],
      54.54,
    ],
    [
      [
        ['user', 'user-3'],
        ['client-id', null],
      ],
      55.55,
    ],
    [[['user', 'user-1']], 56.56],
    [[['user', 'user-2']], 57.57],
    [[['user', 'user-3']], 58.58],
    [[['user', null]], 59.59],
    [[['client-id', 'client-id-2']], 60.6],
  ];
  const { records, results } = alterClientQuotas(
    MetadataImage.empty('c'),
    cases.map(([e, v]) => entry(e, [['request_percentage', v]])),
  );
  assert.equal(results.length, cases.length);
  assert.ok(results.every((r) => r.errorCode === ErrorCode.NONE));
  assert.equal(records.length, cases.length);
  // Kafka writes the entity of a record in HashMap order: client-id before user
  const r0 = records.find((r) => (r.data as { value: number }).value === 50.5)!;
  assert.deepEqual((r0.data as { entity: unknown }).entity, [
    { entityType: 'client-id', entityName: 'client-id-1' },
    { entityType: 'user', entityName: 'user-1' },
  ]);
  const image = replay(MetadataImage.empty('c'), records);
  for (const [e, v] of cases) assert.deepEqual(quotasOf(image, e), { request_percentage: v });
});

test('duplicate keys and duplicate entities: Kafka messages, no records for them', () => {
  const user: Entity = [['user', 'u']];
  const dupKey = alterClientQuotas(MetadataImage.empty('c'), [
    entry(user, [
      ['producer_byte_rate', 1000],
      ['producer_byte_rate', 2000],
    ]),
  ]);
  // the duplicate key is reported, then overwritten by the duplicate-entity check (sic, Kafka)
  assert.deepEqual(dupKey.results[0], {
    errorCode: ErrorCode.INVALID_REQUEST,
    errorMessage: 'Ignoring duplicate entity ClientQuotaEntity(entries={user=u})',
    entity: [{ entityType: 'user', entityName: 'u' }],
  });
  assert.equal(dupKey.records.length, 0);
  const dupEntity = alterClientQuotas(MetadataImage.empty('c'), [
    entry(user, [['producer_byte_rate', 1000]]),
    entry(user, [['consumer_byte_rate', 1000]]),
  ]);
  assert.equal(dupEntity.results.length, 1);
  assert.equal(dupEntity.results[0]!.errorMessage, 'Ignoring duplicate entity ClientQuotaEntity(entries={user=u})');
  // the first alteration's records stay (ControllerResult.atomicOf of all records)
  assert.equal(dupEntity.records.length, 1);
  assert.equal(
    entityToString(
      new Map([
        ['user', null],
        ['client-id', 'c'],
      ]),
    ),
    'ClientQuotaEntity(entries={client-id=c, user=null})',
  );
});

test('IP entities: address literals and the default are valid, an unresolvable host is not', async () => {
  const entries = [
    entry([['ip', '127.0.0.1']], [['connection_creation_rate', 10]]),
    entry([['ip', '::1']], [['connection_creation_rate', 10]]),
    entry([['ip', null]], [['connection_creation_rate', 10]]),
    entry([['ip', 'example.invalid']], [['connection_creation_rate', 10]]),
  ];
  const bad = await unresolvableIpNames(entries);
  assert.deepEqual([...bad], ['example.invalid']);
  const { results, records } = alterClientQuotas(MetadataImage.empty('c'), entries, bad);
  const byName = new Map(results.map((r) => [r.entity[0]!.entityName, r]));
  assert.equal(byName.get('example.invalid')!.errorMessage, 'example.invalid is not a valid IP or resolvable host.');
  for (const n of ['127.0.0.1', '::1', null]) assert.equal(byName.get(n)!.errorCode, ErrorCode.NONE);
  assert.equal(records.length, 3);
});
