// The `tkafka` command tree: global options, `server start`, and one command per registered tool,
// each loaded with a dynamic import when it runs (declaring the tree costs commander only). The
// broker is not a tool: `server start` runs the action the entry point (src/cli.ts) gives it, so
// nothing under src/tools imports the broker. `tkafka <tool> args...` is dispatched without
// commander (runToolDirectly), which is then never loaded: a quarter of what `topics --list` spent
// above `node -e 0` (README, Start-up).
import type { Command } from 'commander';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import type { CliDescription, ToolIO } from './common/io.js';
import { VERSION } from './common/version.js';
import { TOOLS } from './registry.js';

export interface StartServerOptions {
  /** server.properties; undefined means the embedded defaults. */
  file: string | undefined;
  /** `--override key=value` strings, in order. */
  overrides: string[];
  io: ToolIO;
}

/** What the commands that are not tools do when they run. */
export interface ProgramActions {
  /** `tkafka server start`: returns the exit code. */
  startServer(opts: StartServerOptions): Promise<number>;
}

/** For a program that is only described (docs, completion), never run. */
const DESCRIBE_ONLY: ProgramActions = {
  startServer: () => Promise.reject(new Error('this tkafka program only describes its commands')),
};

/** commander, loaded when a program is built (synchronously: describeCli().program() is sync). */
const loadCommander = (): typeof import('commander') =>
  createRequire(import.meta.url)('commander') as typeof import('commander');

export function buildProgram(io: ToolIO, actions: ProgramActions = DESCRIBE_ONLY): Command {
  const { Command } = loadCommander();
  const program = new Command('tkafka')
    .description('A Kafka-compatible broker and KRaft controller, and the operations toolkit for any Kafka cluster')
    .version(VERSION, '-V, --version')
    .option(
      '--no-tty',
      'plain, script-friendly output instead of live terminal views, for any command (also: TKAFKA_NO_TTY=1, NO_COLOR=1)',
    )
    .showHelpAfterError()
    .exitOverride();

  const server = program.command('server').description('Run a tkafka broker and controller (kafka-server-start.sh)');
  server
    .command('start')
    .description('Start a broker+controller node from a server.properties file, or from the embedded defaults')
    .argument('[server.properties]', 'Kafka server configuration file')
    .option('--override <key=value...>', 'override a configuration property', collect, [])
    .allowExcessArguments(false)
    .action(async (file: string | undefined, opts: { override: string[] }) => {
      const code = await actions.startServer({ file, overrides: opts.override, io });
      if (code !== 0) process.exitCode = code;
    });

  // Tools whose flags follow Kafka's scripts get their raw arguments and parse them as Kafka does.
  for (const tool of TOOLS) {
    program
      .command(tool.name, { hidden: tool.hidden === true })
      .description(`${tool.summary} (${tool.kafka})`)
      .helpOption(false)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .argument('[args...]')
      .action(async (args: string[]) => {
        const mod = await tool.load();
        process.exitCode = await mod.run(args, io, describeCli());
      });
  }
  return program;
}

/**
 * Arguments the program itself takes wherever they appear (commander reads its own options after a
 * subcommand too): `-V`/`--version` print tkafka's version, `--` ends the options. `--no-tty` is
 * taken out before (tools/common/tty.ts); `-h`/`--help` reach the tool, whose help is Kafka's.
 */
const isProgramArg = (a: string): boolean => a === '--' || a === '--version' || a.startsWith('-V');

/**
 * `tkafka <tool> args...` as the program dispatches it (the tool's raw arguments, its exit code),
 * and the plain forms of `tkafka server start` (below), without loading commander; null when
 * commander must parse `args` (argv after the script: anything else, or an argument of the program
 * itself).
 */
export async function runToolDirectly(
  args: readonly string[],
  io: ToolIO,
  actions: ProgramActions = DESCRIBE_ONLY,
): Promise<number | null> {
  if (args.some(isProgramArg)) return null;
  if (args[0] === 'server' && args[1] === 'start') {
    const opts = plainServerStart(args.slice(2));
    return opts ? actions.startServer({ ...opts, io }) : null;
  }
  const tool = TOOLS.find((t) => t.name === args[0]);
  if (!tool) return null;
  const mod = await tool.load();
  return mod.run(args.slice(1), io, describeCli());
}

/**
 * `server start [server.properties] [--override key=value ...]` read as commander reads it: an
 * `--override` takes the arguments after it up to the next option (variadic), a file must come
 * before them. null for any other option (`--override=k=v`, `-h`, ...), a second file or an
 * `--override` without a value: commander parses those and says what is wrong.
 */
function plainServerStart(args: readonly string[]): { file: string | undefined; overrides: string[] } | null {
  let file: string | undefined;
  const overrides: string[] = [];
  let inOverride = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--override') {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('-')) return null;
      inOverride = true;
      continue;
    }
    if (a.startsWith('-')) return null;
    if (inOverride) overrides.push(a);
    else if (file === undefined) file = a;
    else return null;
  }
  return { file, overrides };
}

/** The command tree as data, for the tools that document it. */
export function describeCli(): CliDescription {
  return { program: () => buildProgram(silentIO()), tools: TOOLS };
}

function silentIO(): ToolIO {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return { stdout: sink, stderr: sink, stdin: process.stdin, env: {} };
}

function collect(value: string, previous: string[]): string[] {
  return previous.concat([value]);
}
