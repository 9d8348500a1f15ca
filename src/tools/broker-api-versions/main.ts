// `tkafka broker-api-versions`: kafka-broker-api-versions.sh (org.apache.kafka.tools.
// BrokerApiVersionsCommand): every broker of the cluster (from Metadata) with the API versions it
// advertises and the version this client would use (NodeApiVersions.toString(true)).
import type { ToolIO } from '../common/io.js';
import type { BrokerNode } from '../../client/client.js';
import type { JoptToolSpec } from '../common/jopt.js';
import { errorLine } from '../common/errors.js';
import { runClientTool } from '../common/run-tool.js';
import { JavaHashMapOrder, javaStringHash } from '../topics/java-order.js';
import { BOOTSTRAP_HELP_SUFFIX, DEBUG_OPTION, OUTPUT_OPTION } from '../topics/spec.js';

export const BROKER_API_VERSIONS_SPEC: JoptToolSpec = {
  name: 'broker-api-versions',
  kafkaScript: 'kafka-broker-api-versions.sh',
  description: 'This tool helps to retrieve broker version information.',
  options: [
    {
      names: ['command-config'],
      description: 'A property file containing configs to be passed to Admin Client.',
      arg: { name: 'command config property file' },
      complete: 'file',
    },
    {
      names: ['bootstrap-server'],
      description: 'REQUIRED: The server to connect to.' + BOOTSTRAP_HELP_SUFFIX,
      arg: { name: 'server(s) to use for bootstrapping' },
      complete: 'host:port',
    },
    OUTPUT_OPTION,
    DEBUG_OPTION,
  ],
};

export interface ApiLine {
  key: number;
  name: string | null;
  minVersion: number | null;
  maxVersion: number | null;
  /** The version this client would send, null when unusable or unsupported. */
  usableVersion: number | null;
  status: 'usable' | 'node too new' | 'node too old' | 'unsupported' | 'unknown';
  text: string;
}

export interface BrokerVersions {
  node: BrokerNode;
  label: string;
  apis: ApiLine[] | null;
  error: string | null;
}

/** org.apache.kafka.common.Node.hashCode (Kafka 4.0: includes isFenced). */
function nodeHash(n: BrokerNode): number {
  let h = (31 + javaStringHash(n.host)) | 0;
  h = (Math.imul(31, h) + n.id) | 0;
  h = (Math.imul(31, h) + n.port) | 0;
  h = (Math.imul(31, h) + (n.rack === null ? 0 : javaStringHash(n.rack))) | 0;
  return (Math.imul(31, h) + 1237) | 0; // Boolean.hashCode(false)
}

export const nodeLabel = (n: BrokerNode): string => `${n.host}:${n.port} (id: ${n.id} rack: ${n.rack} isFenced: false)`;

/** NodeApiVersions.toString(true) lines for one broker's advertised versions. */
export async function apiLines(
  advertised: Map<number, { minVersion: number; maxVersion: number }>,
): Promise<ApiLine[]> {
  const { API_SPECS } = await import('../../protocol/generated/apis.js');
  const byKey = new Map(API_SPECS.map((s) => [s.key, s]));
  const lines = new Map<number, ApiLine>();
  for (const [key, v] of advertised) {
    const spec = byKey.get(key);
    const range = v.minVersion === v.maxVersion ? `${v.minVersion}` : `${v.minVersion} to ${v.maxVersion}`;
    if (!spec) {
      lines.set(key, {
        key,
        name: null,
        minVersion: v.minVersion,
        maxVersion: v.maxVersion,
        usableVersion: null,
        status: 'unknown',
        text: `UNKNOWN(${key}): ${range}`,
      });
      continue;
    }
    let status: ApiLine['status'] = 'usable';
    let usable: number | null = null;
    let suffix: string;
    if (spec.maxVersion < v.minVersion) [status, suffix] = ['node too new', ' [unusable: node too new]'];
    else if (v.maxVersion < spec.minVersion) [status, suffix] = ['node too old', ' [unusable: node too old]'];
    else {
      usable = Math.min(spec.maxVersion, v.maxVersion);
      suffix = ` [usable: ${usable}]`;
    }
    lines.set(key, {
      key,
      name: spec.name,
      minVersion: v.minVersion,
      maxVersion: v.maxVersion,
      usableVersion: usable,
      status,
      text: `${spec.name}(${key}): ${range}${suffix}`,
    });
  }
  // Client APIs (those a broker listener serves) the node did not list.
  for (const spec of API_SPECS) {
    if (!spec.listeners.includes('broker') || lines.has(spec.key)) continue;
    lines.set(spec.key, {
      key: spec.key,
      name: spec.name,
      minVersion: null,
      maxVersion: null,
      usableVersion: null,
      status: 'unsupported',
      text: `${spec.name}(${spec.key}): UNSUPPORTED`,
    });
  }
  return [...lines.values()].sort((a, b) => a.key - b.key);
}

export function run(argv: string[], io: ToolIO): Promise<number> {
  return runClientTool(BROKER_API_VERSIONS_SPEC, argv, io, async ({ opts, connect }) => {
    const { parseOutputFormat } = await import('../common/output.js');
    const format = parseOutputFormat(opts.string('output'));
    const c = await connect({ requestTimeoutMs: 5000 });
    const md = await c.call('metadata', () => c.metadata({ topics: [], refresh: true }));
    const byKey = new Map<string, BrokerNode>();
    const order = new JavaHashMapOrder<string>((k) => nodeHash(byKey.get(k)!));
    for (const n of md.brokers.values()) {
      const k = `${n.id}@${n.host}:${n.port}`;
      byKey.set(k, n);
      order.put(k);
    }
    const results: BrokerVersions[] = await Promise.all(
      order.keys().map(async (k) => {
        const node = byKey.get(k)!;
        try {
          const conn = await c.nodeConnection(node.id);
          return { node, label: nodeLabel(node), apis: await apiLines(conn.brokerVersions), error: null };
        } catch (e) {
          return { node, label: nodeLabel(node), apis: null, error: errorLine(e) };
        }
      }),
    );
    const { writeJson, writeTable } = await import('../common/output.js');
    if (format === 'json') {
      writeJson(io, {
        brokers: results.map((r) => ({
          id: r.node.id,
          host: r.node.host,
          port: r.node.port,
          rack: r.node.rack,
          error: r.error,
          apis: (r.apis ?? []).map((a) => ({
            key: a.key,
            name: a.name,
            minVersion: a.minVersion,
            maxVersion: a.maxVersion,
            usableVersion: a.usableVersion,
            status: a.status,
          })),
        })),
      });
    } else if (format === 'table') {
      await writeTable(
        io,
        ['BROKER', 'API', 'KEY', 'MIN', 'MAX', 'USABLE'],
        results.flatMap((r) =>
          r.apis === null
            ? [[r.node.id, `ERROR: ${r.error}`, '', '', '', '']]
            : r.apis.map((a) => [
                r.node.id,
                a.name ?? 'UNKNOWN',
                a.key,
                a.minVersion,
                a.maxVersion,
                a.usableVersion ?? (a.status === 'usable' ? '' : a.status),
              ]),
        ),
      );
    } else {
      for (const r of results) {
        io.stdout.write(
          r.apis === null
            ? `${r.label} -> ERROR: ${r.error}\n`
            : `${r.label} -> (\n\t${r.apis.map((a) => a.text).join(',\n\t')}\n)\n`,
        );
      }
    }
    return 0;
  });
}
