// Client quotas on the controller (Kafka's ClientQuotaControlManager.alterClientQuotas): one
// AlterClientQuotas request checked per entity (entity types user / client-id / ip, their valid
// combinations, the keys each allows with QuotaConfig's types, positive and integral values, an IP
// entity that is an address or a resolvable host), then one ClientQuotaRecord per changed key (a
// removal of an absent key or a set to the same value writes nothing). An entity that fails writes no
// record; the others still do. Results come in the order of Kafka's HashMap<ClientQuotaEntity, ApiError>.
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type {
  AlterClientQuotasRequestEntryData,
  AlterClientQuotasResponseEntryData,
} from '../../protocol/generated/protocol/AlterClientQuotas.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { javaStringHash } from '../../config/properties.js';
import type { MetadataImage } from '../metadata/image.js';
import { quotaEntityKey } from '../metadata/delta.js';
import { apiError, NONE, ErrorCode, type ApiError } from './errors.js';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

type KeyType = 'LONG' | 'DOUBLE' | 'INT';
/** QuotaConfig.userAndClientQuotaConfigs(). */
const USER_AND_CLIENT_KEYS: ReadonlyMap<string, KeyType> = new Map<string, KeyType>([
  ['producer_byte_rate', 'LONG'],
  ['consumer_byte_rate', 'LONG'],
  ['request_percentage', 'DOUBLE'],
  ['controller_mutation_rate', 'DOUBLE'],
]);
/** QuotaConfig.ipConfigs(). */
const IP_KEYS: ReadonlyMap<string, KeyType> = new Map<string, KeyType>([['connection_creation_rate', 'INT']]);

/** An entity as Kafka's ClientQuotaEntity: a map of entity type to name (null: the default). */
export type QuotaEntity = ReadonlyMap<string, string | null>;

/** Java's HashMap<String, String>.hashCode()/Objects.hash(entries): ClientQuotaEntity.hashCode. */
function entityHash(entity: QuotaEntity): number {
  let h = 0;
  for (const [k, v] of entity) h = (h + (javaStringHash(k) ^ (v === null ? 0 : javaStringHash(v)))) | 0;
  return (31 + h) | 0;
}

/**
 * The iteration order of a `new java.util.HashMap<>(initialCapacity)` filled with `keys` (a key put
 * twice keeps its first place; buckets in index order, a bucket in insertion order).
 */
function hashMapOrder<K>(keys: readonly K[], hash: (k: K) => number, initialCapacity = 16): K[] {
  let cap = 1;
  while (cap < initialCapacity) cap *= 2;
  let threshold = Math.floor(cap * 0.75);
  for (let size = 1; size <= keys.length; size++) {
    if (size > threshold) {
      cap *= 2;
      threshold = Math.floor(cap * 0.75);
    }
  }
  const bucket = (k: K): number => {
    const h = hash(k);
    return (h ^ (h >>> 16)) & (cap - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((a, b) => a.b - b.b || a.i - b.i)
    .map((e) => e.k);
}

/** The entity's types as the request's `new HashMap<>(entity.size())` iterates them. */
function orderedTypes(entity: QuotaEntity): string[] {
  return hashMapOrder([...entity.keys()], javaStringHash, entity.size);
}

/** The types of validatedEntityMap (`new HashMap<>(3)`): the order of a record's entity. */
function recordTypes(entity: QuotaEntity): string[] {
  return hashMapOrder([...entity.keys()], javaStringHash, 3);
}

/** ClientQuotaEntity.toString: `ClientQuotaEntity(entries={user=alice, client-id=null})`. */
export function entityToString(entity: QuotaEntity): string {
  return `ClientQuotaEntity(entries={${orderedTypes(entity)
    .map((t) => `${t}=${entity.get(t) ?? 'null'}`)
    .join(', ')}})`;
}

/** The image's key for an entity (delta.ts's quotaEntityKey). */
function entityKey(entity: QuotaEntity): string {
  return quotaEntityKey([...entity].map(([entityType, entityName]) => ({ entityType, entityName })));
}

/** The current quotas of an entity in the image. */
function currentQuotas(image: MetadataImage, entity: QuotaEntity): ReadonlyMap<string, number> {
  return image.clientQuotas.get(entityKey(entity))?.quotas ?? new Map<string, number>();
}

/** InetAddress.getByName succeeds without a lookup: an address literal (IPv6 possibly in brackets). */
function isAddressLiteral(name: string): boolean {
  if (isIP(name) !== 0) return true;
  return name.startsWith('[') && name.endsWith(']') && isIP(name.slice(1, -1)) === 6;
}

/**
 * The IP entity names of a request that are not address literals and do not resolve: Kafka's
 * isValidIpEntity calls InetAddress.getByName, a name lookup; the controller does it before the
 * (synchronous) write.
 */
export async function unresolvableIpNames(entries: readonly AlterClientQuotasRequestEntryData[]): Promise<Set<string>> {
  const names = new Set<string>();
  for (const e of entries)
    for (const c of e.entity)
      if (c.entityType === IP && c.entityName && !isAddressLiteral(c.entityName)) names.add(c.entityName);
  const bad = new Set<string>();
  await Promise.all(
    [...names].map(async (n) => {
      try {
        await lookup(n);
      } catch {
        bad.add(n);
      }
    }),
  );
  return bad;
}

/** ClientQuotaControlManager.validateEntity. */
function validateEntity(entity: QuotaEntity): ApiError {
  if (entity.size === 0) return apiError(ErrorCode.INVALID_REQUEST, 'Invalid empty client quota entity');
  for (const t of orderedTypes(entity)) {
    const name = entity.get(t)!;
    if (t !== USER && t !== CLIENT_ID && t !== IP)
      return apiError(ErrorCode.INVALID_REQUEST, `Unhandled client quota entity type: ${t}`);
    if (name !== null && name === '') return apiError(ErrorCode.INVALID_REQUEST, `Empty ${t} not supported`);
  }
  return NONE;
}

/** ClientQuotaControlManager.configKeysForEntityType. */
function configKeysForEntityType(
  entity: QuotaEntity,
  unresolvable: ReadonlySet<string>,
): { keys: ReadonlyMap<string, KeyType> | null; error: ApiError } {
  const hasUser = entity.has(USER);
  const hasClientId = entity.has(CLIENT_ID);
  if (entity.has(IP)) {
    if (hasUser || hasClientId)
      return {
        keys: null,
        // (sic) no space between "should" and "not": Kafka's message
        error: apiError(
          ErrorCode.INVALID_REQUEST,
          'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId',
        ),
      };
    const ip = entity.get(IP)!;
    if (ip !== null && unresolvable.has(ip))
      return { keys: null, error: apiError(ErrorCode.INVALID_REQUEST, `${ip} is not a valid IP or resolvable host.`) };
    return { keys: IP_KEYS, error: NONE };
  }
  if (hasUser || hasClientId) return { keys: USER_AND_CLIENT_KEYS, error: NONE };
  return { keys: null, error: apiError(ErrorCode.INVALID_REQUEST, 'Invalid empty client quota entity') };
}

/** Java's `Double.toString`-free check of a fractional part (getErrorForIntegralQuotaValue). */
function integral(value: number, key: string): ApiError {
  return Math.abs(value % 1.0) > 1e-6
    ? apiError(ErrorCode.INVALID_REQUEST, `${key} cannot be a fractional value.`)
    : NONE;
}

/** ClientQuotaControlManager.validateQuotaKeyValue. */
export function validateQuotaKeyValue(keys: ReadonlyMap<string, KeyType>, key: string, value: number): ApiError {
  const type = keys.get(key);
  if (type === undefined) return apiError(ErrorCode.INVALID_REQUEST, `Invalid configuration key ${key}`);
  if (value <= 0.0) return apiError(ErrorCode.INVALID_REQUEST, `Quota ${key} must be greater than 0`);
  switch (type) {
    case 'DOUBLE':
      return NONE;
    case 'INT':
      if (value > 2147483647)
        return apiError(ErrorCode.INVALID_REQUEST, `Proposed value for ${key} is too large for an INT.`);
      return integral(value, key);
    case 'LONG':
      if (value > 2 ** 63)
        return apiError(ErrorCode.INVALID_REQUEST, `Proposed value for ${key} is too large for a LONG.`);
      return integral(value, key);
  }
}

/** One entity's validation and records (alterClientQuotaEntity). */
function alterEntity(
  image: MetadataImage,
  entity: QuotaEntity,
  alterations: Map<string, number | null>,
  opsCount: number,
  unresolvable: ReadonlySet<string>,
  out: MetadataRecord[],
): ApiError {
  let error = validateEntity(entity);
  if (error.errorCode !== ErrorCode.NONE) return error;
  const { keys, error: e2 } = configKeysForEntityType(entity, unresolvable);
  if (!keys) return e2;
  const recordEntity = (): { entityType: string; entityName: string | null }[] =>
    recordTypes(entity).map((entityType) => ({ entityType, entityName: entity.get(entityType)! }));
  const current = currentQuotas(image, entity);
  const records: MetadataRecord[] = [];
  for (const key of hashMapOrder([...alterations.keys()], javaStringHash, opsCount)) {
    const value = alterations.get(key)!;
    if (value === null) {
      if (current.has(key))
        records.push(
          metadataRecord(RecordType.ClientQuota, 0, { entity: recordEntity(), key, value: 0, remove: true }),
        );
    } else {
      error = validateQuotaKeyValue(keys, key, value);
      if (error.errorCode !== ErrorCode.NONE) return error;
      if (current.get(key) !== value)
        records.push(metadataRecord(RecordType.ClientQuota, 0, { entity: recordEntity(), key, value, remove: false }));
    }
  }
  out.push(...records);
  return NONE;
}

/** The entity of a request entry: Kafka's HashMap (a type named twice keeps its last name). */
export function entityOf(entry: Pick<AlterClientQuotasRequestEntryData, 'entity'>): QuotaEntity {
  const m = new Map<string, string | null>();
  for (const c of entry.entity) m.set(c.entityType, c.entityName);
  return m;
}

/**
 * ClientQuotaControlManager.alterClientQuotas: the records (written together) and one result per
 * distinct entity, in Java's HashMap order. `unresolvable` holds the IP names that did not resolve.
 */
export function alterClientQuotas(
  image: MetadataImage,
  entries: readonly AlterClientQuotasRequestEntryData[],
  unresolvable: ReadonlySet<string> = new Set(),
): { records: MetadataRecord[]; results: AlterClientQuotasResponseEntryData[] } {
  const records: MetadataRecord[] = [];
  const results = new Map<string, { entity: QuotaEntity; error: ApiError }>();
  for (const entry of entries) {
    const entity = entityOf(entry);
    const k = entityKey(entity);
    const alterations = new Map<string, number | null>();
    for (const op of entry.ops) {
      if (alterations.has(op.key)) {
        results.set(k, {
          entity,
          error: apiError(
            ErrorCode.INVALID_REQUEST,
            `Duplicate quota key ${op.key} not updating quota for this entity ${entityToString(entity)}`,
          ),
        });
      } else {
        alterations.set(op.key, op.remove ? null : op.value);
      }
    }
    const prior = results.get(k);
    if (prior) {
      prior.error = apiError(ErrorCode.INVALID_REQUEST, `Ignoring duplicate entity ${entityToString(entity)}`);
    } else {
      results.set(k, {
        entity,
        error: alterEntity(image, entity, alterations, entry.ops.length, unresolvable, records),
      });
    }
  }
  const ordered = hashMapOrder([...results.keys()], (k) => entityHash(results.get(k)!.entity));
  return {
    records,
    results: ordered.map((k) => {
      const { entity, error } = results.get(k)!;
      return {
        errorCode: error.errorCode,
        errorMessage: error.errorMessage,
        entity: orderedTypes(entity).map((entityType) => ({ entityType, entityName: entity.get(entityType)! })),
      };
    }),
  };
}
