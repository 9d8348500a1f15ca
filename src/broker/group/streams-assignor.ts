// Kafka 4.4's server-side task assignor for streams groups (streams.assignor.StickyTaskAssignor,
// "sticky"): active tasks stay with the member that ran them while its quota allows, then go to a
// previous standby holder, then to the least loaded process (load = tasks / members of the
// process) and its least loaded member; stateful tasks then get `num.standby.replicas` standbys,
// never on a process that already holds the task, preferring the previous active owner and previous
// standby holders. The queues are Java's binary heaps and the maps iterate in Java HashMap order so
// that ties break as Kafka's do.
import { javaHashMapOrder } from './streams-topology.js';
import type { TaskMap } from './streams-group.js';

export { javaHashMapOrder };

export const STICKY_ASSIGNOR_NAME = 'sticky';

export interface AssignorMember {
  processId: string;
  activeTasks: TaskMap;
  standbyTasks: TaskMap;
  /** task offsets the member reported (subtopology → partition → offset sum) */
  taskOffsets?: Map<string, Map<number, bigint>>;
}

export interface AssignorSubtopology {
  id: string;
  numTasks: number;
  stateful: boolean;
}

export interface MemberTasks {
  active: TaskMap;
  standby: TaskMap;
}

/** java.util.PriorityQueue: a binary heap (siftUp on offer, siftDown on poll). */
export class JavaPriorityQueue<T> {
  private readonly q: T[] = [];

  constructor(private readonly cmp: (a: T, b: T) => number) {}

  get size(): number {
    return this.q.length;
  }

  add(x: T): void {
    let k = this.q.length;
    this.q.push(x);
    while (k > 0) {
      const parent = (k - 1) >>> 1;
      const e = this.q[parent]!;
      if (this.cmp(x, e) >= 0) break;
      this.q[k] = e;
      k = parent;
    }
    this.q[k] = x;
  }

  poll(): T | undefined {
    if (this.q.length === 0) return undefined;
    const result = this.q[0]!;
    const x = this.q.pop()!;
    const n = this.q.length;
    if (n > 0) {
      let k = 0;
      const half = n >>> 1;
      while (k < half) {
        let child = 2 * k + 1;
        let c = this.q[child]!;
        const right = child + 1;
        if (right < n && this.cmp(c, this.q[right]!) > 0) c = this.q[(child = right)]!;
        if (this.cmp(x, c) <= 0) break;
        this.q[k] = c;
        k = child;
      }
      this.q[k] = x;
    }
    return result;
  }
}

const taskKey = (s: string, p: number): string => `${s}\u0000${p}`;

class ProcessState {
  capacity = 0;
  load = Number.MAX_VALUE;
  taskCount = 0;
  /** member id → task count, in insertion order (a HashMap in Kafka: ordered when read) */
  readonly memberToTaskCounts = new Map<string, number>();
  readonly assignedActive = new Map<string, Set<string>>();
  readonly assignedStandby = new Map<string, Set<string>>();
  readonly assignedTasks = new Set<string>();
  private membersByLoad: JavaPriorityQueue<{ key: string; value: number }> | null = null;

  constructor(readonly processId: string) {}

  addMember(memberId: string): void {
    this.memberToTaskCounts.set(memberId, 0);
    this.capacity++;
    this.computeLoad();
  }

  private computeLoad(): void {
    this.load = this.capacity <= 0 ? -1 : this.taskCount / this.capacity;
  }

  hasTask(task: string): boolean {
    return this.assignedTasks.has(task);
  }

  addTask(memberId: string, task: string, active: boolean): number {
    const n = this.addTaskInternal(memberId, task, active);
    this.membersByLoad = null;
    return n;
  }

  private addTaskInternal(memberId: string, task: string, active: boolean): number {
    this.taskCount++;
    this.assignedTasks.add(task);
    const m = active ? this.assignedActive : this.assignedStandby;
    const set = m.get(memberId) ?? new Set<string>();
    set.add(task);
    m.set(memberId, set);
    const n = this.memberToTaskCounts.get(memberId)! + 1;
    this.memberToTaskCounts.set(memberId, n);
    this.computeLoad();
    return n;
  }

  addTaskToLeastLoadedMember(task: string, active: boolean): number {
    if (this.memberToTaskCounts.size === 0) return -1;
    if (this.memberToTaskCounts.size === 1)
      return this.addTaskInternal(this.memberToTaskCounts.keys().next().value!, task, active);
    if (!this.membersByLoad) {
      this.membersByLoad = new JavaPriorityQueue((a, b) => a.value - b.value);
      for (const k of javaHashMapOrder([...this.memberToTaskCounts.keys()]))
        this.membersByLoad.add({ key: k, value: this.memberToTaskCounts.get(k)! });
    }
    const e = this.membersByLoad.poll()!;
    const n = this.addTaskInternal(e.key, task, active);
    e.value = n;
    this.membersByLoad.add(e);
    return n;
  }
}

interface PrevMember {
  processId: string;
  memberId: string;
}

interface LocalState {
  activeTaskToPrevMember: Map<string, PrevMember>;
  standbyTaskToPrevMember: Map<string, PrevMember[]>;
  processIdToState: Map<string, ProcessState>;
  processOrder: string[];
  numStandbyReplicas: number;
  totalActiveTasks: number;
  totalTasks: number;
  totalMembersWithActiveTaskCapacity: number;
  totalMembersWithTaskCapacity: number;
  activeTasksPerMember: number;
  totalTasksPerMember: number;
}

const perMember = (tasks: number, members: number): number => (members === 0 ? 0 : Math.ceil(tasks / members));

/**
 * StickyTaskAssignor.assign: members in the order of `memberIds`, subtopologies sorted by id. Throws
 * (TaskAssignorException) when no member can take an active task.
 */
export function stickyAssign(
  members: ReadonlyMap<string, AssignorMember>,
  subtopologies: readonly AssignorSubtopology[],
  numStandbyReplicas: number,
): Map<string, MemberTasks> {
  const subs = [...subtopologies].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const memberIds = javaHashMapOrder([...members.keys()]);
  const st: LocalState = {
    activeTaskToPrevMember: new Map(),
    standbyTaskToPrevMember: new Map(),
    processIdToState: new Map(),
    processOrder: [],
    numStandbyReplicas,
    totalActiveTasks: 0,
    totalTasks: 0,
    totalMembersWithActiveTaskCapacity: memberIds.length,
    totalMembersWithTaskCapacity: memberIds.length,
    activeTasksPerMember: 0,
    totalTasksPerMember: 0,
  };
  for (const s of subs) {
    st.totalTasks += s.numTasks;
    st.totalActiveTasks += s.numTasks;
    if (s.stateful) st.totalTasks += s.numTasks * numStandbyReplicas;
  }
  st.activeTasksPerMember = perMember(st.totalActiveTasks, st.totalMembersWithActiveTaskCapacity);
  st.totalTasksPerMember = perMember(st.totalTasks, st.totalMembersWithTaskCapacity);
  const candidates = new Map<string, { m: PrevMember; prevStandby: boolean; offsetSum: bigint }[]>();
  for (const memberId of memberIds) {
    const spec = members.get(memberId)!;
    const m: PrevMember = { processId: spec.processId, memberId };
    let ps = st.processIdToState.get(spec.processId);
    if (!ps) {
      ps = new ProcessState(spec.processId);
      st.processIdToState.set(spec.processId, ps);
    }
    ps.addMember(memberId);
    for (const [s, parts] of spec.activeTasks) for (const p of parts) st.activeTaskToPrevMember.set(taskKey(s, p), m);
    for (const [s, parts] of spec.standbyTasks)
      for (const p of parts) {
        const k = taskKey(s, p);
        const l = candidates.get(k) ?? [];
        l.push({ m, prevStandby: true, offsetSum: spec.taskOffsets?.get(s)?.get(p) ?? 0n });
        candidates.set(k, l);
      }
    for (const [s, offs] of spec.taskOffsets ?? new Map<string, Map<number, bigint>>())
      for (const [p, off] of offs) {
        if (spec.standbyTasks.get(s)?.has(p)) continue;
        const k = taskKey(s, p);
        const l = candidates.get(k) ?? [];
        l.push({ m, prevStandby: false, offsetSum: off });
        candidates.set(k, l);
      }
  }
  for (const [k, l] of candidates) {
    // List.sort is stable: previous standbys first, then by reported offset sum, largest first
    l.sort((a, b) =>
      a.prevStandby !== b.prevStandby
        ? a.prevStandby
          ? -1
          : 1
        : a.offsetSum > b.offsetSum
          ? -1
          : a.offsetSum < b.offsetSum
            ? 1
            : 0,
    );
    st.standbyTaskToPrevMember.set(
      k,
      l.map((c) => c.m),
    );
  }
  st.processOrder = javaHashMapOrder([...st.processIdToState.keys()], st.totalMembersWithActiveTaskCapacity);

  const tasks = (active: boolean) => {
    const out: { s: string; p: number }[] = [];
    for (const s of subs) if (active || s.stateful) for (let p = 0; p < s.numTasks; p++) out.push({ s: s.id, p });
    return out;
  };
  assignActive(st, tasks(true));
  if (numStandbyReplicas > 0) assignStandby(st, tasks(false));

  const out = new Map<string, MemberTasks>();
  const fromKeys = (keys: Set<string> | undefined): TaskMap => {
    const m: TaskMap = new Map();
    for (const k of keys ?? []) {
      const [s, p] = k.split('\u0000') as [string, string];
      const set = m.get(s) ?? new Set<number>();
      set.add(Number(p));
      m.set(s, set);
    }
    return m;
  };
  for (const memberId of memberIds) {
    const ps = st.processIdToState.get(members.get(memberId)!.processId)!;
    out.set(memberId, {
      active: fromKeys(ps.assignedActive.get(memberId)),
      standby: fromKeys(ps.assignedStandby.get(memberId)),
    });
  }
  return out;
}

function updateActivePerMember(st: LocalState, n: number): void {
  if (n === st.activeTasksPerMember) {
    st.totalMembersWithActiveTaskCapacity--;
    st.totalActiveTasks -= n;
    st.activeTasksPerMember = perMember(st.totalActiveTasks, st.totalMembersWithActiveTaskCapacity);
  }
}

function updateTotalPerMember(st: LocalState, n: number): void {
  if (n === st.totalTasksPerMember) {
    st.totalMembersWithTaskCapacity--;
    st.totalTasks -= n;
    st.totalTasksPerMember = perMember(st.totalTasks, st.totalMembersWithTaskCapacity);
  }
}

const byPartitionThenSubtopology = (a: { s: string; p: number }, b: { s: string; p: number }) =>
  a.p - b.p || (a.s < b.s ? -1 : a.s > b.s ? 1 : 0);
const bySubtopologyThenPartition = (a: { s: string; p: number }, b: { s: string; p: number }) =>
  (a.s < b.s ? -1 : a.s > b.s ? 1 : 0) || a.p - b.p;

function findPrevMemberWithLeastLoad(st: LocalState, members: PrevMember[] | undefined, standbyTask?: string) {
  if (!members || members.length === 0) return null;
  let candidate: PrevMember | null = null;
  let cpl = Number.MAX_VALUE;
  let cml = Number.MAX_VALUE;
  for (const m of members) {
    const ps = st.processIdToState.get(m.processId)!;
    if (standbyTask !== undefined && ps.hasTask(standbyTask)) continue;
    const pl = ps.load;
    const ml = ps.memberToTaskCounts.get(m.memberId)!;
    if (candidate === null || (pl < cpl && ml < cml)) {
      cpl = pl;
      cml = ml;
      candidate = m;
    }
  }
  return candidate;
}

function assignActive(st: LocalState, list: { s: string; p: number }[]): void {
  let remaining = [...list].sort(byPartitionThenSubtopology);
  const quota = (ps: ProcessState, m: PrevMember) => ps.memberToTaskCounts.get(m.memberId)! < st.activeTasksPerMember;
  const take = (ps: ProcessState, memberId: string, k: string) => {
    const n = ps.addTask(memberId, k, true);
    updateActivePerMember(st, n);
    updateTotalPerMember(st, n);
  };
  remaining = remaining.filter((t) => {
    const k = taskKey(t.s, t.p);
    const prev = st.activeTaskToPrevMember.get(k);
    if (!prev) return true;
    const ps = st.processIdToState.get(prev.processId)!;
    if (!quota(ps, prev)) return true;
    take(ps, prev.memberId, k);
    return false;
  });
  remaining = remaining.filter((t) => {
    const k = taskKey(t.s, t.p);
    const prev = findPrevMemberWithLeastLoad(st, st.standbyTaskToPrevMember.get(k));
    if (!prev) return true;
    const ps = st.processIdToState.get(prev.processId)!;
    if (!quota(ps, prev)) return true;
    take(ps, prev.memberId, k);
    return false;
  });
  remaining.sort(bySubtopologyThenPartition);
  const byLoad = new JavaPriorityQueue<ProcessState>((a, b) => (a.load < b.load ? -1 : a.load > b.load ? 1 : 0));
  for (const pid of st.processOrder) byLoad.add(st.processIdToState.get(pid)!);
  for (const t of remaining) {
    const ps = byLoad.poll();
    if (!ps) throw new Error(`No process available to assign active task ${t.s}_${t.p}.`);
    const n = ps.addTaskToLeastLoadedMember(taskKey(t.s, t.p), true);
    if (n === -1) throw new Error(`No member available to assign active task ${t.s}_${t.p}.`);
    updateActivePerMember(st, n);
    updateTotalPerMember(st, n);
    byLoad.add(ps);
  }
}

function assignStandbyToLeastLoaded(st: LocalState, q: JavaPriorityQueue<ProcessState>, k: string): boolean {
  const ps = q.poll();
  if (!ps) return false;
  let found = false;
  if (!ps.hasTask(k)) {
    const n = ps.addTaskToLeastLoadedMember(k, false);
    if (n !== -1) {
      found = true;
      updateTotalPerMember(st, n);
    }
  } else if (q.size > 0) found = assignStandbyToLeastLoaded(st, q, k);
  q.add(ps);
  return found;
}

function assignStandby(st: LocalState, list: { s: string; p: number }[]): void {
  const sorted = [...list].sort((a, b) => -byPartitionThenSubtopology(a, b));
  const quota = (ps: ProcessState, m: PrevMember) => ps.memberToTaskCounts.get(m.memberId)! < st.totalTasksPerMember;
  const toLeastLoaded: { t: { s: string; p: number }; remaining: number }[] = [];
  for (const t of sorted) {
    const k = taskKey(t.s, t.p);
    let i = 0;
    for (; i < st.numStandbyReplicas; i++) {
      const prevActive = st.activeTaskToPrevMember.get(k);
      if (prevActive) {
        const ps = st.processIdToState.get(prevActive.processId)!;
        if (!ps.hasTask(k) && quota(ps, prevActive)) {
          updateTotalPerMember(st, ps.addTask(prevActive.memberId, k, false));
          continue;
        }
      }
      const prevStandbys = st.standbyTaskToPrevMember.get(k);
      if (!prevStandbys || prevStandbys.length === 0) break;
      const prev = findPrevMemberWithLeastLoad(st, prevStandbys, k);
      if (!prev) break;
      const ps = st.processIdToState.get(prev.processId)!;
      if (!quota(ps, prev)) break;
      updateTotalPerMember(st, ps.addTask(prev.memberId, k, false));
    }
    toLeastLoaded.push({ t, remaining: st.numStandbyReplicas - i });
  }
  toLeastLoaded.sort((a, b) => -bySubtopologyThenPartition(a.t, b.t));
  const byLoad = new JavaPriorityQueue<ProcessState>((a, b) => (a.load < b.load ? -1 : a.load > b.load ? 1 : 0));
  for (const pid of st.processOrder) byLoad.add(st.processIdToState.get(pid)!);
  for (const x of toLeastLoaded)
    for (let i = 0; i < x.remaining; i++) if (!assignStandbyToLeastLoaded(st, byLoad, taskKey(x.t.s, x.t.p))) break;
}
