// Fetch from the closest replica (KIP-392) without a network: Kafka's ReplicaSelectorTest
// (RackAwareReplicaSelector), the ReplicaManagerTest preferred-replica cases (the leader names a
// replica of the client's rack that is in the ISR and holds the fetch offset, skips the read and
// answers at once; followers never name one, follower fetches never get one), the follower serving
// a consumer with client metadata up to its high watermark (and long polling until it moves), and
// replica.selector.class at start-up.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../src/protocol/errors.js';
import { ConfigError, RACK_AWARE_REPLICA_SELECTOR } from '../src/config/definitions.js';
import { loadServerConfig } from '../src/config/load.js';
import { DirectoryLogStore } from '../src/broker/replication/log-store.js';
import { ReplicaManager } from '../src/broker/replication/replica-manager.js';
import {
  type ClientMetadata,
  createReplicaSelector,
  type PartitionView,
  RackAwareReplicaSelector,
  type ReplicaNode,
  type ReplicaView,
  replicaEndpoints,
} from '../src/broker/replication/replica-selector.js';
import { recordsInMemory } from '../src/broker/replication/types.js';
import type { FetchParams } from '../src/broker/replication/types.js';
import { APPEND, fetchParams, fetchRequest, recordBatch, TOPIC_ID } from './helpers/replica-requests.js';
import { removeDir, tempDir } from './helpers/log-fixtures.js';

const client = (rackId: string): ClientMetadata => ({
  rackId,
  clientId: 'test-client',
  clientAddress: '127.0.0.1',
  listenerName: 'PLAINTEXT',
});

// ---- RackAwareReplicaSelector (ReplicaSelectorTest) ----

const view = (id: number, rack: string, leo: number, lag: number): ReplicaView => ({
  endpoint: { id, host: `host${id}`, port: 1234, rack },
  logEndOffset: leo,
  timeSinceLastCaughtUpMs: lag,
});

test('RackAwareReplicaSelector: the most caught-up replica of the rack, else the leader (ReplicaSelectorTest)', () => {
  const replicas = [view(0, 'rack-a', 4, 0), view(1, 'rack-a', 2, 5), view(2, 'rack-b', 3, 3), view(3, 'rack-b', 4, 2)];
  const leader = replicas[0]!;
  const pv: PartitionView = { replicas, leader };
  const s = new RackAwareReplicaSelector();
  const b = s.select('test', 0, client('rack-b'), pv);
  assert.equal(b.endpoint?.rack, 'rack-b');
  assert.equal(b.endpoint?.id, 3, 'replica 3 is more caught up');
  assert.equal(s.select('test', 0, client('not-a-rack'), pv), leader, 'no replica in the rack: the leader');
  assert.equal(s.select('test', 0, client('rack-a'), pv), leader, 'the leader is in the rack');
  assert.equal(s.select('test', 0, client(''), pv), leader, 'no rack: the leader');
  // equal log end offsets: the one caught up more recently
  const tie: PartitionView = { replicas: [leader, view(5, 'r', 9, 50), view(6, 'r', 9, 10)], leader };
  assert.equal(s.select('test', 0, client('r'), tie).endpoint?.id, 6);
});

test('replica.selector.class: unset is leader only, the rack-aware class is honoured, any other stops start-up', () => {
  assert.equal(createReplicaSelector(null), undefined);
  assert.ok(createReplicaSelector(RACK_AWARE_REPLICA_SELECTOR) instanceof RackAwareReplicaSelector);
  assert.throws(() => createReplicaSelector('com.example.MySelector'), /not supported by tkafka/);
  // testDefaultReplicaSelector / testUnknownReplicaSelector: the replica manager reads the config
  const config = (value: string | null) => ({ originals: {}, getString: () => value });
  const logs = new DirectoryLogStore('/nonexistent-kip392');
  assert.equal(new ReplicaManager({ nodeId: 1, logs, config: config(null) }).replicaSelector, undefined);
  const rack = new ReplicaManager({ nodeId: 1, logs, config: config(RACK_AWARE_REPLICA_SELECTOR) });
  assert.ok(rack.replicaSelector instanceof RackAwareReplicaSelector);
  assert.throws(() => new ReplicaManager({ nodeId: 1, logs, config: config('non-a-class') }), /non-a-class/);
  const props = {
    'process.roles': 'broker',
    'node.id': '2',
    listeners: 'PLAINTEXT://127.0.0.1:9092',
    'controller.listener.names': 'CONTROLLER',
    'controller.quorum.bootstrap.servers': '127.0.0.1:9093',
    'log.dirs': '/tmp/x',
  };
  const ok = loadServerConfig({ properties: { ...props, 'replica.selector.class': RACK_AWARE_REPLICA_SELECTOR } });
  assert.equal(ok.config.getString('replica.selector.class'), RACK_AWARE_REPLICA_SELECTOR);
  assert.equal(loadServerConfig({ properties: props }).config.getString('replica.selector.class'), null);
  try {
    loadServerConfig({ properties: { ...props, 'replica.selector.class': 'com.example.MySelector' } });
    assert.fail('expected a ConfigError');
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    assert.equal(e.key, 'replica.selector.class');
    assert.match(e.message, /com\.example\.MySelector is not supported by tkafka: only org\.apache\.kafka/);
  }
});

test('replica endpoints: unfenced registered replicas with an endpoint on the listener (getPartitionReplicaEndpoints)', () => {
  const brokers = new Map([
    [1, { rack: 'r1', fenced: false }],
    [2, { rack: 'r2', fenced: true }],
    [3, { rack: null, fenced: false }],
  ]);
  const image = {
    broker: (id: number) => brokers.get(id),
    endpoint: (id: number, listener: string) => (listener === 'PLAINTEXT' ? { host: 'h', port: 9000 + id } : undefined),
  };
  assert.deepEqual(
    [...replicaEndpoints(image, [1, 2, 3, 4], 'PLAINTEXT').values()],
    [
      { id: 1, host: 'h', port: 9001, rack: 'r1' },
      { id: 3, host: 'h', port: 9003, rack: null },
    ],
  );
  assert.equal(replicaEndpoints(image, [1, 3], 'OTHER').size, 0);
});

// ---- ReplicaManager (ReplicaManagerTest's preferred replica cases) ----

const RACKS: Record<number, string> = { 1: 'r1', 2: 'r2', 3: 'r3', 4: 'r2' };

interface Env {
  rm: ReplicaManager;
  close(): Promise<void>;
}

async function env(nodeId: number, o: { selector?: boolean; endpoints?: readonly number[] } = {}): Promise<Env> {
  const dir = await tempDir('tkafka-kip392-');
  const rm = new ReplicaManager({
    nodeId,
    logs: new DirectoryLogStore(dir),
    replicaSelector: o.selector === false ? undefined : new RackAwareReplicaSelector(),
    replicaEndpoints: (replicas) => {
      const out = new Map<number, ReplicaNode>();
      for (const id of replicas)
        if (!o.endpoints || o.endpoints.includes(id))
          out.set(id, { id, host: '127.0.0.1', port: 9000 + id, rack: RACKS[id] ?? null });
      return out;
    },
  });
  return {
    rm,
    close: async () => {
      await rm.shutdown();
      await removeDir(dir);
    },
  };
}

const batch = (n: number): Buffer => recordBatch(n);

/** A consumer's (or replica's) Fetch v17; with `rack`, the client metadata of a KIP-392 client. */
const params = (replicaId: number, rack?: string, o: Partial<FetchParams> = {}): FetchParams =>
  fetchParams(replicaId, { ...(rack !== undefined ? { rackId: rack, clientMetadata: client(rack) } : {}), ...o });

const req = fetchRequest;

/** Leader 1 of t-0 with replicas 1,2,3 (racks r1,r2,r3), 5 records in batches of 3 and 2, followers at `at` (default: all caught up). */
async function leaderWithFollowers(e: Env, isr = [1, 2, 3], at: Record<number, number> = { 2: 5, 3: 5 }) {
  const p = await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {}, { replicas: [1, 2, 3], isr });
  await e.rm.appendRecords('t', 0, batch(3), APPEND);
  await e.rm.appendRecords('t', 0, batch(2), APPEND);
  for (const [id, offset] of Object.entries(at)) await e.rm.readFromLog(params(Number(id)), [req(offset)]);
  return p;
}

test('the leader names the in-sync replica of the client’s rack and skips the read (testPreferredReplicaAsLeader)', async () => {
  const e = await env(1);
  try {
    const p = await leaderWithFollowers(e);
    assert.equal(p.highWatermark, 5);
    const [r2] = await e.rm.readFromLog(params(-1, 'r2'), [req(0)]);
    assert.equal(r2!.errorCode, ErrorCode.NONE);
    assert.equal(r2!.preferredReadReplica, 2);
    assert.equal(r2!.records.length, 0, 'no records with a preferred read replica');
    assert.equal(r2!.highWatermark, 5);
    assert.equal(r2!.logStartOffset, 0);
    // the leader's own rack, an unknown rack, no rack: the leader reads, as without a selector
    for (const rack of ['r1', 'r9', '']) {
      const [r] = await e.rm.readFromLog(params(-1, rack), [req(0)]);
      assert.equal(r!.preferredReadReplica, -1, rack);
      assert.ok(r!.records.length > 0, rack);
    }
    // Fetch < v11 has no client metadata
    const [old] = await e.rm.readFromLog(params(-1, undefined, { version: 10 }), [req(0)]);
    assert.equal(old!.preferredReadReplica, -1);
    // a stale leader epoch is still an error first
    const [fenced] = await e.rm.readFromLog(params(-1, 'r2'), [req(0, { currentLeaderEpoch: 7 })]);
    assert.equal(fenced!.errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
  } finally {
    await e.close();
  }
});

test('no preferred replica without a selector, for follower fetches, out of the ISR, or not holding the offset', async () => {
  const none = await env(1, { selector: false });
  try {
    await leaderWithFollowers(none);
    const [r] = await none.rm.readFromLog(params(-1, 'r2'), [req(0)]);
    assert.equal(r!.preferredReadReplica, -1, 'replica.selector.class unset: the leader serves');
    assert.ok(r!.records.length > 0);
  } finally {
    await none.close();
  }
  const e = await env(1);
  try {
    // testFetchFromFollowerShouldNotRunPreferLeaderSelect
    await leaderWithFollowers(e);
    const [f] = await e.rm.readFromLog(params(3, 'r2'), [req(5)]);
    assert.equal(f!.preferredReadReplica, -1);
    // the follower holds offsets up to its last fetch offset only (5 here): a fetch past it stays here
    await e.rm.appendRecords('t', 0, batch(2), APPEND);
    await e.rm.readFromLog(params(3), [req(7)]);
    const [past] = await e.rm.readFromLog(params(-1, 'r2'), [req(6)]);
    assert.equal(past!.preferredReadReplica, -1);
    const [within] = await e.rm.readFromLog(params(-1, 'r2'), [req(5)]);
    assert.equal(within!.preferredReadReplica, 2);
  } finally {
    await e.close();
  }
  // testPreferredReplicaAsLeaderWhenSameRackFollowerIsOutOfIsr
  const out = await env(1);
  try {
    await leaderWithFollowers(out, [1, 3]);
    const [r] = await out.rm.readFromLog(params(-1, 'r2'), [req(0)]);
    assert.equal(r!.preferredReadReplica, -1, 'replica 2 is not in the ISR');
  } finally {
    await out.close();
  }
  // no endpoint for replica 2 on the listener (fenced, unregistered): Node.noNode() is never named
  const fencedEnv = await env(1, { endpoints: [1, 3] });
  try {
    await leaderWithFollowers(fencedEnv);
    const [r] = await fencedEnv.rm.readFromLog(params(-1, 'r2'), [req(0)]);
    assert.equal(r!.preferredReadReplica, -1);
  } finally {
    await fencedEnv.close();
  }
});

test('of two in-sync replicas in the rack the most caught-up is named', async () => {
  const e = await env(1);
  try {
    await e.rm.ensurePartition('t', TOPIC_ID, 0, 0, {}, { replicas: [1, 2, 3, 4], isr: [1, 2, 3, 4] });
    await e.rm.appendRecords('t', 0, batch(5), APPEND);
    await e.rm.readFromLog(params(2), [req(3)]);
    await e.rm.readFromLog(params(4), [req(5)]);
    await e.rm.readFromLog(params(3), [req(5)]);
    const [r] = await e.rm.readFromLog(params(-1, 'r2'), [req(1)]);
    assert.equal(r!.preferredReadReplica, 4);
  } finally {
    await e.close();
  }
});

test('a fetch answers at once when a preferred read replica is named (testFetchShouldReturnImmediatelyWhen...)', async () => {
  const e = await env(1);
  try {
    await leaderWithFollowers(e);
    const started = Date.now();
    const [r] = await e.rm.fetchMessages(params(-1, 'r2', { maxWaitMs: 20_000, minBytes: 1 << 20 }), [req(0)]);
    assert.equal(r!.preferredReadReplica, 2);
    assert.ok(Date.now() - started < 5000, 'not parked for max_wait_ms');
  } finally {
    await e.close();
  }
});

test('a follower serves consumers with client metadata up to its high watermark, never names a replica, waits for its HW', async () => {
  const leader = await env(1);
  const follower = await env(2);
  try {
    await leaderWithFollowers(leader, [1, 2], {});
    const [read] = await leader.rm.readFromLog(params(2), [req(0)]);
    const f = await follower.rm.ensurePartition(
      't',
      TOPIC_ID,
      0,
      0,
      {},
      { replicas: [1, 2, 3], isr: [1, 2], leaderId: 1 },
    );
    await follower.rm.appendAsFollower(f, 0, recordsInMemory(read!));
    await follower.rm.updateFollowerOffsets(f, 0, 3, 0);
    assert.equal(f.highWatermark, 3);
    // testFetchFollowerNotAllowedForOlderClients: client metadata without a rack is served too
    const [noRack] = await follower.rm.readFromLog(params(-1, ''), [req(0)]);
    assert.equal(noRack!.errorCode, ErrorCode.NONE);
    assert.ok(noRack!.records.length > 0);
    // testPreferredReplicaAsFollower: served here, no preferred replica
    const [c] = await follower.rm.readFromLog(params(-1, 'r3'), [req(0)]);
    assert.equal(c!.errorCode, ErrorCode.NONE);
    assert.equal(c!.preferredReadReplica, -1);
    assert.equal(c!.highWatermark, 3);
    assert.ok(c!.records.length > 0);
    // above the follower's HW (below its log end offset): nothing yet, no error
    const [above] = await follower.rm.readFromLog(params(-1, 'r2'), [req(4)]);
    assert.equal(above!.errorCode, ErrorCode.NONE);
    assert.equal(above!.records.length, 0);
    // past its log end offset: out of range (the consumer goes back to the leader)
    const [past] = await follower.rm.readFromLog(params(-1, 'r2'), [req(9)]);
    assert.equal(past!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
    // without client metadata (Fetch < v11) followers refuse consumers, and ListOffsets stays leader-only
    const [old] = await follower.rm.readFromLog(params(-1, undefined, { version: 10 }), [req(0)]);
    assert.equal(old!.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    const lo = await follower.rm.listOffset('t', 0, {
      timestamp: -1,
      version: 9,
      isolationLevel: 0,
      currentLeaderEpoch: -1,
      replicaId: -1,
    });
    assert.equal(lo.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    // a consumer waiting at the HW is answered when the leader's HW reaches this follower
    const waiting = follower.rm.fetchMessages(params(-1, 'r2', { maxWaitMs: 20_000 }), [req(3)]);
    let answered = false;
    void waiting.then(() => (answered = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(answered, false, 'parked on the follower');
    const started = Date.now();
    await follower.rm.updateFollowerOffsets(f, 0, 5, 0);
    const [woken] = await waiting;
    assert.ok(Date.now() - started < 5000, 'woken by the HW, not max_wait_ms');
    assert.equal(woken!.highWatermark, 5);
    assert.ok(woken!.records.length > 0);
  } finally {
    await leader.close();
    await follower.close();
  }
});
