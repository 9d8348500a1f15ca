// `tkafka leader-election`: kafka-leader-election.sh (org.apache.kafka.tools.LeaderElectionCommand,
// Kafka 4.4): preferred or unclean leader election (ElectLeaders) for one partition, the partitions
// of a JSON file, or every eligible partition. Results on stdout; a failure: its message on stderr
// (Kafka adds a stack trace: tkafka with --debug), exit 1.
import { readFileSync } from 'node:fs';
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { ElectionType, TopicPartition } from '../../client/admin/reassignments.js';
import {
  JoptError,
  checkDeclaredRules,
  parseJopt,
  printUsage,
  type JoptOptions,
  type JoptToolSpec,
} from '../common/jopt.js';
import { helpOrVersion } from '../common/run-tool.js';
import { errorLine, javaErrorString, writeStack } from '../common/errors.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';
import { hashSetOrder, tpHash, tpKey } from '../reassign-partitions/json.js';

export const LEADER_ELECTION_SPEC: JoptToolSpec = {
  name: 'leader-election',
  kafkaScript: 'kafka-leader-election.sh',
  description:
    'This tool attempts to elect a new leader for a set of topic partitions. The type of elections supported are preferred replicas and unclean replicas.',
  options: [
    {
      names: ['bootstrap-server'],
      description:
        'A hostname and port for the broker to connect to, in the form host:port. Multiple comma separated URLs can be given. REQUIRED.' +
        BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'host:port' },
      complete: 'host:port',
    },
    {
      names: ['admin.config'],
      description:
        '(DEPRECATED) Configuration properties files to pass to the admin client. This option will be removed in a future version. Use --command-config instead.',
      arg: { name: 'config file' },
      complete: 'file',
      invalidWith: ['command-config'],
    },
    {
      names: ['command-config'],
      description: 'Config properties file to pass to the admin client.',
      arg: { name: 'Config file' },
      complete: 'file',
    },
    {
      names: ['path-to-json-file'],
      description:
        'The JSON file with the list  of partition for which leader elections should be performed. This is an example format. \n{"partitions":\n\t[{"topic": "foo", "partition": 1},\n\t {"topic": "foobar", "partition": 2}]\n}\nNot allowed if --all-topic-partitions or --topic flags are specified.',
      arg: { name: 'Path to JSON file' },
      complete: 'file',
    },
    {
      names: ['topic'],
      description:
        'Name of topic for which to perform an election. Not allowed if --path-to-json-file or --all-topic-partitions is specified.',
      arg: { name: 'topic name' },
    },
    {
      names: ['partition'],
      description: 'Partition id for which to perform an election. REQUIRED if --topic is specified.',
      arg: { name: 'partition id', type: 'Integer' },
    },
    {
      names: ['all-topic-partitions'],
      description:
        'Perform election on all of the eligible topic partitions based on the type of election (see the --election-type flag). Not allowed if --topic or --path-to-json-file is specified.',
    },
    {
      names: ['election-type'],
      description:
        'Type of election to attempt. Possible values are "preferred" for preferred leader election or "unclean" for unclean leader election. If preferred election is selection, the election is only performed if the current leader is not the preferred leader for the topic partition. If unclean election is selected, the election is only performed if there are no leader for the topic partition. REQUIRED.',
      arg: { name: 'election type' },
      complete: ['preferred', 'unclean'],
    },
    {
      names: ['output'],
      description:
        'tkafka: output format: text (the default: the same lines as kafka-leader-election.sh) or json ({"electionType", "succeeded": ["foo-0"], "notNeeded": [...], "failed": [{"partition": "foo-1", "error": "<exception>"}]}).',
      arg: { name: 'text|json' },
      extension: true,
      complete: ['text', 'json'],
    },
    DEBUG_OPTION,
  ],
};

/** AdminCommandFailedException / AdminOperationException and friends: the message on stderr, exit 1. */
export class ElectionCommandError extends Error {
  override name = 'ElectionCommandError';
}

/** LeaderElectionCommandOptions.validate (bootstrap may also come from the environment or a profile). */
function validate(opts: JoptOptions, hasEnvBootstrap: boolean): string | null {
  const missing: string[] = [];
  if (!opts.has('bootstrap-server') && !hasEnvBootstrap) missing.push('bootstrap-server');
  if (!opts.has('election-type')) missing.push('election-type');
  if (missing.length > 0) throw new ElectionCommandError(`Missing required option(s): ${missing.join(', ')}`);
  const invalid = checkDeclaredRules(LEADER_ELECTION_SPEC, opts);
  if (invalid !== null) return invalid;
  const exclusive = ['topic', 'all-topic-partitions', 'path-to-json-file'];
  if (exclusive.filter((o) => opts.has(o)).length !== 1)
    throw new ElectionCommandError(`One and only one of the following options is required: ${exclusive.join(', ')}`);
  if (opts.has('topic') && !opts.has('partition'))
    throw new ElectionCommandError('Missing required option(s): partition');
  if (!opts.has('topic') && opts.has('partition'))
    throw new ElectionCommandError('Option partition is only allowed if topic is used');
  return null;
}

/** jopt's EnumConverter for ElectionType (case-insensitive). */
export function parseElectionType(v: string): ElectionType {
  const u = v.toUpperCase();
  if (u === 'PREFERRED' || u === 'UNCLEAN') return u;
  throw new ElectionCommandError(`Cannot parse argument '${v}' of option election-type`);
}

/** parseReplicaElectionData: the partitions of the JSON file, with Kafka's messages. */
export function parseElectionJson(text: string): TopicPartition[] {
  let js: unknown;
  try {
    js = JSON.parse(text);
  } catch {
    throw new ElectionCommandError('Replica election data is empty');
  }
  const mapping = (m: string): ElectionCommandError =>
    new ElectionCommandError(`com.fasterxml.jackson.databind.JsonMappingException: ${m}`);
  const obj = (v: unknown): Record<string, unknown> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw mapping(`Expected JSON object, received ${JSON.stringify(v)}`);
    return v as Record<string, unknown>;
  };
  const root = obj(js);
  if (!('partitions' in root)) throw new ElectionCommandError('Replica election data is missing "partitions" field');
  if (!Array.isArray(root.partitions))
    throw mapping(`Expected JSON array, received ${JSON.stringify(root.partitions)}`);
  const out: TopicPartition[] = [];
  for (const p of root.partitions) {
    const o = obj(p);
    if (!('topic' in o)) throw mapping('No such field exists: `topic`');
    if (typeof o.topic !== 'string') throw mapping(`Expected \`String\` value, received ${JSON.stringify(o.topic)}`);
    if (!('partition' in o)) throw mapping('No such field exists: `partition`');
    const n = o.partition;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < -2147483648 || n > 2147483647)
      throw mapping(`Expected \`Integer\` value, received ${JSON.stringify(n)}`);
    out.push({ topic: o.topic, partition: n });
  }
  const counts = new Map<string, number>();
  for (const tp of out) counts.set(tpKey(tp), (counts.get(tpKey(tp)) ?? 0) + 1);
  const dups = out.filter((tp) => counts.get(tpKey(tp))! > 1);
  if (dups.length > 0) {
    const shown = hashSetOrder(dups, tpHash, tpKey).map(tpKey).join(', ');
    throw new ElectionCommandError(`Replica election data contains duplicate partitions: [${shown}]`);
  }
  return hashSetOrder(out, tpHash, tpKey);
}

export interface ElectionView {
  electionType: ElectionType;
  succeeded: string[];
  notNeeded: string[];
  failed: { partition: string; error: string }[];
}

/** electLeaders: the three groups, each in HashSet<TopicPartition> order as Kafka prints them. */
export function classifyResults(
  type: ElectionType,
  results: Iterable<{ topic: string; partition: number; ok: boolean; error?: Error }>,
): ElectionView {
  const ok: TopicPartition[] = [];
  const noop: TopicPartition[] = [];
  const failed: { tp: TopicPartition; error: Error }[] = [];
  for (const r of results) {
    const tp = { topic: r.topic, partition: r.partition };
    if (r.ok) ok.push(tp);
    else if ((r.error as { code?: number }).code === 84) noop.push(tp);
    else failed.push({ tp, error: r.error! });
  }
  const order = (tps: TopicPartition[]): string[] => hashSetOrder(tps, tpHash, tpKey).map(tpKey);
  const failedOrder = order(failed.map((f) => f.tp));
  return {
    electionType: type,
    succeeded: order(ok),
    notNeeded: order(noop),
    failed: failedOrder.map((k) => ({
      partition: k,
      error: javaErrorString(failed.find((f) => tpKey(f.tp) === k)!.error),
    })),
  };
}

/** The stdout lines of an election's results. */
export function resultLines(v: ElectionView): string[] {
  const lines: string[] = [];
  if (v.succeeded.length > 0)
    lines.push(`Successfully completed leader election (${v.electionType}) for partitions ${v.succeeded.join(', ')}`);
  if (v.notNeeded.length > 0) lines.push(`Valid replica already elected for partitions ${v.notNeeded.join(', ')}`);
  for (const f of v.failed)
    lines.push(`Error completing leader election (${v.electionType}) for partition: ${f.partition}: ${f.error}`);
  return lines;
}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let opts: JoptOptions;
  try {
    opts = parseJopt(LEADER_ELECTION_SPEC, argv);
  } catch (e) {
    if (e instanceof JoptError) {
      io.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const early = await helpOrVersion(LEADER_ELECTION_SPEC, argv, opts, io);
  if (early !== null) return early;
  const debug = opts.has('debug');
  let client: KafkaClient | null = null;
  const out = (l: string): void => void io.stdout.write(`${l}\n`);
  try {
    const { resolveBootstrap, loadPropertiesFile } = await import('../common/connection.js');
    const resolved = await resolveBootstrap(opts.string('bootstrap-server'), io.env);
    const invalid = validate(opts, resolved !== null);
    if (invalid !== null) return printUsage(LEADER_ELECTION_SPEC, io, invalid);
    const type = parseElectionType(opts.string('election-type')!);
    const output = (opts.string('output') ?? 'text').trim().toLowerCase();
    if (output !== 'text' && output !== 'json') {
      io.stderr.write(`Invalid value '${opts.string('output')}' for --output: expected one of text, json\n`);
      return 1;
    }
    const json = output === 'json';
    let partitions: TopicPartition[] | null = null;
    if (opts.has('path-to-json-file')) {
      const path = opts.string('path-to-json-file')!;
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch {
        throw new ElectionCommandError(`java.nio.file.NoSuchFileException: ${path}`);
      }
      partitions = parseElectionJson(text);
    } else if (opts.has('topic')) {
      partitions = [{ topic: opts.string('topic')!, partition: opts.number('partition')! }];
    }
    let configFile = opts.string('command-config');
    if (opts.has('admin.config')) {
      if (!json)
        out(
          'Option --admin.config has been deprecated and will be removed in a future version. Use --command-config instead.',
        );
      configFile = opts.string('admin.config');
    }
    const props = new Map<string, string>(Object.entries(resolved!.profileProperties ?? {}));
    if (configFile) for (const [k, v] of await loadPropertiesFile(configFile)) props.set(k, v);
    if (!props.has('default.api.timeout.ms')) props.set('default.api.timeout.ms', '30000');
    if (!props.has('request.timeout.ms')) props.set('request.timeout.ms', '15000');
    const [{ KafkaClient }, { clientConfigFromProperties, parseBootstrapServers }, { electLeaders }] =
      await Promise.all([
        import('../../client/client.js'),
        import('../../client/config.js'),
        import('../../client/admin/reassignments.js'),
      ]);
    client = new KafkaClient(
      clientConfigFromProperties(props, { bootstrapServers: parseBootstrapServers(resolved!.value) }),
    );
    let results;
    try {
      results = await electLeaders(client, type, partitions);
    } catch (e) {
      const code = (e as { code?: number }).code;
      if (code === 7 || (e as Error).name === 'OperationTimeoutError' || (e as Error).name === 'RequestTimeoutError') {
        out('Timeout waiting for election results');
        throw new ElectionCommandError('Timeout waiting for election results');
      }
      if (code === 31) {
        out('Not authorized to perform leader election');
        throw new ElectionCommandError('Not authorized to perform leader election');
      }
      // RuntimeException(ExecutionException): a Kafka error as Java prints it; cluster unreachable etc. as they are.
      if (typeof (e as { javaString?: unknown }).javaString !== 'function') throw e;
      throw new ElectionCommandError(`java.util.concurrent.ExecutionException: ${javaErrorString(e)}`);
    }
    const view = classifyResults(
      type,
      [...results.values()].map((r) =>
        r.ok ? { ...r } : { topic: r.topic, partition: r.partition, ok: false, error: r.error },
      ),
    );
    if (json) {
      const { writeJson } = await import('../common/output.js');
      writeJson(io, view);
    } else for (const l of resultLines(view)) out(l);
    if (view.failed.length > 0) throw new ElectionCommandError(`${view.failed.length} replica(s) could not be elected`);
    return 0;
  } catch (e) {
    io.stderr.write(`${e instanceof ElectionCommandError ? e.message : errorLine(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}
