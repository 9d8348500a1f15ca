import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { buildEndTxnMarker, buildRecordBatch, decodeBatch, type RecordBatch } from '../src/protocol/records/batch.js';
import { CompressionType } from '../src/protocol/records/layout.js';
import { cleanLog, logToClean, shouldClean } from '../src/broker/log/cleaner.js';
import type { PartitionLog } from '../src/broker/log/partition-log.js';
import { batch, ManualClock, ls, openLog, removeDir, tempDir, testConfig } from './helpers/log-fixtures.js';

const compactConfig = (o = {}) => testConfig({ compact: true, delete: false, deleteRetentionMs: 1000, ...o });

async function readAll(log: PartitionLog): Promise<RecordBatch[]> {
  // reads segment by segment (a read stops at a segment boundary)
  const out: RecordBatch[] = [];
  let next = log.logStartOffset;
  while (next < log.logEndOffset) {
    const r = await log.read(next, 1 << 24);
    if (r.records.length === 0) break;
    let pos = 0;
    while (pos < r.records.length) {
      const b = await decodeBatch(r.records, pos);
      out.push(b);
      pos += b.sizeInBytes;
      next = b.lastOffset + 1;
    }
  }
  return out;
}

const kv = (bs: RecordBatch[]) =>
  bs.flatMap((b) => b.records.map((r) => [r.offset, r.key?.toString() ?? null, r.value?.toString() ?? null]));

test('compaction keeps the latest value per key, preserves offsets and leaves the active segment alone', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock(1_000_000);
    const log = await openLog(dir, { clock: clock.now, config: compactConfig() });
    await log.appendAsLeader(
      batch([
        { key: 'a', value: 'a1', timestamp: 1 },
        { key: 'b', value: 'b1', timestamp: 2 },
      ]),
      0,
    ); // 0-1
    await log.appendAsLeader(batch([{ key: 'a', value: 'a2', timestamp: 3 }]), 0); // 2
    await log.roll();
    await log.appendAsLeader(
      batch([
        { key: 'c', value: 'c1', timestamp: 4 },
        { key: 'b', value: 'b2', timestamp: 5 },
      ]),
      0,
    ); // 3-4
    await log.appendAsLeader(batch([{ key: 'a', value: 'a3', timestamp: 6 }]), 0); // 5
    await log.roll();
    await log.appendAsLeader(batch([{ key: 'a', value: 'a4', timestamp: 7 }]), 0); // 6 (active)
    log.updateHighWatermark(log.logEndOffset);

    const t = await logToClean(log, undefined, clock.ms);
    assert.deepEqual([t.firstDirtyOffset, t.firstUncleanableOffset], [0, 6]);
    assert.equal(shouldClean(log, t), true);
    const res = await cleanLog(log, undefined, { clock: clock.now });
    assert.ok(res);
    assert.equal(res.endOffset, 6);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 6],
      'the two cleaned segments were merged',
    );
    const got = await readAll(log);
    assert.deepEqual(kv(got), [
      [3, 'c', 'c1'],
      [4, 'b', 'b2'],
      [5, 'a', 'a3'],
      [6, 'a', 'a4'],
    ]);
    // batch [0,1] lost all records and is dropped; [2] too; [3,4] is intact; offsets are kept
    assert.deepEqual(
      got.map((b) => [b.baseOffset, b.lastOffset]),
      [
        [3, 4],
        [5, 5],
        [6, 6],
      ],
    );
    const files = await ls(log.dir);
    assert.ok(
      !files.some((f) => f.endsWith('.cleaned') || f.endsWith('.swap') || f.endsWith('.deleted')),
      files.join(),
    );
    // nothing new to clean
    assert.equal(await cleanLog(log, res.endOffset, { clock: clock.now }), undefined);
    await log.close();
    const re = await openLog(dir, { config: compactConfig(), hadCleanShutdown: true });
    assert.deepEqual(kv(await readAll(re)), [
      [3, 'c', 'c1'],
      [4, 'b', 'b2'],
      [5, 'a', 'a3'],
      [6, 'a', 'a4'],
    ]);
    await re.close();
  } finally {
    await removeDir(dir);
  }
});

test('tombstones get a delete horizon when first cleaned and are removed once it has passed', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock(1_000_000);
    const log = await openLog(dir, { clock: clock.now, config: compactConfig({ deleteRetentionMs: 5000 }) });
    await log.appendAsLeader(
      batch([
        { key: 'a', value: 'a1', timestamp: 10 },
        { key: 'b', value: 'b1', timestamp: 11 },
      ]),
      0,
    ); // 0-1
    await log.appendAsLeader(
      batch([
        { key: 'a', value: null, timestamp: 12 },
        { key: 'c', value: 'c1', timestamp: 13 },
      ]),
      0,
    ); // 2-3
    await log.roll();
    await log.appendAsLeader(batch([{ key: 'z', value: 'z', timestamp: 14 }]), 0); // 4
    log.updateHighWatermark(log.logEndOffset);

    const r1 = await cleanLog(log, undefined, { clock: clock.now });
    assert.equal(r1?.endOffset, 4);
    let got = await readAll(log);
    assert.deepEqual(kv(got), [
      [1, 'b', 'b1'],
      [2, 'a', null],
      [3, 'c', 'c1'],
      [4, 'z', 'z'],
    ]);
    const withTombstone = got.find((b) => b.baseOffset === 2)!;
    assert.equal(withTombstone.hasDeleteHorizon, true);
    assert.equal(withTombstone.baseTimestamp, clock.ms + 5000, 'baseTimestamp holds the delete horizon');
    assert.deepEqual(
      withTombstone.records.map((r) => r.timestamp),
      [12, 13],
      'record timestamps preserved',
    );
    assert.equal(got.find((b) => b.baseOffset === 0)!.records.length, 1, 'batch [0,1] re-encoded with b only');
    assert.equal(got.find((b) => b.baseOffset === 0)!.lastOffset, 1, 'lastOffsetDelta preserved');

    // more data so there is a dirty section, but the horizon has not passed: the tombstone stays
    await log.appendAsLeader(batch([{ key: 'd', value: 'd1', timestamp: 15 }]), 0); // 5
    await log.roll();
    await log.appendAsLeader(batch([{ key: 'y', value: 'y', timestamp: 16 }]), 0); // 6
    log.updateHighWatermark(log.logEndOffset);
    const r2 = await cleanLog(log, r1!.endOffset, { clock: clock.now });
    assert.equal(r2?.endOffset, 6);
    assert.ok(kv(await readAll(log)).some(([o]) => o === 2));

    clock.advance(5001);
    await log.appendAsLeader(batch([{ key: 'e', value: 'e1', timestamp: 17 }]), 0); // 7
    await log.roll();
    log.updateHighWatermark(log.logEndOffset);
    const r3 = await cleanLog(log, r2!.endOffset, { clock: clock.now });
    assert.equal(r3?.endOffset, 8);
    got = await readAll(log);
    assert.deepEqual(kv(got), [
      [1, 'b', 'b1'],
      [3, 'c', 'c1'],
      [4, 'z', 'z'],
      [5, 'd', 'd1'],
      [6, 'y', 'y'],
      [7, 'e', 'e1'],
    ]);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('compressed batches are re-compressed with their codec', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock(1_000_000);
    const log = await openLog(dir, { clock: clock.now, config: compactConfig() });
    const recs = Array.from({ length: 20 }, (_, i) => ({
      key: `k${i % 5}`,
      value: `value-${i}-${'x'.repeat(50)}`,
      timestamp: 100 + i,
    }));
    await log.appendAsLeader(await buildRecordBatch({ records: recs, compression: CompressionType.Gzip }), 0);
    await log.roll();
    await log.appendAsLeader(batch([{ key: 'q', value: 'q', timestamp: 1 }]), 0);
    log.updateHighWatermark(log.logEndOffset);
    await cleanLog(log, undefined, { clock: clock.now });
    const got = await readAll(log);
    assert.equal(got[0]!.compression, CompressionType.Gzip);
    assert.deepEqual(
      kv(got).slice(0, 5),
      [15, 16, 17, 18, 19].map((i) => [i, `k${i % 5}`, `value-${i}-${'x'.repeat(50)}`]),
    );
    assert.deepEqual([got[0]!.baseOffset, got[0]!.lastOffset], [0, 19]);
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('aborted transactional data never wins; the producer keeps an empty batch; markers stay', async () => {
  const dir = await tempDir();
  try {
    const clock = new ManualClock(1_000_000);
    const log = await openLog(dir, { clock: clock.now, config: compactConfig() });
    await log.appendAsLeader(batch([{ key: 'x', value: 'committed', timestamp: 1 }]), 0); // 0
    await log.appendAsLeader(
      batch([{ key: 'x', value: 'aborted', timestamp: 2 }], {
        producerId: 7,
        producerEpoch: 0,
        baseSequence: 0,
        transactional: true,
      }),
      0,
    ); // 1
    await log.appendAsLeader(
      buildEndTxnMarker({ producerId: 7, producerEpoch: 0, coordinatorEpoch: 1, commit: false, timestamp: 3 }),
      0,
    ); // 2
    await log.roll();
    await log.appendAsLeader(batch([{ key: 'w', value: 'w', timestamp: 4 }]), 0); // 3
    log.updateHighWatermark(log.logEndOffset);
    await cleanLog(log, undefined, { clock: clock.now });
    const got = await readAll(log);
    assert.deepEqual(
      got.map((b) => [b.baseOffset, b.lastOffset, b.records.length, b.isControl]),
      [
        [0, 0, 1, false], // the committed value is the latest non-aborted one
        [1, 1, 0, false], // empty: the producer's last batch keeps its sequence/epoch
        [2, 2, 1, true], // the ABORT marker stays while the transaction had batches in this round
        [3, 3, 1, false],
      ],
    );
    assert.equal(got[1]!.producerId, 7n);
    assert.equal(got[1]!.baseSequence, 0);
    assert.equal(got[0]!.records[0]!.value?.toString(), 'committed');
    await log.close();
  } finally {
    await removeDir(dir);
  }
});

test('loading completes an interrupted swap and discards leftover .cleaned files', async () => {
  const dir = await tempDir();
  try {
    const cfg = compactConfig();
    const log = await openLog(dir, { config: cfg });
    for (let i = 0; i < 3; i++) await log.appendAsLeader(batch([{ key: `a${i}`, value: 'x', timestamp: i }]), 0);
    await log.roll();
    for (let i = 0; i < 3; i++) await log.appendAsLeader(batch([{ key: `b${i}`, value: 'y', timestamp: i }]), 0);
    await log.roll();
    await log.appendAsLeader(batch([{ key: 'c', value: 'z', timestamp: 9 }]), 0);
    await log.close();
    const d = log.dir;
    const seg = (o: number, ext: string) => path.join(d, String(o).padStart(20, '0') + ext);
    // crash after ".cleaned → .swap" of a segment merging 0 and 3, before the old files were removed
    await writeFile(
      seg(0, '.log.swap'),
      Buffer.concat([await readFile(seg(0, '.log')), await readFile(seg(3, '.log'))]),
    );
    await copyFile(seg(0, '.index'), seg(0, '.index.swap'));
    await copyFile(seg(0, '.timeindex'), seg(0, '.timeindex.swap'));
    // and an unrelated, unfinished clean
    await writeFile(seg(6, '.log.cleaned'), Buffer.from('partial'));
    const re = await openLog(dir, { config: cfg });
    assert.deepEqual(
      re.segments.map((s) => s.baseOffset),
      [0, 6],
    );
    // producer-state snapshots (.snapshot) are written on roll and close, as Kafka does; not part of the swap
    assert.deepEqual(
      (await ls(d)).filter((f) => !f.endsWith('.snapshot')),
      [
        '00000000000000000000.index',
        '00000000000000000000.log',
        '00000000000000000000.timeindex',
        '00000000000000000006.index',
        '00000000000000000006.log',
        '00000000000000000006.timeindex',
        'leader-epoch-checkpoint',
      ],
    );
    assert.deepEqual(
      (await readAll(re)).map((b) => b.baseOffset),
      [0, 1, 2, 3, 4, 5, 6],
    );
    await re.close();
  } finally {
    await removeDir(dir);
  }
});
