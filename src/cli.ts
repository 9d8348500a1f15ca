// The entry point: composes the command tree (src/tools/program.ts, the tools of the registry)
// with the broker, which it loads only for `tkafka server start` (broker/load-bundle.ts), and
// dispatches argv to it. bin/tkafka runs it from dist/bundle/cli.cjs (scripts/bundle.mjs), or
// from dist/src when there is no bundle; the broker's loader is imported from dist/src either way
// (tools/common/import-src.ts), since the broker is its own bundle.
import { createRequire } from 'node:module';
import { buildProgram, runToolDirectly, type ProgramActions } from './tools/program.js';
import type { ToolIO } from './tools/common/io.js';
import { NO_TTY_ENV, takeNoTtyFlag } from './tools/common/tty.js';
import { importSrc } from './tools/common/import-src.js';

type LoadBundle = typeof import('./broker/load-bundle.js');

const ACTIONS: ProgramActions = {
  startServer: async (opts) =>
    (await ((await importSrc('broker/load-bundle.js')) as LoadBundle).loadBroker()).startServer(opts),
};

export async function main(argv: string[]): Promise<void> {
  // `--no-tty` (any command): plain output instead of live terminal views (see tools/common/tty.ts).
  const { args, noTty } = takeNoTtyFlag(argv.slice(2));
  const env = noTty ? { ...process.env, [NO_TTY_ENV]: '1' } : process.env;
  const io: ToolIO = {
    stdout: process.stdout,
    stderr: process.stderr,
    // process.stdin makes its stream when first read (4-7 ms here): only for the tools that read it
    get stdin() {
      return process.stdin;
    },
    env,
  };
  // a tool, or server start, runs without commander (src/tools/program.ts)
  const code = await runToolDirectly(args, io, ACTIONS);
  if (code !== null) {
    process.exitCode = code;
    return;
  }
  const program = buildProgram(io, ACTIONS);
  try {
    await program.parseAsync([...argv.slice(0, 2), ...args]);
  } catch (err) {
    // commander's exitOverride: help, version or a usage error, already printed (commander is
    // loaded by now: buildProgram requires it)
    const { CommanderError } = createRequire(import.meta.url)('commander') as typeof import('commander');
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    throw err;
  }
}
