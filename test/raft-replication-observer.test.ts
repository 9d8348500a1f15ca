// tkafka's ObserverQuorum following a tkafka controller (the single-voter leader's raft Fetch and
// FetchSnapshot): from an empty log it is sent the leader's snapshot (the leader has one after a
// restart), downloads it in chunks, loads it, then follows the log tail; DivergingEpoch makes it
// truncate a log that is not the leader's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';
import { clusterIdOf } from './helpers/raft-requests.js';
import { RecordType } from '../src/protocol/metadata-records.js';
import { buildDataBatch } from '../src/protocol/records/metadata-batches.js';
import { ObserverQuorum } from '../src/broker/raft/observer.js';
import { MetadataLog } from '../src/broker/raft/metadata-log.js';
import { snapshotFileName } from '../src/storage/snapshot-file.js';
import { METADATA_PARTITION_DIR, type CommittedBatch, type SnapshotData } from '../src/broker/raft/types.js';
import { createTopicAt } from './helpers/create-topic.js';

let node: BrokerProcess;
let clusterId: string;
const dirs: string[] = [];
const observers: ObserverQuorum[] = [];

before(async () => {
  node = await startBroker();
  clusterId = await clusterIdOf(node.port);
});

after(async () => {
  for (const o of observers) await o.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await node?.stop();
  node?.cleanup();
});

interface Seen {
  topics: Set<string>;
  snapshots: SnapshotData['id'][];
}

/** Finds the leader through controller.quorum.voters, or through controller.quorum.bootstrap.servers. */
async function observe(dir: string, seen: Seen, via: 'voters' | 'bootstrap' = 'voters'): Promise<ObserverQuorum> {
  const q = await ObserverQuorum.open({
    metadataLogDir: dir,
    nodeId: 50,
    clusterId,
    ...(via === 'voters'
      ? { voters: [{ id: 1, host: '127.0.0.1', port: node.controllerPort }] }
      : { bootstrapServers: [{ host: '127.0.0.1', port: node.controllerPort }] }),
    listenerName: 'CONTROLLER',
  });
  observers.push(q);
  q.register({
    handleLoadSnapshot(s: SnapshotData) {
      seen.snapshots.push(s.id);
      seen.topics.clear();
      for (const r of s.records) if (r.type === RecordType.Topic) seen.topics.add(r.data.name);
    },
    handleCommit(b: CommittedBatch) {
      for (const r of b.records) if (r.type === RecordType.Topic) seen.topics.add(r.data.name);
    },
  });
  await q.start();
  return q;
}

test('an observer with an empty log finds the leader through a bootstrap server, loads its snapshot through FetchSnapshot, then follows the tail', async () => {
  await createTopicAt(node.port, 'in-snapshot');
  await node.restart(); // the controller writes a snapshot at shutdown; the new epoch starts after it
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-observer-'));
  dirs.push(dir);
  const seen: Seen = { topics: new Set(), snapshots: [] };
  const q = await observe(dir, seen, 'bootstrap');
  await waitFor(() => seen.topics.has('in-snapshot') || null, { what: 'the snapshot to be loaded', timeoutMs: 20_000 });
  assert.equal(seen.snapshots.length, 1);
  const id = seen.snapshots[0]!;
  assert.ok(id.offset > 0);
  assert.ok(existsSync(join(dir, METADATA_PARTITION_DIR, snapshotFileName(id))), 'the snapshot file was written');
  assert.equal(q.latestSnapshotId()?.offset, id.offset);
  await createTopicAt(node.port, 'after-snapshot');
  await waitFor(() => seen.topics.has('after-snapshot') || null, {
    what: 'the tail to be delivered',
    timeoutMs: 20_000,
  });
  assert.equal(q.leaderId, 1);
  assert.ok(q.highWatermark > id.offset);
  assert.ok(q.log.logStartOffset >= id.offset, `log restarted at the snapshot (${q.log.logStartOffset})`);
  await assert.rejects(q.append([]), /observer/);
});

test('an observer whose log diverges from the leader (an older epoch running past its end) truncates and catches up', async () => {
  // Follow the leader to the end, then replace the current epoch's records with one of the previous
  // epoch, as a replica that missed the election would hold.
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-observer-'));
  dirs.push(dir);
  const first: Seen = { topics: new Set(), snapshots: [] };
  const q1 = await observe(dir, first);
  await waitFor(() => first.topics.has('after-snapshot') || null, { what: 'catch-up', timeoutMs: 20_000 });
  const snapshotEpoch = q1.latestSnapshotId()?.epoch ?? 0;
  await q1.close();
  observers.splice(observers.indexOf(q1), 1);
  const log = await MetadataLog.open({ dir: join(dir, METADATA_PARTITION_DIR) });
  const entries = log.epochEntries;
  const current = entries[entries.length - 1]!;
  const previousEpoch = entries.length > 1 ? entries[entries.length - 2]!.epoch : snapshotEpoch;
  assert.ok(previousEpoch < current.epoch);
  await log.truncateTo(current.startOffset);
  await log.append(
    buildDataBatch({ baseOffset: current.startOffset, epoch: previousEpoch, timestamp: Date.now() }, [
      { type: RecordType.Topic, version: 0, data: { name: 'never-committed', topicId: 'AAAAAAAAAAAAAAAAAAAAMw' } },
    ]),
  );
  await log.close();

  await createTopicAt(node.port, 'after-divergence');
  const second: Seen = { topics: new Set(), snapshots: [] };
  const q2 = await observe(dir, second);
  await waitFor(() => second.topics.has('after-divergence') || null, {
    what: 'the diverged observer to catch up',
    timeoutMs: 20_000,
  });
  assert.ok(!second.topics.has('never-committed'), 'the diverging batch was truncated, never delivered');
  assert.equal(q2.log.lastEpoch, current.epoch);
});

test('an observer keeps following across a leader restart (reconnects, adopts the new epoch)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-observer-'));
  dirs.push(dir);
  const seen: Seen = { topics: new Set(), snapshots: [] };
  const q = await observe(dir, seen);
  await waitFor(() => seen.topics.has('after-divergence') || null, { what: 'catch-up', timeoutMs: 20_000 });
  const epochBefore = q.leaderEpoch;
  const controllerPort = node.controllerPort;
  await node.restart();
  assert.equal(node.controllerPort, controllerPort, 'the node came back on its controller port');
  await createTopicAt(node.port, 'after-leader-restart');
  await waitFor(() => seen.topics.has('after-leader-restart') || null, {
    what: 'the observer to follow the restarted leader',
    timeoutMs: 30_000,
  });
  assert.ok(q.leaderEpoch > epochBefore, `epoch ${q.leaderEpoch} after ${epochBefore}`);
  assert.equal(q.leaderId, 1);
});
