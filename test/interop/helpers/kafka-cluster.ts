// Apache Kafka 4.4.0 nodes for the multi-node harness of test/helpers/cluster.ts: controller-only,
// broker-only and combined `kafka.Kafka` JVMs from the jars of apache-kafka.ts, each with its
// log4j2 file (INFO to <node>/logs/server.log, stdout/stderr to <node>/logs/console.log) and
// storage formatted by Kafka's StorageTool. `startKafkaCluster` is a whole Apache Kafka cluster;
// `kafkaLauncher` is given to single nodes of a mixed cluster (Kafka brokers on tkafka
// controllers, or the reverse: `external`).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  fileSize,
  readTail,
  startCluster,
  tkafkaLauncher,
  waitForUnfenced,
  type Cluster,
  type ClusterSpec,
  type NodeLauncher,
  type NodeSpec,
  type Roles,
} from '../../helpers/cluster.js';
import { brokerLog4j, kafkaLibDir, runKafkaTool, type ToolResult } from './apache-kafka.js';
import { UNIMPLEMENTED_FEATURES } from '../../../src/config/features.js';

/** Server JVM flags: Kafka's kafka-server-start.sh G1 settings with a small heap (several JVMs share the machine). */
const SERVER_JVM_FLAGS = (heap: string): string[] => [
  `-Xmx${heap}`,
  `-Xms${heap}`,
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:InitiatingHeapOccupancyPercent=35',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-XX:MaxInlineLevel=15',
  '-Xshare:auto',
  '-Djava.awt.headless=true',
];

const logDirOf = (nodeDir: string): string => join(nodeDir, 'logs');

/** Apache Kafka's launcher: StorageTool for format, kafka.Kafka for the server. */
export function kafkaLauncher(opts: { heap?: string } = {}): NodeLauncher {
  const heap = opts.heap ?? '384m';
  return {
    impl: 'kafka',
    async format(args) {
      const r = await runKafkaTool('kafka.tools.StorageTool', args);
      return { exitCode: r.exitCode, output: r.stdout + r.stderr };
    },
    spawn(configFile, nodeDir) {
      const logDir = logDirOf(nodeDir);
      mkdirSync(logDir, { recursive: true });
      const log4j = join(nodeDir, 'log4j2.properties');
      if (!existsSync(log4j)) writeFileSync(log4j, brokerLog4j(logDir));
      const out = openSync(join(logDir, 'console.log'), 'a');
      try {
        return spawn(
          'java',
          [
            ...SERVER_JVM_FLAGS(heap),
            `-Dlog4j2.configurationFile=${log4j}`,
            `-Dkafka.logs.dir=${logDir}`,
            '-cp',
            `${kafkaLibDir()}/*`,
            'kafka.Kafka',
            configFile,
          ],
          { cwd: nodeDir, stdio: ['ignore', out, out] },
        );
      } finally {
        closeSync(out);
      }
    },
    // server.log holds Kafka's own lines (the started and Acceptor lines); console.log only what
    // the JVM printed before log4j (or a crash), appended after it for failure messages.
    log: (nodeDir, from = 0) =>
      readTail(join(logDirOf(nodeDir), 'server.log'), from) +
      (from === 0 ? readTail(join(logDirOf(nodeDir), 'console.log')) : ''),
    logSize: (nodeDir) => fileSize(join(logDirOf(nodeDir), 'server.log')),
  };
}

/** Nodes of a usual shape: `controllers` controller-only nodes 1..M, then `brokers` broker-only nodes, then `combined`. */
export function shape(counts: { controllers?: number; brokers?: number; combined?: number }): NodeSpec[] {
  const nodes: NodeSpec[] = [];
  let id = 1;
  const add = (n: number | undefined, roles: Roles): void => {
    for (let i = 0; i < (n ?? 0); i++) nodes.push({ id: id++, roles });
  };
  add(counts.controllers, 'controller');
  add(counts.brokers, 'broker');
  add(counts.combined, 'broker,controller');
  return nodes;
}

/** A whole Apache Kafka 4.4.0 cluster (see startCluster). */
export function startKafkaCluster(spec: Omit<ClusterSpec, 'launcher'> & { heap?: string }): Promise<Cluster> {
  return startCluster({ ...spec, launcher: kafkaLauncher({ heap: spec.heap }) });
}

/** Kafka's MetadataQuorumCommand (kafka-metadata-quorum.sh) against the cluster's controllers. */
export function kafkaMetadataQuorum(cluster: Cluster, args: string[]): Promise<ToolResult> {
  return runKafkaTool('org.apache.kafka.tools.MetadataQuorumCommand', [
    '--bootstrap-controller',
    cluster.controllerBootstrap(),
    ...args,
  ]);
}

/** Kafka's ClusterTool (kafka-cluster.sh) with the given arguments. */
export function kafkaClusterTool(args: string[]): Promise<ToolResult> {
  return runKafkaTool('org.apache.kafka.tools.ClusterTool', args);
}

/**
 * `storage format` flags that leave the features tkafka does not implement at level 0, for an Apache
 * Kafka controller that tkafka brokers join (cluster-mixed.test.ts explains why).
 */
export const UNIMPLEMENTED_FEATURES_AT_ZERO = [...UNIMPLEMENTED_FEATURES.keys()].flatMap((f) => [
  '--feature',
  `${f}=0`,
]);

/**
 * A mixed cluster for replication tests: one Apache Kafka 4.4.0 controller (id 1, formatted with
 * UNIMPLEMENTED_FEATURES_AT_ZERO), tkafka brokers and Apache Kafka brokers; resolves once every broker
 * is unfenced.
 */
export async function startMixedBrokerCluster(o: {
  tkafkaBrokers: readonly number[];
  kafkaBrokers: readonly number[];
  controllerOverrides?: Record<string, string | number | boolean>;
  brokerOverrides?: Record<string, string | number | boolean>;
}): Promise<Cluster> {
  const cluster = await startCluster({
    launcher: kafkaLauncher(),
    nodes: [
      { id: 1, roles: 'controller', formatArgs: UNIMPLEMENTED_FEATURES_AT_ZERO },
      ...o.tkafkaBrokers.map((id) => ({ id, roles: 'broker' as const, launcher: tkafkaLauncher })),
      ...o.kafkaBrokers.map((id) => ({ id, roles: 'broker' as const })),
    ],
    quorum: 'static',
    controllerOverrides: o.controllerOverrides,
    brokerOverrides: o.brokerOverrides,
    startTimeoutMs: 420_000,
  });
  await waitForUnfenced(cluster, { ids: [...o.tkafkaBrokers, ...o.kafkaBrokers], timeoutMs: 120_000 });
  return cluster;
}
