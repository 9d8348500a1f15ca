// The tkafka command tree. Each subcommand is declared here (cheap: commander only) and its
// implementation is loaded with a dynamic import when it runs, so a tool never pays for the broker.
import { Command, CommanderError } from 'commander';
import { readFileSync } from 'node:fs';
import { TOOLS } from './tools/registry.js';
import { NO_TTY_ENV, takeNoTtyFlag } from './tools/common/tty.js';

export const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

/** A tool module: `run(args, io)` computes and prints; returns the exit code. */
export interface ToolModule {
  run(argv: string[], io: ToolIO): Promise<number>;
}

export interface ToolIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

export function buildProgram(io: ToolIO): Command {
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
      const mod = await import('./broker/main.js');
      const code = await mod.startServer({ file, overrides: opts.override, io });
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
        process.exitCode = await mod.run(args, io);
      });
  }
  return program;
}

function collect(value: string, previous: string[]): string[] {
  return previous.concat([value]);
}

export async function main(argv: string[]): Promise<void> {
  // `--no-tty` (any command): plain output instead of live terminal views (see tools/common/tty.ts).
  const { args, noTty } = takeNoTtyFlag(argv.slice(2));
  const env = noTty ? { ...process.env, [NO_TTY_ENV]: '1' } : process.env;
  const io: ToolIO = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env };
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv.slice(0, 2), ...args]);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    throw err;
  }
}
