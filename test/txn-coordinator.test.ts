// The transaction coordinator at the protocol level, against a broker process: producer ids from
// the controller (never repeated across restarts), the transactional flow (InitProducerId,
// AddPartitionsToTxn, transactional Produce, EndTxn) with the LSO, READ_COMMITTED fetches and
// ListOffsets, Kafka's error codes, fencing, timeouts that abort, WriteTxnMarkers, TxnOffsetCommit,
// DescribeTransactions / ListTransactions / DescribeProducers, and recovery after kill -9.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/frame.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { buildRecordBatchSync, iterateBatches, readBatchHeader } from '../src/protocol/records/batch.js';
import { RawClient } from './helpers/raw-client.js';
import { startBroker as startTxnBroker } from './helpers/broker-process.js';
import type { BrokerProcess } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';

let broker: BrokerProcess;
let c: RawClient;

const OVERRIDES = {
  'offsets.topic.num.partitions': 2,
  'transaction.state.log.num.partitions': 2,
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': 200,
};

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const found = await waitFor(
    async () => {
      const v = await fn();
      return v === undefined ? undefined : { v };
    },
    { what, timeoutMs: ms },
  );
  return found.v;
}

async function createTopic(name: string, partitions: number): Promise<void> {
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(r.topics[0].errorCode, 0);
  await until(`${name} leaders`, async () => {
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
      allowAutoTopicCreation: false,
    });
    return md.topics[0]?.partitions?.length === partitions &&
      md.topics[0].partitions.every((p: { leaderId: number }) => p.leaderId >= 0)
      ? true
      : undefined;
  });
}

/** InitProducerId for a transactional id, retrying while the coordinator loads. */
async function initTxn(
  id: string,
  timeoutMs = 60_000,
  version = 4,
  expected?: { producerId: bigint; producerEpoch: number },
): Promise<{ producerId: bigint; producerEpoch: number; errorCode: number }> {
  await until('transaction coordinator', async () => {
    const r = await c.request(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: [id] });
    return r.coordinators[0].errorCode === 0 ? true : undefined;
  });
  return until('InitProducerId', async () => {
    const r = await c.request(ApiKey.InitProducerId, version, {
      transactionalId: id,
      transactionTimeoutMs: timeoutMs,
      producerId: expected?.producerId ?? -1n,
      producerEpoch: expected?.producerEpoch ?? -1,
    });
    return r.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ||
      r.errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE ||
      r.errorCode === ErrorCode.NOT_COORDINATOR
      ? undefined
      : r;
  });
}

const addPartitions = (
  id: string,
  pid: bigint,
  epoch: number,
  topics: { name: string; partitions: number[] }[],
  version = 3,
) =>
  c.request(ApiKey.AddPartitionsToTxn, version, {
    v3AndBelowTransactionalId: id,
    v3AndBelowProducerId: pid,
    v3AndBelowProducerEpoch: epoch,
    v3AndBelowTopics: topics,
  });

const endTxn = (id: string, pid: bigint, epoch: number, committed: boolean, version = 3) =>
  c.request(ApiKey.EndTxn, version, { transactionalId: id, producerId: pid, producerEpoch: epoch, committed });

function produce(topic: string, partition: number, records: Buffer, transactionalId: string | null = null) {
  return c
    .request(ApiKey.Produce, 9, {
      transactionalId,
      acks: -1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
    })
    .then((r) => r.responses[0].partitionResponses[0]);
}

const txnBatch = (pid: bigint, epoch: number, seq: number, values: string[], transactional = true) =>
  buildRecordBatchSync({
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    transactional,
    records: values.map((v) => ({ key: 'k', value: v })),
  });

async function fetchPartition(topic: string, partition: number, offset: number, isolationLevel: number) {
  const r = await c.request(ApiKey.Fetch, 11, {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    isolationLevel,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        partitions: [
          {
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: BigInt(offset),
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 1 << 20,
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
  const p = r.responses[0].partitions[0];
  const records = (p.records ?? Buffer.alloc(0)) as Buffer;
  const batches = [...iterateBatches(records)].map((e) => readBatchHeader(records, e.position));
  return { ...p, batches };
}

async function latest(topic: string, partition: number, isolationLevel: number): Promise<number> {
  const r = await c.request(ApiKey.ListOffsets, 7, {
    replicaId: -1,
    isolationLevel,
    topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }] }],
  });
  return Number(r.topics[0].partitions[0].offset);
}

const describeTxn = async (id: string) =>
  (await c.request(ApiKey.DescribeTransactions, 0, { transactionalIds: [id] })).transactionStates[0];

before(async () => {
  broker = await startTxnBroker({ overrides: OVERRIDES });
  c = await RawClient.connect(broker.port);
  await createTopic('tx', 2);
});

after(async () => {
  c?.close();
  await broker?.stop();
  broker?.cleanup();
});

test('idempotent producers get distinct ids from the controller; retried batches are answered with their original offset', async () => {
  const a = await c.request(ApiKey.InitProducerId, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  const b = await c.request(ApiKey.InitProducerId, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(a.errorCode, 0);
  assert.equal(a.producerEpoch, 0);
  assert.notEqual(a.producerId, b.producerId);
  const first = await produce('tx', 1, txnBatch(a.producerId, 0, 0, ['i0', 'i1'], false));
  assert.equal(first.errorCode, 0);
  const retry = await produce('tx', 1, txnBatch(a.producerId, 0, 0, ['i0', 'i1'], false));
  assert.equal(retry.errorCode, 0);
  assert.equal(retry.baseOffset, first.baseOffset);
  const gap = await produce('tx', 1, txnBatch(a.producerId, 0, 5, ['i5'], false));
  assert.equal(gap.errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  const next = await produce('tx', 1, txnBatch(a.producerId, 0, 2, ['i2'], false));
  assert.equal(next.baseOffset, first.baseOffset + 2n);
  // a transactional id cannot be the empty string
  const empty = await c.request(ApiKey.InitProducerId, 4, {
    transactionalId: '',
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(empty.errorCode, ErrorCode.INVALID_REQUEST);
  const big = await c.request(ApiKey.InitProducerId, 4, {
    transactionalId: 'too-long',
    transactionTimeoutMs: 900001,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(big.errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
});

test('transactional flow: LSO stops READ_COMMITTED at the open transaction; abort yields the aborted list; commit makes data visible', async () => {
  const init = await initTxn('flow');
  assert.equal(init.errorCode, 0);
  const { producerId: pid, producerEpoch: epoch } = init;
  // producing before AddPartitionsToTxn fails verification
  const unverified = await produce('tx', 0, txnBatch(pid, epoch, 0, ['x']), 'flow');
  assert.equal(unverified.errorCode, ErrorCode.INVALID_TXN_STATE);
  const added = await addPartitions('flow', pid, epoch, [{ name: 'tx', partitions: [0] }]);
  assert.deepEqual(added.resultsByTopicV3AndBelow, [
    { name: 'tx', resultsByPartition: [{ partitionIndex: 0, partitionErrorCode: 0 }] },
  ]);
  const hw0 = await latest('tx', 0, 0);
  const p1 = await produce('tx', 0, txnBatch(pid, epoch, 0, ['a1', 'a2']), 'flow');
  assert.equal(p1.errorCode, 0);
  assert.equal(await latest('tx', 0, 1), Number(p1.baseOffset), 'LSO = first offset of the open transaction');
  assert.equal(await latest('tx', 0, 0), hw0 + 2);
  const rc = await fetchPartition('tx', 0, Number(p1.baseOffset), 1);
  assert.equal(rc.batches.length, 0);
  assert.equal(Number(rc.lastStableOffset), Number(p1.baseOffset));
  const d = await describeTxn('flow');
  assert.equal(d.transactionState, 'Ongoing');
  assert.deepEqual(d.topics, [{ topic: 'tx', partitions: [0] }]);

  const ended = await endTxn('flow', pid, epoch, false);
  assert.equal(ended.errorCode, 0);
  await until('CompleteAbort', async () =>
    (await describeTxn('flow')).transactionState === 'CompleteAbort' ? true : undefined,
  );
  const after = await fetchPartition('tx', 0, Number(p1.baseOffset), 1);
  assert.equal(Number(after.lastStableOffset), Number(after.highWatermark));
  assert.deepEqual(after.abortedTransactions, [{ producerId: pid, firstOffset: p1.baseOffset }]);
  assert.deepEqual(
    after.batches.map((b: { isTransactional: boolean; isControl: boolean }) => [b.isTransactional, b.isControl]),
    [
      [true, false],
      [true, true],
    ],
  );
  const uncommitted = await fetchPartition('tx', 0, Number(p1.baseOffset), 0);
  assert.equal(uncommitted.abortedTransactions, null);

  // a committed transaction: no aborted list for it
  assert.equal(
    (await addPartitions('flow', pid, epoch, [{ name: 'tx', partitions: [0, 1] }])).resultsByTopicV3AndBelow[0]
      .resultsByPartition[0].partitionErrorCode,
    0,
  );
  const p2 = await produce('tx', 0, txnBatch(pid, epoch, 2, ['c1']), 'flow');
  assert.equal(p2.errorCode, 0);
  assert.equal((await endTxn('flow', pid, epoch, true)).errorCode, 0);
  await until('CompleteCommit', async () =>
    (await describeTxn('flow')).transactionState === 'CompleteCommit' ? true : undefined,
  );
  const committed = await fetchPartition('tx', 0, Number(p2.baseOffset), 1);
  assert.deepEqual(committed.abortedTransactions, []);
  assert.equal(committed.batches[0]!.isTransactional, true);
  // tx-1 had no data: it still got a COMMIT marker
  const other = await fetchPartition('tx', 1, 0, 0);
  assert.ok(other.batches.some((b: { isControl: boolean; producerId: bigint }) => b.isControl && b.producerId === pid));
  // committing again is a no-op success; aborting now is an invalid transition
  assert.equal((await endTxn('flow', pid, epoch, true)).errorCode, 0);
  assert.equal((await endTxn('flow', pid, epoch, false)).errorCode, ErrorCode.INVALID_TXN_STATE);
});

test('AddPartitionsToTxn errors: unknown topics, internal topics, wrong producer id and epoch (v1 maps PRODUCER_FENCED)', async () => {
  const { producerId: pid, producerEpoch: epoch } = await initTxn('errs');
  const unknown = await addPartitions('errs', pid, epoch, [
    { name: 'tx', partitions: [0] },
    { name: 'nope', partitions: [3] },
  ]);
  const codes = Object.fromEntries(
    unknown.resultsByTopicV3AndBelow.map((t) => [t.name, t.resultsByPartition[0].partitionErrorCode]),
  );
  assert.deepEqual(codes, { tx: ErrorCode.OPERATION_NOT_ATTEMPTED, nope: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
  const internal = await addPartitions('errs', pid, epoch, [{ name: '__consumer_offsets', partitions: [0] }]);
  assert.equal(
    internal.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode,
    ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  );
  const mapping = await addPartitions('errs', pid + 100n, epoch, [{ name: 'tx', partitions: [0] }]);
  assert.equal(
    mapping.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode,
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  );
  const fenced = await addPartitions('errs', pid, epoch + 1, [{ name: 'tx', partitions: [0] }]);
  assert.equal(fenced.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode, ErrorCode.PRODUCER_FENCED);
  const old = await addPartitions('errs', pid, epoch + 1, [{ name: 'tx', partitions: [0] }], 1);
  assert.equal(
    old.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode,
    ErrorCode.INVALID_PRODUCER_EPOCH,
  );
  assert.equal(
    (await endTxn('errs', pid, epoch, true)).errorCode,
    ErrorCode.INVALID_TXN_STATE,
    'EndTxn without a transaction',
  );
  // v4+ batched, verify only
  const v4 = await c.request(ApiKey.AddPartitionsToTxn, 4, {
    transactions: [
      {
        transactionalId: 'errs',
        producerId: pid,
        producerEpoch: epoch,
        verifyOnly: true,
        topics: [{ name: 'tx', partitions: [1] }],
      },
    ],
  });
  assert.equal(v4.errorCode, 0);
  assert.equal(
    v4.resultsByTransaction[0].topicResults[0].resultsByPartition[0].partitionErrorCode,
    ErrorCode.TRANSACTION_ABORTABLE,
  );
});

test('a second producer with the same transactional id fences the first, aborting its open transaction', async () => {
  const first = await initTxn('fence');
  await addPartitions('fence', first.producerId, first.producerEpoch, [{ name: 'tx', partitions: [1] }]);
  const w = await produce('tx', 1, txnBatch(first.producerId, first.producerEpoch, 0, ['zombie']), 'fence');
  assert.equal(w.errorCode, 0);
  // the first attempt aborts the open transaction and asks to retry. The cluster finalizes
  // transaction.version 2, so the coordinator's own abort is a V2 one: the fence bumps the epoch and
  // the abort bumps it again (TransactionMetadata.prepareAbortOrCommit); the retry gets epoch + 3
  const r1 = await c.request(ApiKey.InitProducerId, 4, {
    transactionalId: 'fence',
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(r1.errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  const second = await until('fencing InitProducerId', async () => {
    const r = await c.request(ApiKey.InitProducerId, 4, {
      transactionalId: 'fence',
      transactionTimeoutMs: 60000,
      producerId: -1n,
      producerEpoch: -1,
    });
    return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? undefined : r;
  });
  assert.equal(second.errorCode, 0);
  assert.equal(second.producerId, first.producerId);
  assert.equal(second.producerEpoch, first.producerEpoch + 3);
  assert.equal(
    (await endTxn('fence', first.producerId, first.producerEpoch, true)).errorCode,
    ErrorCode.PRODUCER_FENCED,
  );
  assert.equal(
    (await endTxn('fence', first.producerId, first.producerEpoch, true, 1)).errorCode,
    ErrorCode.INVALID_PRODUCER_EPOCH,
  );
  const zombie = await produce('tx', 1, txnBatch(first.producerId, first.producerEpoch, 1, ['late']), 'fence');
  assert.equal(zombie.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  const rc = await fetchPartition('tx', 1, Number(w.baseOffset), 1);
  assert.deepEqual(rc.abortedTransactions, [{ producerId: first.producerId, firstOffset: w.baseOffset }]);
  // KIP-360: the current producer re-initialising with its id and epoch bumps the epoch
  const bumped = await initTxn('fence', 60000, 4, {
    producerId: second.producerId,
    producerEpoch: second.producerEpoch,
  });
  assert.equal(bumped.producerEpoch, second.producerEpoch + 1);
  const stale = await initTxn('fence', 60000, 4, { producerId: second.producerId + 5n, producerEpoch: 0 });
  assert.equal(stale.errorCode, ErrorCode.PRODUCER_FENCED);
});

test('a transaction past its timeout is aborted by the coordinator', async () => {
  const { producerId: pid, producerEpoch: epoch } = await initTxn('slow', 1000);
  await addPartitions('slow', pid, epoch, [{ name: 'tx', partitions: [0] }]);
  const w = await produce('tx', 0, txnBatch(pid, epoch, 0, ['timeout']), 'slow');
  assert.equal(await latest('tx', 0, 1), Number(w.baseOffset));
  await until(
    'timeout abort',
    async () => ((await describeTxn('slow')).transactionState === 'CompleteAbort' ? true : undefined),
    10_000,
  );
  assert.equal(await latest('tx', 0, 1), await latest('tx', 0, 0));
  // fenced (+1), then aborted as a V2 transaction (+1): transaction.version 2 is finalized
  assert.equal((await describeTxn('slow')).producerEpoch, epoch + 2);
  assert.equal((await endTxn('slow', pid, epoch, true)).errorCode, ErrorCode.PRODUCER_FENCED);
});

test('ListTransactions filters; DescribeTransactions of unknown ids; DescribeProducers; WriteTxnMarkers', async () => {
  const { producerId: pid, producerEpoch: epoch } = await initTxn('listed');
  await addPartitions('listed', pid, epoch, [{ name: 'tx', partitions: [1] }]);
  const w = await produce('tx', 1, txnBatch(pid, epoch, 0, ['open']), 'listed');
  const all = await c.request(ApiKey.ListTransactions, 1, {
    stateFilters: [],
    producerIdFilters: [],
    durationFilter: -1n,
  });
  assert.ok(all.transactionStates.some((s) => s.transactionalId === 'listed' && s.transactionState === 'Ongoing'));
  const ongoing = await c.request(ApiKey.ListTransactions, 1, {
    stateFilters: ['Ongoing', 'Bogus'],
    producerIdFilters: [pid],
    durationFilter: -1n,
  });
  assert.deepEqual(ongoing.unknownStateFilters, ['Bogus']);
  assert.deepEqual(ongoing.transactionStates, [
    { transactionalId: 'listed', producerId: pid, transactionState: 'Ongoing' },
  ]);
  const longRunning = await c.request(ApiKey.ListTransactions, 1, {
    stateFilters: [],
    producerIdFilters: [pid],
    durationFilter: 3_600_000n,
  });
  assert.deepEqual(longRunning.transactionStates, []);
  assert.equal((await describeTxn('never-seen')).errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);

  const dp = await c.request(ApiKey.DescribeProducers, 0, { topics: [{ name: 'tx', partitionIndexes: [1, 9] }] });
  const [p1, p9] = dp.topics[0].partitions;
  assert.equal(p9.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const mine = p1.activeProducers.find((p) => p.producerId === pid);
  assert.equal(mine?.currentTxnStartOffset, w.baseOffset);
  assert.equal(mine?.lastSequence, 0);

  // an admin abort of the partition's transaction (kafka-transactions abort)
  const m = await c.request(ApiKey.WriteTxnMarkers, 1, {
    markers: [
      {
        producerId: pid,
        producerEpoch: epoch,
        transactionResult: false,
        coordinatorEpoch: 0,
        topics: [
          { name: 'tx', partitionIndexes: [1] },
          { name: 'nope', partitionIndexes: [0] },
        ],
      },
    ],
  });
  assert.deepEqual(
    m.markers[0].topics.map((t) => [t.name, t.partitions[0].errorCode]),
    [
      ['tx', 0],
      ['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ],
  );
  const after = (await c.request(ApiKey.DescribeProducers, 0, { topics: [{ name: 'tx', partitionIndexes: [1] }] }))
    .topics[0].partitions[0];
  assert.equal(after.activeProducers.find((p) => p.producerId === pid)?.currentTxnStartOffset, -1n);
  assert.equal(await latest('tx', 1, 1), await latest('tx', 1, 0));
  // markers with an older producer epoch or from an older coordinator epoch are refused
  const marker = (producerEpoch: number, coordinatorEpoch: number) =>
    c
      .request(ApiKey.WriteTxnMarkers, 1, {
        markers: [
          {
            producerId: pid,
            producerEpoch,
            transactionResult: true,
            coordinatorEpoch,
            topics: [{ name: 'tx', partitionIndexes: [1] }],
          },
        ],
      })
      .then((r) => r.markers[0].topics[0].partitions[0].errorCode);
  assert.equal(await marker(epoch - 1, 0), ErrorCode.INVALID_PRODUCER_EPOCH);
  assert.equal(await marker(epoch, -1), ErrorCode.TRANSACTION_COORDINATOR_FENCED);
  await endTxn('listed', pid, epoch, false);
});

test("TxnOffsetCommit: offsets become the group's on commit, vanish on abort", async () => {
  const group = 'txn-group';
  await until('group coordinator', async () => {
    const r = await c.request(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: [group] });
    return r.coordinators[0].errorCode === 0 ? true : undefined;
  });
  const fetchOffset = async () => {
    const r = await c.request(ApiKey.OffsetFetch, 7, {
      groupId: group,
      topics: [{ name: 'tx', partitionIndexes: [0] }],
      requireStable: false,
    });
    return Number(r.topics[0].partitions[0].committedOffset);
  };
  for (const [commit, offset] of [
    [false, 11],
    [true, 22],
  ] as const) {
    const { producerId: pid, producerEpoch: epoch } = await initTxn('offsets');
    const notAdded = await c.request(ApiKey.TxnOffsetCommit, 3, {
      transactionalId: 'offsets',
      groupId: group,
      producerId: pid,
      producerEpoch: epoch,
      generationIdOrMemberEpoch: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [
        {
          name: 'tx',
          partitions: [
            { partitionIndex: 0, committedOffset: BigInt(offset), committedLeaderEpoch: -1, committedMetadata: '' },
          ],
        },
      ],
    });
    assert.equal(notAdded.topics[0].partitions[0].errorCode, ErrorCode.INVALID_TXN_STATE);
    const add = await until('AddOffsetsToTxn', async () => {
      const r = await c.request(ApiKey.AddOffsetsToTxn, 3, {
        transactionalId: 'offsets',
        producerId: pid,
        producerEpoch: epoch,
        groupId: group,
      });
      return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? undefined : r;
    });
    assert.equal(add.errorCode, 0);
    const tc = await until('TxnOffsetCommit', async () => {
      const r = await c.request(ApiKey.TxnOffsetCommit, 0, {
        transactionalId: 'offsets',
        groupId: group,
        producerId: pid,
        producerEpoch: epoch,
        topics: [
          {
            name: 'tx',
            partitions: [
              { partitionIndex: 0, committedOffset: BigInt(offset), committedMetadata: '' },
              { partitionIndex: 0, committedOffset: BigInt(offset), committedMetadata: '' },
            ],
          },
          { name: 'missing', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedMetadata: '' }] },
        ],
      });
      return r.topics[0].partitions[0].errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE ? undefined : r;
    });
    assert.equal(tc.topics[0].partitions[0].errorCode, 0);
    assert.equal(tc.topics[1].partitions[0].errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    assert.equal((await endTxn('offsets', pid, epoch, commit)).errorCode, 0);
    const want = commit ? offset : -1;
    await until(`committed offset ${want}`, async () => ((await fetchOffset()) === want ? true : undefined), 10_000);
  }
});

test('kill -9 with transactions open: producer ids never repeat, the open transaction is aborted by timeout, LSO advances', async () => {
  const ids = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (
        await c.request(ApiKey.InitProducerId, 4, {
          transactionalId: null,
          transactionTimeoutMs: 60000,
          producerId: -1n,
          producerEpoch: -1,
        })
      ).producerId,
    );
  const { producerId: pid, producerEpoch: epoch } = await initTxn('crash', 2000);
  await addPartitions('crash', pid, epoch, [{ name: 'tx', partitions: [0] }]);
  const w = await produce('tx', 0, txnBatch(pid, epoch, 0, ['in-flight']), 'crash');
  assert.equal(await latest('tx', 0, 1), Number(w.baseOffset));
  c.close();
  await broker.kill();
  await broker.restart();
  c = await RawClient.connect(broker.port);
  const after = (
    await c.request(ApiKey.InitProducerId, 4, {
      transactionalId: null,
      transactionTimeoutMs: 60000,
      producerId: -1n,
      producerEpoch: -1,
    })
  ).producerId;
  assert.ok(after > ids[ids.length - 1]!, `new id ${after} after ${ids}`);
  // the state survived: the LSO is still held by the open transaction until it times out
  await until(
    'abort after restart',
    async () => {
      const d = await describeTxn('crash');
      return d.errorCode === 0 && d.transactionState === 'CompleteAbort' ? d : undefined;
    },
    20_000,
  );
  assert.equal(await latest('tx', 0, 1), await latest('tx', 0, 0));
  const rc = await fetchPartition('tx', 0, Number(w.baseOffset), 1);
  assert.deepEqual(rc.abortedTransactions, [{ producerId: pid, firstOffset: w.baseOffset }]);
});

test('AllocateProducerIds is served on the controller listener and checks the broker epoch', async () => {
  const ctl = await RawClient.connect(broker.controllerPort);
  try {
    const r = await ctl.request(ApiKey.AllocateProducerIds, 0, { brokerId: 1, brokerEpoch: -5n });
    assert.equal(r.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    assert.equal(r.producerIdLen, 0);
  } finally {
    ctl.close();
  }
});
