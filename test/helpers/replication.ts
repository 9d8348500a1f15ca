// What the replication tests ask of a cluster: replicated topics, a partition's leader/epoch/ISR as
// a broker's Metadata says, a replica's log as bytes and as (offset, value) pairs read straight from
// its segment files, and produce requests whose error code is the point (NOT_ENOUGH_REPLICAS).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ApiKey } from '../../src/protocol/generated/apis.js';
import { ZERO_UUID } from '../../src/protocol/uuid.js';
import { buildRecordBatchSync } from '../../src/protocol/records/batch.js';
import { decodeBatchSync } from '../../src/protocol/records/batch-records.js';
import type { Cluster, ClusterNode } from './cluster.js';
import { RawClient } from './raw-client.js';
import { waitFor } from './wait-for.js';
import { KafkaClient } from '../../src/client/client.js';
import { Producer } from '../../src/client/producer.js';

/** One exchange with a broker, null when it fails or takes over `timeoutMs` (a SIGSTOPped broker still accepts connections). */
async function ask<T>(port: number, fn: (c: RawClient) => Promise<T>, timeoutMs = 5000): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const attempt = RawClient.connect(port).then(
    (c) =>
      fn(c).then(
        (v) => (c.close(), v),
        () => (c.close(), null),
      ),
    () => null,
  );
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** CreateTopics v7 of a replicated topic through one broker; the answer's error code (null: no answer). */
export function createReplicatedTopic(
  port: number,
  name: string,
  opts: {
    partitions?: number;
    replicationFactor: number;
    configs?: Record<string, string>;
    /** Partition 0's replicas (the first leads). */
    assignment?: number[];
    /** Every partition's replicas, by index (as --replica-assignment). */
    assignments?: number[][];
  },
): Promise<number | null> {
  const assignments = opts.assignments ?? (opts.assignment ? [opts.assignment] : null);
  return ask(port, async (c) => {
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name,
          numPartitions: assignments ? -1 : (opts.partitions ?? 1),
          replicationFactor: assignments ? -1 : opts.replicationFactor,
          assignments: assignments
            ? assignments.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds }))
            : [],
          configs: Object.entries(opts.configs ?? {}).map(([n, value]) => ({ name: n, value })),
        },
      ],
      timeoutMs: 15_000,
      validateOnly: false,
    });
    return r.topics[0]?.errorCode ?? -1;
  });
}

export interface PartitionInfo {
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
}

/** One partition as a broker's Metadata (v12) describes it; null when it does not answer or know it. */
export function partitionInfo(port: number, topic: string, partition = 0): Promise<PartitionInfo | null> {
  return ask(port, async (c) => {
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name: topic, topicId: ZERO_UUID }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const p = md.topics[0]?.partitions.find((x) => x.partitionIndex === partition);
    if (!p || md.topics[0]!.errorCode !== 0) return null;
    return { leader: p.leaderId, leaderEpoch: p.leaderEpoch, replicas: [...p.replicaNodes], isr: [...p.isrNodes] };
  }).then((r) => r ?? null);
}

/** The folder of a partition's log on a node (its log dir is the metadata folder's parent). */
export function partitionDir(node: ClusterNode, topic: string, partition = 0): string {
  return join(dirname(node.metadataDir), `${topic}-${partition}`);
}

/** Every segment's bytes of a partition on a node, in offset order, concatenated. */
export function logBytes(node: ClusterNode, topic: string, partition = 0): Buffer {
  const dir = partitionDir(node, topic, partition);
  if (!existsSync(dir)) return Buffer.alloc(0);
  const segments = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  return Buffer.concat(segments.map((f) => readFileSync(join(dir, f))));
}

/** The data records of a log (uncompressed batches) as offset → value. */
export function logRecords(bytes: Buffer): Map<number, string> {
  const out = new Map<number, string>();
  let pos = 0;
  while (bytes.length - pos >= 12) {
    const size = bytes.readInt32BE(pos + 8) + 12;
    if (size > bytes.length - pos) break;
    const b = decodeBatchSync(bytes, pos);
    if (!b.isControl) for (const r of b.records) out.set(r.offset, r.value?.toString() ?? '');
    pos += size;
  }
  return out;
}

/** One Produce (v9) of `values` to a partition through `port`: the partition's error code. */
export function produceRaw(
  port: number,
  topic: string,
  values: readonly string[],
  opts: { acks: number; partition?: number; timeoutMs?: number },
): Promise<number | null> {
  return ask(port, async (c) => {
    const r = await c.request(ApiKey.Produce, 9, {
      transactionalId: null,
      acks: opts.acks,
      timeoutMs: opts.timeoutMs ?? 10_000,
      topicData: [
        {
          name: topic,
          partitionData: [
            {
              index: opts.partition ?? 0,
              records: buildRecordBatchSync({ records: values.map((value) => ({ value })) }),
            },
          ],
        },
      ],
    });
    return r.responses[0]?.partitionResponses[0]?.errorCode ?? -1;
  });
}

/**
 * produceRaw until the partition's leader appends: UNKNOWN_TOPIC_OR_PARTITION (3) and
 * NOT_LEADER_OR_FOLLOWER (6) mean nothing was appended (a broker that has not applied the topic or its
 * leadership yet), so the batch is sent again; any other error fails.
 */
export async function produceRawAppended(
  port: number,
  topic: string,
  values: readonly string[],
  opts: { acks: number; partition?: number },
): Promise<void> {
  let other: number | null = 0;
  await waitFor(
    async () => {
      const code = await produceRaw(port, topic, values, opts);
      if (code !== 0 && code !== 3 && code !== 6) other = code;
      return code === 0 || other !== 0;
    },
    { what: `a batch appended to ${topic}-${opts.partition ?? 0}`, timeoutMs: 30_000, intervalMs: 100 },
  );
  if (other !== 0) throw new Error(`produce to ${topic}-${opts.partition ?? 0}: error ${other}`);
}

const running = (cluster: Cluster): ClusterNode[] => cluster.brokers.filter((b) => b.running());

/**
 * The partition as the first running broker that knows it says, once `pred` holds; `via` limits the
 * brokers asked (a broker just resumed from SIGSTOP still answers with the image it had when stopped).
 */
export function waitPartition(
  cluster: Cluster,
  topic: string,
  what: string,
  pred: (p: PartitionInfo) => boolean,
  timeoutMs = 60_000,
  via?: readonly ClusterNode[],
): Promise<PartitionInfo> {
  return waitFor(
    async () => {
      for (const b of via ?? running(cluster)) {
        const p = await partitionInfo(b.port, topic);
        if (p && pred(p)) return p;
      }
      return null;
    },
    { what: `${topic}: ${what}`, timeoutMs, intervalMs: 200 },
  );
}

/** Waits until the replicas on `nodes` hold the same log bytes with at least `minRecords` records; returns them. */
export function waitIdentical(topic: string, nodes: readonly ClusterNode[], minRecords: number): Promise<Buffer> {
  return waitFor(
    () => {
      const logs = nodes.map((n) => logBytes(n, topic));
      const first = logs[0]!;
      return logs.every((l) => l.equals(first)) && logRecords(first).size >= minRecords ? first : null;
    },
    {
      what: `${topic}: identical logs on brokers ${nodes.map((n) => n.id).join(', ')}`,
      timeoutMs: 60_000,
      intervalMs: 200,
    },
  );
}

/** Sends `values` to partition 0 with the repo's producer (bootstrapped from `via`); the acknowledged offset → value. */
export async function produceAll(
  cluster: Cluster,
  topic: string,
  values: readonly string[],
  acks: number,
  via: readonly ClusterNode[] = running(cluster),
): Promise<Map<number, string>> {
  const client = new KafkaClient({ bootstrapServers: via.map((b) => `127.0.0.1:${b.port}`) });
  const producer = new Producer(client, { acks, lingerMs: 5 });
  try {
    const acked = await Promise.all(
      values.map((value) => producer.send({ topic, partition: 0, value: Buffer.from(value) })),
    );
    return new Map(acked.map((m, i) => [Number(m.offset), values[i]!]));
  } finally {
    await producer.close();
    client.close();
  }
}

/** Every partition of a topic as a broker's Metadata (v12) describes it, by index; null when it does not answer or know it. */
export function topicPartitions(port: number, topic: string): Promise<PartitionInfo[] | null> {
  return ask(port, async (c) => {
    const md = await c.request(ApiKey.Metadata, 12, {
      topics: [{ name: topic, topicId: ZERO_UUID }],
      allowAutoTopicCreation: false,
      includeTopicAuthorizedOperations: false,
    });
    const t = md.topics[0];
    if (!t || t.errorCode !== 0 || t.partitions.length === 0) return null;
    return [...t.partitions]
      .sort((a, b) => a.partitionIndex - b.partitionIndex)
      .map((p) => ({
        leader: p.leaderId,
        leaderEpoch: p.leaderEpoch,
        replicas: [...p.replicaNodes],
        isr: [...p.isrNodes],
      }));
  }).then((r) => r ?? null);
}

/** Every partition of a topic as the first running broker that knows it says, once `pred` holds for all of them. */
export function waitAllPartitions(
  cluster: Cluster,
  topic: string,
  what: string,
  pred: (p: PartitionInfo, index: number) => boolean,
  timeoutMs = 60_000,
): Promise<PartitionInfo[]> {
  return waitFor(
    async () => {
      for (const b of running(cluster)) {
        const ps = await topicPartitions(b.port, topic);
        if (ps && ps.every(pred)) return ps;
      }
      return null;
    },
    { what: `${topic}: ${what}`, timeoutMs, intervalMs: 200 },
  );
}
