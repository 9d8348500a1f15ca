import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import {
  CheckpointFormatError,
  formatOffsetCheckpoint,
  hasCleanShutdownMarker,
  parseOffsetCheckpoint,
  readCleanShutdownMarker,
  readOffsetCheckpoint,
  readOffsetCheckpointMap,
  writeCleanShutdownMarker,
  writeOffsetCheckpoint,
} from '../src/storage/checkpoint-file.js';
import { LeaderEpochCache } from '../src/broker/log/leader-epoch.js';
import {
  parsePartitionMetadata,
  readPartitionMetadata,
  uuidFromBase64,
  writePartitionMetadata,
} from '../src/storage/partition-metadata.js';
import { ls, removeDir, tempDir } from './helpers/log-fixtures.js';

test("offset checkpoint text is byte-identical to Kafka's and round-trips", async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'recovery-point-offset-checkpoint');
    const entries = [
      { topic: 'orders', partition: 0, offset: 1500 },
      { topic: 'orders', partition: 1, offset: 1432 },
      { topic: '__consumer_offsets', partition: 7, offset: 88 },
    ];
    await writeOffsetCheckpoint(file, entries);
    assert.equal(await readFile(file, 'utf8'), '0\n3\norders 0 1500\norders 1 1432\n__consumer_offsets 7 88\n');
    assert.deepEqual(await readOffsetCheckpoint(file), entries);
    assert.deepEqual(
      [...(await readOffsetCheckpointMap(file))],
      [
        ['orders-0', 1500],
        ['orders-1', 1432],
        ['__consumer_offsets-7', 88],
      ],
    );
    assert.deepEqual(await ls(dir), ['recovery-point-offset-checkpoint'], 'the .tmp file was renamed away');
    await writeOffsetCheckpoint(file, []);
    assert.equal(await readFile(file, 'utf8'), '0\n0\n');
    assert.equal(
      formatOffsetCheckpoint([{ topic: 'my-topic.v2', partition: 12, offset: 9007199254740991 }]),
      '0\n1\nmy-topic.v2 12 9007199254740991\n',
    );
  } finally {
    await removeDir(dir);
  }
});

test("offset checkpoint reader follows Kafka's CheckpointFile rules", async () => {
  assert.deepEqual(parseOffsetCheckpoint(''), []);
  assert.deepEqual(parseOffsetCheckpoint('0\n'), []);
  assert.deepEqual(
    parseOffsetCheckpoint('0\r\n1\r\nt  3\t9\r\n'),
    [{ topic: 't', partition: 3, offset: 9 }],
    'whitespace-separated, CRLF tolerated',
  );
  assert.throws(() => parseOffsetCheckpoint('1\n0\n'), /Unrecognised version:1/);
  assert.throws(() => parseOffsetCheckpoint('0\n2\nt 0 1\n'), /Expected \[2\] entries/);
  assert.throws(() => parseOffsetCheckpoint('0\n1\nt 0\n'), CheckpointFormatError);
  assert.throws(() => parseOffsetCheckpoint('0\n1\nt x 1\n'), /Malformed line/);
  const dir = await tempDir();
  try {
    assert.deepEqual(await readOffsetCheckpoint(path.join(dir, 'missing')), []);
  } finally {
    await removeDir(dir);
  }
});

test('.kafka_cleanshutdown holds {"version":0,"brokerEpoch":N}', async () => {
  const dir = await tempDir();
  try {
    assert.equal(await hasCleanShutdownMarker(dir), false);
    await writeCleanShutdownMarker(dir, 42);
    assert.equal(await readFile(path.join(dir, '.kafka_cleanshutdown'), 'utf8'), '{"version":0,"brokerEpoch":42}');
    assert.equal(await hasCleanShutdownMarker(dir), true);
    assert.equal(await readCleanShutdownMarker(dir), 42);
    await writeFile(path.join(dir, '.kafka_cleanshutdown'), ''); // older brokers: empty file
    assert.equal(await hasCleanShutdownMarker(dir), true);
    assert.equal(await readCleanShutdownMarker(dir), undefined);
  } finally {
    await removeDir(dir);
  }
});

test('leader-epoch-checkpoint format and cache semantics', async () => {
  const dir = await tempDir();
  try {
    const file = path.join(dir, 'leader-epoch-checkpoint');
    const cache = await LeaderEpochCache.load(dir);
    assert.equal((await stat(file)).size, 0, 'created empty, like Kafka');
    await cache.assign(0, 0);
    await cache.assign(0, 5); // same epoch, later offset: no change
    await cache.assign(3, 1057);
    assert.equal(await readFile(file, 'utf8'), '0\n2\n0 0\n3 1057\n');
    assert.deepEqual(cache.endOffsetFor(0, 2000), { epoch: 0, endOffset: 1057 });
    assert.deepEqual(cache.endOffsetFor(2, 2000), { epoch: 0, endOffset: 1057 });
    assert.deepEqual(cache.endOffsetFor(3, 2000), { epoch: 3, endOffset: 2000 });
    assert.equal(cache.epochForOffset(1056), 0);
    await cache.assign(2, 1000); // a lower epoch truncates conflicting entries
    assert.deepEqual(cache.entries(), [
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 1000 },
    ]);
    await cache.truncateFromStart(500);
    assert.equal(await readFile(file, 'utf8'), '0\n2\n0 500\n2 1000\n');
    await cache.truncateFromEnd(1000);
    assert.equal(await readFile(file, 'utf8'), '0\n1\n0 500\n');
    const again = await LeaderEpochCache.load(dir);
    assert.deepEqual(again.entries(), [{ epoch: 0, startOffset: 500 }]);
  } finally {
    await removeDir(dir);
  }
});

test('partition.metadata: two lines, no trailing newline, base64url topic id', async () => {
  const dir = await tempDir();
  try {
    await writePartitionMetadata(dir, 'J8aAPcfLQt2bqs1JT_rMgQ');
    assert.equal(
      await readFile(path.join(dir, 'partition.metadata'), 'utf8'),
      'version: 0\ntopic_id: J8aAPcfLQt2bqs1JT_rMgQ',
    );
    assert.equal(await readPartitionMetadata(dir), 'J8aAPcfLQt2bqs1JT_rMgQ');
    assert.equal(uuidFromBase64('AAAAAAAAAAAAAAAAAAAAAQ').toString('hex'), '00000000000000000000000000000001');
    assert.throws(() => parsePartitionMetadata('version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA'), /Invalid topic ID/);
    assert.throws(() => parsePartitionMetadata('version: 0'), /Malformed/);
    assert.equal(await readPartitionMetadata(path.join(dir, 'nope')), undefined);
  } finally {
    await removeDir(dir);
  }
});
