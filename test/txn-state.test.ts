// The transaction coordinator without a broker: __transaction_state record bytes (v0 and the
// flexible v1), the state machine, and recovery of a transaction loaded in PrepareCommit (markers
// written, CompleteCommit appended) over an in-memory log and marker writer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { ProducerIdManager } from '../src/broker/txn/producer-id-manager.js';
import { TransactionCoordinator } from '../src/broker/txn/txn-coordinator.js';
import { decodeKey, decodeValue, encodeKey, encodeValue, partitionFor } from '../src/broker/txn/txn-log.js';
import { TransactionMarkerManager } from '../src/broker/txn/txn-markers.js';
import { TransactionMetadata, TxnState, tpKey } from '../src/broker/txn/txn-metadata.js';
import { TransactionStateManager, type TxnLogIO } from '../src/broker/txn/txn-state-manager.js';

test('__transaction_state key and value bytes', () => {
  assert.equal(encodeKey('my-txn').toString('hex'), '0000' + '0006' + Buffer.from('my-txn').toString('hex'));
  assert.equal(decodeKey(encodeKey('my-txn')), 'my-txn');
  const transit = {
    producerId: 1000,
    prevProducerId: -1,
    nextProducerId: -1,
    producerEpoch: 2,
    lastProducerEpoch: -1,
    txnTimeoutMs: 60000,
    txnState: TxnState.Ongoing,
    topicPartitions: new Set([tpKey('foo', 0), tpKey('foo', 1)]),
    txnStartTimestamp: 1000,
    txnLastUpdateTimestamp: 2000,
    clientTransactionVersion: 0,
  };
  const v0 = encodeValue(transit, 0);
  assert.equal(
    v0.toString('hex'),
    '0000' +
      '00000000000003e8' +
      '0002' +
      '0000ea60' +
      '01' +
      '00000001' +
      '0003' +
      Buffer.from('foo').toString('hex') +
      '00000002' +
      '00000000' +
      '00000001' +
      '00000000000007d0' +
      '00000000000003e8',
  );
  const v1 = encodeValue({ ...transit, prevProducerId: 999 }, 1);
  assert.equal(v1.readInt16BE(0), 1);
  for (const [buf, prev] of [
    [v0, -1],
    [v1, 999],
  ] as const) {
    const m = decodeValue('my-txn', buf)!;
    assert.equal(m.state, TxnState.Ongoing);
    assert.equal(m.producerId, 1000);
    assert.equal(m.previousProducerId, prev);
    assert.deepEqual(m.partitions(), [
      { topic: 'foo', partition: 0 },
      { topic: 'foo', partition: 1 },
    ]);
  }
  const empty = encodeValue(
    { ...transit, txnState: TxnState.Empty, topicPartitions: new Set(), txnStartTimestamp: -1 },
    0,
  );
  assert.equal(decodeValue('my-txn', empty)!.topicPartitions.size, 0);
  assert.equal(decodeValue('x', null), null);
  // abs(hashCode) % partitions, with Kafka's abs
  assert.equal(
    partitionFor('my-txn', 50),
    Math.abs(Array.from('my-txn').reduce((h, ch) => (Math.imul(h, 31) + ch.charCodeAt(0)) | 0, 0)) % 50,
  );
});

test('state machine: invalid transitions throw; a pending transition blocks another', () => {
  const m = new TransactionMetadata('t', 1, -1, -1, 0, -1, 1000, TxnState.Empty, -1, 0);
  assert.throws(() => m.prepareAbortOrCommit(TxnState.PrepareCommit, 0, -1, 1, false), /not a valid previous state/);
  const add = m.prepareAddPartitions([tpKey('a', 0)], 5, 0);
  assert.throws(() => m.prepareAddPartitions([tpKey('a', 1)], 6, 0), /already a pending state/);
  m.completeTransitionTo(add);
  assert.equal(m.state, TxnState.Ongoing);
  assert.equal(m.txnStartTimestamp, 5);
  const fence = m.prepareFenceProducerEpoch();
  assert.equal(fence.producerEpoch, 1);
  assert.equal(m.pendingState, TxnState.PrepareEpochFence);
});

function memoryIO(): TxnLogIO & { records: Map<number, { key: Buffer; value: Buffer | null }[]> } {
  const records = new Map<number, { key: Buffer; value: Buffer | null }[]>();
  return {
    records,
    async append(p, recs) {
      if (!records.has(p)) records.set(p, []);
      records.get(p)!.push(...recs);
      return ErrorCode.NONE;
    },
    async read(p, onRecord) {
      for (const r of records.get(p) ?? []) onRecord(r.key, r.value);
    },
  };
}

function coordinator(io: TxnLogIO, written: string[]) {
  const logger = () => undefined;
  const sm = new TransactionStateManager({
    io,
    numPartitions: 1,
    maxTimeoutMs: 900000,
    idExpirationMs: 604800000,
    valueVersion: () => 1,
    clock: Date.now,
    logger,
  });
  let next = 0;
  const ids = new ProducerIdManager({
    allocateProducerIds: async () => ({
      errorCode: 0,
      producerIdStart: BigInt((next += 1000)) - 1000n,
      producerIdLen: 1000,
    }),
  });
  const markers = new TransactionMarkerManager({
    stateManager: sm,
    partitionExists: () => true,
    logger,
    retryBackoffMs: 1,
    write: async (topic, partition, pid, epoch, ce, commit) => {
      written.push(`${topic}-${partition} ${commit ? 'COMMIT' : 'ABORT'} pid=${pid} epoch=${epoch} ce=${ce}`);
      return ErrorCode.NONE;
    },
  });
  const c = new TransactionCoordinator({
    stateManager: sm,
    producerIds: ids,
    markers,
    clock: Date.now,
    logger,
    endTxnMarkerWaitMs: 1000,
  });
  c.startup();
  return { sm, c, markers };
}

test('a transaction loaded in PrepareCommit gets its markers and completes; an ongoing one stays until its timeout', async () => {
  const io = memoryIO();
  const written: string[] = [];
  const first = coordinator(io, written);
  await first.sm.loadPartition(0, 3);
  const init = await first.c.handleInitProducerId('t1', 60000);
  assert.equal(init.errorCode, 0);
  assert.equal(
    await first.c.handleAddPartitions('t1', init.producerId, init.producerEpoch, [tpKey('foo', 0), tpKey('foo', 1)]),
    0,
  );
  const init2 = await first.c.handleInitProducerId('t2', 60000);
  assert.equal(await first.c.handleAddPartitions('t2', init2.producerId, init2.producerEpoch, [tpKey('bar', 0)]), 0);
  // simulate a crash right after PrepareCommit was written: append the record by hand
  const m = (first.sm.getTransactionState('t1') as { entry: { metadata: TransactionMetadata } }).entry.metadata;
  const prepare = m.prepareAbortOrCommit(TxnState.PrepareCommit, 0, -1, Date.now(), false);
  assert.equal(await first.sm.appendTransactionToLog('t1', 3, prepare), 0);
  assert.deepEqual(written, []);

  const second = coordinator(io, written);
  const loaded = await second.sm.loadPartition(0, 4);
  assert.deepEqual(loaded.map((t) => [t.transactionalId, t.state]).sort(), [
    ['t1', TxnState.PrepareCommit],
    ['t2', TxnState.Ongoing],
  ]);
  second.c.onPartitionLoaded(4, loaded);
  await second.markers.completion('t1');
  assert.deepEqual(written.sort(), [
    `foo-0 COMMIT pid=${init.producerId} epoch=0 ce=4`,
    `foo-1 COMMIT pid=${init.producerId} epoch=0 ce=4`,
  ]);
  assert.equal(second.c.handleDescribe('t1').transactionState, 'CompleteCommit');
  assert.equal(second.c.handleDescribe('t2').transactionState, 'Ongoing');
  // the completion is in the log: a third load sees CompleteCommit
  const third = coordinator(io, []);
  const again = await third.sm.loadPartition(0, 5);
  assert.equal(again.find((t) => t.transactionalId === 't1')!.state, TxnState.CompleteCommit);
});

test('transactions V2: an exhausted epoch rotates to a new producer id at EndTxn; the retry is recognised', async () => {
  const io = memoryIO();
  const written: string[] = [];
  const { sm, c, markers } = coordinator(io, written);
  await sm.loadPartition(0, 0);
  const init = await c.handleInitProducerId('rot', 60000);
  assert.equal(init.errorCode, 0);
  const m = (sm.getTransactionState('rot') as { entry: { metadata: TransactionMetadata } }).entry.metadata;
  // as if 32,766 transactions had bumped the epoch (Short.MaxValue - 1: exhausted)
  m.producerEpoch = 32766;
  assert.equal(await c.handleAddPartitions('rot', init.producerId, 32766, [tpKey('foo', 0)], 2), 0);
  const end = await c.handleEndTxn('rot', init.producerId, 32766, true, 2);
  assert.equal(end.errorCode, 0);
  assert.notEqual(end.producerId, init.producerId);
  assert.equal(end.producerEpoch, 0);
  await markers.completion('rot');
  // the marker carries the old id at Short.MaxValue; then the transaction continues on the new id
  assert.deepEqual(written, [`foo-0 COMMIT pid=${init.producerId} epoch=32767 ce=0`]);
  assert.deepEqual(
    [m.state, m.producerId, m.producerEpoch, m.previousProducerId],
    [TxnState.CompleteCommit, end.producerId, 0, init.producerId],
  );
  // a retry with the old id and epoch gets the same answer; a V1 EndTxn with them is not recognised
  const retry = await c.handleEndTxn('rot', init.producerId, 32766, true, 2);
  assert.deepEqual([retry.errorCode, retry.producerId, retry.producerEpoch], [0, end.producerId, 0]);
  assert.equal(
    (await c.handleEndTxn('rot', init.producerId, 32766, true, 0)).errorCode,
    ErrorCode.INVALID_PRODUCER_ID_MAPPING,
  );
});
