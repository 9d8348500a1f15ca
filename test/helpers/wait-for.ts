// The one way tests wait: poll a condition until it holds or a deadline passes. A test waits for
// what it needs (a record consumed, a member joined, a log line written), never for a fixed time.
import { setTimeout as delay } from 'node:timers/promises';

export interface WaitForOptions {
  /** What is awaited, for the error message ("group g1 to be Stable"). */
  what: string;
  /** Deadline (default 30 s). */
  timeoutMs?: number;
  /** Pause between polls (default 20 ms, doubling up to 200 ms). */
  intervalMs?: number;
}

/**
 * Resolves with the first truthy value `cond` returns (sync or async); rejects with
 * "timed out after N ms waiting for <what>" (and the last error `cond` threw, if any).
 */
export async function waitFor<T>(
  cond: () => T | null | undefined | false | 0 | '' | Promise<T | null | undefined | false | 0 | ''>,
  opts: WaitForOptions,
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  let pause = opts.intervalMs ?? 20;
  const maxPause = Math.max(pause, opts.intervalMs ?? 200);
  let lastError: unknown;
  for (;;) {
    try {
      const v = await cond();
      if (v) return v;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why = lastError === undefined ? '' : ` (last error: ${(lastError as Error).message ?? String(lastError)})`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${opts.what}${why}`);
    }
    await delay(Math.min(pause, Math.max(1, deadline - Date.now())));
    pause = Math.min(pause * 2, maxPause);
  }
}

/** Waits until `output()` (from `from` on) matches `re`; resolves with the match. */
export function waitForLine(
  output: () => string,
  re: RegExp,
  opts: WaitForOptions & { from?: number },
): Promise<RegExpExecArray> {
  return waitFor(() => re.exec(output().slice(opts.from ?? 0)), opts);
}
