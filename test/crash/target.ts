// What the crash driver kills: one tkafka node (startBroker, combined broker and controller) or a
// 3-node tkafka cluster (three combined broker+controller nodes, a static quorum of three; topics
// with RF=3 and min.insync.replicas=2), behind one interface: its nodes (kill -9, start again on
// the same ports and data, metadata log folder, output), a bootstrap that stays the same across
// restarts, and the leader of a partition (clients go to it, as Kafka's do).
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { startCluster, tkafkaLauncher, type Cluster } from '../helpers/cluster.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { RawClient } from '../helpers/raw-client.js';

export interface CrashNode {
  readonly id: number;
  readonly port: number;
  readonly metadataDir: string;
  running(): boolean;
  kill(): Promise<void>;
  start(): Promise<void>;
  output(): string;
}

export interface CrashTarget {
  readonly nodes: readonly CrashNode[];
  readonly replicationFactor: number;
  bootstrap(): string;
  /** The port of the partition's leader as a running node's metadata says (null: no leader now). */
  leaderPort(topic: string, partition: number): Promise<number | null>;
  /** Partitions of `topics` whose leader is missing or whose ISR is not full, per running node (empty: whole). */
  lagging(topics: readonly string[]): Promise<string[]>;
  /** Data folders and logs, copied when a run fails. */
  readonly rootDir: string;
  logs(): string;
  close(): Promise<void>;
}

/** Settings of every node (both layouts): frequent checkpoints, cleaning, retention, snapshots. */
export const CRASH_OVERRIDES: Record<string, string | number | boolean> = {
  'num.partitions': 1,
  'auto.create.topics.enable': false,
  'offsets.topic.num.partitions': 2,
  'transaction.state.log.num.partitions': 2,
  'log.initial.task.delay.ms': 200,
  'log.cleaner.backoff.ms': 200,
  'log.retention.check.interval.ms': 1000,
  'log.flush.offset.checkpoint.interval.ms': 1000,
  'log.flush.start.offset.checkpoint.interval.ms': 1000,
  'replica.high.watermark.checkpoint.interval.ms': 500,
  'metadata.log.max.record.bytes.between.snapshots': 512,
  'metadata.log.max.snapshot.interval.ms': 2000,
  'log.index.interval.bytes': 1024,
};

interface MetadataView {
  ports: Map<number, number>;
  partitions: { topic: string; partition: number; leader: number; replicas: number[]; isr: number[] }[];
}

async function metadataAt(port: number, topics: readonly string[]): Promise<MetadataView | null> {
  let c: RawClient | null = null;
  try {
    c = await RawClient.connect(port);
    const md = await Promise.race([
      c.request(ApiKey.Metadata, 12, {
        topics: topics.map((name) => ({ name, topicId: ZERO_UUID })),
        allowAutoTopicCreation: false,
      }),
      new Promise<null>((r) => setTimeout(() => r(null), 5000).unref()),
    ]);
    if (!md) return null;
    const view: MetadataView = { ports: new Map(md.brokers.map((b) => [b.nodeId, b.port])), partitions: [] };
    for (const t of md.topics)
      for (const p of t.partitions)
        view.partitions.push({
          topic: t.name ?? '',
          partition: p.partitionIndex,
          leader: p.leaderId,
          replicas: p.replicaNodes,
          isr: p.isrNodes,
        });
    return view;
  } catch {
    return null;
  } finally {
    c?.close();
  }
}

export async function startSingleNode(): Promise<CrashTarget> {
  const broker: BrokerProcess = await startBroker({
    overrides: {
      ...CRASH_OVERRIDES,
      'offsets.topic.replication.factor': 1,
      'transaction.state.log.replication.factor': 1,
      'transaction.state.log.min.isr': 1,
    },
  });
  const port = broker.port;
  let running = true;
  const node: CrashNode = {
    id: 1,
    get port() {
      return broker.port;
    },
    metadataDir: `${broker.dataDir}/logs/__cluster_metadata-0`,
    running: () => running,
    async kill() {
      await broker.kill();
      running = false;
    },
    async start() {
      await broker.restart();
      running = true;
      if (broker.port !== port) throw new Error(`the broker came back on port ${broker.port}, not ${port}`);
    },
    output: () => broker.output(),
  };
  return {
    nodes: [node],
    replicationFactor: 1,
    bootstrap: () => `127.0.0.1:${port}`,
    leaderPort: async () => (running ? port : null),
    async lagging(topics) {
      if (!running) return ['the node is down'];
      const v = await metadataAt(port, topics);
      if (!v) return ['no metadata'];
      return v.partitions.filter((p) => p.leader < 0).map((p) => `${p.topic}-${p.partition} has no leader`);
    },
    rootDir: broker.dataDir,
    logs: () => broker.output(),
    async close() {
      await broker.kill();
      broker.cleanup();
    },
  };
}

export async function startThreeNodes(): Promise<CrashTarget> {
  const cluster: Cluster = await startCluster({
    nodes: [1, 2, 3].map((id) => ({ id, roles: 'broker,controller' as const })),
    launcher: tkafkaLauncher,
    quorum: 'static',
    brokerOverrides: {
      ...CRASH_OVERRIDES,
      'default.replication.factor': 3,
      'min.insync.replicas': 2,
      'unclean.leader.election.enable': false,
      'offsets.topic.replication.factor': 3,
      'transaction.state.log.replication.factor': 3,
      'transaction.state.log.min.isr': 2,
      'replica.lag.time.max.ms': 10_000,
    },
    startTimeoutMs: 180_000,
  });
  const nodes: CrashNode[] = cluster.nodes.map((n) => ({
    id: n.id,
    port: n.port,
    metadataDir: n.metadataDir,
    running: () => n.running(),
    kill: () => n.kill(),
    start: () => n.start(),
    output: () => n.logs(2_000_000),
  }));
  const anyView = async (topics: readonly string[]): Promise<MetadataView | null> => {
    for (const n of nodes)
      if (n.running()) {
        const v = await metadataAt(n.port, topics);
        if (v) return v;
      }
    return null;
  };
  return {
    nodes,
    replicationFactor: 3,
    bootstrap: () => nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    async leaderPort(topic, partition) {
      const v = await anyView([topic]);
      const p = v?.partitions.find((x) => x.topic === topic && x.partition === partition);
      if (!v || !p || p.leader < 0) return null;
      return v.ports.get(p.leader) ?? null;
    },
    async lagging(topics) {
      const out: string[] = [];
      for (const n of nodes) {
        if (!n.running()) {
          out.push(`node ${n.id} is down`);
          continue;
        }
        const v = await metadataAt(n.port, topics);
        if (!v) {
          out.push(`node ${n.id}: no metadata`);
          continue;
        }
        for (const p of v.partitions)
          if (p.leader < 0 || p.isr.length < p.replicas.length)
            out.push(
              `node ${n.id}: ${p.topic}-${p.partition} leader=${p.leader} isr=[${p.isr}] replicas=[${p.replicas}]`,
            );
      }
      return out;
    },
    rootDir: cluster.rootDir,
    logs: () => cluster.logs(3000),
    close: () => cluster.cleanup(),
  };
}
