// The controller's periodic election tasks against a real (temporary) metadata log: electPreferred
// (auto.leader.rebalance.enable, every leader.imbalance.check.interval.seconds) moves leadership back
// to the preferred replica once it is in the ISR again; electUnclean (every
// unclean.leader.election.interval.ms) elects a live out-of-sync replica of a leaderless partition
// once its topic enables unclean.leader.election.enable, leaving it RECOVERING with itself as ISR.
import test from 'node:test';
import assert from 'node:assert/strict';
import { OpType, type QuorumController, type QuorumControllerOptions } from '../src/broker/controller/index.js';
import { ConfigResourceType } from '../src/broker/metadata/index.js';
import { addBrokers, openController, tempDir } from './helpers/metadata-env.js';
import { waitFor } from './helpers/wait-for.js';

async function withController(
  extra: Partial<QuorumControllerOptions>,
  fn: (c: QuorumController) => Promise<void>,
): Promise<void> {
  const { dir, cleanup } = tempDir();
  const c = await openController(dir, extra);
  try {
    await fn(c);
  } finally {
    await c.close();
    cleanup();
  }
}

async function topicOn(c: QuorumController, name: string, replicas: number[]): Promise<string> {
  const [t] = await c.createTopics([
    { name, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: replicas }] },
  ]);
  assert.equal(t!.errorCode, 0);
  return t!.topicId;
}

/** AlterPartition v2 from the partition's current leader with its current epochs. */
async function alterIsr(c: QuorumController, name: string, newIsr: number[]): Promise<void> {
  const p = c.image.partition(name, 0)!;
  const r = await c.alterPartition(
    {
      brokerId: p.leader,
      brokerEpoch: c.image.brokers.get(p.leader)!.epoch,
      topics: [
        {
          topicId: p.topicId,
          partitions: [
            {
              partitionIndex: 0,
              leaderEpoch: p.leaderEpoch,
              newIsr,
              newIsrWithEpochs: [],
              leaderRecoveryState: 0,
              partitionEpoch: p.partitionEpoch,
            },
          ],
        },
      ],
    },
    2,
  );
  assert.equal(r.topics[0]!.partitions[0]!.errorCode, 0);
}

test('electPreferred: leadership returns to the preferred replica once it is back in the ISR', async () => {
  await withController({ leaderImbalanceCheckIntervalMs: 200 }, async (c) => {
    await addBrokers(c, [2, 3]);
    await topicOn(c, 'pref', [2, 3]);
    assert.equal((await c.fenceBroker(2, c.image.brokers.get(2)!.epoch)).errorCode, 0);
    assert.equal(c.image.partition('pref', 0)!.leader, 3);
    assert.equal((await c.unfenceBroker(2, c.image.brokers.get(2)!.epoch)).errorCode, 0);
    assert.deepEqual(c.image.partition('pref', 0)!.isr, [3], 'unfencing does not add 2 back to the ISR');
    await alterIsr(c, 'pref', [3, 2]);
    const p = await waitFor(() => (c.image.partition('pref', 0)!.leader === 2 ? c.image.partition('pref', 0)! : null), {
      what: 'the preferred replica 2 to lead pref-0 again',
      timeoutMs: 10_000,
    });
    assert.deepEqual(p.isr, [3, 2]);
    assert.equal(p.leaderRecoveryState, 0);
  });
});

test('electPreferred is off with leader.imbalance.check.interval 0 (auto.leader.rebalance.enable=false)', async () => {
  await withController({ leaderImbalanceCheckIntervalMs: 0, uncleanLeaderElectionIntervalMs: 0 }, async (c) => {
    await addBrokers(c, [2, 3]);
    await topicOn(c, 'nopref', [2, 3]);
    assert.equal((await c.fenceBroker(2, c.image.brokers.get(2)!.epoch)).errorCode, 0);
    assert.equal((await c.unfenceBroker(2, c.image.brokers.get(2)!.epoch)).errorCode, 0);
    await alterIsr(c, 'nopref', [3, 2]);
    // the metadata log moves on (NoOpRecords) while the leader stays
    const offset = c.image.offset;
    await waitFor(() => c.image.offset > offset + 2, { what: 'a few more committed records', timeoutMs: 10_000 });
    assert.equal(c.image.partition('nopref', 0)!.leader, 3);
  });
});

test('electUnclean: a leaderless partition gets a live out-of-sync leader once its topic allows unclean elections', async () => {
  await withController({ uncleanLeaderElectionIntervalMs: 200 }, async (c) => {
    await addBrokers(c, [2, 3]);
    await topicOn(c, 'unclean', [2, 3]);
    await alterIsr(c, 'unclean', [2]); // 3 fell behind
    assert.equal((await c.fenceBroker(2, c.image.brokers.get(2)!.epoch)).errorCode, 0);
    let p = c.image.partition('unclean', 0)!;
    assert.equal(p.leader, -1, '3 is not in the ISR or ELR: no clean leader');
    assert.deepEqual(p.eligibleLeaderReplicas, [2]);
    const [r] = await c.incrementalAlterConfigs([
      {
        resourceType: ConfigResourceType.Topic,
        resourceName: 'unclean',
        configs: [{ name: 'unclean.leader.election.enable', value: 'true', configOperation: OpType.SET }],
      },
    ]);
    assert.equal(r!.errorCode, 0);
    p = await waitFor(() => (c.image.partition('unclean', 0)!.leader === 3 ? c.image.partition('unclean', 0)! : null), {
      what: 'an unclean election of 3',
      timeoutMs: 10_000,
    });
    assert.deepEqual(p.isr, [3]);
    assert.equal(p.leaderRecoveryState, 1, 'RECOVERING');
    assert.deepEqual(p.eligibleLeaderReplicas, []);
    assert.deepEqual(p.lastKnownElr, []);
    // the new leader reports the recovery done (AlterPartition with LeaderRecoveryState RECOVERED)
    await alterIsr(c, 'unclean', [3]);
    assert.equal(c.image.partition('unclean', 0)!.leaderRecoveryState, 0);
  });
});
