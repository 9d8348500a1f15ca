// Shared pieces of `tkafka consumer-groups`: the run context (client, options, where Kafka's
// messages go, whether an error was reported), Java printf-style padding, and the iteration order
// of the Java HashMaps Kafka prints from (so rows come out in the order Kafka prints them).
import type { ToolIO } from '../common/io.js';
import type { KafkaClient } from '../../client/client.js';
import type { JoptOptions } from '../common/jopt.js';
import type { OutputFormat } from '../common/output.js';
import { JavaHashMapOrder, javaStringHash } from '../topics/java-order.js';
import type { TopicPartition } from '../../client/admin/groups.js';

/** A usage error raised while running (Kafka's IllegalArgumentException / printUsageAndExit): message + help, exit 1. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A failure of the command (Kafka: `Error: Executing consumer group command failed due to <message>`). */
export class CommandError extends Error {
  override name = 'CommandError';
}

export interface GroupsContext {
  client: KafkaClient;
  opts: JoptOptions;
  io: ToolIO;
  format: OutputFormat;
  /** Set when an `Error: ...` line was reported: the run then exits 1. */
  failed: boolean;
}

/** ConsumerGroupCommand.printError: `\nError: <msg>` on stdout (text output only). */
export function printError(ctx: GroupsContext, msg: string): void {
  ctx.failed = true;
  if (ctx.format === 'text') ctx.io.stdout.write(`\nError: ${msg}\n`);
  else ctx.io.stderr.write(`Error: ${msg}\n`);
}

/** Java's `%-Ns`. */
export const pad = (s: string | number | bigint, width: number): string => String(s).padEnd(width);

/** Java's TopicPartition.hashCode(). */
export function topicPartitionHash(tp: TopicPartition): number {
  return (Math.imul(31, 31 + tp.partition) + javaStringHash(tp.topic)) | 0;
}

/** The iteration order of a default `new HashMap<>()` filled with `items` in order. */
export function hashMapOrder<T>(items: readonly T[], hash: (t: T) => number): T[] {
  const m = new JavaHashMapOrder<T>(hash);
  for (const t of items) m.put(t);
  return m.keys();
}

export const tpOrder = <T extends { tp: TopicPartition }>(items: readonly T[]): T[] =>
  hashMapOrder(items, (x) => topicPartitionHash(x.tp));
export const stringOrder = (items: readonly string[]): string[] => hashMapOrder([...new Set(items)], javaStringHash);

/** jopt's conversion of a Long argument (done when the command reads it). */
export function longOption(opts: JoptOptions, name: string): bigint | undefined {
  const v = opts.string(name);
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v) || BigInt(v) < -(2n ** 63n) || BigInt(v) >= 2n ** 63n)
    throw new CommandError(`Cannot parse argument '${v}' of option ${name}`);
  return BigInt(v);
}

/** Group ids: --group values (in order, duplicates kept) or every consumer group with --all-groups. */
export async function groupIds(ctx: GroupsContext): Promise<string[]> {
  if (ctx.opts.has('all-groups')) {
    const { listConsumerGroups } = await import('../../client/admin/groups.js');
    return (await listConsumerGroups(ctx.client)).map((g) => g.groupId);
  }
  return ctx.opts.valuesOf('group').map(String);
}

/** The exception text Kafka prints for an Admin failure (`org.apache.kafka.common.errors.X: msg`). */
export function javaMessage(e: unknown): string {
  const j = e as { javaString?: () => string };
  if (e instanceof Error && typeof j.javaString === 'function') return j.javaString();
  return e instanceof Error ? e.message : String(e);
}

/** Kafka's ConsumerGroupCommand.parseTopicsWithPartitions (`topic:0,1,2`). */
export function parseTopicWithPartitions(arg: string): TopicPartition[] {
  const arr = javaSplit(arg, ':');
  if (arr.length !== 2) throw new UsageError(`Invalid topic arg '${arg}', expected topic name and partitions`);
  const [topic, partitions] = arr as [string, string];
  return javaSplit(partitions, ',').map((p) => {
    if (!/^[+-]?\d+$/.test(p) || Math.abs(Number(p)) > 2147483647 || Number(p) < -2147483648) {
      throw new UsageError(`Invalid partition '${p}' specified in topic arg '${arg}''`);
    }
    return { topic, partition: Number(p) };
  });
}

/** Java's String.split(regex-free separator): trailing empty strings removed. */
export function javaSplit(s: string, sep: string): string[] {
  const parts = s.split(sep);
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 1 && parts[0] === '' && s.length > 0) return [];
  return parts;
}

/** Partitions of topics by name (all partitions), failing like Admin.describeTopics().allTopicNames(). */
export async function topicPartitionsOf(ctx: GroupsContext, topics: string[]): Promise<TopicPartition[]> {
  if (topics.length === 0) return [];
  const { describeTopics } = await import('../../client/admin/topics.js');
  const described = await describeTopics(ctx.client, topics);
  const out: TopicPartition[] = [];
  for (const t of [...new Set(topics)]) {
    const r = described.get(t);
    if (!r) continue;
    if (!r.ok) throw r.error;
    for (const p of r.value.partitions) out.push({ topic: t, partition: p.partition });
  }
  return out;
}
