import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { LogManager, logDeleteDirName, parseTopicPartitionDirName } from '../src/broker/log/log-manager.js';
import { batch, ls, removeDir, simpleBatch, tempDir, testConfig } from './helpers/log-fixtures.js';
import { waitFor } from './helpers/wait-for.js';

const TOPIC_ID = 'J8aAPcfLQt2bqs1JT_rMgQ';

function manager(dirs: string[], o: Partial<ConstructorParameters<typeof LogManager>[0]> = {}) {
  return new LogManager({ logDirs: dirs, defaultConfig: testConfig(), initialTaskDelayMs: 3_600_000, ...o });
}

test('directory names: parse and delete names as Kafka', () => {
  assert.deepEqual(parseTopicPartitionDirName('orders-3'), { topic: 'orders', partition: 3 });
  assert.deepEqual(parseTopicPartitionDirName('my-topic-10'), { topic: 'my-topic', partition: 10 });
  assert.deepEqual(parseTopicPartitionDirName('t-1.0123456789abcdef0123456789abcdef-delete'), {
    topic: 't',
    partition: 1,
    suffix: 'delete',
  });
  assert.equal(parseTopicPartitionDirName('noseparator'), undefined);
  assert.equal(parseTopicPartitionDirName('topic-x'), undefined);
  assert.match(logDeleteDirName('orders', 3), /^orders-3\.[0-9a-f]{32}-delete$/);
  assert.equal(logDeleteDirName('x'.repeat(300), 1).length, 255);
});

test('clean shutdown writes checkpoints and the marker; restart skips recovery', async () => {
  const d = await tempDir();
  try {
    const lm = manager([d]);
    await lm.startup();
    const log = await lm.getOrCreateLog('orders', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 3; i++) await log.appendAsLeader(simpleBatch(2, 1000 + i), 0);
    log.updateHighWatermark(4);
    const other = await lm.getOrCreateLog('orders', 1);
    await other.appendAsLeader(simpleBatch(1, 5), 0);
    await lm.shutdown(17);
    assert.deepEqual(
      (await ls(d)).filter((f) => !f.startsWith('orders')),
      [
        '.kafka_cleanshutdown',
        'cleaner-offset-checkpoint',
        'log-start-offset-checkpoint',
        'recovery-point-offset-checkpoint',
        'replication-offset-checkpoint',
      ],
    );
    assert.equal(await readFile(path.join(d, '.kafka_cleanshutdown'), 'utf8'), '{"version":0,"brokerEpoch":17}');
    assert.equal(
      await readFile(path.join(d, 'recovery-point-offset-checkpoint'), 'utf8'),
      '0\n2\norders 0 6\norders 1 1\n',
    );
    assert.equal(
      await readFile(path.join(d, 'replication-offset-checkpoint'), 'utf8'),
      '0\n2\norders 0 4\norders 1 0\n',
    );
    assert.equal(await readFile(path.join(d, 'log-start-offset-checkpoint'), 'utf8'), '0\n0\n');
    assert.equal(
      await readFile(path.join(d, 'orders-0', 'partition.metadata'), 'utf8'),
      `version: 0\ntopic_id: ${TOPIC_ID}`,
    );
    assert.equal(
      (await stat(path.join(d, 'orders-0', '00000000000000000000.index'))).size,
      0,
      'indexes trimmed at close',
    );

    const lm2 = manager([d]);
    await lm2.startup();
    assert.equal(lm2.wasCleanShutdown(d), true);
    assert.ok(!(await ls(d)).includes('.kafka_cleanshutdown'), 'marker consumed at startup');
    const again = lm2.getLog('orders', 0)!;
    assert.equal(again.loadStats.recoveredSegments, 0);
    assert.equal(again.logEndOffset, 6);
    assert.equal(again.highWatermark, 4);
    assert.equal(again.recoveryPoint, 6);
    assert.equal(again.topicId, TOPIC_ID);
    await lm2.shutdown();
  } finally {
    await removeDir(d);
  }
});

test('after a crash the log is recovered from the recovery point and the torn tail cut off', async () => {
  const d = await tempDir();
  try {
    const lm = manager([d]);
    await lm.startup();
    const log = await lm.getOrCreateLog('t', 0);
    const S = simpleBatch(1, 0).length;
    for (let i = 0; i < 4; i++) await log.appendAsLeader(simpleBatch(1, i), 0);
    await log.flush();
    await lm.checkpointRecoveryOffsets();
    await log.appendAsLeader(simpleBatch(1, 9), 0);
    await log.closeHandlers(); // crash: no shutdown, no marker
    await appendFile(path.join(d, 't-0', '00000000000000000000.log'), simpleBatch(1, 10).subarray(0, 30));

    const lm2 = manager([d]);
    await lm2.startup();
    assert.equal(lm2.wasCleanShutdown(d), false);
    const re = lm2.getLog('t', 0)!;
    assert.equal(re.loadStats.recoveredSegments, 1);
    assert.equal(re.loadStats.truncatedBytes, 30);
    assert.equal(re.logEndOffset, 5);
    assert.equal(re.recoveryPoint, 4, 'min(checkpoint, log end)');
    assert.equal((await re.read(0, 1 << 20)).records.length, 5 * S);
    await lm2.shutdown();
    assert.ok((await ls(d)).includes('.kafka_cleanshutdown'), 'all logs recovered: the next start is clean');
  } finally {
    await removeDir(d);
  }
});

test('partitions spread over log dirs; deleteLog renames to -delete and removes', async () => {
  const d1 = await tempDir();
  const d2 = await tempDir();
  try {
    // the delay must outlast deleteLog's own checkpoint writes, or the renamed folder is gone before it is
    // looked at (100 ms did not, once, on a loaded machine)
    const lm = manager([d1, d2], { defaultConfig: testConfig({ fileDeleteDelayMs: 2000 }) });
    await lm.startup();
    for (let p = 0; p < 4; p++) await lm.getOrCreateLog('spread', p);
    const count = async (x: string) => (await readdir(x)).filter((f) => f.startsWith('spread-')).length;
    assert.deepEqual([await count(d1), await count(d2)], [2, 2]);
    const log = lm.getLog('spread', 0)!;
    const parent = path.dirname(log.dir);
    await lm.deleteLog('spread', 0);
    assert.equal(lm.getLog('spread', 0), undefined);
    const names = await readdir(parent);
    assert.ok(
      names.some((n) => /^spread-0\.[0-9a-f]{32}-delete$/.test(n)),
      names.join(),
    );
    await waitFor(async () => !(await readdir(parent)).some((n) => n.startsWith('spread-0')), {
      what: 'the deleted log folder to go',
      timeoutMs: 15_000,
    });
    await lm.shutdown();
  } finally {
    await removeDir(d1);
    await removeDir(d2);
  }
});

test('retention, DeleteRecords and cleaner runs are reflected in the checkpoints', async () => {
  const d = await tempDir();
  try {
    const S = simpleBatch(1, 0).length;
    const lm = manager([d], {
      topicConfig: (t) =>
        t === 'compacted'
          ? testConfig({ compact: true, delete: false, segmentBytes: 2 * S })
          : testConfig({ segmentBytes: 2 * S, retentionMs: -1 }),
    });
    await lm.startup();
    const plain = await lm.getOrCreateLog('plain', 0);
    for (let i = 0; i < 5; i++) await plain.appendAsLeader(simpleBatch(1, i), 0);
    plain.updateHighWatermark(5);
    await plain.deleteRecordsBefore(3);
    assert.equal(await lm.cleanupLogs(), 1);
    await lm.checkpointLogStartOffsets();
    assert.equal(await readFile(path.join(d, 'log-start-offset-checkpoint'), 'utf8'), '0\n1\nplain 0 3\n');

    const c = await lm.getOrCreateLog('compacted', 0);
    for (let i = 0; i < 5; i++) await c.appendAsLeader(batch([{ key: 'same', value: `v${i}`, timestamp: i }]), 0);
    c.updateHighWatermark(5);
    assert.equal(await lm.runCleaner(), 1);
    assert.equal(lm.cleanerCheckpoint('compacted', 0), 4);
    assert.equal(await readFile(path.join(d, 'cleaner-offset-checkpoint'), 'utf8'), '0\n1\ncompacted 0 4\n');
    const r = await c.read(0, 1 << 20);
    assert.equal(r.records.readBigInt64BE(0), 3n, 'only the latest value (offset 3) is left below the active segment');
    await lm.shutdown();
    const lm2 = manager([d], {
      topicConfig: (t) => (t === 'compacted' ? testConfig({ compact: true, delete: false }) : undefined),
    });
    await lm2.startup();
    assert.equal(lm2.getLog('plain', 0)!.logStartOffset, 3);
    assert.equal(lm2.cleanerCheckpoint('compacted', 0), 4);
    await lm2.shutdown();
  } finally {
    await removeDir(d);
  }
});

test('logs deleted together checkpoint one write at a time: every delete succeeds, the files list what is left', async () => {
  const d = await tempDir();
  try {
    const lm = manager([d]);
    await lm.startup();
    for (let p = 0; p < 24; p++) await lm.getOrCreateLog('gone', p, { topicId: TOPIC_ID });
    await lm.getOrCreateLog('kept', 0);
    // as the partition publisher deletes a topic's partitions, several at once
    await Promise.all(Array.from({ length: 24 }, (_, p) => lm.deleteLog('gone', p)));
    assert.equal(await readFile(path.join(d, 'recovery-point-offset-checkpoint'), 'utf8'), '0\n1\nkept 0 0\n');
    assert.equal(await readFile(path.join(d, 'replication-offset-checkpoint'), 'utf8'), '0\n1\nkept 0 0\n');
    assert.deepEqual(
      (await ls(d)).filter((f) => f.endsWith('.tmp')),
      [],
    );
    await lm.shutdown();
  } finally {
    await removeDir(d);
  }
});
