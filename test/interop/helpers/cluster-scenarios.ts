// The acceptance scenarios of issue 14 ("How it must be shown"), written once against the
// Cluster of test/helpers/cluster.ts so that the same steps run on an Apache Kafka 4.4.0 cluster
// (test/interop/cluster-kafka.test.ts: the reference figures, and the proof that the harness
// works) and on a tkafka cluster (test/interop/cluster-tkafka.test.ts). Each returns the
// figures it measured; the tests print them.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import {
  createTopic,
  describeBrokers,
  describeQuorum,
  topicIds,
  waitForLeader,
  waitForUnfenced,
  type Cluster,
  type ClusterNode,
  type QuorumInfo,
} from '../../helpers/cluster.js';
import { waitFor } from '../../helpers/wait-for.js';

/** metadata.max.retention.ms of the catch-up scenario. */
export const METADATA_RETENTION_MS = 90_000;

/**
 * Settings that make the metadata log roll every second, snapshot every 2 s and drop what is older
 * than METADATA_RETENTION_MS (by time only; Kafka's raft cleaner runs every 60 s): a node down for
 * well under that catches up from the log, one down for minutes from a snapshot.
 */
export const FAST_SNAPSHOT_SETTINGS: Record<string, string> = {
  'metadata.log.segment.ms': '1000',
  'metadata.log.max.snapshot.interval.ms': '2000',
  'metadata.max.retention.ms': String(METADATA_RETENTION_MS),
  'metadata.max.retention.bytes': '-1',
};

/** broker.session.timeout.ms and broker.heartbeat.interval.ms of the fencing scenario. */
export const SESSION_TIMEOUT_MS = 6000;
export const HEARTBEAT_INTERVAL_MS = 2000;
export const FENCING_SETTINGS: Record<string, string> = {
  'broker.session.timeout.ms': String(SESSION_TIMEOUT_MS),
  'broker.heartbeat.interval.ms': String(HEARTBEAT_INTERVAL_MS),
};

/** The first offset of the oldest segment of a node's metadata log (≤ its log start offset). */
export function oldestSegmentOffset(node: ClusterNode): bigint {
  const bases = readdirSync(node.metadataDir)
    .filter((f) => /^\d{20}\.log$/.test(f))
    .map((f) => BigInt(f.slice(0, 20)));
  return bases.length === 0 ? -1n : bases.reduce((a, b) => (a < b ? a : b));
}

/** The latest snapshot offset of a node's metadata log (-1 when it has none). */
export function latestSnapshotOffset(node: ClusterNode): bigint {
  const offsets = readdirSync(node.metadataDir)
    .filter((f) => /^\d{20}-\d{10}\.checkpoint$/.test(f))
    .map((f) => BigInt(f.slice(0, 20)));
  return offsets.reduce((a, b) => (a > b ? a : b), -1n);
}

/** Waits until every running broker's Metadata has every topic, and returns the ids each reported. */
export async function topicsOnEveryBroker(
  cluster: Cluster,
  topics: readonly string[],
  timeoutMs = 60_000,
): Promise<Map<number, Map<string, string>>> {
  const seen = new Map<number, Map<string, string>>();
  await waitFor(
    async () => {
      for (const b of cluster.brokers.filter((n) => n.running())) {
        const ids = await topicIds(b.port, topics);
        if (!ids || topics.some((t) => !ids.has(t))) return false;
        seen.set(b.id, ids);
      }
      return true;
    },
    { what: `topics ${topics.join(', ')} on every broker`, timeoutMs, intervalMs: 200 },
  );
  return seen;
}

/** Asserts every broker reported the same id for every topic. */
export function assertSameIds(seen: Map<number, Map<string, string>>, topics: readonly string[]): void {
  const [first, ...rest] = [...seen.entries()];
  assert.ok(first, 'no broker answered');
  for (const t of topics) {
    const id = first[1].get(t);
    assert.ok(id && id !== 'AAAAAAAAAAAAAAAAAAAAAA', `broker ${first[0]} has an id for ${t}`);
    for (const [b, ids] of rest) assert.equal(ids.get(t), id, `broker ${b} has the id broker ${first[0]} has for ${t}`);
  }
}

/** Waits until the quorum leader reports `node`'s log end offset at (or past) the high watermark. */
export async function waitCaughtUp(cluster: Cluster, node: ClusterNode, timeoutMs = 120_000): Promise<QuorumInfo> {
  let last = '';
  return waitFor(
    async () => {
      const q = await waitForLeader(cluster, { timeoutMs: 10_000 });
      const leader = await describeQuorum(cluster.node(q.leaderId).controllerPort);
      if (!leader) return null;
      const r = [...leader.voters, ...leader.observers].find((x) => x.replicaId === node.id);
      last = r ? `LEO ${r.logEndOffset}, HW ${leader.highWatermark}` : 'not listed';
      return r && r.logEndOffset >= leader.highWatermark && leader.highWatermark > 0n ? leader : null;
    },
    { what: `node ${node.id} to catch up`, timeoutMs, intervalMs: 200 },
  ).catch((e: Error) => {
    throw new Error(`${e.message} (${last})`);
  });
}

export interface FailoverFigures {
  oldLeader: number;
  oldEpoch: number;
  newLeader: number;
  newEpoch: number;
  /** From the SIGKILL of the leader to the first DescribeQuorum answer naming another leader. */
  electionMs: number;
  topicIds: Record<string, string>;
}

/**
 * A 3-controller quorum elects a leader; kill -9 of the leader elects another; topics created
 * before, during and after the failover exist on every broker with the same ids; the old leader
 * restarts and catches up.
 */
export async function failoverScenario(cluster: Cluster, prefix: string): Promise<FailoverFigures> {
  const q0 = await waitForLeader(cluster);
  assert.equal(q0.voters.length, cluster.controllers.length, 'every controller is a voter');
  const before = `${prefix}-before`;
  const during = `${prefix}-during`;
  const after = `${prefix}-after`;
  assert.equal(await createTopic(cluster, before), 0, `${before} created`);

  const leader = cluster.node(q0.leaderId);
  const t0 = Date.now();
  await leader.kill();
  // created while the quorum has no leader: the broker forwards it once a controller is active
  const creating = createTopic(cluster, during, { timeoutMs: 90_000 });
  const q1 = await waitForLeader(cluster, { not: q0.leaderId, afterEpoch: q0.leaderEpoch, intervalMs: 20 });
  const electionMs = Date.now() - t0;
  assert.notEqual(q1.leaderId, q0.leaderId);
  assert.ok(q1.leaderEpoch > q0.leaderEpoch, `epoch ${q1.leaderEpoch} > ${q0.leaderEpoch}`);
  assert.ok([0, 36].includes(await creating), `${during} created`);
  assert.equal(await createTopic(cluster, after), 0, `${after} created`);

  await leader.start();
  await waitCaughtUp(cluster, leader);
  const topics = [before, during, after];
  const seen = await topicsOnEveryBroker(cluster, topics);
  assertSameIds(seen, topics);
  return {
    oldLeader: q0.leaderId,
    oldEpoch: q0.leaderEpoch,
    newLeader: q1.leaderId,
    newEpoch: q1.leaderEpoch,
    electionMs,
    topicIds: Object.fromEntries([...seen.values()][0]!),
  };
}

export interface CatchUpFigures {
  node: number;
  /** Its log end offset when it was killed, and the leader's oldest segment when it restarted. */
  endOffsetWhenKilled: bigint;
  leaderOldestSegment: bigint;
  /** Milliseconds from the restart to caught up: from the log, then from a snapshot. */
  fromLogMs: number;
  /**
   * Whether the first catch-up was certainly from the log: the leader still had the offsets when
   * it was done (its raft cleaner, every 60 s, may have moved the log start during the restart,
   * and then the first catch-up was from a snapshot too).
   */
  fromLogCertain: boolean;
  fromSnapshotMs: number;
  snapshotOffsetAfter: bigint;
}

async function endOffsetOf(cluster: Cluster, node: ClusterNode): Promise<bigint> {
  const q = await waitForLeader(cluster);
  const leader = await describeQuorum(cluster.node(q.leaderId).controllerPort);
  const r = leader?.voters.find((x) => x.replicaId === node.id);
  assert.ok(r, `node ${node.id} is a voter`);
  return r.logEndOffset;
}

/**
 * A controller that was down catches up from the log (the leader still has the offsets it
 * needs), then, down again until the leader's log start has moved past its end offset, from a
 * snapshot (the only way: the leader no longer has those offsets). Needs FAST_SNAPSHOT_SETTINGS.
 */
export async function catchUpScenario(cluster: Cluster, prefix: string): Promise<CatchUpFigures> {
  const q = await waitForLeader(cluster);
  const follower = cluster.controllers.find((n) => n.id !== q.leaderId && n.running());
  assert.ok(follower, 'a running follower');
  await waitCaughtUp(cluster, follower);

  // 1. from the log (certainly so when, once it has caught up, the leader's oldest segment still
  // begins at or before the offset it stopped at: a log start only moves forward)
  const endOffsetBefore = await endOffsetOf(cluster, follower);
  await follower.kill();
  assert.equal(await createTopic(cluster, `${prefix}-log`), 0);
  let t = Date.now();
  await follower.start();
  const caught = await waitCaughtUp(cluster, follower);
  const fromLogMs = Date.now() - t;
  const fromLogCertain = oldestSegmentOffset(cluster.node(caught.leaderId)) <= endOffsetBefore;

  // 2. from a snapshot
  await waitCaughtUp(cluster, follower);
  const endOffset = await endOffsetOf(cluster, follower);
  await follower.kill();
  assert.equal(await createTopic(cluster, `${prefix}-snapshot`), 0);
  let oldest = -1n;
  await waitFor(
    async () => {
      const l = await waitForLeader(cluster, { timeoutMs: 10_000 });
      oldest = oldestSegmentOffset(cluster.node(l.leaderId));
      return oldest > endOffset;
    },
    {
      what: `the leader's log start to move past offset ${endOffset} (raft cleaner: every 60 s)`,
      timeoutMs: METADATA_RETENTION_MS + 180_000,
      intervalMs: 500,
    },
  );
  t = Date.now();
  await follower.start();
  await waitCaughtUp(cluster, follower);
  const fromSnapshotMs = Date.now() - t;
  const snapshotOffsetAfter = latestSnapshotOffset(follower);
  assert.ok(snapshotOffsetAfter > endOffset, `node ${follower.id} holds a snapshot past ${endOffset}`);
  const seen = await topicsOnEveryBroker(cluster, [`${prefix}-log`, `${prefix}-snapshot`]);
  assertSameIds(seen, [`${prefix}-log`, `${prefix}-snapshot`]);
  return {
    node: follower.id,
    endOffsetWhenKilled: endOffset,
    leaderOldestSegment: oldest,
    fromLogMs,
    fromLogCertain,
    fromSnapshotMs,
    snapshotOffsetAfter,
  };
}

export interface FencingFigures {
  broker: number;
  /** From the SIGKILL to the first DescribeCluster answer listing it fenced. */
  fencedAfterMs: number;
  /** From the restart (process launched) to the first answer listing it unfenced. */
  unfencedAfterMs: number;
}

/** Fence state of `brokerId` as another running broker reports it (DescribeCluster v2). */
async function fenced(cluster: Cluster, brokerId: number): Promise<boolean | null> {
  const other = cluster.brokers.find((b) => b.id !== brokerId && b.running());
  if (!other) return null;
  const list = await describeBrokers(other.port);
  const e = list?.find((b) => b.brokerId === brokerId);
  return e ? e.isFenced : null;
}

/**
 * 3 brokers + 3 controllers: every broker registered and unfenced; one killed with -9 is fenced
 * after broker.session.timeout.ms (not before session − heartbeat interval: its last heartbeat
 * may be that old) and unfenced again after a restart. Needs FENCING_SETTINGS.
 * `onFenced` runs while the broker is fenced (the tools' views are checked there).
 */
export async function fencingScenario(
  cluster: Cluster,
  onFenced: (brokerId: number) => Promise<void>,
): Promise<FencingFigures> {
  const listed = await waitForUnfenced(cluster);
  assert.deepEqual(
    listed.map((b) => b.brokerId),
    cluster.brokers.map((b) => b.id),
    'the brokers, and only them, are registered',
  );
  const victim = cluster.brokers[cluster.brokers.length - 1]!;
  const t0 = Date.now();
  await victim.kill();
  await waitFor(async () => (await fenced(cluster, victim.id)) === true, {
    what: `broker ${victim.id} to be fenced`,
    timeoutMs: SESSION_TIMEOUT_MS + 30_000,
    intervalMs: 50,
  });
  const fencedAfterMs = Date.now() - t0;
  assert.ok(
    fencedAfterMs >= SESSION_TIMEOUT_MS - HEARTBEAT_INTERVAL_MS,
    `fenced after ${fencedAfterMs} ms: not before the session (${SESSION_TIMEOUT_MS} ms) less one heartbeat interval`,
  );
  await onFenced(victim.id);
  const t1 = Date.now();
  await victim.start();
  await waitFor(async () => (await fenced(cluster, victim.id)) === false, {
    what: `broker ${victim.id} to be unfenced after its restart`,
    timeoutMs: 60_000,
    intervalMs: 50,
  });
  return { broker: victim.id, fencedAfterMs, unfencedAfterMs: Date.now() - t1 };
}

export interface ClientsFigures {
  /** Records produced through each broker, and consumed back through each. */
  produced: number;
  consumedPerBroker: Record<number, number>;
}

/** Runs one of Kafka's tool classes (kafka-cluster.ts's runKafkaTool) or tkafka's CLI; returns exit code and output. */
export type ToolRunner = (
  args: string[],
  input?: string,
) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

/**
 * Topics created through either side's tools are served by every broker, and Kafka's clients
 * (ConsoleProducer, ConsoleConsumer) produce and consume through every broker: a topic with one
 * single-replica partition per broker (so each broker leads one), `perBroker` records produced
 * with each broker as bootstrap, all of them consumed back through each broker.
 */
export async function clientsScenario(
  cluster: Cluster,
  prefix: string,
  tools: { kafka: (mainClass: string, args: string[], input?: string) => ReturnType<ToolRunner>; tkafka: ToolRunner },
  perBroker = 5,
): Promise<ClientsFigures> {
  const brokers = cluster.brokers.filter((b) => b.running());
  const viaKafka = `${prefix}-kafka-tool`;
  const viaTkafka = `${prefix}-tkafka-tool`;
  const bootstrap = `127.0.0.1:${brokers[0]!.port}`;
  const partitions = String(brokers.length);
  const k = await tools.kafka('org.apache.kafka.tools.TopicCommand', [
    '--bootstrap-server',
    bootstrap,
    '--create',
    '--topic',
    viaKafka,
    '--partitions',
    partitions,
    '--replication-factor',
    '1',
  ]);
  assert.equal(k.exitCode, 0, `Kafka's TopicCommand: ${k.stderr}`);
  const t = await tools.tkafka([
    'topics',
    '--bootstrap-server',
    `127.0.0.1:${brokers[brokers.length - 1]!.port}`,
    '--create',
    '--topic',
    viaTkafka,
    '--partitions',
    partitions,
    '--replication-factor',
    '1',
  ]);
  assert.equal(t.exitCode, 0, `tkafka topics: ${t.stderr}`);
  const seen = await topicsOnEveryBroker(cluster, [viaKafka, viaTkafka]);
  assertSameIds(seen, [viaKafka, viaTkafka]);

  for (const b of brokers) {
    const lines = Array.from({ length: perBroker }, (_, i) => `via-${b.id}-${i}`).join('\n') + '\n';
    const p = await tools.kafka(
      'org.apache.kafka.tools.ConsoleProducer',
      ['--bootstrap-server', `127.0.0.1:${b.port}`, '--topic', viaTkafka, '--producer-property', 'acks=all'],
      lines,
    );
    assert.equal(p.exitCode, 0, `ConsoleProducer through broker ${b.id}: ${p.stderr}`);
  }
  const produced = perBroker * brokers.length;
  const consumedPerBroker: Record<number, number> = {};
  for (const b of brokers) {
    const c = await tools.kafka('org.apache.kafka.tools.consumer.ConsoleConsumer', [
      '--bootstrap-server',
      `127.0.0.1:${b.port}`,
      '--topic',
      viaTkafka,
      '--from-beginning',
      '--max-messages',
      String(produced),
      '--timeout-ms',
      '60000',
    ]);
    const got = c.stdout.split('\n').filter((l) => l.startsWith('via-'));
    consumedPerBroker[b.id] = got.length;
    assert.equal(
      got.length,
      produced,
      `ConsoleConsumer through broker ${b.id} (exit ${c.exitCode}): ${c.stderr.slice(-2000)}`,
    );
    for (const x of brokers)
      for (let i = 0; i < perBroker; i++)
        assert.ok(got.includes(`via-${x.id}-${i}`), `via-${x.id}-${i} consumed through ${b.id}`);
  }
  return { produced, consumedPerBroker };
}
