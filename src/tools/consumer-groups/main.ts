// `tkafka consumer-groups`: kafka-consumer-groups.sh (org.apache.kafka.tools.consumer.group.
// ConsumerGroupCommand, Kafka 4.0) with Kafka's flags, validation order and messages, and output
// lines; `--output json|table` for every command except --export.
//
// Exit codes: usage errors exit 1 (message + help on stderr), as Kafka. Where Kafka prints
// `Error: ...` on stdout and still exits 0 (a failed Admin call, a group that does not exist or is
// active, failed deletions), tkafka prints the same stdout lines, adds one line on stderr, and
// exits 1, so scripts can tell. An unreachable cluster is one line on stderr, exit 1.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import {
  JoptError,
  formatJoptHelp,
  parseJopt,
  printUsage,
  type JoptOptions,
  type JoptToolSpec,
} from '../common/jopt.js';
import { openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, isEnvironmentError, writeStack } from '../common/errors.js';
import { parseOutputFormat, type OutputFormat } from '../common/output.js';
import { helpOrVersion } from '../common/run-tool.js';
import { CommandError, UsageError, longOption, type GroupsContext } from './format.js';
import { AVAILABLE_IF, RESET_SCENARIOS, consumerGroupsSpec, parsingSpec } from './spec.js';

const ACTIONS = ['list', 'describe', 'delete', 'reset-offsets', 'delete-offsets', 'validate-regex'] as const;
const NO_RESET_WARNING =
  'WARN: No action will be performed as the --execute option is missing. In a future major release, the default behavior of this command will be to ' +
  'prompt the user before executing the reset rather than doing a dry run. You should add the --dry-run option explicitly if you are scripting this ' +
  'command and want to keep the current default behavior without prompting.';

/** ConsumerGroupCommandOptions.checkArgs after the bootstrap check: the first usage message, or null. */
function checkArgs(opts: JoptOptions, io: ToolIO): string | null {
  const has = (n: string): boolean => opts.has(n);
  const scope = 'takes one of these options: [all-groups], [group]';
  if (has('describe')) {
    if (!has('group') && !has('all-groups')) return `Option [describe] ${scope}`;
    if (['members', 'offsets', 'state'].filter(has).length > 1)
      return 'Option [describe] takes at most one of these options: [members], [offsets], [state]';
    if (has('state') && opts.string('state') !== undefined)
      return 'Option [describe] does not take a value for [state]';
  }
  if (has('delete')) {
    if (!has('group') && !has('all-groups')) return `Option [delete] ${scope}`;
    if (has('topic')) return 'The consumer does not support topic-specific offset deletion from a consumer group.';
  }
  if (has('delete-offsets') && (!has('group') || !has('topic')))
    return 'Option [delete-offsets] takes the following options: [group], [topic]';
  if (has('reset-offsets')) {
    if (has('dry-run') && has('execute')) return 'Option [reset-offsets] only accepts one of [execute] and [dry-run]';
    if (!has('dry-run') && !has('execute')) io.stderr.write(`${NO_RESET_WARNING}\n`);
    if (!has('group') && !has('all-groups')) return `Option [reset-offsets] ${scope}`;
    for (const s of RESET_SCENARIOS) {
      if (!has(s)) continue;
      for (const other of RESET_SCENARIOS)
        if (other !== s && has(other)) return `Option "[${s}]" can't be used with option "[${other}]"`;
    }
  }
  if (has('group') && has('all-groups')) return 'Option "[group]" can\'t be used with option "[all-groups]"';
  if (has('group') && has('list')) return 'Option "[group]" can\'t be used with option "[list]"';
  for (const other of ['list', 'describe'])
    if (has('topic') && has(other)) return `Option "[topic]" can't be used with option "[${other}]"`;
  return null;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = consumerGroupsSpec();
  const usage = (msg: string): number => printUsage(spec, io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(parsingSpec(spec), argv);
  } catch (e) {
    // Kafka lets jopt's exception escape (message and stack trace on stderr, exit 1).
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
  let bootstrap = null;
  if (!opts.has('validate-regex')) {
    try {
      bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    } catch (e) {
      io.stderr.write(`${errorLine(e)}\n`);
      return 1;
    }
    if (!bootstrap) return usage('Missing required argument "[bootstrap-server]"');
  }
  const problem = checkArgs(opts, io);
  if (problem !== null) return usage(problem);
  if (ACTIONS.filter((a) => opts.has(a)).length !== 1) {
    return usage(`Command must include exactly one action: ${ACTIONS.map((a) => `--${a}`).join(', ')}`);
  }
  let format: OutputFormat;
  try {
    format = parseOutputFormat(opts.string('output'));
    if (format !== 'text' && opts.has('export'))
      throw new Error("--output can't be used with --export (which prints CSV)");
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }
  if (opts.has('validate-regex')) {
    const { validateRegex } = await import('./ops.js');
    validateRegex(opts.string('validate-regex')!, io, format);
    return 0;
  }

  let client: KafkaClient | null = null;
  const ctx: Partial<GroupsContext> & { failed: boolean } = { opts, io, format, failed: false };
  try {
    const timeout = longOption(opts, 'timeout') ?? 30000n;
    client = await openClient({
      bootstrap: bootstrap!,
      commandConfig: opts.string('command-config'),
      overrides: { apiTimeoutMs: Number(timeout) },
    });
    ctx.client = client;
    const c = ctx as GroupsContext;
    if (opts.has('list')) await (await import('./ops.js')).listGroups(c);
    else if (opts.has('describe') && opts.has('watch')) return await watchGroups(c, bootstrap!.value);
    else if (opts.has('describe')) await (await import('./describe.js')).describeGroups(c);
    else if (opts.has('delete')) await (await import('./ops.js')).deleteGroups(c);
    else if (opts.has('reset-offsets')) await (await import('./reset.js')).resetOffsets(c);
    else await (await import('./ops.js')).deleteOffsets(c);
    return ctx.failed ? 1 : 0;
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    return reportFailure(io, format, e, debug);
  } finally {
    client?.close();
  }
}

/**
 * A failed command. Kafka prints `\nError: Executing consumer group command failed due to <msg>`
 * on stdout (and a stack trace on stderr); tkafka keeps that stdout line for scripts and puts one
 * line on stderr instead of the stack trace. Unreachable clusters and bad client settings: stderr only.
 */
function reportFailure(io: ToolIO, format: OutputFormat, e: unknown, debug: boolean): number {
  const root = e instanceof CommandError && e.cause !== undefined ? e.cause : e;
  if (isEnvironmentError(root) || isEnvironmentError(e) || isAuthenticationFailure(root)) {
    io.stderr.write(`Error: Executing consumer group command failed due to ${errorLine(root)}\n`);
  } else {
    const kafkaMessage = e instanceof CommandError ? e.message : javaOrPlain(e);
    if (format === 'text') io.stdout.write(`\nError: Executing consumer group command failed due to ${kafkaMessage}\n`);
    io.stderr.write(`Error: ${errorLine(root)}\n`);
  }
  writeStack(io, debug, e);
  return 1;
}

/**
 * The client could not authenticate (UnsupportedSaslMechanism 33, IllegalSaslState 34,
 * SaslAuthentication 58): a bad client setting, reported like an unreachable cluster, on one
 * stderr line. (Kafka's tool prints the ExecutionException chain and, for --list, exits 0.)
 */
function isAuthenticationFailure(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return code === 33 || code === 34 || code === 58;
}

function javaOrPlain(e: unknown): string {
  const j = e as { javaString?: () => string };
  if (e instanceof Error && typeof j.javaString === 'function') return j.javaString();
  return errorLine(e);
}

/** `--describe --watch [seconds]` (tkafka): the offsets view refreshed live (see common/live/lag-watch.ts). */
async function watchGroups(c: GroupsContext, source: string): Promise<number> {
  const seconds = Number(c.opts.string('watch') ?? '2');
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`Cannot parse argument '${c.opts.string('watch')}' of option watch`);
  const { collectGroupsView } = await import('./describe.js');
  return (await import('../common/live/lag-watch.js')).watchLag(() => collectGroupsView(c, true), c.io, {
    intervalMs: seconds * 1000,
    source,
  });
}

/** The help table (for man pages and completions). */
export function helpText(): string {
  const spec: JoptToolSpec = consumerGroupsSpec();
  return formatJoptHelp(spec);
}
