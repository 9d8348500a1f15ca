// Moving a replica between log dirs of one broker (KIP-113) at the log manager: future-log naming,
// loading future dirs at startup, the copy while appends continue, the swap and the old dir's deletion,
// a restart in the middle of a move, and ReplicaManager.alterReplicaLogDirs's per-partition errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import * as path from 'node:path';
import { LogManager, logFutureDirName, parseTopicPartitionDirName } from '../src/broker/log/log-manager.js';
import { wholeBatches } from '../src/broker/log/future-log-copier.js';
import type { PartitionLog } from '../src/broker/log/partition-log.js';
import { handler as describeLogDirs } from '../src/broker/api/describe-log-dirs.js';
import type { RequestContext } from '../src/broker/api/types.js';
import type { BrokerServices } from '../src/broker/services.js';
import type { DescribeLogDirsResponse } from '../src/protocol/generated/protocol/DescribeLogDirs.js';
import { batchOffsets, ls, removeDir, simpleBatch, tempDir, testConfig } from './helpers/log-fixtures.js';

const TOPIC_ID = 'J8aAPcfLQt2bqs1JT_rMgQ';

function manager(dirs: string[], o: Partial<ConstructorParameters<typeof LogManager>[0]> = {}) {
  return new LogManager({
    logDirs: dirs,
    defaultConfig: testConfig({ segmentBytes: 4096 }),
    initialTaskDelayMs: 3_600_000,
    ...o,
  });
}

/** Every byte of the log, from its start to its end. */
async function readAll(log: PartitionLog): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = log.logStartOffset;
  for (let i = 0; i < 100_000 && offset < log.logEndOffset; i++) {
    const r = await log.read(offset, 1 << 20, { minOneMessage: true });
    assert.equal(r.error, undefined);
    const whole = wholeBatches(r.records);
    const batches = batchOffsets(whole);
    assert.ok(batches.length > 0);
    parts.push(whole);
    offset = batches[batches.length - 1]![1] + 1;
  }
  return Buffer.concat(parts);
}

test('future dir names: <topic>-<partition>.<uuid>-future, parsed back as a future', () => {
  const name = logFutureDirName('orders', 3);
  assert.match(name, /^orders-3\.[0-9a-f]{32}-future$/);
  assert.deepEqual(parseTopicPartitionDirName(name), { topic: 'orders', partition: 3, suffix: 'future' });
  assert.deepEqual(parseTopicPartitionDirName(logFutureDirName('my-topic', 10)), {
    topic: 'my-topic',
    partition: 10,
    suffix: 'future',
  });
});

test('alterReplicaLogDir: unknown dir, not hosted yet (created there later), same dir, long topic', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    const lm = manager([a, b]);
    await lm.startup();
    assert.equal(await lm.alterReplicaLogDir('t', 0, '/no/such/dir'), 'LOG_DIR_NOT_FOUND');
    assert.equal(await lm.alterReplicaLogDir('t', 0, path.relative(process.cwd(), b)), 'LOG_DIR_NOT_FOUND');
    assert.equal(await lm.alterReplicaLogDir('x'.repeat(250), 0, b), 'INVALID_TOPIC_EXCEPTION');
    // not hosted: remembered, the log is created there (a would be next otherwise: both are empty)
    assert.equal(await lm.alterReplicaLogDir('t', 0, b), 'REPLICA_NOT_AVAILABLE');
    const log = await lm.getOrCreateLog('t', 0, { topicId: TOPIC_ID });
    assert.equal(path.dirname(log.dir), b);
    assert.equal(lm.logDir('t', 0), b);
    // already there: nothing to do, no future log
    assert.equal(await lm.alterReplicaLogDir('t', 0, b), 'NONE');
    assert.equal(lm.getFutureLog('t', 0), undefined);
    // the preferred dir is used once
    const other = await lm.getOrCreateLog('t', 1);
    assert.equal(path.dirname(other.dir), a);
    await lm.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});

test('alterReplicaLogDir: a log dir gone from the disk is KAFKA_STORAGE_ERROR', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    const lm = manager([a, b]);
    await lm.startup();
    await lm.getOrCreateLog('t', 0);
    await removeDir(b);
    assert.equal(await lm.alterReplicaLogDir('t', 0, b), 'KAFKA_STORAGE_ERROR');
    await mkdir(b);
    await lm.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});

test('a log moves to another dir while appends continue: same bytes, same offsets, old dir deleted', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    // small chunks: the copy takes many steps, interleaved with the appends below
    let chunks = 0;
    let chunkBytes = 0;
    const lm2 = manager([a, b], {
      alterLogDirsChunkBytes: 1,
      alterLogDirsChunk: (n) => {
        chunks++;
        chunkBytes += n;
      },
    });
    await lm2.startup();
    const log = await lm2.getOrCreateLog('orders', 0, { topicId: TOPIC_ID });
    assert.equal(path.dirname(log.dir), a);
    const appended: Buffer[] = [];
    for (let i = 0; i < 50; i++) {
      const buf = simpleBatch(3, 1000 + i, `a${i}-`);
      await log.appendAsLeader(buf, 0);
      appended.push(buf);
    }
    log.updateHighWatermark(log.logEndOffset);
    assert.ok(log.numberOfSegments > 1);
    assert.equal(await lm2.alterReplicaLogDir('orders', 0, b), 'NONE');
    const future = lm2.getFutureLog('orders', 0)!;
    assert.match(path.basename(future.dir), /^orders-0\.[0-9a-f]{32}-future$/);
    assert.equal(path.dirname(future.dir), b);
    // a second request for the same dir keeps the move going
    assert.equal(await lm2.alterReplicaLogDir('orders', 0, b), 'NONE');
    assert.equal(lm2.getFutureLog('orders', 0), future);
    // appends and reads continue during the copy, with a new leader epoch on the way
    const moved = lm2.awaitFutureLog('orders', 0);
    for (let i = 0; i < 60; i++) {
      const buf = simpleBatch(2, 2000 + i, `b${i}-`);
      await log.appendAsLeader(buf, i < 30 ? 0 : 1);
      appended.push(buf);
      // reads go on too (the swap may come in the middle of one): always the whole log so far
      if (i % 5 === 0) assert.deepEqual(await readAll(log), Buffer.concat(appended), `read at ${i}`);
    }
    await moved;
    assert.equal(lm2.getFutureLog('orders', 0), undefined);
    assert.equal(lm2.logDir('orders', 0), b);
    assert.equal(log.dir, path.join(b, 'orders-0'), 'the same log object, now in b');
    assert.ok(chunks > 10, `the copy hook saw every chunk (${chunks})`);
    assert.ok(chunkBytes > 0);
    // appends after the swap land in b
    for (let i = 0; i < 5; i++) {
      const buf = simpleBatch(1, 3000 + i, `c${i}-`);
      await log.appendAsLeader(buf, 1);
      appended.push(buf);
    }
    assert.equal(log.logEndOffset, 50 * 3 + 60 * 2 + 5);
    assert.deepEqual(await readAll(log), Buffer.concat(appended));
    assert.deepEqual(
      log.epochCache.entries().map((e) => e.epoch),
      [0, 1],
    );
    assert.equal(log.topicId, TOPIC_ID);
    // the old directory was renamed to -delete, and goes after file.delete.delay.ms (0 here)
    await log.completeRetiredDeletes();
    assert.deepEqual(
      (await ls(a)).filter((f) => f.startsWith('orders')),
      [],
    );
    assert.deepEqual(
      (await ls(b)).filter((f) => f.startsWith('orders')),
      ['orders-0'],
    );
    await lm2.shutdown();

    // a restart finds it in b only
    const lm3 = manager([a, b]);
    await lm3.startup();
    assert.equal(lm3.logDir('orders', 0), b);
    const again = lm3.getLog('orders', 0)!;
    assert.equal(again.logEndOffset, 50 * 3 + 60 * 2 + 5);
    assert.deepEqual(await readAll(again), Buffer.concat(appended));
    assert.equal(again.topicId, TOPIC_ID);
    await lm3.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});

test('a restart in the middle of a move loads the future dir as a future log and finishes the move', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    let calls = 0;
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const lm = manager([a, b], {
      alterLogDirsChunkBytes: 1,
      alterLogDirsChunk: async () => {
        if (++calls === 10) {
          reached();
          await gate;
        }
      },
    });
    await lm.startup();
    const log = await lm.getOrCreateLog('orders', 0, { topicId: TOPIC_ID });
    const appended: Buffer[] = [];
    for (let i = 0; i < 40; i++) {
      const buf = simpleBatch(2, 1000 + i);
      await log.appendAsLeader(buf, 0);
      appended.push(buf);
    }
    log.updateHighWatermark(log.logEndOffset);
    assert.equal(await lm.alterReplicaLogDir('orders', 0, b), 'NONE');
    await atGate;
    const shutdown = lm.shutdown();
    setImmediate(open);
    await shutdown;
    const futureDirs = (await ls(b)).filter((f) => f.startsWith('orders'));
    assert.equal(futureDirs.length, 1);
    assert.match(futureDirs[0]!, /^orders-0\.[0-9a-f]{32}-future$/);
    assert.deepEqual(
      (await ls(a)).filter((f) => f.startsWith('orders')),
      ['orders-0'],
    );

    const lm2 = manager([a, b]);
    await lm2.startup();
    await lm2.awaitFutureLog('orders', 0);
    assert.equal(lm2.logDir('orders', 0), b);
    assert.equal(lm2.getFutureLog('orders', 0), undefined);
    const moved = lm2.getLog('orders', 0)!;
    assert.equal(moved.dir, path.join(b, 'orders-0'));
    assert.equal(moved.highWatermark, 80);
    assert.deepEqual(await readAll(moved), Buffer.concat(appended));
    await moved.completeRetiredDeletes();
    assert.deepEqual(
      (await ls(a)).filter((f) => f.startsWith('orders')),
      [],
    );
    await lm2.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});

test('moving back to the current dir cancels a move; deleting the partition deletes its future', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const lm = manager([a, b], { alterLogDirsChunkBytes: 1, alterLogDirsChunk: () => gate });
    await lm.startup();
    const log = await lm.getOrCreateLog('orders', 0);
    for (let i = 0; i < 5; i++) await log.appendAsLeader(simpleBatch(1, i), 0);
    assert.equal(await lm.alterReplicaLogDir('orders', 0, b), 'NONE');
    assert.ok(lm.getFutureLog('orders', 0));
    const cancelled = lm.alterReplicaLogDir('orders', 0, a);
    open();
    assert.equal(await cancelled, 'NONE');
    assert.equal(lm.getFutureLog('orders', 0), undefined);
    assert.equal(lm.logDir('orders', 0), a);
    assert.deepEqual(
      (await ls(b)).filter((f) => f.startsWith('orders')),
      [],
    );

    // a partition deleted while it moves: the copy stops, the future dir goes too
    let open2!: () => void;
    const gate2 = new Promise<void>((r) => (open2 = r));
    const lm2 = manager([a, b], { alterLogDirsChunkBytes: 1, alterLogDirsChunk: () => gate2 });
    await lm.shutdown();
    await lm2.startup();
    assert.equal(await lm2.alterReplicaLogDir('orders', 0, b), 'NONE');
    const deleting = lm2.deleteLog('orders', 0);
    setImmediate(open2);
    await deleting;
    assert.equal(lm2.getFutureLog('orders', 0), undefined);
    assert.equal(lm2.getLog('orders', 0), undefined);
    assert.deepEqual(
      [...(await ls(a)), ...(await ls(b))].filter((f) => f.startsWith('orders')),
      [],
    );
    await lm2.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});

test('DescribeLogDirs lists a moving replica in its destination dir as the future replica, with its lag', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    let calls = 0;
    const lm = manager([a, b], {
      alterLogDirsChunkBytes: 1,
      alterLogDirsChunk: async () => {
        if (++calls === 3) {
          reached();
          await gate;
        }
      },
    });
    await lm.startup();
    const log = await lm.getOrCreateLog('orders', 0, { topicId: TOPIC_ID });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(simpleBatch(2, i), 0);
    log.updateHighWatermark(20);
    assert.equal(await lm.alterReplicaLogDir('orders', 0, b), 'NONE');
    await atGate;
    const services = { config: { logDirs: [a, b] }, replicas: { logManager: lm } } as unknown as BrokerServices;
    const ctx = { apiKey: 35, apiVersion: 4 } as unknown as RequestContext;
    const r = (await describeLogDirs.handle(ctx, { topics: null }, services)) as DescribeLogDirsResponse;
    const byDir = new Map(r.results.map((d) => [d.logDir, d.topics]));
    const future = lm.getFutureLog('orders', 0)!;
    assert.equal(future.logEndOffset, 4, 'two chunks of one batch copied');
    assert.deepEqual(byDir.get(a), [
      {
        name: 'orders',
        partitions: [{ partitionIndex: 0, partitionSize: BigInt(log.size), offsetLag: 0n, isFutureKey: false }],
      },
    ]);
    assert.deepEqual(byDir.get(b), [
      {
        name: 'orders',
        partitions: [{ partitionIndex: 0, partitionSize: BigInt(future.size), offsetLag: 16n, isFutureKey: true }],
      },
    ]);
    open();
    await lm.awaitFutureLog('orders', 0);
    const after = (await describeLogDirs.handle(ctx, { topics: null }, services)) as DescribeLogDirsResponse;
    const afterByDir = new Map(after.results.map((d) => [d.logDir, d.topics.map((t) => t.partitions)]));
    assert.deepEqual(afterByDir.get(a), []);
    assert.deepEqual(afterByDir.get(b), [
      [{ partitionIndex: 0, partitionSize: BigInt(log.size), offsetLag: 0n, isFutureKey: false }],
    ]);
    await lm.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});

test('the current log truncated under a move (a follower): the future is truncated where they part, then matches', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let reached!: () => void;
    const atGate = new Promise<void>((r) => (reached = r));
    let calls = 0;
    const lines: string[] = [];
    const lm = manager([a, b], {
      logger: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
      alterLogDirsChunkBytes: 1,
      alterLogDirsChunk: async () => {
        if (++calls === 8) {
          reached();
          await gate;
        }
      },
    });
    await lm.startup();
    const log = await lm.getOrCreateLog('orders', 0, { topicId: TOPIC_ID });
    // ten batches of epoch 0 (offsets 0-19)
    const kept: Buffer[] = [];
    for (let i = 0; i < 10; i++) {
      const buf = simpleBatch(2, i, `e0-${i}-`);
      await log.appendAsLeader(buf, 0);
      if (i < 5) kept.push(buf);
    }
    assert.equal(await lm.alterReplicaLogDir('orders', 0, b), 'NONE');
    await atGate;
    const future = lm.getFutureLog('orders', 0)!;
    assert.equal(
      future.logEndOffset,
      14,
      'seven batches copied, the eighth read (offsets 14-15, appended after the truncation)',
    );
    // as a follower whose leader diverged at offset 10: truncate, then other records of epoch 1
    assert.equal(await log.truncateTo(10), true);
    const rest: Buffer[] = [];
    for (let i = 0; i < 6; i++) {
      const buf = simpleBatch(2, 100 + i, `e1-${i}-`);
      await log.appendAsLeader(buf, 1);
      rest.push(buf);
    }
    open();
    await lm.awaitFutureLog('orders', 0);
    assert.equal(lm.logDir('orders', 0), b);
    assert.ok(lines.includes('Truncating the future log of orders-0 to 10'), lines.join('\n'));
    assert.equal(log.logEndOffset, 22);
    assert.deepEqual(await readAll(log), Buffer.concat([...kept, ...rest]));
    assert.deepEqual(
      log.epochCache.entries().map((e) => [e.epoch, e.startOffset]),
      [
        [0, 0],
        [1, 10],
      ],
    );
    await lm.shutdown();
  } finally {
    await removeDir(a);
    await removeDir(b);
  }
});
