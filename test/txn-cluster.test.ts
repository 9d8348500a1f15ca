// Transactions across three tkafka brokers (issue 15, item 4): single-replica topics led by every
// broker, transaction coordinators and a group coordinator on different brokers. Markers reach
// partitions led elsewhere as WriteTxnMarkers, and a Produce's (or TxnOffsetCommit's) verification
// asks the coordinator on another broker with AddPartitionsToTxn; the brokers' request logs show both
// came from the other brokers' transaction senders. Real clients: confluent-kafka (transactions V1)
// and kafka-clients 4.4.0 (V2: `transactions` and `txn-v2` of the client matrix).
//
//   npm run build && node --test dist/test/txn-cluster.test.js
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startCluster, tkafkaLauncher, waitForLeader, waitForUnfenced, type Cluster } from './helpers/cluster.js';
import {
  confluentAcrossBrokers,
  interBrokerRequests,
  javaScenario,
  PYTHON,
  TXN_BROKER_OVERRIDES,
} from './helpers/txn-cluster-scenario.js';

test('transactions across three tkafka brokers: markers and verification between brokers', async (t) => {
  if (!existsSync(PYTHON)) {
    t.skip('the client matrix is not set up (bash test/clients/setup.sh): no confluent-kafka');
    return;
  }
  let cluster: Cluster | null = null;
  try {
    cluster = await startCluster({
      nodes: [
        { id: 1, roles: 'controller' },
        { id: 2, roles: 'broker' },
        { id: 3, roles: 'broker' },
        { id: 4, roles: 'broker' },
      ],
      quorum: 'static',
      launcher: tkafkaLauncher,
      brokerOverrides: { ...TXN_BROKER_OVERRIDES, 'tkafka.request.log': true },
    });
    await waitForLeader(cluster);
    await waitForUnfenced(cluster);
    const started = Date.now();
    const r = await confluentAcrossBrokers(cluster, `txnc-${process.pid}`);
    t.diagnostic(`confluent-kafka: ${r.reports.join('; ')} (${Date.now() - started} ms with setup)`);
    t.diagnostic(`coordinators: ${[...r.txnCoordinators].map(([id, b]) => `${id}@${b}`).join(', ')}`);
    const markers = interBrokerRequests(cluster, 'WriteTxnMarkers');
    const verifications = interBrokerRequests(cluster, 'AddPartitionsToTxn');
    t.diagnostic(`inter-broker WriteTxnMarkers received per broker: ${JSON.stringify([...markers])}`);
    t.diagnostic(`inter-broker AddPartitionsToTxn received per broker: ${JSON.stringify([...verifications])}`);
    for (const [b, n] of markers) assert.ok(n > 0, `broker ${b} received no WriteTxnMarkers from another broker`);
    for (const [b, n] of verifications)
      assert.ok(n > 0, `broker ${b} received no AddPartitionsToTxn from another broker`);

    // coordinators follow leadership: broker 3 stops (its partitions lose their leader, its shards
    // unload) and comes back (elected again with a new leader epoch, its shards load); transactions
    // coordinated there and markers to its partitions work again
    await cluster.node(3).stop();
    await cluster.node(3).start();
    await waitForUnfenced(cluster);
    const again = await confluentAcrossBrokers(cluster, `txnr-${process.pid}`);
    t.diagnostic(`confluent-kafka after broker 3 restarted: ${again.reports.join('; ')}`);

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
