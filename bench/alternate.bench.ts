// Start-to-exit time of a few commands run in turn (one of each, then again), so that a busy
// machine weighs on all of them alike: medians of the wall time, and of the CPU time (user + sys,
// 10 ms ticks) where /usr/bin/time exists. The first command is the floor the others are divided by
// (`node -e 0`). Each runs with the environment {PATH} only, as the benches run tkafka. A failing
// command stops the bench. Two warm-up rounds are not counted.
//   node dist/bench/alternate.bench.js RUNS 'label=command arg ...' ...
// e.g. (README, Start-up) with a broker on 127.0.0.1:9092:
//   node dist/bench/alternate.bench.js 21 'node=node -e 0' \
//     'tkafka=node bin/tkafka topics --bootstrap-server 127.0.0.1:9092 --list'
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

const TIME = '/usr/bin/time';
const runs = Number(process.argv[2]);
const cases = process.argv.slice(3).map((s) => {
  const i = s.indexOf('=');
  return { label: s.slice(0, i), argv: s.slice(i + 1).split(' ') };
});
if (!(runs > 0) || cases.length === 0 || cases.some((c) => c.label === '' || c.argv[0] === '')) {
  console.error("usage: node dist/bench/alternate.bench.js RUNS 'label=command arg ...' ...");
  process.exit(2);
}
const withCpu = existsSync(TIME);
const wall = cases.map((): number[] => []);
const cpu = cases.map((): number[] => []);

function once(index: number, counted: boolean): void {
  const { argv } = cases[index]!;
  const [cmd, ...args] = withCpu ? [TIME, '-f', 'CPU %U %S', ...argv] : argv;
  const t0 = performance.now();
  const r = spawnSync(cmd!, args, { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (!counted) return;
  wall[index]!.push(ms);
  const m = /CPU (\S+) (\S+)\s*$/.exec(r.stderr);
  if (m) cpu[index]!.push((Number(m[1]) + Number(m[2])) * 1000);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

for (let w = 0; w < 2; w++) cases.forEach((_, i) => once(i, false));
for (let r = 0; r < runs; r++) cases.forEach((_, i) => once(i, true));

const floor = median(wall[0]!);
console.log(
  `${runs} alternating runs each, env {PATH}; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
cases.forEach(({ label }, i) => {
  const w = wall[i]!;
  const line = [
    label.padEnd(14),
    `wall median ${median(w).toFixed(0).padStart(4)} ms (${(median(w) / floor).toFixed(2)}x)`,
    `min ${Math.min(...w)
      .toFixed(0)
      .padStart(4)} ms`,
    cpu[i]!.length ? `cpu median ${median(cpu[i]!).toFixed(0).padStart(4)} ms` : '',
  ];
  console.log(line.join('   '));
});
