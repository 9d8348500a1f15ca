// The fault driver: a seeded schedule of faults on the chaos cluster's brokers, one at a time,
// each held for a while and then healed, the next one starting only when the cluster is whole
// again (every broker serving, every partition's ISR full), so RF=3 / min.insync.replicas=2
// never has more than one broker faulty. Kinds: kill (kill -9, then restart on the same data),
// pause (SIGSTOP, then SIGCONT), isolate (every link of the broker cut: clients, controller,
// brokers) and zombie (cut from the controller and the brokers, clients still reach it).
import { waitFor } from '../helpers/wait-for.js';
import type { ChaosCluster } from './cluster.js';
import type { FaultCounts } from './checker.js';

export type FaultKind = 'kill' | 'pause' | 'isolate' | 'zombie';

export interface Fault {
  kind: FaultKind;
  broker: number;
  /** How long the fault is held before it is healed. */
  holdMs: number;
}

/** mulberry32: a small seeded PRNG (uniform in [0, 1)). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ScheduleOptions {
  seed: number;
  count: number;
  brokers: readonly number[];
  /** Kinds to draw from (default: kill, pause and a partition (isolate or zombie) in turn, shuffled). */
  kinds?: readonly FaultKind[];
  minHoldMs?: number;
  maxHoldMs?: number;
}

/** The schedule a seed gives: the same seed, the same faults. */
export function schedule(opts: ScheduleOptions): Fault[] {
  const rnd = prng(opts.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const minHold = opts.minHoldMs ?? 2000;
  // up to beyond broker.session.timeout.ms (9 s): some faults fence the broker and move leadership
  const maxHold = opts.maxHoldMs ?? 12_000;
  // Rounds: each round draws every kind once, in a shuffled order, so every kind occurs.
  const kinds: readonly (FaultKind | 'partition')[] = opts.kinds ?? ['kill', 'pause', 'partition'];
  const out: Fault[] = [];
  let round: (FaultKind | 'partition')[] = [];
  for (let i = 0; i < opts.count; i++) {
    if (round.length === 0) {
      round = [...kinds];
      for (let j = round.length - 1; j > 0; j--) {
        const k = Math.floor(rnd() * (j + 1));
        [round[j], round[k]] = [round[k]!, round[j]!];
      }
    }
    const k = round.pop()!;
    const kind: FaultKind = k === 'partition' ? pick(['isolate', 'zombie'] as const) : k;
    out.push({ kind, broker: pick(opts.brokers), holdMs: Math.round(minHold + rnd() * (maxHold - minHold)) });
  }
  return out;
}

export function countFaults(faults: readonly Fault[]): FaultCounts {
  return {
    kill: faults.filter((f) => f.kind === 'kill').length,
    pause: faults.filter((f) => f.kind === 'pause').length,
    partition: faults.filter((f) => f.kind === 'isolate' || f.kind === 'zombie').length,
  };
}

/**
 * Waits until every broker runs and every partition of `topics` has its full replica set in sync,
 * as each broker's metadata says; throws (with the last states seen) after `timeoutMs`.
 */
export async function waitWhole(c: ChaosCluster, topics: readonly string[], timeoutMs = 120_000): Promise<void> {
  let last = '';
  await waitFor(
    async () => {
      for (const b of c.brokerIds) {
        if (!c.cluster.node(b).running()) return false;
        const states = await c.describe(b, topics);
        if (!states || states.length === 0) {
          last = `broker ${b}: no metadata`;
          return false;
        }
        const lagging = states.filter((s) => s.leader < 0 || s.isr.length < s.replicas.length);
        if (lagging.length > 0) {
          last = `broker ${b}: ${lagging.map((s) => `${s.topic}-${s.partition} leader=${s.leader} isr=[${s.isr}] replicas=[${s.replicas}]`).join('; ')}`;
          return false;
        }
      }
      return true;
    },
    { what: `the cluster to be whole again (${topics.join(', ')}: every ISR full)`, timeoutMs, intervalMs: 250 },
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen: ${last}`);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Applies one fault, holds it, heals it. */
export async function applyFault(c: ChaosCluster, f: Fault): Promise<void> {
  const node = c.cluster.node(f.broker);
  switch (f.kind) {
    case 'kill':
      await node.kill();
      await sleep(f.holdMs);
      await node.start();
      return;
    case 'pause': {
      const pid = node.pid();
      if (pid === undefined) throw new Error(`broker ${f.broker} is not running`);
      process.kill(pid, 'SIGSTOP');
      try {
        await sleep(f.holdMs);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      return;
    }
    case 'isolate':
    case 'zombie':
      if (f.kind === 'isolate') c.isolate(f.broker);
      else c.zombie(f.broker);
      try {
        await sleep(f.holdMs);
      } finally {
        c.heal(f.broker);
      }
      return;
  }
}

export interface DriveOptions {
  topics: readonly string[];
  /** Total time bound: no fault starts after it (the current one is still healed). */
  maxTotalMs: number;
  healTimeoutMs?: number;
  log?: (line: string) => void;
}

/** Runs the schedule: fault, heal, wait whole; returns the faults actually applied. */
export async function drive(c: ChaosCluster, faults: readonly Fault[], opts: DriveOptions): Promise<Fault[]> {
  const log = opts.log ?? ((): void => undefined);
  const deadline = Date.now() + opts.maxTotalMs;
  const done: Fault[] = [];
  for (const [i, f] of faults.entries()) {
    if (Date.now() > deadline) {
      log(`chaos: time bound reached after ${done.length} faults`);
      break;
    }
    const t0 = Date.now();
    await applyFault(c, f);
    done.push(f);
    await waitWhole(c, opts.topics, opts.healTimeoutMs);
    log(
      `chaos: fault ${i + 1}/${faults.length} ${f.kind} broker ${f.broker} held ${f.holdMs} ms, whole after ${Date.now() - t0} ms`,
    );
  }
  return done;
}
