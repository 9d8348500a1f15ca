// `tkafka consumer-groups --reset-offsets`: ConsumerGroupCommand.resetOffsets with every scenario
// (--to-offset, --to-earliest, --to-latest, --to-current, --shift-by, --to-datetime, --by-duration,
// --from-file), the range check that clamps new offsets into [log start, log end], dry run (the
// default) or --execute (OffsetCommit), and the plan printed as Kafka's table, --export CSV, json
// or table. Only groups that are Empty or Dead (or do not exist) are reset.
import { readFileSync } from 'node:fs';
import type { TopicPartition } from '../../client/admin/groups.js';
import { tpKey } from '../../client/admin/groups.js';
import { parseDateTime, parseDuration } from './time.js';
import {
  CommandError,
  UsageError,
  groupIds,
  javaMessage,
  longOption,
  pad,
  parseTopicWithPartitions,
  printError,
  stringOrder,
  topicPartitionsOf,
  tpOrder,
  type GroupsContext,
} from './format.js';
import { RESET_SCENARIOS } from './spec.js';

export interface PlannedOffset {
  tp: TopicPartition;
  offset: bigint;
}

export interface ResetPlan {
  group: string;
  error: string | null;
  offsets: PlannedOffset[];
}

const LOGGER = 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand';

function warn(ctx: GroupsContext, msg: string): void {
  const d = new Date();
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const ts = `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())},${p(d.getMilliseconds(), 3)}`;
  ctx.io.stderr.write(`[${ts}] WARN ${msg} (${LOGGER})\n`);
}

/** Offsets from ListOffsets; a failure fails the command as Kafka's `all().get()` does. */
async function logOffsets(ctx: GroupsContext, tps: TopicPartition[], spec: bigint): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (tps.length === 0) return out;
  const { listOffsets } = await import('../../client/admin/offsets.js');
  const r = await listOffsets(ctx.client, tps, spec);
  for (const tp of tps) {
    const o = r.get(tpKey(tp));
    if (!o) continue;
    if (!o.ok)
      throw new CommandError(`java.util.concurrent.ExecutionException: ${javaMessage(o.error)}`, { cause: o.error });
    out.set(tpKey(tp), o.value.offset);
  }
  return out;
}

async function committedOffsets(
  ctx: GroupsContext,
  group: string,
): Promise<Map<string, { tp: TopicPartition; offset: bigint | null }>> {
  const { listConsumerGroupOffsets } = await import('../../client/admin/groups.js');
  try {
    return await listConsumerGroupOffsets(ctx.client, group);
  } catch (e) {
    throw new CommandError(`java.util.concurrent.ExecutionException: ${javaMessage(e)}`, { cause: e });
  }
}

async function partitionsToReset(ctx: GroupsContext, group: string): Promise<TopicPartition[]> {
  const { opts } = ctx;
  if (opts.has('all-topics')) return tpOrder([...(await committedOffsets(ctx, group)).values()]).map((c) => c.tp);
  if (opts.has('topic')) {
    const args = opts.valuesOf('topic').map(String);
    const specified = args.filter((a) => a.includes(':')).flatMap(parseTopicWithPartitions);
    const plain = args.filter((a) => !a.includes(':'));
    return [...specified, ...(await topicPartitionsOf(ctx, plain))];
  }
  if (!opts.has('from-file')) throw new UsageError('One of the reset scopes should be defined: --all-topics, --topic.');
  return [];
}

/** ConsumerGroupCommand.checkOffsetsRange: clamps into [log start, log end], with Kafka's WARN lines. */
async function checkOffsetsRange(ctx: GroupsContext, requested: PlannedOffset[]): Promise<PlannedOffset[]> {
  const { OffsetSpec } = await import('../../client/admin/offsets.js');
  const tps = requested.map((r) => r.tp);
  const starts = await logOffsets(ctx, tps, OffsetSpec.EARLIEST);
  const ends = await logOffsets(ctx, tps, OffsetSpec.LATEST);
  return tpOrder(requested).map(({ tp, offset }) => {
    const end = ends.get(tpKey(tp));
    if (end === undefined)
      throw new CommandError(`Unexpected non-existing offset value for topic partition ${tpKey(tp)}`);
    if (offset > end) {
      warn(
        ctx,
        `New offset (${offset}) is higher than latest offset for topic partition ${tpKey(tp)}. Value will be set to ${end}`,
      );
      return { tp, offset: end };
    }
    const start = starts.get(tpKey(tp));
    if (start !== undefined && offset < start) {
      warn(
        ctx,
        `New offset (${offset}) is lower than earliest offset for topic partition ${tpKey(tp)}. Value will be set to ${start}`,
      );
      return { tp, offset: start };
    }
    return { tp, offset };
  });
}

async function byTimestamp(ctx: GroupsContext, tps: TopicPartition[], timestamp: bigint): Promise<PlannedOffset[]> {
  const { OffsetSpec } = await import('../../client/admin/offsets.js');
  const found = await logOffsets(ctx, tps, timestamp);
  const failed = tpOrder(tps.filter((tp) => (found.get(tpKey(tp)) ?? -1n) === -1n).map((tp) => ({ tp }))).map(
    (x) => x.tp,
  );
  for (const tp of failed) {
    if (ctx.format === 'text')
      ctx.io.stdout.write(
        `\nWarn: Partition ${tp.partition} from topic ${tp.topic} is empty. Falling back to latest known offset.\n`,
      );
  }
  const ends = await logOffsets(ctx, failed, OffsetSpec.LATEST);
  return tpOrder(tps.map((tp) => ({ tp, offset: ends.get(tpKey(tp)) ?? found.get(tpKey(tp))! })));
}

/** ConsumerGroupCommand.prepareOffsetsToReset. */
export async function prepareOffsets(
  ctx: GroupsContext,
  group: string,
  tps: TopicPartition[],
  plan: Map<string, PlannedOffset[]> | null,
): Promise<PlannedOffset[]> {
  const { opts } = ctx;
  const { OffsetSpec } = await import('../../client/admin/offsets.js');
  if (opts.has('to-offset')) {
    const offset = longOption(opts, 'to-offset')!;
    return checkOffsetsRange(
      ctx,
      tps.map((tp) => ({ tp, offset })),
    );
  }
  if (opts.has('to-earliest') || opts.has('to-latest')) {
    const offsets = await logOffsets(ctx, tps, opts.has('to-earliest') ? OffsetSpec.EARLIEST : OffsetSpec.LATEST);
    return tpOrder(
      tps.map((tp) => {
        const o = offsets.get(tpKey(tp));
        if (o === undefined)
          throw new UsageError(
            `Error getting ${opts.has('to-earliest') ? 'starting' : 'ending'} offset of topic partition: ${tpKey(tp)}`,
          );
        return { tp, offset: o };
      }),
    );
  }
  if (opts.has('shift-by')) {
    const committed = await committedOffsets(ctx, group);
    const shift = longOption(opts, 'shift-by')!;
    const requested = tps.map((tp) => {
      const c = committed.get(tpKey(tp));
      if (!c || c.offset === null)
        throw new UsageError(
          `Cannot shift offset for partition ${tpKey(tp)} since there is no current committed offset`,
        );
      return { tp, offset: c.offset + shift };
    });
    return checkOffsetsRange(ctx, requested);
  }
  if (opts.has('to-datetime')) return byTimestamp(ctx, tps, parseDateTime(opts.string('to-datetime')!));
  if (opts.has('by-duration'))
    return byTimestamp(ctx, tps, BigInt(Date.now()) - parseDuration(opts.string('by-duration')!));
  if (plan) {
    const forGroup = plan.get(group);
    if (!forGroup) {
      printError(ctx, `No reset plan for group ${group} found.`);
      return [];
    }
    return checkOffsetsRange(ctx, forGroup);
  }
  if (opts.has('to-current')) {
    const committed = await committedOffsets(ctx, group);
    const withCommitted = tps.filter((tp) => committed.has(tpKey(tp)));
    const out: PlannedOffset[] = withCommitted.map((tp) => {
      const c = committed.get(tpKey(tp))!;
      if (c.offset === null)
        throw new CommandError(`Expected a valid current offset for topic partition: ${tpKey(tp)}`);
      return { tp, offset: c.offset };
    });
    const without = tps.filter((tp) => !committed.has(tpKey(tp)));
    const ends = await logOffsets(ctx, without, OffsetSpec.LATEST);
    for (const tp of without) {
      const o = ends.get(tpKey(tp));
      if (o === undefined) throw new UsageError(`Error getting ending offset of topic partition: ${tpKey(tp)}`);
      out.push({ tp, offset: o });
    }
    return tpOrder(out);
  }
  const scenarios = RESET_SCENARIOS.map((s) => `[${s}]`).join(', ');
  throw new UsageError(`Option '[reset-offsets]' requires one of the following scenarios: [${scenarios}]`);
}

/** Parses a reset plan CSV (`topic,partition,offset` for a single --group, else `group,topic,partition,offset`). */
export function parseResetPlan(csv: string, singleGroup: string | null, file: string): Map<string, PlannedOffset[]> {
  const lines = csv.split('\n').map((l) => l.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const parsed = lines.map((l) => splitCsvLine(l));
  const numeric = (s: string | undefined, long: boolean): boolean =>
    s !== undefined &&
    /^[+-]?\d+$/.test(s.trim()) &&
    (long
      ? BigInt(s.trim()) < 2n ** 63n && BigInt(s.trim()) >= -(2n ** 63n)
      : Math.abs(Number(s.trim())) <= 2147483647);
  const isRow = (cols: string[] | null, n: number): boolean =>
    cols !== null && cols.length === n && numeric(cols[n - 2], false) && numeric(cols[n - 1], true);
  const oldFormat = singleGroup !== null && parsed.length > 0 && isRow(parsed[0]!, 3);
  const plan = new Map<string, PlannedOffset[]>();
  parsed.forEach((cols, i) => {
    if (lines[i]!.trim() === '') return;
    const n = oldFormat ? 3 : 4;
    if (!isRow(cols, n)) {
      throw new CommandError(
        `Malformed reset plan in ${file} at line ${i + 1}: '${lines[i]}' (expected ${oldFormat ? 'topic,partition,offset' : 'group,topic,partition,offset'})`,
      );
    }
    const c = cols!;
    const group = oldFormat ? singleGroup! : c[0]!;
    const [topic, partition, offset] = oldFormat ? c : c.slice(1);
    const list = plan.get(group) ?? [];
    const tp = { topic: topic!, partition: Number(partition!.trim()) };
    const existing = list.findIndex((x) => tpKey(x.tp) === tpKey(tp));
    if (existing >= 0) list.splice(existing, 1);
    list.push({ tp, offset: BigInt(offset!.trim()) });
    plan.set(group, list);
  });
  return plan;
}

/** One CSV record (Jackson's dialect: `,` separated, `"` quoted with `""` escapes); null when malformed. */
function splitCsvLine(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let cell = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else cell += line[i++];
      }
      if (i < line.length && line[i] !== ',') return null;
    } else {
      const j = line.indexOf(',', i);
      cell = line.slice(i, j < 0 ? line.length : j);
      i = j < 0 ? line.length : j;
    }
    out.push(cell);
    if (i >= line.length) return out;
    i++;
  }
}

/** A CSV cell as Jackson writes it (quoted only when needed). */
export function csvCell(s: string | number | bigint): string {
  const v = String(s);
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

export async function resetOffsets(ctx: GroupsContext): Promise<void> {
  const { opts } = ctx;
  const { describeConsumerGroups } = await import('../../client/admin/groups.js');
  const ids = await groupIds(ctx);
  const described = await describeConsumerGroups(ctx.client, ids);
  const groupArgs = opts.valuesOf('group').map(String);
  let plan: Map<string, PlannedOffset[]> | null = null;
  const execute = opts.has('execute') && !opts.has('dry-run');
  const results: ResetPlan[] = [];
  for (const group of stringOrder(ids)) {
    const d = described.get(group)!;
    let state: string;
    if (d.ok) state = d.value.state;
    else if ((d.error as { code?: number }).code === 69) state = 'Dead';
    else throw new CommandError(`java.util.concurrent.ExecutionException: ${javaMessage(d.error)}`, { cause: d.error });
    if (state !== 'Empty' && state !== 'Dead') {
      const msg = `Assignments can only be reset if the group '${group}' is inactive, but the current state is ${state}.`;
      printError(ctx, msg);
      results.push({ group, error: msg, offsets: [] });
      continue;
    }
    try {
      results.push(await resetInactiveGroup(ctx, group, groupArgs, plan, execute, (p) => (plan = p)));
    } catch (e) {
      // Kafka rethrows the Admin failure's cause: its message without the exception class.
      if (e instanceof UsageError || e instanceof CommandError || !(e instanceof Error)) throw e;
      throw new CommandError(e.message, { cause: e });
    }
  }
  await writeResults(ctx, results, groupArgs, execute);
}

async function resetInactiveGroup(
  ctx: GroupsContext,
  group: string,
  groupArgs: string[],
  plan: Map<string, PlannedOffset[]> | null,
  execute: boolean,
  setPlan: (p: Map<string, PlannedOffset[]>) => void,
): Promise<ResetPlan> {
  const { opts } = ctx;
  const { alterConsumerGroupOffsets } = await import('../../client/admin/groups.js');
  const tps = await partitionsToReset(ctx, group);
  if (plan === null && opts.has('from-file') && !RESET_SCENARIOS.some((s) => s !== 'from-file' && opts.has(s))) {
    const file = opts.string('from-file')!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CommandError(
        code === 'ENOENT'
          ? `java.nio.file.NoSuchFileException: ${file}`
          : `Cannot read ${file}: ${(e as Error).message}`,
      );
    }
    plan = parseResetPlan(text, groupArgs.length === 1 ? groupArgs[0]! : null, file);
    setPlan(plan);
  }
  const errorsBefore = ctx.failed;
  ctx.failed = false;
  const offsets = await prepareOffsets(ctx, group, tps, plan);
  const noPlan = ctx.failed;
  ctx.failed ||= errorsBefore;
  if (execute && offsets.length > 0) {
    const r = await alterConsumerGroupOffsets(ctx.client, group, offsets);
    for (const o of offsets) {
      const x = r.get(tpKey(o.tp));
      if (x && !x.ok) throw new CommandError(x.error.message, { cause: x.error });
    }
  }
  return { group, error: noPlan ? `No reset plan for group ${group} found.` : null, offsets };
}

async function writeResults(
  ctx: GroupsContext,
  results: ResetPlan[],
  groupArgs: string[],
  execute: boolean,
): Promise<void> {
  const { opts, io, format } = ctx;
  if (opts.has('export')) {
    const single = groupArgs.length === 1;
    const lines = results.flatMap((r) =>
      r.offsets.map(
        (o) =>
          (single ? [o.tp.topic, o.tp.partition, o.offset] : [r.group, o.tp.topic, o.tp.partition, o.offset])
            .map(csvCell)
            .join(',') + '\n',
      ),
    );
    io.stdout.write(lines.join('') + '\n');
    return;
  }
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, {
      execute,
      groups: results.map((r) => ({
        group: r.group,
        error: r.error,
        offsets: r.offsets.map((o) => ({ topic: o.tp.topic, partition: o.tp.partition, newOffset: o.offset })),
      })),
    });
    return;
  }
  if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(
      io,
      ['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'],
      results.flatMap((r) => r.offsets.map((o) => [r.group, o.tp.topic, o.tp.partition, o.offset])),
    );
    return;
  }
  // Kafka 4.4's GroupOffsetsResetter.printOffsetsToReset: "%n%-Gs %-Ts %-10s %s", G and T the longest
  // group id and topic name, at least 15.
  const gw = Math.max(15, ...results.map((r) => r.group.length));
  const tw = Math.max(15, ...results.flatMap((r) => r.offsets.map((o) => o.tp.topic.length)));
  const line = (g: string, t: string, p: string | number, o: string | bigint): string =>
    `\n${pad(g, gw)} ${pad(t, tw)} ${pad(p, 10)} ${o}`;
  let out = results.length > 0 ? line('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET') : '';
  for (const r of results) for (const o of r.offsets) out += line(r.group, o.tp.topic, o.tp.partition, o.offset);
  io.stdout.write(out + '\n');
}
