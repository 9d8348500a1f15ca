// KIP-858 on tkafka's controller (in-process, against a real temporary metadata log), as Kafka 4.4's
// ReplicationControlManager: AssignReplicasToDirs puts a broker's replicas in its dirs (with Kafka's
// per-partition errors), and a BrokerHeartbeat naming an offline dir takes exactly the partitions
// assigned to that dir away from the broker (leader moves, ISR shrinks), drops the dir from the
// registration with a BrokerRegistrationChangeRecord v2 and logs Kafka's WARN line — once.
import test from 'node:test';
import assert from 'node:assert/strict';
import type { QuorumController } from '../src/broker/controller/index.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { RecordType } from '../src/protocol/metadata-records.js';
import { handleDirectoriesOffline } from '../src/broker/controller/directories.js';
import { openController, tempDir } from './helpers/metadata-env.js';

const dirA = (id: number): string => Buffer.alloc(16, 100 + id).toString('base64url');
const dirB = (id: number): string => Buffer.alloc(16, 150 + id).toString('base64url');
const UNASSIGNED = 'AAAAAAAAAAAAAAAAAAAAAQ'; // DirectoryId.UNASSIGNED

interface Captured {
  warns: string[];
}

async function withController(fn: (c: QuorumController, log: Captured) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir();
  const log: Captured = { warns: [] };
  const c = await openController(dir, {
    logger: { info: () => undefined, warn: (m: string) => log.warns.push(m), error: () => undefined },
  });
  try {
    await fn(c, log);
  } finally {
    await c.close();
    cleanup();
  }
}

/** Brokers 2, 3, 4, each with two log dirs, registered, unfenced, heartbeating. */
async function addTwoDirBrokers(c: QuorumController): Promise<void> {
  for (const id of [2, 3, 4]) {
    const reg = await c.registerBroker({
      brokerId: id,
      incarnationId: Buffer.alloc(16, id).toString('base64url'),
      listeners: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 + id * 10, securityProtocol: 0 }],
      features: new Map([
        ['metadata.version', { min: 7, max: 33 }],
        ['group.version', { min: 0, max: 1 }],
        ['transaction.version', { min: 0, max: 2 }],
        ['eligible.leader.replicas.version', { min: 0, max: 1 }],
        ['share.version', { min: 0, max: 2 }],
        ['streams.version', { min: 0, max: 1 }],
      ]),
      rack: null,
      logDirs: [dirA(id), dirB(id)],
    });
    assert.equal(reg.errorCode, 0, reg.errorMessage ?? '');
    assert.equal((await c.unfenceBroker(id, reg.brokerEpoch)).errorCode, 0);
  }
}

function heartbeat(c: QuorumController, brokerId: number, offlineLogDirs: string[]) {
  return c.brokerHeartbeat({
    brokerId,
    brokerEpoch: c.image.brokers.get(brokerId)!.epoch,
    currentMetadataOffset: Number.MAX_SAFE_INTEGER,
    wantFence: false,
    wantShutDown: false,
    offlineLogDirs,
  });
}

function assign(
  c: QuorumController,
  brokerId: number,
  dirs: { id: string; topics: { topicId: string; partitions: number[] }[] }[],
  brokerEpoch = c.image.brokers.get(brokerId)!.epoch,
) {
  return c.assignReplicasToDirs({
    brokerId,
    brokerEpoch,
    directories: dirs.map((d) => ({
      id: d.id,
      topics: d.topics.map((t) => ({
        topicId: t.topicId,
        partitions: t.partitions.map((p) => ({ partitionIndex: p })),
      })),
    })),
  });
}

async function createTopic(c: QuorumController): Promise<string> {
  const [t] = await c.createTopics([
    {
      name: 'dirs',
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [
        { partitionIndex: 0, brokerIds: [2, 3, 4] },
        { partitionIndex: 1, brokerIds: [2, 4, 3] },
        { partitionIndex: 2, brokerIds: [3, 4, 2] },
      ],
      configs: [],
    },
  ]);
  assert.equal(t!.errorCode, 0);
  return t!.topicId;
}

test('AssignReplicasToDirs then OfflineLogDirs: the partitions of the failed dir leave the broker, the others stay', async () => {
  await withController(async (c, log) => {
    await addTwoDirBrokers(c);
    const topicId = await createTopic(c);
    // several dirs: UNASSIGNED at creation (ClusterControlManager.defaultDir)
    assert.deepEqual(c.image.partition('dirs', 0)!.directories, [UNASSIGNED, UNASSIGNED, UNASSIGNED]);

    const r = await assign(c, 2, [
      { id: dirA(2), topics: [{ topicId, partitions: [0, 2] }] },
      { id: dirB(2), topics: [{ topicId, partitions: [1] }] },
    ]);
    assert.deepEqual(r, {
      throttleTimeMs: 0,
      errorCode: 0,
      directories: [
        {
          id: dirA(2),
          topics: [
            {
              topicId,
              partitions: [
                { partitionIndex: 0, errorCode: 0 },
                { partitionIndex: 2, errorCode: 0 },
              ],
            },
          ],
        },
        { id: dirB(2), topics: [{ topicId, partitions: [{ partitionIndex: 1, errorCode: 0 }] }] },
      ],
    });
    assert.deepEqual(c.image.partition('dirs', 0)!.directories, [dirA(2), UNASSIGNED, UNASSIGNED]);
    assert.deepEqual(c.image.partition('dirs', 1)!.directories, [dirB(2), UNASSIGNED, UNASSIGNED]);
    assert.deepEqual(c.image.partition('dirs', 2)!.directories, [UNASSIGNED, UNASSIGNED, dirA(2)]);
    const before = c.image.partition('dirs', 0)!;
    assert.equal(before.leader, 2);

    // the dir fails: every heartbeat names it
    const hb = await heartbeat(c, 2, [dirA(2)]);
    assert.equal(hb.errorCode, 0);
    assert.equal(hb.isFenced, false);
    const p0 = c.image.partition('dirs', 0)!;
    assert.equal(p0.leader, 3, 'leadership moves to the next ISR member');
    assert.deepEqual(p0.isr, [3, 4]);
    assert.equal(p0.leaderEpoch, before.leaderEpoch + 1);
    const p2 = c.image.partition('dirs', 2)!;
    assert.equal(p2.leader, 3);
    assert.deepEqual(p2.isr, [3, 4], 'a follower replica in the failed dir leaves the ISR');
    const p1 = c.image.partition('dirs', 1)!;
    assert.equal(p1.leader, 2, 'the partition in the other dir keeps its leader');
    assert.deepEqual(p1.isr, [2, 4, 3]);
    assert.deepEqual(c.image.brokers.get(2)!.directories, [dirB(2)]);
    assert.deepEqual(log.warns, [
      `Directories [${dirA(2)}] in broker 2 marked offline, remaining directories: [${dirB(2)}]`,
    ]);

    // the next heartbeats still name it: nothing more is written
    const end = c.image.provenance.offset;
    assert.equal((await heartbeat(c, 2, [dirA(2)])).errorCode, 0);
    assert.equal(c.image.provenance.offset, end);
    assert.equal(log.warns.length, 1);
  });
});

test('AssignReplicasToDirs: Kafka per-partition errors, stale epoch, and an assignment into an offline dir', async () => {
  await withController(async (c, log) => {
    await addTwoDirBrokers(c);
    const topicId = await createTopic(c);
    const unknownTopic = Buffer.alloc(16, 7).toString('base64url');
    const r = await assign(c, 4, [
      { id: dirA(4), topics: [{ topicId, partitions: [0, 9] }] },
      { id: dirB(4), topics: [{ topicId: unknownTopic, partitions: [0] }] },
    ]);
    assert.equal(r.errorCode, 0);
    assert.deepEqual(
      r.directories.map((d) => d.topics.map((t) => t.partitions.map((p) => [p.partitionIndex, p.errorCode]))),
      [
        [
          [
            [0, 0],
            [9, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
          ],
        ],
        [[[0, ErrorCode.UNKNOWN_TOPIC_ID]]],
      ],
    );
    assert.ok(log.warns.includes(`AssignReplicasToDirsRequest from broker 4 references unknown partition dirs-9`));
    assert.ok(
      log.warns.includes(`AssignReplicasToDirsRequest from broker 4 references unknown topic ID ${unknownTopic}`),
    );

    // broker 1 (the in-process broker) is no replica of dirs-0
    const notReplica = await assign(c, 1, [{ id: 'J8aAPcfLQt2bqs1JT_rMgQ', topics: [{ topicId, partitions: [0] }] }]);
    assert.equal(notReplica.directories[0]!.topics[0]!.partitions[0]!.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);

    const stale = await assign(c, 4, [{ id: dirA(4), topics: [{ topicId, partitions: [1] }] }], 12345n);
    assert.equal(stale.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    assert.deepEqual(stale.directories, []);

    // dirB(3) goes offline before anything is assigned there: nothing moves, the dir leaves the registration
    const lastBefore = c.image.provenance.offset;
    assert.equal((await heartbeat(c, 3, [dirB(3)])).errorCode, 0);
    assert.ok(c.image.provenance.offset > lastBefore);
    assert.deepEqual(c.image.brokers.get(3)!.directories, [dirA(3)]);
    assert.equal(c.image.partition('dirs', 2)!.leader, 3);
    // then broker 3 reports dirs-2 in that offline dir: it leaves the ISR and its leadership moves
    const late = await assign(c, 3, [{ id: dirB(3), topics: [{ topicId, partitions: [2] }] }]);
    assert.equal(late.directories[0]!.topics[0]!.partitions[0]!.errorCode, 0);
    const p2 = c.image.partition('dirs', 2)!;
    assert.equal(p2.leader, 4);
    assert.deepEqual(p2.isr, [4, 2]);
    assert.equal(p2.directories[0], dirB(3));
  });
});

test('the records: PartitionChangeRecord, then BrokerRegistrationChangeRecord v2 with the remaining dirs', async () => {
  await withController(async (c) => {
    await addTwoDirBrokers(c);
    const topicId = await createTopic(c);
    await assign(c, 2, [{ id: dirB(2), topics: [{ topicId, partitions: [0] }] }]);
    const warns: string[] = [];
    const epoch = c.image.brokers.get(2)!.epoch;
    const records = handleDirectoriesOffline(c.image, 2, epoch, [dirB(2), dirA(4)], undefined, (m) => warns.push(m));
    assert.deepEqual(
      records.map((r) => [r.type, r.version]),
      [
        [RecordType.PartitionChange, records[0]!.version],
        [RecordType.BrokerRegistrationChange, 2],
      ],
    );
    const [pc, change] = records;
    assert.ok(pc!.type === RecordType.PartitionChange);
    assert.equal(pc!.data.partitionId, 0);
    assert.equal(pc!.data.leader, 3);
    assert.deepEqual(pc!.data.isr, [3, 4]);
    assert.ok(change!.type === RecordType.BrokerRegistrationChange);
    assert.equal(change!.data.brokerEpoch, epoch);
    assert.deepEqual(change!.data.logDirs, [dirA(2)], "a dir of another broker is not this broker's");
    assert.deepEqual(warns, [
      `Directories [${dirB(2)}] in broker 2 marked offline, remaining directories: [${dirA(2)}]`,
    ]);
    // no registered dir named: nothing
    assert.deepEqual(handleDirectoriesOffline(c.image, 2, epoch, [dirA(4)]), []);
  });
});
