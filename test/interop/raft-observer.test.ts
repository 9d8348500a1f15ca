// Raft replication between tkafka and Apache Kafka 4.4.0:
// 1. an Apache Kafka broker (process.roles=broker) follows a tkafka controller: it fetches the
//    metadata log from tkafka's controller listener as an observer, catches up, and keeps up as
//    tkafka appends (DescribeQuorum's Observers on tkafka show its progress);
// 2. the forged raft Fetch requests of test/raft-replication.test.ts get the same error codes and
//    fields from an Apache Kafka controller as from tkafka (FetchSnapshot errors: see the test).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { clusterNodeProperties, propertiesText } from '../helpers/cluster.js';
import { kafkaLauncher } from './helpers/kafka-cluster.js';
import { startApacheKafka, type ApacheKafka } from './helpers/apache-kafka.js';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import {
  clusterIdOf,
  describeQuorumBody,
  fetchBody,
  fetchSnapshotBody,
  metadataPartition,
} from '../helpers/raft-requests.js';
import { createTopicAt } from '../helpers/create-topic.js';

let tkafka: BrokerProcess | undefined;
let kafkaBroker: ChildProcess | undefined;
let kafkaDir: string | undefined;
let kafka: ApacheKafka | undefined;

after(async () => {
  if (kafkaBroker && kafkaBroker.exitCode === null && kafkaBroker.signalCode === null) {
    const gone = new Promise((r) => kafkaBroker!.once('exit', r));
    kafkaBroker.kill('SIGKILL');
    await gone;
  }
  if (kafkaDir) rmSync(kafkaDir, { recursive: true, force: true });
  await tkafka?.stop();
  tkafka?.cleanup();
  await kafka?.cleanup();
});

async function quorumOf(port: number) {
  const c = await RawClient.connect(port);
  try {
    return (await c.request(ApiKey.DescribeQuorum, 2, describeQuorumBody())).topics[0]!.partitions[0]!;
  } finally {
    c.close();
  }
}

test('an Apache Kafka 4.4.0 broker follows a tkafka controller as a raft observer', async () => {
  tkafka = await startBroker();
  const clusterId = await clusterIdOf(tkafka.port);
  await createTopicAt(tkafka.port, 'before-observer');

  kafkaDir = mkdtempSync(join(tmpdir(), 'tkafka-raft-observer-'));
  const launcher = kafkaLauncher();
  const configFile = join(kafkaDir, 'server.properties');
  const props = clusterNodeProperties({
    id: 2,
    roles: 'broker',
    brokerPort: 0,
    controllerPort: 0,
    logDir: join(kafkaDir, 'data'),
    quorum: 'static',
    controllers: [{ id: 1, port: tkafka.controllerPort }],
  });
  mkdirSync(join(kafkaDir, 'data'), { recursive: true });
  writeFileSync(configFile, propertiesText(props));
  const fmt = await launcher.format(['format', '-t', clusterId, '-c', configFile], kafkaDir);
  assert.equal(fmt.exitCode, 0, fmt.output);
  const dir = kafkaDir;
  kafkaBroker = launcher.spawn(configFile, dir);
  const logs = (): string => launcher.log(dir).slice(-6000);

  // It fetches from tkafka and catches up to the high watermark.
  const caughtUp = await waitFor(
    async () => {
      if (kafkaBroker!.exitCode !== null) throw new Error(`the Kafka broker exited:\n${logs()}`);
      const q = await quorumOf(tkafka!.controllerPort);
      const o = q.observers.find((r) => r.replicaId === 2);
      return o && o.logEndOffset >= q.highWatermark && o.lastCaughtUpTimestamp > 0n ? { q, o } : null;
    },
    { what: 'Kafka broker 2 to show as a caught-up observer on tkafka', timeoutMs: 120_000, intervalMs: 200 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${logs()}`);
  });
  assert.equal(caughtUp.q.leaderId, 1);

  // It keeps up with new records.
  await createTopicAt(tkafka.port, 'after-observer');
  const hw = (await quorumOf(tkafka.controllerPort)).highWatermark;
  assert.ok(hw > caughtUp.q.highWatermark);
  await waitFor(
    async () => {
      const q = await quorumOf(tkafka!.controllerPort);
      const o = q.observers.find((r) => r.replicaId === 2);
      return o && o.logEndOffset >= hw ? true : null;
    },
    { what: `Kafka broker 2 to fetch up to offset ${hw}`, timeoutMs: 30_000, intervalMs: 100 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${logs()}`);
  });
  // Kafka replayed what it fetched without a metadata fault (records it could not read, a log it rejected).
  assert.doesNotMatch(
    launcher.log(dir),
    /(metadata (loading|publishing) fault|Encountered fatal fault|CorruptRecordException)/i,
  );
});

test('forged raft Fetch/FetchSnapshot requests: Apache Kafka 4.4.0 answers as tkafka does', async () => {
  kafka = await startApacheKafka();
  const kq = await quorumOf(kafka.controllerPort);
  const tq = await quorumOf(tkafka!.controllerPort);
  const tkafkaId = await clusterIdOf(tkafka!.port);
  const cases = (clusterId: string, e: number, leo: number): { name: string; body: ReturnType<typeof fetchBody> }[] => [
    {
      name: 'stale epoch',
      body: fetchBody({ clusterId, replicaId: 9, epoch: e - 1, fetchOffset: 0, lastFetchedEpoch: 0, maxWaitMs: 0 }),
    },
    {
      name: 'future epoch',
      body: fetchBody({ clusterId, replicaId: 9, epoch: e + 1, fetchOffset: 0, lastFetchedEpoch: 0, maxWaitMs: 0 }),
    },
    {
      name: 'lastFetchedEpoch > currentLeaderEpoch',
      body: fetchBody({ clusterId, replicaId: 9, epoch: e, fetchOffset: 0, lastFetchedEpoch: e + 1, maxWaitMs: 0 }),
    },
    {
      name: 'diverging: past the end of the leader epoch',
      body: fetchBody({
        clusterId,
        replicaId: 9,
        epoch: e,
        fetchOffset: leo + 1_000_000,
        lastFetchedEpoch: e,
        maxWaitMs: 0,
      }),
    },
    {
      name: 'another cluster id',
      body: fetchBody({
        clusterId: 'AAAAAAAAAAAAAAAAAAAAAA',
        replicaId: 9,
        epoch: e,
        fetchOffset: 0,
        lastFetchedEpoch: 0,
        maxWaitMs: 0,
      }),
    },
  ];
  const answer = async (port: number, body: ReturnType<typeof fetchBody>, leaderEpoch: number, leo: number) => {
    const c = await RawClient.connect(port);
    try {
      const r = await c.request(ApiKey.Fetch, 17, body);
      if (r.errorCode !== 0) return { top: r.errorCode, partitions: r.responses.length };
      const p = metadataPartition(r);
      return {
        top: 0,
        error: p.errorCode,
        // relative to each leader's own epoch and log end
        leaderEpochDelta: p.currentLeader.leaderEpoch - leaderEpoch,
        leader: p.currentLeader.leaderId,
        hw: p.errorCode !== 0 ? Number(p.highWatermark) : 'set',
        // the leader's own end of its epoch: at or past the log end seen before, below the fetch offset
        diverging:
          p.divergingEpoch.epoch < 0
            ? null
            : [
                p.divergingEpoch.epoch - leaderEpoch,
                Number(p.divergingEpoch.endOffset) >= leo && Number(p.divergingEpoch.endOffset) < leo + 1_000_000,
              ],
        snapshot: p.snapshotId.epoch,
        nodeEndpoints: r.nodeEndpoints.length,
      };
    } finally {
      c.close();
    }
  };
  const kCases = cases(kafka.clusterId, kq.leaderEpoch, Number(kq.highWatermark));
  const tCases = cases(tkafkaId, tq.leaderEpoch, Number(tq.highWatermark));
  for (let i = 0; i < kCases.length; i++) {
    const k = await answer(kafka.controllerPort, kCases[i]!.body, kq.leaderEpoch, Number(kq.highWatermark));
    const t = await answer(tkafka!.controllerPort, tCases[i]!.body, tq.leaderEpoch, Number(tq.highWatermark));
    assert.deepEqual(t, k, `${kCases[i]!.name}: tkafka ${JSON.stringify(t)} vs Kafka ${JSON.stringify(k)}`);
  }
  // FetchSnapshot of a snapshot neither has, and with a stale epoch
  const snap = async (port: number, clusterId: string, epoch: number) => {
    const c = await RawClient.connect(port);
    try {
      const missing = await c.request(
        ApiKey.FetchSnapshot,
        1,
        fetchSnapshotBody({
          clusterId,
          replicaId: 9,
          epoch,
          snapshotId: { endOffset: 123456n, epoch },
          position: 0n,
          maxBytes: 100,
        }),
      );
      const stale = await c.request(
        ApiKey.FetchSnapshot,
        1,
        fetchSnapshotBody({
          clusterId,
          replicaId: 9,
          epoch: epoch - 1,
          snapshotId: { endOffset: 123456n, epoch },
          position: 0n,
          maxBytes: 100,
        }),
      );
      const other = await c.request(
        ApiKey.FetchSnapshot,
        1,
        fetchSnapshotBody({
          clusterId: 'AAAAAAAAAAAAAAAAAAAAAA',
          replicaId: 9,
          epoch,
          snapshotId: { endOffset: 1n, epoch },
          position: 0n,
          maxBytes: 100,
        }),
      );
      const part = (r: typeof missing) => {
        const p = r.topics[0]?.partitions[0];
        return { top: r.errorCode, partitions: r.topics.length, p };
      };
      const m = part(missing);
      const s = part(stale);
      return {
        missing: [m.top, m.partitions, m.p?.errorCode, m.p && m.p.currentLeader.leaderEpoch - epoch, Number(m.p?.size)],
        stale: [s.top, s.partitions, s.p?.errorCode, s.p && s.p.currentLeader.leaderEpoch - epoch],
        otherCluster: [other.errorCode, other.topics.length],
      };
    } finally {
      c.close();
    }
  };
  const t = await snap(tkafka!.controllerPort, tkafkaId, tq.leaderEpoch);
  const k = await snap(kafka.controllerPort, kafka.clusterId, kq.leaderEpoch);
  assert.deepEqual(t.otherCluster, k.otherCluster);
  // Kafka 4.4.0 cannot send its own partition-level FetchSnapshot errors: the error partition has no
  // records and FetchSnapshotResponseData.addSize throws a NullPointerException, so ControllerApis
  // answers UNKNOWN_SERVER_ERROR with no topics. tkafka answers what KafkaRaftClient
  // .handleFetchSnapshotRequest builds (SNAPSHOT_NOT_FOUND / FENCED_LEADER_EPOCH with CurrentLeader).
  assert.deepEqual(k.missing.slice(0, 2), [-1, 0], 'Kafka 4.4.0 fails SNAPSHOT_NOT_FOUND (if this changes, compare)');
  assert.deepEqual(k.stale.slice(0, 2), [-1, 0], 'Kafka 4.4.0 fails FENCED_LEADER_EPOCH (if this changes, compare)');
  assert.deepEqual(t.missing, [0, 1, 98, 0, 0]);
  assert.deepEqual(t.stale, [0, 1, 74, 0]);
});
