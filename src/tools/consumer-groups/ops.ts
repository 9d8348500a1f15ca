// `tkafka consumer-groups` --list, --delete, --delete-offsets and --validate-regex, as
// ConsumerGroupCommand prints them (text), plus json and table renderings.
import type { ToolIO } from '../common/io.js';
import type { OutputFormat } from '../common/output.js';
import { tpKey, type TopicPartition } from '../../client/admin/groups.js';
import {
  CommandError,
  UsageError,
  groupIds,
  hashMapOrder,
  javaMessage,
  pad,
  parseTopicWithPartitions,
  printError,
  stringOrder,
  type GroupsContext,
} from './format.js';

const VALID_STATES = [
  'Dead',
  'Reconciling',
  'CompletingRebalance',
  'Assigning',
  'Empty',
  'Stable',
  'PreparingRebalance',
];
// Kafka 4.4: consumer and classic only (4.0 listed Share as well).
const VALID_TYPES = ['Consumer', 'Classic'];

export async function listGroups(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const { listConsumerGroups, parseGroupState, parseGroupType } = await import('../../client/admin/groups.js');
  const includeType = opts.has('type');
  const includeState = opts.has('state');
  const stateArg = opts.string('state') ?? '';
  const typeArg = opts.string('type') ?? '';
  let states: string[] = [];
  let types: string[] = [];
  if (includeType || includeState) {
    if (typeArg !== '') {
      types = [
        ...new Set(
          typeArg
            .toLowerCase()
            .split(',')
            .map((s) => parseGroupType(s.trim())),
        ),
      ];
      if (types.some((t) => !VALID_TYPES.includes(t)))
        throw new UsageError(`Invalid types list '${typeArg}'. Valid types are: ${VALID_TYPES.join(', ')}`);
    }
    if (stateArg !== '') {
      states = [...new Set(stateArg.split(',').map((s) => parseGroupState(s.trim())))];
      if (states.some((s) => s === 'Unknown'))
        throw new UsageError(`Invalid state list '${stateArg}'. Valid states are: ${VALID_STATES.join(', ')}`);
    }
  }
  let groups;
  try {
    groups = await listConsumerGroups(ctx.client, { states, types });
  } catch (e) {
    throw new CommandError(`java.util.concurrent.ExecutionException: ${javaMessage(e)}`, { cause: e });
  }
  // Kafka prints the listings in the order of the Admin client's HashMap.
  const byId = new Map(groups.map((g) => [g.groupId, g]));
  groups = stringOrder(groups.map((g) => g.groupId)).map((id) => byId.get(id)!);
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, {
      groups: groups.map((g) => ({ group: g.groupId, type: g.type, state: g.state, protocolType: g.protocolType })),
    });
    return;
  }
  if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(
      io,
      ['GROUP', 'TYPE', 'STATE'],
      groups.map((g) => [g.groupId, g.type ?? 'Unknown', g.state ?? 'Unknown']),
    );
    return;
  }
  if (!includeType && !includeState) {
    io.stdout.write(groups.map((g) => `${g.groupId}\n`).join(''));
    return;
  }
  const width = Math.max(15, ...groups.map((g) => g.groupId.length)) + 10;
  const line = (id: string, type: string, state: string): string =>
    pad(id, width) + (includeType ? ` ${pad(type, 20)}` : '') + (includeState ? ` ${pad(state, 20)}` : '') + '\n';
  let out = line('GROUP', 'TYPE', 'STATE');
  for (const g of groups) out += line(g.groupId, g.type ?? 'Unknown', g.state ?? 'Unknown');
  io.stdout.write(out);
}

export async function deleteGroups(ctx: GroupsContext): Promise<void> {
  const { io, format } = ctx;
  const { deleteConsumerGroups } = await import('../../client/admin/groups.js');
  const ids = await groupIds(ctx);
  const results = await deleteConsumerGroups(ctx.client, ids);
  const order = stringOrder(ids);
  const ok = order.filter((g) => results.get(g)?.ok);
  const failed = order.filter((g) => !results.get(g)?.ok);
  if (format !== 'text') {
    const rows = order.map((g) => {
      const r = results.get(g)!;
      return { group: g, deleted: r.ok, error: r.ok ? null : javaMessage(r.error) };
    });
    if (failed.length > 0) ctx.failed = true;
    const { writeJson, writeTable } = await import('../common/output.js');
    if (format === 'json') writeJson(io, { groups: rows });
    else
      await writeTable(
        io,
        ['GROUP', 'DELETED', 'ERROR'],
        rows.map((r) => [r.group, r.deleted, r.error ?? '']),
      );
    return;
  }
  if (failed.length === 0) {
    io.stdout.write(`Deletion of requested consumer groups ('${ok.join(', ')}') was successful.\n`);
    return;
  }
  printError(ctx, 'Deletion of some consumer groups failed:');
  for (const g of failed) {
    const r = results.get(g)!;
    io.stdout.write(`* Group '${g}' could not be deleted due to: ${r.ok ? '' : javaMessage(r.error)}\n`);
  }
  if (ok.length > 0) io.stdout.write(`\nThese consumer groups were deleted successfully: '${ok.join("'")}', '\n`);
}

const TOP_LEVEL: Record<number, (g: string) => string> = {
  // Kafka 4.4: the error's default message (Errors.message()) for group-level errors.
  24: () => 'The configured groupId is invalid.',
  69: () => 'The group id does not exist.',
  30: () => 'Group authorization failed.',
  68: () => 'The group is not empty.',
  86: () => 'Encountered some partition-level error, see the follow-up details.',
  29: () => 'Encountered some partition-level error, see the follow-up details.',
  3: () => 'Encountered some partition-level error, see the follow-up details.',
};

export async function deleteOffsets(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const { deleteConsumerGroupOffsets } = await import('../../client/admin/groups.js');
  const { describeTopics } = await import('../../client/admin/topics.js');
  const group = opts.string('group')!;
  const topics = opts.valuesOf('topic').map(String);
  const partitionErrors = new Map<string, { tp: TopicPartition; error: Error | null }>();
  const known = [...new Set(topics.filter((t) => t.includes(':')))].flatMap(parseTopicWithPartitions);
  const plain = [...new Set(topics.filter((t) => !t.includes(':')))];
  const partitions = new Map<string, TopicPartition>(known.map((tp) => [tpKey(tp), tp]));
  if (plain.length > 0) {
    const described = await describeTopics(ctx.client, plain);
    for (const t of plain) {
      const r = described.get(t);
      if (r && r.ok)
        for (const p of r.value.partitions)
          partitions.set(tpKey({ topic: t, partition: p.partition }), { topic: t, partition: p.partition });
      else
        partitionErrors.set(tpKey({ topic: t, partition: -1 }), {
          tp: { topic: t, partition: -1 },
          error: r && !r.ok ? r.error : new Error(`Topic ${t} not found`),
        });
    }
  }
  const result = await deleteConsumerGroupOffsets(ctx.client, group, [...partitions.values()]);
  for (const [key, tp] of partitions) {
    const r = result.partitions.get(key);
    partitionErrors.set(key, { tp, error: r && r.ok ? null : r ? r.error : new Error('no result') });
  }
  const top = result.topLevel;
  let message: string | null = null;
  if (top) message = (TOP_LEVEL[top.code] ?? (() => `Encountered some unknown error: ${top.errorName}`))(group);
  const rows = [...partitionErrors.values()].sort((a, b) => {
    const ka = a.tp.topic + a.tp.partition;
    const kb = b.tp.topic + b.tp.partition;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const status = (e: Error | null): string => (e === null ? 'Successful' : `Error: ${javaMessage(e)}`);
  if (format !== 'text') {
    if (message) ctx.failed = true;
    const { writeJson, writeTable } = await import('../common/output.js');
    if (format === 'json') {
      writeJson(io, {
        group,
        error: message,
        partitions: rows.map((r) => ({
          topic: r.tp.topic,
          partition: r.tp.partition >= 0 ? r.tp.partition : null,
          status: r.error ? 'Error' : 'Successful',
          error: r.error ? javaMessage(r.error) : null,
        })),
      });
    } else
      await writeTable(
        io,
        ['TOPIC', 'PARTITION', 'STATUS'],
        rows.map((r) => [r.tp.topic, r.tp.partition >= 0 ? r.tp.partition : '-', status(r.error)]),
      );
    return;
  }
  if (message === null) io.stdout.write(`Request succeeded for deleting offsets from group ${group}.\n`);
  else printError(ctx, message);
  // Kafka 4.4: "%n%-Ts %-10s %-15s", T the longest topic name, at least 15; "-" for no partition.
  const tw = Math.max(15, ...rows.map((r) => r.tp.topic.length));
  const line = (t: string, p: string | number, s: string): string => `\n${pad(t, tw)} ${pad(p, 10)} ${pad(s, 15)}`;
  let out = line('TOPIC', 'PARTITION', 'STATUS');
  for (const r of rows) out += line(r.tp.topic, r.tp.partition >= 0 ? r.tp.partition : '-', status(r.error));
  io.stdout.write(out + '\n');
}

/** --validate-regex (Kafka checks RE2 syntax; tkafka checks it as a JavaScript regular expression). */
export function validateRegex(regex: string, io: ToolIO, format: OutputFormat): void {
  let error: string | null = null;
  try {
    new RegExp(regex, 'u');
  } catch (e) {
    error = (e as Error).message.replace(/^Invalid regular expression: \/.*\/u?: /, '');
  }
  if (format === 'json') io.stdout.write(JSON.stringify({ regex, valid: error === null, error }, null, 2) + '\n');
  else if (error === null) io.stdout.write(`The regular expression \`${regex}\` is valid.\n`);
  else io.stdout.write(`The regular expression \`${regex}\` is invalid: ${error}.\n`);
}

export { hashMapOrder };
