// `tkafka consumer-groups --describe`: view models of the offsets, members and state sub-views
// (ConsumerGroupCommand.collectGroupsOffsets / collectGroupsMembers / collectGroupsState) and their
// renderings: Kafka's text (printOffsets / printMembers / printStates, with the state messages on
// stderr), json and table.
import type { BrokerNode } from '../../client/client.js';
import type { CommittedOffset, ConsumerGroupDescription, TopicPartition } from '../../client/admin/groups.js';
import { tpKey } from '../../client/admin/groups.js';
import {
  CommandError,
  UsageError,
  groupIds,
  javaMessage,
  pad,
  printError,
  tpOrder,
  type GroupsContext,
} from './format.js';

const MISSING = '-';

export interface OffsetRow {
  topic: string | null;
  partition: number | null;
  leaderEpoch: number | null;
  currentOffset: bigint | null;
  logEndOffset: bigint | null;
  lag: bigint | null;
  consumerId: string | null;
  host: string | null;
  clientId: string | null;
}

export interface MemberRow {
  consumerId: string;
  groupInstanceId: string | null;
  host: string;
  clientId: string;
  partitions: number;
  assignment: TopicPartition[];
  memberEpoch: number | null;
  targetAssignment: TopicPartition[];
  targetEpoch: number | null;
  upgraded: boolean | null;
}

export interface GroupView {
  group: string;
  state: string;
  coordinator: BrokerNode;
  assignmentStrategy: string;
  groupEpoch: number | null;
  targetAssignmentEpoch: number | null;
  offsets: OffsetRow[];
  members: MemberRow[];
}

/** Describes the groups (sorted by id, as Kafka's TreeMap); an Admin failure of any group fails the command. */
async function describeAll(ctx: GroupsContext, only?: readonly string[]): Promise<ConsumerGroupDescription[]> {
  const { describeConsumerGroups, GroupArgumentError } = await import('../../client/admin/groups.js');
  const ids = only ? [...only] : await groupIds(ctx);
  const described = await describeConsumerGroups(ctx.client, ids);
  const out: ConsumerGroupDescription[] = [];
  for (const id of [...new Set(ids)].sort()) {
    const r = described.get(id)!;
    if (!r.ok) {
      if (r.error instanceof GroupArgumentError) throw new UsageError(r.error.message);
      throw r.error;
    }
    out.push(r.value);
  }
  return out;
}

async function logEndOffsets(ctx: GroupsContext, tps: TopicPartition[]): Promise<Map<string, bigint | null>> {
  const out = new Map<string, bigint | null>();
  if (tps.length === 0) return out;
  const { listOffsets, OffsetSpec } = await import('../../client/admin/offsets.js');
  const r = await listOffsets(ctx.client, tps, OffsetSpec.LATEST);
  for (const tp of tps) {
    const o = r.get(tpKey(tp));
    if (o && !o.ok && !(o.error as { code?: number }).code) throw o.error;
    out.set(tpKey(tp), o && o.ok ? o.value.offset : null);
  }
  return out;
}

/** The groups of --group / --all-groups, or `only` (`tkafka top` names them itself). */
export async function collectGroupsView(
  ctx: GroupsContext,
  withOffsets: boolean,
  only?: readonly string[],
): Promise<GroupView[]> {
  const { listConsumerGroupOffsets } = await import('../../client/admin/groups.js');
  const views: GroupView[] = [];
  if (only && only.length === 0) return views;
  for (const g of await describeAll(ctx, only)) {
    const view: GroupView = {
      group: g.groupId,
      state: g.state,
      coordinator: g.coordinator,
      assignmentStrategy: g.partitionAssignor,
      groupEpoch: g.groupEpoch,
      targetAssignmentEpoch: g.targetAssignmentEpoch,
      offsets: [],
      members: g.members.map((m) => ({
        consumerId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        host: m.host,
        clientId: m.clientId,
        partitions: m.assignment.length,
        assignment: m.assignment,
        memberEpoch: m.memberEpoch,
        targetAssignment: m.targetAssignment ?? [],
        targetEpoch: g.targetAssignmentEpoch,
        upgraded: m.upgraded,
      })),
    };
    if (withOffsets) view.offsets = await offsetRows(ctx, g, await listConsumerGroupOffsets(ctx.client, g.groupId));
    views.push(view);
  }
  return views;
}

async function offsetRows(
  ctx: GroupsContext,
  g: ConsumerGroupDescription,
  committed: Map<string, CommittedOffset>,
): Promise<OffsetRow[]> {
  const rows: OffsetRow[] = [];
  const assigned = new Set<string>();
  const describePartitions = async (
    tps: TopicPartition[],
    who: { consumerId: string; host: string; clientId: string },
  ): Promise<void> => {
    if (tps.length === 0) {
      rows.push({
        topic: null,
        partition: null,
        leaderEpoch: null,
        currentOffset: null,
        logEndOffset: null,
        lag: null,
        ...who,
      });
      return;
    }
    // Kafka 4.4 sorts a member's rows by topic (String.compareTo), then partition.
    const sorted = [...tps].sort((a, b) =>
      a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition,
    );
    const ends = await logEndOffsets(ctx, sorted);
    for (const tp of sorted) {
      const c = committed.get(tpKey(tp));
      const offset = c?.offset ?? null;
      const end = ends.get(tpKey(tp)) ?? null;
      rows.push({
        topic: tp.topic,
        partition: tp.partition,
        leaderEpoch: c?.leaderEpoch ?? null,
        currentOffset: offset,
        logEndOffset: end,
        lag: offset !== null && offset !== -1n && end !== null ? end - offset : null,
        ...who,
      });
    }
  };
  const members = g.members
    .filter((m) => m.assignment.length > 0)
    .sort((a, b) => b.assignment.length - a.assignment.length);
  for (const m of members) {
    for (const tp of m.assignment) assigned.add(tpKey(tp));
    await describePartitions(m.assignment, { consumerId: m.memberId, host: m.host, clientId: m.clientId });
  }
  const unassigned = tpOrder([...committed.values()])
    .filter((c) => !assigned.has(tpKey(c.tp)))
    .map((c) => c.tp);
  if (unassigned.length > 0)
    await describePartitions(unassigned, { consumerId: MISSING, host: MISSING, clientId: MISSING });
  return rows;
}

/** ConsumerGroupCommand.shouldPrintMemberState: the state message; false when nothing else is printed. */
function printState(ctx: GroupsContext, group: string, state: string, numRows: number): boolean {
  const { io } = ctx;
  switch (state) {
    case 'Dead':
      printError(ctx, `Consumer group '${group}' does not exist.`);
      break;
    case 'Empty':
      if (ctx.format === 'text') io.stderr.write(`\nConsumer group '${group}' has no active members.\n`);
      break;
    case 'PreparingRebalance':
    case 'CompletingRebalance':
    case 'Assigning':
    case 'Reconciling':
      if (ctx.format === 'text') io.stderr.write(`\nWarning: Consumer group '${group}' is rebalancing.\n`);
      break;
    case 'Stable':
      break;
    default:
      throw new CommandError(`Expected a valid consumer group state, but found '${state}'.`);
  }
  return state !== 'Dead' && numRows > 0;
}

const show = (v: string | number | bigint | boolean | null | undefined): string =>
  v === null || v === undefined ? MISSING : String(v);

/** Kafka 4.0's getAssignmentString: `topic:0,1;other:2`, partitions sorted as strings, topics sorted. */
export function assignmentString(tps: TopicPartition[]): string {
  if (tps.length === 0) return MISSING;
  const byTopic = new Map<string, string[]>();
  for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), String(tp.partition)]);
  return [...byTopic]
    .map(([t, ps]) => `${t}:${ps.sort().join(',')}`)
    .sort()
    .join(';');
}

function offsetsText(ctx: GroupsContext, v: GroupView, verbose: boolean): string {
  let out = '';
  let gw = 15,
    tw = 15,
    cw = 15,
    hw = 15;
  for (const r of v.offsets) {
    gw = Math.max(gw, v.group.length);
    tw = Math.max(tw, show(r.topic).length);
    cw = Math.max(cw, show(r.consumerId).length);
    hw = Math.max(hw, show(r.host).length);
  }
  const line = (c: string[]): string => {
    const [group, topic, partition, ...rest] = c as [string, string, string, ...string[]];
    const nums = rest.slice(0, verbose ? 4 : 3).map((x) => pad(x, 15));
    const [consumer, host, client] = rest.slice(verbose ? 4 : 3) as [string, string, string];
    return `\n${pad(group, gw)} ${pad(topic, tw)} ${pad(partition, 10)} ${nums.join(' ')} ${pad(consumer, cw)} ${pad(host, hw)} ${client}`;
  };
  out += line([
    'GROUP',
    'TOPIC',
    'PARTITION',
    ...(verbose ? ['LEADER-EPOCH'] : []),
    'CURRENT-OFFSET',
    'LOG-END-OFFSET',
    'LAG',
    'CONSUMER-ID',
    'HOST',
    'CLIENT-ID',
  ]);
  for (const r of v.offsets) {
    out += line([
      v.group,
      show(r.topic),
      show(r.partition),
      ...(verbose ? [show(r.leaderEpoch)] : []),
      show(r.currentOffset),
      show(r.logEndOffset),
      show(r.lag),
      show(r.consumerId),
      show(r.host),
      show(r.clientId),
    ]);
  }
  return out + '\n';
}

function membersText(v: GroupView, verbose: boolean, rowsShown: boolean): string {
  let gw = 15,
    cw = 15,
    iw = 17,
    hw = 15,
    lw = 15,
    caw = 20,
    taw = 20;
  let withInstance = false,
    classic = false,
    consumer = false;
  if (rowsShown) {
    for (const m of v.members) {
      gw = Math.max(gw, v.group.length);
      cw = Math.max(cw, m.consumerId.length);
      iw = Math.max(iw, (m.groupInstanceId ?? '').length);
      hw = Math.max(hw, m.host.length);
      lw = Math.max(lw, m.clientId.length);
      withInstance ||= (m.groupInstanceId ?? '') !== '';
      caw = Math.max(caw, assignmentString(m.assignment).length);
      taw = Math.max(taw, assignmentString(m.targetAssignment).length);
      classic ||= m.upgraded === false;
      consumer ||= m.upgraded === true;
    }
  }
  const migration = classic && consumer;
  const head = (c: [string, string, string, string, string, string]): string =>
    withInstance
      ? `${pad(c[0], gw)} ${pad(c[1], cw)} ${pad(c[2], iw)} ${pad(c[3], hw)} ${pad(c[4], lw)} ${pad(c[5], 15)} `
      : `${pad(c[0], gw)} ${pad(c[1], cw)} ${pad(c[3], hw)} ${pad(c[4], lw)} ${pad(c[5], 15)} `;
  const tail = (c: string[]): string =>
    `${pad(c[0]!, 15)} ${pad(c[1]!, caw)} ${pad(c[2]!, 15)} ${migration ? `${pad(c[3]!, taw)} ${c[4]}` : pad(c[3]!, taw)}`;
  let out = '\n' + head(['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS']);
  if (verbose) out += tail(['CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT', 'UPGRADED']);
  out += '\n';
  for (const m of v.members) {
    out += head([v.group, m.consumerId, m.groupInstanceId ?? '', m.host, m.clientId, String(m.partitions)]);
    if (verbose) {
      out += tail([
        show(m.memberEpoch),
        assignmentString(m.assignment),
        show(m.targetEpoch),
        assignmentString(m.targetAssignment),
        show(m.upgraded),
      ]);
    }
    out += '\n';
  }
  return out;
}

function stateText(v: GroupView, verbose: boolean): string {
  const coordinator = `${v.coordinator.host}:${v.coordinator.port}  (${v.coordinator.id})`;
  const cw = Math.max(25, coordinator.length);
  const gw = Math.max(15, v.group.length);
  const strategy = v.assignmentStrategy === '' ? MISSING : v.assignmentStrategy;
  const line = (c: string[]): string =>
    verbose
      ? `\n${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, 20)} ${pad(c[3]!, 20)} ${pad(c[4]!, 15)} ${pad(c[5]!, 25)} ${c[6]}`
      : `\n${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, 20)} ${pad(c[3]!, 20)} ${c[6]}`;
  return (
    line([
      'GROUP',
      'COORDINATOR (ID)',
      'ASSIGNMENT-STRATEGY',
      'STATE',
      'GROUP-EPOCH',
      'TARGET-ASSIGNMENT-EPOCH',
      '#MEMBERS',
    ]) +
    line([
      v.group,
      coordinator,
      strategy,
      v.state,
      show(v.groupEpoch),
      show(v.targetAssignmentEpoch),
      String(v.members.length),
    ]) +
    '\n'
  );
}

const tpJson = (tps: TopicPartition[]): { topic: string; partition: number }[] =>
  tps.map((tp) => ({ topic: tp.topic, partition: tp.partition }));
const coordJson = (c: BrokerNode): { id: number; host: string; port: number } => ({
  id: c.id,
  host: c.host,
  port: c.port,
});

export async function describeGroups(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const verbose = opts.has('verbose');
  const mode = opts.has('members') ? 'members' : opts.has('state') && !opts.has('offsets') ? 'state' : 'offsets';
  let views: GroupView[];
  try {
    views = await collectGroupsView(ctx, mode === 'offsets');
  } catch (e) {
    if (e instanceof UsageError || e instanceof CommandError) throw e;
    throw new CommandError(javaMessage(e), { cause: e });
  }
  const errors = new Map<string, string>();
  let text: string;
  for (const v of views) {
    const rows = mode === 'offsets' ? v.offsets.length : mode === 'members' ? v.members.length : 1;
    const before = ctx.failed;
    ctx.failed = false;
    const shown = printState(ctx, v.group, v.state, rows);
    if (ctx.failed) errors.set(v.group, `Consumer group '${v.group}' does not exist.`);
    ctx.failed ||= before;
    if (format !== 'text') continue;
    if (mode === 'offsets' && shown) text = offsetsText(ctx, v, verbose);
    else if (mode === 'members') text = membersText(v, verbose, shown);
    else if (mode === 'state' && shown) text = stateText(v, verbose);
    else text = '';
    if (text) io.stdout.write(text);
  }
  if (format === 'text') return;
  const { writeJson, writeTables } = await import('../common/output.js');
  const jsonGroup = (v: GroupView): Record<string, unknown> => {
    const base = {
      group: v.group,
      state: v.state,
      coordinator: coordJson(v.coordinator),
      error: errors.get(v.group) ?? null,
    };
    if (mode === 'state') {
      return {
        group: v.group,
        coordinator: coordJson(v.coordinator),
        assignmentStrategy: v.assignmentStrategy,
        state: v.state,
        members: v.members.length,
        groupEpoch: v.groupEpoch,
        targetAssignmentEpoch: v.targetAssignmentEpoch,
        error: base.error,
      };
    }
    if (mode === 'members') {
      return {
        ...base,
        members: v.members.map((m) => ({
          consumerId: m.consumerId,
          groupInstanceId: m.groupInstanceId,
          host: m.host,
          clientId: m.clientId,
          partitions: m.partitions,
          assignment: tpJson(m.assignment),
          memberEpoch: m.memberEpoch,
          targetAssignment: tpJson(m.targetAssignment),
          upgraded: m.upgraded,
        })),
      };
    }
    return { ...base, offsets: v.offsets.map((r) => ({ ...r })) };
  };
  if (format === 'json') {
    writeJson(io, { groups: views.map(jsonGroup) });
    return;
  }
  if (mode === 'state') {
    await writeTables(io, [
      {
        head: [
          'GROUP',
          'COORDINATOR (ID)',
          'ASSIGNMENT-STRATEGY',
          'STATE',
          'GROUP-EPOCH',
          'TARGET-ASSIGNMENT-EPOCH',
          '#MEMBERS',
        ],
        rows: views.map((v) => [
          v.group,
          `${v.coordinator.host}:${v.coordinator.port} (${v.coordinator.id})`,
          v.assignmentStrategy || MISSING,
          v.state,
          show(v.groupEpoch),
          show(v.targetAssignmentEpoch),
          v.members.length,
        ]),
      },
    ]);
  } else if (mode === 'members') {
    await writeTables(io, [
      {
        head: ['GROUP', 'CONSUMER-ID', 'GROUP-INSTANCE-ID', 'HOST', 'CLIENT-ID', '#PARTITIONS', 'ASSIGNMENT'],
        rows: views.flatMap((v) =>
          v.members.map((m) => [
            v.group,
            m.consumerId,
            m.groupInstanceId ?? MISSING,
            m.host,
            m.clientId,
            m.partitions,
            assignmentString(m.assignment),
          ]),
        ),
      },
    ]);
  } else {
    await writeTables(io, [
      {
        head: [
          'GROUP',
          'TOPIC',
          'PARTITION',
          'CURRENT-OFFSET',
          'LOG-END-OFFSET',
          'LAG',
          'CONSUMER-ID',
          'HOST',
          'CLIENT-ID',
        ],
        rows: views.flatMap((v) =>
          v.offsets.map((r) => [
            v.group,
            show(r.topic),
            show(r.partition),
            show(r.currentOffset),
            show(r.logEndOffset),
            show(r.lag),
            show(r.consumerId),
            show(r.host),
            show(r.clientId),
          ]),
        ),
      },
    ]);
  }
}
