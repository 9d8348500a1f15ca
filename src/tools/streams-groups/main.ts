// `tkafka streams-groups`: kafka-streams-groups.sh (org.apache.kafka.tools.streams.StreamsGroupCommand,
// Kafka 4.4) with Kafka's flags, validation order, messages and output lines; `--output json|table`
// for every command except --export.
//
// Exit codes as Kafka 4.4's: usage errors exit 1 (message + help on stderr; a parse error prints its
// message alone); a failed Admin call prints `\nError: Executing streams group command failed due to
// <exception>` on stdout and exits 1 (tkafka writes one line on stderr instead of Kafka's stack
// trace). Errors the command reports and goes on from (`Error: Streams group 'g' is not EMPTY.`)
// keep exit 0, as Kafka's.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { JoptError, formatJoptHelp, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, isEnvironmentError, writeStack } from '../common/errors.js';
import { parseOutputFormat, type OutputFormat } from '../common/output.js';
import { helpOrVersion } from '../common/run-tool.js';
import { CommandError, UsageError, longOption, type GroupsContext } from '../consumer-groups/format.js';
import { parsingSpec } from '../consumer-groups/spec.js';
import { AVAILABLE_IF, RESET_SCENARIOS, streamsGroupsSpec } from './spec.js';

const ACTIONS = ['list', 'describe', 'delete', 'reset-offsets', 'delete-offsets'] as const;

const cantUse = (a: string, b: string): string => `Option "[${a}]" can't be used with option "[${b}]"`;

/** StreamsGroupCommandOptions.checkArgs (Kafka 4.4) after the bootstrap check: the first usage message, or null. */
export function checkArgs(opts: JoptOptions): string | null {
  const has = (n: string): boolean => opts.has(n);
  if (has('describe')) {
    if (!has('group') && !has('all-groups'))
      return 'Option [describe] takes one of these options: [all-groups], [group]';
    if (['members', 'offsets', 'state', 'topology'].filter(has).length > 1)
      return 'Option [describe] takes at most one of these options: [members], [offsets], [state], [topology]';
    if (has('state') && opts.string('state') !== undefined)
      return 'Option [describe] does not take a value for [state]';
  }
  if (has('delete')) {
    if (!has('group') && !has('all-groups')) return 'Option [delete] takes one of these options: [all-groups], [group]';
    if (has('input-topic') || has('all-input-topics'))
      return 'Kafka Streams does not support topic-specific offset deletion from a streams group.';
  }
  if (has('delete-offsets')) {
    if ((!has('input-topic') && !has('all-input-topics')) || !has('group'))
      return 'Option [delete-offsets] takes the [group] and one of these options: [all-input-topics], [input-topic]';
    const groups = opts.valuesOf('group').map(String);
    if (groups.length > 1)
      return `Option [delete-offsets] supports only one [group] at a time, but found: [${groups.join(', ')}]`;
  }
  if (has('reset-offsets')) {
    if (has('dry-run') && has('execute')) return 'Option [reset-offsets] only accepts one of [execute] and [dry-run]';
    if (!has('dry-run') && !has('execute')) return 'Option [reset-offsets] takes the option: [execute] or [dry-run]';
    if (!has('group') && !has('all-groups'))
      return 'Option [reset-offsets] takes one of these options: [all-groups], [group]';
    for (const s of RESET_SCENARIOS) {
      if (!has(s)) continue;
      for (const o of RESET_SCENARIOS) if (o !== s && has(o)) return cantUse(s, o);
    }
  }
  if (has('delete-all-internal-topics')) {
    if (!has('reset-offsets') && !has('delete'))
      return 'Option [delete-all-internal-topics] takes one of these options: [delete], [reset-offsets]';
    if (has('reset-offsets') && !has('execute'))
      return 'Option [delete-all-internal-topics] takes [execute] when [reset-offsets] is used.';
  } else if (has('delete-internal-topic') && (!has('reset-offsets') || !has('execute'))) {
    return 'Option [delete-internal-topic] takes [reset-offsets] when [execute] is used.';
  }
  if ((has('dry-run') || has('execute')) && !has('reset-offsets'))
    return 'Only Option [reset-offsets] accepts [execute] or [dry-run]';
  if (has('list')) for (const o of ['members', 'offsets', 'topology']) if (has(o)) return cantUse('list', o);
  if (has('group') && has('all-groups')) return cantUse('group', 'all-groups');
  if (has('group') && has('list')) return cantUse('group', 'list');
  if (has('input-topic')) for (const o of ['list', 'describe', 'delete']) if (has(o)) return cantUse('input-topic', o);
  return null;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = streamsGroupsSpec();
  const usage = (msg: string): number => printUsage(spec, io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(parsingSpec(spec), argv);
  } catch (e) {
    if (e instanceof JoptError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  for (const [name, needs] of AVAILABLE_IF) {
    if (opts.has(name) && !needs.some((n) => opts.has(n))) {
      io.stderr.write(`Option(s) [${name}] are unavailable given other options on the command line\n`);
      return 1;
    }
  }
  const debug = opts.has('debug');
  const early = await helpOrVersion(spec, argv, opts, io);
  if (early !== null) return early;
  let bootstrap;
  try {
    bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  if (!bootstrap) return usage('Missing required argument "[bootstrap-server]"');
  const problem = checkArgs(opts);
  if (problem !== null) return usage(problem);
  if (ACTIONS.filter((a) => opts.has(a)).length !== 1)
    return usage(
      'Command must include exactly one action: --list, --describe, --delete, --reset-offsets, or --delete-offsets.',
    );
  let format: OutputFormat;
  try {
    format = parseOutputFormat(opts.string('output'));
    if (format !== 'text' && opts.has('export'))
      throw new Error("--output can't be used with --export (which prints CSV)");
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }
  let client: KafkaClient | null = null;
  const ctx: Partial<GroupsContext> & { failed: boolean } = { opts, io, format, failed: false };
  try {
    const timeout = longOption(opts, 'timeout') ?? 30000n;
    client = await openClient({
      bootstrap,
      commandConfig: opts.string('command-config'),
      overrides: { apiTimeoutMs: Number(timeout) },
    });
    ctx.client = client;
    const c = ctx as GroupsContext;
    const ops = await import('./ops.js');
    if (opts.has('list')) await ops.listGroups(c);
    else if (opts.has('describe')) return await ops.describeGroups(c);
    else if (opts.has('delete')) await ops.deleteGroups(c);
    else if (opts.has('reset-offsets')) await ops.resetOffsets(c);
    else await ops.deleteOffsets(c);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    return reportFailure(io, format, e, debug);
  } finally {
    client?.close();
  }
}

/**
 * A failed command: Kafka prints `\nError: Executing streams group command failed due to <msg>` on
 * stdout (and a stack trace on stderr) and exits 1; tkafka keeps the stdout line and puts one line
 * on stderr instead of the stack trace. Unreachable clusters and bad client settings: stderr only.
 */
function reportFailure(io: ToolIO, format: OutputFormat, e: unknown, debug: boolean): number {
  const root = e instanceof CommandError && e.cause !== undefined ? e.cause : e;
  const code = typeof root === 'object' && root !== null ? (root as { code?: unknown }).code : undefined;
  if (isEnvironmentError(root) || isEnvironmentError(e) || code === 33 || code === 34 || code === 58) {
    io.stderr.write(`Error: Executing streams group command failed due to ${errorLine(root)}\n`);
    writeStack(io, debug, e);
    return 1;
  }
  const message = e instanceof CommandError ? e.message : javaOrPlain(e);
  if (format === 'text') io.stdout.write(`\nError: Executing streams group command failed due to ${message}\n`);
  io.stderr.write(`Error: ${errorLine(root)}\n`);
  writeStack(io, debug, e);
  return 1;
}

function javaOrPlain(e: unknown): string {
  const j = e as { javaString?: () => string };
  if (e instanceof Error && typeof j.javaString === 'function') return j.javaString();
  return errorLine(e);
}

/** The help table (for man pages and completions). */
export function helpText(): string {
  return formatJoptHelp(streamsGroupsSpec());
}
