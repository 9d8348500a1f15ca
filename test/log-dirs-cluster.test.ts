// Moving a replica between the log dirs of one broker (KIP-113) on a real tkafka cluster: one
// controller-only node and one broker with two log.dirs (test/helpers/log-dirs-scenario.ts). The same
// scenario on Apache Kafka 4.4.0: test/interop/log-dirs.test.ts.
//
//   npm run build && nice -n 19 node --test dist/test/log-dirs-cluster.test.js
import { test, before, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, tkafkaLauncher, type Cluster } from './helpers/cluster.js';
import {
  alterLogDirErrors,
  LOG_DIRS_BROKER_OVERRIDES,
  logDirsNodes,
  moveWhileProducing,
  prepareLogDirs,
  throttledMove,
} from './helpers/log-dirs-scenario.js';

let cluster: Cluster;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-log-dirs-'));
  cluster = await startCluster({
    launcher: tkafkaLauncher,
    nodes: logDirsNodes(),
    brokerOverrides: LOG_DIRS_BROKER_OVERRIDES,
  });
  await prepareLogDirs(cluster);
});

after(async () => {
  await cluster?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a partition moves to the other log dir while a producer writes; nothing lost or doubled; it stays after a restart', async (t) => {
  t.diagnostic(await moveWhileProducing(cluster, dir));
});

test('AlterReplicaLogDirs per partition: LOG_DIR_NOT_FOUND, UNKNOWN_TOPIC_OR_PARTITION, NONE when already there', async () => {
  await alterLogDirErrors(cluster);
});

test('--replica-alter-log-dirs-throttle holds a move to the rate (a lower bound), then --verify clears it', async (t) => {
  t.diagnostic(`3 MB moved between log dirs at 300,000 B/s in ${await throttledMove(cluster, dir)} ms`);
});
