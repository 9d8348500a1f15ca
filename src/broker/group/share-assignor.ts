// The share groups' "simple" assignor (Kafka 4.4's SimpleAssignor): several members may be assigned
// the same partition. Only partitions whose share-partition state is initialized are assignable
// (GroupSpec.isPartitionAssignable). Per topic, among the members subscribing to it:
// - balance first: each partition is shared by ceil(members / partitions) members and each member
//   gets its share of the assignments (desiredAssignmentCount as SimpleHomogeneousAssignmentBuilder
//   computes it: the counts differ by at most one);
// - stickiness second: a member keeps what it already had as far as balance allows.
// Kafka iterates Java hash maps, so which member gets which partition when several answers are
// balanced may differ; the counts and the stickiness do not.
import type { Assignment } from './consumer-group.js';

export interface ShareAssignorMember {
  subscribedTopicIds: ReadonlySet<string>;
  /** The member's current target assignment. */
  current: Assignment;
}

export interface ShareAssignorInput {
  members: ReadonlyMap<string, ShareAssignorMember>;
  /** topic id → assignable (initialized) partitions */
  assignable: ReadonlyMap<string, ReadonlySet<number>>;
}

/** SimpleHomogeneousAssignmentBuilder's desiredAssignmentCount for member index `i` of `n`. */
function desiredCounts(numMembers: number, numPartitions: number): number[] {
  if (numPartitions === 0) return new Array<number>(numMembers).fill(0);
  const sharing = Math.floor((numMembers + numPartitions - 1) / numPartitions);
  const precise = (sharing * numPartitions) / numMembers;
  const out: number[] = [];
  for (let i = 0; i < numMembers; i++) out.push(Math.ceil(precise * (i + 1)) - Math.ceil(precise * i));
  return out;
}

/** Assigns one topic's partitions among its subscribers: member id → partitions. */
function assignTopic(
  topicId: string,
  partitions: readonly number[],
  memberIds: readonly string[],
  members: ReadonlyMap<string, ShareAssignorMember>,
): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>(memberIds.map((m) => [m, new Set<number>()]));
  if (partitions.length === 0 || memberIds.length === 0) return out;
  const sharing = Math.floor((memberIds.length + partitions.length - 1) / partitions.length);
  const desired = desiredCounts(memberIds.length, partitions.length);
  const holders = new Map<number, Set<string>>(partitions.map((p) => [p, new Set<string>()]));
  // stickiness: keep current assignments within the member's desired count and the partition's sharing
  memberIds.forEach((m, i) => {
    for (const p of [...(members.get(m)!.current.get(topicId) ?? [])].sort((a, b) => a - b)) {
      const h = holders.get(p);
      if (!h || h.size >= sharing || out.get(m)!.size >= desired[i]!) continue;
      h.add(m);
      out.get(m)!.add(p);
    }
  });
  // fill: the least shared partitions go to the members with the most room
  for (;;) {
    const open = memberIds
      .map((m, i) => ({ m, room: desired[i]! - out.get(m)!.size }))
      .filter((x) => x.room > 0)
      .sort((a, b) => b.room - a.room || (a.m < b.m ? -1 : 1));
    if (open.length === 0) break;
    let progressed = false;
    for (const { m } of open) {
      const mine = out.get(m)!;
      const candidates = partitions
        .filter((p) => !mine.has(p))
        .sort((a, b) => holders.get(a)!.size - holders.get(b)!.size || a - b);
      const p = candidates.find((x) => holders.get(x)!.size < sharing) ?? candidates[0];
      if (p === undefined) continue;
      holders.get(p)!.add(m);
      mine.add(p);
      progressed = true;
    }
    if (!progressed) break;
  }
  return out;
}

/** SimpleAssignor.assign: member id → target assignment (topic id → partitions). */
export function simpleAssign(input: ShareAssignorInput): Map<string, Assignment> {
  const out = new Map<string, Assignment>([...input.members.keys()].map((m) => [m, new Map()]));
  const topics = new Set<string>();
  for (const m of input.members.values()) for (const t of m.subscribedTopicIds) topics.add(t);
  for (const topicId of [...topics].sort()) {
    const parts = [...(input.assignable.get(topicId) ?? [])].sort((a, b) => a - b);
    const subscribers = [...input.members]
      .filter(([, m]) => m.subscribedTopicIds.has(topicId))
      .map(([id]) => id)
      .sort();
    for (const [m, ps] of assignTopic(topicId, parts, subscribers, input.members))
      if (ps.size > 0) out.get(m)!.set(topicId, ps);
  }
  return out;
}
