// Durability of the metadata log: restarts restore the same image (same topic ids), snapshots
// are written and loaded with the log tail, torn tails are truncated, producer id blocks never
// repeat, epochs grow.
import test from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigResourceType, type MetadataImage } from '../src/broker/metadata/index.js';
import { OpType } from '../src/broker/controller/index.js';
import { CLUSTER_ID, openController, tempDir } from './helpers/metadata-env.js';

function summary(img: MetadataImage): unknown {
  return {
    topics: [...img.topicsByName.values()]
      .map((t) => ({
        name: t.name,
        id: t.id,
        partitions: [...t.partitions.values()].map((p) => [
          p.partitionId,
          p.leader,
          p.leaderEpoch,
          p.partitionEpoch,
          [...p.replicas],
          [...p.isr],
        ]),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : 1)),
    configs: [...img.configs].map(([k, m]) => [k, [...m].sort()]).sort(),
    features: [...img.features].sort(),
    nextProducerId: img.nextProducerId,
    brokers: [...img.brokers.keys()],
  };
}

const metaDir = (dir: string) => join(dir, '__cluster_metadata-0');
const snapshotsIn = (dir: string) =>
  readdirSync(metaDir(dir))
    .filter((n) => n.endsWith('.checkpoint'))
    .sort();

test('restart restores the same image and topic ids (from snapshot + tail, and from the log alone)', async () => {
  for (const snapshotOnClose of [true, false]) {
    const { dir, cleanup } = tempDir();
    try {
      let c = await openController(dir, { snapshotOnClose });
      await c.createTopics([
        { name: 'alpha', numPartitions: 3, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '1000' }] },
        { name: 'beta', numPartitions: 1, replicationFactor: 1 },
        { name: 'gamma', numPartitions: 2, replicationFactor: 1 },
      ]);
      await c.deleteTopics({ topicNames: ['gamma'] });
      await c.createPartitions([{ name: 'beta', count: 2, assignments: null }]);
      await c.incrementalAlterConfigs([
        {
          resourceType: ConfigResourceType.Topic,
          resourceName: 'beta',
          configs: [{ name: 'segment.ms', value: '5', configOperation: OpType.SET }],
        },
      ]);
      await c.allocateProducerIds();
      const before = summary(c.image);
      await c.close();
      assert.equal(snapshotsIn(dir).length, snapshotOnClose ? 1 : 0);

      c = await openController(dir, { snapshotOnClose });
      assert.deepEqual(summary(c.image), before);
      assert.equal(c.image.controllerId, 1);
      assert.equal(c.describeQuorum().leaderEpoch, 2);
      // And it keeps working after the restart.
      const [r] = await c.createTopics([{ name: 'delta', numPartitions: 1, replicationFactor: 1 }]);
      assert.equal(r!.errorCode, 0);
      const after = summary(c.image);
      await c.close();
      c = await openController(dir, { snapshotOnClose });
      assert.deepEqual(summary(c.image), after);
      assert.equal(c.describeQuorum().leaderEpoch, 3);
      await c.close();
    } finally {
      cleanup();
    }
  }
});

test('snapshots every N records; restart loads the latest snapshot and replays only the tail', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let c = await openController(dir, { snapshotMaxRecords: 10, snapshotOnClose: false });
    for (let i = 0; i < 6; i++) await c.createTopics([{ name: `t${i}`, numPartitions: 2, replicationFactor: 1 }]);
    const snaps = snapshotsIn(dir);
    assert.ok(snaps.length >= 1 && snaps.length <= 2, `snapshots kept: ${snaps.join(',')}`);
    const latest = c.quorum.latestSnapshotId()!;
    assert.ok(latest.offset > 0 && latest.epoch === 1);
    assert.equal(snaps[snaps.length - 1], `${String(latest.offset).padStart(20, '0')}-0000000001.checkpoint`);
    await c.close();
    c = await openController(dir, { snapshotOnClose: false });
    await c.createTopics([{ name: 'tail', numPartitions: 1, replicationFactor: 1 }]); // after the last snapshot
    const before = summary(c.image);
    await c.close();
    const { readSnapshotFile } = await import('../src/broker/raft/index.js');
    const snap = await readSnapshotFile(join(metaDir(dir), snapshotsIn(dir).at(-1)!));
    const names = snap.records.flatMap((r) => (r.type === 2 ? [r.data.name] : []));
    assert.ok(names.includes('t0') && !names.includes('tail'), names.join(','));

    let snapshotLoads = 0;
    const tailTopics: string[] = [];
    c = await openController(dir, { snapshotOnClose: false });
    assert.deepEqual(summary(c.image), before);
    await c.close();
    // What the loader receives: the snapshot, then only the batches after it.
    const { RaftClient } = await import('../src/broker/raft/index.js');
    const q = await RaftClient.open({ metadataLogDir: dir, nodeId: 1, clusterId: CLUSTER_ID });
    q.register({
      handleLoadSnapshot: (s) => {
        snapshotLoads++;
        assert.deepEqual(s.id, latest);
      },
      handleCommit: (b) => {
        assert.ok(b.baseOffset >= latest.offset);
        for (const r of b.records) if (r.type === 2) tailTopics.push(r.data.name);
      },
    });
    await q.start();
    await q.close();
    assert.equal(snapshotLoads, 1);
    assert.equal(tailTopics.at(-1), 'tail');
    assert.ok(
      tailTopics.every((t) => !names.includes(t)),
      'no record is applied twice',
    );
    assert.deepEqual([...names, ...tailTopics].sort(), ['t0', 't1', 't2', 't3', 't4', 't5', 'tail']);
  } finally {
    cleanup();
  }
});

test('a torn tail of the metadata log is truncated and the rest loads', async () => {
  for (const damage of ['cut', 'garbage', 'crc'] as const) {
    const { dir, cleanup } = tempDir();
    try {
      let c = await openController(dir, { snapshotOnClose: false });
      const [a] = await c.createTopics([{ name: 'kept', numPartitions: 2, replicationFactor: 1 }]);
      const goodSize = statSync(join(metaDir(dir), '00000000000000000000.log')).size;
      await c.createTopics([{ name: 'torn', numPartitions: 4, replicationFactor: 1 }]);
      await c.close();
      const log = join(metaDir(dir), '00000000000000000000.log');
      const full = statSync(log).size;
      if (damage === 'cut') truncateSync(log, full - 7);
      else if (damage === 'garbage')
        appendFileSync(log, Buffer.from('00000000000000ff0000002a0000000102deadbeef', 'hex'));
      else {
        const buf = readFileSync(log);
        buf[full - 3] ^= 0xff; // inside the last batch's records: CRC mismatch
        writeFileSync(log, buf);
      }
      c = await openController(dir, { snapshotOnClose: false });
      assert.equal(c.image.topic('kept')?.id, a!.topicId, damage);
      if (damage === 'garbage') {
        assert.ok(c.image.topic('torn'), 'nothing valid was lost');
      } else {
        assert.equal(c.image.topic('torn'), undefined, `${damage}: the torn batch is gone`);
      }
      // The log continues cleanly after the truncation point.
      const [r] = await c.createTopics([{ name: 'next', numPartitions: 1, replicationFactor: 1 }]);
      assert.equal(r!.errorCode, 0);
      await c.close();
      if (damage !== 'garbage') assert.ok(statSync(log).size > goodSize);
      c = await openController(dir, { snapshotOnClose: false });
      assert.ok(c.image.topic('next'));
      assert.equal(c.image.topic('kept')?.id, a!.topicId);
      await c.close();
    } finally {
      cleanup();
    }
  }
});

test('producer id blocks never repeat across restarts (with and without snapshots)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const starts: bigint[] = [];
    for (let round = 0; round < 4; round++) {
      const c = await openController(dir, { snapshotOnClose: round % 2 === 0 });
      for (let i = 0; i < 3; i++) {
        const r = await c.allocateProducerIds();
        assert.equal(r.errorCode, 0);
        starts.push(r.producerIdStart);
      }
      await c.close();
    }
    assert.equal(new Set(starts).size, starts.length);
    assert.deepEqual(
      starts,
      starts.map((_, i) => BigInt(i * 1000)),
    );
  } finally {
    cleanup();
  }
});

test('segments roll, old segments are deleted once covered by a snapshot, restart still works', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let c = await openController(dir, {
      segmentBytes: 2048,
      snapshotMaxRecords: 40,
      retentionBytes: 4096,
      snapshotOnClose: false,
    });
    for (let i = 0; i < 30; i++) await c.createTopics([{ name: `roll-${i}`, numPartitions: 3, replicationFactor: 1 }]);
    const logs = readdirSync(metaDir(dir)).filter((n) => n.endsWith('.log'));
    const base = Number(logs[0]!.slice(0, 20));
    assert.ok(base > 0, `the first segments were deleted (first is ${logs[0]})`);
    assert.ok(c.quorum.latestSnapshotId()!.offset >= base);
    for (const l of logs) {
      assert.ok(readdirSync(metaDir(dir)).includes(l.replace('.log', '.index')));
      assert.ok(readdirSync(metaDir(dir)).includes(l.replace('.log', '.timeindex')));
    }
    const before = summary(c.image);
    await c.close();
    c = await openController(dir, { segmentBytes: 2048, snapshotOnClose: false });
    assert.deepEqual(summary(c.image), before);
    await c.close();
  } finally {
    cleanup();
  }
});
