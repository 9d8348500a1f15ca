// The crash-point driver (issue 20): a real single-node `tkafka server start` (combined broker and
// controller) under mixed load, killed with SIGKILL at seeded random moments and restarted on the
// same data, with checks after each restart and at the end.
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
//  4. (every `metaEvery` points and at the last) the metadata image tkafka serves equals the
//     image Kafka's DumpLogSegments --cluster-metadata-decoder decodes from its metadata log.
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
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';
import { check, type CheckResult } from '../chaos/checker.js';
import { prng } from '../chaos/faults.js';
import { parseHistory, type History } from '../chaos/history.js';
import { ensureWorkloadCompiled, ProduceWorkload, runWorkload } from '../chaos/workload.js';
import { diffImages, replayedImage, servedImage } from './metadata-image.js';
import { readPartition } from './read-log.js';
import { SideLoad } from './side-load.js';

export const CRASH_TOPIC = 'crash';
export const COMPACTED_TOPIC = 'crash-compacted';
export const RETAINED_TOPIC = 'crash-retained';
const PARTITIONS = 3;

export interface CrashOptions {
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

const BROKER_OVERRIDES: Record<string, string | number | boolean> = {
  'num.partitions': 1,
  'auto.create.topics.enable': false,
  'offsets.topic.replication.factor': 1,
  'offsets.topic.num.partitions': 2,
  'transaction.state.log.replication.factor': 1,
  'transaction.state.log.min.isr': 1,
  'transaction.state.log.num.partitions': 2,
  'log.initial.task.delay.ms': 200,
  'log.cleaner.backoff.ms': 200,
  'log.retention.check.interval.ms': 1000,
  'log.flush.offset.checkpoint.interval.ms': 1000,
  'log.flush.start.offset.checkpoint.interval.ms': 1000,
  'replica.high.watermark.checkpoint.interval.ms': 500,
  'metadata.log.max.record.bytes.between.snapshots': 512,
  'metadata.log.max.snapshot.interval.ms': 2000,
  'log.index.interval.bytes': 1024,
};

/** Broker log lines counted as activity the crash points landed in or caused (printed with the counts). */
const ACTIVITY: Record<string, RegExp> = {
  metadataSnapshots: /Created new KRaft snapshot/g,
  segmentRecoveries: /Recovering unflushed segment/g,
  indexRebuilds: /Missing or corrupt index/g,
  starts: /Kafka Server started/g,
};

async function createTopics(port: number): Promise<void> {
  const c = await RawClient.connect(port);
  try {
    const cfg = (o: Record<string, string | number>) =>
      Object.entries(o).map(([name, value]) => ({ name, value: String(value) }));
    const r = await c.request(ApiKey.CreateTopics, 7, {
      topics: [
        {
          name: CRASH_TOPIC,
          numPartitions: PARTITIONS,
          replicationFactor: 1,
          assignments: [],
          configs: cfg({ 'segment.ms': 1500 }),
        },
        {
          name: COMPACTED_TOPIC,
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: cfg({
            'cleanup.policy': 'compact',
            'segment.ms': 1000,
            'min.cleanable.dirty.ratio': 0.01,
            'delete.retention.ms': 1000,
          }),
        },
        {
          name: RETAINED_TOPIC,
          numPartitions: 1,
          replicationFactor: 1,
          assignments: [],
          configs: cfg({ 'retention.ms': 3000, 'segment.ms': 1000 }),
        },
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

/** Checks 1–3 after a restart; returns the problems found. */
async function checkAfterRestart(
  port: number,
  acked: { value: string; partition: number; offset: bigint }[],
  lastAckedByKey: Map<string, number>,
): Promise<string[]> {
  const problems: string[] = [];
  const c = await RawClient.connect(port);
  try {
    const at = new Map<string, string>();
    const seen = new Map<string, string>();
    for (let p = 0; p < PARTITIONS; p++) {
      const r = await readPartition(c, CRASH_TOPIC, p);
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
          problems.push(
            `lost: ${a.value} acknowledged at ${a.partition}@${a.offset}, read there: ${found ?? 'nothing'}`,
          );
      }
    }
    if (lost > 10) problems.push(`lost: ${lost} acknowledged records in all`);

    const compacted = await readPartition(c, COMPACTED_TOPIC, 0);
    if (compacted.errorCode !== 0) problems.push(`${COMPACTED_TOPIC}: fetch error ${compacted.errorCode}`);
    const latest = new Map<string, number>();
    for (const rec of compacted.records) {
      const seq = Number(rec.value.slice(rec.value.indexOf(':') + 1));
      if (rec.key !== null && seq > (latest.get(rec.key) ?? -1)) latest.set(rec.key, seq);
    }
    for (const [key, seq] of lastAckedByKey)
      if ((latest.get(key) ?? -1) < seq)
        problems.push(`compacted: key ${key} acknowledged up to ${seq}, latest readable ${latest.get(key) ?? 'none'}`);

    const retained = await readPartition(c, RETAINED_TOPIC, 0);
    if (retained.errorCode !== 0) problems.push(`${RETAINED_TOPIC}: fetch error ${retained.errorCode}`);
    for (let i = 1; i < retained.records.length; i++)
      if (retained.records[i]!.offset <= retained.records[i - 1]!.offset) {
        problems.push(`${RETAINED_TOPIC}: offsets not increasing at ${retained.records[i]!.offset}`);
        break;
      }
  } finally {
    c.close();
  }
  return problems;
}

/** Check 4: the served image equals the replayed one (retried: the two are read at different moments). */
async function checkMetadata(broker: BrokerProcess): Promise<{ problems: string[]; records: number }> {
  const dir = join(broker.dataDir, 'logs', '__cluster_metadata-0');
  let last: string[] = [];
  let records = 0;
  for (let attempt = 0; attempt < 8; attempt++) {
    const before = await servedImage(broker.port);
    const replayed = await replayedImage(dir);
    const after = await servedImage(broker.port);
    records = replayed.records;
    if (before && after && diffImages(before, after).length === 0) {
      last = diffImages(after, replayed.image);
      if (last.length === 0) return { problems: [], records };
    } else last = ['the served image changed while it was read, or the broker did not answer'];
    await delay(250);
  }
  return { problems: last.map((l) => `metadata: ${l}`), records };
}

export async function runCrashPoints(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? ((line: string): void => console.log(line));
  const seed = crashSeed(opts.seed);
  const rnd = prng(seed);
  const minMs = opts.minMs ?? 300;
  const maxMs = opts.maxMs ?? 2500;
  const metaEvery = opts.metaEvery ?? 1;
  log(`crash: seed=${seed} points=${opts.points} (replay with CRASH_SEED=${seed})`);
  const t0 = Date.now();
  await ensureWorkloadCompiled();
  const dir = mkdtempSync(join(tmpdir(), 'tkafka-crash-'));
  const produced = join(dir, 'produce.history');
  const read = join(dir, 'read.history');
  const broker = await startBroker({ overrides: BROKER_OVERRIDES });
  const port = broker.port;
  let workload: ProduceWorkload | null = null;
  let side: SideLoad | null = null;
  let keep = false;
  const points: PointResult[] = [];
  const problems: string[] = [];
  let metadataChecks = 0;
  try {
    await createTopics(port);
    workload = new ProduceWorkload({
      bootstrap: broker.bootstrap,
      topic: CRASH_TOPIC,
      partitions: PARTITIONS,
      seed,
      historyFile: produced,
      idempotent: 2,
      transactional: 1,
      maxMs: opts.maxTotalMs + 10 * 60_000,
    });
    side = new SideLoad(() => broker.port, COMPACTED_TOPIC, RETAINED_TOPIC);
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
      // the moment of the crash: a seeded time into the load, not a condition
      await delay(waitMs);
      await broker.kill();
      // everything acknowledged before the kill: the history and the side load as they are now
      const history = parseHistory(completeLines(readText(produced)));
      const acked = ackedOf(history);
      const lastByKey = side.snapshot();
      const r0 = Date.now();
      await broker.restart();
      const restartMs = Date.now() - r0;
      if (broker.port !== port) throw new Error(`the broker came back on port ${broker.port}, not ${port}`);
      const found = await checkAfterRestart(port, acked, lastByKey);
      const metadataChecked = i % metaEvery === 0 || i === opts.points;
      if (metadataChecked) {
        const m = await checkMetadata(broker);
        metadataChecks++;
        found.push(...m.problems);
      }
      points.push({
        point: i,
        waitedMs: waitMs,
        restartMs,
        ackedBefore: acked.length,
        problems: found,
        metadataChecked,
      });
      for (const p of found) problems.push(`point ${i}: ${p}`);
      log(
        `crash: point ${i}/${opts.points} after ${waitMs} ms: restarted in ${restartMs} ms, ${acked.length} acknowledged ` +
          `records checked${metadataChecked ? ', metadata image compared' : ''}${found.length ? `: ${found.length} PROBLEMS\n  ${found.join('\n  ')}` : ''}`,
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
    await runWorkload(['consume', broker.bootstrap, CRASH_TOPIC, String(PARTITIONS), read, '1', '180000'], 240_000);
    const final = check(parseHistory(readText(produced) + '\n' + readText(read)));
    for (const p of final.problems) problems.push(`final: ${p}`);
    const m = await checkMetadata(broker);
    metadataChecks++;
    for (const p of m.problems) problems.push(`final: ${p}`);
    const c = await RawClient.connect(port);
    let retainedLogStart = 0n;
    let compactedRead = 0;
    try {
      retainedLogStart = (await readPartition(c, RETAINED_TOPIC, 0)).logStartOffset;
      compactedRead = (await readPartition(c, COMPACTED_TOPIC, 0)).records.length;
    } finally {
      c.close();
    }
    const output = broker.output();
    const activity: Record<string, number> = {};
    for (const [k, re] of Object.entries(ACTIVITY)) activity[k] = (output.match(re) ?? []).length;
    // segments of the crash topic now (segment.ms rolls them; none is deleted there)
    activity.crashSegments = readdirSync(join(broker.dataDir, 'logs'))
      .filter((d) => d.startsWith(`${CRASH_TOPIC}-`))
      .reduce((n, d) => n + readdirSync(join(broker.dataDir, 'logs', d)).filter((f) => f.endsWith('.log')).length, 0);
    const ok = problems.length === 0 && final.ok;
    const summary =
      `crash: seed=${seed} points=${points.length} metadata_checks=${metadataChecks} acked=${final.acked} lost=${final.lost} ` +
      `duplicated=${final.duplicated} reordered=${final.reordered} phantom=${final.phantom} ` +
      `txns=${final.txns.committed}c/${final.txns.aborted}a/${final.txns.unknown}u aborted_visible=${final.abortedVisible} ` +
      `partial_txns=${final.partialTxns} read=${final.read} compacted=${compactedRead}/${side.ackedCompacted} ` +
      `retained_log_start=${retainedLogStart} point_problems=${points.reduce((n, p) => n + p.problems.length, 0)} ` +
      `wall=${Math.round((Date.now() - t0) / 1000)}s ${ok ? 'OK' : 'FAILED'}`;
    log(summary);
    if (!ok) {
      keep = true;
      await broker.stop();
      cpSync(broker.dataDir, join(dir, 'broker'), { recursive: true });
      appendFileSync(join(dir, 'broker.log'), output);
      log(`crash: history, broker data and log kept in ${dir}; problems:\n  ${problems.slice(0, 50).join('\n  ')}`);
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
    appendFileSync(join(dir, 'broker.log'), broker.output());
    log(
      `crash: seed=${seed} run failed; history and broker log kept in ${dir}; broker output:\n${broker.output().slice(-3000)}`,
    );
    throw e;
  } finally {
    workload?.kill();
    await side?.stop();
    await broker.kill();
    if (!keep) {
      broker.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
