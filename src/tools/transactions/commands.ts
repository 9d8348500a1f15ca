// The five kafka-transactions commands (TransactionsCommand's inner classes): what each asks the
// cluster, how it decides (abort --start-offset, find-hanging's candidate filter) and what it
// prints — Kafka's text tables, or JSON / cli-table3 with --output.
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import { describeTopics, listTopics } from '../../client/admin/topics.js';
import { ApiError } from '../../client/errors.js';
import type { Namespace } from '../common/argparse.js';
import { type OutputFormat, writeJson, writeTable } from '../common/output.js';
import {
  abortSpecString,
  abortTransaction,
  type AbortTransactionSpec,
  describeProducers,
  describeTransaction,
  forceTerminateTransaction,
  listTransactions,
  type ProducerState,
} from './admin.js';

export interface CommandContext {
  client: KafkaClient;
  io: ToolIO;
  format: OutputFormat;
  now: () => number;
}

/** A failure the tool reports as one line on stderr (exit 1). */
export class TxnToolError extends Error {
  override name = 'ToolError';
}

const MAX_BATCH_SIZE = 500;

/** TransactionsCommand.printErrorAndExit(message, cause). */
function failure(message: string, cause: unknown): TxnToolError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new TxnToolError(`${message}: ${detail}. Enable debug logging for additional detail.`);
}

/** ToolsUtils.prettyPrintTable: cells padded to the column width, each followed by a TAB. */
export function prettyPrintTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]): string => r.map((c, i) => c.padEnd(widths[i]!) + '\t').join('');
  return [headers, ...rows].map(line).join('\n') + '\n';
}

async function emit(
  ctx: CommandContext,
  headers: readonly string[],
  rows: string[][],
  json: () => unknown,
): Promise<number> {
  if (ctx.format === 'json') writeJson(ctx.io, json());
  else if (ctx.format === 'table') await writeTable(ctx.io, [...headers], rows);
  else ctx.io.stdout.write(prettyPrintTable(headers, rows));
  return 0;
}

const num = (v: bigint | number | null): number | string | null =>
  v === null
    ? null
    : typeof v === 'bigint' && (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
      ? v.toString()
      : Number(v);

// ------------------------------------------------------------------ list

export const LIST_HEADERS = ['TransactionalId', 'Coordinator', 'ProducerId', 'TransactionState'];

export async function runList(ctx: CommandContext, ns: Namespace): Promise<number> {
  const filter = ns.duration_filter as bigint | null;
  let result;
  try {
    result = await listTransactions(ctx.client, {
      durationFilterMs: filter === null || filter === undefined ? undefined : Number(filter),
      transactionalIdPattern: (ns.transactional_id_pattern as string | null | undefined) ?? undefined,
    });
  } catch (e) {
    throw failure('Failed to list transactions', e);
  }
  const rows: string[][] = [];
  for (const [broker, listings] of result)
    for (const l of listings) rows.push([l.transactionalId, String(broker), String(l.producerId), l.state]);
  return emit(ctx, LIST_HEADERS, rows, () => ({
    transactions: rows.map((r) => ({
      transactionalId: r[0],
      coordinator: Number(r[1]),
      producerId: num(BigInt(r[2]!)),
      transactionState: r[3],
    })),
  }));
}

// ------------------------------------------------------------------ describe

export const DESCRIBE_HEADERS = [
  'CoordinatorId',
  'TransactionalId',
  'ProducerId',
  'ProducerEpoch',
  'TransactionState',
  'TransactionTimeoutMs',
  'CurrentTransactionStartTimeMs',
  'TransactionDurationMs',
  'TopicPartitions',
];

export async function runDescribe(ctx: CommandContext, ns: Namespace): Promise<number> {
  const id = ns.transactional_id as string;
  let d;
  try {
    d = await describeTransaction(ctx.client, id);
  } catch (e) {
    throw failure(`Failed to describe transaction state of transactional-id \`${id}\``, e);
  }
  const start = d.transactionStartTimeMs;
  const duration = start === null ? null : ctx.now() - Number(start);
  const partitions = d.topicPartitions.map((tp) => `${tp.topic}-${tp.partition}`);
  const row = [
    String(d.coordinatorId),
    id,
    String(d.producerId),
    String(d.producerEpoch),
    d.state,
    String(d.transactionTimeoutMs),
    start === null ? 'None' : String(start),
    duration === null ? 'None' : String(duration),
    partitions.join(','),
  ];
  return emit(ctx, DESCRIBE_HEADERS, [row], () => ({
    coordinatorId: d.coordinatorId,
    transactionalId: id,
    producerId: num(d.producerId),
    producerEpoch: d.producerEpoch,
    transactionState: d.state,
    transactionTimeoutMs: d.transactionTimeoutMs,
    currentTransactionStartTimeMs: num(start),
    transactionDurationMs: duration,
    topicPartitions: partitions,
  }));
}

// ------------------------------------------------------------------ describe-producers

export const PRODUCER_HEADERS = [
  'ProducerId',
  'ProducerEpoch',
  'LatestCoordinatorEpoch',
  'LastSequence',
  'LastTimestamp',
  'CurrentTransactionStartOffset',
];

export async function runDescribeProducers(ctx: CommandContext, ns: Namespace): Promise<number> {
  const topic = ns.topic as string;
  const partition = ns.partition as number;
  const brokerId = (ns.broker_id as number | null) ?? undefined;
  const where = brokerId === undefined ? 'leader' : `broker ${brokerId}`;
  let producers: ProducerState[];
  try {
    const r = (await describeProducers(ctx.client, [{ topic, partition }], brokerId)).get(`${topic}-${partition}`);
    if (!r) throw new ApiError(-1, 'no result for the partition');
    if (!r.ok) throw r.error;
    producers = r.producers;
  } catch (e) {
    throw failure(`Failed to describe producers for partition ${topic}-${partition} on ${where}`, e);
  }
  const rows = producers.map((p) => [
    String(p.producerId),
    String(p.producerEpoch),
    String(p.coordinatorEpoch ?? -1),
    String(p.lastSequence),
    String(p.lastTimestamp),
    p.currentTransactionStartOffset === null ? 'None' : String(p.currentTransactionStartOffset),
  ]);
  return emit(ctx, PRODUCER_HEADERS, rows, () => ({
    topic,
    partition,
    producers: producers.map((p) => ({
      producerId: num(p.producerId),
      producerEpoch: p.producerEpoch,
      latestCoordinatorEpoch: p.coordinatorEpoch ?? -1,
      lastSequence: p.lastSequence,
      lastTimestamp: num(p.lastTimestamp),
      currentTransactionStartOffset: num(p.currentTransactionStartOffset),
    })),
  }));
}

// ------------------------------------------------------------------ forceTerminateTransaction

/** ForceTerminateTransactionsCommand: Admin.forceTerminateTransaction; prints nothing on success. */
export async function runForceTerminate(ctx: CommandContext, ns: Namespace): Promise<number> {
  const id = ns.transactionalId as string;
  try {
    await forceTerminateTransaction(ctx.client, id);
  } catch (e) {
    throw failure(`Failed to force terminate transactionalId \`${id}\``, e);
  }
  return 0;
}

// ------------------------------------------------------------------ abort

export async function runAbort(ctx: CommandContext, ns: Namespace): Promise<number> {
  const topic = ns.topic as string;
  const partition = ns.partition as number;
  const tp = `${topic}-${partition}`;
  const startOffset = ns.start_offset as bigint | null;
  const producerId = ns.producer_id as bigint | null;
  if (startOffset === null && producerId === null) {
    throw new TxnToolError(
      'The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)',
    );
  }
  let spec: AbortTransactionSpec;
  if (startOffset === null) {
    const producerEpoch = ns.producer_epoch as number | null;
    if (producerEpoch === null) throw new TxnToolError('Missing required argument --producer-epoch');
    let coordinatorEpoch = ns.coordinator_epoch as number | null;
    if (coordinatorEpoch === null) throw new TxnToolError('Missing required argument --coordinator-epoch');
    if (coordinatorEpoch < 0) coordinatorEpoch = 0;
    spec = { topic, partition, producerId: producerId!, producerEpoch, coordinatorEpoch };
  } else {
    let producers: ProducerState[];
    try {
      const r = (await describeProducers(ctx.client, [{ topic, partition }])).get(tp);
      if (!r) throw new ApiError(-1, 'no result for the partition');
      if (!r.ok) throw r.error;
      producers = r.producers;
    } catch (e) {
      throw failure(`Failed to validate producer state for partition ${tp}`, e);
    }
    const found = producers.find(
      (p) => p.currentTransactionStartOffset !== null && p.currentTransactionStartOffset === startOffset,
    );
    if (!found)
      throw new TxnToolError(
        `Could not find any open transactions starting at offset ${startOffset} on partition ${tp}`,
      );
    spec = {
      topic,
      partition,
      producerId: found.producerId,
      producerEpoch: found.producerEpoch,
      coordinatorEpoch: found.coordinatorEpoch ?? 0,
    };
  }
  try {
    await abortTransaction(ctx.client, spec);
  } catch (e) {
    throw failure(`Failed to abort transaction ${abortSpecString(spec)}`, e);
  }
  return 0;
}

// ------------------------------------------------------------------ find-hanging

export const HANGING_HEADERS = [
  'Topic',
  'Partition',
  'ProducerId',
  'ProducerEpoch',
  'CoordinatorEpoch',
  'StartOffset',
  'LastTimestamp',
  'Duration(min)',
];

interface OpenTransaction {
  topic: string;
  partition: number;
  producer: ProducerState;
}

function batches<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

async function partitionsToSearch(
  ctx: CommandContext,
  topic: string | undefined,
  partition: number | undefined,
  brokerId: number | undefined,
): Promise<{ topic: string; partition: number }[]> {
  if (topic !== undefined && partition !== undefined) return [{ topic, partition }];
  let topics: string[];
  if (topic !== undefined) topics = [topic];
  else {
    try {
      topics = (await listTopics(ctx.client, { listInternal: true })).map((t) => t.name);
    } catch (e) {
      throw failure('Failed to list topics', e);
    }
  }
  const out: { topic: string; partition: number }[] = [];
  for (const batch of batches(topics, MAX_BATCH_SIZE)) {
    let described;
    try {
      described = await describeTopics(ctx.client, batch);
      for (const name of batch) {
        const d = described.get(name);
        if (d && !d.ok) throw d.error;
      }
    } catch (e) {
      throw failure(`Failed to describe ${batch.length} topics`, e);
    }
    for (const name of batch) {
      const d = described.get(name);
      if (!d || !d.ok) continue;
      for (const p of d.value.partitions)
        if (brokerId === undefined || p.replicas.includes(brokerId)) out.push({ topic: name, partition: p.partition });
    }
  }
  return out;
}

export async function runFindHanging(ctx: CommandContext, ns: Namespace): Promise<number> {
  const brokerId = (ns.broker_id as number | null) ?? undefined;
  const topic = (ns.topic as string | null) ?? undefined;
  const partition = (ns.partition as number | null) ?? undefined;
  if (topic === undefined && brokerId === undefined) {
    throw new TxnToolError(
      'The `find-hanging` command requires either --topic or --broker-id to limit the scope of the search',
    );
  }
  if (partition !== undefined && topic === undefined)
    throw new TxnToolError('The --partition argument requires --topic to be provided');
  const maxTimeoutMs = (ns.max_transaction_timeout as number) * 60_000;
  const search = await partitionsToSearch(ctx, topic, partition, brokerId);

  const candidates: OpenTransaction[] = [];
  for (const batch of batches(search, MAX_BATCH_SIZE)) {
    try {
      const r = await describeProducers(ctx.client, batch, brokerId);
      const now = ctx.now();
      for (const tp of batch) {
        const res = r.get(`${tp.topic}-${tp.partition}`);
        if (!res) continue;
        if (!res.ok) throw res.error;
        for (const p of res.producers) {
          if (p.currentTransactionStartOffset !== null && now - Number(p.lastTimestamp) > maxTimeoutMs)
            candidates.push({ ...tp, producer: p });
        }
      }
    } catch (e) {
      throw failure(
        `Failed to describe producers for ${batch.length} partitions on broker ${brokerId === undefined ? 'Optional.empty' : `Optional[${brokerId}]`}`,
        e,
      );
    }
  }

  let hanging: OpenTransaction[] = [];
  if (candidates.length > 0) {
    const byPid = new Map<bigint, OpenTransaction[]>();
    for (const c of candidates) {
      let l = byPid.get(c.producer.producerId);
      if (!l) byPid.set(c.producer.producerId, (l = []));
      l.push(c);
    }
    const txnIds = new Map<bigint, string>();
    try {
      const listed = await listTransactions(ctx.client, { producerIds: [...byPid.keys()] });
      for (const l of listed.values())
        for (const t of l) if (byPid.has(t.producerId)) txnIds.set(t.producerId, t.transactionalId);
    } catch (e) {
      throw failure(`Failed to list transactions for ${byPid.size} producers`, e);
    }
    const descriptions = new Map<string, Set<string> | null>();
    const ids = [...new Set(txnIds.values())];
    try {
      await Promise.all(
        ids.map(async (id) => {
          try {
            const d = await describeTransaction(ctx.client, id);
            descriptions.set(id, new Set(d.topicPartitions.map((tp) => `${tp.topic}-${tp.partition}`)));
          } catch (e) {
            if (e instanceof ApiError && e.code === 105) descriptions.set(id, null);
            else throw e;
          }
        }),
      );
    } catch (e) {
      throw failure(`Failed to describe ${ids.length} transactions`, e);
    }
    for (const [pid, open] of byPid) {
      const id = txnIds.get(pid);
      const parts = id === undefined ? null : (descriptions.get(id) ?? null);
      if (parts === null) hanging.push(...open);
      else hanging.push(...open.filter((o) => !parts.has(`${o.topic}-${o.partition}`)));
    }
  }
  hanging = hanging.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  const now = ctx.now();
  const rows = hanging.map((h) => [
    h.topic,
    String(h.partition),
    String(h.producer.producerId),
    String(h.producer.producerEpoch),
    String(h.producer.coordinatorEpoch ?? -1),
    String(h.producer.currentTransactionStartOffset ?? -1),
    String(h.producer.lastTimestamp),
    String(Math.floor((now - Number(h.producer.lastTimestamp)) / 60_000)),
  ]);
  return emit(ctx, HANGING_HEADERS, rows, () => ({
    hangingTransactions: hanging.map((h) => ({
      topic: h.topic,
      partition: h.partition,
      producerId: num(h.producer.producerId),
      producerEpoch: h.producer.producerEpoch,
      coordinatorEpoch: h.producer.coordinatorEpoch ?? -1,
      startOffset: num(h.producer.currentTransactionStartOffset ?? -1),
      lastTimestamp: num(h.producer.lastTimestamp),
      durationMinutes: Math.floor((now - Number(h.producer.lastTimestamp)) / 60_000),
    })),
  }));
}
