// `tkafka client-metrics`: kafka-client-metrics.sh (org.apache.kafka.tools.ClientMetricsCommand,
// Kafka 4.4): lists, describes, alters and deletes the client-metrics config resources that KIP-714
// client telemetry subscriptions are made of (metrics prefixes, interval.ms, match selectors), with
// Kafka's flags, checks, messages and exit codes. Operation errors go to stdout as
// `Error while executing client metrics command : <message>` (exit 1), argument errors to stderr
// with the exception line (exit 1), usage errors with the help table. `--output json` (tkafka) prints
// --list and --describe as one JSON document. The resources are read and written as `tkafka configs
// --entity-type client-metrics` does (ListConfigResources, DescribeConfigs, IncrementalAlterConfigs).
import type { ToolIO } from '../common/io.js';
import type { JoptOptions, JoptToolSpec } from '../common/jopt.js';
import { COMMAND_CONFIG_OPTION, JoptError, parseJopt, printUsage } from '../common/jopt.js';
import { helpOrVersion } from '../common/run-tool.js';
import { openClient, resolveBootstrap, type ResolvedBootstrap } from '../common/connection.js';
import { errorLine, isEnvironmentError, writeStack } from '../common/errors.js';
import { DEBUG_OPTION } from '../topics/spec.js';
import { randomUuid } from '../../storage/meta-properties.js';
import type { KafkaClient } from '../../client/client.js';

const DESCRIPTION = 'This tool helps to manipulate and describe client metrics configurations.';
const MATCH_SELECTORS = [
  'client_id',
  'client_instance_id',
  'client_software_name',
  'client_software_version',
  'client_source_address',
  'client_source_port',
];

export const CLIENT_METRICS_SPEC: JoptToolSpec = {
  name: 'client-metrics',
  kafkaScript: 'kafka-client-metrics.sh',
  description: DESCRIPTION,
  options: [
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED: The Kafka server to connect to.',
      arg: { name: 'server to connect to' },
      complete: 'host:port',
    },
    COMMAND_CONFIG_OPTION,
    { names: ['alter'], description: 'Alter the configuration for the client metrics resource.' },
    { names: ['delete'], description: 'Delete the configuration for the client metrics resource.' },
    { names: ['describe'], description: 'List configurations for the client metrics resource.' },
    { names: ['list'], description: 'List the client metrics resources.' },
    { names: ['name'], description: 'Name of client metrics configuration resource.', arg: { name: 'name' } },
    { names: ['generate-name'], description: 'Generate a UUID to use as the name.' },
    { names: ['interval'], description: 'The metrics push interval in milliseconds.', arg: { name: 'push interval' } },
    {
      names: ['match'],
      description:
        "Matching selector 'k1=v1,k2=v2'. The following is a list of valid selector names: \n" +
        MATCH_SELECTORS.map((s) => `\t${s}`).join('\n'),
      arg: { name: 'k1=v1,k2=v2', separator: ',' },
    },
    {
      names: ['metrics'],
      description: "Telemetry metric name prefixes 'm1,m2'.",
      arg: { name: 'm1,m2', separator: ',' },
    },
    {
      names: ['output'],
      extension: true,
      arg: { name: 'text|json' },
      complete: ['text', 'json'],
      description:
        'tkafka: Output format of --list and --describe: text (the default: the same lines as the Kafka tool) or json.',
    },
    DEBUG_OPTION,
  ],
};

/** An IllegalArgumentException of ClientMetricsCommandOptions.checkArgs: message, then the exception line. */
class ArgumentError extends Error {}

const ACTIONS = ['alter', 'delete', 'describe', 'list'] as const;
const INVALID_WITH: Record<string, readonly string[]> = {
  delete: ['generate-name', 'interval', 'match', 'metrics'],
  describe: ['generate-name', 'interval', 'match', 'metrics'],
  list: ['name', 'generate-name', 'interval', 'match', 'metrics'],
};

/** ClientMetricsCommandOptions.checkArgs after the action count: a usage message, or throws ArgumentError. */
function checkArgs(opts: JoptOptions, bootstrap: ResolvedBootstrap | null): string | null {
  // a tkafka profile or TKAFKA_BOOTSTRAP_SERVER may stand for --bootstrap-server
  if (!bootstrap) throw new ArgumentError('--bootstrap-server must be specified.');
  for (const [action, others] of Object.entries(INVALID_WITH)) {
    if (!opts.has(action)) continue;
    for (const o of others) if (opts.has(o)) return `Option "[${action}]" can't be used with option "[${o}]"`;
  }
  const hasName = opts.has('name');
  if (opts.has('alter') && hasName === opts.has('generate-name'))
    throw new ArgumentError('One of --name or --generate-name must be specified with --alter.');
  if (opts.has('interval')) {
    const v = opts.string('interval')!;
    // Integer.parseInt: no blanks, within an int
    const n = /^[+-]?\d+$/.test(v) ? Number(v) : NaN;
    if (v !== '' && !(Number.isInteger(n) && n >= -2147483648 && n <= 2147483647)) {
      throw new ArgumentError('Invalid interval value. Enter an integer, or leave empty to reset.');
    }
  }
  if (opts.has('delete') && !hasName)
    throw new ArgumentError('A client metrics resource name must be specified with --delete.');
  return null;
}

const CLIENT_METRICS = 16;

async function listNames(client: KafkaClient): Promise<string[]> {
  const { listConfigResources } = await import('../configs/describe.js');
  return (await listConfigResources(client, CLIENT_METRICS)) ?? [];
}

async function configsOf(client: KafkaClient, name: string): Promise<{ name: string; value: string | null }[]> {
  const { describeConfig } = await import('../../client/admin/configs.js');
  return describeConfig(client, { type: CLIENT_METRICS, name });
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let opts: JoptOptions;
  try {
    opts = parseJopt(CLIENT_METRICS_SPEC, argv);
  } catch (e) {
    if (e instanceof JoptError) return printUsage(CLIENT_METRICS_SPEC, io, e.message);
    throw e;
  }
  const early = await helpOrVersion(CLIENT_METRICS_SPEC, argv, opts, io);
  if (early !== null) return early;
  const usage = (msg: string): number => printUsage(CLIENT_METRICS_SPEC, io, msg);
  const debug = opts.has('debug');
  if (ACTIONS.filter((a) => opts.has(a)).length !== 1)
    return usage('Command must include exactly one action: --alter, --delete, --describe or --list.');
  let client: KafkaClient | null = null;
  try {
    const bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    let problem: string | null;
    try {
      problem = checkArgs(opts, bootstrap);
    } catch (e) {
      if (!(e instanceof ArgumentError)) throw e;
      io.stderr.write(`${e.message}\njava.lang.IllegalArgumentException: ${e.message}\n`);
      return 1;
    }
    if (problem !== null) return usage(problem);
    const { parseOutputFormat } = await import('../common/output.js');
    const format = parseOutputFormat(opts.string('output'));
    if (format === 'table') {
      io.stderr.write("Invalid value 'table' for --output: expected one of text, json\n");
      return 1;
    }
    const out = (l: string): void => void io.stdout.write(l + '\n');
    client = await openClient({ bootstrap: bootstrap!, commandConfig: opts.string('command-config') });
    const c = client;
    try {
      if (opts.has('alter')) {
        const name = opts.has('generate-name') ? randomUuid() : opts.string('name')!;
        const set = new Map<string, string>();
        if (opts.has('interval')) set.set('interval.ms', opts.string('interval')!);
        if (opts.has('metrics')) set.set('metrics', opts.valuesOf('metrics').map(String).join(','));
        if (opts.has('match')) set.set('match', opts.valuesOf('match').map(String).join(','));
        const { incrementalAlterConfigs, OpType } = await import('../../client/admin/configs.js');
        const ops = [...set].map(([k, v]) => ({ name: k, value: v, op: v === '' ? OpType.DELETE : OpType.SET }));
        const res = await incrementalAlterConfigs(c, [{ resource: { type: CLIENT_METRICS, name }, ops }]);
        for (const r of res.values()) if (!r.ok) throw r.error;
        out(`Altered client metrics config for ${name}.`);
      } else if (opts.has('delete')) {
        const name = opts.string('name')!;
        const old = await configsOf(c, name);
        const { incrementalAlterConfigs, OpType } = await import('../../client/admin/configs.js');
        const ops = old.map((e) => ({ name: e.name, value: e.value, op: OpType.DELETE }));
        const res = await incrementalAlterConfigs(c, [{ resource: { type: CLIENT_METRICS, name }, ops }]);
        for (const r of res.values()) if (!r.ok) throw r.error;
        out(`Deleted client metrics config for ${name}.`);
      } else if (opts.has('describe')) {
        const names = await listNames(c);
        const asked = opts.string('name');
        if (asked !== undefined && !names.includes(asked)) {
          if (format === 'json') {
            const { writeJson } = await import('../common/output.js');
            writeJson(io, { resources: [] });
          } else out(`The client metric resource ${asked} doesn't exist and doesn't have dynamic config.`);
          return 0;
        }
        const resources: { name: string; configs: { name: string; value: string | null }[] }[] = [];
        for (const name of asked !== undefined ? [asked] : names) {
          if (format === 'text') out(`Client metrics configs for ${name} are:`);
          const configs = (await configsOf(c, name)).map((e) => ({ name: e.name, value: e.value }));
          if (format === 'text') for (const e of configs) out(`  ${e.name}=${e.value}`);
          resources.push({ name, configs });
        }
        if (format === 'json') {
          const { writeJson } = await import('../common/output.js');
          writeJson(io, { resources });
        }
      } else {
        const names = await listNames(c);
        if (format === 'json') {
          const { writeJson } = await import('../common/output.js');
          writeJson(io, { resources: names });
        } else out(names.join('\n'));
      }
      return 0;
    } catch (e) {
      const line = `Error while executing client metrics command : ${errorLine(e)}\n`;
      if (isEnvironmentError(e)) io.stderr.write(line);
      else io.stdout.write(line);
      writeStack(io, debug, e);
      return 1;
    }
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}
