// __consumer_offsets records through the generated codecs: Kafka's byte layout (the key version is
// the record type), the value versions written, tombstones, and every KIP-848 record round-tripping.
import test from 'node:test';
import assert from 'node:assert/strict';
import { decodeRecord, encodeRecord, type CoordinatorRecord } from '../src/broker/group/records.js';
import { coordinatorPartition } from '../src/protocol/partitioner.js';

test("OffsetCommit key bytes are Kafka's; the value is v3, v1 with an expire timestamp", () => {
  const rec: CoordinatorRecord = {
    type: 'OffsetCommit',
    group: 'g',
    topic: 't',
    partition: 0,
    value: { offset: 42n, leaderEpoch: 5, metadata: 'md', commitTimestamp: 1700000000000n, expireTimestamp: -1n },
  };
  const { key, value } = encodeRecord(rec);
  assert.equal(key.toString('hex'), '0001' + '0001' + '67' + '0001' + '74' + '00000000');
  // v3: offset int64, leaderEpoch int32, metadata string, commitTimestamp int64
  assert.equal(value!.readInt16BE(0), 3);
  assert.equal(value!.readBigInt64BE(2), 42n);
  assert.equal(value!.readInt32BE(10), 5);
  assert.equal(value!.length, 2 + 8 + 4 + 2 + 2 + 8);
  // topicId (tagged, v4+) is not in v3: it reads back as the zero UUID
  assert.deepEqual(decodeRecord(key, value), { ...rec, value: { ...rec.value!, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' } });
  const withExpire = encodeRecord({
    ...rec,
    value: { ...rec.value!, expireTimestamp: 1800000000000n },
  } as CoordinatorRecord);
  assert.equal(withExpire.value!.readInt16BE(0), 1);
  const back = decodeRecord(withExpire.key, withExpire.value)!;
  assert.ok(back.type === 'OffsetCommit' && back.value!.expireTimestamp === 1800000000000n);
  // a version-0 key (LegacyOffsetCommitKey, older writers) with its v0 value decodes as an OffsetCommit
  const v0 = Buffer.from(key);
  v0.writeInt16BE(0, 0);
  assert.equal(decodeRecord(v0, null)!.type, 'OffsetCommit');
  const legacyValue = Buffer.concat([
    Buffer.from('0000' + '000000000000002a' + '0002' + '6d64', 'hex'),
    Buffer.alloc(8),
  ]);
  legacyValue.writeBigInt64BE(1700000000000n, 2 + 8 + 4);
  assert.deepEqual(decodeRecord(v0, legacyValue), {
    type: 'OffsetCommit',
    group: 'g',
    topic: 't',
    partition: 0,
    value: {
      offset: 42n,
      leaderEpoch: -1,
      metadata: 'md',
      commitTimestamp: 1700000000000n,
      expireTimestamp: -1n,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
    },
  });
});

test('GroupMetadata is written as key v2 / value v3 and reads back; tombstones have no value', () => {
  const rec: CoordinatorRecord = {
    type: 'GroupMetadata',
    group: 'my-group',
    value: {
      protocolType: 'consumer',
      generation: 3,
      protocol: 'range',
      leader: 'm-1',
      currentStateTimestamp: 1700000000000n,
      members: [
        {
          memberId: 'm-1',
          groupInstanceId: 'i-1',
          clientId: 'c',
          clientHost: '/127.0.0.1',
          rebalanceTimeout: 300000,
          sessionTimeout: 45000,
          subscription: Buffer.from([0, 1]),
          assignment: Buffer.from([2, 3]),
        },
      ],
    },
  };
  const { key, value } = encodeRecord(rec);
  assert.equal(key.readInt16BE(0), 2);
  assert.equal(value!.readInt16BE(0), 3);
  assert.deepEqual(decodeRecord(key, value), rec);
  const tomb = encodeRecord({ type: 'GroupMetadata', group: 'my-group', value: null });
  assert.equal(tomb.value, null);
  assert.deepEqual(decodeRecord(tomb.key, null), { type: 'GroupMetadata', group: 'my-group', value: null });
});

test('KIP-848 records round-trip with key versions 3..8 and value version 0', () => {
  const recs: CoordinatorRecord[] = [
    { type: 'ConsumerGroupMetadata', group: 'g', value: { epoch: 7 } },
    {
      type: 'ConsumerGroupPartitionMetadata',
      group: 'g',
      value: {
        topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', topicName: 't', numPartitions: 3, partitionMetadata: [] }],
      },
    },
    {
      type: 'ConsumerGroupMemberMetadata',
      group: 'g',
      memberId: 'm',
      value: {
        instanceId: null,
        rackId: null,
        clientId: 'c',
        clientHost: '/h',
        subscribedTopicNames: ['t'],
        subscribedTopicRegex: null,
        rebalanceTimeoutMs: 5000,
        serverAssignor: 'uniform',
        classicMemberMetadata: null,
      },
    },
    { type: 'ConsumerGroupTargetAssignmentMetadata', group: 'g', value: { assignmentEpoch: 7 } },
    {
      type: 'ConsumerGroupTargetAssignmentMember',
      group: 'g',
      memberId: 'm',
      value: { topicPartitions: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [0, 2] }] },
    },
    {
      type: 'ConsumerGroupCurrentMemberAssignment',
      group: 'g',
      memberId: 'm',
      value: {
        memberEpoch: 7,
        previousMemberEpoch: 6,
        state: 0,
        assignedPartitions: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [0, 2], assignmentEpochs: [] }],
        partitionsPendingRevocation: [],
      },
    },
  ];
  recs.forEach((r, i) => {
    const { key, value } = encodeRecord(r);
    assert.equal(key.readInt16BE(0), i + 3);
    assert.equal(value!.readInt16BE(0), 0);
    const back = decodeRecord(key, value);
    assert.equal(back?.type, r.type);
    const backValue = (back?.value ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(r.value!)) assert.deepEqual(backValue[k], v);
  });
});

test("a group's partition is abs(javaHashCode) % partitions (storage-formats §11 vectors)", () => {
  assert.equal(coordinatorPartition('my-group', 50), 12);
  assert.equal(coordinatorPartition('test', 50), 48);
  assert.equal(coordinatorPartition('console-consumer-12345', 50), 6);
  assert.equal(coordinatorPartition('polygenelubricants', 50), 0);
  assert.equal(coordinatorPartition('héllo', 50), 34);
});

test("ConsumerGroupRegularExpression: key version 16, value v0 in Kafka's layout; the tombstone has no value", () => {
  const rec: CoordinatorRecord = {
    type: 'ConsumerGroupRegularExpression',
    group: 'g',
    regularExpression: 'ab*',
    value: { topics: ['abc', 'abcd'], version: 10n, timestamp: 12345n },
  };
  const { key, value } = encodeRecord(rec);
  // key: int16 16, then GroupId and RegularExpression as (non-flexible) strings
  assert.equal(key.toString('hex'), '0010' + '0001' + '67' + '0003' + '61622a');
  // value v0 (flexible): compact array of compact strings, Version int64, Timestamp int64, no tagged fields
  const hex = '0000' + '03' + '04616263' + '0561626364' + '000000000000000a' + '0000000000003039' + '00';
  assert.equal(value!.toString('hex'), hex);
  assert.deepEqual(decodeRecord(key, value), rec);
  const tomb = encodeRecord({ ...rec, value: null } as CoordinatorRecord);
  assert.equal(tomb.value, null);
  assert.deepEqual(decodeRecord(tomb.key, null), { ...rec, value: null });
});
