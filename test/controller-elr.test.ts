// Eligible leader replicas (KIP-966) on the controller against a real (temporary) metadata log, with
// eligible.leader.replicas.version 1 (the 4.4-IV2 default): an AlterPartition shrinking the ISR
// below min.insync.replicas moves the members that left into the ELR; fencing the leader then
// elects an ELR member (its ISR becomes that member alone); a min.insync.replicas change writes a
// ClearElrRecord that empties the ELR; the snapshot image keeps ELR fields; and with the feature at
// 0 the same shrink keeps no ELR.
import test from 'node:test';
import assert from 'node:assert/strict';
import { OpType, type QuorumController } from '../src/broker/controller/index.js';
import { ConfigResourceType } from '../src/broker/metadata/index.js';
import { imageRecords } from '../src/broker/metadata/image-writer.js';
import { RecordType } from '../src/protocol/metadata-records.js';
import { addBrokers, openController, tempDir } from './helpers/metadata-env.js';

async function withController(fn: (c: QuorumController) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir();
  const c = await openController(dir);
  try {
    await fn(c);
  } finally {
    await c.close();
    cleanup();
  }
}

async function setup(c: QuorumController): Promise<string> {
  await addBrokers(c, [2, 3]);
  const [t] = await c.createTopics([
    {
      name: 'elr',
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [{ partitionIndex: 0, brokerIds: [2, 3, 1] }],
      configs: [{ name: 'min.insync.replicas', value: '2' }],
    },
  ]);
  assert.equal(t!.errorCode, 0);
  return t!.topicId;
}

/** AlterPartition v2 from broker 2 (the leader) for elr-0. */
function shrink(c: QuorumController, topicId: string, newIsr: number[], partitionEpoch = 0) {
  return c.alterPartition(
    {
      brokerId: 2,
      brokerEpoch: c.image.brokers.get(2)!.epoch,
      topics: [
        {
          topicId,
          partitions: [
            { partitionIndex: 0, leaderEpoch: 0, newIsr, newIsrWithEpochs: [], leaderRecoveryState: 0, partitionEpoch },
          ],
        },
      ],
    },
    2,
  );
}

test('ELR: kept on an ISR shrink below min ISR, elected from when the leader is fenced, cleared by a min ISR change', async () => {
  await withController(async (c) => {
    assert.equal(c.image.features.get('eligible.leader.replicas.version'), 1);
    const topicId = await setup(c);
    const r = await shrink(c, topicId, [2]);
    assert.equal(r.errorCode, 0);
    assert.deepEqual(r.topics[0]!.partitions[0], {
      partitionIndex: 0,
      errorCode: 0,
      leaderId: 2,
      leaderEpoch: 0,
      isr: [2],
      leaderRecoveryState: 0,
      partitionEpoch: 1,
    });
    let p = c.image.partition('elr', 0)!;
    assert.deepEqual(p.eligibleLeaderReplicas, [1, 3]);
    assert.deepEqual(p.lastKnownElr, []);
    // the snapshot writes the ELR (PartitionRecord v2 tagged fields)
    const rec = imageRecords(c.image).find((x) => x.type === RecordType.Partition && x.data.topicId === topicId);
    assert.ok(rec && rec.type === RecordType.Partition);
    assert.deepEqual(rec.data.eligibleLeaderReplicas, [1, 3]);

    assert.equal((await c.fenceBroker(2, c.image.brokers.get(2)!.epoch)).errorCode, 0);
    p = c.image.partition('elr', 0)!;
    assert.equal(p.leader, 3, 'the first ELR member in replica order that is active');
    assert.deepEqual(p.isr, [3]);
    assert.deepEqual(p.eligibleLeaderReplicas, [1, 2]);
    assert.equal(p.leaderEpoch, 1);
    assert.equal(p.leaderRecoveryState, 0, 'an ELR election is clean');

    const epochBefore = p.partitionEpoch;
    const [cfg] = await c.incrementalAlterConfigs([
      {
        resourceType: ConfigResourceType.Topic,
        resourceName: 'elr',
        configs: [{ name: 'min.insync.replicas', value: '1', configOperation: OpType.SET }],
      },
    ]);
    assert.equal(cfg!.errorCode, 0);
    p = c.image.partition('elr', 0)!;
    assert.deepEqual(p.eligibleLeaderReplicas, []);
    assert.deepEqual(p.lastKnownElr, []);
    assert.equal(
      p.partitionEpoch,
      epochBefore + 1,
      'ClearElrRecord changes the partition like a PartitionChangeRecord',
    );
  });
});

test('ELR: with eligible.leader.replicas.version 0 an ISR shrink keeps no ELR', async () => {
  await withController(async (c) => {
    const topicId = await setup(c);
    assert.equal(
      (await c.updateFeatures([{ feature: 'eligible.leader.replicas.version', level: 0, upgradeType: 2 }])).errorCode,
      0,
    );
    const r = await shrink(c, topicId, [2]);
    assert.equal(r.topics[0]!.partitions[0]!.errorCode, 0);
    const p = c.image.partition('elr', 0)!;
    assert.deepEqual(p.isr, [2]);
    assert.deepEqual(p.eligibleLeaderReplicas, []);
  });
});
