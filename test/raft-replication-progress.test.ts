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

test('a voter set change: the added observer keeps its progress and counts, a removed voter becomes an observer', () => {
  const dir = (id: number) => ({ id, directoryId: `dir-of-voter-${id}-aaaaaa` });
  const p = new ReplicaProgress(dir(1), [dir(1)], 0);
  assert.equal(p.updateLocal(3), true);
  assert.equal(p.highWatermark, 3);
  p.updateReplica(dir(2), 3, 1000);
  assert.deepEqual(
    p.describeObservers(1000).map((r) => r.replicaId),
    [2],
  );
  // the leader appends the VotersRecord {1, 2} at offset 3: the new majority is both
  p.updateVoters([dir(1), dir(2)]);
  assert.equal(p.updateLocal(4), false, 'voter 2 has not fetched past the new record');
  assert.deepEqual(p.describeObservers(1000), []);
  assert.deepEqual(
    p.describeVoters(1000).map((r) => [r.replicaId, r.logEndOffset, r.lastFetchTimestamp]),
    [
      [1, 4, 1000],
      [2, 3, 1000],
    ],
  );
  assert.equal(p.updateReplica(dir(2), 4, 1001), true);
  assert.equal(p.highWatermark, 4);
  // removed again: an observer with its progress; the leader alone commits
  p.updateVoters([dir(1)]);
  assert.equal(p.updateLocal(5), true);
  assert.equal(p.highWatermark, 5);
  assert.deepEqual(
    p.describeObservers(1002).map((r) => [r.replicaId, r.logEndOffset]),
    [[2, 4]],
  );
  assert.equal(p.updateReplica(dir(2), 5, 1003), false, 'an observer again');
});
