// The persister against a real tkafka broker: DefaultStatePersister (its client side, over a
// connection from this process) and the raw share-state RPCs drive the broker's share coordinator:
// FindCoordinator SHARE keys, __share_group_state created on first use, initialize / write / read /
// summary / delete round trips, errors as data (uninitialized, fenced leader epoch, unknown topic),
// one RPC answering several share-partitions, and the state surviving a broker restart.
import test, { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { waitFor } from './helpers/wait-for.js';
import { ApiKey, type ApiKeyWithMessages } from '../src/protocol/generated/apis.js';
import { ErrorCode as E } from '../src/protocol/errors.js';
import { DefaultStatePersister, type PersisterTransport } from '../src/broker/share/default-state-persister.js';
import type { SharePartitionKey } from '../src/broker/share/types.js';

let broker: BrokerProcess;
let c: RawClient;
let topicId = '';
const GROUP = 'persister-group';

/** The persister's transport over a connection to the (single) broker: every node id is that broker. */
function transport(): PersisterTransport {
  return {
    localNodeId: -1,
    async findCoordinator(key) {
      const r = await c.request(ApiKey.FindCoordinator, 6, { keyType: 2, coordinatorKeys: [key] });
      const co = r.coordinators[0]!;
      return { errorCode: co.errorCode, nodeId: co.nodeId };
    },
    local: () => Promise.reject(new Error('no local coordinator in this process')),
    async send(_nodeId, api, body) {
      const version = api.key === ApiKey.WriteShareGroupState || api.key === ApiKey.ReadShareGroupStateSummary ? 1 : 0;
      return c.request(api.key as ApiKeyWithMessages, version, body as never);
    },
  };
}

const persister = (): DefaultStatePersister =>
  new DefaultStatePersister(transport(), { backoffMs: 100, backoffMaxMs: 1000, maxAttempts: 40, jitter: 0.2 });

const key = (partition: number): SharePartitionKey => ({ groupId: GROUP, topicId, partition });

before(async () => {
  broker = await startBroker({ overrides: { 'share.coordinator.state.topic.num.partitions': 5 } });
  c = await RawClient.connect(broker.port);
  const r = await c.request(ApiKey.CreateTopics, 7, {
    topics: [{ name: 'sp', numPartitions: 3, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10000,
    validateOnly: false,
  });
  assert.equal(r.topics[0]!.errorCode, E.NONE);
  topicId = r.topics[0]!.topicId;
});

after(async () => {
  c?.close();
  await broker?.stop();
  broker?.cleanup();
});

test('FindCoordinator SHARE: __share_group_state is created on first use; bad keys and old versions are INVALID_REQUEST', async () => {
  const k = `${GROUP}:${topicId}:0`;
  const found = await waitFor(
    async () => {
      const r = await c.request(ApiKey.FindCoordinator, 6, { keyType: 2, coordinatorKeys: [k] });
      const co = r.coordinators[0]!;
      if (co.errorCode === E.NONE) return co;
      assert.equal(co.errorCode, E.COORDINATOR_NOT_AVAILABLE);
      return null;
    },
    { what: 'the share coordinator', timeoutMs: 15_000 },
  );
  assert.equal(found.nodeId, 1);
  assert.equal(found.port, broker.port);
  const md = await c.request(ApiKey.Metadata, 12, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: '__share_group_state' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(md.topics[0]!.errorCode, E.NONE);
  assert.equal(md.topics[0]!.isInternal, true);
  assert.equal(md.topics[0]!.partitions.length, 5);
  const bad = await c.request(ApiKey.FindCoordinator, 6, {
    keyType: 2,
    coordinatorKeys: ['no-colons', `${GROUP}:${topicId}:x`],
  });
  assert.deepEqual(
    bad.coordinators.map((x) => x.errorCode),
    [E.INVALID_REQUEST, E.INVALID_REQUEST],
  );
  const old = await c.request(ApiKey.FindCoordinator, 5, { keyType: 2, coordinatorKeys: [k] });
  assert.equal(old.coordinators[0]!.errorCode, E.INVALID_REQUEST);
});

test('DefaultStatePersister round trip: initialize, write, read, summary, delete', { timeout: 60_000 }, async () => {
  const p = persister();
  const init = await Promise.all([0, 1, 2].map((i) => p.initializeState(key(i), 0, 0n)));
  assert.deepEqual(
    init.map((r) => r.errorCode),
    [E.NONE, E.NONE, E.NONE],
  );
  // the share-partition leader (epoch 1) reads, then writes acknowledged and archived records
  const first = await p.readState(key(0), 1);
  assert.deepEqual(first, { errorCode: E.NONE, errorMessage: null, stateEpoch: 0, startOffset: 0n, stateBatches: [] });
  const w = await p.writeState(key(0), {
    stateEpoch: 0,
    leaderEpoch: 1,
    startOffset: 0n,
    deliveryCompleteCount: 2,
    stateBatches: [
      { firstOffset: 0n, lastOffset: 4n, deliveryState: 2, deliveryCount: 1 },
      { firstOffset: 5n, lastOffset: 9n, deliveryState: 0, deliveryCount: 2 },
    ],
  });
  assert.equal(w.errorCode, E.NONE);
  const w2 = await p.writeState(key(0), {
    stateEpoch: 0,
    leaderEpoch: 1,
    startOffset: 5n,
    deliveryCompleteCount: 1,
    stateBatches: [{ firstOffset: 5n, lastOffset: 5n, deliveryState: 4, deliveryCount: 3 }],
  });
  assert.equal(w2.errorCode, E.NONE);
  const read = await p.readState(key(0), 1);
  assert.deepEqual(read, {
    errorCode: E.NONE,
    errorMessage: null,
    stateEpoch: 0,
    startOffset: 5n,
    stateBatches: [
      { firstOffset: 5n, lastOffset: 5n, deliveryState: 4, deliveryCount: 3 },
      { firstOffset: 6n, lastOffset: 9n, deliveryState: 0, deliveryCount: 2 },
    ],
  });
  const summary = await p.readSummary(key(0), 1);
  assert.deepEqual(summary, {
    errorCode: E.NONE,
    errorMessage: null,
    stateEpoch: 0,
    leaderEpoch: 1,
    startOffset: 5n,
    deliveryCompleteCount: 1,
  });
  assert.equal((await p.deleteState(key(2))).errorCode, E.NONE);
  const gone = await p.readState(key(2), 1);
  assert.equal(gone.errorCode, E.INVALID_REQUEST);
  assert.equal(gone.errorMessage, 'Read operation on uninitialized share partition not allowed.');
  assert.equal((await p.readSummary(key(2), 1)).startOffset, -1n);
  p.close();
});

test(
  'errors are data: fenced leader epoch, fenced state epoch, unknown topic, uninitialized write',
  { timeout: 60_000 },
  async () => {
    const p = persister();
    assert.equal((await p.initializeState(key(1), 2, 0n)).errorCode, E.NONE);
    assert.equal((await p.readState(key(1), 5)).errorCode, E.NONE);
    const base = { stateEpoch: 2, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [] };
    const fenced = await p.writeState(key(1), { ...base, leaderEpoch: 4 });
    assert.deepEqual(fenced, {
      errorCode: E.FENCED_LEADER_EPOCH,
      errorMessage: 'The leader epoch in the request is older than the epoch on the broker.',
    });
    assert.equal(
      (await p.writeState(key(1), { ...base, stateEpoch: 1, leaderEpoch: 5 })).errorCode,
      E.FENCED_STATE_EPOCH,
    );
    assert.equal((await p.readState(key(1), 4)).errorCode, E.FENCED_LEADER_EPOCH);
    const unknown = await p.initializeState({ groupId: GROUP, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partition: 0 }, 0, 0n);
    assert.equal(unknown.errorCode, E.UNKNOWN_TOPIC_OR_PARTITION);
    const outOfRange = await p.initializeState(key(7), 0, 0n);
    assert.equal(outOfRange.errorCode, E.UNKNOWN_TOPIC_OR_PARTITION);
    const uninit = await p.writeState({ groupId: 'other-group', topicId, partition: 0 }, { ...base, leaderEpoch: 0 });
    assert.deepEqual(uninit, {
      errorCode: E.INVALID_REQUEST,
      errorMessage: 'Write operation on uninitialized share partition not allowed.',
    });
    p.close();
  },
);

test('one ReadShareGroupState answers several share-partitions; an empty group id gets an empty answer', async () => {
  const r = await c.request(ApiKey.ReadShareGroupState, 0, {
    groupId: GROUP,
    topics: [{ topicId, partitions: [0, 1].map((partition) => ({ partition, leaderEpoch: 5 })) }],
  });
  assert.equal(r.results.length, 1);
  const byPartition = new Map(r.results[0]!.partitions.map((x) => [x.partition, x]));
  // partition 0 was read with leader epoch 1: 5 is newer, fine; partition 1 was at 5
  assert.equal(byPartition.get(0)!.errorCode, E.NONE);
  assert.equal(byPartition.get(0)!.startOffset, 5n);
  assert.equal(byPartition.get(1)!.errorCode, E.NONE);
  assert.equal(byPartition.get(1)!.stateEpoch, 2);
  const empty = await c.request(ApiKey.ReadShareGroupState, 0, {
    groupId: '',
    topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 5 }] }],
  });
  assert.deepEqual(empty.results, []);
});

test('the state survives a broker restart', { timeout: 120_000 }, async () => {
  const p0 = persister();
  const before = await Promise.all([0, 1].map((i) => p0.readState(key(i), 5)));
  const summaryBefore = await p0.readSummary(key(0), 5);
  p0.close();
  c.close();
  await broker.restart();
  c = await RawClient.connect(broker.port);
  const p = persister();
  const afterRestart = await Promise.all([0, 1].map((i) => p.readState(key(i), 5)));
  assert.deepEqual(afterRestart, before);
  assert.deepEqual(await p.readSummary(key(0), 5), summaryBefore);
  // the fencing survives too: leader epoch 5 was recorded
  assert.equal((await p.readState(key(1), 4)).errorCode, E.FENCED_LEADER_EPOCH);
  // and the deleted share-partition stays deleted
  assert.equal((await p.readState(key(2), 5)).errorCode, E.INVALID_REQUEST);
  p.close();
});
