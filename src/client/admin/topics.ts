// Topic administration on top of KafkaClient, following Kafka's Admin client: list, describe
// (DescribeTopicPartitions with cursor paging, falling back to Metadata), create, add partitions,
// delete, and list ongoing reassignments. Per-topic results keep each topic's own error.
import type { KafkaClient, Target, TopicMetadata } from '../client.js';
import { ApiError, UnsupportedApiError } from '../errors.js';
import { ZERO_UUID } from '../../protocol/uuid.js';
import type { CreatePartitionsResponse } from '../../protocol/generated/protocol/CreatePartitions.js';
import type { CreateTopicsResponse } from '../../protocol/generated/protocol/CreateTopics.js';
import type { DeleteTopicsResponse } from '../../protocol/generated/protocol/DeleteTopics.js';
import type { DescribeTopicPartitionsResponse } from '../../protocol/generated/protocol/DescribeTopicPartitions.js';
import type { ListPartitionReassignmentsResponse } from '../../protocol/generated/protocol/ListPartitionReassignments.js';
import type { MetadataResponse } from '../../protocol/generated/protocol/Metadata.js';

/** Per-item outcome: the value, or the Kafka error for that item. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Error };

export interface TopicListing {
  name: string;
  topicId: string;
  internal: boolean;
}

export interface PartitionInfo {
  partition: number;
  leader: number | null;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  /** null when the broker answered through the Metadata fallback (no ELR information). */
  elr: number[] | null;
  lastKnownElr: number[] | null;
  offline: number[];
}

export interface TopicDescription {
  name: string;
  topicId: string;
  internal: boolean;
  partitions: PartitionInfo[];
}

/** All topics (Metadata for all topics); internal ones only with `listInternal`. */
export async function listTopics(client: KafkaClient, opts: { listInternal?: boolean } = {}): Promise<TopicListing[]> {
  const md = await client.call('listTopics', () => client.metadata({ refresh: true }));
  const out: TopicListing[] = [];
  for (const t of md.topics.values()) {
    if (t.errorCode !== 0) continue;
    if (t.internal && !opts.listInternal) continue;
    out.push({ name: t.name, topicId: t.topicId, internal: t.internal });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function fromMetadata(t: TopicMetadata): TopicDescription {
  return {
    name: t.name,
    topicId: t.topicId,
    internal: t.internal,
    partitions: t.partitions.map((p) => ({
      partition: p.partition,
      leader: p.leader >= 0 ? p.leader : null,
      leaderEpoch: p.leaderEpoch,
      replicas: p.replicas,
      isr: p.isr,
      elr: null,
      lastKnownElr: null,
      offline: p.offline,
    })),
  };
}

async function describeWithMetadata(
  client: KafkaClient,
  names: string[],
): Promise<Map<string, Outcome<TopicDescription>>> {
  const out = new Map<string, Outcome<TopicDescription>>();
  const md = await client.call('describeTopics', () => client.metadata({ topics: names, refresh: true }));
  for (const name of names) {
    const t = md.topics.get(name);
    if (!t) out.set(name, { ok: false, error: new ApiError(3, `Topic ${name} not found.`) });
    else if (t.errorCode !== 0) out.set(name, { ok: false, error: new ApiError(t.errorCode) });
    else out.set(name, { ok: true, value: fromMetadata(t) });
  }
  return out;
}

/**
 * Describes topics by name. Uses DescribeTopicPartitions (paged by `partitionLimit` partitions per
 * response, default 2000) and falls back to Metadata when the broker lacks that API.
 */
export async function describeTopics(
  client: KafkaClient,
  names: string[],
  opts: { partitionLimit?: number; useMetadata?: boolean } = {},
): Promise<Map<string, Outcome<TopicDescription>>> {
  const unique = [...new Set(names)].sort();
  if (unique.length === 0) return new Map();
  if (
    opts.useMetadata ||
    !(await client.call('describeTopics', () => client.supports('any', 'DescribeTopicPartitions')))
  ) {
    return describeWithMetadata(client, unique);
  }
  const out = new Map<string, Outcome<TopicDescription>>();
  const pending = new Map<string, TopicDescription>();
  let remaining = unique;
  let cursor: { topicName: string; partitionIndex: number } | null = null;
  for (let page = 0; remaining.length > 0 && page < 1_000_000; page++) {
    const req: Record<string, unknown> = {
      topics: remaining.map((name) => ({ name })),
      responsePartitionLimit: opts.partitionLimit ?? 2000,
      cursor,
    };
    let resp;
    try {
      resp = await client.request<DescribeTopicPartitionsResponse>('any', 'DescribeTopicPartitions', req);
    } catch (e) {
      if (e instanceof UnsupportedApiError && page === 0) return describeWithMetadata(client, unique);
      throw e;
    }
    const body = resp.body;
    const next: { topicName: string; partitionIndex: number } | null = body.nextCursor ?? null;
    for (const t of body.topics) {
      if (t.name === null) continue; // only answers to topic ids carry no name, and we ask by name
      const name = t.name;
      if (t.errorCode !== 0) {
        out.set(name, { ok: false, error: new ApiError(t.errorCode) });
        continue;
      }
      const parts: PartitionInfo[] = t.partitions.map((p) => ({
        partition: p.partitionIndex,
        leader: p.leaderId >= 0 ? p.leaderId : null,
        leaderEpoch: p.leaderEpoch,
        replicas: p.replicaNodes,
        isr: p.isrNodes,
        elr: p.eligibleLeaderReplicas ?? [],
        lastKnownElr: p.lastKnownElr ?? [],
        offline: p.offlineReplicas,
      }));
      const acc = pending.get(name);
      if (acc) acc.partitions.push(...parts);
      else pending.set(name, { name, topicId: t.topicId, internal: t.isInternal, partitions: parts });
    }
    // Every topic except the cursor topic is complete.
    for (const [name, d] of pending) {
      if (next && next.topicName === name) continue;
      d.partitions.sort((a, b) => a.partition - b.partition);
      out.set(name, { ok: true, value: d });
      pending.delete(name);
    }
    if (!next) {
      for (const name of unique)
        if (!out.has(name)) out.set(name, { ok: false, error: new ApiError(3, `Topic ${name} not found.`) });
      break;
    }
    cursor = next;
    remaining = unique.filter((n) => !out.has(n) && n >= next.topicName);
  }
  return out;
}

/** Describes topics by id (Metadata by topic id, as Kafka does). */
export async function describeTopicsById(
  client: KafkaClient,
  ids: string[],
): Promise<Map<string, Outcome<TopicDescription>>> {
  const out = new Map<string, Outcome<TopicDescription>>();
  const resp = await client.request<MetadataResponse>(
    'any',
    'Metadata',
    { topics: ids.map((topicId) => ({ topicId, name: null })), allowAutoTopicCreation: false },
    { minVersion: 10 },
  );
  for (const id of ids) {
    const t = resp.body.topics.find((x) => x.topicId === id);
    if (!t || t.name == null) out.set(id, { ok: false, error: new ApiError(100, `TopicId ${id} not found.`) });
    else if (t.errorCode !== 0) out.set(id, { ok: false, error: new ApiError(t.errorCode) });
    else {
      out.set(id, {
        ok: true,
        value: fromMetadata({
          name: t.name,
          topicId: t.topicId,
          internal: t.isInternal,
          errorCode: 0,
          partitions: t.partitions
            .map((p) => ({
              partition: p.partitionIndex,
              errorCode: p.errorCode,
              leader: p.leaderId,
              leaderEpoch: p.leaderEpoch,
              replicas: p.replicaNodes,
              isr: p.isrNodes,
              offline: p.offlineReplicas,
            }))
            .sort((a, b) => a.partition - b.partition),
        }),
      });
    }
  }
  return out;
}

export interface NewTopic {
  name: string;
  /** -1 = broker default. */
  numPartitions?: number;
  replicationFactor?: number;
  /** partition → broker ids. */
  assignments?: Map<number, number[]>;
  configs?: Map<string, string>;
}

export interface CreatedTopic {
  topicId: string;
  numPartitions: number;
  replicationFactor: number;
}

const QUOTA_EXCEEDED = 89;

/**
 * Sends one request for a batch of named items to the controller, retrying only the items that
 * failed with a retriable error (quota violations are not retried, like `retryOnQuotaViolation(false)`).
 */
async function controllerBatch<T>(
  client: KafkaClient,
  what: string,
  names: string[],
  send: (pending: string[]) => Promise<Map<string, { code: number; message: string | null; value?: T }>>,
): Promise<Map<string, Outcome<T>>> {
  const out = new Map<string, Outcome<T>>();
  let pending = [...names];
  await client
    .call(what, async () => {
      const results = await send(pending);
      const retry: string[] = [];
      let firstRetriable: ApiError | null = null;
      for (const name of pending) {
        const r = results.get(name);
        if (!r) {
          out.set(name, { ok: false, error: new ApiError(-1, `The response did not include ${name}`) });
          continue;
        }
        if (r.code === 0) {
          out.set(name, { ok: true, value: r.value as T });
          continue;
        }
        const err = new ApiError(r.code, r.message);
        if (err.retriable && r.code !== QUOTA_EXCEEDED) {
          retry.push(name);
          firstRetriable ??= err;
        } else out.set(name, { ok: false, error: err });
      }
      pending = retry;
      if (firstRetriable) throw firstRetriable;
    })
    .catch((e: unknown) => {
      for (const name of pending) out.set(name, { ok: false, error: e as Error });
    });
  return out;
}

export async function createTopics(
  client: KafkaClient,
  topics: NewTopic[],
  opts: { validateOnly?: boolean } = {},
): Promise<Map<string, Outcome<CreatedTopic>>> {
  const byName = new Map(topics.map((t) => [t.name, t]));
  return controllerBatch<CreatedTopic>(client, 'createTopics', [...byName.keys()], async (pending) => {
    const resp = await client.send<CreateTopicsResponse>('controller', 'CreateTopics', {
      topics: pending.map((name) => {
        const t = byName.get(name)!;
        return {
          name,
          numPartitions: t.assignments?.size ? -1 : (t.numPartitions ?? -1),
          replicationFactor: t.assignments?.size ? -1 : (t.replicationFactor ?? -1),
          assignments: [...(t.assignments ?? new Map<number, number[]>())].map(([partitionIndex, brokerIds]) => ({
            partitionIndex,
            brokerIds,
          })),
          configs: [...(t.configs ?? new Map<string, string>())].map(([k, value]) => ({ name: k, value })),
        };
      }),
      timeoutMs: client.config.requestTimeoutMs,
      validateOnly: opts.validateOnly ?? false,
    });
    const m = new Map<string, { code: number; message: string | null; value?: CreatedTopic }>();
    for (const r of resp.body.topics) {
      m.set(r.name, {
        code: r.errorCode,
        message: r.errorMessage,
        value: { topicId: r.topicId, numPartitions: r.numPartitions, replicationFactor: r.replicationFactor },
      });
    }
    return m;
  });
}

/** Increases partition counts; `assignments` lists the new partitions' replicas. */
export async function createPartitions(
  client: KafkaClient,
  increases: Map<string, { totalCount: number; assignments?: number[][] }>,
): Promise<Map<string, Outcome<void>>> {
  return controllerBatch<void>(client, 'createPartitions', [...increases.keys()], async (pending) => {
    const resp = await client.send<CreatePartitionsResponse>('controller', 'CreatePartitions', {
      topics: pending.map((name) => {
        const inc = increases.get(name)!;
        return {
          name,
          count: inc.totalCount,
          assignments: inc.assignments ? inc.assignments.map((brokerIds) => ({ brokerIds })) : null,
        };
      }),
      timeoutMs: client.config.requestTimeoutMs,
      validateOnly: false,
    });
    return new Map(resp.body.results.map((r) => [r.name, { code: r.errorCode, message: r.errorMessage }]));
  });
}

export async function deleteTopics(client: KafkaClient, names: string[]): Promise<Map<string, Outcome<void>>> {
  return controllerBatch<void>(client, 'deleteTopics', names, async (pending) => {
    const resp = await client.send<DeleteTopicsResponse>('controller', 'DeleteTopics', (v: number) =>
      v >= 6
        ? { topics: pending.map((name) => ({ name, topicId: ZERO_UUID })), timeoutMs: client.config.requestTimeoutMs }
        : { topicNames: pending, timeoutMs: client.config.requestTimeoutMs },
    );
    return new Map(
      resp.body.responses.map((r) => [r.name ?? '', { code: r.errorCode, message: r.errorMessage ?? null }]),
    );
  });
}

export interface PartitionReassignment {
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/**
 * Ongoing reassignments, keyed `topic-partition`; `null` partitions = all. `target`: where the
 * request goes (the controller through the brokers by default; 'any' on a client bootstrapped at
 * the active controller).
 */
export async function listPartitionReassignments(
  client: KafkaClient,
  partitions: { topic: string; partition: number }[] | null,
  target: Target = 'controller',
): Promise<Map<string, PartitionReassignment>> {
  let topics: { name: string; partitionIndexes: number[] }[] | null = null;
  if (partitions) {
    const grouped = new Map<string, number[]>();
    for (const p of partitions) grouped.set(p.topic, [...(grouped.get(p.topic) ?? []), p.partition]);
    topics = [...grouped].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
  }
  const resp = await client.call('listPartitionReassignments', async () => {
    const r = await client.send<ListPartitionReassignmentsResponse>(target, 'ListPartitionReassignments', {
      timeoutMs: client.config.requestTimeoutMs,
      topics,
    });
    if (r.body.errorCode !== 0) throw new ApiError(r.body.errorCode, r.body.errorMessage);
    return r;
  });
  const out = new Map<string, PartitionReassignment>();
  for (const t of resp.body.topics) {
    for (const p of t.partitions) {
      out.set(`${t.name}-${p.partitionIndex}`, {
        replicas: p.replicas,
        addingReplicas: p.addingReplicas,
        removingReplicas: p.removingReplicas,
      });
    }
  }
  return out;
}
