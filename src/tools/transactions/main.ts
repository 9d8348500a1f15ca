// `tkafka transactions`: kafka-transactions.sh (org.apache.kafka.tools.TransactionsCommand):
// list | describe | describe-producers | abort | find-hanging | forceTerminateTransaction, argparse4j
// parsing (top-level flags before the command, -h exits 1), Kafka's tables (ToolsUtils.prettyPrintTable: every cell padded
// and followed by a TAB) and error lines (`<context>: <cause>. Enable debug logging for additional
// detail.` on stderr, exit 1). Read commands also take --output json|table.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';
import { CONNECTION_HELP, openClient, resolveBootstrap, type ResolvedBootstrap } from '../common/connection.js';
import { errorLine, takeDebugFlag, writeStack } from '../common/errors.js';
import { OUTPUT_HELP, parseOutputFormat, type OutputFormat } from '../common/output.js';
import {
  runAbort,
  runDescribe,
  runDescribeProducers,
  runFindHanging,
  runForceTerminate,
  runList,
  TxnToolError,
} from './commands.js';

const ENV_NOTE =
  ' (tkafka: optional when TKAFKA_BOOTSTRAP_SERVER is set or a profile is active; precedence: flag > environment > profile)';

const short = (value: string): number => {
  if (!/^[+-]?\d+$/.test(value) || Math.abs(Number(value)) > 32767)
    throw new Error(`Value out of range. Value:"${value}" Radix:10`);
  return Number(value);
};

export function buildTransactionsParser(connectionRequired = true, version = ''): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'kafka-transactions.sh',
    description:
      'This tool is used to analyze the transactional state of producers in the cluster. It can be used to detect and recover from hanging transactions.',
    epilog: CONNECTION_HELP,
    version,
  });
  parser.addArgument({
    flags: ['-v', '--version'],
    action: 'version',
    help: 'show the version of this Kafka distribution and exit',
  });
  parser.addArgument({
    flags: ['--command-config'],
    metavar: 'FILE',
    help: 'property file containing configs to be passed to admin client',
  });
  parser.addArgument({
    flags: ['--bootstrap-server'],
    metavar: 'host:port',
    required: connectionRequired,
    help:
      'hostname and port for the broker to connect to, in the form `host:port`  (multiple comma-separated entries can be given)' +
      ENV_NOTE,
  });
  parser.addArgument({ flags: ['--debug'], action: 'storeTrue', help: 'tkafka: show stack traces on errors.' });
  const sub = parser.addSubparsers({ dest: 'command', title: 'commands', metavar: 'COMMAND' }); // Kafka 4.4

  const list = sub.addParser('list', { help: 'list transactions' });
  list.addArgument({
    flags: ['--duration-filter'],
    type: 'long',
    help: 'Duration (in millis) to filter by: if < 0, all transactions will be returned; otherwise, only transactions running longer than this duration will be returned',
  });
  list.addArgument({
    flags: ['--transactional-id-pattern'],
    help: 'Transactional id regular expression pattern to filter by',
  });

  const describe = sub.addParser('describe', {
    help: 'describe the state of an active transactional-id',
    description: 'Describe the state of an active transactional-id.',
  });
  describe.addArgument({ flags: ['--transactional-id'], required: true, help: 'transactional id' });

  const producers = sub.addParser('describe-producers', {
    help: 'describe the states of active producers for a topic partition',
  });
  producers.addArgument({
    flags: ['--broker-id'],
    type: 'int',
    help: 'optional broker id to describe the producer state on a specific replica',
  });
  producers.addArgument({ flags: ['--topic'], required: true, help: 'topic name' });
  producers.addArgument({ flags: ['--partition'], type: 'int', required: true, help: 'partition number' });

  const abort = sub.addParser('abort', { help: 'abort a hanging transaction (requires administrative privileges)' });
  abort.addArgument({ flags: ['--topic'], required: true, help: 'topic name' });
  abort.addArgument({ flags: ['--partition'], type: 'int', required: true, help: 'partition number' });
  abort.addArgument({ flags: ['--start-offset'], type: 'long', help: 'start offset of the transaction to abort' });
  abort.addArgument({ flags: ['--producer-id'], type: 'long', help: 'producer id' });
  abort.addArgument({ flags: ['--producer-epoch'], type: short, help: 'producer epoch' });
  abort.addArgument({ flags: ['--coordinator-epoch'], type: 'int', help: 'coordinator epoch' });

  const hanging = sub.addParser('find-hanging', { help: 'find hanging transactions' });
  hanging.addArgument({ flags: ['--broker-id'], type: 'int', help: 'broker id to search for hanging transactions' });
  hanging.addArgument({
    flags: ['--max-transaction-timeout'],
    type: 'int',
    default: 15,
    help: 'maximum transaction timeout in minutes to limit the scope of the search (15 minutes by default)',
  });
  hanging.addArgument({
    flags: ['--topic'],
    help: 'topic name to limit search to (required if --partition is specified)',
  });
  hanging.addArgument({ flags: ['--partition'], type: 'int', help: 'partition number' });

  const force = sub.addParser('forceTerminateTransaction', {
    help: 'Force abort an ongoing transaction on transactionalId (requires administrative privileges)',
    description: 'Force abort an ongoing transaction on transactionalId',
  });
  force.addArgument({
    flags: ['--transactionalId'],
    dest: 'transactionalId',
    required: true,
    help: 'transactional id',
  });

  for (const p of [list, describe, producers, hanging]) {
    p.addArgument({ flags: ['--output', '-o'], choices: ['text', 'json', 'table'], help: `tkafka: ${OUTPUT_HELP}` });
  }
  return parser;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let fallback: ResolvedBootstrap | null;
  try {
    fallback = await resolveBootstrap(null, io.env);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  const { VERSION } = await import('../common/version.js');
  // TransactionsCommand handles -h like a parse error: help on stdout, exit 1.
  const taken = takeDebugFlag(argv);
  const parsed = parseOrExit(
    buildTransactionsParser(fallback === null, `${VERSION} (Commit:unknown)`),
    taken.argv,
    io,
    1,
  );
  if ('exitCode' in parsed) return parsed.exitCode;
  const ns: Namespace = parsed.ns;
  const debug = taken.debug;
  let client: KafkaClient | null = null;
  try {
    const server = ns.bootstrap_server as string | null | undefined;
    const bootstrap = server != null ? { value: server, source: 'flag' as const } : fallback!;
    const format: OutputFormat = parseOutputFormat(ns.output as string | undefined);
    client = await openClient({ bootstrap, commandConfig: ns.command_config as string | undefined });
    const ctx = { client, io, format, now: () => Date.now() };
    switch (ns.command) {
      case 'list':
        return await runList(ctx, ns);
      case 'describe':
        return await runDescribe(ctx, ns);
      case 'describe-producers':
        return await runDescribeProducers(ctx, ns);
      case 'abort':
        return await runAbort(ctx, ns);
      case 'find-hanging':
        return await runFindHanging(ctx, ns);
      case 'forceTerminateTransaction':
        return await runForceTerminate(ctx, ns);
      default:
        throw new TxnToolError(`Unexpected command ${String(ns.command)}`);
    }
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}
