// Dynamic configuration changes (Kafka's ConfigurationControlManager, the controller's
// ControllerConfigurationValidator and ConfigResourceExistenceChecker, and the request
// preprocessing of ConfigAdminManager). Pure functions over a MetadataImage that return the
// ConfigRecords to write (value null = delete) and a per-resource ApiError.

import { defaultConfigRecord } from '../../protocol/generated/metadata/index.js';
import { ConfigResourceType, type ConfigResource, type MetadataImage } from '../metadata/image.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../../protocol/metadata-records.js';
import { apiError, apiErrorFrom, ErrorCode, fail, NONE, type ApiError } from './errors.js';
import { validateTopicName } from './topic-names.js';

export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
const OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'];

const TYPE_NAMES: Record<number, string> = {
  0: 'UNKNOWN',
  2: 'TOPIC',
  4: 'BROKER',
  8: 'BROKER_LOGGER',
  16: 'CLIENT_METRICS',
  32: 'GROUP',
};

/**
 * Validates the complete new configuration of a resource (LogConfig.validate for topics, dynamic
 * broker config rules, GroupConfig/ClientMetrics rules). Return an ApiError (or throw a
 * KafkaError) to reject; return nothing to accept. INVALID_CONFIG is the usual error.
 */
export type ConfigValidator = (
  resource: ConfigResource,
  newConfigs: ReadonlyMap<string, string>,
  existingConfigs: ReadonlyMap<string, string>,
) => ApiError | null | undefined | void;

/** Knowledge about config keys needed by APPEND/SUBTRACT (KafkaConfigSchema). */
export interface ConfigSchema {
  /** Whether the key's type is LIST. */
  isList(resourceType: number, key: string): boolean;
  /** The static default of the key (used as the base of APPEND/SUBTRACT), or null. */
  defaultValue?(resourceType: number, key: string): string | null;
}

export interface ConfigContext {
  readonly image: MetadataImage;
  readonly validator?: ConfigValidator;
  readonly schema?: ConfigSchema;
  /** Ids of controllers (they are valid BROKER resources too). */
  readonly controllerIds?: readonly number[];
}

export interface AlterableConfig {
  readonly name: string;
  readonly value: string | null;
}

export interface IncrementalAlterableConfig extends AlterableConfig {
  /** 0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT. */
  readonly configOperation: number;
}

export interface ConfigResourceChange<C> {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly C[];
}

export interface ConfigResourceResult extends ApiError {
  readonly resourceType: number;
  readonly resourceName: string;
}

function configRecord(type: number, name: string, key: string, value: string | null): MetadataRecord {
  return metadataRecord(RecordType.Config, 0, {
    ...defaultConfigRecord(),
    resourceType: type,
    resourceName: name,
    name: key,
    value,
  });
}

/** ControllerConfigurationValidator.validate(resource): the resource name itself. */
function validateResourceName(r: ConfigResource): void {
  switch (r.type) {
    case ConfigResourceType.Topic:
      if (r.name === '') fail(ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.');
      validateTopicName(r.name);
      return;
    case ConfigResourceType.Broker:
      if (r.name !== '') {
        if (
          !/^[+-]?\d+$/.test(r.name) ||
          !Number.isSafeInteger(Number(r.name)) ||
          Math.abs(Number(r.name)) > 0x7fffffff
        ) {
          fail(ErrorCode.INVALID_REQUEST, 'Unable to parse broker name as a base 10 number.');
        }
        if (Number(r.name) < 0) fail(ErrorCode.INVALID_REQUEST, 'Invalid negative broker ID.');
      }
      return;
    case ConfigResourceType.Group:
      if (r.name === '') fail(ErrorCode.INVALID_REQUEST, 'Default group resources are not allowed.');
      return;
    case ConfigResourceType.ClientMetrics:
      return;
    default:
      fail(ErrorCode.INVALID_REQUEST, `Unknown resource type ${TYPE_NAMES[r.type] ?? r.type}`);
  }
}

/** QuorumController.ConfigResourceExistenceChecker. */
function checkExists(ctx: ConfigContext, r: ConfigResource): void {
  if (r.type === ConfigResourceType.Broker && r.name !== '') {
    const id = Number(r.name);
    if (!ctx.image.brokers.has(id) && !(ctx.controllerIds ?? []).includes(id)) {
      fail(ErrorCode.BROKER_ID_NOT_REGISTERED, `No node with id ${id} found.`);
    }
  } else if (r.type === ConfigResourceType.Topic && !ctx.image.topicsByName.has(r.name)) {
    fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The topic '${r.name}' does not exist.`);
  }
}

/** ConfigurationControlManager.validateAlterConfig. */
function validateAlterConfig(
  ctx: ConfigContext,
  r: ConfigResource,
  altered: readonly MetadataRecord[],
  implicitlyDeleted: readonly MetadataRecord[],
  newlyCreatedResource: boolean,
): ApiError {
  const existing = newlyCreatedResource ? new Map<string, string>() : ctx.image.configsOf(r.type, r.name);
  const all = new Map(existing);
  for (const rec of [...altered, ...implicitlyDeleted]) {
    if (rec.type !== RecordType.Config) continue;
    if (rec.data.value === null) all.delete(rec.data.name);
    else all.set(rec.data.name, rec.data.value);
  }
  try {
    validateResourceName(r);
    const custom = ctx.validator?.(r, all, existing);
    if (custom && custom.errorCode !== ErrorCode.NONE) return custom;
    if (!newlyCreatedResource) checkExists(ctx, r);
  } catch (e) {
    return apiErrorFrom(e);
  }
  return NONE;
}

function splitList(value: string | null): string[] {
  return value === null ? [] : value.split(',').filter((s) => s.length > 0);
}

/**
 * incrementalAlterConfigResource: applies SET/DELETE/APPEND/SUBTRACT to one resource. Unchanged
 * values produce no record, except for BROKER resources (KAFKA-14136: brokers reload on every record).
 */
export function incrementalAlterConfigResource(
  ctx: ConfigContext,
  r: ConfigResource,
  ops: readonly IncrementalAlterableConfig[],
  newlyCreatedResource: boolean,
): { records: MetadataRecord[]; error: ApiError } {
  const current = newlyCreatedResource ? new Map<string, string>() : ctx.image.configsOf(r.type, r.name);
  const records: MetadataRecord[] = [];
  for (const op of ops) {
    const currentValue = current.get(op.name) ?? null;
    let newValue: string | null;
    switch (op.configOperation) {
      case OpType.SET:
        newValue = op.value;
        break;
      case OpType.DELETE:
        newValue = null;
        break;
      case OpType.APPEND:
      case OpType.SUBTRACT: {
        if (!ctx.schema?.isList(r.type, op.name)) {
          return {
            records: [],
            error: apiError(
              ErrorCode.INVALID_CONFIG,
              `Can't ${OP_NAMES[op.configOperation]} to key ${op.name} because its type is not LIST.`,
            ),
          };
        }
        const parts = splitList(currentValue ?? ctx.schema.defaultValue?.(r.type, op.name) ?? null);
        for (const v of (op.value ?? '').split(',')) {
          if (op.configOperation === OpType.APPEND) {
            if (!parts.includes(v)) parts.push(v);
          } else {
            const i = parts.indexOf(v);
            if (i >= 0) parts.splice(i, 1);
          }
        }
        newValue = parts.join(',');
        break;
      }
      default:
        return {
          records: [],
          error: apiError(ErrorCode.INVALID_REQUEST, `Unknown operations type ${op.configOperation}`),
        };
    }
    if (currentValue !== newValue || r.type === ConfigResourceType.Broker) {
      records.push(configRecord(r.type, r.name, op.name, newValue));
    }
  }
  const error = validateAlterConfig(ctx, r, records, [], newlyCreatedResource);
  return error.errorCode === ErrorCode.NONE ? { records, error } : { records: [], error };
}

/** Request-level checks done by the broker before forwarding (ConfigAdminManager.preprocess). */
function preprocess<C extends AlterableConfig>(
  changes: readonly ConfigResourceChange<C>[],
  nullAllowed: (c: C) => boolean,
): (ApiError | null)[] {
  const seen = new Map<string, number[]>();
  changes.forEach((c, i) => {
    const k = `${c.resourceType}:${c.resourceName}`;
    seen.set(k, [...(seen.get(k) ?? []), i]);
  });
  return changes.map((c) => {
    if (seen.get(`${c.resourceType}:${c.resourceName}`)!.length > 1)
      return apiError(ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.');
    const names = c.configs.map((x) => x.name);
    if (new Set(names).size !== names.length)
      return apiError(ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys');
    const nulls = c.configs.filter((x) => x.value === null && !nullAllowed(x)).map((x) => x.name);
    if (nulls.length > 0)
      return apiError(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(', ')}`);
    return null;
  });
}

/** IncrementalAlterConfigs for many resources; records of failed resources are dropped. */
export function incrementalAlterConfigs(
  ctx: ConfigContext,
  changes: readonly ConfigResourceChange<IncrementalAlterableConfig>[],
): { records: MetadataRecord[]; results: ConfigResourceResult[] } {
  const pre = preprocess(changes, (c) => c.configOperation === OpType.DELETE);
  const records: MetadataRecord[] = [];
  const results = changes.map((c, i): ConfigResourceResult => {
    const base = { resourceType: c.resourceType, resourceName: c.resourceName };
    if (pre[i]) return { ...base, ...pre[i]! };
    const res = incrementalAlterConfigResource(ctx, { type: c.resourceType, name: c.resourceName }, c.configs, false);
    if (res.error.errorCode === ErrorCode.NONE) records.push(...res.records);
    return { ...base, ...res.error };
  });
  return { records, results };
}

/**
 * Legacy AlterConfigs: the given configs replace the resource's whole dynamic configuration
 * (keys not listed are deleted).
 */
export function legacyAlterConfigs(
  ctx: ConfigContext,
  changes: readonly ConfigResourceChange<AlterableConfig>[],
): { records: MetadataRecord[]; results: ConfigResourceResult[] } {
  const pre = preprocess(changes, () => false);
  const records: MetadataRecord[] = [];
  const results = changes.map((c, i): ConfigResourceResult => {
    const base = { resourceType: c.resourceType, resourceName: c.resourceName };
    if (pre[i]) return { ...base, ...pre[i]! };
    const r = { type: c.resourceType, name: c.resourceName };
    const current = ctx.image.configsOf(r.type, r.name);
    const newConfigs = new Map(c.configs.map((x) => [x.name, x.value] as const));
    const altered: MetadataRecord[] = [];
    for (const [key, value] of newConfigs) {
      if ((current.get(key) ?? null) !== value || r.type === ConfigResourceType.Broker)
        altered.push(configRecord(r.type, r.name, key, value));
    }
    const deleted: MetadataRecord[] = [];
    for (const key of current.keys()) if (!newConfigs.has(key)) deleted.push(configRecord(r.type, r.name, key, null));
    const err = validateAlterConfig(ctx, r, altered, deleted, false);
    if (err.errorCode === ErrorCode.NONE) records.push(...altered, ...deleted);
    return { ...base, ...err };
  });
  return { records, results };
}
