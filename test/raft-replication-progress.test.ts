// ReplicaProgress (raft/replica-progress.ts), the leader's replica tracking as Kafka's LeaderState
// does it: the high watermark is the median voter's end offset once past the epoch start, never
// moves back, and observers never move it; caught-up and fetch timestamps; observers expire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OBSERVER_SESSION_TIMEOUT_MS, ReplicaProgress } from '../src/broker/raft/replica-progress.js';
import { ZERO_UUID } from '../src/protocol/uuid.js';

const key = (id: number) => ({ id, directoryId: ZERO_UUID });

test('three voters: the high watermark needs a majority past the epoch start', () => {
  const p = new ReplicaProgress(key(1), [key(1), key(2), key(3)], 10);
  assert.equal(p.updateLocal(15), false);
  assert.equal(p.highWatermark, -1);
  assert.equal(p.updateReplica(key(2), 10, 999), false, 'at the epoch start: nothing of this epoch committed');
  assert.equal(p.updateReplica(key(2), 12, 1000), true);
  assert.equal(p.highWatermark, 12);
  assert.equal(p.updateReplica(key(3), 15, 1001), true);
  assert.equal(p.highWatermark, 15);
  assert.equal(p.updateReplica(key(3), 11, 1002), false, 'never moves back');
  assert.equal(p.highWatermark, 15);
  assert.equal(p.updateReplica(key(7), 100, 1003), false, 'an observer does not count');
  assert.deepEqual(
    p.followersByDescendingEndOffset().map((k) => k.id),
    [2, 3],
  );
});

test('one voter: its own end offset commits', () => {
  const p = new ReplicaProgress(key(1), [key(1)], 0);
  assert.equal(p.updateLocal(1), true);
  assert.equal(p.highWatermark, 1);
});

test('caught-up timestamps, observers listed and expired', () => {
  const p = new ReplicaProgress(key(1), [key(1)], 0);
  p.updateLocal(20);
  p.updateReplica(key(9), 5, 1000);
  let o = p.describeObservers(1000).find((r) => r.replicaId === 9)!;
  assert.deepEqual([o.logEndOffset, o.lastFetchTimestamp, o.lastCaughtUpTimestamp], [5, 1000, -1]);
  p.updateLocal(30);
  // reached the leader end of its previous fetch (20): caught up as of that previous fetch
  p.updateReplica(key(9), 20, 2000);
  o = p.describeObservers(2000).find((r) => r.replicaId === 9)!;
  assert.equal(o.lastCaughtUpTimestamp, 1000);
  p.updateReplica(key(9), 30, 3000);
  o = p.describeObservers(3000).find((r) => r.replicaId === 9)!;
  assert.equal(o.lastCaughtUpTimestamp, 3000);
  const v = p.describeVoters(3500)[0]!;
  assert.deepEqual([v.replicaId, v.logEndOffset, v.lastFetchTimestamp, v.lastCaughtUpTimestamp], [1, 30, 3500, 3500]);
  assert.equal(p.describeObservers(3000 + OBSERVER_SESSION_TIMEOUT_MS).length, 0, 'silent for 5 minutes: dropped');
});
