// RaftClient as an observer of a dynamic quorum (a controller formatted --no-initial-controllers:
// kraft.version 1, no VotersRecord, controller.quorum.bootstrap.servers): it is no voter, so it never
// elects itself; it fetches from the bootstrap server, follows the CurrentLeader of the answer
// (KafkaRaftClient.maybeSendFetchToAnyBootstrap), replicates and commits the leader's log, and the
// leader lists it among DescribeQuorum's observers. One tkafka process; the observer runs in-process.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type BrokerProcess } from './helpers/broker-process.js';
import { waitFor } from './helpers/wait-for.js';
import { clusterIdOf } from './helpers/raft-requests.js';
import { describeQuorum } from './helpers/cluster.js';
import { RecordType } from '../src/protocol/metadata-records.js';
import { RaftClient } from '../src/broker/raft/raft-client.js';
import type { CommittedBatch } from '../src/broker/raft/types.js';
import { createTopicAt } from './helpers/create-topic.js';

let node: BrokerProcess;
let clusterId: string;
let dir = '';
let observer: RaftClient | null = null;

before(async () => {
  node = await startBroker();
  clusterId = await clusterIdOf(node.port);
  dir = mkdtempSync(join(tmpdir(), 'tkafka-raft-observer-'));
});

after(async () => {
  await observer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  await node?.stop();
  node?.cleanup();
});

test('a --no-initial-controllers RaftClient finds the leader through a bootstrap server and follows it as an observer', async () => {
  await createTopicAt(node.port, 'before-observer');
  const topics = new Set<string>();
  observer = await RaftClient.open({
    metadataLogDir: dir,
    nodeId: 60,
    clusterId,
    directoryId: 'b2JzZXJ2ZXItZGlyLWlkMQ',
    controllerListeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 1 }],
    kraftVersion: 1,
    bootstrapServers: [{ host: '127.0.0.1', port: node.controllerPort }],
  });
  observer.register({
    handleCommit(b: CommittedBatch) {
      for (const r of b.records) if (r.type === RecordType.Topic) topics.add(r.data.name);
    },
  });
  await observer.start();
  assert.deepEqual(observer.voters, [], 'no voter set in the log: an observer');
  await waitFor(() => topics.has('before-observer') || null, {
    what: 'the leader log to be committed',
    timeoutMs: 20_000,
  });
  assert.equal(observer.stateName, 'Follower');
  assert.equal(observer.leaderId, 1);
  assert.equal(observer.isLeader(), false);
  await createTopicAt(node.port, 'after-observer');
  await waitFor(() => topics.has('after-observer') || null, { what: 'the tail to be committed', timeoutMs: 20_000 });
  const q = await waitFor(
    async () => {
      const d = await describeQuorum(node.controllerPort);
      return d && d.observers.some((o) => o.replicaId === 60) ? d : null;
    },
    { what: 'the leader to list the observer', timeoutMs: 20_000 },
  );
  assert.deepEqual(
    q.voters.map((v) => v.replicaId),
    [1],
  );
  await assert.rejects(observer.append([]), /not the metadata leader/);
});
