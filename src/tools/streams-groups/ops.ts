// `tkafka streams-groups` commands: view models computed from the Admin calls
// (StreamsGroupCommand.StreamsGroupService, Kafka 4.4) and their renderings: Kafka's text, json, table.
import { readFileSync } from 'node:fs';
import type { BrokerNode } from '../../client/client.js';
import { parseGroupState, type GroupListing } from '../../client/admin/groups.js';
import { tpKey, type TopicPartition } from '../../client/admin/offsets.js';
import type { StreamsAssignment, StreamsGroupDescription, StreamsTaskIds } from '../../client/admin/streams-groups.js';
import {
  CommandError,
  UsageError,
  javaMessage,
  pad,
  parseTopicWithPartitions,
  printError,
  stringOrder,
  topicPartitionsOf,
  tpOrder,
  type GroupsContext,
} from '../consumer-groups/format.js';
import { csvCell, parseResetPlan, prepareOffsets, type PlannedOffset } from '../consumer-groups/reset.js';
import { RESET_SCENARIOS } from './spec.js';
import { TOPOLOGY_STATUS, formatTopology } from './topology.js';

const MISSING = '-';

/** GroupState.groupStatesForType(STREAMS) (a Set.of: Kafka prints it in an order that varies by run). */
export const STREAMS_STATES = ['Empty', 'NotReady', 'Assigning', 'Reconciling', 'Stable', 'Dead'];

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

async function admin(): Promise<typeof import('../../client/admin/streams-groups.js')> {
  return import('../../client/admin/streams-groups.js');
}

/**
 * An Admin failure: Kafka prints the message of what reached `run`, an ExecutionException's
 * (`<exception class>: <message>`) or, where the service wraps it in a RuntimeException
 * (`wrapped`), `java.util.concurrent.ExecutionException: <exception class>: <message>`.
 */
function failed(e: unknown, wrapped = true): never {
  if (e instanceof UsageError || e instanceof CommandError) throw e;
  const m = javaMessage(e);
  throw new CommandError(wrapped ? `java.util.concurrent.ExecutionException: ${m}` : m, { cause: e });
}

async function listAll(ctx: GroupsContext, states: string[] = []): Promise<GroupListing[]> {
  try {
    return await (await admin()).listStreamsGroups(ctx.client, { states });
  } catch (e) {
    failed(e);
  }
}

/** Kafka's groupStatesFromString: case-insensitive, only the streams states. */
export function parseStates(input: string): string[] {
  const states = [...new Set(input.split(',').map((s) => parseGroupState(s.trim())))];
  if (!states.every((s) => STREAMS_STATES.includes(s)))
    throw new UsageError(`Invalid state list '${input}'. Valid states are: ${STREAMS_STATES.join(', ')}`);
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

/** listGroups / printGroupInfo: `%-Gs %s`, G the longest group id, at least 15. */
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

async function describeOne(
  ctx: GroupsContext,
  id: string,
  withTopology = false,
  wrapped = false,
): Promise<StreamsGroupDescription> {
  const described = await (
    await admin()
  ).describeStreamsGroups(ctx.client, [id], {
    includeTopologyDescription: withTopology,
  });
  const r = described.get(id)!;
  if (!r.ok) failed(r.error, wrapped);
  return r.value;
}

export interface OffsetRow {
  topic: string;
  partition: number;
  currentOffset: bigint | null;
  leaderEpoch: number | null;
  logEndOffset: bigint;
  lag: bigint;
}

export interface StreamsGroupView {
  description: StreamsGroupDescription;
  offsets: OffsetRow[];
}

/** getTopicPartitions: the source and repartition-source topics of each active task's subtopology. */
export function activeTopicPartitions(d: StreamsGroupDescription): TopicPartition[] {
  const topicsOf = new Map<string, string[]>();
  for (const s of d.subtopologies) topicsOf.set(s.subtopologyId, [...s.sourceTopics, ...s.repartitionSourceTopics]);
  const out = new Map<string, TopicPartition>();
  for (const m of d.members) {
    for (const t of m.assignment.active) {
      const topics = topicsOf.get(t.subtopologyId);
      if (!topics) throw new UsageError(`Subtopology ${t.subtopologyId} not found in group description!`);
      for (const topic of topics)
        for (const partition of t.partitions) out.set(tpKey({ topic, partition }), { topic, partition });
    }
  }
  return [...out.values()];
}

/** getCommittedOffsets (source and repartition-source topics) or getInputTopicOffsets (source topics). */
async function committed(
  ctx: GroupsContext,
  d: StreamsGroupDescription,
  inputOnly: boolean,
): Promise<Map<string, { tp: TopicPartition; offset: bigint | null; leaderEpoch: number | null }>> {
  const topics = new Set(
    d.subtopologies.flatMap((s) => (inputOnly ? s.sourceTopics : [...s.sourceTopics, ...s.repartitionSourceTopics])),
  );
  let all;
  try {
    all = await (await admin()).listStreamsGroupOffsets(ctx.client, d.groupId);
  } catch (e) {
    failed(e);
  }
  for (const [k, v] of all) if (!topics.has(v.tp.topic)) all.delete(k);
  return all;
}

async function offsetsOf(ctx: GroupsContext, tps: TopicPartition[], spec: bigint): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (tps.length === 0) return out;
  const { listOffsets } = await import('../../client/admin/offsets.js');
  const r = await listOffsets(ctx.client, tps, spec);
  for (const tp of tps) {
    const o = r.get(tpKey(tp));
    if (!o) continue;
    if (!o.ok) failed(o.error, false);
    out.set(tpKey(tp), o.value.offset);
  }
  return out;
}

/** getOffsets: per active-task partition, the committed offset, the log end and the lag. */
export async function collectOffsets(ctx: GroupsContext, d: StreamsGroupDescription): Promise<OffsetRow[]> {
  const { OffsetSpec } = await import('../../client/admin/offsets.js');
  const tps = activeTopicPartitions(d);
  const earliest = await offsetsOf(ctx, tps, OffsetSpec.EARLIEST);
  const latest = await offsetsOf(ctx, tps, OffsetSpec.LATEST);
  const commits = await committed(ctx, d, false);
  return tpOrder(tps.map((tp) => ({ tp }))).map(({ tp }) => {
    const c = commits.get(tpKey(tp));
    const end = latest.get(tpKey(tp)) ?? 0n;
    const current = c?.offset ?? null;
    return {
      topic: tp.topic,
      partition: tp.partition,
      currentOffset: current,
      leaderEpoch: c?.leaderEpoch ?? null,
      logEndOffset: end,
      lag: current !== null ? end - current : end - (earliest.get(tpKey(tp)) ?? 0n),
    };
  });
}

/** maybePrintEmptyGroupState. */
function emptyStateMessage(group: string, state: string): string | null {
  if (state === 'Dead') return `Streams group '${group}' does not exist.`;
  if (state === 'Empty') return `Streams group '${group}' has no active members.`;
  return null;
}

const errorText = (msg: string | null): string => (msg === null ? '' : `\nError: ${msg}\n`);
/** isGroupStateValid. */
const validState = (state: string, rows: number): boolean => state !== 'Dead' && rows > 0;

/** printOffsets. */
export function renderOffsets(v: StreamsGroupView, verbose: boolean): string {
  const d = v.description;
  if (!validState(d.state, d.members.length)) return '';
  let out = errorText(emptyStateMessage(d.groupId, d.state));
  const gw = Math.max(15, d.groupId.length);
  const tw = Math.max(15, ...v.offsets.map((o) => o.topic.length));
  if (!verbose) {
    const line = (c: (string | number | bigint)[]): string =>
      `${pad(c[0]!, gw)} ${pad(c[1]!, tw)} ${pad(c[2]!, 10)} ${c[3]}\n`;
    out += line(['GROUP', 'TOPIC', 'PARTITION', 'OFFSET-LAG']);
    for (const o of v.offsets) out += line([d.groupId, o.topic, o.partition, o.lag]);
  } else {
    const line = (c: (string | number | bigint)[]): string =>
      `${pad(c[0]!, gw)} ${pad(c[1]!, tw)} ${pad(c[2]!, 10)} ${pad(c[3]!, 15)} ${pad(c[4]!, 15)} ${pad(c[5]!, 15)} ${pad(c[6]!, 15)}\n`;
    out += line(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LEADER-EPOCH', 'LOG-END-OFFSET', 'OFFSET-LAG']);
    for (const o of v.offsets)
      out += line([
        d.groupId,
        o.topic,
        o.partition,
        o.currentOffset ?? MISSING,
        o.leaderEpoch ?? MISSING,
        o.logEndOffset,
        o.lag,
      ]);
  }
  return out;
}

/** prepareTaskType: `ACTIVE: 0:[0,1]; 1:[2]; ` (empty when there are no tasks of the type). */
function taskType(tasks: StreamsTaskIds[], name: string): string {
  if (tasks.length === 0) return '';
  return `${name}: ` + tasks.map((t) => `${t.subtopologyId}:[${t.partitions.join(',')}]; `).join('');
}

/** getTasksForPrinting. */
export function tasksString(a: StreamsAssignment, target: StreamsAssignment | null): string {
  let s = taskType(a.active, 'ACTIVE') + taskType(a.standby, 'STANDBY') + taskType(a.warmup, 'WARMUP');
  if (target)
    s +=
      taskType(target.active, 'TARGET-ACTIVE') +
      taskType(target.standby, 'TARGET-STANDBY') +
      taskType(target.warmup, 'TARGET-WARMUP');
  return s;
}

/** printMembers. */
export function renderMembers(d: StreamsGroupDescription, verbose: boolean): string {
  if (!validState(d.state, d.members.length)) return '';
  let out = errorText(emptyStateMessage(d.groupId, d.state));
  const gw = Math.max(15, d.groupId.length);
  const mw = Math.max(15, ...d.members.map((m) => m.memberId.length));
  const hw = Math.max(15, ...d.members.map((m) => m.processId.length));
  const cw = Math.max(15, ...d.members.map((m) => m.clientId.length));
  if (!verbose) {
    const line = (c: string[]): string =>
      `${pad(c[0]!, gw)} ${pad(c[1]!, mw)} ${pad(c[2]!, hw)} ${pad(c[3]!, cw)} ${c[4]}\n`;
    out += line(['GROUP', 'MEMBER', 'PROCESS', 'CLIENT-ID', 'ASSIGNMENTS']);
    for (const m of d.members)
      out += line([d.groupId, m.memberId, m.processId, m.clientId, tasksString(m.assignment, null)]);
  } else {
    const line = (c: string[]): string =>
      `${pad(c[0]!, gw)} ${pad(c[1]!, 25)} ${pad(c[2]!, 15)}${pad(c[3]!, mw)} ${pad(c[4]!, 15)} ${pad(c[5]!, 15)} ` +
      `${pad(c[6]!, hw)} ${pad(c[7]!, cw)} ${c[8]}\n`;
    out += line([
      'GROUP',
      'TARGET-ASSIGNMENT-EPOCH',
      'TOPOLOGY-EPOCH',
      'MEMBER',
      'MEMBER-PROTOCOL',
      'MEMBER-EPOCH',
      'PROCESS',
      'CLIENT-ID',
      'ASSIGNMENTS',
    ]);
    for (const m of d.members)
      out += line([
        d.groupId,
        String(d.targetAssignmentEpoch),
        String(d.topologyEpoch),
        m.memberId,
        m.isClassic ? 'classic' : 'streams',
        String(m.memberEpoch),
        m.processId,
        m.clientId,
        tasksString(m.assignment, m.targetAssignment),
      ]);
  }
  return out;
}

const coordString = (c: BrokerNode): string => `${c.host}:${c.port} (${c.id})`;

/** printStates (Kafka 4.4: with the ASSIGNOR column). */
export function renderState(d: StreamsGroupDescription, verbose: boolean): string {
  let out = errorText(emptyStateMessage(d.groupId, d.state));
  const gw = Math.max(15, d.groupId.length);
  const coordinator = coordString(d.coordinator);
  const cw = Math.max(25, coordinator.length);
  const aw = Math.max(15, d.assignor.length);
  if (!verbose) {
    const line = (c: string[]): string =>
      `${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, aw)} ${pad(c[3]!, 25)} ${c[4]}\n`;
    out += line(['GROUP', 'COORDINATOR (ID)', 'ASSIGNOR', 'STATE', '#MEMBERS']);
    out += line([d.groupId, coordinator, d.assignor, d.state, String(d.members.length)]);
  } else {
    const line = (c: string[]): string =>
      `${pad(c[0]!, gw)} ${pad(c[1]!, cw)} ${pad(c[2]!, aw)} ${pad(c[3]!, 25)} ${pad(c[4]!, 15)} ${pad(c[5]!, 25)} ${c[6]}\n`;
    out += line([
      'GROUP',
      'COORDINATOR (ID)',
      'ASSIGNOR',
      'STATE',
      'GROUP-EPOCH',
      'TARGET-ASSIGNMENT-EPOCH',
      '#MEMBERS',
    ]);
    out += line([
      d.groupId,
      coordinator,
      d.assignor,
      d.state,
      String(d.groupEpoch),
      String(d.targetAssignmentEpoch),
      String(d.members.length),
    ]);
  }
  return out;
}

const assignmentJson = (a: StreamsAssignment): Record<string, StreamsTaskIds[]> => ({
  active: a.active,
  standby: a.standby,
  warmup: a.warmup,
});

/** printTopology: the description, or the status as an error (then the exit code is 1). */
export function renderTopology(d: StreamsGroupDescription): { text: string; ok: boolean } {
  const g = d.groupId;
  switch (d.topologyDescriptionStatus) {
    case 3:
      return d.topologyDescription
        ? { text: `${formatTopology(d.topologyDescription)}\n`, ok: true }
        : { text: '', ok: false };
    case 1:
      return { text: `\nError: No topology description is stored for streams group '${g}'.\n`, ok: false };
    case 2:
      return {
        text: `\nError: The broker failed to fetch the topology description for streams group '${g}'. See the broker logs for details.\n`,
        ok: false,
      };
    default:
      return {
        text: `\nError: No topology description is available for streams group '${g}' (status: ${TOPOLOGY_STATUS[d.topologyDescriptionStatus] ?? d.topologyDescriptionStatus}).\n`,
        ok: false,
      };
  }
}

/** describeGroups: each group in turn (its state message first), offsets by default; the exit code. */
export async function describeGroups(ctx: GroupsContext): Promise<number> {
  const { opts, io, format } = ctx;
  if (opts.has('topology')) {
    let code = 0;
    const docs: unknown[] = [];
    for (const id of await groupIds(ctx)) {
      const d = await describeOne(ctx, id, true);
      const r = renderTopology(d);
      if (!r.ok) code = 1;
      if (format === 'text') io.stdout.write(r.text);
      else if (!r.ok) io.stderr.write(r.text.replace(/^\n/, ''));
      docs.push({
        group: d.groupId,
        status: TOPOLOGY_STATUS[d.topologyDescriptionStatus] ?? d.topologyDescriptionStatus,
        topology: d.topologyDescription,
        text: r.ok ? r.text.replace(/\n$/, '') : null,
      });
    }
    if (format !== 'text') {
      const { writeJson } = await import('../common/output.js');
      writeJson(io, { groups: docs });
    }
    return code;
  }
  const verbose = opts.has('verbose');
  const ids = await groupIds(ctx);
  const docs: unknown[] = [];
  const rows: (string | number | bigint | null)[][] = [];
  let head: string[] = [];
  for (const id of ids) {
    const d = await describeOne(ctx, id);
    const message = d.state === 'Dead' || d.state === 'Empty' ? emptyStateMessage(d.groupId, d.state) : null;
    if (opts.has('members')) {
      if (format === 'text') io.stdout.write(renderMembers(d, verbose));
      head = ['GROUP', 'MEMBER', 'PROCESS', 'CLIENT-ID', 'MEMBER-EPOCH', 'PROTOCOL', 'ASSIGNMENTS'];
      for (const m of d.members)
        rows.push([
          d.groupId,
          m.memberId,
          m.processId,
          m.clientId,
          m.memberEpoch,
          m.isClassic ? 'classic' : 'streams',
          tasksString(m.assignment, verbose ? m.targetAssignment : null),
        ]);
      docs.push({
        group: d.groupId,
        state: d.state,
        error: message,
        targetAssignmentEpoch: d.targetAssignmentEpoch,
        topologyEpoch: d.topologyEpoch,
        members: d.members.map((m) => ({
          memberId: m.memberId,
          processId: m.processId,
          clientId: m.clientId,
          memberEpoch: m.memberEpoch,
          isClassic: m.isClassic,
          assignment: assignmentJson(m.assignment),
          targetAssignment: assignmentJson(m.targetAssignment),
        })),
      });
    } else if (opts.has('state')) {
      if (format === 'text') io.stdout.write(renderState(d, verbose));
      head = ['GROUP', 'COORDINATOR (ID)', 'ASSIGNOR', 'STATE', 'GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH', '#MEMBERS'];
      rows.push([
        d.groupId,
        coordString(d.coordinator),
        d.assignor,
        d.state,
        d.groupEpoch,
        d.targetAssignmentEpoch,
        d.members.length,
      ]);
      docs.push({
        group: d.groupId,
        coordinator: { id: d.coordinator.id, host: d.coordinator.host, port: d.coordinator.port },
        assignor: d.assignor,
        state: d.state,
        groupEpoch: d.groupEpoch,
        targetAssignmentEpoch: d.targetAssignmentEpoch,
        members: d.members.length,
        error: message,
      });
    } else {
      const offsets = await collectOffsets(ctx, d);
      if (format === 'text') io.stdout.write(renderOffsets({ description: d, offsets }, verbose));
      head = ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LEADER-EPOCH', 'LOG-END-OFFSET', 'OFFSET-LAG'];
      for (const o of offsets)
        rows.push([d.groupId, o.topic, o.partition, o.currentOffset, o.leaderEpoch, o.logEndOffset, o.lag]);
      docs.push({ group: d.groupId, state: d.state, error: message, offsets });
    }
  }
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, { groups: docs });
  } else if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(io, head, rows);
  }
  return 0;
}

/** deleteGroups: the pre-checks on ListGroups, DeleteGroups, the internal topics with --delete-all-internal-topics. */
export async function deleteGroups(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const a = await admin();
  const ids = [...new Set(await groupIds(ctx))];
  const listed = await listAll(ctx);
  const failures = new Map<string, string>();
  for (const id of ids) {
    const l = listed.find((g) => g.groupId === id);
    if (!l)
      failures.set(id, `java.lang.IllegalArgumentException: Group '${id}' does not exist or is not a streams group.`);
    else if (l.state === 'Dead')
      failures.set(id, `java.lang.IllegalStateException: Streams group '${id}' group state is DEAD.`);
    else if (l.state !== null && l.state !== 'Empty')
      failures.set(id, `org.apache.kafka.common.errors.GroupNotEmptyException: Streams group '${id}' is not EMPTY.`);
  }
  const remaining = ids.filter((id) => !failures.has(id));
  let internal = new Map<string, string[]>();
  if (remaining.length > 0 && opts.has('delete-all-internal-topics'))
    internal = await retrieveInternalTopics(ctx, remaining);
  const deleted: string[] = [];
  const topicFailures = new Map<string, string>();
  if (remaining.length > 0) {
    const r = await a.deleteStreamsGroups(ctx.client, remaining);
    for (const id of remaining) {
      const x = r.get(id)!;
      if (x.ok) deleted.push(id);
      else failures.set(id, javaMessage(x.error));
    }
    for (const id of deleted) {
      const topics = internal.get(id);
      if (!topics || topics.length === 0) continue;
      const { deleteTopics } = await import('../../client/admin/topics.js');
      const res = await deleteTopics(ctx.client, topics);
      const bad = topics.filter((t) => !(res.get(t)?.ok ?? false));
      for (const t of bad) if (format === 'text') io.stdout.write(`Failed to delete internal topic: ${t}\n`);
      if (bad.length > 0) {
        const e = res.get(bad[0]!);
        topicFailures.set(id, e && !e.ok ? javaMessage(e.error) : 'unknown error');
      }
    }
  }
  const order = stringOrder(ids);
  const ok = order.filter((g) => deleted.includes(g));
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, {
      groups: order.map((g) => ({ group: g, deleted: deleted.includes(g), error: failures.get(g) ?? null })),
    });
    return;
  }
  if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(
      io,
      ['GROUP', 'DELETED', 'ERROR'],
      order.map((g) => [g, deleted.includes(g), failures.get(g) ?? '']),
    );
    return;
  }
  let out = '';
  if (failures.size === 0) out += `Deletion of requested streams groups ('${ok.join("', '")}') was successful.\n`;
  else {
    out += '\nError: Deletion of some streams groups failed:\n';
    for (const g of order)
      if (failures.has(g)) out += `* Group '${g}' could not be deleted due to: ${failures.get(g)}\n`;
    if (ok.length > 0) out += `\nThese streams groups were deleted successfully: '${ok.join("', '")}'.\n`;
  }
  if (internal.size > 0 && ok.length > 0) {
    if (topicFailures.size === 0)
      out += `Deletion of associated internal topics of the streams groups ('${ok.filter((g) => internal.has(g)).join("', '")}') was successful.\n`;
    else {
      out += 'Deletion of some associated internal topics failed:\n';
      for (const [g, e] of topicFailures)
        out += `* Internal topics of the streams group '${g}' could not be deleted due to: ${e}\n`;
    }
  }
  if (failures.size > 0) ctx.failed = true;
  io.stdout.write(out);
}

/** isInferredInternalTopic / matchesInternalTopicFormat. */
export function isInferredInternalTopic(topic: string, applicationId: string): boolean {
  return (
    topic.startsWith(`${applicationId}-`) &&
    (topic.endsWith('-changelog') ||
      topic.endsWith('-repartition') ||
      topic.endsWith('-subscription-registration-topic') ||
      topic.endsWith('-subscription-response-topic') ||
      /^.+-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-\d+-topic$/s.test(topic) ||
      /^.+-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-\d+-topic$/s.test(topic))
  );
}

/** retrieveInternalTopics: repartition-source and changelog topics that are not source topics. */
async function retrieveInternalTopics(ctx: GroupsContext, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const described = await (await admin()).describeStreamsGroups(ctx.client, ids);
  for (const id of ids) {
    const r = described.get(id)!;
    if (!r.ok) {
      printError(ctx, `Retrieving internal topics failed due to ${javaMessage(r.error)}`);
      return new Map();
    }
    const d = r.value;
    const sources = new Set(d.subtopologies.flatMap((s) => s.sourceTopics));
    const topics = d.subtopologies
      .flatMap((s) => [...s.repartitionSourceTopics, ...s.stateChangelogTopics])
      .filter((t) => !sources.has(t))
      .filter((t) => {
        if (isInferredInternalTopic(t, d.groupId)) return true;
        printError(
          ctx,
          `The internal topic '${t}' is not inferred as internal and thus will not be deleted with the group '${d.groupId}'.`,
        );
        return false;
      });
    if (topics.length > 0) out.set(id, topics);
  }
  return out;
}

/** deleteOffsets (one group; --input-topic topics or partitions, or --all-input-topics). */
export async function deleteOffsets(ctx: GroupsContext): Promise<void> {
  const { opts, io, format } = ctx;
  const a = await admin();
  const group = opts.string('group')!;
  const results = new Map<string, { tp: TopicPartition; error: string | null }>();
  let partitions: TopicPartition[];
  if (opts.has('all-input-topics')) {
    partitions = [...(await committed(ctx, await describeOne(ctx, group, false, true), true)).values()].map(
      (c) => c.tp,
    );
  } else {
    const args = opts.valuesOf('input-topic').map(String);
    const specified = args.filter((t) => t.includes(':')).flatMap(parseTopicWithPartitions);
    const plain = [...new Set(args.filter((t) => !t.includes(':')))];
    partitions = [...specified];
    for (const t of plain) {
      try {
        partitions.push(...(await topicPartitionsOf(ctx, [t])));
      } catch (e) {
        results.set(`${t}--1`, { tp: { topic: t, partition: -1 }, error: javaMessage(e) });
      }
    }
  }
  const unique = [...new Map(partitions.map((tp) => [tpKey(tp), tp])).values()];
  const r = await a.deleteStreamsGroupOffsets(ctx.client, group, unique);
  for (const tp of unique) {
    const x = r.partitions.get(tpKey(tp));
    results.set(tpKey(tp), { tp, error: !x || x.ok ? null : javaMessage(x.error) });
  }
  const top = r.topLevel;
  let message: string | null = null;
  if (top) {
    // Errors.forException(cause): its default message (Errors.message()) and its enum name.
    const code = top.code;
    const { ApiError } = await import('../../client/errors.js');
    const known = new ApiError(code);
    if ([24, 69, 30, 68].includes(code)) message = known.message;
    else if ([86, 29, 3].includes(code)) message = 'Encountered some partition-level error, see the follow-up details.';
    else message = `Encountered some unknown error: ${known.errorName}`;
  }
  const rows = [...results.values()].sort((x, y) =>
    byString(x.tp.topic + String(x.tp.partition), y.tp.topic + String(y.tp.partition)),
  );
  if (message !== null) ctx.failed = true;
  if (format === 'json') {
    const { writeJson } = await import('../common/output.js');
    writeJson(io, {
      group,
      error: message,
      partitions: rows.map((x) => ({
        topic: x.tp.topic,
        partition: x.tp.partition < 0 ? null : x.tp.partition,
        error: x.error,
      })),
    });
    return;
  }
  if (format === 'table') {
    const { writeTable } = await import('../common/output.js');
    await writeTable(
      io,
      ['TOPIC', 'PARTITION', 'STATUS'],
      rows.map((x) => [
        x.tp.topic,
        x.tp.partition < 0 ? MISSING : x.tp.partition,
        x.error ? `Error: ${x.error}` : 'Successful',
      ]),
    );
    return;
  }
  let out =
    message === null ? `Request succeeded for deleting offsets from group ${group}.\n` : `\nError: ${message}\n`;
  const tw = Math.max(15, ...rows.map((x) => x.tp.topic.length));
  const line = (t: string, p: string, s: string): string => `\n${pad(t, tw)} ${pad(p, 10)} ${pad(s, 15)}`;
  out += line('TOPIC', 'PARTITION', 'STATUS');
  for (const x of rows)
    out += line(
      x.tp.topic,
      x.tp.partition < 0 ? MISSING : String(x.tp.partition),
      x.error ? `Error: ${x.error}` : 'Successful',
    );
  io.stdout.write(out + '\n');
}

interface GroupPlan {
  group: string;
  error: string | null;
  offsets: PlannedOffset[];
}

/** resetOffsets: only Empty / Dead / unknown groups; --execute commits and deletes the chosen internal topics. */
export async function resetOffsets(ctx: GroupsContext): Promise<void> {
  const { opts } = ctx;
  const a = await admin();
  const execute = opts.has('execute');
  const ids = await groupIds(ctx);
  const groupArgs = opts.valuesOf('group').map(String);
  const described = await a.describeStreamsGroups(ctx.client, ids);
  let plan: Map<string, PlannedOffset[]> | null = null;
  if (opts.has('from-file') && !RESET_SCENARIOS.some((s) => s !== 'from-file' && opts.has(s))) {
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
  }
  const results: GroupPlan[] = [];
  for (const group of stringOrder(ids)) {
    const r = described.get(group)!;
    let d: StreamsGroupDescription | null = null;
    if (r.ok) d = r.value;
    else if ((r.error as { code?: number }).code !== 69) failed(r.error);
    const state = d?.state ?? 'Dead';
    if (d !== null && state !== 'Empty' && state !== 'Dead') {
      const msg = `Assignments can only be reset if the group '${group}' is inactive, but the current state is ${state}.`;
      printError(ctx, msg);
      results.push({ group, error: msg, offsets: [] });
      continue;
    }
    let tps: TopicPartition[] = [];
    if (opts.has('all-input-topics')) {
      tps = d ? [...(await committed(ctx, d, true)).values()].map((c) => c.tp) : [];
    } else if (opts.has('input-topic')) {
      const args = opts.valuesOf('input-topic').map(String);
      const specified = args.filter((t) => t.includes(':')).flatMap(parseTopicWithPartitions);
      const plain = args.filter((t) => !t.includes(':'));
      tps = [...specified, ...(await topicPartitionsOf(ctx, plain))];
      await checkPartitionsExist(ctx, specified);
      let existing;
      try {
        existing = await a.listStreamsGroupOffsets(ctx.client, group);
      } catch (e) {
        failed(e);
      }
      if (!tps.every((tp) => existing.has(tpKey(tp)))) {
        printError(ctx, `One or more topics are not part of the group '${group}'.`);
        tps = [];
      }
    } else if (!opts.has('from-file')) {
      throw new UsageError('One of the reset scopes should be defined: --all-input-topics, --input-topic.');
    }
    const offsets = await prepareOffsets(ctx, group, tps, plan);
    if (execute && offsets.length > 0) {
      const res = await a.alterStreamsGroupOffsets(ctx.client, group, offsets);
      for (const o of offsets) {
        const x = res.get(tpKey(o.tp));
        // Kafka rethrows the KafkaException cause itself: its message alone
        if (x && !x.ok) throw new CommandError(x.error.message, { cause: x.error });
      }
    }
    // a group that does not exist (GroupIdNotFoundException) is reset without the topic deletion
    if (execute && d !== null) await deleteInternalTopicsAfterReset(ctx, group);
    results.push({ group, error: null, offsets });
  }
  await writeResetResults(ctx, results, groupArgs, execute);
}

/** GroupOffsetsResetter.checkAllTopicPartitionsValid: the partitions given as `topic:0,1` exist. */
async function checkPartitionsExist(ctx: GroupsContext, tps: TopicPartition[]): Promise<void> {
  if (tps.length === 0) return;
  const known = new Set<string>();
  for (const topic of new Set(tps.map((tp) => tp.topic))) {
    try {
      for (const tp of await topicPartitionsOf(ctx, [topic])) known.add(tpKey(tp));
    } catch {
      // a missing topic: none of its partitions exist
    }
  }
  const missing = tps.filter((tp) => !known.has(tpKey(tp)));
  if (missing.length > 0) throw new CommandError(`The partitions "${missing.map(tpKey).join(',')}" do not exist`);
}

async function deleteInternalTopicsAfterReset(ctx: GroupsContext, group: string): Promise<void> {
  const { opts } = ctx;
  let topics: string[] = [];
  if (opts.has('delete-all-internal-topics')) topics = (await retrieveInternalTopics(ctx, [group])).get(group) ?? [];
  else if (opts.has('delete-internal-topic')) topics = opts.valuesOf('delete-internal-topic').map(String);
  if (topics.length === 0) return;
  const { deleteTopics } = await import('../../client/admin/topics.js');
  const res = await deleteTopics(ctx.client, topics);
  const bad = topics.map((t) => res.get(t)).find((x) => x && !x.ok);
  if (bad && !bad.ok) {
    if ((bad.error as { code?: number }).code === 3)
      printError(ctx, `Deleting internal topics for group '${group}' failed because the topics do not exist.`);
    else printError(ctx, `Deleting internal topics for group '${group}' failed due to ${javaMessage(bad.error)}`);
  }
}

async function writeResetResults(
  ctx: GroupsContext,
  results: GroupPlan[],
  groupArgs: string[],
  execute: boolean,
): Promise<void> {
  const { opts, io, format } = ctx;
  if (opts.has('export')) {
    const single = groupArgs.length === 1;
    const lines = results.flatMap((r) =>
      tpOrder(r.offsets).map(
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
  io.stdout.write(renderReset(results));
}

/** printOffsetsToReset: `%n%-30s %-30s %-10s %-15s` rows, a newline at the end. */
export function renderReset(results: GroupPlan[]): string {
  const line = (g: string, t: string, p: string | number, o: string | bigint): string =>
    `\n${pad(g, 30)} ${pad(t, 30)} ${pad(p, 10)} ${pad(o, 15)}`;
  let out = results.length > 0 ? line('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET') : '';
  for (const r of results) for (const o of r.offsets) out += line(r.group, o.tp.topic, o.tp.partition, o.offset);
  return out + '\n';
}
