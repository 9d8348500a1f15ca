// A log dir on a file system that fills up (a real loop-mounted 24 MiB ext4, ENOSPC), on Apache
// Kafka 4.4.0 and on tkafka: the same scenario (test/helpers/full-log-dir-scenario.ts), the same
// expectations (the failing produce answers KAFKA_STORAGE_ERROR, the other dir keeps serving,
// DescribeLogDirs answers KAFKA_STORAGE_ERROR for the full dir, the next produces answer the same);
// both outcomes are printed. Measured: Kafka 4.4.0 {firstError 56, later 56 x5, full dir 56, other 0},
// tkafka the same. Needs root (mount).
//
//   npm run build && nice -n 19 node --test dist/test/interop/log-dir-failure-kafka.test.js
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tkafkaLauncher } from '../helpers/cluster.js';
import { fullLogDirScenario, type FullDirOutcome } from '../helpers/full-log-dir-scenario.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';
import { ErrorCode } from '../../src/protocol/errors.js';

let kafka: FullDirOutcome | undefined;

test('Apache Kafka 4.4.0: a full log dir goes offline', async (t) => {
  kafka = await fullLogDirScenario(kafkaLauncher(), { startTimeoutMs: 300_000 });
  t.diagnostic(`kafka: ${JSON.stringify(kafka)}`);
});

test('tkafka: a full log dir goes offline, as on Kafka 4.4.0', async (t) => {
  const tk = await fullLogDirScenario(tkafkaLauncher);
  t.diagnostic(`tkafka: ${JSON.stringify(tk)}`);
  if (kafka) {
    assert.equal(tk.firstError, kafka.firstError);
    assert.equal(tk.fullDirError, kafka.fullDirError);
    assert.equal(tk.otherDirError, kafka.otherDirError);
    assert.deepEqual(tk.later, kafka.later);
  }
  // after the failure the partition keeps answering KAFKA_STORAGE_ERROR (Kafka 4.4.0 too: one replica,
  // no other leader to elect)
  for (const c of tk.later) assert.equal(c, ErrorCode.KAFKA_STORAGE_ERROR);
});
