// tkafka's ObserverQuorum (raft/observer.ts over raft/follower-fetcher.ts and raft/channel.ts)
// follows an Apache Kafka 4.4.0 controller quorum: it finds the leader through
// controller.quorum.voters, replicates `__cluster_metadata`-0 and delivers committed records
// (topics created on Kafka show up), resumes after a restart from its own log, and shows in
// Kafka's DescribeQuorum as an observer.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { describeQuorumBody } from '../helpers/raft-requests.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { RecordType } from '../../src/protocol/metadata-records.js';
import { ObserverQuorum } from '../../src/broker/raft/observer.js';
import type { CommittedBatch, SnapshotData } from '../../src/broker/raft/types.js';
import { createTopicAt } from '../helpers/create-topic.js';

let kafka: ApacheKafka;
let dir: string;
let observer: ObserverQuorum | undefined;

before(async () => {
  kafka = await startApacheKafka();
  dir = mkdtempSync(join(tmpdir(), 'tkafka-observer-'));
});

after(async () => {
  await observer?.close();
  rmSync(dir, { recursive: true, force: true });
  await kafka?.cleanup();
});

interface Seen {
  topics: Set<string>;
  snapshots: number;
  lastOffset: number;
  leaderIds: number[];
}

async function openObserver(seen: Seen): Promise<ObserverQuorum> {
  const q = await ObserverQuorum.open({
    metadataLogDir: dir,
    nodeId: 100,
    clusterId: kafka.clusterId,
    voters: [{ id: kafka.nodeId, host: '127.0.0.1', port: kafka.controllerPort }],
    listenerName: 'CONTROLLER',
  });
  q.register({
    handleLoadSnapshot(s: SnapshotData) {
      seen.snapshots++;
      seen.topics.clear();
      for (const r of s.records) if (r.type === RecordType.Topic) seen.topics.add(r.data.name);
    },
    handleCommit(b: CommittedBatch) {
      assert.ok(b.baseOffset > seen.lastOffset, `batches in order: ${b.baseOffset} after ${seen.lastOffset}`);
      seen.lastOffset = b.lastOffset;
      for (const r of b.records) {
        if (r.type === RecordType.Topic) seen.topics.add(r.data.name);
      }
    },
    handleLeaderChange(l) {
      seen.leaderIds.push(l.leaderId);
    },
  });
  await q.start();
  return q;
}

const fresh = (): Seen => ({ topics: new Set(), snapshots: 0, lastOffset: -1, leaderIds: [] });

test('an ObserverQuorum follows an Apache Kafka 4.4.0 controller and resumes after a restart', async () => {
  await createTopicAt(kafka.port, 'kafka-made-1', { partitions: 2, timeoutMs: 30_000 });
  const seen = fresh();
  observer = await openObserver(seen);
  await waitFor(() => seen.topics.has('kafka-made-1') || null, {
    what: 'the observer to deliver TopicRecord kafka-made-1',
    timeoutMs: 30_000,
  });
  assert.equal(observer.leaderId, kafka.nodeId);
  assert.ok(seen.leaderIds.includes(kafka.nodeId));
  await createTopicAt(kafka.port, 'kafka-made-2', { partitions: 2, timeoutMs: 30_000 });
  await waitFor(() => seen.topics.has('kafka-made-2') || null, {
    what: 'the observer to deliver TopicRecord kafka-made-2',
    timeoutMs: 30_000,
  });

  // Kafka's leader tracks it as an observer
  const c = await RawClient.connect(kafka.controllerPort);
  try {
    const p = (await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody())).topics[0]!.partitions[0]!;
    const o = p.observers.find((r) => r.replicaId === 100);
    assert.ok(o, JSON.stringify(p.observers.map((r) => r.replicaId)));
    assert.ok(o.logEndOffset > 0n);
  } finally {
    c.close();
  }

  // restart: the log is kept; everything is delivered again from it, and new records follow
  const endBefore = observer.logEndOffset;
  await observer.close();
  observer = undefined;
  await createTopicAt(kafka.port, 'kafka-made-3', { partitions: 2, timeoutMs: 30_000 });
  const again = fresh();
  observer = await openObserver(again);
  assert.ok(observer.logEndOffset >= endBefore, 'the log survived the restart');
  await waitFor(
    () => (['kafka-made-1', 'kafka-made-2', 'kafka-made-3'].every((t) => again.topics.has(t)) ? true : null),
    {
      what: 'the restarted observer to deliver all three topics',
      timeoutMs: 30_000,
    },
  );
});
