// `tkafka metadata-quorum`: kafka-metadata-quorum.sh (org.apache.kafka.tools.MetadataQuorumCommand).
// argparse4j command line; `describe --status | --replication [--human-readable]` over
// --bootstrap-server or --bootstrap-controller (DescribeQuorum, DescribeCluster), add-controller and
// remove-controller [--unregister] (AddRaftVoter / RemoveRaftVoter / UnregisterController). Output is Kafka's, line for line; the tkafka
// option `describe --output json` prints the same facts as JSON.
import { existsSync } from 'node:fs';
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';
import { clusterId, describeQuorum, type BootstrapMode } from './quorum.js';
import {
  QuorumCommandError,
  replicationJson,
  replicationRows,
  replicationText,
  statusFacts,
  statusJson,
  statusText,
} from './format.js';
import { addController, removeController, TerseError } from './voters.js';

export function buildParser(): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'kafka-metadata-quorum',
    description: 'This tool describes kraft metadata quorum status.',
  });
  const conn = parser.addMutuallyExclusiveGroup({ required: true });
  conn.addArgument({
    flags: ['--bootstrap-server'],
    help: 'A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster.',
  });
  conn.addArgument({
    flags: ['--bootstrap-controller'],
    help: 'A comma-separated list of host:port pairs to use for establishing the connection to the Kafka controllers.',
  });
  parser.addArgument({
    flags: ['--command-config'],
    help: 'Property file containing configs to be passed to Admin Client. For add-controller, the file is used to specify the controller properties as well.',
  });
  const sub = parser.addSubparsers({ dest: 'command' });
  const describe = sub.addParser('describe', { help: 'Describe the metadata quorum info' });
  describe.addArgument({
    flags: ['--status'],
    action: 'storeTrue',
    help: 'A short summary of the quorum status and the other provides detailed information about the status of replication.',
  });
  describe.addArgument({
    flags: ['--replication'],
    action: 'storeTrue',
    help: 'Detailed information about the status of replication',
  });
  describe.addArgument({ flags: ['--human-readable'], action: 'storeTrue', help: 'Human-readable output' });
  describe.addArgument({
    flags: ['--output'],
    choices: ['text', 'json'],
    default: 'text',
    help: 'tkafka: output format (default: text)',
  });
  const add = sub.addParser('add-controller', { help: 'Add a controller to the KRaft controller cluster' });
  add.addArgument({
    flags: ['--dry-run'],
    action: 'storeTrue',
    help: 'True if we should print what would be done, but not do it.',
  });
  const remove = sub.addParser('remove-controller', { help: 'Remove a controller from the KRaft controller cluster' });
  remove.addArgument({
    flags: ['--controller-id', '-i'],
    type: 'int',
    required: true,
    help: 'The id of the controller to remove.',
  });
  remove.addArgument({
    flags: ['--controller-directory-id', '-d'],
    required: true,
    help: 'The directory ID of the controller to remove.',
  });
  remove.addArgument({
    flags: ['--dry-run'],
    action: 'storeTrue',
    help: 'True if we should print what would be done, but not do it.',
  });
  remove.addArgument({
    flags: ['--unregister'],
    action: 'storeTrue',
    help: 'If set, also unregister the controller after successfully removing it from the voter set.',
  });
  return parser;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const parsed = parseOrExit(buildParser(), argv, io);
  if ('exitCode' in parsed) return parsed.exitCode;
  let client: KafkaClient | null = null;
  try {
    const ns = parsed.ns;
    const commandConfig = (ns.command_config as string | null | undefined) ?? null;
    if (commandConfig !== null && !existsSync(commandConfig))
      throw new TerseError(`Properties file ${commandConfig} does not exist.`);
    const props = commandConfig === null ? new Map<string, string>() : await readProps(commandConfig);
    const mode: BootstrapMode = typeof ns.bootstrap_controller === 'string' ? 'controller' : 'broker';
    const bootstrap = (mode === 'controller' ? ns.bootstrap_controller : ns.bootstrap_server) as string;
    const open = async (): Promise<KafkaClient> => (client ??= await openClient(bootstrap, props));
    switch (ns.command) {
      case 'describe':
        return await describe(ns, io, mode, open);
      case 'add-controller':
        if (commandConfig === null)
          throw new TerseError(
            'You must supply the configuration file of the controller you are adding when using add-controller.',
          );
        io.stdout.write(await addController(ns.dry_run ? null : await open(), mode, props, ns.dry_run === true));
        return 0;
      case 'remove-controller':
        io.stdout.write(
          await removeController(
            ns.dry_run ? null : await open(),
            mode,
            ns.controller_id as number,
            ns.controller_directory_id as string,
            ns.dry_run === true,
            ns.unregister === true,
          ),
        );
        return 0;
      default:
        throw new Error(`Unknown command: ${String(ns.command)}`);
    }
  } catch (e) {
    io.stderr.write(`${failureText(e)}\n`);
    return 1;
  } finally {
    (client as KafkaClient | null)?.close();
  }
}

async function describe(
  ns: Namespace,
  io: ToolIO,
  mode: BootstrapMode,
  open: () => Promise<KafkaClient>,
): Promise<number> {
  const json = ns.output === 'json';
  if (ns.status && ns.replication)
    throw new TerseError('Only one of --status or --replication should be specified with describe sub-command');
  if (ns.replication) {
    const q = await describeQuorum(await open(), mode);
    const rows = replicationRows(q);
    io.stdout.write(
      json ? replicationJson(rows) : replicationText(rows, ns.human_readable === true, BigInt(Date.now())),
    );
    return 0;
  }
  if (ns.status) {
    if (ns.human_readable)
      throw new TerseError('The option --human-readable is only supported along with --replication');
    const client = await open();
    const id = await clusterId(client, mode);
    const facts = statusFacts(id, await describeQuorum(client, mode));
    io.stdout.write(json ? statusJson(facts) : statusText(facts));
    return 0;
  }
  throw new TerseError('One of --status or --replication must be specified with describe sub-command');
}

async function readProps(file: string): Promise<Map<string, string>> {
  const { loadPropertiesFile } = await import('../common/connection.js');
  return loadPropertiesFile(file);
}

async function openClient(bootstrap: string, props: ReadonlyMap<string, string>): Promise<KafkaClient> {
  const [{ KafkaClient }, { clientConfigFromProperties, parseBootstrapServers }] = await Promise.all([
    import('../../client/client.js'),
    import('../../client/config.js'),
  ]);
  return new KafkaClient(clientConfigFromProperties(props, { bootstrapServers: parseBootstrapServers(bootstrap) }));
}

/**
 * The stderr text: terse failures as their message; a Kafka error as mainNoExit prints the
 * ExecutionException: its message (the cause's toString), then its stack trace, of which tkafka
 * prints the first line.
 */
function failureText(e: unknown): string {
  if (e instanceof TerseError || e instanceof QuorumCommandError) return e.message;
  const j = e as { javaString?: () => string; message?: string };
  if (typeof j.javaString === 'function')
    return `${j.javaString()}\njava.util.concurrent.ExecutionException: ${j.javaString()}`;
  return e instanceof Error ? e.message : String(e);
}
