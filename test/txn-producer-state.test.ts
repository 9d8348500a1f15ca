// Producer state of a partition log: Kafka's sequence/epoch rules, the `.snapshot` and
// `.txnindex` byte formats, the last stable offset, snapshots on roll and clean close, and the
// rebuild after a crash (no snapshot for the tail) giving exactly the state the log implies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode } from '../src/protocol/errors.js';
import { buildEndTxnMarker } from '../src/protocol/records/batch.js';
import { crc32c } from '../src/protocol/records/crc.js';
import { ProducerStates, type BatchHeaderInfo } from '../src/broker/log/producer-state.js';
import { decodeSnapshot, encodeSnapshot } from '../src/storage/producer-snapshot.js';
import { decodeAbortedTxns, encodeAbortedTxn } from '../src/storage/txn-index.js';
import { abortedTransactionsIn } from '../src/broker/replication/eos.js';
import { batch, openLog, removeDir, tempDir, testConfig } from './helpers/log-fixtures.js';

const hdr = (o: Partial<BatchHeaderInfo>): BatchHeaderInfo => ({
  producerId: 7,
  producerEpoch: 0,
  baseSequence: 0,
  recordCount: 1,
  isTransactional: false,
  isControl: false,
  maxTimestamp: 1000,
  ...o,
});

test('sequence rules: in order, duplicates of the last five batches, gaps, old and new epochs', () => {
  const s = new ProducerStates('t-0');
  let offset = 0;
  const append = (h: BatchHeaderInfo) => {
    const v = s.validate(h, offset, 'client');
    if (v.kind === 'append') {
      s.applyBatch(h, offset, offset + h.recordCount - 1);
      offset += h.recordCount;
    }
    return v;
  };
  // an unknown producer may start at any sequence
  assert.equal(append(hdr({ baseSequence: 5, recordCount: 2 })).kind, 'append');
  for (let i = 0; i < 6; i++) assert.equal(append(hdr({ baseSequence: 7 + i * 2, recordCount: 2 })).kind, 'append');
  // the last five batches are duplicates, answered with their original offsets
  const dup = s.validate(hdr({ baseSequence: 15, recordCount: 2 }), offset, 'client');
  assert.deepEqual(dup, { kind: 'duplicate', firstOffset: 10, lastOffset: 11, timestamp: 1000 });
  // the sixth-newest is gone: an out-of-order sequence now
  const old = s.validate(hdr({ baseSequence: 7, recordCount: 2 }), offset, 'client');
  assert.equal(old.kind, 'error');
  assert.equal((old as { errorCode: number }).errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  // a gap
  const gap = s.validate(hdr({ baseSequence: 20 }), offset, 'client');
  assert.equal((gap as { errorCode: number }).errorCode, ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  assert.match(
    (gap as { message: string }).message,
    /Out of order sequence number for producer 7 at offset 14 in partition t-0: 20 \(incoming seq\. number\), 18 \(current end sequence number\)/,
  );
  // a new epoch must start at 0; then the old epoch is fenced
  assert.equal(
    (s.validate(hdr({ producerEpoch: 1, baseSequence: 3 }), offset, 'client') as { errorCode: number }).errorCode,
    ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
  );
  assert.equal(append(hdr({ producerEpoch: 1, baseSequence: 0 })).kind, 'append');
  const fenced = s.validate(hdr({ producerEpoch: 0, baseSequence: 19 }), offset, 'client');
  assert.equal((fenced as { errorCode: number }).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  // sequences wrap at Integer.MAX_VALUE
  const w = new ProducerStates('t-0');
  w.applyBatch(hdr({ producerId: 9, baseSequence: 2147483646, recordCount: 2 }), 0, 1);
  assert.equal(w.validate(hdr({ producerId: 9, baseSequence: 0 }), 2, 'client').kind, 'append');
});

test('transactions: open/commit/abort, non-transactional writes inside a transaction, coordinator epoch fencing, LSO', () => {
  const s = new ProducerStates('t-0');
  s.applyBatch(hdr({ producerId: 1, isTransactional: true }), 0, 0);
  s.applyBatch(hdr({ producerId: 2, isTransactional: true }), 1, 1);
  assert.equal(s.firstUnstableOffset, 0);
  const bad = s.validate(hdr({ producerId: 1, baseSequence: 1 }), 2, 'client');
  assert.equal((bad as { errorCode: number }).errorCode, ErrorCode.INVALID_TXN_STATE);
  const r1 = s.applyMarker(1, 0, 2, { commit: false, coordinatorEpoch: 5, timestamp: 2000 });
  assert.deepEqual(r1.aborted, { producerId: 1, firstOffset: 0, lastOffset: 2, lastStableOffset: 1 });
  assert.equal(s.firstUnstableOffset, 1);
  const zombie = s.validate(
    hdr({ producerId: 1, isControl: true, isTransactional: true, baseSequence: -1 }),
    3,
    'coordinator',
    { commit: true, coordinatorEpoch: 4, timestamp: 0 },
  );
  assert.equal((zombie as { errorCode: number }).errorCode, ErrorCode.TRANSACTION_COORDINATOR_FENCED);
  const r2 = s.applyMarker(2, 0, 3, { commit: true, coordinatorEpoch: 5, timestamp: 2000 });
  assert.equal(r2.aborted, undefined);
  assert.equal(r2.completed?.firstOffset, 1);
  assert.equal(s.firstUnstableOffset, undefined);
  // a marker for a producer without data completes nothing
  assert.deepEqual(s.applyMarker(3, 0, 4, { commit: false, coordinatorEpoch: 5, timestamp: 1 }), {});
});

test('.snapshot bytes: version 1, CRC-32C after the CRC field, 46-byte entries', () => {
  const entries = [
    {
      producerId: 1000,
      producerEpoch: 3,
      lastSequence: 41,
      lastOffset: 99,
      offsetDelta: 4,
      timestamp: 1729800000123,
      coordinatorEpoch: 5,
      currentTxnFirstOffset: 42,
    },
  ];
  const buf = encodeSnapshot(entries);
  assert.equal(buf.length, 10 + 46);
  assert.equal(buf.readInt16BE(0), 1);
  assert.equal(buf.readUInt32BE(2), crc32c(buf, 6, buf.length));
  assert.equal(buf.readInt32BE(6), 1);
  assert.equal(
    buf.subarray(10).toString('hex'),
    '00000000000003e8' +
      '0003' +
      '00000029' +
      '0000000000000063' +
      '00000004' +
      (1729800000123).toString(16).padStart(16, '0') +
      '00000005' +
      '000000000000002a',
  );
  assert.deepEqual(decodeSnapshot(buf), entries);
  buf[20] ^= 1;
  assert.throws(() => decodeSnapshot(buf), /CRC is no longer valid/);
});

test('.txnindex bytes: 34-byte entries', () => {
  const e = { producerId: 1000, firstOffset: 10, lastOffset: 42, lastStableOffset: 43 };
  const b = encodeAbortedTxn(e);
  assert.equal(
    b.toString('hex'),
    '0000' + '00000000000003e8' + '000000000000000a' + '000000000000002a' + '000000000000002b',
  );
  assert.deepEqual(decodeAbortedTxns(Buffer.concat([b, b.subarray(0, 10)])), [e]);
});

const NOW = Date.now();
const marker = (pid: number, commit: boolean, epoch = 0, coordinatorEpoch = 0) =>
  buildEndTxnMarker({ producerId: pid, producerEpoch: epoch, coordinatorEpoch, commit, timestamp: NOW + 5 });

test('partition log: LSO, aborted list for READ_COMMITTED, snapshot on roll and close, rebuild after a crash', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir, { config: testConfig({ segmentBytes: 100_000 }) });
    const txn = (pid: number, seq: number) =>
      batch([{ key: 'k', value: `v${pid}-${seq}`, timestamp: NOW }], {
        producerId: pid,
        producerEpoch: 0,
        baseSequence: seq,
        transactional: true,
      });
    await log.appendAsLeader(txn(1, 0), 0); // 0
    await log.appendAsLeader(txn(2, 0), 0); // 1
    await log.appendAsLeader(
      batch([{ key: 'x', value: 'plain', timestamp: NOW }], { producerId: 3, producerEpoch: 0, baseSequence: 0 }),
      0,
    ); // 2
    await log.appendAsLeader(marker(1, false), 0); // 3 ABORT of [0]
    await log.appendAsLeader(txn(2, 1), 0); // 4
    log.updateHighWatermark(log.logEndOffset);
    const ps = log.producerState;
    assert.equal(ps.firstUnstableOffset, 1);
    assert.deepEqual(ps.txnIndex.all(), [{ producerId: 1, firstOffset: 0, lastOffset: 3, lastStableOffset: 1 }]);
    const files = await readdir(log.dir);
    assert.deepEqual(
      decodeAbortedTxns(
        await readFile(
          path.join(
            log.dir,
            files.find((f) => f.endsWith('.txnindex'))!,
          ),
        ),
      ),
      ps.txnIndex.all(),
    );
    const read = await log.read(0, 1 << 20);
    assert.deepEqual(abortedTransactionsIn(log, 0, read.records), [{ producerId: 1, firstOffset: 0 }]);
    assert.deepEqual(abortedTransactionsIn(log, 4, (await log.read(4, 1 << 20)).records), []);
    // roll: a snapshot named after the new segment
    await log.roll();
    assert.ok((await readdir(log.dir)).includes('00000000000000000005.snapshot'));
    await log.appendAsLeader(marker(2, true), 0); // 5 COMMIT of [1, 4]
    await log.appendAsLeader(txn(1, 1), 0); // 6: producer 1 starts another transaction
    assert.equal(ps.firstUnstableOffset, 6);
    const before = JSON.stringify(ps.states.snapshotEntries());
    // crash: no snapshot at the end; the reopened log replays offsets 5..6
    await log.closeHandlers();
    const re = await openLog(dir, { config: testConfig({ segmentBytes: 100_000 }) });
    assert.equal(JSON.stringify(re.producerState.states.snapshotEntries()), before);
    assert.equal(re.producerState.firstUnstableOffset, 6);
    assert.deepEqual(re.producerState.txnIndex.all(), [
      { producerId: 1, firstOffset: 0, lastOffset: 3, lastStableOffset: 1 },
    ]);
    // clean close: a snapshot at the log end offset, loaded without replay next time
    await re.close();
    assert.ok((await readdir(re.dir)).includes('00000000000000000007.snapshot'));
    const again = await openLog(dir, { config: testConfig({ segmentBytes: 100_000 }) });
    assert.equal(again.producerState.firstUnstableOffset, 6);
    assert.equal(again.producerState.states.get(2)?.lastSeq, 1);
    await again.close();
  } finally {
    await removeDir(dir);
  }
});

test('a corrupt snapshot is discarded and the state rebuilt from the log', async () => {
  const dir = await tempDir();
  try {
    const log = await openLog(dir);
    await log.appendAsLeader(
      batch([{ key: 'a', value: 'b', timestamp: Date.now() }], {
        producerId: 11,
        producerEpoch: 2,
        baseSequence: 0,
        transactional: true,
      }),
      0,
    );
    await log.close();
    const snap = path.join(log.dir, '00000000000000000001.snapshot');
    const bytes = await readFile(snap);
    bytes[bytes.length - 1] ^= 0xff;
    await writeFile(snap, bytes);
    const re = await openLog(dir);
    assert.equal(re.producerState.states.get(11)?.producerEpoch, 2);
    assert.equal(re.producerState.firstUnstableOffset, 0);
    await re.close();
  } finally {
    await removeDir(dir);
  }
});
