// Kafka's on-disk format of the KRaft metadata: quorum-state, the __cluster_metadata-0 log
// (decoded here with the generic batch decoder and the generated record codecs, not with the
// metadata package's own reader), snapshots, bootstrap.checkpoint, indexes, DescribeQuorum.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reader } from '../src/protocol/codec/reader.js';
import { decodeBatchSync, iterateBatches, type RecordBatch } from '../src/protocol/records/batch.js';
import { METADATA_RECORDS } from '../src/protocol/generated/records.js';
import { readLeaderChangeMessage } from '../src/protocol/generated/protocol/LeaderChangeMessage.js';
import { readVotersRecord } from '../src/protocol/generated/protocol/VotersRecord.js';
import { readSnapshotHeaderRecord } from '../src/protocol/generated/protocol/SnapshotHeaderRecord.js';
import {
  deserializeMetadataRecord,
  metadataRecord,
  RecordType,
  serializeMetadataRecord,
  writeBootstrapCheckpoint,
  readBootstrapCheckpoint,
} from '../src/broker/metadata/index.js';
import { buildDataBatch, MetadataLog } from '../src/broker/raft/index.js';
import { defaultNoOpRecord } from '../src/protocol/generated/metadata/NoOpRecord.js';
import { openController, tempDir } from './helpers/metadata-env.js';

const metaDir = (dir: string) => join(dir, '__cluster_metadata-0');

function batchesOf(file: string): RecordBatch[] {
  const buf = readFileSync(file);
  const out: RecordBatch[] = [];
  for (const e of iterateBatches(buf, { verifyCrc: true })) out.push(decodeBatchSync(buf, e.position));
  return out;
}

/** Decodes a framed record value with the generated codec table only. */
function decodeFramed(value: Buffer): { name: string; type: number; version: number; data: Record<string, unknown> } {
  const r = new Reader(value);
  assert.equal(r.uvarint(), 1, 'frame version 1');
  const type = r.uvarint();
  const version = r.uvarint();
  const spec = METADATA_RECORDS.find((s) => s.type === type);
  assert.ok(spec, `known record type ${type}`);
  const data = spec.read(r, version);
  assert.equal(r.remaining, 0, 'no trailing bytes');
  return { name: spec.name, type, version, data };
}

test('quorum-state: Kafka 4 JSON (data_version 1), epoch 1 on first start, +1 per restart; v0 for a static quorum', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let c = await openController(dir);
    const file = join(metaDir(dir), 'quorum-state');
    assert.equal(
      readFileSync(file, 'utf8'),
      '{"leaderId":1,"leaderEpoch":1,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    );
    await c.close();
    c = await openController(dir);
    assert.equal(
      readFileSync(file, 'utf8'),
      '{"leaderId":1,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}',
    );
    await c.close();
    assert.equal(
      readFileSync(join(metaDir(dir), 'leader-epoch-checkpoint'), 'utf8')
        .split('\n')
        .slice(0, 3)
        .join('|'),
      '0|2|1 0',
    );
    assert.equal(
      readFileSync(join(metaDir(dir), 'partition.metadata'), 'utf8'),
      'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ',
    );
    assert.ok(!readdirSync(metaDir(dir)).some((n) => n.endsWith('.tmp')));
  } finally {
    cleanup();
  }
  const st = tempDir();
  try {
    const c = await openController(st.dir, { kraftVersion: 0 });
    assert.equal(
      readFileSync(join(metaDir(st.dir), 'quorum-state'), 'utf8'),
      '{"clusterId":"","leaderId":1,"leaderEpoch":1,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}',
    );
    await c.close();
  } finally {
    st.cleanup();
  }
});

test('metadata log batches decode with the generated codec: control batch first, framed records, type ids and versions', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await openController(dir, { snapshotOnClose: false });
    await c.createTopics([
      { name: 'fmt', numPartitions: 2, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '10' }] },
    ]);
    await c.allocateProducerIds();
    await c.deleteTopics({ topicNames: ['fmt'] });
    await c.close();
    const batches = batchesOf(join(metaDir(dir), '00000000000000000000.log'));
    // Epoch start: LeaderChangeMessage + KRaftVersionRecord + VotersRecord in one control batch.
    const first = batches[0]!;
    assert.equal(first.baseOffset, 0);
    assert.equal(first.isControl, true);
    assert.equal(first.isTransactional, false);
    assert.equal(first.partitionLeaderEpoch, 1);
    assert.deepEqual(
      first.records.map((r) => r.key!.toString('hex')),
      ['00000002', '00000005', '00000006'],
    );
    const lc = readLeaderChangeMessage(new Reader(first.records[0]!.value!), 0);
    assert.deepEqual(
      [lc.version, lc.leaderId, lc.voters.map((v) => v.voterId), lc.grantingVoters.map((v) => v.voterId)],
      [0, 1, [1], [1]],
    );
    const voters = readVotersRecord(new Reader(first.records[2]!.value!), 0);
    assert.equal(voters.voters[0]!.voterId, 1);
    assert.equal(voters.voters[0]!.voterDirectoryId, 'J8aAPcfLQt2bqs1JT_rMgQ');
    assert.deepEqual(
      voters.voters[0]!.endpoints.map((e) => [e.name, e.host, e.port]),
      [['CONTROLLER', 'localhost', 9093]],
    );

    let expectedOffset = 0;
    const seen: string[] = [];
    for (const b of batches) {
      assert.equal(b.baseOffset, expectedOffset, 'offsets are contiguous');
      expectedOffset = b.lastOffset + 1;
      assert.equal(b.magic, 2);
      assert.equal(b.compression, 0);
      assert.equal(b.timestampType, 0);
      assert.equal(b.producerId, -1n);
      assert.equal(b.producerEpoch, -1);
      assert.equal(b.baseSequence, -1);
      assert.equal(b.partitionLeaderEpoch, 1);
      if (b.isControl) continue;
      for (const r of b.records) {
        assert.equal(r.key, null);
        assert.deepEqual(r.headers, []);
        const d = decodeFramed(r.value!);
        seen.push(`${d.name}:${d.version}`);
        assert.deepEqual(deserializeMetadataRecord(r.value!).data, d.data);
      }
    }
    assert.deepEqual(seen, [
      'BeginTransactionRecord:0',
      'FeatureLevelRecord:0', // metadata.version, then eligible.leader.replicas.version, group.version, share.version, streams.version, transaction.version
      'FeatureLevelRecord:0',
      'FeatureLevelRecord:0',
      'FeatureLevelRecord:0',
      'FeatureLevelRecord:0',
      'FeatureLevelRecord:0',
      'ZkMigrationStateRecord:0',
      'EndTransactionRecord:0',
      'RegisterControllerRecord:0',
      'RegisterBrokerRecord:4',
      'BrokerRegistrationChangeRecord:0',
      'TopicRecord:0',
      'ConfigRecord:0',
      'PartitionRecord:2',
      'PartitionRecord:2',
      'ProducerIdsRecord:0',
      'RemoveTopicRecord:0',
    ]);
    // The create is one atomic batch: TopicRecord, its ConfigRecords, then its PartitionRecords.
    const create = batches.find((b) => !b.isControl && decodeFramed(b.records[0]!.value!).name === 'TopicRecord')!;
    assert.equal(create.records.length, 4);
    const topic = decodeFramed(create.records[0]!.value!).data;
    const part = decodeFramed(create.records[2]!.value!).data;
    assert.equal(part.topicId, topic.topicId);
    assert.deepEqual(
      [part.partitionId, part.leader, part.leaderEpoch, part.partitionEpoch, part.replicas, part.isr],
      [0, 1, 0, 0, [1], [1]],
    );
    const reg = batches
      .flatMap((b) => (b.isControl ? [] : b.records.map((r) => decodeFramed(r.value!))))
      .find((d) => d.name === 'RegisterBrokerRecord')!;
    assert.equal(reg.data.brokerEpoch, 13n, 'broker epoch = offset of its RegisterBrokerRecord');
    assert.equal(reg.data.fenced, true);
    assert.deepEqual(reg.data.logDirs, ['J8aAPcfLQt2bqs1JT_rMgQ']);
  } finally {
    cleanup();
  }
});

test('snapshot file: header control batch at offset 0, data batches, footer; epoch-stamped', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await openController(dir);
    await c.createTopics([{ name: 'snap', numPartitions: 2, replicationFactor: 1 }]);
    const id = (await c.snapshot())!;
    assert.equal(id.offset, c.image.offset + 1);
    assert.equal(id.epoch, 1);
    await c.close();
    const name = `${String(id.offset).padStart(20, '0')}-0000000001.checkpoint`;
    const batches = batchesOf(join(metaDir(dir), name));
    const head = batches[0]!;
    assert.equal(head.baseOffset, 0);
    assert.equal(head.isControl, true);
    assert.deepEqual(
      head.records.map((r) => r.key!.toString('hex')),
      ['00000003', '00000005', '00000006'],
    );
    assert.equal(readSnapshotHeaderRecord(new Reader(head.records[0]!.value!), 0).version, 0);
    const foot = batches.at(-1)!;
    assert.equal(foot.isControl, true);
    assert.deepEqual(
      foot.records.map((r) => r.key!.toString('hex')),
      ['00000004'],
    );
    for (const b of batches) assert.equal(b.partitionLeaderEpoch, 1);
    const names = batches.slice(1, -1).flatMap((b) => b.records.map((r) => decodeFramed(r.value!).name));
    assert.equal(names[0], 'FeatureLevelRecord');
    assert.ok(
      names.includes('TopicRecord') && names.includes('PartitionRecord') && names.includes('RegisterBrokerRecord'),
    );
    assert.ok(!names.includes('BeginTransactionRecord'), 'no transaction markers in snapshots');
  } finally {
    cleanup();
  }
});

test('bootstrap.checkpoint: Kafka layout, read back, and it decides the metadata.version (and record versions)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    await writeBootstrapCheckpoint(dir, 22);
    const batches = batchesOf(join(dir, 'bootstrap.checkpoint'));
    assert.equal(batches.length, 3);
    for (const b of batches) assert.equal(b.partitionLeaderEpoch, 0);
    assert.equal(batches[0]!.baseOffset, 0);
    assert.equal(readSnapshotHeaderRecord(new Reader(batches[0]!.records[0]!.value!), 0).lastContainedLogTimestamp, 0n);
    assert.deepEqual(
      batches[1]!.records.map((r) => decodeFramed(r.value!).data).map((d) => [d.name, d.featureLevel]),
      [
        ['metadata.version', 22],
        ['group.version', 1],
      ],
    );
    assert.equal(batches[2]!.records[0]!.key!.toString('hex'), '00000004');
    assert.equal((await readBootstrapCheckpoint(dir))!.metadataVersion, 22);

    // The storage formatter's BootstrapInfo shape works too; an older MV gates record versions.
    await writeBootstrapCheckpoint(dir, {
      featureRecords: [
        { name: 'metadata.version', level: 14 },
        { name: 'kraft.version', level: 1 },
      ],
    });
    const c = await openController(dir, { snapshotOnClose: false });
    assert.equal(c.image.metadataVersion, 14);
    await c.createTopics([{ name: 'old', numPartitions: 1, replicationFactor: 1 }]);
    await c.close();
    const versions = batchesOf(join(metaDir(dir), '00000000000000000000.log'))
      .filter((b) => !b.isControl)
      .flatMap((b) => b.records.map((r) => decodeFramed(r.value!)))
      .map((d) => `${d.name}:${d.version}`);
    assert.ok(versions.includes('PartitionRecord:0'), versions.join());
    assert.ok(versions.includes('RegisterBrokerRecord:2'), versions.join());
    assert.ok(!versions.some((v) => v.startsWith('RegisterControllerRecord')), 'controller registration needs 3.7-IV0');
  } finally {
    cleanup();
  }
  const old = tempDir();
  try {
    await writeBootstrapCheckpoint(old.dir, 7); // 3.3-IV3: no metadata transactions yet
    const c = await openController(old.dir);
    await c.close();
    const names = batchesOf(join(metaDir(old.dir), '00000000000000000000.log'))
      .filter((b) => !b.isControl)
      .flatMap((b) => b.records.map((r) => decodeFramed(r.value!).name));
    assert.deepEqual(names.slice(0, 2), ['FeatureLevelRecord', 'RegisterBrokerRecord']);
  } finally {
    old.cleanup();
  }
});

test('describe(): leader, epoch, high watermark, voters', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const c = await openController(dir);
    await c.createTopics([{ name: 'dq', numPartitions: 1, replicationFactor: 1 }]);
    const d = c.describeQuorum();
    assert.equal(d.leaderId, 1);
    assert.equal(d.leaderEpoch, 1);
    assert.equal(d.highWatermark, c.quorum.logEndOffset);
    assert.equal(d.highWatermark, c.image.offset + 1);
    assert.equal(d.currentVoters.length, 1);
    const v = d.currentVoters[0]!;
    assert.equal(v.replicaId, 1);
    assert.equal(v.replicaDirectoryId, 'J8aAPcfLQt2bqs1JT_rMgQ');
    assert.equal(v.logEndOffset, d.highWatermark);
    assert.ok(Math.abs(v.lastFetchTimestamp - Date.now()) < 5000 && v.lastCaughtUpTimestamp === v.lastFetchTimestamp);
    assert.deepEqual(d.observers, []);
    assert.deepEqual(d.nodes, [{ nodeId: 1, listeners: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }] }]);
    assert.equal(c.quorum.isLeader(), true);
    await c.close();
    assert.equal(c.quorum.isLeader(), false);
    const after = await c.createTopics([{ name: 'late', numPartitions: 1, replicationFactor: 1 }]);
    assert.equal(after[0]!.errorCode, 41, 'NOT_CONTROLLER after close');
  } finally {
    cleanup();
  }
});

test('record framing: frame version 1; frame version 0 and trailing bytes are rejected', () => {
  const rec = metadataRecord(RecordType.NoOp, 0, defaultNoOpRecord());
  const bytes = serializeMetadataRecord(rec);
  assert.equal(bytes.toString('hex'), '01140000');
  assert.deepEqual(deserializeMetadataRecord(bytes), { type: 20, version: 0, data: {} });
  assert.throws(() => deserializeMetadataRecord(Buffer.from('00140000', 'hex')), /frame version 0/);
  assert.throws(() => deserializeMetadataRecord(Buffer.from('0114000000', 'hex')), /garbage/);
  assert.throws(() => deserializeMetadataRecord(Buffer.from('01630000', 'hex')), /unknown metadata record type 99/);
});

test('offset and time indexes follow the sparse-index rule and are rebuilt identically on recovery', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const log = await MetadataLog.open({ dir, indexIntervalBytes: 200 });
    const positions: [number, number, number][] = []; // [position, lastOffset, size]
    let pos = 0;
    for (let i = 0; i < 20; i++) {
      const recs = Array.from({ length: 1 + (i % 3) }, () => metadataRecord(RecordType.NoOp, 0, defaultNoOpRecord()));
      const batch = buildDataBatch({ baseOffset: log.logEndOffset, epoch: 3, timestamp: 1_700_000_000_000 + i }, recs);
      await log.append(batch);
      positions.push([pos, log.logEndOffset - 1, batch.length]);
      pos += batch.length;
    }
    await log.close();
    const index = readFileSync(join(dir, '00000000000000000000.index'));
    const expected: string[] = [];
    let since = 0;
    for (const [p, last, size] of positions) {
      if (since > 200) {
        expected.push(`${last}@${p}`);
        since = 0;
      }
      since += size;
    }
    const actual: string[] = [];
    for (let i = 0; i < index.length; i += 8) actual.push(`${index.readInt32BE(i)}@${index.readInt32BE(i + 4)}`);
    assert.ok(expected.length > 2);
    assert.deepEqual(actual, expected);
    const timeindex = readFileSync(join(dir, '00000000000000000000.timeindex'));
    assert.equal(timeindex.length % 12, 0);
    assert.equal(timeindex.readBigInt64BE(timeindex.length - 12), 1_700_000_000_019n, 'final entry on close');
    // Recovery rebuilds the offset index the same way.
    const again = await MetadataLog.open({ dir, indexIntervalBytes: 200 });
    assert.equal(again.logEndOffset, positions.at(-1)![1] + 1);
    assert.deepEqual(again.epochEntries, [{ epoch: 3, startOffset: 0 }]);
    const seen: number[] = [];
    await again.read(25, (_buf, info) => {
      seen.push(info.baseOffset);
    });
    assert.ok(seen[0]! <= 25 && seen.at(-1)! + 2 >= again.logEndOffset - 1);
    await again.close();
    assert.deepEqual(readFileSync(join(dir, '00000000000000000000.index')), index);
  } finally {
    cleanup();
  }
});
