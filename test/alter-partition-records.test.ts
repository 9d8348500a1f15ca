// ReplicationControlManager.alterPartition on images built by replaying records (the cases the wire
// scenario cannot reach without a reassignment API or a broker in controlled shutdown): an ISR
// enlargement that completes a reassignment and moves leadership away answers NEW_LEADER_ELECTED
// (the record is still written), a member in controlled shutdown is INELIGIBLE_REPLICA, a RECOVERING
// leader ends its recovery with RECOVERED, the request's whole-response STALE_BROKER_EPOCH, and
// partitions of one request are judged independently.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ImageBuilder } from '../src/broker/metadata/delta.js';
import { MetadataImage, type BrokerRegistration } from '../src/broker/metadata/image.js';
import { brokerRegistrationRecord } from '../src/broker/metadata/image-writer.js';
import { alterPartition } from '../src/broker/controller/alter-partition.js';
import { ErrorCode, KafkaError } from '../src/protocol/errors.js';
import { defaultPartitionRecord, defaultTopicRecord } from '../src/protocol/generated/metadata/index.js';
import { metadataRecord, RecordType, type MetadataRecord } from '../src/protocol/metadata-records.js';
import type { AlterPartitionRequestPartitionData } from '../src/protocol/generated/protocol/AlterPartition.js';

const MV = 33;
const TOPIC_ID = 'FbrrdcfiR-KC2CPSTHaJrg';

function broker(id: number, over: Partial<BrokerRegistration> = {}): BrokerRegistration {
  return {
    id,
    epoch: BigInt(100 + id),
    incarnationId: Buffer.alloc(16, id).toString('base64url'),
    endpoints: [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + id, securityProtocol: 0 }],
    supportedFeatures: new Map([['metadata.version', { min: 7, max: 33 }]]),
    rack: null,
    fenced: false,
    inControlledShutdown: false,
    isMigratingZkBroker: false,
    directories: [Buffer.alloc(16, 50 + id).toString('base64url')],
    ...over,
  };
}

function image(
  partitions: {
    replicas: number[];
    isr: number[];
    leader: number;
    removing?: number[];
    adding?: number[];
    lrs?: number;
  }[],
  brokers: BrokerRegistration[] = [1, 2, 3, 4].map((id) => broker(id)),
): MetadataImage {
  const b = new ImageBuilder(MetadataImage.empty());
  const records: MetadataRecord[] = [
    metadataRecord(RecordType.FeatureLevel, 0, { name: 'metadata.version', featureLevel: MV }),
    ...brokers.map((r) => brokerRegistrationRecord(r, MV)),
    metadataRecord(RecordType.Topic, 0, { ...defaultTopicRecord(), name: 't', topicId: TOPIC_ID }),
    ...partitions.map((p, i) =>
      metadataRecord(RecordType.Partition, 2, {
        ...defaultPartitionRecord(),
        partitionId: i,
        topicId: TOPIC_ID,
        replicas: p.replicas,
        isr: p.isr,
        removingReplicas: p.removing ?? [],
        addingReplicas: p.adding ?? [],
        leader: p.leader,
        leaderRecoveryState: p.lrs ?? 0,
        leaderEpoch: 5,
        partitionEpoch: 7,
        directories: p.replicas.map((r) => brokers.find((x) => x.id === r)?.directories[0] ?? 'AAAAAAAAAAAAAAAAAAAAAQ'),
      }),
    ),
  ];
  for (const r of records) b.apply(r);
  return b.build({ offset: records.length - 1, epoch: 1, lastContainedLogTimeMs: -1 });
}

function request(
  img: MetadataImage,
  brokerId: number,
  parts: (Partial<AlterPartitionRequestPartitionData> & { newIsr: number[] })[],
) {
  return {
    brokerId,
    brokerEpoch: img.brokers.get(brokerId)!.epoch,
    topics: [
      {
        topicId: TOPIC_ID,
        partitions: parts.map((p, i) => ({
          partitionIndex: i,
          leaderEpoch: 5,
          partitionEpoch: 7,
          leaderRecoveryState: 0,
          newIsrWithEpochs: [],
          ...p,
        })),
      },
    ],
  };
}

test('an ISR enlargement completing a reassignment that moves leadership answers NEW_LEADER_ELECTED', () => {
  const img = image([{ replicas: [1, 2, 3, 4], isr: [1, 2, 3], leader: 1, removing: [1], adding: [4] }]);
  const { records, response } = alterPartition(img, request(img, 1, [{ newIsr: [1, 2, 3, 4] }]), 2);
  assert.equal(response.topics[0]!.partitions[0]!.errorCode, ErrorCode.NEW_LEADER_ELECTED);
  assert.equal(records.length, 1);
  const r = records[0]!;
  assert.ok(r.type === RecordType.PartitionChange);
  assert.deepEqual(
    [r.data.replicas, r.data.isr, r.data.leader, r.data.removingReplicas, r.data.addingReplicas],
    [[2, 3, 4], [2, 3, 4], 2, [], []],
  );
});

test('a member in controlled shutdown is INELIGIBLE_REPLICA; an ISR without it and the fenced member is accepted', () => {
  const brokers = [broker(1), broker(2, { inControlledShutdown: true }), broker(3, { fenced: true })];
  const img = image([{ replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1 }], brokers);
  const refused = alterPartition(img, request(img, 1, [{ newIsr: [1, 2] }]), 2);
  assert.equal(refused.response.topics[0]!.partitions[0]!.errorCode, ErrorCode.INELIGIBLE_REPLICA);
  assert.equal(refused.records.length, 0);
  const shrunk = alterPartition(img, request(img, 1, [{ newIsr: [1] }]), 2);
  assert.deepEqual(shrunk.response.topics[0]!.partitions[0], {
    partitionIndex: 0,
    errorCode: 0,
    leaderId: 1,
    leaderEpoch: 5,
    isr: [1],
    leaderRecoveryState: 0,
    partitionEpoch: 8,
  });
});

test('RECOVERING ends with the leader RECOVERED; partitions of one request are judged on their own', () => {
  const img = image([
    { replicas: [1, 2], isr: [1], leader: 1, lrs: 1 },
    { replicas: [1, 2], isr: [1, 2], leader: 1 },
  ]);
  const { records, response } = alterPartition(
    img,
    request(img, 1, [
      { newIsr: [1], leaderRecoveryState: 0 },
      { newIsr: [1], partitionEpoch: 6 },
    ]),
    2,
  );
  assert.deepEqual(
    response.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderRecoveryState, p.partitionEpoch]),
    [
      [0, 0, 8],
      [ErrorCode.INVALID_UPDATE_VERSION, 0, 0],
    ],
  );
  assert.equal(records.length, 1);
});

test('a stale broker epoch fails the whole request', () => {
  const img = image([{ replicas: [1, 2], isr: [1, 2], leader: 1 }]);
  assert.throws(
    () => alterPartition(img, { ...request(img, 1, [{ newIsr: [1] }]), brokerEpoch: 1n }, 2),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.STALE_BROKER_EPOCH,
  );
});
