// The chaos checker (test/chaos/checker.ts) judged on crafted histories: a clean one passes, and
// each kind of wrong history (a lost acknowledgement, a duplicate, a reordering, a phantom, an
// aborted record visible, a partly visible transaction) fails with its count, so the checker
// provably can fail. Also the seeded fault schedule: the same seed gives the same faults.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, summaryLine } from './chaos/checker.js';
import { countFaults, schedule } from './chaos/faults.js';
import { parseHistory } from './chaos/history.js';

/** Two idempotent acks on partition 0, a committed and an aborted transaction, and what was read. */
const PRODUCED = [
  'A i0g0 0 0 0',
  'A i0g0 1 0 1',
  'F i0g0 2 0 TimeoutException',
  'T t0g0 0 2',
  'TA t0g0 0 0 1 0',
  'TA t0g0 0 1 0 2',
  'C t0g0 0',
  'T t0g0 1 2',
  'X t0g0 1',
  'T t0g0 2 2',
  'U t0g0 2 TimeoutException',
].join('\n');
const READ = ['R 0 0 i0g0-0', 'R 0 1 i0g0-1', 'R 0 2 t0g0-0-1', 'R 1 0 t0g0-0-0'];

const judge = (read: string[], produced = PRODUCED): ReturnType<typeof check> =>
  check(parseHistory(`${produced}\n${read.join('\n')}`));

test('a clean history passes, and its summary line says so', () => {
  const r = judge(READ);
  assert.equal(r.ok, true, r.problems.join('\n'));
  assert.equal(r.acked, 4);
  assert.deepEqual(r.txns, { committed: 1, aborted: 1, unknown: 1 });
  assert.equal(
    summaryLine(7, { kill: 1, pause: 2, partition: 3 }, r),
    'chaos: seed=7 faults=6 (kill=1 pause=2 partition=3) acked=4 lost=0 duplicated=0 reordered=0 phantom=0 ' +
      'txns=1c/1a/1u aborted_visible=0 partial_txns=0 read=4 OK',
  );
});

test('a failed (unacknowledged) record may appear once, and a transaction of unknown outcome entirely', () => {
  const r = judge([...READ, 'R 0 3 i0g0-2', 'R 0 4 t0g0-2-0', 'R 1 1 t0g0-2-1']);
  assert.equal(r.ok, true, r.problems.join('\n'));
});

test('a lost acknowledged record fails: missing, or another record at its offset', () => {
  const missing = judge(READ.filter((l) => l !== 'R 0 1 i0g0-1'));
  assert.equal(missing.ok, false);
  assert.equal(missing.lost, 1);
  assert.match(missing.problems.join('\n'), /lost: i0g0-1 acknowledged at partition 0 offset 1, read there: nothing/);
  // the leader acknowledged offset 1, a new leader's log has another record there (truncated suffix)
  const replaced = judge(['R 0 0 i0g0-0', 'R 0 1 i0g0-2', 'R 0 2 t0g0-0-1', 'R 1 0 t0g0-0-0']);
  assert.equal(replaced.lost, 1);
  assert.equal(replaced.ok, false);
  // present but elsewhere: still lost at its offset
  const moved = judge(['R 0 0 i0g0-0', 'R 0 2 t0g0-0-1', 'R 0 3 i0g0-1', 'R 1 0 t0g0-0-0']);
  assert.equal(moved.lost, 1);
  assert.match(moved.problems.join('\n'), /read at 0@3/);
});

test('a duplicate fails, acknowledged or not', () => {
  const acked = judge([...READ, 'R 0 3 i0g0-0']);
  assert.equal(acked.ok, false);
  assert.equal(acked.duplicated, 1);
  const unacked = judge([...READ, 'R 0 3 i0g0-2', 'R 0 4 i0g0-2']);
  assert.equal(unacked.ok, false);
  assert.equal(unacked.duplicated, 1);
});

test('acknowledgements out of order fail', () => {
  const produced = ['A i0g0 1 0 0', 'A i0g0 0 0 1'].join('\n');
  const r = judge(['R 0 0 i0g0-1', 'R 0 1 i0g0-0'], produced);
  assert.equal(r.lost, 0);
  assert.equal(r.reordered, 1);
  assert.equal(r.ok, false);
});

test('a partly visible committed transaction fails', () => {
  const r = judge(READ.filter((l) => l !== 'R 1 0 t0g0-0-0'));
  assert.equal(r.ok, false);
  assert.equal(r.partialTxns, 1);
  assert.match(r.problems.join('\n'), /committed t0g0\/0 has 1 of 2 records visible/);
});

test('a partly visible transaction of unknown outcome fails', () => {
  const r = judge([...READ, 'R 0 3 t0g0-2-1']);
  assert.equal(r.ok, false);
  assert.equal(r.partialTxns, 1);
});

test('a record of an aborted transaction visible to read_committed fails', () => {
  const r = judge([...READ, 'R 0 3 t0g0-1-0']);
  assert.equal(r.ok, false);
  assert.equal(r.abortedVisible, 1);
});

test('a record nobody wrote fails (phantom)', () => {
  const r = judge([...READ, 'R 0 3 i9g9-0']);
  assert.equal(r.ok, false);
  assert.equal(r.phantom, 1);
});

test('a malformed history line is an error, not a pass', () => {
  assert.throws(() => parseHistory('A i0g0 0 0'), /history line 1 is malformed/);
  assert.throws(() => parseHistory('C t0g0 5'), /never begun/);
});

test('the schedule is a function of the seed, and draws every kind', () => {
  const a = schedule({ seed: 42, count: 40, brokers: [2, 3, 4] });
  assert.deepEqual(a, schedule({ seed: 42, count: 40, brokers: [2, 3, 4] }));
  assert.notDeepEqual(a, schedule({ seed: 43, count: 40, brokers: [2, 3, 4] }));
  const kinds = new Set(a.map((f) => f.kind));
  for (const k of ['kill', 'pause', 'isolate', 'zombie']) assert.ok(kinds.has(k as never), `kind ${k} drawn`);
  const counts = countFaults(a);
  assert.equal(counts.kill + counts.pause + counts.partition, 40);
  // every kind in each round of three: 21 faults are 7 of each
  assert.deepEqual(countFaults(schedule({ seed: 5, count: 21, brokers: [2, 3, 4] })), {
    kill: 7,
    pause: 7,
    partition: 7,
  });
  for (const f of a) assert.ok(f.holdMs >= 2000 && f.holdMs <= 12_000 && [2, 3, 4].includes(f.broker));
});
