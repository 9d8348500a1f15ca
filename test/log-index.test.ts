import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { OffsetIndex } from '../src/storage/offset-index.js';
import { TimeIndex } from '../src/storage/time-index.js';
import {
  InvalidOffsetError,
  keptIndexHandles,
  maxKeptIndexHandles,
  setMaxKeptIndexHandles,
  WRITE_BEHIND_BYTES,
} from '../src/storage/abstract-index.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';

test('offset index: pre-allocated while active, 8-byte big-endian entries, trimmed on close', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, '00000000000000000100.index');
    const idx = new OffsetIndex(file, 100, 1000); // rounded down to 1000 (multiple of 8 already)
    assert.equal(await idx.load(), true);
    assert.equal((await stat(file)).size, 1000);
    assert.equal(idx.maxEntries, 125);
    await idx.append(105, 0);
    await idx.append(110, 4200);
    await idx.append(0x7fffffff + 100, 9000);
    await assert.rejects(idx.append(110, 10000), InvalidOffsetError);
    assert.deepEqual(idx.lookup(99), { offset: 100, position: 0 });
    assert.deepEqual(idx.lookup(105), { offset: 105, position: 0 });
    assert.deepEqual(idx.lookup(109), { offset: 105, position: 0 });
    assert.deepEqual(idx.lookup(1000), { offset: 110, position: 4200 });
    await idx.close();
    const bytes = await readFile(file);
    assert.equal(bytes.toString('hex'), '00000005' + '00000000' + '0000000a' + '00001068' + '7fffffff' + '00002328');
    // reopen: entries = length / 8
    const again = new OffsetIndex(file, 100, 1000);
    await again.load();
    assert.equal(again.entries, 3);
    assert.equal(again.lastOffset, 0x7fffffff + 100);
    assert.equal(again.isFull(), true, 'a trimmed index is full until resized');
    await again.resize(1000);
    assert.equal(again.isFull(), false);
    await again.truncateTo(110); // removes entries >= 110
    assert.equal(again.entries, 1);
    await again.truncateTo(106);
    assert.equal(again.entries, 1);
    await again.close();
    assert.equal((await readFile(file)).toString('hex'), '0000000500000000');
  } finally {
    await removeDir(dir);
  }
});

test('offset index: size rounding, full index and sanity check', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, '00000000000000000000.index');
    const idx = new OffsetIndex(file, 0, 20); // rounds down to 16 → 2 entries
    await idx.load();
    assert.equal((await stat(file)).size, 16);
    await idx.append(1, 10);
    await idx.append(2, 20);
    assert.equal(idx.isFull(), true);
    await assert.rejects(idx.append(3, 30), /full index/);
    await idx.closeHandler();
    await writeFile(file, Buffer.alloc(12));
    const bad = new OffsetIndex(file, 0, 20);
    await bad.load();
    assert.throws(() => bad.sanityCheck(), /neither positive nor a multiple of 8/);
  } finally {
    await removeDir(dir);
  }
});

test('time index: 12-byte entries, only increasing timestamps, one slot kept free', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, '00000000000000000050.timeindex');
    const idx = new TimeIndex(file, 50, 36); // 3 slots; full at 2 entries
    await idx.load();
    assert.equal((await stat(file)).size, 36);
    await idx.maybeAppend(1000, 55);
    await idx.maybeAppend(1000, 57); // not larger: ignored
    assert.equal(idx.entries, 1);
    await idx.maybeAppend(2000, 60);
    assert.equal(idx.isFull(), true);
    await assert.rejects(idx.maybeAppend(3000, 61), /full time index/);
    await idx.maybeAppend(3000, 61, true); // the final entry at roll/close skips the check
    await assert.rejects(idx.maybeAppend(4000, 40, true), InvalidOffsetError);
    assert.deepEqual(idx.lookup(999), { timestamp: -1, offset: 50 });
    assert.deepEqual(idx.lookup(1500), { timestamp: 1000, offset: 55 });
    assert.deepEqual(idx.lookup(5000), { timestamp: 3000, offset: 61 });
    await idx.truncateTo(60);
    assert.deepEqual(idx.lastEntry(), { timestamp: 1000, offset: 55 });
    await idx.close();
    assert.equal((await readFile(file)).toString('hex'), '00000000000003e8' + '00000005');
  } finally {
    await removeDir(dir);
  }
});

test('index handles: past the process-wide cap an index opens, writes and closes a handle per operation (fds stay bounded), and its entries still reach the file', async () => {
  const dir = await tempDir();
  const before = maxKeptIndexHandles();
  const base = keptIndexHandles();
  setMaxKeptIndexHandles(base + 2);
  const indexes: OffsetIndex[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const idx = new OffsetIndex(path.join(dir, `${String(i).padStart(20, '0')}.index`), i, 800);
      indexes.push(idx);
      await idx.load();
      await idx.append(i + 1, 100);
      await idx.append(i + 2, 200);
      await idx.flush();
    }
    assert.equal(keptIndexHandles(), base + 2, 'two kept; the other four hold no handle');
    for (const [i, idx] of indexes.entries()) {
      const bytes = await readFile(idx.file);
      assert.equal(bytes.length, 800, 'pre-allocated (the truncate went through a handle)');
      assert.deepEqual([bytes.readInt32BE(0), bytes.readInt32BE(8)], [1, 2]);
      assert.deepEqual(idx.lookup(i + 2), { offset: i + 2, position: 200 });
    }
    for (const idx of indexes) await idx.close();
    assert.equal(keptIndexHandles(), base, 'closing releases the kept ones');
    for (const idx of indexes) assert.equal((await stat(idx.file)).size, 16, 'trimmed on close');
  } finally {
    setMaxKeptIndexHandles(before);
    await removeDir(dir);
  }
});

// appended entries reach the file a page at a time, and all of them on flush, on closeHandler (a
// crash-like close) and on close; a truncation drops pending ones
test('write-behind: runs of a page, flush, closeHandler, close, truncation', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, '00000000000000000000.index');
    const entryAt = (bytes: Buffer, n: number): [number, number] => [
      bytes.readInt32BE(n * 8),
      bytes.readInt32BE(n * 8 + 4),
    ];
    const idx = new OffsetIndex(file, 0, 1 << 20);
    await idx.load();
    const run = WRITE_BEHIND_BYTES / 8;
    for (let i = 1; i < run; i++) await idx.append(i, i * 4096);
    assert.equal(idx.pendingEntries, run - 1, 'a run short of a page waits');
    assert.deepEqual(entryAt(await readFile(file), 0), [0, 0], 'nothing written yet');
    assert.deepEqual(idx.lookup(10), { offset: 10, position: 40960 }, 'lookups see pending entries');
    await idx.append(run, run * 4096);
    assert.equal(idx.pendingEntries, 0, 'a page of entries is written');
    let bytes = await readFile(file);
    assert.deepEqual(entryAt(bytes, 0), [1, 4096]);
    assert.deepEqual(entryAt(bytes, run - 1), [run, run * 4096]);

    await idx.append(run + 1, (run + 1) * 4096);
    await idx.flush();
    assert.equal(idx.pendingEntries, 0, 'flush writes the pending entries before the fsync');
    assert.deepEqual(entryAt(await readFile(file), run), [run + 1, (run + 1) * 4096]);

    await idx.append(run + 2, 1);
    await idx.append(run + 3, 2);
    await idx.truncateTo(run + 3); // removes the entry for run + 3 only
    assert.equal(idx.pendingEntries, 1);
    await idx.closeHandler();
    bytes = await readFile(file);
    assert.deepEqual(entryAt(bytes, run + 1), [run + 2, 1], 'closeHandler writes what is pending');
    assert.deepEqual(entryAt(bytes, run + 2), [0, 0], 'the truncated entry never reached the file');

    const other = new OffsetIndex(path.join(dir, '00000000000000000100.index'), 100, 1 << 20);
    await other.load();
    for (let i = 0; i < 3; i++) await other.append(101 + i, 10 + i);
    await other.close();
    bytes = await readFile(other.file);
    assert.equal(bytes.length, 3 * 8, 'close trims to the entries, the pending ones written');
    assert.deepEqual(entryAt(bytes, 2), [3, 12]);
  } finally {
    await removeDir(dir);
  }
});
