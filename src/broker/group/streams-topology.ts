// A streams group's topology against the metadata (Kafka 4.4's InternalTopicManager.configureTopics
// with RepartitionTopics, CopartitionedTopicsEnforcer and ChangelogTopics): source topics must
// exist, repartition topics get the partition count of their upstream sources (or their own fixed
// count), copartitioned topics must agree, changelog topics get the count of their subtopology's
// sources; the number of tasks of a subtopology is the largest partition count of its sources. What
// is missing becomes CreatableTopics for the broker to create, with the topology's configs.
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import { javaStringHashCode } from '../../protocol/partitioner.js';
import type { StreamsGroupTopologyValueSubtopology } from '../../protocol/generated/group/StreamsGroupTopology.js';

/** The topology as the StreamsGroupTopology record keeps it (StreamsTopology in streams-group.ts). */
interface TopologyLike {
  epoch: number;
  subtopologies: ReadonlyMap<string, StreamsGroupTopologyValueSubtopology>;
}

/** What the configuration needs of a topic in the metadata. */
interface TopicLike {
  numPartitions: number;
}

/** StreamsGroupHeartbeatResponse.Status codes. */
export const StreamsStatus = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
  MISSING_CLIENT_TAGS: 6,
} as const;

export interface ConfiguredInternalTopic {
  name: string;
  numberOfPartitions: number;
  /** null: the broker default (replication factor 0 in the topology) */
  replicationFactor: number | null;
  topicConfigs: Map<string, string>;
}

export interface ConfiguredSubtopology {
  numberOfTasks: number;
  sourceTopics: Set<string>;
  repartitionSourceTopics: Map<string, ConfiguredInternalTopic>;
  repartitionSinkTopics: Set<string>;
  stateChangelogTopics: Map<string, ConfiguredInternalTopic>;
}

/** A CreatableTopic of CreateTopics: replication factor -1 for the broker default. */
export interface InternalTopicToCreate {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  configs: { name: string; value: string }[];
}

export interface ConfiguredTopology {
  topologyEpoch: number;
  metadataHash: bigint;
  /** by subtopology id, sorted; null when the configuration failed */
  subtopologies: Map<string, ConfiguredSubtopology> | null;
  internalTopicsToBeCreated: Map<string, InternalTopicToCreate>;
  /** TopicConfigurationException: the status and message the heartbeat reports */
  error: { status: number; message: string } | null;
}

export const isReady = (t: ConfiguredTopology): boolean => t.error === null;

class TopicConfigurationError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** StreamsInvalidTopologyException: the heartbeat fails with STREAMS_INVALID_TOPOLOGY. */
const invalidTopology = (msg: string): KafkaError => new KafkaError(ErrorCode.STREAMS_INVALID_TOPOLOGY, msg);

/** The iteration order of a java.util.HashMap<String, …> filled with `keys` in order (capacity as sized). */
export function javaHashMapOrder(keys: readonly string[], initialCapacity = 16): string[] {
  let cap = 1;
  while (cap < Math.max(1, initialCapacity)) cap <<= 1;
  const distinct = [...new Set(keys)];
  while (distinct.length > cap * 0.75) cap <<= 1;
  const bucket = (k: string) => {
    const h = javaStringHashCode(k);
    return (h ^ (h >>> 16)) & (cap - 1);
  };
  return distinct
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.k);
}

/** InternalTopicManager.summarizeTopics. */
export function summarizeTopics(topics: Iterable<string>): string {
  const l = [...topics];
  if (l.length === 0) return '<none>';
  return l.slice(0, 3).join(', ') + (l.length > 3 ? ` and ${l.length - 3} additional topics` : '');
}

type CountOf = (topic: string) => number | undefined;

/** RepartitionTopics.setup. */
function repartitionTopicCounts(subs: StreamsGroupTopologyValueSubtopology[], countOf: CountOf): Map<string, number> {
  const missing = new Set<string>();
  for (const s of subs) {
    const ext = new Set(s.sourceTopics);
    for (const r of s.repartitionSourceTopics) ext.delete(r.name);
    for (const t of ext) if (countOf(t) === undefined) missing.add(t);
  }
  if (missing.size > 0) throw new Error(`Missing source topics: ${[...missing].join(', ')}`);
  const counts = new Map<string, number>();
  for (const s of subs)
    for (const r of s.repartitionSourceTopics) if (r.partitions !== 0) counts.set(r.name, r.partitions);
  const computeFor = (s: StreamsGroupTopologyValueSubtopology): number | undefined => {
    let n: number | undefined;
    for (const r of s.repartitionSourceTopics) {
      const c = counts.get(r.name);
      if (c !== undefined && (n === undefined || c > n)) n = c;
    }
    for (const t of s.sourceTopics) {
      const c = countOf(t);
      if (c !== undefined && (n === undefined || c > n)) n = c;
    }
    return n;
  };
  let needed: boolean;
  do {
    needed = false;
    let progress = false;
    for (const s of subs)
      for (const sink of s.repartitionSinkTopics) {
        if (counts.has(sink)) continue;
        const n = computeFor(s);
        if (n === undefined) needed = true;
        else {
          counts.set(sink, n);
          progress = true;
        }
      }
    if (!progress && needed)
      throw invalidTopology(
        'Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.',
      );
  } while (needed);
  for (const s of subs)
    if (s.repartitionSourceTopics.some((r) => !counts.has(r.name)))
      throw invalidTopology(
        'Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.',
      );
  return counts;
}

const sortedEntries = (m: Map<string, number>): string =>
  `{${[...m]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')}}`;

/** CopartitionedTopicsEnforcer.enforce. */
function enforceCopartitioning(
  group: Set<string>,
  fixed: Set<string>,
  flexible: Set<string>,
  countOf: CountOf,
): Map<string, number> {
  if (group.size === 0) return new Map();
  const count = (t: string): number => {
    const c = countOf(t);
    if (c === undefined) throw new Error(`Number of partitions is not set for topic: ${t}`);
    return c;
  };
  const repartition = new Map<string, number>();
  const others = new Map<string, number>();
  for (const t of group) (fixed.has(t) || flexible.has(t) ? repartition : others).set(t, count(t));
  let n: number;
  if (repartition.size === group.size) {
    if (fixed.size > 0) {
      const first = count(fixed.values().next().value!);
      for (const t of fixed)
        if (count(t) !== first)
          throw new TopicConfigurationError(
            StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
            `Following topics do not have the same number of partitions: [${sortedEntries(repartition)}]`,
          );
      n = first;
    } else {
      n = Math.max(0, ...repartition.values());
      if (n === 0)
        throw invalidTopology(
          `All topics in the copartition group had undefined partition number: [${[...repartition.keys()].join(', ')}]`,
        );
    }
  } else {
    const vals = [...others.values()];
    n = vals[0]!;
    if (vals.some((v) => v !== n))
      throw new TopicConfigurationError(
        StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
        `Following topics do not have the same number of partitions: [${sortedEntries(others)}]`,
      );
  }
  const out = new Map<string, number>();
  for (const [t, c] of repartition) {
    out.set(t, n);
    if (fixed.has(t) && c !== n)
      throw new TopicConfigurationError(
        StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
        `Number of partitions [${c}] of repartition topic [${t}] doesn't match number of partitions [${n}] of the source topic.`,
      );
  }
  return out;
}

/** InternalTopicManager.configureTopics. */
export function configureTopics(
  topology: TopologyLike,
  metadataHash: bigint,
  topic: (name: string) => TopicLike | undefined,
): ConfiguredTopology {
  const subs = [...topology.subtopologies.values()];
  const decided = new Map<string, number>();
  const countOf: CountOf = (t) => topic(t)?.numPartitions ?? decided.get(t);
  try {
    const missingSources = new Set<string>();
    for (const s of subs) for (const t of s.sourceTopics) if (!topic(t)) missingSources.add(t);
    if (missingSources.size > 0)
      throw new TopicConfigurationError(
        StreamsStatus.MISSING_SOURCE_TOPICS,
        `Source topics ${summarizeTopics([...missingSources].sort())} are missing.`,
      );
    for (const [t, n] of repartitionTopicCounts(subs, countOf)) decided.set(t, n);
    const fixed = new Set(
      subs.flatMap((s) => s.repartitionSourceTopics.filter((r) => r.partitions !== 0).map((r) => r.name)),
    );
    const flexible = new Set(
      subs.flatMap((s) => s.repartitionSourceTopics.filter((r) => r.partitions === 0).map((r) => r.name)),
    );
    for (const s of subs)
      for (const g of s.copartitionGroups) {
        const names = new Set([
          ...g.sourceTopics.map((i) => s.sourceTopics[i]!),
          ...g.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i]!.name),
        ]);
        for (const [t, n] of enforceCopartitioning(names, fixed, flexible, countOf)) decided.set(t, n);
      }
    // ChangelogTopics.setup
    const changelogs = new Map<string, number>();
    for (const s of subs) {
      const counts = [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)].map((t) => {
        const c = countOf(t);
        if (c === undefined) throw new Error(`No partition count for source topic ${t}`);
        return c;
      });
      if (counts.length === 0) throw invalidTopology(`No source topics found for subtopology ${s.subtopologyId}`);
      const max = Math.max(...counts);
      for (const c of s.stateChangelogTopics) changelogs.set(c.name, max);
    }
    for (const [t, n] of changelogs) decided.set(t, n);

    const internal = (
      t: StreamsGroupTopologyValueSubtopology['stateChangelogTopics'][number],
    ): ConfiguredInternalTopic => {
      const n = t.partitions === 0 ? decided.get(t.name) : t.partitions;
      if (n === undefined) throw new Error(`Number of partitions must be set for topic ${t.name}`);
      return {
        name: t.name,
        numberOfPartitions: n,
        replicationFactor: t.replicationFactor === 0 ? null : t.replicationFactor,
        topicConfigs: new Map((t.topicConfigs ?? []).map((c) => [c.key, c.value])),
      };
    };
    const configured = new Map<string, ConfiguredSubtopology>();
    for (const s of [...subs].sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : 1))) {
      const counts = [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)].map((t) => countOf(t)!);
      configured.set(s.subtopologyId, {
        numberOfTasks: Math.max(...counts),
        sourceTopics: new Set(s.sourceTopics),
        repartitionSourceTopics: new Map(s.repartitionSourceTopics.map((r) => [r.name, internal(r)])),
        repartitionSinkTopics: new Set(s.repartitionSinkTopics),
        stateChangelogTopics: new Map(s.stateChangelogTopics.map((c) => [c.name, internal(c)])),
      });
    }
    // missingInternalTopics
    const toCreate = new Map<string, InternalTopicToCreate>();
    for (const s of configured.values())
      for (const t of [...s.repartitionSourceTopics.values(), ...s.stateChangelogTopics.values()])
        toCreate.set(t.name, {
          name: t.name,
          numPartitions: t.numberOfPartitions,
          replicationFactor: t.replicationFactor ?? -1,
          configs: [...t.topicConfigs].map(([name, value]) => ({ name, value })),
        });
    const required = new Set(
      subs.flatMap((s) => [
        ...s.sourceTopics,
        ...s.repartitionSourceTopics.map((r) => r.name),
        ...s.stateChangelogTopics.map((c) => c.name),
      ]),
    );
    for (const t of required) {
      const existing = topic(t);
      if (!existing) continue;
      const expected = toCreate.get(t);
      toCreate.delete(t);
      if (expected && existing.numPartitions !== expected.numPartitions)
        throw new TopicConfigurationError(
          StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS,
          `Existing topic ${t} has different number of partitions: expected ${expected.numPartitions}, found ${existing.numPartitions}`,
        );
    }
    return {
      topologyEpoch: topology.epoch,
      metadataHash,
      subtopologies: configured,
      internalTopicsToBeCreated: toCreate,
      error:
        toCreate.size > 0
          ? {
              status: StreamsStatus.MISSING_INTERNAL_TOPICS,
              message: `Internal topics are missing: ${summarizeTopics(javaHashMapOrder([...toCreate.keys()]))}`,
            }
          : null,
    };
  } catch (e) {
    if (e instanceof TopicConfigurationError)
      return {
        topologyEpoch: topology.epoch,
        metadataHash,
        subtopologies: null,
        internalTopicsToBeCreated: new Map(),
        error: { status: e.status, message: e.message },
      };
    if (e instanceof KafkaError) throw e;
    throw new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, (e as Error).message);
  }
}
