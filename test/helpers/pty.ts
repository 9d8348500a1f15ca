// Running `tkafka` under a pseudo-terminal (util-linux `script`), for the tests of the live views:
// what the terminal received, escape sequences included, and the screen text without them.
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { REPO_ROOT } from './spec-models.js';

/** True when `script` is installed (CI provisions it; without it the live-view tests are skipped and npm test fails). */
export const hasScript = (): boolean => spawnSync('sh', ['-c', 'command -v script']).status === 0;

/** A terminal's environment and nothing else of the test's (no NO_COLOR, no CI variables). */
export const terminalEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  ...extra,
});

/** `node bin/tkafka <args>` inside a cols × rows pseudo-terminal; what the terminal received and the exit code. */
export async function tkafkaUnderPty(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  size: { cols: number; rows: number } = { cols: 120, rows: 40 },
): Promise<{ raw: string; exitCode: number | undefined }> {
  const cmd = `stty cols ${size.cols} rows ${size.rows}; exec node ${['bin/tkafka', ...args].map((a) => `'${a}'`).join(' ')}`;
  const r = await execa('script', ['-qfec', cmd, '/dev/null'], {
    cwd: REPO_ROOT,
    reject: false,
    timeout: 60_000,
    extendEnv: false,
    env: terminalEnv(env),
  });
  return { raw: r.stdout + r.stderr, exitCode: r.exitCode };
}

/** Terminal bytes without escape sequences and carriage returns. */
export const screenText = (s: string): string =>
  s
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .replace(/\x1b[()][A-Z0-9]/g, '')
    .replace(/\r/g, '');
