// KIP-447 on the transactional offsets path, against a broker process (both found by the client
// matrix, test/clients, with librdkafka and kafka-python): TxnOffsetCommit is fenced by the group's
// membership (a departed or unknown member, an old generation, a group that does not exist with a
// generation) as Kafka's OffsetMetadataManager.validateTransactionalOffsetCommit does, and while a
// transaction's offsets are pending, OffsetFetch with requireStable answers UNSTABLE_OFFSET_COMMIT
// for that partition (OffsetMetadataManager.fetchOffsets).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ApiKey } from '../src/protocol/generated/apis.js';
import { ErrorCode as E } from '../src/protocol/errors.js';
import { encodeSubscription } from '../src/broker/group/consumer-protocol.js';
import { RawClient } from './helpers/raw-client.js';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';

let broker: BrokerProcess;
let c: RawClient;

const OVERRIDES = {
  'offsets.topic.num.partitions': 1,
  'transaction.state.log.num.partitions': 1,
  'group.initial.rebalance.delay.ms': 0,
};
const TOPIC = 'in';

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const found = await waitFor(
    async () => {
      const v = await fn();
      return v === undefined ? undefined : { v };
    },
    { what, timeoutMs: ms },
  );
  return found.v;
}

const RETRY = new Set<number>([E.COORDINATOR_LOAD_IN_PROGRESS, E.COORDINATOR_NOT_AVAILABLE, E.NOT_COORDINATOR]);

/** InitProducerId and AddOffsetsToTxn for `group`: a transaction that may commit the group's offsets. */
async function openTxn(id: string, group: string): Promise<{ pid: bigint; epoch: number }> {
  await until('transaction coordinator', async () => {
    const r = await c.request(ApiKey.FindCoordinator, 4, { keyType: 1, coordinatorKeys: [id] });
    return r.coordinators[0].errorCode === 0 ? true : undefined;
  });
  const init = await until('InitProducerId', async () => {
    const r = await c.request(ApiKey.InitProducerId, 4, {
      transactionalId: id,
      transactionTimeoutMs: 60_000,
      producerId: -1n,
      producerEpoch: -1,
    });
    return RETRY.has(r.errorCode) ? undefined : r;
  });
  assert.equal(init.errorCode, E.NONE);
  const add = await until('AddOffsetsToTxn', async () => {
    const r = await c.request(ApiKey.AddOffsetsToTxn, 3, {
      transactionalId: id,
      producerId: init.producerId,
      producerEpoch: init.producerEpoch,
      groupId: group,
    });
    return r.errorCode === E.CONCURRENT_TRANSACTIONS || RETRY.has(r.errorCode) ? undefined : r;
  });
  assert.equal(add.errorCode, E.NONE);
  return { pid: init.producerId, epoch: init.producerEpoch };
}

/** TxnOffsetCommit of offset `offset` for partition 0; the partition's error code. */
async function txnCommit(
  id: string,
  t: { pid: bigint; epoch: number },
  group: string,
  offset: bigint,
  member: { generationId: number; memberId: string },
  version = 3,
): Promise<number> {
  const r = await until('TxnOffsetCommit', async () => {
    const x = await c.request(ApiKey.TxnOffsetCommit, version, {
      transactionalId: id,
      groupId: group,
      producerId: t.pid,
      producerEpoch: t.epoch,
      generationIdOrMemberEpoch: member.generationId,
      memberId: member.memberId,
      groupInstanceId: null,
      topics: [
        {
          name: TOPIC,
          partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }],
        },
      ],
    });
    const code = x.topics[0].partitions[0].errorCode;
    return code === E.COORDINATOR_LOAD_IN_PROGRESS || code === E.COORDINATOR_NOT_AVAILABLE ? undefined : code;
  });
  return r;
}

async function fetchStable(
  group: string,
  requireStable: boolean,
  version = 7,
): Promise<{ offset: bigint; errorCode: number }> {
  const topics = [{ name: TOPIC, partitionIndexes: [0] }];
  if (version >= 8) {
    const r = await c.request(ApiKey.OffsetFetch, version, {
      groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics }],
      requireStable,
    });
    const p = r.groups[0].topics[0].partitions[0];
    return { offset: p.committedOffset, errorCode: p.errorCode };
  }
  const r = await c.request(ApiKey.OffsetFetch, version, { groupId: group, topics, requireStable });
  const p = r.topics[0].partitions[0];
  return { offset: p.committedOffset, errorCode: p.errorCode };
}

async function endTxn(id: string, t: { pid: bigint; epoch: number }): Promise<number> {
  const body = { transactionalId: id, producerId: t.pid, producerEpoch: t.epoch, committed: true };
  const r = await c.request(ApiKey.EndTxn, 3, body);
  return r.errorCode;
}

before(async () => {
  broker = await startBroker({ overrides: OVERRIDES });
  c = await RawClient.connect(broker.port);
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  assert.equal(r.topics[0].errorCode, E.NONE);
  await until('group coordinator', async () => {
    const f = await c.request(ApiKey.FindCoordinator, 4, { keyType: 0, coordinatorKeys: ['any'] });
    return f.coordinators[0].errorCode === 0 ? true : undefined;
  });
});

after(async () => {
  c?.close();
  await broker?.stop();
  broker?.cleanup();
});

test('OffsetFetch requireStable: UNSTABLE_OFFSET_COMMIT while a transaction has the offsets pending', async () => {
  const group = 'stable-g';
  const t = await openTxn('t-stable', group);
  assert.equal(await txnCommit('t-stable', t, group, 7n, { generationId: -1, memberId: '' }), E.NONE);
  for (const v of [7, 8, 9]) {
    assert.deepEqual(await fetchStable(group, true, v), { offset: -1n, errorCode: E.UNSTABLE_OFFSET_COMMIT }, `v${v}`);
    assert.deepEqual(await fetchStable(group, false, v), { offset: -1n, errorCode: E.NONE }, `v${v} not stable`);
  }
  // before v7 there is no requireStable
  assert.deepEqual(await fetchStable(group, false, 6), { offset: -1n, errorCode: E.NONE });
  assert.equal(await endTxn('t-stable', t), E.NONE);
  await until('the committed offset, stable', async () => {
    const f = await fetchStable(group, true);
    return f.errorCode === E.NONE && f.offset === 7n ? true : undefined;
  });
});

test('TxnOffsetCommit is fenced by the group membership (KIP-447)', async () => {
  const group = 'fence-g';
  const join = (memberId: string) =>
    c.request(ApiKey.JoinGroup, 9, {
      groupId: group,
      sessionTimeoutMs: 30_000,
      rebalanceTimeoutMs: 5000,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: encodeSubscription([TOPIC]) }],
      reason: null,
    });
  let j = await join('');
  if (j.errorCode === E.MEMBER_ID_REQUIRED) j = await join(j.memberId);
  assert.equal(j.errorCode, E.NONE);
  const s = await c.request(ApiKey.SyncGroup, 5, {
    groupId: group,
    generationId: j.generationId,
    memberId: j.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [],
  });
  assert.equal(s.errorCode, E.NONE);

  const t = await openTxn('t-fence', group);
  const at = (generationId: number, memberId: string) => ({ generationId, memberId });
  assert.equal(await txnCommit('t-fence', t, group, 1n, at(j.generationId, 'departed')), E.UNKNOWN_MEMBER_ID);
  assert.equal(await txnCommit('t-fence', t, group, 1n, at(j.generationId + 1, j.memberId)), E.ILLEGAL_GENERATION);
  assert.equal(await txnCommit('t-fence', t, 'no-such-group', 1n, at(3, 'm')), E.ILLEGAL_GENERATION);
  // v0-2 carry no membership: accepted whatever the group's state (unlike OffsetCommit)
  assert.equal(await txnCommit('t-fence', t, group, 2n, at(-1, ''), 2), E.NONE);
  assert.equal(await txnCommit('t-fence', t, group, 3n, at(j.generationId, j.memberId)), E.NONE);
  assert.equal(await endTxn('t-fence', t), E.NONE);
  await until("the member's offset", async () => {
    const f = await fetchStable(group, true);
    return f.errorCode === E.NONE && f.offset === 3n ? true : undefined;
  });
});
