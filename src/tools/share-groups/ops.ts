// `tkafka share-groups` commands: view models computed from the Admin calls
// (ShareGroupCommand.ShareGroupService, Kafka 4.4) and their renderings: Kafka's text, json, table.
import { readFileSync } from 'node:fs';
import type { BrokerNode } from '../../client/client.js';
import { parseGroupState, type GroupListing } from '../../client/admin/groups.js';
import { tpKey, type TopicPartition } from '../../client/admin/offsets.js';
import type { ShareGroupDescription, SharePartitionOffset } from '../../client/admin/share-groups.js';
import {
  CommandError,
  UsageError,
  javaMessage,
  longOption,
  pad,
  parseTopicWithPartitions,
  topicPartitionsOf,
  tpOrder,
  type GroupsContext,
} from '../consumer-groups/format.js';
import { parseDateTime } from '../consumer-groups/time.js';
import { csvCell, parseResetPlan, type PlannedOffset } from '../consumer-groups/reset.js';

const MISSING = '-';

/** Kafka 4.4 prints this IllegalArgumentException's message alone on stderr (no help), exit 1. */
export class ArgumentError extends Error {
  override name = 'ArgumentError';
}
/** GroupState.groupStatesForType(SHARE) (a Set.of: Kafka prints it in an order that varies by run). */
const SHARE_STATES = ['Stable', 'Dead', 'Empty'];

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const show = (v: string | number | bigint | null | undefined): string =>
  v === null || v === undefined ? MISSING : String(v);

async function admin(): Promise<typeof import('../../client/admin/share-groups.js')> {
  return import('../../client/admin/share-groups.js');
}

/** Kafka rethrows an Admin failure's cause; its message is `<exception class>: <message>`. */
function failed(e: unknown): never {
  if (e instanceof UsageError || e instanceof CommandError) throw e;
  throw new CommandError(javaMessage(e), { cause: e });
}

async function listAll(ctx: GroupsContext, states: string[] = []): Promise<GroupListing[]> {
  try {
    return await (await admin()).listShareGroups(ctx.client, { states });
  } catch (e) {
    failed(e);
  }
}

/** Kafka's groupStatesFromString: case-insensitive, only the share states. */
export function parseStates(input: string): string[] {
  const states = [...new Set(input.split(',').map((s) => parseGroupState(s.trim())))];
  if (!states.every((s) => SHARE_STATES.includes(s)))
    throw new UsageError(`Invalid state list '${input}'. Valid states are: ${SHARE_STATES.join(', ')}`);
  return states;
}

export async function listGroups(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const withState = opts.has('state');
  const stateArg = opts.string('state') ?? '';
  const states = withState && stateArg !== '' ? parseStates(stateArg) : [];
  const groups = await listAll(ctx, states);
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, { groups: groups.map((g) => ({ group: g.groupId, state: g.state })) });
    return;
  }
  if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(
      io,
      ['GROUP', 'STATE'],
      groups.map((g) => [g.groupId, g.state ?? 'Unknown']),
    );
    return;
  }
  io.stdout.write(renderList(groups, withState));
}

/** ShareGroupService.listGroups / printGroupInfo: `%-Gs %s`, G the longest group id, at least 15. */
export function renderList(groups: GroupListing[], withState: boolean): string {
  if (!withState) return groups.map((g) => `${g.groupId}\n`).join('');
  const w = Math.max(15, ...groups.map((g) => g.groupId.length));
  return [['GROUP', 'STATE'], ...groups.map((g) => [g.groupId, g.state ?? 'Unknown'])]
    .map(([a, b]) => `${pad(a!, w)} ${b}\n`)
    .join('');
}

async function groupIds(ctx: GroupsContext): Promise<string[]> {
  if (ctx.opts.has('all-groups')) return (await listAll(ctx)).map((g) => g.groupId);
  return ctx.opts.valuesOf('group').map(String);
}

/** Described groups sorted by id (Kafka's TreeMap); the first failed group fails the command. */
async function describeAll(ctx: GroupsContext, ids: string[]): Promise<ShareGroupDescription[]> {
  const described = await (await admin()).describeShareGroups(ctx.client, ids);
  const out: ShareGroupDescription[] = [];
  for (const id of [...new Set(ids)]) {
    const r = described.get(id)!;
    if (!r.ok) throw new CommandError(javaMessage(r.error), { cause: r.error });
    out.push(r.value);
  }
  return out.sort((a, b) => byString(a.groupId, b.groupId));
}

export interface OffsetRow {
  topic: string;
  partition: number;
  leaderEpoch: number | null;
  startOffset: bigint | null;
  lag: bigint | null;
}

export interface ShareGroupView {
  group: string;
  state: string;
  coordinator: BrokerNode;
  groupEpoch: number;
  assignmentEpoch: number;
  members: {
    consumerId: string;
    host: string;
    clientId: string;
    memberEpoch: number;
    assignment: TopicPartition[];
  }[];
  offsets: OffsetRow[];
}

export function offsetRows(offsets: Map<string, SharePartitionOffset>): OffsetRow[] {
  return [...offsets.values()]
    .map((o) => ({
      topic: o.tp.topic,
      partition: o.tp.partition,
      leaderEpoch: o.leaderEpoch,
      startOffset: o.startOffset,
      lag: o.lag,
    }))
    .sort((a, b) => byString(a.topic, b.topic) || a.partition - b.partition);
}

export function toView(d: ShareGroupDescription, offsets: OffsetRow[]): ShareGroupView {
  return {
    group: d.groupId,
    state: d.state,
    coordinator: d.coordinator,
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.targetAssignmentEpoch,
    members: d.members
      .map((m) => ({
        consumerId: m.memberId,
        host: m.host,
        clientId: m.clientId,
        memberEpoch: m.memberEpoch,
        assignment: m.assignment,
      }))
      .sort((a, b) => byString(a.consumerId, b.consumerId)),
    offsets,
  };
}

/** Kafka's getAssignmentString: `topic:0,1;other:2`, partitions sorted as numbers, entries sorted. */
export function assignmentString(tps: TopicPartition[]): string {
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
  return [...byTopic]
    .map(([t, ps]) => `${t}:${ps.sort((a, b) => a - b).join(',')}`)
    .sort(byString)
    .join(';');
}

/** printOffsets. */
export function renderOffsets(v: ShareGroupView, verbose: boolean): string {
  if (v.offsets.length === 0) return `\nShare group '${v.group}' has no offset information.\n`;
  const gw = Math.max(15, v.group.length);
  const tw = Math.max(15, ...v.offsets.map((o) => o.topic.length));
  const line = (c: string[]): string =>
    verbose
      ? `\n${pad(c[0]!, gw)} ${pad(c[1]!, tw)} ${pad(c[2]!, 10)} ${pad(c[3]!, 13)} ${pad(c[4]!, 13)} ${c[5]}`
      : `\n${pad(c[0]!, gw)} ${pad(c[1]!, tw)} ${pad(c[2]!, 10)} ${pad(c[3]!, 13)} ${c[4]}`;
  let out = line(
    verbose
      ? ['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG']
      : ['GROUP', 'TOPIC', 'PARTITION', 'START-OFFSET', 'LAG'],
  );
  for (const o of v.offsets) {
    const row = [v.group, o.topic, String(o.partition)];
    if (verbose) row.push(show(o.leaderEpoch));
    row.push(show(o.startOffset), show(o.lag));
    out += line(row);
  }
  return out + '\n';
}

/** printStates (the state message first, from maybePrintEmptyGroupState). */
export function renderState(v: ShareGroupView, verbose: boolean): string {
  const gw = Math.max(15, v.group.length);
  const coordinator = `${v.coordinator.host}:${v.coordinator.port}  (${v.coordinator.id})`;
  const cw = Math.max(25, coordinator.length);
  const line = (c: string[]): string =>
    verbose
      ? `\n${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, 15)} ${pad(c[3]!, 12)} ${pad(c[4]!, 17)} ${c[5]}`
      : `\n${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, 15)} ${c[5]}`;
  return (
    line(['GROUP', 'COORDINATOR (ID)', 'STATE', 'GROUP-EPOCH', 'ASSIGNMENT-EPOCH', '#MEMBERS']) +
    line([v.group, coordinator, v.state, String(v.groupEpoch), String(v.assignmentEpoch), String(v.members.length)]) +
    '\n'
  );
}

/** printMembers (rows only when maybePrintEmptyGroupState says so). */
export function renderMembers(v: ShareGroupView, verbose: boolean): string {
  const gw = Math.max(15, v.group.length);
  const cw = Math.max(15, ...v.members.map((m) => m.consumerId.length));
  const hw = Math.max(15, ...v.members.map((m) => m.host.length));
  const lw = Math.max(15, ...v.members.map((m) => m.clientId.length));
  const line = (c: string[]): string =>
    `\n${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, hw)} ${pad(c[3]!, lw)} ${pad(c[4]!, 12)} ` +
    (verbose ? `${pad(c[5]!, 13)} ${c[6]}` : c[6]!);
  let out = line(['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'MEMBER-EPOCH', 'ASSIGNMENT']);
  for (const m of v.members)
    out += line([
      v.group,
      m.consumerId,
      m.host,
      m.clientId,
      String(m.assignment.length),
      String(m.memberEpoch),
      assignmentString(m.assignment),
    ]);
  return out + '\n';
}

/** maybePrintEmptyGroupState: whether the rows are printed; the message on stdout (Dead) or stderr (Empty). */
function stateMessage(ctx: GroupsContext, v: ShareGroupView, rows: number): boolean {
  if (ctx.format === 'text') {
    if (v.state === 'Dead') ctx.io.stdout.write(`\nError: Share group '${v.group}' does not exist.\n`);
    else if (v.state === 'Empty') ctx.io.stderr.write(`\nShare group '${v.group}' has no active members.\n`);
  }
  return v.state !== 'Dead' && rows > 0;
}

export async function collectViews(ctx: GroupsContext, withOffsets: boolean): Promise<ShareGroupView[]> {
  const descriptions = await describeAll(ctx, await groupIds(ctx));
  const views: ShareGroupView[] = [];
  for (const d of descriptions) {
    let rows: OffsetRow[] = [];
    if (withOffsets) {
      try {
        rows = offsetRows(await (await admin()).listShareGroupOffsets(ctx.client, d.groupId));
      } catch (e) {
        failed(e);
      }
    }
    views.push(toView(d, rows));
  }
  return views;
}

export async function describeGroups(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const verbose = opts.has('verbose');
  const mode = opts.has('members') ? 'members' : opts.has('state') ? 'state' : 'offsets';
  const views = await collectViews(ctx, mode === 'offsets');
  if (format === 'text') {
    for (const v of views) {
      if (mode === 'offsets') io.stdout.write(renderOffsets(v, verbose));
      else if (mode === 'state') {
        stateMessage(ctx, v, 1);
        io.stdout.write(renderState(v, verbose));
      } else if (stateMessage(ctx, v, v.members.length)) io.stdout.write(renderMembers(v, verbose));
    }
    return;
  }
  const coord = (c: BrokerNode): { id: number; host: string; port: number } => ({
    id: c.id,
    host: c.host,
    port: c.port,
  });
  const error = (v: ShareGroupView): string | null =>
    v.state === 'Dead' ? `Share group '${v.group}' does not exist.` : null;
  const json = (v: ShareGroupView): Record<string, unknown> => {
    if (mode === 'state')
      return {
        group: v.group,
        coordinator: coord(v.coordinator),
        state: v.state,
        groupEpoch: v.groupEpoch,
        assignmentEpoch: v.assignmentEpoch,
        members: v.members.length,
        error: error(v),
      };
    if (mode === 'members')
      return {
        group: v.group,
        state: v.state,
        error: error(v),
        members: v.members.map((m) => ({
          consumerId: m.consumerId,
          host: m.host,
          clientId: m.clientId,
          partitions: m.assignment.length,
          memberEpoch: m.memberEpoch,
          assignment: m.assignment.map((tp) => ({ topic: tp.topic, partition: tp.partition })),
        })),
      };
    return { group: v.group, state: v.state, error: error(v), offsets: v.offsets.map((o) => ({ ...o })) };
  };
  const { writeJson, writeTable } = await import('../common/output.js');
  if (format === 'json') {
    writeJson(io, { groups: views.map(json) });
    return;
  }
  if (mode === 'state')
    await writeTable(
      io,
      ['GROUP', 'COORDINATOR (ID)', 'STATE', 'GROUP-EPOCH', 'ASSIGNMENT-EPOCH', '#MEMBERS'],
      views.map((v) => [
        v.group,
        `${v.coordinator.host}:${v.coordinator.port} (${v.coordinator.id})`,
        v.state,
        v.groupEpoch,
        v.assignmentEpoch,
        v.members.length,
      ]),
    );
  else if (mode === 'members')
    await writeTable(
      io,
      ['GROUP', 'CONSUMER-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'MEMBER-EPOCH', 'ASSIGNMENT'],
      views.flatMap((v) =>
        v.members.map((m) => [
          v.group,
          m.consumerId,
          m.host,
          m.clientId,
          m.assignment.length,
          m.memberEpoch,
          assignmentString(m.assignment),
        ]),
      ),
    );
  else
    await writeTable(
      io,
      ['GROUP', 'TOPIC', 'PARTITION', 'LEADER-EPOCH', 'START-OFFSET', 'LAG'],
      views.flatMap((v) =>
        v.offsets.map((o) => [v.group, o.topic, o.partition, show(o.leaderEpoch), show(o.startOffset), show(o.lag)]),
      ),
    );
}

/** deleteShareGroups: only listed share groups in state Empty are sent to DeleteGroups. */
export async function deleteGroups(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const listed = await listAll(ctx);
  const ids = opts.has('all-groups') ? listed.map((g) => g.groupId) : opts.valuesOf('group').map(String);
  const failures = new Map<string, string>();
  const toDelete: string[] = [];
  for (const id of new Set(ids)) {
    const l = listed.find((g) => g.groupId === id);
    if (!l)
      failures.set(id, `org.apache.kafka.common.errors.GroupIdNotFoundException: Group '${id}' is not a share group.`);
    else if (l.state === 'Dead')
      failures.set(id, `java.lang.IllegalStateException: Share group '${id}' group state is DEAD.`);
    else if (l.state !== null && l.state !== 'Empty')
      failures.set(id, `org.apache.kafka.common.errors.GroupNotEmptyException: Share group '${id}' is not EMPTY.`);
    else toDelete.push(id);
  }
  const results = toDelete.length > 0 ? await (await admin()).deleteShareGroups(ctx.client, toDelete) : new Map();
  const deleted: string[] = [];
  for (const id of toDelete) {
    const r = results.get(id);
    if (r?.ok) deleted.push(id);
    else failures.set(id, r ? javaMessage(r.error) : 'no result');
  }
  // Kafka prints both HashMaps; tkafka prints them sorted by group id.
  deleted.sort(byString);
  const failedIds = [...failures.keys()].sort(byString);
  if (format !== 'text') {
    const rows = [
      ...deleted.map((g) => ({ group: g, deleted: true, error: null as string | null })),
      ...failedIds.map((g) => ({ group: g, deleted: false, error: failures.get(g)! })),
    ].sort((a, b) => byString(a.group, b.group));
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
  io.stdout.write(
    renderDelete(
      deleted,
      failedIds.map((g) => [g, failures.get(g)!]),
    ),
  );
}

export function renderDelete(deleted: string[], failures: [string, string][]): string {
  const quoted = (ids: string[]): string => ids.map((g) => `'${g}'`).join(', ');
  if (failures.length === 0) return `Deletion of requested share groups (${quoted(deleted)}) was successful.\n`;
  let out = '\nError: Deletion of some share groups failed:\n';
  for (const [g, e] of failures) out += `* Group '${g}' could not be deleted due to: ${e}\n`;
  if (deleted.length > 0) out += `\nThese share groups were deleted successfully: ${quoted(deleted)}\n`;
  return out;
}

/** deleteOffsets: DeleteShareGroupOffsets of whole topics, Kafka's top-level messages, then `%-Ts %s` rows. */
export async function deleteOffsets(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const group = opts.string('group')!;
  const topics = [...new Set(opts.valuesOf('topic').map(String))];
  const r = await (await admin()).deleteShareGroupOffsets(ctx.client, group, topics);
  let message: string | null = null;
  if (r.topLevel) {
    const c = r.topLevel.code;
    if (c === 24 || c === 69 || c === 30 || c === 68) message = r.topLevel.message;
    else if (c !== 29 && c !== 3) message = `Encounter some unknown error: ${r.topLevel.javaString()}`;
  }
  const rows = [...r.topics].sort((a, b) => byString(a[0], b[0]));
  if (format !== 'text') {
    const { writeJson, writeTable } = await import('../common/output.js');
    if (format === 'json')
      writeJson(io, {
        group,
        error: message,
        topics: rows.map(([t, e]) => ({ topic: t, status: e ? 'Error' : 'Successful', error: e ? e.message : null })),
      });
    else
      await writeTable(
        io,
        ['TOPIC', 'STATUS'],
        rows.map(([t, e]) => [t, e ? `Error: ${e.message}` : 'Successful']),
      );
    return;
  }
  let out = message !== null ? `\nError: ${message}\n` : '';
  if (rows.length > 0) {
    const w = Math.max(15, ...rows.map(([t]) => t.length));
    out += `\n${pad('TOPIC', w)} STATUS`;
    for (const [t, e] of rows) out += `\n${pad(t, w)} ${e ? `Error: ${e.message}` : 'Successful'}`;
  }
  io.stdout.write(out + '\n');
}

/** resetOffsets: only an Empty (or not existing) group; dry run or AlterShareGroupOffsets. */
export async function resetOffsets(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const group = opts.string('group')!;
  const a = await admin();
  const d = (await a.describeShareGroups(ctx.client, [group])).get(group)!;
  if (d.ok && d.value.state !== 'Empty' && d.value.state !== 'Dead')
    throw new ArgumentError(`Share group '${group}' is not empty.`);
  if (!d.ok && (d.error as { code?: number }).code !== 69) failed(d.error);
  let offsets: PlannedOffset[];
  try {
    const tps = await partitionsToReset(ctx, group);
    offsets = await prepareOffsets(ctx, group, tps);
    if (opts.has('execute') && offsets.length > 0) await a.alterShareGroupOffsets(ctx.client, group, offsets);
  } catch (e) {
    failed(e);
  }
  const execute = opts.has('execute');
  if (opts.has('export')) {
    io.stdout.write(
      offsets.map((o) => [o.tp.topic, o.tp.partition, o.offset].map(csvCell).join(',') + '\n').join('') + '\n',
    );
    return;
  }
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, {
      execute,
      groups:
        offsets.length === 0
          ? []
          : [
              {
                group,
                offsets: offsets.map((o) => ({ topic: o.tp.topic, partition: o.tp.partition, newOffset: o.offset })),
              },
            ],
    });
    return;
  }
  if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(
      io,
      ['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'],
      offsets.map((o) => [group, o.tp.topic, o.tp.partition, o.offset]),
    );
    return;
  }
  io.stdout.write(renderReset(group, offsets));
}

/** GroupOffsetsResetter.printOffsetsToReset: `%n%-Gs %-Ts %-10s %s`, sorted by topic and partition. */
export function renderReset(group: string, offsets: PlannedOffset[]): string {
  if (offsets.length === 0) return '\n';
  const gw = Math.max(15, group.length);
  const tw = Math.max(15, ...offsets.map((o) => o.tp.topic.length));
  const line = (g: string, t: string, p: string | number, o: string | bigint): string =>
    `\n${pad(g, gw)} ${pad(t, tw)} ${pad(p, 10)} ${o}`;
  let out = line('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET');
  const sorted = [...offsets].sort((a, b) => byString(a.tp.topic, b.tp.topic) || a.tp.partition - b.tp.partition);
  for (const o of sorted) out += line(group, o.tp.topic, o.tp.partition, o.offset);
  return out + '\n';
}

async function partitionsToReset(ctx: GroupsContext, group: string): Promise<TopicPartition[]> {
  const { opts } = ctx;
  if (opts.has('topic')) {
    const args = opts.valuesOf('topic').map(String);
    const specified = args.filter((x) => x.includes(':')).flatMap(parseTopicWithPartitions);
    return [
      ...specified,
      ...(await topicPartitionsOf(
        ctx,
        args.filter((x) => !x.includes(':')),
      )),
    ];
  }
  if (opts.has('from-file')) return [];
  return [...(await (await admin()).listShareGroupOffsets(ctx.client, group)).values()].map((o) => o.tp);
}

async function logOffsets(ctx: GroupsContext, tps: TopicPartition[], spec: bigint): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (tps.length === 0) return out;
  const { listOffsets } = await import('../../client/admin/offsets.js');
  const r = await listOffsets(ctx.client, tps, spec);
  for (const tp of tps) {
    const o = r.get(tpKey(tp));
    if (o && !o.ok) throw o.error;
    if (o && o.ok) out.set(tpKey(tp), o.value.offset);
  }
  return out;
}

/** prepareOffsetsToReset with GroupOffsetsResetter's scenarios. */
async function prepareOffsets(ctx: GroupsContext, group: string, tps: TopicPartition[]): Promise<PlannedOffset[]> {
  const { opts } = ctx;
  const { OffsetSpec } = await import('../../client/admin/offsets.js');
  const clamp = async (requested: PlannedOffset[]): Promise<PlannedOffset[]> => {
    const starts = await logOffsets(
      ctx,
      requested.map((r) => r.tp),
      OffsetSpec.EARLIEST,
    );
    const ends = await logOffsets(
      ctx,
      requested.map((r) => r.tp),
      OffsetSpec.LATEST,
    );
    return requested.map(({ tp, offset }) => {
      const end = ends.get(tpKey(tp));
      const start = starts.get(tpKey(tp));
      if (end !== undefined && offset > end) return { tp, offset: end };
      if (start !== undefined && offset < start) return { tp, offset: start };
      return { tp, offset };
    });
  };
  if (opts.has('to-offset')) {
    const offset = longOption(opts, 'to-offset')!;
    return clamp(tps.map((tp) => ({ tp, offset })));
  }
  if (opts.has('to-earliest') || opts.has('to-latest')) {
    const offsets = await logOffsets(ctx, tps, opts.has('to-earliest') ? OffsetSpec.EARLIEST : OffsetSpec.LATEST);
    return tps.map((tp) => {
      const o = offsets.get(tpKey(tp));
      if (o === undefined)
        throw new UsageError(
          `Error getting ${opts.has('to-earliest') ? 'starting' : 'ending'} offset of topic partition: ${tpKey(tp)}`,
        );
      return { tp, offset: o };
    });
  }
  if (opts.has('to-datetime')) {
    const found = await logOffsets(ctx, tps, parseDateTime(opts.string('to-datetime')!));
    // GroupOffsetsResetter.resetToDateTime: a warning per partition without such a record (HashMap order).
    const missing = tpOrder(tps.filter((tp) => (found.get(tpKey(tp)) ?? -1n) === -1n).map((tp) => ({ tp }))).map(
      (x) => x.tp,
    );
    if (ctx.format === 'text')
      for (const tp of missing)
        ctx.io.stdout.write(
          `\nWarn: Partition ${tp.partition} from topic ${tp.topic} is empty. Falling back to latest known offset.\n`,
        );
    const ends = await logOffsets(ctx, missing, OffsetSpec.LATEST);
    return tps.map((tp) => ({ tp, offset: ends.get(tpKey(tp)) ?? found.get(tpKey(tp))! }));
  }
  if (opts.has('from-file')) {
    const file = opts.string('from-file')!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new CommandError(
        (e as NodeJS.ErrnoException).code === 'ENOENT'
          ? `java.nio.file.NoSuchFileException: ${file}`
          : `Cannot read ${file}: ${(e as Error).message}`,
      );
    }
    return clamp(parseResetPlan(text, group, file).get(group) ?? []);
  }
  if (opts.has('to-current')) {
    const current = await (await admin()).listShareGroupOffsets(ctx.client, group);
    const without = tps.filter((tp) => current.get(tpKey(tp))?.startOffset == null);
    const ends = await logOffsets(ctx, without, OffsetSpec.LATEST);
    return tps.map((tp) => ({ tp, offset: current.get(tpKey(tp))?.startOffset ?? ends.get(tpKey(tp)) ?? -1n }));
  }
  throw new UsageError(
    "Option '[reset-offsets]' requires one of the following scenarios: [[to-offset], [to-datetime], [to-earliest], [to-latest], [to-current], [from-file]]",
  );
}
