// `tkafka configs --describe`: resource configs (topics, brokers, broker loggers, client-metrics,
// groups), client quotas (users, clients, ips) and SCRAM credentials, as ConfigCommand prints them.
// Text is written as it is produced (a header appears before a failing lookup, as in Kafka);
// json and table collect the sections first.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { ConfigEntry } from '../../client/admin/configs.js';
import { JavaHashMapOrder, javaStringHash } from '../topics/java-order.js';
import { ConfigCommandError, type ConfigCommand } from './command.js';
import { BROKER, BROKER_LOGGER, CLIENT, CLIENT_METRICS, GROUP, IP, TOPIC, USER } from './spec.js';
import type { ListConfigResourcesResponse } from '../../protocol/generated/protocol/ListConfigResources.js';
import type { ListGroupsResponse } from '../../protocol/generated/protocol/ListGroups.js';

export interface ResourceSection {
  kind: 'resource';
  entityType: string;
  /** '' = the cluster-wide default (brokers). */
  entityName: string;
  header: string;
  entries: ConfigEntry[];
  /** false for the first yield (header only), true once the entries are in. */
  ready: boolean;
}

export interface QuotaSection {
  kind: 'quota';
  /** Kafka entity type (`user`, `client-id`, `ip`) → name; null = the default entity. */
  entity: [string, string | null][];
  values: [string, number][];
  line: string;
}

export interface ScramSection {
  kind: 'scram';
  user: string;
  credentials: { mechanism: string; iterations: number }[] | null;
  error: string | null;
  line: string;
}

/** Kafka 4.4: a named topic, broker, client-metrics resource or group that does not exist (no --all). */
export interface MissingSection {
  kind: 'missing';
  entityType: string;
  entityName: string;
  line: string;
}

export type Section = ResourceSection | QuotaSection | ScramSection | MissingSection;

const RESOURCE_TYPES = new Set([TOPIC, BROKER, BROKER_LOGGER, CLIENT_METRICS, GROUP]);
const DYNAMIC_SOURCE: Record<string, string | null> = {
  [TOPIC]: 'DYNAMIC_TOPIC_CONFIG',
  [BROKER_LOGGER]: null,
  [CLIENT_METRICS]: 'DYNAMIC_CLIENT_METRICS_CONFIG',
  [GROUP]: 'DYNAMIC_GROUP_CONFIG',
};

export function entryLine(e: ConfigEntry): string {
  const synonyms = e.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`).join(', ');
  return `  ${e.name}=${e.value} sensitive=${e.isSensitive} synonyms={${synonyms}}`;
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** ConfigCommand.getResourceConfig: the entity's entries, restricted to its dynamic source unless --all, sorted by name. */
export async function getResourceConfig(
  client: KafkaClient,
  entityType: string,
  entityName: string,
  includeSynonyms: boolean,
  describeAll: boolean,
): Promise<ConfigEntry[]> {
  const { describeConfig, ResourceType } = await import('../../client/admin/configs.js');
  const brokerId = (): void => {
    if (!/^[+-]?\d+$/.test(entityName)) {
      throw new ConfigCommandError(
        `The entity name for ${entityType} must be a valid integer broker id, found: ${entityName}`,
      );
    }
  };
  let type: number;
  let source: string | null;
  switch (entityType) {
    case TOPIC:
      if (entityName !== '') await validateTopicName(entityName);
      [type, source] = [ResourceType.TOPIC, DYNAMIC_SOURCE[TOPIC]!];
      break;
    case BROKER:
      if (entityName !== '') brokerId();
      [type, source] = [
        ResourceType.BROKER,
        entityName === '' ? 'DYNAMIC_DEFAULT_BROKER_CONFIG' : 'DYNAMIC_BROKER_CONFIG',
      ];
      break;
    case BROKER_LOGGER:
      if (entityName !== '') brokerId();
      [type, source] = [ResourceType.BROKER_LOGGER, null];
      break;
    case CLIENT_METRICS:
      [type, source] = [ResourceType.CLIENT_METRICS, DYNAMIC_SOURCE[CLIENT_METRICS]!];
      break;
    case GROUP:
      [type, source] = [ResourceType.GROUP, DYNAMIC_SOURCE[GROUP]!];
      break;
    default:
      throw new ConfigCommandError(`Invalid entity type: ${entityType}`);
  }
  const entries = await describeConfig(client, { type, name: entityName }, includeSynonyms);
  return entries
    .filter((e) => describeAll || source === null || e.source === source)
    .sort((a, b) => cmp(a.name, b.name));
}

/** org.apache.kafka.common.internals.Topic.validate: an InvalidTopicException thrown directly (not wrapped). */
async function validateTopicName(name: string): Promise<void> {
  let reason: string | null = null;
  if (name === '') reason = 'the empty string is not allowed';
  else if (name === '.') reason = "'.' is not allowed";
  else if (name === '..') reason = "'..' is not allowed";
  else if (name.length > 249) reason = `the length of '${name}' is longer than the max allowed length 249`;
  else if (!/^[a-zA-Z0-9._-]+$/.test(name))
    reason = `'${name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`;
  if (reason === null) return;
  const { ApiError } = await import('../../client/errors.js');
  throw Object.assign(new ApiError(17, `Topic name is invalid: ${reason}`), { unwrapped: true });
}

async function listEntities(client: KafkaClient, entityType: string): Promise<string[]> {
  if (entityType === TOPIC) {
    const md = await client.call('listTopics', () => client.metadata({ refresh: true }));
    // ListTopicsResult.names(): a HashMap filled in response order.
    const m = new JavaHashMapOrder<string>(javaStringHash);
    for (const t of md.topics.values()) if (t.errorCode === 0) m.put(t.name);
    return m.keys();
  }
  if (entityType === BROKER || entityType === BROKER_LOGGER) {
    const { describeCluster } = await import('../../client/admin/cluster.js');
    return [...(await describeCluster(client)).nodes.map((n) => String(n.id)), ''];
  }
  if (entityType === GROUP) {
    // the groups, then the groups that only have dynamic configs (a LinkedHashSet in Kafka's tool)
    return [...new Set([...(await listGroupIds(client)), ...((await listGroupConfigResources(client)) ?? [])])];
  }
  if (entityType === CLIENT_METRICS) return (await listConfigResources(client, CONFIG_RESOURCE_CLIENT_METRICS))!;
  throw new ConfigCommandError(`Invalid entity type: ${entityType}`);
}

const CONFIG_RESOURCE_CLIENT_METRICS = 16;
const CONFIG_RESOURCE_GROUP = 32;

async function listGroupIds(client: KafkaClient): Promise<string[]> {
  const resp = await client.request<ListGroupsResponse>('any', 'ListGroups', { statesFilter: [], typesFilter: [] });
  if (resp.body.errorCode !== 0) {
    const { ApiError } = await import('../../client/errors.js');
    throw new ApiError(resp.body.errorCode);
  }
  return resp.body.groups.map((g) => g.groupId);
}

/**
 * Admin.listConfigResources(Set.of(type)): ListConfigResources (key 74, ListClientMetricsResources
 * before Kafka 4.1) v1 with the type, or v0 (client metrics only) from an older broker. null when
 * the broker cannot list that type (UnsupportedVersionException in Kafka's admin client).
 */
export async function listConfigResources(client: KafkaClient, type: number): Promise<string[] | null> {
  const conn = await client.call('listConfigResources', () => client.anyConnection());
  const { apiByName } = await import('../../client/apis.js');
  const api = apiByName('ListConfigResources');
  if (!conn.supports(api, type === CONFIG_RESOURCE_CLIENT_METRICS ? 0 : 1)) {
    if (type === CONFIG_RESOURCE_CLIENT_METRICS) await client.request('any', 'ListConfigResources', {});
    return null;
  }
  const resp = await client.request<ListConfigResourcesResponse>('any', 'ListConfigResources', (v: number) =>
    v >= 1 ? { resourceTypes: [type] } : {},
  );
  if (resp.body.errorCode !== 0) {
    const { ApiError } = await import('../../client/errors.js');
    throw new ApiError(resp.body.errorCode);
  }
  return resp.body.configResources.map((r) => r.resourceName);
}

/** ConfigCommand.listGroupConfigResources: the groups with dynamic configs, null when unsupported. */
function listGroupConfigResources(client: KafkaClient): Promise<string[] | null> {
  return listConfigResources(client, CONFIG_RESOURCE_GROUP);
}

/**
 * Kafka 4.4's describeResourceConfig without --all: whether the named entity exists (a topic, a
 * broker id or the default, a client-metrics resource, a group). A group exists when ListGroups or
 * ListConfigResources (GROUP, v1) lists it; when the broker cannot list group config resources the
 * group counts as existing, as in Kafka's tool.
 */
async function entityExists(client: KafkaClient, entityType: string, name: string): Promise<boolean> {
  if (entityType === TOPIC) {
    await validateTopicName(name);
    const { listTopics } = await import('../../client/admin/topics.js');
    return (await listTopics(client, { listInternal: true })).some((t) => t.name === name);
  }
  if (entityType === BROKER || entityType === BROKER_LOGGER) {
    if (name === '') return true;
    const { describeCluster } = await import('../../client/admin/cluster.js');
    return (await describeCluster(client)).nodes.some((n) => String(n.id) === name);
  }
  if (entityType === CLIENT_METRICS) return (await listEntities(client, CLIENT_METRICS)).includes(name);
  if (entityType === GROUP) {
    if ((await listGroupIds(client)).includes(name)) return true;
    const withConfigs = await listGroupConfigResources(client);
    return withConfigs === null || withConfigs.includes(name);
  }
  return true;
}

async function* resourceSections(
  client: KafkaClient,
  entityType: string,
  entityName: string | undefined,
  describeAll: boolean,
): AsyncGenerator<Section> {
  if (!describeAll && entityName !== undefined && !(await entityExists(client, entityType, entityName))) {
    const line = `The ${entityType.slice(0, -1)} '${entityName}' doesn't exist and doesn't have dynamic config.`;
    yield { kind: 'missing', entityType, entityName, line };
    return;
  }
  const entities = entityName !== undefined ? [entityName] : await listEntities(client, entityType);
  for (const entity of entities) {
    const header =
      entity === ''
        ? `Default configs for ${entityType} in the cluster are:`
        : `${describeAll ? 'All' : 'Dynamic'} configs for ${entityType.slice(0, -1)} ${entity} are:`;
    // The header is out before the lookup can fail.
    yield { kind: 'resource', entityType, entityName: entity, header, entries: [], ready: false };
    const entries = await getResourceConfig(client, entityType, entity, true, describeAll);
    yield { kind: 'resource', entityType, entityName: entity, header, entries, ready: true };
  }
}

const QUOTA_TYPE: Record<string, string> = { [USER]: 'user', [CLIENT]: 'client-id', [IP]: 'ip' };
const TYPE_LABEL: Record<string, string> = { user: 'user-principal', 'client-id': 'client-id', ip: 'ip' };

/** ConfigCommand.getAllClientQuotasConfigs: DescribeClientQuotas with a strict filter, in Kafka's HashMap order. */
export async function clientQuotas(
  client: KafkaClient,
  types: string[],
  names: string[],
): Promise<{ entity: Map<string, string | null>; values: Map<string, number> }[]> {
  if (names.length > types.length) throw new ConfigCommandError('More entity names specified than entity types');
  const components = types.map((t, i) => {
    const entityType = QUOTA_TYPE[t];
    if (!entityType) throw new ConfigCommandError(`Unexpected entity type ${t}`);
    const name = names[i];
    return name === undefined
      ? { entityType, matchType: 2 as const, match: null }
      : name === ''
        ? { entityType, matchType: 1 as const, match: null }
        : { entityType, matchType: 0 as const, match: name };
  });
  const { describeClientQuotas } = await import('../../client/admin/configs.js');
  const entries = await describeClientQuotas(client, components, true);
  const keyOf = (e: Map<string, string | null>): string => JSON.stringify([...e].sort());
  const hashOf = new Map<string, number>();
  const byKey = new Map<string, (typeof entries)[number]>();
  for (const e of entries) {
    let h = 0;
    for (const [k, v] of e.entity) h = (h + (javaStringHash(k) ^ (v === null ? 0 : javaStringHash(v)))) | 0;
    const key = keyOf(e.entity);
    hashOf.set(key, (31 + h) | 0);
    byKey.set(key, e);
  }
  const order = new JavaHashMapOrder<string>((k) => hashOf.get(k)!, entries.length);
  for (const e of entries) order.put(keyOf(e.entity));
  return order.keys().map((k) => {
    const e = byKey.get(k)!;
    const vals = new JavaHashMapOrder<string>(javaStringHash, e.values.size);
    for (const name of e.values.keys()) vals.put(name);
    return { entity: e.entity, values: new Map(vals.keys().map((n) => [n, e.values.get(n)!])) };
  });
}

async function* quotaSections(client: KafkaClient, types: string[], names: string[]): AsyncGenerator<Section> {
  const { javaDoubleToString } = await import('../../config/config-def.js');
  for (const q of await clientQuotas(client, types, names)) {
    const part = (t: string): string[] => {
      if (!q.entity.has(t)) return [];
      const name = q.entity.get(t);
      return [name !== null && name !== undefined ? `${TYPE_LABEL[t]} '${name}'` : `the default ${TYPE_LABEL[t]}`];
    };
    const entityStr = [...part('user'), ...part('client-id'), ...part('ip')].join(', ');
    const valuesStr = [...q.values].map(([k, v]) => `${k}=${javaDoubleToString(v)}`).join(', ');
    yield {
      kind: 'quota',
      entity: [...q.entity],
      values: [...q.values],
      line: `Quota configs for ${entityStr} are ${valuesStr}`,
    };
  }
}

async function* scramSections(client: KafkaClient, names: string[]): AsyncGenerator<Section> {
  const { describeUserScramCredentials } = await import('../../client/admin/configs.js');
  const results = await describeUserScramCredentials(client, names);
  for (const r of results) {
    if (r.error?.code === 91) continue; // users() leaves out users without credentials
    if (r.error) {
      const err = `ExecutionException: ${r.error.javaString()}`;
      yield {
        kind: 'scram',
        user: r.user,
        credentials: null,
        error: err,
        line: `Error retrieving SCRAM credential configs for user-principal '${r.user}': ${err}`,
      };
      continue;
    }
    const text = r.credentials.map((c) => `${c.mechanism}=iterations=${c.iterations}`).join(', ');
    yield {
      kind: 'scram',
      user: r.user,
      credentials: r.credentials,
      error: null,
      line: `SCRAM credential configs for user-principal '${r.user}' are ${text}`,
    };
  }
}

async function* sections(client: KafkaClient, cmd: ConfigCommand): AsyncGenerator<Section> {
  const types = cmd.entityTypes;
  const names = cmd.entityNames;
  const head = types[0]!;
  if (RESOURCE_TYPES.has(head)) yield* resourceSections(client, head, names[0], cmd.opts.has('all'));
  else if (head === USER || head === CLIENT) {
    yield* quotaSections(client, types, names);
    if (!types.includes(CLIENT) && !names.includes('')) yield* scramSections(client, names);
  } else if (head === IP) yield* quotaSections(client, types, names);
  else throw new ConfigCommandError(`Invalid entity type: ${head}`);
}

export async function describeConfig(client: KafkaClient, cmd: ConfigCommand, io: ToolIO): Promise<void> {
  const out = (l: string): void => void io.stdout.write(l + '\n');
  if (cmd.format === 'text') {
    for await (const s of sections(client, cmd)) {
      if (s.kind !== 'resource') out(s.line);
      else if (!s.ready) out(s.header);
      else for (const e of s.entries) out(entryLine(e));
    }
    return;
  }
  const all: Section[] = [];
  for await (const s of sections(client, cmd)) if (s.kind !== 'resource' || s.ready) all.push(s);
  const { writeJson, writeTables } = await import('../common/output.js');
  const resources = all.filter((s): s is ResourceSection => s.kind === 'resource');
  const quotas = all.filter((s): s is QuotaSection => s.kind === 'quota');
  const scram = all.filter((s): s is ScramSection => s.kind === 'scram');
  if (cmd.format === 'json') {
    writeJson(io, {
      resources: resources.map((r) => ({
        entityType: r.entityType,
        entityName: r.entityName === '' ? null : r.entityName,
        default: r.entityName === '',
        configs: r.entries.map((e) => ({
          name: e.name,
          value: e.value,
          sensitive: e.isSensitive,
          readOnly: e.readOnly,
          source: e.source,
          synonyms: e.synonyms,
        })),
      })),
      quotas: quotas.map((q) => ({ entity: Object.fromEntries(q.entity), values: Object.fromEntries(q.values) })),
      scramCredentials: scram.map((s) => ({ user: s.user, credentials: s.credentials, error: s.error })),
    });
    return;
  }
  await writeTables(io, [
    ...resources.map((r) => ({
      title: r.header,
      head: ['NAME', 'VALUE', 'SOURCE', 'SENSITIVE', 'SYNONYMS'],
      rows: r.entries.map((e) => [
        e.name,
        e.isSensitive ? 'null' : e.value,
        e.source,
        e.isSensitive,
        e.synonyms.map((s) => `${s.source}:${s.name}=${s.value}`).join(', '),
      ]),
    })),
    ...(quotas.length > 0
      ? [
          {
            head: ['USER', 'CLIENT ID', 'IP', 'QUOTAS'],
            rows: quotas.map((q) => {
              const m = new Map(q.entity);
              const show = (t: string): string => (!m.has(t) ? '' : (m.get(t) ?? '<default>'));
              return [show('user'), show('client-id'), show('ip'), q.values.map(([k, v]) => `${k}=${v}`).join(', ')];
            }),
          },
        ]
      : []),
    ...(scram.length > 0
      ? [
          {
            head: ['USER', 'SCRAM CREDENTIALS'],
            rows: scram.map((s) => [
              s.user,
              s.error ?? (s.credentials ?? []).map((c) => `${c.mechanism}=iterations=${c.iterations}`).join(', '),
            ]),
          },
        ]
      : []),
  ]);
}
