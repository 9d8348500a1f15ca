// The metadata log's upkeep on one node: segments roll by metadata.log.segment.ms, retention by
// time and by size drops old snapshots and moves the log start as KafkaRaftLog.maybeClean does,
// and a controller writes NoOpRecords every metadata.max.idle.interval.ms and snapshots its image
// by metadata.log.max.snapshot.interval.ms.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildDataBatch, MetadataLog, readSnapshotFile } from '../src/broker/raft/index.js';
import { MetadataLogCleaner } from '../src/broker/raft/log-cleaner.js';
import { metadataRecord, RecordType } from '../src/broker/metadata/index.js';
import { snapshotFileName, writeSnapshotFile } from '../src/storage/snapshot-file.js';
import { defaultNoOpRecord } from '../src/protocol/generated/metadata/NoOpRecord.js';
import type { OffsetAndEpoch } from '../src/broker/raft/types.js';
import { openController, tempDir } from './helpers/metadata-env.js';
import { waitFor } from './helpers/wait-for.js';

const T = 1_800_000_000_000;
const noOp = () => metadataRecord(RecordType.NoOp, 0, defaultNoOpRecord());

/** Ten one-record batches, the i-th stamped T + 600 i, in a log rolling every second. */
async function tenBatches(dir: string): Promise<MetadataLog> {
  const log = await MetadataLog.open({ dir, segmentMs: 1000, now: () => T });
  for (let i = 0; i < 10; i++) {
    await log.append(buildDataBatch({ baseOffset: log.logEndOffset, epoch: 1, timestamp: T + 600 * i }, [noOp()]));
  }
  return log;
}

/** Snapshots at offsets 3, 6 and 9, each stamped with the time of the batch before it. */
async function threeSnapshots(dir: string): Promise<OffsetAndEpoch[]> {
  const ids = [3, 6, 9].map((offset) => ({ offset, epoch: 1 }));
  for (const id of ids) {
    await writeSnapshotFile(join(dir, snapshotFileName(id)), {
      epoch: 1,
      lastContainedLogTimestamp: T + 600 * (id.offset - 1),
      records: [noOp()],
    });
  }
  return ids;
}

test('segments roll when a batch is more than metadata.log.segment.ms after the first of its segment', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const log = await tenBatches(dir);
    // 0 (T), 1 (T+600) | 2 (T+1200), 3 | 4 (T+2400), 5 | 6, 7 | 8, 9
    assert.deepEqual(log.segmentBaseOffsets, [0, 2, 4, 6, 8]);
    await log.close();
    const again = await MetadataLog.open({ dir, segmentMs: 1000, now: () => T + 6000 });
    // the reopened active segment keeps the first batch's timestamp (T+4800): T+5500 stays in it
    await again.append(buildDataBatch({ baseOffset: 10, epoch: 1, timestamp: T + 5500 }, [noOp()]));
    assert.deepEqual(again.segmentBaseOffsets, [0, 2, 4, 6, 8]);
    await again.append(buildDataBatch({ baseOffset: 11, epoch: 1, timestamp: T + 5900 }, [noOp()]));
    assert.deepEqual(again.segmentBaseOffsets, [0, 2, 4, 6, 8, 11]);
    await again.close();
  } finally {
    cleanup();
  }
});

test('metadata.max.retention.ms: snapshots older than the retention go with the log before the next snapshot', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const log = await tenBatches(dir);
    const ids = await threeSnapshots(dir);
    let now = T + 4000;
    const lines: string[] = [];
    const cleaner = new MetadataLogCleaner({
      log,
      dir,
      retentionMs: 2000,
      retentionBytes: -1,
      now: () => now,
      logger: { info: (m) => lines.push(m) },
    });
    // snapshot 3 (T+1200) is 2800 ms old, snapshot 6 (T+3000) 1000 ms: the log starts at 6
    let left = await cleaner.maybeClean(ids);
    assert.deepEqual(left, ids.slice(1));
    assert.equal(log.logStartOffset, 6);
    assert.deepEqual(log.segmentBaseOffsets, [6, 8]);
    assert.equal(existsSync(join(dir, snapshotFileName(ids[0]!))), false);
    assert.match(lines[0]!, /^Marking snapshot OffsetAndEpoch\[offset=3, epoch=1\] for deletion because its timestamp/);
    // later, snapshot 6 is old too; the newest one always stays
    now = T + 9000;
    left = await cleaner.maybeClean(left);
    assert.deepEqual(left, ids.slice(2));
    assert.equal(log.logStartOffset, 9);
    assert.deepEqual(log.segmentBaseOffsets, [8], 'the active segment stays');
    assert.deepEqual(
      readdirSync(dir).filter((n) => n.endsWith('.checkpoint')),
      [snapshotFileName(ids[2]!)],
    );
    assert.deepEqual(await cleaner.maybeClean(left), left, 'nothing more to clean');
    await log.close();
  } finally {
    cleanup();
  }
});

test('metadata.max.retention.bytes: the oldest snapshots go while the log and the snapshots exceed it', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const log = await tenBatches(dir);
    const ids = await threeSnapshots(dir);
    const options = { log, dir, retentionMs: -1, now: () => T, logger: { info: () => undefined } };
    assert.deepEqual(await new MetadataLogCleaner({ ...options, retentionBytes: 1 << 20 }).maybeClean(ids), ids);
    assert.equal(log.logStartOffset, 0);
    const left = await new MetadataLogCleaner({ ...options, retentionBytes: 1 }).maybeClean(ids);
    assert.deepEqual(left, ids.slice(2));
    assert.equal(log.logStartOffset, 9);
    await log.close();
  } finally {
    cleanup();
  }
});

test('a controller writes a NoOpRecord every metadata.max.idle.interval.ms and snapshots by metadata.log.max.snapshot.interval.ms', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await openController(dir, { maxIdleIntervalMs: 50, snapshotIntervalMs: 300, snapshotOnClose: false });
    try {
      const start = c.quorum.logEndOffset;
      await waitFor(() => c.quorum.logEndOffset >= start + 5, { what: 'five NoOpRecords on an idle controller' });
      const first = await waitFor(() => c.quorum.latestSnapshotId(), { what: 'a time-based snapshot' });
      await waitFor(() => (c.quorum.latestSnapshotId()!.offset > first.offset ? true : null), {
        what: 'a second time-based snapshot',
      });
      const latest = c.quorum.latestSnapshotId()!;
      const snap = await readSnapshotFile(join(c.metadataPartitionDir, snapshotFileName(latest)));
      assert.ok(snap.records.some((r) => r.type === RecordType.FeatureLevel));
      assert.ok(!snap.records.some((r) => r.type === RecordType.NoOp), 'a snapshot holds the image, not NoOps');
    } finally {
      await c.close();
    }
  } finally {
    cleanup();
  }
});
