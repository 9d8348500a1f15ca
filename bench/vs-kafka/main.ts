// tkafka and Apache Kafka 4.4.0 side by side on this machine (issue 22): one combined node of each,
// started fresh for every round, loaded by the same clients (Kafka's own ProducerPerformance,
// ConsumerPerformance and EndToEndLatency from the 4.4.0 jars, and franz-load, a franz-go program
// that prints its own CPU time so its ceiling is known), rounds alternating the order; the table
// gives each figure's median over the rounds and the ratio tkafka / Kafka.
//   npm run bench:vs-kafka -- [--records N] [--rounds R] [--only kafka|tkafka] [--json FILE]
// Bounded: every load is a fixed record count, every tool run has a time-out; loopback only.
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { REPO_ROOT } from '../../test/helpers/spec-models.js';
import { consumerPerformance, endToEndLatency, producerPerformance, type ProduceLoad } from './java-perf.js';
import { startTarget, type Impl, type Target } from './targets.js';
import { ensureFranzLoad, franzConsume, franzProduce, type LoadFigures } from './franz-load.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const N = Number(arg('--records', '1000000'));
const ROUNDS = Number(arg('--rounds', '3'));
const ONLY = arg('--only', '');
const JSON_OUT = arg('--json', '');
const TOOL_RUNS = 5;
const E2E_RECORDS = Math.max(100, Math.min(5000, Math.floor(N / 200)));
const BIG = 10 * 1024;

/** One figure of the table: its name, unit, and whether more is better. */
interface Figure {
  name: string;
  unit: string;
  higherIsBetter: boolean;
}

const FIGURES = {
  p1acks1: { name: 'produce, 100 B, acks=1, 1 partition', unit: 'rec/s', higherIsBetter: true },
  p6acksAll: { name: 'produce, 100 B, acks=all, 6 partitions', unit: 'rec/s', higherIsBetter: true },
  p1big: { name: 'produce, 10 KiB, acks=1, 1 partition', unit: 'MB/s', higherIsBetter: true },
  p6lz4: { name: 'produce, 100 B, lz4, acks=1, 6 partitions', unit: 'rec/s', higherIsBetter: true },
  p6zstd: { name: 'produce, 100 B, zstd, acks=1, 6 partitions', unit: 'rec/s', higherIsBetter: true },
  p6acksAllP99: { name: 'produce acks=all p99 (6 partitions, full speed)', unit: 'ms', higherIsBetter: false },
  c1: { name: 'consume, 1 partition, from the start', unit: 'rec/s', higherIsBetter: true },
  c6: { name: 'consume, 6 partitions, from the start', unit: 'rec/s', higherIsBetter: true },
  fp1: { name: 'franz-go produce, 100 B, acks=1, 1 partition', unit: 'rec/s', higherIsBetter: true },
  fp6: { name: 'franz-go produce, 100 B, acks=all, 6 partitions, 2 clients', unit: 'rec/s', higherIsBetter: true },
  fc1: { name: 'franz-go consume, 1 partition', unit: 'rec/s', higherIsBetter: true },
  fc6: { name: 'franz-go consume, 6 partitions', unit: 'rec/s', higherIsBetter: true },
  fCeiling: {
    name: 'franz-go client ceiling, produce acks=1 (records per client CPU-second)',
    unit: 'rec/s',
    higherIsBetter: true,
  },
  cpuFp1: {
    name: 'broker CPU per 1 M records, franz-go produce acks=1, 1 partition',
    unit: 'CPU-ms',
    higherIsBetter: false,
  },
  cpuFp6: {
    name: 'broker CPU per 1 M records, franz-go produce acks=all, 6 partitions',
    unit: 'CPU-ms',
    higherIsBetter: false,
  },
  cpuFc1: { name: 'broker CPU per 1 M records, franz-go consume, 1 partition', unit: 'CPU-ms', higherIsBetter: false },
  cpuFc6: { name: 'broker CPU per 1 M records, franz-go consume, 6 partitions', unit: 'CPU-ms', higherIsBetter: false },
  e2eP50: { name: 'end-to-end latency p50 (EndToEndLatency, acks=all)', unit: 'ms', higherIsBetter: false },
  e2eP99: { name: 'end-to-end latency p99', unit: 'ms', higherIsBetter: false },
  e2eP999: { name: 'end-to-end latency p99.9', unit: 'ms', higherIsBetter: false },
  start: { name: 'restart to serving Metadata', unit: 'ms', higherIsBetter: false },
  toolList: { name: '`topics --list` (start to exit)', unit: 'ms', higherIsBetter: false },
  rss: { name: 'broker peak RSS after the round', unit: 'MiB', higherIsBetter: false },
} satisfies Record<string, Figure>;
type FigureKey = keyof typeof FIGURES;

type Sample = { impl: Impl; round: number; key: FigureKey; value: number };
const samples: Sample[] = [];

function record(impl: Impl, round: number, key: FigureKey, value: number): void {
  samples.push({ impl, round, key, value });
  console.log(`${impl}\tround ${round}\t${FIGURES[key].name}\t${fmt(value)} ${FIGURES[key].unit}`);
}

async function toolMedianMs(t: Target): Promise<number> {
  const argv = t.topicsListArgv();
  const times: number[] = [];
  for (let i = 0; i < TOOL_RUNS; i++) {
    const t0 = performance.now();
    const r = await execa(argv[0]!, argv.slice(1), { cwd: REPO_ROOT, reject: false, timeout: 60_000 });
    if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} exited ${r.exitCode}: ${r.stderr}`);
    times.push(performance.now() - t0);
  }
  return median(times);
}

async function round(impl: Impl, r: number): Promise<void> {
  const t = await startTarget(impl);
  try {
    const topics: Array<[string, number]> = [
      ['p1', 1],
      ['p6', 6],
      ['big', 1],
      ['lz4', 6],
      ['zstd', 6],
      ['e2e', 1],
      ['fp1', 1],
      ['fp6', 6],
    ];
    for (const [topic, parts] of topics) await t.createTopic(topic, parts);
    const franz = { records: N, size: 100, compression: 'none' as const };
    const load = (topic: string, o: Partial<ProduceLoad>): ProduceLoad => ({
      topic,
      records: N,
      recordSize: 100,
      acks: '1',
      compression: 'none',
      ...o,
    });
    record(impl, r, 'p1acks1', (await producerPerformance(t.bootstrap, load('p1', {}))).recsPerSec);
    const all = await producerPerformance(t.bootstrap, load('p6', { acks: 'all' }));
    record(impl, r, 'p6acksAll', all.recsPerSec);
    record(impl, r, 'p6acksAllP99', all.p99Ms);
    const bigRecords = Math.max(1000, Math.floor((N * 100) / BIG) * 2);
    const big = await producerPerformance(t.bootstrap, load('big', { records: bigRecords, recordSize: BIG }));
    record(impl, r, 'p1big', big.mbPerSec);
    record(impl, r, 'p6lz4', (await producerPerformance(t.bootstrap, load('lz4', { compression: 'lz4' }))).recsPerSec);
    const zstd = await producerPerformance(t.bootstrap, load('zstd', { compression: 'zstd' }));
    record(impl, r, 'p6zstd', zstd.recsPerSec);
    record(impl, r, 'c1', await consumerPerformance(t.bootstrap, 'p1', N));
    record(impl, r, 'c6', await consumerPerformance(t.bootstrap, 'p6', N));
    // the broker's own CPU time over each franz-go load: what serving a million records costs it,
    // whichever side of the loopback is the limit of the throughput
    const cpuMsPerMillion = async (cpuKey: FigureKey, load: () => Promise<LoadFigures>): Promise<LoadFigures> => {
      const before = t.cpuSeconds();
      const f = await load();
      record(impl, r, cpuKey, ((t.cpuSeconds() - before) * 1000 * 1e6) / f.records);
      return f;
    };
    const f1 = await cpuMsPerMillion('cpuFp1', () =>
      franzProduce(t.bootstrap, 'fp1', { ...franz, acks: '1', clients: 1 }),
    );
    record(impl, r, 'fp1', f1.recsPerSec);
    record(impl, r, 'fCeiling', f1.ceilingRecsPerCpuSec);
    const f6 = await cpuMsPerMillion('cpuFp6', () =>
      franzProduce(t.bootstrap, 'fp6', { ...franz, acks: 'all', clients: 2 }),
    );
    record(impl, r, 'fp6', f6.recsPerSec);
    record(impl, r, 'fc1', (await cpuMsPerMillion('cpuFc1', () => franzConsume(t.bootstrap, 'fp1', N))).recsPerSec);
    record(impl, r, 'fc6', (await cpuMsPerMillion('cpuFc6', () => franzConsume(t.bootstrap, 'fp6', N))).recsPerSec);
    const e2e = await endToEndLatency(t.bootstrap, 'e2e', E2E_RECORDS);
    record(impl, r, 'e2eP50', e2e.p50Ms);
    record(impl, r, 'e2eP99', e2e.p99Ms);
    record(impl, r, 'e2eP999', e2e.p999Ms);
    record(impl, r, 'toolList', await toolMedianMs(t));
    record(impl, r, 'rss', t.peakRssMiB());
    record(impl, r, 'start', await t.restartMs());
  } finally {
    await t.cleanup();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (v >= 100) return Math.round(v).toLocaleString('en-US');
  return v.toFixed(v >= 10 ? 1 : 2);
}

function table(): string {
  const lines = ['| figure | Apache Kafka 4.4.0 | tkafka | tkafka / Kafka |', '|---|---|---|---|'];
  for (const key of Object.keys(FIGURES) as FigureKey[]) {
    const f = FIGURES[key];
    const of = (impl: Impl) => samples.filter((s) => s.key === key && s.impl === impl).map((s) => s.value);
    const k = of('kafka');
    const tk = of('tkafka');
    const mk = k.length ? median(k) : NaN;
    const mt = tk.length ? median(tk) : NaN;
    const ratio = mt / mk;
    lines.push(
      `| ${f.name} | ${fmt(mk)} ${f.unit} | ${fmt(mt)} ${f.unit} | ${Number.isFinite(ratio) ? ratio.toFixed(2) : '—'} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(
    `${cpu.length} × ${cpu[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; ` +
      `${N.toLocaleString('en-US')} records of 100 B per produce run, ${ROUNDS} rounds alternating`,
  );
  await ensureFranzLoad();
  const impls: Impl[] = ['kafka', 'tkafka'];
  for (let r = 1; r <= ROUNDS; r++) {
    for (const impl of r % 2 ? impls : [...impls].reverse()) {
      if (ONLY && impl !== ONLY) continue;
      await round(impl, r);
    }
  }
  const out = table();
  console.log(`\nmedians of ${ROUNDS} rounds:\n${out}`);
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify({ records: N, rounds: ROUNDS, samples }, null, 1));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
