// `tkafka get-offsets`: kafka-get-offsets.sh (org.apache.kafka.tools.GetOffsetShell): offsets of
// the matching topic-partitions for a time spec, as `topic:partition:offset` lines sorted by the
// string `topic-partition`; `--output json|table` as well.
import type { ToolIO } from '../common/io.js';
import type { JoptToolSpec } from '../common/jopt.js';
import { javaErrorString } from '../common/errors.js';
import { runClientTool } from '../common/run-tool.js';
import { parseOutputFormat } from '../common/output.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION, OUTPUT_OPTION } from '../topics/spec.js';

const USAGE_TEXT = 'An interactive shell for getting topic-partition offsets.';
const TOPIC_PARTITION_PATTERN = '([^:,]*)(?::(?:([0-9]*)|(?:([0-9]*)-([0-9]*))))?';

export const GET_OFFSETS_SPEC: JoptToolSpec = {
  name: 'get-offsets',
  kafkaScript: 'kafka-get-offsets.sh',
  description: USAGE_TEXT,
  options: [
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED. The server(s) to connect to in the form HOST1:PORT1,HOST2:PORT2.' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'HOST1:PORT1,...,HOST3:PORT3' },
      complete: 'host:port',
    },
    {
      names: ['topic-partitions'],
      arg: { name: 'topic1:1,topic2:0-3,topic3,topic4:5-,topic5:-3' },
      description:
        `Comma separated list of topic-partition patterns to get the offsets for, with the format of '${TOPIC_PARTITION_PATTERN}'. ` +
        "The first group is an optional regex for the topic name, if omitted, it matches any topic name. The section after ':' describes a 'partition' pattern, " +
        "which can be: a number, a range in the format of 'NUMBER-NUMBER' (lower inclusive, upper exclusive), an inclusive lower bound in the format of 'NUMBER-', " +
        "an exclusive upper bound in the format of '-NUMBER' or may be omitted to accept all partitions.",
    },
    {
      names: ['topic'],
      arg: { name: 'topic' },
      description:
        'The topic to get the offsets for. It also accepts a regular expression. If not present, all authorized topics are queried. Cannot be used if --topic-partitions is present.',
    },
    {
      names: ['partitions'],
      arg: { name: 'partition ids' },
      description:
        'Comma separated list of partition ids to get the offsets for. If not present, all partitions of the authorized topics are queried. Cannot be used if --topic-partitions is present.',
    },
    {
      names: ['time'],
      arg: {
        name: '<timestamp> / -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload',
        defaults: ['latest'],
      },
      description:
        'timestamp of the offsets before that. [Note: No offset is returned, if the timestamp greater than recently committed record timestamp is given.]',
    },
    {
      names: ['command-config'],
      description: 'Property file containing configs to be passed to Admin Client.',
      arg: { name: 'config file' },
      complete: 'file',
    },
    {
      names: ['exclude-internal-topics'],
      description: 'By default, internal topics are included. If specified, internal topics are excluded.',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ],
};

/** GetOffsetShell's TerseException: `Error occurred: <message>` on stderr, exit 1. */
class TerseError extends Error {}

const INTERNAL = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

type TopicFilter = (topic: string) => boolean;
interface TPFilter {
  topic: TopicFilter;
  partition: (topic: string, partition: number) => boolean;
}

function includeList(raw: string): TopicFilter {
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
    throw new Error(`${regex} is an invalid regex.`);
  }
  return (t) => re.test(t);
}

function parseOffsetSpec(time: string): bigint {
  switch (time) {
    case 'earliest':
      return -2n;
    case 'latest':
      return -1n;
    case 'max-timestamp':
      return -3n;
    case 'earliest-local':
      return -4n;
    case 'latest-tiered':
      return -5n;
    case 'earliest-pending-upload':
      return -6n;
  }
  if (!/^[+-]?\d+$/.test(time) || BigInt(time) > 2n ** 63n - 1n || BigInt(time) < -(2n ** 63n)) {
    throw new TerseError(
      `Malformed time argument ${time}. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload, or a specified long format timestamp`,
    );
  }
  return BigInt(time);
}

function filterFromPatterns(spec: string): TPFilter {
  const specs = spec.split(',');
  // Java's String.split drops trailing empty strings.
  while (specs.length > 0 && specs[specs.length - 1] === '' && !(specs.length === 1 && spec === '')) specs.pop();
  const rules = specs.map((rule) => {
    const m = new RegExp(`^${TOPIC_PARTITION_PATTERN}$`).exec(rule);
    if (!m) throw new Error(`org.apache.kafka.tools.TerseException: Invalid rule specification: ${rule}`);
    const g = (i: number): string | null => (m[i] !== undefined && m[i] !== '' ? m[i]! : null);
    const topic = includeList(g(1) ?? '.*');
    let part: (p: number) => boolean;
    if (g(2) !== null) {
      const only = Number(g(2));
      part = (p) => p === only;
    } else {
      const lo = g(3) !== null ? Number(g(3)) : 0;
      const hi = g(4) !== null ? Number(g(4)) : 2147483647;
      part = (p) => p >= lo && p < hi;
    }
    return { topic, part };
  });
  return {
    topic: (t) => rules.some((r) => r.topic(t)),
    partition: (t, p) => rules.some((r) => r.topic(t) && r.part(p)),
  };
}

function filterFromTopicAndPartitions(topic: string | undefined, partitions: string | undefined): TPFilter {
  let ids = new Set<number>();
  if (partitions !== undefined && partitions !== '') {
    const parts = partitions.split(',');
    if (!parts.every((p) => /^[+-]?\d+$/.test(p) && Math.abs(Number(p)) <= 2147483647)) {
      throw new TerseError(
        `--partitions expects a comma separated list of numeric partition ids, but received: ${partitions}`,
      );
    }
    ids = new Set(parts.map(Number));
  }
  const t = includeList(topic ?? '.*');
  return { topic: t, partition: (name, p) => t(name) && (ids.size === 0 || ids.has(p)) };
}

/** ToolsUtils.validateBootstrapServer. */
function validBootstrap(value: string): string | null {
  if (value.trim() === '') return 'Error while validating the bootstrap address\n';
  const parts = value.includes(',') ? value.split(',') : [value];
  const ok = parts.filter((hp) => /^.*?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)$/.test(hp));
  return ok.length === 0 || ok.length !== parts.length
    ? 'Please provide valid host:port like host1:9091,host2:9092\n'
    : null;
}

export interface OffsetRow {
  topic: string;
  partition: number;
  offset: bigint;
}

export function run(argv: string[], io: ToolIO): Promise<number> {
  // GetOffsetShell prefixes jopt errors and failures (its TerseException) with `Error occurred: `.
  return runClientTool(
    GET_OFFSETS_SPEC,
    argv,
    io,
    async ({ opts, bootstrap, usage, connect }) => {
      const invalid = validBootstrap(bootstrap.value);
      if (invalid !== null) return usage(invalid);
      const format = parseOutputFormat(opts.string('output'));
      if (opts.has('topic-partitions') && (opts.has('topic') || opts.has('partitions'))) {
        throw new TerseError('--topic-partitions cannot be used with --topic or --partitions');
      }
      const excludeInternal = opts.has('exclude-internal-topics');
      const timestamp = parseOffsetSpec(opts.string('time')!);
      const filter = opts.has('topic-partitions')
        ? filterFromPatterns(opts.string('topic-partitions')!)
        : filterFromTopicAndPartitions(opts.string('topic'), opts.string('partitions'));
      const client = await connect({ clientId: 'GetOffsetShell' });
      const { listTopics, describeTopics } = await import('../../client/admin/topics.js');
      const { listOffsets } = await import('../../client/admin/offsets.js');
      const topics = (await listTopics(client, { listInternal: !excludeInternal }))
        .map((t) => t.name)
        .filter((t) => filter.topic(t) && !(excludeInternal && INTERNAL.has(t)));
      const described = await describeTopics(client, topics);
      const tps: { topic: string; partition: number }[] = [];
      for (const [name, d] of described) {
        if (!d.ok) throw d.error;
        for (const p of d.value.partitions)
          if (filter.partition(name, p.partition)) tps.push({ topic: name, partition: p.partition });
      }
      if (tps.length === 0) throw new TerseError('Could not match any topic-partitions with the specified filters');
      const results = await listOffsets(client, tps, timestamp);
      const rows: OffsetRow[] = [];
      const errors: { topic: string; partition: number; error: string }[] = [];
      for (const tp of tps) {
        const r = results.get(`${tp.topic}-${tp.partition}`)!;
        if (!r.ok) {
          if (!(r.error as { javaString?: unknown }).javaString) throw r.error;
          const text = `java.util.concurrent.ExecutionException: ${javaErrorString(r.error)}`;
          if (format === 'text')
            io.stderr.write(
              `Skip getting offsets for topic-partition ${tp.topic}-${tp.partition} due to error: ${text}\n`,
            );
          errors.push({ ...tp, error: javaErrorString(r.error) });
          continue;
        }
        if (r.value.offset !== -1n) rows.push({ ...tp, offset: r.value.offset });
      }
      const key = (r: { topic: string; partition: number }): string => `${r.topic}-${r.partition}`;
      rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
      const { writeJson, writeLines, writeTable } = await import('../common/output.js');
      if (format === 'json') writeJson(io, { offsets: rows, errors });
      else if (format === 'table')
        await writeTable(
          io,
          ['TOPIC', 'PARTITION', 'OFFSET'],
          rows.map((r) => [r.topic, r.partition, r.offset]),
        );
      else
        writeLines(
          io,
          rows.map((r) => `${r.topic}:${r.partition}:${r.offset}`),
        );
      return 0;
    },
    { errorPrefix: 'Error occurred: ' },
  );
}
