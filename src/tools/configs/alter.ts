// `tkafka configs --alter` (Kafka 4.4): IncrementalAlterConfigs for topics, brokers (and their
// default), broker loggers, client-metrics and groups; AlterClientQuotas for users, clients and
// ips; AlterUserScramCredentials for SCRAM-SHA-256/512 entries of users.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { loadPropertiesFile } from '../common/connection.js';
import { getResourceConfig, clientQuotas } from './describe.js';
import { ConfigCommandError, type ConfigCommand } from './command.js';
import {
  BROKER,
  BROKER_LOGGER,
  CLIENT,
  CLIENT_METRICS,
  GROUP,
  IP,
  IP_CONFIGS,
  QUOTA_CONFIGS,
  SCRAM_MECHANISM_NAMES,
  TOPIC,
  USER,
} from './spec.js';

const GROUPING = '(?=[^\\]]*(?:\\[|$))';

/** Java's String.split(regex) with limit 0: trailing empty strings are dropped. */
function javaSplit(s: string, re: RegExp, keepTrailing = false): string[] {
  const parts = s.split(re);
  if (!keepTrailing) while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (!keepTrailing && parts.length === 1 && parts[0] === '' && s !== '') return [];
  return parts;
}

/** ConfigCommand.parseConfigsToBeAdded: --add-config-file, then --add-config's `k=v,k2=[a,b]` list. */
export async function parseConfigsToBeAdded(cmd: ConfigCommand): Promise<Map<string, string>> {
  const props = new Map<string, string>();
  const file = cmd.opts.string('add-config-file');
  if (file !== undefined) for (const [k, v] of await loadPropertiesFile(file)) props.set(k, v);
  const add = cmd.opts.string('add-config');
  if (add !== undefined) {
    const pairs = javaSplit(add, new RegExp(',' + GROUPING)).map((p) =>
      javaSplit(p, new RegExp('\\s*=\\s*' + GROUPING), true),
    );
    if (!pairs.every((p) => p.length === 2)) {
      throw new ConfigCommandError(
        'Invalid entity config: all configs to be added must be in the format "key=val" or  "key=[val1,val2]" to group values which contain commas.',
      );
    }
    for (const [k, v] of pairs) props.set(k!.trim(), v!.replace(/\[?\]?/g, '').trim());
  }
  // Kafka 4.4 allows '$' (logger names of inner classes).
  for (const k of props.keys())
    if (!/^[$a-zA-Z0-9._-]*$/.test(k)) throw new ConfigCommandError(`Invalid character found for config key: ${k}`);
  return props;
}

export function parseConfigsToBeDeleted(cmd: ConfigCommand): string[] {
  return cmd.opts.valuesOf('delete-config').map((v) => String(v).trim());
}

/** Scala's Iterable toString as used in Kafka's messages: `Set(a, b)` / `List(a)`. */
const scalaSeq = (kind: string, xs: string[]): string => `${kind}(${xs.join(', ')})`;

export async function alterConfig(client: KafkaClient, cmd: ConfigCommand, io: ToolIO): Promise<void> {
  const head = cmd.entityTypes[0]!;
  const name = cmd.entityNames[0]!;
  const adds = await parseConfigsToBeAdded(cmd);
  const deletes = parseConfigsToBeDeleted(cmd);
  const { incrementalAlterConfigs, ResourceType, OpType } = await import('../../client/admin/configs.js');

  const incremental = async (type: number): Promise<void> => {
    const ops = [
      ...[...adds].map(([k, v]) => ({ name: k, op: OpType.SET, value: v })),
      ...deletes.map((k) => ({ name: k, op: OpType.DELETE, value: '' })),
    ];
    let result;
    try {
      result = await incrementalAlterConfigs(client, [{ resource: { type, name }, ops }]);
    } catch (e) {
      if ((e as Error).name === 'UnsupportedApiError') {
        throw new ConfigCommandError(
          'The INCREMENTAL_ALTER_CONFIGS API is not supported by the cluster. The API is supported starting from version 2.3.0. ' +
            'You may want to use an older version of this tool to interact with your cluster, or upgrade your brokers to version 2.3.0 or newer to avoid this error.',
        );
      }
      throw e;
    }
    for (const r of result.values()) if (!r.ok) throw r.error;
  };

  // Kafka 4.4 alters topics, brokers, client-metrics and groups without reading their configs
  // first: deleting a config that is not set is no error (4.0 said "Invalid config(s)"). Only a
  // broker's name is checked up front.
  const resourceAlter = async (type: number): Promise<void> => {
    if (head === BROKER && name !== '' && !/^[+-]?\d+$/.test(name)) {
      throw new ConfigCommandError(`The entity name for ${head} must be a valid integer broker id, found: ${name}`);
    }
    await incremental(type);
  };

  switch (head) {
    case TOPIC:
      await resourceAlter(ResourceType.TOPIC);
      break;
    case CLIENT_METRICS:
      await resourceAlter(ResourceType.CLIENT_METRICS);
      break;
    case BROKER:
      await resourceAlter(ResourceType.BROKER);
      break;
    case GROUP:
      await resourceAlter(ResourceType.GROUP);
      break;
    case BROKER_LOGGER: {
      const valid = new Set((await getResourceConfig(client, head, name, true, false)).map((e) => e.name));
      const invalid = [...deletes.filter((k) => !valid.has(k)), ...[...adds.keys()].filter((k) => !valid.has(k))];
      if (invalid.length > 0) throw new ConfigCommandError(`Invalid broker logger(s): ${invalid.join(',')}`);
      await incremental(ResourceType.BROKER_LOGGER);
      break;
    }
    case USER:
    case CLIENT:
      await alterUsersOrClients(client, cmd, adds, deletes);
      break;
    case IP: {
      const unknown = [...adds.keys(), ...deletes].filter((k) => !IP_CONFIGS.includes(k));
      if (unknown.length > 0) {
        throw new ConfigCommandError(
          `Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config names: ${unknown.join(',')}`,
        );
      }
      await alterQuotas(client, cmd, adds, deletes);
      break;
    }
    default:
      throw new ConfigCommandError(`Unsupported entity type: ${head}`);
  }
  io.stdout.write(
    name !== ''
      ? `Completed updating config for ${head.slice(0, -1)} ${name}.\n`
      : `Completed updating default config for ${head} in the cluster.\n`,
  );
}

async function alterUsersOrClients(
  client: KafkaClient,
  cmd: ConfigCommand,
  adds: Map<string, string>,
  deletes: string[],
): Promise<void> {
  const isQuota = (k: string): boolean => QUOTA_CONFIGS.includes(k);
  const isScram = (k: string): boolean => SCRAM_MECHANISM_NAMES.includes(k);
  const addKeys = [...adds.keys()];
  const quotaAdd = addKeys.some(isQuota);
  const scramAdd = addKeys.filter(isScram);
  const unknownAdd = addKeys.filter((k) => !isScram(k) && !isQuota(k));
  const quotaDelete = deletes.some(isQuota);
  const scramDelete = deletes.filter(isScram);
  const unknownDelete = deletes.filter((k) => !isScram(k) && !isQuota(k));
  if (cmd.entityTypes[0] === CLIENT || cmd.entityTypes.length === 2) {
    if (unknownAdd.length > 0 || scramAdd.length > 0) {
      throw new ConfigCommandError(
        `Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected config names: ${scalaSeq('List', [...unknownAdd, ...scramAdd])}`,
      );
    }
    if (unknownDelete.length > 0 || scramDelete.length > 0) {
      throw new ConfigCommandError(
        `Only quota configs can be deleted for 'clients' using --bootstrap-server. Unexpected config names: ${scalaSeq('List', [...unknownDelete, ...scramDelete])}`,
      );
    }
  } else {
    if (unknownAdd.length > 0) {
      throw new ConfigCommandError(
        `Only quota and SCRAM credential configs can be added for 'users' using --bootstrap-server. Unexpected config names: ${scalaSeq('List', unknownAdd)}`,
      );
    }
    if (unknownDelete.length > 0) {
      throw new ConfigCommandError(
        `Only quota and SCRAM credential configs can be deleted for 'users' using --bootstrap-server. Unexpected config names: ${scalaSeq('List', unknownDelete)}`,
      );
    }
    if (scramAdd.length > 0 || scramDelete.length > 0) {
      if (cmd.entityNames.some((n) => n === '')) {
        throw new ConfigCommandError(
          'The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using --bootstrap-server.',
        );
      }
      if (quotaAdd || quotaDelete) {
        throw new ConfigCommandError(
          "Cannot alter both quota and SCRAM credential configs simultaneously for 'users' using --bootstrap-server.",
        );
      }
    }
  }
  if (quotaAdd || quotaDelete) return alterQuotas(client, cmd, adds, deletes);
  const user = cmd.entityNames[0]!;
  const { alterUserScramCredentials } = await import('../../client/admin/configs.js');
  const { scramMechanism } = await import('../../protocol/sasl/scram.js');
  const upsertions = scramAdd.map((mechanism) => {
    const value = adds.get(mechanism)!;
    const m = /^(?:iterations=(-?[0-9]*),)?password=(.*)$/s.exec(value);
    // (sic) the enum constant's name (SCRAM_SHA_256) here, the mechanism name below
    if (!m) throw new ConfigCommandError(`Invalid credential property ${mechanism.replace(/-/g, '_')}=${value}`);
    const iterations = m[1] !== undefined && m[1] !== '-1' ? Number(m[1]) : 4096;
    const min = scramMechanism(mechanism)!.minIterations;
    if (iterations < min)
      throw new ConfigCommandError(
        `Iterations ${iterations} is less than the minimum ${min} required for ${mechanism}`,
      );
    return { user, mechanism, iterations, password: m[2]! };
  });
  const results = await alterUserScramCredentials(
    client,
    upsertions,
    scramDelete.map((mechanism) => ({ user, mechanism })),
  );
  for (const r of results.values()) if (!r.ok) throw r.error;
}

async function alterQuotas(
  client: KafkaClient,
  cmd: ConfigCommand,
  adds: Map<string, string>,
  deletes: string[],
): Promise<void> {
  const { entityTypes, entityNames } = cmd;
  if (entityTypes.length !== entityNames.length)
    throw new ConfigCommandError('Exactly one entity name must be specified for every entity type');
  const current = (await clientQuotas(client, entityTypes, entityNames))[0]?.values ?? new Map<string, number>();
  const invalid = deletes.filter((k) => !current.has(k));
  if (invalid.length > 0) throw new ConfigCommandError(`Invalid config(s): ${invalid.join(',')}`);
  const kafkaType: Record<string, string> = { [USER]: 'user', [CLIENT]: 'client-id', [IP]: 'ip' };
  const entity = new Map<string, string | null>();
  entityTypes.forEach((t, i) => {
    const k = kafkaType[t];
    if (!k) throw new ConfigCommandError(`Unexpected entity type: ${t}`);
    entity.set(k, entityNames[i] !== '' ? entityNames[i]! : null);
  });
  const ops = [...adds].map(([key, value]) => {
    const t = value.trim();
    const n = /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/.test(t)
      ? Number(t.replace(/[fFdD]$/, ''))
      : NaN;
    if (Number.isNaN(n) && t !== 'NaN')
      throw new ConfigCommandError(`Cannot parse quota configuration value for ${key}: ${value}`);
    return { key, value: n as number | null };
  });
  for (const k of deletes) ops.push({ key: k, value: null });
  const { alterClientQuotas } = await import('../../client/admin/configs.js');
  await alterClientQuotas(client, entity, ops);
}
