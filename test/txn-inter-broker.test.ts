// The inter-broker side of transactions against a real tkafka broker process: the
// TransactionMarkerChannelManager (txn/marker-channel.ts) and the AddPartitionsToTxnManager
// (txn/add-partitions-manager.ts) of a coordinator on "another broker" (this test process) send
// WriteTxnMarkers v1 and AddPartitionsToTxn v5 to the broker over its inter-broker listener, the
// endpoint read from a metadata image naming it. Checked: one request per destination for the
// markers of one turn of the event loop, a second transaction of the same producer in the next
// request (the response is keyed by producer id), per-partition answers (UNKNOWN_TOPIC_OR_PARTITION
// for a partition the broker does not have), NETWORK_EXCEPTION when the destination cannot be
// reached; verifyOnly answers translated as Kafka's AddPartitionsToTxnManager translates them,
// TV2 adds batched per coordinator. The multi-broker runs are test/txn-cluster.test.ts.
//
//   npm run build && node --test dist/test/txn-inter-broker.test.js
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { buildRecordBatch } from '../src/protocol/records/batch.js';
import { MetadataImage, type BrokerRegistration } from '../src/broker/metadata/image.js';
import { InterBrokerChannel } from '../src/broker/txn/inter-broker-channel.js';
import { TxnMarkerChannel } from '../src/broker/txn/marker-channel.js';
import { AddPartitionsToTxnManager } from '../src/broker/txn/add-partitions-manager.js';
import { tpKey } from '../src/broker/txn/txn-metadata.js';
import { startBroker, unusedPort } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';

const K0 = tpKey('ib', 0);
const K1 = tpKey('ib', 1);

function registration(id: number, port: number): BrokerRegistration {
  return {
    id,
    epoch: 1n,
    incarnationId: 'AAAAAAAAAAAAAAAAAAAAAA',
    endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port, securityProtocol: 0 }],
    supportedFeatures: new Map(),
    rack: null,
    fenced: false,
    inControlledShutdown: false,
    isMigratingZkBroker: false,
    directories: [],
  };
}

async function lso(c: RawClient, topic: string, partition: number): Promise<bigint> {
  const r = await c.request(ApiKey.ListOffsets, 7, {
    replicaId: -1,
    isolationLevel: 1,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }] }],
  });
  return r.topics[0].partitions[0].offset as bigint;
}

test('WriteTxnMarkers and AddPartitionsToTxn from a coordinator on another broker', async () => {
  const b = await startBroker({
    overrides: {
      'transaction.state.log.num.partitions': 1,
      'transaction.state.log.replication.factor': 1,
      'transaction.state.log.min.isr': 1,
    },
  });
  const logs: string[] = [];
  const deadPort = await unusedPort();
  const channel = new InterBrokerChannel({
    nodeId: 9,
    image: () =>
      MetadataImage.empty().with({
        brokers: new Map([
          [1, registration(1, b.port)],
          [2, registration(2, deadPort)],
        ]),
      }),
    listenerName: 'PLAINTEXT',
    requestTimeoutMs: 10_000,
    clientId: 'broker-9-txn-marker-sender',
  });
  let c: RawClient | undefined;
  try {
    c = await RawClient.connect(b.port);
    const client = c;
    const topic = 'ib';
    const created = await client.request(ApiKey.CreateTopics, 7, {
      topics: [{ name: topic, numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    assert.equal(created.topics[0].errorCode, 0);
    const txnId = 'ib-txn';
    await waitFor(
      async () =>
        (await client.request(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: [txnId] })).coordinators[0]
          .errorCode === 0,
      { what: 'the transaction coordinator' },
    );
    const init = await client.request(ApiKey.InitProducerId, 5, {
      transactionalId: txnId,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    assert.equal(init.errorCode, 0);
    const pid = Number(init.producerId);
    const epoch = init.producerEpoch;

    // verification of partitions not in the transaction: TRANSACTION_ABORTABLE (v5), INVALID_TXN_STATE for defaultError
    const adds = new AddPartitionsToTxnManager(channel, (l, m) => logs.push(`${l} ${m}`));
    const generic = await adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K0], 'genericErrorSupported');
    assert.deepEqual([...generic], [[K0, ErrorCode.TRANSACTION_ABORTABLE]]);
    const dflt = await adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K0], 'defaultError');
    assert.deepEqual([...dflt], [[K0, ErrorCode.INVALID_TXN_STATE]]);
    // another epoch than the coordinator's: PRODUCER_FENCED, translated to INVALID_PRODUCER_EPOCH for the produce path
    const fenced = await adds.addOrVerifyTransaction(1, txnId, pid, epoch + 1, [K0], 'genericErrorSupported');
    assert.deepEqual([...fenced], [[K0, ErrorCode.INVALID_PRODUCER_EPOCH]]);
    // TV2: both partitions of one turn added in one request
    const before = adds.requestsSent;
    const [a0, a1] = await Promise.all([
      adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K0], 'addPartition'),
      adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K1], 'addPartition'),
    ]);
    assert.deepEqual([a0.get(K0), a1.get(K1), adds.requestsSent - before], [0, 0, 1]);
    const verified = await adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K0, K1], 'defaultError');
    assert.deepEqual([...verified.values()], [0, 0]);
    // two entries of one transactional id before the request leaves (addTxnData): the older epoch loses
    const [older, newer] = await Promise.all([
      adds.addOrVerifyTransaction(1, txnId, pid, epoch - 1, [K0], 'defaultError'),
      adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K1], 'defaultError'),
    ]);
    assert.deepEqual([older.get(K0), newer.get(K1)], [ErrorCode.INVALID_PRODUCER_EPOCH, ErrorCode.NONE]);
    const [newer2, older2] = await Promise.all([
      adds.addOrVerifyTransaction(1, txnId, pid, epoch, [K1], 'defaultError'),
      adds.addOrVerifyTransaction(1, txnId, pid, epoch - 1, [K0], 'defaultError'),
    ]);
    assert.deepEqual([newer2.get(K1), older2.get(K0)], [ErrorCode.NONE, ErrorCode.INVALID_PRODUCER_EPOCH]);
    // the coordinator cannot be reached
    const down = await adds.addOrVerifyTransaction(2, txnId, pid, epoch, [K0], 'defaultError');
    assert.deepEqual([...down.values()], [ErrorCode.NETWORK_EXCEPTION]);

    // transactional records in both partitions, then COMMIT markers from "the coordinator"
    for (const partition of [0, 1]) {
      const batch = await buildRecordBatch({
        producerId: BigInt(pid),
        producerEpoch: epoch,
        baseSequence: 0,
        transactional: true,
        records: [{ key: Buffer.from('k'), value: Buffer.from(`v${partition}`), timestamp: Date.now() }],
      });
      const r = await client.request(ApiKey.Produce, 12, {
        transactionalId: txnId,
        acks: -1,
        timeoutMs: 10_000,
        topicData: [
          { name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: [{ index: partition, records: batch }] },
        ],
      });
      assert.equal(r.responses[0].partitionResponses[0].errorCode, 0);
    }
    assert.deepEqual([await lso(client, topic, 0), await lso(client, topic, 1)], [0n, 0n]);

    const markers = new TxnMarkerChannel(channel, (l, m) => logs.push(`${l} ${m}`));
    const m = { producerId: pid, producerEpoch: epoch, coordinatorEpoch: 0, commit: true };
    const codes = await Promise.all([
      markers.write(1, { ...m, topic, partition: 0 }),
      markers.write(1, { ...m, topic, partition: 1 }),
      markers.write(1, { ...m, topic, partition: 7 }),
    ]);
    assert.deepEqual(codes, [ErrorCode.NONE, ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    assert.equal(markers.requestsSent, 1, 'one WriteTxnMarkers request for the three partitions');
    assert.deepEqual([await lso(client, topic, 0), await lso(client, topic, 1)], [2n, 2n]);

    // two transactions of one producer in one turn: two requests (answers are keyed by producer id)
    const again = await Promise.all([
      markers.write(1, { ...m, producerEpoch: epoch + 1, topic, partition: 0 }),
      markers.write(1, { ...m, producerEpoch: epoch + 2, topic, partition: 0 }),
    ]);
    assert.deepEqual(again, [ErrorCode.NONE, ErrorCode.NONE]);
    assert.equal(markers.requestsSent, 3);
    // a stale epoch is refused by the partition (the coordinator drops such a marker)
    const stale = await markers.write(1, { ...m, producerEpoch: epoch, topic, partition: 0 });
    assert.equal(stale, ErrorCode.INVALID_PRODUCER_EPOCH);
    // a destination that cannot be reached
    assert.equal(await markers.write(2, { ...m, topic, partition: 0 }), ErrorCode.NETWORK_EXCEPTION);
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${logs.join('\n')}\n${b.output().slice(-3000)}`, { cause: e });
  } finally {
    channel.close();
    c?.close();
    await b.stop();
    b.cleanup();
  }
});
