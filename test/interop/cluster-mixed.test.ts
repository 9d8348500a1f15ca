// Issue 14's mixed clusters, both ways. Apache Kafka 4.4.0 brokers (and one tkafka broker) on a quorum
// of three tkafka controllers, then tkafka brokers (and one Kafka broker) on a quorum of three Kafka
// controllers; in each, topics created through either side's tools are on every broker with the same
// ids, and Kafka's clients produce and consume through every broker (single-replica partitions until
// issue 15).
//
// Each side is formatted as an operator would: Kafka's brokers with a plain `kafka-storage.sh format
// -t <id> -c <file>`; Kafka's controllers with UNIMPLEMENTED_FEATURES_AT_ZERO (config/features.ts
// UNIMPLEMENTED_FEATURES, empty now that streams.version is implemented): eligible.leader.replicas.version,
// share.version and streams.version stay at Kafka's defaults (1, 2 and 1): tkafka implements them.
//
//   npm run build && node --test dist/test/interop/cluster-mixed.test.js
import test from 'node:test';
import { execa } from 'execa';
import { startCluster, tkafkaLauncher, waitForLeader, type Cluster, type NodeLauncher } from '../helpers/cluster.js';
import { REPO_ROOT } from '../helpers/spec-models.js';
import { runKafkaTool } from './helpers/apache-kafka.js';
import { clientsScenario } from './helpers/cluster-scenarios.js';
import { kafkaLauncher, UNIMPLEMENTED_FEATURES_AT_ZERO as UNIMPLEMENTED_AT_ZERO } from './helpers/kafka-cluster.js';

/** What a Kafka 4.4 controller quorum that tkafka brokers join is formatted with, besides -t and -c. */

const tkafka = async (args: string[]) => {
  const r = await execa('node', ['bin/tkafka', ...args], { cwd: REPO_ROOT, reject: false, timeout: 120_000 });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
};

async function mixed(controllers: NodeLauncher, brokers: NodeLauncher, other: NodeLauncher, prefix: string) {
  let cluster: Cluster | null = null;
  const formatArgs = controllers.impl === 'kafka' ? UNIMPLEMENTED_AT_ZERO : [];
  try {
    cluster = await startCluster({
      nodes: [
        { id: 1, roles: 'controller', launcher: controllers, formatArgs },
        { id: 2, roles: 'controller', launcher: controllers, formatArgs },
        { id: 3, roles: 'controller', launcher: controllers, formatArgs },
        { id: 4, roles: 'broker', launcher: brokers },
        { id: 5, roles: 'broker', launcher: brokers },
        { id: 6, roles: 'broker', launcher: other },
      ],
      quorum: 'static',
      launcher: controllers,
      startTimeoutMs: 420_000,
    });
    await waitForLeader(cluster);
    await clientsScenario(cluster, prefix, {
      kafka: (main, args, input) => runKafkaTool(main, args, { input }),
      tkafka,
    });
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${cluster?.logs(3000) ?? ''}`, { cause: e });
  } finally {
    await cluster?.cleanup();
  }
}

test('Apache Kafka brokers join a tkafka controller quorum', async () => {
  await mixed(tkafkaLauncher, kafkaLauncher(), tkafkaLauncher, 'kafka-on-tkafka');
});

test('tkafka brokers join an Apache Kafka controller quorum', async () => {
  await mixed(kafkaLauncher(), tkafkaLauncher, kafkaLauncher(), 'tkafka-on-kafka');
});
