// A failed log dir in a replicated cluster (KIP-858) on Apache Kafka 4.4.0 and on tkafka: the same
// scenario (test/helpers/offline-dir-cluster-scenario.ts: controller + 3 brokers, broker 2's second
// log dir on a real 24 MiB loop-mounted ext4 that fills up), the same expectations: Kafka's
// controller line "Directories [<id>] in broker 2 marked offline, remaining directories: [<id>]",
// the full dir's partition led by broker 3 or 4 with ISR [3, 4], the partition in broker 2's other
// dir still led by 2 with ISR [2, 3, 4], DescribeLogDirs 56 / 0. Both outcomes are printed and
// compared. Needs root (mount).
//
//   npm run build && nice -n 19 node --test dist/test/interop/log-dir-failure-cluster-kafka.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tkafkaLauncher } from '../helpers/cluster.js';
import { offlineDirClusterScenario, type OfflineDirOutcome } from '../helpers/offline-dir-cluster-scenario.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';

let kafka: OfflineDirOutcome | undefined;

test("Apache Kafka 4.4.0: the controller moves a failed dir's partitions off the broker", async (t) => {
  kafka = await offlineDirClusterScenario(kafkaLauncher(), { startTimeoutMs: 300_000 });
  t.diagnostic(`kafka: ${JSON.stringify(kafka)}`);
});

test("tkafka: the controller moves a failed dir's partitions off the broker, as Kafka 4.4.0's", async (t) => {
  const tk = await offlineDirClusterScenario(tkafkaLauncher);
  t.diagnostic(`tkafka: ${JSON.stringify(tk)}`);
  if (kafka) {
    assert.equal(tk.firstError, kafka.firstError);
    assert.equal(tk.controllerLine, kafka.controllerLine);
    assert.deepEqual(tk.moved.isr, kafka.moved.isr);
    assert.deepEqual(tk.kept, kafka.kept);
    assert.equal(tk.fullDirError, kafka.fullDirError);
    assert.equal(tk.otherDirError, kafka.otherDirError);
  }
});
