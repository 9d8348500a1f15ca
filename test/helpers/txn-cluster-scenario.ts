// Transactions across the brokers of a cluster (issue 15: markers to the leaders of every partition
// of a transaction, on other brokers too; verification with a coordinator on another broker). Run on
// a tkafka cluster (test/txn-cluster.test.ts) and on a mixed one with a Kafka 4.4.0 broker
// (test/interop/txn-mixed.test.ts).
//
// A single-replica topic whose partitions are led by every broker; transactional ids picked so that
// their coordinators (leaders of their __transaction_state partitions) are on every broker, and a
// group whose coordinator is not the transactional producer's. Real clients write: confluent-kafka
// (transactions V1: the brokers verify with verifyOnly AddPartitionsToTxn) runs
// test/helpers/txn_across_brokers.py; kafka-clients 4.4.0 (transactions V2: the brokers add the
// partitions) runs the client matrix's `transactions` and `txn-v2` scenarios.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { execa } from 'execa';
import { ApiKey } from '../../src/protocol/frame.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { coordinatorPartition } from '../../src/protocol/partitioner.js';
import type { Cluster } from './cluster.js';
import { createTopic } from './cluster.js';
import { RawClient } from './raw-client.js';
import { REPO_ROOT } from './spec-models.js';
import { waitFor } from './wait-for.js';

export const PYTHON = join(REPO_ROOT, '.cache', 'clients', 'venv', 'bin', 'python');
export const JAVA_CLIENT = join(REPO_ROOT, 'test', 'clients', 'java', 'run.sh');

/** Internal topic partition counts the scenario's brokers run with (coordinators spread over brokers). */
export const INTERNAL_PARTITIONS = 6;

/** What the scenario's brokers need besides the cluster helper's defaults. */
export const TXN_BROKER_OVERRIDES = {
  'offsets.topic.num.partitions': INTERNAL_PARTITIONS,
  'transaction.state.log.num.partitions': INTERNAL_PARTITIONS,
  'auto.create.topics.enable': true,
  'group.consumer.heartbeat.interval.ms': 1000,
  'group.consumer.min.heartbeat.interval.ms': 1000,
};

async function withClient<T>(port: number, fn: (c: RawClient) => Promise<T>): Promise<T> {
  const c = await RawClient.connect(port);
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

/** Partition leaders of `topics` (by partition id), from one broker's Metadata. */
export async function leadersOf(port: number, topics: readonly string[]): Promise<Map<string, number[]>> {
  return withClient(port, async (c) => {
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: topics.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const out = new Map<string, number[]>();
    for (const t of md.topics) {
      if (t.errorCode !== 0 || t.name === null) continue;
      const ls: number[] = [];
      for (const p of t.partitions) ls[p.partitionIndex] = p.errorCode === 0 ? p.leaderId : -1;
      out.set(t.name, ls);
    }
    return out;
  });
}

/** Creates __consumer_offsets and __transaction_state (FindCoordinator) and waits until every partition has a leader. */
async function internalTopicsLed(cluster: Cluster): Promise<{ offsets: number[]; txn: number[] }> {
  const port = cluster.brokers[0]!.port;
  return waitFor(
    async () => {
      await withClient(port, (c) =>
        c
          .request(ApiKey.FindCoordinator, 4, { key: '', keyType: 0, coordinatorKeys: ['g'] })
          .then(() => c.request(ApiKey.FindCoordinator, 4, { key: '', keyType: 1, coordinatorKeys: ['t'] })),
      );
      const l = await leadersOf(port, ['__consumer_offsets', '__transaction_state']);
      const offsets = l.get('__consumer_offsets');
      const txn = l.get('__transaction_state');
      const full = (ls: number[] | undefined) =>
        ls !== undefined && ls.length === INTERNAL_PARTITIONS && ls.every((x) => x >= 0);
      return full(offsets) && full(txn) ? { offsets: offsets!, txn: txn! } : null;
    },
    { what: 'the internal topics to be created with a leader for every partition', timeoutMs: 90_000, intervalMs: 500 },
  );
}

/** `${prefix}-${what}-N` ids whose coordinator (leader of coordinatorPartition) is on `broker`. */
function idOn(
  prefix: string,
  leaders: readonly number[],
  broker: number,
  not: ReadonlySet<string> = new Set(),
): string {
  for (let i = 0; i < 10_000; i++) {
    const id = `${prefix}-${i}`;
    if (!not.has(id) && leaders[coordinatorPartition(id, INTERNAL_PARTITIONS)] === broker) return id;
  }
  throw new Error(`no id with prefix ${prefix} has its coordinator on broker ${broker}`);
}

export interface TxnScenarioResult {
  /** The python program's report lines. */
  readonly reports: string[];
  readonly txnCoordinators: Map<string, number>;
}

/**
 * The confluent-kafka part: a 6-partition topic led by every broker, transactions from ids whose
 * coordinators are on every broker, a read_committed check, offsets in aborted and committed
 * transactions for a group whose coordinator is not the producer's.
 */
export async function confluentAcrossBrokers(cluster: Cluster, prefix: string): Promise<TxnScenarioResult> {
  const brokers = cluster.brokers.map((b) => b.id);
  const topic = `${prefix}-data`;
  const parts = 6;
  assert.equal(await createTopic(cluster, topic, { partitions: parts }), 0, `creating ${topic}`);
  const dataLeaders = await waitFor(
    async () => {
      const ls = (await leadersOf(cluster.brokers[0]!.port, [topic])).get(topic);
      return ls && ls.length === parts && ls.every((x) => x >= 0) ? ls : null;
    },
    { what: `leaders for every partition of ${topic}`, timeoutMs: 30_000 },
  );
  assert.deepEqual(
    [...new Set(dataLeaders)].sort(),
    [...brokers].sort(),
    `the partitions of ${topic} are led by every broker (${dataLeaders.join(',')})`,
  );
  const internal = await internalTopicsLed(cluster);
  const txnIds = brokers.map((b) => idOn(`${prefix}-txn-on-${b}`, internal.txn, b));
  // the group's coordinator on one broker, the producer's on another
  const group = idOn(`${prefix}-group`, internal.offsets, brokers[0]!);
  const ctp = idOn(`${prefix}-ctp`, internal.txn, brokers[1]!);
  const spec = {
    bootstrap: cluster.bootstrap(),
    topic,
    partitions: parts,
    txn_ids: txnIds,
    txns: 6,
    group,
    ctp_txn_id: ctp,
  };
  const r = await execa(PYTHON, [join(REPO_ROOT, 'test', 'helpers', 'txn_across_brokers.py'), JSON.stringify(spec)], {
    reject: false,
    timeout: 240_000,
    all: true,
  });
  assert.equal(r.exitCode, 0, `txn_across_brokers.py failed:\n${String(r.all)}`);
  const reports = String(r.stdout)
    .split('\n')
    .filter((l) => l.startsWith('report: '));
  return {
    reports,
    txnCoordinators: new Map(txnIds.map((id) => [id, internal.txn[coordinatorPartition(id, INTERNAL_PARTITIONS)]!])),
  };
}

/** One scenario of the Java client matrix program (kafka-clients 4.4.0) against the cluster. */
export async function javaScenario(cluster: Cluster, scenario: string): Promise<string> {
  const r = await execa('bash', [JAVA_CLIENT, scenario, cluster.bootstrap()], {
    reject: false,
    timeout: 300_000,
    all: true,
  });
  assert.equal(r.exitCode, 0, `java ${scenario} failed:\n${String(r.all).slice(-4000)}`);
  return String(r.stdout).trim();
}

/**
 * Request-log lines (tkafka.request.log=true) each tkafka broker logged for `api` from other brokers:
 * tkafka's transaction senders (`broker-N-txn-marker-sender`, `broker-N-add-partitions-sender`) by
 * default; `[^ ]*` counts every client (only brokers send these APIs).
 */
export function interBrokerRequests(
  cluster: Cluster,
  api: string,
  client = 'broker-\\d+-(?:txn-marker|add-partitions)-sender',
): Map<number, number> {
  const out = new Map<number, number>();
  for (const b of cluster.brokers) {
    if (b.impl !== 'tkafka') continue;
    const re = new RegExp(`\\[request\\] client=${client} .*api=${api} v`, 'g');
    out.set(b.id, (b.logs(Number.MAX_SAFE_INTEGER).match(re) ?? []).length);
  }
  return out;
}
