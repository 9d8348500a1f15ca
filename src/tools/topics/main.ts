// `tkafka topics`: kafka-topics.sh (org.apache.kafka.tools.TopicCommand) with Kafka's flags,
// validation order and messages, exit codes and output lines; `--output json|table` for --list
// and --describe. Kafka's operation errors go to stdout as `Error while executing topic command :
// <message>`; failures of the environment (no reachable broker, missing API) go to stderr.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { JoptError, optionDisplay, parseJopt, printUsage, type JoptOptions } from '../common/jopt.js';
import { openClient, resolveBootstrap } from '../common/connection.js';
import { errorLine, isEnvironmentError, writeStack } from '../common/errors.js';
import { parseOutputFormat, type OutputFormat } from '../common/output.js';
import { parseKafkaUuid } from './uuid.js';
import { fullTopicsSpec, intValue, parsingSpec, topicsSpec } from './spec.js';

const ACTIONS = ['create', 'list', 'alter', 'describe', 'delete'] as const;
const FILTERS = [
  'under-replicated-partitions',
  'under-min-isr-partitions',
  'at-min-isr-partitions',
  'unavailable-partitions',
] as const;
const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

class TopicCommandError extends Error {}

const int = (opts: JoptOptions, name: string): number | undefined =>
  intValue(opts.string(name), name, (m) => new TopicCommandError(m));

async function version(): Promise<string> {
  return (await import('../common/version.js')).VERSION;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  const spec = topicsSpec();
  const usage = async (msg: string): Promise<number> => printUsage(await fullTopicsSpec(), io, msg);
  let opts: JoptOptions;
  try {
    opts = parseJopt(parsingSpec(spec), argv);
  } catch (e) {
    // TopicCommand lets jopt's exception escape: message (and a stack trace) on stderr, exit 1.
    if (e instanceof JoptError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const debug = opts.has('debug');
  if (argv.length === 0) return usage('Create, delete, describe, or change a topic.');
  if (opts.has('help')) return usage('This tool helps to create, delete, describe, or change a topic.');
  if (opts.has('version')) {
    io.stdout.write(`${await version()}\n`);
    return 0;
  }
  if (ACTIONS.filter((a) => opts.has(a)).length !== 1) {
    return usage('Command must include exactly one action: --list, --describe, --create, --alter or --delete');
  }
  if (opts.has('delete-config')) {
    io.stderr.write(
      'delete-config option is no longer supported and deprecated since version 4.0. The config will be fully removed in future releases.\n',
    );
  }
  let bootstrap;
  try {
    bootstrap = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  if (!bootstrap) {
    io.stderr.write('--bootstrap-server must be specified\n');
    return 1;
  }
  const problem = checkArgs(opts, spec, io);
  if (problem !== null) return usage(problem);
  let format: OutputFormat;
  try {
    format = parseOutputFormat(opts.string('output'));
    if (format !== 'text' && !opts.has('list') && !opts.has('describe'))
      throw new Error('--output is only supported with --list and --describe');
  } catch (e) {
    io.stderr.write(`${(e as Error).message}\n`);
    return 1;
  }

  let client: KafkaClient;
  try {
    client = await openClient({ bootstrap, commandConfig: opts.string('command-config') });
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  }
  try {
    if (opts.has('create')) await createTopic(client, opts, io);
    else if (opts.has('alter')) await alterTopic(client, opts);
    else if (opts.has('list')) await listTopics(client, opts, io, format);
    else if (opts.has('describe')) await describeTopic(client, opts, io, format);
    else if (opts.has('delete')) await deleteTopic(client, opts);
    return 0;
  } catch (e) {
    const line = `Error while executing topic command : ${errorLine(e)}\n`;
    if (isEnvironmentError(e)) io.stderr.write(line);
    else io.stdout.write(line);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client.close();
  }
}

/** TopicCommandOptions.checkRequiredArgs/checkInvalidArgs after the bootstrap check; a usage message or null. */
function checkArgs(opts: JoptOptions, spec: ReturnType<typeof topicsSpec>, io: ToolIO): string | null {
  const display = (name: string): string => optionDisplay(spec.options.find((o) => o.names[0] === name)!);
  const has = (n: string): boolean => opts.has(n);
  if (has('describe') && has('if-exists')) {
    if (!has('topic') && !has('topic-id')) return '--topic or --topic-id is required to describe a topic';
    if (has('topic') && has('topic-id')) {
      io.stdout.write(
        'Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID\n',
      );
    }
  }
  if (!has('list') && !has('describe') && !has('topic')) return `Missing required argument "${display('topic')}"`;
  if (has('alter')) {
    if (has('config')) {
      return (
        `Option combination "[${display('bootstrap-server')}, ${display('config')}]" can't be used with option "${display('alter')}"` +
        ' (To alter topic configurations, the kafka-configs tool can be used.)'
      );
    }
    if (!has('partitions')) return `Missing required argument "${display('partitions')}"`;
  }
  const actionsExcept = (...keep: string[]): string[] => ACTIONS.filter((a) => !keep.includes(a));
  const rules: [string, string[]][] = [
    ['config', actionsExcept('alter', 'create')],
    ['partitions', actionsExcept('alter', 'create')],
    ['replication-factor', actionsExcept('create')],
    ['replica-assignment', actionsExcept('alter', 'create')],
  ];
  if (has('create')) rules.push(['replica-assignment', ['partitions', 'replication-factor']]);
  for (const f of FILTERS) rules.push([f, [...actionsExcept('describe'), 'topics-with-overrides']]);
  rules.push(['topics-with-overrides', [...actionsExcept('describe'), ...FILTERS]]);
  rules.push(['if-exists', actionsExcept('alter', 'delete', 'describe')]);
  rules.push(['if-not-exists', actionsExcept('create')]);
  rules.push(['exclude-internal', actionsExcept('list', 'describe')]);
  for (const [used, invalid] of rules) {
    if (!has(used)) continue;
    for (const other of invalid)
      if (has(other)) return `Option "${display(used)}" can't be used with option "${display(other)}"`;
  }
  return null;
}

/** TopicFilter.IncludeList: Kafka's preprocessing, then a whole-name Java regex match. */
function topicMatcher(raw: string): (topic: string) => boolean {
  const regex = raw
    .trim()
    .replace(/,/g, '|')
    .replace(/ /g, '')
    .replace(/^["']+/, '')
    .replace(/["']+$/, '');
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${regex})$`);
  } catch {
    throw new TopicCommandError(`${regex} is an invalid regex.`);
  }
  return (t) => re.test(t);
}

async function getTopics(client: KafkaClient, topicArg: string | undefined, excludeInternal: boolean) {
  const { listTopics } = await import('../../client/admin/topics.js');
  const all = await listTopics(client, { listInternal: !excludeInternal });
  const match = topicArg !== undefined ? topicMatcher(topicArg) : () => true;
  return all.filter((t) => match(t.name) && !(excludeInternal && INTERNAL_TOPICS.has(t.name)));
}

function ensureTopicExists(found: unknown[], topicArg: string | undefined, required: boolean): void {
  if (topicArg !== undefined && topicArg !== '' && required && found.length === 0) {
    throw new TopicCommandError(`Topic '${topicArg}' does not exist as expected`);
  }
}

async function listTopics(client: KafkaClient, opts: JoptOptions, io: ToolIO, format: OutputFormat): Promise<void> {
  const topics = await getTopics(client, opts.string('topic'), opts.has('exclude-internal'));
  const { writeJson, writeTable } = await import('../common/output.js');
  if (format === 'json')
    writeJson(io, { topics: topics.map((t) => ({ name: t.name, topicId: t.topicId, internal: t.internal })) });
  else if (format === 'table')
    await writeTable(
      io,
      ['TOPIC', 'TOPIC ID', 'INTERNAL'],
      topics.map((t) => [t.name, t.topicId, t.internal]),
    );
  else io.stdout.write(topics.map((t) => t.name).join('\n') + '\n');
}

async function describeTopic(client: KafkaClient, opts: JoptOptions, io: ToolIO, format: OutputFormat): Promise<void> {
  const { buildDescribeView, renderDescribe } = await import('./describe.js');
  const excludeInternal = opts.has('exclude-internal');
  const idArg = opts.string('topic-id');
  let parsedId: { id: string; zero: boolean } | null = null;
  if (idArg !== undefined) {
    try {
      parsedId = parseKafkaUuid(idArg);
    } catch (e) {
      throw new TopicCommandError((e as Error).message);
    }
  }
  const useId = parsedId !== null && !parsedId.zero;
  let names: string[] | null = null;
  let ids: string[] | null = null;
  if (useId) {
    const wanted = parsedId!.id;
    const { listTopics } = await import('../../client/admin/topics.js');
    const all = await listTopics(client, { listInternal: !excludeInternal });
    ids = all.some((t) => t.topicId === wanted) ? [wanted] : [];
    if (ids.length === 0 && !opts.has('if-exists'))
      throw new TopicCommandError(`TopicId '${wanted}' does not exist as expected`);
  } else {
    names = (await getTopics(client, opts.string('topic'), excludeInternal)).map((t) => t.name);
    ensureTopicExists(names, opts.string('topic'), !opts.has('if-exists'));
  }
  const view =
    (ids && ids.length > 0) || (names && names.length > 0)
      ? await buildDescribeView(
          client,
          names,
          ids && ids.length > 0 ? ids : null,
          {
            underReplicated: opts.has('under-replicated-partitions'),
            unavailable: opts.has('unavailable-partitions'),
            underMinIsr: opts.has('under-min-isr-partitions'),
            atMinIsr: opts.has('at-min-isr-partitions'),
            topicsWithOverrides: opts.has('topics-with-overrides'),
          },
          int(opts, 'partition-size-limit-per-response'),
        )
      : { topics: [] };
  await renderDescribe(io, view, format);
}

/** TopicCommand.parseReplicaAssignment. */
function parseReplicaAssignment(s: string): Map<number, number[]> {
  const out = new Map<number, number[]>();
  const parts = s.split(',');
  for (let i = 0; i < parts.length; i++) {
    const brokers = parts[i]!.split(':').map((x) => {
      const t = x.trim();
      if (!/^[+-]?\d+$/.test(t) || Math.abs(Number(t)) > 2147483647)
        throw new TopicCommandError(`For input string: "${t}"`);
      return Number(t);
    });
    const dups = [...new Set(brokers.filter((b, k) => brokers.indexOf(b) !== k))];
    if (dups.length > 0)
      throw new TopicCommandError(`Partition replica lists may not contain duplicate entries: ${dups.join(',')}`);
    out.set(i, brokers);
    if (brokers.length !== out.get(0)!.length)
      throw new TopicCommandError(`Partition ${i} has different replication factor: [${brokers.join(', ')}]`);
  }
  return out;
}

async function topicConfigs(values: string[]): Promise<Map<string, string>> {
  const pairs = values.map((s) => s.split(/\s*=\s*/));
  // Java's split drops trailing empty strings: "a=" gives ["a"].
  for (const p of pairs) while (p.length > 0 && p[p.length - 1] === '') p.pop();
  if (!pairs.every((p) => p.length === 2)) {
    throw new TopicCommandError(
      'requirement failed: Invalid topic config: all configs to be added must be in the format "key=val".',
    );
  }
  const props = new Map<string, string>(pairs.map((p) => [p[0]!.trim(), p[1]!.trim()]));
  const { validateTopicConfigs } = await import('../../config/topic-configs.js');
  const problem = validateTopicConfigs(props);
  if (problem !== null) throw new TopicCommandError(problem);
  return props;
}

/** TopicCommand.CommandTopicPartition: conversions and parsing in Kafka's order. */
async function commandTopicPartition(opts: JoptOptions) {
  const name = opts.string('topic')!;
  const partitions = int(opts, 'partitions');
  const rf = int(opts, 'replication-factor');
  const ra = opts.string('replica-assignment');
  const assignment = ra !== undefined && ra !== '' ? parseReplicaAssignment(ra) : new Map<number, number[]>();
  const configs = await topicConfigs(opts.valuesOf('config').map(String));
  return { name, partitions, rf, assignment, configs };
}

async function createTopic(client: KafkaClient, opts: JoptOptions, io: ToolIO): Promise<void> {
  const { name, partitions, rf, assignment, configs } = await commandTopicPartition(opts);
  if (name.includes('.') || name.includes('_')) {
    io.stdout.write(
      "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\n",
    );
  }
  if (rf !== undefined && (rf > 32767 || rf < 1))
    throw new TopicCommandError('The replication factor must be between 1 and 32767 inclusive');
  if (partitions !== undefined && partitions < 1) throw new TopicCommandError('The partitions must be greater than 0');
  const { createTopics } = await import('../../client/admin/topics.js');
  const result = (
    await createTopics(client, [
      { name, numPartitions: partitions, replicationFactor: rf, assignments: assignment, configs },
    ])
  ).get(name)!;
  if (!result.ok) {
    const code = (result.error as { code?: number }).code;
    if (code === 36 && opts.has('if-not-exists')) return;
    throw result.error;
  }
  io.stdout.write(`Created topic ${name}.\n`);
}

async function alterTopic(client: KafkaClient, opts: JoptOptions): Promise<void> {
  const { partitions, assignment } = await commandTopicPartition(opts);
  const topicArg = opts.string('topic');
  const topics = (await getTopics(client, topicArg, opts.has('exclude-internal'))).map((t) => t.name);
  ensureTopicExists(topics, topicArg, !opts.has('if-exists'));
  if (topics.length === 0) return;
  const { describeTopics, createPartitions } = await import('../../client/admin/topics.js');
  const count = partitions!;
  const increases = new Map<string, { totalCount: number; assignments?: number[][] }>();
  const infos = assignment.size > 0 ? await describeTopics(client, topics) : null;
  for (const t of topics) {
    if (infos) {
      const d = infos.get(t)!;
      if (!d.ok) throw d.error;
      increases.set(t, { totalCount: count, assignments: [...assignment.values()].slice(d.value.partitions.length) });
    } else increases.set(t, { totalCount: count });
  }
  const results = await createPartitions(client, increases);
  for (const t of topics) {
    const r = results.get(t);
    if (r && !r.ok) throw r.error;
  }
}

async function deleteTopic(client: KafkaClient, opts: JoptOptions): Promise<void> {
  const topicArg = opts.string('topic');
  const topics = (await getTopics(client, topicArg, opts.has('exclude-internal'))).map((t) => t.name);
  ensureTopicExists(topics, topicArg, !opts.has('if-exists'));
  if (topics.length === 0) return;
  const { deleteTopics } = await import('../../client/admin/topics.js');
  const results = await deleteTopics(client, topics);
  for (const t of topics) {
    const r = results.get(t);
    if (r && !r.ok) throw r.error;
  }
}
