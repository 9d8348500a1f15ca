// The chaos cluster: one controller-only node and three broker-only nodes, tkafka's
// (`bin/tkafka server start`) or Apache Kafka 4.4.0's (the oracle), started by
// test/helpers/cluster.ts, with every link between them through a LinkProxy (proxy.ts) so the
// fault driver can cut any of them:
//   - client[b]: clients to broker b (its CLIENT listener is advertised as the proxy's port);
//   - controller[b]: broker b to the controller: the controller has one controller listener per
//     broker, C<b>, advertised as the proxy b→controller; broker b's controller.listener.names is
//     C<b> and its controller.quorum.voters names that proxy, so its raft fetches (which follow the
//     leader's C<b> endpoint from Fetch responses' NodeEndpoints), heartbeats and AlterPartitions
//     all go through it;
//   - link[j→b]: broker j to broker b (replica fetches, txn markers): b has one inter-broker
//     listener per peer, R<j>, advertised as the proxy j→b, and broker j's
//     inter.broker.listener.name is R<j>, so j always reaches b through its own proxy.
// Every port is loopback and picked before the start (the advertised ones are the proxies').
import { startCluster, pickPort, type Cluster, type NodeLauncher, type NodeSpec } from '../helpers/cluster.js';
import { tkafkaLauncher } from '../helpers/cluster.js';
import { kafkaLauncher } from '../interop/helpers/kafka-cluster.js';
import { ApiKey } from '../../src/protocol/frame.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { RawClient } from '../helpers/raw-client.js';
import { LinkProxy } from './proxy.js';

export type ChaosTarget = 'tkafka' | 'kafka';

const CONTROLLER_ID = 1;
export const BROKER_IDS = [2, 3, 4] as const;

export interface PartitionState {
  topic: string;
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

export interface ChaosCluster {
  readonly target: ChaosTarget;
  readonly cluster: Cluster;
  readonly brokerIds: readonly number[];
  /** Client bootstrap through the client proxies. */
  clientBootstrap(): string;
  /** Broker b's CLIENT listener itself (the harness's own probes never go through a proxy). */
  clientPort(b: number): number;
  /** Cuts broker b from everything: clients, the controller, the other brokers. */
  isolate(b: number): void;
  /** Cuts broker b from the controller and the other brokers; clients still reach it (a zombie leader). */
  zombie(b: number): void;
  /** Restores every link of broker b. */
  heal(b: number): void;
  /** Partition states of `topics` as broker b's metadata answers (null: no answer). */
  describe(b: number, topics: readonly string[]): Promise<PartitionState[] | null>;
  close(): Promise<void>;
}

export interface ChaosClusterOptions {
  target: ChaosTarget;
  /** Extra server.properties for every broker. */
  brokerOverrides?: Record<string, string | number | boolean>;
}

/** Broker settings of the chaos layout: RF=3 everywhere, min.insync.replicas=2, no unclean election. */
const BROKER_DEFAULTS: Record<string, string | number | boolean> = {
  'default.replication.factor': 3,
  'min.insync.replicas': 2,
  'unclean.leader.election.enable': false,
  'offsets.topic.replication.factor': 3,
  'offsets.topic.num.partitions': 3,
  'transaction.state.log.replication.factor': 3,
  'transaction.state.log.min.isr': 2,
  'transaction.state.log.num.partitions': 3,
  'replica.lag.time.max.ms': 10_000,
  'auto.create.topics.enable': false,
};

/**
 * Starts the chaos layout; a node that could not bind one of its fixed ports (taken by something
 * else between picking and binding) sends the whole layout round again with fresh ports and proxies.
 */
export async function startChaosCluster(opts: ChaosClusterOptions): Promise<ChaosCluster> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startChaosClusterOnce(opts);
    } catch (e) {
      if (attempt === 3 || !/could not bind a port/.test((e as Error).message)) throw e;
    }
  }
}

async function startChaosClusterOnce(opts: ChaosClusterOptions): Promise<ChaosCluster> {
  const launcher: NodeLauncher = opts.target === 'kafka' ? kafkaLauncher({ heap: '320m' }) : tkafkaLauncher;
  const controllerPorts = new Map<number, number>(); // the controller's listener C<b>
  const clientPorts = new Map<number, number>();
  const replPorts = new Map<string, number>(); // `${j}>${b}`: b's listener R<j>
  for (const b of BROKER_IDS) {
    controllerPorts.set(b, await pickPort());
    clientPorts.set(b, await pickPort());
    for (const j of BROKER_IDS) replPorts.set(`${j}>${b}`, await pickPort());
  }
  const proxies: LinkProxy[] = [];
  const proxy = async (name: string, target: number): Promise<LinkProxy> => {
    const p = new LinkProxy(name, () => target);
    await p.start();
    proxies.push(p);
    return p;
  };
  const client = new Map<number, LinkProxy>();
  const controller = new Map<number, LinkProxy>();
  const link = new Map<string, LinkProxy>(); // `${j}>${b}`
  try {
    for (const b of BROKER_IDS) {
      client.set(b, await proxy(`client>${b}`, clientPorts.get(b)!));
      controller.set(b, await proxy(`${b}>controller`, controllerPorts.get(b)!));
      for (const j of BROKER_IDS)
        if (j !== b) link.set(`${j}>${b}`, await proxy(`${j}>${b}`, replPorts.get(`${j}>${b}`)!));
    }
  } catch (e) {
    await Promise.all(proxies.map((p) => p.close()));
    throw e;
  }

  const protocolMap = ['CLIENT', ...BROKER_IDS.flatMap((j) => [`C${j}`, `R${j}`])]
    .map((n) => `${n}:PLAINTEXT`)
    .join(',');
  const nodes: NodeSpec[] = [
    {
      id: CONTROLLER_ID,
      roles: 'controller',
      overrides: {
        listeners: BROKER_IDS.map((b) => `C${b}://127.0.0.1:${controllerPorts.get(b)}`).join(','),
        'advertised.listeners': BROKER_IDS.map((b) => `C${b}://127.0.0.1:${controller.get(b)!.port}`).join(','),
        'controller.listener.names': BROKER_IDS.map((b) => `C${b}`).join(','),
        'listener.security.protocol.map': protocolMap,
        'controller.quorum.voters': `${CONTROLLER_ID}@127.0.0.1:${controllerPorts.get(BROKER_IDS[0])}`,
      },
    },
    ...BROKER_IDS.map((b): NodeSpec => ({
      id: b,
      roles: 'broker',
      overrides: {
        listeners: [
          `CLIENT://127.0.0.1:${clientPorts.get(b)}`,
          ...BROKER_IDS.map((j) => `R${j}://127.0.0.1:${replPorts.get(`${j}>${b}`)}`),
        ].join(','),
        'advertised.listeners': [
          `CLIENT://127.0.0.1:${client.get(b)!.port}`,
          ...BROKER_IDS.map(
            (j) => `R${j}://127.0.0.1:${j === b ? replPorts.get(`${j}>${b}`) : link.get(`${j}>${b}`)!.port}`,
          ),
        ].join(','),
        'listener.security.protocol.map': protocolMap,
        'inter.broker.listener.name': `R${b}`,
        'controller.listener.names': `C${b}`,
        'controller.quorum.voters': `${CONTROLLER_ID}@127.0.0.1:${controller.get(b)!.port}`,
      },
    })),
  ];
  let cluster: Cluster;
  try {
    cluster = await startCluster({
      nodes,
      launcher,
      quorum: 'static',
      brokerOverrides: { ...BROKER_DEFAULTS, ...opts.brokerOverrides },
      startTimeoutMs: 180_000,
    });
  } catch (e) {
    await Promise.all(proxies.map((p) => p.close()));
    throw e;
  }

  const linksOf = (b: number): LinkProxy[] =>
    [...link.entries()].filter(([k]) => k.split('>').includes(String(b))).map(([, p]) => p);
  return {
    target: opts.target,
    cluster,
    brokerIds: BROKER_IDS,
    clientBootstrap: () => BROKER_IDS.map((b) => `127.0.0.1:${client.get(b)!.port}`).join(','),
    clientPort: (b) => clientPorts.get(b)!,
    isolate(b) {
      for (const p of [client.get(b)!, controller.get(b)!, ...linksOf(b)]) p.block();
    },
    zombie(b) {
      for (const p of [controller.get(b)!, ...linksOf(b)]) p.block();
    },
    heal(b) {
      for (const p of [client.get(b)!, controller.get(b)!, ...linksOf(b)]) p.heal();
    },
    describe: (b, topics) => describePartitions(clientPorts.get(b)!, topics),
    async close() {
      try {
        await cluster.cleanup();
      } finally {
        await Promise.all(proxies.map((p) => p.close()));
      }
    },
  };
}

/** Metadata (v12) of `topics` from one broker, bounded in time; null when it does not answer. */
export async function describePartitions(port: number, topics: readonly string[]): Promise<PartitionState[] | null> {
  let client: RawClient | null = null;
  const timeout = new Promise<null>((r) => setTimeout(() => r(null), 3000).unref());
  try {
    const attempt = (async (): Promise<PartitionState[] | null> => {
      client = await RawClient.connect(port);
      const md = await client.request(ApiKey.Metadata, 12, {
        topics: topics.map((name) => ({ name, topicId: ZERO_UUID })),
        allowAutoTopicCreation: false,
        includeTopicAuthorizedOperations: false,
      });
      const out: PartitionState[] = [];
      for (const t of md.topics) {
        if (t.errorCode !== 0 || t.name === null) return null;
        for (const p of t.partitions)
          out.push({
            topic: t.name,
            partition: p.partitionIndex,
            leader: p.leaderId,
            replicas: p.replicaNodes,
            isr: p.isrNodes,
          });
      }
      return out;
    })().catch(() => null);
    return await Promise.race([attempt, timeout]);
  } finally {
    (client as RawClient | null)?.close();
  }
}
