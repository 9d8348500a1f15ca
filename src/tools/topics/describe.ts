// `tkafka topics --describe`: the view model (TopicCommand.describeTopic's data and filters) and
// its three renderings. Kafka's text: a topic line, then one TAB-separated line per partition, in
// the order Kafka prints them (topics in DescribeTopicsResult's HashMap order, configs in Config's
// HashMap order, partitions by id).
import type { KafkaClient } from '../../client/client.js';
import type { ToolIO } from '../common/io.js';
import type { OutputFormat, TableSection } from '../common/output.js';
import { JavaHashMapOrder, describeTopicsOrder, javaStringHash } from './java-order.js';
import { ZERO_UUID } from '../../protocol/uuid.js';

export interface DescribeFilters {
  underReplicated: boolean;
  unavailable: boolean;
  underMinIsr: boolean;
  atMinIsr: boolean;
  topicsWithOverrides: boolean;
}

export interface PartitionView {
  topic: string;
  partition: number;
  leader: number | null;
  replicas: number[];
  isr: number[];
  /** null when the broker did not report ELR (Metadata fallback): Kafka prints N/A. */
  elr: number[] | null;
  lastKnownElr: number[] | null;
  reassignment: { addingReplicas: number[]; removingReplicas: number[] } | null;
}

export interface TopicView {
  name: string;
  topicId: string;
  partitionCount: number;
  replicationFactor: number;
  /** Non-default configs, in Kafka's print order. */
  configs: { name: string; value: string | null }[];
  /** Whether the topic line is printed (no partition filter; overrides present with --topics-with-overrides). */
  showTopic: boolean;
  /** The partitions printed. */
  partitions: PartitionView[];
}

export interface DescribeView {
  topics: TopicView[];
}

export async function buildDescribeView(
  client: KafkaClient,
  topicNames: string[] | null,
  topicIds: string[] | null,
  filters: DescribeFilters,
  partitionLimit: number | undefined,
): Promise<DescribeView> {
  const [
    { describeTopics, describeTopicsById, listPartitionReassignments },
    { describeConfigs, ResourceType },
    { describeCluster },
    { UnsupportedApiError, ApiError },
  ] = await Promise.all([
    import('../../client/admin/topics.js'),
    import('../../client/admin/configs.js'),
    import('../../client/admin/cluster.js'),
    import('../../client/errors.js'),
  ]);
  const described = topicIds
    ? await describeTopicsById(client, topicIds)
    : await describeTopics(client, topicNames ?? [], { partitionLimit });
  const descriptions = [];
  for (const [, r] of described) {
    if (!r.ok) throw r.error;
    descriptions.push(r.value);
  }
  const byName = new Map(descriptions.map((d) => [d.name, d]));
  const order = topicIds ? descriptions.map((d) => d.name) : describeTopicsOrder([...byName.keys()].sort());
  const configs = await describeConfigs(
    client,
    order.map((name) => ({ type: ResourceType.TOPIC, name })),
  );
  const live = new Set((await describeCluster(client)).nodes.map((n) => n.id));
  let reassignments = new Map<string, { replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }>();
  const tps = descriptions.flatMap((d) => d.partitions.map((p) => ({ topic: d.name, partition: p.partition })));
  if (tps.length > 0) {
    try {
      reassignments = await listPartitionReassignments(client, tps);
    } catch (e) {
      // Kafka ignores brokers without the API and clusters that deny it.
      if (!(e instanceof UnsupportedApiError) && !(e instanceof ApiError && (e.code === 35 || e.code === 31))) throw e;
    }
  }
  const describeConfigsLine =
    !filters.underReplicated && !filters.unavailable && !filters.underMinIsr && !filters.atMinIsr;
  const view: DescribeView = { topics: [] };
  for (const name of order) {
    const td = byName.get(name)!;
    const cfg = configs.get(`${ResourceType.TOPIC}:${name}`);
    if (!cfg || !cfg.ok) throw cfg?.ok === false ? cfg.error : new Error(`No configs for topic ${name}`);
    const entries = new Map(cfg.value.map((e) => [e.name, e]));
    const hm = new JavaHashMapOrder<string>(javaStringHash);
    for (const e of cfg.value) hm.put(e.name);
    const nonDefault = hm
      .keys()
      .map((k) => entries.get(k)!)
      .filter((e) => !e.isDefault)
      .map((e) => ({ name: e.name, value: e.value }));
    const minIsrEntry = entries.get('min.insync.replicas');
    const minIsr = minIsrEntry?.value != null ? Number(minIsrEntry.value) : NaN;
    const sorted = [...td.partitions].sort((a, b) => a.partition - b.partition);
    const ra = (p: number) => reassignments.get(`${name}-${p}`) ?? null;
    const rf = (p: (typeof sorted)[number]): number => {
      const r = ra(p.partition);
      const inProgress =
        r !== null && p.replicas.some((id) => r.addingReplicas.includes(id) || r.removingReplicas.includes(id));
      return inProgress ? r.replicas.length - r.addingReplicas.length : p.replicas.length;
    };
    const topic: TopicView = {
      name,
      topicId: td.topicId,
      partitionCount: sorted.length,
      replicationFactor: sorted.length > 0 ? rf(sorted[0]!) : 0,
      configs: nonDefault,
      showTopic: describeConfigsLine && (!filters.topicsWithOverrides || nonDefault.length > 0),
      partitions: [],
    };
    if (!filters.topicsWithOverrides) {
      for (const p of sorted) {
        const hasLeader = p.leader !== null;
        const show =
          describeConfigsLine ||
          (filters.underReplicated && rf(p) - p.isr.length > 0) ||
          (filters.unavailable && (!hasLeader || !live.has(p.leader!))) ||
          (filters.underMinIsr && (!hasLeader || p.isr.length < minIsr)) ||
          (filters.atMinIsr && minIsr === p.isr.length);
        if (!show) continue;
        const r = ra(p.partition);
        topic.partitions.push({
          topic: name,
          partition: p.partition,
          leader: p.leader,
          replicas: p.replicas,
          isr: p.isr,
          elr: p.elr,
          lastKnownElr: p.lastKnownElr,
          reassignment: r ? { addingReplicas: r.addingReplicas, removingReplicas: r.removingReplicas } : null,
        });
      }
    }
    if (topic.showTopic || topic.partitions.length > 0) view.topics.push(topic);
  }
  return view;
}

const ids = (xs: number[]): string => xs.join(',');

export function describeTextLines(view: DescribeView): string[] {
  const lines: string[] = [];
  for (const t of view.topics) {
    if (t.showTopic) {
      let line = `Topic: ${t.name}`;
      if (t.topicId !== ZERO_UUID) line += `\tTopicId: ${t.topicId}`;
      line += `\tPartitionCount: ${t.partitionCount}\tReplicationFactor: ${t.replicationFactor}`;
      line += `\tConfigs: ${t.configs.map((c) => `${c.name}=${c.value}`).join(',')}`;
      lines.push(line);
    }
    for (const p of t.partitions) {
      let line = `\tTopic: ${p.topic}\tPartition: ${p.partition}\tLeader: ${p.leader === null ? 'none' : p.leader}`;
      line += `\tReplicas: ${ids(p.replicas)}\tIsr: ${ids(p.isr)}`;
      if (p.reassignment)
        line += `\tAdding Replicas: ${ids(p.reassignment.addingReplicas)}\tRemoving Replicas: ${ids(p.reassignment.removingReplicas)}`;
      line += `\tElr: ${p.elr === null ? 'N/A' : ids(p.elr)}\tLastKnownElr: ${p.lastKnownElr === null ? 'N/A' : ids(p.lastKnownElr)}`;
      lines.push(line);
    }
  }
  return lines;
}

/** The JSON document of `--describe --output json` (documented in tkafka topics --help). */
export function describeJson(view: DescribeView): unknown {
  return {
    topics: view.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitionCount: t.partitionCount,
      replicationFactor: t.replicationFactor,
      configs: Object.fromEntries(t.configs.map((c) => [c.name, c.value])),
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        leader: p.leader,
        replicas: p.replicas,
        isr: p.isr,
        elr: p.elr,
        lastKnownElr: p.lastKnownElr,
        addingReplicas: p.reassignment?.addingReplicas ?? [],
        removingReplicas: p.reassignment?.removingReplicas ?? [],
      })),
    })),
  };
}

export function describeTables(view: DescribeView): TableSection[] {
  const out: TableSection[] = [];
  const topics = view.topics.filter((t) => t.showTopic);
  if (topics.length > 0) {
    out.push({
      head: ['TOPIC', 'TOPIC ID', 'PARTITIONS', 'REPLICATION FACTOR', 'CONFIGS'],
      rows: topics.map((t) => [
        t.name,
        t.topicId,
        t.partitionCount,
        t.replicationFactor,
        t.configs.map((c) => `${c.name}=${c.value}`).join(','),
      ]),
    });
  }
  const parts = view.topics.flatMap((t) => t.partitions);
  if (parts.length > 0) {
    out.push({
      head: ['TOPIC', 'PARTITION', 'LEADER', 'REPLICAS', 'ISR', 'ELR', 'LAST KNOWN ELR', 'ADDING', 'REMOVING'],
      rows: parts.map((p) => [
        p.topic,
        p.partition,
        p.leader === null ? 'none' : p.leader,
        ids(p.replicas),
        ids(p.isr),
        p.elr === null ? 'N/A' : ids(p.elr),
        p.lastKnownElr === null ? 'N/A' : ids(p.lastKnownElr),
        ids(p.reassignment?.addingReplicas ?? []),
        ids(p.reassignment?.removingReplicas ?? []),
      ]),
    });
  }
  return out;
}

export async function renderDescribe(io: ToolIO, view: DescribeView, format: OutputFormat): Promise<void> {
  const { writeJson, writeLines, writeTables } = await import('../common/output.js');
  if (format === 'json') writeJson(io, describeJson(view));
  else if (format === 'table') await writeTables(io, describeTables(view));
  else writeLines(io, describeTextLines(view));
}
