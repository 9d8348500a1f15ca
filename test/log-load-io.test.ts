// How a partition log loads at start-up (README, Start-up, "Loading the logs"): its small files read
// synchronously (syncLoadIO) give the log fs/promises gives, the last segment's indexes are read
// once, and LogLoader's epoch truncation is written later (Kafka's truncateFromEndAsyncFlush).

import { test, mock } from 'node:test';
import assert from 'node:assert/strict';
import { promises as fsp } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { asyncLoadIO, syncLoadIO, type LoadIO } from '../src/storage/load-io.js';
import type { PartitionLog } from '../src/broker/log/partition-log.js';
import { openLog, removeDir, simpleBatch, tempDir, testConfig } from './helpers/log-fixtures.js';

const config = testConfig({ segmentBytes: 1024, indexIntervalBytes: 200 });

/** A log of several segments and two leader epochs, closed cleanly. */
async function writeLog(dir: string): Promise<void> {
  const log = await openLog(dir, { config });
  for (let i = 0; i < 40; i++) await log.appendAsLeader(simpleBatch(5, 1_700_000_000_000 + i), i < 20 ? 0 : 1);
  await log.close();
}

function describeLog(log: PartitionLog) {
  return {
    logEndOffset: log.logEndOffset,
    logStartOffset: log.logStartOffset,
    segments: log.segments.map((s) => [s.baseOffset, s.size]),
    epochs: log.epochCache.entries(),
    activeIndexEntries: [log.activeSegment.offsetIndex.entries, log.activeSegment.timeIndex.entries],
  };
}

test('a log loads the same through syncLoadIO as through fs/promises', async () => {
  const dir = await tempDir();
  try {
    await writeLog(dir);
    const loaded = [];
    for (const io of [syncLoadIO, asyncLoadIO]) {
      const log = await openLog(dir, { config, hadCleanShutdown: true, io });
      loaded.push(describeLog(log));
      await log.close();
    }
    assert.ok(loaded[0]!.segments.length > 2, 'several segments');
    assert.deepEqual(loaded[0]!.epochs, [
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 100 },
    ]);
    assert.deepEqual(loaded[0], loaded[1]);
  } finally {
    await removeDir(dir);
  }
});

test("the last segment's indexes are read once at load, and the dir listed once", async () => {
  const dir = await tempDir();
  try {
    await writeLog(dir);
    const reads: string[] = [];
    const lists: string[] = [];
    const counting: LoadIO = {
      ...syncLoadIO,
      read: (f) => (reads.push(path.basename(f)), syncLoadIO.read(f)),
      readIfExists: (f) => (reads.push(path.basename(f)), syncLoadIO.readIfExists(f)),
      listFiles: (d) => (lists.push(d), syncLoadIO.listFiles(d)),
    };
    // anything the indexes load by themselves goes through fs/promises' readFile
    const readFile = mock.method(fsp, 'readFile');
    try {
      const log = await openLog(dir, { config, hadCleanShutdown: true, io: counting });
      const active = log.activeSegment;
      const base = path.basename(active.offsetIndex.file, '.index');
      assert.ok(active.offsetIndex.isLoaded && active.timeIndex.isLoaded);
      assert.equal(reads.filter((f) => f === `${base}.index` || f === `${base}.timeindex`).length, 2);
      const indexReads = readFile.mock.calls.filter((c) => /\.(time)?index$/.test(String(c.arguments[0])));
      assert.deepEqual(indexReads, [], 'no second read of an index');
      assert.equal(lists.length, 1, 'the loader listed the dir; the producer state used its listing');
      await log.close();
    } finally {
      readFile.mock.restore();
    }
  } finally {
    await removeDir(dir);
  }
});

test("LogLoader's epoch truncation is written by the next write of the cache or the log's close", async () => {
  const dir = await tempDir();
  const checkpoint = path.join(dir, 'topic-0', 'leader-epoch-checkpoint');
  try {
    await writeLog(dir);
    // an epoch that began at the log end offset, with no record since (a new leader, idle)
    let log = await openLog(dir, { config, hadCleanShutdown: true });
    await log.epochCache.assign(7, log.logEndOffset);
    await log.close();
    const withEpoch7 = '0\n3\n0 0\n1 100\n7 200\n';
    assert.equal(await readFile(checkpoint, 'utf8'), withEpoch7);

    // loading truncates it in memory at once; the file keeps it until the close
    log = await openLog(dir, { config, hadCleanShutdown: true });
    assert.equal(log.epochCache.latestEpoch(), 1);
    assert.equal(await readFile(checkpoint, 'utf8'), withEpoch7, 'written later');
    await log.close();
    assert.equal(await readFile(checkpoint, 'utf8'), '0\n2\n0 0\n1 100\n');

    // a crash before the write leaves the entry, and the next load truncates it again
    log = await openLog(dir, { config, hadCleanShutdown: true });
    await log.epochCache.assign(7, log.logEndOffset);
    await log.closeHandlers();
    log = await openLog(dir, { config, hadCleanShutdown: false });
    assert.equal(log.epochCache.latestEpoch(), 1);
    // a write of the cache (the next leader epoch) writes the entries as they are then
    await log.epochCache.assign(8, log.logEndOffset);
    assert.equal(await readFile(checkpoint, 'utf8'), '0\n3\n0 0\n1 100\n8 200\n');
    await log.close();
    assert.equal(await readFile(checkpoint, 'utf8'), '0\n3\n0 0\n1 100\n8 200\n');
  } finally {
    await removeDir(dir);
  }
});
