// Shared plumbing of the Node client programs (test/clients/README.md's program contract): argument
// parsing, the 60 s scenario bound, exit codes (0 pass, 3 n/a, anything else fail), bounded waits,
// random names with the `m-<family>-<scenario>-` prefix, and check helpers that throw on a mismatch.
import { randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

/** Thrown by a scenario whose family API cannot express it: exit 3 with the reason on stdout. */
export class NotApplicable extends Error {}

/** Thrown by a failed check: exit 1 with the message on stderr. */
export class CheckFailed extends Error {}

export function check(cond, message) {
  if (!cond) throw new CheckFailed(message);
}

export function checkEqual(actual, expected, what) {
  if (!isDeepStrictEqual(actual, expected)) {
    const show = (v) => {
      const s = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));
      return s && s.length > 400 ? `${s.slice(0, 400)}...` : s;
    };
    throw new CheckFailed(`${what}: got ${show(actual)}, want ${show(expected)}`);
  }
}

/** A unique name for a topic/group/transactional id of this run. */
export function uniqueName(family, scenario, what = '') {
  return `m-${family}-${scenario}-${what ? `${what}-` : ''}${randomBytes(4).toString('hex')}`;
}

export function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `probe` (async, returns a truthy value when done) every `intervalMs` until it is truthy or
 * `timeoutMs` passed; returns the value, or throws CheckFailed naming `what` with the last error.
 */
export async function waitFor(what, probe, { timeoutMs = 15_000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (let i = 0; ; i++) {
    try {
      const v = await probe();
      if (v) return v;
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() >= deadline || i > 100_000) break;
    await delay(intervalMs);
  }
  throw new CheckFailed(
    `timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message ?? last}` : ''}`,
  );
}

/**
 * Runs the program: `node <program> <scenario> <bootstrap>`. `scenarios` maps scenario ids to async
 * functions of the bootstrap; `version` is the `version` scenario's line. `recentLogs` (optional)
 * returns the client's last log lines, printed on stderr when a scenario fails.
 */
export async function main({ scenarios, version, recentLogs }) {
  const [scenario, bootstrap] = process.argv.slice(2);
  if (scenario === 'version') {
    process.stdout.write(`${version}\n`);
    process.exit(0);
  }
  if (!scenario || !bootstrap) {
    process.stderr.write('usage: <program> <scenario> <bootstrap>\n');
    process.exit(2);
  }
  const run = scenarios[scenario];
  if (!run) {
    process.stderr.write(`unknown scenario ${scenario}\n`);
    process.exit(2);
  }
  const timer = setTimeout(() => {
    process.stderr.write(`${scenario}: did not finish within 60 s\n`);
    printLogs();
    process.exit(1);
  }, 60_000);
  function printLogs() {
    const lines = recentLogs?.() ?? [];
    if (lines.length) process.stderr.write(`client log (last ${lines.length} lines):\n${lines.join('\n')}\n`);
  }
  try {
    const note = await run(bootstrap);
    clearTimeout(timer);
    if (note) process.stdout.write(`${note}\n`);
    process.exit(0);
  } catch (e) {
    clearTimeout(timer);
    if (e instanceof NotApplicable) {
      process.stdout.write(`${e.message}\n`);
      process.exit(3);
    }
    process.stderr.write(`${scenario}: ${e instanceof CheckFailed ? e.message : (e?.stack ?? String(e))}\n`);
    if (e?.cause) process.stderr.write(`cause: ${e.cause?.stack ?? e.cause}\n`);
    if (e?.errors) process.stderr.write(`errors: ${e.errors.map((x) => x?.message ?? x).join('; ')}\n`);
    printLogs();
    process.exit(1);
  }
}
