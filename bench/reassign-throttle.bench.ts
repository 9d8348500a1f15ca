// Replication throttle: a 20 MB partition moved from broker 2 to broker 3 by
// `reassign-partitions --execute --throttle 1000000` (the repo's tool, run in this process against
// the cluster) on one controller + three brokers, tkafka and optionally Apache Kafka 4.4.0 on this
// machine; default broker configs (replica.fetch.max.bytes 1 MiB). Prints how long the move took,
// the bytes moved over that time, and the most the new replica's log grew in any one second.
//   npm run build && node dist/bench/reassign-throttle.bench.js [--mb 20] [--throttle 1000000] [--only tkafka|kafka]
import { startCluster, tkafkaLauncher, waitForUnfenced, type NodeLauncher } from '../test/helpers/cluster.js';
import { fillPartition, moveReplica, type MoveResult } from '../test/helpers/throttle-scenario.js';
import { kafkaLauncher, shape } from '../test/interop/helpers/kafka-cluster.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const MB = Number(arg('--mb', '20'));
const THROTTLE = Number(arg('--throttle', '1000000'));
const ONLY = arg('--only', 'tkafka');

async function runOnce(impl: string, launcher: NodeLauncher): Promise<MoveResult> {
  const cluster = await startCluster({
    nodes: shape({ controllers: 1, brokers: 3 }),
    launcher,
    overrides: { 'auto.leader.rebalance.enable': false },
    startTimeoutMs: 300_000,
  });
  try {
    await waitForUnfenced(cluster, { ids: [2, 3, 4] });
    await fillPartition(cluster, 'throttled', 2, MB * 1_000_000);
    return await moveReplica(cluster, 'throttled', cluster.node(3), THROTTLE, 600_000);
  } catch (e) {
    throw new Error(`${impl}: ${(e as Error).message}\n${cluster.logs(3000)}`, { cause: e });
  } finally {
    await cluster.cleanup();
  }
}

async function main(): Promise<void> {
  console.log(`${MB} MB in partition 0 moved from broker 2 to broker 3 with --throttle ${THROTTLE} (B/s)`);
  console.log('| implementation | duration s | bytes moved | average B/s | peak B/s in 1 s |');
  console.log('|---|---|---|---|---|');
  const impls: Array<[string, NodeLauncher]> = [
    ['tkafka', tkafkaLauncher],
    ['kafka', kafkaLauncher({ heap: '1g' })],
  ];
  for (const [impl, launcher] of impls) {
    if (ONLY !== 'all' && impl !== ONLY) continue;
    const r = await runOnce(impl, launcher);
    console.log(
      `| ${impl} | ${(r.durationMs / 1000).toFixed(1)} | ${r.bytes} | ${Math.round((r.bytes * 1000) / r.durationMs)} | ${r.peakBytesPerSec} |`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
