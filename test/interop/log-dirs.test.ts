// The log-dir move scenario of test/log-dirs-cluster.test.ts (test/helpers/log-dirs-scenario.ts) on
// Apache Kafka 4.4.0: one controller-only node and broker 2 with two log.dirs. The same tool output,
// the same AlterReplicaLogDirs errors, the same DescribeLogDirs answers as tkafka's.
//
//   npm run build && nice -n 19 node --test dist/test/interop/log-dirs.test.js
import { test, before, after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCluster, type Cluster } from '../helpers/cluster.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';
import {
  alterLogDirErrors,
  LOG_DIRS_BROKER_OVERRIDES,
  logDirsNodes,
  moveWhileProducing,
  prepareLogDirs,
  throttledMove,
} from '../helpers/log-dirs-scenario.js';

let cluster: Cluster;
let dir: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tkafka-log-dirs-'));
  cluster = await startCluster({
    launcher: kafkaLauncher(),
    nodes: logDirsNodes(),
    brokerOverrides: LOG_DIRS_BROKER_OVERRIDES,
    startTimeoutMs: 300_000,
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
