// One sample of a cluster for `tkafka top` (model.ts turns samples into frames): DescribeCluster
// with the fenced brokers (plain DescribeCluster before v2), DescribeQuorum for the active
// controller (null when the cluster does not answer it), Metadata for every partition, ListOffsets
// latest for the partitions that have a live leader, DescribeConfigs for min.insync.replicas, and
// the consumer groups (classic and consumer) with their offsets and lag exactly as
// `consumer-groups --describe` computes them (consumer-groups/describe.ts collectGroupsView), and the
// share groups with their start offsets and lag (DescribeShareGroupOffsets, as share-groups --describe).
import type { KafkaClient } from '../../client/client.js';
import type { JoptOptions } from '../common/jopt.js';
import type { ToolIO } from '../common/io.js';
import type { LagGroup } from '../common/live/lag-model.js';
import { errorLine } from '../common/errors.js';
import type { SharePartitionOffset } from '../../client/admin/share-groups.js';
import type { BrokerSample, TopicSample, TopSample } from './model.js';

export interface CollectOptions {
  /** Only these topics (default: every topic; internal ones only count in the partition problems). */
  topics?: readonly string[];
  /** Only these groups (default: every consumer group). */
  groups?: readonly string[];
}

async function brokers(
  client: KafkaClient,
): Promise<{ clusterId: string | null; controllerId: number; brokers: BrokerSample[] }> {
  const { describeCluster } = await import('../../client/admin/cluster.js');
  const { UnsupportedApiError } = await import('../../client/errors.js');
  let d;
  try {
    d = await describeCluster(client, { includeFencedBrokers: true });
  } catch (e) {
    if (!(e instanceof UnsupportedApiError)) throw e;
    d = await describeCluster(client);
  }
  return {
    clusterId: d.clusterId,
    controllerId: d.controllerId,
    brokers: d.nodes.map((n) => ({ id: n.id, host: n.host, port: n.port, rack: n.rack, fenced: n.fenced })),
  };
}

async function quorum(client: KafkaClient): Promise<{ leader: number; epoch: number } | null> {
  const { describeQuorum } = await import('../metadata-quorum/quorum.js');
  try {
    const q = await describeQuorum(client, 'broker');
    return { leader: q.leaderId, epoch: q.leaderEpoch };
  } catch {
    return null; // not authorized, or an implementation without DescribeQuorum
  }
}

async function minIsrs(client: KafkaClient, topics: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (topics.length === 0) return out;
  const { describeConfigs, ResourceType, resourceKey } = await import('../../client/admin/configs.js');
  try {
    const r = await describeConfigs(
      client,
      topics.map((name) => ({ type: ResourceType.TOPIC, name })),
    );
    for (const t of topics) {
      const c = r.get(resourceKey({ type: ResourceType.TOPIC, name: t }));
      const v = c?.ok ? c.value.find((e) => e.name === 'min.insync.replicas')?.value : undefined;
      if (v !== undefined && v !== null && /^\d+$/.test(v)) out.set(t, Number(v));
    }
  } catch {
    // not authorized: under-min-ISR stays unknown
  }
  return out;
}

export async function collectSample(
  client: KafkaClient,
  opts: JoptOptions,
  io: ToolIO,
  filter: CollectOptions,
  now: () => number = Date.now,
): Promise<TopSample> {
  const cluster = await brokers(client);
  const q = await quorum(client);
  const md = await client.metadata({ refresh: true });
  const wanted = filter.topics ? new Set(filter.topics) : null;
  const names = [...md.topics.values()]
    .filter((t) => t.errorCode === 0 && (!wanted || wanted.has(t.name)))
    .map((t) => t.name)
    .sort();
  const internal = (name: string): boolean => md.topics.get(name)!.internal && !wanted;
  const live = new Set(cluster.brokers.filter((b) => !b.fenced).map((b) => b.id));
  const tps = names
    .filter((name) => !internal(name))
    .flatMap((name) =>
      md.topics
        .get(name)!
        .partitions.filter((p) => p.leader >= 0 && live.has(p.leader))
        .map((p) => ({ topic: name, partition: p.partition })),
    );
  const { listOffsets, OffsetSpec, tpKey } = await import('../../client/admin/offsets.js');
  const [ends, mins] = await Promise.all([
    tps.length ? listOffsets(client, tps, OffsetSpec.LATEST) : Promise.resolve(new Map()),
    minIsrs(client, names),
  ]);
  const at = now();
  const topics: TopicSample[] = names.map((name) => ({
    name,
    internal: internal(name),
    minIsr: mins.get(name) ?? null,
    partitions: md.topics.get(name)!.partitions.map((p) => {
      const o = ends.get(tpKey({ topic: name, partition: p.partition }));
      return {
        topic: name,
        partition: p.partition,
        leader: p.leader,
        replicas: p.replicas,
        isr: p.isr,
        logEndOffset: o && o.ok ? (o.value.offset as bigint) : null,
      };
    }),
  }));

  const { listConsumerGroups } = await import('../../client/admin/groups.js');
  const { collectGroupsView } = await import('../consumer-groups/describe.js');
  const groupTypes = new Map<string, string>();
  const listed = await listConsumerGroups(client);
  for (const g of listed) if (g.type) groupTypes.set(g.groupId, g.type.toLowerCase());
  // named groups are described even when not listed (a Dead group, or its coordinator is down)
  const groupIds = filter.groups ? [...new Set(filter.groups)] : listed.map((g) => g.groupId);
  const shares = await shareGroups(client, filter.groups);
  const consumerIds = groupIds.filter((g) => !shares.some((s) => s.group === g));
  const ctx = { client, opts, io, format: 'text' as const, failed: false };
  let views: LagGroup[];
  try {
    views = await collectGroupsView(ctx, true, consumerIds);
  } catch {
    // one group's coordinator does not answer: the others are still shown, that one without offsets
    views = [];
    for (const id of consumerIds) {
      try {
        views.push(...(await collectGroupsView(ctx, true, [id])));
      } catch (e) {
        views.push({ group: id, state: `Unavailable (${errorLine(e)})`, offsets: [] });
      }
    }
  }
  for (const s of shares) groupTypes.set(s.group, 'share');
  return {
    at,
    clusterId: cluster.clusterId,
    controllerId: cluster.controllerId,
    quorumLeader: q?.leader ?? null,
    quorumEpoch: q?.epoch ?? null,
    brokers: cluster.brokers,
    topics,
    groups: [...views.map((v) => ({ group: v.group, state: v.state, offsets: v.offsets })), ...shares],
    groupTypes,
  };
}

/**
 * The share groups (all, or those of `only` that are share groups) with their start offsets and
 * lag (DescribeShareGroupOffsets); none when the cluster has no share groups API.
 */
async function shareGroups(client: KafkaClient, only: readonly string[] | undefined): Promise<LagGroup[]> {
  const admin = await import('../../client/admin/share-groups.js');
  let ids: string[];
  try {
    ids = (await admin.listShareGroups(client)).map((g) => g.groupId);
  } catch {
    return [];
  }
  if (only) ids = ids.filter((g) => only.includes(g));
  if (ids.length === 0) return [];
  const described = await admin.describeShareGroups(client, ids);
  const out: LagGroup[] = [];
  for (const id of ids.sort()) {
    const d = described.get(id);
    if (!d?.ok) continue;
    let listed: Map<string, SharePartitionOffset>;
    try {
      listed = await admin.listShareGroupOffsets(client, id);
    } catch {
      listed = new Map(); // its share-state partitions are unavailable: the group is shown without offsets
    }
    const offsets = [...listed.values()]
      .sort((a, b) => (a.tp.topic < b.tp.topic ? -1 : a.tp.topic > b.tp.topic ? 1 : a.tp.partition - b.tp.partition))
      .map((o) => ({
        topic: o.tp.topic,
        partition: o.tp.partition,
        currentOffset: o.startOffset,
        logEndOffset: null,
        lag: o.lag,
      }));
    out.push({ group: id, state: d.value.state, offsets });
  }
  return out;
}
