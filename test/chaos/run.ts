// One chaos run: a cluster (cluster.ts) on the target, a topic (RF=3, min.insync.replicas=2),
// the workload producing (workload.ts), the seeded fault schedule (faults.ts), then, with the
// cluster whole again, a read_committed read of everything and the checker's verdict
// (checker.ts). The seed is printed first; CHAOS_SEED replays it.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait-for.js';
import { check, summaryLine, type CheckResult, type FaultCounts } from './checker.js';
import { startChaosCluster, type ChaosTarget } from './cluster.js';
import { countFaults, drive, schedule, waitWhole, type Fault, type FaultKind } from './faults.js';
import { parseHistory } from './history.js';
import { ensureWorkloadCompiled, ProduceWorkload, runWorkload } from './workload.js';

export interface ChaosOptions {
  target: ChaosTarget;
  seed?: number;
  faults: number;
  kinds?: readonly FaultKind[];
  /** No fault starts after this (default 30 min). */
  maxTotalMs?: number;
  minHoldMs?: number;
  maxHoldMs?: number;
  partitions?: number;
  idempotentProducers?: number;
  transactionalProducers?: number;
  /** tkafka only: start the brokers with TKAFKA_TEST_UNSAFE_ACKS=1 (acks=all answered after the leader's append). */
  unsafeAcks?: boolean;
  log?: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  faults: Fault[];
  counts: FaultCounts;
  result: CheckResult;
  summary: string;
  wallMs: number;
}

export const CHAOS_TOPIC = 'chaos';
const TXN_TOPIC = '__transaction_state';

/** The seed: the option, else CHAOS_SEED, else a random one. */
export function chooseSeed(seed?: number): number {
  const given = seed !== undefined ? String(seed) : process.env.CHAOS_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const n = Number(given);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`the seed must be a non-negative integer, not ${given}`);
  return n;
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? ((line: string): void => console.log(line));
  const seed = chooseSeed(opts.seed);
  const partitions = opts.partitions ?? 3;
  const transactional = opts.transactionalProducers ?? 1;
  const faults = schedule({
    seed,
    count: opts.faults,
    brokers: [2, 3, 4],
    kinds: opts.kinds,
    minHoldMs: opts.minHoldMs,
    maxHoldMs: opts.maxHoldMs,
  });
  log(`chaos: seed=${seed} target=${opts.target} faults=${faults.length} (replay with CHAOS_SEED=${seed})`);
  const t0 = Date.now();
  await ensureWorkloadCompiled();
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-chaos-'));
  const produced = join(dir, 'produce.history');
  const read = join(dir, 'read.history');
  const unsafeBefore = process.env.TKAFKA_TEST_UNSAFE_ACKS;
  if (opts.unsafeAcks) process.env.TKAFKA_TEST_UNSAFE_ACKS = '1';
  let keep = false;
  const c = await startChaosCluster({ target: opts.target }).catch((e: unknown) => {
    restoreEnv(unsafeBefore, opts.unsafeAcks);
    throw e;
  });
  let workload: ProduceWorkload | null = null;
  try {
    const bootstrap = c.clientBootstrap();
    await runWorkload(['create', bootstrap, CHAOS_TOPIC, String(partitions)], 120_000);
    await waitWhole(c, [CHAOS_TOPIC]);
    workload = new ProduceWorkload({
      bootstrap,
      topic: CHAOS_TOPIC,
      partitions,
      seed,
      historyFile: produced,
      idempotent: opts.idempotentProducers ?? 2,
      transactional,
      maxMs: (opts.maxTotalMs ?? 30 * 60_000) + 10 * 60_000,
    });
    // Faults start once records are acknowledged and the transaction log exists.
    const started = transactional > 0 ? /^C /m : /^A /m;
    await waitFor(() => started.test(readText(produced)), {
      what: transactional > 0 ? 'the workload to commit a transaction' : 'the workload to get an acknowledgement',
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    const topics = transactional > 0 ? [CHAOS_TOPIC, TXN_TOPIC] : [CHAOS_TOPIC];
    await waitWhole(c, topics);
    const applied = await drive(c, faults, { topics, maxTotalMs: opts.maxTotalMs ?? 30 * 60_000, log });
    await workload.stop();
    workload = null;
    await waitWhole(c, topics);
    await runWorkload(
      ['consume', bootstrap, CHAOS_TOPIC, String(partitions), read, String(transactional), '180000'],
      240_000,
    );
    const history = parseHistory(readText(produced) + '\n' + readText(read));
    const result = check(history);
    const counts = countFaults(applied);
    const summary = summaryLine(seed, counts, result);
    log(summary);
    if (!result.ok) {
      keep = true;
      // The nodes' logs and data (segments, leader-epoch checkpoints) show how the history diverged.
      cpSync(c.cluster.rootDir, join(dir, 'cluster'), { recursive: true });
      log(`chaos: history and cluster directories kept in ${dir}; problems:\n  ${result.problems.join('\n  ')}`);
    }
    return { seed, faults: applied, counts, result, summary, wallMs: Date.now() - t0 };
  } catch (e) {
    keep = true;
    log(`chaos: seed=${seed} run failed; history kept in ${dir}; cluster logs:\n${c.cluster.logs(3000)}`);
    throw e;
  } finally {
    workload?.kill();
    await c.close();
    restoreEnv(unsafeBefore, opts.unsafeAcks);
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

function restoreEnv(before: string | undefined, changed: boolean | undefined): void {
  if (!changed) return;
  if (before === undefined) delete process.env.TKAFKA_TEST_UNSAFE_ACKS;
  else process.env.TKAFKA_TEST_UNSAFE_ACKS = before;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
