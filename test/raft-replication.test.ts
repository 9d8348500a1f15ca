// Raft Fetch and FetchSnapshot of `__cluster_metadata`-0 served on the controller listener of a real
// tkafka node (the single-voter leader): records from an offset, long polls completed by appends,
// observers in DescribeQuorum, the leader-only errors with CurrentLeader, divergence, a snapshot id
// below the log start and snapshot chunks. The same forged requests against Apache Kafka 4.4.0 are
// in test/interop/raft-observer.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { RawClient } from './helpers/raw-client.js';
import { ApiKey } from '../src/protocol/generated/apis.js';
import type { FetchResponse } from '../src/protocol/generated/protocol/Fetch.js';
import { decodeMetadataBatch } from '../src/protocol/records/metadata-batches.js';
import { readBatchHeader } from '../src/protocol/records/batch.js';
import { RecordType } from '../src/protocol/metadata-records.js';
import { METADATA_TOPIC_ID } from '../src/broker/raft/types.js';
import {
  clusterIdOf,
  fetchBody,
  fetchSnapshotBody,
  metadataPartition,
  describeQuorumBody,
} from './helpers/raft-requests.js';

let node: BrokerProcess;
let clusterId: string;

before(async () => {
  // No NoOpRecords (Kafka's metadata.max.idle.interval.ms=0): an idle log end must stay idle, or a
  // fetch parked there could be completed by the active controller's no-op every 500 ms.
  node = await startBroker({ overrides: { 'metadata.max.idle.interval.ms': 0 } });
  clusterId = await clusterIdOf(node.port);
});

after(async () => {
  await node?.stop();
  node?.cleanup();
});

/** The record batches of a Fetch answer, as (baseOffset, lastOffset, epoch, control?) and their records. */
function batchesOf(r: FetchResponse) {
  const recs = metadataPartition(r).records;
  const buf = Buffer.isBuffer(recs) ? recs : recs ? Buffer.concat(recs) : Buffer.alloc(0);
  const out: ReturnType<typeof decodeMetadataBatch>[] = [];
  for (let pos = 0; pos < buf.length;) {
    const h = readBatchHeader(buf, pos);
    out.push(decodeMetadataBatch(buf.subarray(pos, pos + h.sizeInBytes)));
    pos += h.sizeInBytes;
  }
  return out;
}

async function withClient<T>(port: number, fn: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

test('an observer fetches the metadata log from offset 0 and shows in DescribeQuorum', async () => {
  await withClient(node.controllerPort, async (c) => {
    const dq = await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody());
    const q = dq.topics[0]!.partitions[0]!;
    const r = await c.request(
      ApiKey.Fetch,
      17,
      fetchBody({ clusterId, replicaId: 7, epoch: q.leaderEpoch, fetchOffset: 0, lastFetchedEpoch: 0, maxWaitMs: 0 }),
    );
    assert.equal(r.errorCode, 0);
    assert.equal(r.responses[0]!.topicId, METADATA_TOPIC_ID);
    const p = metadataPartition(r);
    assert.equal(p.errorCode, 0);
    assert.deepEqual(p.currentLeader, { leaderId: 1, leaderEpoch: q.leaderEpoch });
    assert.equal(p.divergingEpoch.epoch, -1);
    assert.equal(p.snapshotId.epoch, -1);
    assert.equal(p.highWatermark, q.highWatermark);
    assert.deepEqual(
      r.nodeEndpoints.map((e) => [e.nodeId, e.host, e.port]),
      [[1, '127.0.0.1', node.controllerPort]],
    );
    const batches = batchesOf(r);
    assert.ok(batches.length > 0, 'records from offset 0');
    assert.equal(batches[0]!.baseOffset, 0);
    assert.ok(
      batches.some((b) =>
        b.records.some((rec) => rec.type === RecordType.FeatureLevel || rec.type === RecordType.RegisterBroker),
      ),
      'metadata records',
    );

    const after = await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody());
    const obs = after.topics[0]!.partitions[0]!.observers;
    const seven = obs.find((o) => o.replicaId === 7);
    assert.ok(seven, `observer 7 in ${JSON.stringify(obs, (_k, v) => (typeof v === 'bigint' ? Number(v) : v))}`);
    assert.equal(seven.logEndOffset, 0n);
    assert.ok(seven.lastFetchTimestamp > 0n);
  });
});

test('a fetch at the log end waits up to MaxWaitMs, and an append completes it at once', async () => {
  await withClient(node.controllerPort, async (c) => {
    const q = (await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody())).topics[0]!.partitions[0]!;
    const leo = Number(q.highWatermark);
    const at = { clusterId, replicaId: 8, epoch: q.leaderEpoch, fetchOffset: leo, lastFetchedEpoch: q.leaderEpoch };
    const t0 = Date.now();
    const idle = await c.request(ApiKey.Fetch, 17, fetchBody({ ...at, maxWaitMs: 300 }));
    const waited = Date.now() - t0;
    assert.equal(metadataPartition(idle).errorCode, 0);
    assert.equal(batchesOf(idle).length, 0);
    assert.ok(waited >= 250, `waited ${waited} ms`);

    // the observer is caught up: its lastCaughtUpTimestamp is set
    const dq = await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody());
    const eight = dq.topics[0]!.partitions[0]!.observers.find((o) => o.replicaId === 8);
    assert.ok(eight && eight.lastCaughtUpTimestamp > 0n);

    // a long poll completed by a CreateTopics on the broker listener
    const parked = c.request(ApiKey.Fetch, 17, fetchBody({ ...at, maxWaitMs: 20_000 }));
    const t1 = Date.now();
    await withClient(node.port, (b) =>
      b.request(ApiKey.CreateTopics, 7, {
        topics: [{ name: 'raft-fetch-wakeup', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 10_000,
        validateOnly: false,
      }),
    );
    const woke = await parked;
    assert.ok(Date.now() - t1 < 10_000, 'completed by the append, not the timeout');
    const recs = batchesOf(woke).flatMap((b) => b.records);
    assert.ok(
      recs.some((r) => r.type === RecordType.Topic && r.data.name === 'raft-fetch-wakeup'),
      JSON.stringify(recs.map((r) => r.type)),
    );
  });
});

test('leader-only errors carry CurrentLeader; wrong cluster id and malformed fetches are refused', async () => {
  await withClient(node.controllerPort, async (c) => {
    const q = (await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody())).topics[0]!.partitions[0]!;
    const e = q.leaderEpoch;
    const base = { clusterId, replicaId: 9, fetchOffset: 0, lastFetchedEpoch: 0, maxWaitMs: 0 };
    const fenced = metadataPartition(await c.request(ApiKey.Fetch, 17, fetchBody({ ...base, epoch: e - 1 })));
    assert.equal(fenced.errorCode, 74); // FENCED_LEADER_EPOCH
    assert.deepEqual(fenced.currentLeader, { leaderId: 1, leaderEpoch: e });
    assert.equal(fenced.highWatermark, -1n);
    const unknown = metadataPartition(await c.request(ApiKey.Fetch, 17, fetchBody({ ...base, epoch: e + 1 })));
    assert.equal(unknown.errorCode, 75); // UNKNOWN_LEADER_EPOCH
    const badEpoch = metadataPartition(
      await c.request(ApiKey.Fetch, 17, fetchBody({ ...base, epoch: e, lastFetchedEpoch: e + 1 })),
    );
    assert.equal(badEpoch.errorCode, 42); // INVALID_REQUEST
    const other = await c.request(
      ApiKey.Fetch,
      17,
      fetchBody({ ...base, epoch: e, clusterId: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    );
    assert.equal(other.errorCode, 104); // INCONSISTENT_CLUSTER_ID
    assert.equal(other.responses.length, 0);
    const wrongTopic = await c.request(ApiKey.Fetch, 17, {
      ...fetchBody({ ...base, epoch: e }),
      topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitions: [{ partition: 0, fetchOffset: 0n }] }],
    });
    assert.equal(wrongTopic.errorCode, 42);
  });
});

test('a fetch past the leader log end in its epoch answers DivergingEpoch', async () => {
  await withClient(node.controllerPort, async (c) => {
    const q = (await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody())).topics[0]!.partitions[0]!;
    const leo = Number(q.highWatermark);
    const e = q.leaderEpoch;
    const p = metadataPartition(
      await c.request(
        ApiKey.Fetch,
        17,
        fetchBody({ clusterId, replicaId: 9, epoch: e, fetchOffset: leo + 5, lastFetchedEpoch: e, maxWaitMs: 0 }),
      ),
    );
    assert.equal(p.errorCode, 0);
    assert.deepEqual(p.divergingEpoch, { epoch: e, endOffset: BigInt(leo) });
    assert.equal(batchesOf({ responses: [{ partitions: [p] }] } as unknown as FetchResponse).length, 0);
  });
});

test('after a restart the leader answers fetch offset 0 with its snapshot, and serves it with FetchSnapshot', async () => {
  await node.restart();
  await withClient(node.controllerPort, async (c) => {
    const q = (await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody())).topics[0]!.partitions[0]!;
    const e = q.leaderEpoch;
    assert.ok(e >= 2);
    const p = metadataPartition(
      await c.request(
        ApiKey.Fetch,
        17,
        fetchBody({ clusterId, replicaId: 10, epoch: e, fetchOffset: 0, lastFetchedEpoch: 0, maxWaitMs: 0 }),
      ),
    );
    assert.equal(p.errorCode, 0);
    assert.ok(p.snapshotId.endOffset > 0n, `snapshot id ${p.snapshotId.endOffset}-${p.snapshotId.epoch}`);
    const id = { endOffset: p.snapshotId.endOffset, epoch: p.snapshotId.epoch };

    const chunks: Buffer[] = [];
    let size = -1n;
    for (let position = 0n, i = 0; i < 10_000; i++) {
      const r = await c.request(
        ApiKey.FetchSnapshot,
        1,
        fetchSnapshotBody({ clusterId, replicaId: 10, epoch: e, snapshotId: id, position, maxBytes: 100 }),
      );
      assert.equal(r.errorCode, 0);
      const sp = r.topics[0]!.partitions[0]!;
      assert.equal(sp.errorCode, 0);
      assert.deepEqual(sp.snapshotId, id);
      assert.equal(sp.position, position);
      size = sp.size;
      const bytes = sp.unalignedRecords as Buffer;
      assert.ok(bytes.length > 0 && bytes.length <= 100);
      chunks.push(Buffer.from(bytes));
      position += BigInt(bytes.length);
      if (position >= size) break;
    }
    const file = Buffer.concat(chunks);
    assert.equal(BigInt(file.length), size);
    const first = decodeMetadataBatch(file);
    assert.ok(first.isControl, 'a snapshot starts with its header control batch');

    const beyond = await c.request(
      ApiKey.FetchSnapshot,
      1,
      fetchSnapshotBody({ clusterId, replicaId: 10, epoch: e, snapshotId: id, position: size, maxBytes: 100 }),
    );
    assert.equal(beyond.topics[0]!.partitions[0]!.errorCode, 99); // POSITION_OUT_OF_RANGE
    const missing = await c.request(
      ApiKey.FetchSnapshot,
      1,
      fetchSnapshotBody({
        clusterId,
        replicaId: 10,
        epoch: e,
        snapshotId: { endOffset: id.endOffset + 1n, epoch: id.epoch },
        position: 0n,
        maxBytes: 100,
      }),
    );
    assert.equal(missing.topics[0]!.partitions[0]!.errorCode, 98); // SNAPSHOT_NOT_FOUND
    const stale = await c.request(
      ApiKey.FetchSnapshot,
      1,
      fetchSnapshotBody({ clusterId, replicaId: 10, epoch: e - 1, snapshotId: id, position: 0n, maxBytes: 100 }),
    );
    const sp = stale.topics[0]!.partitions[0]!;
    assert.equal(sp.errorCode, 74);
    assert.deepEqual(sp.currentLeader, { leaderId: 1, leaderEpoch: e });
  });
});
