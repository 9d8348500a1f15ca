// Server-side assignors of KIP-848 groups: "uniform" (balanced and sticky, Kafka's UniformAssignor)
// and "range" (per topic contiguous ranges over the members sorted by id, Kafka's RangeAssignor).
import type { Assignment } from './consumer-group.js';

export interface AssignorMember {
  subscribedTopicIds: ReadonlySet<string>;
  /** the member's current target assignment (stickiness) */
  current: Assignment;
}

export interface AssignmentSpec {
  members: ReadonlyMap<string, AssignorMember>;
  /** topic id → partition count, for the topics the group subscribes to */
  topics: ReadonlyMap<string, number>;
}

export const ASSIGNORS = ['uniform', 'range'] as const;

export function assign(name: string, spec: AssignmentSpec): Map<string, Assignment> {
  return name === 'range' ? rangeAssign(spec) : uniformAssign(spec);
}

const sortedIds = (m: ReadonlyMap<string, unknown>): string[] => [...m.keys()].sort();

function put(a: Map<string, Assignment>, member: string, topic: string, p: number): void {
  let m = a.get(member);
  if (!m) a.set(member, (m = new Map()));
  let s = m.get(topic);
  if (!s) m.set(topic, (s = new Set()));
  s.add(p);
}

function emptyResult(spec: AssignmentSpec): Map<string, Assignment> {
  return new Map([...spec.members.keys()].map((id) => [id, new Map()]));
}

export function rangeAssign(spec: AssignmentSpec): Map<string, Assignment> {
  const out = emptyResult(spec);
  for (const topic of [...spec.topics.keys()].sort()) {
    const n = spec.topics.get(topic)!;
    const members = sortedIds(spec.members).filter((id) => spec.members.get(id)!.subscribedTopicIds.has(topic));
    if (members.length === 0) continue;
    const quota = Math.floor(n / members.length);
    const extra = n % members.length;
    let p = 0;
    members.forEach((id, i) => {
      const count = quota + (i < extra ? 1 : 0);
      for (let k = 0; k < count; k++) put(out, id, topic, p++);
    });
  }
  return out;
}

/**
 * Balanced and sticky. With every member subscribed to the same topics (homogeneous), each gets
 * floor(P/M) or ceil(P/M) partitions and keeps as many of its current partitions as the quota
 * allows. Otherwise partitions go, topic by topic (fewest subscribers first), to the eligible member
 * with the fewest partitions, the current owner winning ties within one partition.
 */
export function uniformAssign(spec: AssignmentSpec): Map<string, Assignment> {
  const out = emptyResult(spec);
  const ids = sortedIds(spec.members);
  if (ids.length === 0) return out;
  const first = spec.members.get(ids[0]!)!.subscribedTopicIds;
  const homogeneous = ids.every((id) => {
    const s = spec.members.get(id)!.subscribedTopicIds;
    return s.size === first.size && [...s].every((t) => first.has(t));
  });
  const topics = [...spec.topics.keys()].sort();
  const counts = new Map(ids.map((id) => [id, 0]));
  const owner = new Map<string, string>();
  for (const id of ids) {
    for (const [t, ps] of spec.members.get(id)!.current) for (const p of ps) owner.set(`${t}:${p}`, id);
  }
  if (homogeneous) {
    const all: [string, number][] = [];
    for (const t of topics) if (first.has(t)) for (let p = 0; p < spec.topics.get(t)!; p++) all.push([t, p]);
    const minQuota = Math.floor(all.length / ids.length);
    let extra = all.length % ids.length;
    const unassigned: [string, number][] = [];
    // keep current partitions up to the quota (one more while extra slots remain)
    const kept = new Map<string, [string, number][]>(ids.map((id) => [id, []]));
    for (const [t, p] of all) {
      const o = owner.get(`${t}:${p}`);
      if (o !== undefined && spec.members.has(o)) kept.get(o)!.push([t, p]);
      else unassigned.push([t, p]);
    }
    for (const id of ids) {
      const mine = kept.get(id)!;
      let quota = minQuota;
      if (mine.length > minQuota && extra > 0) {
        quota++;
        extra--;
      }
      mine.slice(0, quota).forEach(([t, p]) => put(out, id, t, p));
      unassigned.push(...mine.slice(quota));
      counts.set(id, Math.min(quota, mine.length));
    }
    unassigned.sort((a, b) => (a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1));
    for (const [t, p] of unassigned) {
      // fill members below the minimum first, then hand out the extra slots
      let target = ids.find((id) => counts.get(id)! < minQuota);
      if (target === undefined && extra > 0) {
        target = ids.find((id) => counts.get(id)! === minQuota);
        if (target !== undefined) extra--;
      }
      if (target === undefined) target = ids.reduce((a, b) => (counts.get(b)! < counts.get(a)! ? b : a));
      put(out, target, t, p);
      counts.set(target, counts.get(target)! + 1);
    }
    return out;
  }
  const subscribers = (t: string) => ids.filter((id) => spec.members.get(id)!.subscribedTopicIds.has(t));
  const order = topics
    .filter((t) => subscribers(t).length > 0)
    .sort((a, b) => subscribers(a).length - subscribers(b).length || (a < b ? -1 : 1));
  for (const t of order) {
    const eligible = subscribers(t);
    for (let p = 0; p < spec.topics.get(t)!; p++) {
      const min = Math.min(...eligible.map((id) => counts.get(id)!));
      const o = owner.get(`${t}:${p}`);
      let target = o !== undefined && eligible.includes(o) && counts.get(o)! <= min ? o : undefined;
      if (target === undefined) target = eligible.find((id) => counts.get(id)! === min)!;
      put(out, target, t, p);
      counts.set(target, counts.get(target)! + 1);
    }
  }
  return out;
}
