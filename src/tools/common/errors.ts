// Turning a failure into one clear line. Client failures (no reachable broker, an API the broker
// lacks, a timeout, a Kafka error code) print their message; anything unexpected prints
// `Error: <message>`. A stack trace is only shown with --debug.
import type { ToolIO } from './io.js';

/** A usage or validation failure a tool reports itself (exit 1). */
export class ToolError extends Error {
  override name = 'ToolError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const CLIENT_ERRORS = new Set([
  'ConnectionError',
  'DisconnectedError',
  'RequestTimeoutError',
  'OperationTimeoutError',
  'UnsupportedApiError',
  'ClientConfigError',
  'ConnectionSetupError',
  'ProfileError',
  'OutputFormatError',
  'ToolError',
]);

/** True for failures of the environment (cluster unreachable, unsupported API, bad client config). */
export function isEnvironmentError(e: unknown): boolean {
  return e instanceof Error && CLIENT_ERRORS.has(e.name) && e.name !== 'ToolError';
}

/** One line describing `e` (no stack, no newlines). */
export function errorLine(e: unknown): string {
  if (e instanceof Error) {
    const msg = (e.message || e.name).replace(/\s*\n\s*/g, ' ');
    if (CLIENT_ERRORS.has(e.name) || e.name === 'ApiError') return msg;
    return msg;
  }
  return String(e);
}

/** Kafka's exception text for a Kafka error (`org.apache.kafka.common.errors.X: msg`), else the message. */
export function javaErrorString(e: unknown): string {
  const j = e as { javaString?: () => string };
  if (e instanceof Error && typeof j.javaString === 'function') return j.javaString();
  return errorLine(e);
}

export function writeStack(io: ToolIO, debug: boolean, e: unknown): void {
  if (debug && e instanceof Error && e.stack) io.stderr.write(e.stack + '\n');
}

/** Writes `prefix + one line` to stderr (plus the stack with --debug) and returns exit code 1. */
export function reportError(io: ToolIO, e: unknown, opts: { debug?: boolean; prefix?: string } = {}): number {
  io.stderr.write(`${opts.prefix ?? ''}${errorLine(e)}\n`);
  writeStack(io, opts.debug ?? false, e);
  return e instanceof ToolError ? e.exitCode : 1;
}

/** Pulls `--debug` out of argv (accepted by every tool, anywhere). */
export function takeDebugFlag(argv: string[]): { argv: string[]; debug: boolean } {
  const rest = argv.filter((a) => a !== '--debug');
  return { argv: rest, debug: rest.length !== argv.length };
}
