// The entry point: composes the command tree (src/tools/program.ts, the tools of the registry)
// with the broker, which it loads only for `tkafka server start`, and dispatches argv to it.
import { statSync } from 'node:fs';
import { CommanderError } from 'commander';
import { buildProgram, type ProgramActions } from './tools/program.js';
import type { ToolIO } from './tools/common/io.js';
import { NO_TTY_ENV, takeNoTtyFlag } from './tools/common/tty.js';

type BrokerMain = typeof import('./broker/main.js');

/**
 * The broker as one module, dist/bundle/broker.js (scripts/bundle.mjs, run by `npm run build`),
 * when it is there and not older than tsc's output it was made from; else dist/src/broker/main.js
 * (also with TKAFKA_UNBUNDLED=1: stack traces in dist/src, the start-up benchmark's comparison).
 */
async function loadBroker(): Promise<BrokerMain> {
  const bundle = new URL('../bundle/broker.js', import.meta.url);
  const source = new URL('./broker/main.js', import.meta.url);
  const bundled = process.env.TKAFKA_UNBUNDLED ? undefined : statSync(bundle, { throwIfNoEntry: false });
  if (bundled && bundled.mtimeMs >= statSync(source).mtimeMs) return (await import(bundle.href)) as BrokerMain;
  return import('./broker/main.js');
}

const ACTIONS: ProgramActions = {
  startServer: async (opts) => (await loadBroker()).startServer(opts),
};

export async function main(argv: string[]): Promise<void> {
  // `--no-tty` (any command): plain output instead of live terminal views (see tools/common/tty.ts).
  const { args, noTty } = takeNoTtyFlag(argv.slice(2));
  const env = noTty ? { ...process.env, [NO_TTY_ENV]: '1' } : process.env;
  const io: ToolIO = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env };
  const program = buildProgram(io, ACTIONS);
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
