import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { decodeBatch } from '../src/protocol/records/batch.js';
import {
  batch,
  batchOffsets,
  ManualClock,
  openLog,
  removeDir,
  simpleBatch,
  tempDir,
  testConfig,
} from './helpers/log-fixtures.js';

test('appendAsLeader assigns offsets and leader epoch in place; read returns the stored bytes', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir);
    const b1 = simpleBatch(3, 1000);
    const b2 = simpleBatch(2, 2000);
    const crc1 = b1.readUInt32BE(17);
    const r1 = await log.appendAsLeader(b1, 5);
    const r2 = await log.appendAsLeader(b2, 5);
    assert.deepEqual([r1.baseOffset, r1.lastOffset, r2.baseOffset, r2.lastOffset], [0, 2, 3, 4]);
    assert.equal(r1.maxTimestamp, 1000);
    assert.equal(r1.logAppendTime, -1);
    assert.equal(log.logEndOffset, 5);
    assert.equal(b1.readBigInt64BE(0), 0n);
    assert.equal(b2.readBigInt64BE(0), 3n);
    assert.equal(b2.readInt32BE(12), 5, 'partitionLeaderEpoch stamped');
    assert.equal(b1.readUInt32BE(17), crc1, 'CRC unchanged');

    const all = await log.read(0, 1 << 20);
    assert.equal(all.error, undefined);
    assert.deepEqual(all.records, Buffer.concat([b1, b2]));
    assert.deepEqual(await readFile(path.join(log.dir, '00000000000000000000.log')), Buffer.concat([b1, b2]));
    const decoded = await decodeBatch(all.records, b1.length); // verifies the CRC
    assert.deepEqual(
      decoded.records.map((r) => [r.offset, r.key?.toString(), r.value?.toString()]),
      [
        [3, 'k0', 'v0'],
        [4, 'k1', 'v1'],
      ],
    );
    assert.equal(decoded.partitionLeaderEpoch, 5);

    // reading from inside a batch returns the whole batch
    const mid = await log.read(4, 1 << 20);
    assert.deepEqual(batchOffsets(mid.records), [[3, 4, b2.length]]);
    // epoch checkpoint
    assert.equal(await readFile(path.join(log.dir, 'leader-epoch-checkpoint'), 'utf8'), '0\n1\n5 0\n');
    await log.appendAsLeader(simpleBatch(1, 3000), 7);
    assert.equal(await readFile(path.join(log.dir, 'leader-epoch-checkpoint'), 'utf8'), '0\n2\n5 0\n7 5\n');
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('several batches in one append; maxBytes, minOneMessage and partial trailing batch', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir);
    const bs = [simpleBatch(2, 10), simpleBatch(2, 30), simpleBatch(2, 20)];
    const r = await log.appendAsLeader(Buffer.concat(bs), 0);
    assert.deepEqual([r.baseOffset, r.lastOffset, r.maxTimestamp, r.shallowOffsetOfMaxTimestamp], [0, 5, 30, 3]);
    const S = bs[0]!.length;
    const partial = await log.read(0, S + 10);
    assert.equal(partial.records.length, S + 10, 'ends with a partial batch as Kafka does');
    assert.deepEqual(batchOffsets(partial.records), [[0, 1, S]]);
    const small = await log.read(2, 10);
    assert.equal(small.records.length, 10);
    assert.equal(small.firstEntryIncomplete, true);
    const one = await log.read(2, 10, { minOneMessage: true });
    assert.deepEqual(batchOffsets(one.records), [[2, 3, S]]);
    const none = await log.read(0, 0);
    assert.equal(none.records.length, 0);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('read bounded by the high watermark and out-of-range offsets', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir);
    for (let i = 0; i < 4; i++) await log.appendAsLeader(simpleBatch(2, 100 + i), 0);
    assert.equal(log.highWatermark, 0);
    assert.equal(log.updateHighWatermark(5), 5);
    const hw = await log.read(0, 1 << 20, { maxOffset: log.highWatermark });
    // offset 5 is inside batch [4,5]: data stops before that batch
    assert.deepEqual(
      batchOffsets(hw.records).map(([b, l]) => [b, l]),
      [
        [0, 1],
        [2, 3],
      ],
    );
    assert.equal(hw.highWatermark, 5);
    const atHw = await log.read(5, 1 << 20, { maxOffset: 5 });
    assert.equal(atHw.records.length, 0);
    assert.equal(atHw.error, undefined);
    assert.equal((await log.read(9, 100)).error, 'OFFSET_OUT_OF_RANGE');
    assert.equal((await log.read(8, 100)).error, undefined, 'log end offset is in range');
    assert.equal(log.updateHighWatermark(100), 8, 'clamped to the log end offset');
    assert.equal(log.maybeIncrementHighWatermark(3), false);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('LogAppendTime stamps maxTimestamp and the timestamp-type bit and recomputes the CRC', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock(1_800_000_000_000);
    const log = await openLog(dir, { clock: clock.now, config: testConfig({ messageTimestampType: 'LogAppendTime' }) });
    const b = simpleBatch(2, 5);
    const r = await log.appendAsLeader(b, 1);
    assert.equal(r.logAppendTime, clock.ms);
    assert.equal(r.maxTimestamp, clock.ms);
    const read = await log.read(0, 1000);
    const d = await decodeBatch(read.records, 0);
    assert.equal(d.timestampType, 1);
    assert.equal(d.maxTimestamp, clock.ms);
    assert.deepEqual(
      d.records.map((x) => x.timestamp),
      [clock.ms, clock.ms],
    );
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('ListOffsets: earliest, latest, max timestamp and by timestamp', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, { config: testConfig({ indexIntervalBytes: 1, segmentBytes: 150 }) });
    await log.appendAsLeader(
      batch([
        { key: 'a', value: '1', timestamp: 100 },
        { key: 'b', value: '2', timestamp: 300 },
      ]),
      0,
    );
    await log.appendAsLeader(batch([{ key: 'c', value: '3', timestamp: 200 }]), 0);
    await log.appendAsLeader(
      batch([
        { key: 'd', value: '4', timestamp: 250 },
        { key: 'e', value: '5', timestamp: 400 },
      ]),
      2,
    );
    await log.appendAsLeader(batch([{ key: 'f', value: '6', timestamp: 350 }]), 2);
    assert.ok(log.numberOfSegments > 1);
    assert.deepEqual(await log.offsetForTimestamp(-2), { timestamp: -1, offset: 0, leaderEpoch: 0 });
    assert.deepEqual(await log.offsetForTimestamp(-1), { timestamp: -1, offset: 6, leaderEpoch: 2 });
    assert.deepEqual(await log.offsetForTimestamp(-3), { timestamp: 400, offset: 4, leaderEpoch: 2 });
    assert.deepEqual(await log.offsetForTimestamp(150), { timestamp: 300, offset: 1, leaderEpoch: 0 });
    assert.deepEqual(await log.offsetForTimestamp(100), { timestamp: 100, offset: 0, leaderEpoch: 0 });
    assert.deepEqual(await log.offsetForTimestamp(301), { timestamp: 400, offset: 4, leaderEpoch: 2 });
    assert.equal(await log.offsetForTimestamp(401), undefined);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('appendAsFollower keeps leader offsets and rejects going backwards', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir);
    const b = simpleBatch(2, 10);
    b.writeBigInt64BE(0n, 0);
    b.writeInt32BE(3, 12);
    await log.appendAsFollower(b);
    const c = simpleBatch(1, 20);
    c.writeBigInt64BE(10n, 0); // gaps are allowed
    await log.appendAsFollower(c);
    assert.equal(log.logEndOffset, 11);
    const d = simpleBatch(1, 30);
    d.writeBigInt64BE(5n, 0);
    await assert.rejects(log.appendAsFollower(d), /Unexpected offset/);
    assert.deepEqual(log.epochCache.entries(), [{ epoch: 3, startOffset: 0 }]);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('concurrent appends are serialised: contiguous offsets, batches never interleave', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, { config: testConfig({ segmentBytes: 2000, indexIntervalBytes: 50 }) });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => log.appendAsLeader(simpleBatch(1 + (i % 3), 1000 + i), 0)),
    );
    const sorted = [...results].sort((a, b) => a.baseOffset - b.baseOffset);
    let next = 0;
    for (const r of sorted) {
      assert.equal(r.baseOffset, next);
      next = r.lastOffset + 1;
    }
    assert.equal(log.logEndOffset, next);
    assert.ok(log.numberOfSegments > 1);
    let offset = 0;
    while (offset < next) {
      const r = await log.read(offset, 1 << 20);
      for (const [b, l] of batchOffsets(r.records)) {
        assert.equal(b, offset);
        offset = l + 1;
      }
    }
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('a partition directory written by Kafka loads and reads back byte for byte', async () => {
  const dir = await tempDir();
  try {
    // storage-formats.md §2.3: baseOffset 0, two records at 1700000000000 and +5 ms, leader epoch 0
    const kafkaBatch = Buffer.from(
      [
        '0000000000000000 00000048 00000000 02 fde86579 0000 00000001',
        '0000018bcfe56800 0000018bcfe56805 ffffffffffffffff ffff ffffffff 00000002',
        '12 00 00 00 02 6b 04 7631 00',
        '18 00 0a 02 01 04 7632 02 02 68 02 78',
      ]
        .join('')
        .replace(/ /g, ''),
      'hex',
    );
    assert.equal(kafkaBatch.length, 84);
    const pdir = path.join(dir, 'topic-0');
    await mkdir(pdir);
    await writeFile(path.join(pdir, '00000000000000000000.log'), kafkaBatch);
    await writeFile(path.join(pdir, '00000000000000000000.index'), Buffer.alloc(0));
    // Kafka's close() appends (max timestamp, its batch's last offset) to the time index
    await writeFile(path.join(pdir, '00000000000000000000.timeindex'), Buffer.from('0000018bcfe5680500000001', 'hex'));
    await writeFile(path.join(pdir, 'leader-epoch-checkpoint'), '0\n1\n0 0\n');
    await writeFile(path.join(pdir, 'partition.metadata'), 'version: 0\ntopic_id: J8aAPcfLQt2bqs1JT_rMgQ');
    const log = await openLog(dir, { hadCleanShutdown: true, recoveryPoint: 2 });
    assert.equal(log.loadStats.recoveredSegments, 0);
    assert.equal(log.logEndOffset, 2);
    assert.equal(log.topicId, 'J8aAPcfLQt2bqs1JT_rMgQ');
    assert.deepEqual((await log.read(0, 1000)).records, kafkaBatch);
    assert.deepEqual(await log.offsetForTimestamp(1_700_000_000_001), {
      timestamp: 1_700_000_000_005,
      offset: 1,
      leaderEpoch: 0,
    });
    assert.deepEqual(await log.offsetForTimestamp(-3), { timestamp: 1_700_000_000_005, offset: 1, leaderEpoch: 0 });
    const r = await log.appendAsLeader(simpleBatch(1, 1_700_000_000_010), 1);
    assert.equal(r.baseOffset, 2);
    await log.close();
    // unclean reopen scans and validates Kafka's batch (CRC-32C) without truncating anything
    const again = await openLog(dir);
    assert.equal(again.loadStats.truncatedBytes, 0);
    assert.equal(again.logEndOffset, 3);
    await again.close();
  } finally {
    await removeDir(dir);
  }
});
