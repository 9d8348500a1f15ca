// The numbers of `tkafka top`, independent of how they are shown (rpk-style: collect.ts takes a
// sample of the cluster, this module turns samples into a view model, view.ts / plainLines / json
// print it). A sample is what the cluster answered at one instant: brokers (DescribeCluster with the
// fenced ones), the quorum leader (DescribeQuorum, when answered), every partition (Metadata) with its
// log end offset (ListOffsets latest) and its topic's min.insync.replicas, and the consumer groups
// with their offsets as `consumer-groups --describe` computes them. The frame adds what needs two
// samples: produce rate per topic (log end offsets over time), consume rate per topic (the groups'
// committed offsets over time), and per group its lag rate (common/live/lag-model.ts's LagTracker).
import { LagTracker, type GroupFrame, type LagGroup } from '../common/live/lag-model.js';
import { logfmtFixed as fixed, logfmtValue as lf, type WatchView } from '../common/live/watch-loop.js';

export interface BrokerSample {
  readonly id: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
  readonly fenced: boolean;
}

export interface PartitionSample {
  readonly topic: string;
  readonly partition: number;
  /** -1: no leader. */
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** ListOffsets latest; null when the leader did not answer. */
  readonly logEndOffset: bigint | null;
}

export interface TopicSample {
  readonly name: string;
  /** Kafka's internal topics (__consumer_offsets, ...): counted in the partition problems, not listed. */
  readonly internal?: boolean;
  /** The topic's min.insync.replicas; null when unknown (DescribeConfigs failed or not allowed). */
  readonly minIsr: number | null;
  readonly partitions: readonly PartitionSample[];
}

export interface TopSample {
  /** ms since the epoch. */
  readonly at: number;
  readonly clusterId: string | null;
  /** DescribeCluster's controller id. */
  readonly controllerId: number;
  /** DescribeQuorum's leader (the active controller); null when the cluster did not answer it. */
  readonly quorumLeader: number | null;
  readonly quorumEpoch: number | null;
  readonly brokers: readonly BrokerSample[];
  readonly topics: readonly TopicSample[];
  readonly groups: readonly LagGroup[];
  /** Group id → `classic`, `consumer` or `share` (when the cluster says: ListGroups v5). */
  readonly groupTypes?: ReadonlyMap<string, string>;
  /** Why the sample failed, when it did (the last good numbers stay on screen). */
  readonly error?: string;
}

export type PartitionProblem = 'offline' | 'under-min-isr' | 'under-replicated';

export interface ProblemPartition {
  readonly topic: string;
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** Every problem of the partition, worst first. */
  readonly problems: readonly PartitionProblem[];
}

export interface BrokerView extends BrokerSample {
  readonly state: 'fenced' | 'unfenced';
  readonly controller: boolean;
  readonly quorumLeader: boolean;
  /** Partitions this broker leads / holds a replica of. */
  readonly leaders: number;
  readonly replicas: number;
}

export interface TopicView {
  readonly name: string;
  readonly partitions: number;
  /** Sum of the known log end offsets. */
  readonly logEndOffset: bigint;
  /** Records per second appended (log end offsets over the rate window); null until known. */
  readonly produceRate: number | null;
  /** Records per second committed by the consumer groups (all groups together); null until known. */
  readonly consumeRate: number | null;
  readonly underReplicated: number;
  readonly underMinIsr: number;
  readonly offline: number;
}

export interface TopGroup extends GroupFrame {
  /** `classic`, `consumer` or `share`; null when unknown. */
  readonly type: string | null;
}

export interface TopFrame {
  readonly at: number;
  readonly refreshes: number;
  readonly error?: string;
  readonly clusterId: string | null;
  readonly controllerId: number | null;
  readonly quorumLeader: number | null;
  readonly quorumEpoch: number | null;
  readonly brokers: readonly BrokerView[];
  /** The topics that are not internal, by produce rate (highest first), then name. */
  readonly topics: readonly TopicView[];
  /** Partitions with a problem (internal topics' too): offline first, then under min ISR, then under-replicated; by topic, partition. */
  readonly problems: readonly ProblemPartition[];
  readonly underReplicated: number;
  readonly underMinIsr: number;
  readonly offline: number;
  /** By total lag (highest first), then group id. */
  readonly groups: readonly TopGroup[];
}

/**
 * The problems of a partition, as Kafka's tools and metrics define them: offline (no leader, or a
 * leader that is not a live broker: TopicCommand's --unavailable-partitions, the controller's
 * OfflinePartitionsCount), under min ISR (no leader or ISR smaller than min.insync.replicas:
 * --under-min-isr-partitions), under-replicated (ISR smaller than the replicas:
 * --under-replicated-partitions, ReplicaManager's UnderReplicatedPartitions).
 */
export function partitionProblems(
  p: PartitionSample,
  minIsr: number | null,
  live: ReadonlySet<number>,
): PartitionProblem[] {
  const out: PartitionProblem[] = [];
  const hasLeader = p.leader >= 0;
  if (!hasLeader || !live.has(p.leader)) out.push('offline');
  if (minIsr !== null && (!hasLeader || p.isr.length < minIsr)) out.push('under-min-isr');
  if (p.isr.length < p.replicas.length) out.push('under-replicated');
  return out;
}

const RANK: Record<PartitionProblem, number> = { offline: 0, 'under-min-isr': 1, 'under-replicated': 2 };
const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const tpKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/**
 * Keeps recent samples and turns each new one into a frame. Rates are measured from the oldest
 * sample inside the window (default 10 s; the previous sample when none is), so one slow refresh
 * does not make them jump. Only partitions present in both samples count (a new partition or a
 * deleted topic is not traffic).
 */
export class TopTracker {
  private readonly samples: TopSample[] = [];
  private readonly lag: LagTracker;
  private refreshes = 0;
  private last: TopFrame | null = null;

  constructor(private readonly windowMs = 10_000) {
    this.lag = new LagTracker(windowMs);
  }

  add(sample: TopSample): TopFrame {
    this.refreshes++;
    if (sample.error !== undefined) {
      const base = this.last ?? emptyFrame(sample);
      return { ...base, at: sample.at, error: sample.error, refreshes: this.refreshes };
    }
    this.samples.push(sample);
    const old = this.samples.filter((s) => sample.at - s.at > this.windowMs);
    if (old.length > 1) this.samples.splice(0, old.length - 1);
    const lagFrame = this.lag.add({ at: sample.at, groups: sample.groups });
    this.last = this.frameFor(sample, lagFrame.groups);
    return this.last;
  }

  private baseline(now: TopSample): TopSample | null {
    const older = this.samples.filter((s) => s !== now && s.at < now.at);
    if (!older.length) return null;
    const inWindow = older.filter((s) => now.at - s.at <= this.windowMs);
    return inWindow.length ? inWindow[0]! : older[older.length - 1]!;
  }

  private frameFor(cur: TopSample, lagGroups: readonly GroupFrame[]): TopFrame {
    const base = this.baseline(cur);
    const dt = base ? (cur.at - base.at) / 1000 : 0;
    const live = new Set(cur.brokers.filter((b) => !b.fenced).map((b) => b.id));

    const beforeEnd = new Map<string, bigint>();
    for (const t of base?.topics ?? [])
      for (const p of t.partitions)
        if (p.logEndOffset !== null) beforeEnd.set(tpKey(t.name, p.partition), p.logEndOffset);
    const committed = (s: TopSample | null): Map<string, Map<string, bigint>> => {
      // topic → (group, partition) → committed offset
      const m = new Map<string, Map<string, bigint>>();
      for (const g of s?.groups ?? [])
        for (const r of g.offsets) {
          if (r.topic === null || r.partition === null || r.currentOffset === null || r.currentOffset < 0n) continue;
          const byTopic = m.get(r.topic) ?? new Map<string, bigint>();
          byTopic.set(`${g.group}\u0000${r.partition}`, r.currentOffset);
          m.set(r.topic, byTopic);
        }
      return m;
    };
    const nowCommitted = committed(cur);
    const beforeCommitted = base ? committed(base) : new Map<string, Map<string, bigint>>();

    const problems: ProblemPartition[] = [];
    const leaders = new Map<number, number>();
    const replicas = new Map<number, number>();
    const all = cur.topics.map((t): TopicView & { internal: boolean } => {
      let end = 0n;
      let delta = 0n;
      let common = 0;
      let urp = 0;
      let underMin = 0;
      let offline = 0;
      for (const p of t.partitions) {
        if (p.logEndOffset !== null) {
          end += p.logEndOffset;
          const prev = beforeEnd.get(tpKey(t.name, p.partition));
          if (prev !== undefined) {
            delta += p.logEndOffset - prev;
            common++;
          }
        }
        if (p.leader >= 0) leaders.set(p.leader, (leaders.get(p.leader) ?? 0) + 1);
        for (const r of p.replicas) replicas.set(r, (replicas.get(r) ?? 0) + 1);
        const ps = partitionProblems(p, t.minIsr, live);
        if (ps.includes('offline')) offline++;
        if (ps.includes('under-min-isr')) underMin++;
        if (ps.includes('under-replicated')) urp++;
        if (ps.length)
          problems.push({
            topic: t.name,
            partition: p.partition,
            leader: p.leader,
            replicas: p.replicas,
            isr: p.isr,
            problems: ps,
          });
      }
      let consumed: number | null = null;
      if (base && dt > 0) {
        const now = nowCommitted.get(t.name);
        const before = beforeCommitted.get(t.name);
        let d = 0n;
        for (const [k, v] of now ?? []) {
          const b = before?.get(k);
          if (b !== undefined) d += v - b;
        }
        consumed = Number(d) / dt;
      }
      return {
        internal: t.internal === true,
        name: t.name,
        partitions: t.partitions.length,
        logEndOffset: end,
        produceRate: base && dt > 0 && (common > 0 || t.partitions.length === 0) ? Number(delta) / dt : null,
        consumeRate: consumed,
        underReplicated: urp,
        underMinIsr: underMin,
        offline,
      };
    });
    const topics: TopicView[] = all.filter((t) => !t.internal).map(({ internal: _, ...t }) => t);
    topics.sort((a, b) => (b.produceRate ?? -1) - (a.produceRate ?? -1) || byName(a.name, b.name));
    problems.sort(
      (a, b) => RANK[a.problems[0]!] - RANK[b.problems[0]!] || byName(a.topic, b.topic) || a.partition - b.partition,
    );
    const groups = lagGroups
      .map((g): TopGroup => ({ ...g, type: cur.groupTypes?.get(g.group) ?? null }))
      .sort((a, b) => (a.totalLag === b.totalLag ? byName(a.group, b.group) : a.totalLag > b.totalLag ? -1 : 1));
    const brokers = cur.brokers.map((b): BrokerView => ({
      ...b,
      state: b.fenced ? 'fenced' : 'unfenced',
      controller: b.id === cur.controllerId,
      quorumLeader: b.id === cur.quorumLeader,
      leaders: leaders.get(b.id) ?? 0,
      replicas: replicas.get(b.id) ?? 0,
    }));
    return {
      at: cur.at,
      refreshes: this.refreshes,
      clusterId: cur.clusterId,
      controllerId: cur.controllerId,
      quorumLeader: cur.quorumLeader,
      quorumEpoch: cur.quorumEpoch,
      brokers,
      topics,
      problems,
      underReplicated: all.reduce((n, t) => n + t.underReplicated, 0),
      underMinIsr: all.reduce((n, t) => n + t.underMinIsr, 0),
      offline: all.reduce((n, t) => n + t.offline, 0),
      groups,
    };
  }
}

function emptyFrame(s: TopSample): TopFrame {
  return {
    at: s.at,
    refreshes: 0,
    clusterId: null,
    controllerId: null,
    quorumLeader: null,
    quorumEpoch: null,
    brokers: [],
    topics: [],
    problems: [],
    underReplicated: 0,
    underMinIsr: 0,
    offline: 0,
    groups: [],
  };
}

// ---- plain output (not a terminal, --no-tty, NO_COLOR) -------------------------------------------

const ids = (xs: readonly number[]): string => (xs.length ? xs.join(',') : '-');

/**
 * One refresh as logfmt lines: the cluster, a line per broker, per topic, per partition with a
 * problem, and per group (by lag). Rates are records per second (`-` until two samples exist).
 */
export function plainLines(f: TopFrame): string[] {
  const time = `time=${new Date(f.at).toISOString()}`;
  if (f.error !== undefined) return [`${time} error=${lf(f.error)}`];
  const out = [
    `${time} cluster-id=${lf(f.clusterId)} controller=${lf(f.controllerId)} quorum-leader=${lf(f.quorumLeader)} ` +
      `brokers=${f.brokers.length} fenced=${f.brokers.filter((b) => b.fenced).length} topics=${f.topics.length} ` +
      `under-replicated=${f.underReplicated} under-min-isr=${f.underMinIsr} offline=${f.offline} groups=${f.groups.length}`,
  ];
  for (const b of f.brokers)
    out.push(
      `${time} broker=${b.id} host=${lf(b.host)} port=${b.port} rack=${lf(b.rack)} state=${b.state} ` +
        `controller=${b.controller} quorum-leader=${b.quorumLeader} leaders=${b.leaders} replicas=${b.replicas}`,
    );
  for (const t of f.topics)
    out.push(
      `${time} topic=${lf(t.name)} partitions=${t.partitions} log-end-offset=${t.logEndOffset} ` +
        `produce-rate=${fixed(t.produceRate)} consume-rate=${fixed(t.consumeRate)} ` +
        `under-replicated=${t.underReplicated} under-min-isr=${t.underMinIsr} offline=${t.offline}`,
    );
  for (const p of f.problems)
    out.push(
      `${time} topic=${lf(p.topic)} partition=${p.partition} leader=${p.leader} replicas=${ids(p.replicas)} ` +
        `isr=${ids(p.isr)} problems=${p.problems.join(',')}`,
    );
  for (const g of f.groups)
    out.push(
      `${time} group=${lf(g.group)} type=${lf(g.type)} state=${lf(g.state)} total-lag=${g.totalLag} lag-rate=${fixed(g.lagRate)} ` +
        `consume-rate=${fixed(g.consumeRate)} produce-rate=${fixed(g.produceRate)}`,
    );
  return out;
}

/** The frame as `--output json` prints it (bigints as numbers when safe, else strings). */
export function jsonFrame(f: TopFrame): unknown {
  return {
    time: new Date(f.at).toISOString(),
    ...(f.error !== undefined ? { error: f.error } : {}),
    clusterId: f.clusterId,
    controllerId: f.controllerId,
    quorumLeader: f.quorumLeader,
    quorumEpoch: f.quorumEpoch,
    underReplicatedPartitions: f.underReplicated,
    underMinIsrPartitions: f.underMinIsr,
    offlinePartitions: f.offline,
    brokers: f.brokers.map((b) => ({
      id: b.id,
      host: b.host,
      port: b.port,
      rack: b.rack,
      state: b.state,
      controller: b.controller,
      quorumLeader: b.quorumLeader,
      leaders: b.leaders,
      replicas: b.replicas,
    })),
    topics: f.topics,
    problemPartitions: f.problems,
    groups: f.groups.map((g) => ({
      group: g.group,
      type: g.type,
      state: g.state,
      totalLag: g.totalLag,
      lagRate: g.lagRate,
      consumeRate: g.consumeRate,
      produceRate: g.produceRate,
      partitions: g.rows
        .filter((r) => r.topic !== null)
        .map((r) => ({
          topic: r.topic,
          partition: r.partition,
          currentOffset: r.currentOffset,
          logEndOffset: r.logEndOffset,
          lag: r.lag,
          lagRate: r.lagRate,
          consumerId: r.consumerId ?? null,
        })),
    })),
  };
}

/** The live screen a watch draws frames on (view.ts; mounted only on a terminal). */
export type TopView = WatchView<TopFrame>;
