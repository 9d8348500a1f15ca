// The run scaffolding shared by the jopt tools that talk to a cluster through one client
// (delete-records, log-dirs, broker-api-versions, get-offsets): parse the options (a jopt error
// prints its message, exit 1), no arguments or --help (description + help, exit 1), --version,
// resolve the cluster (none: `Missing required argument "[bootstrap-server]"` with the help), run
// the tool, turn a failure into one line on stderr (its stack with --debug, exit 1) and close the
// client.
import type { ToolIO } from './io.js';
import type { KafkaClient } from '../../client/client.js';
import type { ClientConfig } from '../../client/config.js';
import { JoptError, parseJopt, printUsage, type JoptOptions, type JoptToolSpec } from './jopt.js';
import { openClient, resolveBootstrap, type ResolvedBootstrap } from './connection.js';
import { errorLine, writeStack } from './errors.js';

export interface ClientToolContext {
  opts: JoptOptions;
  bootstrap: ResolvedBootstrap;
  /** Prints `msg` and the tool's help on stderr; returns exit code 1. */
  usage: (msg: string) => number;
  /**
   * Opens the client for the resolved cluster and the --command-config file, with the tool's
   * overrides. Call it at most once; the client is closed when the tool ends.
   */
  connect: (overrides?: Partial<ClientConfig>) => Promise<KafkaClient>;
}

export interface ClientToolOptions {
  /** Put before the one-line messages of jopt errors and failures (GetOffsetShell: `Error occurred: `). */
  errorPrefix?: string;
}

/**
 * No arguments or --help: the tool's description and help on stderr (exit 1); --version: the
 * version on stdout (exit 0); otherwise null, to go on.
 */
export async function helpOrVersion(
  spec: JoptToolSpec,
  argv: string[],
  opts: JoptOptions,
  io: ToolIO,
): Promise<number | null> {
  if (argv.length === 0 || opts.has('help')) return printUsage(spec, io, spec.description);
  if (opts.has('version')) {
    io.stdout.write(`${(await import('./version.js')).VERSION}\n`);
    return 0;
  }
  return null;
}

/** Runs a jopt client tool: the scaffolding above around `body`, whose result is the exit code. */
export async function runClientTool(
  spec: JoptToolSpec,
  argv: string[],
  io: ToolIO,
  body: (ctx: ClientToolContext) => Promise<number>,
  options: ClientToolOptions = {},
): Promise<number> {
  const prefix = options.errorPrefix ?? '';
  const usage = (msg: string): number => printUsage(spec, io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(spec, argv);
  } catch (e) {
    if (e instanceof JoptError) {
      io.stderr.write(`${prefix}${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const debug = opts.has('debug');
  const early = await helpOrVersion(spec, argv, opts, io);
  if (early !== null) return early;
  let client = null as KafkaClient | null; // set by connect()
  try {
    const bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    if (!bootstrap) return usage('Missing required argument "[bootstrap-server]"');
    const connect = async (overrides?: Partial<ClientConfig>): Promise<KafkaClient> => {
      client = await openClient({ bootstrap, commandConfig: opts.string('command-config'), overrides });
      return client;
    };
    return await body({ opts, bootstrap, usage, connect });
  } catch (e) {
    io.stderr.write(`${prefix}${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}
