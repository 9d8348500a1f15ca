import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { ManualClock, ls, openLog, removeDir, simpleBatch, tempDir, testConfig } from './helpers/log-fixtures.js';

const hex64 = (n: number) => n.toString(16).padStart(16, '0');
const hex32 = (n: number) => n.toString(16).padStart(8, '0');

test("index and timeindex bytes follow Kafka's index.interval.bytes rule exactly", async () => {
  const dir = await tempDir();
  try {
    const T = 1_700_000_000_000;
    const log = await openLog(dir, { config: testConfig({ indexIntervalBytes: 100, segmentIndexBytes: 4096 }) });
    const sizes: number[] = [];
    for (let i = 0; i < 7; i++) {
      const b = simpleBatch(1, T + i * 10);
      sizes.push(b.length);
      await log.appendAsLeader(b, 0);
    }
    const S = sizes[0]!;
    assert.ok(sizes.every((s) => s === S) && S < 100 && 2 * S > 100, `batch size ${S} suits the scenario`);
    const seg = path.join(log.dir, '00000000000000000000');
    // active: pre-allocated to segment.index.bytes
    assert.equal((await stat(seg + '.index')).size, 4096);
    assert.equal((await stat(seg + '.timeindex')).size, 4092);
    await log.close();
    // Chunks of S bytes: an entry is added when the bytes appended since the last entry, before this
    // chunk, exceed 100: before appends 3, 5 and 7 (0-based offsets 2, 4, 6) at the chunk start.
    const oi = await readFile(seg + '.index');
    assert.equal(oi.toString('hex'), [2, 4, 6].map((o) => hex32(o) + hex32(o * S)).join(''));
    // Same moments, (max timestamp so far, offset of the batch holding it); plus the final entry at close
    // (here equal to the last entry, so nothing is added).
    const ti = await readFile(seg + '.timeindex');
    assert.equal(ti.toString('hex'), [2, 4, 6].map((o) => hex64(T + o * 10) + hex32(o)).join(''));
  } finally {
    await removeDir(dir);
  }
});

test('close appends the final max timestamp to the time index', async () => {
  const dir = await tempDir();
  try {
    const T = 1_700_000_000_000;
    const log = await openLog(dir, { config: testConfig({ indexIntervalBytes: 100 }) });
    for (let i = 0; i < 4; i++) await log.appendAsLeader(simpleBatch(2, T + i), 0);
    await log.close();
    const ti = await readFile(path.join(log.dir, '00000000000000000000.timeindex'));
    // entry when appending the 3rd batch (offsets 4-5) and the final one for the 4th (offsets 6-7)
    assert.equal(ti.toString('hex'), hex64(T + 2) + hex32(5) + hex64(T + 3) + hex32(7));
  } finally {
    await removeDir(dir);
  }
});

test('roll by segment.bytes: new segment named by its 20-digit base offset, old indexes trimmed', async () => {
  const dir = await tempDir();
  try {
    const S = simpleBatch(1, 1000).length;
    const log = await openLog(dir, { config: testConfig({ segmentBytes: 3 * S, indexIntervalBytes: 1 }) });
    for (let i = 0; i < 7; i++) await log.appendAsLeader(simpleBatch(1, 1000 + i), 0);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 3, 6],
    );
    const files = await ls(log.dir);
    for (const base of ['00000000000000000000', '00000000000000000003', '00000000000000000006']) {
      for (const ext of ['.log', '.index', '.timeindex']) assert.ok(files.includes(base + ext), base + ext);
    }
    // the rolled segment: entries for the 2nd and 3rd append only (first append of a segment never indexes)
    assert.equal(
      (await readFile(path.join(log.dir, '00000000000000000000.index'))).toString('hex'),
      hex32(1) + hex32(S) + hex32(2) + hex32(2 * S),
    );
    assert.equal((await stat(path.join(log.dir, '00000000000000000000.log'))).size, 3 * S);
    const r = await log.read(0, 1 << 20);
    assert.equal(r.records.length, 3 * S, 'a read stops at the end of its segment');
    const r2 = await log.read(4, 1 << 20);
    assert.equal(r2.records.readBigInt64BE(0), 4n);
    assert.equal(r2.records.length, 2 * S, 'from offset 4 to the end of the second segment');
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('roll by segment.ms uses the record timestamps of the first batch and the new batch', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, { config: testConfig({ segmentMs: 1000 }) });
    await log.appendAsLeader(simpleBatch(1, 10_000), 0);
    await log.appendAsLeader(simpleBatch(1, 11_000), 0); // waited exactly 1000: no roll
    assert.equal(log.numberOfSegments, 1);
    await log.appendAsLeader(simpleBatch(1, 11_001), 0);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 2],
    );
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('roll when the index is full', async () => {
  const dir = await tempDir();
  try {
    // 24 bytes: 3 offset-index slots, 2 time-index slots (full at 1 entry: one slot is reserved)
    const log = await openLog(dir, { config: testConfig({ segmentIndexBytes: 24, indexIntervalBytes: 0 }) });
    await log.appendAsLeader(simpleBatch(1, 100), 0);
    await log.appendAsLeader(simpleBatch(1, 200), 0); // adds the first index entries
    assert.equal(log.numberOfSegments, 1);
    await log.appendAsLeader(simpleBatch(1, 300), 0);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 2],
    );
    const ti = await readFile(path.join(log.dir, '00000000000000000000.timeindex'));
    assert.equal(ti.length, 12, 'trimmed to its single entry (the roll entry has no larger timestamp)');
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('roll on an empty log with a clock and no timestamps uses the segment creation time', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock();
    const log = await openLog(dir, { clock: clock.now, config: testConfig({ segmentMs: 1000 }) });
    await log.appendAsLeader(simpleBatch(1, -1), 0);
    clock.advance(1001);
    await log.appendAsLeader(simpleBatch(1, -1), 0);
    assert.equal(log.numberOfSegments, 2);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});
