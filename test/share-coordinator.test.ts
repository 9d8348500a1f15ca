// The share coordinator in-process (Kafka 4.4's ShareCoordinatorShard, PersisterStateBatchCombiner
// and ShareCoordinatorService semantics; cases ported from ShareCoordinatorShardTest and
// PersisterStateBatchCombinerTest): initialize before read/write, leader and state epoch fencing,
// ShareUpdate records and a ShareSnapshot every N updates, batches combined, deletes, summaries,
// the records' layout, the shard over a log (reload = restart), coordinator routing and errors, the
// in-memory persister and the default persister's batching and retries over an in-process transport.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode as E } from '../src/protocol/errors.js';
import { coordinatorPartition } from '../src/protocol/partitioner.js';
import { MemoryCoordinatorLog, type CoordinatorLog } from '../src/broker/group/log.js';
import { combineStateBatches } from '../src/broker/share/coordinator/batch-combiner.js';
import {
  ShareCoordinatorShard,
  NEGATIVE_LEADER_EPOCH,
  NEGATIVE_PARTITION_ID,
  NEGATIVE_STATE_EPOCH,
  READ_UNINITIALIZED_SHARE_PARTITION,
  WRITE_UNINITIALIZED_SHARE_PARTITION,
  type WritePartitionData,
} from '../src/broker/share/coordinator/shard.js';
import { decodeShareRecord, encodeShareRecord, type ShareRecord } from '../src/broker/share/coordinator/records.js';
import { ShareCoordinator, asCoordinatorKey } from '../src/broker/share/coordinator/coordinator.js';
import { InMemoryPersister } from '../src/broker/share/in-memory-persister.js';
import { DefaultStatePersister, type PersisterTransport } from '../src/broker/share/default-state-persister.js';
import type { PersisterStateBatch, SharePartitionKey } from '../src/broker/share/types.js';
import { shareCoordinatorKey } from '../src/broker/api/find-coordinator.js';

const GROUP = 'group1';
const TOPIC = 'AAAAAAAAAAAAAAAAAAAAAQ'; // Uuid(0, 1)
const OTHER_TOPIC = 'AAAAAAAAAAAAAAAAAAAAAg';
const P = 0;
const KEY: SharePartitionKey = { groupId: GROUP, topicId: TOPIC, partition: P };
const NOW = 1_700_000_000_000;

const batch = (
  firstOffset: number,
  lastOffset: number,
  deliveryState: number,
  deliveryCount: number,
): PersisterStateBatch => ({
  firstOffset: BigInt(firstOffset),
  lastOffset: BigInt(lastOffset),
  deliveryState,
  deliveryCount,
});

function newShard(recordsPerSnapshot = 500): ShareCoordinatorShard {
  return new ShareCoordinatorShard({
    recordsPerSnapshot,
    partitionCount: (id) => (id === TOPIC ? 5 : undefined),
    clock: () => NOW,
  });
}

/** Runs an operation and replays its records, as the runtime does after the append. */
function apply<T>(shard: ShareCoordinatorShard, r: { records: ShareRecord[]; response: T }): T {
  for (const rec of r.records) shard.replay(rec);
  return r.response;
}

const write = (p: Partial<WritePartitionData> = {}): WritePartitionData => ({
  partition: P,
  stateEpoch: 0,
  leaderEpoch: 0,
  startOffset: 0n,
  deliveryCompleteCount: 11,
  stateBatches: [batch(0, 10, 0, 1)],
  ...p,
});

function init(shard: ShareCoordinatorShard, stateEpoch = 0, startOffset = 0n): void {
  const r = apply(shard, shard.initializeState(GROUP, TOPIC, P, stateEpoch, startOffset));
  assert.equal(r.errorCode, E.NONE);
}

test('initialize writes a ShareSnapshot (snapshot epoch 0, leader epoch 0), then read answers its state', () => {
  const shard = newShard();
  const r = shard.initializeState(GROUP, TOPIC, P, 0, 5n);
  assert.equal(r.records.length, 1);
  const rec = r.records[0]!;
  assert.equal(rec.type, 'ShareSnapshot');
  assert.deepEqual(rec.value, {
    snapshotEpoch: 0,
    stateEpoch: 0,
    leaderEpoch: 0,
    startOffset: 5n,
    deliveryCompleteCount: 0,
    createTimestamp: BigInt(NOW),
    writeTimestamp: BigInt(NOW),
    stateBatches: [],
  });
  apply(shard, r);
  const read = apply(shard, shard.readState(GROUP, TOPIC, P, 0));
  assert.deepEqual(read, { errorCode: E.NONE, errorMessage: null, stateEpoch: 0, startOffset: 5n, stateBatches: [] });
  // an uninitialized start offset (-1) has no delivery complete count either
  const r2 = newShard().initializeState(GROUP, TOPIC, P, 0, -1n);
  assert.equal((r2.records[0]!.value as { deliveryCompleteCount: number }).deliveryCompleteCount, -1);
});

test('initialize again: snapshot epoch + 1, a higher state epoch; a lower state epoch is FENCED_STATE_EPOCH', () => {
  const shard = newShard();
  init(shard, 1);
  const again = shard.initializeState(GROUP, TOPIC, P, 2, 10n);
  assert.equal((again.records[0]!.value as { snapshotEpoch: number }).snapshotEpoch, 1);
  apply(shard, again);
  assert.equal(shard.stateEpochOf(KEY), 2);
  const fenced = shard.initializeState(GROUP, TOPIC, P, 1, 0n);
  assert.deepEqual(fenced.records, []);
  assert.equal(fenced.response.errorCode, E.FENCED_STATE_EPOCH);
  const negative = shard.initializeState(GROUP, TOPIC, P, -1, 0n);
  assert.deepEqual(negative.response, { errorCode: E.INVALID_REQUEST, errorMessage: NEGATIVE_STATE_EPOCH });
  const unknown = shard.initializeState(GROUP, OTHER_TOPIC, P, 0, 0n);
  assert.equal(unknown.response.errorCode, E.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal(unknown.response.errorMessage, 'This server does not host this topic-partition.');
  assert.equal(shard.initializeState(GROUP, TOPIC, 5, 0, 0n).response.errorCode, E.UNKNOWN_TOPIC_OR_PARTITION);
});

test('testReplayWithShareSnapshot: a snapshot replaces the state and raises the leader epoch', () => {
  const shard = newShard();
  const snap = (
    snapshotEpoch: number,
    stateEpoch: number,
    leaderEpoch: number,
    b: PersisterStateBatch,
  ): ShareRecord => ({
    type: 'ShareSnapshot',
    key: KEY,
    value: {
      snapshotEpoch,
      stateEpoch,
      leaderEpoch,
      startOffset: 0n,
      deliveryCompleteCount: 11,
      createTimestamp: 0n,
      writeTimestamp: 0n,
      stateBatches: [b],
    },
  });
  shard.replay(snap(0, 0, 1, batch(0, 10, 0, 1)));
  assert.equal(shard.leaderEpochOf(KEY), 1);
  assert.deepEqual(shard.stateOf(KEY)!.stateBatches, [batch(0, 10, 0, 1)]);
  shard.replay(snap(1, 1, 2, batch(11, 12, 0, 1)));
  assert.equal(shard.leaderEpochOf(KEY), 2);
  assert.equal(shard.stateEpochOf(KEY), 1);
  assert.deepEqual(shard.stateOf(KEY)!.stateBatches, [batch(11, 12, 0, 1)]);
});

test('testWriteFailsOnUninitializedPartition and the request checks', () => {
  const shard = newShard();
  const r = shard.writeState(GROUP, TOPIC, write());
  assert.deepEqual(r, {
    records: [],
    response: { errorCode: E.INVALID_REQUEST, errorMessage: WRITE_UNINITIALIZED_SHARE_PARTITION },
  });
  assert.equal(shard.stateOf(KEY), undefined);
  assert.deepEqual(shard.writeState(GROUP, TOPIC, write({ partition: -1 })).response, {
    errorCode: E.INVALID_REQUEST,
    errorMessage: NEGATIVE_PARTITION_ID,
  });
  assert.deepEqual(shard.writeState(GROUP, TOPIC, write({ leaderEpoch: -1 })).response, {
    errorCode: E.INVALID_REQUEST,
    errorMessage: NEGATIVE_LEADER_EPOCH,
  });
  assert.deepEqual(shard.writeState(GROUP, TOPIC, write({ stateEpoch: -1 })).response, {
    errorCode: E.INVALID_REQUEST,
    errorMessage: NEGATIVE_STATE_EPOCH,
  });
});

test('testWriteStateSuccess / testSubsequentWriteStateSnapshotEpochUpdatesSuccessfully: ShareUpdate records, batches combined', () => {
  const shard = newShard();
  init(shard);
  const r1 = shard.writeState(GROUP, TOPIC, write());
  assert.deepEqual(r1.response, { errorCode: E.NONE, errorMessage: null });
  assert.equal(r1.records.length, 1);
  assert.deepEqual(r1.records[0], {
    type: 'ShareUpdate',
    key: KEY,
    value: {
      snapshotEpoch: 0,
      startOffset: 0n,
      deliveryCompleteCount: 11,
      leaderEpoch: 0,
      stateBatches: [batch(0, 10, 0, 1)],
    },
  });
  apply(shard, r1);
  apply(
    shard,
    shard.writeState(GROUP, TOPIC, write({ deliveryCompleteCount: 21, stateBatches: [batch(11, 20, 0, 1)] })),
  );
  const s = shard.stateOf(KEY)!;
  assert.equal(s.snapshotEpoch, 0);
  assert.equal(s.leaderEpoch, 0);
  assert.equal(s.deliveryCompleteCount, 21);
  // the batches combined to 1 since same state
  assert.deepEqual(s.stateBatches, [batch(0, 20, 0, 1)]);
});

test('a ShareSnapshot replaces the updates every share.coordinator.snapshot.update.records.per.snapshot writes', () => {
  const shard = newShard(2);
  init(shard);
  const types: string[] = [];
  for (let i = 0; i < 6; i++) {
    const r = shard.writeState(
      GROUP,
      TOPIC,
      write({ stateBatches: [batch(i * 10, i * 10 + 9, i % 2 === 0 ? 0 : 2, 1)] }),
    );
    types.push(`${r.records[0]!.type}:${(r.records[0]!.value as { snapshotEpoch: number }).snapshotEpoch}`);
    apply(shard, r);
  }
  // updates counted from the snapshot: 0 -> update(1), update(2) -> snapshot (count reset) ...
  assert.deepEqual(types, [
    'ShareUpdate:0',
    'ShareUpdate:0',
    'ShareSnapshot:1',
    'ShareUpdate:1',
    'ShareUpdate:1',
    'ShareSnapshot:2',
  ]);
  const s = shard.stateOf(KEY)!;
  assert.equal(s.snapshotEpoch, 2);
  assert.deepEqual(
    s.stateBatches,
    [0, 1, 2, 3, 4, 5].map((i) => batch(i * 10, i * 10 + 9, i % 2 === 0 ? 0 : 2, 1)),
  );
});

test('the start offset only moves forward; batches before it are pruned', () => {
  const shard = newShard();
  init(shard);
  apply(shard, shard.writeState(GROUP, TOPIC, write({ startOffset: 0n, stateBatches: [batch(0, 20, 0, 1)] })));
  apply(shard, shard.writeState(GROUP, TOPIC, write({ startOffset: 15n, deliveryCompleteCount: 2, stateBatches: [] })));
  assert.equal(shard.stateOf(KEY)!.startOffset, 15n);
  assert.deepEqual(shard.stateOf(KEY)!.stateBatches, [batch(15, 20, 0, 1)]);
  // a lower start offset keeps 15 and the delivery complete count the state has
  const r = shard.writeState(GROUP, TOPIC, write({ startOffset: 3n, deliveryCompleteCount: 7, stateBatches: [] }));
  assert.equal((r.records[0]!.value as { startOffset: bigint }).startOffset, 15n);
  assert.equal((r.records[0]!.value as { deliveryCompleteCount: number }).deliveryCompleteCount, 2);
});

test('testNonSequentialBatchUpdates: a snapshot after the start offset moves keeps the batches in between', () => {
  const shard = newShard(0); // every write is a snapshot
  init(shard);
  apply(shard, shard.readState(GROUP, TOPIC, P, 0)); // no record: leader epoch 0 already
  apply(shard, shard.writeState(GROUP, TOPIC, write({ startOffset: 0n, deliveryCompleteCount: 0 })));
  const r1 = shard.writeState(
    GROUP,
    TOPIC,
    write({
      startOffset: 100n,
      deliveryCompleteCount: 0,
      stateBatches: [batch(100, 109, 1, 1), batch(110, 119, 1, 2), batch(120, 129, 1, 0)],
    }),
  );
  assert.equal(r1.records[0]!.type, 'ShareSnapshot');
  assert.equal((r1.records[0]!.value as { snapshotEpoch: number }).snapshotEpoch, 2);
  apply(shard, r1);
  // acknowledge b1 (start offset not updated: -1)
  apply(
    shard,
    shard.writeState(
      GROUP,
      TOPIC,
      write({ startOffset: -1n, deliveryCompleteCount: 10, stateBatches: [batch(100, 109, 2, 1)] }),
    ),
  );
  // acknowledge b3 and move the start offset to 110
  const r3 = shard.writeState(
    GROUP,
    TOPIC,
    write({ startOffset: 110n, deliveryCompleteCount: 10, stateBatches: [batch(120, 129, 2, 1)] }),
  );
  assert.deepEqual(r3.records[0], {
    type: 'ShareSnapshot',
    key: KEY,
    value: {
      snapshotEpoch: 4,
      startOffset: 110n,
      deliveryCompleteCount: 10,
      leaderEpoch: 0,
      stateEpoch: 0,
      // b2 not lost
      stateBatches: [batch(110, 119, 1, 2), batch(120, 129, 2, 1)],
      createTimestamp: BigInt(NOW),
      writeTimestamp: BigInt(NOW),
    },
  });
});

test('testReadStateLeaderEpochUpdateSuccess: an uninitialized start offset (-1) and the new leader epoch recorded', () => {
  const shard = newShard();
  init(shard, 0, -1n);
  const r = shard.readState(GROUP, TOPIC, P, 2);
  assert.deepEqual(r.response, {
    errorCode: E.NONE,
    errorMessage: null,
    stateEpoch: 0,
    startOffset: -1n,
    stateBatches: [],
  });
  assert.deepEqual(r.records, [
    {
      type: 'ShareUpdate',
      key: KEY,
      value: { snapshotEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1, leaderEpoch: 2, stateBatches: [] },
    },
  ]);
  apply(shard, r);
  assert.equal(shard.leaderEpochOf(KEY), 2);
  assert.deepEqual(shard.readState(GROUP, TOPIC, P, 2).records, []);
});

test('testWriteStateFencedLeaderEpochError / FencedStateEpoch: a newer leader read fences older writers', () => {
  const shard = newShard();
  init(shard, 1);
  // the leader with epoch 2 reads: its epoch is recorded with a ShareUpdate
  const read = shard.readState(GROUP, TOPIC, P, 2);
  assert.equal(read.records.length, 1);
  assert.equal(read.records[0]!.type, 'ShareUpdate');
  assert.equal((read.records[0]!.value as { leaderEpoch: number }).leaderEpoch, 2);
  apply(shard, read);
  assert.equal(shard.leaderEpochOf(KEY), 2);
  // the same epoch reads again: nothing written
  assert.deepEqual(shard.readState(GROUP, TOPIC, P, 2).records, []);
  const fenced = shard.writeState(GROUP, TOPIC, write({ leaderEpoch: 1, stateEpoch: 1 }));
  assert.deepEqual(fenced, {
    records: [],
    response: {
      errorCode: E.FENCED_LEADER_EPOCH,
      errorMessage: 'The leader epoch in the request is older than the epoch on the broker.',
    },
  });
  const staleState = shard.writeState(GROUP, TOPIC, write({ leaderEpoch: 2, stateEpoch: 0 }));
  assert.equal(staleState.response.errorCode, E.FENCED_STATE_EPOCH);
  const readFenced = shard.readState(GROUP, TOPIC, P, 1);
  assert.equal(readFenced.response.errorCode, E.FENCED_LEADER_EPOCH);
  assert.equal(shard.writeState(GROUP, TOPIC, write({ leaderEpoch: 2, stateEpoch: 1 })).response.errorCode, E.NONE);
});

test('read: uninitialized, negative leader epoch, unknown topic, success with batches', () => {
  const shard = newShard();
  assert.deepEqual(shard.readState(GROUP, TOPIC, P, 0).response, {
    errorCode: E.INVALID_REQUEST,
    errorMessage: READ_UNINITIALIZED_SHARE_PARTITION,
    stateEpoch: 0,
    startOffset: 0n,
    stateBatches: [],
  });
  init(shard);
  assert.equal(shard.readState(GROUP, TOPIC, P, -1).response.errorMessage, NEGATIVE_LEADER_EPOCH);
  apply(shard, shard.writeState(GROUP, TOPIC, write()));
  const r = shard.readState(GROUP, TOPIC, P, 0);
  assert.deepEqual(r.response.stateBatches, [batch(0, 10, 0, 1)]);
  assert.equal(shard.readState(GROUP, OTHER_TOPIC, P, 0).response.errorCode, E.INVALID_REQUEST); // not initialized
});

test('summary: uninitialized answers start offset -1; else the state, leader epoch and count', () => {
  const shard = newShard();
  assert.deepEqual(shard.readSummary(GROUP, TOPIC, P).response, {
    errorCode: E.NONE,
    errorMessage: null,
    startOffset: -1n,
    deliveryCompleteCount: -1,
    leaderEpoch: 0,
    stateEpoch: 0,
  });
  init(shard, 3, 7n);
  apply(shard, shard.readState(GROUP, TOPIC, P, 4));
  apply(
    shard,
    shard.writeState(GROUP, TOPIC, write({ stateEpoch: 3, leaderEpoch: 4, startOffset: 7n, deliveryCompleteCount: 2 })),
  );
  assert.deepEqual(shard.readSummary(GROUP, TOPIC, P).response, {
    errorCode: E.NONE,
    errorMessage: null,
    startOffset: 7n,
    deliveryCompleteCount: 2,
    leaderEpoch: 4,
    stateEpoch: 3,
  });
  assert.equal(shard.readSummary(GROUP, OTHER_TOPIC, P).response.errorCode, E.UNKNOWN_TOPIC_OR_PARTITION);
});

test('delete: a tombstone forgets the share-partition (epochs too); deleting nothing succeeds without records', () => {
  const shard = newShard();
  assert.deepEqual(shard.deleteState(GROUP, TOPIC, P), {
    records: [],
    response: { errorCode: E.NONE, errorMessage: null },
  });
  init(shard, 5);
  const d = shard.deleteState(GROUP, TOPIC, P);
  assert.deepEqual(d.records, [{ type: 'ShareSnapshot', key: KEY, value: null }]);
  apply(shard, d);
  assert.equal(shard.stateOf(KEY), undefined);
  assert.equal(shard.stateEpochOf(KEY), undefined);
  // the state epoch is forgotten: initializing with a lower one works again
  init(shard, 0);
});

test('maybeCleanupShareState: tombstones for the share-partitions of deleted topics only', () => {
  const shard = newShard();
  init(shard);
  apply(shard, shard.initializeState('g:with:colons', TOPIC, 1, 0, 0n));
  const none = shard.cleanupDeletedTopics(new Set([OTHER_TOPIC]));
  assert.deepEqual(none.records, []);
  const r = shard.cleanupDeletedTopics(new Set([TOPIC]));
  assert.deepEqual(
    r.records,
    [KEY, { groupId: 'g:with:colons', topicId: TOPIC, partition: 1 }].map((key) => ({
      type: 'ShareSnapshot',
      key,
      value: null,
    })),
  );
  apply(shard, r);
  assert.equal(shard.size, 0);
});

test('records: Kafka layout (type 0 snapshot / 1 update key, value version 0), tombstone, round trip', () => {
  const shard = newShard();
  const initRec = shard.initializeState(GROUP, TOPIC, P, 0, 0n).records[0]!;
  const enc = encodeShareRecord(initRec);
  assert.equal(enc.key.readInt16BE(0), 0);
  assert.equal(enc.value!.readInt16BE(0), 0);
  // key: type, group (int16 length + bytes), uuid, partition
  assert.equal(enc.key.length, 2 + 2 + GROUP.length + 16 + 4);
  assert.deepEqual(decodeShareRecord(enc.key, enc.value), initRec);
  apply(shard, { records: [initRec], response: null });
  const upd = shard.writeState(GROUP, TOPIC, write()).records[0]!;
  const e2 = encodeShareRecord(upd);
  assert.equal(e2.key.readInt16BE(0), 1);
  assert.deepEqual(decodeShareRecord(e2.key, e2.value), upd);
  const tomb = encodeShareRecord({ type: 'ShareSnapshot', key: KEY, value: null });
  assert.equal(tomb.value, null);
  assert.deepEqual(decodeShareRecord(tomb.key, null), { type: 'ShareSnapshot', key: KEY, value: null });
});

test('PersisterStateBatchCombiner cases', () => {
  // no overlap, different states: kept, sorted
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1)], [batch(90, 99, 2, 1)], -1n), [
    batch(90, 99, 2, 1),
    batch(100, 110, 0, 1),
  ]);
  // contiguous same state: merged
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1)], [batch(111, 120, 0, 1)], -1n), [batch(100, 120, 0, 1)]);
  // same offsets, higher delivery count wins
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1)], [batch(100, 110, 0, 2)], -1n), [batch(100, 110, 0, 2)]);
  // a higher-priority batch inside a lower one splits it
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1)], [batch(105, 106, 4, 1)], -1n), [
    batch(100, 104, 0, 1),
    batch(105, 106, 4, 1),
    batch(107, 110, 0, 1),
  ]);
  // a lower-priority batch inside a higher one disappears
  assert.deepEqual(combineStateBatches([batch(100, 110, 2, 3)], [batch(105, 106, 0, 1)], -1n), [batch(100, 110, 2, 3)]);
  // overlapping tail, higher priority later batch
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1)], [batch(105, 120, 2, 1)], -1n), [
    batch(100, 104, 0, 1),
    batch(105, 120, 2, 1),
  ]);
  // overlapping tail, lower priority later batch keeps only its part past the first
  assert.deepEqual(combineStateBatches([batch(100, 110, 2, 1)], [batch(105, 120, 0, 1)], -1n), [
    batch(100, 110, 2, 1),
    batch(111, 120, 0, 1),
  ]);
  // pruned at the start offset
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1), batch(111, 120, 2, 1)], [], 105n), [
    batch(105, 110, 0, 1),
    batch(111, 120, 2, 1),
  ]);
  assert.deepEqual(combineStateBatches([batch(100, 110, 0, 1)], [], 111n), []);
});

test('FindCoordinator SHARE keys: SharePartitionKey.getInstance(String) and asCoordinatorKey', () => {
  assert.equal(shareCoordinatorKey(`g1:${TOPIC}:3`), `g1:${TOPIC}:3`);
  // the group id is everything before the last two parts
  assert.equal(shareCoordinatorKey(`a:b:${TOPIC}:0`), `a:b:${TOPIC}:0`);
  // Java's split drops trailing empty parts; Integer.parseInt takes a sign; padding is accepted
  assert.equal(shareCoordinatorKey(`g1:${TOPIC}:+7:`), `g1:${TOPIC}:7`);
  assert.equal(shareCoordinatorKey(`g1:${TOPIC}==:-1`), `g1:${TOPIC}:-1`);
  for (const bad of [
    '',
    'g1',
    `g1:${TOPIC}`,
    `g1:${TOPIC}:`,
    ` :${TOPIC}:0`,
    'g1:x:0',
    `g1:${TOPIC}:p`,
    `g1:${TOPIC}:2147483648`,
  ])
    assert.equal(shareCoordinatorKey(bad), null, bad);
});

// ---- the coordinator over a log

function coordinatorOver(log: CoordinatorLog, numPartitions = 3): ShareCoordinator {
  return new ShareCoordinator({
    numPartitions,
    recordsPerSnapshot: 500,
    log,
    partitionCount: (id) => (id === TOPIC ? 5 : undefined),
    clock: () => NOW,
  });
}

const req = <P>(partitions: P[], groupId = GROUP, topicId = TOPIC) => ({ groupId, topics: [{ topicId, partitions }] });

test('ShareCoordinatorService: partitionFor is abs(hash("group:topicId:partition")) % n; errors before start-up and off-coordinator', async () => {
  const log = new MemoryCoordinatorLog(() => NOW);
  const c = coordinatorOver(log, 50);
  assert.equal(asCoordinatorKey(KEY), `${GROUP}:${TOPIC}:0`);
  assert.equal(c.partitionFor(KEY), coordinatorPartition(`${GROUP}:${TOPIC}:0`, 50));
  // not started: COORDINATOR_NOT_AVAILABLE for every share-partition
  const notActive = await c.readState(req([{ partition: 0, leaderEpoch: 0 }]));
  assert.equal(notActive.results![0]!.partitions![0]!.errorCode, E.COORDINATOR_NOT_AVAILABLE);
  assert.equal(notActive.results![0]!.partitions![0]!.errorMessage, 'Share coordinator is not available.');
  c.startup();
  // empty group id, no topics, a topic without partitions: an empty answer
  assert.deepEqual(await c.readState(req([{ partition: 0, leaderEpoch: 0 }], '')), { results: [] });
  assert.deepEqual(await c.writeState({ groupId: GROUP, topics: [] }), { results: [] });
  assert.deepEqual(await c.deleteState(req([])), { results: [] });
  // the partition is not loaded here
  const nc = await c.initializeState(req([{ partition: 0, stateEpoch: 0, startOffset: 0n }]));
  assert.deepEqual(nc.results, [
    {
      topicId: TOPIC,
      partitions: [
        {
          partition: 0,
          errorCode: E.NOT_COORDINATOR,
          errorMessage: 'Unable to initialize share group state: This is not the correct coordinator.',
        },
      ],
    },
  ]);
});

test('the coordinator writes to its partition; a reload from the log (a restart) gives the same answers', async () => {
  const log = new MemoryCoordinatorLog(() => NOW);
  const c = coordinatorOver(log);
  c.startup();
  for (let p = 0; p < 3; p++) await c.loadPartition(p);
  const parts = [0, 1, 2, 3, 4];
  const init = await c.initializeState(req(parts.map((partition) => ({ partition, stateEpoch: 1, startOffset: 0n }))));
  assert.deepEqual(
    init.results![0]!.partitions!.map((p) => p.errorCode),
    parts.map(() => E.NONE),
  );
  const w = await c.writeState(
    req(
      parts.map((partition) => ({
        partition,
        stateEpoch: 1,
        leaderEpoch: 3,
        startOffset: 10n,
        deliveryCompleteCount: 1,
        stateBatches: [{ firstOffset: 10n, lastOffset: 19n, deliveryState: 0, deliveryCount: partition + 1 }],
      })),
    ),
  );
  assert.deepEqual(
    w.results![0]!.partitions!.map((p) => p.errorCode),
    parts.map(() => E.NONE),
  );
  const read = async (co: ShareCoordinator) =>
    (await co.readState(req(parts.map((partition) => ({ partition, leaderEpoch: 3 }))))).results![0]!.partitions;
  const before = await read(c);
  assert.deepEqual(
    before!.map((p) => [p.errorCode, p.stateEpoch, p.startOffset, p.stateBatches![0]!.deliveryCount]),
    parts.map((p) => [E.NONE, 1, 10n, p + 1]),
  );
  // initialize, a leader epoch read (the write keeps the state's epoch 0, the read records 3), write
  let total = 0;
  for (const recs of log.partitions.values()) total += recs.length;
  assert.equal(total, parts.length * 3);
  // restart: a new coordinator loads the same log
  const c2 = coordinatorOver(log);
  c2.startup();
  for (let p = 0; p < 3; p++) await c2.loadPartition(p);
  assert.deepEqual(await read(c2), before);
  // the delete is durable too
  await c2.deleteState(req([{ partition: 2 }]));
  const c3 = coordinatorOver(log);
  c3.startup();
  for (let p = 0; p < 3; p++) await c3.loadPartition(p);
  const after = (await c3.readState(req([{ partition: 2, leaderEpoch: 3 }]))).results![0]!.partitions![0]!;
  assert.equal(after.errorCode, E.INVALID_REQUEST);
  assert.equal(after.errorMessage, READ_UNINITIALIZED_SHARE_PARTITION);
});

test('a failed append answers the share-partition with the coordinator error and changes nothing', async () => {
  const log = new MemoryCoordinatorLog(() => NOW);
  const c = coordinatorOver(log, 1);
  c.startup();
  await c.loadPartition(0);
  log.failWith = E.NOT_LEADER_OR_FOLLOWER;
  const r = await c.initializeState(req([{ partition: 0, stateEpoch: 0, startOffset: 0n }]));
  assert.equal(r.results![0]!.partitions![0]!.errorCode, E.NOT_COORDINATOR);
  assert.match(r.results![0]!.partitions![0]!.errorMessage!, /^Unable to initialize share group state: /);
  log.failWith = E.NOT_ENOUGH_REPLICAS;
  const r2 = await c.initializeState(req([{ partition: 0, stateEpoch: 0, startOffset: 0n }]));
  assert.equal(r2.results![0]!.partitions![0]!.errorCode, E.COORDINATOR_NOT_AVAILABLE);
  log.failWith = null;
  const s = await c.readStateSummary(req([{ partition: 0, leaderEpoch: 0 }]));
  assert.equal(s.results![0]!.partitions![0]!.startOffset, -1n);
});

test('record pruning: the records before the oldest latest snapshot are deleted once (ShareCoordinatorOffsetsManager)', async () => {
  const log = new MemoryCoordinatorLog(() => NOW);
  const c = new ShareCoordinator({
    numPartitions: 1,
    recordsPerSnapshot: 0,
    log,
    partitionCount: (id) => (id === TOPIC ? 5 : undefined),
    clock: () => NOW,
  });
  c.startup();
  await c.loadPartition(0);
  const deletes: [number, number][] = [];
  const prune = () =>
    c.pruneRecords(async (p, offset) => {
      deletes.push([p, offset]);
      return E.NONE;
    });
  await prune();
  assert.deepEqual(deletes, [], 'nothing written, nothing redundant');
  await c.initializeState(req([0, 1].map((partition) => ({ partition, stateEpoch: 0, startOffset: 0n })))); // offsets 0, 1
  const w = (partition: number) =>
    c.writeState(
      req([{ partition, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [] }]),
    );
  await w(0); // snapshot at 2
  await w(1); // snapshot at 3
  await prune();
  assert.deepEqual(deletes, [[0, 2]]);
  await prune();
  assert.deepEqual(deletes, [[0, 2]], 'already pruned till 2');
  await c.deleteState(req([{ partition: 0 }])); // tombstone at 4: partition 0 no longer counts
  await prune();
  assert.deepEqual(deletes, [
    [0, 2],
    [0, 3],
  ]);
  // a reload computes the same offsets from the log
  const c2 = new ShareCoordinator({
    numPartitions: 1,
    recordsPerSnapshot: 0,
    log,
    partitionCount: (id) => (id === TOPIC ? 5 : undefined),
  });
  c2.startup();
  await c2.loadPartition(0);
  const again: number[] = [];
  await c2.pruneRecords(async (_p, offset) => {
    again.push(offset);
    return E.NONE;
  });
  assert.deepEqual(again, [3]);
});

test('snapshotColdPartitions: a share-partition whose last snapshot is old gets a new one, once', () => {
  let now = NOW;
  const shard = new ShareCoordinatorShard({ recordsPerSnapshot: 500, partitionCount: () => 5, clock: () => now });
  apply(shard, shard.initializeState(GROUP, TOPIC, 0, 0, 0n));
  apply(shard, shard.writeState(GROUP, TOPIC, write()));
  now += 1000;
  assert.deepEqual(shard.snapshotColdPartitions(5000).records, [], 'not old enough');
  now += 5000;
  const r = shard.snapshotColdPartitions(5000);
  assert.deepEqual(r.records, [
    {
      type: 'ShareSnapshot',
      key: KEY,
      value: {
        snapshotEpoch: 1,
        stateEpoch: 0,
        leaderEpoch: 0,
        startOffset: 0n,
        deliveryCompleteCount: 11,
        createTimestamp: BigInt(NOW),
        writeTimestamp: BigInt(now),
        stateBatches: [batch(0, 10, 0, 1)],
      },
    },
  ]);
  apply(shard, r);
  now += 60_000;
  // every state was cold-snapshotted (write timestamp != create timestamp): skipped
  assert.deepEqual(shard.snapshotColdPartitions(5000).records, []);
});

test('a share-partition of a loading shard answers COORDINATOR_LOAD_IN_PROGRESS; once loaded, its state', async () => {
  const log = new MemoryCoordinatorLog(() => NOW);
  const first = coordinatorOver(log, 1);
  first.startup();
  await first.loadPartition(0);
  await first.initializeState(req([{ partition: 0, stateEpoch: 4, startOffset: 9n }]));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slowLog: CoordinatorLog = {
    append: (p, records) => log.append(p, records),
    read: async (p, from, onBatch) => {
      await gate;
      return log.read(p, from, onBatch);
    },
  };
  const c = coordinatorOver(slowLog, 1);
  c.startup();
  const loading = c.loadPartition(0);
  const during = await c.readStateSummary(req([{ partition: 0, leaderEpoch: 0 }]));
  assert.deepEqual(
    during.results![0]!.partitions!.map((p) => [p.errorCode, p.errorMessage]),
    [
      [
        E.COORDINATOR_LOAD_IN_PROGRESS,
        "Unable to read share group state summary: The coordinator is loading and hence can't process requests.",
      ],
    ],
  );
  release();
  await loading;
  const after = await c.readStateSummary(req([{ partition: 0, leaderEpoch: 0 }]));
  assert.deepEqual(
    after.results![0]!.partitions!.map((p) => [p.errorCode, p.stateEpoch, p.startOffset]),
    [[E.NONE, 4, 9n]],
  );
});

// ---- persisters

test('InMemoryPersister: the shard semantics without a log', async () => {
  const p = new InMemoryPersister();
  assert.equal(
    (
      await p.writeState(KEY, {
        stateEpoch: 0,
        leaderEpoch: 0,
        startOffset: 0n,
        deliveryCompleteCount: 0,
        stateBatches: [],
      })
    ).errorCode,
    E.INVALID_REQUEST,
  );
  assert.equal((await p.initializeState(KEY, 0, 0n)).errorCode, E.NONE);
  assert.equal(
    (
      await p.writeState(KEY, {
        stateEpoch: 0,
        leaderEpoch: 1,
        startOffset: 0n,
        deliveryCompleteCount: 1,
        stateBatches: [batch(0, 4, 2, 1)],
      })
    ).errorCode,
    E.NONE,
  );
  const r = await p.readState(KEY, 1);
  assert.deepEqual(r.stateBatches, [batch(0, 4, 2, 1)]);
  assert.equal((await p.readSummary(KEY, 1)).leaderEpoch, 1);
  assert.equal((await p.readState(KEY, 0)).errorCode, E.FENCED_LEADER_EPOCH);
  assert.equal((await p.deleteState(KEY)).errorCode, E.NONE);
  assert.equal((await p.readSummary(KEY, 1)).startOffset, -1n);
  p.failWith = E.COORDINATOR_NOT_AVAILABLE;
  assert.equal((await p.readState(KEY, 1)).errorCode, E.COORDINATOR_NOT_AVAILABLE);
  assert.deepEqual(
    p.calls.map((c) => c.op),
    ['write', 'initialize', 'write', 'read', 'summary', 'read', 'delete', 'summary', 'read'],
  );
});

test('DefaultStatePersister: one RPC per (rpc, group, node) per tick, coordinator errors retried after a new lookup', async () => {
  const log = new MemoryCoordinatorLog(() => NOW);
  const c = coordinatorOver(log, 1);
  c.startup();
  let finds = 0;
  const rpcs: { nodeId: number; api: string; partitions: number }[] = [];
  let loaded = false;
  const transport: PersisterTransport = {
    localNodeId: 1,
    async findCoordinator() {
      finds++;
      // the first lookup: the state topic is being created
      if (finds === 1) return { errorCode: E.COORDINATOR_NOT_AVAILABLE, nodeId: -1 };
      return { errorCode: E.NONE, nodeId: 1 };
    },
    async local() {
      rpcs.push({ nodeId: 1, api: 'local', partitions: -1 });
      if (!loaded) {
        // the partition loads after the first RPC reached the coordinator (NOT_COORDINATOR once)
        loaded = true;
        setImmediate(() => void c.loadPartition(0));
      }
      return c;
    },
    async send() {
      throw new Error('no remote node in this test');
    },
  };
  const persister = new DefaultStatePersister(transport, { backoffMs: 5, backoffMaxMs: 20, maxAttempts: 5, jitter: 0 });
  const keys = [0, 1, 2].map((partition) => ({ groupId: GROUP, topicId: TOPIC, partition }));
  const results = await Promise.all(keys.map((k) => persister.initializeState(k, 0, 0n)));
  assert.deepEqual(
    results.map((r) => r.errorCode),
    [E.NONE, E.NONE, E.NONE],
  );
  const read = await Promise.all(keys.map((k) => persister.readState(k, 0)));
  assert.deepEqual(
    read.map((r) => [r.errorCode, r.startOffset]),
    keys.map(() => [E.NONE, 0n]),
  );
  // the three reads went as one RPC
  const before = rpcs.length;
  await Promise.all(keys.map((k) => persister.readSummary(k, 0)));
  assert.equal(rpcs.length - before, 1);
  // a coordinator error that persists is the answer after the attempts
  await c.unloadPartition(0);
  const failed = await persister.readState(keys[0]!, 0);
  assert.equal(failed.errorCode, E.NOT_COORDINATOR);
  persister.close();
});
