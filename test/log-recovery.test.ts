import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, readFile, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { batchOffsets, openLog, removeDir, simpleBatch, tempDir, testConfig } from './helpers/log-fixtures.js';

const hex32 = (n: number) => n.toString(16).padStart(8, '0');
const SEG0 = '00000000000000000000';

async function fill(dir: string, n: number, cfg = testConfig({ indexIntervalBytes: 100 })) {
  const log = await openLog(dir, { config: cfg });
  const batches: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const b = simpleBatch(1, 1000 + i);
    await log.appendAsLeader(b, 0);
    batches.push(b);
  }
  return { log, batches };
}

test('clean restart trusts the files: no recovery, appends continue', async () => {
  const dir = await tempDir();
  try {
    const { log, batches } = await fill(dir, 5);
    await log.flush(true);
    await log.close();
    const S = batches[0]!.length;
    const re = await openLog(dir, {
      config: testConfig({ indexIntervalBytes: 100 }),
      hadCleanShutdown: true,
      recoveryPoint: 5,
    });
    assert.deepEqual(re.loadStats, { truncatedBytes: 0, recoveredSegments: 0 });
    assert.equal(re.logEndOffset, 5);
    assert.equal(re.recoveryPoint, 5);
    assert.equal((await stat(path.join(re.dir, SEG0 + '.index'))).size, 1024 * 1024, 'active index re-extended');
    await re.appendAsLeader(simpleBatch(1, 2000), 0);
    assert.equal(re.logEndOffset, 6);
    const all = await re.read(0, 1 << 20);
    assert.deepEqual(
      batchOffsets(all.records).map(([b]) => b),
      [0, 1, 2, 3, 4, 5],
    );
    await re.close();
    // entries: (2, 2S), (4, 4S) from the first run, none from the single append after restart
    assert.equal(
      (await readFile(path.join(re.dir, SEG0 + '.index'))).toString('hex'),
      hex32(2) + hex32(2 * S) + hex32(4) + hex32(4 * S),
    );
  } finally {
    await removeDir(dir);
  }
});

for (const [name, tail] of [
  ['half a batch', (b: Buffer) => b.subarray(0, Math.floor(b.length / 2))],
  ['garbage', () => Buffer.from('this is not a record batch, this is garbage at the end of the file')],
  ['a zero-filled pre-allocated tail', () => Buffer.alloc(4096)],
  [
    'a batch with a bad CRC',
    (b: Buffer) => {
      const c = Buffer.from(b);
      c[c.length - 1] ^= 0xff;
      return c;
    },
  ],
] as const) {
  test(`crash recovery truncates ${name} and rebuilds the indexes`, async () => {
    const dir = await tempDir();
    try {
      const { log, batches } = await fill(dir, 7);
      await log.closeHandlers(); // crash: indexes stay pre-allocated, nothing trimmed
      const S = batches[0]!.length;
      const logFile = path.join(log.dir, SEG0 + '.log');
      const extra = tail(simpleBatch(1, 9999));
      await appendFile(logFile, extra);
      assert.equal((await stat(path.join(log.dir, SEG0 + '.index'))).size, 1024 * 1024);

      const re = await openLog(dir, { config: testConfig({ indexIntervalBytes: 100 }) });
      assert.equal(re.loadStats.truncatedBytes, extra.length);
      assert.equal((await stat(logFile)).size, 7 * S);
      assert.equal(re.logEndOffset, 7);
      assert.equal(re.recoveryPoint, 0);
      const all = await re.read(0, 1 << 20);
      assert.deepEqual(all.records, Buffer.concat(batches), 'every complete batch is readable');
      for (let o = 0; o < 7; o++) assert.equal(batchOffsets((await re.read(o, 1 << 20)).records)[0]![0], o);
      await re.appendAsLeader(simpleBatch(1, 3000), 0);
      assert.equal(re.logEndOffset, 8);
      await re.close();
      // rebuilt with the recovery rule: an entry when > 100 bytes were scanned since the last one
      assert.equal(
        (await readFile(path.join(re.dir, SEG0 + '.index'))).toString('hex'),
        [2, 4, 6].map((o) => hex32(o) + hex32(o * S)).join(''),
      );
    } finally {
      await removeDir(dir);
    }
  });
}

test('corruption in a middle segment above the recovery point drops everything after it', async () => {
  const dir = await tempDir();
  try {
    const S = simpleBatch(1, 1).length;
    const cfg = testConfig({ segmentBytes: 3 * S });
    const { log } = await fill(dir, 9, cfg);
    assert.deepEqual(
      log.segments.map((s) => s.baseOffset),
      [0, 3, 6],
    );
    await log.closeHandlers();
    const mid = path.join(log.dir, '00000000000000000003.log');
    const bytes = await readFile(mid);
    bytes[S + 30] ^= 0x55; // corrupt the 2nd batch (offset 4) of the middle segment
    await writeFile(mid, bytes);
    const re = await openLog(dir, { config: cfg, recoveryPoint: 3 });
    assert.equal(re.loadStats.recoveredSegments, 1, 'the segment below the recovery point is not scanned');
    assert.deepEqual(
      re.segments.map((s) => s.baseOffset),
      [0, 3],
    );
    assert.equal(re.logEndOffset, 4);
    assert.ok(
      !(await stat(path.join(re.dir, '00000000000000000006.log')).catch(() => undefined)),
      'later segment deleted',
    );
    await re.close();
  } finally {
    await removeDir(dir);
  }
});

test('a missing offset index is rebuilt even after a clean shutdown; orphan indexes are removed', async () => {
  const dir = await tempDir();
  try {
    const S = simpleBatch(1, 1).length;
    const cfg = testConfig({ segmentBytes: 3 * S, indexIntervalBytes: 1 });
    const { log } = await fill(dir, 7, cfg);
    await log.close();
    const idx = path.join(log.dir, SEG0 + '.index');
    const before = await readFile(idx);
    await rm(idx);
    await writeFile(path.join(log.dir, '00000000000000000042.index'), Buffer.alloc(8));
    const re = await openLog(dir, { config: cfg, hadCleanShutdown: true, recoveryPoint: 7 });
    assert.equal(re.loadStats.recoveredSegments, 1);
    assert.deepEqual(await readFile(idx), before);
    assert.ok(!(await stat(path.join(re.dir, '00000000000000000042.index')).catch(() => undefined)));
    assert.equal(re.logEndOffset, 7);
    await re.close();
  } finally {
    await removeDir(dir);
  }
});

test('log start offset checkpoint beyond the end empties the log', async () => {
  const dir = await tempDir();
  try {
    const { log } = await fill(dir, 3);
    await log.close();
    const re = await openLog(dir, { hadCleanShutdown: true, logStartOffset: 10 });
    assert.equal(re.logStartOffset, 10);
    assert.equal(re.logEndOffset, 10);
    assert.deepEqual(
      re.segments.map((s) => s.baseOffset),
      [10],
    );
    await re.close();
  } finally {
    await removeDir(dir);
  }
});
