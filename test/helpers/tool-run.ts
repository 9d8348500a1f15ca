// `tkafka <tool>` run in this process, as a user runs it, with its output captured: the tool's
// `run(argv, io)` (src/tools/<tool>/main.ts) with in-memory stdout and stderr.
import { Readable, Writable } from 'node:stream';
import type { ToolIO } from '../../src/tools/common/io.js';

export interface Run {
  code: number;
  out: string;
  err: string;
}

/**
 * `tkafka <tool> args` in this process: src/tools/<tool>/main.ts's run with captured stdout/stderr
 * (stdin: `input` when given, else this process's).
 */
export async function runTkafka(
  tool: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  input?: string,
): Promise<Run> {
  const mod = (await import(`../../src/tools/${tool}/main.js`)) as {
    run(argv: string[], io: ToolIO): Promise<number>;
  };
  let out = '';
  let err = '';
  const sink = (add: (s: string) => void): Writable =>
    new Writable({
      write(c, _e, cb) {
        add(String(c));
        cb();
      },
    });
  const code = await mod.run(args, {
    stdout: sink((s) => (out += s)),
    stderr: sink((s) => (err += s)),
    stdin: input === undefined ? process.stdin : Readable.from([Buffer.from(input)]),
    env,
  });
  return { code, out, err };
}
