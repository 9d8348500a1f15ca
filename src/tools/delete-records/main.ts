// `tkafka delete-records`: kafka-delete-records.sh (org.apache.kafka.tools.DeleteRecordsCommand):
// deletes records before the offsets of a JSON file and prints each partition's new low watermark
// (or its error).
import { readFileSync } from 'node:fs';
import type { ToolIO } from '../common/io.js';
import type { JoptToolSpec } from '../common/jopt.js';
import { javaErrorString } from '../common/errors.js';
import { runClientTool } from '../common/run-tool.js';
import { JavaHashMapOrder, javaStringHash } from '../topics/java-order.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION } from '../topics/spec.js';

export const DELETE_RECORDS_SPEC: JoptToolSpec = {
  name: 'delete-records',
  kafkaScript: 'kafka-delete-records.sh',
  description: 'This tool helps to delete records of the given partitions down to the specified offset.',
  options: [
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED: The server to connect to.' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'server(s) to use for bootstrapping' },
      complete: 'host:port',
    },
    {
      names: ['offset-json-file'],
      arg: { name: 'Offset json file path' },
      complete: 'file',
      description:
        'REQUIRED: The JSON file with offset per partition. The format to use is:\n{"partitions":\n  [{"topic": "foo", "partition": 1, "offset": 1}],\n "version":1\n}',
    },
    {
      names: ['command-config'],
      description: 'A property file containing configs to be passed to Admin Client.',
      arg: { name: 'command config property file path' },
      complete: 'file',
    },
    {
      names: ['output'],
      extension: true,
      arg: { name: 'text|json|table' },
      complete: ['text', 'json', 'table'],
      description: 'tkafka: Output format: text (the default: the same lines as the Kafka tool), json or table.',
    },
    DEBUG_OPTION,
  ],
};

class CommandError extends Error {}

interface Entry {
  topic: string;
  partition: number;
  offsets: bigint[];
}

/** Jackson's JsonNode.toString for an error message. */
const nodeText = (v: unknown): string => JSON.stringify(v);

function mapping(message: string): CommandError {
  return new CommandError(message);
}

/** DeleteRecordsCommand.parseOffsetJsonStringWithoutDedup, with Kafka's messages. */
export function parseOffsetJson(text: string): Entry[] {
  let js: unknown;
  try {
    // Big offsets keep their digits: read integers as strings first.
    js = JSON.parse(text.replace(/("offset"\s*:\s*)(-?\d+)(?=\s*[,}])/g, '$1"\\u0000$2"'));
  } catch {
    throw new CommandError('The input string is not a valid JSON');
  }
  const obj = (v: unknown): Record<string, unknown> => {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw mapping(`Expected JSON object, received ${nodeText(v)}`);
    return v as Record<string, unknown>;
  };
  const root = obj(js);
  let version = 1;
  if ('version' in root) {
    const v = root.version;
    if (typeof v !== 'number' || !Number.isInteger(v) || Math.abs(v) > 2147483647)
      throw mapping(`Expected \`Integer\` value, received ${nodeText(v)}`);
    version = v;
  }
  if (version !== 1) throw new CommandError(`Not supported version field value ${version}`);
  if (!('partitions' in root)) throw new CommandError('Missing partitions field');
  const parts = root.partitions;
  if (!Array.isArray(parts)) throw mapping(`Expected JSON array, received ${nodeText(parts)}`);
  const out: Entry[] = [];
  for (const p of parts) {
    const o = obj(p);
    const field = (name: string): unknown => {
      if (!(name in o)) throw mapping(`No such field exists: \`${name}\``);
      return o[name];
    };
    const topic = field('topic');
    if (typeof topic !== 'string') throw mapping(`Expected \`String\` value, received ${nodeText(topic)}`);
    const partition = field('partition');
    if (typeof partition !== 'number' || !Number.isInteger(partition) || Math.abs(partition) > 2147483647) {
      throw mapping(`Expected \`Integer\` value, received ${nodeText(partition)}`);
    }
    const rawOffset = field('offset');
    const offset = typeof rawOffset === 'string' && rawOffset.startsWith('\u0000') ? BigInt(rawOffset.slice(1)) : null;
    if (offset === null) throw mapping(`Expected \`Long\` value, received ${nodeText(rawOffset)}`);
    const e = out.find((x) => x.topic === topic && x.partition === partition);
    if (e) e.offsets.push(offset);
    else out.push({ topic, partition, offsets: [offset] });
  }
  return out;
}

/** TopicPartition.hashCode. */
const tpHash = (key: string): number => {
  const i = key.lastIndexOf('-');
  const topic = key.slice(0, i);
  const partition = Number(key.slice(i + 1));
  return (Math.imul(31, (31 + partition) | 0) + javaStringHash(topic)) | 0;
};

/** HashSet<TopicPartition> iteration order (Kafka's duplicate-partition message). */
function hashSetOrder(keys: string[]): string[] {
  const m = new JavaHashMapOrder<string>(tpHash);
  for (const k of keys) m.put(k);
  return m.keys();
}

export function run(argv: string[], io: ToolIO): Promise<number> {
  return runClientTool(DELETE_RECORDS_SPEC, argv, io, async ({ opts, usage, connect }) => {
    if (!opts.has('offset-json-file')) return usage('Missing required argument "[offset-json-file]"');
    const { parseOutputFormat } = await import('../common/output.js');
    const format = parseOutputFormat(opts.string('output'));
    const client = await connect();
    const file = opts.string('offset-json-file')!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new CommandError(`java.nio.file.NoSuchFileException: ${file}`);
    }
    const entries = parseOffsetJson(text);
    const inMap = hashSetOrder(entries.map((e) => `${e.topic}-${e.partition}`));
    const dups = inMap.filter((k) => entries.find((e) => `${e.topic}-${e.partition}` === k)!.offsets.length > 1);
    if (dups.length > 0)
      throw new CommandError(`Offset json file contains duplicate topic partitions: ${dups.join(',')}`);
    const out = (l: string): void => void io.stdout.write(l + '\n');
    if (format === 'text') out('Executing records delete operation');
    const { deleteRecords } = await import('../../client/admin/offsets.js');
    const request = new Map(
      entries.map((e) => [
        `${e.topic}-${e.partition}`,
        { tp: { topic: e.topic, partition: e.partition }, offset: e.offsets[0]! },
      ]),
    );
    const results = await deleteRecords(client, request);
    if (format === 'text') out('Records delete operation completed:');
    const rows: { topic: string; partition: number; lowWatermark: bigint | null; error: string | null }[] = [];
    // Kafka prints the partitions in the order of an immutable Map.ofEntries, which changes from
    // one JVM run to the next; tkafka keeps the order of the JSON file.
    for (const key of request.keys()) {
      const r = results.get(key)!;
      const { tp } = request.get(key)!;
      if (r.ok) rows.push({ ...tp, lowWatermark: r.value, error: null });
      else {
        if (!(r.error as { javaString?: unknown }).javaString) throw r.error;
        rows.push({ ...tp, lowWatermark: null, error: javaErrorString(r.error) });
      }
    }
    if (format === 'json') {
      const { writeJson } = await import('../common/output.js');
      writeJson(io, { partitions: rows });
    } else if (format === 'table') {
      const { writeTable } = await import('../common/output.js');
      await writeTable(
        io,
        ['TOPIC', 'PARTITION', 'LOW WATERMARK', 'ERROR'],
        rows.map((r) => [r.topic, r.partition, r.lowWatermark, r.error]),
      );
    } else {
      for (const r of rows) {
        out(
          r.error === null
            ? `partition: ${r.topic}-${r.partition}\tlow_watermark: ${r.lowWatermark}`
            : `partition: ${r.topic}-${r.partition}\terror: ${r.error}`,
        );
      }
    }
    return 0;
  });
}
