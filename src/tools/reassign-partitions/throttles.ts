// Replication throttles of a reassignment, as ReassignPartitionsCommand (Kafka 4.4) computes them:
// the move map (per topic and partition: the source replicas and the destination replicas, over the
// proposed partitions plus every reassignment already in flight), the topic configs
// leader.replication.throttled.replicas (`partition:broker` of every source) and
// follower.replication.throttled.replicas (every destination that is not a source), and the brokers
// whose leader/follower.replication.throttled.rate is set.
import type { PartitionTarget } from './json.js';

export const LEADER_RATE = 'leader.replication.throttled.rate';
export const FOLLOWER_RATE = 'follower.replication.throttled.rate';
export const LOG_DIRS_RATE = 'replica.alter.log.dirs.io.max.bytes.per.second';
export const LEADER_REPLICAS = 'leader.replication.throttled.replicas';
export const FOLLOWER_REPLICAS = 'follower.replication.throttled.replicas';

/** BROKER_LEVEL_THROTTLES and TOPIC_LEVEL_THROTTLES, the configs --verify/--cancel delete. */
export const BROKER_LEVEL_THROTTLES = [LEADER_RATE, FOLLOWER_RATE, LOG_DIRS_RATE] as const;
export const TOPIC_LEVEL_THROTTLES = [LEADER_REPLICAS, FOLLOWER_REPLICAS] as const;

export interface PartitionMove {
  sources: Set<number>;
  destinations: Set<number>;
}

/** topic → partition → move. */
export type MoveMap = Map<string, Map<number, PartitionMove>>;

export interface OngoingReassignment {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
}

/** calculateCurrentMoveMap: sources = replicas minus adding, destinations = adding. */
export function currentMoveMap(current: readonly OngoingReassignment[]): MoveMap {
  const map: MoveMap = new Map();
  for (const r of current) {
    const sources = new Set(r.replicas.filter((b) => !r.addingReplicas.includes(b)));
    const destinations = new Set(r.addingReplicas);
    let parts = map.get(r.topic);
    if (!parts) map.set(r.topic, (parts = new Map()));
    parts.set(r.partition, { sources, destinations });
  }
  return map;
}

/**
 * calculateProposedMoveMap: the in-flight moves, then each proposed partition: its sources are the
 * in-flight move's sources, or its current replicas; its destinations the proposed replicas that
 * are not sources.
 */
export function proposedMoveMap(
  current: readonly OngoingReassignment[],
  proposed: Iterable<PartitionTarget>,
  currentReplicas: ReadonlyMap<string, number[]>,
): MoveMap {
  const map = currentMoveMap(current);
  for (const p of proposed) {
    let parts = map.get(p.topic);
    if (!parts) map.set(p.topic, (parts = new Map()));
    const inFlight = parts.get(p.partition);
    let sources: Set<number>;
    if (inFlight) sources = new Set(inFlight.sources);
    else {
      const cur = currentReplicas.get(`${p.topic}-${p.partition}`);
      if (!cur) throw new Error(`Trying to reassign a topic partition ${p.topic}-${p.partition} with 0 replicas`);
      sources = new Set(cur);
    }
    const destinations = new Set(p.replicas.filter((b) => !sources.has(b)));
    parts.set(p.partition, { sources, destinations });
  }
  return map;
}

/** A TreeSet<String> of `partition:broker` joined by commas (string order: "10:1" before "2:1"). */
function joinSorted(components: Set<string>): string {
  return [...components].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
}

/** calculateLeaderThrottles: topic → leader.replication.throttled.replicas. */
export function leaderThrottles(map: MoveMap): Map<string, string> {
  const out = new Map<string, string>();
  for (const [topic, parts] of map) {
    const c = new Set<string>();
    for (const [p, move] of parts) for (const s of move.sources) c.add(`${p}:${s}`);
    out.set(topic, joinSorted(c));
  }
  return out;
}

/** calculateFollowerThrottles: topic → follower.replication.throttled.replicas. */
export function followerThrottles(map: MoveMap): Map<string, string> {
  const out = new Map<string, string>();
  for (const [topic, parts] of map) {
    const c = new Set<string>();
    for (const [p, move] of parts) for (const d of move.destinations) if (!move.sources.has(d)) c.add(`${p}:${d}`);
    out.set(topic, joinSorted(c));
  }
  return out;
}

/** calculateReassigningBrokers: every source and destination, ascending. */
export function reassigningBrokers(map: MoveMap): number[] {
  const s = new Set<number>();
  for (const parts of map.values())
    for (const move of parts.values()) for (const b of [...move.sources, ...move.destinations]) s.add(b);
  return [...s].sort((a, b) => a - b);
}
