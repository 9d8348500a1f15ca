// The broker's peak RSS under a produce-and-consume sequence, for the launcher's memory option
// (bin/tkafka's first line; README, Memory) and without them. For each variant and round: a fresh
// broker started through bin/tkafka, Kafka's ProducerPerformance with N records of 100 B into a
// 6-partition lz4 topic and a 6-partition zstd topic, a franz-go produce of N records into one
// partition and a consume of them; then the broker's VmHWM and its CPU time over the loads.
// Variants alternate within each round.
//   npm run build && node dist/bench/memory.bench.js [--records N] [--rounds R]
// Bounded: fixed record counts, every tool run has a time-out; loopback only.
import { cpus } from 'node:os';
import { execa } from 'execa';
import { join } from 'node:path';
import { startBroker } from '../test/helpers/broker-process.js';
import { REPO_ROOT } from '../test/helpers/spec-models.js';
import { producerPerformance } from './vs-kafka/java-perf.js';
import { ensureFranzLoad, franzConsume, franzProduce } from './vs-kafka/franz-load.js';
import { processCpuSeconds, vmHwmMiB } from './vs-kafka/targets.js';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : dflt;
};
const N = Number(arg('--records', '1000000'));
const ROUNDS = Number(arg('--rounds', '2'));

// glibc's own default is 8 arenas per core
const VARIANTS: Array<[string, Record<string, string>]> = [
  ['no options', { MALLOC_ARENA_MAX: String(8 * cpus().length) }],
  ['the launcher (MALLOC_ARENA_MAX=2)', {}],
  ['the launcher, TKAFKA_NODE_OPTS=--max-semi-space-size=2', { TKAFKA_NODE_OPTS: '--max-semi-space-size=2' }],
];

async function topic(bootstrap: string, name: string, partitions: number): Promise<void> {
  const args = ['topics', '--bootstrap-server', bootstrap, '--create', '--topic', name];
  const r = await execa(join(REPO_ROOT, 'bin', 'tkafka'), [...args, '--partitions', String(partitions)], {
    reject: false,
    timeout: 60_000,
  });
  if (r.exitCode !== 0) throw new Error(`topics --create ${name}: ${r.stderr}`);
}

async function measure(env: Record<string, string>): Promise<{ hwm: number; cpu: number }> {
  const b = await startBroker({ env, overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  try {
    const cpu0 = processCpuSeconds(b.pid());
    for (const codec of ['lz4', 'zstd'] as const) {
      await topic(b.bootstrap, codec, 6);
      const load = { topic: codec, records: N, recordSize: 100, acks: '1', compression: codec } as const;
      await producerPerformance(b.bootstrap, load);
    }
    await topic(b.bootstrap, 'fp1', 1);
    await franzProduce(b.bootstrap, 'fp1', { records: N, size: 100, acks: '1', compression: 'none', clients: 1 });
    await franzConsume(b.bootstrap, 'fp1', N);
    return { hwm: vmHwmMiB(b.pid()), cpu: processCpuSeconds(b.pid()) - cpu0 };
  } finally {
    await b.stop();
    b.cleanup();
  }
}

await ensureFranzLoad();
const results = new Map<string, string[]>(VARIANTS.map(([name]) => [name, []]));
for (let r = 1; r <= ROUNDS; r++) {
  for (const [name, env] of r % 2 ? VARIANTS : [...VARIANTS].reverse()) {
    const m = await measure(env);
    const line = `${m.hwm.toFixed(0)} MiB (broker CPU ${m.cpu.toFixed(1)} s)`;
    console.log(`round ${r}\t${name}\t${line}`);
    results.get(name)!.push(line);
  }
}
console.log(`\npeak RSS after the sequence (${N.toLocaleString('en-US')} records per load), per round:`);
for (const [name, lines] of results) console.log(`${name.padEnd(60)} ${lines.join(', ')}`);
