// `tkafka log-dirs`: kafka-log-dirs.sh (org.apache.kafka.tools.LogDirsCommand): log directories
// of brokers and the size, lag and future flag of every replica in them, as Kafka's one-line JSON
// (keys in its HashMap order); `--output json` pretty-prints the same document, `--output table`
// flattens it.
import type { ToolIO } from '../common/io.js';
import type { JoptToolSpec } from '../common/jopt.js';
import { runClientTool } from '../common/run-tool.js';
import { JavaHashMapOrder, javaStringHash } from '../topics/java-order.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION, OUTPUT_OPTION } from '../topics/spec.js';

export const LOG_DIRS_SPEC: JoptToolSpec = {
  name: 'log-dirs',
  kafkaScript: 'kafka-log-dirs.sh',
  description: 'This tool helps to query log directory usage on the specified brokers.',
  options: [
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED: the server(s) to use for bootstrapping' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'The server(s) to use for bootstrapping' },
      complete: 'host:port',
    },
    {
      names: ['command-config'],
      description: 'Property file containing configs to be passed to Admin Client.',
      arg: { name: 'Admin client property file' },
      complete: 'file',
    },
    { names: ['describe'], description: 'Describe the specified log directories on the specified brokers.' },
    {
      names: ['topic-list'],
      arg: { name: 'Topic list', defaults: [''] },
      description:
        'The list of topics to be queried in the form "topic1,topic2,topic3". All topics will be queried if no topic list is specified',
    },
    {
      names: ['broker-list'],
      arg: { name: 'Broker list', defaults: [''] },
      description:
        'The list of brokers to be queried in the form "0,1,2". All brokers in the cluster will be queried if no broker list is specified',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ],
};

class TerseError extends Error {}

/** A Java HashMap<String, Object> literal's key order. */
function keyOrder(keys: string[]): string[] {
  const m = new JavaHashMapOrder<string>(javaStringHash);
  for (const k of keys) m.put(k);
  return m.keys();
}

function ordered(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keyOrder(Object.keys(obj))) out[k] = obj[k];
  return out;
}

/** HashSet<Integer> / HashMap<Integer, ...> iteration order. */
function intOrder(ids: Iterable<number>): number[] {
  const m = new JavaHashMapOrder<number>((n) => n);
  for (const id of ids) m.put(id);
  return m.keys();
}

const tpHash = (topic: string, partition: number): number =>
  (Math.imul(31, (31 + partition) | 0) + javaStringHash(topic)) | 0;

export interface LogDirsDocument {
  brokers: {
    broker: number;
    logDirs: {
      logDir: string;
      error: string | null;
      partitions: { partition: string; size: bigint; offsetLag: bigint; isFuture: boolean }[];
    }[];
  }[];
  version: 1;
}

export function run(argv: string[], io: ToolIO): Promise<number> {
  return runClientTool(LOG_DIRS_SPEC, argv, io, async ({ opts, usage, connect }) => {
    if (!opts.has('describe')) return usage('Missing required argument "[describe]"');
    const { parseOutputFormat } = await import('../common/output.js');
    const format = parseOutputFormat(opts.string('output'));
    const split = (name: string): string[] =>
      String(opts.valueOf(name) ?? '')
        .split(',')
        .filter((x) => x !== '');
    const topics = new Set(split('topic-list'));
    const input = split('broker-list').map((b) => {
      if (!/^[+-]?\d+$/.test(b) || Math.abs(Number(b)) > 2147483647) throw new Error(`For input string: "${b}"`);
      return Number(b);
    });
    const client = await connect({ clientId: 'log-dirs-tool' });
    const { describeCluster, describeLogDirs } = await import('../../client/admin/cluster.js');
    const cluster = intOrder((await describeCluster(client)).nodes.map((n) => n.id));
    const existing = intOrder(input.length === 0 ? cluster : input).filter((id) => cluster.includes(id));
    const missing = intOrder(input).filter((id) => !cluster.includes(id));
    if (missing.length > 0) {
      throw new TerseError(
        `ERROR: The given brokers do not exist from --broker-list: ${missing.join(',')}. Current existent brokers: ${cluster.join(',')}`,
      );
    }
    const out = (l: string): void => void io.stdout.write(l + '\n');
    if (format === 'text') out('Querying brokers for log directories information');
    const described = await describeLogDirs(client, existing);
    const { javaExceptionClass } = await import('../../client/errors.js');
    const doc: LogDirsDocument = {
      version: 1,
      brokers: intOrder(described.keys()).map((broker) => {
        const dirs = described.get(broker)!;
        const byPath = new Map(dirs.map((d) => [d.path, d]));
        return {
          broker,
          logDirs: keyOrder(dirs.map((d) => d.path)).map((path) => {
            const d = byPath.get(path)!;
            const replicas = d.replicas.filter((r) => topics.size === 0 || topics.has(r.topic));
            const m = new JavaHashMapOrder<string>((k) => {
              const i = k.lastIndexOf('-');
              return tpHash(k.slice(0, i), Number(k.slice(i + 1)));
            });
            const byKey = new Map(replicas.map((r) => [`${r.topic}-${r.partition}`, r]));
            for (const k of byKey.keys()) m.put(k);
            return {
              logDir: path,
              error: d.errorCode !== 0 ? javaExceptionClass(d.errorCode) : null,
              partitions: m.keys().map((k) => {
                const r = byKey.get(k)!;
                return { partition: k, size: r.size, offsetLag: r.offsetLag, isFuture: r.isFuture };
              }),
            };
          }),
        };
      }),
    };
    const { toJson, writeJson, writeTable } = await import('../common/output.js');
    if (format === 'json') writeJson(io, doc);
    else if (format === 'table') {
      await writeTable(
        io,
        ['BROKER', 'LOG DIR', 'ERROR', 'PARTITION', 'SIZE', 'OFFSET LAG', 'FUTURE'],
        doc.brokers.flatMap((b) =>
          b.logDirs.flatMap((d) =>
            d.partitions.length === 0
              ? [[b.broker, d.logDir, d.error ?? '', '', '', '', '']]
              : d.partitions.map((p) => [
                  b.broker,
                  d.logDir,
                  d.error ?? '',
                  p.partition,
                  p.size,
                  p.offsetLag,
                  p.isFuture,
                ]),
          ),
        ),
      );
    } else {
      out(`Received log directory information from brokers ${existing.join(',')}`);
      // Kafka's document: every object is a HashMap, so keys come in HashMap order.
      const kafkaDoc = ordered({
        version: 1,
        brokers: doc.brokers.map((b) =>
          ordered({
            broker: b.broker,
            logDirs: b.logDirs.map((d) =>
              ordered({ logDir: d.logDir, error: d.error, partitions: d.partitions.map((p) => ordered({ ...p })) }),
            ),
          }),
        ),
      });
      out(toJson(kafkaDoc, 0));
    }
    return 0;
  });
}
