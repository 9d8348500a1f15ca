// Config administration as Kafka's Admin client does it: DescribeConfigs (broker and broker-logger
// resources go to that broker, the rest to any broker), IncrementalAlterConfigs, the legacy
// AlterConfigs, client quotas and SCRAM credentials.
import type { KafkaClient, Target } from '../client.js';
import { ApiError } from '../errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Outcome } from './topics.js';
import { saltedPassword, scramMechanism, scramMechanismByType, secureNonce } from '../../protocol/sasl/scram.js';
import type { AlterClientQuotasResponse } from '../../protocol/generated/protocol/AlterClientQuotas.js';
import type { AlterConfigsResponse } from '../../protocol/generated/protocol/AlterConfigs.js';
import type { AlterUserScramCredentialsResponse } from '../../protocol/generated/protocol/AlterUserScramCredentials.js';
import type { DescribeClientQuotasResponse } from '../../protocol/generated/protocol/DescribeClientQuotas.js';
import type { DescribeConfigsResponse } from '../../protocol/generated/protocol/DescribeConfigs.js';
import type { DescribeUserScramCredentialsResponse } from '../../protocol/generated/protocol/DescribeUserScramCredentials.js';

export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

/** Java's ConfigEntry.ConfigSource names by wire id. */
export const CONFIG_SOURCE_NAMES: readonly string[] = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'DYNAMIC_CLIENT_METRICS_CONFIG',
  'DYNAMIC_GROUP_CONFIG',
];

export function configSourceName(id: number): string {
  return CONFIG_SOURCE_NAMES[id] ?? 'UNKNOWN';
}

export interface ConfigResource {
  type: number;
  name: string;
}

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: string;
}

export interface ConfigEntry {
  name: string;
  value: string | null;
  source: string;
  isSensitive: boolean;
  readOnly: boolean;
  synonyms: ConfigSynonym[];
  isDefault: boolean;
}

const resourceKey = (r: ConfigResource): string => `${r.type}:${r.name}`;

/** The broker a resource must be sent to, or null for any broker. */
function nodeFor(r: ConfigResource): number | null {
  if ((r.type === ResourceType.BROKER && r.name !== '') || r.type === ResourceType.BROKER_LOGGER) {
    const id = Number(r.name);
    return Number.isInteger(id) ? id : null;
  }
  return null;
}

function groupByNode(resources: ConfigResource[]): Map<number | null, ConfigResource[]> {
  const m = new Map<number | null, ConfigResource[]>();
  for (const r of resources) {
    const n = nodeFor(r);
    m.set(n, [...(m.get(n) ?? []), r]);
  }
  return m;
}

const targetOf = (node: number | null): Target => (node === null ? 'any' : { node });

export async function describeConfigs(
  client: KafkaClient,
  resources: ConfigResource[],
  opts: { includeSynonyms?: boolean; includeDocumentation?: boolean } = {},
): Promise<Map<string, Outcome<ConfigEntry[]>>> {
  const out = new Map<string, Outcome<ConfigEntry[]>>();
  for (const [node, group] of groupByNode(resources)) {
    const resp = await client.request<DescribeConfigsResponse>(targetOf(node), 'DescribeConfigs', {
      resources: group.map((r) => ({ resourceType: r.type, resourceName: r.name, configurationKeys: null })),
      includeSynonyms: opts.includeSynonyms ?? false,
      includeDocumentation: opts.includeDocumentation ?? false,
    });
    for (const res of resp.body.results) {
      const key = resourceKey({ type: res.resourceType, name: res.resourceName });
      if (res.errorCode !== 0) {
        out.set(key, { ok: false, error: new ApiError(res.errorCode, res.errorMessage) });
        continue;
      }
      out.set(key, {
        ok: true,
        value: res.configs.map((c) => {
          const sourceId: number = c.configSource; // v1+ (the client does not send v0)
          return {
            name: c.name,
            value: c.value,
            source: configSourceName(sourceId),
            isSensitive: c.isSensitive,
            readOnly: c.readOnly,
            synonyms: (c.synonyms ?? []).map((s) => ({
              name: s.name,
              value: s.value,
              source: configSourceName(s.source),
            })),
            isDefault: sourceId === 5,
          };
        }),
      });
    }
    for (const r of group) {
      if (!out.has(resourceKey(r))) {
        out.set(resourceKey(r), {
          ok: false,
          error: new ApiError(-1, `The node response did not contain a result for config resource ${r.name}`),
        });
      }
    }
  }
  return out;
}

/** Convenience: the entries of one resource, throwing its error. */
export async function describeConfig(
  client: KafkaClient,
  resource: ConfigResource,
  includeSynonyms = false,
): Promise<ConfigEntry[]> {
  const r = (await describeConfigs(client, [resource], { includeSynonyms })).get(resourceKey(resource))!;
  if (!r.ok) throw r.error;
  return r.value;
}

export const OpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

export interface AlterConfigOp {
  name: string;
  op: number;
  value: string | null;
}

async function alterBatch(
  client: KafkaClient,
  apiName: 'IncrementalAlterConfigs' | 'AlterConfigs',
  changes: { resource: ConfigResource; ops: AlterConfigOp[] }[],
  validateOnly: boolean,
  allToOneNode = false,
): Promise<Map<string, Outcome<void>>> {
  const out = new Map<string, Outcome<void>>();
  const byNode = new Map<number | null, typeof changes>();
  for (const c of changes) {
    const n = allToOneNode ? null : nodeFor(c.resource);
    byNode.set(n, [...(byNode.get(n) ?? []), c]);
  }
  for (const [node, group] of byNode) {
    const resp = await client.request<AlterConfigsResponse>(targetOf(node), apiName, {
      resources: group.map((c) => ({
        resourceType: c.resource.type,
        resourceName: c.resource.name,
        configs: c.ops.map((o) =>
          apiName === 'AlterConfigs'
            ? { name: o.name, value: o.value }
            : { name: o.name, configOperation: o.op, value: o.value },
        ),
      })),
      validateOnly,
    });
    for (const r of resp.body.responses) {
      const key = resourceKey({ type: r.resourceType, name: r.resourceName });
      out.set(
        key,
        r.errorCode === 0
          ? { ok: true, value: undefined }
          : { ok: false, error: new ApiError(r.errorCode, r.errorMessage) },
      );
    }
  }
  return out;
}

/**
 * IncrementalAlterConfigs: a broker's resources to that broker, the others to any broker.
 * `bootstrapControllers`: the client is bootstrapped at the active controller, which takes every
 * resource (Admin's ConstantBrokerOrActiveKController with bootstrap.controllers).
 */
export function incrementalAlterConfigs(
  client: KafkaClient,
  changes: { resource: ConfigResource; ops: AlterConfigOp[] }[],
  validateOnly = false,
  bootstrapControllers = false,
): Promise<Map<string, Outcome<void>>> {
  return alterBatch(client, 'IncrementalAlterConfigs', changes, validateOnly, bootstrapControllers);
}

/** Legacy AlterConfigs: replaces the resource's whole dynamic config with `configs`. */
export function alterConfigs(
  client: KafkaClient,
  changes: { resource: ConfigResource; configs: Map<string, string | null> }[],
  validateOnly = false,
): Promise<Map<string, Outcome<void>>> {
  return alterBatch(
    client,
    'AlterConfigs',
    changes.map((c) => ({
      resource: c.resource,
      ops: [...c.configs].map(([name, value]) => ({ name, op: OpType.SET, value })),
    })),
    validateOnly,
  );
}

export { resourceKey };

// ---- client quotas -----------------------------------------------------------------------

/** Entity component: type (`user`, `client-id`, `ip`) → name (null = the default entity). */
export type QuotaEntity = Map<string, string | null>;

export interface QuotaFilterComponent {
  entityType: string;
  /** 0 = exact name, 1 = default entity, 2 = any entity of the type. */
  matchType: 0 | 1 | 2;
  match: string | null;
}

export async function describeClientQuotas(
  client: KafkaClient,
  components: QuotaFilterComponent[],
  strict: boolean,
): Promise<{ entity: QuotaEntity; values: Map<string, number> }[]> {
  const resp = await client.request<DescribeClientQuotasResponse>('any', 'DescribeClientQuotas', {
    components,
    strict,
  });
  if (resp.body.errorCode !== 0) throw new ApiError(resp.body.errorCode, resp.body.errorMessage);
  return (resp.body.entries ?? []).map((e) => ({
    entity: new Map(e.entity.map((x) => [x.entityType, x.entityName])),
    values: new Map(e.values.map((v) => [v.key, v.value])),
  }));
}

export async function alterClientQuotas(
  client: KafkaClient,
  entity: QuotaEntity,
  ops: { key: string; value: number | null }[],
): Promise<void> {
  const resp = await client.request<AlterClientQuotasResponse>('controller', 'AlterClientQuotas', {
    entries: [
      {
        entity: [...entity].map(([entityType, entityName]) => ({ entityType, entityName })),
        ops: ops.map((o) => ({ key: o.key, value: o.value ?? 0, remove: o.value === null })),
      },
    ],
    validateOnly: false,
  });
  for (const e of resp.body.entries) if (e.errorCode !== 0) throw new ApiError(e.errorCode, e.errorMessage);
}

// ---- SCRAM credentials -------------------------------------------------------------------

/** The mechanism name of a type in a DescribeUserScramCredentials answer (ScramMechanism.fromType). */
export function scramMechanismName(type: number): string {
  return scramMechanismByType(type)?.name ?? 'UNKNOWN';
}

export interface ScramCredentialInfo {
  mechanism: string;
  iterations: number;
}

export interface UserScramResult {
  user: string;
  /** null on success; RESOURCE_NOT_FOUND (91) for a user without credentials. */
  error: ApiError | null;
  credentials: ScramCredentialInfo[];
}

/** Per user (in response order): its credentials or its error. `users` empty = all users. */
export async function describeUserScramCredentials(client: KafkaClient, users: string[]): Promise<UserScramResult[]> {
  const resp = await client.request<DescribeUserScramCredentialsResponse>('any', 'DescribeUserScramCredentials', {
    users: users.length === 0 ? null : users.map((name) => ({ name })),
  });
  if (resp.body.errorCode !== 0) throw new ApiError(resp.body.errorCode, resp.body.errorMessage);
  return resp.body.results.map((r) => ({
    user: r.user,
    error: r.errorCode !== 0 ? new ApiError(r.errorCode, r.errorMessage) : null,
    credentials: (r.credentialInfos ?? []).map((c) => ({
      mechanism: scramMechanismName(c.mechanism),
      iterations: c.iterations,
    })),
  }));
}

export interface ScramUpsertion {
  user: string;
  mechanism: string;
  iterations: number;
  password: string;
}

/** AlterUserScramCredentials: the salted password is computed here (Hi() of RFC 5802, protocol/sasl/scram.ts). */
export async function alterUserScramCredentials(
  client: KafkaClient,
  upsertions: ScramUpsertion[],
  deletions: { user: string; mechanism: string }[],
): Promise<Map<string, Outcome<void>>> {
  // KafkaAdminClient's own checks: such a user's alterations are not sent, its future fails
  const illegal = new Map<string, ApiError>();
  for (const d of deletions) {
    if (d.user === '')
      illegal.set(d.user, new ApiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'));
    else if (!scramMechanism(d.mechanism))
      illegal.set(d.user, new ApiError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'));
  }
  for (const u of upsertions) {
    if (illegal.has(u.user)) continue;
    if (u.user === '')
      illegal.set(u.user, new ApiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty'));
    else if (u.password === '')
      illegal.set(u.user, new ApiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Password must not be empty'));
    else if (!scramMechanism(u.mechanism))
      illegal.set(u.user, new ApiError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism'));
  }
  const sentDeletions = deletions.filter((d) => !illegal.has(d.user));
  const sentUpsertions = upsertions.filter((u) => !illegal.has(u.user));
  const out = new Map<string, Outcome<void>>();
  for (const [user, error] of illegal) out.set(user, { ok: false, error });
  if (sentDeletions.length === 0 && sentUpsertions.length === 0) return out;
  const resp = await client.request<AlterUserScramCredentialsResponse>('controller', 'AlterUserScramCredentials', {
    deletions: sentDeletions.map((d) => ({ name: d.user, mechanism: scramMechanism(d.mechanism)!.type })),
    upsertions: sentUpsertions.map((u) => {
      const m = scramMechanism(u.mechanism)!;
      // UserScramCredentialUpsertion's salt: ScramFormatter.secureRandomBytes (a random base-36 string)
      const salt = Buffer.from(secureNonce(), 'utf8');
      return {
        name: u.user,
        mechanism: m.type,
        iterations: u.iterations,
        salt,
        saltedPassword: saltedPassword(m, u.password, salt, u.iterations),
      };
    }),
  });
  for (const r of resp.body.results) {
    out.set(
      r.user,
      r.errorCode === 0
        ? { ok: true, value: undefined }
        : { ok: false, error: new ApiError(r.errorCode, r.errorMessage) },
    );
  }
  return out;
}
