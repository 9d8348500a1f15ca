// `tkafka acls`: kafka-acls.sh (org.apache.kafka.tools.AclCommand, Kafka 4.4) — add, remove and list
// ACL bindings through the Admin API (CreateAcls, DeleteAcls, DescribeAcls), with Kafka's flags,
// checks, prompts and output lines. Usage failures print the message and the help on stderr (exit
// 1); failures while running print `Error while executing ACL command: <message>` and the
// exception's first line on stdout, as Kafka does (Kafka goes on with the stack frames; tkafka
// shows its own stack with --debug).
import type { ToolIO } from '../common/io.js';
import type { KafkaClient, Target } from '../../client/client.js';
import { JoptError, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, writeStack } from '../common/errors.js';
import { parseOutputFormat, type OutputFormat } from '../common/output.js';
import { ACLS_PARSING_SPEC, ACLS_SPEC } from './spec.js';
import {
  AclCommandError,
  AclUsageError,
  checkArgs,
  principalsOf,
  resourceFilterToAcls,
  resourceFilters,
  resourceToAcls,
} from './command.js';
import {
  bindingRows,
  listLines,
  addingLines,
  removePrompt,
  removeAllPrompt,
  groupByPattern,
  type PatternAcls,
} from './render.js';
import {
  ANY_BINDING,
  ANY_ENTRY,
  bindingString,
  createAcls,
  deleteAcls,
  describeAcls,
  entryFilter,
  sameEntry,
  samePattern,
  type AclBinding,
} from '../../client/admin/acls.js';
import { LineReader } from './prompt.js';

export { ACLS_SPEC };

interface Ctx {
  client: KafkaClient;
  target: Target;
  opts: JoptOptions;
  format: OutputFormat;
  io: ToolIO;
  lines: LineReader;
  /** Kafka's println on stdout (text output only). */
  println(text: string): void;
}

async function addAcls(ctx: Ctx): Promise<AclBinding[]> {
  const added: AclBinding[] = [];
  for (const { filter, acls } of resourceToAcls(ctx.opts)) {
    const pattern = { ...filter, name: filter.name! } as AclBinding['pattern'];
    const existing = await describeAcls(ctx.client, { pattern: filter, entry: ANY_ENTRY }, ctx.target);
    const fresh: AclBinding[] = [];
    for (const entry of acls) {
      const binding = { pattern, entry };
      if (existing.some((b) => samePattern(b.pattern, pattern) && sameEntry(b.entry, entry)))
        ctx.println(`Acl ${bindingString(binding)} already exists.`);
      else fresh.push(binding);
    }
    if (fresh.length > 0) {
      ctx.println(
        addingLines(
          pattern,
          fresh.map((b) => b.entry),
        ),
      );
      await createAcls(ctx.client, fresh, ctx.target);
      added.push(...fresh);
    }
  }
  return added;
}

async function confirm(ctx: Ctx, message: string): Promise<boolean> {
  if (ctx.opts.has('force')) return true;
  // Kafka prints the question on stdout; with --output json it goes to stderr, so stdout stays JSON.
  if (ctx.format === 'text') ctx.println(message);
  else ctx.io.stderr.write(message + '\n');
  const answer = await ctx.lines.next();
  return answer !== null && answer.toLowerCase() === 'y';
}

async function removeAcls(ctx: Ctx): Promise<AclBinding[]> {
  const removed: AclBinding[] = [];
  for (const { filter, acls } of resourceFilterToAcls(ctx.opts)) {
    if (acls.length === 0) {
      if (await confirm(ctx, removeAllPrompt(filter)))
        removed.push(...(await deleteAcls(ctx.client, [{ pattern: filter, entry: ANY_ENTRY }], ctx.target)));
    } else if (await confirm(ctx, removePrompt(filter, acls))) {
      removed.push(
        ...(await deleteAcls(
          ctx.client,
          acls.map((a) => ({ pattern: filter, entry: entryFilter(a) })),
          ctx.target,
        )),
      );
    }
  }
  return removed;
}

async function listAcls(ctx: Ctx): Promise<{ bindings: AclBinding[]; blocks: PatternAcls[]; principals: string[] }> {
  const filters = resourceFilters(ctx.opts, false);
  const principals = principalsOf(ctx.opts, 'principal');
  const bindings: AclBinding[] = [];
  if (filters.length === 0) bindings.push(...(await describeAcls(ctx.client, ANY_BINDING, ctx.target)));
  else
    for (const f of filters)
      bindings.push(...(await describeAcls(ctx.client, { pattern: f, entry: ANY_ENTRY }, ctx.target)));
  const blocks = groupByPattern(bindings);
  if (ctx.format === 'text') ctx.io.stdout.write(listLines(blocks, principals));
  const shown =
    principals.length === 0
      ? blocks
      : blocks.map((b) => ({ ...b, acls: b.acls.filter((a) => principals.includes(a.principal)) }));
  return { bindings: shown.flatMap((b) => b.acls.map((entry) => ({ pattern: b.pattern, entry }))), blocks, principals };
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const usage = (msg: string): number => printUsage(ACLS_SPEC, io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(ACLS_PARSING_SPEC, argv);
  } catch (e) {
    if (e instanceof JoptError) return usage(e.message);
    throw e;
  }
  if (argv.length === 0 || opts.has('help')) return usage(ACLS_SPEC.description);
  if (opts.has('version')) {
    io.stdout.write(`${(await import('../common/version.js')).VERSION}\n`);
    return 0;
  }
  const debug = opts.has('debug');
  let format: OutputFormat;
  let bootstrap;
  try {
    const flag = opts.string('bootstrap-server') ?? opts.string('bootstrap-controller');
    bootstrap = await resolveBootstrap(flag ?? null, io.env);
    const problem = checkArgs(opts, bootstrap !== null);
    if (problem !== null) return usage(problem);
    format = parseOutputFormat(opts.string('output'));
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  }
  const println = (text: string): void => void io.stdout.write(text + '\n');
  let client: KafkaClient | null = null;
  const lines = new LineReader(io.stdin);
  try {
    client = await openClient({ bootstrap: bootstrap!, commandConfig: opts.string('command-config') });
    const ctx: Ctx = {
      client,
      // With --bootstrap-controller the client is bootstrapped at the controllers, which answer the
      // ACL requests themselves (Kafka's Admin sends them to a controller too).
      target: 'any',
      opts,
      format,
      io,
      lines,
      println: format === 'text' ? println : () => {},
    };
    let bindings: AclBinding[];
    if (opts.has('add')) bindings = await addAcls(ctx);
    else if (opts.has('remove')) bindings = await removeAcls(ctx);
    else bindings = (await listAcls(ctx)).bindings;
    if (format === 'json') {
      const { writeJson } = await import('../common/output.js');
      writeJson(io, bindingRows(bindings));
    } else if (format === 'table') {
      const { writeTable } = await import('../common/output.js');
      const rows = bindingRows(bindings);
      await writeTable(
        io,
        ['RESOURCE TYPE', 'NAME', 'PATTERN TYPE', 'PRINCIPAL', 'HOST', 'OPERATION', 'PERMISSION'],
        rows.map((r) => [r.resourceType, r.name, r.patternType, r.principal, r.host, r.operation, r.permissionType]),
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof AclUsageError) return usage(e.message);
    const j = e as { javaString?: () => string };
    if (typeof j.javaString === 'function') {
      // ExecutionException from the Admin futures: its message is the cause's toString.
      const wrapped = !(e instanceof AclCommandError);
      const message = wrapped ? j.javaString() : (e as Error).message;
      println(`Error while executing ACL command: ${message}`);
      println(wrapped ? `java.util.concurrent.ExecutionException: ${j.javaString()}` : j.javaString());
    } else {
      println(`Error while executing ACL command: ${errorLine(e)}`);
    }
    writeStack(io, debug, e);
    return 1;
  } finally {
    lines.close();
    client?.close();
  }
}
