// Transactions across a mixed cluster (issue 15, item 4): two tkafka brokers and an Apache Kafka 4.4.0
// broker on a Kafka 4.4.0 controller (formatted with the features tkafka does not implement at 0, as
// cluster-mixed.test.ts explains). Single-replica partitions of the transaction's topic are led by
// every broker, Kafka's among them, and the transaction coordinators are on every broker: tkafka's
// coordinators send markers to Kafka's broker and verify with it, Kafka's send markers to tkafka's
// brokers and verify with them. Real clients as in test/txn-cluster.test.ts.
//
//   npm run build && node --test dist/test/interop/txn-mixed.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startCluster, tkafkaLauncher, waitForLeader, waitForUnfenced, type Cluster } from '../helpers/cluster.js';
import {
  confluentAcrossBrokers,
  interBrokerRequests,
  javaScenario,
  PYTHON,
  TXN_BROKER_OVERRIDES,
} from '../helpers/txn-cluster-scenario.js';
import { kafkaLauncher, UNIMPLEMENTED_FEATURES_AT_ZERO as UNIMPLEMENTED_AT_ZERO } from './helpers/kafka-cluster.js';

test('transactions across tkafka brokers and an Apache Kafka 4.4.0 broker', async (t) => {
  if (!existsSync(PYTHON)) {
    t.skip('the client matrix is not set up (bash test/clients/setup.sh): no confluent-kafka');
    return;
  }
  const kafka = kafkaLauncher();
  let cluster: Cluster | null = null;
  try {
    cluster = await startCluster({
      nodes: [
        { id: 1, roles: 'controller', launcher: kafka, formatArgs: UNIMPLEMENTED_AT_ZERO },
        { id: 2, roles: 'broker', overrides: { 'tkafka.request.log': true } },
        { id: 3, roles: 'broker', overrides: { 'tkafka.request.log': true } },
        { id: 4, roles: 'broker', launcher: kafka },
      ],
      quorum: 'static',
      launcher: tkafkaLauncher,
      brokerOverrides: TXN_BROKER_OVERRIDES,
      startTimeoutMs: 300_000,
    });
    await waitForLeader(cluster);
    await waitForUnfenced(cluster, { timeoutMs: 120_000 });
    const r = await confluentAcrossBrokers(cluster, `txnm-${process.pid}`);
    t.diagnostic(`confluent-kafka: ${r.reports.join('; ')}`);
    t.diagnostic(`coordinators: ${[...r.txnCoordinators].map(([id, b]) => `${id}@${b}`).join(', ')}`);
    // senders are named as Kafka names them (broker-<id>-txn-marker-sender): told apart by the broker id
    const fromTkafka = interBrokerRequests(cluster, 'WriteTxnMarkers', 'broker-[23]-[^ ]*');
    const fromKafka = interBrokerRequests(cluster, 'WriteTxnMarkers', 'broker-4-[^ ]*');
    const verifications = interBrokerRequests(cluster, 'AddPartitionsToTxn', 'broker-[234]-[^ ]*');
    t.diagnostic(`WriteTxnMarkers at tkafka brokers from tkafka: ${JSON.stringify([...fromTkafka])}`);
    t.diagnostic(`WriteTxnMarkers at tkafka brokers from Kafka: ${JSON.stringify([...fromKafka])}`);
    t.diagnostic(`AddPartitionsToTxn at tkafka brokers from brokers: ${JSON.stringify([...verifications])}`);
    // each broker coordinates one of the transactional ids, whose markers reach every broker: a tkafka
    // broker receives them from the other tkafka broker and from Kafka's
    for (const [b, n] of fromTkafka) {
      assert.ok(n > 0, `broker ${b} received no WriteTxnMarkers from the other tkafka broker`);
      assert.ok((fromKafka.get(b) ?? 0) > 0, `broker ${b} received no WriteTxnMarkers from Kafka's broker`);
    }
    for (const scenario of ['transactions', 'txn-v2']) {
      const s = Date.now();
      const out = await javaScenario(cluster, scenario);
      t.diagnostic(`java ${scenario}: ${out.split('\n').slice(-1)[0] ?? ''} (${Date.now() - s} ms)`);
    }
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${cluster?.logs(3000) ?? ''}`, { cause: e });
  } finally {
    await cluster?.cleanup();
  }
});
