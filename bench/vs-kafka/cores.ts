// One core against two (issue 22 item 3): a many-partition, many-connection produce load on one
// combined node of each implementation, with the broker pinned (`taskset -a -p`, every thread) to
// core 0, then to cores 0 and 1. The machine has two cores, so the client shares them: every
// franz-load process is pinned to core 1 in both cases, so the 1-core figure is the broker alone
// on its own core, and in the 2-core case the broker gets core 0 plus whatever the client leaves
// of core 1. Besides the rates it prints the CPU time each side spent per record (the broker's from
// /proc/<pid>/stat, the client's from franz-load's getrusage) and what those costs allow: the
// broker alone on a core (1/b), the client alone on its core (1/c) and both sharing two cores
// (2/(b+c)). When the client costs more per record than the broker (c > b), the 1-core figure is
// already the client's limit, and no broker design can show its own scaling on this machine.
// The rates depend on what else the machine runs; the CPU costs per record much less.
//   npm run bench:cores -- [--records N] [--rounds R] [--partitions P] [--procs N] [--clients N]
//                          [--size B] [--only kafka|tkafka] [--json FILE] [--cpu-prof DIR]
// --cpu-prof DIR writes a V8 CPU profile of each tkafka broker into DIR;
// `node scripts/cpuprofile-shares.mjs FILE` splits its busy time by the produce path's parts.
// Bounded: every load is a fixed record count with franz-load's own deadline; loopback only.
import { writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { ensureFranzLoad, FRANZ_LOAD_BIN, type LoadFigures } from './franz-load.js';
import { startTarget, type Impl, type Target } from './targets.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const N = Number(arg('--records', '3000000'));
const ROUNDS = Number(arg('--rounds', '3'));
const PARTITIONS = Number(arg('--partitions', '24'));
const PROCS = Number(arg('--procs', '2'));
const CLIENTS = Number(arg('--clients', '4'));
const SIZE = Number(arg('--size', '100'));
const ONLY = arg('--only', '');
const JSON_OUT = arg('--json', '');
/** a directory for a --cpu-prof of every tkafka broker started (written when it stops) */
const CPU_PROF = arg('--cpu-prof', '');
/** the client's core; the broker gets BROKER_CORES[k] */
const CLIENT_CPU = '1';
const BROKER_CORES = ['0', '0,1'] as const;
type Cores = (typeof BROKER_CORES)[number];
const ACKS = ['1', 'all'] as const;
type Acks = (typeof ACKS)[number];

interface Run {
  impl: Impl;
  cores: Cores;
  acks: Acks;
  recsPerSec: number;
  brokerCpuUsPerRec: number;
  clientCpuUsPerRec: number;
  brokerCoresBusy: number;
}

async function pin(pid: number, cores: Cores): Promise<void> {
  const r = await execa('taskset', ['-a', '-p', '-c', cores, String(pid)], { reject: false });
  if (r.exitCode !== 0) throw new Error(`taskset -a -p -c ${cores} ${pid}: ${r.stderr}`);
}

/** PROCS franz-load processes on the client core, CLIENTS connections each, N records in all. */
async function load(
  target: Target,
  topic: string,
  records: number,
  acks: Acks,
): Promise<{ rate: number; clientCpu: number; seconds: number }> {
  const runs = Array.from({ length: PROCS }, (_, i) => {
    const n = Math.floor((records * (i + 1)) / PROCS) - Math.floor((records * i) / PROCS);
    return execa(
      'taskset',
      [
        '-c',
        CLIENT_CPU,
        FRANZ_LOAD_BIN,
        'produce',
        target.bootstrap,
        topic,
        String(n),
        String(SIZE),
        acks,
        'none',
        String(CLIENTS),
      ],
      { reject: false, timeout: 900_000 },
    );
  });
  const figures: LoadFigures[] = [];
  for (const r of await Promise.all(runs)) {
    if (r.exitCode !== 0) throw new Error(`franz-load exited ${r.exitCode}: ${r.stderr}`);
    figures.push(JSON.parse(String(r.stdout).trim().split('\n').at(-1)!) as LoadFigures);
  }
  const seconds = Math.max(...figures.map((f) => f.seconds));
  return { rate: records / seconds, clientCpu: figures.reduce((s, f) => s + f.cpuSeconds, 0), seconds };
}

async function measure(target: Target, round: number, cores: Cores, acks: Acks): Promise<Run> {
  const pid = target.pid();
  if (pid === undefined) throw new Error(`${target.impl} is not running`);
  await pin(pid, cores);
  const topic = `cores-${round}-${cores.replace(',', '')}-${acks}`;
  await target.createTopic(topic, PARTITIONS);
  const cpu0 = target.cpuSeconds();
  const t0 = performance.now();
  const r = await load(target, topic, N, acks);
  const wall = (performance.now() - t0) / 1000;
  const brokerCpu = target.cpuSeconds() - cpu0;
  return {
    impl: target.impl,
    cores,
    acks,
    recsPerSec: r.rate,
    brokerCpuUsPerRec: (brokerCpu / N) * 1e6,
    clientCpuUsPerRec: (r.clientCpu / N) * 1e6,
    brokerCoresBusy: brokerCpu / wall,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  await ensureFranzLoad();
  const impls: Impl[] = ONLY === 'kafka' || ONLY === 'tkafka' ? [ONLY] : ['kafka', 'tkafka'];
  console.log(
    `# ${N} records of ${SIZE} B per run, ${PARTITIONS} partitions, ${PROCS} franz-load processes x ${CLIENTS} clients on core ${CLIENT_CPU}; ${ROUNDS} rounds`,
  );
  const runs: Run[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? impls : [...impls].reverse();
    for (const impl of order) {
      const target = await startTarget(impl, CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF] : []);
      try {
        // a warm-up load (JIT, page cache, connections), not counted
        await pin(target.pid()!, '0,1');
        await target.createTopic(`cores-warm-${round}`, PARTITIONS);
        await load(target, `cores-warm-${round}`, Math.min(N, 500_000), '1');
        const coreOrder = round % 2 ? BROKER_CORES : [...BROKER_CORES].reverse();
        for (const cores of coreOrder)
          for (const acks of ACKS) {
            const r = await measure(target, round, cores, acks);
            runs.push(r);
            console.log(
              `round ${round} ${impl.padEnd(6)} cores ${cores.padEnd(3)} acks=${acks.padEnd(3)} ${fmt(r.recsPerSec).padStart(10)} rec/s  broker ${fmt(r.brokerCpuUsPerRec, 3)} us/rec (${fmt(r.brokerCoresBusy, 2)} cores busy)  client ${fmt(r.clientCpuUsPerRec, 3)} us/rec`,
            );
          }
      } finally {
        await target.cleanup();
      }
    }
  }
  console.log(
    '\n| broker | acks | 1 core (rec/s) | 2 cores (rec/s) | 2 / 1 | broker CPU µs/rec (1 / 2 cores) | client CPU µs/rec | broker alone on a core, 1/b | client alone on a core, 1/c | both on 2 cores, 2/(b+c) |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const impl of impls)
    for (const acks of ACKS) {
      const sel = (cores: Cores) => runs.filter((r) => r.impl === impl && r.acks === acks && r.cores === cores);
      const one = sel('0');
      const two = sel('0,1');
      const r1 = median(one.map((r) => r.recsPerSec));
      const r2 = median(two.map((r) => r.recsPerSec));
      const b1 = median(one.map((r) => r.brokerCpuUsPerRec));
      const b2 = median(two.map((r) => r.brokerCpuUsPerRec));
      const b = median([...one, ...two].map((r) => r.brokerCpuUsPerRec));
      const c = median([...one, ...two].map((r) => r.clientCpuUsPerRec));
      console.log(
        `| ${impl} | ${acks} | ${fmt(r1)} | ${fmt(r2)} | ${fmt(r2 / r1, 2)} | ${fmt(b1, 2)} / ${fmt(b2, 2)} | ${fmt(c, 2)} | ${fmt(1e6 / b)} | ${fmt(1e6 / c)} | ${fmt(2e6 / (b + c))} |`,
      );
    }
  if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(runs, null, 2));
}

await main();
