// `tkafka configs`: kafka-configs.sh (kafka.admin.ConfigCommand, Kafka 4.0) — describe and alter
// configs of topics, brokers (and their cluster default), broker loggers, users, clients, ips,
// client-metrics and groups, with Kafka's flags, checks, messages and output lines.
// Validation failures print the bare message on stderr (exit 1); operation failures print
// `Error while executing config command with args '<args>'` and the exception line instead of
// Kafka's stack trace.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { JoptError, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, isEnvironmentError, javaErrorString, writeStack } from '../common/errors.js';
import { parseOutputFormat } from '../common/output.js';
import {
  BROKER,
  BROKER_LOGGER,
  CLIENT,
  ENTITY_DEFAULT_FLAGS,
  ENTITY_FLAGS,
  IP,
  SUPPORTED_TYPES,
  USER,
  configsSpec,
  fullConfigsSpec,
} from './spec.js';
import { ConfigCommandError, type ConfigCommand } from './command.js';

function entityTypesOf(opts: JoptOptions): string[] {
  return [
    ...opts.valuesOf('entity-type').map(String),
    ...[...ENTITY_FLAGS, ...ENTITY_DEFAULT_FLAGS].filter(([flag]) => opts.has(flag)).map(([, type]) => type),
  ];
}

/** ConfigCommandOptions.entityNames: --entity-name/--entity-default in the order given, then the shorthand flags. */
function entityNamesOf(opts: JoptOptions, argv: string[]): string[] {
  const names = opts.valuesOf('entity-name').map(String);
  const ordered: string[] = [];
  let n = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--entity-name' || a.startsWith('--entity-name=')) {
      ordered.push(names[n++] ?? '');
      if (a === '--entity-name') i++;
    } else if (a === '--entity-default') ordered.push('');
    else if (/^--[a-z-]+$/.test(a) && !['--entity-default'].includes(a) && takesArg(a.slice(2))) i++;
  }
  return [
    ...ordered,
    ...ENTITY_FLAGS.filter(([flag]) => opts.has(flag)).map(([flag]) => opts.string(flag)!),
    ...ENTITY_DEFAULT_FLAGS.filter(([flag]) => opts.has(flag)).map(() => ''),
  ];
}

const ARG_FLAGS = new Set(
  configsSpec()
    .options.filter((o) => o.arg)
    .map((o) => o.names[0]!),
);
const takesArg = (name: string): boolean => ARG_FLAGS.has(name);

function isValidIpEntity(ip: string): boolean {
  // DynamicConfig.Ip.isValidIpEntity: an IP literal or a resolvable host name (syntax only here).
  return /^[0-9.]+$/.test(ip)
    ? /^(\d{1,3})(\.\d{1,3}){3}$/.test(ip) && ip.split('.').every((p) => Number(p) <= 255)
    : /^[0-9A-Fa-f:.]+$/.test(ip)
      ? ip.includes(':')
      : /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(ip);
}

/** ConfigCommandOptions.checkArgs (Kafka 4.0): a usage message (help follows) or a thrown ConfigCommandError. */
function checkArgs(opts: JoptOptions, types: string[], names: string[], hasBootstrap: boolean): string | null {
  if (['alter', 'describe'].filter((a) => opts.has(a)).length !== 1)
    return 'Command must include exactly one action: --describe, --alter';
  if (opts.has('alter') && opts.has('describe')) return 'Option "[alter]" can\'t be used with option "[describe]"';
  if (opts.has('describe')) {
    for (const o of ['alter', 'add-config', 'delete-config'])
      if (opts.has(o)) return `Option "[describe]" can't be used with option "[${o}]"`;
  }
  const dups = types.filter((t, i) => types.indexOf(t) !== i);
  if (dups.length > 0)
    throw new ConfigCommandError(`Duplicate entity type(s) specified: ${[...new Set(dups)].join(',')}`);
  for (const t of types) {
    if (!SUPPORTED_TYPES.includes(t)) {
      throw new ConfigCommandError(
        `Invalid entity type ${t}, the entity type must be one of ${SUPPORTED_TYPES.join(', ')} with a --bootstrap-server or --bootstrap-controller argument`,
      );
    }
  }
  if (types.length === 0) throw new ConfigCommandError('At least one entity type must be specified');
  if (types.length > 1 && !(types.length === 2 && types.includes(USER) && types.includes(CLIENT))) {
    throw new ConfigCommandError("Only 'users' and 'clients' entity types may be specified together");
  }
  if (
    (opts.has('entity-name') || opts.has('entity-type') || opts.has('entity-default')) &&
    [...ENTITY_FLAGS, ...ENTITY_DEFAULT_FLAGS].some(([flag]) => opts.has(flag))
  ) {
    throw new ConfigCommandError(
      '--entity-{type,name,default} should not be used in conjunction with specific entity flags',
    );
  }
  const hasEntityName = names.some((n) => n !== '');
  const hasEntityDefault = names.some((n) => n === '');
  const connects = (opts.has('bootstrap-server') ? 1 : 0) + (opts.has('bootstrap-controller') ? 1 : 0);
  if (connects === 0 && !hasBootstrap)
    throw new ConfigCommandError('Either --bootstrap-server or --bootstrap-controller must be specified.');
  if (connects > 1)
    throw new ConfigCommandError('Only one of --bootstrap-server or --bootstrap-controller can be specified');
  if (hasEntityName && (types.includes(BROKER) || types.includes(BROKER_LOGGER))) {
    for (const flag of ['entity-name', 'broker', 'broker-logger']) {
      if (!opts.has(flag)) continue;
      const id = String(opts.valuesOf(flag)[0]);
      if (!/^[+-]?\d+$/.test(id) || Math.abs(Number(id)) > 2147483647) {
        throw new ConfigCommandError(
          `The entity name for ${types[0]} must be a valid integer broker id, but it is: ${id}`,
        );
      }
    }
  }
  if (hasEntityName && types.includes(IP)) {
    for (const flag of ['entity-name', 'ip']) {
      if (!opts.has(flag)) continue;
      const ip = String(opts.valuesOf(flag)[0]);
      if (!isValidIpEntity(ip))
        throw new ConfigCommandError(
          `The entity name for ${types[0]} must be a valid IP or resolvable host, but it is: ${ip}`,
        );
    }
  }
  const quotaLike = types.includes(USER) || types.includes(CLIENT) || types.includes(BROKER) || types.includes(IP);
  if (opts.has('describe')) {
    if (!quotaLike && opts.has('entity-default'))
      throw new ConfigCommandError(`--entity-default must not be specified with --describe of ${types.join(',')}`);
    if (types.includes(BROKER_LOGGER) && !hasEntityName)
      throw new ConfigCommandError(`An entity name must be specified with --describe of ${types.join(',')}`);
  }
  if (opts.has('alter')) {
    if (quotaLike) {
      if (!hasEntityName && !hasEntityDefault)
        throw new ConfigCommandError(
          'An entity-name or default entity must be specified with --alter of users, clients, brokers or ips',
        );
    } else if (!hasEntityName)
      throw new ConfigCommandError(`An entity name must be specified with --alter of ${types.join(',')}`);
    if (opts.has('add-config') && opts.has('add-config-file'))
      throw new ConfigCommandError('Only one of --add-config or --add-config-file must be specified');
    if (!opts.has('add-config') && !opts.has('add-config-file') && !opts.has('delete-config')) {
      throw new ConfigCommandError(
        'At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter',
      );
    }
  }
  return null;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const usage = async (msg: string): Promise<number> => printUsage(await fullConfigsSpec(), io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(configsSpec(), argv);
  } catch (e) {
    if (e instanceof JoptError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const debug = opts.has('debug');
  if (argv.length === 0 || opts.has('help')) {
    return usage(
      'This tool helps to manipulate and describe entity config for a topic, client, user, broker, ip, client-metrics or group',
    );
  }
  if (opts.has('version')) {
    io.stdout.write(`${(await import('../common/version.js')).VERSION}\n`);
    return 0;
  }
  const args = argv.filter((a) => a !== '--debug');
  const failure = (e: unknown): number => {
    const javaLevel = e instanceof Error && e.name === 'ConnectionSetupError' && e.message.startsWith('java.');
    if (!javaLevel && (e instanceof ConfigCommandError || isEnvironmentError(e))) io.stderr.write(`${errorLine(e)}\n`);
    else {
      io.stderr.write(`Error while executing config command with args '${args.join(' ')}'\n`);
      const j = e as { javaString?: unknown; unwrapped?: boolean };
      io.stderr.write(
        `${j.javaString ? `${j.unwrapped ? '' : 'java.util.concurrent.ExecutionException: '}${javaErrorString(e)}` : errorLine(e)}\n`,
      );
    }
    writeStack(io, debug, e);
    return 1;
  };
  let cmd: ConfigCommand;
  let client: KafkaClient;
  try {
    const types = entityTypesOf(opts);
    const names = entityNamesOf(opts, argv);
    const flag = opts.string('bootstrap-server') ?? opts.string('bootstrap-controller');
    const bootstrap = await resolveBootstrap(flag, io.env);
    const problem = checkArgs(opts, types, names, bootstrap !== null);
    if (problem !== null) return usage(problem);
    const format = parseOutputFormat(opts.string('output'));
    if (format !== 'text' && !opts.has('describe'))
      throw new ConfigCommandError('--output is only supported with --describe');
    cmd = { opts, argv: args, entityTypes: types, entityNames: names, format };
    client = await openClient({ bootstrap: bootstrap!, commandConfig: opts.string('command-config') });
    if (opts.has('alter') && types.length !== names.length) {
      client.close();
      throw new ConfigCommandError('An entity name must be specified for every entity type');
    }
  } catch (e) {
    return failure(e);
  }
  try {
    // Reach the cluster first: an unreachable one is then one line, before any header is printed.
    await client.anyConnection();
    if (opts.has('alter')) {
      const { alterConfig } = await import('./alter.js');
      await alterConfig(client, cmd, io);
    } else {
      const { describeConfig } = await import('./describe.js');
      await describeConfig(client, cmd, io);
    }
    return 0;
  } catch (e) {
    return failure(e);
  } finally {
    client.close();
  }
}
