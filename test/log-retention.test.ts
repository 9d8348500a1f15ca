import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock, ls, openLog, removeDir, simpleBatch, tempDir, testConfig } from './helpers/log-fixtures.js';
import { OffsetOutOfRangeError } from '../src/broker/log/log-errors.js';
import { waitFor } from './helpers/wait-for.js';

const S = simpleBatch(1, 0).length;

test('retention.ms deletes segments whose largest timestamp is too old, never past the high watermark', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock(100_000);
    const log = await openLog(dir, {
      clock: clock.now,
      config: testConfig({ segmentBytes: 2 * S, retentionMs: 10_000 }),
    });
    // segments [0,1] ts 1000/1001, [2,3] ts 50000/50001, [4,5] ts 95000/95001, [6] ts 99000
    for (const ts of [1000, 1001, 50_000, 50_001, 95_000, 95_001, 99_000])
      await log.appendAsLeader(simpleBatch(1, ts), 0);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 2, 4, 6],
    );
    assert.equal(await log.deleteOldSegments(), 0, 'high watermark 0: nothing is deletable');
    log.updateHighWatermark(log.logEndOffset);
    assert.equal(await log.deleteOldSegments(), 2);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [4, 6],
    );
    assert.equal(log.logStartOffset, 4);
    assert.equal((await log.read(3, 1000)).error, 'OFFSET_OUT_OF_RANGE');
    assert.ok(
      !(await ls(log.dir)).some((f) => f.startsWith('00000000000000000000')),
      'files removed (file.delete.delay.ms=0)',
    );
    // everything expires: the active segment is rolled first, then deleted; an empty segment at the log end remains
    clock.advance(1_000_000);
    assert.equal(await log.deleteOldSegments(), 2);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [7],
    );
    assert.equal(log.logStartOffset, 7);
    assert.equal(log.logEndOffset, 7);
    // an empty active segment is never deleted
    assert.equal(await log.deleteOldSegments(), 0);
    await log.appendAsLeader(simpleBatch(1, clock.ms), 0);
    assert.equal(log.logEndOffset, 8);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('retention.bytes deletes the oldest segments while the log is too large', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, {
      config: testConfig({ segmentBytes: 2 * S, retentionBytes: 3 * S, retentionMs: -1 }),
    });
    for (let i = 0; i < 7; i++) await log.appendAsLeader(simpleBatch(1, i), 0);
    log.updateHighWatermark(7);
    assert.equal(log.size, 7 * S);
    // diff = 4S: deleting [0,1] (2S) and [2,3] (2S) brings it to exactly 3S
    assert.equal(await log.deleteOldSegments(), 2);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [4, 6],
    );
    assert.equal(log.size, 3 * S);
    assert.equal(await log.deleteOldSegments(), 0);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('deleted segments are renamed to .deleted and unlinked after file.delete.delay.ms', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, {
      // the delay must outlast deleteOldSegments' own writes, or the .deleted files are gone before they are
      // looked at (the same race failed log-manager's deleteLog test once on a loaded machine)
      config: testConfig({ segmentBytes: 2 * S, retentionBytes: 2 * S, fileDeleteDelayMs: 2000 }),
    });
    for (let i = 0; i < 5; i++) await log.appendAsLeader(simpleBatch(1, i), 0);
    log.updateHighWatermark(5);
    await log.deleteOldSegments();
    const files = await ls(log.dir);
    assert.ok(files.includes('00000000000000000000.log.deleted'));
    assert.ok(files.includes('00000000000000000000.index.deleted'));
    assert.ok(files.includes('00000000000000000000.timeindex.deleted'));
    assert.ok(!files.includes('00000000000000000000.log'));
    await waitFor(async () => !(await ls(log.dir)).some((f) => f.endsWith('.deleted')), {
      what: 'the .deleted files to go',
      timeoutMs: 15_000,
    });
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('DeleteRecords moves the log start offset; retention then drops whole segments below it', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, { config: testConfig({ segmentBytes: 2 * S, retentionMs: -1 }) });
    for (let i = 0; i < 7; i++) await log.appendAsLeader(simpleBatch(1, i), 3);
    log.updateHighWatermark(6);
    await assert.rejects(log.deleteRecordsBefore(7), OffsetOutOfRangeError);
    assert.equal(await log.deleteRecordsBefore(3), 3);
    assert.equal(log.logStartOffset, 3);
    assert.equal((await log.read(2, 1000)).error, 'OFFSET_OUT_OF_RANGE');
    assert.equal((await log.read(3, 1000)).records.readBigInt64BE(0), 3n);
    assert.deepEqual(await log.offsetForTimestamp(-2), { timestamp: -1, offset: 3, leaderEpoch: 3 });
    assert.deepEqual(log.epochCache.entries(), [{ epoch: 3, startOffset: 3 }]);
    assert.equal(await log.deleteRecordsBefore(1), 3, 'never moves backwards');
    // segment [0,1] lies wholly below 3; [2,3] does not
    assert.equal(await log.deleteOldSegments(), 1);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [2, 4, 6],
    );
    assert.equal(await log.deleteRecordsBefore(-1), 6, '-1 means the high watermark');
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('truncateTo removes later segments and the tail; epochs and high watermark follow', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, { config: testConfig({ segmentBytes: 2 * S }) });
    for (let i = 0; i < 7; i++) await log.appendAsLeader(simpleBatch(1, i), i < 3 ? 1 : 2);
    log.updateHighWatermark(7);
    assert.equal(await log.truncateTo(3), true);
    assert.equal(log.logEndOffset, 3);
    assert.equal(log.highWatermark, 3);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 2],
    );
    assert.deepEqual(log.epochCache.entries(), [{ epoch: 1, startOffset: 0 }]);
    const r = await log.appendAsLeader(simpleBatch(1, 9), 4);
    assert.equal(r.baseOffset, 3);
    assert.equal(await log.truncateTo(10), false);
    await log.truncateFullyAndStartAt(100);
    assert.equal(log.logStartOffset, 100);
    assert.equal(log.logEndOffset, 100);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [100],
    );
    assert.deepEqual(await ls(log.dir), [
      '00000000000000000100.index',
      '00000000000000000100.log',
      '00000000000000000100.timeindex',
      'leader-epoch-checkpoint',
    ]);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});
