// `tkafka cluster`: kafka-cluster.sh (org.apache.kafka.tools.ClusterTool, Kafka 4.0): cluster-id,
// unregister, list-endpoints, and Kafka 4.4's unregister-controller (KIP-1201); argparse4j parsing. `cluster-id` and `list-endpoints` also take
// --output json|table.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { ArgumentParser, parseOrExit, type Namespace } from '../common/argparse.js';
import { CONNECTION_HELP, openClient, resolveBootstrap, type ResolvedBootstrap } from '../common/connection.js';
import { errorLine, isEnvironmentError, javaErrorString, writeStack } from '../common/errors.js';
import { OUTPUT_HELP, parseOutputFormat, type OutputFormat } from '../common/output.js';

const ENV_NOTE =
  ' (tkafka: optional when TKAFKA_BOOTSTRAP_SERVER is set or a profile is active; precedence: flag > environment > profile)';

export function buildClusterParser(connectionRequired = true): ArgumentParser {
  const parser = new ArgumentParser({
    prog: 'kafka-cluster',
    description: 'The Kafka cluster tool.',
    epilog: CONNECTION_HELP,
  });
  const sub = parser.addSubparsers({ dest: 'command' });
  const clusterId = sub.addParser('cluster-id', { help: 'Get information about the ID of a cluster.' });
  const unregister = sub.addParser('unregister', { help: 'Unregister a broker.' });
  const unregisterController = sub.addParser('unregister-controller', { help: 'Unregister a controller.' });
  const listEndpoints = sub.addParser('list-endpoints', { help: 'List endpoints' });
  const apiVersions = sub.addParser('api-versions', {
    help: 'Get information about the api versions of the brokers or controllers.',
  });
  for (const p of [clusterId, unregister, unregisterController, listEndpoints, apiVersions]) {
    const group = p.addMutuallyExclusiveGroup({ required: connectionRequired });
    group.addArgument({
      flags: ['--bootstrap-server', '-b'],
      help: 'A list of host/port pairs to use for establishing the connection to the Kafka cluster.' + ENV_NOTE,
    });
    group.addArgument({
      flags: ['--bootstrap-controller', '-C'],
      help: 'A list of host/port pairs to use for establishing the connection to the KRaft controllers.',
    });
    // Kafka 4.4 (KIP-1147): --command-config, -c; --config deprecated.
    p.addArgument({
      flags: ['--config'],
      help: '(DEPRECATED) A property file containing configurations for the Admin client. This option will be removed in a future version. Use --command-config instead.',
    });
    p.addArgument({
      flags: ['--command-config', '-c'],
      help: 'Config properties file for the Admin client.',
    });
    p.addArgument({ flags: ['--debug'], action: 'storeTrue', help: 'tkafka: show stack traces on errors.' });
  }
  unregister.addArgument({
    flags: ['--id', '-i'],
    type: 'int',
    required: true,
    help: 'The ID of the broker to unregister.',
  });
  unregisterController.addArgument({
    flags: ['--id', '-i'],
    type: 'int',
    required: true,
    help: 'The ID of the controller to unregister.',
  });
  listEndpoints.addArgument({
    flags: ['--include-fenced-brokers'],
    action: 'storeTrue',
    help: 'Whether to include fenced brokers when listing broker endpoints',
  });
  for (const p of [clusterId, listEndpoints])
    p.addArgument({ flags: ['--output', '-o'], choices: ['text', 'json', 'table'], help: `tkafka: ${OUTPUT_HELP}` });
  return parser;
}

class TerseError extends Error {}

export async function run(argv: string[], io: ToolIO): Promise<number> {
  let fallback: ResolvedBootstrap | null;
  try {
    fallback = await resolveBootstrap(null, io.env);
  } catch (e) {
    io.stderr.write(`${errorLine(e)}\n`);
    return 1;
  }
  // Kafka 4.0's ClusterTool exits 1 after printing help.
  const parsed = parseOrExit(buildClusterParser(fallback === null), argv, io, 1);
  if ('exitCode' in parsed) return parsed.exitCode;
  const ns: Namespace = parsed.ns;
  const debug = ns.debug === true;
  // ClusterTool: both → an ArgumentParserException thrown after parsing, whose message mainNoExit
  // prints (exit 1); --config alone → a deprecation notice on stdout.
  const oldConfig = ns.config as string | null | undefined;
  let commandConfig = ns.command_config as string | null | undefined;
  if (oldConfig != null && commandConfig != null) {
    io.stderr.write('--config and --command-config cannot be specified together.\n');
    return 1;
  }
  if (oldConfig != null) {
    io.stdout.write(
      'Option --config has been deprecated and will be removed in a future version. Use --command-config instead.\n',
    );
    commandConfig = oldConfig;
  }
  let client: KafkaClient | null = null;
  try {
    const server = ns.bootstrap_server as string | null | undefined;
    const controller = ns.bootstrap_controller as string | null | undefined;
    const bootstrap =
      server != null
        ? { value: server, source: 'flag' as const }
        : controller != null
          ? { value: controller, source: 'flag' as const }
          : fallback!;
    const format: OutputFormat = parseOutputFormat(ns.output as string | undefined);
    client = await openClient({ bootstrap, commandConfig });
    const out = (l: string): void => void io.stdout.write(l + '\n');
    const { describeCluster, unregisterBroker } = await import('../../client/admin/cluster.js');
    switch (ns.command) {
      case 'cluster-id': {
        const { clusterId } = await describeCluster(client, {
          endpointType: controller != null ? 'controller' : 'broker',
        });
        const { writeJson, writeTable } = await import('../common/output.js');
        if (format === 'json') writeJson(io, { clusterId });
        else if (format === 'table') await writeTable(io, ['CLUSTER ID'], [[clusterId ?? '']]);
        else
          out(
            clusterId !== null
              ? `Cluster ID: ${clusterId}`
              : 'No cluster ID found. The Kafka version is probably too old.',
          );
        return 0;
      }
      case 'unregister': {
        try {
          await unregisterBroker(client, ns.id as number);
        } catch (e) {
          if ((e as Error).name === 'UnsupportedApiError' || (e as { code?: number }).code === 35) {
            out('The target cluster does not support the broker unregistration API.');
            return 0;
          }
          throw e;
        }
        out(`Broker ${ns.id} is no longer registered.`);
        return 0;
      }
      case 'unregister-controller': {
        // ClusterTool.unregisterControllerCommand: Admin.unregisterController to the least loaded broker or
        // the active controller; an UnsupportedVersionException is reported on stdout, exit 0
        const { unregisterController } = await import('../metadata-quorum/voters.js');
        try {
          await unregisterController(client, controller != null ? 'controller' : 'broker', ns.id as number);
        } catch (e) {
          if ((e as Error).name === 'UnsupportedApiError' || (e as { code?: number }).code === 35) {
            out('The target cluster does not support the controller unregistration API.');
            return 0;
          }
          throw e;
        }
        out(`Controller ${ns.id} is no longer registered.`);
        return 0;
      }
      case 'list-endpoints': {
        if (ns.include_fenced_brokers === true && controller != null) {
          throw new TerseError('The option --include-fenced-brokers is only supported with --bootstrap-server option');
        }
        let nodes;
        try {
          nodes = (
            await describeCluster(client, {
              includeFencedBrokers: ns.include_fenced_brokers === true,
              endpointType: controller != null ? 'controller' : 'broker',
            })
          ).nodes;
        } catch (e) {
          // ClusterTool.listEndpoints prints an ExecutionException's cause message on stdout, exit 0.
          if ((e as Error).name !== 'UnsupportedApiError') throw e;
          out((e as Error).message);
          return 0;
        }
        const state = (n: { fenced: boolean }): string => (n.fenced ? 'fenced' : 'unfenced');
        const type = controller != null ? 'controller' : 'broker';
        const { writeJson, writeTable } = await import('../common/output.js');
        if (format === 'json') {
          writeJson(io, {
            endpoints: nodes.map((n) => ({
              id: n.id,
              host: n.host,
              port: n.port,
              rack: n.rack,
              state: type === 'broker' ? state(n) : null,
              endpointType: type,
            })),
          });
          return 0;
        }
        if (format === 'table') {
          await writeTable(
            io,
            ['ID', 'HOST', 'PORT', 'RACK', 'STATE', 'ENDPOINT TYPE'],
            nodes.map((n) => [n.id, n.host, n.port, n.rack ?? '', type === 'broker' ? state(n) : '', type]),
          );
          return 0;
        }
        const hostW = nodes.length > 0 ? Math.max(...nodes.map((n) => n.host.length)) : 100;
        const racks = nodes.filter((n) => n.rack !== null).map((n) => n.rack!.length);
        const rackW = racks.length > 0 ? Math.max(...racks) : 10;
        const pad = (s: string | number | null, w: number): string => String(s).padEnd(w);
        const line = (cols: (string | number | null)[]): string => {
          const widths = type === 'broker' ? [10, hostW, 10, rackW, 10, 15] : [10, hostW, 10, rackW, 15];
          return cols.map((c, i) => pad(c, widths[i]!)).join(' ');
        };
        out(
          line(
            type === 'broker'
              ? ['ID', 'HOST', 'PORT', 'RACK', 'STATE', 'ENDPOINT_TYPE']
              : ['ID', 'HOST', 'PORT', 'RACK', 'ENDPOINT_TYPE'],
          ),
        );
        for (const n of nodes)
          out(
            line(
              type === 'broker' ? [n.id, n.host, n.port, n.rack, state(n), type] : [n.id, n.host, n.port, n.rack, type],
            ),
          );
        return 0;
      }
      case 'api-versions': {
        // ClusterTool.apiVersionsCommand (4.4): the nodes of describeCluster by id, each with
        // `<node> -> <NodeApiVersions.toString(true)>` from its own ApiVersions, or `<node> -> ERROR: <cause>`
        const { apiLines } = await import('../broker-api-versions/main.js');
        const { nodes } = await describeCluster(client, {
          endpointType: controller != null ? 'controller' : 'broker',
        });
        for (const n of [...nodes].sort((a, b) => a.id - b.id)) {
          const label = `${n.host}:${n.port} (id: ${n.id} rack: ${n.rack} isFenced: ${n.fenced})`;
          try {
            const conn = await client!.connectionTo(`${n.host}:${n.port}`);
            const lines = await apiLines(conn.brokerVersions);
            io.stdout.write(`${label} -> (\n\t${lines.map((a) => a.text).join(',\n\t')}\n)\n`);
          } catch (e) {
            io.stdout.write(`${label} -> ERROR: ${javaErrorString(e)}\n`);
          }
        }
        return 0;
      }
      default:
        throw new TerseError(`Unknown command ${String(ns.command)}`);
    }
  } catch (e) {
    io.stderr.write(`${e instanceof TerseError || isEnvironmentError(e) ? errorLine(e) : javaErrorString(e)}\n`);
    writeStack(io, debug, e);
    return 1;
  } finally {
    client?.close();
  }
}
