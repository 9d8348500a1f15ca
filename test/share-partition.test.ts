// The share-partition state machine in-process (Kafka's SharePartitionTest cases): acquisition,
// acknowledgement types, delivery counts and their limit, lock expiry on an injected clock, the
// in-flight limit, the start offset moving forward, persisted state, persister failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import {
  AcknowledgeType as A,
  RecordState as S,
  ShareAcquireMode,
  SharePartitionError,
} from '../src/broker/share/share-partition.js';
import { mergeStateBatches } from './helpers/local-state-persister.js';
import { FaultyPersister, KEY, batches, settle, sharePartition } from './helpers/share-partition-fixtures.js';

const BATCH = ShareAcquireMode.BATCH_OPTIMIZED;
const LIMIT = ShareAcquireMode.RECORD_LIMIT;
const sb = (f: number, l: number, state: number, count: number) => ({
  firstOffset: BigInt(f),
  lastOffset: BigInt(l),
  deliveryState: state,
  deliveryCount: count,
});

test('maybeInitialize: an uninitialized state starts at the reset offset; persisted batches load (testMaybeInitialize)', async () => {
  const fresh = await sharePartition({ resetOffset: 7 });
  assert.equal(fresh.sp.startOffset, 7);
  assert.equal(fresh.sp.endOffset, 7);
  assert.equal(fresh.sp.nextFetchOffset(), 7);

  const persister = new FaultyPersister();
  await persister.initializeState(KEY, 3, 5n);
  await persister.writeState(KEY, {
    stateEpoch: 3,
    leaderEpoch: 0,
    startOffset: 5n,
    deliveryCompleteCount: 5,
    stateBatches: [sb(5, 9, S.AVAILABLE, 2), sb(10, 14, S.ARCHIVED, 1)],
  });
  const { sp } = await sharePartition({ persister });
  assert.equal(sp.startOffset, 5);
  assert.equal(sp.endOffset, 14);
  assert.equal(sp.nextFetchOffset(), 5);
  assert.deepEqual(
    sp.cachedState().map((b) => [b.firstOffset, b.lastOffset, b.state, b.deliveryCount, b.memberId]),
    [
      [5, 9, S.AVAILABLE, 2, ''],
      [10, 14, S.ARCHIVED, 1, ''],
    ],
  );
  // re-acquired: the delivery count goes on from the persisted one
  const r = sp.acquire('m1', BATCH, 500, 500, 5, batches(5, 14, 5));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 5, lastOffset: 9, deliveryCount: 3 }]);
});

test('maybeInitialize: persisted state with only terminal records moves the start offset (testMaybeInitializeWithNoAvailableRecords)', async () => {
  const persister = new FaultyPersister();
  await persister.initializeState(KEY, 1, 0n);
  await persister.writeState(KEY, {
    stateEpoch: 1,
    leaderEpoch: 0,
    startOffset: 0n,
    deliveryCompleteCount: 10,
    stateBatches: [sb(0, 4, S.ACKNOWLEDGED, 1), sb(5, 9, S.ARCHIVED, 5)],
  });
  const { sp } = await sharePartition({ persister });
  assert.equal(sp.startOffset, 10);
  assert.equal(sp.endOffset, 10);
  assert.equal(sp.cachedState().length, 0);
  assert.equal(sp.nextFetchOffset(), 10);
});

test('maybeInitialize: persister errors as Kafka maps them; a failed load is retried (testMaybeInitializeWithErrorPartitionResponse)', async () => {
  const cases: [number, number][] = [
    [ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_NOT_AVAILABLE],
    [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE],
    [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    [ErrorCode.FENCED_STATE_EPOCH, ErrorCode.FENCED_STATE_EPOCH],
    [ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.NOT_LEADER_OR_FOLLOWER],
    [ErrorCode.GROUP_ID_NOT_FOUND, ErrorCode.GROUP_ID_NOT_FOUND],
    [ErrorCode.INVALID_REQUEST, ErrorCode.UNKNOWN_SERVER_ERROR],
  ];
  for (const [persisted, answered] of cases) {
    const persister = new FaultyPersister();
    persister.readError = persisted;
    const { sp } = await sharePartition({ persister, init: false });
    await assert.rejects(
      sp.maybeInitialize(),
      (e: unknown) => e instanceof SharePartitionError && e.errorCode === answered,
    );
    assert.equal(sp.isInitialized, false);
    persister.readError = ErrorCode.NONE;
    await sp.maybeInitialize();
    assert.equal(sp.isInitialized, true);
  }
});

test('acquire: a single record, then the next fetch offset moves past it (testAcquireSingleRecord)', async () => {
  const { sp } = await sharePartition();
  const r = sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 0));
  assert.deepEqual(r, { acquiredRecords: [{ firstOffset: 0, lastOffset: 0, deliveryCount: 1 }], count: 1 });
  assert.equal(sp.nextFetchOffset(), 1);
  assert.equal(sp.startOffset, 0);
  assert.equal(sp.endOffset, 0);
  assert.deepEqual(sp.cachedState()[0], {
    firstOffset: 0,
    lastOffset: 0,
    state: S.ACQUIRED,
    deliveryCount: 1,
    memberId: 'm1',
  });
  // the same records fetched again are not acquired twice
  assert.equal(sp.acquire('m2', BATCH, 500, 500, 0, batches(0, 0)).count, 0);
});

test('acquire: fetched batches starting before the start offset; new records past the end offset (testAcquireMultipleRecords)', async () => {
  const { sp } = await sharePartition({ resetOffset: 3 });
  const r = sp.acquire('m1', BATCH, 500, 500, 3, batches(0, 9, 10));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 3, lastOffset: 9, deliveryCount: 1 }]);
  assert.equal(r.count, 7);
  const r2 = sp.acquire('m1', BATCH, 500, 500, 10, batches(10, 14));
  assert.deepEqual(r2.acquiredRecords, [{ firstOffset: 10, lastOffset: 14, deliveryCount: 1 }]);
  assert.equal(sp.endOffset, 14);
  assert.equal(sp.nextFetchOffset(), 15);
});

test('acquire: batch size splits the acquired records on log batch boundaries (testAcquireWithBatchSizeAndMultipleBatches)', async () => {
  const { sp } = await sharePartition();
  const r = sp.acquire('m1', BATCH, 5, 500, 0, batches(0, 19, 2));
  assert.deepEqual(
    r.acquiredRecords.map((a) => [a.firstOffset, a.lastOffset]),
    [
      [0, 5],
      [6, 11],
      [12, 17],
      [18, 19],
    ],
  );
  assert.equal(r.count, 20);
});

test('acquire: max fetch records is soft in batch-optimized mode, exact in record-limit mode (testAcquireWithMaxFetchRecords, testAcquireWithRecordLimitMode)', async () => {
  const a = await sharePartition();
  const r = a.sp.acquire('m1', BATCH, 500, 3, 0, batches(0, 9, 5));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
  assert.equal(a.sp.nextFetchOffset(), 5);

  const b = await sharePartition();
  const r2 = b.sp.acquire('m1', LIMIT, 500, 3, 0, batches(0, 9, 5));
  assert.deepEqual(r2, { acquiredRecords: [{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }], count: 3 });
  // the rest of the log batch is cached as available and fetched next
  assert.equal(b.sp.nextFetchOffset(), 3);
  const r3 = b.sp.acquire('m2', LIMIT, 500, 10, 3, batches(0, 9, 5));
  // one AcquiredRecords per offset of a batch tracked per offset, as Kafka answers them
  assert.deepEqual(r3.acquiredRecords, [
    { firstOffset: 3, lastOffset: 3, deliveryCount: 1 },
    { firstOffset: 4, lastOffset: 4, deliveryCount: 1 },
    { firstOffset: 5, lastOffset: 9, deliveryCount: 1 },
  ]);
});

test('acknowledge ACCEPT: the start offset moves and the cache empties (testAcknowledgeSingleRecordBatch)', async () => {
  const { sp, persister, timer } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 9));
  assert.equal(timer.pending(), 1);
  assert.equal(await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [A.ACCEPT] }]), 0);
  assert.equal(sp.startOffset, 10);
  assert.equal(sp.endOffset, 10);
  assert.equal(sp.cachedState().length, 0);
  assert.equal(sp.nextFetchOffset(), 10);
  assert.equal(timer.pending(), 0);
  const w = persister.writes.at(-1)!.state;
  assert.deepEqual(w.stateBatches, [sb(0, 9, S.ACKNOWLEDGED, 1)]);
  assert.equal(w.deliveryCompleteCount, 10);
  // the start offset is written as it was before the update (lazily, as Kafka)
  assert.equal(w.startOffset, 0n);
  sp.acquire('m1', BATCH, 500, 500, 10, batches(10, 10));
  await sp.acknowledge('m1', [{ firstOffset: 10, lastOffset: 10, acknowledgeTypes: [A.REJECT] }]);
  assert.equal(persister.writes.at(-1)!.state.startOffset, 10n);
  assert.equal(sp.startOffset, 11);
  assert.deepEqual(persister.stored(KEY)!.batches, [sb(10, 10, S.ARCHIVED, 1)]);
});

test('acknowledge per offset: accept, release, reject and gap in one batch (testAcknowledgeMultipleRecordBatch)', async () => {
  const { sp } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 4));
  const code = await sp.acknowledge('m1', [
    { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [A.ACCEPT, A.GAP, A.REJECT, A.RELEASE, A.ACCEPT] },
  ]);
  assert.equal(code, 0);
  // 0-2 terminal: the start offset is 3, offset 3 is available again with its delivery count
  assert.equal(sp.startOffset, 3);
  const offsets = sp.cachedState()[0]!.offsets!;
  assert.deepEqual(
    offsets.filter((o) => o.offset >= 3).map((o) => [o.offset, o.state, o.deliveryCount]),
    [
      [3, S.AVAILABLE, 1],
      [4, S.ACKNOWLEDGED, 1],
    ],
  );
  assert.equal(sp.nextFetchOffset(), 3);
  const r = sp.acquire('m2', BATCH, 500, 500, 3, batches(0, 4));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 3, lastOffset: 3, deliveryCount: 2 }]);
});

test('acknowledge RELEASE: redelivered with delivery count 2; REJECT: never again (testReleaseSingleRecordBatch, testRejectRecords)', async () => {
  const { sp } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 1, 1));
  assert.equal(await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [A.RELEASE] }]), 0);
  assert.equal(await sp.acknowledge('m1', [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [A.REJECT] }]), 0);
  assert.equal(sp.nextFetchOffset(), 0);
  const r = sp.acquire('m2', BATCH, 500, 500, 0, batches(0, 1, 1));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
  assert.equal(await sp.acknowledge('m2', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [A.ACCEPT] }]), 0);
  assert.equal(sp.startOffset, 2);
  assert.equal(sp.acquire('m2', BATCH, 500, 500, 0, batches(0, 1, 1)).count, 0);
});

test('acknowledge errors: another member, not acquired, offsets not in flight, bad types; nothing changes (testAcknowledgeInvalid*)', async () => {
  const { sp, persister } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 9, 5));
  const writes = persister.writes.length;
  const ack = (member: string, f: number, l: number, types: number[]) =>
    sp.acknowledge(member, [{ firstOffset: f, lastOffset: l, acknowledgeTypes: types }]);
  assert.equal(await ack('m2', 0, 4, [A.ACCEPT]), ErrorCode.INVALID_RECORD_STATE);
  // past the acquired records: INVALID_REQUEST (fetchSubMapForAcknowledgementBatch)
  assert.equal(await ack('m1', 10, 12, [A.ACCEPT]), ErrorCode.INVALID_REQUEST);
  assert.equal(await ack('m1', 8, 12, [A.ACCEPT]), ErrorCode.INVALID_REQUEST);
  assert.equal(await ack('m1', 0, 4, [A.ACCEPT, A.ACCEPT]), ErrorCode.INVALID_REQUEST);
  assert.equal(await ack('m1', 0, 4, [7]), ErrorCode.INVALID_REQUEST);
  // a whole request is rejected: the valid first batch is rolled back
  const code = await sp.acknowledge('m1', [
    { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [A.ACCEPT] },
    { firstOffset: 5, lastOffset: 9, acknowledgeTypes: [A.ACCEPT] },
    { firstOffset: 20, lastOffset: 20, acknowledgeTypes: [A.ACCEPT] },
  ]);
  assert.equal(code, ErrorCode.INVALID_REQUEST);
  const offsets = sp.cachedState()[0]!.offsets!;
  assert.equal(offsets.length, 10);
  assert.ok(offsets.every((o) => o.state === S.ACQUIRED && o.memberId === 'm1'));
  assert.equal(persister.writes.length, writes);
  // acknowledged records cannot be acknowledged again
  assert.equal(await ack('m1', 0, 4, [A.ACCEPT]), 0);
  assert.equal(await ack('m1', 5, 9, [A.ACCEPT]), 0);
  assert.equal(await ack('m1', 5, 9, [A.REJECT]), 0, 'below the start offset: already archived, skipped');
});

test('acquisition lock timeout: records become available again, archived at the delivery count limit (testAcquisitionLockOnAcquiringMultipleRecords, testAcquisitionLockTimeoutForBatchesPastDeliveryCountLimit)', async () => {
  const { sp, timer, persister } = await sharePartition({ lockMs: 1000, deliveryLimit: 2 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 4));
  await timer.advance(999);
  assert.equal(sp.cachedState()[0]!.state, S.ACQUIRED);
  await timer.advance(1);
  assert.deepEqual(sp.cachedState()[0], {
    firstOffset: 0,
    lastOffset: 4,
    state: S.AVAILABLE,
    deliveryCount: 1,
    memberId: '',
  });
  assert.deepEqual(persister.writes.at(-1)!.state.stateBatches, [sb(0, 4, S.AVAILABLE, 1)]);
  assert.equal(sp.nextFetchOffset(), 0);
  const r = sp.acquire('m2', BATCH, 500, 500, 0, batches(0, 4));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 0, lastOffset: 4, deliveryCount: 2 }]);
  await timer.advance(1000);
  // delivered twice with a limit of 2: archived, the start offset passes them
  assert.equal(sp.startOffset, 5);
  assert.equal(sp.cachedState().length, 0);
  assert.deepEqual(persister.writes.at(-1)!.state.stateBatches, [sb(0, 4, S.ARCHIVED, 2)]);
  // an acknowledgement after the lock expired is rejected
  sp.acquire('m3', BATCH, 500, 500, 5, batches(5, 5));
  await timer.advance(1000);
  assert.equal(
    await sp.acknowledge('m3', [{ firstOffset: 5, lastOffset: 5, acknowledgeTypes: [A.ACCEPT] }]),
    ErrorCode.INVALID_RECORD_STATE,
  );
});

test('acquisition lock timeout per offset after a partial acknowledgement (testAcquisitionLockTimeoutForOffsets)', async () => {
  const { sp, timer } = await sharePartition({ lockMs: 1000 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 4));
  assert.equal(await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [A.ACCEPT] }]), 0);
  assert.equal(sp.startOffset, 2);
  await timer.advance(1000);
  assert.deepEqual(
    sp
      .cachedState()[0]!
      .offsets!.filter((o) => o.offset >= 2)
      .map((o) => o.state),
    [S.AVAILABLE, S.AVAILABLE, S.AVAILABLE],
  );
  const r = sp.acquire('m2', BATCH, 500, 500, 2, batches(0, 4));
  assert.deepEqual(r.acquiredRecords, [
    { firstOffset: 2, lastOffset: 2, deliveryCount: 2 },
    { firstOffset: 3, lastOffset: 3, deliveryCount: 2 },
    { firstOffset: 4, lastOffset: 4, deliveryCount: 2 },
  ]);
});

test('RELEASE at the delivery count limit archives (testReleaseBatchWithDeliveryCountLimit)', async () => {
  const { sp } = await sharePartition({ deliveryLimit: 2 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 0));
  await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [A.RELEASE] }]);
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 0));
  await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [A.RELEASE] }]);
  assert.equal(sp.startOffset, 1);
  assert.equal(sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 0)).count, 0);
});

test('RENEW keeps the records acquired and restarts the lock', async () => {
  const { sp, timer } = await sharePartition({ lockMs: 1000 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 2));
  await timer.advance(800);
  assert.equal(await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [A.RENEW] }]), 0);
  await timer.advance(800);
  assert.equal(sp.cachedState()[0]!.state, S.ACQUIRED);
  await timer.advance(200);
  assert.equal(sp.cachedState()[0]!.state, S.AVAILABLE);
});

test('releaseAcquiredRecords: only the member`s records, delivery count kept (testReleaseAcquiredRecordsForMember)', async () => {
  const { sp, timer } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 4));
  sp.acquire('m2', BATCH, 500, 500, 5, batches(5, 9));
  assert.equal(await sp.releaseAcquiredRecords('m1'), 0);
  assert.deepEqual(
    sp.cachedState().map((b) => [b.firstOffset, b.state, b.deliveryCount, b.memberId]),
    [
      // Kafka 4.4's releaseAcquiredRecordsFor*Batch: DeliveryCountOps.NO_OP
      [0, S.AVAILABLE, 1, ''],
      [5, S.ACQUIRED, 1, 'm2'],
    ],
  );
  assert.equal(timer.pending(), 1);
  const r = sp.acquire('m3', BATCH, 500, 500, 0, batches(0, 4));
  assert.deepEqual(r.acquiredRecords, [{ firstOffset: 0, lastOffset: 4, deliveryCount: 2 }]);
});

test('max in-flight records: no new records past the limit until the start offset moves (testCanAcquireRecordsWithMaxInFlightRecords)', async () => {
  const { sp } = await sharePartition({ maxInFlight: 10 });
  const r = sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 7));
  assert.equal(r.count, 8);
  assert.equal(sp.canAcquireRecords(), true);
  // 2 more fit, the log batch is acquired whole (batch-aligned)
  assert.equal(sp.acquire('m1', BATCH, 500, 500, 8, batches(8, 11)).count, 4);
  assert.equal(sp.canAcquireRecords(), false);
  assert.equal(sp.acquire('m1', BATCH, 500, 500, 12, batches(12, 15)).count, 0);
  await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 7, acknowledgeTypes: [A.ACCEPT] }]);
  assert.equal(sp.canAcquireRecords(), true);
  assert.equal(sp.acquire('m1', BATCH, 500, 500, 12, batches(12, 15)).count, 4);
});

test('persister write failure: the acknowledgement fails and is rolled back (testAcknowledgeWithPersisterFailure)', async () => {
  const { sp, persister } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 4));
  persister.writeError = ErrorCode.NOT_COORDINATOR;
  assert.equal(
    await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [A.ACCEPT] }]),
    ErrorCode.COORDINATOR_NOT_AVAILABLE,
  );
  assert.deepEqual(sp.cachedState()[0], {
    firstOffset: 0,
    lastOffset: 4,
    state: S.ACQUIRED,
    deliveryCount: 1,
    memberId: 'm1',
  });
  assert.equal(sp.startOffset, 0);
  persister.writeError = ErrorCode.NONE;
  assert.equal(await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [A.ACCEPT] }]), 0);
  assert.equal(sp.startOffset, 5);
});

test('state survives a new leader: acquired-but-unacknowledged records come back available', async () => {
  const persister = new FaultyPersister();
  const first = await sharePartition({ persister, lockMs: 1000 });
  first.sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 9, 5));
  await first.sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [A.ACCEPT] }]);
  await first.sp.acknowledge('m1', [{ firstOffset: 7, lastOffset: 7, acknowledgeTypes: [A.REJECT] }]);
  first.sp.close();
  const second = await sharePartition({ persister });
  assert.equal(second.sp.startOffset, 5);
  // offsets 5-6 (a gap in the persisted state) and 8-9 (past it) are delivered again
  assert.equal(second.sp.nextFetchOffset(), 5);
  const r = second.sp.acquire('m2', BATCH, 500, 500, 5, batches(5, 9, 5));
  assert.deepEqual(r.acquiredRecords, [
    { firstOffset: 5, lastOffset: 6, deliveryCount: 1 },
    { firstOffset: 8, lastOffset: 9, deliveryCount: 1 },
  ]);
  assert.equal(r.count, 4);
});

test('read_committed: records of aborted transactions are archived, not acquired', async () => {
  const { sp } = await sharePartition();
  const fetched = [
    { baseOffset: 0, lastOffset: 1, producerId: -1, isTransactional: false, isControl: false },
    { baseOffset: 2, lastOffset: 4, producerId: 7, isTransactional: true, isControl: false },
    { baseOffset: 5, lastOffset: 5, producerId: 7, isTransactional: true, isControl: true },
    { baseOffset: 6, lastOffset: 7, producerId: -1, isTransactional: false, isControl: false },
  ];
  const r = sp.acquire('m1', BATCH, 500, 500, 0, fetched, [{ producerId: 7, firstOffset: 2 }]);
  assert.deepEqual(
    r.acquiredRecords.map((a) => [a.firstOffset, a.lastOffset]),
    [
      [0, 1],
      [5, 7],
    ],
  );
  await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [A.ACCEPT] }]);
  assert.equal(sp.startOffset, 5);
});

test('the persister merge keeps the latest state per offset and drops what is below the start offset', () => {
  const merged = mergeStateBatches(
    [sb(0, 9, S.AVAILABLE, 1), sb(10, 19, S.ARCHIVED, 1)],
    [sb(3, 12, S.ACKNOWLEDGED, 2)],
    2n,
  );
  assert.deepEqual(merged, [sb(2, 2, S.AVAILABLE, 1), sb(3, 12, S.ACKNOWLEDGED, 2), sb(13, 19, S.ARCHIVED, 1)]);
});

test('lock timeouts are dropped on close', async () => {
  const { sp, timer } = await sharePartition({ lockMs: 10 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 2));
  sp.close();
  await timer.advance(100);
  await settle();
  assert.equal(sp.cachedState()[0]!.state, S.ACQUIRED);
});

test('a split batch: the old lock only releases the offsets it still holds (testAcquisitionLockTimeoutForPartiallyReacquiredBatch)', async () => {
  const { sp, timer } = await sharePartition({ lockMs: 1000 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 4));
  await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [A.ACCEPT, A.ACCEPT, A.RELEASE] }]);
  await timer.advance(800);
  assert.deepEqual(sp.acquire('m1', BATCH, 500, 500, 2, batches(0, 4)).acquiredRecords, [
    { firstOffset: 2, lastOffset: 2, deliveryCount: 2 },
  ]);
  await timer.advance(200);
  const states = () =>
    sp
      .cachedState()[0]!
      .offsets!.filter((o) => o.offset >= 2)
      .map((o) => o.state);
  assert.deepEqual(states(), [S.ACQUIRED, S.AVAILABLE, S.AVAILABLE]);
  await timer.advance(800);
  assert.deepEqual(states(), [S.AVAILABLE, S.AVAILABLE, S.AVAILABLE]);
});

test('the log start offset moving past the start offset archives available records (testUpdateCacheAndOffsets)', async () => {
  const { sp } = await sharePartition();
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 9, 5));
  await sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [A.RELEASE] }]);
  sp.updateCacheAndOffsets(7);
  assert.equal(sp.startOffset, 7);
  assert.equal(sp.nextFetchOffset(), 7);
  assert.deepEqual(
    sp.acquire('m1', BATCH, 500, 500, 7, batches(7, 9)).acquiredRecords.map((a) => a.firstOffset),
    [7, 8, 9],
  );
  const empty = await sharePartition();
  empty.sp.updateCacheAndOffsets(20);
  assert.equal(empty.sp.startOffset, 20);
  assert.equal(empty.sp.nextFetchOffset(), 20);
});

test('delivery throttling near the limit: fewer records per delivery, the last attempt alone (testThrottleRecordsDelivery)', async () => {
  // limit 6: throttled from delivery count 3 (half the limit), the count-5 record alone
  const { sp, timer } = await sharePartition({ lockMs: 100, deliveryLimit: 6 });
  sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 7));
  for (let i = 0; i < 2; i++) {
    await timer.advance(100);
    assert.equal(sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 7)).count, 8);
  }
  await timer.advance(100);
  // delivery count 3 >= 3: 8 >> (3 - 3 + 1) = 4 records
  const r4 = sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 7));
  assert.deepEqual(
    r4.acquiredRecords.map((a) => [a.firstOffset, a.deliveryCount]),
    [
      [0, 4],
      [1, 4],
      [2, 4],
      [3, 4],
    ],
  );
  // the next fetch goes on with the other half
  assert.equal(sp.acquire('m1', BATCH, 500, 500, 4, batches(0, 7)).count, 4);
  await timer.advance(100);
  // delivery count 4: 8 >> 2 = 2
  assert.equal(sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 7)).count, 2);
  await timer.advance(100);
  // offsets 0-1 on delivery count 5 (last attempt, limit 6): one at a time
  assert.deepEqual(sp.acquire('m1', BATCH, 500, 500, 0, batches(0, 7)).acquiredRecords, [
    { firstOffset: 0, lastOffset: 0, deliveryCount: 6 },
  ]);
});
