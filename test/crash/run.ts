// The crash-point driver (issue 20): a real tkafka — one combined broker+controller node, or three
// (target.ts) — under mixed load, killed with SIGKILL at seeded random moments and restarted on
// the same data, with checks after each restart and at the end. With three nodes a crash point
// kills one seeded node, or (one in five) all three at once.
//
// Load, all the time:
//  - the chaos workload (test/chaos/java/ChaosWorkload.java, Kafka's Java client 4.4.0): two
//    idempotent acks=all producers and one transactional producer (a quarter of its transactions
//    aborted) on topic `crash` (3 partitions, segment.ms small: frequent rolls and producer
//    snapshots); its history file says what was acknowledged;
//  - side-load.ts: a compacted topic (the cleaner runs: log.cleaner.backoff.ms and
//    min.cleanable.dirty.ratio small) and a topic whose retention deletes segments (retention.ms,
//    segment.ms small, log.retention.check.interval.ms 1 s);
//  - the broker itself: checkpoints every 0.5–1 s (recovery point, log start, high watermark),
//    metadata snapshots every few hundred bytes of metadata records (NoOps included) or 2 s.
// A crash point: wait a seeded random time (the moment), kill -9, restart. After each restart:
//  1. every record acknowledged before the kill (idempotent, and of committed transactions) is at
//     the offset it was acknowledged at, and no value is in the log twice (read_uncommitted);
//  2. the compacted topic holds, for each key, the last acknowledged value or a later one;
//  3. the retention topic reads whole from its log start offset;
//  4. (every `metaEvery` points and at the last) the metadata image each restarted node serves
//     equals the image Kafka's DumpLogSegments --cluster-metadata-decoder decodes from its own
//     metadata log (all nodes at the end).
// At the end: the workload stops, Kafka's consumer reads everything with read_committed, and the
// chaos checker (test/chaos/checker.ts) judges the whole history: nothing lost, duplicated,
// reordered, no aborted record visible, every transaction all or nothing. A record lost or
// duplicated at any crash point stays so in the final log (the `crash` topic is neither compacted
// nor trimmed by retention), so the final verdict covers every crash point; the per-restart checks
// say at which point it happened. The seed is printed first; CRASH_SEED replays the schedule (the
// moments; the workload's own timing is not replayable).
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiKey } from '../../src/protocol/frame.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { check, type CheckResult } from '../chaos/checker.js';
import { prng } from '../chaos/faults.js';
import { parseHistory, type History } from '../chaos/history.js';
import { ensureWorkloadCompiled, ProduceWorkload, runWorkload } from '../chaos/workload.js';
import { diffImages, replayedImage, servedImage } from './metadata-image.js';
import { readPartition, type PartitionRead } from './read-log.js';
import { SideLoad } from './side-load.js';
import { startSingleNode, startThreeNodes, type CrashNode, type CrashTarget } from './target.js';

export const CRASH_TOPIC = 'crash';
export const COMPACTED_TOPIC = 'crash-compacted';
export const RETAINED_TOPIC = 'crash-retained';
const PARTITIONS = 3;

export interface CrashOptions {
  /** One combined node (default) or three. */
  nodes?: 1 | 3;
  seed?: number;
  /** Crash points to run. */
  points: number;
  /** No crash point starts after this. */
  maxTotalMs: number;
  /** The metadata image is compared every this many points (and at the last); default 1. */
  metaEvery?: number;
  /** The moment of a kill: uniform in [minMs, maxMs] after the load is flowing again. */
  minMs?: number;
  maxMs?: number;
  log?: (line: string) => void;
}

export interface PointResult {
  point: number;
  /** Node ids killed at this point. */
  killed: number[];
  waitedMs: number;
  restartMs: number;
  ackedBefore: number;
  problems: string[];
  metadataChecked: boolean;
}

export interface CrashReport {
  seed: number;
  points: PointResult[];
  final: CheckResult;
  metadataChecks: number;
  /** Problems found after restarts (per point) and at the end. */
  problems: string[];
  retainedLogStart: bigint;
  compactedRead: number;
  compactedAcked: number;
  sideFailures: number;
  activity: Record<string, number>;
  summary: string;
  wallMs: number;
}

/** The seed: the option, else CRASH_SEED, else a random one. */
export function crashSeed(seed?: number): number {
  const given = seed !== undefined ? String(seed) : process.env.CRASH_SEED;
  if (given === undefined || given === '') return Math.floor(Math.random() * 2 ** 31);
  const n = Number(given);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`CRASH_SEED must be a non-negative integer, not ${given}`);
  return n;
}

/** Broker log lines counted as activity the crash points landed in or caused (printed with the counts). */
const ACTIVITY: Record<string, RegExp> = {
  metadataSnapshots: /Created new KRaft snapshot/g,
  starts: /Kafka Server started/g,
};

async function createTopics(port: number, rf: number): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    const cfg = (o: Record<string, string | number>) =>
      Object.entries(o).map(([name, value]) => ({ name, value: String(value) }));
    const topic = (name: string, numPartitions: number, configs: Record<string, string | number>) => ({
      name,
      numPartitions,
      replicationFactor: rf,
      assignments: [],
      configs: cfg(configs),
    });
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        topic(CRASH_TOPIC, PARTITIONS, { 'segment.ms': 1500 }),
        topic(COMPACTED_TOPIC, 1, {
          'cleanup.policy': 'compact',
          'segment.ms': 1000,
          'min.cleanable.dirty.ratio': 0.01,
          'delete.retention.ms': 1000,
        }),
        topic(RETAINED_TOPIC, 1, { 'retention.ms': 3000, 'segment.ms': 1000 }),
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    for (const t of r.topics)
      if (t.errorCode !== 0) throw new Error(`CreateTopics ${t.name}: error ${t.errorCode} ${t.errorMessage}`);
  } finally {
    c.close();
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Acknowledged records of the history so far: idempotent ones and those of committed transactions. */
function ackedOf(h: History): { value: string; partition: number; offset: bigint }[] {
  const out = h.acks.map((a) => ({ value: a.value, partition: a.partition, offset: a.offset }));
  for (const t of h.txns.values()) if (t.outcome === 'commit') out.push(...t.acks);
  return out;
}

/** History text up to its last complete line (the workload may be writing one). */
const completeLines = (text: string): string => text.slice(0, text.lastIndexOf('\n') + 1);

/** Reads a partition whole from its leader (looked up again, bounded, when it moves meanwhile). */
async function readFromLeader(target: CrashTarget, topic: string, partition: number): Promise<PartitionRead> {
  let last: PartitionRead | null = null;
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await target.leaderPort(topic, partition);
    if (port !== null) {
      const c = await RawClient.connect(port).catch(() => null);
      if (c)
        try {
          last = await readPartition(c, topic, partition);
          if (last.errorCode === 0) return last;
        } catch {
          // the leader went away or moved while it was read: look it up again
        } finally {
          c.close();
        }
    }
    await delay(250);
  }
  if (last) return last;
  throw new Error(`${topic}-${partition}: no leader answered a full read`);
}

/** Checks 1–3 after a restart; returns the problems found. */
async function checkAfterRestart(
  target: CrashTarget,
  acked: { value: string; partition: number; offset: bigint }[],
  lastAckedByKey: Map<string, number>,
): Promise<string[]> {
  const problems: string[] = [];
  const at = new Map<string, string>();
  const seen = new Map<string, string>();
  for (let p = 0; p < PARTITIONS; p++) {
    const r = await readFromLeader(target, CRASH_TOPIC, p);
    if (r.errorCode !== 0) problems.push(`${CRASH_TOPIC}-${p}: fetch error ${r.errorCode}`);
    for (const rec of r.records) {
      const pos = `${p}@${rec.offset}`;
      at.set(pos, rec.value);
      const before = seen.get(rec.value);
      if (before !== undefined) problems.push(`duplicated: ${rec.value} at ${before} and ${pos}`);
      seen.set(rec.value, pos);
    }
  }
  let lost = 0;
  for (const a of acked) {
    const found = at.get(`${a.partition}@${a.offset}`);
    if (found !== a.value) {
      if (lost++ < 10)
        problems.push(`lost: ${a.value} acknowledged at ${a.partition}@${a.offset}, read there: ${found ?? 'nothing'}`);
    }
  }
  if (lost > 10) problems.push(`lost: ${lost} acknowledged records in all`);

  const compacted = await readFromLeader(target, COMPACTED_TOPIC, 0);
  if (compacted.errorCode !== 0) problems.push(`${COMPACTED_TOPIC}: fetch error ${compacted.errorCode}`);
  const latest = new Map<string, number>();
  for (const rec of compacted.records) {
    const seq = Number(rec.value.slice(rec.value.indexOf(':') + 1));
    if (rec.key !== null && seq > (latest.get(rec.key) ?? -1)) latest.set(rec.key, seq);
  }
  for (const [key, seq] of lastAckedByKey)
    if ((latest.get(key) ?? -1) < seq)
      problems.push(`compacted: key ${key} acknowledged up to ${seq}, latest readable ${latest.get(key) ?? 'none'}`);

  const retained = await readFromLeader(target, RETAINED_TOPIC, 0);
  if (retained.errorCode !== 0) problems.push(`${RETAINED_TOPIC}: fetch error ${retained.errorCode}`);
  for (let i = 1; i < retained.records.length; i++)
    if (retained.records[i]!.offset <= retained.records[i - 1]!.offset) {
      problems.push(`${RETAINED_TOPIC}: offsets not increasing at ${retained.records[i]!.offset}`);
      break;
    }
  return problems;
}

/** Check 4 on one node: its served image equals its log's replay (retried: read at different moments). */
async function checkMetadata(node: CrashNode): Promise<{ problems: string[]; records: number }> {
  let last: string[] = [];
  let records = 0;
  for (let attempt = 0; attempt < 12; attempt++) {
    const before = await servedImage(node.port);
    const replayed = await replayedImage(node.metadataDir);
    const after = await servedImage(node.port);
    records = replayed.records;
    if (before && after && diffImages(before, after).length === 0) {
      last = diffImages(after, replayed.image);
      if (last.length === 0) return { problems: [], records };
    } else last = ['the served image changed while it was read, or the node did not answer'];
    await delay(250);
  }
  return { problems: last.map((l) => `metadata of node ${node.id}: ${l}`), records };
}

/** Folders named <topic>-<n> under dir (depth ≤ 4), with their .log file counts summed. */
function segmentCount(dir: string, topic: string, depth = 0): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const sub = join(dir, e.name);
    if (new RegExp(`^${topic}-\\d+$`).test(e.name)) n += readdirSync(sub).filter((f) => f.endsWith('.log')).length;
    else if (depth < 4) n += segmentCount(sub, topic, depth + 1);
  }
  return n;
}

export async function runCrashPoints(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? ((line: string): void => console.log(line));
  const seed = crashSeed(opts.seed);
  const rnd = prng(seed);
  const minMs = opts.minMs ?? 300;
  const maxMs = opts.maxMs ?? 2500;
  const metaEvery = opts.metaEvery ?? 1;
  const nodeCount = opts.nodes ?? 1;
  log(`crash: seed=${seed} nodes=${nodeCount} points=${opts.points} (replay with CRASH_SEED=${seed})`);
  const t0 = Date.now();
  await ensureWorkloadCompiled();
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-crash-'));
  const produced = join(dir, 'produce.history');
  const read = join(dir, 'read.history');
  const target = nodeCount === 3 ? await startThreeNodes() : await startSingleNode();
  const topics = [CRASH_TOPIC, COMPACTED_TOPIC, RETAINED_TOPIC];
  const waitWhole = async (what: string): Promise<void> => {
    let last: string[] = [];
    await waitFor(
      async () => {
        last = await target.lagging(topics);
        return last.length === 0;
      },
      { what, timeoutMs: 180_000, intervalMs: 250 },
    ).catch((e: Error) => {
      throw new Error(`${e.message}; last seen: ${last.slice(0, 10).join('; ')}`);
    });
  };
  let workload: ProduceWorkload | null = null;
  let side: SideLoad | null = null;
  let keep = false;
  const points: PointResult[] = [];
  const problems: string[] = [];
  let metadataChecks = 0;
  const allOutput = (): string => target.nodes.map((n) => n.output()).join('\n');
  try {
    await createTopics(target.nodes[0]!.port, target.replicationFactor);
    await waitWhole('the topics to have leaders and full ISRs');
    workload = new ProduceWorkload({
      bootstrap: target.bootstrap(),
      topic: CRASH_TOPIC,
      partitions: PARTITIONS,
      seed,
      historyFile: produced,
      idempotent: 2,
      transactional: 1,
      maxMs: opts.maxTotalMs + 10 * 60_000,
    });
    side = new SideLoad((topic) => target.leaderPort(topic, 0), COMPACTED_TOPIC, RETAINED_TOPIC);
    side.start();
    await waitFor(() => /^C /m.test(readText(produced)), {
      what: 'the workload to commit a transaction',
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    const deadline = t0 + opts.maxTotalMs;
    for (let i = 1; i <= opts.points; i++) {
      if (Date.now() > deadline) {
        log(`crash: time bound reached after ${points.length} points`);
        break;
      }
      const waitMs = Math.round(minMs + rnd() * (maxMs - minMs));
      const all = target.nodes.length > 1 && rnd() < 0.2;
      const victims = all ? [...target.nodes] : [target.nodes[Math.floor(rnd() * target.nodes.length)]!];
      // the moment of the crash: a seeded time into the load, not a condition
      await delay(waitMs);
      await Promise.all(victims.map((n) => n.kill()));
      // everything acknowledged before the kill: the history and the side load as they are now
      const history = parseHistory(completeLines(readText(produced)));
      const acked = ackedOf(history);
      const lastByKey = side.snapshot();
      const r0 = Date.now();
      await Promise.all(victims.map((n) => n.start()));
      const restartMs = Date.now() - r0;
      await waitWhole(`every partition to have a leader and a full ISR after crash point ${i}`);
      const found = await checkAfterRestart(target, acked, lastByKey);
      const metadataChecked = i % metaEvery === 0 || i === opts.points;
      if (metadataChecked)
        for (const n of victims) {
          const m = await checkMetadata(n);
          metadataChecks++;
          found.push(...m.problems);
        }
      const killed = victims.map((n) => n.id);
      points.push({
        point: i,
        killed,
        waitedMs: waitMs,
        restartMs,
        ackedBefore: acked.length,
        problems: found,
        metadataChecked,
      });
      for (const p of found) problems.push(`point ${i}: ${p}`);
      log(
        `crash: point ${i}/${opts.points} after ${waitMs} ms: killed node ${killed.join(',')}, restarted in ${restartMs} ms, ` +
          `${acked.length} acknowledged records checked${metadataChecked ? ', metadata image compared' : ''}` +
          `${found.length ? `: ${found.length} PROBLEMS\n  ${found.join('\n  ')}` : ''}`,
      );
      // the next moment is taken once the load flows again (new acknowledgements after the restart)
      const ackLines = (readText(produced).match(/^(A|TA) /gm) ?? []).length;
      const sideAcked = side.ackedCompacted;
      await waitFor(
        () => (readText(produced).match(/^(A|TA) /gm) ?? []).length > ackLines && side!.ackedCompacted > sideAcked,
        { what: `the load to be acknowledged again after crash point ${i}`, timeoutMs: 120_000, intervalMs: 100 },
      );
    }
    await side.stop();
    await workload.stop();
    workload = null;
    await waitWhole('the cluster to be whole before the final read');
    await runWorkload(['consume', target.bootstrap(), CRASH_TOPIC, String(PARTITIONS), read, '1', '180000'], 240_000);
    const final = check(parseHistory(readText(produced) + '\n' + readText(read)));
    for (const p of final.problems) problems.push(`final: ${p}`);
    for (const n of target.nodes) {
      const m = await checkMetadata(n);
      metadataChecks++;
      for (const p of m.problems) problems.push(`final: ${p}`);
    }
    const retainedLogStart = (await readFromLeader(target, RETAINED_TOPIC, 0)).logStartOffset;
    const compactedRead = (await readFromLeader(target, COMPACTED_TOPIC, 0)).records.length;
    const output = allOutput();
    const activity: Record<string, number> = {};
    for (const [k, re] of Object.entries(ACTIVITY)) activity[k] = (output.match(re) ?? []).length;
    // segments of the crash topic now, on every node (segment.ms rolls them; none is deleted there)
    activity.crashSegments = segmentCount(target.rootDir, CRASH_TOPIC);
    const ok = problems.length === 0 && final.ok;
    const summary =
      `crash: seed=${seed} nodes=${nodeCount} points=${points.length} metadata_checks=${metadataChecks} acked=${final.acked} lost=${final.lost} ` +
      `duplicated=${final.duplicated} reordered=${final.reordered} phantom=${final.phantom} ` +
      `txns=${final.txns.committed}c/${final.txns.aborted}a/${final.txns.unknown}u aborted_visible=${final.abortedVisible} ` +
      `partial_txns=${final.partialTxns} read=${final.read} compacted=${compactedRead}/${side.ackedCompacted} ` +
      `retained_log_start=${retainedLogStart} point_problems=${points.reduce((n, p) => n + p.problems.length, 0)} ` +
      `wall=${Math.round((Date.now() - t0) / 1000)}s ${ok ? 'OK' : 'FAILED'}`;
    log(summary);
    if (!ok) {
      keep = true;
      cpSync(target.rootDir, join(dir, 'nodes'), { recursive: true });
      appendFileSync(join(dir, 'nodes.log'), output);
      log(`crash: history, node data and logs kept in ${dir}; problems:\n  ${problems.slice(0, 50).join('\n  ')}`);
    }
    return {
      seed,
      points,
      final,
      metadataChecks,
      problems,
      retainedLogStart,
      compactedRead,
      compactedAcked: side.ackedCompacted,
      sideFailures: side.failures,
      activity,
      summary,
      wallMs: Date.now() - t0,
    };
  } catch (e) {
    keep = true;
    appendFileSync(join(dir, 'nodes.log'), allOutput());
    cpSync(target.rootDir, join(dir, 'nodes'), { recursive: true });
    log(
      `crash: seed=${seed} run failed; history, node data and logs kept in ${dir}; output:\n${target.logs().slice(-3000)}`,
    );
    throw e;
  } finally {
    workload?.kill();
    await side?.stop();
    await target.close();
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}
